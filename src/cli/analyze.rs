//! `pgntune analyze`: score curves, per-group values, comparisons, plots.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Args;

use super::extract::{ReadArgs, check_inputs, no_game_found, report};
use super::fit::FitArgs;
use super::progress::ReadProgress;
use super::values::{at_least, check_threads};
use crate::atomic::{OutputKind, OutputPlan};
use crate::analysis::plots::{self, ConvergencePlot, GroupComparisonPlot, GroupValues, ScoreCurvePlot, ScorePoint};
use crate::analysis::{GroupFit, GroupKey, Scale, ScoreCurve, compare, fit_groups, score_curve};
use crate::dataset::load::load;
use crate::fit::{DrawMode, FitConfig, FitReport, MergedRows, RowMerger, fit};
use crate::pgn::{ExtractConfig, InputSource, extract};

/// Arguments of `pgntune analyze`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  pgntune analyze ../shared/data/pgnlearn/OpenRating.pgn --plot out/\n  pgntune analyze ../shared/data/human/*.pgn --group-by player\n  pgntune analyze ../shared/data/human/*.pgn --group-by decade --plot out/\n  pgntune analyze human.parquet engine.parquet --compare\n\n\
--json prints the score curve, the fit of all games and every group's fit as one object; --weights-out and --trace are those of the fit of all games. \
Datasets without a game column (pgnlearn's .mat) have no game counts: their groups show '?' and are fitted whatever --min-decisive says.")]
pub struct AnalyzeCommand {
    /// PGN files (plain or compressed) or datasets written by `extract` (.mat, .csv, .tsv, .parquet).
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<String>,

    /// The scale of material balances: 1-3-3-5-9 style values of P N B R Q in pawns, or a weights file or preset.
    #[arg(long, default_value = "1-3-3-5-9")]
    pub scale: String,

    /// Fit piece values separately per group: player (each input file, or --player), event, year, decade, elo, timecontrol, or any tag name.
    #[arg(long, value_name = "KEY")]
    pub group_by: Option<GroupKey>,

    /// Only games where White or Black contains NAME (case-insensitive); with --group-by player, one group named NAME.
    #[arg(long, value_name = "NAME")]
    pub player: Option<String>,

    /// Compare the inputs: each input is a group, and each value's difference from the first input's gets a z-score.
    #[arg(long, conflicts_with = "group_by")]
    pub compare: bool,

    /// Groups with fewer decisive games are reported but not fitted (a few hundred are needed for stable values).
    #[arg(long, default_value_t = 250, value_name = "N", allow_negative_numbers = true, value_parser = at_least(0))]
    pub min_decisive: u64,

    /// Write the figures (score curve, convergence, group comparison) as PNG and SVG into this directory (created if missing).
    #[arg(long, value_name = "DIR")]
    pub plot: Option<PathBuf>,

    #[command(flatten)]
    pub read: ReadArgs,

    #[command(flatten)]
    pub fit: FitArgs,
}

fn is_dataset(input: &str) -> bool {
    let ext = Path::new(input).extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).unwrap_or_default();
    matches!(ext.as_str(), "mat" | "csv" | "tsv" | "tab" | "parquet" | "pq")
}

fn stem(input: &str) -> String {
    let name = Path::new(input).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| input.to_string());
    name.split('.').next().unwrap_or(&name).to_string()
}

/// Reads inputs into one merger per group: `group_of(tags, input stem)`
/// names each row's group (`None` drops the row).
/// Also returns all kept rows merged, with their game ids (so that the
/// overall fit can bootstrap by game when asked to).
fn read_groups(
    inputs: &[String],
    config: &ExtractConfig,
    quiet: bool,
    track_games: bool,
    group_of: &dyn Fn(&[&str], &str) -> Option<String>,
) -> Result<(BTreeMap<String, MergedRows>, MergedRows)> {
    let columns = config.layout.columns();
    let mut mergers: BTreeMap<String, RowMerger> = BTreeMap::new();
    let mut all: Option<RowMerger> = None;
    // One extraction per input keeps each row's source known (game indices restart per input, so they are made unique per group).
    for (n, input) in inputs.iter().enumerate() {
        let source = stem(input);
        if is_dataset(input) {
            // Game ids are kept so that every group counts its games.
            let rows = load(&[input], true)?;
            let key = group_of(&[], &source).unwrap_or(source.clone());
            let merger = mergers.entry(key).or_insert_with(|| RowMerger::new(rows.columns.clone(), false));
            let everything = all.get_or_insert_with(|| RowMerger::new(rows.columns.clone(), track_games));
            if merger.columns() != rows.columns.as_slice() || everything.columns() != rows.columns.as_slice() {
                bail!("{input}: columns {} differ from the other inputs'", rows.columns.join(" "));
            }
            merger.add_merged(&rows, (n as u64) << 40);
            // Game ids restart in each input: keep them apart.
            everything.add_merged(&rows, (n as u64) << 40);
            continue;
        }
        let sources = [InputSource::from_arg(input)];
        check_inputs(&sources)?;
        let progress = ReadProgress::new(sources[0].size_hint(), quiet);
        let offset = (n as u64) << 40;
        let stats = extract(&sources, config, &progress, |batch| {
            let mut x = vec![0.0; config.layout.len()];
            let mut tags: Vec<&str> = Vec::with_capacity(batch.tags.len());
            for i in 0..batch.len() {
                tags.clear();
                tags.extend(batch.tags.iter().map(|t| t[i].as_str()));
                let Some(key) = group_of(&tags, &source) else {
                    continue;
                };
                batch.dense_row(i, &config.layout, &mut x);
                let merger = mergers
                    .entry(key)
                    .or_insert_with(|| RowMerger::new(columns.clone(), false));
                merger.add(&x, batch.results[i], Some(offset + batch.games[i]));
                let everything = all.get_or_insert_with(|| RowMerger::new(columns.clone(), track_games));
                everything.add(&x, batch.results[i], Some(offset + batch.games[i]));
            }
            Ok(())
        });
        progress.finish();
        let stats = stats?;
        no_game_found(&stats, std::slice::from_ref(input))?;
        report(&stats, true);
        if !quiet {
            eprintln!("{input}: {}", stats.summary_line());
        }
    }
    let groups = mergers.into_iter().map(|(k, m)| (k, m.finish())).collect();
    Ok((groups, all.map(RowMerger::finish).unwrap_or_default()))
}

fn print_curve(curve: &ScoreCurve) -> std::io::Result<()> {
    outln!("Score curve (material balance on the {} scale, white minus black):", curve.scale)?;
    outln!("{:>9} {:>9} {:>8} {:>17}", "pawns", "rows", "score", "95% CI")?;
    for p in &curve.points {
        outln!("{:>+9.1} {:>9} {:>8.3} {:>17}", p.balance, p.rows, p.mean, format!("[{:.3}, {:.3}]", p.ci95.0, p.ci95.1))?;
    }
    outln!(
        "logistic fit E(ΔM) = 1/(1+e^(−αΔM)): α = {:.4}, 95% CI [{:.4}, {:.4}] (all rows, draws as half points)",
        curve.alpha, curve.alpha_ci95.0, curve.alpha_ci95.1
    )?;
    if let Some((a, (lo, hi))) = curve.alpha_decisive {
        outln!("                                  decisive rows only: α = {a:.4}, 95% CI [{lo:.4}, {hi:.4}] (the 2015 article drew α ≈ 0.7 by eye)")?;
    }
    Ok(())
}

fn print_groups(groups: &[GroupFit], with_z: bool) -> std::io::Result<()> {
    let Some(columns) = groups.iter().find_map(|g| g.fit.as_ref().map(|f| f.columns.clone())) else {
        for g in groups {
            outln!("{}: {}", g.name, g.note.as_deref().unwrap_or("not fitted"))?;
        }
        return Ok(());
    };
    let width = groups.iter().map(|g| g.name.chars().count()).max().unwrap_or(5).clamp(5, 28);
    let shown: Vec<usize> = (0..columns.len()).filter(|&j| columns[j] != crate::fit::REFERENCE).collect();
    out!("{:<width$} {:>7} {:>8}", "group", "games", "decisive")?;
    for &j in &shown {
        out!(" {:>19}", format!("{} (P=100)", columns[j]))?;
    }
    outln!()?;
    let diffs = if with_z { compare(groups) } else { vec![None; groups.len()] };
    for (g, diff) in groups.iter().zip(diffs) {
        let name: String = g.name.chars().take(width).collect();
        let count = |n: Option<u64>| n.map_or_else(|| "?".to_string(), |n| n.to_string());
        out!("{name:<width$} {:>7} {:>8}", count(g.games), count(g.decisive_games))?;
        match (g.fit.as_ref().and_then(|f| f.values.as_ref()), g.fit.as_ref().and_then(|f| f.values_ci95.as_ref())) {
            (Some(values), Some(ci)) => {
                for &j in &shown {
                    let cell = match ci[j] {
                        Some((lo, hi)) => format!("{:.0} [{:.0}, {:.0}]", values[j], lo, hi),
                        None => format!("{:.0}", values[j]),
                    };
                    out!(" {cell:>19}")?;
                }
                outln!()?;
                if let Some(diff) = diff.filter(|_| !std::ptr::eq(g, groups.iter().find(|g| g.fit.is_some()).unwrap_or(g))) {
                    out!("{:<width$} {:>7} {:>8}", "", "", "z")?;
                    for &j in &shown {
                        out!(" {:>19}", diff[j].map_or_else(|| "n/a".to_string(), |d| format!("{:+.2}", d.z)))?;
                    }
                    outln!()?;
                }
            }
            _ => outln!("  {}", g.note.as_deref().unwrap_or("not fitted"))?,
        }
    }
    Ok(())
}

fn group_plot(groups: &[GroupFit], title: &str) -> Option<GroupComparisonPlot> {
    let fitted: Vec<&GroupFit> = groups.iter().filter(|g| g.fit.is_some()).collect();
    let columns = fitted.first()?.fit.as_ref()?.columns.clone();
    let shown: Vec<usize> = (0..columns.len()).filter(|&j| columns[j] != crate::fit::REFERENCE).collect();
    Some(GroupComparisonPlot {
        title: title.to_string(),
        columns: shown.iter().map(|&j| columns[j].clone()).collect(),
        groups: fitted
            .iter()
            .filter_map(|g| {
                let f = g.fit.as_ref()?;
                let (values, ci) = (f.values.as_ref()?, f.values_ci95.as_ref()?);
                Some(GroupValues {
                    group: g.name.clone(),
                    games: g.games,
                    values: shown.iter().map(|&j| values[j]).collect(),
                    ci95: shown.iter().map(|&j| ci[j].unwrap_or((f64::NAN, f64::NAN))).collect(),
                })
            })
            .collect(),
    })
}

/// The figures `--plot` may write, without extension.
const FIGURES: [&str; 3] = ["score_curve", "convergence", "groups"];

fn write_plots(dir: &Path, curve: &ScoreCurve, report: &FitReport, groups: Option<(&[GroupFit], &str)>, name: &str, quiet: bool) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| dir.display().to_string())?;
    let curve_plot = ScoreCurvePlot {
        title: format!("Expected score vs material balance ({name})"),
        scale: curve.scale.clone(),
        points: curve.points.iter().map(|p| ScorePoint { balance: p.balance, rows: p.rows, mean: p.mean, ci95: p.ci95 }).collect(),
        alpha: curve.alpha,
        alpha_ci95: curve.alpha_ci95,
        reference_alphas: vec![0.5, 1.0],
    };
    // Iterates where the pawn's weight is still 0 (the start) have no normalised values.
    let offset = usize::from(report.intercept.is_some());
    let reference = report.reference.unwrap_or(0);
    let trace: Vec<_> = report.normalised_trace().into_iter().zip(&report.trace).filter(|(_, p)| p.param[offset + reference] != 0.0).map(|(t, _)| t).collect();
    let convergence = ConvergencePlot {
        title: format!("Convergence of the fit ({name}, {})", format!("{:?}", report.solver).to_lowercase()),
        columns: report.columns.clone(),
        iterations: trace.iter().map(|t| t.0).collect(),
        values: trace.iter().map(|t| t.1.clone()).collect(),
        loss: trace.iter().map(|t| t.2).collect(),
    };
    for ext in ["png", "svg"] {
        plots::score_curve(&curve_plot, &dir.join(format!("{}.{ext}", FIGURES[0])))?;
        if convergence.iterations.len() > 1 {
            plots::convergence(&convergence, &dir.join(format!("{}.{ext}", FIGURES[1])))?;
        }
        if let Some(plot) = groups.and_then(|(g, title)| group_plot(g, title)) {
            plots::group_comparison(&plot, &dir.join(format!("{}.{ext}", FIGURES[2])))?;
        }
    }
    if !quiet {
        eprintln!("figures written to {}", dir.display());
    }
    Ok(())
}

/// The whole analysis as one JSON object.
fn to_json(curve: &ScoreCurve, report: &FitReport, grouped: Option<&(Vec<GroupFit>, String)>, with_z: bool) -> Result<serde_json::Value> {
    use serde_json::json;
    let groups = grouped.map(|(fits, title)| {
        let diffs = if with_z { compare(fits) } else { vec![None; fits.len()] };
        let list: Vec<serde_json::Value> = fits
            .iter()
            .zip(diffs)
            .map(|(g, diff)| {
                let z = diff.map(|d| {
                    let columns = g.fit.as_ref().map(|f| f.columns.clone()).unwrap_or_default();
                    columns.iter().zip(d).map(|(c, d)| (c.clone(), json!(d.map(|d| d.z)))).collect::<serde_json::Map<_, _>>()
                });
                json!({
                    "name": g.name,
                    "games": g.games,
                    "decisive_games": g.decisive_games,
                    "rows": g.rows,
                    "fit": g.fit.as_ref().map(FitReport::to_json),
                    "note": g.note,
                    "z": z,
                })
            })
            .collect();
        json!({ "title": title, "groups": list })
    });
    Ok(json!({
        "score_curve": serde_json::to_value(curve)?,
        "fit": report.to_json(),
        "groups": groups,
    }))
}

pub(super) fn run_analyze(args: AnalyzeCommand) -> Result<()> {
    let scale = Scale::parse(&args.scale).map_err(anyhow::Error::msg)?;
    if let Some(dataset) = args.inputs.iter().find(|i| is_dataset(i))
        && (args.player.is_some() || args.group_by.as_ref().is_some_and(|k| *k != GroupKey::Player))
    {
        bail!("{dataset}: --group-by and --player read PGN tags; datasets have none (use --compare, or extract the PGN)");
    }
    check_threads("--threads", args.read.threads, args.fit.force)?;
    let mut plan = OutputPlan::new(args.fit.force);
    for input in &args.inputs {
        plan.input(Path::new(input));
    }
    args.fit.plan_outputs(&mut plan)?;
    if let Some(dir) = &args.plot {
        plan.folder(dir)?;
        // A folder still to be made holds nothing to replace.
        if dir.is_dir() {
            for figure in FIGURES {
                for ext in ["png", "svg"] {
                    plan.output(&dir.join(format!("{figure}.{ext}")), OutputKind::Figure)?;
                }
            }
        }
    }
    let mut config = args.read.config(1)?;
    let key = args.group_by.clone();
    let mut tags = key.as_ref().map(GroupKey::tags).unwrap_or_default();
    if args.player.is_some() {
        tags.extend(["White".to_string(), "Black".to_string()]);
    }
    let mut seen = std::collections::HashSet::new();
    tags.retain(|t| seen.insert(t.clone()));
    config.tags = tags.clone();
    let mut fit_config = args.fit.fit_config()?;
    let player = args.player.as_ref().map(|p| p.to_lowercase());
    let white_black = |t: &[&str]| -> Option<(String, String)> {
        let w = tags.iter().position(|x| x == "White")?;
        let b = tags.iter().position(|x| x == "Black")?;
        Some((t.get(w)?.to_lowercase(), t.get(b)?.to_lowercase()))
    };
    let group_of = |t: &[&str], source: &str| -> Option<String> {
        if let Some(name) = &player {
            let (w, b) = white_black(t)?;
            if !w.contains(name.as_str()) && !b.contains(name.as_str()) {
                return None;
            }
        }
        match &key {
            Some(GroupKey::Player) => Some(args.player.clone().unwrap_or_else(|| source.to_string())),
            Some(k) => Some(k.group(&t[..k.tags().len().min(t.len())], source)),
            None if args.compare => Some(source.to_string()),
            None => Some(String::new()),
        }
    };
    let track_games = args.fit.bootstrap.is_some() || args.fit.holdout.is_some();
    let (groups, all) = read_groups(&args.inputs, &config, args.read.quiet, track_games, &group_of)?;
    if groups.is_empty() {
        bail!("no rows to analyse{}", args.player.as_ref().map_or(String::new(), |p| format!(" (no game of '{p}')")));
    }
    let name = if args.inputs.len() == 1 { stem(&args.inputs[0]) } else { format!("{} inputs", args.inputs.len()) };
    let features = args.fit.feature_sets(&all.columns)?;

    let curve = score_curve(&all, &scale)?;
    fit_config.trace = true;
    let report = fit(&all, &fit_config).context("fitting all rows")?;

    let mut grouped = None;
    if key.is_some() || args.compare {
        let mut group_config = fit_config.clone();
        group_config.trace = false;
        group_config.bootstrap = None;
        group_config.holdout = None;
        let mut fits = fit_groups(groups, &group_config, args.min_decisive);
        // Inputs in the order given; rating bands by rating; the rest by name.
        let order = |g: &GroupFit| -> (usize, String) {
            match &key {
                None => (args.inputs.iter().position(|i| stem(i) == g.name).unwrap_or(usize::MAX), String::new()),
                Some(GroupKey::Elo) => (["<2200", "2200-2399", "2400-2599", "2600+"].iter().position(|b| *b == g.name).unwrap_or(9), g.name.clone()),
                Some(_) => (0, g.name.clone()),
            }
        };
        fits.sort_by_key(order);
        let title = match &key {
            Some(k) => format!("Piece values by {}", format!("{k:?}").to_lowercase().replace("tag(\"", "").replace("\")", "")),
            None => "Piece values by input".to_string(),
        };
        grouped = Some((fits, title));
    }
    if args.fit.json {
        outln!("{}", serde_json::to_string_pretty(&to_json(&curve, &report, grouped.as_ref(), args.compare)?)?)?;
    } else {
        print_curve(&curve)?;
        outln!()?;
        outln!("Piece values, all games:")?;
        out!("{}", args.fit.text(&report))?;
        if let Some((fits, title)) = &grouped {
            outln!("\n{title} (values with 95% intervals{}):", if args.compare { "; z: difference from the first group over its standard error" } else { "" })?;
            print_groups(fits, args.compare)?;
        }
    }
    args.fit.write_files(&report, &features, &name)?;
    if let Some(dir) = &args.plot {
        // Without groups, the comparison chart shows how the values depend
        // on the way draws are modelled.
        if grouped.is_none() {
            let mut models = Vec::new();
            for (label, draws) in [("decisive games only", DrawMode::Exclude), ("draws as half points", DrawMode::Half), ("ordinal (draw band)", DrawMode::Ordinal)] {
                let config = FitConfig { draws, trace: false, bootstrap: None, holdout: None, ..fit_config.clone() };
                let mut g = fit_groups(BTreeMap::from([(label.to_string(), all.clone())]), &config, 0);
                models.append(&mut g);
            }
            grouped = Some((models, "Piece values by draw model".to_string()));
        }
        write_plots(dir, &curve, &report, grouped.as_ref().map(|(f, t)| (f.as_slice(), t.as_str())), &name, args.read.quiet)?;
    }
    Ok(())
}
