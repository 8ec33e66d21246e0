//! What extraction is asked to do: which games, which positions, which
//! columns.

use crate::dataset::Schema;
use crate::features::FeatureLayout;
use crate::pgn::filter::FilterConfig;

/// What to do with games whose `[Result]` is `*` or missing.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum UnknownResult {
    /// Skip them (counted).
    #[default]
    Skip,
    /// Keep them as draws, as the original pgnlearn program did.
    Draw,
}

/// What to do with a game that has an illegal, ambiguous or null move.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum BadGames {
    /// Keep the positions before the bad move.
    #[default]
    Cut,
    /// Drop the whole game.
    Skip,
}

/// Everything that decides which rows come out.
#[derive(Clone, Debug)]
pub struct ExtractConfig {
    /// The features of each row.
    pub layout: FeatureLayout,
    /// Which positions become rows.
    pub filter: FilterConfig,
    /// Games without a known result.
    pub unknown_result: UnknownResult,
    /// Games with a bad move.
    pub bad_games: BadGames,
    /// PGN tags to copy into every row.
    pub tags: Vec<String>,
    /// Whether every row carries its FEN.
    pub fen: bool,
    /// Worker threads; 0 means one per core.
    pub threads: usize,
    /// How candidate positions become rows: the quiet filter, or the leaf
    /// of the bundled engine's quiescence search with this evaluation.
    pub quiet: QuietMode,
    /// Keep at most this many positions per game, chosen by `seed`.
    pub sample: Option<usize>,
    /// Seed of `sample`.
    pub seed: u64,
    /// Drop positions seen before (same Zobrist key), in input order.
    pub dedupe: bool,
    /// Read evaluation labels from move comments (`[%eval ...]`, `wv=`).
    pub labels: bool,
    /// The id of the first game read (ids count on from it): a shard's
    /// first game in the whole collection (see [`crate::pgn::split`]), so that
    /// shards extracted apart get the ids of one extraction of them all.
    pub game_base: u64,
}

/// Which positions of a game become rows.
#[derive(Clone, Debug, Default)]
pub enum QuietMode {
    /// The quiet filter of [`FilterConfig`] (the 2015 pgnlearn rule by default).
    #[default]
    Plies,
    /// Every position after the opening plies is replaced by the end of the
    /// bundled engine's quiescence-search principal variation (with this
    /// evaluation); positions in check or with a mate score are skipped.
    Qsearch(Box<crate::engine::Evaluator>),
}

impl Default for ExtractConfig {
    fn default() -> Self {
        ExtractConfig {
            layout: FeatureLayout::default(),
            filter: FilterConfig::default(),
            unknown_result: UnknownResult::Skip,
            bad_games: BadGames::Cut,
            tags: Vec::new(),
            fen: false,
            threads: 0,
            quiet: QuietMode::Plies,
            sample: None,
            seed: 1,
            dedupe: false,
            labels: false,
            game_base: 0,
        }
    }
}

impl ExtractConfig {
    /// The worker threads to use: `threads`, or one per core when it is 0.
    pub fn thread_count(&self) -> usize {
        crate::thread_count(self.threads)
    }

    /// The columns of the rows this configuration produces.
    pub fn schema(&self) -> Schema {
        Schema { tags: self.tags.clone(), fen: self.fen, eval: self.labels, ..Schema::new(self.layout.clone()) }
    }
}
