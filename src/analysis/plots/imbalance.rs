//! The knight's and the rook's value against the number of own pawns: one
//! panel per piece, a line with its 95% band per collection and reference
//! configuration, and Kaufman's slope for comparison.

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use super::canvas::{self, DrawResult, Legend, Plot, Swatch, text};
use super::{ImbalancePlot, PawnCurve, PlotError};

const PLOT: &str = "imbalance plot";
const WIDTH: u32 = 1500;
const HEIGHT: u32 = 760;
/// Room at the right for the legend.
const LEGEND_WIDTH: u32 = 330;
/// More lines than this could not be told apart in one panel.
const MAX_CURVES: usize = 24;
/// Opacity of the interval bands.
const BAND: f64 = 0.14;
const KAUFMAN: RGBColor = RGBColor(90, 90, 90);

/// A validated figure.
pub(super) struct PawnValues<'a> {
    plot: &'a ImbalancePlot,
    /// The pieces in order of first appearance, one panel each.
    pieces: Vec<&'a str>,
    /// Collections and references in order of first appearance (colour, line style).
    collections: Vec<&'a str>,
    references: Vec<&'a str>,
    /// Per piece, the value axis.
    ranges: Vec<(f64, f64)>,
}

/// The distinct values of `items`, in order of first appearance.
fn distinct<'a>(items: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

impl<'a> PawnValues<'a> {
    pub fn new(plot: &'a ImbalancePlot) -> Result<PawnValues<'a>, PlotError> {
        let invalid = |reason: String| PlotError::InvalidData { plot: PLOT, reason };
        if plot.curves.is_empty() {
            return Err(invalid("no curves to draw".into()));
        }
        if plot.curves.len() > MAX_CURVES {
            return Err(invalid(format!("{} curves are too many for one figure (at most {MAX_CURVES})", plot.curves.len())));
        }
        for c in &plot.curves {
            let name = format!("{} {} ({})", c.collection, c.piece, c.reference);
            if c.pawns.len() != c.values.len() {
                return Err(invalid(format!("{name}: {} pawn counts for {} values", c.pawns.len(), c.values.len())));
            }
            if !c.ci95.is_empty() && c.ci95.len() != c.values.len() {
                return Err(invalid(format!("{name}: {} intervals for {} values", c.ci95.len(), c.values.len())));
            }
            if let Some(p) = c.pawns.iter().find(|&&p| !(0.0..=16.0).contains(&p)) {
                return Err(invalid(format!("{name}: {p} pawns")));
            }
        }
        let pieces = distinct(plot.curves.iter().map(|c| c.piece.as_str()));
        let ranges = pieces
            .iter()
            .map(|&piece| {
                let ends = plot.curves.iter().filter(|c| c.piece == piece).flat_map(|c| {
                    let bands = c.ci95.iter().filter(|(lo, hi)| canvas::drawable(*lo) && canvas::drawable(*hi)).flat_map(|&(lo, hi)| [lo, hi]);
                    c.values.iter().copied().chain(bands)
                });
                canvas::finite_range(ends).map_or((0.0, 1.0), |r| canvas::padded(r, 0.08))
            })
            .collect();
        Ok(PawnValues {
            plot,
            pieces,
            collections: distinct(plot.curves.iter().map(|c| c.collection.as_str())),
            references: distinct(plot.curves.iter().map(|c| c.reference.as_str())),
            ranges,
        })
    }

    fn colour(&self, curve: &PawnCurve) -> RGBColor {
        canvas::colour(self.collections.iter().position(|&c| c == curve.collection).unwrap_or(0))
    }

    /// The first reference is drawn solid, the others dashed.
    fn dashed(&self, curve: &PawnCurve) -> bool {
        self.references.first() != Some(&curve.reference.as_str())
    }

    fn x_range(&self) -> (f64, f64) {
        let most = self.plot.curves.iter().flat_map(|c| c.pawns.iter().copied()).fold(0.0, f64::max);
        (-0.3, most + 0.3)
    }

    fn legend(&self) -> Legend {
        let mut entries: Vec<(Swatch, String)> =
            self.collections.iter().enumerate().map(|(i, c)| (Swatch::Line(canvas::colour(i)), c.to_string())).collect();
        for (i, r) in self.references.iter().enumerate() {
            let swatch = if i == 0 { Swatch::Line(canvas::GUIDE) } else { Swatch::Dashed(canvas::GUIDE) };
            entries.push((swatch, format!("{r} reference")));
        }
        entries.push((Swatch::MarkerWithBar(canvas::GUIDE, 3, true), "95% interval (band)".into()));
        if !self.plot.kaufman_slopes.is_empty() {
            entries.push((Swatch::Dashed(KAUFMAN), "Kaufman's slope".into()));
        }
        Legend { heading: Some("lines".into()), entries }
    }

    fn panel<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>, piece: usize) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let name = self.pieces[piece];
        let (lo, hi) = self.ranges[piece];
        let (x0, x1) = self.x_range();
        let mut chart = ChartBuilder::on(area)
            .caption(name, text(canvas::HEADING))
            .margin(12)
            .margin_right(24)
            .x_label_area_size(56)
            .y_label_area_size(80)
            .build_cartesian_2d(x0..x1, lo..hi)?;
        let decimals = canvas::decimals(hi - lo);
        chart
            .configure_mesh()
            .x_desc("own pawns")
            .y_desc(&self.plot.unit)
            .x_labels((x1.floor() as usize + 1).min(17))
            .x_label_formatter(&|x| canvas::number(*x, 0))
            .y_label_formatter(&|y| canvas::number(*y, decimals))
            .label_style(text(canvas::TICK))
            .axis_desc_style(text(canvas::AXIS))
            .light_line_style(canvas::GRID_LIGHT)
            .max_light_lines(1)
            .bold_line_style(canvas::GRID_BOLD)
            .draw()?;
        let curves: Vec<&PawnCurve> = self.plot.curves.iter().filter(|c| c.piece == name).collect();
        // Bands first, under every line.
        for c in &curves {
            let points: Vec<(f64, (f64, f64))> =
                c.pawns.iter().copied().zip(c.ci95.iter().copied()).filter(|(_, (a, b))| canvas::drawable(*a) && canvas::drawable(*b)).collect();
            if points.len() < 2 {
                continue;
            }
            let outline: Vec<(f64, f64)> =
                points.iter().map(|&(x, (a, _))| (x, a.max(lo))).chain(points.iter().rev().map(|&(x, (_, b))| (x, b.min(hi)))).collect();
            chart.draw_series(std::iter::once(Polygon::new(outline, self.colour(c).mix(BAND).filled())))?;
        }
        for c in &curves {
            let colour = self.colour(c);
            let line: Vec<(f64, f64)> = c.pawns.iter().copied().zip(c.values.iter().copied()).collect();
            for piece in canvas::clip_polyline(&line, (lo, hi), false) {
                if self.dashed(c) {
                    chart.draw_series(std::iter::once(DashedPathElement::new(piece, 10, 6, colour.stroke_width(3))))?;
                } else {
                    chart.draw_series(std::iter::once(PathElement::new(piece, colour.stroke_width(3))))?;
                }
            }
            let dots = line.iter().filter(|(_, v)| canvas::drawable(*v) && (lo..=hi).contains(v)).map(|&p| Circle::new(p, 4, colour.filled()));
            chart.draw_series(dots)?;
        }
        // Kaufman's slope through the first line's value at five pawns.
        let slope = self.plot.kaufman_slopes.iter().find(|(p, _)| p == name).map(|&(_, s)| s);
        let anchor = curves.first().and_then(|c| c.pawns.iter().position(|&p| p == 5.0).map(|i| c.values[i]));
        if let (Some(slope), Some(v5)) = (slope, anchor)
            && canvas::drawable(v5)
        {
            let line = [(x0, v5 + slope * (x0 - 5.0)), (x1, v5 + slope * (x1 - 5.0))];
            for piece in canvas::clip_polyline(&line, (lo, hi), false) {
                chart.draw_series(std::iter::once(DashedPathElement::new(piece, 4, 5, KAUFMAN.stroke_width(2))))?;
            }
        }
        Ok(())
    }
}

impl Plot for PawnValues<'_> {
    fn size(&self) -> (u32, u32) {
        (WIDTH, HEIGHT)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let area = canvas::titled(root, &self.plot.title)?;
        let (panels, side) = area.split_horizontally(WIDTH - LEGEND_WIDTH);
        let areas = panels.split_evenly((1, self.pieces.len()));
        for (i, a) in areas.iter().enumerate() {
            self.panel(a, i)?;
        }
        let legend = self.legend();
        let (x, y) = side.get_base_pixel();
        legend.draw(root, (x + 10, y + 60))?;
        Ok(())
    }
}
