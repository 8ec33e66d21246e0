//! Progress bars on standard error, only when it is a terminal.

use std::io::IsTerminal;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::pgn::extract::Progress;

/// A byte-based progress bar for reading PGN inputs.
pub struct ReadProgress {
    bar: ProgressBar,
    started: Instant,
}

impl ReadProgress {
    /// A bar over `total` input bytes (a spinner when unknown), hidden when
    /// `quiet` is set or standard error is not a terminal.
    pub fn new(total: Option<u64>, quiet: bool) -> ReadProgress {
        let visible = !quiet && std::io::stderr().is_terminal();
        let bar = match total {
            Some(total) => ProgressBar::with_draw_target(Some(total), target(visible)).with_style(
                ProgressStyle::with_template("{bar:30.cyan/blue} {bytes}/{total_bytes} {binary_bytes_per_sec} ETA {eta} {msg}")
                    .expect("valid template")
                    .progress_chars("=> "),
            ),
            None => ProgressBar::with_draw_target(None, target(visible))
                .with_style(ProgressStyle::with_template("{spinner} {bytes} {binary_bytes_per_sec} {msg}").expect("valid template")),
        };
        ReadProgress { bar, started: Instant::now() }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

fn target(visible: bool) -> ProgressDrawTarget {
    if visible { ProgressDrawTarget::stderr_with_hz(5) } else { ProgressDrawTarget::hidden() }
}

impl Progress for ReadProgress {
    fn update(&self, input_bytes: u64, games: u64) {
        if self.bar.is_hidden() {
            return;
        }
        self.bar.set_position(input_bytes);
        let rate = games as f64 / self.started.elapsed().as_secs_f64().max(1e-9);
        self.bar.set_message(format!("{games} games, {rate:.0} games/s"));
    }
}
