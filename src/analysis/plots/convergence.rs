//! The convergence plot of a fit trace: each piece's normalised value per
//! iteration above, the loss below, on one iteration axis.

use plotters::coord::Shift;
use plotters::coord::combinators::{IntoLogRange, LogCoord};
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use super::canvas::{self, DrawResult, Legend, Plot, Swatch, text};
use super::{ConvergencePlot, PlotError};

const PLOT: &str = "convergence plot";
const LOSS: RGBColor = RGBColor(40, 40, 40);
/// Traces this short get a marker on every iterate.
const MARKED: usize = 60;
/// More lines than this could not be told apart, nor listed in the legend.
const MAX_COLUMNS: usize = 20;
/// Said beside the legend when the value axis does not reach every iterate.
const CUT_NOTE: [&str; 3] = ["The value axis is cut:", "some early iterates", "lie beyond it."];
/// Width of the left label areas, the same in both panels so that their
/// iteration axes line up.
const Y_LABELS: u32 = 95;

/// The iteration axis: logarithmic for long traces.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Scale {
    Linear,
    Log,
}

/// A validated trace and the ranges it is drawn in.
pub(super) struct Convergence<'a> {
    plot: &'a ConvergencePlot,
    scale: Scale,
    /// Iterations on the axis, as drawn (0 is left out of a log axis).
    x: (f64, f64),
    /// The value axis, and whether it cuts off some early iterates.
    y: (f64, f64),
    clipped: bool,
    /// The loss axis, when there is a loss to draw.
    loss: Option<(f64, f64)>,
}

impl<'a> Convergence<'a> {
    pub fn new(plot: &'a ConvergencePlot) -> Result<Convergence<'a>, PlotError> {
        let invalid = |reason: String| PlotError::InvalidData { plot: PLOT, reason };
        let n = plot.iterations.len();
        if n == 0 {
            return Err(invalid("the trace has no iterations".into()));
        }
        if plot.columns.is_empty() {
            return Err(invalid("the trace has no columns".into()));
        }
        if plot.columns.len() > MAX_COLUMNS {
            return Err(invalid(format!("{} columns are too many for one figure (at most {MAX_COLUMNS})", plot.columns.len())));
        }
        if plot.values.len() != n {
            return Err(invalid(format!("{} iterations but {} rows of values", n, plot.values.len())));
        }
        if let Some(i) = plot.values.iter().position(|row| row.len() != plot.columns.len()) {
            return Err(invalid(format!("iteration {} has {} values for {} columns", plot.iterations[i], plot.values[i].len(), plot.columns.len())));
        }
        if !plot.loss.is_empty() && plot.loss.len() != n {
            return Err(invalid(format!("{} iterations but {} loss values", n, plot.loss.len())));
        }
        if plot.iterations.windows(2).any(|w| w[1] <= w[0]) {
            return Err(invalid("the iterations are not increasing".into()));
        }

        // A log axis once the trace spans more than two decades.
        let first_positive = plot.iterations.iter().copied().find(|&i| i > 0);
        let last = plot.iterations[n - 1];
        let scale = match first_positive {
            Some(first) if last / 100 >= first => Scale::Log,
            _ => Scale::Linear,
        };
        let shown = |i: usize| scale == Scale::Linear || plot.iterations[i] > 0;
        let x = match scale {
            Scale::Log => (first_positive.unwrap_or(1) as f64 / 1.15, last as f64 * 1.15),
            Scale::Linear if n == 1 => (last as f64 - 1.0, last as f64 + 1.0),
            Scale::Linear => canvas::padded((plot.iterations[0] as f64, last as f64), 0.02),
        };

        let values = (0..n).filter(|&i| shown(i)).flat_map(|i| plot.values[i].iter().copied());
        let Some(all) = canvas::finite_range(values) else {
            return Err(invalid("no finite value to draw".into()));
        };
        // Early iterates normalised by a pawn weight near zero can be huge;
        // keep the axis within a window around the last complete iterate.
        let last_row = plot.values.iter().rev().find(|row| row.iter().all(|&v| canvas::drawable(v)));
        let (y, clipped) = match last_row.and_then(|row| canvas::finite_range(row.iter().copied())) {
            Some((lo, hi)) => {
                let reach = (hi - lo).max(hi.abs() * 0.1).max(1.0);
                let window = (lo - reach, hi + reach);
                let clipped = all.0 < window.0 || all.1 > window.1;
                (canvas::padded((all.0.max(window.0), all.1.min(window.1)), 0.05), clipped)
            }
            None => (canvas::padded(all, 0.05), false),
        };
        let loss = canvas::finite_range((0..plot.loss.len()).filter(|&i| shown(i)).map(|i| plot.loss[i])).map(|range| canvas::padded(range, 0.08));
        Ok(Convergence { plot, scale, x, y, clipped, loss })
    }

    fn x_desc(&self) -> &'static str {
        match self.scale {
            Scale::Log if self.plot.iterations[0] == 0 => "iteration (log scale; the start, iteration 0, is not shown)",
            Scale::Log => "iteration (log scale)",
            Scale::Linear => "iteration",
        }
    }

    /// Points `(iteration, value)` of one series, as drawn on the axis.
    fn series(&self, value: impl Fn(usize) -> f64) -> Vec<(f64, f64)> {
        let points = self.plot.iterations.iter().enumerate().map(|(i, &it)| (it as f64, value(i)));
        points.filter(|&(x, _)| self.scale == Scale::Linear || x > 0.0).collect()
    }

    fn legend(&self) -> Legend {
        let plot = self.plot;
        let last = plot.values.len() - 1;
        let mut entries = Vec::new();
        for (j, column) in plot.columns.iter().enumerate() {
            let v = plot.values[last][j];
            // Short enough that the legend leaves the charts their room.
            let column = canvas::shorten(column, 24);
            let label = if canvas::drawable(v) { format!("{column}  {}", canvas::number(v, 0)) } else { column };
            entries.push((Swatch::Line(canvas::colour(j)), label));
        }
        if let Some(&loss) = plot.loss.last() {
            let label = if canvas::drawable(loss) { format!("loss  {}", canvas::significant(loss, 4)) } else { "loss".into() };
            entries.push((Swatch::Line(LOSS), label));
        }
        let heading = format!("at iteration {}", canvas::count(plot.iterations[last]));
        Legend { heading: Some(heading), entries }
    }

    /// Draws one panel: its grid, axes and the given series.
    fn panel<DB: DrawingBackend, X: Ranged<ValueType = f64> + ValueFormatter<f64>>(
        &self,
        area: &DrawingArea<DB, Shift>,
        x_range: X,
        y: (f64, f64),
        y_desc: &str,
        series: &[(RGBColor, Vec<(f64, f64)>)],
        x_desc: &str,
    ) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let mut chart = ChartBuilder::on(area)
            .margin(12)
            .margin_right(20)
            .x_label_area_size(55)
            .y_label_area_size(Y_LABELS)
            .build_cartesian_2d(x_range, y.0..y.1)?;
        let y_decimals = canvas::decimals(y.1 - y.0);
        // Iterations are whole and not negative: other ticks go unlabelled.
        let x_label = |x: &f64| {
            if *x >= 0.0 && (x - x.round()).abs() < 1e-6 { canvas::count(x.round() as u64) } else { String::new() }
        };
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc(y_desc)
            .x_labels(10)
            .y_labels(8)
            .x_label_formatter(&x_label)
            .y_label_formatter(&|v| canvas::number(*v, y_decimals))
            .label_style(text(canvas::TICK))
            .axis_desc_style(text(canvas::AXIS))
            .light_line_style(canvas::GRID_LIGHT)
            .max_light_lines(1)
            .bold_line_style(canvas::GRID_BOLD)
            .draw()?;
        let log_x = self.scale == Scale::Log;
        for (c, points) in series {
            for mut piece in canvas::clip_polyline(points, y, log_x) {
                // 10,000 iterates fall on a few hundred pixels: one point a
                // pixel keeps SVG files small.
                piece.dedup_by_key(|p| chart.backend_coord(p));
                chart.draw_series(std::iter::once(PathElement::new(piece, c.stroke_width(2))))?;
            }
            if points.len() <= MARKED {
                let inside = points.iter().filter(|p| canvas::drawable(p.1) && (y.0..=y.1).contains(&p.1));
                chart.draw_series(inside.map(|&p| Circle::new(p, 4, c.filled())))?;
            }
        }
        Ok(())
    }

    fn draw_panels<DB: DrawingBackend, X: Ranged<ValueType = f64> + ValueFormatter<f64>>(
        &self,
        values_area: &DrawingArea<DB, Shift>,
        loss_area: Option<&DrawingArea<DB, Shift>>,
        x_range: impl Fn() -> X,
    ) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let plot = self.plot;
        let pieces: Vec<_> = (0..plot.columns.len()).map(|j| (canvas::colour(j), self.series(|i| plot.values[i][j]))).collect();
        let y_desc = if self.clipped { "value (pawn = 100; axis cut)" } else { "value (pawn = 100)" };
        // The iteration axis is described once, under the lowest panel.
        let values_x_desc = if loss_area.is_some() { "" } else { self.x_desc() };
        self.panel(values_area, x_range(), self.y, y_desc, &pieces, values_x_desc)?;
        if let (Some(area), Some(y)) = (loss_area, self.loss) {
            let loss = [(LOSS, self.series(|i| plot.loss[i]))];
            self.panel(area, x_range(), y, "loss (mean per row)", &loss, self.x_desc())?;
        }
        Ok(())
    }
}

impl Plot for Convergence<'_> {
    fn size(&self) -> (u32, u32) {
        (1200, if self.loss.is_some() { 900 } else { 640 })
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let area = canvas::titled(root, &self.plot.title)?;
        // The legend and, when the axis is cut, a note in a strip at the right.
        let legend = self.legend();
        let (legend_w, legend_h) = legend.size(root)?;
        let note: &[&str] = if self.clipped { &CUT_NOTE } else { &[] };
        let mut side_w = legend_w;
        for line in note {
            side_w = side_w.max(root.estimate_text_size(line, &text(canvas::TICK))?.0 as i32 + 8);
        }
        let (width, height) = area.dim_in_pixel();
        let (charts, side) = area.split_horizontally(width as i32 - side_w - 24);
        let (values_area, loss_area) = if self.loss.is_some() {
            let (top, bottom) = charts.split_vertically((height as f64 * 0.6) as i32);
            (top, Some(bottom))
        } else {
            (charts, None)
        };
        let (start, end) = self.x;
        match self.scale {
            Scale::Log => self.draw_panels(&values_area, loss_area.as_ref(), || LogCoord::from((start..end).log_scale()))?,
            Scale::Linear => self.draw_panels(&values_area, loss_area.as_ref(), || RangedCoordf64::from(start..end))?,
        }
        legend.draw(&side, (4, 12))?;
        for (i, line) in note.iter().enumerate() {
            side.draw_text(line, &text(canvas::TICK), (8, 12 + legend_h + 12 + 22 * i as i32))?;
        }
        Ok(())
    }
}
