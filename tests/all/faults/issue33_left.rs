//! What issue 33's third round left open: `-` as a dataset input and as
//! the tuner's outputs, and files in formats with no room for a mark
//! (figures, pgnlearn's `.mat`, CSV) replaced without `--force`. Named
//! `left_...` after the list.

use super::*;

/// The bundled sample as `g.pgn`, and its CSV dataset (material, so the
/// dense fitter) in `d`.
fn csv_rows(d: &Path) -> PathBuf {
    std::fs::copy(bundled_sample(), d.join("g.pgn.zst")).unwrap();
    pgntune_in(d).args(["extract", "g.pgn.zst", "-q", "-o", "rows.csv"]).assert().success();
    d.join("rows.csv")
}

/// Runs `cmd` with `input` on standard input, expecting success; its standard output and error.
fn piped(cmd: &mut assert_cmd::Command, input: &Path) -> (String, String) {
    let output = cmd.pipe_stdin(input).unwrap().assert().success().get_output().clone();
    (String::from_utf8(output.stdout).unwrap(), String::from_utf8(output.stderr).unwrap())
}

#[test]
fn left_dash_reads_a_dataset_from_standard_input_in_fit_evaluate_and_label() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let csv = csv_rows(d);
    pgntune_in(d).args(["extract", "g.pgn.zst", "-q", "--features", "material_tapered,pst", "-o", "rows.parquet"]).assert().success();
    pgntune_in(d).args(["extract", "g.pgn.zst", "-q", "--features", "material_tapered,pst", "--sample", "1", "-o", "rows.epd"]).assert().success();
    // The same report from the file and from a pipe, whatever the format
    // (Parquet needs seeking: the pipe is copied to a file first).
    for (name, args) in
        [("rows.csv", &["fit", "--json"][..]), ("rows.parquet", &["fit", "--json", "--iters", "3"]), ("rows.epd", &["fit", "--json", "--iters", "3"])]
    {
        let from_file = stdout_of(pgntune_in(d).args(args).arg(name));
        let (from_pipe, _) = piped(pgntune_in(d).args(args).arg("-"), &d.join(name));
        // The fitted values: the dense fitter's `values`, the tuner's `columns`.
        let strip = |text: &str| {
            let json: serde_json::Value = serde_json::from_str(text).unwrap();
            json.get("values").or(json.get("columns")).cloned().unwrap_or_default()
        };
        assert_eq!(strip(&from_pipe), strip(&from_file), "{name}");
        assert!(!strip(&from_file).is_null(), "{from_file}");
    }
    let evaluate =
        |input: &str| pgntune_in(d).args(["evaluate", input, "--weights", "classical", "--json"]).pipe_stdin(&csv).unwrap().output().unwrap();
    assert_eq!(evaluate("-").stdout, evaluate("rows.csv").stdout);
    // label: the same labelled rows.
    pgntune_in(d).args(["label", "rows.epd", "--depth", "1", "-q", "-o", "a.epd"]).assert().success();
    piped(pgntune_in(d).args(["label", "-", "--depth", "1", "-q", "-o", "b.epd"]), &d.join("rows.epd"));
    assert_eq!(std::fs::read(d.join("a.epd")).unwrap(), std::fs::read(d.join("b.epd")).unwrap());
    // No copy is left in the temporary folder, and errors name standard input.
    let tmp = tempfile::tempdir().unwrap();
    let bad = write(d, "bad.csv", "P,N,B,R,Q,result,game,ply\n1,0,0,0,0,x,0,3\n");
    let message = fails(pgntune_in(d).env("TMPDIR", tmp.path()).arg("fit").arg("-").pipe_stdin(&bad).unwrap(), "standard input: line 2");
    assert!(!message.contains("/tmp"), "{message}");
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0, "the copy of standard input was left behind");
    // Bad standard input: one line each.
    let empty = write(d, "empty", "");
    let binary = write(d, "binary", noise(5000, 7));
    let pgn = write(d, "g.pgn", GAMES);
    fails(pgntune_in(d).args(["fit", "-"]).pipe_stdin(&empty).unwrap(), "standard input: is empty");
    fails(pgntune_in(d).args(["fit", "-"]).pipe_stdin(&binary).unwrap(), "cannot tell the dataset's format");
    fails(pgntune_in(d).args(["evaluate", "-", "--weights", "classical"]).pipe_stdin(&pgn).unwrap(), "looks like PGN games");
    fails(pgntune_in(d).args(["fit", "-", "-"]).pipe_stdin(&csv).unwrap(), "standard input is named 2 times");
    // A bad output is refused before standard input is read (a pipe cannot be read twice).
    fails_untouched(d, pgntune_in(d).args(["fit", "-", "--weights-out", "no/such/w.toml"]).pipe_stdin(&csv).unwrap(), "does not exist");
}

#[test]
fn left_dash_writes_weights_trace_and_code_to_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    csv_rows(d);
    pgntune_in(d).args(["fit", "rows.csv", "-q", "--weights-out", "w.toml", "--trace", "t.csv"]).assert().success();
    let output = pgntune_in(d).args(["fit", "rows.csv", "--weights-out", "-"]).assert().success().get_output().clone();
    let (weights, report) = (String::from_utf8(output.stdout).unwrap(), String::from_utf8(output.stderr).unwrap());
    // Standard output holds the weights alone (named after the dataset, as
    // without --weights-out); the report went to standard error.
    assert!(weights.starts_with("# pgntune weights"), "{weights}");
    assert_eq!(weights.replace("name = \"rows\"", "name = \"w\""), std::fs::read_to_string(d.join("w.toml")).unwrap());
    assert!(report.contains("loss:"), "{report}");
    let trace = stdout_of(pgntune_in(d).args(["fit", "rows.csv", "--trace", "-"]));
    assert_eq!(trace, std::fs::read_to_string(d.join("t.csv")).unwrap());
    // The whole-evaluation tuner, and --emit-out.
    pgntune_in(d).args(["extract", "g.pgn.zst", "-q", "--features", "material_tapered,pst", "--sample", "1", "-o", "rows.epd"]).assert().success();
    let tuned = stdout_of(pgntune_in(d).args(["fit", "rows.epd", "-q", "--iters", "3", "--weights-out", "-"]));
    assert!(tuned.starts_with("# pgntune weights") && tuned.contains("features = [\"material_tapered\", \"pst\""), "{tuned}");
    let code = stdout_of(pgntune_in(d).args(["fit", "rows.epd", "-q", "--iters", "3", "--emit-code", "c", "--emit-out", "-"]));
    assert!(code.contains("written by pgntune") && code.contains("MATERIAL_TAPERED"), "{code}");
    // Standard output holds one file.
    fails_untouched(d, pgntune_in(d).args(["fit", "rows.csv", "--weights-out", "-", "--trace", "-"]), "standard output already takes a weights file");
}

#[test]
fn left_openings_reads_games_from_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pgn = write(d, "g.pgn", GAMES.repeat(3));
    pgntune_in(d).args(["openings", "g.pgn", "--plies", "4", "-q", "--out", "a.epd"]).assert().success();
    let (suite, _) = piped(pgntune_in(d).args(["openings", "-", "--plies", "4", "-q", "--out", "-"]), &pgn);
    assert_eq!(suite, std::fs::read_to_string(d.join("a.epd")).unwrap());
    fails(pgntune_in(d).args(["openings", "-", "-", "--out", "b.epd"]).pipe_stdin(&pgn).unwrap(), "standard input is named more than once");
}

#[test]
fn left_figures_in_a_plot_folder_that_pgntune_did_not_draw_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("figs")).unwrap();
    // The user's own pictures under the names pgntune would draw.
    write(d, "figs/pst_mg.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR mine");
    fails_untouched(d, pgntune_in(d).args(["weights", "plot", "full", "figs"]), "is not a figure written by pgntune");
    std::fs::remove_file(d.join("figs/pst_mg.png")).unwrap();
    write(d, "figs/pst_eg.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"><text>mine</text></svg>");
    fails_untouched(d, pgntune_in(d).args(["weights", "plot", "full", "figs"]), "figs/pst_eg.svg: exists and is not a figure");
    // --force replaces them; then pgntune's own figures are replaced without it.
    pgntune_in(d).args(["weights", "plot", "full", "figs", "--force"]).assert().success();
    pgntune_in(d).args(["weights", "plot", "full", "figs"]).assert().success();
    let png = std::fs::read(d.join("figs/pst_mg.png")).unwrap();
    let svg = std::fs::read_to_string(d.join("figs/pst_mg.svg")).unwrap();
    assert!(png.windows(20).any(|w| w == b"tEXtSoftware\0pgntune"), "the PNG carries pgntune's name");
    assert!(svg.starts_with("<!-- drawn by pgntune -->\n<svg"), "{}", &svg[..80]);
}

#[test]
fn left_pgnlearn_mat_and_a_hand_written_csv_are_kept_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "g.pgn", GAMES.repeat(5));
    // pgnlearn's own matrix, and a CSV written by hand in pgntune's columns:
    // nothing in either says who wrote it.
    write(d, "pgnlearn.mat", " 1  0  0  0  0  2\n-1  0  0  0  0  0\n");
    write(d, "mine.csv", "P,N,B,R,Q,result,game,ply\n1,0,0,0,0,1,0,3\n");
    write(d, "mine.tsv", "P\tN\tB\tR\tQ\tresult\tgame\tply\n1\t0\t0\t0\t0\t1\t0\t3\n");
    for (out, kind) in [("pgnlearn.mat", "a .mat dataset"), ("mine.csv", "a CSV dataset"), ("mine.tsv", "a TSV dataset")] {
        fails_untouched(d, pgntune_in(d).args(["extract", "g.pgn", "-q", "-o", out]), &format!("exists and is not {kind} written by pgntune"));
    }
    write(d, "table.csv", "balance,rows,points,score\n0,1,1,1.0\n");
    fails_untouched(d, pgntune_in(d).args(["extract", "g.pgn", "-q", "-o", "x.mat", "--score-table", "table.csv"]), "not a score table");
    // What pgntune wrote it replaces again without --force; a copy of it
    // (cp keeps no mark) is the user's.
    for out in ["rows.mat", "rows.csv", "rows.tsv"] {
        pgntune_in(d).args(["extract", "g.pgn", "-q", "-o", out]).assert().success();
        pgntune_in(d).args(["extract", "g.pgn", "-q", "-o", out]).assert().success();
    }
    std::fs::copy(d.join("rows.csv"), d.join("copy.csv")).unwrap();
    fails_untouched(d, pgntune_in(d).args(["extract", "g.pgn", "-q", "-o", "copy.csv"]), "exists and is not a CSV dataset");
    pgntune_in(d).args(["extract", "g.pgn", "-q", "-o", "mine.csv", "--force"]).assert().success();
}

#[test]
fn left_a_binary_dataset_is_called_not_text_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bytes = noise(5000, 11);
    write(d, "bin.epd", &bytes);
    write(d, "bin.csv", &bytes);
    // label reads positions; fit and evaluate read rows: the same words.
    fails_untouched(d, pgntune_in(d).args(["label", "bin.epd", "--depth", "1", "-o", "o.epd"]), "bin.epd: line 1: not text (UTF-8)");
    fails_untouched(d, pgntune_in(d).args(["label", "bin.csv", "--depth", "1", "-o", "o.csv"]), "bin.csv: line 1: not text (UTF-8)");
    fails_untouched(d, pgntune_in(d).args(["fit", "bin.csv"]), "bin.csv: line 1: not text (UTF-8)");
    fails_untouched(d, pgntune_in(d).args(["evaluate", "bin.epd", "--weights", "full"]), "bin.epd: line 1: not text (UTF-8)");
}

#[test]
fn left_dash_reads_weights_from_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let csv = csv_rows(d);
    pgntune_in(d).args(["fit", "rows.csv", "-q", "--weights-out", "w.toml"]).assert().success();
    let w = d.join("w.toml");
    // weights show, evaluate --weights, a match engine's weights: the file and the pipe agree.
    let (shown, _) = piped(pgntune_in(d).args(["weights", "show", "-"]), &w);
    assert_eq!(shown, stdout_of(pgntune_in(d).args(["weights", "show", "w.toml"])));
    let (piped_eval, _) = piped(pgntune_in(d).args(["evaluate", "rows.csv", "--weights", "-", "--json"]), &w);
    let file_eval = stdout_of(pgntune_in(d).args(["evaluate", "rows.csv", "--weights", "w.toml", "--json"]));
    let loss = |t: &str| serde_json::from_str::<serde_json::Value>(t).unwrap()["log_loss"].clone();
    assert_eq!(loss(&piped_eval), loss(&file_eval));
    assert!(!loss(&file_eval).is_null(), "{file_eval}");
    // Bad weights on standard input: one line naming it.
    let empty = write(d, "empty", "");
    fails(pgntune_in(d).args(["weights", "show", "-"]).pipe_stdin(&empty).unwrap(), "standard input: is empty");
    fails(pgntune_in(d).args(["weights", "show", "-"]).pipe_stdin(&csv).unwrap(), "standard input: not a weights file");
}
