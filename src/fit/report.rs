//! Rendering a [`FitReport`]: the human table, the JSON object, the trace
//! CSV and the weights file.

use serde::Serialize;
use serde_json::Value;

use super::{BootstrapSummary, Check, DrawBand, DrawMode, FitReport, HoldoutSummary, Loss, SolverKind};
use crate::json::Object;
use crate::weights::{FORMAT, Weights};

/// Formats like C++ streams and `printf("%g")` with 6 significant digits,
/// as the original pgnlearn program printed its iterations.
pub fn format_g6(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    if !x.is_finite() {
        return x.to_string();
    }
    let exponent = x.abs().log10().floor() as i32;
    // Rounding can carry into the next power of ten (999999.5 → 1e+06).
    let rounded: f64 = format!("{:.5e}", x).parse().unwrap_or(x);
    let exponent = if rounded.abs() >= 10f64.powi(exponent + 1) { exponent + 1 } else { exponent };
    if !(-5..6).contains(&exponent) {
        let s = format!("{:.5e}", x);
        let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let mantissa = trim_zeros(mantissa);
        let exp: i32 = exp.parse().unwrap_or(0);
        return format!("{mantissa}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
    }
    let decimals = (5 - exponent).max(0) as usize;
    trim_zeros(&format!("{:.*}", decimals, x)).to_string()
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.') } else { s }
}

fn draws_name(d: DrawMode) -> &'static str {
    match d {
        DrawMode::Exclude => "exclude",
        DrawMode::Half => "half",
        DrawMode::Ordinal => "ordinal",
    }
}

fn solver_name(s: SolverKind) -> &'static str {
    match s {
        SolverKind::Lbfgs => "lbfgs",
        SolverKind::Newton => "newton",
        SolverKind::Gd => "gd",
    }
}

/// Values keyed by their column's name, in the columns' order.
fn by_column<'a, T: Clone>(columns: &'a [String], values: &[T]) -> Object<&'a str, T> {
    columns.iter().map(String::as_str).zip(values.iter().cloned()).collect()
}

fn opt(v: Option<f64>, decimals: usize) -> String {
    v.map_or_else(|| "n/a".into(), |v| format!("{v:.decimals$}"))
}

impl FitReport {
    /// The trajectory lines the 2015 program printed: every `every`
    /// iterations, `Iter k: [ θ… ] -> loss`.
    pub fn trajectory(&self, every: u64) -> String {
        let mut out = String::new();
        for point in self.trace.iter().filter(|p| every > 0 && p.iteration % every == 0) {
            let theta: Vec<String> = point.param.iter().map(|&t| format_g6(t)).collect();
            out.push_str(&format!("Iter {}: [ {} ] -> {}\n", point.iteration, theta.join(" "), format_g6(point.cost)));
        }
        out
    }

    /// The human-readable report.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        use crate::plural::count;
        let games = self.games.map_or_else(String::new, |g| format!("{}, ", count(g, "game", "games")));
        let [black, draws, white] = self.results;
        out.push_str(&format!(
            "data:    {games}{} ({}, {}, {}), {} distinct\n",
            count(self.rows, "row", "rows"),
            count(white, "white win", "white wins"),
            count(draws, "draw", "draws"),
            count(black, "black win", "black wins"),
            self.distinct_rows
        ));
        let model = match (self.draws, self.loss_kind) {
            (DrawMode::Exclude, Loss::CrossEntropy) => "logistic, decisive games only",
            (DrawMode::Half, Loss::CrossEntropy) => "logistic, draws as half points",
            (DrawMode::Ordinal, _) => "ordered logistic (win/draw/loss) with a draw band",
            (DrawMode::Exclude, Loss::Mse) => "logistic curve, squared error, decisive games only",
            (DrawMode::Half, Loss::Mse) => "logistic curve, squared error, draws as half points",
        };
        // `{:e}` writes 0 as "0e0".
        let lambda = if self.lambda == 0.0 { "0".to_string() } else { format!("{:e}", self.lambda) };
        out.push_str(&format!("model:   {model}; {} used; L2 λ = {lambda}\n", count(self.rows_used, "row", "rows")));
        out.push_str(&format!(
            "solver:  {} {} after {} ({}), gradient norm {:.2e}, {:.1} ms\n",
            solver_name(self.solver),
            if self.converged { "converged" } else { "did NOT converge" },
            count(self.iterations, "iteration", "iterations"),
            self.stopped,
            self.grad_norm,
            self.seconds * 1e3
        ));
        out.push_str(&format!("loss:    {:.6}\n\n", self.loss));

        let name_width = self.columns.iter().map(|c| c.chars().count()).max().unwrap_or(1).max(5);
        out.push_str(&format!(
            "{:<name_width$} {:>11} {:>10} {:>10} {:>20}\n",
            "",
            "θ",
            "std.err",
            format!("value ({}=100)", super::REFERENCE).as_str(),
            "95% CI"
        ));
        if let Some((b0, se)) = self.intercept {
            out.push_str(&format!("{:<name_width$} {:>11.6} {:>10} {:>10} {:>20}\n", "(intercept)", b0, opt(se, 6), "", ""));
        }
        for (j, column) in self.columns.iter().enumerate() {
            let value = self.values.as_ref().map(|v| v[j]);
            let ci = self.values_ci95.as_ref().and_then(|c| c[j]);
            let ci = match ci {
                Some((lo, hi)) if Some(j) != self.reference => format!("[{lo:.1}, {hi:.1}]"),
                Some(_) => "(reference)".into(),
                None => "n/a".into(),
            };
            out.push_str(&format!(
                "{:<name_width$} {:>11.6} {:>10} {:>10} {:>20}\n",
                column,
                self.theta[j],
                opt(self.stderr[j], 6),
                opt(value, 1),
                ci
            ));
        }
        if let Some(band) = &self.draw_band {
            out.push_str(&format!(
                "\ndraw band: width 2c = {:.4} (std.err {}){}\n",
                band.width,
                opt(band.width_stderr, 4),
                band.width_centipawns.map_or_else(String::new, |cp| format!(", {cp:.1} centipawns"))
            ));
        }
        if let Some(phi) = self.dispersion {
            out.push_str(&format!("\nquasi-binomial dispersion {phi:.4} (standard errors scaled by its square root)\n"));
        }
        if let Some(b) = &self.bootstrap {
            out.push_str(&format!(
                "\nbootstrap: {} of {} refits on resampled {} (seed {}), 95% percentile intervals:\n",
                b.replicates,
                b.requested,
                if b.by_game { "games" } else { "rows" },
                b.seed
            ));
            for (j, column) in self.columns.iter().enumerate() {
                let values = b.values_ci95.as_ref().map_or_else(String::new, |v| format!("   value [{:.1}, {:.1}]", v[j].0, v[j].1));
                out.push_str(&format!("  {:<name_width$} θ [{:.6}, {:.6}]{values}\n", column, b.theta_ci95[j].0, b.theta_ci95[j].1));
            }
        }
        if let Some(h) = &self.holdout {
            let units = if h.by_game { "games" } else { "rows" };
            let part = |games: usize, loose: usize| {
                if loose > 0 { format!("{games} {units} and {loose} rows without a game id") } else { format!("{games} {units}") }
            };
            out.push_str(&format!(
                "\nholdout: fitted on {}, {} held out ({:.0}% asked, seed {})\n",
                part(h.games.0, h.loose_rows.0),
                part(h.games.1, h.loose_rows.1),
                h.fraction * 100.0,
                h.seed,
            ));
            out.push_str(&format!("  {:<10} {:>10} {:>10} {:>10}\n", "", "rows", "log-loss", "accuracy"));
            for (name, m) in [("training", h.train), ("held out", h.test)] {
                out.push_str(&format!("  {:<10} {:>10.0} {:>10.6} {:>9.2}%\n", name, m.rows, m.log_loss, 100.0 * m.accuracy));
            }
        }
        if !self.checks.is_empty() {
            out.push_str("\nCapablanca rules (values in centipawns):\n");
            for c in &self.checks {
                let err = c.relative_error.map_or_else(String::new, |e| format!("  (relative error {:.1}%)", 100.0 * e));
                out.push_str(&format!("  {:<18} {:>8.1} vs {:>8.1}  {}{err}\n", c.rule, c.left, c.right, if c.holds { "yes" } else { "no" }));
            }
        }
        for w in &self.warnings {
            out.push_str(&format!("\nwarning: {w}\n"));
        }
        out
    }

    /// The JSON object (`--json`): see [`FitReportJson`].
    pub fn json(&self) -> FitReportJson<'_> {
        let columns = &self.columns;
        let [black_wins, draws, white_wins] = self.results;
        FitReportJson {
            games: self.games,
            rows: self.rows,
            rows_used: self.rows_used,
            distinct_rows: self.distinct_rows,
            results: ResultsJson { white_wins, draws, black_wins },
            draws: draws_name(self.draws),
            loss_function: if self.loss_kind == Loss::Mse { "mse" } else { "cross-entropy" },
            lambda: self.lambda,
            solver: solver_name(self.solver),
            iterations: self.iterations,
            converged: self.converged,
            gradient_norm: self.grad_norm,
            loss: self.loss,
            theta: by_column(columns, &self.theta),
            stderr: by_column(columns, &self.stderr),
            intercept: self.intercept.map(|(value, stderr)| InterceptJson { value, stderr }),
            reference: self.reference.map(|r| self.columns[r].as_str()),
            values: self.values.as_ref().map(|values| by_column(columns, values)),
            values_ci95: self.values_ci95.as_ref().map(|ci| by_column(columns, ci)),
            draw_band: self.draw_band.as_ref(),
            dispersion: self.dispersion,
            separable: self.separable,
            checks: &self.checks,
            bootstrap: self.bootstrap.as_ref(),
            holdout: self.holdout.as_ref(),
            warnings: &self.warnings,
            seconds: self.seconds,
        }
    }

    /// [`FitReport::json`] as a value (what `fit --json` prints).
    pub fn to_json(&self) -> Value {
        crate::json::to_value(&self.json())
    }

    /// Every iterate as (iteration, values, loss): values normalised to the
    /// reference column = 100 (the raw θ when there is none; 0 while the
    /// reference weight is still 0, as at the start).
    pub fn normalised_trace(&self) -> Vec<(u64, Vec<f64>, f64)> {
        let offset = usize::from(self.intercept.is_some());
        self.trace
            .iter()
            .map(|p| {
                let theta = |j: usize| p.param[offset + j];
                let values = (0..self.columns.len())
                    .map(|j| match self.reference {
                        Some(r) if theta(r) != 0.0 => 100.0 * theta(j) / theta(r),
                        Some(_) => 0.0,
                        None => theta(j),
                    })
                    .collect();
                (p.iteration, values, p.cost)
            })
            .collect()
    }

    /// The trace as CSV: `iteration`, the normalised values, `loss`.
    pub fn trace_csv(&self) -> String {
        let mut out = String::from("iteration");
        for c in &self.columns {
            out.push(',');
            out.push_str(c);
        }
        out.push_str(",loss\n");
        for (iteration, values, cost) in self.normalised_trace() {
            out.push_str(&iteration.to_string());
            for v in values {
                out.push_str(&format!(",{v}"));
            }
            out.push_str(&format!(",{cost}\n"));
        }
        out
    }

    /// The fitted weights in the engine's weight-file format: raw θ with the
    /// scale that makes the reference piece 100 centipawns.
    pub fn weights(&self, features: &[String], name: &str) -> Weights {
        let scale = self.reference.map_or(100.0, |r| 100.0 / self.theta[r]);
        Weights {
            format: FORMAT,
            name: name.to_string(),
            features: features.to_vec(),
            scale,
            intercept: self.intercept.map(|(b, _)| b),
            default: None,
            weights: self.columns.iter().cloned().zip(self.theta.iter().copied()).collect(),
        }
    }
}

/// A [`FitReport`] as JSON. The keys of the optional parts (`intercept`,
/// `values`, `values_ci95`, `draw_band`, `dispersion`, `bootstrap`,
/// `holdout`) are left out when the fit has none; the others are always
/// there, `null` when unknown. Per-column values are objects keyed by
/// column name, in the columns' order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FitReportJson<'a> {
    /// Games with rows, when known.
    pub games: Option<u64>,
    /// All rows given.
    pub rows: u64,
    /// Rows the model used.
    pub rows_used: u64,
    /// Distinct feature vectors.
    pub distinct_rows: usize,
    /// Rows per result.
    pub results: ResultsJson,
    /// `exclude`, `half` or `ordinal`.
    pub draws: &'static str,
    /// `cross-entropy` or `mse`.
    pub loss_function: &'static str,
    /// The L2 penalty.
    pub lambda: f64,
    /// `lbfgs`, `newton` or `gd`.
    pub solver: &'static str,
    /// Iterations.
    pub iterations: u64,
    /// Whether the gradient norm fell below the tolerance.
    pub converged: bool,
    /// The final gradient norm.
    pub gradient_norm: f64,
    /// The final cost.
    pub loss: f64,
    /// θ by column.
    pub theta: Object<&'a str, f64>,
    /// θ's standard errors by column, `null` where not estimable.
    pub stderr: Object<&'a str, Option<f64>>,
    /// The intercept, when fitted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub intercept: Option<InterceptJson>,
    /// The reference column's name, `null` without one.
    pub reference: Option<&'a str>,
    /// Values with the reference = 100, by column.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub values: Option<Object<&'a str, f64>>,
    /// Their 95% intervals by column (a pair is the array `[low, high]`),
    /// `null` where unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub values_ci95: Option<Object<&'a str, Option<(f64, f64)>>>,
    /// The ordinal model's draw band.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub draw_band: Option<&'a DrawBand>,
    /// Quasi-binomial dispersion.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dispersion: Option<f64>,
    /// Whether the decisive rows are perfectly separated.
    pub separable: bool,
    /// The Capablanca rules.
    pub checks: &'a [Check],
    /// Bootstrap intervals.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bootstrap: Option<&'a BootstrapSummary>,
    /// Held-out evaluation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub holdout: Option<&'a HoldoutSummary>,
    /// Messages worth showing.
    pub warnings: &'a [String],
    /// Seconds spent fitting.
    pub seconds: f64,
}

/// Rows per result in [`FitReportJson`], white's wins first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ResultsJson {
    /// Rows of games white won.
    pub white_wins: u64,
    /// Rows of drawn games.
    pub draws: u64,
    /// Rows of games black won.
    pub black_wins: u64,
}

/// The intercept in [`FitReportJson`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct InterceptJson {
    /// Its value.
    pub value: f64,
    /// Its standard error, `null` when not estimable.
    pub stderr: Option<f64>,
}

#[cfg(test)]
mod tests {
    use super::format_g6;

    #[test]
    fn g6_matches_printf() {
        for (x, s) in [
            (0.703733, "0.703733"),
            (1.898494, "1.89849"),
            (6.91480, "6.9148"),
            (1076.5612, "1076.56"),
            (479.6601, "479.66"),
            (0.618033989, "0.618034"),
            (100.0, "100"),
            (0.0, "0"),
            (1e-7, "1e-07"),
            (1234567.0, "1.23457e+06"),
            (999999.7, "1e+06"),
            (-2.5, "-2.5"),
        ] {
            assert_eq!(format_g6(x), s, "{x}");
        }
    }
}
