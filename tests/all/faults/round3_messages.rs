//! Issue 33: messages (items 2 to 7), one test per item, named after it.

use super::*;

#[test]
fn m2_subcommand_man_pages_are_reachable_with_their_names() {
    let weights = stdout_of(pgntune().args(["man", "weights"]));
    assert!(weights.contains("pgntune\\-weights\\-show(1)") || weights.contains("pgntune-weights-show(1)"), "{weights}");
    let header = weights.lines().find(|l| l.starts_with(".TH")).unwrap().to_string();
    assert!(header.contains("\"pgntune-weights 0.") || header.contains("\"pgntune\\-weights 0."), "{header}");
    let show = stdout_of(pgntune().args(["man", "weights", "show"]));
    let header = show.lines().find(|l| l.starts_with(".TH")).unwrap().to_string();
    assert!(header.starts_with(".TH pgntune-weights-show ") || header.starts_with(".TH pgntune\\-weights\\-show "), "{header}");
    assert!(show.contains("WEIGHTS"), "{show}");
    fails(pgntune().args(["man", "weights", "nonsense"]), "'nonsense' is not a command of 'pgntune weights'");
    fails(pgntune().args(["man", "nonsense"]), "'nonsense' is not a pgntune command");
}

#[test]
fn m3_weights_plot_makes_its_folder_as_its_help_says() {
    let help = stdout_of(pgntune().args(["weights", "plot", "--help"]));
    assert!(!help.contains("(it must exist)") && help.contains("made if it does not exist"), "{help}");
    let dir = tempfile::tempdir().unwrap();
    pgntune_in(dir.path()).args(["weights", "plot", "full", "figs"]).assert().success();
    assert!(dir.path().join("figs").is_dir());
}
