//! Tuned weights against the weights they started from, at fixed nodes
//! (`tune --verify`): a tuning run does not call itself a success before
//! the board has said so.

use super::config::{MatchConfig, RunKind};
use super::limits::MoveLimits;
use super::run::{Execution, RunError, RunFiles, VerifyConfig, VerifyReport, VerifyStart, verify};
use super::spec::{DEFAULT_HASH_MB, EngineKind, EngineSpec};
use super::tournament::MatchProgress;
use crate::stats::SprtConfig;
use crate::weights::Weights;

/// How to prove tuned weights.
#[derive(Clone, Debug)]
pub struct ProveConfig {
    /// At most this many game pairs.
    pub pairs: u64,
    /// Nodes per move.
    pub nodes: u64,
    /// Games at once.
    pub threads: usize,
    /// The SPRT that decides.
    pub sprt: SprtConfig,
}

/// Plays `candidate` against `baseline` (both bundled, in memory) from
/// random balanced openings until the SPRT decides or the pairs run out.
pub fn prove(candidate: &Weights, baseline: &Weights, config: &ProveConfig, progress: &dyn MatchProgress) -> Result<VerifyReport, RunError> {
    let engine = |name: &str, weights: &Weights| EngineSpec {
        name: name.to_string(),
        kind: EngineKind::Bundled { source: format!("({name})"), weights: weights.clone(), hash_mb: DEFAULT_HASH_MB },
        limits: MoveLimits::default(),
    };
    let engines = vec![engine("tuned", candidate), engine("start", baseline)];
    let match_config =
        MatchConfig { sprt: Some(config.sprt), ..MatchConfig::new(RunKind::Verify, engines, config.pairs, MoveLimits::nodes(config.nodes)) };
    verify(
        VerifyStart::New(Box::new(VerifyConfig { config: match_config, files: RunFiles::default() })),
        &Execution { threads: config.threads, threads_chosen: true, progress },
    )
}
