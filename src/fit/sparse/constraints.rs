//! Which weights the tuner may move, and the levels it must hold.
//!
//! * A column that never occurs in the training positions (a pawn on the
//!   first rank, a queen with 27 safe squares in a collection of blitz
//!   games) has no data: it stays at its prior and is reported as unseen.
//! * A frozen column (`--freeze`) stays at its starting value.
//! * A group of terms whose counts add up to a piece count that another set
//!   already carries (a piece's PST squares beside material), or to zero
//!   (the king's squares), has a level the data cannot see: only
//!   differences within the group are identified. The tuner keeps the sum
//!   of the group's free weights where it started by projecting every
//!   gradient onto that constraint ("tables centred on their starting
//!   level"); with a tapered carrier the middlegame and the endgame halves
//!   are held separately, with an untapered one (the article's `material`)
//!   their sum is.

use std::collections::HashSet;

use shakmaty::Role;

use crate::features::{FeatureLayout, FeatureSet, GroupSum, TermColumns};

/// One constraint: the sum of these (free) columns stays fixed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeldSum {
    /// For reports, such as `pst N (mg)`.
    pub name: String,
    /// The free columns whose sum is held.
    pub columns: Vec<usize>,
}

/// The tuner's freedom: which columns move and which sums are held.
#[derive(Clone, Debug, PartialEq)]
pub struct Freedom {
    /// Per column: the tuner may move it.
    pub free: Vec<bool>,
    /// Per column: it occurs in the training positions.
    pub observed: Vec<bool>,
    /// Held sums over disjoint sets of free columns.
    pub held: Vec<HeldSum>,
}

impl Freedom {
    /// The freedom of `layout` given which columns occur and which are frozen.
    pub fn new(layout: &FeatureLayout, observed: Vec<bool>, frozen: &[bool]) -> Freedom {
        let free: Vec<bool> = observed.iter().zip(frozen).map(|(&o, &f)| o && !f).collect();
        let term_columns = layout.all_term_columns();
        // Roles whose count a material set already carries.
        let mut carried: HashSet<Role> = HashSet::new();
        let mut tapered_carrier = false;
        for set in layout.sets() {
            if matches!(set, FeatureSet::Material | FeatureSet::MaterialTapered) {
                carried.extend([Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen]);
                tapered_carrier |= set.tapered();
            }
        }
        let mut held = Vec::new();
        // An engine's own terms: the sums its trace declares.
        if let Some(terms) = layout.custom_terms() {
            for (name, columns) in terms.held() {
                held.push(HeldSum { name: name.clone(), columns: columns.iter().copied().filter(|&c| free[c]).collect() });
            }
        }
        for group in layout.groups() {
            let hold = match group.sum {
                GroupSum::Zero => true,
                // The first group carrying a count no material set carries
                // is that piece's value; later ones are held.
                GroupSum::Count(role) => !carried.insert(role),
            };
            if !hold {
                continue;
            }
            let (mut mg, mut eg) = (Vec::new(), Vec::new());
            for t in group.terms.clone() {
                match term_columns[t] {
                    TermColumns::Single(c) => mg.push(c),
                    TermColumns::Tapered { mg: m, eg: e } => {
                        mg.push(m);
                        eg.push(e);
                    }
                }
            }
            let separate = matches!(group.sum, GroupSum::Zero) || tapered_carrier;
            let keep = |cols: Vec<usize>| cols.into_iter().filter(|&c| free[c]).collect::<Vec<usize>>();
            if separate && !eg.is_empty() {
                held.push(HeldSum { name: format!("{} (mg)", group.name), columns: keep(mg) });
                held.push(HeldSum { name: format!("{} (eg)", group.name), columns: keep(eg) });
            } else {
                mg.extend(eg);
                held.push(HeldSum { name: group.name.clone(), columns: keep(mg) });
            }
        }
        // A held sum over fewer than two free columns holds them still.
        let mut free = free;
        held.retain(|h| {
            if h.columns.len() == 1 {
                free[h.columns[0]] = false;
            }
            h.columns.len() >= 2
        });
        Freedom { free, observed, held }
    }

    /// Projects `g` onto the tuner's freedom: zero on fixed columns, mean
    /// zero over every held sum.
    pub fn project(&self, g: &mut [f64]) {
        for (v, &free) in g.iter_mut().zip(&self.free) {
            if !free {
                *v = 0.0;
            }
        }
        for h in &self.held {
            let mean = h.columns.iter().map(|&c| g[c]).sum::<f64>() / h.columns.len() as f64;
            for &c in &h.columns {
                g[c] -= mean;
            }
        }
    }

    /// Projects a gradient `g` of parameters `p_j = scale_j · w_j` onto the
    /// tuner's freedom: zero on fixed columns, and orthogonal to each held
    /// sum, which in these parameters is `Σ p_j / scale_j`.
    pub fn project_scaled(&self, g: &mut [f64], scale: &[f64]) {
        for (v, &free) in g.iter_mut().zip(&self.free) {
            if !free {
                *v = 0.0;
            }
        }
        for h in &self.held {
            let (mut along, mut norm) = (0.0, 0.0);
            for &c in &h.columns {
                along += g[c] / scale[c];
                norm += 1.0 / (scale[c] * scale[c]);
            }
            let coefficient = along / norm;
            for &c in &h.columns {
                g[c] -= coefficient / scale[c];
            }
        }
    }

    /// Moves `w` back onto the held sums of `reference` (after a step that
    /// did not stay on them, such as Adam's per-column scaling).
    pub fn restore_sums(&self, w: &mut [f64], reference: &[f64]) {
        for h in &self.held {
            let drift = h.columns.iter().map(|&c| w[c] - reference[c]).sum::<f64>() / h.columns.len() as f64;
            for &c in &h.columns {
                w[c] -= drift;
            }
        }
        for (j, &free) in self.free.iter().enumerate() {
            if !free {
                w[j] = reference[j];
            }
        }
    }

    /// Number of free parameters left after the held sums.
    pub fn degrees_of_freedom(&self) -> usize {
        self.free.iter().filter(|&&f| f).count() - self.held.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pst_beside_tapered_material_holds_both_halves_and_the_king() {
        let layout = FeatureLayout::parse("material_tapered,pst").unwrap();
        let n = layout.len();
        let mut observed = vec![true; n];
        let columns = layout.columns();
        let col = |name: &str| columns.iter().position(|c| c == name).unwrap();
        observed[col("mg_P_a1")] = false;
        observed[col("eg_P_a1")] = false;
        let f = Freedom::new(&layout, observed, &vec![false; n]);
        // 6 roles × 2 halves.
        assert_eq!(f.held.len(), 12);
        assert_eq!(f.held[0].name, "pst P (mg)");
        assert_eq!(f.held[0].columns.len(), 63, "the unseen square is not in the sum");
        assert!(!f.free[col("mg_P_a1")]);
        let mut g: Vec<f64> = (0..n).map(|j| j as f64).collect();
        f.project(&mut g);
        for h in &f.held {
            assert!(h.columns.iter().map(|&c| g[c]).sum::<f64>().abs() < 1e-9);
        }
        assert_eq!(g[col("mg_P_a1")], 0.0);
        assert_eq!(g[col("mg_N")], col("mg_N") as f64, "material itself moves freely");
        assert_eq!(f.degrees_of_freedom(), n - 2 - 12);
    }

    #[test]
    fn untapered_material_holds_the_sum_of_both_halves() {
        let layout = FeatureLayout::parse("material,pst").unwrap();
        let n = layout.len();
        let f = Freedom::new(&layout, vec![true; n], &vec![false; n]);
        assert_eq!(f.held.len(), 5 + 2, "P N B R Q jointly, the king per half");
        assert_eq!(f.held[1].columns.len(), 128);
        // Without a material set, the tables carry the piece values: only the king is held.
        let pst = FeatureLayout::parse("pst").unwrap();
        let f = Freedom::new(&pst, vec![true; pst.len()], &vec![false; pst.len()]);
        assert_eq!(f.held.len(), 2);
    }

    #[test]
    fn restore_sums_undoes_drift() {
        let layout = FeatureLayout::parse("material_tapered,pst").unwrap();
        let n = layout.len();
        let mut frozen = vec![false; n];
        frozen[0] = true;
        let f = Freedom::new(&layout, vec![true; n], &frozen);
        let reference = vec![1.0; n];
        let mut w: Vec<f64> = (0..n).map(|j| (j % 7) as f64).collect();
        f.restore_sums(&mut w, &reference);
        assert_eq!(w[0], 1.0);
        for h in &f.held {
            let sum: f64 = h.columns.iter().map(|&c| w[c] - reference[c]).sum();
            assert!(sum.abs() < 1e-9, "{}", h.name);
        }
    }
}
