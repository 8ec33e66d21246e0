//! Piece-square tables as heat maps: one board per piece and phase, each
//! square coloured by its value (blue below the table's mean, red above,
//! one colour scale for every board of a figure) and labelled with it.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::canvas::{DrawResult, Plot, anchored, titled};
use super::{PlotError, PstHeatmapPlot};

const PLOT: &str = "piece-square heat map";
const SQUARE: i32 = 44;
const BOARD: i32 = 8 * SQUARE;
const GAP: i32 = 60;
const CAPTION: i32 = 34;
const MARGIN: i32 = 30;

/// A validated heat map.
pub(super) struct Heatmap<'a> {
    plot: &'a PstHeatmapPlot,
    /// The largest |value − board mean| over all boards: the colour scale's end.
    span: f64,
}

impl<'a> Heatmap<'a> {
    pub fn new(plot: &'a PstHeatmapPlot) -> Result<Heatmap<'a>, PlotError> {
        let invalid = |reason: String| PlotError::InvalidData { plot: PLOT, reason };
        if plot.boards.is_empty() {
            return Err(invalid("no boards to draw".into()));
        }
        let mut span: f64 = 1.0;
        for (name, values) in &plot.boards {
            if values.iter().any(|v| !v.is_finite()) {
                return Err(invalid(format!("{name}: a value is not finite")));
            }
            let mean = values.iter().sum::<f64>() / 64.0;
            span = values.iter().map(|v| (v - mean).abs()).fold(span, f64::max);
        }
        Ok(Heatmap { plot, span })
    }

    fn columns(&self) -> i32 {
        (self.plot.boards.len() as i32).min(4)
    }

    fn rows(&self) -> i32 {
        (self.plot.boards.len() as i32 + self.columns() - 1) / self.columns()
    }
}

/// White at 0, blue toward −1, red toward +1.
fn shade(t: f64) -> RGBColor {
    let t = t.clamp(-1.0, 1.0);
    let mix = |a: u8, b: u8, f: f64| (f64::from(a) + (f64::from(b) - f64::from(a)) * f).round() as u8;
    if t < 0.0 {
        RGBColor(mix(255, 49, -t), mix(255, 104, -t), mix(255, 179, -t))
    } else {
        RGBColor(mix(255, 214, t), mix(255, 47, t), mix(255, 39, t))
    }
}

impl Plot for Heatmap<'_> {
    fn size(&self) -> (u32, u32) {
        let w = self.columns() * (BOARD + GAP) - GAP + 2 * MARGIN;
        let h = self.rows() * (BOARD + CAPTION + GAP) + 2 * MARGIN + 40;
        (w as u32, h as u32)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let area = titled(root, &self.plot.title)?;
        for (i, (name, values)) in self.plot.boards.iter().enumerate() {
            let (col, row) = (i as i32 % self.columns(), i as i32 / self.columns());
            let x0 = MARGIN + col * (BOARD + GAP);
            let y0 = MARGIN + row * (BOARD + CAPTION + GAP);
            area.draw_text(name, &anchored(20.0, HPos::Center, VPos::Top), (x0 + BOARD / 2, y0))?;
            let mean = values.iter().sum::<f64>() / 64.0;
            for (square, &value) in values.iter().enumerate().take(64) {
                let (file, rank) = ((square % 8) as i32, (square / 8) as i32);
                let x = x0 + file * SQUARE;
                let y = y0 + CAPTION + (7 - rank) * SQUARE;
                area.draw(&Rectangle::new([(x, y), (x + SQUARE, y + SQUARE)], shade((value - mean) / self.span).filled()))?;
                area.draw(&Rectangle::new([(x, y), (x + SQUARE, y + SQUARE)], RGBColor(200, 200, 200).stroke_width(1)))?;
                area.draw_text(&format!("{value:.0}"), &anchored(14.0, HPos::Center, VPos::Center), (x + SQUARE / 2, y + SQUARE / 2))?;
            }
            for file in 0..8 {
                let label = ((b'a' + file as u8) as char).to_string();
                area.draw_text(&label, &anchored(13.0, HPos::Center, VPos::Top), (x0 + file * SQUARE + SQUARE / 2, y0 + CAPTION + BOARD + 3))?;
            }
            for rank in 0..8 {
                area.draw_text(
                    &(rank + 1).to_string(),
                    &anchored(13.0, HPos::Right, VPos::Center),
                    (x0 - 4, y0 + CAPTION + (7 - rank) * SQUARE + SQUARE / 2),
                )?;
            }
        }
        Ok(())
    }
}
