//! The `pgntune` command: parse the arguments, run, map the outcome to an exit code.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    pgntune::cli::run(pgntune::cli::Cli::parse())
}
