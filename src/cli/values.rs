//! Parsers for numeric option values that say the allowed range.
//!
//! clap's own integer parsers answer `-1` with "invalid digit found in
//! string" and print ranges up to 18446744073709551615; these answer with
//! the range a user can act on. Options using them also set
//! `allow_negative_numbers`, so that `--lambda -1` reaches the parser
//! instead of being taken for an unknown flag.

/// A whole number in `min..=max`, as the integer type `T`.
pub fn whole<T>(min: i128, max: i128) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static
where
    T: TryFrom<i128> + Clone + Send + Sync + 'static,
{
    move |text: &str| {
        // The upper end is worth naming unless it is u64's own (a 32-bit
        // option given 2^64 - 1 was told "≥ 1", which that value is).
        let range = if max >= i128::from(u64::MAX) { format!("a whole number ≥ {min}") } else { format!("a whole number from {min} to {max}") };
        let value: i128 = text.trim().parse().map_err(|_| format!("must be {range}"))?;
        if value < min || value > max {
            return Err(format!("must be {range}"));
        }
        T::try_from(value).map_err(|_| format!("must be {range}"))
    }
}

/// A whole number ≥ `min` that fits in a `u64`.
pub fn at_least(min: u64) -> impl Fn(&str) -> Result<u64, String> + Clone + Send + Sync + 'static {
    whole::<u64>(i128::from(min), i128::from(u64::MAX))
}

/// A whole number ≥ `min` that fits in a `u32`.
pub fn at_least_u32(min: u32) -> impl Fn(&str) -> Result<u32, String> + Clone + Send + Sync + 'static {
    whole::<u32>(i128::from(min), i128::from(u32::MAX))
}

/// A whole number ≥ `min` that fits in a `usize`.
pub fn at_least_usize(min: usize) -> impl Fn(&str) -> Result<usize, String> + Clone + Send + Sync + 'static {
    whole::<usize>(min as i128, usize::MAX as i128)
}

/// A finite number ≥ 0.
pub fn non_negative(text: &str) -> Result<f64, String> {
    let value: f64 = text.trim().parse().map_err(|_| "must be a number ≥ 0".to_string())?;
    if value.is_finite() && value >= 0.0 { Ok(value) } else { Err("must be a finite number ≥ 0".into()) }
}

/// A finite number in `min..=max`.
pub fn bounded(min: f64, max: f64) -> impl Fn(&str) -> Result<f64, String> + Clone + Send + Sync + 'static {
    move |text: &str| {
        let range = || format!("must be a number from {min} to {max}");
        let value: f64 = text.trim().parse().map_err(|_| range())?;
        if (min..=max).contains(&value) { Ok(value) } else { Err(range()) }
    }
}

/// A finite number > 0.
pub fn positive(text: &str) -> Result<f64, String> {
    let value: f64 = text.trim().parse().map_err(|_| "must be a number > 0".to_string())?;
    if value.is_finite() && value > 0.0 { Ok(value) } else { Err("must be a finite number > 0".into()) }
}

/// A fraction strictly between 0 and 1.
pub fn open_fraction(text: &str) -> Result<f64, String> {
    let value: f64 = text.trim().parse().map_err(|_| "must be a fraction between 0 and 1".to_string())?;
    if value > 0.0 && value < 1.0 { Ok(value) } else { Err("must be a fraction between 0 and 1 (exclusive)".into()) }
}

/// A fraction in [0, 1).
pub fn fraction_below_one(text: &str) -> Result<f64, String> {
    let value: f64 = text.trim().parse().map_err(|_| "must be a number in [0, 1)".to_string())?;
    if (0.0..1.0).contains(&value) { Ok(value) } else { Err("must be a number in [0, 1)".into()) }
}

/// A number in [0, 1].
pub fn unit_interval(text: &str) -> Result<f64, String> {
    let value: f64 = text.trim().parse().map_err(|_| "must be a number in [0, 1]".to_string())?;
    if (0.0..=1.0).contains(&value) { Ok(value) } else { Err("must be a number in [0, 1]".into()) }
}

/// The most threads any command starts, `--force` or not: each thread
/// takes a stack and its buffers, and far beyond this the system runs out
/// of memory for them and the run dies in the middle instead of saying no.
pub const MAX_THREADS: usize = 1024;

/// Fails when `threads` is far above the cores here (it costs time and
/// gains nothing), unless `force`, and above [`MAX_THREADS`] in any case.
/// `force` is `None` for a command without `--force` (the limit then holds).
pub fn check_threads(option: &str, threads: usize, force: Option<bool>) -> anyhow::Result<()> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let limit = 4 * cores;
    if threads > MAX_THREADS {
        anyhow::bail!("{option} {threads} is more threads than any run can start (at most {MAX_THREADS})");
    }
    match force {
        Some(true) => {}
        _ if threads <= limit => {}
        Some(false) => {
            anyhow::bail!("{option} {threads} is far above the {cores} cores here (at most {limit}; pass --force to use {threads} anyway)")
        }
        None => anyhow::bail!("{option} {threads} is far above the {cores} cores here (at most {limit})"),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_named() {
        assert_eq!(at_least(1)("5"), Ok(5));
        assert_eq!(at_least(1)("0").unwrap_err(), "must be a whole number ≥ 1");
        assert_eq!(at_least(0)("-1").unwrap_err(), "must be a whole number ≥ 0");
        assert_eq!(whole::<u32>(1, 100)("101").unwrap_err(), "must be a whole number from 1 to 100");
        assert_eq!(at_least_u32(1)("18446744073709551615").unwrap_err(), "must be a whole number from 1 to 4294967295");
        assert_eq!(bounded(0.0, 1e6)("1e300").unwrap_err(), "must be a number from 0 to 1000000");
        assert_eq!(bounded(0.0, 1e6)("NaN").unwrap_err(), "must be a number from 0 to 1000000");
        assert_eq!(bounded(0.0, 1e6)("0.5"), Ok(0.5));
        assert!(at_least(1)("x").is_err());
        assert_eq!(non_negative("-1").unwrap_err(), "must be a finite number ≥ 0");
        assert!(positive("NaN").is_err() && positive("0").is_err() && positive("inf").is_err());
        assert!(open_fraction("1").is_err() && open_fraction("0.2").is_ok());
        assert!(check_threads("-j", 500, Some(false)).is_err() && check_threads("-j", 500, Some(true)).is_ok());
        // Past the hard limit even --force does not start the threads (they
        // would exhaust memory and abort the run half way).
        assert!(check_threads("-j", MAX_THREADS, Some(true)).is_ok());
        let err = check_threads("-j", MAX_THREADS + 1, Some(true)).unwrap_err().to_string();
        assert!(err.contains("at most 1024"), "{err}");
        // Without a --force to pass, the message does not offer one.
        assert!(!check_threads("-j", 100_000, None).unwrap_err().to_string().contains("--force"));
        assert!(check_threads("-j", 1, None).is_ok());
    }
}

/// `-q/--quiet` for the commands that print no notes on standard error
/// (only their results, warnings and errors): accepted by every command,
/// so that a script may pass it to any of them.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct Quiet {
    /// Quiet: nothing on standard error but warnings and errors (this command prints no notes there anyway).
    #[arg(long = "quiet", short = 'q', alias = "silent", global = true)]
    pub quiet: bool,
}
