//! What the three figures share: the output formats, the bundled font, text
//! styles and colours, the legend box, and the small geometry the drawing
//! library leaves to its users (ranges, tick labels, clipping).

use std::error::Error;
use std::io::Write;
use std::path::Path;
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::PlotError;
use super::bitmap_text::GlyphText;
use crate::atomic::{AtomicFile, OutputError};

/// The family every text is drawn in. The bundled font is registered under
/// the generic name, so SVG files ask their viewer for `sans-serif`.
const FAMILY: &str = "sans-serif";

/// DejaVu Sans cut to Latin, Greek, Cyrillic and the symbols the labels use
/// (56 KB instead of 740 KB); see `fonts/README.md`.
static FONT: &[u8] = include_bytes!("fonts/DejaVuSans-subset.ttf");

/// The outcome of drawing; the drawing library's errors are generic over
/// the backend, so they are boxed here and wrapped once in [`render`].
pub(super) type DrawResult = Result<(), Box<dyn Error + Send + Sync>>;

/// A figure that can be drawn on any backend.
pub(super) trait Plot {
    /// Width and height in pixels (SVG user units).
    fn size(&self) -> (u32, u32);
    /// Draws everything on a blank area of [`Plot::size`].
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static;
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Format {
    Svg,
    Png,
}

impl Format {
    fn of(path: &Path) -> Result<Format, PlotError> {
        let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("svg") => Ok(Format::Svg),
            Some("png") => Ok(Format::Png),
            _ => Err(PlotError::UnknownFormat { path: path.display().to_string() }),
        }
    }
}

/// Draws `plot` and writes it to `path` atomically, in the format of its
/// extension.
pub(super) fn render(plot: &impl Plot, path: &Path) -> Result<(), PlotError> {
    let format = Format::of(path)?;
    register_font()?;
    // Created before drawing so that a bad output path fails first.
    let mut file = AtomicFile::create(path)?;
    let draw_error = |source| PlotError::Draw { path: path.display().to_string(), source };
    let (width, height) = plot.size();
    match format {
        Format::Svg => {
            let mut svg = String::new();
            {
                let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
                plot.draw(&root).map_err(draw_error)?;
                root.present().map_err(|e| draw_error(e.into()))?;
            }
            // The mark that lets a later run replace this figure without --force.
            let marked = format!("{}\n{svg}", crate::atomic::FIGURE_SVG_MARK);
            file.write_all(marked.as_bytes()).map_err(|e| OutputError::new(path, e))?;
        }
        Format::Png => {
            let font = ab_glyph::FontRef::try_from_slice(FONT).map_err(|_| PlotError::Font)?;
            let mut pixels = vec![0u8; width as usize * height as usize * 3];
            {
                let bitmap = BitMapBackend::with_buffer(&mut pixels, (width, height));
                let root = GlyphText::new(bitmap, font).into_drawing_area();
                plot.draw(&root).map_err(draw_error)?;
                root.present().map_err(|e| draw_error(e.into()))?;
            }
            let png_error = |source| PlotError::Png { path: path.display().to_string(), source };
            let mut encoder = png::Encoder::new(&mut file, width, height);
            encoder.set_color(png::ColorType::Rgb);
            encoder.set_depth(png::BitDepth::Eight);
            // The mark that lets a later run replace this figure without --force.
            encoder.add_text_chunk("Software".into(), "pgntune".into()).map_err(png_error)?;
            let mut writer = encoder.write_header().map_err(png_error)?;
            writer.write_image_data(&pixels).map_err(png_error)?;
            writer.finish().map_err(png_error)?;
        }
    }
    file.commit()?;
    Ok(())
}

/// Registers the bundled font once per process.
fn register_font() -> Result<(), PlotError> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| plotters::style::register_font(FAMILY, FontStyle::Normal, FONT).is_ok());
    if ok { Ok(()) } else { Err(PlotError::Font) }
}

/// Font sizes, in pixels, for figures about 1200 pixels wide.
pub(super) const TITLE: f64 = 30.0;
pub(super) const HEADING: f64 = 22.0;
pub(super) const AXIS: f64 = 20.0;
pub(super) const TICK: f64 = 17.0;
pub(super) const LEGEND: f64 = 17.0;

/// Draws `title` centred at the top of `root`, shortened if it is wider
/// than the figure, and returns the area below it; an empty title takes no
/// room.
pub(super) fn titled<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, title: &str) -> Result<DrawingArea<DB, Shift>, Box<dyn Error + Send + Sync>>
where
    DB::ErrorType: 'static,
{
    if title.is_empty() {
        return Ok(root.clone().margin(10, 0, 0, 0));
    }
    let style = anchored(TITLE, HPos::Center, VPos::Top);
    let (w, _) = root.dim_in_pixel();
    let title = fit_text(root, title, &style, w.saturating_sub(40))?;
    let (_, h) = root.estimate_text_size(&title, &style)?;
    root.draw_text(&title, &style, (w as i32 / 2, 14))?;
    Ok(root.split_vertically(h as i32 + 26).1)
}

/// Black text of `size` pixels.
pub(super) fn text(size: f64) -> TextStyle<'static> {
    TextStyle::from((FAMILY, size).into_font()).color(&BLACK)
}

/// Text of `size` pixels anchored at `h`, `v`.
pub(super) fn anchored(size: f64, h: HPos, v: VPos) -> TextStyle<'static> {
    text(size).pos(Pos::new(h, v))
}

/// Grid lines: light for minor ticks, a little darker for major ones.
pub(super) const GRID_LIGHT: RGBColor = RGBColor(238, 238, 238);
pub(super) const GRID_BOLD: RGBColor = RGBColor(212, 212, 212);
/// Guides such as the 50% line.
pub(super) const GUIDE: RGBColor = RGBColor(150, 150, 150);

/// Ten colours that stay apart on white and for most colour-blind readers
/// (the "tab10" set of matplotlib and Vega).
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// The `i`-th colour of the palette, cycling.
pub(super) fn colour(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// How one legend entry is drawn.
#[derive(Clone, Copy, Debug)]
pub(super) enum Swatch {
    /// A solid line.
    Line(RGBColor),
    /// A dashed line.
    Dashed(RGBColor),
    /// A filled circle of the given radius.
    Marker(RGBColor, u32),
    /// A filled circle with an error bar through it.
    MarkerWithBar(RGBColor, u32, bool),
}

/// A framed box of swatches and labels, with an optional heading.
pub(super) struct Legend {
    pub heading: Option<String>,
    pub entries: Vec<(Swatch, String)>,
}

const SWATCH_WIDTH: i32 = 36;
const LEGEND_PAD: i32 = 10;
const LEGEND_GAP: i32 = 8;

impl Legend {
    fn row_height(&self) -> i32 {
        let tallest = self.entries.iter().map(|(s, _)| match s {
            Swatch::Marker(_, r) | Swatch::MarkerWithBar(_, r, _) => 2 * *r as i32 + 4,
            _ => 0,
        });
        tallest.max().unwrap_or(0).max(LEGEND as i32 + 6)
    }

    /// Width and height of the box in pixels.
    pub fn size<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(i32, i32), Box<dyn Error + Send + Sync>>
    where
        DB::ErrorType: 'static,
    {
        let mut width = 0;
        for (_, label) in &self.entries {
            width = width.max(SWATCH_WIDTH + LEGEND_GAP + area.estimate_text_size(label, &text(LEGEND))?.0 as i32);
        }
        let mut height = self.entries.len() as i32 * self.row_height();
        if let Some(heading) = &self.heading {
            width = width.max(area.estimate_text_size(heading, &text(LEGEND))?.0 as i32);
            height += self.row_height();
        }
        Ok((width + 2 * LEGEND_PAD, height + 2 * LEGEND_PAD))
    }

    /// Draws the box with its top left corner at `(x, y)` of `area`.
    pub fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>, (x, y): (i32, i32)) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let (w, h) = self.size(area)?;
        area.draw(&Rectangle::new([(x, y), (x + w, y + h)], WHITE.mix(0.92).filled()))?;
        area.draw(&Rectangle::new([(x, y), (x + w, y + h)], GUIDE.stroke_width(1)))?;
        let row = self.row_height();
        let mut mid = y + LEGEND_PAD + row / 2;
        let left = x + LEGEND_PAD;
        if let Some(heading) = &self.heading {
            area.draw_text(heading, &anchored(LEGEND, HPos::Left, VPos::Center), (left, mid))?;
            mid += row;
        }
        for (swatch, label) in &self.entries {
            let (x0, x1, xc) = (left, left + SWATCH_WIDTH, left + SWATCH_WIDTH / 2);
            match *swatch {
                Swatch::Line(c) => area.draw(&PathElement::new(vec![(x0, mid), (x1, mid)], c.stroke_width(3)))?,
                Swatch::Dashed(c) => area.draw(&DashedPathElement::new(vec![(x0, mid), (x1, mid)], 7, 4, c.stroke_width(2)))?,
                Swatch::Marker(c, r) => area.draw(&Circle::new((xc, mid), r, c.filled()))?,
                Swatch::MarkerWithBar(c, r, vertical) => {
                    let half = row / 2 - 1;
                    let (a, b) = if vertical { ((xc, mid - half), (xc, mid + half)) } else { ((xc - 14, mid), (xc + 14, mid)) };
                    area.draw(&PathElement::new(vec![a, b], c.stroke_width(2)))?;
                    area.draw(&Circle::new((xc, mid), r, c.filled()))?;
                }
            }
            area.draw_text(label, &anchored(LEGEND, HPos::Left, VPos::Center), (x1 + LEGEND_GAP, mid))?;
            mid += row;
        }
        Ok(())
    }
}

/// `(lo, hi)` widened by `fraction` of its span on each side; a single
/// value becomes a unit-wide range around it.
pub(super) fn padded((lo, hi): (f64, f64), fraction: f64) -> (f64, f64) {
    let span = hi - lo;
    if span > 0.0 {
        (lo - fraction * span, hi + fraction * span)
    } else {
        let half = if lo == 0.0 { 0.5 } else { lo.abs() * 0.05 };
        (lo - half, hi + half)
    }
}

/// Values beyond this are drawn as missing: an axis spanning most of the
/// `f64` range overflows (and sends the drawing library's tick search into
/// an endless loop), and no fit produces such numbers.
const LIMIT: f64 = 1e100;

/// Whether `v` can be placed on an axis.
pub(super) fn drawable(v: f64) -> bool {
    v.is_finite() && v.abs() <= LIMIT
}

/// The smallest and largest of the [`drawable`] `values`, if any.
pub(super) fn finite_range(values: impl IntoIterator<Item = f64>) -> Option<(f64, f64)> {
    values.into_iter().filter(|&v| drawable(v)).fold(None, |acc, v| Some(acc.map_or((v, v), |(lo, hi): (f64, f64)| (lo.min(v), hi.max(v)))))
}

/// Decimals that tell apart ticks on an axis spanning `span`.
pub(super) fn decimals(span: f64) -> usize {
    if span.is_nan() || span <= 0.0 {
        return 0;
    }
    (0.5 - span.log10()).ceil().clamp(0.0, 6.0) as usize
}

/// `v` with `decimals` decimals and a true minus sign.
pub(super) fn number(v: f64, decimals: usize) -> String {
    let s = format!("{v:.decimals$}");
    // "-0" and "-0.0" are zero.
    if s.trim_start_matches('-').chars().all(|c| c == '0' || c == '.') {
        return s.trim_start_matches('-').to_string();
    }
    s.replace('-', "\u{2212}")
}

/// `v` with `digits` significant digits (at least none after the point).
pub(super) fn significant(v: f64, digits: i32) -> String {
    let magnitude = if v == 0.0 { 0 } else { v.abs().log10().floor() as i32 };
    number(v, (digits - 1 - magnitude).clamp(0, 12) as usize)
}

/// `text`, shortened with an ellipsis to fit in `max_width` pixels.
pub(super) fn fit_text<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    style: &TextStyle,
    max_width: u32,
) -> Result<String, Box<dyn Error + Send + Sync>>
where
    DB::ErrorType: 'static,
{
    if area.estimate_text_size(text, style)?.0 <= max_width {
        return Ok(text.to_string());
    }
    let mut chars: Vec<char> = text.chars().collect();
    while !chars.is_empty() {
        chars.pop();
        let short = format!("{}…", chars.iter().collect::<String>().trim_end());
        if area.estimate_text_size(&short, style)?.0 <= max_width {
            return Ok(short);
        }
    }
    Ok("…".into())
}

/// `text` cut to at most `max` characters, the last an ellipsis.
pub(super) fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let kept: String = text.chars().take(max.saturating_sub(1)).collect();
    format!("{}…", kept.trim_end())
}

/// `n` with thousands separated by commas.
pub(super) fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Splits a polyline at points that are not [`drawable`] and clips it to
/// `lo <= y <= hi`, since the drawing library does not clip to the plotting
/// area. With `log_x` the cut points are placed on the logarithmic axis.
/// Only pieces of two points or more are kept.
pub(super) fn clip_polyline(points: &[(f64, f64)], (lo, hi): (f64, f64), log_x: bool) -> Vec<Vec<(f64, f64)>> {
    let mut pieces = Vec::new();
    let mut piece: Vec<(f64, f64)> = Vec::new();
    let flush = |piece: &mut Vec<(f64, f64)>, pieces: &mut Vec<Vec<(f64, f64)>>| {
        if piece.len() >= 2 {
            pieces.push(std::mem::take(piece));
        }
        piece.clear();
    };
    let mut previous: Option<(f64, f64)> = None;
    for &p in points {
        if !(drawable(p.0) && drawable(p.1)) || (log_x && p.0 <= 0.0) {
            flush(&mut piece, &mut pieces);
            previous = None;
            continue;
        }
        match previous {
            None if (lo..=hi).contains(&p.1) => piece.push(p),
            None => {}
            Some(q) => match clip_segment(q, p, (lo, hi), log_x) {
                None => flush(&mut piece, &mut pieces),
                Some((a, b)) => {
                    if piece.last() != Some(&a) {
                        flush(&mut piece, &mut pieces);
                        piece.push(a);
                    }
                    piece.push(b);
                    if b != p {
                        flush(&mut piece, &mut pieces);
                    }
                }
            },
        }
        previous = Some(p);
    }
    flush(&mut piece, &mut pieces);
    pieces
}

/// The part of the segment `q`–`p` with `lo <= y <= hi`, if any; the ends
/// that need no cut are returned unchanged.
fn clip_segment(q: (f64, f64), p: (f64, f64), (lo, hi): (f64, f64), log_x: bool) -> Option<((f64, f64), (f64, f64))> {
    let dy = p.1 - q.1;
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    if dy == 0.0 {
        if q.1 < lo || q.1 > hi {
            return None;
        }
    } else {
        let (a, b) = ((lo - q.1) / dy, (hi - q.1) / dy);
        t0 = t0.max(a.min(b));
        t1 = t1.min(a.max(b));
        if t0 > t1 {
            return None;
        }
    }
    let at = |t: f64| {
        if t == 0.0 {
            q
        } else if t == 1.0 {
            p
        } else if log_x {
            ((q.0.ln() + t * (p.0.ln() - q.0.ln())).exp(), q.1 + t * dy)
        } else {
            (q.0 + t * (p.0 - q.0), q.1 + t * dy)
        }
    };
    Some((at(t0), at(t1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_comes_from_the_extension_in_any_case() {
        assert_eq!(Format::of(Path::new("a/b.SVG")).unwrap(), Format::Svg);
        assert_eq!(Format::of(Path::new("b.png")).unwrap(), Format::Png);
        assert!(Format::of(Path::new("b.pdf")).is_err());
        assert!(Format::of(Path::new("png")).is_err());
    }

    #[test]
    fn numbers_use_a_minus_sign_and_no_negative_zero() {
        assert_eq!(number(-3.0, 0), "\u{2212}3");
        assert_eq!(number(-0.01, 1), "0.0");
        assert_eq!(number(0.25, 2), "0.25");
        assert_eq!(count(1234567), "1,234,567");
        assert_eq!(count(999), "999");
        assert_eq!(shorten("pawn shield", 20), "pawn shield");
        assert_eq!(shorten("pawn shield", 6), "pawn…");
        assert_eq!(significant(0.587123, 4), "0.5871");
        assert_eq!(significant(1234.6, 4), "1235");
    }

    #[test]
    fn decimals_follow_the_span() {
        assert_eq!(decimals(1000.0), 0);
        assert_eq!(decimals(10.0), 0);
        assert_eq!(decimals(1.0), 1);
        assert_eq!(decimals(0.11), 2);
        assert_eq!(decimals(f64::NAN), 0);
    }

    #[test]
    fn clipping_splits_at_gaps_and_cuts_at_the_window() {
        let line = [(0.0, 0.0), (1.0, 20.0), (2.0, 5.0), (3.0, f64::NAN), (4.0, 1.0), (5.0, 2.0)];
        let pieces = clip_polyline(&line, (0.0, 10.0), false);
        assert_eq!(pieces, vec![vec![(0.0, 0.0), (0.5, 10.0)], vec![(1.0 + 10.0 / 15.0, 10.0), (2.0, 5.0)], vec![(4.0, 1.0), (5.0, 2.0)]]);
        assert!(clip_polyline(&[(1.0, 50.0), (2.0, 60.0)], (0.0, 10.0), false).is_empty());
        let log = clip_polyline(&[(1.0, 0.0), (100.0, 20.0)], (0.0, 10.0), true);
        assert!((log[0][1].0 - 10.0).abs() < 1e-9, "{log:?}");
    }

    #[test]
    fn ranges_pad_and_survive_single_values() {
        assert_eq!(padded((0.0, 10.0), 0.1), (-1.0, 11.0));
        let (lo, hi) = padded((5.0, 5.0), 0.1);
        assert!(lo < 5.0 && hi > 5.0);
        assert_eq!(finite_range([f64::NAN, 2.0, -1.0, f64::INFINITY]), Some((-1.0, 2.0)));
        assert_eq!(finite_range([f64::NAN, 1e300]), None);
    }
}
