//! Scoring control sets: maximise an acquisition over each control set a rule needs this
//! round, each set with its own stream of candidates.
//!
//! [`score_sets`] does it for the expected confidence bounds
//! ([`ExpectedBound`]), choosing the evaluator by the memory it is given;
//! [`score_each_set`] for any acquisition a rule builds per set; [`score_full_set_first`] is
//! the shortcut of every rule that plays the overall argmax.

use crate::acquisition::expected_bound::ExpectedBound;
use crate::acquisition::Acquisition;
use crate::expectation::{Bound, Chunk, FactorisedSe, Precision, SampleBank, UcbScreen};
use crate::gp::Gp;
use crate::inner::{maximize, maximize_with_restarts, InnerConfig, InnerResult, RestartConfig};
use crate::linalg::tri_len;
use crate::problem::{ControlSet, Problem};
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

/// Scalars of workspace with which [`score_sets`] takes its fastest path for
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

/// Maximises `E[bound]` over each control set `i` of `problem` with `wanted(i)`, writing one
/// result per set into `out` (which needs `problem.num_sets()` entries; `None` for the sets not
/// wanted and for those whose acquisition cannot be evaluated). `seed` scrambles the candidate
/// pools (each set gets its own stream). A set's result does not depend on which other sets are
/// scored, so a rule that needs only some of them reaches the same decision for less.
///
/// Memory: the expectations are batched over the bank in a scratch on the stack, `(2C + 1)·N`
/// scalars with `C` = [`chunk_size`] bank points. With a squared-exponential kernel and at
/// least [`factorised_len`]`(n, bank)` scalars of `workspace`, each set's `S × n` random kernel
/// factors are precomputed there ([`FactorisedSe`]), so that a candidate costs `n`
/// exponentials instead of `S·n`, and line-search trials too low to be accepted skip the
/// gradient; with [`workspace_len`]`(n, bank)` scalars and an upper or lower confidence bound,
/// candidates whose cheap bound ([`UcbScreen`]) shows that the optimiser will ignore them skip
/// the triangular solves too. The results agree to rounding whichever path is taken, and
/// screening changes none of them.
#[allow(clippy::too_many_arguments)]
pub fn score_sets<R, const N: usize, const D: usize, const M: usize, S, B>(
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

/// Maximises the acquisition `acquisition(set)` builds over each control set `i` of `problem`
/// with `wanted(i)`, into `out` (`None` for the others), each set with its own stream of
/// candidates ([`set_seed`]).
pub fn score_each_set<R, const D: usize, const M: usize, A>(
    problem: &Problem<R, D, M>,
    inner: &InnerConfig,
    seed: u64,
    out: &mut [Option<InnerResult<R, D>>],
    wanted: impl Fn(usize) -> bool,
    mut acquisition: impl FnMut(ControlSet) -> A,
) where
    R: Real,
    A: Acquisition<R, D>,
{
    for (i, (set, slot)) in problem.sets().iter().zip(out.iter_mut()).enumerate() {
        *slot = if wanted(i) {
            maximize(*set, &mut acquisition(*set), inner, set_seed(seed, i))
        } else {
            None
        };
    }
}

/// Scores the set that controls every variable alone when there is one (`full`; no other set
/// can beat its maximum for a rule that plays the overall argmax of an expectation, see
/// [`Problem::full_set`]), and the other sets only if there is none or its maximisation
/// failed. `score(out, wanted)` scores the sets with `wanted(i)`.
pub fn score_full_set_first<T>(
    out: &mut [Option<T>],
    full: Option<usize>,
    mut score: impl FnMut(&mut [Option<T>], &dyn Fn(usize) -> bool),
) {
    score(out, &|i| full.is_none_or(|f| i == f));
    if let Some(f) = full.filter(|&f| out.get(f).is_some_and(Option::is_none)) {
        score(out, &|i| i != f);
    }
}

/// Seed of set `i`'s candidate pool (every rule derives it the same way).
pub fn set_seed(seed: u64, i: usize) -> u64 {
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
        let screening = precision.as_ref().map(|p| (p, &mut *screen_ws));
        let mut acquisition = ExpectedBound::with_workspace(
            gp,
            bank,
            *set,
            bound,
            &mut chunk,
            &mut *fs_ws,
            screening,
        );
        *slot = maximize(*set, &mut acquisition, inner, set_seed(seed, i));
    }
}

/// How a rule maximises its acquisition over a box (the set that controls every variable).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Maximiser {
    /// The settings' inner optimiser ([`inner::maximize`](crate::inner::maximize)): a pool and
    /// a few refined starts, with a bounded cost per decision (firmware, papers 000 and 001).
    Pool,
    /// BoTorch's raw samples and restarts ([`maximize_with_restarts`], paper 002), with one
    /// scalar of workspace per raw sample.
    Restarts(RestartConfig),
}

impl Maximiser {
    /// Scalars of workspace it needs.
    pub fn workspace_len(&self) -> usize {
        match self {
            Maximiser::Pool => 0,
            Maximiser::Restarts(c) => c.scratch_len(),
        }
    }

    /// The raw samples, restarts and ascent of a one-shot problem
    /// ([`crate::inner::maximize_one_shot`]) in `d` dimensions: this maximiser's
    /// ([`Maximiser::Restarts`]), or paper 002's for [`Maximiser::Pool`], whose pool has no
    /// one-shot form ([`RestartConfig::paper_002`]).
    pub fn one_shot(&self, d: usize) -> RestartConfig {
        match self {
            Maximiser::Restarts(c) => *c,
            Maximiser::Pool => RestartConfig::paper_002(d),
        }
    }

    /// Maximises `acquisition` over control set `set` with candidate streams from `seed`;
    /// [`DriverError::WorkspaceTooSmall`](super::DriverError::WorkspaceTooSmall) when
    /// `workspace` is shorter than [`workspace_len`](Self::workspace_len),
    /// [`NoScore`](super::DriverError::NoScore) when the acquisition fails everywhere.
    pub fn maximize<R: Real, const D: usize, A: Acquisition<R, D>>(
        &self,
        set: ControlSet,
        acquisition: &mut A,
        inner: &InnerConfig,
        seed: u64,
        workspace: &mut [R],
    ) -> Result<InnerResult<R, D>, super::DriverError> {
        let found = match self {
            Maximiser::Pool => maximize(set, acquisition, inner, seed),
            Maximiser::Restarts(c) => {
                if workspace.len() < c.scratch_len() {
                    return Err(super::DriverError::WorkspaceTooSmall);
                }
                maximize_with_restarts(set, acquisition, c, seed, workspace)
            }
        };
        found.ok_or(super::DriverError::NoScore)
    }
}
