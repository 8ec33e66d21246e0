//! Command-line definitions (clap, derive API) and the commands behind them.
//!
//! Arguments are parsed into plain values here, validated into library
//! configurations, and handed to the library; its reports are printed
//! here, as text or JSON. Errors come back typed and are printed once, as
//! one line, with exit code 2. `completions` and `man` are generated from
//! these definitions.

/// `println!` for the commands' output: returns an error instead of
/// panicking when stdout is closed early (`pgntune stats ... | head`);
/// `run` turns a broken pipe into a quiet exit.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)
    }};
}

/// `print!` that returns an error like [`outln!`].
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        write!(std::io::stdout().lock(), $($arg)*)
    }};
}

/// Prints a command's report: on standard output, or on standard error
/// when standard output takes one of the command's files (`-`), so that
/// the file stays clean for the program reading it.
pub(crate) fn print_report(text: &str, to_stderr: bool) -> io::Result<()> {
    if to_stderr { io::stderr().lock().write_all(text.as_bytes()) } else { io::stdout().lock().write_all(text.as_bytes()) }
}

mod analyze;
mod docs;
mod engine;
mod extract;
mod fit;
mod inspect;
mod label;
mod matches;
mod play;
pub mod progress;
mod split;
mod stats;
mod tune;
mod values;

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

pub use extract::{ExtractArgs, ReadArgs};

/// Learn chess evaluation weights from game collections and prove them over the board.
#[derive(Debug, Parser)]
#[command(name = "pgntune", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Replay PGN games and write quiet positions as feature rows (.mat, .csv, .tsv, .parquet, .epd, .ijv, .svm, Octave).
    Extract(ExtractArgs),
    /// Cut PGN collections into shards of N whole games (zstd) with a manifest, for a cluster (scale/spark).
    Split(split::SplitCommand),
    /// List the feature sets (the terms of the evaluation) with their columns.
    Features(inspect::FeaturesCommand),
    /// Fit piece values by regularised logistic regression on extracted rows, with standard errors and checks.
    Fit(fit::FitCommand),
    /// Extract and fit in one pass, in memory (with no input: the bundled self-play sample in data/).
    Tune(fit::TuneCommand),
    /// Log-loss, squared error and accuracy of weights on a dataset (compare weight files on held-out data).
    Evaluate(inspect::EvaluateCommand),
    /// Score every position of a dataset by a search (the bundled engine or any UCI engine) as an evaluation label.
    Label(label::LabelCommand),
    /// Show weights as boards and tables, write them as source code, or draw their piece-square tables.
    Weights(inspect::WeightsCommand),
    /// Run the bundled engine as a UCI engine on standard input and output.
    Uci(engine::UciCommand),
    /// Search a fixed set of positions to a fixed depth; the node count is the search's signature.
    Bench(engine::BenchCommand),
    /// Evaluate a position and show each feature's contribution.
    Eval(engine::EvalCommand),
    /// Score curves, piece values per group (player, era, rating, ...), comparisons between collections, plots.
    Analyze(analyze::AnalyzeCommand),
    /// Play one game between two weight sets with the bundled engine and print it as PGN.
    Play(play::PlayCommand),
    /// Play a match or gauntlet: bundled engines in-process, other engines over UCI; Elo, pairs and SPRT.
    Match(matches::MatchCommand),
    /// Do these weights play better? A match against a baseline that stops when the SPRT decides.
    Verify(matches::VerifyCommand),
    /// Generate training games by self-play with varied openings and varied piece values.
    Selfplay(matches::SelfplayCommand),
    /// Build an opening suite (EPD) from the positions after N plies of a game collection.
    Openings(play::OpeningsCommand),
    /// Elo, LOS and SPRT from win/draw/loss or game-pair counts.
    Stats(stats::StatsCommand),
    /// Count the legal move tree of a position to a depth (perft), optionally per first move.
    Perft(engine::PerftCommand),
    /// Print a shell completion script (bash, zsh or fish) generated from these definitions.
    Completions(docs::CompletionsCommand),
    /// Print the man page (roff) generated from these definitions.
    Man(docs::ManCommand),
}

/// The clap definition of the whole command line (for help, completions,
/// the man page and their tests).
pub fn command() -> clap::Command {
    Cli::command()
}

/// Parses the command line. Help and version are printed as clap formats
/// them (exit 0); a usage error is one line on standard error, like every
/// other error, with exit code 2.
pub fn parse() -> Result<Cli, ExitCode> {
    use clap::error::ErrorKind;
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(message) = old_position_flag(&args) {
        let _ = writeln!(io::stderr(), "pgntune: error: {message}");
        return Err(ExitCode::from(2));
    }
    Cli::try_parse_from(args).map_err(|err| match err.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = err.print();
            ExitCode::from(if err.use_stderr() { 2 } else { 0 })
        }
        _ => {
            let _ = writeln!(io::stderr(), "pgntune: {}", one_line(&err.to_string()));
            ExitCode::from(2)
        }
    })
}

/// The message for the position filter under its old name, `--quiet MODE`
/// (now `--positions MODE`; `-q/--quiet` means less output, as in every
/// other tool). Without it, `--quiet plies` would read `plies` as an input
/// file and say that it does not exist.
fn old_position_flag(args: &[std::ffi::OsString]) -> Option<String> {
    const MODES: [&str; 2] = ["plies", "qsearch"];
    let args: Vec<&str> = args.iter().map(|a| a.to_str().unwrap_or("")).collect();
    // Arguments after `--` are values (the Spark job passes extract's own through).
    let end = args.iter().position(|a| *a == "--").unwrap_or(args.len());
    args[..end].iter().enumerate().find_map(|(i, arg)| {
        let mode = match arg.strip_prefix("--quiet") {
            Some(rest) => rest.strip_prefix('=').or_else(|| rest.is_empty().then(|| args.get(i + 1).copied().unwrap_or("")))?,
            None => return None,
        };
        (MODES.contains(&mode) && !std::path::Path::new(mode).exists())
            .then(|| format!("--quiet {mode}: the position filter is now --positions {mode} (-q/--quiet means less output, in every command)"))
    })
}

/// The first paragraph of a clap error (the message and the arguments it
/// names, without the usage and tips) on one line.
fn one_line(message: &str) -> String {
    let paragraph: Vec<&str> = message.lines().take_while(|l| !l.trim().is_empty()).map(str::trim).collect();
    paragraph.join(" ").trim_end_matches(':').to_string()
}

/// Runs the parsed command line and maps the outcome to an exit code:
/// 0 on success, 2 on any error (bad input, unreadable or unwritable files),
/// and for `verify` its verdict (0 H1, 1 H0, 3 undecided).
pub fn run(cli: Cli) -> ExitCode {
    // An interrupted run leaves no temporary file behind (exit 130 or 143).
    if let Err(e) = crate::atomic::remove_on_signals() {
        let _ = writeln!(io::stderr(), "pgntune: warning: cannot catch SIGINT/SIGTERM ({e}): an interrupted run may leave temporary files");
    }
    let success = |outcome: anyhow::Result<()>| outcome.map(|()| 0);
    let outcome = match cli.command {
        Command::Extract(args) => success(extract::run(args)),
        Command::Split(args) => success(split::run_split(args)),
        Command::Fit(args) => success(fit::run_fit(args)),
        Command::Tune(args) => success(fit::run_tune(args)),
        Command::Features(args) => success(inspect::run_features(args)),
        Command::Evaluate(args) => success(inspect::run_evaluate(args)),
        Command::Label(args) => success(label::run_label(args)),
        Command::Weights(args) => success(inspect::run_weights(args)),
        Command::Uci(args) => success(engine::run_uci(args)),
        Command::Bench(args) => success(engine::run_bench_command(args)),
        Command::Eval(args) => success(engine::run_eval(args)),
        Command::Analyze(args) => success(analyze::run_analyze(args)),
        Command::Play(args) => success(play::run_play(args)),
        Command::Match(args) => success(matches::run_match_command(args)),
        Command::Verify(args) => matches::run_verify(args),
        Command::Selfplay(args) => success(matches::run_selfplay_command(args)),
        Command::Openings(args) => success(play::run_openings(args)),
        Command::Stats(args) => success(stats::run_stats(args)),
        Command::Perft(args) => success(engine::run_perft(args)),
        Command::Completions(args) => success(docs::run_completions(args)),
        Command::Man(args) => success(docs::run_man(args)),
    };
    match outcome {
        Ok(code) => ExitCode::from(code),
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            let mut message = err.to_string();
            // Add causes that the top-level message does not already include.
            for cause in err.chain().skip(1) {
                let text = cause.to_string();
                if !message.contains(&text) {
                    message.push_str(": ");
                    message.push_str(&text);
                }
            }
            // A dataset read from `-` is named so, not by its copy in /tmp.
            let message = crate::dataset::stdin::unspool(&message);
            let _ = writeln!(io::stderr(), "pgntune: error: {message}");
            ExitCode::from(2)
        }
    }
}

/// True when our own output went to a reader that has gone away (`| head`):
/// the run stops quietly. A pipe to an engine that exited breaks the same
/// way, but that is the engine's crash, and it is reported.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    let engine = err.chain().any(|c| c.downcast_ref::<crate::play::player::PlayerError>().is_some());
    !engine && err.chain().any(|c| c.downcast_ref::<io::Error>().is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe))
}
