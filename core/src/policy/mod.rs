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

use crate::expectation::{
    expected_bound, expected_bound_batched, Bound, Chunk, FactorisedSe, Precision, SampleBank,
    UcbScreen,
};
use crate::gp::Gp;
use crate::inner::{maximize_over_set_lazy, InnerConfig, InnerResult, Need};
use crate::linalg::tri_len;
use crate::problem::Problem;
use crate::real::Real;

/// Bank points per chunk of the batched expectations when a model is small (`N` scalars take at
/// most 256 bytes: 64 `f32` or 32 `f64` observations): 4, so that the chunk's scratch,
/// `(2C + 1)·N` scalars, stays within a few KiB of stack; 2 on soft-float ARM (Cortex-M0 class
/// parts, with as little as 16 KiB of RAM in all).
pub const SMALL_CHUNK: usize = if cfg!(all(target_arch = "arm", target_abi = "eabi")) {
    2
} else {
    4
};
/// Bank points per chunk for larger `f64` models: 16 right-hand sides per sweep of the factor
/// keep eight 128-bit accumulators busy. Scratch: `33·N` scalars (264 KiB at N = 1024).
pub const LARGE_CHUNK_F64: usize = 16;
/// Bank points per chunk for larger `f32` models (the same 128 bytes per row as in `f64`).
pub const LARGE_CHUNK_F32: usize = 32;

/// Bank points per chunk that [`score_sets`] uses for a model of capacity `N` in `R`.
pub const fn chunk_size<R, const N: usize>() -> usize {
    let size = core::mem::size_of::<R>();
    if N * size <= 256 {
        SMALL_CHUNK
    } else if size <= 4 {
        LARGE_CHUNK_F32
    } else {
        LARGE_CHUNK_F64
    }
}

/// Scalars of workspace with which [`score_sets_with_workspace`] takes its fastest path for
/// a model of `n` observations and a bank of `bank` points (squared-exponential kernels only;
/// enough for every chunk size): one set's random kernel factors and forward solves
/// (`2S·n`, [`factorised_len`]) and, for confidence bounds, the screening matrices
/// (`4·n(n+1)/2`, [`screening_len`]). A caller that allocates once passes the GP's capacity.
pub const fn workspace_len(n: usize, bank: usize) -> usize {
    factorised_len(n, bank) + screening_len(n)
}

/// The random kernel factors alone ([`FactorisedSe`]), without screening.
pub const fn factorised_len(n: usize, bank: usize) -> usize {
    FactorisedSe::<f64, LARGE_CHUNK_F32>::workspace_len(n, bank)
}

/// The screening part of [`workspace_len`]: [`Precision`] and one [`UcbScreen`].
pub const fn screening_len(n: usize) -> usize {
    Precision::<f64>::workspace_len(n) + UcbScreen::<f64>::workspace_len(n)
}

/// Maximises `E[bound]` over each control set of `problem`, writing one result per set into
/// `out` (which needs `problem.num_sets()` entries). A set whose acquisition cannot be evaluated
/// gets `None`. `seed` scrambles the candidate pools (each set gets its own stream).
///
/// The expectations are batched over the bank ([`expected_bound_batched`]) in a scratch on
/// the stack: `(2C + 1)·N` scalars with `C` = [`chunk_size`] bank points.
/// Nothing else is allocated; [`score_sets_with_workspace`] is faster with memory to spare.
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
    score_sets_with_workspace(problem, gp, bank, bound, inner, seed, out, &mut []);
}

/// [`score_sets`] with a caller's workspace. With a squared-exponential kernel and at least
/// [`factorised_len`]`(n, bank)` scalars, each set's `S × n` random kernel factors are
/// precomputed there ([`FactorisedSe`]), so that a candidate costs `n` exponentials instead
/// of `S·n`, and line-search trials too low to be accepted skip the gradient; with
/// [`workspace_len`]`(n, bank)` scalars and an upper or lower confidence bound, candidates whose
/// cheap bound ([`UcbScreen`]) shows that the optimiser will ignore them skip the triangular
/// solves too.
/// With less workspace (or another kernel) this is [`score_sets`]. The results agree to
/// rounding whichever path is taken, and screening changes none of them.
#[allow(clippy::too_many_arguments)]
pub fn score_sets_with_workspace<R, const N: usize, const D: usize, const M: usize, S, B>(
    problem: &Problem<R, D, M>,
    gp: &Gp<R, N, D, S>,
    bank: &SampleBank<R, D, B>,
    bound: Bound<R>,
    inner: &InnerConfig,
    seed: u64,
    out: &mut [Option<InnerResult<R, D>>],
    workspace: &mut [R],
) where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
    B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
{
    score_sets_where(
        problem,
        gp,
        bank,
        bound,
        inner,
        seed,
        out,
        workspace,
        |_| true,
    );
}

/// [`score_sets_with_workspace`] for the sets `i` with `wanted(i)` only; the others get `None`.
/// A set's result does not depend on which other sets are scored, so a rule that needs only
/// some of the scores (explore-then-commit while it explores one cost group) reaches the same
/// decision for less.
#[allow(clippy::too_many_arguments)]
pub fn score_sets_where<R, const N: usize, const D: usize, const M: usize, S, B>(
    problem: &Problem<R, D, M>,
    gp: &Gp<R, N, D, S>,
    bank: &SampleBank<R, D, B>,
    bound: Bound<R>,
    inner: &InnerConfig,
    seed: u64,
    out: &mut [Option<InnerResult<R, D>>],
    workspace: &mut [R],
    wanted: impl Fn(usize) -> bool,
) where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
    B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
{
    let wanted: &dyn Fn(usize) -> bool = &wanted;
    match chunk_size::<R, N>() {
        SMALL_CHUNK => score_chunked::<R, N, D, M, SMALL_CHUNK, S, B>(
            problem, gp, bank, bound, inner, seed, out, workspace, wanted,
        ),
        LARGE_CHUNK_F32 => score_chunked::<R, N, D, M, LARGE_CHUNK_F32, S, B>(
            problem, gp, bank, bound, inner, seed, out, workspace, wanted,
        ),
        _ => score_chunked::<R, N, D, M, LARGE_CHUNK_F64, S, B>(
            problem, gp, bank, bound, inner, seed, out, workspace, wanted,
        ),
    }
}

/// Seed of set `i`'s candidate pool (every rule derives it the same way).
pub(crate) fn set_seed(seed: u64, i: usize) -> u64 {
    seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

// Not inlined, so that only the chosen chunk size's scratch is ever on the stack.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn score_chunked<R, const N: usize, const D: usize, const M: usize, const C: usize, S, B>(
    problem: &Problem<R, D, M>,
    gp: &Gp<R, N, D, S>,
    bank: &SampleBank<R, D, B>,
    bound: Bound<R>,
    inner: &InnerConfig,
    seed: u64,
    out: &mut [Option<InnerResult<R, D>>],
    workspace: &mut [R],
    wanted: &dyn Fn(usize) -> bool,
) where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
    B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
{
    let mut chunk = Chunk::<R, N, C>::new();
    let n = gp.len();
    let fs_len = FactorisedSe::<R, C>::workspace_len(n, bank.len());
    let (fs_ws, rest) = if workspace.len() >= fs_len {
        workspace.split_at_mut(fs_len)
    } else {
        (&mut [][..], &mut [][..])
    };
    // Screening needs K⁻¹ (O(n³) once) and pays off for the expected UCB and LCB, whose
    // candidates cost S triangular solves each.
    let screening = matches!(bound, Bound::Upper(b) | Bound::Lower(b) if b >= R::ZERO)
        && rest.len() >= 4 * tri_len(n)
        && n > 0;
    let (pr_ws, screen_ws) = rest.split_at_mut(if screening { 2 * tri_len(n) } else { 0 });
    let precision = if screening {
        Precision::new(gp, pr_ws, screen_ws)
    } else {
        None
    };
    for (i, (set, slot)) in problem.sets().iter().zip(out.iter_mut()).enumerate() {
        if !wanted(i) {
            *slot = None;
            continue;
        }
        // A set that controls every variable has nothing to average: one prediction per
        // candidate (what the batched paths compute too, bit for bit, but in `C` lanes of which
        // `C − 1` would be padding).
        if (0..D).all(|l| set.contains(l)) {
            let f = |x: &[R; D], _: Need<R>| expected_bound(gp, bank, *set, x, bound).ok();
            *slot = maximize_over_set_lazy(*set, f, inner, set_seed(seed, i));
            continue;
        }
        let mut fast = FactorisedSe::<R, C>::new(gp, bank, *set, fs_ws);
        let screen = match (&precision, &fast) {
            (Some(p), Some(fs)) => UcbScreen::new(p, fs, screen_ws, &mut chunk),
            _ => None,
        };
        let f = |x: &[R; D], need: Need<R>| {
            let Some(fs) = fast.as_mut() else {
                let gradient = !matches!(need, Need::Value { .. });
                return expected_bound_batched(gp, bank, *set, x, bound, gradient, &mut chunk).ok();
            };
            // Below what the value is ignored, whether `at` itself is, and from which value
            // the gradient is needed.
            let (ignored, gradient_from) = match need {
                Need::Value { floor } => (Some((floor, true)), R::INFINITY),
                Need::Trial { accept_from } => (Some((accept_from, false)), accept_from),
                Need::Gradient => (None, -R::INFINITY),
            };
            if let (Some(screen), Some((at, inclusive))) = (&screen, ignored) {
                // A value that the optimiser is sure to ignore may be replaced by an upper
                // bound that it ignores as well: nothing changes, and no solve is needed.
                let ub = match bound {
                    _ if at == -R::INFINITY => None,
                    Bound::Upper(beta) => Some(screen.upper_bound(fs, gp, x, beta, &mut chunk)),
                    Bound::Lower(beta) => Some(screen.lcb_upper_bound(fs, gp, x, beta, &mut chunk)),
                    Bound::Mean => None,
                };
                if let Some(ub) = ub.filter(|&ub| ub < at || (inclusive && ub <= at)) {
                    return Some((ub, [R::ZERO; D]));
                }
            }
            let (v, g) = fs.evaluate(gp, x, bound, gradient_from, &mut chunk).ok()?;
            Some((v, g.unwrap_or([R::ZERO; D])))
        };
        *slot = maximize_over_set_lazy(*set, f, inner, set_seed(seed, i));
    }
}
