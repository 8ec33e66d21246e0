//! UCI input lines parsed into commands, without any engine state.
//!
//! Parsing is syntactic only: a `position` command keeps its FEN and moves
//! as text, and the session checks them against the rules. Unknown
//! commands and unknown `go` parameters are not errors: the UCI convention
//! is to ignore what an engine does not understand.

use std::time::Duration;

/// One line of GUI input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `uci`: identify and list the options.
    Uci,
    /// `isready`: answer `readyok` once ready.
    IsReady,
    /// `ucinewgame`: the next position is from another game.
    UciNewGame,
    /// `setoption name <name> [value <value>]`.
    SetOption {
        /// The option's name (may contain spaces).
        name: String,
        /// Its value, if given (may contain spaces).
        value: Option<String>,
    },
    /// `position startpos|fen <fen> [moves <m1> ...]`.
    Position {
        /// Where the game starts.
        start: StartPosition,
        /// The moves played since, in UCI notation.
        moves: Vec<String>,
    },
    /// `go ...`: start searching.
    Go(GoParams),
    /// `stop`: finish the search now.
    Stop,
    /// `ponderhit`: the expected move was played.
    PonderHit,
    /// `quit`.
    Quit,
}

/// The start of a `position` command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StartPosition {
    /// The standard start position.
    StartPos,
    /// A FEN (its fields joined by single spaces).
    Fen(String),
}

/// The parameters of `go`. Times are as the GUI sent them (negative
/// clock times, which some GUIs send after a flag fall, become zero).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoParams {
    /// White's clock.
    pub wtime: Option<Duration>,
    /// Black's clock.
    pub btime: Option<Duration>,
    /// White's increment.
    pub winc: Option<Duration>,
    /// Black's increment.
    pub binc: Option<Duration>,
    /// Moves to the next time control.
    pub movestogo: Option<u32>,
    /// Fixed time for this move.
    pub movetime: Option<Duration>,
    /// Depth limit.
    pub depth: Option<u32>,
    /// Node limit.
    pub nodes: Option<u64>,
    /// Search until `stop`.
    pub infinite: bool,
    /// Ponder (search until `stop` or `ponderhit`).
    pub ponder: bool,
    /// `go perft N`: count the move tree to depth N instead of searching.
    pub perft: Option<u32>,
    /// `go searchmoves m1 m2 …`: search only these root moves (UCI
    /// notation, as written; the session resolves them).
    pub searchmoves: Vec<String>,
    /// Limits whose value could not be read (`depth -1`, `nodes x`), as
    /// `name 'value'`: the search goes on without them, and the session
    /// says so, so that a search that became endless is not a mystery.
    pub unreadable: Vec<String>,
}

/// Why a line is not a command the session acts on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    /// A blank line.
    #[error("empty line")]
    Empty,
    /// A command this engine does not know (ignored, as UCI asks).
    #[error("unknown command '{0}'")]
    Unknown(String),
    /// A known command with unusable arguments.
    #[error("malformed '{command}' command: {reason}")]
    Malformed {
        /// The command word.
        command: &'static str,
        /// What is wrong.
        reason: String,
    },
}

impl Command {
    /// Parses one input line.
    pub fn parse(line: &str) -> Result<Command, CommandError> {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let Some((&first, rest)) = tokens.split_first() else {
            return Err(CommandError::Empty);
        };
        match first {
            "uci" => Ok(Command::Uci),
            "isready" => Ok(Command::IsReady),
            "ucinewgame" => Ok(Command::UciNewGame),
            "setoption" => parse_setoption(rest),
            "position" => parse_position(rest),
            "go" => Ok(Command::Go(parse_go(rest))),
            "stop" => Ok(Command::Stop),
            "ponderhit" => Ok(Command::PonderHit),
            "quit" => Ok(Command::Quit),
            other => Err(CommandError::Unknown(other.to_string())),
        }
    }
}

fn parse_setoption(tokens: &[&str]) -> Result<Command, CommandError> {
    let malformed = |reason: &str| CommandError::Malformed { command: "setoption", reason: reason.to_string() };
    if tokens.first() != Some(&"name") {
        return Err(malformed("expected 'name'"));
    }
    let tokens = &tokens[1..];
    let value_at = tokens.iter().position(|&t| t == "value");
    let name_tokens = &tokens[..value_at.unwrap_or(tokens.len())];
    if name_tokens.is_empty() {
        return Err(malformed("the option name is missing"));
    }
    let value = value_at.map(|i| tokens[i + 1..].join(" "));
    Ok(Command::SetOption { name: name_tokens.join(" "), value })
}

fn parse_position(tokens: &[&str]) -> Result<Command, CommandError> {
    let malformed = |reason: &str| CommandError::Malformed { command: "position", reason: reason.to_string() };
    let moves_at = tokens.iter().position(|&t| t == "moves");
    let head = &tokens[..moves_at.unwrap_or(tokens.len())];
    let start = match head.split_first() {
        Some((&"startpos", [])) => StartPosition::StartPos,
        Some((&"startpos", _)) => return Err(malformed("unexpected words after 'startpos'")),
        Some((&"fen", [])) => return Err(malformed("'fen' without a FEN")),
        Some((&"fen", fen)) => StartPosition::Fen(fen.join(" ")),
        _ => return Err(malformed("expected 'startpos' or 'fen'")),
    };
    let moves = moves_at.map_or_else(Vec::new, |i| tokens[i + 1..].iter().map(|m| m.to_string()).collect());
    Ok(Command::Position { start, moves })
}

/// Reads `go` parameters; unknown words are skipped, and limits whose
/// numbers cannot be read are listed in [`GoParams::unreadable`].
fn parse_go(tokens: &[&str]) -> GoParams {
    let mut go = GoParams::default();
    let mut i = 0;
    while i < tokens.len() {
        let name = tokens[i];
        let value = tokens.get(i + 1).copied();
        let unreadable = || go_unreadable(name, value);
        let mut takes_value = true;
        match name {
            "wtime" | "btime" | "winc" | "binc" | "movetime" => {
                // A clock below zero (a GUI's flag fall) reads as no time left.
                let millis = value.and_then(|v| v.parse::<i64>().ok()).map(|ms| Duration::from_millis(ms.max(0) as u64));
                if millis.is_none() {
                    go.unreadable.push(unreadable());
                }
                match name {
                    "wtime" => go.wtime = millis,
                    "btime" => go.btime = millis,
                    "winc" => go.winc = millis,
                    "binc" => go.binc = millis,
                    _ => go.movetime = millis,
                }
            }
            "movestogo" | "depth" | "perft" => {
                let number = value.and_then(|v| v.parse::<u32>().ok());
                if number.is_none() {
                    go.unreadable.push(unreadable());
                }
                match name {
                    "movestogo" => go.movestogo = number,
                    "depth" => go.depth = number,
                    _ => go.perft = number,
                }
            }
            "nodes" => {
                go.nodes = value.and_then(|v| v.parse().ok());
                if go.nodes.is_none() {
                    go.unreadable.push(unreadable());
                }
            }
            "infinite" => {
                go.infinite = true;
                takes_value = false;
            }
            "ponder" => {
                go.ponder = true;
                takes_value = false;
            }
            "searchmoves" => {
                // Every following word that reads as a UCI move.
                takes_value = false;
                while let Some(m) = tokens.get(i + 1).filter(|t| t.parse::<shakmaty::uci::UciMove>().is_ok()) {
                    go.searchmoves.push(m.to_string());
                    i += 1;
                }
            }
            _ => takes_value = false,
        }
        i += if takes_value { 2 } else { 1 };
    }
    go
}

/// How an unreadable `go` limit is named back: `depth '-1'`, or `depth`
/// with no value.
fn go_unreadable(name: &str, value: Option<&str>) -> String {
    match value {
        Some(v) => format!("{name} '{v}'"),
        None => format!("{name} (no value)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_commands() {
        assert_eq!(Command::parse("uci"), Ok(Command::Uci));
        assert_eq!(Command::parse("  isready \r"), Ok(Command::IsReady));
        assert_eq!(Command::parse("quit"), Ok(Command::Quit));
        assert_eq!(Command::parse(""), Err(CommandError::Empty));
        assert_eq!(Command::parse("xyzzy 3"), Err(CommandError::Unknown("xyzzy".into())));
    }

    #[test]
    fn setoption_names_and_values_may_have_spaces() {
        assert_eq!(
            Command::parse("setoption name Move Overhead value 50"),
            Ok(Command::SetOption { name: "Move Overhead".into(), value: Some("50".into()) })
        );
        assert_eq!(
            Command::parse("setoption name Weights value /tmp/my weights.toml"),
            Ok(Command::SetOption { name: "Weights".into(), value: Some("/tmp/my weights.toml".into()) })
        );
        assert_eq!(Command::parse("setoption name Clear Hash"), Ok(Command::SetOption { name: "Clear Hash".into(), value: None }));
        assert!(matches!(Command::parse("setoption value 3"), Err(CommandError::Malformed { .. })));
        assert!(matches!(Command::parse("setoption name"), Err(CommandError::Malformed { .. })));
    }

    #[test]
    fn positions() {
        assert_eq!(
            Command::parse("position startpos moves e2e4 e7e5"),
            Ok(Command::Position { start: StartPosition::StartPos, moves: vec!["e2e4".into(), "e7e5".into()] })
        );
        assert_eq!(
            Command::parse("position fen 8/8/8/8/8/8/8/K1k5 w - - 0 1"),
            Ok(Command::Position { start: StartPosition::Fen("8/8/8/8/8/8/8/K1k5 w - - 0 1".into()), moves: vec![] })
        );
        for bad in ["position", "position fen", "position fen moves e2e4", "position startpos e2e4", "position sideways"] {
            assert!(matches!(Command::parse(bad), Err(CommandError::Malformed { .. })), "{bad}");
        }
    }

    #[test]
    fn go_parameters() {
        let Ok(Command::Go(go)) = Command::parse("go wtime 1000 btime -50 winc 10 binc 10 movestogo 5 searchmoves e2e4") else {
            panic!("not a go");
        };
        assert_eq!(go.wtime, Some(Duration::from_millis(1000)));
        assert_eq!(go.btime, Some(Duration::ZERO));
        assert_eq!(go.winc, Some(Duration::from_millis(10)));
        assert_eq!(go.movestogo, Some(5));
        assert_eq!(go.searchmoves, ["e2e4"]);
        assert!(!go.infinite);
        let Ok(Command::Go(go)) = Command::parse("go searchmoves e2e4 d2d4 depth 3") else { panic!("not a go") };
        assert_eq!((go.searchmoves.as_slice(), go.depth), (&["e2e4".to_string(), "d2d4".to_string()][..], Some(3)));
        let Ok(Command::Go(go)) = Command::parse("go infinite depth x nodes 5000") else { panic!("not a go") };
        assert!(go.infinite);
        assert_eq!((go.depth, go.nodes), (None, Some(5000)));
        assert_eq!(go.unreadable, ["depth 'x'"]);
        let Ok(Command::Go(go)) = Command::parse("go wtime -50 btime 1000 depth -1 nodes lots movetime") else { panic!("not a go") };
        assert_eq!((go.wtime, go.btime), (Some(Duration::ZERO), Some(Duration::from_millis(1000))));
        assert_eq!(go.unreadable, ["depth '-1'", "nodes 'lots'", "movetime (no value)"]);
        assert_eq!(Command::parse("go"), Ok(Command::Go(GoParams::default())));
        let Ok(Command::Go(go)) = Command::parse("go perft 3") else { panic!("not a go") };
        assert_eq!(go.perft, Some(3));
    }
}
