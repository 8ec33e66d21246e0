//! Mutated weights files and match states must be refused (exit 2) or used
//! correctly: never a panic, never exit 0 with numbers other than the
//! file's. (Mutated PGN is fuzzed in extract_fuzz.rs.)

use std::path::Path;
use std::sync::OnceLock;

use proptest::prelude::*;

use super::*;

const SEED_TOML: &str = "# pgntune weights\nformat = 1\nname = \"w\"\nfeatures = [\"material\"]\nscale = 1.0\n\n[weights]\nP = 100.0\nN = 300.0\nB = 310.0\nR = 500.0\nQ = 900.0\n";
const SEED_JSON: &str = "{\n  \"format\": 1,\n  \"name\": \"w\",\n  \"features\": [\"material\"],\n  \"scale\": 1.0,\n  \"weights\": {\"P\": 100.0, \"N\": 300.0, \"B\": 310.0, \"R\": 500.0, \"Q\": 900.0}\n}\n";

/// Lines a weights file might get instead of one of its own.
const LINES: &[&str] = &[
    "",
    "P = 1e300",
    "N = -3",
    "B = 0",
    "default = 50",
    "default = -1",
    "scale = 0",
    "scale = -1",
    "scale = 1e-9",
    "Q = nan",
    "R = inf",
    "features = [\"material\", \"pst\"]",
    "features = []",
    "format = 2",
    "K = 1",
    "[weights]",
    "intercept = 1e308",
    "N = \"300\"",
];

/// One change to a text: a line replaced, or bytes cut, inserted or changed.
#[derive(Clone, Debug)]
enum Edit {
    Line(usize, usize),
    Number(usize, f64),
    Cut(usize, usize),
    Insert(usize, u8),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (0..20usize, 0..LINES.len()).prop_map(|(l, r)| Edit::Line(l, r)),
        (0..20usize, prop_oneof![any::<f64>(), -2000.0..20_000.0f64]).prop_map(|(l, v)| Edit::Number(l, v)),
        (0..400usize, 0..30usize).prop_map(|(a, n)| Edit::Cut(a, n)),
        (0..400usize, prop_oneof![Just(b'"'), Just(b'='), Just(b','), Just(b'}'), Just(b'\n'), Just(b'9'), any::<u8>()])
            .prop_map(|(a, b)| Edit::Insert(a, b)),
    ]
}

fn apply(text: &str, edits: &[Edit]) -> Vec<u8> {
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let mut bytes;
    for e in edits {
        match e {
            Edit::Line(l, r) => {
                let i = l % lines.len().max(1);
                if lines.is_empty() {
                    lines.push(LINES[*r].to_string());
                } else {
                    lines[i] = LINES[*r].to_string();
                }
            }
            Edit::Number(l, v) => {
                // The number on a line (TOML `X = n`, or a JSON value), replaced.
                if let Some(line) = lines.get_mut(l % text.lines().count()) {
                    let digits: String = line.chars().filter(|c| c.is_ascii_digit() || *c == '.').collect();
                    if !digits.is_empty() && !digits.chars().all(|c| c == '.') {
                        *line = line.replacen(&digits, &format!("{v:?}"), 1);
                    }
                }
            }
            Edit::Cut(..) | Edit::Insert(..) => {}
        }
    }
    bytes = lines.join("\n").into_bytes();
    bytes.push(b'\n');
    for e in edits {
        let len = bytes.len();
        match e {
            Edit::Cut(a, n) => {
                let a = (*a).min(len);
                bytes.drain(a..(a + n).min(len));
            }
            Edit::Insert(a, b) => bytes.insert((*a).min(len), *b),
            _ => {}
        }
    }
    bytes
}

/// What the file says a material column weighs, in centipawns, read
/// independently of pgntune's loader.
fn centipawns_in_file(text: &str, json: bool, column: &str) -> Option<f64> {
    let value: serde_json::Value =
        if json { serde_json::from_str(text).ok()? } else { serde_json::to_value(toml::from_str::<toml::Value>(text).ok()?).ok()? };
    let scale = value["scale"].as_f64()?;
    let weight = value["weights"][column].as_f64().or_else(|| value["default"].as_f64())?;
    Some(scale * weight)
}

const FEN: &str = "4k3/8/8/8/8/8/8/1N2K3 w - - 0 1";

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn mutated_weights_are_refused_or_read_exactly(json in any::<bool>(), edits in proptest::collection::vec(edit(), 1..4)) {
        let dir = tempfile::tempdir().unwrap();
        let seed = if json { SEED_JSON } else { SEED_TOML };
        let bytes = apply(seed, &edits);
        let path = dir.path().join(if json { "w.json" } else { "w.toml" });
        std::fs::write(&path, &bytes).unwrap();
        let text = String::from_utf8_lossy(&bytes).into_owned();
        match pgntune::weights::Weights::load(&path) {
            Err(e) => prop_assert!(!e.to_string().contains('\n'), "a message on one line: {e}"),
            Ok(w) => {
                for column in ["P", "N", "B", "R", "Q"] {
                    let cp = w.centipawns(column);
                    prop_assert!(cp > 0.0 && cp <= pgntune::weights::MAX_CENTIPAWNS, "{column} = {cp} accepted:\n{text}");
                    prop_assert_eq!(Some(cp), centipawns_in_file(&text, json, column), "{} differs from the file:\n{}", column, text);
                }
                prop_assert!(pgntune::engine::Evaluator::new(&w).is_ok());
            }
        }
        // The binary agrees: exit 2 with one line, or the file's knight.
        let out = pgntune().current_dir(dir.path()).args(["eval", FEN, "-w"]).arg(&path).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        match out.status.code() {
            Some(2) => prop_assert!(stderr.lines().count() == 1 && stderr.starts_with("pgntune: error: "), "{stderr}"),
            Some(0) => {
                let stdout = String::from_utf8_lossy(&out.stdout);
                let knight = stdout.lines().find(|l| l.starts_with("N ")).and_then(|l| l.split_whitespace().nth(2)).and_then(|v| v.parse::<f64>().ok());
                let expected = centipawns_in_file(&text, json, "N").unwrap();
                prop_assert!(knight.is_some_and(|k| (k - expected).abs() < 0.006), "eval shows {knight:?}, the file says {expected}:\n{text}");
            }
            other => prop_assert!(false, "exit {other:?}: {stderr}"),
        }
    }
}

/// A match interrupted after 3 of its 6 games: its state and PGN texts.
fn interrupted_match() -> &'static (String, Vec<u8>) {
    static MATCH: OnceLock<(String, Vec<u8>)> = OnceLock::new();
    MATCH.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let args: Vec<String> = [
            "match",
            "--engine",
            "name=a weights=classical",
            "--engine",
            "name=b weights=kaissa",
            "--nodes",
            "150",
            "-q",
            "--pairs",
            "3",
            "--pgn-out",
            "m.pgn",
        ]
        .map(String::from)
        .to_vec();
        pgntune_in(dir.path()).args(args).assert().success();
        let state = dir.path().join("m.pgn.state.json");
        roll_back(&state, 3);
        (std::fs::read_to_string(&state).unwrap(), std::fs::read(dir.path().join("m.pgn")).unwrap())
    })
}

/// Every leaf of a JSON value, as a path of keys and indices.
fn leaves(value: &serde_json::Value, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match value {
        serde_json::Value::Object(map) => map.iter().for_each(|(k, v)| {
            path.push(k.clone());
            leaves(v, path, out);
            path.pop();
        }),
        serde_json::Value::Array(items) => items.iter().enumerate().for_each(|(i, v)| {
            path.push(i.to_string());
            leaves(v, path, out);
            path.pop();
        }),
        _ => out.push(path.clone()),
    }
}

fn at<'a>(value: &'a mut serde_json::Value, path: &[String]) -> &'a mut serde_json::Value {
    path.iter().fold(value, |v, key| match v {
        serde_json::Value::Array(items) => &mut items[key.parse::<usize>().unwrap()],
        _ => &mut v[key.as_str()],
    })
}

/// The first engine's wins, draws and losses in a match PGN (it has white in the first game of each round).
fn results_in(pgn: &str) -> (u64, u64, u64) {
    let mut wdl = (0, 0, 0);
    for game in split_games(pgn) {
        let tag = |name: &str| game.split(&format!("[{name} \"")).nth(1).and_then(|t| t.split('"').next()).unwrap_or("");
        let first_white = tag("Round").ends_with(".1");
        match (tag("Result"), first_white) {
            ("1/2-1/2", _) => wdl.1 += 1,
            ("1-0", true) | ("0-1", false) => wdl.0 += 1,
            _ => wdl.2 += 1,
        }
    }
    wdl
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn mutated_states_are_refused_or_resumed_with_the_right_numbers(leaf in any::<usize>(), kind in 0..9u8, number in any::<i64>(), cut in proptest::option::of((0..2000usize, 0..20usize))) {
        let (state_text, pgn) = interrupted_match();
        let mut state: serde_json::Value = serde_json::from_str(state_text).unwrap();
        let mut all = Vec::new();
        leaves(&state, &mut Vec::new(), &mut all);
        let path = &all[leaf % all.len()];
        // A huge node or time limit is a valid state that would only take long.
        prop_assume!(!path.iter().any(|k| k == "limits") || matches!(kind, 0 | 2 | 3 | 5 | 6 | 7));
        *at(&mut state, path) = match kind {
            0 => serde_json::Value::Null,
            1 => number.into(),
            2 => (number % 10).into(),
            3 => (number.unsigned_abs() % 10).into(),
            4 => (number as f64 / 7.0).into(),
            5 => format!("x{number}").into(),
            6 => true.into(),
            7 => serde_json::json!([]),
            _ => u64::MAX.into(),
        };
        let mut bytes = serde_json::to_vec(&state).unwrap();
        if let Some((a, n)) = cut {
            let a = a.min(bytes.len());
            bytes.drain(a..(a + n).min(bytes.len()));
        }
        let dir = tempfile::tempdir().unwrap();
        let d: &Path = dir.path();
        std::fs::write(d.join("m.pgn.state.json"), &bytes).unwrap();
        std::fs::write(d.join("m.pgn"), pgn).unwrap();
        let out = pgntune_in(d).args(["match", "-q", "-j", "1", "--resume", "m.pgn.state.json"]).timeout(std::time::Duration::from_secs(120)).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        match out.status.code() {
            Some(2) => prop_assert!(stderr.lines().count() == 1 && stderr.starts_with("pgntune: error: "), "{path:?}: {stderr}"),
            Some(0) => {
                // The report's numbers are the PGN's.
                let report = String::from_utf8_lossy(&out.stdout);
                let games = std::fs::read_to_string(d.join("m.pgn")).unwrap();
                let (w, dr, l) = results_in(&games);
                let expected = format!("Games {}: W {w}, D {dr}, L {l} ", w + dr + l);
                prop_assert!(report.contains(&expected), "{path:?}: the report\n{report}\ndoes not match the PGN ({expected})");
            }
            other => prop_assert!(false, "{path:?}: exit {other:?}: {stderr}"),
        }
    }
}
