//! The models: their cost, analytic gradient and Hessian over merged rows,
//! as argmin problems.
//!
//! * Binary logistic: `P(white scores) = σ(θ·x)`, with targets 1 (white
//!   won), 0 (black won) and, with draws as half points, 0.5 (fractional
//!   cross-entropy, the Texel convention). Cost: mean cross-entropy (or mean
//!   squared error) plus `λ Σ θ²` over the features (never the intercept).
//! * Ordinal: three ordered outcomes with a symmetric draw band `±c`:
//!   `P(white wins) = σ(θ·x − c)`, `P(black wins) = σ(−θ·x − c)`, the rest
//!   is the draw. The band is optimised as `γ = ln c`, the last parameter.

use argmin::core::{CostFunction, Error, Gradient, Hessian};
use ndarray::{Array1, Array2};

use super::linalg::SymMatrix;
use crate::dataset::merged::MergedRows;

/// How draws enter the model.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum DrawMode {
    /// Only decisive games (the 2015 article's setting).
    Exclude,
    /// Every game; draws are targets of 0.5 (Texel tuning's convention).
    Half,
    /// Win/draw/loss as ordered outcomes with a fitted draw band.
    Ordinal,
}

/// The loss of the binary model.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Loss {
    /// Cross-entropy (maximum likelihood).
    #[cfg_attr(feature = "cli", value(name = "ce", alias = "cross-entropy"))]
    CrossEntropy,
    /// Mean squared error between σ(θ·x) and the score, as Texel-style tuners use.
    Mse,
}

/// `ln(1 + e^z)` without overflow.
#[inline]
pub fn softplus(z: f64) -> f64 {
    z.max(0.0) + (-z.abs()).exp().ln_1p()
}

/// The logistic function.
#[inline]
pub fn sigmoid(z: f64) -> f64 {
    if z >= 0.0 {
        1.0 / (1.0 + (-z).exp())
    } else {
        let e = z.exp();
        e / (1.0 + e)
    }
}

/// `(softplus(z), sigmoid(z))` from one exponential: both are functions of
/// `e^(−|z|)`, and the same bits as the two calls (the tuner's pass spends
/// a sixth of its time in `exp` and `ln_1p`).
#[inline]
pub fn softplus_and_sigmoid(z: f64) -> (f64, f64) {
    let (e, sigmoid) = exp_neg_abs_and_sigmoid(z);
    (z.max(0.0) + e.ln_1p(), sigmoid)
}

/// `(e^(−|z|), sigmoid(z))`: the exponential that softplus and sigmoid
/// share (`softplus(z) = max(z, 0) + ln(1 + e^(−|z|))`), and the sigmoid
/// from it, the same bits as [`sigmoid`].
#[inline]
pub fn exp_neg_abs_and_sigmoid(z: f64) -> (f64, f64) {
    let e = (-z.abs()).exp();
    (e, if z >= 0.0 { 1.0 / (1.0 + e) } else { e / (1.0 + e) })
}

/// The design: merged rows as a matrix (with a leading column of ones when
/// the model has an intercept), with the result counts per row.
#[derive(Clone, Debug)]
pub struct Design {
    /// Distinct rows × parameters.
    pub x: Array2<f64>,
    /// `[black won, draw, white won]` counts per row.
    pub counts: Vec<[f64; 3]>,
    /// Whether parameter 0 is an intercept (not penalised).
    pub intercept: bool,
}

impl Design {
    /// The design of `rows`.
    pub fn new(rows: &MergedRows, intercept: bool) -> Design {
        let p = rows.width() + usize::from(intercept);
        let mut x = Array2::<f64>::zeros((rows.len(), p));
        for i in 0..rows.len() {
            let offset = usize::from(intercept);
            if intercept {
                x[[i, 0]] = 1.0;
            }
            for (j, &v) in rows.row(i).iter().enumerate() {
                x[[i, j + offset]] = v;
            }
        }
        Design { x, counts: rows.counts.clone(), intercept }
    }

    /// Number of linear coefficients (intercept included).
    pub fn coefficients(&self) -> usize {
        self.x.ncols()
    }

    /// The penalty mask: 1 for features, 0 for the intercept.
    fn penalised(&self) -> Array1<f64> {
        Array1::from_shape_fn(self.coefficients(), |j| if self.intercept && j == 0 { 0.0 } else { 1.0 })
    }
}

/// Binary logistic regression with fractional targets.
#[derive(Clone, Debug)]
pub struct BinaryProblem {
    design: Design,
    /// Mass of target 1 per row.
    pos: Vec<f64>,
    /// Mass of target 0 per row.
    neg: Vec<f64>,
    total: f64,
    lambda: f64,
    mask: Array1<f64>,
    loss: Loss,
}

impl BinaryProblem {
    /// The problem for `design` with draws excluded or counted as half points.
    pub fn new(design: Design, draws: DrawMode, loss: Loss, lambda: f64) -> BinaryProblem {
        let half = if draws == DrawMode::Half { 0.5 } else { 0.0 };
        let pos: Vec<f64> = design.counts.iter().map(|c| c[2] + half * c[1]).collect();
        let neg: Vec<f64> = design.counts.iter().map(|c| c[0] + half * c[1]).collect();
        let total = pos.iter().chain(&neg).sum();
        let mask = design.penalised();
        BinaryProblem { design, pos, neg, total, lambda, mask, loss }
    }

    /// The design matrix.
    pub fn design(&self) -> &Design {
        &self.design
    }

    /// Mean loss without the penalty.
    pub fn data_loss(&self, theta: &Array1<f64>) -> f64 {
        let z = self.design.x.dot(theta);
        let mut sum = 0.0;
        for (i, &zi) in z.iter().enumerate() {
            sum += match self.loss {
                Loss::CrossEntropy => self.pos[i] * softplus(-zi) + self.neg[i] * softplus(zi),
                Loss::Mse => {
                    let h = sigmoid(zi);
                    self.pos[i] * (h - 1.0).powi(2) + self.neg[i] * h * h
                }
            };
        }
        sum / self.total
    }

    fn penalty(&self, theta: &Array1<f64>) -> f64 {
        self.lambda * theta.iter().zip(&self.mask).map(|(t, m)| m * t * t).sum::<f64>()
    }

    /// The Fisher information of the unpenalised log-likelihood (summed, not
    /// averaged, over rows): `Σ n h(1−h) x xᵀ`. Its inverse is the
    /// covariance of θ.
    pub fn information(&self, theta: &Array1<f64>) -> Array2<f64> {
        let z = self.design.x.dot(theta);
        let weights: Vec<f64> = z
            .iter()
            .enumerate()
            .map(|(i, &zi)| {
                let h = sigmoid(zi);
                (self.pos[i] + self.neg[i]) * h * (1.0 - h)
            })
            .collect();
        weighted_gram(&self.design.x, &weights)
    }

    /// Pearson dispersion `Σ (y − h)² / (h(1−h)) / (n − p)` over rows with
    /// targets 0, ½ and 1: the quasi-binomial scale of a fit with draws as
    /// half points (what R's `quasibinomial` estimates).
    pub fn dispersion(&self, theta: &Array1<f64>) -> f64 {
        let z = self.design.x.dot(theta);
        let mut chi2 = 0.0;
        let mut rows = 0.0;
        for (i, &zi) in z.iter().enumerate() {
            let h = sigmoid(zi);
            let [losses, draws, wins] = self.design.counts[i];
            chi2 += (wins * (1.0 - h).powi(2) + losses * h * h + draws * (0.5 - h).powi(2)) / (h * (1.0 - h));
            rows += wins + losses + draws;
        }
        chi2 / (rows - self.design.coefficients() as f64)
    }

    /// For distinct row `i` at score `z`: the derivative of its summed loss
    /// with respect to `z`, and the second derivative.
    fn row_gradient_weight(&self, i: usize, z: f64) -> (f64, f64) {
        let h = sigmoid(z);
        let n = self.pos[i] + self.neg[i];
        match self.loss {
            Loss::CrossEntropy => (n * h - self.pos[i], n * h * (1.0 - h)),
            Loss::Mse => {
                let u = h * (1.0 - h);
                let r = 2.0 * (n * h - self.pos[i]);
                (r * u, 2.0 * n * u * u + r * u * (1.0 - 2.0 * h))
            }
        }
    }

    /// Sandwich covariance `H⁻¹ G H⁻¹` of an M-estimator (used for MSE
    /// fits, whose Hessian is not a Fisher information), with `H` and `G`
    /// summed over rows. `None` if `H` is not positive definite.
    pub fn sandwich(&self, theta: &Array1<f64>) -> Option<Array2<f64>> {
        let z = self.design.x.dot(theta);
        // Derivative of one observation's loss with respect to z, at target y.
        let per_row = |zi: f64, y: f64| {
            let h = sigmoid(zi);
            match self.loss {
                Loss::CrossEntropy => h - y,
                Loss::Mse => 2.0 * (h - y) * h * (1.0 - h),
            }
        };
        let hessian_weights: Vec<f64> = z.iter().enumerate().map(|(i, &zi)| self.row_gradient_weight(i, zi).1).collect();
        // Each observation's own gradient: a draw (target ½ with draws as
        // half points) is one observation, not two halves at 1 and 0.
        let half = self.pos.iter().zip(&self.design.counts).any(|(p, c)| c[1] > 0.0 && *p > c[2]);
        let spread: Vec<f64> = z
            .iter()
            .enumerate()
            .map(|(i, &zi)| {
                let [losses, draws, wins] = self.design.counts[i];
                let draws = if half { draws * per_row(zi, 0.5).powi(2) } else { 0.0 };
                wins * per_row(zi, 1.0).powi(2) + losses * per_row(zi, 0.0).powi(2) + draws
            })
            .collect();
        let h = weighted_gram(&self.design.x, &hessian_weights);
        let g = weighted_gram(&self.design.x, &spread);
        let hinv = super::linalg::spd_inverse(&h).ok()?;
        Some(hinv.dot(&g).dot(&hinv))
    }
}

/// `Σ w_i x_i x_iᵀ`.
pub fn weighted_gram(x: &Array2<f64>, weights: &[f64]) -> Array2<f64> {
    let p = x.ncols();
    let mut m = Array2::<f64>::zeros((p, p));
    for (row, &w) in x.rows().into_iter().zip(weights) {
        if w == 0.0 {
            continue;
        }
        for a in 0..p {
            let wa = w * row[a];
            for b in a..p {
                m[[a, b]] += wa * row[b];
            }
        }
    }
    for a in 0..p {
        for b in 0..a {
            m[[a, b]] = m[[b, a]];
        }
    }
    m
}

impl CostFunction for BinaryProblem {
    type Param = Array1<f64>;
    type Output = f64;

    fn cost(&self, theta: &Array1<f64>) -> Result<f64, Error> {
        Ok(self.data_loss(theta) + self.penalty(theta))
    }
}

impl Gradient for BinaryProblem {
    type Param = Array1<f64>;
    type Gradient = Array1<f64>;

    fn gradient(&self, theta: &Array1<f64>) -> Result<Array1<f64>, Error> {
        let z = self.design.x.dot(theta);
        let mut g = Array1::<f64>::zeros(theta.len());
        for (i, &zi) in z.iter().enumerate() {
            let (gw, _) = self.row_gradient_weight(i, zi);
            if gw != 0.0 {
                g.scaled_add(gw, &self.design.x.row(i));
            }
        }
        g /= self.total;
        Ok(g + &(&self.mask * theta * (2.0 * self.lambda)))
    }
}

impl Hessian for BinaryProblem {
    type Param = Array1<f64>;
    type Hessian = SymMatrix;

    fn hessian(&self, theta: &Array1<f64>) -> Result<SymMatrix, Error> {
        let z = self.design.x.dot(theta);
        let weights: Vec<f64> = z.iter().enumerate().map(|(i, &zi)| self.row_gradient_weight(i, zi).1 / self.total).collect();
        let mut h = weighted_gram(&self.design.x, &weights);
        for j in 0..theta.len() {
            h[[j, j]] += 2.0 * self.lambda * self.mask[j];
        }
        Ok(SymMatrix(h))
    }
}

/// Ordered logistic regression with a symmetric draw band. Parameters: the
/// linear coefficients, then `γ = ln c`.
#[derive(Clone, Debug)]
pub struct OrdinalProblem {
    design: Design,
    total: f64,
    lambda: f64,
    mask: Array1<f64>,
}

/// Per-row derivatives of the ordinal log-likelihood with respect to the
/// linear score `s` and the band half-width `c`.
struct OrdinalTerms {
    loglik: f64,
    ds: f64,
    dc: f64,
    dss: f64,
    dsc: f64,
    dcc: f64,
}

fn ordinal_terms(s: f64, c: f64, counts: &[f64; 3]) -> OrdinalTerms {
    let [losses, draws, wins] = *counts;
    let (a, b) = (s - c, -s - c);
    let (pw, pl) = (sigmoid(a), sigmoid(b));
    let (qw, ql) = (1.0 - pw, 1.0 - pl);
    let (dw, dl) = (pw * qw, pl * ql); // σ'(a), σ'(b)
    let (d2w, d2l) = (dw * (1.0 - 2.0 * pw), dl * (1.0 - 2.0 * pl)); // σ''
    // log σ(a) = −softplus(−a); log σ(b) likewise.
    let mut t = OrdinalTerms {
        loglik: -wins * softplus(-a) - losses * softplus(-b),
        ds: wins * qw - losses * ql,
        dc: -wins * qw - losses * ql,
        dss: -wins * dw - losses * dl,
        dsc: wins * dw - losses * dl,
        dcc: -wins * dw - losses * dl,
    };
    if draws > 0.0 {
        // P(draw) = σ(c − s) − σ(−c − s) = σ(c − s)·σ(c + s)·(1 − e^(−2c)):
        // the product form does not cancel when |s| is large.
        let pd = (sigmoid(c - s) * sigmoid(c + s) * -(-2.0 * c).exp_m1()).max(f64::MIN_POSITIVE);
        let d_s = -dw + dl;
        let d_c = dw + dl;
        let d_ss = -d2w - d2l;
        let d_sc = d2w - d2l;
        let d_cc = -d2w - d2l;
        t.loglik += draws * pd.ln();
        t.ds += draws * d_s / pd;
        t.dc += draws * d_c / pd;
        t.dss += draws * (d_ss / pd - d_s * d_s / (pd * pd));
        t.dsc += draws * (d_sc / pd - d_s * d_c / (pd * pd));
        t.dcc += draws * (d_cc / pd - d_c * d_c / (pd * pd));
    }
    t
}

impl OrdinalProblem {
    /// The problem for `design` (all three outcomes are used).
    pub fn new(design: Design, lambda: f64) -> OrdinalProblem {
        let total = design.counts.iter().map(|c| c[0] + c[1] + c[2]).sum();
        let mask = design.penalised();
        OrdinalProblem { design, total, lambda, mask }
    }

    /// Number of parameters (coefficients and γ).
    pub fn params(&self) -> usize {
        self.design.coefficients() + 1
    }

    /// The design matrix.
    pub fn design(&self) -> &Design {
        &self.design
    }

    /// A starting point: θ = 0 and the band that gives the observed draw rate.
    pub fn start(&self) -> Array1<f64> {
        let totals = self.design.counts.iter().fold([0.0; 3], |a, c| [a[0] + c[0], a[1] + c[1], a[2] + c[2]]);
        let draw_rate = (totals[1] / self.total).clamp(1e-3, 0.999);
        let c = ((1.0 + draw_rate) / (1.0 - draw_rate)).ln();
        let mut start = Array1::zeros(self.params());
        start[self.params() - 1] = c.ln();
        start
    }

    fn split<'a>(&self, param: &'a Array1<f64>) -> (ndarray::ArrayView1<'a, f64>, f64) {
        let k = self.design.coefficients();
        (param.slice(ndarray::s![..k]), param[k].exp())
    }

    /// Sums over rows: log-likelihood, gradient and Hessian of the
    /// log-likelihood with respect to (θ, γ).
    fn sums(&self, param: &Array1<f64>, want_hessian: bool) -> (f64, Array1<f64>, Array2<f64>) {
        let (theta, c) = self.split(param);
        let k = self.design.coefficients();
        let s = self.design.x.dot(&theta);
        let mut ll = 0.0;
        let mut g = Array1::<f64>::zeros(k + 1);
        let mut h = Array2::<f64>::zeros((k + 1, k + 1));
        for (i, &si) in s.iter().enumerate() {
            let t = ordinal_terms(si, c, &self.design.counts[i]);
            ll += t.loglik;
            let row = self.design.x.row(i);
            for a in 0..k {
                g[a] += t.ds * row[a];
            }
            // γ = ln c: ∂/∂γ = c ∂/∂c, ∂²/∂γ² = c² ∂²/∂c² + c ∂/∂c.
            g[k] += t.dc * c;
            if want_hessian {
                for a in 0..k {
                    for b in a..k {
                        h[[a, b]] += t.dss * row[a] * row[b];
                    }
                    h[[a, k]] += t.dsc * c * row[a];
                }
                h[[k, k]] += t.dcc * c * c + t.dc * c;
            }
        }
        for a in 0..=k {
            for b in 0..a {
                h[[a, b]] = h[[b, a]];
            }
        }
        (ll, g, h)
    }

    /// The observed information (minus the Hessian of the summed,
    /// unpenalised log-likelihood) at `param`.
    pub fn information(&self, param: &Array1<f64>) -> Array2<f64> {
        -self.sums(param, true).2
    }

    /// Mean negative log-likelihood without the penalty.
    pub fn data_loss(&self, param: &Array1<f64>) -> f64 {
        -self.sums(param, false).0 / self.total
    }

    fn penalty(&self, param: &Array1<f64>) -> f64 {
        let (theta, _) = self.split(param);
        self.lambda * theta.iter().zip(&self.mask).map(|(t, m)| m * t * t).sum::<f64>()
    }
}

impl CostFunction for OrdinalProblem {
    type Param = Array1<f64>;
    type Output = f64;

    fn cost(&self, param: &Array1<f64>) -> Result<f64, Error> {
        Ok(self.data_loss(param) + self.penalty(param))
    }
}

impl Gradient for OrdinalProblem {
    type Param = Array1<f64>;
    type Gradient = Array1<f64>;

    fn gradient(&self, param: &Array1<f64>) -> Result<Array1<f64>, Error> {
        let (_, g, _) = self.sums(param, false);
        let k = self.design.coefficients();
        let mut g = -g / self.total;
        for j in 0..k {
            g[j] += 2.0 * self.lambda * self.mask[j] * param[j];
        }
        Ok(g)
    }
}

impl Hessian for OrdinalProblem {
    type Param = Array1<f64>;
    type Hessian = SymMatrix;

    fn hessian(&self, param: &Array1<f64>) -> Result<SymMatrix, Error> {
        let (_, _, h) = self.sums(param, true);
        let k = self.design.coefficients();
        let mut h = -h / self.total;
        for j in 0..k {
            h[[j, j]] += 2.0 * self.lambda * self.mask[j];
        }
        Ok(SymMatrix(h))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::GameResult;
    use crate::dataset::merged::RowMerger;

    #[test]
    fn softplus_and_sigmoid_from_one_exponential_are_the_same_bits() {
        let mut zs = vec![0.0, -0.0, 1e-300, -1e-300, 710.0, -710.0, 800.0, -800.0, f64::MAX, f64::MIN];
        // Logits of every size, both signs, including a fine grid near zero.
        zs.extend((-4000..=4000).map(|i| f64::from(i) * 0.0137));
        zs.extend((1..200).map(|i| 1.7f64.powi(i)).flat_map(|z| [z, -z, 1.0 / z, -1.0 / z]));
        for z in zs {
            let (softplus_z, sigmoid_z) = softplus_and_sigmoid(z);
            assert_eq!(softplus_z.to_bits(), softplus(z).to_bits(), "softplus({z})");
            assert_eq!(sigmoid_z.to_bits(), sigmoid(z).to_bits(), "sigmoid({z})");
        }
    }

    fn rows() -> MergedRows {
        let mut m = RowMerger::new(vec!["a".into(), "b".into()], false);
        let data = [
            ([1.0, 0.0], GameResult::WhiteWins),
            ([1.0, 1.0], GameResult::Draw),
            ([-1.0, 0.0], GameResult::BlackWins),
            ([0.0, 1.0], GameResult::WhiteWins),
            ([0.0, -1.0], GameResult::Draw),
            ([2.0, -1.0], GameResult::BlackWins),
            ([1.0, 0.0], GameResult::Draw),
        ];
        for (x, r) in data {
            m.add(&x, r, None);
        }
        m.finish()
    }

    /// Central differences of `f` along each coordinate.
    fn numeric_gradient(f: impl Fn(&Array1<f64>) -> f64, at: &Array1<f64>) -> Array1<f64> {
        let eps = 1e-6;
        Array1::from_shape_fn(at.len(), |j| {
            let (mut a, mut b) = (at.clone(), at.clone());
            a[j] += eps;
            b[j] -= eps;
            (f(&a) - f(&b)) / (2.0 * eps)
        })
    }

    fn check_derivatives<P>(p: &P, at: Array1<f64>)
    where
        P: CostFunction<Param = Array1<f64>, Output = f64>
            + Gradient<Param = Array1<f64>, Gradient = Array1<f64>>
            + Hessian<Param = Array1<f64>, Hessian = SymMatrix>,
    {
        let g = p.gradient(&at).unwrap();
        let ng = numeric_gradient(|t| p.cost(t).unwrap(), &at);
        for j in 0..at.len() {
            assert!((g[j] - ng[j]).abs() < 1e-6, "gradient {j}: {} vs {}", g[j], ng[j]);
        }
        let h = p.hessian(&at).unwrap().0;
        for j in 0..at.len() {
            let nh = numeric_gradient(|t| p.gradient(t).unwrap()[j], &at);
            for k in 0..at.len() {
                assert!((h[[j, k]] - nh[k]).abs() < 1e-5, "hessian {j},{k}: {} vs {}", h[[j, k]], nh[k]);
            }
        }
    }

    #[test]
    fn analytic_derivatives_match_finite_differences() {
        let at = Array1::from(vec![0.3, -0.7]);
        for draws in [DrawMode::Exclude, DrawMode::Half] {
            for loss in [Loss::CrossEntropy, Loss::Mse] {
                check_derivatives(&BinaryProblem::new(Design::new(&rows(), false), draws, loss, 0.01), at.clone());
            }
        }
        check_derivatives(
            &BinaryProblem::new(Design::new(&rows(), true), DrawMode::Half, Loss::CrossEntropy, 0.01),
            Array1::from(vec![0.1, 0.3, -0.7]),
        );
        check_derivatives(&OrdinalProblem::new(Design::new(&rows(), false), 0.01), Array1::from(vec![0.3, -0.7, -0.4]));
        check_derivatives(&OrdinalProblem::new(Design::new(&rows(), true), 0.0), Array1::from(vec![0.2, 0.3, -0.7, 0.1]));
    }

    #[test]
    fn ordinal_probabilities_sum_to_one() {
        for (s, c) in [(0.0, 0.5), (3.0, 0.1), (-20.0, 2.0)] {
            let pw = sigmoid(s - c);
            let pl = sigmoid(-s - c);
            let pd = sigmoid(c - s) * sigmoid(c + s) * -(-2.0 * c).exp_m1();
            assert!((pw + pl + pd - 1.0).abs() < 1e-12);
        }
    }
}
