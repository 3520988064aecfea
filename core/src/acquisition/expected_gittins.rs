//! The Gittins index of a control set at its controlled values `x`: the `g` with
//! `E_X[EI([x^set, X]; g)] = λ·c_set`, the expectation over the variables the set leaves to
//! chance taken over the sample bank (issue 20's Gittins rule for control sets,
//! [`crate::policy::gittins_cvs`]).
//!
//! Playing the set at `x` gives the outcome at `[x, X]` for a random `X`: under the posterior a
//! mixture of normals over the bank's points, whose Pandora's Box index (paper 002's, for one
//! box) is [`mixture_gittins_index`]. With every variable controlled the bank plays no part and
//! this is paper 002's index at `x`. The gradient in `x` follows from the implicit function
//! theorem: `∇g = Σₛ (∂g/∂μₛ ∇μₛ + ∂g/∂σₛ ∇σₛ)`, the sensitivities from
//! [`MixtureIndex::sensitivity`](crate::special::improvement::MixtureIndex::sensitivity).

use super::improvement::variance_floor;
use super::posterior::moments;
use super::{Acquisition, Need};
use crate::expectation::{merge, SampleBank};
use crate::gp::Gp;
use crate::problem::ControlSet;
use crate::real::Real;
use crate::special::improvement::mixture_gittins_index;

/// Scalars of workspace an [`ExpectedGittins`] in `D` variables needs for a bank of `bank`
/// points: each point's mean and standard deviation and their gradients.
pub const fn workspace_len<const D: usize>(bank: usize) -> usize {
    bank * (2 + 2 * D)
}

/// The index of one control set at price `e^{log_price}` (see the module documentation), with
/// caller memory for the bank's posteriors.
#[derive(Debug)]
pub struct ExpectedGittins<'a, R, const N: usize, const D: usize, S, B> {
    gp: &'a Gp<R, N, D, S>,
    bank: &'a SampleBank<R, D, B>,
    set: ControlSet,
    log_price: R,
    workspace: &'a mut [R],
}

impl<'a, R, const N: usize, const D: usize, S, B> ExpectedGittins<'a, R, N, D, S, B>
where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
    B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
{
    /// The index of `set` under `gp` over `bank` at price `e^{log_price}` (`ln λ + ln c`).
    /// `None` when `workspace` is shorter than [`workspace_len`]`::<D>(bank.len())`.
    pub fn new(
        gp: &'a Gp<R, N, D, S>,
        bank: &'a SampleBank<R, D, B>,
        set: ControlSet,
        log_price: R,
        workspace: &'a mut [R],
    ) -> Option<Self> {
        (workspace.len() >= workspace_len::<D>(bank.len())).then_some(ExpectedGittins {
            gp,
            bank,
            set,
            log_price,
            workspace,
        })
    }
}

impl<R, const N: usize, const D: usize, S, B> Acquisition<R, D>
    for ExpectedGittins<'_, R, N, D, S, B>
where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
    B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
{
    fn evaluate(&mut self, x: &[R; D], need: Need<R>) -> Option<(R, [R; D])> {
        let full = (0..D).all(|l| self.set.contains(l));
        let points = if full {
            &self.bank.points()[..1]
        } else {
            self.bank.points()
        };
        let s = points.len();
        let gradient = need.wants_gradient();
        let (means, rest) = self.workspace.split_at_mut(s);
        let (stds, rest) = rest.split_at_mut(s);
        let (d_means, d_stds) = rest.split_at_mut(s * D);
        for (k, random) in points.iter().enumerate() {
            let (mean, std, d_mean, d_std) = moments(
                self.gp,
                &merge(self.set, x, random),
                gradient,
                variance_floor(),
            )?;
            means[k] = mean;
            stds[k] = std;
            if gradient {
                d_means[k * D..(k + 1) * D].copy_from_slice(&d_mean);
                d_stds[k * D..(k + 1) * D].copy_from_slice(&d_std);
            }
        }
        let found = mixture_gittins_index(&means[..s], &stds[..s], self.log_price).ok()?;
        let index = found.index;
        if !index.is_finite() {
            return None;
        }
        if !gradient || index < need.gradient_from() {
            return Some((index, [R::ZERO; D]));
        }
        let mut grad = [R::ZERO; D];
        for k in 0..s {
            let (dm, ds) = found.sensitivity(means[k], stds[k]);
            for (l, g) in grad.iter_mut().enumerate() {
                if self.set.contains(l) {
                    *g += dm * d_means[k * D + l] + ds * d_stds[k * D + l];
                }
            }
        }
        Some((index, grad))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dist::Distribution;
    use crate::gp::WhenFull;
    use crate::kernel::Kernel;
    use crate::linalg::tri_len;
    use crate::problem::{Problem, Variable};
    use crate::special::improvement::{expected_improvement, gittins_index};

    type G = Gp<f64, 8, 3, [f64; tri_len(8)]>;
    type Bank = SampleBank<f64, 3, [[f64; 3]; 16]>;

    fn gp() -> G {
        let k = Kernel::squared_exponential([0.3, 0.5, 0.4], 1.3).unwrap();
        let mut gp: G = Gp::new(k, 0.1, 1e-4, WhenFull::Reject, [0.0; tri_len(8)]).unwrap();
        for (x, y) in [
            ([0.1, 0.2, 0.7], 0.3),
            ([0.8, 0.4, 0.1], -0.2),
            ([0.5, 0.9, 0.5], 0.9),
            ([0.3, 0.6, 0.2], 0.1),
        ] {
            gp.push(&x, y).unwrap();
        }
        gp
    }

    fn bank() -> Bank {
        let v = Variable {
            lower: 0.0,
            upper: 1.0,
            uncontrolled: Distribution::uniform(0.0, 1.0).unwrap(),
        };
        let problem: Problem<f64, 3, 2> = Problem::new(
            &[v; 3],
            &[ControlSet::of(&[0]), ControlSet::of(&[0, 1, 2])],
            Some(&[0.1, 1.0]),
        )
        .unwrap();
        SampleBank::quasi_random(&problem, [[0.0; 3]; 16], 3).unwrap()
    }

    const VALUE: Need<f64> = Need::Value {
        floor: f64::NEG_INFINITY,
    };

    #[test]
    fn the_index_prices_the_mean_improvement_over_the_bank_at_lambda_c() {
        let (gp, bank) = (gp(), bank());
        let mut ws = [0.0; 16 * 8];
        let set = ControlSet::of(&[0]);
        for (x0, price) in [(0.2, 1e-3), (0.55, 0.05), (0.9, 1e-8)] {
            let x = [x0, 0.0, 0.0];
            let mut acq = ExpectedGittins::new(&gp, &bank, set, f64::ln(price), &mut ws).unwrap();
            let (g, _) = acq.evaluate(&x, VALUE).unwrap();
            // Independently: the bank's mean EI at g, from each point's prediction.
            let mean_ei = bank
                .points()
                .iter()
                .map(|r| {
                    let p = gp.predict(&merge(set, &x, r)).unwrap();
                    expected_improvement(p.mean, p.variance.sqrt(), g).unwrap()
                })
                .sum::<f64>()
                / 16.0;
            assert!(
                (mean_ei - price).abs() < 1e-10 * price,
                "mean EI {mean_ei} at the index, price {price}"
            );
        }
        // Every variable controlled: paper 002's index at x, whatever the bank.
        let x = [0.4, 0.3, 0.8];
        let p = gp.predict(&x).unwrap();
        let want = gittins_index(p.mean, p.variance.sqrt(), 0.02).unwrap();
        let full = ControlSet::of(&[0, 1, 2]);
        let mut acq = ExpectedGittins::new(&gp, &bank, full, f64::ln(0.02), &mut ws).unwrap();
        let (g, _) = acq.evaluate(&x, VALUE).unwrap();
        assert!((g - want).abs() < 1e-12 * want.abs().max(1.0));
    }

    #[test]
    fn gradients_match_finite_differences_on_the_controlled_coordinates_only() {
        let (gp, bank) = (gp(), bank());
        let mut ws = [0.0; 16 * 8];
        for (set, x, price) in [
            (ControlSet::of(&[0]), [0.35, 0.0, 0.0], 1e-3),
            (ControlSet::of(&[0, 2]), [0.7, 0.0, 0.15], 0.2),
            (ControlSet::of(&[0, 1, 2]), [0.4, 0.3, 0.8], 1e-6),
        ] {
            let mut acq = ExpectedGittins::new(&gp, &bank, set, f64::ln(price), &mut ws).unwrap();
            let (v, g) = acq.evaluate(&x, Need::Gradient).unwrap();
            assert_eq!(v, acq.evaluate(&x, VALUE).unwrap().0);
            for l in 0..3 {
                if !set.contains(l) {
                    assert_eq!(g[l], 0.0);
                    continue;
                }
                let (mut a, mut b) = (x, x);
                a[l] += 1e-6;
                b[l] -= 1e-6;
                let fd = (acq.evaluate(&a, VALUE).unwrap().0 - acq.evaluate(&b, VALUE).unwrap().0)
                    / 2e-6;
                assert!(
                    (fd - g[l]).abs() < 1e-6 * (1.0 + fd.abs()),
                    "∂{l} of {set:?}: fd {fd} vs {}",
                    g[l]
                );
            }
        }
    }

    #[test]
    fn too_little_workspace_is_refused() {
        let (gp, bank) = (gp(), bank());
        let mut ws = [0.0; 16 * 8 - 1];
        assert!(ExpectedGittins::new(&gp, &bank, ControlSet::of(&[0]), 0.0, &mut ws).is_none());
    }

    #[test]
    #[cfg_attr(
        feature = "fast-math",
        ignore = "compares f32 with f64 at libm's tolerances; fast-math's f32 exp is 2.4e-3 relative"
    )]
    fn f32_values_and_gradients_agree_with_f64() {
        let (gp, bank) = (gp(), bank());
        let k32 = Kernel::squared_exponential([0.3f32, 0.5, 0.4], 1.3).unwrap();
        let mut gp32: Gp<f32, 8, 3, [f32; tri_len(8)]> =
            Gp::new(k32, 0.1, 1e-4, WhenFull::Reject, [0.0; tri_len(8)]).unwrap();
        for (x, y) in gp.inputs().iter().zip(gp.outputs()) {
            gp32.push(&x.map(|v| v as f32), *y as f32).unwrap();
        }
        let pts: [[f32; 3]; 16] = core::array::from_fn(|k| bank.points()[k].map(|v| v as f32));
        let bank32 = SampleBank::from_points(pts).unwrap();
        let (mut ws, mut ws32) = ([0.0; 16 * 8], [0.0f32; 16 * 8]);
        let set = ControlSet::of(&[0, 2]);
        for (x, price) in [([0.2, 0.0, 0.6], 1e-3), ([0.75, 0.0, 0.1], 0.05)] {
            let mut a = ExpectedGittins::new(&gp, &bank, set, f64::ln(price), &mut ws).unwrap();
            let (v, g) = a.evaluate(&x, Need::Gradient).unwrap();
            let mut b = ExpectedGittins::new(&gp32, &bank32, set, f64::ln(price) as f32, &mut ws32)
                .unwrap();
            let (v32, g32) = b.evaluate(&x.map(|v| v as f32), Need::Gradient).unwrap();
            assert!(
                (v - v32 as f64).abs() < 1e-5 * v.abs().max(1.0),
                "{v} vs {v32}"
            );
            for l in [0, 2] {
                assert!(
                    (g[l] - g32[l] as f64).abs() < 1e-3 * g[l].abs().max(1.0),
                    "∂{l}"
                );
            }
        }
    }
}
