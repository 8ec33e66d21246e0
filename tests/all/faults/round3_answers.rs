//! Issue 33: silent wrong answers (S2, S8, S9 and the smaller ones), one
//! test per finding, named after its id.

use std::path::Path;

use super::*;

#[test]
fn small_a_file_named_like_a_preset_is_ambiguous() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "flat",
        "format = 2\nname = \"mine\"\nfeatures = [\"material\"]\nscale = 1.0\n\n[weights]\nP = 100\nN = 320\nB = 330\nR = 500\nQ = 950\n",
    );
    let message = fails_untouched(d, pgntune_in(d).args(["weights", "show", "flat"]), "'flat' is both a preset and a file");
    assert!(message.contains("./flat"), "{message}");
    assert!(stdout_of(pgntune_in(d).args(["weights", "show", "./flat"])).contains("950"));
    // Elsewhere the preset is the preset.
    assert!(stdout_of(pgntune().args(["weights", "show", "flat"])).contains("100"));
}
