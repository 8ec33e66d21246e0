use std::path::{Path, PathBuf};

use super::*;

const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

fn score_plot() -> ScoreCurvePlot {
    let rows = [10u64, 40, 160, 700, 2400, 5000, 2300, 650, 150, 35, 12];
    let points = (-5..=5)
        .zip(rows)
        .map(|(b, n)| {
            let mean = 1.0 / (1.0 + (-0.55 * b as f64).exp());
            let half = 1.96 * (mean * (1.0 - mean) / n as f64).sqrt();
            ScorePoint { balance: b as f64, rows: n, mean, ci95: (mean - half, mean + half) }
        })
        .collect();
    ScoreCurvePlot {
        title: "Score curve test".into(),
        scale: "1-3-3-5-9".into(),
        points,
        alpha: 0.545,
        alpha_ci95: (0.528, 0.562),
        reference_alphas: vec![0.4, 0.7],
    }
}

fn convergence_plot(iterations: u64) -> ConvergencePlot {
    let columns = vec!["P".into(), "N".into(), "B".into(), "R".into(), "Q".into()];
    let target = [100.0, 290.0, 345.0, 480.0, 1075.0];
    let its: Vec<u64> = (0..=iterations).collect();
    let values = its.iter().map(|&t| target.iter().map(|v| if t == 0 { 0.0 } else { v * (1.0 + 0.5 / t as f64) }).collect()).collect();
    let loss = its.iter().map(|&t| 0.587 + 0.1 / (1.0 + t as f64)).collect();
    ConvergencePlot { title: "Convergence test".into(), columns, iterations: its, values, loss }
}

fn group_plot(groups: usize) -> GroupComparisonPlot {
    let base = [290.0, 345.0, 480.0, 1075.0];
    let groups = (0..groups)
        .map(|g| {
            let values: Vec<f64> = base.iter().map(|v| v + 5.0 * g as f64).collect();
            let ci95 = values.iter().map(|v| (v - 25.0, v + 25.0)).collect();
            GroupValues { group: format!("Player {g}"), games: Some(100 + 37 * g as u64), values, ci95 }
        })
        .collect();
    GroupComparisonPlot { title: "Group comparison test".into(), columns: vec!["N".into(), "B".into(), "R".into(), "Q".into()], groups }
}

fn out(dir: &tempfile::TempDir, name: &str) -> PathBuf {
    dir.path().join(name)
}

/// Writes `name` in both formats with `draw` and checks both files.
fn writes_both_formats(name: &str, draw: impl Fn(&Path) -> Result<(), PlotError>) -> String {
    let dir = tempfile::tempdir().unwrap();
    let png = out(&dir, &format!("{name}.png"));
    draw(&png).unwrap();
    let bytes = std::fs::read(&png).unwrap();
    assert!(bytes.starts_with(PNG_SIGNATURE), "{name}.png is not a PNG");
    let svg = out(&dir, &format!("{name}.svg"));
    draw(&svg).unwrap();
    let text = std::fs::read_to_string(&svg).unwrap();
    // pgntune's mark, then the drawing (a later run replaces it without --force).
    assert!(text.starts_with("<!-- drawn by pgntune -->\n<svg"), "{name}.svg: {}", &text[..text.len().min(80)]);
    assert!(crate::atomic::OutputKind::Figure.recognises(&png) && crate::atomic::OutputKind::Figure.recognises(&svg), "{name}");
    // Nothing but the two outputs: the temporary files are gone.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    text
}

fn assert_contains_all(svg: &str, texts: &[&str]) {
    let svg = svg.replace("&apos;", "'").replace("&#39;", "'").replace("&quot;", "\"");
    for t in texts {
        assert!(svg.contains(t), "the SVG lacks {t:?}");
    }
}

#[test]
fn score_curve_writes_svg_and_png_with_its_texts() {
    let svg = writes_both_formats("score", |p| score_curve(&score_plot(), p));
    assert_contains_all(
        &svg,
        &[
            "Score curve test",
            "material balance ΔM for white (pawns, scale 1-3-3-5-9)",
            "expected score for white",
            "white's mean score, 95% interval",
            "fitted logistic: α = 0.545 (95% interval 0.528–0.562)",
            "reference: α = 0.400",
            "reference: α = 0.700",
            "1,000 rows",
        ],
    );
}

#[test]
fn convergence_writes_svg_and_png_with_its_texts() {
    let svg = writes_both_formats("trace", |p| convergence(&convergence_plot(20), p));
    assert_contains_all(
        &svg,
        &["Convergence test", "value (pawn = 100)", "loss (mean per row)", "iteration", "at iteration 20", "Q  1102", "loss  0.5918"],
    );
}

#[test]
fn long_traces_get_a_log_axis_without_iteration_zero() {
    let svg = writes_both_formats("gd", |p| convergence(&convergence_plot(10_000), p));
    assert!(svg.contains("iteration (log scale; the start, iteration 0, is not shown)"));
    assert!(svg.contains("10,000"));
}

#[test]
fn group_comparison_writes_svg_and_png_with_its_texts() {
    let svg = writes_both_formats("groups", |p| group_comparison(&group_plot(3), p));
    assert_contains_all(
        &svg,
        &["Group comparison test", "value (pawn = 100)", "N (knight)", "Q (queen)", "group (games)", "Player 0 (100 games)", "Player 2 (174 games)"],
    );
}

#[test]
fn many_groups_and_long_names_stay_within_the_figure() {
    let mut plot = group_plot(25);
    plot.groups[3].group = "A very long group name that would push the panels off the figure".into();
    let svg = writes_both_formats("players", |p| group_comparison(&plot, p));
    assert!(svg.contains("Player 24 (988 games)"));
    assert!(svg.contains("…"), "the long name is shortened");
}

#[test]
fn unknown_extensions_are_rejected_before_writing() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["plot.pdf", "plot", "plot.svg.tmp"] {
        let path = out(&dir, name);
        for result in [score_curve(&score_plot(), &path), convergence(&convergence_plot(5), &path), group_comparison(&group_plot(2), &path)] {
            let err = result.unwrap_err();
            assert!(matches!(err, PlotError::UnknownFormat { .. }), "{err}");
            assert!(err.to_string().contains(".svg or .png"), "{err}");
        }
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn extensions_are_matched_in_any_case() {
    let dir = tempfile::tempdir().unwrap();
    let path = out(&dir, "SCORE.PNG");
    score_curve(&score_plot(), &path).unwrap();
    assert!(std::fs::read(&path).unwrap().starts_with(PNG_SIGNATURE));
}

#[test]
fn a_missing_directory_is_an_output_error() {
    let err = score_curve(&score_plot(), Path::new("/nonexistent-dir/score.png")).unwrap_err();
    assert!(matches!(err, PlotError::Output(_)), "{err}");
}

#[test]
fn the_same_data_give_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["a.png", "b.png", "a.svg", "b.svg"] {
        group_comparison(&group_plot(4), &out(&dir, name)).unwrap();
    }
    let read = |n| std::fs::read(out(&dir, n)).unwrap();
    assert_eq!(read("a.png"), read("b.png"));
    assert_eq!(read("a.svg"), read("b.svg"));
}

#[test]
fn titles_are_escaped_in_svg() {
    let dir = tempfile::tempdir().unwrap();
    let path = out(&dir, "t.svg");
    let mut plot = score_plot();
    plot.title = "R & D <test>".into();
    score_curve(&plot, &path).unwrap();
    assert!(std::fs::read_to_string(&path).unwrap().contains("R &amp; D &lt;test&gt;"));
}

fn invalid(result: Result<(), PlotError>) -> String {
    match result {
        Err(e @ PlotError::InvalidData { .. }) => e.to_string(),
        other => panic!("expected invalid data, got {other:?}"),
    }
}

#[test]
fn score_curves_without_drawable_points_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = out(&dir, "s.png");
    let mut plot = score_plot();
    plot.points.clear();
    assert_eq!(invalid(score_curve(&plot, &path)), "score curve: no points to draw");
    let mut plot = score_plot();
    plot.points[2].mean = f64::NAN;
    assert!(invalid(score_curve(&plot, &path)).contains("point 2 (balance -3)"));
    let mut plot = score_plot();
    plot.alpha = f64::INFINITY;
    assert!(invalid(score_curve(&plot, &path)).contains("alpha"));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn score_curves_tolerate_odd_but_drawable_data() {
    let dir = tempfile::tempdir().unwrap();
    let mut plot = score_plot();
    plot.points.truncate(1);
    plot.points[0].rows = 0;
    plot.points[0].ci95 = (f64::NAN, -0.3);
    plot.alpha_ci95 = (f64::NAN, f64::NAN);
    plot.reference_alphas.clear();
    plot.scale = String::new();
    plot.title = "A title far too long for the figure, ".repeat(10);
    for name in ["one.png", "one.svg"] {
        score_curve(&plot, &out(&dir, name)).unwrap();
    }
}

#[test]
fn traces_that_cannot_be_drawn_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = out(&dir, "c.svg");
    let empty = ConvergencePlot { title: "t".into(), columns: vec!["P".into()], iterations: vec![], values: vec![], loss: vec![] };
    assert_eq!(invalid(convergence(&empty, &path)), "convergence plot: the trace has no iterations");
    let mut plot = convergence_plot(3);
    plot.values[1].pop();
    assert!(invalid(convergence(&plot, &path)).contains("iteration 1 has 4 values for 5 columns"));
    let mut plot = convergence_plot(3);
    plot.loss.pop();
    assert!(invalid(convergence(&plot, &path)).contains("loss values"));
    let mut plot = convergence_plot(3);
    plot.iterations[2] = 1;
    assert!(invalid(convergence(&plot, &path)).contains("not increasing"));
    let mut plot = convergence_plot(3);
    plot.values.iter_mut().flatten().for_each(|v| *v = f64::NAN);
    assert!(invalid(convergence(&plot, &path)).contains("no finite value"));
}

#[test]
fn short_and_gappy_traces_are_drawn() {
    let dir = tempfile::tempdir().unwrap();
    // A single iterate.
    let single = convergence_plot(0);
    // Gaps, an infinite loss, and no loss at all.
    let mut gappy = convergence_plot(30);
    gappy.values[5][2] = f64::NAN;
    gappy.values[6] = vec![f64::NAN; 5];
    gappy.loss[7] = f64::INFINITY;
    let mut no_loss = convergence_plot(30);
    no_loss.loss.clear();
    no_loss.columns[4] = "a column name much longer than any legend should hold ".repeat(5);
    // Early iterates a hundred times the final values: the axis is cut.
    let mut wild = convergence_plot(2000);
    wild.values[1] = vec![100.0, 30_000.0, 40_000.0, 50_000.0, 90_000.0];
    for (i, plot) in [single, gappy, no_loss].iter().enumerate() {
        for ext in ["png", "svg"] {
            convergence(plot, &out(&dir, &format!("{i}.{ext}"))).unwrap();
        }
    }
    let path = out(&dir, "wild.svg");
    convergence(&wild, &path).unwrap();
    assert!(std::fs::read_to_string(&path).unwrap().contains("value (pawn = 100; axis cut)"));
}

#[test]
fn comparisons_that_cannot_be_drawn_are_errors() {
    let path = Path::new("unused.png");
    let mut plot = group_plot(2);
    plot.groups.clear();
    assert_eq!(invalid(group_comparison(&plot, path)), "group comparison: no groups to compare");
    let mut plot = group_plot(2);
    plot.groups[1].values.pop();
    assert!(invalid(group_comparison(&plot, path)).contains("\"Player 1\" has 3 values for 4 columns"));
    let mut plot = group_plot(2);
    plot.groups[0].ci95.pop();
    assert!(invalid(group_comparison(&plot, path)).contains("3 intervals"));
    let mut plot = group_plot(2);
    plot.columns.clear();
    assert!(invalid(group_comparison(&plot, path)).contains("no columns"));
}

#[test]
fn comparisons_with_missing_values_are_drawn() {
    let dir = tempfile::tempdir().unwrap();
    let mut plot = group_plot(1);
    plot.groups[0].values[3] = f64::NAN;
    plot.groups[0].ci95.clear();
    plot.groups[0].games = Some(1);
    let mut wide = group_plot(3);
    wide.columns = (1..=7).map(|i| format!("feature {i}")).collect();
    wide.columns[6] = "a caption far too wide for its panel ".repeat(4);
    for g in &mut wide.groups {
        g.values = (1..=7).map(|i| 10.0 * i as f64).collect();
        g.ci95 = vec![(f64::NAN, 1.0); 7];
    }
    for ext in ["png", "svg"] {
        group_comparison(&plot, &out(&dir, &format!("one.{ext}"))).unwrap();
        group_comparison(&wide, &out(&dir, &format!("wide.{ext}"))).unwrap();
    }
    let svg = std::fs::read_to_string(out(&dir, "one.svg")).unwrap();
    assert!(svg.contains("Player 0 (1 game)"));
}

#[test]
fn extreme_but_finite_values_do_not_break_the_axes() {
    let dir = tempfile::tempdir().unwrap();
    let mut groups = group_plot(2);
    groups.groups[0].values[0] = 1e300;
    groups.groups[1].values[0] = -1e300;
    groups.groups[1].ci95[1] = (-f64::MAX, f64::MAX);
    let mut trace = convergence_plot(5);
    trace.values[2][1] = 1e300;
    trace.loss[3] = -1e300;
    for ext in ["png", "svg"] {
        group_comparison(&groups, &out(&dir, &format!("g.{ext}"))).unwrap();
        convergence(&trace, &out(&dir, &format!("c.{ext}"))).unwrap();
    }
}

#[test]
fn figures_too_large_to_draw_are_errors() {
    let path = Path::new("unused.png");
    assert!(invalid(group_comparison(&group_plot(201), path)).contains("201 groups are too many"));
    let mut trace = convergence_plot(2);
    trace.columns = (0..21).map(|i| format!("f{i}")).collect();
    assert!(invalid(convergence(&trace, path)).contains("21 columns are too many"));
}
