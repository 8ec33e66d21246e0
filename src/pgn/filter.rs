//! The quiescence filter: which positions of a game become rows.
//!
//! Material swings for a ply or two during exchanges; those positions say
//! nothing about who is better. The default is the 2015 pgnlearn rule:
//!
//! 1. per game, a counter `quiet = 0` and a remembered vector `last = none`;
//! 2. after each move: `quiet += 1`; a capture, a promotion or a check sets
//!    `quiet = 0`;
//! 3. if `quiet >= 2` and the new position's vector differs from `last`,
//!    emit a row and remember it.

use std::fmt;
use std::str::FromStr;

use shakmaty::{Chess, Move};

use super::replay::in_check_after;
use crate::features::{FeatureLayout, TermScratch, TermValue};

/// The events that reset the quiet counter.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ResetEvents {
    /// A capture (including en passant).
    pub capture: bool,
    /// A promotion.
    pub promotion: bool,
    /// A move that gives check.
    pub check: bool,
}

impl Default for ResetEvents {
    fn default() -> Self {
        ResetEvents { capture: true, promotion: true, check: true }
    }
}

impl FromStr for ResetEvents {
    type Err = String;

    /// Parses a comma-separated subset of `capture,promotion,check`, or `none`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut events = ResetEvents { capture: false, promotion: false, check: false };
        // An empty list meant `none` without saying so; `none` says it.
        if s.trim().is_empty() {
            return Err("names no event (use capture, promotion, check, or none for no reset)".into());
        }
        let mut none = false;
        for word in s.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            match word {
                "capture" => events.capture = true,
                "promotion" => events.promotion = true,
                "check" => events.check = true,
                "none" => none = true,
                other => return Err(format!("unknown reset event '{other}' (use capture, promotion, check or none)")),
            }
        }
        // `none,capture` said two things and meant `capture`.
        if none && events != (ResetEvents { capture: false, promotion: false, check: false }) {
            return Err(format!("'none' contradicts '{events}' (give none alone, or the events)"));
        }
        Ok(events)
    }
}

impl fmt::Display for ResetEvents {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = [(self.capture, "capture"), (self.promotion, "promotion"), (self.check, "check")]
            .into_iter()
            .filter_map(|(on, name)| on.then_some(name))
            .collect();
        f.write_str(if names.is_empty() { "none" } else { "" })?;
        f.write_str(&names.join(","))
    }
}

/// Which quiet positions are emitted.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum EmitMode {
    /// Only when the feature vector differs from the last emitted one (pgnlearn).
    #[default]
    Changes,
    /// Every quiet position.
    All,
}

/// The filter's settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FilterConfig {
    /// A position is quiet once this many plies have passed since the last reset event.
    pub quiet_plies: u32,
    /// Which moves reset the counter.
    pub reset_on: ResetEvents,
    /// Emit on change only, or every quiet position.
    pub emit: EmitMode,
    /// Positions at ply <= this are never emitted (opening moves).
    pub skip_plies: u32,
    /// Stop reading a game after this many plies.
    pub max_plies: Option<u32>,
}

impl Default for FilterConfig {
    fn default() -> Self {
        FilterConfig { quiet_plies: 2, reset_on: ResetEvents::default(), emit: EmitMode::Changes, skip_plies: 0, max_plies: None }
    }
}

/// The filter's state within one game: it decides, move by move, whether
/// the new position becomes a row, and computes its features.
///
/// Two shortcuts keep the cost per move low without changing the rule:
///
/// * a layout that depends only on material (see
///   [`FeatureLayout::depends_only_on_material`]) changes only on captures
///   and promotions, so its vector is recomputed only after those;
/// * in `changes` mode, once a vector has been offered for emission, the
///   same vector can never be emitted again; with a material-only layout and
///   captures and promotions among the reset events, nothing can be emitted
///   until the next capture or promotion, which resets the quiet counter
///   anyway. Until then the counter's value does not matter, so the (costly)
///   check test is skipped.
#[derive(Debug)]
pub struct QuietFilter<'a> {
    config: &'a FilterConfig,
    layout: &'a FeatureLayout,
    /// Whether the shortcuts above apply.
    material_only: bool,
    idle_allowed: bool,
    /// Whether the phase is part of the vector (tapered layouts).
    tapered: bool,
    quiet: u32,
    /// The current position's terms and phase, valid unless `stale`, or
    /// once `shown` in `changes` mode (then they are not read again).
    current: Vec<TermValue>,
    phase: u8,
    scratch: TermScratch,
    stale: bool,
    /// `current` has been offered for emission already.
    shown: bool,
    /// The last emitted terms and phase.
    last: Option<(Vec<TermValue>, u8)>,
}

/// A position the filter lets through: its non-zero terms and its phase.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct QuietRow<'f> {
    /// The non-zero terms, sorted by term.
    pub terms: &'f [TermValue],
    /// The game phase (0 to 24).
    pub phase: u8,
}

impl<'a> QuietFilter<'a> {
    /// A fresh filter at the start of a game.
    pub fn new(config: &'a FilterConfig, layout: &'a FeatureLayout) -> Self {
        let material_only = layout.depends_only_on_material();
        let idle_allowed = material_only && config.emit == EmitMode::Changes && config.reset_on.capture && config.reset_on.promotion;
        QuietFilter {
            config,
            layout,
            material_only,
            idle_allowed,
            tapered: layout.is_tapered(),
            quiet: 0,
            current: Vec::new(),
            phase: 0,
            scratch: TermScratch::default(),
            stale: true,
            shown: false,
            last: None,
        }
    }

    /// Makes the filter fresh for the next game, as [`QuietFilter::new`]
    /// would, but keeps its buffers: a new filter per game grew its row
    /// and its sums from nothing again, a few allocations per game.
    pub fn restart(&mut self) {
        self.quiet = 0;
        self.phase = 0;
        self.stale = true;
        self.shown = false;
        self.last = None;
    }

    /// Called after each move `m` (the game's `ply`-th), leading to `pos`.
    /// Returns the position's features when `pos` becomes a row.
    #[inline]
    pub fn after_move(&mut self, pos: &Chess, m: Move, ply: u32) -> Option<QuietRow<'_>> {
        let capture = m.is_capture();
        let promotion = m.is_promotion();
        if !self.material_only || capture || promotion {
            self.stale = true;
            self.shown = false;
        }
        let idle = self.idle_allowed && self.shown;
        let reset = &self.config.reset_on;
        if (reset.capture && capture) || (reset.promotion && promotion) || (reset.check && !idle && in_check_after(pos, m)) {
            self.quiet = 0;
        } else {
            self.quiet = self.quiet.saturating_add(1);
        }
        if self.quiet < self.config.quiet_plies || ply <= self.config.skip_plies {
            return None;
        }
        if self.stale {
            self.phase = self.layout.terms_of(pos, &mut self.scratch, &mut self.current);
            self.stale = false;
        }
        if self.config.emit == EmitMode::Changes {
            if self.shown {
                return None;
            }
            self.shown = true;
            // The phase matters only where it enters the vector.
            let (current, tapered) = (&self.current, self.tapered);
            if matches!(&self.last, Some((terms, phase)) if terms == current && (!tapered || *phase == self.phase)) {
                return None;
            }
            match &mut self.last {
                // Swapped, not copied: a shown vector is never read again
                // (it is recomputed before the next row; see `shown`).
                Some((terms, phase)) => {
                    std::mem::swap(terms, &mut self.current);
                    *phase = self.phase;
                }
                None => self.last = Some((self.current.clone(), self.phase)),
            }
            let (terms, phase) = self.last.as_ref().expect("set just above");
            return Some(QuietRow { terms, phase: *phase });
        }
        Some(QuietRow { terms: &self.current, phase: self.phase })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reset_events_parse_and_print() {
        let e: ResetEvents = "capture,check".parse().unwrap();
        assert_eq!(e, ResetEvents { capture: true, promotion: false, check: true });
        assert_eq!(e.to_string(), "capture,check");
        assert_eq!("none".parse::<ResetEvents>().unwrap().to_string(), "none");
        assert!("captures".parse::<ResetEvents>().is_err());
        assert!("".parse::<ResetEvents>().unwrap_err().contains("none"));
    }

    #[test]
    fn changes_mode_emits_each_new_vector_once() {
        use shakmaty::{Position, san::San};
        let config = FilterConfig::default();
        let layout = FeatureLayout::default();
        let mut filter = QuietFilter::new(&config, &layout);
        let mut pos = Chess::default();
        let mut emitted = vec![];
        for (ply, san) in ["e4", "d5", "exd5", "Qxd5", "Nc3", "Qa5", "d4", "c6"].iter().enumerate() {
            let m = san.parse::<San>().unwrap().to_move(&pos).unwrap();
            pos.play_unchecked(m);
            if let Some(row) = filter.after_move(&pos, m, ply as u32 + 1) {
                emitted.push((ply + 1, row.terms.to_vec()));
            }
        }
        // Ply 2: first vector (all zero). Plies 3-4 capture; 6-8 quiet but unchanged.
        assert_eq!(emitted, [(2, vec![])]);
    }
}
