//! The score curve: white's mean score per material balance, the fitted
//! logistic and reference slopes, as in the pgnlearn article's figure.

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::canvas::{self, DrawResult, Legend, Plot, Swatch, anchored, text};
use super::{PlotError, ScoreCurvePlot};

const PLOT: &str = "score curve";
const POINTS: RGBColor = RGBColor(31, 78, 121);
const FIT: RGBColor = RGBColor(214, 39, 40);
const REFERENCES: [RGBColor; 4] = [RGBColor(255, 127, 14), RGBColor(44, 160, 44), RGBColor(148, 103, 189), RGBColor(127, 127, 127)];
/// Samples along each logistic curve.
const SAMPLES: usize = 400;

/// A validated score curve.
pub(super) struct ScoreCurve<'a> {
    plot: &'a ScoreCurvePlot,
    /// Half-width of the balance axis, in pawns.
    reach: f64,
    max_rows: u64,
}

impl<'a> ScoreCurve<'a> {
    pub fn new(plot: &'a ScoreCurvePlot) -> Result<ScoreCurve<'a>, PlotError> {
        let invalid = |reason: String| PlotError::InvalidData { plot: PLOT, reason };
        if plot.points.is_empty() {
            return Err(invalid("no points to draw".into()));
        }
        for (i, p) in plot.points.iter().enumerate() {
            if !canvas::drawable(p.balance) {
                return Err(invalid(format!("point {i}: the balance is {}", p.balance)));
            }
            if !(0.0..=1.0).contains(&p.mean) {
                return Err(invalid(format!("point {i} (balance {}): the mean score {} is not in [0, 1]", p.balance, p.mean)));
            }
        }
        if !canvas::drawable(plot.alpha) {
            return Err(invalid(format!("the fitted alpha is {}", plot.alpha)));
        }
        if let Some(a) = plot.reference_alphas.iter().find(|&&a| !canvas::drawable(a)) {
            return Err(invalid(format!("a reference alpha is {a}")));
        }
        // Symmetric about 0, as the logistic is, and at least ±1 pawn.
        let widest = plot.points.iter().map(|p| p.balance.abs()).fold(0.0, f64::max);
        let reach = (widest + 0.5).max(1.0);
        let max_rows = plot.points.iter().map(|p| p.rows).max().unwrap_or(1);
        Ok(ScoreCurve { plot, reach, max_rows })
    }

    /// Marker radius: grows with the logarithm of the rows behind a point.
    fn radius(&self, rows: u64) -> u32 {
        let top = (self.max_rows.max(10) as f64).log10();
        let share = (rows.max(1) as f64).log10() / top;
        (2.5 + 6.5 * share).round() as u32
    }

    /// Row counts shown in the legend's size key: the powers of ten up to
    /// the largest count, at most three, largest last.
    fn size_key(&self) -> Vec<u64> {
        let min_rows = self.plot.points.iter().map(|p| p.rows).min().unwrap_or(1).max(1);
        let mut key: Vec<u64> = (0..20).map(|e| 10u64.pow(e)).filter(|&k| k <= self.max_rows).collect();
        let lowest = key.iter().rposition(|&k| k <= min_rows).unwrap_or(0);
        key.drain(..lowest);
        let keep = key.len().saturating_sub(3);
        key.drain(..keep);
        key
    }

    fn curve(&self, alpha: f64) -> Vec<(f64, f64)> {
        (0..=SAMPLES)
            .map(|i| {
                let x = -self.reach + 2.0 * self.reach * i as f64 / SAMPLES as f64;
                (x, 1.0 / (1.0 + (-alpha * x).exp()))
            })
            .collect()
    }

    fn legend(&self) -> Legend {
        let plot = self.plot;
        let mut entries = vec![(Swatch::MarkerWithBar(POINTS, 5, true), "white's mean score, 95% interval".to_string())];
        let (lo, hi) = plot.alpha_ci95;
        let interval = if canvas::drawable(lo) && canvas::drawable(hi) {
            format!(" (95% interval {}–{})", alpha_text(lo), alpha_text(hi))
        } else {
            String::new()
        };
        entries.push((Swatch::Line(FIT), format!("fitted logistic: α = {}{interval}", alpha_text(plot.alpha))));
        for (i, &a) in plot.reference_alphas.iter().enumerate() {
            entries.push((Swatch::Dashed(REFERENCES[i % REFERENCES.len()]), format!("reference: α = {}", alpha_text(a))));
        }
        for rows in self.size_key() {
            let unit = if rows == 1 { "row" } else { "rows" };
            entries.push((Swatch::Marker(POINTS, self.radius(rows)), format!("{} {unit}", canvas::count(rows))));
        }
        Legend { heading: None, entries }
    }
}

/// α with three decimals, the precision the article quotes.
fn alpha_text(a: f64) -> String {
    canvas::number(a, 3)
}

impl Plot for ScoreCurve<'_> {
    fn size(&self) -> (u32, u32) {
        (1200, 800)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let plot = self.plot;
        root.fill(&WHITE)?;
        let area = canvas::titled(root, &plot.title)?;
        let reach = self.reach;
        let mut chart = ChartBuilder::on(&area)
            .margin(15)
            .margin_right(30)
            .x_label_area_size(60)
            .y_label_area_size(80)
            .build_cartesian_2d(-reach..reach, -0.02..1.02)?;
        let whole_pawns = |x: &f64| {
            if (x - x.round()).abs() < 1e-9 { canvas::number(*x, 0) } else { canvas::number(*x, 1) }
        };
        let x_ticks = if reach <= 12.0 { 2 * reach.floor() as usize + 1 } else { 13 };
        chart
            .configure_mesh()
            .x_desc(format!("material balance ΔM for white (pawns, scale {})", plot.scale))
            .y_desc("expected score for white")
            .x_labels(x_ticks)
            .y_labels(11)
            .x_label_formatter(&whole_pawns)
            .y_label_formatter(&|y| canvas::number(*y, 1))
            .label_style(text(canvas::TICK))
            .axis_desc_style(text(canvas::AXIS))
            .light_line_style(canvas::GRID_LIGHT)
            .max_light_lines(1)
            .bold_line_style(canvas::GRID_BOLD)
            .draw()?;

        // Guides: even material and an even score.
        let guide = canvas::GUIDE.stroke_width(1);
        chart.draw_series([PathElement::new(vec![(-reach, 0.5), (reach, 0.5)], guide), PathElement::new(vec![(0.0, 0.0), (0.0, 1.0)], guide)])?;

        for (i, &a) in plot.reference_alphas.iter().enumerate() {
            let style = REFERENCES[i % REFERENCES.len()].stroke_width(2);
            chart.draw_series(std::iter::once(DashedPathElement::new(self.curve(a), 10, 6, style)))?;
        }
        chart.draw_series(std::iter::once(PathElement::new(self.curve(plot.alpha), FIT.stroke_width(3))))?;

        // Intervals first, so that the markers sit on top of them.
        for p in &plot.points {
            let (lo, hi) = p.ci95;
            if !(canvas::drawable(lo) && canvas::drawable(hi)) {
                continue;
            }
            // Cut at the frame, without a cap where cut.
            let (x, top) = chart.backend_coord(&(p.balance, hi.min(1.02)));
            let (_, bottom) = chart.backend_coord(&(p.balance, lo.max(-0.02)));
            let bar = POINTS.stroke_width(2);
            root.draw(&PathElement::new(vec![(x, top), (x, bottom)], bar))?;
            if hi <= 1.02 {
                root.draw(&PathElement::new(vec![(x - 5, top), (x + 5, top)], bar))?;
            }
            if lo >= -0.02 {
                root.draw(&PathElement::new(vec![(x - 5, bottom), (x + 5, bottom)], bar))?;
            }
        }
        for p in &plot.points {
            let at = chart.backend_coord(&(p.balance, p.mean));
            let r = self.radius(p.rows);
            root.draw(&Circle::new(at, r, POINTS.filled()))?;
            root.draw(&Circle::new(at, r, WHITE.stroke_width(1)))?;
        }

        // The model, top left, where the curve leaves room.
        let (x0, y0) = chart.backend_coord(&(-reach, 1.02));
        root.draw_text("E(ΔM) = 1 / (1 + e^(−α·ΔM))", &anchored(canvas::HEADING, HPos::Left, VPos::Top), (x0 + 16, y0 + 16))?;

        // The legend, bottom right, the other empty corner.
        let legend = self.legend();
        let (w, h) = legend.size(root)?;
        let (x1, y1) = chart.backend_coord(&(reach, -0.02));
        legend.draw(root, (x1 - w - 12, y1 - h - 12))?;
        Ok(())
    }
}
