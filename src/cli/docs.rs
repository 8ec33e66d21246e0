//! `pgntune completions` and `pgntune man`: shell completions and the man
//! page, generated from the clap definitions, so they never disagree with
//! `--help`.

use std::io::Write;

use anyhow::Result;
use clap::{Args, ValueEnum};
use clap_complete::Shell;

/// The shells completions are generated for.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum ShellArg {
    /// Bash (source it, or put it in /usr/share/bash-completion/completions/pgntune).
    Bash,
    /// Zsh (as _pgntune in a folder of $fpath).
    Zsh,
    /// Fish (as ~/.config/fish/completions/pgntune.fish).
    Fish,
}

/// Arguments of `pgntune completions`.
#[derive(Debug, Args)]
#[command(after_help = "Example: pgntune completions bash > ~/.local/share/bash-completion/completions/pgntune")]
pub struct CompletionsCommand {
    /// The shell.
    #[arg(value_enum)]
    pub shell: ShellArg,
}

/// Arguments of `pgntune man`.
#[derive(Debug, Args)]
#[command(after_help = "Example: pgntune man > pgntune.1 && man ./pgntune.1")]
pub struct ManCommand {
    /// The page of one command (e.g. match) instead of the main page.
    #[arg(value_name = "COMMAND")]
    pub command: Option<String>,
}

/// The completion script for `shell`.
pub fn completions(shell: ShellArg) -> Vec<u8> {
    let shell = match shell {
        ShellArg::Bash => Shell::Bash,
        ShellArg::Zsh => Shell::Zsh,
        ShellArg::Fish => Shell::Fish,
    };
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut super::command(), "pgntune", &mut script);
    script
}

/// The man page (roff) of the whole program, or of one command.
pub fn man_page(command: Option<&str>) -> Result<Vec<u8>> {
    let mut cmd = super::command();
    cmd.build();
    let page = match command {
        None => cmd,
        Some(name) => match cmd.find_subcommand(name) {
            // Built, a command's display name is `pgntune-NAME`: the page's title.
            Some(sub) => sub.clone(),
            None => anyhow::bail!("'{name}' is not a pgntune command"),
        },
    };
    let mut roff = Vec::new();
    clap_mangen::Man::new(page).render(&mut roff)?;
    Ok(roff)
}

pub(super) fn run_completions(args: CompletionsCommand) -> Result<()> {
    std::io::stdout().lock().write_all(&completions(args.shell))?;
    Ok(())
}

pub(super) fn run_man(args: ManCommand) -> Result<()> {
    std::io::stdout().lock().write_all(&man_page(args.command.as_deref())?)?;
    Ok(())
}
