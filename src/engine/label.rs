//! Evaluation labels by search: each position searched by the bundled
//! engine to a fixed depth, its score in centipawns from white's side
//! (`pgntune label`). Tuners fit to such labels instead of, or mixed with,
//! game results: a search score is a far less noisy target than the result
//! of a game decided many moves later.
//!
//! Every position is searched by an engine that forgets earlier searches
//! first, so a label depends on the position, the weights and the depth
//! alone, and the labels are the same for any thread count.

use std::sync::atomic::AtomicBool;

use rayon::prelude::*;
use shakmaty::{Chess, Color, Position};

use super::{Engine, Evaluator, Limits, Score};
use crate::pgn::labels::MATE_LABEL;

/// Positions searched per work item; each worker keeps its engine (and its
/// hash table's memory) across the positions of an item.
const PER_ITEM: usize = 256;

/// Why positions could not be labelled.
#[derive(Debug, thiserror::Error)]
pub enum LabelError {
    /// The hash tables need more memory than the machine has free.
    #[error(
        "--hash {hash_mb} MB for each of {threads} threads needs {total} MB, more than the {available} MB of memory available; give a smaller --hash or fewer --threads"
    )]
    TooMuchHash {
        /// The table per thread, in MB.
        hash_mb: usize,
        /// Threads.
        threads: usize,
        /// Their product, in MB.
        total: usize,
        /// Memory available (MB), or what the allocation was refused at.
        available: u64,
    },
    /// A hash table could not be allocated.
    #[error("--hash {hash_mb} MB: cannot allocate the hash table ({source}); give a smaller --hash or fewer --threads")]
    Allocation {
        /// The table per thread, in MB.
        hash_mb: usize,
        /// Why.
        #[source]
        source: std::collections::TryReserveError,
    },
}

/// The memory the system says is available (`MemAvailable` of
/// `/proc/meminfo`), in MB, where it says so.
fn available_mb() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

/// Checks that `threads` hash tables of `hash_mb` fit in the memory
/// available: an allocation the system grants but cannot back ends the
/// process later, at the first touch of a page, by the out-of-memory killer.
pub fn check_hash_memory(hash_mb: usize, threads: usize) -> Result<(), LabelError> {
    let total = hash_mb.saturating_mul(threads);
    match available_mb() {
        Some(available) if total as u64 > available => Err(LabelError::TooMuchHash { hash_mb, threads, total, available }),
        _ => Ok(()),
    }
}

/// The score of each of `positions` at `depth`, in centipawns from white's
/// side; a mate is ±[`MATE_LABEL`], a position without legal moves its
/// result (mate or 0). Each of `pool`'s threads holds a `hash_mb` table.
pub fn label_positions(
    positions: &[Chess],
    evaluator: &Evaluator,
    depth: u32,
    hash_mb: usize,
    pool: &rayon::ThreadPool,
) -> Result<Vec<f32>, LabelError> {
    check_hash_memory(hash_mb, pool.current_num_threads())?;
    let chunks: Vec<Vec<f32>> = pool.install(|| {
        positions
            .par_chunks(PER_ITEM)
            .map(|chunk| -> Result<Vec<f32>, LabelError> {
                let mut engine = Engine::try_new(evaluator.clone(), hash_mb).map_err(|source| LabelError::Allocation { hash_mb, source })?;
                let stop = AtomicBool::new(false);
                Ok(chunk
                    .iter()
                    .map(|pos| {
                        if pos.legal_moves().is_empty() {
                            return if pos.is_check() { if pos.turn() == Color::White { -MATE_LABEL } else { MATE_LABEL } } else { 0.0 };
                        }
                        engine.new_game();
                        let result = engine.search(pos, &[], &Limits::depth(depth), &stop, &mut |_| {});
                        let side = match result.score {
                            Score::Cp(cp) => cp as f32,
                            Score::Mate(n) if n > 0 => MATE_LABEL,
                            Score::Mate(_) => -MATE_LABEL,
                        };
                        if pos.turn() == Color::White { side } else { -side }
                    })
                    .collect())
            })
            .collect::<Result<_, _>>()
    })?;
    Ok(chunks.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::weights::Weights;
    use shakmaty::{CastlingMode, fen::Fen};

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap()
    }

    #[test]
    fn labels_are_from_whites_side_and_do_not_depend_on_threads() {
        let evaluator = Evaluator::new(&Weights::preset("classical").unwrap()).unwrap();
        let positions = vec![
            // Black to move, a queen down: white is winning.
            pos("4k3/8/8/8/8/8/8/Q3K3 b - - 0 1"),
            // White to move, mate in one (Ra8#).
            pos("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"),
            // Black is checkmated.
            pos("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1"),
            Chess::default(),
        ];
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let two = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let labels = label_positions(&positions, &evaluator, 4, 1, &one).unwrap();
        assert_eq!(labels, label_positions(&positions, &evaluator, 4, 1, &two).unwrap());
        assert!(labels[0] > 700.0, "{labels:?}");
        assert_eq!(labels[1], MATE_LABEL);
        assert_eq!(labels[2], MATE_LABEL);
        assert!(labels[3].abs() < 100.0);
    }
}
