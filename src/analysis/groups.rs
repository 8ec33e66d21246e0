//! Piece values per group of games (player, event, year, decade, rating
//! band, time control, or any tag), and comparisons between groups.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use crate::fit::{FitConfig, FitReport, MergedRows, fit};

/// What games are grouped by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GroupKey {
    /// The input file (one player's games per file), or the `--player` filter.
    Player,
    /// `[Event]`.
    Event,
    /// The year of `[Date]`.
    Year,
    /// The decade of `[Date]`.
    Decade,
    /// Rating band of the mean of `[WhiteElo]` and `[BlackElo]`.
    Elo,
    /// `[TimeControl]`.
    TimeControl,
    /// Any other tag, by its value.
    Tag(String),
}

impl FromStr for GroupKey {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s.to_ascii_lowercase().as_str() {
            "player" => GroupKey::Player,
            "event" => GroupKey::Event,
            "year" => GroupKey::Year,
            "decade" => GroupKey::Decade,
            "elo" | "rating" => GroupKey::Elo,
            "timecontrol" | "time-control" => GroupKey::TimeControl,
            "" => return Err("empty group key".into()),
            _ => GroupKey::Tag(s.to_string()),
        })
    }
}

/// The key as `--group-by` takes it (a tag by its name).
impl fmt::Display for GroupKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GroupKey::Player => "player",
            GroupKey::Event => "event",
            GroupKey::Year => "year",
            GroupKey::Decade => "decade",
            GroupKey::Elo => "elo",
            GroupKey::TimeControl => "timecontrol",
            GroupKey::Tag(tag) => tag,
        })
    }
}

/// The rating bands of [`GroupKey::Elo`], lowest first (by the mean of
/// both players' ratings), below 2200, then 200 points wide, from 2600 on.
pub const ELO_BANDS: [&str; 4] = ["<2200", "2200-2399", "2400-2599", "2600+"];

impl GroupKey {
    /// The PGN tags extraction must keep to compute the key.
    pub fn tags(&self) -> Vec<String> {
        let v = |t: &[&str]| t.iter().map(|s| s.to_string()).collect();
        match self {
            GroupKey::Player => v(&["White", "Black"]),
            GroupKey::Event => v(&["Event"]),
            GroupKey::Year | GroupKey::Decade => v(&["Date"]),
            GroupKey::Elo => v(&["WhiteElo", "BlackElo"]),
            GroupKey::TimeControl => v(&["TimeControl"]),
            GroupKey::Tag(t) => vec![t.clone()],
        }
    }

    /// The group of a game with these tag values (in [`GroupKey::tags`]
    /// order); `source` names the game's input (for `player`).
    pub fn group(&self, tags: &[&str], source: &str) -> String {
        let unknown = "?".to_string();
        let year = || tags[0].get(..4).filter(|y| y.chars().all(|c| c.is_ascii_digit())).map(str::to_string);
        match self {
            GroupKey::Player => source.to_string(),
            GroupKey::Event | GroupKey::TimeControl | GroupKey::Tag(_) => {
                let v = tags[0].trim();
                if v.is_empty() { unknown } else { v.to_string() }
            }
            GroupKey::Year => year().unwrap_or(unknown),
            GroupKey::Decade => year().map(|y| format!("{}0s", &y[..3])).unwrap_or(unknown),
            GroupKey::Elo => {
                let elo = |t: &str| t.trim().parse::<f64>().ok().filter(|e| *e > 0.0);
                match (elo(tags[0]), elo(tags[1])) {
                    (Some(w), Some(b)) => {
                        let band = ((w + b) / 2.0 - 2000.0) / 200.0;
                        ELO_BANDS[band.clamp(0.0, (ELO_BANDS.len() - 1) as f64) as usize].into()
                    }
                    _ => "unrated".into(),
                }
            }
        }
    }
}

/// One group's fit (or why it was not fitted).
#[derive(Clone, Debug)]
pub struct GroupFit {
    /// The group.
    pub name: String,
    /// Games with rows (`None` when the rows have no game ids, as in a
    /// pgnlearn `.mat` file).
    pub games: Option<u64>,
    /// Decisive games with rows (`None` when unknown).
    pub decisive_games: Option<u64>,
    /// Rows.
    pub rows: u64,
    /// The fit, when there were enough decisive games and it worked.
    pub fit: Option<FitReport>,
    /// Why there is no fit.
    pub note: Option<String>,
}

impl GroupFit {
    /// Normalised values and their standard errors (from the 95% intervals).
    pub fn values(&self) -> Option<Vec<(f64, Option<f64>)>> {
        let fit = self.fit.as_ref()?;
        let values = fit.values.as_ref()?;
        let ci = fit.values_ci95.as_ref()?;
        Some(values.iter().zip(ci).map(|(v, c)| (*v, c.map(|(lo, hi)| (hi - lo) / (2.0 * crate::stats::Z_95)))).collect())
    }
}

/// Fits every group with at least `min_decisive` decisive games (groups
/// whose games are unknown are fitted whatever their size).
pub fn fit_groups(groups: BTreeMap<String, MergedRows>, config: &FitConfig, min_decisive: u64) -> Vec<GroupFit> {
    groups
        .into_iter()
        .map(|(name, rows)| {
            let decisive = rows.decisive_games;
            let mut g = GroupFit { name, games: rows.game_count, decisive_games: decisive, rows: rows.total_rows() as u64, fit: None, note: None };
            if let Some(decisive) = decisive.filter(|&d| d < min_decisive) {
                g.note = Some(format!("too few decisive games ({decisive} < {min_decisive}): not fitted"));
            } else {
                match fit(&rows, config) {
                    Ok(report) => g.fit = Some(report),
                    Err(e) => g.note = Some(format!("not fitted: {e}")),
                }
            }
            g
        })
        .collect()
}

/// `z` of the difference between two normalised values.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Difference {
    /// Value of the group minus the reference group's.
    pub difference: f64,
    /// The difference over its standard error.
    pub z: f64,
}

/// Differences of every group's values from the first fitted group's.
pub fn compare(groups: &[GroupFit]) -> Vec<Option<Vec<Option<Difference>>>> {
    let reference = groups.iter().find_map(GroupFit::values);
    groups
        .iter()
        .map(|g| {
            let (Some(mine), Some(theirs)) = (g.values(), reference.as_ref()) else { return None };
            Some(
                mine.iter()
                    .zip(theirs)
                    .map(|((v, se), (r, rse))| match (se, rse) {
                        (Some(se), Some(rse)) if se * se + rse * rse > 0.0 => {
                            Some(Difference { difference: v - r, z: (v - r) / (se * se + rse * rse).sqrt() })
                        }
                        _ => None,
                    })
                    .collect(),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_groups() {
        assert_eq!(GroupKey::Decade.group(&["1886.01.11"], ""), "1880s");
        assert_eq!(GroupKey::Year.group(&["????.??.??"], ""), "?");
        assert_eq!(GroupKey::Elo.group(&["2650", "2580"], ""), "2600+");
        assert_eq!(GroupKey::Elo.group(&["2410", ""], ""), "unrated");
        assert_eq!(GroupKey::Elo.group(&["2150", "2300"], ""), "2200-2399");
        assert_eq!(GroupKey::Player.group(&["a", "b"], "Morphy"), "Morphy");
        assert_eq!("ECO".parse::<GroupKey>().unwrap(), GroupKey::Tag("ECO".into()));
        assert_eq!(GroupKey::Tag("ECO".into()).group(&["B90"], ""), "B90");
        assert_eq!(GroupKey::Elo.group(&["2199", "2200"], ""), "<2200");
        assert_eq!(GroupKey::Elo.group(&["2200", "2200"], ""), "2200-2399");
        assert_eq!(GroupKey::Elo.group(&["2599", "2600"], ""), "2400-2599");
        assert_eq!(GroupKey::Elo.group(&["2800", "2800"], ""), "2600+");
        assert_eq!(GroupKey::Elo.group(&["1200", "1300"], ""), "<2200");
        assert_eq!(format!("Piece values by {}", GroupKey::Tag("ECO".into())), "Piece values by ECO");
        assert_eq!(GroupKey::TimeControl.to_string(), "timecontrol");
    }
}
