//! Every notebook in notebooks/ runs headless without a failing cell.

use std::process::Command;

use crate::common::*;

#[test]
#[ignore = "needs ../shared/data and the notebooks' Python packages"]
fn every_notebook_runs() {
    shared("pgnlearn/OpenRating.pgn");
    let ready = Command::new("python3").args(["-c", "import nbclient, polars, matplotlib, ipykernel"]).output().is_ok_and(|o| o.status.success());
    needs(ready.then_some(()), "the notebooks' Python packages", "pip install -r notebooks/requirements.txt");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("python3")
        .current_dir(root)
        .arg("notebooks/run_notebooks.py")
        .arg("--pgntune")
        .arg(assert_cmd::cargo::cargo_bin("pgntune"))
        .arg("--require-data")
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{text}");
    assert!(text.contains("notebooks: 5 passed, 0 failed"), "{text}");
}
