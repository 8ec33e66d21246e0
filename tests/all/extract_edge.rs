//! Real-world PGN edge cases (pgn-extract's and python-chess's own test
//! inputs) and every file of the human and engine collections.

use pgntune::pgn::{ExtractConfig, InputSource};

use crate::common::*;

/// (file, games read, used, skipped for unknown result, skipped as variant,
/// cut at a bad move, rows). Checked by hand against the files: games read
/// equals the number of `[Event`/`[Result` tags except in the tagless files
/// (nested-comment: 1 game; test-fuzzydepth: 4 one-line games ended by `*`;
/// test-nagcomments: 1; test-promotion-in: 8 FEN games without tags other
/// than FEN/SetUp, whose results are their termination markers (there is
/// no Result tag to say otherwise); antichess-programfox: 2 variant
/// games). Notable cases:
/// * test-C, test-notags, barnes-horton and the other pgn-extract files built
///   on the Barnes-Horton game: a blank line after the opening comment does
///   not end the game (1 game, used);
/// * nested-comment: `{ ... { ... } ... }` ends at the first `}`; no result tag;
/// * test-allownullmoves, odds, anastasian-lewis: games cut at a null move `--`;
/// * test-setup-in, test-promotion-in: `[FEN]` set-ups;
/// * cutechess-fischerrandom: Chess960 with Chess960 castling, all 4 used;
/// * utf8-bom: byte-order mark, two games with result `*`;
/// * antichess, crazyhouse (zh): other variants, skipped;
/// * uci-moves: moves in UCI notation, read in full (6 rows).
const EDGE: &[(&str, u64, u64, u64, u64, u64, u64)] = &[
    ("pgn-extract/barnes-horton.pgn", 1, 1, 0, 0, 0, 3),
    ("pgn-extract/bots.pgn", 12, 12, 0, 0, 0, 41),
    ("pgn-extract/fischer.pgn", 34, 34, 0, 0, 0, 151),
    ("pgn-extract/fools-mate.pgn", 1, 1, 0, 0, 0, 1),
    ("pgn-extract/najdorf.pgn", 8, 8, 0, 0, 0, 34),
    ("pgn-extract/nested-comment.pgn", 1, 0, 1, 0, 0, 0),
    ("pgn-extract/odds.pgn", 32, 32, 0, 0, 2, 130),
    ("pgn-extract/petrosian.pgn", 35, 35, 0, 0, 0, 120),
    ("pgn-extract/test-7.pgn", 1, 1, 0, 0, 0, 8),
    ("pgn-extract/test-C.pgn", 1, 1, 0, 0, 0, 3),
    ("pgn-extract/test-F-text.pgn", 1, 1, 0, 0, 0, 3),
    ("pgn-extract/test-F.pgn", 1, 1, 0, 0, 0, 3),
    ("pgn-extract/test-L1.pgn", 1, 1, 0, 0, 0, 1),
    ("pgn-extract/test-L2.pgn", 1, 1, 0, 0, 0, 3),
    ("pgn-extract/test-N.pgn", 1, 1, 0, 0, 0, 3),
    ("pgn-extract/test-P.pgn", 11, 11, 0, 0, 0, 55),
    ("pgn-extract/test-R.pgn", 1, 1, 0, 0, 0, 3),
    ("pgn-extract/test-Ta.pgn", 1, 1, 0, 0, 0, 3),
    ("pgn-extract/test-V.pgn", 1, 1, 0, 0, 0, 3),
    ("pgn-extract/test-addhashcode.pgn", 1, 1, 0, 0, 0, 3),
    ("pgn-extract/test-allownullmoves.pgn", 2, 1, 1, 0, 1, 0),
    ("pgn-extract/test-checkmate.pgn", 2, 2, 0, 0, 0, 4),
    ("pgn-extract/test-e.pgn", 6, 6, 0, 0, 0, 21),
    ("pgn-extract/test-evaluation.pgn", 1, 1, 0, 0, 0, 1),
    ("pgn-extract/test-f1.pgn", 1, 1, 0, 0, 0, 3),
    ("pgn-extract/test-f2.pgn", 1, 1, 0, 0, 0, 1),
    ("pgn-extract/test-fencomments.pgn", 1, 1, 0, 0, 0, 3),
    ("pgn-extract/test-fifty.pgn", 2, 2, 0, 0, 0, 14),
    ("pgn-extract/test-fixresulttags-in.pgn", 5, 5, 0, 0, 0, 21),
    ("pgn-extract/test-fuzzydepth.pgn", 4, 0, 4, 0, 0, 0),
    ("pgn-extract/test-hash.pgn", 35, 35, 0, 0, 0, 160),
    ("pgn-extract/test-long-line.pgn", 1, 1, 0, 0, 0, 1),
    ("pgn-extract/test-matchplylimit.pgn", 1, 1, 0, 0, 0, 6),
    ("pgn-extract/test-nagcomments.pgn", 1, 0, 1, 0, 0, 0),
    ("pgn-extract/test-nobadresults.pgn", 9, 6, 3, 0, 0, 0),
    ("pgn-extract/test-nochecks.pgn", 2, 2, 0, 0, 0, 4),
    ("pgn-extract/test-nomovenumbers.pgn", 1, 1, 0, 0, 0, 3),
    ("pgn-extract/test-noresults.pgn", 1, 1, 0, 0, 0, 3),
    ("pgn-extract/test-notags.pgn", 1, 1, 0, 0, 0, 3),
    ("pgn-extract/test-plycount.pgn", 1, 1, 0, 0, 0, 3),
    ("pgn-extract/test-plylimit.pgn", 1, 1, 0, 0, 0, 3),
    ("pgn-extract/test-promotion-in.pgn", 8, 8, 0, 0, 0, 0),
    ("pgn-extract/test-repetition.pgn", 12, 12, 0, 0, 0, 51),
    ("pgn-extract/test-s.pgn", 3, 3, 0, 0, 0, 10),
    ("pgn-extract/test-selectonly.pgn", 34, 34, 0, 0, 0, 151),
    ("pgn-extract/test-setup-in.pgn", 2, 2, 0, 0, 0, 16),
    ("pgn-extract/test-seventyfive.pgn", 5, 5, 0, 0, 0, 31),
    ("pgn-extract/test-splitvariants.pgn", 1, 0, 1, 0, 0, 0),
    ("pgn-extract/test-stalemate.pgn", 3, 3, 0, 0, 0, 10),
    ("pgn-extract/test-startply.pgn", 10, 10, 0, 0, 0, 41),
    ("pgn-extract/test-stopafter.pgn", 34, 34, 0, 0, 0, 151),
    ("pgn-extract/test-t.pgn", 6, 6, 0, 0, 0, 32),
    ("pgn-extract/test-ucE.pgn", 6, 6, 0, 0, 0, 21),
    ("pgn-extract/test-ucS.pgn", 3, 3, 0, 0, 0, 10),
    ("pgn-extract/test-ucW.pgn", 1, 1, 0, 0, 0, 3),
    ("pgn-extract/test-w.pgn", 1, 1, 0, 0, 0, 3),
    ("python-chess/anastasian-lewis.pgn", 1, 1, 0, 0, 1, 4),
    ("python-chess/antichess-programfox.pgn", 2, 0, 0, 2, 0, 0),
    ("python-chess/chessbase-empty-line.pgn", 1, 1, 0, 0, 0, 8),
    ("python-chess/cutechess-fischerrandom.pgn", 4, 4, 0, 0, 0, 29),
    ("python-chess/kasparov-deep-blue-1997.pgn", 6, 6, 0, 0, 0, 26),
    ("python-chess/knightvuillaume-jannlee-zh-lichess.pgn", 1, 0, 0, 1, 0, 0),
    ("python-chess/molinari-bordais-1979.pgn", 1, 1, 0, 0, 0, 1),
    ("python-chess/nepomniachtchi-liren-game1.pgn", 1, 1, 0, 0, 0, 5),
    ("python-chess/saturs-jannlee-zh-lichess.pgn", 1, 0, 0, 1, 0, 0),
    ("python-chess/stockfish-learning.pgn", 1, 1, 0, 0, 0, 6),
    ("python-chess/uci-moves.pgn", 1, 1, 0, 0, 0, 6),
    ("python-chess/utf8-bom.pgn", 2, 0, 2, 0, 0, 0),
];

#[test]
#[ignore = "needs ../shared/data"]
fn edge_case_files_give_the_expected_counts() {
    for &(file, read, used, unknown, variant, cut, rows) in EDGE {
        let path = shared(&format!("edge/{file}"));
        let s = extract_file(&path);
        let got = (s.games_read, s.games_used, s.skipped_unknown_result, s.skipped_variant, s.games_cut, s.rows);
        assert_eq!(got, (read, used, unknown, variant, cut, rows), "{file}");
        assert_eq!(s.games_read, s.games_used + s.games_skipped(), "{file}: every game accounted for");
    }
}

#[test]
#[ignore = "needs ../shared/data"]
fn chess960_games_replay_in_full() {
    let path = shared("edge/python-chess/cutechess-fischerrandom.pgn");
    let s = extract_file(&path);
    assert_eq!((s.games_used, s.games_cut, s.problem_count), (4, 0, 0));
    let path = shared("engine/TCEC_Season_16_-_Frc_Sufi.pgn");
    let s = extract_file(&path);
    assert!(s.games_read > 0);
    assert_eq!((s.games_cut, s.skipped_bad_fen, s.skipped_variant), (0, 0, 0), "{:?}", s.problems);
}

/// Counts `[Result "` tag lines, as a second way to count games.
fn result_tags(path: &std::path::Path) -> u64 {
    let bytes = std::fs::read(path).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    text.lines().filter(|l| l.trim_start_matches('\u{feff}').starts_with("[Result ")).count() as u64
}

#[test]
#[ignore = "needs ../shared/data"]
fn every_human_and_engine_file_is_read_completely() {
    for dir in ["human", "engine"] {
        let dir = shared(dir);
        // Files only: the collections may hold folders of more games.
        let mut files: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_file()).collect();
        files.sort();
        assert!(files.len() >= 4);
        for path in files {
            let config = ExtractConfig::default();
            let (s, _) = extract_all(&[InputSource::File(path.clone())], &config);
            assert_eq!(s.games_read, result_tags(&path), "{}", path.display());
            assert_eq!(s.skipped_unreadable, 0, "{}", path.display());
        }
    }
}

/// The filter's fast check test must agree with shakmaty's `is_check` on
/// every move of real games, Chess960 included.
#[test]
#[ignore = "needs ../shared/data"]
fn fast_check_test_agrees_with_is_check_on_real_games() {
    use std::ops::ControlFlow;

    use pgn_reader::{RawTag, Reader, SanPlus, Visitor};
    use pgntune::pgn::replay::{in_check_after, resolve};
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, Chess, Position};

    struct Checker {
        moves: u64,
        checks: u64,
    }
    impl Visitor for Checker {
        type Tags = Option<Chess>;
        type Movetext = Option<Chess>;
        type Output = ();
        fn begin_tags(&mut self) -> ControlFlow<(), Option<Chess>> {
            ControlFlow::Continue(None)
        }
        fn tag(&mut self, tags: &mut Option<Chess>, name: &[u8], value: RawTag<'_>) -> ControlFlow<()> {
            if name == b"FEN" {
                *tags = Fen::from_ascii(value.as_bytes()).ok().and_then(|f| f.into_position(CastlingMode::Chess960).ok());
            }
            ControlFlow::Continue(())
        }
        fn begin_movetext(&mut self, tags: Option<Chess>) -> ControlFlow<(), Option<Chess>> {
            ControlFlow::Continue(Some(tags.unwrap_or_default()))
        }
        fn san(&mut self, pos: &mut Option<Chess>, san: SanPlus) -> ControlFlow<()> {
            if let Some(p) = pos {
                match resolve(p, san.san) {
                    Ok(m) => {
                        p.play_unchecked(m);
                        assert_eq!(in_check_after(p, m), p.is_check(), "{m:?}");
                        self.moves += 1;
                        self.checks += u64::from(p.is_check());
                    }
                    Err(_) => *pos = None,
                }
            }
            ControlFlow::Continue(())
        }
        fn end_game(&mut self, _: Option<Chess>) {}
    }

    let mut checker = Checker { moves: 0, checks: 0 };
    for file in ["human/Kasparov.pgn", "human/Tal.pgn", "engine/TCEC_Season_16_-_Frc_Sufi.pgn", "edge/python-chess/cutechess-fischerrandom.pgn"] {
        let path = shared(file);
        Reader::new(std::fs::File::open(path).unwrap()).visit_all_games(&mut checker).unwrap();
    }
    assert!(checker.moves > 300_000 && checker.checks > 10_000, "{} moves, {} checks", checker.moves, checker.checks);
}

// Issue 33's PGN edge cases, each named after what was wrong.

fn extract_text(text: &str) -> pgntune::pgn::ExtractStats {
    extract_all(&[memory("t.pgn", text)], &ExtractConfig::default()).0
}

fn problems(stats: &pgntune::pgn::ExtractStats) -> String {
    stats.problems.iter().map(|p| format!("{p}\n")).collect()
}

#[test]
fn a_result_of_2_0_is_an_unreadable_result_not_a_cut_short_file() {
    let text = "[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n[Event \"b\"]\n[Result \"2-0\"]\n\n1. d4 d5 2. c4 e6 2-0\n";
    let stats = extract_text(text);
    assert_eq!((stats.games_read, stats.games_used, stats.skipped_bad_result, stats.skipped_unknown_result), (2, 1, 1, 0));
    let said = problems(&stats);
    assert!(said.contains("t.pgn: game 2: [Result \"2-0\"] is not a result (1-0, 0-1, 1/2-1/2 or *); skipped"), "{said}");
    assert!(!said.contains("cut short"), "{said}");
    assert!(stats.summary_line().contains("skipped 1 unreadable result;"), "{}", stats.summary_line());
    // Whatever --unknown-result says: it is not an unknown result.
    let config = ExtractConfig { unknown_result: pgntune::pgn::UnknownResult::Draw, ..ExtractConfig::default() };
    assert_eq!(extract_all(&[memory("t.pgn", text)], &config).0.skipped_bad_result, 1);
}

#[test]
fn a_result_tag_that_disagrees_with_the_marker_is_counted_and_named() {
    let text = "[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 0-1\n\n[Event \"b\"]\n[Result \"0-1\"]\n\n1. d4 d5 0-1\n";
    let (stats, rows) = extract_all(&[memory("t.pgn", text)], &ExtractConfig::default());
    assert_eq!((stats.games_used, stats.result_disagreements, stats.problem_count), (2, 1, 1));
    let said = problems(&stats);
    assert!(said.contains("t.pgn: game 1: [Result \"1-0\"] disagrees with the result marker 0-1 at the end of the moves; the tag is used"), "{said}");
    assert!(stats.summary_line().contains("; 1 game whose Result tag and result marker disagree (the tag used);"), "{}", stats.summary_line());
    // The tag is what the rows of game 1 say.
    let first_game: Vec<f64> = (0..rows.len()).filter(|&i| rows.games[i] == 0).map(|i| rows.results[i].score()).collect();
    assert!(!first_game.is_empty() && first_game.iter().all(|&s| s == 1.0), "{first_game:?}");
}

#[test]
fn a_tag_over_16_kb_is_one_unreadable_game_not_two() {
    let long = "x".repeat(20_000);
    let text = format!(
        "[Event \"a\"]\n[Annotator \"{long}\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 1-0\n\n[Event \"b\"]\n[Result \"0-1\"]\n\n1. d4 d5 0-1\n"
    );
    let stats = extract_text(&text);
    assert_eq!((stats.games_read, stats.games_used, stats.skipped_unreadable), (2, 1, 1), "{}", problems(&stats));
    assert!(
        problems(&stats).contains("game 1: unreadable PGN: unterminated tag (a tag line without its closing quote, or too long"),
        "{}",
        problems(&stats)
    );
    // split counts it once too, and keeps it whole in one shard.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("long.pgn"), &text).unwrap();
    pgntune().current_dir(dir.path()).args(["split", "long.pgn", "--games", "1", "-q", "-o", "shards"]).assert().success();
    let manifest: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("shards/manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["shards"].as_array().unwrap().len(), 2, "{manifest}");
}

#[test]
fn openings_use_the_games_before_a_truncated_last_game_and_warn() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let games = "[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n[Event \"b\"]\n[Result \"0-1\"]\n\n1. d4 d5 2. c4 e6 0-1\n\n";
    // The last game is cut inside a comment: the reader cannot read it at all.
    std::fs::write(d.join("cut.pgn"), format!("{games}[Event \"c\"]\n[Result \"1-0\"]\n\n1. c4 {{a comment cut sh")).unwrap();
    let out = pgntune().current_dir(d).args(["openings", "cut.pgn", "--plies", "2", "--out", "o.epd", "-q"]).assert().success().get_output().clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("pgntune: warning: cut.pgn: game 3: unreadable PGN: unterminated comment"), "{stderr}");
    assert_eq!(std::fs::read_to_string(d.join("o.epd")).unwrap().lines().count(), 2);
    // Cut inside its moves (no marker), the last game's moves are used, with a warning.
    std::fs::write(d.join("short.pgn"), format!("{games}[Event \"c\"]\n[Result \"1-0\"]\n\n1. c4 c5 2. Nc3")).unwrap();
    let out =
        pgntune().current_dir(d).args(["openings", "short.pgn", "--plies", "2", "--out", "s.epd", "-q"]).assert().success().get_output().clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("short.pgn: game 3: the file ends inside this game"), "{stderr}");
    assert_eq!(std::fs::read_to_string(d.join("s.epd")).unwrap().lines().count(), 3);
}
