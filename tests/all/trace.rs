//! Traces of any engine's terms (issue 35): pgntune's own layout written as
//! a trace tunes to the weights of its internal rows; the example engine's
//! trace tunes and emits code; bad traces are refused with one line.

use std::path::Path;
use std::process::Command;

use polars::io::parquet::write::KeyValueMetadata;
use polars::prelude::*;

use crate::common::*;
use crate::faults::pgntune_in;
use pgntune::dataset::load::{LoadOptions, load_positions};
use pgntune::dataset::trace::{write_parquet_trace, write_trace};
use pgntune::features::FeatureLayout;
use pgntune::fit::sparse::columns::prior_for;
use pgntune::fit::sparse::constraints::Freedom;

#[allow(dead_code)]
#[path = "../../examples/trace_engine.rs"]
mod trace_engine;

/// The example engine's trace of three positions per game of the bundled
/// sample, as `d/engine.trace`.
fn write_engine_trace(d: &Path) {
    pgntune_in(d).arg("extract").arg(bundled_sample()).args(["-q", "--sample", "3", "-o", "pos.epd"]).assert().success();
    let mut trace = Vec::new();
    trace_engine::write_trace(&std::fs::read_to_string(d.join("pos.epd")).unwrap(), &mut trace).unwrap();
    std::fs::write(d.join("engine.trace"), &trace).unwrap();
}

/// Column name → tuned value of a `fit --json` report.
fn values(json: &str) -> Vec<(String, f64)> {
    let report: serde_json::Value = serde_json::from_str(json).unwrap();
    report["columns"].as_array().unwrap().iter().map(|c| (c["name"].as_str().unwrap().to_string(), c["value"].as_f64().unwrap())).collect()
}

fn fit_json(dir: &Path, dataset: &str, extra: &[&str]) -> String {
    stdout_of(pgntune_in(dir).args(["fit", dataset, "-q", "--json", "--iters", "25", "--holdout", "0.2", "--lambda", "1e-5", "-j", "2"]).args(extra))
}

/// The round trip of the issue: the rows of the `full` layout, written as
/// a trace with the engine's hand-set values in its header, tune to the
/// weights the internal rows tune to (the same K, holdout and iterations),
/// and so does the same trace written as Parquet.
#[test]
fn a_trace_of_the_full_layout_text_or_parquet_tunes_to_the_weights_of_the_internal_rows() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    pgntune_in(d)
        .arg("extract")
        .arg(bundled_sample())
        .args(["-q", "--features", "full", "--positions", "plies", "--sample", "4", "-o", "rows.svm"])
        .assert()
        .success();
    let options = LoadOptions { epd_layout: FeatureLayout::full(), strict: true };
    let (positions, _) = load_positions(&[d.join("rows.svm")], &options).unwrap();
    assert!(positions.len() > 5000, "{} positions", positions.len());
    let layout = positions.layout();
    let start = prior_for(layout, None).unwrap();
    // The sums the tuner holds for the full layout (levels of tables beside
    // material), declared in the trace's header as an engine would.
    let freedom = Freedom::new(layout, vec![true; layout.len()], &vec![false; layout.len()]);
    let held: Vec<(String, Vec<usize>)> = freedom.held.iter().map(|h| (h.name.clone(), h.columns.clone())).collect();
    assert!(!held.is_empty());
    write_trace(&positions, &start, &held, &d.join("rows.trace")).unwrap();
    // The same trace in Parquet (told by its metadata, not its name).
    write_parquet_trace(&positions, &start, &held, &d.join("rows.pq")).unwrap();
    let internal = values(&fit_json(d, "rows.svm", &[]));
    for (file, extra) in [("rows.trace", &["--weights-out", "traced.toml"][..]), ("rows.pq", &[][..])] {
        let traced = values(&fit_json(d, file, extra));
        assert_eq!(internal.len(), traced.len(), "{file}");
        let traced: std::collections::HashMap<String, f64> = traced.into_iter().collect();
        let mut moved = 0;
        for (name, value) in &internal {
            let other = traced[name];
            assert!((value - other).abs() <= 1e-9, "{name}: internal {value}, {file} {other}");
            moved += usize::from(value != &start[0]);
        }
        assert!(moved > 100, "{file}");
    }
    // The weights of the trace's terms are a prior (and a start) for a second fit of it.
    let again = values(&fit_json(d, "rows.trace", &["--prior", "traced.toml", "--freeze", "P,mg_Q"]));
    assert_eq!(again.len(), internal.len());
    let weights = std::fs::read_to_string(d.join("traced.toml")).unwrap();
    assert!(weights.contains("features = [\"trace\", \"P tapered\""), "{}", &weights[..300]);
}

/// The example engine's trace tunes, and its tuned terms come out as code
/// with the engine's own names.
#[test]
fn the_example_engines_trace_tunes_and_emits_code() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_engine_trace(d);
    for (language, wanted) in [("rust", "pub const BISHOP_PAIR: (i32, i32) = ("), ("c", "static const int TEMPO = "), ("json", "\"bishop_pair\": [")]
    {
        let out = format!("tuned.{language}");
        let report = stdout_of(pgntune_in(d).args(["fit", "engine.trace", "-q", "--holdout", "0.1", "--emit-code", language, "--emit-out", &out]));
        assert!(report.contains("Tuned 13 of the 13 columns of 'trace'"), "{report}");
        let code = std::fs::read_to_string(d.join(&out)).unwrap();
        assert!(code.contains(wanted), "{code}");
    }
    pgntune_in(d).args(["fit", "engine.trace", "-q", "--weights-out", "tuned.toml"]).assert().success();
    let shown = stdout_of(pgntune_in(d).args(["weights", "show", "tuned.toml"]));
    assert!(shown.contains("bishop_pair"), "{shown}");
    let evaluated = stdout_of(pgntune_in(d).args(["evaluate", "engine.trace", "--weights", "tuned.toml"]));
    assert!(evaluated.contains("log-loss"), "{evaluated}");
    // pgntune's engine cannot play another engine's terms: one line, exit 2.
    for args in [vec!["verify", "tuned.toml", "--max-pairs", "2"], vec!["fit", "engine.trace", "--verify", "2"]] {
        let out = pgntune_in(d).args(&args).assert().code(2).get_output().stderr.clone();
        let err = String::from_utf8(out).unwrap();
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains("engine's own terms"), "{args:?}: {err}");
    }
}

/// Each fault of a trace is one clear line and exit 2.
#[test]
fn bad_traces_are_refused_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cases = [
        ("# term a single 1\n1 0 1:1\n", "line 1: no '# pgntune trace' header"),
        ("# pgntune trace\n# term a single 1\n1 0 2:1\n", "line 3: term index 2 is beyond the 1 terms of the header"),
        ("# pgntune trace\n# term a single 1\n# term a tapered 1 2\n1 0\n", "line 4: term 'a' is declared twice"),
        ("# pgntune trace\n# term a taper 1 2\n1 0\n", "line 2: term 'a': mark 'taper' is not 'tapered' or 'single'"),
        ("# pgntune trace\n# term a single ten\n1 0\n", "line 2: term 'a': value 'ten' is not a number"),
        ("# pgntune trace\n# term a single 1\n1 0 1:two\n", "line 3: '1:two': coefficient 'two' is not a whole number"),
        ("# pgntune trace\n# term a single 1\n1 x 1:1\n", "line 3: phase 'x' is not a whole number from 0 to 24"),
    ];
    for (i, (text, wanted)) in cases.iter().enumerate() {
        let name = format!("bad{i}.trace");
        std::fs::write(d.join(&name), text).unwrap();
        let out = pgntune_in(d).args(["fit", &name]).assert().code(2).get_output().stderr.clone();
        let err = String::from_utf8(out).unwrap();
        assert_eq!(err.lines().count(), 1, "{text:?}: {err}");
        assert!(err.contains(&format!("{name}: {wanted}")), "{text:?}: {err}");
    }
}

/// An engine author's Parquet trace, written by Python (polars, as in the
/// README): the example engine's text trace converted by
/// `examples/trace_to_parquet.py` tunes to the text trace's weights.
#[test]
#[ignore = "needs python3 with polars"]
fn a_python_written_parquet_trace_tunes_as_its_text_trace() {
    let found = Command::new("python3").args(["-c", "import polars"]).output().is_ok_and(|o| o.status.success()).then_some("python3");
    let python = needs(found, "python3 with polars", "pip install -r notebooks/requirements.txt");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_engine_trace(d);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/trace_to_parquet.py");
    let out = Command::new(python).arg(script).args(["engine.trace", "engine.parquet"]).current_dir(d).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = values(&fit_json(d, "engine.trace", &[]));
    let parquet = values(&fit_json(d, "engine.parquet", &[]));
    assert_eq!(text.len(), 13);
    assert_eq!(text.len(), parquet.len());
    for ((name, a), (other, b)) in text.iter().zip(&parquet) {
        assert_eq!(name, other);
        assert!((a - b).abs() <= 1e-9, "{name}: text {a}, parquet {b}");
    }
    // Narrow integers (which pgntune's polars is built without): one line, exit 2.
    let narrow = "import polars as pl; pl.DataFrame({'result': [1.0], 'phase': pl.Series([3], dtype=pl.UInt8), 'terms': [[1]], 'coefs': \
        pl.Series([[1]], dtype=pl.List(pl.Int16))}).write_parquet('narrow.parquet', metadata={'pgntune.trace': '# pgntune trace\\n# term a single 1\\n'})";
    let out = Command::new(python).args(["-c", narrow]).current_dir(d).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = pgntune_in(d).args(["fit", "narrow.parquet"]).assert().code(2).get_output().stderr.clone();
    let err = String::from_utf8(out).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("narrow.parquet: column 'phase' holds 8-bit integers: write 32- or 64-bit ones"), "{err}");
}

/// A Parquet file of `columns`, with `header` under `pgntune.trace`.
fn parquet(path: &Path, header: Option<&str>, columns: Vec<Column>) {
    let mut frame = DataFrame::new(columns[0].len(), columns).unwrap();
    let metadata = header.map(|h| KeyValueMetadata::from_static(vec![("pgntune.trace".to_string(), h.to_string())]));
    ParquetWriter::new(std::fs::File::create(path).unwrap()).with_key_value_metadata(metadata).finish(&mut frame).unwrap();
}

fn list(name: &str, rows: &[&[i32]]) -> Column {
    let rows: Vec<Series> = rows.iter().map(|r| Series::new("".into(), *r)).collect();
    Column::new(name.into(), rows)
}

/// Each fault of a Parquet trace is one clear line and exit 2.
#[test]
fn bad_parquet_traces_are_refused_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let header = "# pgntune trace\n# term a single 1\n";
    let rows = |phase: i32, terms: &[i32], coefs: &[i32]| {
        vec![
            Column::new("result".into(), [1.0, 0.5]),
            Column::new("phase".into(), [0, phase]),
            list("terms", &[&[1], terms]),
            list("coefs", &[&[1], coefs]),
        ]
    };
    let without_coefs = rows(0, &[1], &[1]).into_iter().filter(|c| c.name() != "coefs").collect();
    let cases: Vec<(Option<&str>, Vec<Column>, &str)> = vec![
        (None, rows(0, &[1], &[1]), "'terms' and 'coefs' columns without the 'pgntune.trace' metadata"),
        (Some(header), rows(0, &[2], &[1]), "row 2: term index 2 is beyond the 1 terms of the header (they count from 1)"),
        (Some(header), rows(0, &[0], &[1]), "row 2: term index 0 is beyond the 1 terms"),
        (Some(header), rows(25, &[1], &[1]), "row 2: phase 25 is not a whole number from 0 to 24"),
        (Some(header), rows(3, &[1], &[1, 2]), "row 2: 1 term indices but 2 coefficients"),
        (Some(header), rows(3, &[1, 1], &[1, 2]), "row 2: term index 1 is given twice"),
        (Some(header), rows(3, &[1], &[40000]), "row 2: coefficient 40000 is not a whole number from -32768 to 32767"),
        (Some("# pgntune trace\n# term a taper 1 2\n"), rows(0, &[1], &[1]), "metadata 'pgntune.trace' line 2: term 'a': mark 'taper'"),
        (Some("# term a single 1\n"), rows(0, &[1], &[1]), "metadata 'pgntune.trace' line 1: no '# pgntune trace' header"),
        (Some(header), without_coefs, "a trace without the 'coefs' column"),
    ];
    for (i, (header, columns, wanted)) in cases.into_iter().enumerate() {
        let name = format!("bad{i}.parquet");
        parquet(&d.join(&name), header, columns);
        let out = pgntune_in(d).args(["fit", &name]).assert().code(2).get_output().stderr.clone();
        let err = String::from_utf8(out).unwrap();
        assert_eq!(err.lines().count(), 1, "case {i}: {err}");
        assert!(err.contains(&format!("{name}: {wanted}")), "case {i}: {err}");
    }
    // On standard input too (a Parquet trace told by its metadata there as well).
    let out =
        pgntune_in(d).args(["fit", "-"]).write_stdin(std::fs::read(d.join("bad1.parquet")).unwrap()).assert().code(2).get_output().stderr.clone();
    let err = String::from_utf8(out).unwrap();
    assert!(err.contains("standard input: row 2: term index 2 is beyond") && err.lines().count() == 1, "{err}");
}
