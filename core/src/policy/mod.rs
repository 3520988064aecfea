//! Decision rules: given this round's per-set acquisition maxima, which control set to play.
//!
//! Each paper's rule lives in its own file and is a pure function (or a small state machine) of
//! the scores and costs, so it can be tested with hand-built numbers; [`score_sets`] computes
//! the scores from a GP and a sample bank.

pub mod ei_psq;
pub mod explore_then_commit;
pub mod per_unit_cost;
pub mod thompson_psq;
pub mod ucb_cvs;
pub mod unknown_cost;

use crate::expectation::{expected_bound, Bound, SampleBank};
use crate::gp::Gp;
use crate::inner::{maximize_over_set, InnerConfig, InnerResult};
use crate::problem::Problem;
use crate::real::Real;

/// Maximises `E[bound]` over each control set of `problem`, writing one result per set into
/// `out` (which needs `problem.num_sets()` entries). A set whose acquisition cannot be evaluated
/// gets `None`. `seed` scrambles the candidate pools (each set gets its own stream).
#[allow(clippy::too_many_arguments)]
pub fn score_sets<R, const N: usize, const D: usize, const M: usize, S, B>(
    problem: &Problem<R, D, M>,
    gp: &Gp<R, N, D, S>,
    bank: &SampleBank<R, D, B>,
    bound: Bound<R>,
    inner: &InnerConfig,
    seed: u64,
    out: &mut [Option<InnerResult<R, D>>],
) where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
    B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
{
    for (i, (set, slot)) in problem.sets().iter().zip(out.iter_mut()).enumerate() {
        let f = |x: &[R; D]| expected_bound(gp, bank, *set, x, bound).ok();
        let set_seed = seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        *slot = maximize_over_set(*set, f, inner, set_seed);
    }
}
