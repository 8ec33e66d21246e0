//! `pgntune extract`.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Args;

use super::progress::ReadProgress;
use super::values::{at_least_u32, at_least_usize, check_threads};
use crate::atomic::{OutputKind, OutputPlan};
use crate::dataset::score_table::{CLASSICAL_SCALE, ScoreTable};
use crate::dataset::{Format, RowWriter, create_writer};
use crate::features::FeatureLayout;
use crate::pgn::{BadGames, EmitMode, ExtractConfig, ExtractStats, FilterConfig, InputSource, ResetEvents, UnknownResult, extract};

/// How PGN input is read and filtered; shared by every command that reads games.
#[derive(Debug, Clone, Args)]
pub struct ReadArgs {
    /// Feature sets, comma separated (known: material).
    #[arg(long, default_value = "material", value_name = "SETS")]
    pub features: String,

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
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

impl ReadArgs {
    /// The library configuration these arguments describe.
    pub fn config(&self) -> Result<ExtractConfig> {
        let layout = FeatureLayout::parse(&self.features)?;
        if layout.is_empty() {
            bail!("--features: no feature set given");
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
        })
    }
}

/// Arguments of `pgntune extract`.
#[derive(Debug, Args)]
#[command(after_help = "Output formats come from the file extension: .mat (pgnlearn's text matrix), .csv, .tsv, .parquet; \
use --format octave for Octave's text format (load gives matrices X and y). \
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

    /// Also write the score table (material balance on the 1-3-3-5-9 scale, rows, points, mean score) as CSV.
    #[arg(long, value_name = "FILE")]
    pub score_table: Option<PathBuf>,

    /// Replace existing outputs that pgntune did not write, and allow -j far above the core count.
    #[arg(long)]
    pub force: bool,

    #[command(flatten)]
    pub read: ReadArgs,
}

pub(super) fn run(args: ExtractArgs) -> Result<()> {
    let mut config = args.read.config()?;
    config.tags = args.tags.iter().map(|t| t.trim().to_string()).filter(|t| !t.is_empty()).collect();
    config.fen = args.fen;
    let schema = config.schema();
    if args.format.is_some() && args.outputs.len() > 1 {
        bail!("--format applies to a single output; give each output its own extension instead");
    }

    let inputs: Vec<InputSource> = args.inputs.iter().map(|a| InputSource::from_arg(a)).collect();
    check_inputs(&inputs)?;
    check_threads("--threads", args.read.threads, args.force)?;
    // Check every output before reading anything: none may be an input or
    // another output, and existing files are replaced only when allowed.
    let mut plan = OutputPlan::new(args.force).allow_stdout();
    for input in &args.inputs {
        plan.input(Path::new(input));
    }
    for path in &args.outputs {
        if crate::atomic::is_stdout(path) && args.format.is_none() {
            bail!("-o -: standard output has no extension to take the format from; give --format");
        }
        plan.output(path, OutputKind::Dataset(Format::resolve(path, args.format)?))?;
    }
    if let Some(path) = &args.score_table {
        plan.output(path, OutputKind::ScoreTable)?;
    }

    // Create every output (under temporary names) before reading anything,
    // so that a bad output path fails at once and nothing is left behind.
    let mut writers: Vec<Box<dyn RowWriter>> = Vec::new();
    for path in &args.outputs {
        let format = Format::resolve(path, args.format)?;
        writers.push(create_writer(path, format, &schema)?);
    }
    let mut score_table = match &args.score_table {
        Some(_) => Some(ScoreTable::new(&schema, &CLASSICAL_SCALE).map_err(anyhow::Error::msg).context("--score-table")?),
        None => None,
    };

    let total = inputs.iter().map(InputSource::size_hint).sum::<Option<u64>>();
    let progress = ReadProgress::new(total, args.read.quiet);
    let stats = extract(&inputs, &config, &progress, |batch| {
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
    Ok(())
}

/// Fails when the inputs had content but no PGN game at all (a binary or
/// foreign file), rather than writing empty outputs as if all were well.
pub(super) fn no_game_found(stats: &ExtractStats, inputs: &[String]) -> Result<()> {
    if stats.found_no_game() {
        let what = if inputs.len() == 1 { inputs[0].clone() } else { format!("the {} inputs", inputs.len()) };
        bail!("{what}: no PGN game found (not a PGN file?)");
    }
    Ok(())
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
    Ok(())
}

/// Prints the problems (the first few in full) and, unless `quiet`, the
/// summary line on standard error.
pub(super) fn report(stats: &ExtractStats, quiet: bool) {
    for problem in &stats.problems {
        eprintln!("pgntune: warning: {problem}");
    }
    let unreported = stats.problem_count - stats.problems.len() as u64;
    if unreported > 0 {
        eprintln!("pgntune: warning: {unreported} more problems not shown");
    }
    if !quiet {
        eprintln!("{}", stats.summary_line());
    }
}
