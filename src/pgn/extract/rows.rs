//! Replaying games into feature rows: one worker's state, the batch it
//! gets and the rows and counts it gives back.

use shakmaty::{Chess, EnPassantMode, fen::Fen};

use super::config::{BadGames, ExtractConfig, QuietMode, UnknownResult};
use super::report::{ExtractStats, Problem};
use crate::dataset::{GameResult, RowBatch, Schema};
use crate::features::{TermScratch, TermValue};
use crate::pgn::filter::QuietFilter;
use crate::pgn::record::{GameRecord, ResultCheck};
use crate::pgn::replay::{self, StartError};

/// A batch of games on its way to a worker.
pub(super) struct GameBatch {
    pub(super) seq: u64,
    pub(super) games: Vec<GameRecord>,
}

/// What a worker made of a batch.
pub(super) struct BatchOutput {
    pub(super) seq: u64,
    pub(super) rows: RowBatch,
    pub(super) stats: ExtractStats,
}

/// Turns games into rows and counts what happened to them.
pub(super) struct Replayer<'a> {
    config: &'a ExtractConfig,
    names: &'a [String],
    schema: &'a Schema,
    pub(super) rows: RowBatch,
    stats: ExtractStats,
    pub(super) games: usize,
    /// The engine whose quiescence search picks positions, in qsearch mode.
    engine: Option<crate::engine::Engine>,
    scratch: TermScratch,
    terms: Vec<TermValue>,
    /// The quiet filter, restarted for each game.
    filter: QuietFilter<'a>,
}

impl<'a> Replayer<'a> {
    /// `schema` is `config.schema()`, made once per extraction: it names
    /// every column, hundreds of strings for a whole evaluation.
    pub(super) fn new(config: &'a ExtractConfig, names: &'a [String], schema: &'a Schema) -> Self {
        Replayer {
            config,
            names,
            rows: RowBatch::new(schema),
            schema,
            stats: ExtractStats::default(),
            games: 0,
            // No hash table: a one-entry table cleared per position keeps
            // the choice a function of the position alone.
            engine: match &config.quiet {
                QuietMode::Plies => None,
                QuietMode::Qsearch(evaluator) => Some(crate::engine::Engine::new((**evaluator).clone(), 0)),
            },
            scratch: TermScratch::default(),
            terms: Vec::new(),
            filter: QuietFilter::new(&config.filter, &config.layout),
        }
    }

    pub(super) fn process(&mut self, game: &GameRecord) {
        let file = &self.names[game.input];
        let first = self.rows.len();
        process_game(
            game,
            self.config,
            file,
            &mut self.rows,
            &mut self.stats,
            &mut self.engine,
            &mut self.scratch,
            &mut self.terms,
            &mut self.filter,
        );
        if let Some(k) = self.config.sample {
            let n = self.rows.len() - first;
            if n > k {
                let keep = sample_rows(n, k, self.config.seed, game.index);
                self.rows.retain_from(first, &keep);
                self.stats.rows -= (n - k) as u64;
            }
        }
        self.games += 1;
    }

    /// The rows and counts so far, leaving the replayer empty.
    pub(super) fn take(&mut self, seq: u64) -> BatchOutput {
        self.games = 0;
        BatchOutput { seq, rows: std::mem::replace(&mut self.rows, RowBatch::new(self.schema)), stats: std::mem::take(&mut self.stats) }
    }
}

/// Replays a batch of games into rows. Pure: the same batch always gives the same output.
/// `rows`, when given, is an empty batch of the same schema whose buffers
/// are reused.
pub(super) fn process_batch(batch: GameBatch, config: &ExtractConfig, names: &[String], schema: &Schema, rows: Option<RowBatch>) -> BatchOutput {
    let mut replayer = Replayer::new(config, names, schema);
    if let Some(rows) = rows {
        debug_assert!(rows.is_empty());
        replayer.rows = rows;
    }
    for game in &batch.games {
        replayer.process(game);
    }
    replayer.take(batch.seq)
}

fn note_problem(stats: &mut ExtractStats, file: &str, game: &GameRecord, ply: Option<u32>, message: String) {
    Problem { file: file.to_string(), game: game.number, ply, message }.note(&mut stats.problems, &mut stats.problem_count);
}

#[allow(clippy::too_many_arguments)] // the worker's reusable state, passed apart to keep borrows simple
fn process_game(
    game: &GameRecord,
    config: &ExtractConfig,
    file: &str,
    rows: &mut RowBatch,
    stats: &mut ExtractStats,
    engine: &mut Option<crate::engine::Engine>,
    scratch: &mut TermScratch,
    leaf_terms: &mut Vec<TermValue>,
    filter: &mut QuietFilter<'_>,
) {
    stats.games_read += 1;
    stats.games_recognised += u64::from(game.has_tags);
    if let Some(problem) = Problem::unreadable(file, game) {
        stats.skipped_unreadable += 1;
        problem.note(&mut stats.problems, &mut stats.problem_count);
        return;
    }
    match game.check_result() {
        // Not a result at all: the game is skipped whatever
        // --unknown-result says, and its marker is missing for the same
        // reason (`2-0` is no marker either), not because the file was cut.
        ResultCheck::Unreadable(tag) => {
            stats.skipped_bad_result += 1;
            let tag = crate::pgn::decode_text(tag);
            note_problem(stats, file, game, None, format!("[Result \"{tag}\"] is not a result (1-0, 0-1, 1/2-1/2 or *); skipped"));
            return;
        }
        ResultCheck::Disagree { tag, marker } => {
            stats.result_disagreements += 1;
            let tag = crate::pgn::decode_text(tag);
            let message = format!("[Result \"{tag}\"] disagrees with the result marker {marker} at the end of the moves; the tag is used");
            note_problem(stats, file, game, None, message);
        }
        ResultCheck::Agree => {}
    }
    if let Some(problem) = Problem::unfinished(file, game) {
        problem.note(&mut stats.problems, &mut stats.problem_count);
    }
    let start = match replay::start_position(game) {
        Ok(pos) => pos,
        Err(StartError::Variant(_)) => {
            stats.skipped_variant += 1;
            return;
        }
        Err(e @ StartError::Fen(_)) => {
            stats.skipped_bad_fen += 1;
            note_problem(stats, file, game, None, e.to_string());
            return;
        }
    };
    let result = match game.result.as_deref().and_then(GameResult::from_tag) {
        Some(result) => result,
        None if config.unknown_result == UnknownResult::Draw => GameResult::Draw,
        None => {
            stats.skipped_unknown_result += 1;
            // Bytes that are no PGN at all look like this: say where they
            // are. A bare list of moves that ends in `*` and begins with a
            // legal move is a game, of unknown result.
            if !game.has_tags {
                if game.terminated && game.moves.first().is_some_and(|m| replay::resolve(&start, m.san).is_ok()) {
                    stats.games_recognised += 1;
                } else {
                    note_problem(stats, file, game, None, "no tags and no result: not a PGN game; skipped".into());
                }
            }
            return;
        }
    };

    let first_row = rows.len();
    let kept_tags: Vec<String> = game.kept_tags.iter().map(|t| t.as_deref().map(crate::pgn::decode_text).unwrap_or_default()).collect();
    filter.restart();
    let mut pos = start;
    let bad = replay::replay(&mut pos, &game.moves, config.filter.max_plies, |pos, m, ply| {
        let eval = game.evals.get(ply as usize - 1).copied().unwrap_or(f32::NAN);
        let push = |rows: &mut RowBatch, terms: &[TermValue], phase: u8, at: &Chess| {
            rows.push_features(terms, phase);
            rows.results.push(result);
            rows.games.push(game.index);
            rows.plies.push(ply);
            for (column, value) in rows.tags.iter_mut().zip(&kept_tags) {
                column.push(value);
            }
            if config.fen {
                rows.fens.push_display(Fen::from_position(at, EnPassantMode::Legal));
            }
            if config.labels {
                rows.evals.push(eval);
            }
            if config.dedupe {
                rows.keys.push(crate::engine::position_hash(at));
            }
        };
        match engine {
            Some(engine) => {
                if ply <= config.filter.skip_plies {
                    return;
                }
                match engine.quiescence_leaf(pos) {
                    Some((leaf, _, _)) => {
                        let phase = config.layout.terms_of(&leaf, scratch, leaf_terms);
                        push(rows, leaf_terms, phase, &leaf);
                    }
                    None => stats.skipped_positions += 1,
                }
            }
            None => {
                if let Some(row) = filter.after_move(pos, m, ply) {
                    push(rows, row.terms, row.phase, pos);
                }
            }
        }
    });
    if let Some(bad) = bad {
        note_problem(stats, file, game, Some(bad.ply), format!("{} '{}'", bad.kind, bad.text));
        if config.bad_games == BadGames::Skip {
            rows.truncate(first_row);
            stats.skipped_bad_moves += 1;
            return;
        }
        stats.games_cut += 1;
    }
    stats.games_used += 1;
    stats.rows += (rows.len() - first_row) as u64;
}

/// Which `k` of a game's `n` candidate rows to keep: a seeded choice that
/// depends only on the seed and the game's index, in the rows' order.
fn sample_rows(n: usize, k: usize, seed: u64, game: u64) -> Vec<bool> {
    use rand::SeedableRng;
    use rand::seq::index::sample;
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed ^ game.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut keep = vec![false; n];
    for i in sample(&mut rng, n, k) {
        keep[i] = true;
    }
    keep
}
