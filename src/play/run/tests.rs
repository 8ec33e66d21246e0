//! The run layer's commands, configured in code (no command line).

use super::*;
use crate::play::limits::MoveLimits;
use crate::play::selfplay::{SelfplayConfig, SelfplayStart, run_selfplay};
use crate::play::spec::EngineSpec;

/// Hears nothing.
struct Quiet;

impl MatchProgress for Quiet {
    fn update(&self, _: &MatchState) {}
}

fn execution() -> Execution<'static> {
    Execution { threads: 2, threads_chosen: true, progress: &Quiet }
}

fn presets(a: &str, b: &str) -> Vec<EngineSpec> {
    vec![EngineSpec::bundled(a, a).unwrap(), EngineSpec::bundled(b, b).unwrap()]
}

#[test]
fn a_match_configured_in_code() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("m.pgn");
    let config = MatchConfig::new(RunKind::Match, presets("classical", "kaissa"), 2, MoveLimits::nodes(300));
    let files = RunFiles { pgn_out: Some(pgn.clone()), state: None, force: false };
    let report = run_match(MatchStart::New { config: Box::new(config.clone()), files: files.clone() }, &execution()).unwrap();
    assert_eq!((report.games, report.results.len()), (4, 1));
    assert_eq!(report.results[0].wdl.games(), 4);
    assert_eq!(report.results[0].penta.pairs(), 2);
    assert_eq!(report.stopped, Some(StopReason::AllGamesPlayed));
    assert_eq!(report.state.as_deref(), Some(dir.path().join("m.pgn.state.json").as_path()));
    assert_eq!(std::fs::read_to_string(&pgn).unwrap().matches("[Event \"pgntune match\"]").count(), 4);
    assert!(report.to_string().starts_with("classical vs kaissa\nGames 4: "), "{report}");
    // The same files again: refused, naming the earlier run.
    let again = run_match(MatchStart::New { config: Box::new(config), files }, &execution());
    assert!(matches!(again, Err(RunError::EarlierRun { kind: RunKind::Match, .. })), "{again:?}");
    // The state is a match's, not a verification's.
    let wrong = run_match(MatchStart::Resume { state: dir.path().join("m.pgn.state.json"), kind: RunKind::Verify }, &execution());
    assert!(matches!(wrong, Err(RunError::WrongKind { found: RunKind::Match, expected: RunKind::Verify, .. })));
}

#[test]
fn a_verification_configured_in_code_reaches_a_verdict() {
    let mut config = MatchConfig::new(RunKind::Match, presets("classical", "flat"), 400, MoveLimits::nodes(300));
    config.sprt = Some("elo0=0 elo1=10".parse().unwrap());
    let verdict = verify(VerifyStart::New(Box::new(VerifyConfig { config: config.clone(), files: RunFiles::default() })), &execution()).unwrap();
    assert_eq!(verdict.outcome, VerifyOutcome::AcceptedH1);
    assert_eq!(verdict.outcome.exit_code(), 0);
    assert_eq!(verdict.report.kind, RunKind::Verify);
    assert!(matches!(verdict.report.stopped, Some(StopReason::SprtAcceptedH1 { .. })));
    let json = verdict.to_json();
    assert_eq!(json["verdict"]["outcome"], "accepted_h1");
    assert!(verdict.to_string().contains("classical is stronger than flat"));
    // Without an SPRT there is no verdict to reach.
    config.sprt = None;
    let unsuitable = verify(VerifyStart::New(Box::new(VerifyConfig { config, files: RunFiles::default() })), &execution());
    assert!(matches!(unsuitable, Err(RunError::Unsuitable(_))));
}

#[test]
fn selfplay_configured_in_code_writes_compressed_games() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sp.pgn.gz");
    let engine = EngineSpec::bundled("pgntune", "classical").unwrap();
    let mut config = MatchConfig::new(RunKind::Selfplay, vec![engine.clone(), engine], 2, MoveLimits::nodes(300));
    config.vary_weights = Some(0.2);
    let report = run_selfplay(SelfplayStart::New(Box::new(SelfplayConfig { config, out: out.clone(), force: false })), &execution()).unwrap();
    assert_eq!(report.games, 4);
    let mut text = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(std::fs::File::open(&out).unwrap()), &mut text).unwrap();
    assert_eq!(text.matches("[Event \"pgntune selfplay\"]").count(), 4);
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, ["sp.pgn.gz"], "working files are removed");
}

/// `.bz2` is bzip2 (it was plain text under that name); a compression
/// self-play does not write is refused before any game.
#[test]
fn selfplay_writes_bzip2_and_refuses_compressions_it_cannot_write() {
    let dir = tempfile::tempdir().unwrap();
    let engine = EngineSpec::bundled("pgntune", "classical").unwrap();
    let mut config = MatchConfig::new(RunKind::Selfplay, vec![engine.clone(), engine], 1, MoveLimits::nodes(300));
    config.vary_weights = Some(0.2);
    let out = dir.path().join("sp.pgn.bz2");
    let start = |out: &std::path::Path| SelfplayStart::New(Box::new(SelfplayConfig { config: config.clone(), out: out.to_path_buf(), force: false }));
    run_selfplay(start(&out), &execution()).unwrap();
    let mut text = String::new();
    std::io::Read::read_to_string(&mut bzip2::read::BzDecoder::new(std::fs::File::open(&out).unwrap()), &mut text).unwrap();
    assert_eq!(text.matches("[Event \"pgntune selfplay\"]").count(), 2);
    let xz = dir.path().join("sp.pgn.xz");
    assert!(matches!(run_selfplay(start(&xz), &execution()), Err(RunError::Unsuitable(_))));
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, ["sp.pgn.bz2"]);
}

#[test]
fn selfplay_without_varied_weights_plays_no_game_twice() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sp.pgn");
    let engine = EngineSpec::bundled("pgntune", "full").unwrap();
    let mut config = MatchConfig::new(RunKind::Selfplay, vec![engine.clone(), engine], 3, MoveLimits::nodes(300));
    config.vary_weights = Some(0.0);
    assert!(config.identical_sides());
    run_selfplay(SelfplayStart::New(Box::new(SelfplayConfig { config, out: out.clone(), force: false })), &execution()).unwrap();
    let text = std::fs::read_to_string(&out).unwrap();
    // The movetext of each game: what follows its tags.
    let games: Vec<&str> = text.split("[Event ").skip(1).map(|g| g.split_once("\n\n").unwrap().1).collect();
    assert_eq!(games.len(), 6);
    let distinct: std::collections::HashSet<&str> = games.iter().copied().collect();
    assert_eq!(distinct.len(), 6, "same engine on both sides: each game needs an opening of its own");
}
