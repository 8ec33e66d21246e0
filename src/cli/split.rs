//! `pgntune split`: shards of whole games for a cluster ([`crate::pgn::split`]).

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::extract::{check_inputs, warn_problems};
use super::progress::ReadProgress;
use super::values::at_least;
use crate::pgn::InputSource;
use crate::pgn::split::{ShardCompression, SplitConfig, split};

/// Arguments of `pgntune split`.
#[derive(Debug, Args)]
#[command(after_help = "Shards are named shard-00000.pgn.zst, shard-00001.pgn.zst, ... in DIR (created if missing), beside a \
manifest.json that lists per shard its file, first_game (0-based over all inputs: `extract --game-base`), games, text_bytes, \
bytes (as stored) and sources (per input file the range of its games, 1-based). A shard holds N whole games, a few more where \
tagless games share a line of text and cannot be cut apart; it continues into the next input only when the input before ends \
with a terminated game. Extracting each shard with --game-base set to its first_game gives the rows, game ids included, of \
extracting the inputs. Files in DIR are replaced only when the manifest there lists them, or with --force; shards of an earlier \
split that this one does not rewrite are removed.")]
pub struct SplitCommand {
    /// PGN files (plain, .gz, .zst, .bz2), or - for standard input.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<String>,
    /// Games per shard.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = at_least(1))]
    pub games: u64,
    /// The folder for the shards and the manifest.
    #[arg(short, long = "output", value_name = "DIR")]
    pub output: PathBuf,
    /// How shards are stored.
    #[arg(long, value_enum, default_value_t = ShardCompression::Zstd)]
    pub compression: ShardCompression,
    /// Replace files in DIR that the manifest there does not list.
    #[arg(long)]
    pub force: bool,
    /// Quiet: no progress bar, no summary and no notes; warnings and errors are still shown.
    #[arg(long = "quiet", short = 'q', alias = "silent")]
    pub quiet: bool,
}

pub(super) fn run_split(args: SplitCommand) -> Result<()> {
    let inputs: Vec<InputSource> = args.inputs.iter().map(|a| InputSource::from_arg(a)).collect();
    check_inputs(&inputs)?;
    let config = SplitConfig { inputs, games_per_shard: args.games, out_dir: args.output, compression: args.compression, force: args.force };
    let total = config.inputs.iter().map(InputSource::size_hint).sum::<Option<u64>>();
    let progress = ReadProgress::new(total, args.quiet);
    let report = split(&config, &progress);
    progress.finish();
    let report = report?;
    warn_problems(&report.problems, report.problem_count);
    if !args.quiet {
        for path in &report.removed {
            eprintln!("note: removed {}, a shard of the earlier split that this one does not rewrite", path.display());
        }
        let m = &report.manifest;
        eprintln!(
            "{} game{} in {} shard{} ({:.1} MB of PGN, {:.1} MB stored) in {:.2} s; manifest {}",
            m.games,
            if m.games == 1 { "" } else { "s" },
            m.shards.len(),
            if m.shards.len() == 1 { "" } else { "s" },
            m.text_bytes as f64 / 1e6,
            m.shards.iter().map(|s| s.bytes).sum::<u64>() as f64 / 1e6,
            report.seconds,
            report.manifest_path.display()
        );
    }
    Ok(())
}
