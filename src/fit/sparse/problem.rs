//! The tuning objective over sparse positions: its value and gradient in
//! one pass, in parallel, with the same bits for any thread count.
//!
//! The model is the logistic one of the dense fitter, `P = σ(c · w·x)`,
//! with the weights `w` in centipawns and `c = K · ln 10 / 400` (Texel's
//! scaling constant `K`). A position's `w·x` is the tapered blend
//! `(Σ v·w_mg · p + Σ v·w_eg · (24 − p)) / 24` over its terms.
//!
//! Positions are cut into fixed chunks of [`CHUNK`]; each chunk's sums are
//! computed on one thread and the chunk sums are then added in chunk order,
//! so the result does not depend on how many threads did the work.

use std::sync::Arc;

use rayon::prelude::*;

use crate::dataset::positions::{ENTRY_SLOTS, Positions, unpack};
use crate::features::TermColumns;
use crate::fit::model::{exp_neg_abs_and_sigmoid, sigmoid};
use crate::prefetch::prefetch;

pub use super::kernel::EntryWeights;
use super::kernel::{LossSum, PHASE_SHARE, collect_term_gradients, paired_eval, with_gradient_table};

/// Positions per chunk of the parallel sums.
pub const CHUNK: usize = 8192;

/// Positions per chunk when the sums run over a list (Adam's mini-batches):
/// smaller, so that a batch of 16,384 is 16 tasks, not 2, and its step
/// uses every thread. Fixed, not derived from the batch or the threads, so
/// the bits stay the same for any thread count.
pub const LIST_CHUNK: usize = 1024;

/// How many places ahead a pass over a list starts reading a position's
/// end and target ([`PREFETCH_FAR`]), and its entries ([`PREFETCH_NEAR`],
/// once the end has arrived).
const PREFETCH_FAR: usize = 16;
/// See [`PREFETCH_FAR`].
const PREFETCH_NEAR: usize = 8;

/// The chunk length of the parallel sums over `selection`.
fn chunk_len(selection: Selection) -> usize {
    match selection {
        Selection::List(_) => LIST_CHUNK,
        Selection::All | Selection::Mask(_) => CHUNK,
    }
}

/// The loss of one position.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SparseLoss {
    /// Cross-entropy against the target score (maximum likelihood).
    CrossEntropy,
    /// Squared error between σ and the target (Texel's original tuner).
    Mse,
}

/// Sums over a set of positions: loss, count and the gradient per term.
#[derive(Clone, Debug)]
pub struct Sums {
    /// Sum of the positions' losses.
    pub loss: f64,
    /// Positions summed.
    pub count: f64,
    /// `Σ ∂loss/∂w_mg` per term.
    pub grad_mg: Vec<f64>,
    /// `Σ ∂loss/∂w_eg` per term.
    pub grad_eg: Vec<f64>,
}

impl Sums {
    fn zero(terms: usize) -> Sums {
        Sums { loss: 0.0, count: 0.0, grad_mg: vec![0.0; terms], grad_eg: vec![0.0; terms] }
    }

    fn add(&mut self, other: &Sums) {
        self.loss += other.loss;
        self.count += other.count;
        for (a, b) in self.grad_mg.iter_mut().zip(&other.grad_mg) {
            *a += b;
        }
        for (a, b) in self.grad_eg.iter_mut().zip(&other.grad_eg) {
            *a += b;
        }
    }
}

/// The data side of the objective: positions, their targets and where each
/// term's weights are among the columns.
#[derive(Debug)]
pub struct Objective {
    /// The positions.
    pub positions: Arc<Positions>,
    /// Target score of each position (white's view, 0 to 1).
    pub targets: Vec<f32>,
    /// The (mg, eg) column of each term (the same column twice when untapered).
    pub term_columns: Vec<(u32, u32)>,
    /// The loss.
    pub loss: SparseLoss,
    /// `c = K · ln 10 / 400`.
    pub c: f64,
    /// The thread pool the sums run on.
    pub pool: Arc<rayon::ThreadPool>,
}

/// Which positions a pass covers.
#[derive(Copy, Clone, Debug)]
pub enum Selection<'s> {
    /// Every position.
    All,
    /// The positions whose flag is true.
    Mask(&'s [bool]),
    /// These positions, in this order.
    List(&'s [u32]),
}

impl Objective {
    /// The (mg, eg) column of every term of `positions`' layout.
    pub fn columns_of(positions: &Positions) -> Vec<(u32, u32)> {
        positions
            .layout()
            .all_term_columns()
            .into_iter()
            .map(|c| match c {
                TermColumns::Single(c) => (c as u32, c as u32),
                TermColumns::Tapered { mg, eg } => (mg as u32, eg as u32),
            })
            .collect()
    }

    /// Number of terms.
    pub fn terms(&self) -> usize {
        self.term_columns.len()
    }

    /// Column weights `w` in the form the pass reads them: by packed entry.
    pub fn entry_weights(&self, w: &[f64]) -> EntryWeights {
        EntryWeights::new(self.term_columns.iter().map(|&(m, e)| [w[m as usize], w[e as usize]]))
    }

    /// The evaluation `w·x` of position `i` in centipawns, from weights by entry.
    #[inline]
    pub fn eval(&self, i: usize, weights: &EntryWeights) -> f64 {
        paired_eval(self.positions.entries(i), weights, self.positions.phase(i))
    }

    /// Adds the loss of a position at logit `z` with weight `n` to `loss`,
    /// and returns the loss's derivative in `z`.
    #[inline]
    fn add_loss(&self, z: f64, target: f64, n: f64, loss: &mut LossSum) -> f64 {
        match self.loss {
            // −t ln σ(z) − (1 − t) ln σ(−z) = softplus(z) − t z, and
            // softplus(z) = max(z, 0) + ln(1 + e^(−|z|)).
            SparseLoss::CrossEntropy => {
                let (e, sigmoid) = exp_neg_abs_and_sigmoid(z);
                loss.add_softplus(z.max(0.0) - target * z, e, n);
                sigmoid - target
            }
            SparseLoss::Mse => {
                let s = sigmoid(z);
                let d = s - target;
                loss.linear += d * d * n;
                2.0 * d * s * (1.0 - s)
            }
        }
    }

    /// The sums over one chunk's positions. `by_entry` is the worker's
    /// gradient table, indexed by packed entry: all zeros on entry and on
    /// return (empty when no gradient is wanted).
    fn chunk_sums<I>(&self, indices: I, shuffled: bool, weights: &EntryWeights, by_entry: &mut [[f64; 2]]) -> Sums
    where
        I: Iterator<Item = usize> + Clone,
    {
        // Each entry's gradient goes to its own slot, count and all, with
        // no unpacking, conversion or product: the counts multiply the
        // slots once per chunk instead (`collect_term_gradients`). All
        // [`ENTRY_SLOTS`], so that the scatter needs no bounds check.
        let mut slots: Option<&mut [[f64; 2]; ENTRY_SLOTS]> = by_entry.try_into().ok();
        let mut loss = LossSum::default();
        let mut count = 0.0;
        // Positions in a shuffled order (Adam's batches) are each a wait
        // for memory; the reads of the positions some places ahead start
        // early instead: where their entries are, then the entries.
        let (mut far, mut near) = (indices.clone().skip(PREFETCH_FAR), indices.clone().skip(PREFETCH_NEAR));
        for i in indices {
            if shuffled {
                if let Some(j) = far.next() {
                    self.positions.prefetch_index(j);
                    if let Some(target) = self.targets.get(j) {
                        prefetch(target);
                    }
                }
                if let Some(j) = near.next() {
                    self.positions.prefetch_entries(j);
                }
            }
            let entries = self.positions.entries(i);
            let phase = self.positions.phase(i);
            let q = paired_eval(entries, weights, phase);
            // A position that stands for several rows (merged counts) counts as many.
            let n = self.positions.weight(i);
            let dz = self.add_loss(self.c * q, f64::from(self.targets[i]), n, &mut loss) * n;
            count += n;
            if let Some(slots) = slots.as_deref_mut()
                && dz != 0.0
            {
                // One product per phase instead of a division each.
                let (p, scale) = (f64::from(phase), dz * self.c * PHASE_SHARE);
                let g = [scale * p, scale * (24.0 - p)];
                for &e in entries {
                    let slot = &mut slots[usize::from(e)];
                    slot[0] += g[0];
                    slot[1] += g[1];
                }
            }
        }
        let (grad_mg, grad_eg) = if slots.is_some() { collect_term_gradients(by_entry, self.terms()) } else { (Vec::new(), Vec::new()) };
        Sums { loss: loss.total(), count, grad_mg, grad_eg }
    }

    /// Loss and (optionally) gradient sums over `selection` at column weights `w`.
    pub fn sums(&self, selection: Selection, w: &[f64], gradient: bool) -> Sums {
        let weights = self.entry_weights(w);
        let n = match selection {
            Selection::List(list) => list.len(),
            _ => self.positions.len(),
        };
        let chunk = chunk_len(selection);
        let partial: Vec<Sums> = self.pool.install(|| {
            (0..n.div_ceil(chunk))
                .into_par_iter()
                .map(|c| {
                    let range = c * chunk..((c + 1) * chunk).min(n);
                    let run = |by_entry: &mut [[f64; 2]]| match selection {
                        Selection::All => self.chunk_sums(range.clone(), false, &weights, by_entry),
                        Selection::Mask(mask) => self.chunk_sums(range.clone().filter(|&i| mask[i]), false, &weights, by_entry),
                        Selection::List(list) => self.chunk_sums(list[range.clone()].iter().map(|&i| i as usize), true, &weights, by_entry),
                    };
                    // The worker's own table, left zeroed by every chunk (so
                    // that a chunk's sums do not depend on the worker).
                    if gradient { with_gradient_table(run) } else { run(&mut []) }
                })
                .collect()
        });
        // Chunk sums in chunk order: the same bits for any thread count.
        let mut total = Sums::zero(if gradient { self.terms() } else { 0 });
        for s in &partial {
            total.add(s);
        }
        total
    }

    /// The diagonal of the mean Fisher information `Σ σ(1−σ) c² x_j² / n`
    /// over `selection` at weights `w`, per column (for preconditioning).
    pub fn information_diagonal(&self, selection: Selection, w: &[f64]) -> Vec<f64> {
        let weights = self.entry_weights(w);
        let terms = self.terms();
        let n = match selection {
            Selection::List(list) => list.len(),
            _ => self.positions.len(),
        };
        // Per term: Σ weight·v² times p², (1 − p)² and 1 (p the phase share):
        // a tapered term's mg and eg columns, and an untapered term's column.
        let diagonal_of = |indices: &mut dyn Iterator<Item = usize>| {
            let mut acc = vec![[0.0f64; 3]; terms];
            let mut count = 0.0;
            for i in indices {
                let s = sigmoid(self.c * self.eval(i, &weights));
                let n = self.positions.weight(i);
                let weight = s * (1.0 - s) * self.c * self.c * n;
                let p = f64::from(self.positions.phase(i)) / 24.0;
                count += n;
                for &e in self.positions.entries(i) {
                    let (t, v) = unpack(e);
                    let v2 = f64::from(v) * f64::from(v) * weight;
                    acc[t][0] += v2 * p * p;
                    acc[t][1] += v2 * (1.0 - p) * (1.0 - p);
                    acc[t][2] += v2;
                }
            }
            (acc, count)
        };
        let chunk = chunk_len(selection);
        let partial: Vec<(Vec<[f64; 3]>, f64)> = self.pool.install(|| {
            (0..n.div_ceil(chunk))
                .into_par_iter()
                .map(|c| {
                    let range = c * chunk..((c + 1) * chunk).min(n);
                    match selection {
                        Selection::All => diagonal_of(&mut range.into_iter()),
                        Selection::Mask(mask) => diagonal_of(&mut range.filter(|&i| mask[i])),
                        Selection::List(list) => diagonal_of(&mut list[range].iter().map(|&i| i as usize)),
                    }
                })
                .collect()
        });
        let mut total = vec![[0.0f64; 3]; terms];
        let mut count = 0.0;
        for (acc, c) in &partial {
            for (t, a) in total.iter_mut().zip(acc) {
                for k in 0..3 {
                    t[k] += a[k];
                }
            }
            count += c;
        }
        let count = f64::max(count, 1.0);
        let mut diagonal = vec![0.0; w.len()];
        for (t, &(m, e)) in self.term_columns.iter().enumerate() {
            if m == e {
                diagonal[m as usize] += total[t][2] / count;
            } else {
                diagonal[m as usize] += total[t][0] / count;
                diagonal[e as usize] += total[t][1] / count;
            }
        }
        diagonal
    }

    /// Scatters term gradients into column gradients (an untapered term's
    /// two halves land on its one column and add up to `dz · c · v`).
    pub fn column_gradient(&self, sums: &Sums, columns: usize) -> Vec<f64> {
        let mut g = vec![0.0; columns];
        for (t, &(m, e)) in self.term_columns.iter().enumerate() {
            g[m as usize] += sums.grad_mg[t];
            g[e as usize] += sums.grad_eg[t];
        }
        g
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::{FeatureLayout, TermValue};

    fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap()
    }

    fn sample() -> Positions {
        let layout = FeatureLayout::parse("material,material_tapered").unwrap();
        let mut p = Positions::new(layout).unwrap();
        for i in 0..30_000u64 {
            let a = (i % 7) as i16 - 3;
            let b = (i % 5) as i16 - 2;
            let mut terms = vec![];
            if a != 0 {
                terms.push(TermValue { term: 0, value: a });
            }
            if b != 0 {
                terms.push(TermValue { term: 6, value: b });
            }
            p.push(&terms, (i % 25) as u8, [0.0, 0.5, 1.0][(i % 3) as usize], f32::NAN, i / 10);
        }
        p
    }

    #[test]
    fn the_paired_evaluation_is_eval_bit_for_bit_and_the_plain_sum_to_rounding() {
        let layout = FeatureLayout::parse("material,material_tapered").unwrap();
        let terms = layout.term_count();
        let mut positions = Positions::new(layout).unwrap();
        // Every count of entries from 0 to all of them, odd and even.
        for i in 0..2_000u64 {
            let n = (i as usize) % (terms + 1);
            let row: Vec<TermValue> =
                (0..n).map(|t| TermValue { term: t as u16, value: ((i as i16 + 3 * t as i16) % 15) - 7 }).filter(|t| t.value != 0).collect();
            positions.push(&row, (i % 25) as u8, 0.5, f32::NAN, i);
        }
        let objective = Objective {
            targets: vec![0.5; positions.len()],
            term_columns: Objective::columns_of(&positions),
            positions: Arc::new(positions),
            loss: SparseLoss::CrossEntropy,
            c: 0.01,
            pool: Arc::new(pool(1)),
        };
        let w: Vec<f64> = (0..objective.positions.layout().len()).map(|j| 37.25 * j as f64 - 101.5 + 1.0 / (j as f64 + 3.0)).collect();
        let paired = objective.entry_weights(&w);
        let terms = objective.terms();
        let (wm, we): (Vec<f64>, Vec<f64>) = (0..terms).map(|t| (paired.term(t)[0], paired.term(t)[1])).unzip();
        for i in 0..objective.positions.len() {
            let entries = objective.positions.entries(i);
            let phase = objective.positions.phase(i);
            let q = objective.eval(i, &paired);
            assert_eq!(q.to_bits(), paired_eval(entries, &paired, phase).to_bits(), "position {i}");
            let (mut mg, mut eg) = (0.0, 0.0);
            for &e in entries {
                let (t, v) = unpack(e);
                mg += f64::from(v) * wm[t];
                eg += f64::from(v) * we[t];
            }
            let plain = (mg * f64::from(phase) + eg * (24.0 - f64::from(phase))) / 24.0;
            assert!((q - plain).abs() <= 1e-12 * (1.0 + plain.abs()), "position {i}: {q} vs {plain}");
        }
    }

    #[test]
    fn gradient_matches_finite_differences_and_threads_do_not_matter() {
        let positions = sample();
        let columns = positions.layout().len();
        let w: Vec<f64> = (0..columns).map(|j| 20.0 * j as f64 - 50.0).collect();
        for loss in [SparseLoss::CrossEntropy, SparseLoss::Mse] {
            let positions = Arc::new(positions.clone());
            let make = |threads| Objective {
                positions: positions.clone(),
                targets: (0..positions.len()).map(|i| positions.score(i)).collect(),
                term_columns: Objective::columns_of(&positions),
                loss,
                c: 0.01,
                pool: Arc::new(pool(threads)),
            };
            let (a, b) = (make(1), make(2));
            let sa = a.sums(Selection::All, &w, true);
            let sb = b.sums(Selection::All, &w, true);
            assert_eq!(sa.loss.to_bits(), sb.loss.to_bits());
            let g = a.column_gradient(&sa, columns);
            assert_eq!(g, b.column_gradient(&sb, columns));
            for j in 0..columns {
                let h = 1e-4;
                let mut up = w.clone();
                up[j] += h;
                let mut down = w.clone();
                down[j] -= h;
                let numeric = (a.sums(Selection::All, &up, false).loss - a.sums(Selection::All, &down, false).loss) / (2.0 * h);
                assert!((numeric - g[j]).abs() <= 1e-6 * (1.0 + g[j].abs()), "{loss:?} column {j}: {numeric} vs {}", g[j]);
            }
            let mask: Vec<bool> = (0..positions.len()).map(|i| i % 2 == 0).collect();
            let list: Vec<u32> = (0..positions.len() as u32).filter(|i| i % 2 == 0).collect();
            let sm = a.sums(Selection::Mask(&mask), &w, true);
            let sl = a.sums(Selection::List(&list), &w, true);
            assert_eq!(sm.count, 15_000.0);
            assert!((sm.loss - sl.loss).abs() < 1e-9 * sm.loss.abs());
        }
    }

    #[test]
    fn gradients_by_entry_are_the_per_term_gradients_for_every_count() {
        // Every count from −40 to 40 (those past ±7 split into several
        // entries), on every term, over two chunks.
        let layout = FeatureLayout::parse("material,material_tapered").unwrap();
        let terms = layout.term_count();
        let mut positions = Positions::new(layout).unwrap();
        let mut rows = Vec::new();
        for i in 0..(CHUNK as u64 + 500) {
            let row: Vec<TermValue> = (0..terms)
                .map(|t| TermValue { term: t as u16, value: ((i as i16 * 7 + 11 * t as i16) % 81) - 40 })
                .filter(|t| t.value != 0 && !(t.term as u64 + i).is_multiple_of(3))
                .collect();
            let phase = (i % 25) as u8;
            let score = [0.0, 0.5, 1.0][(i % 3) as usize];
            positions.push(&row, phase, score, f32::NAN, i);
            rows.push((row, phase, score));
        }
        let objective = Objective {
            targets: (0..positions.len()).map(|i| positions.score(i)).collect(),
            term_columns: Objective::columns_of(&positions),
            positions: Arc::new(positions),
            loss: SparseLoss::CrossEntropy,
            c: 0.004,
            pool: Arc::new(pool(2)),
        };
        let columns = objective.positions.layout().len();
        let w: Vec<f64> = (0..columns).map(|j| 13.0 * j as f64 - 40.0).collect();
        let sums = objective.sums(Selection::All, &w, true);
        let (mut mg, mut eg) = (vec![0.0f64; terms], vec![0.0f64; terms]);
        for (row, phase, score) in &rows {
            let p = f64::from(*phase) / 24.0;
            let q: f64 = row
                .iter()
                .map(|t| {
                    let (m, e) = objective.term_columns[usize::from(t.term)];
                    f64::from(t.value) * (w[m as usize] * p + w[e as usize] * (1.0 - p))
                })
                .sum();
            let dz = (sigmoid(objective.c * q) - f64::from(*score)) * objective.c;
            for t in row {
                mg[usize::from(t.term)] += dz * f64::from(t.value) * p;
                eg[usize::from(t.term)] += dz * f64::from(t.value) * (1.0 - p);
            }
        }
        for t in 0..terms {
            for (got, want) in [(sums.grad_mg[t], mg[t]), (sums.grad_eg[t], eg[t])] {
                assert!((got - want).abs() <= 1e-9 * (1.0 + want.abs()), "term {t}: {got} vs {want}");
            }
        }
    }
}
