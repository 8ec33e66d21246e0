//! `pgntune analyze` as a library call: inputs (PGN or datasets) in; the
//! score curve, the fit of all games, and per-group fits out; the figures
//! drawn from them on request. Reading keeps each row's input and game, so
//! that groups count their games and the fit of all games can bootstrap by
//! game.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use super::curve::{Scale, ScoreCurve, score_curve};
pub use super::error::AnalyzeError;
use super::groups::{ELO_BANDS, GroupFit, GroupKey, compare, fit_groups};
use super::plots::{self, ConvergencePlot, GroupComparisonPlot, GroupValues, PlotError, ScoreCurvePlot, ScorePoint};
use crate::fit::report::FitReportJson;
use crate::fit::{DrawMode, FitConfig, FitReport, MergedRows, RowMerger, fit};
use crate::json::Object;
use crate::pgn::extract::Progress;
use crate::pgn::{ExtractConfig, ExtractStats, InputSource, extract};

/// How rows are grouped for per-group fits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Grouping {
    /// No groups: the fit of all games only.
    None,
    /// By a key of the games (player, event, year, …).
    By(GroupKey),
    /// Each input is a group, compared with the first.
    CompareInputs,
}

/// An analysis to make.
#[derive(Clone, Debug)]
pub struct AnalyzeConfig {
    /// PGN files (plain or compressed, `-` for standard input) or datasets
    /// written by `extract` (.mat, .csv, .tsv, .parquet).
    pub inputs: Vec<String>,
    /// How PGN inputs are read (the tags the grouping needs are added).
    pub read: ExtractConfig,
    /// The scale of material balances for the score curve.
    pub scale: Scale,
    /// Groups to fit separately.
    pub grouping: Grouping,
    /// Only games where White or Black contains this (case-insensitive);
    /// with grouping by player, one group of that name.
    pub player: Option<String>,
    /// Groups with fewer decisive games are reported but not fitted.
    pub min_decisive: u64,
    /// The fit of all games (groups are fitted alike, without trace,
    /// bootstrap or holdout).
    pub fit: FitConfig,
    /// Without groups, also fit the rows under each draw model (for the
    /// comparison figure).
    pub draw_models: bool,
}

/// What reading one input found.
#[derive(Clone, Debug)]
pub struct InputRead {
    /// The input as given.
    pub input: String,
    /// Extraction statistics of a PGN input (`None` for a dataset).
    pub stats: Option<ExtractStats>,
}

/// Group fits under one title.
#[derive(Clone, Debug)]
pub struct GroupTable {
    /// E.g. `Piece values by decade`.
    pub title: String,
    /// The groups, in report order.
    pub fits: Vec<GroupFit>,
    /// Each group's differences from the first fitted one are meaningful
    /// (inputs compared).
    pub compared: bool,
}

/// The results of an analysis.
#[derive(Clone, Debug)]
pub struct AnalyzeReport {
    /// A name for titles: the input's stem, or `N inputs`.
    pub name: String,
    /// Per input, what reading it found.
    pub inputs: Vec<InputRead>,
    /// The feature columns of the rows.
    pub columns: Vec<String>,
    /// The score curve.
    pub curve: ScoreCurve,
    /// The fit of all games.
    pub fit: FitReport,
    /// Per-group fits, when grouped.
    pub groups: Option<GroupTable>,
    /// Fits under each draw model, when asked for (and not grouped).
    pub draw_models: Option<GroupTable>,
}

/// Game ids of different inputs must differ (each input numbers its games
/// from 0): the input's index goes above the game's number.
const GAME_BITS: u32 = 40;

/// The id of game `game` of input `input`.
fn game_id(input: usize, game: u64, name: &str) -> Result<u64, AnalyzeError> {
    if game >> GAME_BITS != 0 {
        return Err(AnalyzeError::TooManyGames(name.to_string()));
    }
    Ok(((input as u64) << GAME_BITS) | game)
}

/// True for the dataset formats `extract` writes.
pub fn is_dataset(input: &str) -> bool {
    use crate::dataset::Format;
    matches!(Format::from_path(Path::new(input)), Some(Format::Mat | Format::Csv | Format::Tsv | Format::Parquet))
}

/// Why `analyze` cannot read `input` when it is a dataset of a kind it does
/// not take (named by its extension): read as PGN, it gave "no PGN game
/// found", which sent the user looking for a broken PGN file.
pub fn unread_dataset(input: &str) -> Option<String> {
    use crate::dataset::Format;
    let kind = match Format::from_path(Path::new(input))? {
        Format::Svm => "a LIBSVM (.svm) dataset",
        Format::Ijv => "a sparse triplet (.ijv) dataset",
        Format::Epd => "an EPD dataset",
        _ => return None,
    };
    Some(format!(
        "{kind}, which analyze does not read: it takes PGN files and .mat, .csv, .tsv or .parquet datasets (fit reads this one, or extract the PGN again)"
    ))
}

/// A file's name up to its first dot.
pub fn stem(input: &str) -> String {
    let name = Path::new(input).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| input.to_string());
    name.split('.').next().unwrap_or(&name).to_string()
}

/// Who hears about reading: a progress sink per PGN input.
pub trait ReadObserver: Sync {
    /// The progress sink for reading `input` (of `size` bytes, if known).
    fn progress(&self, input: &str, size: Option<u64>) -> Box<dyn Progress + '_>;
}

/// Reads nothing aloud.
pub struct Silent;

impl ReadObserver for Silent {
    fn progress(&self, _: &str, _: Option<u64>) -> Box<dyn Progress + '_> {
        Box::new(crate::pgn::extract::NoProgress)
    }
}

/// Which group a row belongs to, from its game's tags and its input.
struct Grouper<'a> {
    config: &'a AnalyzeConfig,
    /// The tags extraction keeps, in order.
    tags: Vec<String>,
    player: Option<String>,
}

impl<'a> Grouper<'a> {
    fn new(config: &'a AnalyzeConfig) -> Grouper<'a> {
        let mut tags = match &config.grouping {
            Grouping::By(key) => key.tags(),
            _ => Vec::new(),
        };
        if config.player.is_some() {
            tags.extend(["White".to_string(), "Black".to_string()]);
        }
        let mut seen = std::collections::HashSet::new();
        tags.retain(|t| seen.insert(t.clone()));
        Grouper { config, tags, player: config.player.as_ref().map(|p| p.to_lowercase()) }
    }

    /// The group of a game with tag values `t` (in `self.tags` order) from
    /// the input `source`; `None` drops it.
    fn group_of(&self, t: &[&str], source: &str) -> Option<String> {
        if let Some(name) = &self.player {
            let at = |tag: &str| self.tags.iter().position(|x| x == tag).and_then(|i| t.get(i)).map(|v| v.to_lowercase());
            let (w, b) = (at("White")?, at("Black")?);
            if !w.contains(name.as_str()) && !b.contains(name.as_str()) {
                return None;
            }
        }
        match &self.config.grouping {
            Grouping::By(GroupKey::Player) => Some(self.config.player.clone().unwrap_or_else(|| source.to_string())),
            Grouping::By(key) => Some(key.group(&t[..key.tags().len().min(t.len())], source)),
            Grouping::CompareInputs => Some(source.to_string()),
            Grouping::None => Some(String::new()),
        }
    }
}

/// The rows of every input, per group and all together.
struct Rows {
    groups: BTreeMap<String, RowMerger>,
    all: Option<RowMerger>,
    track_games: bool,
}

impl Rows {
    fn mergers(&mut self, key: String, columns: &[String]) -> Result<(&mut RowMerger, &mut RowMerger), String> {
        let group = self.groups.entry(key).or_insert_with(|| RowMerger::new(columns.to_vec(), false));
        let all = self.all.get_or_insert_with(|| RowMerger::new(columns.to_vec(), self.track_games));
        if group.columns() != columns || all.columns() != columns {
            return Err(format!("columns {} differ from the other inputs'", columns.join(" ")));
        }
        Ok((group, all))
    }
}

/// Runs the analysis.
pub fn run(config: &AnalyzeConfig, observer: &dyn ReadObserver) -> Result<AnalyzeReport, AnalyzeError> {
    let grouper = Grouper::new(config);
    if let Some(dataset) = config.inputs.iter().find(|i| is_dataset(i))
        && (config.player.is_some() || matches!(&config.grouping, Grouping::By(k) if *k != GroupKey::Player))
    {
        return Err(AnalyzeError::Input {
            input: dataset.clone(),
            reason: "groups by tag and a player filter read PGN tags; datasets have none (compare inputs instead, or extract the PGN)".into(),
        });
    }
    let read = ExtractConfig { tags: grouper.tags.clone(), ..config.read.clone() };
    let columns = read.layout.columns();
    let mut rows = Rows { groups: BTreeMap::new(), all: None, track_games: config.fit.bootstrap.is_some() || config.fit.holdout.is_some() };
    let mut inputs = Vec::new();
    if let Some((input, reason)) = config.inputs.iter().find_map(|i| unread_dataset(i).map(|r| (i, r))) {
        return Err(AnalyzeError::Input { input: input.clone(), reason });
    }
    for (n, input) in config.inputs.iter().enumerate() {
        let source = stem(input);
        if is_dataset(input) {
            // Game ids are kept so that every group counts its games.
            let loaded = crate::dataset::load::load(&[input], true)?;
            let key = grouper.group_of(&[], &source).unwrap_or(source.clone());
            let (group, all) = rows.mergers(key, &loaded.columns).map_err(|reason| AnalyzeError::Input { input: input.clone(), reason })?;
            let base = game_id(n, 0, input)?;
            group.add_merged(&loaded, base);
            all.add_merged(&loaded, base);
            inputs.push(InputRead { input: input.clone(), stats: None });
            continue;
        }
        let source_input = InputSource::from_arg(input);
        if let InputSource::File(path) = &source_input
            && path.is_dir()
        {
            return Err(AnalyzeError::Input { input: input.clone(), reason: "is a directory, not a PGN file".into() });
        }
        let progress = observer.progress(input, source_input.size_hint());
        let mut x = vec![0.0; read.layout.len()];
        let mut failure: Option<AnalyzeError> = None;
        let stats = extract(std::slice::from_ref(&source_input), &read, progress.as_ref(), |batch| {
            let mut tags: Vec<&str> = Vec::with_capacity(batch.tags.len());
            for i in 0..batch.len() {
                tags.clear();
                tags.extend(batch.tags.iter().map(|t| t.get(i).unwrap_or_default()));
                let Some(key) = grouper.group_of(&tags, &source) else { continue };
                let id = match game_id(n, batch.games[i], input) {
                    Ok(id) => id,
                    Err(e) => {
                        failure.get_or_insert(e);
                        continue;
                    }
                };
                batch.dense_row(i, &read.layout, &mut x);
                let (group, all) = rows.mergers(key, &columns).expect("every PGN input has the layout's columns");
                group.add(&x, batch.results[i], Some(id));
                all.add(&x, batch.results[i], Some(id));
            }
            Ok(())
        })?;
        if let Some(e) = failure {
            return Err(e);
        }
        if stats.found_no_game() {
            return Err(AnalyzeError::NoGames(input.clone()));
        }
        inputs.push(InputRead { input: input.clone(), stats: Some(stats) });
    }
    let groups: BTreeMap<String, MergedRows> = rows.groups.into_iter().map(|(k, m)| (k, m.finish())).collect();
    let all = rows.all.map(RowMerger::finish).unwrap_or_default();
    if groups.is_empty() {
        return Err(AnalyzeError::NoRows { player: config.player.clone() });
    }
    // Every game in the unknown group: the tag is on none of them (most
    // likely a misspelt name), and one group of everything compares nothing.
    if let Grouping::By(key) = &config.grouping
        && *key != GroupKey::Player
        && groups.keys().all(|g| g == "?")
    {
        return Err(AnalyzeError::NoTag { key: key.to_string(), tags: key.tags().join(", ") });
    }
    let name = if config.inputs.len() == 1 { stem(&config.inputs[0]) } else { format!("{} inputs", config.inputs.len()) };
    let curve = score_curve(&all, &config.scale)?;
    let report = fit(&all, &FitConfig { trace: true, ..config.fit.clone() }).map_err(AnalyzeError::Fit)?;
    let group_config = FitConfig { trace: false, bootstrap: None, holdout: None, ..config.fit.clone() };
    let group_table = match &config.grouping {
        Grouping::None => None,
        grouping => {
            let mut fits = fit_groups(groups, &group_config, config.min_decisive);
            // Inputs in the order given; rating bands by rating; the rest by name.
            let order = |g: &GroupFit| -> (usize, String) {
                match grouping {
                    Grouping::CompareInputs => (config.inputs.iter().position(|i| stem(i) == g.name).unwrap_or(usize::MAX), String::new()),
                    Grouping::By(GroupKey::Elo) => (ELO_BANDS.iter().position(|b| *b == g.name).unwrap_or(ELO_BANDS.len()), g.name.clone()),
                    _ => (0, g.name.clone()),
                }
            };
            fits.sort_by_key(order);
            let title = match grouping {
                Grouping::By(key) => format!("Piece values by {key}"),
                _ => "Piece values by input".to_string(),
            };
            Some(GroupTable { title, fits, compared: *grouping == Grouping::CompareInputs })
        }
    };
    let draw_models = (config.draw_models && group_table.is_none()).then(|| {
        let mut fits = Vec::new();
        for (label, draws) in
            [("decisive games only", DrawMode::Exclude), ("draws as half points", DrawMode::Half), ("ordinal (draw band)", DrawMode::Ordinal)]
        {
            let config = FitConfig { draws, ..group_config.clone() };
            fits.append(&mut fit_groups(BTreeMap::from([(label.to_string(), all.clone())]), &config, 0));
        }
        GroupTable { title: "Piece values by draw model".into(), fits, compared: false }
    });
    Ok(AnalyzeReport { name, inputs, columns: all.columns.clone(), curve, fit: report, groups: group_table, draw_models })
}

impl GroupTable {
    /// Each group's differences from the first fitted group (only when compared).
    pub fn differences(&self) -> Vec<Option<Vec<Option<super::groups::Difference>>>> {
        if self.compared { compare(&self.fits) } else { vec![None; self.fits.len()] }
    }

    /// The groups as JSON: `title`, and `groups` with `name`, `games`,
    /// `decisive_games`, `rows`, `fit` (the fit's own JSON or `null`),
    /// `note` (why not fitted, or `null`) and `z` (per column, compared
    /// inputs only, else `null`).
    pub fn json(&self) -> GroupTableJson<'_> {
        let groups = self
            .fits
            .iter()
            .zip(self.differences())
            .map(|(g, diff)| {
                // The columns are the group's fit's; a group not fitted has none.
                let columns = g.fit.as_ref().map_or(&[][..], |f| &f.columns[..]);
                let z = diff.map(|d| columns.iter().map(String::as_str).zip(d).map(|(c, d)| (c, d.map(|d| d.z))).collect());
                GroupJson {
                    name: &g.name,
                    games: g.games,
                    decisive_games: g.decisive_games,
                    rows: g.rows,
                    fit: g.fit.as_ref().map(FitReport::json),
                    note: g.note.as_deref(),
                    z,
                }
            })
            .collect();
        GroupTableJson { title: &self.title, groups }
    }

    /// The comparison figure's data: per fitted group its values and intervals.
    pub fn plot(&self) -> Option<GroupComparisonPlot> {
        let fitted: Vec<&GroupFit> = self.fits.iter().filter(|g| g.fit.is_some()).collect();
        let columns = fitted.first()?.fit.as_ref()?.columns.clone();
        let shown: Vec<usize> = (0..columns.len()).filter(|&j| columns[j] != crate::fit::REFERENCE).collect();
        Some(GroupComparisonPlot {
            title: self.title.clone(),
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
}

impl AnalyzeReport {
    /// The whole analysis as one JSON object: `score_curve` (`scale`,
    /// `points` [{balance, rows, points, mean, ci95}], `alpha`,
    /// `alpha_ci95`, `alpha_decisive`), `fit` (the fit of all games, as
    /// `fit --json` writes it) and `groups` (see [`GroupTable::json`],
    /// or `null` without grouping).
    pub fn json(&self) -> AnalyzeReportJson<'_> {
        AnalyzeReportJson { score_curve: &self.curve, fit: self.fit.json(), groups: self.groups.as_ref().map(GroupTable::json) }
    }

    /// [`AnalyzeReport::json`] as a value (what `analyze --json` prints).
    pub fn to_json(&self) -> Value {
        crate::json::to_value(&self.json())
    }

    /// Writes the figures (score curve, convergence, group comparison) as
    /// PNG and SVG into `dir` (which must exist); returns the files written.
    pub fn write_figures(&self, dir: &Path) -> Result<Vec<PathBuf>, PlotError> {
        let curve = &self.curve;
        let curve_plot = ScoreCurvePlot {
            title: format!("Expected score vs material balance ({})", self.name),
            scale: curve.scale.clone(),
            points: curve.points.iter().map(|p| ScorePoint { balance: p.balance, rows: p.rows, mean: p.mean, ci95: p.ci95 }).collect(),
            alpha: curve.alpha,
            alpha_ci95: curve.alpha_ci95,
            reference_alphas: vec![0.5, 1.0],
        };
        let report = &self.fit;
        // Iterates where the pawn's weight is still 0 (the start) have no normalised values.
        let offset = usize::from(report.intercept.is_some());
        let reference = report.reference.unwrap_or(0);
        let trace: Vec<_> =
            report.normalised_trace().into_iter().zip(&report.trace).filter(|(_, p)| p.param[offset + reference] != 0.0).map(|(t, _)| t).collect();
        let solver = serde_json::to_value(report.solver).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
        let convergence = ConvergencePlot {
            title: format!("Convergence of the fit ({}, {solver})", self.name),
            columns: report.columns.clone(),
            iterations: trace.iter().map(|t| t.0).collect(),
            values: trace.iter().map(|t| t.1.clone()).collect(),
            loss: trace.iter().map(|t| t.2).collect(),
        };
        let groups = self.groups.as_ref().or(self.draw_models.as_ref()).and_then(GroupTable::plot);
        let mut written = Vec::new();
        for ext in ["png", "svg"] {
            let path = dir.join(format!("{}.{ext}", FIGURES[0]));
            plots::score_curve(&curve_plot, &path)?;
            written.push(path);
            if convergence.iterations.len() > 1 {
                let path = dir.join(format!("{}.{ext}", FIGURES[1]));
                plots::convergence(&convergence, &path)?;
                written.push(path);
            }
            if let Some(plot) = &groups {
                let path = dir.join(format!("{}.{ext}", FIGURES[2]));
                plots::group_comparison(plot, &path)?;
                written.push(path);
            }
        }
        Ok(written)
    }
}

/// [`AnalyzeReport`]'s JSON (see [`AnalyzeReport::json`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AnalyzeReportJson<'a> {
    /// The score curve.
    pub score_curve: &'a ScoreCurve,
    /// The fit of all games.
    pub fit: FitReportJson<'a>,
    /// The per-group fits, `null` without grouping.
    pub groups: Option<GroupTableJson<'a>>,
}

/// [`GroupTable`]'s JSON (see [`GroupTable::json`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupTableJson<'a> {
    /// The table's title.
    pub title: &'a str,
    /// Every group, in the table's order.
    pub groups: Vec<GroupJson<'a>>,
}

/// One group in [`GroupTableJson`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupJson<'a> {
    /// The group's name.
    pub name: &'a str,
    /// Its games, when known.
    pub games: Option<u64>,
    /// Its decisive games, when known.
    pub decisive_games: Option<u64>,
    /// Its rows.
    pub rows: u64,
    /// Its fit, `null` when not fitted.
    pub fit: Option<FitReportJson<'a>>,
    /// Why it was not fitted.
    pub note: Option<&'a str>,
    /// Per column the difference from the first group over its standard
    /// error (compared inputs only, else `null`).
    pub z: Option<Object<&'a str, Option<f64>>>,
}

/// The figures [`AnalyzeReport::write_figures`] may write, without extension.
pub const FIGURES: [&str; 3] = ["score_curve", "convergence", "groups"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_ids_keep_inputs_apart() {
        assert_eq!(game_id(0, 7, "a").unwrap(), 7);
        assert_eq!(game_id(2, 7, "a").unwrap(), (2 << 40) | 7);
        assert!(matches!(game_id(1, 1 << 40, "a"), Err(AnalyzeError::TooManyGames(_))));
        assert_eq!(stem("../x/OpenRating.pgn.zst"), "OpenRating");
        assert!(is_dataset("rows.PARQUET") && !is_dataset("games.pgn"));
    }

    #[test]
    fn an_analysis_configured_without_the_command_line() {
        let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/selfplay.pgn.zst").display().to_string();
        let config = AnalyzeConfig {
            inputs: vec![sample],
            read: ExtractConfig::default(),
            scale: Scale::classical(),
            grouping: Grouping::By(GroupKey::Event),
            player: None,
            min_decisive: 1_000_000,
            fit: FitConfig::default(),
            draw_models: false,
        };
        let report = run(&config, &Silent).unwrap();
        assert_eq!(report.name, "selfplay");
        let stats = report.inputs[0].stats.as_ref().unwrap();
        assert_eq!(stats.games_read, 2000);
        let groups = report.groups.as_ref().unwrap();
        assert_eq!(groups.title, "Piece values by event");
        assert_eq!(groups.fits.len(), 1);
        let only = &groups.fits[0];
        assert_eq!(only.name, "pgntune selfplay");
        assert!(only.fit.is_none() && only.note.as_deref().is_some_and(|n| n.contains("too few decisive games")), "{:?}", only.note);
        assert_eq!(only.games, report.fit.games, "the group holds every game");
        let json = report.to_json();
        assert_eq!(json["groups"]["groups"][0]["name"], "pgntune selfplay");
        assert!(json["score_curve"]["alpha"].as_f64().unwrap() > 0.0);
    }
}
