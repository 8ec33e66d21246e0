//! Piece values per group: one panel per piece (their scales differ by a
//! factor of four), one row per group, so that 25 players stay readable.

use std::error::Error;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::canvas::{self, DrawResult, Plot, anchored, text};
use super::{GroupComparisonPlot, PlotError};

const PLOT: &str = "group comparison";
/// Panels side by side before they wrap to a new line.
const PER_LINE: usize = 5;
const MAX_GROUPS: usize = 200;
const MAX_COLUMNS: usize = 40;
const WIDTH: u32 = 1400;
/// Pixels above and below the rows of one line of panels: caption, tick
/// labels and the axis description.
const CAPTION: u32 = 44;
const X_LABELS: u32 = 62;
/// Band shading every other row, for following a row across the panels.
const BAND: RGBColor = RGBColor(244, 246, 250);

/// A validated comparison.
pub(super) struct Comparison<'a> {
    plot: &'a GroupComparisonPlot,
    /// Per column, the value axis.
    ranges: Vec<(f64, f64)>,
    row_height: u32,
}

impl<'a> Comparison<'a> {
    pub fn new(plot: &'a GroupComparisonPlot) -> Result<Comparison<'a>, PlotError> {
        let invalid = |reason: String| PlotError::InvalidData { plot: PLOT, reason };
        if plot.groups.is_empty() {
            return Err(invalid("no groups to compare".into()));
        }
        if plot.columns.is_empty() {
            return Err(invalid("no columns to compare".into()));
        }
        // Beyond these the figure would be tens of thousands of pixels.
        if plot.groups.len() > MAX_GROUPS {
            return Err(invalid(format!("{} groups are too many for one figure (at most {MAX_GROUPS})", plot.groups.len())));
        }
        if plot.columns.len() > MAX_COLUMNS {
            return Err(invalid(format!("{} columns are too many for one figure (at most {MAX_COLUMNS})", plot.columns.len())));
        }
        let k = plot.columns.len();
        for g in &plot.groups {
            if g.values.len() != k {
                return Err(invalid(format!("group {:?} has {} values for {k} columns", g.group, g.values.len())));
            }
            if !g.ci95.is_empty() && g.ci95.len() != k {
                return Err(invalid(format!("group {:?} has {} intervals for {k} columns", g.group, g.ci95.len())));
            }
        }
        let ranges = (0..k)
            .map(|j| {
                let ends = plot.groups.iter().flat_map(|g| {
                    let (lo, hi) = g.ci95.get(j).copied().unwrap_or((f64::NAN, f64::NAN));
                    // An interval counts only when drawn: both ends finite.
                    let (lo, hi) = if canvas::drawable(lo) && canvas::drawable(hi) { (lo, hi) } else { (f64::NAN, f64::NAN) };
                    [g.values[j], lo, hi]
                });
                canvas::finite_range(ends).map_or((0.0, 1.0), |r| canvas::padded(r, 0.08))
            })
            .collect();
        let row_height = if plot.groups.len() > 12 { 28 } else { 40 };
        Ok(Comparison { plot, ranges, row_height })
    }

    fn lines(&self) -> usize {
        self.plot.columns.len().div_ceil(PER_LINE)
    }

    fn line_height(&self) -> u32 {
        CAPTION + X_LABELS + 20 + self.row_height * self.plot.groups.len() as u32
    }

    /// "N (knight)" for the material columns, the name itself otherwise.
    fn caption(column: &str) -> String {
        let piece = match column {
            "P" => "pawn",
            "N" => "knight",
            "B" => "bishop",
            "R" => "rook",
            "Q" => "queen",
            "K" => "king",
            _ => return column.to_string(),
        };
        format!("{column} ({piece})")
    }

    /// "name (n games)" for each group, names shortened so that no label
    /// is wider than a quarter of the figure.
    fn labels<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<Vec<String>, Box<dyn Error + Send + Sync>>
    where
        DB::ErrorType: 'static,
    {
        let style = text(canvas::LEGEND);
        let mut labels = Vec::with_capacity(self.plot.groups.len());
        for group in &self.plot.groups {
            let games = match group.games {
                Some(1) => " (1 game)".to_string(),
                Some(n) => format!(" ({} games)", canvas::count(n)),
                None => String::new(),
            };
            let room = (WIDTH / 4).saturating_sub(root.estimate_text_size(&games, &style)?.0);
            labels.push(canvas::fit_text(root, &group.group, &style, room)? + &games);
        }
        Ok(labels)
    }

    /// One panel: the rows of every group for column `j`. Returns the pixel
    /// height of each row's centre, for the names at the left.
    fn panel<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        root: &DrawingArea<DB, Shift>,
        j: usize,
    ) -> Result<Vec<i32>, Box<dyn Error + Send + Sync>>
    where
        DB::ErrorType: 'static,
    {
        let n = self.plot.groups.len();
        let (lo, hi) = self.ranges[j];
        let width = area.dim_in_pixel().0;
        let caption = canvas::fit_text(area, &Self::caption(&self.plot.columns[j]), &text(canvas::HEADING), width.saturating_sub(20))?;
        let mut chart = ChartBuilder::on(area)
            .caption(caption, text(canvas::HEADING))
            .margin_top(6)
            .margin_left(12)
            .margin_right(18)
            .margin_bottom(8)
            .x_label_area_size(X_LABELS)
            .y_label_area_size(0)
            .build_cartesian_2d(lo..hi, -0.5..n as f64 - 0.5)?;
        // The first group on top; bands under the grid.
        let row = |g: usize| (n - 1 - g) as f64;
        if n > 3 {
            let bands = (0..n).step_by(2).map(|g| Rectangle::new([(lo, row(g) - 0.5), (hi, row(g) + 0.5)], BAND.filled()));
            chart.draw_series(bands)?;
        }
        let x_decimals = canvas::decimals(hi - lo);
        chart
            .configure_mesh()
            .disable_y_mesh()
            .x_desc("value (pawn = 100)")
            .x_labels((width / 75).clamp(2, 6) as usize)
            .x_label_formatter(&|v| canvas::number(*v, x_decimals))
            .label_style(text(canvas::TICK))
            .axis_desc_style(text(canvas::AXIS))
            .light_line_style(canvas::GRID_LIGHT)
            .max_light_lines(1)
            .bold_line_style(canvas::GRID_BOLD)
            .draw()?;
        let mut centres = Vec::with_capacity(n);
        let cap = (self.row_height as i32 / 5).max(4);
        for (g, group) in self.plot.groups.iter().enumerate() {
            let c = canvas::colour(g);
            let y = row(g);
            centres.push(chart.backend_coord(&(lo, y)).1);
            if let Some(&(a, b)) = group.ci95.get(j)
                && canvas::drawable(a)
                && canvas::drawable(b)
            {
                let (xa, yc) = chart.backend_coord(&(a, y));
                let (xb, _) = chart.backend_coord(&(b, y));
                for segment in [[(xa, yc), (xb, yc)], [(xa, yc - cap), (xa, yc + cap)], [(xb, yc - cap), (xb, yc + cap)]] {
                    root.draw(&PathElement::new(segment.to_vec(), c.stroke_width(2)))?;
                }
            }
            let v = group.values[j];
            if canvas::drawable(v) {
                let at = chart.backend_coord(&(v, y));
                root.draw(&Circle::new(at, 6, c.filled()))?;
                root.draw(&Circle::new(at, 6, WHITE.stroke_width(1)))?;
            }
        }
        Ok(centres)
    }
}

impl Plot for Comparison<'_> {
    fn size(&self) -> (u32, u32) {
        (WIDTH, 70 + self.line_height() * self.lines() as u32)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let area = canvas::titled(root, &self.plot.title)?;
        let labels = self.labels(root)?;
        let mut names_width = 0;
        for label in &labels {
            names_width = names_width.max(root.estimate_text_size(label, &text(canvas::LEGEND))?.0);
        }
        // Room for the names, their colour key and a margin.
        let names_width = names_width + 50;
        let k = self.plot.columns.len();
        let lines = area.split_evenly((self.lines(), 1));
        for (line, line_area) in lines.iter().enumerate() {
            let (names, panels) = line_area.split_horizontally(names_width);
            let columns: Vec<usize> = (line * PER_LINE..k.min((line + 1) * PER_LINE)).collect();
            let panel_areas = panels.split_evenly((1, PER_LINE.min(k)));
            let mut centres = Vec::new();
            for (&j, panel_area) in columns.iter().zip(&panel_areas) {
                centres = self.panel(panel_area, root, j)?;
            }
            let (nx, _) = names.get_base_pixel();
            let right = nx + names_width as i32 - 24;
            if let Some(&top) = centres.first() {
                let heading = (top - self.row_height as i32).max(line_area.get_base_pixel().1 + 14);
                root.draw_text("group (games)", &anchored(canvas::LEGEND, HPos::Right, VPos::Center), (right, heading))?;
            }
            for (g, (&y, label)) in centres.iter().zip(&labels).enumerate() {
                root.draw_text(label, &anchored(canvas::LEGEND, HPos::Right, VPos::Center), (right, y))?;
                root.draw(&Circle::new((right + 12, y), 6, canvas::colour(g).filled()))?;
            }
        }
        Ok(())
    }
}
