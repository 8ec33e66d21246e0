//! Every notebook in notebooks/ runs headless without a failing cell.

use std::process::Command;

use crate::common::*;

#[test]
fn every_notebook_runs() {
    if shared("pgnlearn/OpenRating.pgn").is_none() {
        return;
    }
    let ready = Command::new("python3").args(["-c", "import nbclient, polars, matplotlib, ipykernel"]).output().is_ok_and(|o| o.status.success());
    if !ready {
        if required("PGNTUNE_REQUIRE_TOOLS") {
            panic!("the notebooks' Python packages are missing: pip install -r notebooks/requirements.txt");
        }
        eprintln!("SKIPPED: the notebooks' Python packages are not installed (pip install -r notebooks/requirements.txt)");
        return;
    }
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
    assert!(text.contains("notebooks: 4 passed, 0 failed"), "{text}");
}
