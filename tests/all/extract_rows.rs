//! The rows extraction produces: OpenRating.pgn against an independent
//! computation, a hand-worked game, and determinism across thread counts.

use std::ops::ControlFlow;

use pgn_reader::{RawTag, Reader, SanPlus, Visitor};
use pgntune::dataset::GameResult;
use pgntune::pgn::{EmitMode, ExtractConfig, FilterConfig, InputSource, ResetEvents, UnknownResult};
use shakmaty::{Chess, Color, Position};

use crate::common::*;

/// One row as the independent computation sees it: (game, ply, P N B R Q, score).
type IndependentRow = (u64, u32, [i32; 5], f64);

/// A second implementation of the pgnlearn rule, written directly against
/// pgn-reader and shakmaty with none of pgntune's code: material from
/// `Board::material()`, checks from `Position::is_check()`.
struct Independent {
    game: u64,
    unknown_as_draw: bool,
    rule: Rule,
    rows: Vec<IndependentRow>,
}

/// The filter settings the independent computation follows.
#[derive(Clone, Copy)]
struct Rule {
    quiet_plies: u32,
    capture: bool,
    promotion: bool,
    check: bool,
    all: bool,
}

const PGNLEARN: Rule = Rule { quiet_plies: 2, capture: true, promotion: true, check: true, all: false };

struct Game {
    pos: Chess,
    result: Option<f64>,
    quiet: u32,
    last: Option<[i32; 5]>,
    ply: u32,
    dead: bool,
    rows: Vec<IndependentRow>,
}

impl Visitor for Independent {
    type Tags = Option<f64>;
    type Movetext = Game;
    type Output = ();

    fn begin_tags(&mut self) -> ControlFlow<(), Option<f64>> {
        ControlFlow::Continue(None)
    }

    fn tag(&mut self, tags: &mut Option<f64>, name: &[u8], value: RawTag<'_>) -> ControlFlow<()> {
        if name == b"Result" {
            *tags = match value.as_bytes() {
                b"1-0" => Some(1.0),
                b"0-1" => Some(0.0),
                b"1/2-1/2" => Some(0.5),
                _ => None,
            };
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, result: Option<f64>) -> ControlFlow<(), Game> {
        let result = if self.unknown_as_draw { result.or(Some(0.5)) } else { result };
        ControlFlow::Continue(Game { pos: Chess::default(), result, quiet: 0, last: None, ply: 0, dead: false, rows: vec![] })
    }

    fn san(&mut self, g: &mut Game, san_plus: SanPlus) -> ControlFlow<()> {
        if g.dead {
            return ControlFlow::Continue(());
        }
        let Ok(m) = san_plus.san.to_move(&g.pos) else {
            g.dead = true;
            return ControlFlow::Continue(());
        };
        g.pos.play_unchecked(m);
        g.ply += 1;
        g.quiet += 1;
        let rule = self.rule;
        if (rule.capture && m.is_capture()) || (rule.promotion && m.is_promotion()) || (rule.check && g.pos.is_check()) {
            g.quiet = 0;
        }
        let material = g.pos.board().material();
        let (w, b) = (material.get(Color::White), material.get(Color::Black));
        let x = [
            w.pawn as i32 - b.pawn as i32,
            w.knight as i32 - b.knight as i32,
            w.bishop as i32 - b.bishop as i32,
            w.rook as i32 - b.rook as i32,
            w.queen as i32 - b.queen as i32,
        ];
        if g.quiet >= rule.quiet_plies && (rule.all || g.last != Some(x)) {
            g.last = Some(x);
            g.rows.push((0, g.ply, x, 0.0));
        }
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, g: Game) {
        // The DOS end-of-file byte at the end of OpenRating.pgn reads as an
        // empty "game" without tags or moves; it is not a game.
        if g.ply == 0 && g.result.is_none() {
            return;
        }
        if let Some(score) = g.result {
            self.rows.extend(g.rows.into_iter().map(|(_, ply, x, _)| (self.game, ply, x, score)));
        }
        self.game += 1;
    }
}

fn independent_rows(path: &std::path::Path, unknown_as_draw: bool) -> Vec<IndependentRow> {
    independent_rows_with(path, unknown_as_draw, PGNLEARN)
}

fn independent_rows_with(path: &std::path::Path, unknown_as_draw: bool, rule: Rule) -> Vec<IndependentRow> {
    let mut visitor = Independent { game: 0, unknown_as_draw, rule, rows: vec![] };
    Reader::new(std::fs::File::open(path).unwrap()).visit_all_games(&mut visitor).unwrap();
    visitor.rows
}

fn pgntune_rows(path: &std::path::Path, unknown: UnknownResult) -> (pgntune::pgn::ExtractStats, Vec<IndependentRow>) {
    pgntune_rows_with(path, ExtractConfig { unknown_result: unknown, ..ExtractConfig::default() })
}

fn pgntune_rows_with(path: &std::path::Path, config: ExtractConfig) -> (pgntune::pgn::ExtractStats, Vec<IndependentRow>) {
    let (stats, rows) = extract_all(&[InputSource::File(path.to_path_buf())], &config);
    let mut x = vec![0.0; config.layout.len()];
    let rows = (0..rows.len())
        .map(|i| {
            rows.dense_row(i, &config.layout, &mut x);
            let material: Vec<i32> = x.iter().map(|&v| v as i32).collect();
            (rows.games[i], rows.plies[i], material.try_into().unwrap(), rows.results[i].score())
        })
        .collect();
    (stats, rows)
}

#[test]
#[ignore = "needs ../shared/data"]
fn openrating_rows_match_an_independent_replay() {
    let path = shared("pgnlearn/OpenRating.pgn");
    let (stats, ours) = pgntune_rows(&path, UnknownResult::Skip);
    assert_eq!(stats.games_read, 2997);
    assert_eq!(stats.games_used, 2976);
    assert_eq!(stats.skipped_unknown_result, 21);
    assert_eq!(stats.rows, 20175);
    let theirs = independent_rows(&path, false);
    assert_eq!(theirs.len(), 20175);
    for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        assert_eq!(a, b, "row {i} differs");
    }
}

#[test]
#[ignore = "needs ../shared/data"]
fn openrating_with_unknown_results_as_draws_gives_20215_rows() {
    let path = shared("pgnlearn/OpenRating.pgn");
    let (stats, ours) = pgntune_rows(&path, UnknownResult::Draw);
    assert_eq!((stats.games_read, stats.games_used, stats.rows), (2997, 2997, 20215));
    assert_eq!(ours, independent_rows(&path, true));
}

#[test]
#[ignore = "needs ../shared/data"]
fn other_filter_settings_match_the_independent_replay_too() {
    let path = shared("pgnlearn/OpenRating.pgn");
    let rules = [
        Rule { check: false, ..PGNLEARN },
        Rule { capture: false, promotion: false, ..PGNLEARN },
        Rule { quiet_plies: 4, ..PGNLEARN },
        Rule { all: true, ..PGNLEARN },
        Rule { quiet_plies: 0, capture: false, promotion: false, check: false, all: false },
    ];
    for rule in rules {
        let filter = FilterConfig {
            quiet_plies: rule.quiet_plies,
            reset_on: ResetEvents { capture: rule.capture, promotion: rule.promotion, check: rule.check },
            emit: if rule.all { EmitMode::All } else { EmitMode::Changes },
            ..FilterConfig::default()
        };
        let (_, ours) = pgntune_rows_with(&path, ExtractConfig { filter: filter.clone(), ..ExtractConfig::default() });
        let theirs = independent_rows_with(&path, false, rule);
        assert_eq!(ours.len(), theirs.len(), "{filter:?}");
        assert!(ours == theirs, "{filter:?}: rows differ");
    }
}

/// A miniature whose rows were worked out by hand (see the comments).
const MINIATURE: &str = r#"[Event "hand-worked"]
[White "A"]
[Black "B"]
[Result "1-0"]

1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 4. d4 c6 5. Nf3 Bg4 6. Bf4 e6 7. h3 Bxf3
8. Qxf3 Bb4 9. Be2 Nd7 10. a3 O-O-O 11. axb4 Qxa1+ 12. Kd2 Qxh1 13. Qxc6+ bxc6
14. Ba6# 1-0
"#;

// Ply 2 (1...d5): quiet = 2, first vector of the game → row, all zeros.
// Plies 3-4 are captures; from ply 6 the balance is 0 again, equal to the
// last row, so nothing until 7...Bxf3 (ply 14) and 8.Qxf3 (ply 15), both
// captures. Ply 17 (9.Be2): quiet = 2, N -1 B +1 → row. Plies 18-20 repeat
// it. From 11.axb4 (ply 21) on, every move but 12.Kd2 (quiet = 1) is a
// capture or a check, so no more rows.
const MINIATURE_MAT: &str = " 0  0  0  0  0  2\n 0 -1  1  0  0  2\n";

fn mat_of(config_args: &[&str], pgn: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("game.pgn");
    let output = dir.path().join("rows.mat");
    std::fs::write(&input, pgn).unwrap();
    pgntune().arg("extract").arg(&input).arg("-o").arg(&output).args(config_args).arg("-q").assert().success();
    std::fs::read_to_string(output).unwrap()
}

#[test]
fn hand_worked_miniature_gives_the_expected_mat() {
    assert_eq!(mat_of(&[], MINIATURE), MINIATURE_MAT);
}

#[test]
fn filter_options_change_the_rows_as_worked_out() {
    // --emit all: every quiet position. Quiet (>= 2) at plies 2, 6-13, 17-20.
    let all = mat_of(&["--emit", "all"], MINIATURE);
    let zeros = " 0  0  0  0  0  2\n";
    let nb = " 0 -1  1  0  0  2\n";
    assert_eq!(all, format!("{}{}", zeros.repeat(1 + 8), nb.repeat(4)));
    // --quiet-plies 5: plies 9-13 (zeros) and 20 (N -1 B +1) are quiet.
    assert_eq!(mat_of(&["--quiet-plies", "5"], MINIATURE), format!("{zeros}{nb}"));
    // --skip-plies 10: the first row can only come at ply 11 or later.
    assert_eq!(mat_of(&["--skip-plies", "10"], MINIATURE), format!("{zeros}{nb}"));
    // --skip-plies 17: the 9.Be2 row (ply 17) is skipped, 9...Nd7 (ply 18) is the first.
    assert_eq!(mat_of(&["--skip-plies", "17"], MINIATURE), nb);
    // --max-plies 16: the game stops before 9.Be2.
    assert_eq!(mat_of(&["--max-plies", "16"], MINIATURE), zeros);
    // --reset-on none: every position from ply 2 is quiet; vector changes at
    // plies 3 (P +1), 4 (0), 14 (N -1), 15 (N -1 B +1), 21 (B +2), 22 (R -1),
    // 24 (R -2), 25 (P +1), 26 (Q -1).
    let none = mat_of(&["--reset-on", "none"], MINIATURE);
    assert_eq!(
        none,
        " 0  0  0  0  0  2\n 1  0  0  0  0  2\n 0  0  0  0  0  2\n 0 -1  0  0  0  2\n 0 -1  1  0  0  2\n \
0 -1  2  0  0  2\n 0 -1  2 -1  0  2\n 0 -1  2 -2  0  2\n 1 -1  2 -2  0  2\n 1 -1  2 -2 -1  2\n"
    );
}

#[test]
fn row_metadata_game_ply_result() {
    let config = ExtractConfig::default();
    let two_games = format!("{MINIATURE}\n[Result \"*\"]\n\n1. e4 e5 *\n\n{}", MINIATURE.replace("1-0", "0-1"));
    let (stats, rows) = extract_all(&[memory("two.pgn", &two_games)], &config);
    assert_eq!((stats.games_read, stats.games_used, stats.skipped_unknown_result), (3, 2, 1));
    assert_eq!(rows.games, [0, 0, 2, 2]);
    assert_eq!(rows.plies, [2, 17, 2, 17]);
    assert_eq!(rows.results, [GameResult::WhiteWins, GameResult::WhiteWins, GameResult::BlackWins, GameResult::BlackWins]);
}

fn extract_bytes(args: &[&str], input: &std::path::Path, ext: &str, threads: usize) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join(format!("rows.{ext}"));
    let mut cmd = pgntune();
    cmd.arg("extract").arg(input).arg("-o").arg(&output).args(args).args(["-q", "--threads", &threads.to_string()]);
    cmd.assert().success();
    std::fs::read(output).unwrap()
}

/// On the bundled sample (always present, zstd-compressed), so that the
/// promise is checked everywhere, with or without the shared collections.
#[test]
fn outputs_are_byte_identical_for_one_and_two_threads() {
    let path = bundled_sample();
    for (ext, args) in [
        ("mat", vec![]),
        ("csv", vec!["--tags", "White,Black,WhiteElo,BlackElo,Event,Date", "--fen"]),
        ("tsv", vec!["--tags", "White,Black"]),
        ("parquet", vec!["--tags", "White,Black,Date", "--fen"]),
        ("txt", vec!["--format", "octave"]),
    ] {
        let one = extract_bytes(&args, &path, ext, 1);
        let two = extract_bytes(&args, &path, ext, 2);
        assert!(one.len() > 1000, "{ext}: output too small");
        assert!(one == two, "{ext}: --threads 1 and --threads 2 differ");
    }
}

/// An output that fails part-way must end the extraction with its error on
/// every thread count. The parallel reader waits for a ticket from the
/// consumer; if the consumer stopped without releasing them the run hung.
#[test]
fn a_failing_output_ends_the_run_with_its_error() {
    let game = "[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 1-0\n\n";
    let text = game.repeat(40_000);
    for threads in [1, 2, 4] {
        let input = memory("many.pgn", &text);
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let config = ExtractConfig { threads, ..ExtractConfig::default() };
            let mut batches = 0;
            let outcome = pgntune::pgn::extract(&[input], &config, &pgntune::pgn::extract::NoProgress, |_| {
                batches += 1;
                if batches < 3 {
                    Ok(())
                } else {
                    Err(pgntune::dataset::DatasetError::Io { path: "out.mat".into(), source: std::io::Error::other("disk full") })
                }
            });
            let _ = done_tx.send(outcome.map(|_| ()).map_err(|e| e.to_string()));
        });
        let outcome = done_rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("--threads {threads}: extraction hung after its output failed"));
        let message = outcome.expect_err("the output error is returned");
        assert!(message.contains("disk full"), "--threads {threads}: {message}");
    }
}

/// Match runners' `{+0.54/12 0.2s}` comments are the mover's view: the
/// labels come out from white's side, also when a FEN start has black to
/// move, and a move without such a comment has none.
#[test]
fn match_runner_scores_become_white_view_labels() {
    let text = r#"[Event "m"]
[Result "1-0"]

1. e4 {book} 1... e5 {-0.30/9 0.1s} 2. Nf3 {+0.45/10 0.2s} 2... Nc6 {-M3/5} 3. Bb5 {a comment} 1-0

[Event "m"]
[Result "0-1"]
[FEN "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1"]
[SetUp "1"]

1... Kd7 {+0.25/7} 2. Kd2 {+1.50/8} 0-1
"#;
    let filter = FilterConfig { quiet_plies: 0, emit: EmitMode::All, ..FilterConfig::default() };
    let config = ExtractConfig { filter, labels: true, ..ExtractConfig::default() };
    let (_, rows) = extract_all(&[memory("m.pgn", text)], &config);
    let labels: Vec<(u64, u32, Option<f32>)> =
        (0..rows.plies.len()).map(|r| (rows.games[r], rows.plies[r], Some(rows.evals[r]).filter(|e| !e.is_nan()))).collect();
    let mate = pgntune::pgn::labels::MATE_LABEL;
    assert_eq!(
        labels,
        vec![(0, 1, None), (0, 2, Some(30.0)), (0, 3, Some(45.0)), (0, 4, Some(mate)), (0, 5, None), (1, 1, Some(-25.0)), (1, 2, Some(150.0)),]
    );
}
