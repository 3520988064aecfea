//! Multi-step lookahead expected improvement (paper 002's MSEI baseline, Jiang et al. 2020) as
//! the paper's code builds it on BoTorch's `qMultiStepLookahead`: four stages (the point to
//! observe and three lookahead points), one fantasy per stage, and that fantasy the posterior
//! mean (the code's `PosteriorMeanSampler` draws zeros), each stage valued by analytic EI with
//! the best observed value of its fantasy model as the incumbent.
//!
//! The tree is a chain of [`STAGES`] points `x₀ … x₃`. Stage `k`'s model is the GP conditioned
//! on `(xⱼ, μ(xⱼ))` for `j < k` with the observation noise `σₙ²`. Observing the posterior mean
//! leaves the mean unchanged everywhere, so with `mₖ = μ(xₖ)` and `Pᵢⱼ = k_n(xᵢ, xⱼ)` (the
//! posterior covariance of the data's model):
//!
//! `α(x₀ … x₃) = Σₖ EI(mₖ, σₖ, bₖ)`, `σₖ² = Pₖₖ − bᵀA⁻¹b`, `A = P_{<k,<k} + σₙ²I`,
//! `b = P_{<k,k}`, `bₖ = max(y_max, m₀ … m_{k−1})`,
//!
//! with `EI(m, σ, b) = σ·h((m − b)/σ)` and `σₖ²` floored at `1e-12` as BoTorch's
//! `ExpectedImprovement` does. The value is a function of the four means and the 4 × 4
//! covariance; its gradient goes through them: `∂EI/∂m = Φ(u)`, `∂EI/∂σ = φ(u)`, and
//! `dσₖ² = dPₖₖ − 2Σⱼ cⱼ dPⱼₖ + Σᵢⱼ cᵢcⱼ dPᵢⱼ` with `c = A⁻¹b`; then to the points by
//! `∇μ` and `∇k_n`. An evaluation costs four pairs of triangular solves, `O(n² + n·d)` each.
//!
//! **BMSEI** (Astudillo et al. 2021) as the paper's code runs it with a known cost: each
//! stage's EI times `sigmoid((L − Σ_{j≤k} c(xⱼ))/η)`, the smoothed indicator (BoTorch's
//! `soft_eval_constraint`, `η = 1e-3`) that the stages so far fit the lookahead budget `L`
//! ([`MultiStepEi::budgeted`]); its gradient adds `−Σ_{k≥j} EIₖSₖ(1 − Sₖ)/η · ∇c(xⱼ)` to each
//! point `xⱼ`.
//!
//! BoTorch's autograd gradient of this tree is not the derivative of its value: its fantasy
//! models do not hand autograd the whole dependence of the later stages on the earlier
//! points. On the unit-test model at `((0.4, 0.45), (0.2, 0.7), (0.55, 0.35), (0.9, 0.1))` it
//! gives `(−0.236, 0.040)` for the first point where central differences of BoTorch's own
//! value give `(0.222, −0.130)`, as does this module (`tools/reference/botorch_msei.py`). The
//! paper's L-BFGS-B climbed with BoTorch's; ours climbs with the derivative.

use super::cost::{LogCost, Uniform};
use crate::gp::{Gp, GpError};
use crate::linalg::{solve_lower, solve_upper_transposed};
use crate::optimize::{Coordinates, Need};
use crate::real::Real;
use crate::special::improvement::h;
use crate::special::normal::{normal_cdf, normal_pdf};

/// Stages of the tree: the point to observe and three lookahead points (the paper's code:
/// batch size 1, lookahead batch sizes `[1, 1, 1]`).
pub const STAGES: usize = 4;

/// The variance floor of each stage's EI (BoTorch's `min_var`).
pub const VARIANCE_FLOOR: f64 = 1e-12;

/// BMSEI's smoothing of a stage's budget constraint (BoTorch's `soft_eval_constraint`'s
/// `eta`).
pub const FEASIBILITY_SMOOTHING: f64 = 1e-3;

/// The decision variables of the one-shot tree: the point to observe first, then one point per
/// lookahead stage, in unit coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tree<R, const D: usize> {
    /// The stages' points, the one to observe first.
    pub points: [[R; D]; STAGES],
}

impl<R: Real, const D: usize> Tree<R, D> {
    /// True when every coordinate is finite.
    pub fn is_finite(&self) -> bool {
        self.points.iter().flatten().all(|v| v.is_finite())
    }
}

/// The coordinates in order: stage 0's, then stage 1's, ...
impl<R: Real, const D: usize> Coordinates<R> for Tree<R, D> {
    fn len(&self) -> usize {
        D * STAGES
    }

    fn get(&self, i: usize) -> R {
        self.points[i / D][i % D]
    }

    fn get_mut(&mut self, i: usize) -> &mut R {
        &mut self.points[i / D][i % D]
    }
}

/// Multi-step lookahead EI over `gp`'s posterior (see the module documentation).
#[derive(Debug, Clone, Copy)]
pub struct MultiStepEi<'a, R, const N: usize, const D: usize, S, C = Uniform> {
    gp: &'a Gp<R, N, D, S>,
    best: R,
    /// BMSEI's price and lookahead budget; MSEI has none.
    budget: Option<(C, R)>,
}

impl<'a, R, const N: usize, const D: usize, S> MultiStepEi<'a, R, N, D, S, Uniform>
where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
{
    /// MSEI under `gp`, the incumbent the largest stored output (BoTorch's `make_best_f`:
    /// the model's training targets).
    ///
    /// Errors: [`GpError::NoData`] without data (no incumbent).
    pub fn new(gp: &'a Gp<R, N, D, S>) -> Result<Self, GpError> {
        let best = gp
            .outputs()
            .iter()
            .copied()
            .fold(None, |b: Option<R>, y| Some(b.map_or(y, |b| b.max(y))))
            .ok_or(GpError::NoData)?;
        Ok(MultiStepEi {
            gp,
            best,
            budget: None,
        })
    }
}

impl<'a, R, const N: usize, const D: usize, S, C> MultiStepEi<'a, R, N, D, S, C>
where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
    C: LogCost<R, D>,
{
    /// BMSEI under `gp` (see the module documentation): each stage's EI weighted by
    /// `sigmoid((budget − Σ_{j≤k} c(xⱼ))/η)`, `η` = [`FEASIBILITY_SMOOTHING`], with the known
    /// price `cost` and the lookahead budget `budget`.
    ///
    /// Errors: [`GpError::NoData`] without data, [`GpError::NonFinite`] for a budget that is
    /// not finite.
    pub fn budgeted(gp: &'a Gp<R, N, D, S>, cost: C, budget: R) -> Result<Self, GpError> {
        if !budget.is_finite() {
            return Err(GpError::NonFinite);
        }
        let MultiStepEi { best, .. } = MultiStepEi::new(gp)?;
        Ok(MultiStepEi {
            gp,
            best,
            budget: Some((cost, budget)),
        })
    }

    /// The value at `tree`, and its gradient when `gradient`.
    ///
    /// Errors: [`GpError::NonFinite`] for a non-finite coordinate or value.
    pub fn value(&self, tree: &Tree<R, D>, gradient: bool) -> Result<(R, Tree<R, D>), GpError> {
        if !tree.is_finite() {
            return Err(GpError::NonFinite);
        }
        let gp = self.gp;
        let n = gp.len();
        let kernel = gp.kernel();
        let inputs = gp.inputs();
        let l = gp.factor();
        let xs = &tree.points;
        // Means (and their gradients), and v = L⁻¹k(X, xᵢ) then w = K_y⁻¹k(X, xᵢ) per stage.
        let mut m = [R::ZERO; STAGES];
        let mut dm = [[R::ZERO; D]; STAGES];
        let mut v = [[R::ZERO; N]; STAGES];
        let mut w = [[R::ZERO; N]; STAGES];
        for i in 0..STAGES {
            (m[i], dm[i]) = gp.predict_mean_with_gradient(&xs[i])?;
            for (vj, xj) in v[i][..n].iter_mut().zip(inputs) {
                *vj = kernel.eval(&xs[i], xj);
            }
            solve_lower(l, n, &mut v[i]);
            w[i] = v[i];
            solve_upper_transposed(l, n, &mut w[i]);
        }
        let mut p = [[R::ZERO; STAGES]; STAGES];
        for i in 0..STAGES {
            for j in 0..=i {
                let explained = v[i][..n]
                    .iter()
                    .zip(&v[j][..n])
                    .fold(R::ZERO, |s, (a, b)| s + *a * *b);
                let prior = if i == j {
                    kernel.diagonal(&xs[i])
                } else {
                    kernel.eval(&xs[i], &xs[j])
                };
                p[i][j] = prior - explained;
                p[j][i] = p[i][j];
            }
        }
        // BMSEI's feasibility of each stage, with the prices' gradients.
        let mut weights = [R::ONE; STAGES];
        let mut d_price = [[R::ZERO; D]; STAGES];
        let eta = R::from_f64(FEASIBILITY_SMOOTHING);
        if let Some((cost, budget)) = &self.budget {
            let mut spent = R::ZERO;
            for (k, x) in xs.iter().enumerate() {
                let (log_c, d_log_c) = cost.log_cost(x, gradient).ok_or(GpError::NonFinite)?;
                let c = log_c.exp();
                spent += c;
                weights[k] = R::ONE / (R::ONE + ((spent - *budget) / eta).exp());
                d_price[k] = d_log_c.map(|g| c * g);
            }
        }
        let (value, stage_values, dv_dm, dv_dp) = stages(&m, &p, gp.noise(), self.best, &weights);
        if !value.is_finite() {
            return Err(GpError::NonFinite);
        }
        let mut grad = Tree {
            points: [[R::ZERO; D]; STAGES],
        };
        if !gradient {
            return Ok((value, grad));
        }
        if self.budget.is_some() {
            // ∂(EIₖ Sₖ)/∂c(xⱼ) = −EIₖ Sₖ(1 − Sₖ)/η for every stage k ≥ j.
            let mut later = R::ZERO;
            for j in (0..STAGES).rev() {
                later += stage_values[j] * weights[j] * (R::ONE - weights[j]) / eta;
                for (g, dc) in grad.points[j].iter_mut().zip(&d_price[j]) {
                    *g -= later * *dc;
                }
            }
        }
        let mut g = [R::ZERO; D];
        for i in 0..STAGES {
            let gi = &mut grad.points[i];
            for (gk, dk) in gi.iter_mut().zip(&dm[i]) {
                *gk += dv_dm[i] * *dk;
            }
            // The prior parts: ∂k(xᵢ, xⱼ)/∂xᵢ for j ≠ i, and ∂k(xᵢ, xᵢ)/∂xᵢ.
            for j in 0..STAGES {
                let coefficient = dv_dp[i][j];
                if coefficient == R::ZERO {
                    continue;
                }
                if j == i {
                    kernel.diagonal_with_grad(&xs[i], &mut g);
                } else {
                    kernel.eval_with_grad(&xs[i], &xs[j], &mut g);
                }
                for (gk, d) in gi.iter_mut().zip(&g) {
                    *gk += coefficient * *d;
                }
            }
            // The explained parts: −Σₗ ∂k(xᵢ, Xₗ)/∂xᵢ · Σⱼ Gᵢⱼ wⱼ[l], the diagonal twice.
            for (lx, xl) in inputs.iter().enumerate() {
                let mut c = R::ZERO;
                for j in 0..STAGES {
                    let factor = if j == i { R::TWO } else { R::ONE };
                    c += factor * dv_dp[i][j] * w[j][lx];
                }
                if c == R::ZERO {
                    continue;
                }
                kernel.eval_with_grad(&xs[i], xl, &mut g);
                for (gk, d) in gi.iter_mut().zip(&g) {
                    *gk -= c * *d;
                }
            }
        }
        if !grad.is_finite() {
            return Err(GpError::NonFinite);
        }
        Ok((value, grad))
    }

    /// What an optimiser of the tree asks ([`crate::optimize::maximize_quasi_newton`] over
    /// [`Tree`]): the value, with the gradient unless `need` says it is unused.
    pub fn evaluate(&self, tree: &Tree<R, D>, need: Need<R>) -> Option<(R, Tree<R, D>)> {
        self.value(tree, need.wants_gradient()).ok()
    }
}

/// The stages' EI, each times its weight, summed from the means `m` and covariance `p`, with
/// each stage's EI, and `∂/∂mᵢ` and `∂/∂Pᵢⱼ` of the sum
/// (for `i ≠ j` the derivative in the pair's one value `Pᵢⱼ = Pⱼᵢ`, written at both places, so
/// that each point's gradient reads its own row).
// The 4 × 4 algebra is written with the indices of its formulas.
#[allow(clippy::type_complexity, clippy::needless_range_loop)]
fn stages<R: Real>(
    m: &[R; STAGES],
    p: &[[R; STAGES]; STAGES],
    noise: R,
    best_observed: R,
    weights: &[R; STAGES],
) -> (R, [R; STAGES], [R; STAGES], [[R; STAGES]; STAGES]) {
    let floor = R::from_f64(VARIANCE_FLOOR);
    let mut value = R::ZERO;
    let mut each = [R::ZERO; STAGES];
    let mut dm = [R::ZERO; STAGES];
    let mut dp = [[R::ZERO; STAGES]; STAGES];
    for k in 0..STAGES {
        // The incumbent: the observed best or a fantasy's mean (the first of equal values, as
        // autograd's max routes its gradient to one of them).
        let mut best = best_observed;
        let mut from: Option<usize> = None;
        for (j, mj) in m[..k].iter().enumerate() {
            if *mj > best {
                best = *mj;
                from = Some(j);
            }
        }
        // c = A⁻¹b by a Cholesky factor of A (at most 3 × 3).
        let mut c = [R::ZERO; STAGES];
        let mut variance = p[k][k];
        if k > 0 {
            let mut chol = [[R::ZERO; STAGES]; STAGES];
            for i in 0..k {
                for j in 0..=i {
                    let mut s = p[i][j] + if i == j { noise } else { R::ZERO };
                    for t in 0..j {
                        s -= chol[i][t] * chol[j][t];
                    }
                    chol[i][j] = if i == j {
                        s.max(R::ZERO).sqrt()
                    } else {
                        s / chol[j][j]
                    };
                }
            }
            let mut y = [R::ZERO; STAGES];
            for i in 0..k {
                let mut s = p[i][k];
                for t in 0..i {
                    s -= chol[i][t] * y[t];
                }
                y[i] = s / chol[i][i];
            }
            for i in (0..k).rev() {
                let mut s = y[i];
                for t in i + 1..k {
                    s -= chol[t][i] * c[t];
                }
                c[i] = s / chol[i][i];
            }
            for i in 0..k {
                variance -= p[i][k] * c[i];
            }
        }
        let floored = variance < floor;
        let sigma = variance.max(floor).sqrt();
        let u = (m[k] - best) / sigma;
        each[k] = sigma * h(u);
        value += each[k] * weights[k];
        let cdf = normal_cdf(u) * weights[k];
        dm[k] += cdf;
        if let Some(j) = from {
            dm[j] -= cdf;
        }
        if floored {
            continue;
        }
        // ∂EI/∂σ² = φ(u)/(2σ).
        let dvar = weights[k] * normal_pdf(u) / (R::TWO * sigma);
        dp[k][k] += dvar;
        for j in 0..k {
            let off = -R::TWO * c[j] * dvar;
            dp[j][k] += off;
            dp[k][j] += off;
            for i in 0..k {
                // Σᵢⱼ cᵢcⱼ dAᵢⱼ: an off-diagonal value stands at two places of A.
                let twice = if i == j { R::ONE } else { R::TWO };
                dp[i][j] += twice * c[i] * c[j] * dvar;
            }
        }
    }
    (value, each, dm, dp)
}

#[cfg(test)]
// The fixtures' stage-by-coordinate tables are read by index.
#[allow(clippy::needless_range_loop)]
mod tests {
    extern crate std;

    use super::super::test_support::data;
    use super::*;

    /// A fixture's table of one pair per stage.
    fn pairs(v: &serde_json::Value) -> [[f64; 2]; STAGES] {
        let rows: std::vec::Vec<[f64; 2]> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                super::super::test_support::fixture_floats(p)
                    .try_into()
                    .unwrap()
            })
            .collect();
        rows.try_into().unwrap()
    }

    fn tree() -> Tree<f64, 2> {
        Tree {
            points: [[0.4, 0.45], [0.2, 0.7], [0.55, 0.35], [0.9, 0.1]],
        }
    }

    /// The value by conditioning copies of the model on the fantasy observations stage by
    /// stage (what BoTorch's fantasy models are), against the closed form.
    #[test]
    fn value_equals_conditioning_the_model_stage_by_stage() {
        let gp = data();
        let msei = MultiStepEi::new(&gp).unwrap();
        let t = tree();
        let (value, _) = msei.value(&t, false).unwrap();
        let mut model = gp.clone();
        let mut expected = 0.0;
        for x in &t.points {
            let best = model.outputs().iter().copied().fold(f64::MIN, f64::max);
            let pred = model.predict(x).unwrap();
            let sigma = pred.variance.max(VARIANCE_FLOOR).sqrt();
            expected += sigma * h((pred.mean - best) / sigma);
            model.push(x, pred.mean).unwrap();
        }
        assert!((value - expected).abs() < 1e-12, "{value} vs {expected}");
    }

    /// Every coordinate of the gradient against central differences.
    #[test]
    fn gradient_matches_central_differences() {
        let gp = data();
        let msei = MultiStepEi::new(&gp).unwrap();
        for t in [
            tree(),
            Tree {
                points: [[0.45, 0.85], [0.3, 0.62], [0.52, 0.88], [0.7, 0.7]],
            },
        ] {
            let (v, g) = msei.value(&t, true).unwrap();
            let (v0, _) = msei.value(&t, false).unwrap();
            assert_eq!(v.to_bits(), v0.to_bits());
            for i in 0..t.len() {
                let (mut a, mut b) = (t, t);
                *a.get_mut(i) += 1e-6;
                *b.get_mut(i) -= 1e-6;
                let fd =
                    (msei.value(&a, false).unwrap().0 - msei.value(&b, false).unwrap().0) / 2e-6;
                assert!(
                    (fd - g.get(i)).abs() < 1e-6 * (1.0 + fd.abs()),
                    "coordinate {i}: fd {fd} vs {}",
                    g.get(i)
                );
            }
        }
    }

    /// Values equal BoTorch's `qMultiStepLookahead` built as the paper's code builds it, and
    /// gradients equal the central differences of BoTorch's value (its autograd gradient is
    /// not that derivative; `tests/fixtures/botorch_msei.json`, from
    /// `tools/reference/botorch_msei.py`).
    #[test]
    fn value_and_gradient_match_botorchs_multi_step_lookahead() {
        let fixture: serde_json::Value =
            serde_json::from_str(include_str!("../../tests/fixtures/botorch_msei.json")).unwrap();
        let gp = data();
        let msei = MultiStepEi::new(&gp).unwrap();
        let trees = fixture["trees"].as_array().unwrap();
        assert_eq!(trees.len(), 6);
        let mut autograd_differs = false;
        for t in trees {
            let tree = Tree {
                points: pairs(&t["points"]),
            };
            let (value, gradient) = msei.value(&tree, true).unwrap();
            let expected = t["value"].as_f64().unwrap();
            assert!(
                (value - expected).abs() <= 1e-12 * (1.0 + expected.abs()),
                "value: ours {value:e}, BoTorch {expected:e}"
            );
            let differences = pairs(&t["value_differences"]);
            let autograd = pairs(&t["autograd"]);
            for s in 0..STAGES {
                for c in 0..2 {
                    let (ours, fd) = (gradient.points[s][c], differences[s][c]);
                    // Central differences of step 1e-6: truncation and rounding near 1e-9.
                    assert!(
                        (ours - fd).abs() <= 1e-7 * (1.0 + fd.abs()),
                        "stage {s}, coordinate {c}: ours {ours:e}, BoTorch's differences {fd:e}"
                    );
                    autograd_differs |= (autograd[s][c] - fd).abs() > 1e-3;
                }
            }
        }
        // What the module documentation says of BoTorch's autograd gradient, still true.
        assert!(autograd_differs);
    }

    /// BMSEI's values equal the paper's own `BudgetedMultiStepLookaheadEI` (known cost) and
    /// its gradients the central differences of that value, with every stage affordable, a
    /// stage at the constraint's soft edge, and a stage past it
    /// (`tests/fixtures/botorch_bmsei.json`, from `tools/reference/botorch_bmsei.py`).
    #[test]
    fn budgeted_value_and_gradient_match_the_papers_code() {
        use super::super::cost::KnownCost;
        use super::super::test_support::problem;
        let fixture: serde_json::Value =
            serde_json::from_str(include_str!("../../tests/fixtures/botorch_bmsei.json")).unwrap();
        let gp = data();
        let pr = problem();
        let trees = fixture["trees"].as_array().unwrap();
        assert_eq!(trees.len(), 12);
        for t in trees {
            let budget = t["budget"].as_f64().unwrap();
            let bmsei = MultiStepEi::budgeted(&gp, KnownCost::new(&pr, 0), budget).unwrap();
            let tree = Tree {
                points: pairs(&t["points"]),
            };
            let (value, gradient) = bmsei.value(&tree, true).unwrap();
            let expected = t["value"].as_f64().unwrap();
            assert!(
                (value - expected).abs() <= 1e-12 * (1.0 + expected.abs()),
                "budget {budget}: ours {value:e}, the paper's {expected:e}"
            );
            let differences = pairs(&t["value_differences"]);
            for s in 0..STAGES {
                for c in 0..2 {
                    let (ours, fd) = (gradient.points[s][c], differences[s][c]);
                    assert!(
                        (ours - fd).abs() <= 1e-6 * (1.0 + fd.abs()),
                        "budget {budget}, stage {s}, coordinate {c}: ours {ours:e}, \
                         differences of the paper's {fd:e}"
                    );
                }
            }
        }
    }
}
