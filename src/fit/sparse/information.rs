//! Standard errors of tuned weights: the Fisher information of the
//! logistic model, restricted to what the data can identify.
//!
//! The information is `Σ σ(1−σ)·c²·x xᵀ` over the training positions, plus
//! the ridge penalty's `2λ n c²` on free weights; its inverse, times the
//! quasi-binomial dispersion (draws and mixed labels are fractional
//! targets), is the covariance of the weights. It is accumulated per pair
//! of terms in three phase blocks (`p²`, `p(24−p)`, `(24−p)²`) and mapped to
//! columns afterwards, so a position costs (terms)² work, not (columns)².
//!
//! Only free columns enter; every held sum (see [`super::constraints`]) is
//! expressed in differences from one reference column, and a column that is
//! still a linear combination of earlier ones is reported as not identified
//! instead of making the whole inverse fail.

use ndarray::Array2;
use rayon::prelude::*;

use super::constraints::Freedom;
use super::problem::Objective;
use crate::dataset::positions::unpack;
use crate::fit::linalg::pivoted_inverse;
use crate::fit::model::sigmoid;

/// Pair work (Σ terms² over positions) above which the information is
/// estimated from a systematic sample of positions.
const PAIR_BUDGET: f64 = 4e9;

/// A coordinate whose pivot is at most this fraction of the information's
/// largest diagonal entry is a combination of the others: not identified.
const DEPENDENT: f64 = 1e-11;

/// Fixed number of blocks the accumulation is split into (not the thread
/// count, so that the sums are the same for any number of threads).
const BLOCKS: usize = 16;

/// The standard errors of a fit.
#[derive(Clone, Debug, PartialEq)]
pub struct StandardErrors {
    /// Per column, in centipawns; `None` for columns that are fixed or not identified.
    pub stderr: Vec<Option<f64>>,
    /// Columns that are linear combinations of others given the held sums.
    pub not_identified: Vec<usize>,
    /// The quasi-binomial dispersion used.
    pub dispersion: f64,
    /// The fraction of positions the information was computed from (1 = all).
    pub sampled: f64,
}

struct Blocks {
    /// Upper triangles (term × term) of the three phase blocks.
    pp: Vec<f64>,
    pq: Vec<f64>,
    qq: Vec<f64>,
    /// Σ (t − σ)² / (σ(1 − σ)) over the positions.
    pearson: f64,
    n: f64,
}

/// The standard errors at weights `w` over the training positions `train`.
pub fn standard_errors(objective: &Objective, train: Option<&[bool]>, w: &[f64], freedom: &Freedom, lambda: f64) -> StandardErrors {
    let positions = &objective.positions;
    let terms = objective.terms();
    let selected = |i: usize| train.is_none_or(|m| m[i]);
    let pair_work: f64 = (0..positions.len()).filter(|&i| selected(i)).map(|i| (positions.entries(i).len() as f64).powi(2)).sum();
    let step = (pair_work / PAIR_BUDGET).ceil().max(1.0) as usize;
    let weights = objective.entry_weights(w);
    let c = objective.c;
    let n = positions.len();
    let per_block = n.div_ceil(BLOCKS);
    let blocks: Vec<Blocks> = objective.pool.install(|| {
        (0..BLOCKS)
            .into_par_iter()
            .map(|b| {
                let mut acc =
                    Blocks { pp: vec![0.0; terms * terms], pq: vec![0.0; terms * terms], qq: vec![0.0; terms * terms], pearson: 0.0, n: 0.0 };
                let mut index = Vec::with_capacity(64);
                for i in (b * per_block..((b + 1) * per_block).min(n)).filter(|&i| i % step == 0 && selected(i)) {
                    let s = sigmoid(c * objective.eval(i, &weights));
                    let variance = (s * (1.0 - s)).max(1e-12);
                    let t = f64::from(objective.targets[i]);
                    // A position that stands for several rows counts as many.
                    let rows = positions.weight(i);
                    acc.pearson += rows * (t - s).powi(2) / variance;
                    acc.n += rows;
                    let weight = variance * rows;
                    let p = f64::from(positions.phase(i));
                    let q = 24.0 - p;
                    index.clear();
                    index.extend(positions.entries(i).iter().map(|&e| unpack(e)));
                    for a in 0..index.len() {
                        let (ta, va) = index[a];
                        for (b, &(tb, vb)) in index.iter().enumerate().skip(a) {
                            // Entries are sorted by term, so ta <= tb; two
                            // entries of one term (a split count) meet twice.
                            let twice = if a != b && ta == tb { 2.0 } else { 1.0 };
                            let base = weight * f64::from(va) * f64::from(vb) * twice;
                            let k = ta * terms + tb;
                            acc.pp[k] += base * p * p;
                            acc.pq[k] += base * p * q;
                            acc.qq[k] += base * q * q;
                        }
                    }
                }
                acc
            })
            .collect()
    });
    let mut total = Blocks { pp: vec![0.0; terms * terms], pq: vec![0.0; terms * terms], qq: vec![0.0; terms * terms], pearson: 0.0, n: 0.0 };
    for b in &blocks {
        for (x, y) in total.pp.iter_mut().zip(&b.pp) {
            *x += y;
        }
        for (x, y) in total.pq.iter_mut().zip(&b.pq) {
            *x += y;
        }
        for (x, y) in total.qq.iter_mut().zip(&b.qq) {
            *x += y;
        }
        total.pearson += b.pearson;
        total.n += b.n;
    }
    let scale = step as f64 * c * c / 576.0;

    // The information in columns.
    let columns = w.len();
    let mut h = vec![0.0; columns * columns];
    for ta in 0..terms {
        let (ma, ea) = objective.term_columns[ta];
        for tb in ta..terms {
            let (mb, eb) = objective.term_columns[tb];
            let k = ta * terms + tb;
            let (pp, pq, qq) = (total.pp[k], total.pq[k], total.qq[k]);
            if pp == 0.0 && pq == 0.0 && qq == 0.0 {
                continue;
            }
            // p and q belong to the position, so Σ p·q serves both the
            // (a's mg, b's eg) and the (a's eg, b's mg) block.
            let mut add = |i: usize, j: usize, v: f64| {
                h[i * columns + j] += v * scale;
                if i != j {
                    h[j * columns + i] += v * scale;
                }
            };
            add(ma as usize, mb as usize, pp);
            add(ma as usize, eb as usize, pq);
            // Within one tapered term, (mg, eg) and (eg, mg) are one block.
            if ta != tb || ma == ea {
                add(ea as usize, mb as usize, pq);
            }
            add(ea as usize, eb as usize, qq);
        }
    }
    // Binary targets follow the binomial model (dispersion 1); fractional
    // ones (draws as half points, mixed labels) the quasi-binomial one.
    let dof = freedom.degrees_of_freedom() as f64;
    let binary = objective.targets.iter().enumerate().filter(|&(i, _)| selected(i)).all(|(_, &t)| t == 0.0 || t == 1.0);
    let dispersion = if !binary && total.n > dof { total.pearson / (total.n - dof) } else { 1.0 };
    let ridge = 2.0 * lambda * total.n * step as f64 * c * c;
    let (stderr, not_identified) = reduced_covariance(&h, columns, freedom, ridge, dispersion);
    StandardErrors { stderr, not_identified, dispersion, sampled: 1.0 / step as f64 }
}

/// Inverts the information on the free, identified coordinates and returns
/// each column's standard error.
fn reduced_covariance(h: &[f64], columns: usize, freedom: &Freedom, ridge: f64, dispersion: f64) -> (Vec<Option<f64>>, Vec<usize>) {
    // Reference column of each held sum: its last column.
    let mut reference_of = vec![None; columns];
    let mut is_reference = vec![false; columns];
    for held in &freedom.held {
        let r = *held.columns.last().expect("held sums have two or more columns");
        is_reference[r] = true;
        for &c in &held.columns {
            if c != r {
                reference_of[c] = Some(r);
            }
        }
    }
    let coords: Vec<usize> = (0..columns).filter(|&j| freedom.free[j] && !is_reference[j]).collect();
    let at = |i: usize, j: usize| h[i * columns + j];
    let m = coords.len();
    let mut a = Array2::<f64>::zeros((m, m));
    for (x, &i) in coords.iter().enumerate() {
        for (y, &j) in coords.iter().enumerate() {
            let mut v = at(i, j);
            if let Some(rj) = reference_of[j] {
                v -= at(i, rj);
            }
            if let Some(ri) = reference_of[i] {
                v -= at(ri, j);
                if let Some(rj) = reference_of[j] {
                    v += at(ri, rj);
                }
            }
            // The ridge's Hessian in these coordinates: 2λn c² ZᵀZ.
            let same_group = reference_of[i].is_some() && reference_of[i] == reference_of[j];
            v += ridge * (f64::from(u8::from(x == y)) + f64::from(u8::from(same_group)));
            a[[x, y]] = v;
        }
    }
    let (kept, inverse) = pivoted_inverse(&a, DEPENDENT);
    let mut stderr = vec![None; columns];
    let mut position = vec![None; columns];
    for (k, &x) in kept.iter().enumerate() {
        position[coords[x]] = Some(k);
    }
    let not_identified: Vec<usize> = coords.iter().copied().filter(|&j| position[j].is_none()).collect();
    for &j in &coords {
        if let Some(k) = position[j] {
            stderr[j] = Some((inverse[[k, k]] * dispersion).max(0.0).sqrt());
        }
    }
    // A reference column is minus the sum of its group's other columns.
    for held in &freedom.held {
        let r = *held.columns.last().expect("non-empty");
        let members: Vec<usize> = held.columns.iter().filter(|&&c| c != r).filter_map(|&c| position[c]).collect();
        if members.len() + 1 == held.columns.len() {
            let var: f64 = members.iter().flat_map(|&a| members.iter().map(move |&b| (a, b))).map(|(a, b)| inverse[[a, b]]).sum();
            stderr[r] = Some((var * dispersion).max(0.0).sqrt());
        }
    }
    (stderr, not_identified)
}

/// Where a fit's information came from, for the report: `None` when all
/// positions were used.
pub fn sample_note(errors: &StandardErrors) -> Option<String> {
    (errors.sampled < 1.0)
        .then(|| format!("standard errors from the information of every {} position", ordinal((1.0 / errors.sampled).round() as u64)))
}

/// `n` as an English ordinal: 2nd, 3rd, 4th, 11th, 21st.
fn ordinal(n: u64) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinals_read_as_english() {
        let read: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111, 112].into_iter().map(ordinal).collect();
        assert_eq!(read, ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "101st", "111th", "112th"]);
    }
}
