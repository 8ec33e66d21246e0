//! What decides a match's games: engines, pairs, limits, openings, rules,
//! the SPRT, and for self-play how weights vary; checked as a whole, for a
//! new match and for a state read back alike. Also why a match stopped.

use std::path::PathBuf;

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};
use shakmaty::ByColor;

use super::adjudication::Adjudication;
use super::limits::{LimitError, MoveLimits};
use super::openings::{BadOpening, MAX_RANDOM_PLIES, Opening};
use super::record::PgnHeader;
use super::rules::DrawRules;
use super::shard::ShardSpec;
use super::spec::{EngineKind, EngineSpec, EngineSpecError};
use crate::stats::SprtConfig;

/// The most games a match may have (far more than any run plays; it keeps
/// game numbers and pair counts away from overflow).
pub const MAX_GAMES: u64 = 1 << 40;

/// Where the games start.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OpeningPlan {
    /// Openings from a file, kept in the state so a resumed match uses the same ones.
    Suite {
        /// Where they came from.
        source: String,
        /// The openings.
        openings: Vec<Opening>,
        /// Shuffled by the match seed (else in file order).
        shuffled: bool,
    },
    /// `plies` random legal moves, re-drawn until balanced within ±`balance_cp`.
    Random {
        /// Plies of random moves.
        plies: u32,
        /// Largest |score| accepted (no check when `None`).
        balance_cp: Option<i32>,
    },
}

/// Why a match ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum StopReason {
    /// Every game was played (for an SPRT: the pair budget ran out undecided).
    AllGamesPlayed,
    /// The SPRT accepted H1 after so many pairs.
    SprtAcceptedH1 {
        /// Pairs played.
        pairs: u64,
    },
    /// The SPRT accepted H0 after so many pairs.
    SprtAcceptedH0 {
        /// Pairs played.
        pairs: u64,
    },
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StopReason::AllGamesPlayed => f.write_str("all games played"),
            StopReason::SprtAcceptedH1 { pairs } => write!(f, "SPRT accepted H1 after {pairs} pairs"),
            StopReason::SprtAcceptedH0 { pairs } => write!(f, "SPRT accepted H0 after {pairs} pairs"),
        }
    }
}

/// The SPRT of a state in its text form (`elo0=0 elo1=5 …`), parsed and
/// checked when the state is read.
mod sprt_text {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::stats::SprtConfig;

    pub fn serialize<S: Serializer>(sprt: &Option<SprtConfig>, serializer: S) -> Result<S::Ok, S::Error> {
        match sprt {
            Some(s) => serializer.serialize_some(&s.to_string()),
            None => serializer.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<SprtConfig>, D::Error> {
        let text = Option::<String>::deserialize(deserializer)?;
        text.map(|t| t.parse().map_err(|e| serde::de::Error::custom(format!("SPRT '{t}': {e}")))).transpose()
    }
}

/// What kind of run a state belongs to (a state is continued only by the
/// command that started it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunKind {
    /// `pgntune match`.
    #[default]
    Match,
    /// `pgntune verify`.
    Verify,
    /// `pgntune selfplay`.
    Selfplay,
}

impl std::fmt::Display for RunKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RunKind::Match => "match",
            RunKind::Verify => "verify",
            RunKind::Selfplay => "selfplay",
        })
    }
}

/// Today's date in UTC, as PGN's `[Date]` writes it (`YYYY.MM.DD`).
pub fn today() -> String {
    // chrono's calendar on std's clock (chrono's own clock would need a
    // feature that rebuilds polars for one call).
    let seconds = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    date_of(i64::try_from(seconds).unwrap_or(0))
}

/// The UTC date of a Unix time, as `YYYY.MM.DD`.
fn date_of(seconds: i64) -> String {
    chrono::DateTime::from_timestamp(seconds, 0).map_or_else(|| "????.??.??".to_string(), |t| t.format("%Y.%m.%d").to_string())
}

/// Everything that decides a match's games.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchConfig {
    /// The command that runs it (and may continue it).
    #[serde(default)]
    pub kind: RunKind,
    /// `[Event]` of the games.
    pub event: String,
    /// `[Date]` of the games (fixed when the match starts).
    pub date: String,
    /// The first engine plays each of the others.
    pub engines: Vec<EngineSpec>,
    /// Game pairs against each opponent.
    pub pairs: u64,
    /// Limits per move.
    pub limits: MoveLimits,
    /// The openings.
    pub openings: OpeningPlan,
    /// Seed for shuffled or random openings.
    pub seed: u64,
    /// Adjudication.
    pub adjudication: Adjudication,
    /// Claimed or automatic draws.
    pub draw_rules: DrawRules,
    /// Milliseconds an engine may exceed its clock.
    pub time_margin_ms: u64,
    /// The SPRT, for a match of two engines (kept in its text form, so a
    /// state with bounds it cannot use is refused when it is read).
    #[serde(with = "sprt_text")]
    pub sprt: Option<SprtConfig>,
    /// Where the games are written.
    pub pgn_out: Option<PathBuf>,
    /// Self-play: every pair, each bundled engine plays with its material
    /// values scaled by a random factor within 1 ± this (pawn kept at 100).
    #[serde(default)]
    pub vary_weights: Option<f64>,
    /// Self-play: the file the games go to (compressed by its extension)
    /// once all are played; `pgn_out` then holds the games so far.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selfplay_out: Option<PathBuf>,
    /// Play only this shard's game pairs ([`super::shard`]); the SPRT is
    /// then decided when the shards are merged ([`super::merge`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<ShardSpec>,
}

impl MatchConfig {
    /// The files the match reads where they are files: an openings suite,
    /// the bundled engines' weights and the external engines' programs. Its
    /// games and state may be none of them, `--force` or not.
    pub fn input_files(&self) -> Vec<PathBuf> {
        let mut files = Vec::new();
        if let OpeningPlan::Suite { source, .. } = &self.openings {
            files.push(PathBuf::from(source));
        }
        for engine in &self.engines {
            files.push(match &engine.kind {
                // A preset's name is no file, and the output plan skips it.
                EngineKind::Bundled { source, .. } => PathBuf::from(source),
                EngineKind::Uci(program) => program.command.clone(),
            });
        }
        files
    }

    /// A match of `kind` between `engines` (the first plays each of the
    /// others) of `pairs` game pairs per opponent under `limits`, with
    /// today's date and the defaults of the command line: random balanced
    /// openings of 8 plies, seed 1, claimed draws, no adjudication.
    pub fn new(kind: RunKind, engines: Vec<EngineSpec>, pairs: u64, limits: MoveLimits) -> MatchConfig {
        MatchConfig {
            kind,
            event: format!("pgntune {kind}"),
            date: today(),
            engines,
            pairs,
            limits,
            openings: OpeningPlan::Random { plies: 8, balance_cp: Some(100) },
            seed: 1,
            adjudication: Adjudication::default(),
            draw_rules: DrawRules::Claim,
            time_margin_ms: 0,
            sprt: None,
            pgn_out: None,
            vary_weights: None,
            selfplay_out: None,
            shard: None,
        }
    }

    /// Number of opponents of the first engine.
    pub fn opponents(&self) -> u64 {
        self.engines.len().saturating_sub(1) as u64
    }

    /// Games in the whole match (if the SPRT does not stop it).
    pub fn total_games(&self) -> u64 {
        self.pairs.saturating_mul(2).saturating_mul(self.opponents())
    }

    /// Games this run plays: the whole match's, or its shard's.
    pub fn games_to_play(&self) -> u64 {
        match &self.shard {
            Some(shard) => shard.games(self.total_games() / 2),
            None => self.total_games(),
        }
    }

    /// The whole match's number of this run's game `seq` (the same, unless sharded).
    pub fn game_at(&self, seq: u64) -> u64 {
        match &self.shard {
            Some(shard) => shard.game_at(seq, self.total_games() / 2),
            None => seq,
        }
    }

    /// Checks that the configuration can be played: at least two engines
    /// with distinct names, each usable; game pairs; limits; openings; the
    /// SPRT. New matches are checked like loaded states, so an edited state
    /// is refused with the same messages.
    pub fn check(&self) -> Result<(), ConfigError> {
        if self.engines.len() < 2 {
            return Err(ConfigError::TooFewEngines(self.engines.len()));
        }
        let mut names = std::collections::HashSet::new();
        for engine in &self.engines {
            // Self-play engines are one engine under per-pair names.
            if self.vary_weights.is_none() && !names.insert(engine.name.as_str()) {
                return Err(ConfigError::SameName(engine.name.clone()));
            }
            engine.check().map_err(|source| ConfigError::Engine { name: engine.name.clone(), source: Box::new(source) })?;
        }
        if self.pairs == 0 {
            return Err(ConfigError::NoPairs);
        }
        if self.pairs.checked_mul(2).and_then(|g| g.checked_mul(self.opponents())).is_none_or(|g| g > MAX_GAMES) {
            return Err(ConfigError::TooManyGames(self.pairs));
        }
        for i in 0..self.engines.len() {
            self.limits_of(i).check().map_err(ConfigError::Limits)?;
        }
        match &self.openings {
            OpeningPlan::Suite { openings, source, .. } => {
                if openings.is_empty() {
                    return Err(ConfigError::NoOpenings(source.clone()));
                }
                for (i, opening) in openings.iter().enumerate() {
                    opening.check_playable().map_err(|e| ConfigError::Opening { source_name: source.clone(), number: i + 1, source: e })?;
                }
            }
            OpeningPlan::Random { plies, balance_cp } => {
                if *plies > MAX_RANDOM_PLIES {
                    return Err(ConfigError::RandomPlies(*plies));
                }
                if balance_cp.is_some_and(|cp| cp <= 0) {
                    return Err(ConfigError::Balance);
                }
            }
        }
        if self.sprt.is_some() && self.engines.len() != 2 {
            return Err(ConfigError::SprtEngines);
        }
        if let Some(shard) = &self.shard {
            if !self.is_deterministic() {
                return Err(ConfigError::ShardTimed(shard.to_string()));
            }
            if self.vary_weights.is_some() {
                return Err(ConfigError::ShardSelfplay);
            }
        }
        if let Some(vary) = self.vary_weights {
            if !(0.0..1.0).contains(&vary) {
                return Err(ConfigError::Vary(vary));
            }
            if let Some(engine) = self.engines.iter().find(|e| !matches!(e.kind, EngineKind::Bundled { .. })) {
                return Err(ConfigError::VaryUci(engine.name.clone()));
            }
        }
        Ok(())
    }

    /// Engine `i`'s limits: its own where it has them, else the match's.
    pub fn limits_of(&self, i: usize) -> MoveLimits {
        self.limits.overridden_by(&self.engines[i].limits)
    }

    /// True when no engine plays with time, so that every game is a pure
    /// function of its opening and engines.
    pub fn is_deterministic(&self) -> bool {
        (0..self.engines.len()).all(|i| self.limits_of(i).is_deterministic())
    }

    /// The PGN header of game `g`.
    pub fn header(&self, g: u64) -> PgnHeader {
        let opponent = 1 + self.opponent_of(g);
        let (w, b) = if g.is_multiple_of(2) { (0, opponent) } else { (opponent, 0) };
        PgnHeader {
            event: self.event.clone(),
            date: self.date.clone(),
            round: format!("{}.{}", g / 2 + 1, g % 2 + 1),
            time_control: ByColor { white: self.limits_of(w).tc, black: self.limits_of(b).tc },
            times: !self.is_deterministic(),
        }
    }

    /// The opponent index (0-based among engines 1..) of game `g`.
    pub fn opponent_of(&self, g: u64) -> usize {
        ((g / 2) % self.opponents().max(1)) as usize
    }

    /// Whether the two games of a pair would be one game twice: self-play
    /// whose weights do not vary puts the same engine on both sides, so
    /// swapping colours over the same opening replays the same moves (at
    /// fixed nodes exactly). Such a run gives each game an opening of its
    /// own instead, or half of its training games would be copies.
    pub fn identical_sides(&self) -> bool {
        self.kind == RunKind::Selfplay && self.vary_weights == Some(0.0)
    }
}

/// The weights engine `engine` plays pair `pair` with, when self-play
/// varies them: the spec's weights with each piece's material value (N, B,
/// R, Q; both halves of a tapered value) times 1 + vary·u, u uniform in
/// [−1, 1] per piece, seeded by (seed, pair, engine). Every other term
/// stays as it is.
pub fn varied_weights(spec: &EngineSpec, vary: f64, seed: u64, pair: u64, engine: usize) -> Option<(String, crate::weights::Weights)> {
    use rand::Rng;
    let EngineKind::Bundled { weights, .. } = &spec.kind else { return None };
    let mut rng =
        Xoshiro256PlusPlus::seed_from_u64(seed ^ pair.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (engine as u64 + 1).wrapping_mul(0xC2B2_AE3D_27D4_EB4F));
    let mut varied = weights.clone();
    let mut shown = Vec::new();
    for piece in ["N", "B", "R", "Q"] {
        let factor = 1.0 + vary * rng.random_range(-1.0..=1.0);
        for column in [piece.to_string(), format!("mg_{piece}"), format!("eg_{piece}")] {
            if let Some(w) = varied.weights.get_mut(&column) {
                *w = (*w * varied.scale * factor).round() / varied.scale;
            }
        }
        let value = weights.centipawns(piece) + weights.centipawns(&format!("mg_{piece}"));
        shown.push(format!("{}", (value * factor).round()));
    }
    let name = format!("{} {}", spec.name, shown.join("/"));
    varied.name = name.clone();
    Some((name, varied))
}

/// A match configuration that cannot be played.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// Fewer than two engines.
    #[error("{0} engine(s): a match needs at least two")]
    TooFewEngines(usize),
    /// Two engines of one name.
    #[error("two engines are named '{0}': give each engine its own name")]
    SameName(String),
    /// An unusable engine.
    #[error("engine '{name}': {source}")]
    Engine {
        /// The engine.
        name: String,
        /// Why (boxed: errors stay small).
        #[source]
        source: Box<EngineSpecError>,
    },
    /// No pairs.
    #[error("no game pairs to play")]
    NoPairs,
    /// More games than a match holds.
    #[error("{0} pairs per opponent is more games than a match can hold (at most {MAX_GAMES})")]
    TooManyGames(u64),
    /// Unusable limits.
    #[error("{0}")]
    Limits(#[source] LimitError),
    /// An empty suite.
    #[error("{0}: no openings found")]
    NoOpenings(String),
    /// An opening that cannot be played.
    #[error("{source_name}: opening {number}: {source}")]
    Opening {
        /// Where the suite came from.
        source_name: String,
        /// The opening, from 1.
        number: usize,
        /// Why.
        #[source]
        source: BadOpening,
    },
    /// Too many random plies.
    #[error("{0} random opening plies: at most {MAX_RANDOM_PLIES} (random moves would end games before the engines play)")]
    RandomPlies(u32),
    /// A balance bound that is not positive.
    #[error("the balance check needs a positive bound")]
    Balance,
    /// An SPRT for other than two engines.
    #[error("the SPRT needs exactly two engines")]
    SprtEngines,
    /// A weight variation outside [0, 1).
    #[error("weights varied by {0}: must be in [0, 1)")]
    Vary(f64),
    /// Weights varied for a UCI engine.
    #[error("engine '{0}': only the bundled engine's weights can be varied")]
    VaryUci(String),
    /// A shard of a match whose games depend on time.
    #[error("shard {0}: a sharded match needs fixed limits (--nodes or --depth, for every engine), so that each game is the same whoever plays it")]
    ShardTimed(String),
    /// A sharded self-play run.
    #[error("self-play runs are not sharded")]
    ShardSelfplay,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_as_pgn_writes_them() {
        assert_eq!(date_of(0), "1970.01.01");
        assert_eq!(date_of(951_782_400), "2000.02.29");
        assert_eq!(date_of(1_796_083_199), "2026.11.30");
        assert_eq!(today().len(), 10);
    }
}
