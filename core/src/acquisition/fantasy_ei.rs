//! Expected improvement over fantasies (paper 000's EI-PSQ acquisition, as coded by the
//! paper's authors): `K` fantasy models of `f` (posterior sample paths); for each, the
//! improvement of the partial query's expected value over the best expected value of the
//! queries made so far under that fantasy; averaged over fantasies:
//!
//! ```text
//! EI(i, xⁱ) = (1/K) Σⱼ max(0, E[fⱼ([xⁱ, X⁻ⁱ])] − τⱼ),   τⱼ = max over past queries q of E[fⱼ(q)]
//! ```
//!
//! Memory: the `K` paths take `K × (F (D + 2) + N)` scalars of stack during a decision (with
//! `K = 32`, `F = 128`, `D = 5`, `N = 100` in f64: about 250 KiB), so this is for desktops.

use super::expected_path::expected_sample;
use super::{Acquisition, Need};
use crate::expectation::SampleBank;
use crate::problem::ControlSet;
use crate::real::Real;
use crate::thompson::PosteriorSample;

/// Number of fantasy models (the paper's code uses 32).
pub const FANTASIES: usize = 32;

/// The best expected value of each fantasy over the past queries `(set, x)`.
pub fn incumbents<R: Real, const D: usize, const F: usize, const N: usize, B>(
    paths: &[Option<PosteriorSample<'_, R, D, F, N>>],
    bank: &SampleBank<R, D, B>,
    history: &[(ControlSet, [R; D])],
    out: &mut [R],
) where
    B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
{
    for (path, tau) in paths.iter().flatten().zip(out.iter_mut()) {
        *tau = history
            .iter()
            .map(|(set, x)| expected_sample(path, bank, *set, x).0)
            .fold(-R::INFINITY, R::max);
    }
}

/// `EI(set, x)` and its gradient in `x` given the fantasies and their incumbents.
pub fn expected_improvement<R: Real, const D: usize, const F: usize, const N: usize, B>(
    paths: &[Option<PosteriorSample<'_, R, D, F, N>>],
    incumbents: &[R],
    bank: &SampleBank<R, D, B>,
    set: ControlSet,
    x: &[R; D],
) -> (R, [R; D])
where
    B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
{
    let mut value = R::ZERO;
    let mut grad = [R::ZERO; D];
    for (path, tau) in paths.iter().flatten().zip(incumbents) {
        let (e, g) = expected_sample(path, bank, set, x);
        // With no past query the improvement is measured from −∞: count the value itself.
        let base = if tau.is_finite() { *tau } else { R::ZERO };
        if !tau.is_finite() || e > base {
            value += e - base;
            for l in 0..D {
                grad[l] += g[l];
            }
        }
    }
    let inv = R::ONE / R::from_usize(paths.iter().flatten().count().max(1));
    (value * inv, grad.map(|g| g * inv))
}

/// [`expected_improvement`] for one control set as an [`Acquisition`]; non-finite values
/// count as failures.
#[derive(Debug, Clone, Copy)]
pub struct FantasyEi<'p, 'a, 'b, R, const D: usize, const F: usize, const N: usize, B> {
    paths: &'p [Option<PosteriorSample<'a, R, D, F, N>>],
    incumbents: &'p [R],
    bank: &'b SampleBank<R, D, B>,
    set: ControlSet,
}

impl<'p, 'a, 'b, R: Real, const D: usize, const F: usize, const N: usize, B>
    FantasyEi<'p, 'a, 'b, R, D, F, N, B>
{
    /// EI of `set` under the fantasies `paths` with their `incumbents`, averaged over `bank`.
    pub fn new(
        paths: &'p [Option<PosteriorSample<'a, R, D, F, N>>],
        incumbents: &'p [R],
        bank: &'b SampleBank<R, D, B>,
        set: ControlSet,
    ) -> Self {
        FantasyEi {
            paths,
            incumbents,
            bank,
            set,
        }
    }
}

impl<R: Real, const D: usize, const F: usize, const N: usize, B> Acquisition<R, D>
    for FantasyEi<'_, '_, '_, R, D, F, N, B>
where
    B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
{
    fn evaluate(&mut self, x: &[R; D], _: Need<R>) -> Option<(R, [R; D])> {
        let (v, g) = expected_improvement(self.paths, self.incumbents, self.bank, self.set, x);
        v.is_finite().then_some((v, g))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dist::Distribution;
    use crate::gp::{Gp, WhenFull};
    use crate::kernel::Kernel;
    use crate::linalg::tri_len;
    use crate::problem::{Problem, Variable};
    use rand_core::SeedableRng;
    use rand_xoshiro::Xoshiro128PlusPlus;

    type G = Gp<f64, 8, 2, [f64; tri_len(8)]>;

    fn setup() -> (G, Problem<f64, 2, 2>) {
        let k = Kernel::squared_exponential([0.3, 0.3], 1.0).unwrap();
        let mut gp: G = Gp::new(k, 0.0, 1e-3, WhenFull::Reject, [0.0; tri_len(8)]).unwrap();
        for (x, y) in [
            ([0.1, 0.2], 0.3),
            ([0.8, 0.4], -0.2),
            ([0.5, 0.9], 0.9),
            ([0.3, 0.6], 0.1),
        ] {
            gp.push(&x, y).unwrap();
        }
        let v = Variable {
            lower: 0.0,
            upper: 1.0,
            uncontrolled: Distribution::uniform(0.0, 1.0).unwrap(),
        };
        let problem = Problem::new(
            &[v; 2],
            &[ControlSet::of(&[0]), ControlSet::of(&[0, 1])],
            Some(&[0.1, 1.0]),
        )
        .unwrap();
        (gp, problem)
    }

    #[test]
    fn improvement_over_the_incumbent_query_is_zero_and_never_negative() {
        let (gp, problem) = setup();
        let bank = SampleBank::quasi_random(&problem, [[0.0; 2]; 32], 3).unwrap();
        let mut rng = Xoshiro128PlusPlus::seed_from_u64(9);
        let paths: [Option<PosteriorSample<'_, f64, 2, 64, 8>>; 4] =
            core::array::from_fn(|_| Some(PosteriorSample::draw(&gp, &mut rng).unwrap()));
        let q = (ControlSet::of(&[0]), [0.4, 0.5]);
        let mut tau = [0.0; 4];
        incumbents(&paths, &bank, &[q], &mut tau);
        for (p, t) in paths.iter().flatten().zip(&tau) {
            assert_eq!(*t, expected_sample(p, &bank, q.0, &q.1).0);
        }
        // At the only past query every fantasy's improvement is exactly zero.
        assert_eq!(expected_improvement(&paths, &tau, &bank, q.0, &q.1).0, 0.0);
        for a in 0..=20 {
            let x = [a as f64 / 20.0, 0.5];
            let (ei, _) = expected_improvement(&paths, &tau, &bank, q.0, &x);
            assert!(ei >= 0.0);
            // EI is at least the improvement of the mean fantasy (Jensen on max(0, ·)).
            let mean_gain = paths
                .iter()
                .flatten()
                .zip(&tau)
                .map(|(p, t)| expected_sample(p, &bank, q.0, &x).0 - t)
                .sum::<f64>()
                / 4.0;
            assert!(ei >= mean_gain - 1e-12);
        }
    }

    #[test]
    fn gradient_matches_finite_differences() {
        let (gp, problem) = setup();
        let bank = SampleBank::quasi_random(&problem, [[0.0; 2]; 16], 5).unwrap();
        let mut rng = Xoshiro128PlusPlus::seed_from_u64(2);
        let paths: [Option<PosteriorSample<'_, f64, 2, 64, 8>>; 4] =
            core::array::from_fn(|_| Some(PosteriorSample::draw(&gp, &mut rng).unwrap()));
        // A low incumbent so that every fantasy improves (the max is smooth there).
        let tau = [-10.0; 4];
        let set = ControlSet::of(&[0, 1]);
        let x = [0.37, 0.61];
        let (_, g) = expected_improvement(&paths, &tau, &bank, set, &x);
        for l in 0..2 {
            let (mut a, mut b) = (x, x);
            a[l] += 1e-6;
            b[l] -= 1e-6;
            let fd = (expected_improvement(&paths, &tau, &bank, set, &a).0
                - expected_improvement(&paths, &tau, &bank, set, &b).0)
                / 2e-6;
            assert!(
                (fd - g[l]).abs() < 1e-6 * (1.0 + fd.abs()),
                "{l}: {fd} vs {}",
                g[l]
            );
        }
    }
}
