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

/// The score of each of `positions` at `depth`, in centipawns from white's
/// side; a mate is ±[`MATE_LABEL`], a position without legal moves its
/// result (mate or 0).
pub fn label_positions(positions: &[Chess], evaluator: &Evaluator, depth: u32, hash_mb: usize, pool: &rayon::ThreadPool) -> Vec<f32> {
    let chunks: Vec<Vec<f32>> = pool.install(|| {
        positions
            .par_chunks(PER_ITEM)
            .map(|chunk| {
                let mut engine = Engine::new(evaluator.clone(), hash_mb);
                let stop = AtomicBool::new(false);
                chunk
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
                    .collect()
            })
            .collect()
    });
    chunks.into_iter().flatten().collect()
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
        let labels = label_positions(&positions, &evaluator, 4, 1, &one);
        assert_eq!(labels, label_positions(&positions, &evaluator, 4, 1, &two));
        assert!(labels[0] > 700.0, "{labels:?}");
        assert_eq!(labels[1], MATE_LABEL);
        assert_eq!(labels[2], MATE_LABEL);
        assert!(labels[3].abs() < 100.0);
    }
}
