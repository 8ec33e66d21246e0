//! `pgntune extract`.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::Args;

use super::progress::ReadProgress;
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
    #[arg(long, default_value_t = 2, value_name = "N")]
    pub quiet_plies: u32,

    /// Moves that reset the quiet counter: a comma-separated subset of capture,promotion,check, or none.
    #[arg(long, default_value = "capture,promotion,check", value_name = "EVENTS")]
    pub reset_on: ResetEvents,

    /// Emit a quiet position only when its features differ from the last row of the game (changes), or always (all).
    #[arg(long, value_enum, default_value_t = EmitMode::Changes)]
    pub emit: EmitMode,

    /// Never emit positions from the first N plies of a game (opening moves).
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub skip_plies: u32,

    /// Read at most N plies of each game.
    #[arg(long, value_name = "N")]
    pub max_plies: Option<u32>,

    /// Games whose [Result] is "*" or missing: skip them, or keep them as draws (as pgnlearn did).
    #[arg(long, value_enum, default_value_t = UnknownResult::Skip)]
    pub unknown_result: UnknownResult,

    /// Games with an illegal, ambiguous or null move: keep the positions before it (cut), or drop the game (skip).
    #[arg(long, value_enum, default_value_t = BadGames::Cut)]
    pub bad_games: BadGames,

    /// Worker threads (default: one per core). The output does not depend on it.
    #[arg(long, short = 'j', default_value_t = 0, value_name = "N", hide_default_value = true)]
    pub threads: usize,

    /// No progress bar and no summary line.
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
Inputs may be plain, gzip, zstd or bzip2 PGN (recognised by content); '-' reads standard input.")]
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
    for w in writers {
        w.finish()?;
    }
    if let (Some(table), Some(path)) = (score_table, &args.score_table) {
        table.write_csv(path)?;
    }
    if !args.read.quiet {
        report(&stats);
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

/// Prints the problems (the first few in full) and the summary line on standard error.
pub(super) fn report(stats: &ExtractStats) {
    for problem in &stats.problems {
        eprintln!("pgntune: warning: {problem}");
    }
    let unreported = stats.problem_count - stats.problems.len() as u64;
    if unreported > 0 {
        eprintln!("pgntune: warning: {unreported} more problems not shown");
    }
    eprintln!("{}", stats.summary_line());
}
