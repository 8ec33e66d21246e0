//! The `pgntune` command: parse the arguments, run, map the outcome to an exit code.

use std::process::ExitCode;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    match pgntune::cli::parse() {
        Ok(cli) => pgntune::cli::run(cli),
        Err(code) => code,
    }
}
