//! From PGN text to rows: opening inputs, reading games, replaying them
//! legally, filtering quiet positions and extracting feature rows in
//! parallel, in input order; and cutting collections into shards of whole
//! games ([`split`]) for a cluster.

pub mod extract;
pub mod filter;
pub mod input;
pub mod labels;
pub mod record;
pub mod replay;
pub mod split;

pub use extract::{BadGames, ExtractConfig, ExtractError, ExtractStats, Problem, UnknownResult, extract};
pub use filter::{EmitMode, FilterConfig, ResetEvents};
pub use input::InputSource;

/// Decodes a tag value: UTF-8 when it is valid UTF-8, else Latin-1 (ISO
/// 8859-1), which is what older PGN files use for accented names.
pub fn decode_text(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => bytes.iter().map(|&b| b as char).collect(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn latin1_fallback() {
        assert_eq!(super::decode_text(b"Caf\xe9"), "Café");
        assert_eq!(super::decode_text("Café".as_bytes()), "Café");
    }
}
