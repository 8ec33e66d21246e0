//! The searcher that labels a position: the bundled engine in-process, or
//! any UCI engine as a subprocess. Both answer one question, "what is
//! this position worth at this limit, and along which line", from a fresh
//! search, so that a label depends on the position and the limit alone.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Move};

use crate::engine::{Engine, Evaluator, Limits, Score};
use crate::play::limits::MoveLimits;
use crate::play::player::PlayerError;
use crate::play::uci_client::{UciPlayer, UciProgram};
use crate::weights::Weights;

/// Who labels: the bundled engine with weights, or a UCI program.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Teacher {
    /// The bundled engine.
    Bundled {
        /// The weights as given (a preset or a file), for the record.
        source: String,
        /// The weights.
        weights: Weights,
        /// Its hash table in MB.
        hash_mb: usize,
    },
    /// A UCI engine.
    Uci {
        /// Its name in reports.
        name: String,
        /// How to run it (program, arguments, options, hash).
        program: UciProgram,
    },
}

/// What a search said of a position, from the side to move's view.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// The score.
    pub score: Score,
    /// Win/draw/loss per mille, when the engine reports them.
    pub wdl: Option<[u32; 3]>,
    /// The principal variation (legal moves from the position).
    pub pv: Vec<Move>,
    /// The search time the engine itself reports, when it does.
    pub engine_time: Option<Duration>,
    /// Time spent clearing the engine before the search (`ucinewgame`).
    pub reset_time: Duration,
    /// Time from asking for the search to its answer.
    pub search_time: Duration,
}

/// One running searcher.
pub trait Searcher: Send {
    /// Searches `position` afresh to `limits`.
    fn search(&mut self, position: &Chess, limits: &MoveLimits, deadline: Duration) -> Result<Verdict, PlayerError>;
}

impl Teacher {
    /// A line for reports and the dataset's record: the engine, its options.
    pub fn describe(&self) -> String {
        match self {
            Teacher::Bundled { source, hash_mb, .. } => format!("pgntune's engine, weights {source}, hash {hash_mb} MB"),
            Teacher::Uci { name, program } => {
                let mut text = format!("{name} ({}", program.command.display());
                for arg in &program.args {
                    text.push(' ');
                    text.push_str(arg);
                }
                text.push(')');
                for (key, value) in &program.options {
                    text.push_str(&format!(" {key}={value}"));
                }
                if let Some(mb) = program.hash_mb {
                    text.push_str(&format!(" Hash={mb}"));
                }
                text
            }
        }
    }

    /// The weights file the bundled engine reads, when it is a file.
    pub fn weights_file(&self) -> Option<&std::path::Path> {
        match self {
            Teacher::Bundled { source, .. } => Weights::file(source),
            Teacher::Uci { .. } => None,
        }
    }

    /// Starts a searcher; `wdl` asks a UCI engine for its win/draw/loss
    /// reports. Returns the searcher and, for a UCI engine, its `id name`.
    pub fn start(&self, wdl: bool, warn: &mut dyn FnMut(String)) -> Result<(Box<dyn Searcher>, Option<String>), PlayerError> {
        match self {
            Teacher::Bundled { weights, hash_mb, .. } => {
                let evaluator = Evaluator::new(weights).map_err(PlayerError::Evaluator)?;
                // A table that cannot be had is an error, not an abort.
                let engine = Engine::try_new(evaluator, *hash_mb).map_err(|e| PlayerError::Spawn {
                    program: "pgntune's engine".into(),
                    source: std::io::Error::new(
                        std::io::ErrorKind::OutOfMemory,
                        format!("--hash {hash_mb} MB: cannot allocate the hash table ({e}); give a smaller --hash or fewer --threads"),
                    ),
                })?;
                Ok((Box::new(BundledSearcher { engine, stop: AtomicBool::new(false) }), None))
            }
            Teacher::Uci { name, program } => {
                let mut player = UciPlayer::start(name, program, warn)?;
                if wdl && !player.show_wdl()? {
                    warn(format!("engine '{name}' has no UCI_ShowWDL option: its scores are the labels"));
                }
                let id = player.id_name().map(str::to_string);
                Ok((Box::new(player), id))
            }
        }
    }
}

struct BundledSearcher {
    engine: Engine,
    stop: AtomicBool,
}

impl Searcher for BundledSearcher {
    fn search(&mut self, position: &Chess, limits: &MoveLimits, _deadline: Duration) -> Result<Verdict, PlayerError> {
        let reset = std::time::Instant::now();
        self.engine.new_game();
        let reset_time = reset.elapsed();
        let limits = Limits { depth: limits.depth, nodes: limits.nodes, ..Limits::default() };
        let started = std::time::Instant::now();
        let result = self.engine.search(position, &[], &limits, &self.stop, &mut |_| {});
        let search_time = started.elapsed();
        if result.best.is_none() {
            return Err(PlayerError::Protocol("no move in a position with legal moves".into()));
        }
        Ok(Verdict { score: result.score, wdl: None, pv: result.pv, engine_time: Some(result.time), reset_time, search_time })
    }
}

impl Searcher for UciPlayer {
    fn search(&mut self, position: &Chess, limits: &MoveLimits, deadline: Duration) -> Result<Verdict, PlayerError> {
        let analysis = self.analyse(position, limits, deadline)?;
        Ok(Verdict {
            score: analysis.score,
            wdl: analysis.wdl,
            pv: analysis.pv,
            engine_time: analysis.engine_ms.map(Duration::from_millis),
            reset_time: analysis.reset,
            search_time: analysis.search,
        })
    }
}
