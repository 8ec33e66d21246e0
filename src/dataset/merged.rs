//! Merged rows: every distinct feature vector once, with how many rows of
//! each result it stands for. The cost of an iteration then grows with the
//! number of distinct rows, not with the number of positions.
//!
//! For resampling by game (bootstrap, holdout) the merger can also remember
//! which distinct rows each game contributed.

use rustc_hash::FxHashMap;

use super::{GameResult, RowBatch};

/// Counts of rows per result for one distinct feature vector:
/// `[black won, draw, white won]`.
pub type ResultCounts = [f64; 3];

fn slot(result: GameResult) -> usize {
    match result {
        GameResult::BlackWins => 0,
        GameResult::Draw => 1,
        GameResult::WhiteWins => 2,
    }
}

/// The rows of one game, as indices of distinct rows, with the game's result.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRows {
    /// The game's result (all its rows share it).
    pub result: GameResult,
    /// Indices into [`MergedRows`]' distinct rows, one per row of the game.
    pub rows: Vec<u32>,
}

/// Distinct feature vectors with their result counts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MergedRows {
    /// Feature column names.
    pub columns: Vec<String>,
    /// Row-major distinct feature vectors (`len() * columns.len()` values).
    pub features: Vec<f64>,
    /// Result counts of each distinct vector.
    pub counts: Vec<ResultCounts>,
    /// Per-game membership, when the input had game ids and it was asked for.
    pub games: Option<Vec<GameRows>>,
    /// Number of games seen (with game ids), or `None` when unknown.
    pub game_count: Option<u64>,
    /// How many of them were decisive.
    pub decisive_games: Option<u64>,
}

impl MergedRows {
    /// Number of distinct feature vectors.
    pub fn len(&self) -> usize {
        self.counts.len()
    }

    /// True when there are no rows at all.
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// Number of features per row.
    pub fn width(&self) -> usize {
        self.columns.len()
    }

    /// Features of distinct row `i`.
    pub fn row(&self, i: usize) -> &[f64] {
        let w = self.width();
        &self.features[i * w..(i + 1) * w]
    }

    /// Total rows per result: `[black won, draw, white won]`.
    pub fn totals(&self) -> ResultCounts {
        self.counts.iter().fold([0.0; 3], |acc, c| [acc[0] + c[0], acc[1] + c[1], acc[2] + c[2]])
    }

    /// Total number of rows (positions) merged.
    pub fn total_rows(&self) -> f64 {
        self.totals().iter().sum()
    }

    /// The same distinct rows with the counts a set of games gives (each
    /// game counted as often as it appears in `games`).
    pub fn with_games(&self, games: &[usize]) -> MergedRows {
        let all = self.games.as_ref().expect("game membership recorded");
        let mut counts = vec![[0.0; 3]; self.len()];
        for &g in games {
            let game = &all[g];
            for &r in &game.rows {
                counts[r as usize][slot(game.result)] += 1.0;
            }
        }
        let decisive = games.iter().filter(|&&g| all[g].result != GameResult::Draw).count() as u64;
        MergedRows {
            columns: self.columns.clone(),
            features: self.features.clone(),
            counts,
            games: None,
            game_count: Some(games.len() as u64),
            decisive_games: Some(decisive),
        }
    }
}

/// Builds [`MergedRows`] from a stream of rows.
#[derive(Debug)]
pub struct RowMerger {
    columns: Vec<String>,
    index: FxHashMap<Box<[u64]>, u32>,
    key: Vec<u64>,
    merged: MergedRows,
    track_games: bool,
    game_slots: FxHashMap<u64, u32>,
    games: Vec<GameRows>,
    last_game: Option<(u64, u32)>,
    /// With `track_games`: counts of the rows that came without a game id,
    /// per distinct row (each becomes its own resampling unit).
    loose: Vec<ResultCounts>,
}

impl RowMerger {
    /// A merger for rows with these feature columns. With `track_games`, it
    /// records which rows each game contributed (needed for resampling).
    pub fn new(columns: Vec<String>, track_games: bool) -> RowMerger {
        RowMerger {
            merged: MergedRows { columns: columns.clone(), ..MergedRows::default() },
            columns,
            index: FxHashMap::default(),
            key: Vec::new(),
            track_games,
            game_slots: FxHashMap::default(),
            games: Vec::new(),
            last_game: None,
            loose: Vec::new(),
        }
    }

    /// The feature columns.
    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    /// The index of this feature vector among the distinct rows, added if new.
    #[inline]
    fn distinct_row(&mut self, features: &[f64]) -> u32 {
        debug_assert_eq!(features.len(), self.columns.len());
        self.key.clear();
        // +0.0 and -0.0 are the same feature value.
        self.key.extend(features.iter().map(|&v| if v == 0.0 { 0 } else { v.to_bits() }));
        if let Some(&i) = self.index.get(self.key.as_slice()) {
            return i;
        }
        let next = self.merged.counts.len() as u32;
        self.index.insert(self.key.clone().into_boxed_slice(), next);
        self.merged.features.extend_from_slice(features);
        self.merged.counts.push([0.0; 3]);
        next
    }

    /// Adds one row. `game` identifies its game when the input has game ids.
    #[inline]
    pub fn add(&mut self, features: &[f64], result: GameResult, game: Option<u64>) {
        let i = self.distinct_row(features);
        self.merged.counts[i as usize][slot(result)] += 1.0;
        let Some(id) = game else {
            if self.track_games {
                self.add_loose(i, slot(result), 1.0);
            }
            return;
        };
        // Rows of a game usually arrive together: skip the map for them.
        let g = match self.last_game {
            Some((last, slot)) if last == id => slot,
            _ => {
                let next_game = self.games.len() as u32;
                let slot = *self.game_slots.entry(id).or_insert(next_game);
                if slot == next_game {
                    self.games.push(GameRows { result, rows: Vec::new() });
                }
                self.last_game = Some((id, slot));
                slot
            }
        };
        if self.track_games {
            self.games[g as usize].rows.push(i);
        }
    }

    fn add_loose(&mut self, row: u32, slot: usize, count: f64) {
        if self.loose.len() <= row as usize {
            self.loose.resize(row as usize + 1, [0.0; 3]);
        }
        self.loose[row as usize][slot] += count;
    }

    /// Adds rows that share one feature vector: `counts` rows per result
    /// `[black won, draw, white won]`, without game ids.
    pub fn add_counts(&mut self, features: &[f64], counts: ResultCounts) {
        let i = self.distinct_row(features);
        for (slot, &count) in counts.iter().enumerate() {
            self.merged.counts[i as usize][slot] += count;
            if self.track_games && count > 0.0 {
                self.add_loose(i, slot, count);
            }
        }
    }

    /// Adds all of `rows`: game by game (their ids offset by `id_base`, to
    /// keep them apart from other inputs') when `rows` knows its games, so
    /// that games are counted (and tracked, if this merger tracks them);
    /// else as counts.
    pub fn add_merged(&mut self, rows: &MergedRows, id_base: u64) {
        match &rows.games {
            Some(games) => {
                // Units past the games are rows that came without a game id.
                let real = rows.game_count.unwrap_or(0) as usize;
                for (g, game) in games.iter().enumerate() {
                    let id = (g < real).then_some(id_base + g as u64);
                    for &r in &game.rows {
                        self.add(rows.row(r as usize), game.result, id);
                    }
                }
            }
            _ => {
                for i in 0..rows.len() {
                    self.add_counts(rows.row(i), rows.counts[i]);
                }
            }
        }
    }

    /// Adds every row of an extraction batch (features are integers there).
    pub fn add_batch(&mut self, batch: &RowBatch, layout: &crate::features::FeatureLayout) {
        let mut x = vec![0.0; layout.len()];
        for i in 0..batch.len() {
            batch.dense_row(i, layout, &mut x);
            self.add(&x, batch.results[i], Some(batch.games[i]));
        }
    }

    /// The merged rows.
    pub fn finish(mut self) -> MergedRows {
        if self.last_game.is_some() {
            self.merged.game_count = Some(self.games.len() as u64);
            self.merged.decisive_games = Some(self.games.iter().filter(|g| g.result != GameResult::Draw).count() as u64);
            if self.track_games {
                // Rows without a game id among rows with ids: each row is
                // its own unit for resampling.
                for (i, counts) in self.loose.iter().enumerate() {
                    for (slot, result) in [GameResult::BlackWins, GameResult::Draw, GameResult::WhiteWins].into_iter().enumerate() {
                        for _ in 0..counts[slot] as u64 {
                            self.games.push(GameRows { result, rows: vec![i as u32] });
                        }
                    }
                }
                self.merged.games = Some(self.games);
            }
        }
        self.merged
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_rows_merge_and_games_are_tracked() {
        let mut m = RowMerger::new(vec!["a".into(), "b".into()], true);
        m.add(&[1.0, 0.0], GameResult::WhiteWins, Some(7));
        m.add(&[1.0, -0.0], GameResult::WhiteWins, Some(7));
        m.add(&[0.0, 0.0], GameResult::Draw, Some(9));
        m.add(&[1.0, 0.0], GameResult::Draw, Some(9));
        let merged = m.finish();
        assert_eq!(merged.len(), 2);
        assert_eq!(merged.counts, [[0.0, 1.0, 2.0], [0.0, 1.0, 0.0]]);
        assert_eq!(merged.game_count, Some(2));
        let games = merged.games.as_ref().unwrap();
        assert_eq!(games[0].rows, [0, 0]);
        assert_eq!(games[1].rows, [1, 0]);
        // Game 1 twice, game 0 not at all.
        let resampled = merged.with_games(&[1, 1]);
        assert_eq!(resampled.counts, [[0.0, 2.0, 0.0], [0.0, 2.0, 0.0]]);
    }

    #[test]
    fn rows_without_game_ids_are_resampled_one_by_one() {
        let mut m = RowMerger::new(vec!["a".into()], true);
        m.add(&[1.0], GameResult::WhiteWins, None);
        m.add(&[1.0], GameResult::BlackWins, None);
        m.add(&[2.0], GameResult::Draw, Some(3));
        m.add_counts(&[2.0], [0.0, 0.0, 2.0]);
        let merged = m.finish();
        // One game with an id; the rows without are units for resampling, not games.
        assert_eq!(merged.game_count, Some(1));
        let games = merged.games.as_ref().unwrap();
        assert_eq!(games.len(), 5);
        // All units together give the counts; the game is unit 0, the loose
        // rows follow, one unit per row (the last: a white win on [2]).
        let all: Vec<usize> = (0..games.len()).collect();
        assert_eq!(merged.with_games(&all).counts, merged.counts);
        assert_eq!(merged.with_games(&[0]).counts, [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
        assert_eq!(merged.with_games(&[4]).counts, [[0.0, 0.0, 0.0], [0.0, 0.0, 1.0]]);
    }
}
