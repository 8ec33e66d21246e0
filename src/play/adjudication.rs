//! Optional adjudication, as fastchess and cutechess offer it: resign when
//! a side's engine sees itself lost (or, two-sided, both engines agree),
//! draw when both agree the game is level late in the game, and a maximum
//! game length.

use std::str::FromStr;

use serde::{Deserialize, Serialize};
use shakmaty::Color;

use super::rules::{GameEnd, Termination};
use crate::engine::Score;

/// `--resign movecount=3 score=600 [twosided=true]`, as fastchess has it:
/// a side resigns when its engine scores its own position at `−score` or
/// worse for `movecount` consecutive moves; with `twosided=true` the
/// opponent's engine must also score its own at `+score` or better.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResignRule {
    /// Consecutive moves per side.
    pub movecount: u32,
    /// Threshold in centipawns (positive).
    pub score: i32,
    /// Both engines must agree.
    #[serde(default)]
    pub twosided: bool,
}

/// `--draw movenumber=40 movecount=8 score=10`: from move `movenumber` on,
/// when both engines score within ±`score` for `movecount` consecutive
/// moves each, with no capture or pawn move in between (fastchess resets
/// the count whenever the half-move clock does), the game is a draw.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrawRule {
    /// First move number at which the rule applies.
    pub movenumber: u32,
    /// Consecutive moves per side.
    pub movecount: u32,
    /// Threshold in centipawns.
    pub score: i32,
}

fn parse_pairs(text: &str, keys: &[&str], defaults: &[i64]) -> Result<Vec<i64>, String> {
    let mut values = defaults.to_vec();
    for pair in text.split([' ', ',']).filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').ok_or_else(|| format!("'{pair}' is not key=value (keys: {})", keys.join(", ")))?;
        let i = keys.iter().position(|k| *k == key).ok_or_else(|| format!("unknown key '{key}' (keys: {})", keys.join(", ")))?;
        values[i] = value.parse().map_err(|_| format!("'{value}' is not a whole number for {key}"))?;
        if values[i] < 0 {
            return Err(format!("{key} must not be negative"));
        }
    }
    Ok(values)
}

impl FromStr for ResignRule {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        // twosided is a boolean among numbers: read it separately.
        let mut twosided = Some(false);
        let rest: Vec<&str> = s
            .split([' ', ','])
            .filter(|p| match p.strip_prefix("twosided=") {
                Some(v) => {
                    twosided = match v {
                        "true" | "1" => Some(true),
                        "false" | "0" => Some(false),
                        _ => None,
                    };
                    false
                }
                None => true,
            })
            .collect();
        let Some(twosided) = twosided else { return Err("twosided must be true or false".into()) };
        let v = parse_pairs(&rest.join(" "), &["movecount", "score"], &[3, 600])?;
        if v[1] == 0 {
            return Err("the resign score must be positive".into());
        }
        Ok(ResignRule { movecount: v[0].max(1) as u32, score: v[1] as i32, twosided })
    }
}

impl FromStr for DrawRule {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let v = parse_pairs(s, &["movenumber", "movecount", "score"], &[40, 8, 10])?;
        Ok(DrawRule { movenumber: v[0] as u32, movecount: v[1].max(1) as u32, score: v[2] as i32 })
    }
}

/// The adjudication settings of a match.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Adjudication {
    /// Resign adjudication.
    pub resign: Option<ResignRule>,
    /// Draw adjudication.
    pub draw: Option<DrawRule>,
    /// Draw after this many moves by each side, counted from the start of
    /// the game (opening included).
    pub maxmoves: Option<u32>,
}

/// A score as centipawns, mates as very large values.
fn centipawns(score: Score) -> i32 {
    match score {
        Score::Cp(cp) => cp,
        Score::Mate(n) if n > 0 => 100_000,
        Score::Mate(_) => -100_000,
    }
}

/// Follows one game's scores and decides adjudications.
#[derive(Clone, Debug)]
pub struct Adjudicator {
    rules: Adjudication,
    /// Per side: consecutive own moves scored ≤ −resign threshold, and ≥ +threshold.
    losing: [u32; 2],
    winning: [u32; 2],
    /// Per side: consecutive own moves scored within ±draw threshold.
    level: [u32; 2],
}

fn idx(c: Color) -> usize {
    usize::from(c == Color::Black)
}

impl Adjudicator {
    /// A fresh adjudicator.
    pub fn new(rules: &Adjudication) -> Adjudicator {
        Adjudicator { rules: rules.clone(), losing: [0; 2], winning: [0; 2], level: [0; 2] }
    }

    /// Records the score `mover`'s engine gave for its move (from its own
    /// point of view; `None` when it gave none) in full move `fullmove`,
    /// with the half-move clock after it and the plies played so far, and
    /// says whether the game ends.
    pub fn record(&mut self, mover: Color, score: Option<Score>, fullmove: u32, halfmoves: u32, plies: u32) -> Option<GameEnd> {
        let i = idx(mover);
        let next = !mover;
        if halfmoves == 0 {
            self.level = [0; 2];
        }
        match score.map(centipawns) {
            Some(cp) => {
                if let Some(r) = self.rules.resign {
                    self.losing[i] = if cp <= -r.score { self.losing[i] + 1 } else { 0 };
                    self.winning[i] = if cp >= r.score { self.winning[i] + 1 } else { 0 };
                }
                if let Some(d) = self.rules.draw {
                    self.level[i] = if fullmove >= d.movenumber && cp.abs() <= d.score { self.level[i] + 1 } else { 0 };
                }
            }
            None => {
                self.losing[i] = 0;
                self.winning[i] = 0;
                self.level[i] = 0;
            }
        }
        if let Some(r) = self.rules.resign {
            let n = r.movecount;
            for side in [Color::White, Color::Black] {
                if self.losing[idx(side)] >= n && (!r.twosided || self.winning[idx(!side)] >= n) {
                    return Some(GameEnd::loss(side, Termination::ResignAdjudication));
                }
            }
        }
        if let Some(d) = self.rules.draw
            && self.level[0] >= d.movecount
            && self.level[1] >= d.movecount
        {
            return Some(GameEnd::draw(next, Termination::DrawAdjudication));
        }
        if let Some(max) = self.rules.maxmoves
            && plies >= 2 * max
        {
            return Some(GameEnd::draw(next, Termination::MaxMoves));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::GameResult;

    #[test]
    fn parses_fastchess_style_settings() {
        assert_eq!("movecount=3 score=600".parse::<ResignRule>().unwrap(), ResignRule { movecount: 3, score: 600, twosided: false });
        assert!("movecount=3 score=600 twosided=true".parse::<ResignRule>().unwrap().twosided);
        assert!("movecount=3 score=600 twosided=yes".parse::<ResignRule>().is_err());
        assert!("score=0".parse::<ResignRule>().is_err());
        assert_eq!("movenumber=40,movecount=8,score=10".parse::<DrawRule>().unwrap(), DrawRule { movenumber: 40, movecount: 8, score: 10 });
        assert!("moves=3".parse::<ResignRule>().is_err());
        assert!("score=x".parse::<DrawRule>().is_err());
    }

    #[test]
    fn resign_when_the_loser_sees_it_and_twosided_when_both_do() {
        let one = Adjudication { resign: Some(ResignRule { movecount: 2, score: 500, twosided: false }), ..Adjudication::default() };
        let mut a = Adjudicator::new(&one);
        assert_eq!(a.record(Color::White, Some(Score::Cp(0)), 30, 5, 58), None);
        assert_eq!(a.record(Color::Black, Some(Score::Cp(-650)), 30, 6, 59), None);
        assert_eq!(a.record(Color::White, Some(Score::Cp(0)), 31, 7, 60), None);
        let end = a.record(Color::Black, Some(Score::Mate(-5)), 31, 8, 61).unwrap();
        assert_eq!((end.result, end.termination), (GameResult::WhiteWins, Termination::ResignAdjudication));
        // Two-sided: White scoring 0 does not agree, so no adjudication.
        let two = Adjudication { resign: Some(ResignRule { movecount: 2, score: 500, twosided: true }), ..Adjudication::default() };
        let mut a = Adjudicator::new(&two);
        for m in 30..40 {
            assert_eq!(a.record(Color::White, Some(Score::Cp(0)), m, 1, 2 * m), None);
            assert_eq!(a.record(Color::Black, Some(Score::Cp(-900)), m, 2, 2 * m + 1), None);
        }
        let mut a = Adjudicator::new(&two);
        assert_eq!(a.record(Color::White, Some(Score::Cp(700)), 30, 1, 58), None);
        assert_eq!(a.record(Color::Black, Some(Score::Cp(-650)), 30, 2, 59), None);
        assert_eq!(a.record(Color::White, Some(Score::Cp(800)), 31, 3, 60), None);
        assert!(a.record(Color::Black, Some(Score::Cp(-700)), 31, 4, 61).is_some());
    }

    #[test]
    fn draw_adjudication_waits_for_the_move_number() {
        let rules = Adjudication { draw: Some(DrawRule { movenumber: 40, movecount: 2, score: 10 }), ..Adjudication::default() };
        let mut a = Adjudicator::new(&rules);
        for m in 35..40 {
            assert_eq!(a.record(Color::White, Some(Score::Cp(0)), m, 1, 2 * m), None);
            assert_eq!(a.record(Color::Black, Some(Score::Cp(0)), m, 2, 2 * m + 1), None);
        }
        assert_eq!(a.record(Color::White, Some(Score::Cp(5)), 40, 3, 80), None);
        assert_eq!(a.record(Color::Black, Some(Score::Cp(-3)), 40, 4, 81), None);
        // A pawn move (half-move clock 0) starts the count again.
        assert_eq!(a.record(Color::White, Some(Score::Cp(0)), 41, 0, 82), None);
        assert_eq!(a.record(Color::Black, Some(Score::Cp(0)), 41, 1, 83), None);
        assert_eq!(a.record(Color::White, Some(Score::Cp(0)), 42, 2, 84), None);
        let end = a.record(Color::Black, Some(Score::Cp(0)), 42, 3, 85).unwrap();
        assert_eq!(end.termination, Termination::DrawAdjudication);
    }

    #[test]
    fn maxmoves_after_blacks_move() {
        let mut a = Adjudicator::new(&Adjudication { maxmoves: Some(3), ..Adjudication::default() });
        // Counted in plies played, whatever move number the start position had.
        assert_eq!(a.record(Color::White, None, 63, 1, 5), None);
        assert_eq!(a.record(Color::Black, None, 63, 2, 6).unwrap().termination, Termination::MaxMoves);
    }
}
