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

    #[command(flatten)]
    pub quiet: super::values::Quiet,
}

/// Arguments of `pgntune man`.
#[derive(Debug, Args)]
#[command(after_help = "Example: pgntune man > pgntune.1 && man ./pgntune.1")]
pub struct ManCommand {
    /// The page of one command (e.g. match, or weights show) instead of the main page.
    #[arg(value_name = "COMMAND")]
    pub command: Vec<String>,

    #[command(flatten)]
    pub quiet: super::values::Quiet,
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

/// The man page (roff) of the whole program, or of one command: `path`
/// names it from the top (`["weights", "show"]` for `pgntune-weights-show`,
/// the page that `pgntune man weights` lists).
pub fn man_page(path: &[impl AsRef<str>]) -> Result<Vec<u8>> {
    let mut page = super::command();
    page.build();
    for (depth, name) in path.iter().enumerate() {
        let name = name.as_ref();
        let Some(sub) = page.find_subcommand(name) else {
            let above: Vec<&str> = path[..depth].iter().map(AsRef::as_ref).collect();
            if above.is_empty() {
                anyhow::bail!("'{name}' is not a pgntune command");
            }
            anyhow::bail!("'{name}' is not a command of 'pgntune {}'", above.join(" "));
        };
        // Built, a command's display name is `pgntune-NAME` (and
        // `pgntune-NAME-SUB` below it): the page's title.
        page = sub.clone();
    }
    let name = page.get_display_name().unwrap_or_else(|| page.get_name()).to_string();
    let version = super::command().get_version().unwrap_or_default().to_string();
    let mut roff = Vec::new();
    // The header's source is the page's name (`pgntune-weights 0.1.0`),
    // not the bare subcommand's.
    clap_mangen::Man::new(page).source(format!("{name} {version}")).render(&mut roff)?;
    Ok(roff)
}

pub(super) fn run_completions(args: CompletionsCommand) -> Result<()> {
    std::io::stdout().lock().write_all(&completions(args.shell))?;
    Ok(())
}

pub(super) fn run_man(args: ManCommand) -> Result<()> {
    std::io::stdout().lock().write_all(&man_page(&args.command)?)?;
    Ok(())
}
