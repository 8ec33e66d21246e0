//! `pgntune extract`.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Args;

use super::progress::ReadProgress;
use super::values::{at_least, at_least_u32, at_least_usize, check_threads, whole};
use crate::atomic::{OutputKind, OutputPlan};
use crate::dataset::score_table::{CLASSICAL_SCALE, ScoreTable};
use crate::dataset::{Format, RowWriter, Schema, SparseShape, create_writer};
use crate::features::{FeatureLayout, FeatureSet};
use crate::pgn::extract::QuietMode;
use crate::pgn::{BadGames, EmitMode, ExtractConfig, ExtractStats, FilterConfig, InputSource, Problem, ResetEvents, UnknownResult, extract};

/// How positions are chosen from a game.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum QuietArg {
    /// The quiet rule of the 2015 article: a position N plies after the last capture, promotion or check (--quiet-plies, --reset-on, --emit).
    Plies,
    /// Every position, replaced by the end of the bundled engine's quiescence search (positions in check or with a mate score skipped).
    Qsearch,
}

/// How PGN input is read and filtered; shared by every command that reads games.
#[derive(Debug, Clone, Args)]
pub struct ReadArgs {
    /// Feature sets, comma separated, or `full` for the whole evaluation (`pgntune features` lists them).
    #[arg(long, default_value = "material", value_name = "SETS")]
    pub features: String,

    /// How positions are chosen [default: plies for layouts of material sets only, which keeps the 2015 article's numbers; qsearch otherwise].
    #[arg(long = "positions", value_enum, value_name = "MODE")]
    pub quiet_mode: Option<QuietArg>,

    /// The weights whose quiescence search --positions qsearch follows (a file or a preset).
    #[arg(long, default_value = crate::presets::DEFAULT_ENGINE, value_name = "WEIGHTS")]
    pub qsearch_weights: String,

    /// Keep at most K positions per game, chosen at random (by --seed), for less correlated training data.
    #[arg(long, value_name = "K")]
    pub sample: Option<usize>,

    /// Drop positions that occurred before (same Zobrist key), keeping the first in input order.
    #[arg(long)]
    pub dedupe: bool,

    /// Read evaluation labels from move comments ([%eval 0.35], [%eval #-4], TCEC's wv=1.44 (ev= in early seasons), and match runners' +0.54/12 from the mover's view, as cutechess, fastchess and pgntune write them) into an `eval` column (centipawns, white's view).
    #[arg(long)]
    pub eval_labels: bool,

    /// A position is quiet once this many plies have passed since the last capture, promotion or check.
    #[arg(long, default_value_t = 2, value_name = "N", allow_negative_numbers = true, value_parser = at_least_u32(0))]
    pub quiet_plies: u32,

    /// Moves that reset the quiet counter: a comma-separated subset of capture,promotion,check, or none.
    #[arg(long, default_value = "capture,promotion,check", value_name = "EVENTS")]
    pub reset_on: ResetEvents,

    /// Emit a quiet position only when its features differ from the last row of the game (changes), or always (all).
    #[arg(long, value_enum, default_value_t = EmitMode::Changes)]
    pub emit: EmitMode,

    /// Never emit positions from the first N plies of a game (opening moves).
    #[arg(long, default_value_t = 0, value_name = "N", allow_negative_numbers = true, value_parser = at_least_u32(0))]
    pub skip_plies: u32,

    /// Read at most N plies of each game.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = at_least_u32(1))]
    pub max_plies: Option<u32>,

    /// Games whose [Result] is "*" or missing: skip them, or keep them as draws (as pgnlearn did).
    #[arg(long, value_enum, default_value_t = UnknownResult::Skip)]
    pub unknown_result: UnknownResult,

    /// Games with an illegal, ambiguous or null move: keep the positions before it (cut), or drop the game (skip).
    #[arg(long, value_enum, default_value_t = BadGames::Cut)]
    pub bad_games: BadGames,

    /// Worker threads (default: one per core; more than 4 per core needs --force). The output does not depend on it.
    #[arg(long, short = 'j', default_value_t = 0, value_name = "N", hide_default_value = true, allow_negative_numbers = true, value_parser = at_least_usize(0))]
    pub threads: usize,

    /// Quiet: no progress bar and no summary line; warnings (such as illegal moves) and errors are still shown.
    #[arg(long = "quiet", short = 'q', alias = "silent")]
    pub quiet: bool,
}

impl ReadArgs {
    /// Records the files these options read (a `--qsearch-weights` file),
    /// which no output may replace: call before any output is planned.
    pub fn plan_inputs(&self, plan: &mut OutputPlan) {
        if let Some(path) = crate::weights::Weights::file(&self.qsearch_weights) {
            plan.input(path);
        }
    }

    /// The library configuration these arguments describe.
    pub fn config(&self, seed: u64) -> Result<ExtractConfig> {
        let layout = FeatureLayout::parse(&self.features)?;
        if layout.is_empty() {
            bail!("--features: no feature set given");
        }
        if let Some(set) = repeated_set(&self.features) {
            bail!("--features: '{set}' is named twice in '{}'", self.features);
        }
        let mode = self.quiet_mode.unwrap_or(if layout.depends_only_on_material() { QuietArg::Plies } else { QuietArg::Qsearch });
        // The default is the engine's; another, with plies, would be read and never used.
        if mode == QuietArg::Plies && self.qsearch_weights != crate::presets::DEFAULT_ENGINE {
            bail!("--qsearch-weights is for --positions qsearch; with --positions plies no search is made (leave it out)");
        }
        if let Some(max) = self.max_plies
            && max <= self.skip_plies
        {
            bail!("--max-plies {max} is not above --skip-plies {}: every position read would be skipped", self.skip_plies);
        }
        let quiet = match mode {
            QuietArg::Plies => QuietMode::Plies,
            QuietArg::Qsearch => {
                let weights = crate::weights::Weights::resolve(&self.qsearch_weights).context("--qsearch-weights")?;
                QuietMode::Qsearch(Box::new(crate::engine::Evaluator::new(&weights)?))
            }
        };
        if self.sample == Some(0) {
            bail!("--sample must be at least 1 (positions per game)");
        }
        Ok(ExtractConfig {
            layout,
            filter: FilterConfig {
                quiet_plies: self.quiet_plies,
                reset_on: self.reset_on,
                emit: self.emit,
                skip_plies: self.skip_plies,
                max_plies: self.max_plies,
            },
            unknown_result: self.unknown_result,
            bad_games: self.bad_games,
            tags: Vec::new(),
            fen: false,
            threads: self.threads,
            quiet,
            sample: self.sample,
            seed,
            dedupe: self.dedupe,
            labels: self.eval_labels,
            game_base: 0,
        })
    }
}

/// Arguments of `pgntune extract`.
#[derive(Debug, Args)]
#[command(after_help = "Output formats come from the file extension: .mat (pgnlearn's text matrix), .csv, .tsv, .parquet \
(sparse list columns for layouts over 64 columns), .epd (FEN c9 \"1-0\"; for Texel tuners), .ijv (sparse i j v triplets for \
Octave's spconvert and R's sparseMatrix), .svm (LIBSVM lines 'label index:value ...' for Spark MLlib, game ids and plies in \
'# game' comment lines); use --format octave for Octave's text format (load gives matrices X and y). \
Inputs may be plain, gzip, zstd or bzip2 PGN (recognised by content); '-' reads standard input. \
An output of '-' writes standard output (with --format). An existing output is replaced only if it is an earlier output \
of the same kind (recognised by its content), or with --force; an output can never be one of the inputs.")]
pub struct ExtractArgs {
    /// PGN files (plain, .gz, .zst, .bz2), or - for standard input.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<String>,

    /// Output file(s); the format comes from the extension unless --format is given.
    #[arg(short, long = "output", required = true, value_name = "OUTPUT")]
    pub outputs: Vec<PathBuf>,

    /// Output format, overriding the extension (needed for octave).
    #[arg(long, value_enum)]
    pub format: Option<Format>,

    /// PGN tags to copy into every row as extra columns (CSV, TSV, Parquet), e.g. White,Black,WhiteElo,BlackElo,Event,Date.
    #[arg(long, value_delimiter = ',', value_name = "TAGS")]
    pub tags: Vec<String>,

    /// Add each row's FEN as a column (CSV, TSV, Parquet).
    #[arg(long)]
    pub fen: bool,

    /// The Parquet shape of a layout wider than 64 columns: compact (each row's non-zero terms and their counts, two lists
    /// of small integers, and the phase; the metadata maps terms to columns) or expanded (the design matrix's non-zero
    /// columns `idx` and values `val`, a sparse vector as it stands, about twice the bytes).
    /// [default: compact]
    #[arg(long, value_enum, value_name = "SHAPE")]
    pub sparse_shape: Option<SparseShape>,

    /// Also write the score table (material balance on the 1-3-3-5-9 scale, rows, points, mean score) as CSV.
    #[arg(long, value_name = "FILE")]
    pub score_table: Option<PathBuf>,

    /// Seed of --sample.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = at_least(0))]
    pub seed: u64,

    /// Number games from N on (the `game` ids): a shard's first game in the whole collection (`first_game` in the manifest of
    /// `pgntune split`), so that shards extracted apart get the ids, and with --sample the rows, of one extraction of them all.
    // At most 2^53: the ids stay exact in every reader (pandas and R hold
    // them as doubles), and adding the games' numbers cannot wrap.
    #[arg(long, default_value_t = 0, value_name = "N", allow_negative_numbers = true, value_parser = whole::<u64>(0, 1 << 53))]
    pub game_base: u64,

    /// Replace existing outputs that pgntune did not write, and allow -j far above the core count.
    #[arg(long)]
    pub force: bool,

    #[command(flatten)]
    pub read: ReadArgs,
}

pub(super) fn run(args: ExtractArgs) -> Result<()> {
    let mut config = args.read.config(args.seed)?;
    config.tags = args.tags.iter().map(|t| t.trim().to_string()).filter(|t| !t.is_empty()).collect();
    if !args.tags.is_empty() && config.tags.is_empty() {
        bail!("--tags names no tag (for example --tags White,Black)");
    }
    check_tag_columns(&config.tags, &config.layout.columns())?;
    config.game_base = args.game_base;
    // EPD lines are positions: an EPD output needs every row's FEN.
    config.fen = args.fen || args.outputs.iter().any(|p| Format::resolve(p, args.format).is_ok_and(|f| f == Format::Epd));
    let formats: Vec<Format> = args.outputs.iter().filter_map(|p| Format::resolve(p, args.format).ok()).collect();
    let schema = Schema { sparse_shape: sparse_shape(args.sparse_shape, &config.layout, &formats)?, ..config.schema() };
    if args.format.is_some() && args.outputs.len() > 1 {
        bail!("--format applies to a single output; give each output its own extension instead");
    }

    let inputs: Vec<InputSource> = args.inputs.iter().map(|a| InputSource::from_arg(a)).collect();
    check_inputs(&inputs)?;
    check_threads("--threads", args.read.threads, Some(args.force))?;
    // Check every output before reading anything: none may be an input or
    // another output, and existing files are replaced only when allowed.
    let mut plan = OutputPlan::new(args.force).allow_stdout();
    for input in &args.inputs {
        plan.input(Path::new(input));
    }
    args.read.plan_inputs(&mut plan);
    for path in &args.outputs {
        if crate::atomic::is_stdout(path) && args.format.is_none() {
            bail!("-o -: standard output has no extension to take the format from; give --format");
        }
        let format = match Format::resolve(path, args.format) {
            Ok(format) => format,
            Err(e) => bail!("{e}, or give --format (octave for Octave's text format)"),
        };
        // Options a format would drop without a word.
        if !config.tags.is_empty() && !format.keeps_tags() {
            bail!("{}: --tags: {} holds no tags; write .csv, .tsv or .parquet", path.display(), format.describe());
        }
        if config.labels && !format.keeps_evals() {
            bail!(
                "{}: --eval-labels: {} holds no evaluation labels; write .csv, .tsv, .parquet, .ijv, .svm or .epd",
                path.display(),
                format.describe()
            );
        }
        if args.fen && !format.keeps_fens() {
            bail!("{}: --fen: {} holds no FENs; write .csv, .tsv, .parquet or .epd", path.display(), format.describe());
        }
        plan.output(path, format)?;
    }
    if let Some(path) = &args.score_table {
        plan.output(path, OutputKind::ScoreTable)?;
    }

    // Create every output (under temporary names) before reading anything,
    // so that a bad output path fails at once and nothing is left behind.
    let mut writers: Vec<Box<dyn RowWriter>> = Vec::new();
    for path in &args.outputs {
        let format = Format::resolve(path, args.format)?;
        writers.push(create_writer(path, format, &schema, config.thread_count())?);
    }
    let mut score_table = match &args.score_table {
        Some(_) => Some(ScoreTable::new(&schema, &CLASSICAL_SCALE).map_err(anyhow::Error::msg).context("--score-table")?),
        None => None,
    };

    let total = inputs.iter().map(InputSource::size_hint).sum::<Option<u64>>();
    let progress = ReadProgress::new(total, args.read.quiet);
    let mut labelled = 0u64;
    let stats = extract(&inputs, &config, &progress, |batch| {
        labelled += batch.evals.iter().filter(|e| !e.is_nan()).count() as u64;
        for w in writers.iter_mut() {
            w.write(batch)?;
        }
        if let Some(table) = &mut score_table {
            table.add(batch);
        }
        Ok(())
    });
    progress.finish();
    let stats = stats?;
    no_game_found(&stats, &args.inputs)?;
    for w in writers {
        w.finish()?;
    }
    if let (Some(table), Some(path)) = (score_table, &args.score_table) {
        table.write_csv(path)?;
    }
    report(&stats, args.read.quiet);
    if config.labels && labelled == 0 {
        // Said even with -q: the eval column is empty, which --eval-weight would find out later.
        eprintln!(
            "pgntune: warning: --eval-labels: no row got a label (no move comment had [%eval ...], TCEC's wv= or ev=, \
             or a match runner's +0.54/12), so the eval column is empty"
        );
    }
    Ok(())
}

/// Fails when the inputs had content but no PGN game at all (a binary or
/// foreign file), or no content at all (an empty file, a file cut to
/// nothing), rather than writing empty outputs as if all were well.
pub(super) fn no_game_found(stats: &ExtractStats, inputs: &[String]) -> Result<()> {
    match stats.nothing_found(inputs) {
        Some(nothing) => bail!(nothing),
        None => Ok(()),
    }
}

/// `--sparse-shape`, refused where it would change nothing: for a layout
/// of at most 64 columns (one Parquet column each) or without a Parquet
/// output.
pub(super) fn sparse_shape(given: Option<SparseShape>, layout: &FeatureLayout, formats: &[Format]) -> Result<SparseShape> {
    if given.is_some() {
        if layout.len() <= crate::dataset::parquet::DENSE_COLUMNS {
            bail!(
                "--sparse-shape: the layout '{}' has {} columns, written one Parquet column each; it is for wider layouts",
                layout.spec(),
                layout.len()
            );
        }
        if !formats.contains(&Format::Parquet) {
            bail!("--sparse-shape: no output is Parquet");
        }
    }
    Ok(given.unwrap_or_default())
}

/// The columns every dataset may have besides its features and tags
/// (dense and sparse layouts together).
const ROW_COLUMNS: [&str; 10] = ["result", "game", "ply", "fen", "eval", "phase", "idx", "val", "term", "count"];

/// Fails when a kept tag would be a second column of the same name: a
/// tag given twice, or named like a feature or a row column (`--tags P`).
/// CSV files got two columns of one name, and Parquet failed with polars'
/// own message about a duplicate.
fn check_tag_columns(tags: &[String], features: &[String]) -> Result<()> {
    for (i, tag) in tags.iter().enumerate() {
        if tags[..i].contains(tag) {
            bail!("--tags: '{tag}' is given twice");
        }
        if features.contains(tag) || ROW_COLUMNS.contains(&tag.as_str()) {
            bail!("--tags: '{tag}' is already a column of the dataset; a tag column would have the same name");
        }
    }
    Ok(())
}

/// The first set a comma-separated list names twice (`material,material`,
/// or `full,pst`: `full` has `pst`), if any: [`FeatureLayout::parse`]
/// keeps one of them without a word.
fn repeated_set(list: &str) -> Option<String> {
    let mut seen: Vec<FeatureSet> = Vec::new();
    for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let sets: Vec<FeatureSet> = if name.eq_ignore_ascii_case("full") { FeatureSet::FULL.to_vec() } else { vec![name.parse().ok()?] };
        for set in sets {
            if seen.contains(&set) {
                return Some(set.name().to_string());
            }
            seen.push(set);
        }
    }
    None
}

/// Fails early, with the file's name, on inputs that cannot be read at all.
pub(super) fn check_inputs(inputs: &[InputSource]) -> Result<()> {
    for input in inputs {
        if let InputSource::File(path) = input {
            let meta = std::fs::metadata(path).with_context(|| path.display().to_string())?;
            if meta.is_dir() {
                bail!("{}: is a directory, not a PGN file", path.display());
            }
        }
    }
    if inputs.iter().filter(|i| **i == InputSource::Stdin).count() > 1 {
        bail!("standard input ('-') can be given only once");
    }
    let files = inputs.iter().filter_map(|i| match i {
        InputSource::File(path) => Some(path.as_path()),
        _ => None,
    });
    refuse_repeated_inputs(files, "games")
}

/// Fails when two of `paths` are one file: its `what` (games, rows) would
/// count twice, and every estimate would look surer than it is.
pub(super) fn refuse_repeated_inputs<'a>(paths: impl IntoIterator<Item = &'a Path>, what: &str) -> Result<()> {
    if let Some((first, again)) = crate::atomic::repeated_file(paths) {
        bail!("{again}: this input is also the input {first}; give each file once (its {what} would count twice)");
    }
    Ok(())
}

/// Prints the problems (the first few in full) and, unless `quiet`, the
/// summary line on standard error.
pub(super) fn report(stats: &ExtractStats, quiet: bool) {
    warn_problems(&stats.problems, stats.problem_count);
    if !quiet {
        eprintln!("{}", stats.summary_line());
    }
}

/// Prints the first problems in full and how many more there were, on
/// standard error (also with -q: a warning is not a note).
pub(super) fn warn_problems(problems: &[Problem], count: u64) {
    for problem in problems {
        eprintln!("pgntune: warning: {problem}");
    }
    let unreported = count - problems.len() as u64;
    if unreported > 0 {
        eprintln!("pgntune: warning: {unreported} more problems not shown");
    }
}
