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
