//! Engines as values: the bundled engine with its weights, or a UCI
//! program with its arguments and options; each with limits of its own if
//! the match's do not suit it. Built in code, or parsed once from the text
//! form the command line takes (`name=… weights=…`, `name=… cmd=…`).

use std::path::PathBuf;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::limits::{LimitError, MoveLimits, TimeControlError};
use super::player::{BundledPlayer, Player, PlayerError};
use super::uci_client::{UciPlayer, UciProgram};
use crate::uci::session::MAX_HASH_MB;
use crate::weights::{Weights, WeightsError};

/// The hash table of the bundled engine when none is given, in MB.
pub const DEFAULT_HASH_MB: usize = 16;

/// How to start an engine, and what it is called.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EngineSpec {
    /// Its name in reports and PGN.
    pub name: String,
    /// Bundled or external.
    pub kind: EngineKind,
    /// Limits of its own, in place of the match's where set (`tc=`,
    /// `nodes=`, `depth=`).
    #[serde(default, skip_serializing_if = "MoveLimits::is_empty")]
    pub limits: MoveLimits,
}

/// The two kinds of engine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    /// The bundled engine, in-process.
    Bundled {
        /// The weights as given (preset name or file), for reports.
        source: String,
        /// The weights themselves (kept in full, so a resumed match plays
        /// the same weights even if the file has changed).
        weights: Weights,
        /// Transposition table size in MB.
        hash_mb: usize,
    },
    /// A UCI engine subprocess.
    Uci(UciProgram),
}

/// Why an engine specification was refused.
#[derive(Debug, thiserror::Error)]
pub enum EngineSpecError {
    /// A word of the text form without `=`.
    #[error("'{0}' is not key=value (keys: {KEYS})")]
    NotKeyValue(String),
    /// A key the text form does not have.
    #[error("unknown key '{0}' (keys: {KEYS})")]
    UnknownKey(String),
    /// A number that is not one.
    #[error("{key}={value} is not a whole number")]
    NotANumber {
        /// The key.
        key: &'static str,
        /// The value given.
        value: String,
    },
    /// A number outside what the key takes.
    #[error("{key}={value}: must be {range}")]
    OutOfRange {
        /// The key.
        key: &'static str,
        /// The value given.
        value: String,
        /// The numbers it takes.
        range: String,
    },
    /// Both `weights=` and `cmd=`.
    #[error("give either weights= (the bundled engine) or cmd= (a UCI engine), not both")]
    BothKinds,
    /// `arg=`, `option.NAME=` or `dir=` without `cmd=`.
    #[error("{0}= applies to UCI engines (cmd=)")]
    UciOnly(String),
    /// An empty name.
    #[error("an empty name")]
    EmptyName,
    /// A key that takes one value, given twice.
    #[error("{0}= given twice: give it once")]
    Repeated(String),
    /// No key at all.
    #[error("an empty engine: give weights=FILE|PRESET (the bundled engine) or cmd=PROGRAM (a UCI engine)")]
    Empty,
    /// `cmd=` names no program.
    #[error("cmd= names no program")]
    NoProgram,
    /// A hash size outside what the engine takes.
    #[error("hash={mb} MB: the bundled engine takes 1 to {max} MB")]
    Hash {
        /// The size given.
        mb: usize,
        /// The largest accepted.
        max: usize,
    },
    /// Unusable weights.
    #[error("weights: {0}")]
    Weights(#[source] WeightsError),
    /// An unreadable `tc=`.
    #[error("tc: {0}")]
    TimeControl(#[source] TimeControlError),
    /// Unusable own limits.
    #[error("{0}")]
    Limits(#[source] LimitError),
    /// A `dir=` that cannot be made absolute.
    #[error("dir={path}: {source}")]
    Dir {
        /// The folder given.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

const KEYS: &str = "name, weights, hash, cmd, arg, dir, option.NAME, tc, nodes, depth";

impl EngineSpec {
    /// The bundled engine with `weights` from `source` (a preset name or a
    /// file, any characters allowed), named `name`, with the default table.
    pub fn bundled(name: &str, source: &str) -> Result<EngineSpec, EngineSpecError> {
        let weights = Weights::resolve(source).map_err(EngineSpecError::Weights)?;
        let spec = EngineSpec {
            name: name.to_string(),
            kind: EngineKind::Bundled { source: source.to_string(), weights, hash_mb: DEFAULT_HASH_MB },
            limits: MoveLimits::default(),
        };
        spec.check()?;
        Ok(spec)
    }

    /// The bundled engine named after its weights (their `name`, else the
    /// file's stem).
    pub fn bundled_named_by_weights(source: &str) -> Result<EngineSpec, EngineSpecError> {
        let mut spec = EngineSpec::bundled(source, source)?;
        if let EngineKind::Bundled { weights, .. } = &spec.kind {
            spec.name = if weights.name.trim().is_empty() { stem(source) } else { weights.name.clone() };
        }
        Ok(spec)
    }

    /// Checks that the engine can be started as specified: a name, a hash
    /// size the bundled engine accepts (its UCI option's range; a UCI
    /// engine's own range is checked when it starts), usable weights and
    /// limits.
    pub fn check(&self) -> Result<(), EngineSpecError> {
        if self.name.trim().is_empty() {
            return Err(EngineSpecError::EmptyName);
        }
        self.limits.check_values().map_err(EngineSpecError::Limits)?;
        match &self.kind {
            EngineKind::Bundled { weights, hash_mb, .. } => {
                if !(1..=MAX_HASH_MB).contains(hash_mb) {
                    return Err(EngineSpecError::Hash { mb: *hash_mb, max: MAX_HASH_MB });
                }
                weights.validate().map_err(EngineSpecError::Weights)
            }
            EngineKind::Uci(program) if program.command.as_os_str().is_empty() => Err(EngineSpecError::NoProgram),
            EngineKind::Uci(program) if program.hash_mb == Some(0) => Err(EngineSpecError::Hash { mb: 0, max: usize::MAX }),
            EngineKind::Uci(_) => Ok(()),
        }
    }

    /// Starts the engine; `warn` hears what the engine's own reply
    /// suggests is wrong (an option it does not list).
    pub fn start(&self, warn: &mut dyn FnMut(String)) -> Result<Box<dyn Player>, PlayerError> {
        Ok(match &self.kind {
            EngineKind::Bundled { weights, hash_mb, .. } => Box::new(BundledPlayer::new(&self.name, weights, *hash_mb)?),
            EngineKind::Uci(program) => Box::new(UciPlayer::start(&self.name, program, warn)?),
        })
    }

    /// The weights of a bundled engine.
    pub fn weights(&self) -> Option<&Weights> {
        match &self.kind {
            EngineKind::Bundled { weights, .. } => Some(weights),
            EngineKind::Uci(_) => None,
        }
    }
}

/// A file name without its folders and extension.
fn stem(source: &str) -> String {
    let name = source.rsplit('/').next().unwrap_or(source);
    name.trim_end_matches(".toml").trim_end_matches(".json").to_string()
}

/// The text form: `name=NAME weights=FILE|PRESET [hash=MB]` for the bundled
/// engine, `name=NAME cmd=PROGRAM [arg=ARG …] [dir=FOLDER] [hash=MB]
/// [option.NAME=VALUE …]` for a UCI engine, each with optional `tc=BASE+INC`,
/// `nodes=N`, `depth=N`; words separated by spaces or commas.
impl FromStr for EngineSpec {
    type Err = EngineSpecError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (mut name, mut weights, mut hash, mut command, mut dir) = (None, None, None, None, None);
        let (mut args, mut options, mut limits) = (Vec::new(), Vec::new(), MoveLimits::default());
        fn number<T: FromStr>(key: &'static str, value: &str) -> Result<T, EngineSpecError> {
            value.parse().map_err(|_| EngineSpecError::NotANumber { key, value: value.to_string() })
        }
        fn in_range<T: FromStr + PartialOrd + Copy + std::fmt::Display>(
            key: &'static str,
            value: &str,
            min: T,
            max: T,
        ) -> Result<T, EngineSpecError> {
            let n: T = number(key, value)?;
            if n < min || n > max {
                return Err(EngineSpecError::OutOfRange { key, value: value.to_string(), range: format!("{min} to {max}") });
            }
            Ok(n)
        }
        // Keys that take one value, and option names, seen so far: a second
        // `name=` silently replaced the first.
        let mut seen: Vec<&str> = Vec::new();
        let mut tokens = s.split([' ', ',']).filter(|t| !t.is_empty()).peekable();
        if tokens.peek().is_none() {
            return Err(EngineSpecError::Empty);
        }
        for token in tokens {
            let (key, value) = token.split_once('=').ok_or_else(|| EngineSpecError::NotKeyValue(token.to_string()))?;
            if key != "arg" {
                if seen.contains(&key) {
                    return Err(EngineSpecError::Repeated(key.to_string()));
                }
                seen.push(key);
            }
            match key {
                "name" => name = Some(value.to_string()),
                "weights" => weights = Some(value.to_string()),
                "hash" => hash = Some(number::<usize>("hash", value)?),
                "cmd" => command = Some(value.to_string()),
                "arg" => args.push(value.to_string()),
                "dir" => dir = Some(value.to_string()),
                "tc" => limits.tc = Some(value.parse().map_err(EngineSpecError::TimeControl)?),
                "nodes" => limits.nodes = Some(in_range("nodes", value, 1, crate::engine::params::MAX_NODES)?),
                "depth" => limits.depth = Some(in_range("depth", value, 1, crate::engine::params::MAX_DEPTH)?),
                _ if key.starts_with("option.") && key.len() > "option.".len() => {
                    options.push((key["option.".len()..].to_string(), value.to_string()))
                }
                _ => return Err(EngineSpecError::UnknownKey(key.to_string())),
            }
        }
        let kind = match (weights, command) {
            (Some(_), Some(_)) => return Err(EngineSpecError::BothKinds),
            (None, Some(command)) => {
                let dir = dir.map(|d| std::path::absolute(&d).map_err(|source| EngineSpecError::Dir { path: d.clone(), source })).transpose()?;
                EngineKind::Uci(UciProgram { command: PathBuf::from(command), args, options, hash_mb: hash, dir })
            }
            (weights, None) => {
                for (given, key) in [(!args.is_empty(), "arg"), (!options.is_empty(), "option.NAME"), (dir.is_some(), "dir")] {
                    if given {
                        return Err(EngineSpecError::UciOnly(key.to_string()));
                    }
                }
                let source = weights.unwrap_or_else(|| crate::presets::DEFAULT_ENGINE.to_string());
                let resolved = Weights::resolve(&source).map_err(EngineSpecError::Weights)?;
                EngineKind::Bundled { source, weights: resolved, hash_mb: hash.unwrap_or(DEFAULT_HASH_MB) }
            }
        };
        let name = name.unwrap_or_else(|| match &kind {
            EngineKind::Bundled { source, .. } => stem(source),
            EngineKind::Uci(program) => {
                program.command.file_name().map_or_else(|| program.command.display().to_string(), |n| n.to_string_lossy().into_owned())
            }
        });
        let spec = EngineSpec { name, kind, limits };
        spec.check()?;
        Ok(spec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::limits::TimeControl;

    #[test]
    fn engine_specs_from_text() {
        let a: EngineSpec = "name=tuned weights=pgnlearn2015 hash=8 depth=6".parse().unwrap();
        assert_eq!(a.name, "tuned");
        assert!(matches!(&a.kind, EngineKind::Bundled { source, hash_mb: 8, .. } if source == "pgnlearn2015"));
        assert_eq!(a.limits.depth, Some(6));
        let b: EngineSpec = "name=sf,cmd=/usr/games/stockfish,option.UCI_LimitStrength=true,option.UCI_Elo=1500,tc=5+0.05,dir=/tmp".parse().unwrap();
        let EngineKind::Uci(program) = &b.kind else { panic!() };
        assert_eq!(program.command, PathBuf::from("/usr/games/stockfish"));
        assert_eq!(program.options[1], ("UCI_Elo".to_string(), "1500".to_string()));
        assert_eq!((program.dir.as_deref(), program.hash_mb), (Some(std::path::Path::new("/tmp")), None));
        assert_eq!(b.limits.tc, Some(TimeControl { base_ms: 5000, increment_ms: 50 }));
        let c: EngineSpec = "weights=flat".parse().unwrap();
        assert_eq!(c.name, "flat");
        assert!(matches!("name=x weights=nonsense-file".parse::<EngineSpec>(), Err(EngineSpecError::Weights(_))));
        assert!(matches!("name=x cmd=a weights=flat".parse::<EngineSpec>(), Err(EngineSpecError::BothKinds)));
        assert!(matches!("bogus".parse::<EngineSpec>(), Err(EngineSpecError::NotKeyValue(_))));
        assert!(matches!("weights=flat dir=/tmp".parse::<EngineSpec>(), Err(EngineSpecError::UciOnly(_))));
        assert!(matches!("weights=flat nodes=0".parse::<EngineSpec>(), Err(EngineSpecError::OutOfRange { key: "nodes", .. })));
        assert!(matches!("weights=flat nodes=10000000001".parse::<EngineSpec>(), Err(EngineSpecError::OutOfRange { key: "nodes", .. })));
        assert!(matches!("weights=flat depth=101".parse::<EngineSpec>(), Err(EngineSpecError::OutOfRange { key: "depth", .. })));
        let err = "name=a weights=classical hash=999999999".parse::<EngineSpec>().unwrap_err();
        assert!(err.to_string().contains("1 to 4096"), "{err}");
        assert!("name=a weights=classical hash=0".parse::<EngineSpec>().is_err());
        // A second value for a key replaced the first without a word.
        assert!(matches!("name=a name=b weights=flat".parse::<EngineSpec>(), Err(EngineSpecError::Repeated(k)) if k == "name"));
        let twice = "cmd=sf option.UCI_Elo=1500 option.UCI_Elo=2000".parse::<EngineSpec>().unwrap_err();
        assert_eq!(twice.to_string(), "option.UCI_Elo= given twice: give it once");
        let args: EngineSpec = "cmd=sf arg=-a arg=-b".parse().unwrap();
        assert!(matches!(&args.kind, EngineKind::Uci(p) if p.args == ["-a", "-b"]), "arg= is the one key given many times");
        assert!(matches!("".parse::<EngineSpec>(), Err(EngineSpecError::Empty)));
        assert!(matches!(" , ".parse::<EngineSpec>(), Err(EngineSpecError::Empty)));
    }

    #[test]
    fn a_bundled_engine_from_any_file_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("my weights.toml");
        let mut weights = Weights::preset("kaissa").unwrap();
        weights.name = String::new();
        weights.save(&path).unwrap();
        let spec = EngineSpec::bundled_named_by_weights(path.to_str().unwrap()).unwrap();
        assert_eq!(spec.name, "my weights");
        assert_eq!(spec.weights().unwrap().centipawns("N"), Weights::preset("kaissa").unwrap().centipawns("N"));
    }
}
