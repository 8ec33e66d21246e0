//! pgntune's integration tests: one test binary, a module per topic, so the
//! (large) library is linked once.

mod analyze;
mod common;
mod engine;
mod eval_attacks;
mod evaluation;
mod external;
mod extract_cli;
mod extract_edge;
mod extract_fuzz;
mod extract_rows;
mod faults;
mod features_imbalance;
mod features_pawns_rooks;
mod fit;
mod guide;
mod imbalance;
mod interfaces;
mod json_keys;
mod label;
mod layers;
mod notebooks;
mod play;
mod proof;
mod scale;
mod spark;
mod trace;
mod tune;
