//! Text on bitmaps. plotters 0.3.7 draws ab_glyph text without the glyphs'
//! left side bearings, so digits come out unevenly spaced ("0.5 45"). This
//! wrapper lays text out itself with ab_glyph (advances, kerning and
//! bearings) and hands every other call to the wrapped backend unchanged.
//! SVG needs no such help: its text is drawn by the viewer.

use ab_glyph::{Font, FontRef, Glyph, PxScale, ScaleFont, point};
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind};

/// A backend whose text is drawn with `font`, whatever family is asked for
/// (the figures use one font only).
pub(super) struct GlyphText<B> {
    inner: B,
    font: FontRef<'static>,
}

/// One line of text laid out from its top left corner.
struct Layout {
    glyphs: Vec<Glyph>,
    width: f32,
    height: f32,
}

impl<B> GlyphText<B> {
    pub fn new(inner: B, font: FontRef<'static>) -> GlyphText<B> {
        GlyphText { inner, font }
    }

    fn layout(&self, text: &str, size: f64) -> Layout {
        let font = self.font.as_scaled(PxScale::from(size as f32));
        let mut glyphs = Vec::with_capacity(text.len());
        let mut pen = 0.0;
        let mut previous = None;
        for c in text.chars() {
            let id = font.glyph_id(c);
            if let Some(p) = previous {
                pen += font.kern(p, id);
            }
            glyphs.push(id.with_scale_and_position(font.scale(), point(pen, font.ascent())));
            pen += font.h_advance(id);
            previous = Some(id);
        }
        Layout { glyphs, width: pen, height: font.ascent() - font.descent() }
    }
}

impl<B: DrawingBackend> DrawingBackend for GlyphText<B> {
    type ErrorType = B::ErrorType;

    fn draw_text<S: BackendTextStyle>(&mut self, text: &str, style: &S, pos: BackendCoord) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let colour = style.color();
        if colour.alpha == 0.0 {
            return Ok(());
        }
        let layout = self.layout(text, style.size());
        let (width, height) = (layout.width.round() as i32, layout.height.round() as i32);
        // The anchor moves the text before it is turned, as in plotters.
        let anchor = style.anchor();
        let dx = match anchor.h_pos {
            HPos::Left => 0,
            HPos::Center => -width / 2,
            HPos::Right => -width,
        };
        let dy = match anchor.v_pos {
            VPos::Top => 0,
            VPos::Center => -height / 2,
            VPos::Bottom => -height,
        };
        let turn = style.transform();
        for glyph in layout.glyphs {
            let Some(outline) = self.font.outline_glyph(glyph) else { continue };
            let corner = outline.px_bounds().min;
            let (x0, y0) = (corner.x as i32 + dx, corner.y as i32 + dy);
            let mut result = Ok(());
            outline.draw(|x, y, coverage| {
                if result.is_err() || coverage <= 0.0 {
                    return;
                }
                let (tx, ty) = turn.transform(x0 + x as i32, y0 + y as i32);
                let ink = BackendColor { alpha: colour.alpha * f64::from(coverage.min(1.0)), rgb: colour.rgb };
                result = self.inner.draw_pixel((pos.0 + tx, pos.1 + ty), ink);
            });
            result?;
        }
        Ok(())
    }

    fn estimate_text_size<S: BackendTextStyle>(&self, text: &str, style: &S) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
        let layout = self.layout(text, style.size());
        Ok((layout.width.ceil() as u32, layout.height.ceil() as u32))
    }

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.present()
    }

    fn draw_pixel(&mut self, point: BackendCoord, colour: BackendColor) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_pixel(point, colour)
    }

    fn draw_line<S: BackendStyle>(&mut self, from: BackendCoord, to: BackendCoord, style: &S) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_path(path, style)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vertices: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.fill_polygon(vertices, style)
    }

    fn blit_bitmap(&mut self, pos: BackendCoord, size: (u32, u32), src: &[u8]) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.blit_bitmap(pos, size, src)
    }
}
