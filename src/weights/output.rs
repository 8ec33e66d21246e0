//! The weights file as an output (see [`crate::atomic::Recognise`]).

use std::path::Path;

use crate::atomic::{Recognise, head};

/// A weights file (`--weights-out`), TOML or JSON, as an output: an
/// existing one is replaced without `--force` only when pgntune wrote it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct WeightsOutput;

impl Recognise for WeightsOutput {
    fn describe(&self) -> &'static str {
        "a weights file"
    }

    fn recognises(&self, path: &Path) -> bool {
        let Ok(head) = head(path) else { return false };
        head.starts_with(b"# pgntune weights") || is_json_weights(path)
    }
}

fn is_json_weights(path: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(path) else { return false };
    let Ok(serde_json::Value::Object(map)) = serde_json::from_str::<serde_json::Value>(&text) else { return false };
    // The mark pgntune writes, not just the keys: a user's hand-written
    // weights in pgntune's format are the user's.
    map.get("written_by").and_then(|v| v.as_str()) == Some(super::JSON_MARK)
}
