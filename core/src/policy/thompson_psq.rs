//! TS-PSQ (Hayashi et al., paper 000's baseline): draw one posterior sample path, maximise its
//! expectation over the uncontrolled variables for every control set, and play the best
//! (set, values) overall — or, for the per-unit-cost variant, the best expectation per unit
//! cost.

use crate::expectation::{bank_average, SampleBank};
use crate::inner::{maximize_over_set, InnerConfig, InnerResult};
use crate::problem::{ControlSet, Problem};
use crate::real::Real;
use crate::thompson::PosteriorSample;

/// `E[f([x^set, X])]` over the bank for a sample path `f`, and its gradient in `x`.
pub fn expected_sample<R: Real, const D: usize, const F: usize, const N: usize, B>(
    path: &PosteriorSample<'_, R, D, F, N>,
    bank: &SampleBank<R, D, B>,
    set: ControlSet,
    x: &[R; D],
) -> (R, [R; D])
where
    B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
{
    let mut g = [R::ZERO; D];
    let averaged: Result<_, core::convert::Infallible> = bank_average(bank, set, x, |p| {
        let v = path.value_and_gradient(p, &mut g);
        Ok((v, g))
    });
    match averaged {
        Ok(r) => r,
        Err(never) => match never {},
    }
}

/// Maximises the sample's expectation over the control sets `i` of `problem` with `wanted(i)`
/// into `out` (`None` for the others).
#[allow(clippy::too_many_arguments)]
pub fn score_sets<R, const D: usize, const M: usize, const F: usize, const N: usize, B>(
    problem: &Problem<R, D, M>,
    path: &PosteriorSample<'_, R, D, F, N>,
    bank: &SampleBank<R, D, B>,
    inner: &InnerConfig,
    seed: u64,
    out: &mut [Option<InnerResult<R, D>>],
    wanted: impl Fn(usize) -> bool,
) where
    R: Real,
    B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
{
    maximize_each_set(problem, inner, seed, out, wanted, |set, x| {
        expected_sample(path, bank, set, x)
    });
}

/// Maximises `score(set, x)` over each control set `i` of `problem` with `wanted(i)` into `out`
/// (`None` for the others), each set with its own stream of candidates; non-finite scores
/// count as failures.
pub fn maximize_each_set<R: Real, const D: usize, const M: usize>(
    problem: &Problem<R, D, M>,
    inner: &InnerConfig,
    seed: u64,
    out: &mut [Option<InnerResult<R, D>>],
    wanted: impl Fn(usize) -> bool,
    score: impl Fn(ControlSet, &[R; D]) -> (R, [R; D]),
) {
    for (i, (set, slot)) in problem.sets().iter().zip(out.iter_mut()).enumerate() {
        if !wanted(i) {
            *slot = None;
            continue;
        }
        let f = |x: &[R; D]| {
            let (v, g) = score(*set, x);
            v.is_finite().then_some((v, g))
        };
        *slot = maximize_over_set(*set, f, inner, super::set_seed(seed, i));
    }
}
