//! Counts in messages: "1 game", "2 games". Reports are read by people,
//! and "1 pairs" or "after 1 iterations" reads as a bug.

/// `n` and the noun in the number `n` asks for: `count(1, "game", "games")`
/// is "1 game", `count(0, ...)` "0 games".
pub fn count(n: impl Into<u128>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(count(1u64, "game", "games"), "1 game");
        assert_eq!(count(0u32, "game", "games"), "0 games");
        assert_eq!(count(2usize as u64, "loss", "losses"), "2 losses");
        assert_eq!(count(1u8, "loss", "losses"), "1 loss");
    }
}
