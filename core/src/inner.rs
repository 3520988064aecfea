//! The inner optimiser: maximises an acquisition over the controlled variables of one control
//! set, with a known cost.
//!
//! A scrambled-Sobol pool of candidates is scored, the best few become starts, and each start
//! is refined by projected gradient ascent ([`crate::optimize`]) with analytic gradients. The
//! total number of acquisition evaluations is at most `pool + starts × evaluations_per_start`, so
//! a decision on a microcontroller has a bounded cost.
//!
//! A set that controls every variable gets [`FULL_SET_POOL_FACTOR`] times the pool: it has the
//! most dimensions to search, its candidates need one prediction each instead of an average over
//! the bank, and its maximum must not be underestimated, since no other set can truly score
//! higher ([`Problem::full_set`](crate::problem::Problem::full_set)). Paper 000's code warms up
//! the full set with 10,000 random points against 100 for a partial one.

use crate::acquisition::{Acquisition, Need};
use crate::optimize::{self, QuasiNewton, QuasiNewtonConfig};
use crate::problem::ControlSet;
use crate::qmc::{IidUniform, Sobol};
use crate::random::uniform_open;
use crate::real::Real;
use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro128PlusPlus;

/// Candidate points: scrambled Sobol' within its direction-number table (`D ≤ 21`), i.i.d.
/// uniforms beyond it (e.g. paper 002's 25-dimensional Pest Control), so that every dimension
/// gets a spread of candidates; for `D ≤ 21` the candidates are exactly the Sobol' points.
pub(crate) enum Candidates<const D: usize> {
    Sobol(Sobol<D>),
    Iid(IidUniform<D>),
}

impl<const D: usize> Candidates<D> {
    pub(crate) fn new(seed: u64) -> Self {
        match Sobol::<D>::new(seed) {
            Ok(s) => Candidates::Sobol(s),
            Err(_) => Candidates::Iid(IidUniform::new(seed)),
        }
    }

    pub(crate) fn next_point<R: Real>(&mut self) -> [R; D] {
        match self {
            Candidates::Sobol(s) => s.next_point(),
            Candidates::Iid(s) => s.next_point(),
        }
    }
}

/// Most refinement starts the optimiser keeps.
pub const MAX_STARTS: usize = 8;

/// How many times larger the candidate pool is for a set that controls every variable.
pub const FULL_SET_POOL_FACTOR: usize = 16;

/// Budget of the inner optimiser.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InnerConfig {
    /// Quasi-random candidates scored before refinement (at least 1).
    pub pool: usize,
    /// Best candidates refined by gradient ascent (at most [`MAX_STARTS`]).
    pub starts: usize,
    /// Acquisition evaluations allowed per refinement.
    pub evaluations_per_start: usize,
}

impl Default for InnerConfig {
    /// 64 candidates, 4 refinements of 20 evaluations: at most 144 evaluations.
    fn default() -> Self {
        InnerConfig {
            pool: 64,
            starts: 4,
            evaluations_per_start: 20,
        }
    }
}

impl InnerConfig {
    /// Largest number of acquisition evaluations one maximisation over a partial set can use
    /// (the full set's pool is [`FULL_SET_POOL_FACTOR`] times larger).
    pub fn max_evaluations(&self) -> usize {
        self.pool.max(1) + self.starts.min(MAX_STARTS) * self.evaluations_per_start
    }

    /// Candidates scored before refinement for a set of `controlled` of `d` variables.
    pub fn pool_for(&self, controlled: usize, d: usize) -> usize {
        if controlled >= d {
            self.pool.max(1).saturating_mul(FULL_SET_POOL_FACTOR)
        } else {
            self.pool.max(1)
        }
    }
}

/// The maximiser found and its value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InnerResult<R, const D: usize> {
    /// Maximiser in unit coordinates (uncontrolled coordinates hold 0.5 and mean nothing).
    pub x: [R; D],
    /// Acquisition value there.
    pub value: R,
    /// Acquisition evaluations used.
    pub evaluations: usize,
}

/// Pool candidates scored together by [`maximize`]: one group of the model's vector lanes
/// ([`crate::gp::PREDICT_BLOCK`]) on a desktop; one at a time on a device, where the batched
/// solve's columns would be new stack on a stack held to a measured budget
/// (docs/embedded.md), and where the grouping's speed was not measured. The bits are the same
/// either way.
const POOL_GROUP: usize = if cfg!(target_arch = "arm") {
    1
} else {
    crate::gp::PREDICT_BLOCK
};

/// Maximises the acquisition `f` over the coordinates of `set` in `[0, 1]` (the others stay at
/// ½ and mean nothing). `seed` scrambles the candidate pool. Returns `None` when `f` fails at
/// every candidate.
///
/// Pool candidates are evaluated with [`Need::Value`] (no gradient; an upper bound may stand in
/// for a value below the worst start kept), refinements with [`Need::Gradient`] and
/// [`Need::Trial`] ([`optimize::maximize`]); with exact values wherever they matter the result
/// is the same as if every evaluation were exact.
pub fn maximize<R, const D: usize, A>(
    set: ControlSet,
    f: &mut A,
    config: &InnerConfig,
    seed: u64,
) -> Option<InnerResult<R, D>>
where
    R: Real,
    A: Acquisition<R, D> + ?Sized,
{
    let starts = config.starts.min(MAX_STARTS);
    let mut best: [Option<(R, [R; D])>; MAX_STARTS] = [None; MAX_STARTS];
    let mut overall: Option<(R, [R; D])> = None;
    let mut evaluations = 0;
    let fixed = R::HALF;
    let mut candidates = Candidates::<D>::new(seed);
    let pool = config.pool_for(set.len(), D);
    let mut scored = 0;
    while scored < pool {
        // The pool in groups whose values come from one call ([`Acquisition::values`]: one
        // pass of the model's triangular solve for several points), in the pool's order.
        let k = (pool - scored).min(POOL_GROUP);
        let mut xs = [[R::ZERO; D]; POOL_GROUP];
        for x in &mut xs[..k] {
            let u: [R; D] = candidates.next_point();
            *x = core::array::from_fn(|l| if set.contains(l) { u[l] } else { fixed });
        }
        let mut values = [-R::INFINITY; POOL_GROUP];
        if POOL_GROUP > 1 {
            f.values(&xs[..k], &mut values[..k]);
        }
        for (x, &exact) in xs[..k].iter().zip(&values[..k]) {
            evaluations += 1;
            // A full list of starts ignores anything at or below its worst entry; with no
            // starts only the best so far matters.
            let floor = match (starts, overall) {
                (0, Some((b, _))) => b,
                (0, None) => -R::INFINITY,
                _ => best[starts - 1].map_or(-R::INFINITY, |(b, _)| b),
            };
            // `values` gives what `evaluate` gives with no floor; a value at or below the
            // floor is ignored below, so the exact value serves where `evaluate` could have
            // answered a bound. Where `values` has no finite value (a failure, −∞ or NaN),
            // `evaluate` says which, as before.
            let v = if exact > -R::INFINITY {
                exact
            } else {
                match f.evaluate(x, Need::Value { floor }) {
                    Some((v, _)) => v,
                    None => continue,
                }
            };
            if overall.is_none_or(|(b, _)| v > b) {
                overall = Some((v, *x));
            }
            insert_top(&mut best[..starts], v, *x, set);
        }
        scored += k;
    }
    let lower: [R; D] = core::array::from_fn(|l| if set.contains(l) { R::ZERO } else { fixed });
    let upper: [R; D] = core::array::from_fn(|l| if set.contains(l) { R::ONE } else { fixed });
    for (_, x0) in best[..starts].iter().flatten() {
        let g = |x: &[R; D], need: Need<R>| f.evaluate(x, need);
        let budget = config.evaluations_per_start;
        if let Some(a) = optimize::maximize(g, *x0, &lower, &upper, budget) {
            evaluations += a.evaluations;
            if overall.is_none_or(|(b, _)| a.value > b) {
                overall = Some((a.value, a.point));
            }
        }
    }
    overall.map(|(value, x)| InnerResult {
        x,
        value,
        evaluations,
    })
}

/// Settings of [`maximize_with_restarts`]: BoTorch's `optimize_acqf` as paper 002 runs it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RestartConfig {
    /// Scrambled-Sobol candidates evaluated first (paper 002: `200·d`).
    pub raw_samples: usize,
    /// Candidates refined by quasi-Newton ascent (paper 002: `10·d`).
    pub restarts: usize,
    /// `Some(η)`: restarts drawn without replacement with weights `exp(η·z)`, `z` the
    /// standardised raw values, the best raw candidate always among them (BoTorch's
    /// `initialize_q_batch`, `η = 1`); `None`: the best raw candidates.
    pub boltzmann: Option<f64>,
    /// The ascent of each restart (L-BFGS-B's tolerances, at most 200 iterations).
    pub ascent: QuasiNewtonConfig,
}

impl RestartConfig {
    /// Paper 002's optimiser in `d` dimensions: `200·d` raw samples, `10·d` Boltzmann restarts
    /// (`η = 1`), each climbed by quasi-Newton ascent for at most 200 iterations.
    pub fn paper_002(d: usize) -> Self {
        RestartConfig {
            raw_samples: 200 * d.max(1),
            restarts: 10 * d.max(1),
            boltzmann: Some(1.0),
            ascent: QuasiNewtonConfig::default(),
        }
    }

    /// Scalars of scratch [`maximize_with_restarts`] needs: one per raw sample.
    pub fn scratch_len(&self) -> usize {
        self.raw_samples
    }
}

/// Ascents [`maximize_with_restarts`] steps side by side, their points handed to
/// [`Acquisition::evaluate_many`] together: eight fill the vector lanes of a desktop's
/// interleaved solves; one at a time on 32-bit Arm (no vector lanes, a small stack).
const RESTART_GROUP: usize = if cfg!(target_arch = "arm") { 1 } else { 8 };

/// Raw samples handed to [`Acquisition::values`] at once by [`maximize_with_restarts`]: one
/// of [`Gp::predict_many`](crate::gp::Gp::predict_many)'s groups on a desktop, two on Arm.
const RAW_GROUP: usize = 8;

/// Maximises the acquisition `f` over the coordinates of `set` in `[0, 1]` as BoTorch's
/// `optimize_acqf` does (paper 002, App. C): `config.raw_samples` scrambled-Sobol candidates
/// (i.i.d. uniform beyond Sobol's 21 dimensions), `config.restarts` of them chosen as starts ([`RestartConfig::boltzmann`]), each refined by
/// [`optimize::maximize_quasi_newton`]; the best point found. `scratch` holds one scalar per
/// raw sample (caller memory: [`RestartConfig::scratch_len`]); `seed` scrambles the candidates
/// and draws the restarts. `None` when `f` fails at every candidate or `scratch` is too short.
///
/// The starts are kept as marks in `scratch` and the candidates regenerated from the Sobol
/// sequence, so no point is stored; restarts are refined in the sequence's order (the
/// result does not depend on the order but for exact ties). Unlike BoTorch, each restart is
/// its own ascent rather than one of five summed into one problem, so each stops at its own
/// convergence; on a desktop eight ascents ([`QuasiNewton`]) are stepped side by
/// side, each ending ascent's place taken by the next start, and their points evaluated
/// together ([`Acquisition::evaluate_many`]), which shares the model's triangular solves
/// among them and leaves each ascent's path unchanged; the outcomes are reduced to the one
/// that climbing the starts one after another would keep.
pub fn maximize_with_restarts<R, const D: usize, A>(
    set: ControlSet,
    f: &mut A,
    config: &RestartConfig,
    seed: u64,
    scratch: &mut [R],
) -> Option<InnerResult<R, D>>
where
    R: Real,
    A: Acquisition<R, D> + ?Sized,
{
    let raw = config.raw_samples.max(1);
    let values = scratch.get_mut(..raw)?;
    let fixed = R::HALF;
    let candidate = |u: [R; D]| -> [R; D] {
        core::array::from_fn(|l| if set.contains(l) { u[l] } else { fixed })
    };
    let mut candidates = Candidates::<D>::new(seed);
    // Raw values (every one matters: they are standardised), a group at a time so that the
    // acquisition can share work across points ([`Acquisition::values`]), and the best one.
    let mut best: Option<(R, usize)> = None;
    let mut group = [[R::ZERO; D]; RAW_GROUP];
    for (g, chunk) in values.chunks_mut(RAW_GROUP).enumerate() {
        for x in group[..chunk.len()].iter_mut() {
            *x = candidate(candidates.next_point());
        }
        f.values(&group[..chunk.len()], chunk);
        for (k, v) in chunk.iter().enumerate() {
            if v.is_finite() && best.is_none_or(|(b, _)| *v > b) {
                best = Some((*v, g * RAW_GROUP + k));
            }
        }
    }
    let (_, best_index) = best?;
    mark_restarts(values, config.restarts, config.boltzmann, seed, best_index);
    // Climb from each start, regenerating the candidates in order.
    let lower: [R; D] = core::array::from_fn(|l| if set.contains(l) { R::ZERO } else { fixed });
    let upper: [R; D] = core::array::from_fn(|l| if set.contains(l) { R::ONE } else { fixed });
    let mut candidates = Candidates::<D>::new(seed);
    let mut marks = values.iter();
    // Ascents in flight, each with its rank among the starts; a slot whose ascent ends takes
    // the next start, so the evaluations stay RESTART_GROUP wide until the starts run out.
    let mut slots: [Slot<R, D>; RESTART_GROUP] = [None; RESTART_GROUP];
    let mut started = 0;
    let mut outcomes = Outcomes::default();
    let mut evaluations = raw;
    loop {
        for slot in slots.iter_mut().filter(|s| s.is_none()) {
            let next = loop {
                let Some(v) = marks.next() else { break None };
                let x0 = candidate(candidates.next_point());
                if *v == R::INFINITY {
                    break Some(x0);
                }
            };
            let Some(x0) = next else { break };
            *slot = Some((
                QuasiNewton::new(x0, &lower, &upper, &config.ascent),
                started,
            ));
            started += 1;
        }
        // The pending points of every ascent, evaluated together.
        let mut xs = [[R::ZERO; D]; RESTART_GROUP];
        let mut needs = [Need::Gradient; RESTART_GROUP];
        let mut who = [0; RESTART_GROUP];
        let mut waiting = 0;
        for (k, slot) in slots.iter().enumerate() {
            if let Some((x, need)) = slot.as_ref().and_then(|(a, _)| a.next_point()) {
                (xs[waiting], needs[waiting], who[waiting]) = (x, need, k);
                waiting += 1;
            }
        }
        if waiting == 0 {
            break;
        }
        let mut answers = [None; RESTART_GROUP];
        f.evaluate_many(&xs[..waiting], &needs[..waiting], &mut answers[..waiting]);
        for (k, answer) in who[..waiting].iter().zip(answers) {
            if let Some((ascent, _)) = slots[*k].as_mut() {
                ascent.tell(answer);
            }
        }
        for slot in slots.iter_mut() {
            // Ended ascents leave their slots (checked in place: an ascent's state is a few
            // KiB at d = 16, not worth copying every round).
            if slot.as_ref().is_some_and(|(a, _)| a.next_point().is_none()) {
                if let Some((ascent, rank)) = slot.take() {
                    if let Some(a) = ascent.result() {
                        evaluations += a.evaluations;
                        outcomes.add(rank, a.value, a.point);
                    }
                }
            }
        }
    }
    let overall = outcomes.best();
    overall.map(|(value, x)| InnerResult {
        x,
        value,
        evaluations,
    })
}

/// [`maximize_with_restarts`] for a one-shot problem, whose points `V` carry more than the
/// point to observe (fantasy points, a lookahead tree): `config.raw_samples` raw points, raw
/// point `r` built by `raw(x, r)` from the `r`-th scrambled-Sobol point `x` of the box,
/// `config.restarts` of them chosen as starts ([`RestartConfig::boltzmann`]), each climbed by
/// [`optimize::maximize_quasi_newton`] within `[lower, upper]`, one after another. `value(p)`
/// is the value alone (raw points), `f` the ascent's objective. `scratch` holds one scalar per
/// raw sample; raw points are rebuilt, not stored. Returns the best climbed value and point,
/// `None` when every raw value fails or `scratch` is too short.
#[allow(clippy::too_many_arguments)]
pub fn maximize_one_shot<R, const D: usize, V>(
    config: &RestartConfig,
    seed: u64,
    scratch: &mut [R],
    mut raw: impl FnMut([R; D], usize) -> V,
    mut value: impl FnMut(&V) -> Option<R>,
    mut f: impl FnMut(&V, Need<R>) -> Option<(R, V)>,
    lower: &V,
    upper: &V,
) -> Option<(R, V)>
where
    R: Real,
    V: optimize::Coordinates<R>,
{
    let values = scratch.get_mut(..config.raw_samples.max(1))?;
    let mut best: Option<(R, usize)> = None;
    let mut candidates = Candidates::<D>::new(seed);
    for (r, v) in values.iter_mut().enumerate() {
        let p = raw(candidates.next_point(), r);
        *v = match value(&p) {
            Some(y) if y.is_finite() => y,
            _ => -R::INFINITY,
        };
        if v.is_finite() && best.is_none_or(|(b, _)| *v > b) {
            best = Some((*v, r));
        }
    }
    let (_, best_raw) = best?;
    mark_restarts(values, config.restarts, config.boltzmann, seed, best_raw);
    let mut found: Option<(R, V)> = None;
    let mut candidates = Candidates::<D>::new(seed);
    for (r, mark) in values.iter().enumerate() {
        let x0 = candidates.next_point();
        if *mark != R::INFINITY {
            continue;
        }
        let start = raw(x0, r);
        if let Some(a) =
            optimize::maximize_quasi_newton(&mut f, start, lower, upper, &config.ascent)
        {
            if a.value.is_finite() && found.as_ref().is_none_or(|(b, _)| a.value > *b) {
                found = Some((a.value, a.point));
            }
        }
    }
    found
}

/// A place for an ascent in flight and its rank among the starts.
type Slot<R, const D: usize> = Option<(QuasiNewton<R, [R; D]>, usize)>;

/// The ascents' outcomes, told in any order, reduced to the one that taking them in order of
/// rank and keeping each that beats the one kept (`>`, so the first of equal values stays)
/// would keep: the first outcome if its value is NaN (nothing beats NaN), else the lowest-ranked
/// of the largest non-NaN values (a NaN never beats anything).
#[derive(Debug, Clone, Copy)]
struct Outcomes<R, const D: usize> {
    first: Option<(usize, R, [R; D])>,
    best: Option<(usize, R, [R; D])>,
}

impl<R, const D: usize> Default for Outcomes<R, D> {
    fn default() -> Self {
        Outcomes {
            first: None,
            best: None,
        }
    }
}

impl<R: Real, const D: usize> Outcomes<R, D> {
    /// The outcome of the ascent of rank `rank`.
    fn add(&mut self, rank: usize, value: R, point: [R; D]) {
        if self.first.is_none_or(|(r, ..)| rank < r) {
            self.first = Some((rank, value, point));
        }
        let beats = |(r, b, _): (usize, R, [R; D])| value > b || (value == b && rank < r);
        if !value.is_nan() && self.best.is_none_or(beats) {
            self.best = Some((rank, value, point));
        }
    }

    /// The value and point kept.
    fn best(&self) -> Option<(R, [R; D])> {
        let kept = match self.first {
            Some((_, v, _)) if v.is_nan() => self.first,
            _ => self.best,
        };
        kept.map(|(_, v, x)| (v, x))
    }
}

/// Marks with +∞ the entries of `values` (raw values, −∞ where the acquisition failed) that
/// become restarts: the `restarts` largest keys of Efraimidis and Spirakis, `ln(u)/w` with `u`
/// uniform and `w = exp(η·z)` (`z` the standardised value), are a draw without replacement with
/// probabilities proportional to the weights, which is what BoTorch's
/// `torch.multinomial(weights, n)` draws (in logs, no weight overflows); the best value
/// (`best`) is always among them, in place of the last one drawn, as in `initialize_q_batch`.
/// Without `boltzmann`, the largest values. Unmarked entries end finite or −∞.
fn mark_restarts<R: Real>(
    values: &mut [R],
    restarts: usize,
    boltzmann: Option<f64>,
    seed: u64,
    best: usize,
) {
    let (mut count, mut mean, mut m2) = (0usize, R::ZERO, R::ZERO);
    for v in values.iter().filter(|v| v.is_finite()) {
        count += 1;
        let delta = *v - mean;
        mean += delta / R::from_usize(count);
        m2 += delta * (*v - mean);
    }
    let std = if count > 1 {
        (m2 / R::from_usize(count - 1)).sqrt()
    } else {
        R::ZERO
    };
    let mut rng = Xoshiro128PlusPlus::seed_from_u64(seed ^ 0xB017_2A4E);
    for v in values.iter_mut() {
        let u: R = uniform_open(&mut rng);
        *v = if !v.is_finite() {
            -R::INFINITY
        } else {
            match boltzmann {
                Some(eta) if std > R::ZERO => {
                    let z = (*v - mean) / std;
                    u.ln() * (-R::from_f64(eta) * z).exp()
                }
                // Equal values: a uniformly random subset (BoTorch's random permutation).
                Some(_) => u.ln(),
                None => *v,
            }
        };
    }
    let mut last_drawn: Option<usize> = None;
    for _ in 0..restarts.min(count) {
        let top = (0..values.len())
            .filter(|&k| values[k] != R::INFINITY && values[k] > -R::INFINITY)
            .fold(None, |b: Option<usize>, k| match b {
                Some(b) if values[b] >= values[k] => Some(b),
                _ => Some(k),
            });
        let Some(top) = top else { break };
        values[top] = R::INFINITY;
        last_drawn = Some(top);
    }
    if best < values.len() && values[best] != R::INFINITY {
        if let Some(last) = last_drawn {
            values[last] = -R::INFINITY;
        }
        values[best] = R::INFINITY;
    }
}

/// Starts closer than this (Euclidean, over the controlled coordinates of the unit cube) are
/// taken to be in one basin: only the better of them is kept, so the refinements explore
/// different local maxima instead of climbing the same one several times.
const MIN_START_SEPARATION: f64 = 0.15;

/// Keeps `top` sorted by decreasing value with its points pairwise separated: `(v, x)` replaces
/// a worse entry in its basin, or enters if it beats the worst entry; otherwise it is dropped.
fn insert_top<R: Real, const D: usize>(
    top: &mut [Option<(R, [R; D])>],
    v: R,
    x: [R; D],
    set: ControlSet,
) {
    let sep2 = R::from_f64(MIN_START_SEPARATION * MIN_START_SEPARATION);
    let near = |y: &[R; D]| {
        let d2 = (0..D)
            .filter(|&l| set.contains(l))
            .fold(R::ZERO, |a, l| a + (x[l] - y[l]).sq());
        d2 < sep2
    };
    // The slot to free: the entry in this basin if there is one, else the worst slot.
    let victim = match top.iter().position(|e| e.is_some_and(|(_, y)| near(&y))) {
        Some(k) => match top[k] {
            Some((b, _)) if b >= v => return,
            _ => k,
        },
        None => top.len().saturating_sub(1),
    };
    if top.is_empty() || top[victim].is_some_and(|(b, _)| b >= v) {
        return;
    }
    // Remove the victim, then insert in order.
    for k in victim..top.len() - 1 {
        top[k] = top[k + 1];
    }
    top[top.len() - 1] = None;
    let pos = top
        .iter()
        .position(|e| e.is_none_or(|(b, _)| v > b))
        .unwrap_or(top.len() - 1);
    for k in (pos + 1..top.len()).rev() {
        top[k] = top[k - 1];
    }
    top[pos] = Some((v, x));
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use std::vec;
    use std::vec::Vec;

    #[test]
    fn outcomes_in_any_order_keep_what_the_sequential_fold_keeps() {
        // Values with ties, signed zeros and NaNs (first and later), told in many orders,
        // against the fold one ascent after another does: keep each that beats the kept one.
        let pool = [1.0, 3.0, -0.0, 0.0, 3.0, f64::NAN, -2.0, 3.0];
        let mut seed = 7u64;
        for case in 0..2000 {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let m = 1 + (seed >> 60) as usize % 7;
            let values: Vec<f64> = (0..m)
                .map(|k| pool[((seed >> (8 * k % 48)) as usize + case) % pool.len()])
                .collect();
            let mut want: Option<(f64, [f64; 1])> = None;
            for (rank, v) in values.iter().enumerate() {
                if want.is_none_or(|(b, _)| *v > b) {
                    want = Some((*v, [rank as f64]));
                }
            }
            let mut order: Vec<usize> = (0..m).collect();
            for k in (1..m).rev() {
                order.swap(k, (seed >> (3 * k)) as usize % (k + 1));
            }
            let mut outcomes = Outcomes::default();
            for &rank in &order {
                outcomes.add(rank, values[rank], [rank as f64]);
            }
            let got = outcomes.best();
            let bits = |o: Option<(f64, [f64; 1])>| o.map(|(v, x)| (v.to_bits(), x[0].to_bits()));
            assert_eq!(bits(got), bits(want), "values {values:?}, order {order:?}");
        }
    }

    /// Dense grid maximum of `f` over the first two coordinates.
    fn grid_max(f: impl Fn(f64, f64) -> f64) -> f64 {
        let mut m = f64::NEG_INFINITY;
        for i in 0..=400 {
            for j in 0..=400 {
                m = m.max(f(i as f64 / 400.0, j as f64 / 400.0));
            }
        }
        m
    }

    /// Two Gaussian bumps in the first two coordinates, heights 0.8 and 1, the higher one of
    /// squared width `w2`; value and gradient.
    fn bumps(x: &[f64; 3], w2: f64) -> (f64, [f64; 3]) {
        let (a, b) = (x[0], x[1]);
        let e1 = (-((a - 0.2).powi(2) + (b - 0.3).powi(2)) / 0.02).exp() * 0.8;
        let e2 = (-((a - 0.75).powi(2) + (b - 0.8).powi(2)) / w2).exp();
        let ga = e1 * (-2.0 * (a - 0.2) / 0.02) + e2 * (-2.0 * (a - 0.75) / w2);
        let gb = e1 * (-2.0 * (b - 0.3) / 0.02) + e2 * (-2.0 * (b - 0.8) / w2);
        (e1 + e2, [ga, gb, 0.0])
    }

    fn check(w2: f64, config: &InnerConfig) {
        let set = ControlSet::of(&[0, 1]);
        let want = grid_max(|a, b| bumps(&[a, b, 0.0], w2).0);
        for seed in 0..5 {
            let res = maximize(
                set,
                &mut |x: &[f64; 3], _: Need<f64>| Some(bumps(x, w2)),
                config,
                seed,
            )
            .unwrap();
            assert!(
                res.value >= want - 1e-6,
                "w2={w2} seed={seed}: {} vs grid {}",
                res.value,
                want
            );
            assert!((res.x[0] - 0.75).abs() < 1e-3 && (res.x[1] - 0.8).abs() < 1e-3);
            assert_eq!(res.x[2], 0.5, "uncontrolled coordinate must not move");
            assert!(res.evaluations <= config.max_evaluations());
        }
    }

    #[test]
    fn default_budget_finds_the_higher_of_two_bumps() {
        check(0.02, &InnerConfig::default());
    }

    #[test]
    fn larger_budget_finds_a_narrow_peak() {
        // The higher bump is 4x narrower: a 64-point pool with 4 starts can miss it, a
        // 256-point pool with 8 starts must not.
        check(
            0.005,
            &InnerConfig {
                pool: 256,
                starts: 8,
                evaluations_per_start: 20,
            },
        );
    }

    #[test]
    fn maximum_on_the_boundary_and_single_variable_sets() {
        let set = ControlSet::of(&[1]);
        let res = maximize(
            set,
            &mut |x: &[f64; 2], _: Need<f64>| {
                Some((x[1] * 2.0 - x[1] * x[1] * 0.5, [0.0, 2.0 - x[1]]))
            },
            &InnerConfig::default(),
            1,
        )
        .unwrap();
        assert_eq!(res.x[1], 1.0);
        assert!((res.value - 1.5).abs() < 1e-12);
    }

    #[test]
    fn failures_everywhere_give_none() {
        let r = maximize(
            ControlSet::of(&[0]),
            &mut |_: &[f64; 1], _: Need<f64>| None,
            &InnerConfig::default(),
            0,
        );
        assert!(r.is_none());
    }

    /// Exact inclusion probabilities of sequential weighted sampling without replacement of
    /// `k` of the weights (by enumeration), with the best entry forced in for the last draw.
    fn inclusion(weights: &[f64], k: usize, best: usize) -> Vec<f64> {
        fn walk(w: &[f64], k: usize, best: usize, taken: &mut Vec<usize>, p: f64, out: &mut [f64]) {
            if taken.len() == k {
                let mut set = taken.clone();
                if !set.contains(&best) {
                    set[k - 1] = best;
                }
                for i in set {
                    out[i] += p;
                }
                return;
            }
            let free: f64 = (0..w.len())
                .filter(|i| !taken.contains(i))
                .map(|i| w[i])
                .sum();
            for i in 0..w.len() {
                if !taken.contains(&i) {
                    taken.push(i);
                    walk(w, k, best, taken, p * w[i] / free, out);
                    taken.pop();
                }
            }
        }
        let mut out = vec![0.0; weights.len()];
        walk(weights, k, best, &mut vec![], 1.0, &mut out);
        out
    }

    #[test]
    fn restarts_are_drawn_like_botorch_initialize_q_batch() {
        // Five raw values; restarts drawn with weights exp(z), the best always in.
        let raw = [0.1, 2.0, -1.0, 0.7, 1.2];
        let n = raw.len() as f64;
        let mean = raw.iter().sum::<f64>() / n;
        let sd = (raw.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        let weights: Vec<f64> = raw.iter().map(|v| ((v - mean) / sd).exp()).collect();
        let want = inclusion(&weights, 2, 1);
        let trials = 40_000;
        let mut counts = [0u32; 5];
        for seed in 0..trials {
            let mut v = raw;
            mark_restarts(&mut v, 2, Some(1.0), seed, 1);
            assert_eq!(v.iter().filter(|x| **x == f64::INFINITY).count(), 2);
            for (c, x) in counts.iter_mut().zip(&v) {
                *c += u32::from(*x == f64::INFINITY);
            }
        }
        assert_eq!(
            counts[1], trials as u32,
            "the best raw value is always a restart"
        );
        let got = counts.map(|c| f64::from(c) / trials as f64);
        for i in 0..5 {
            // Binomial standard error at 40 000 trials is at most 0.0025.
            assert!(
                (got[i] - want[i]).abs() < 0.01,
                "{i}: {} vs exact {}",
                got[i],
                want[i]
            );
        }
        // Without Boltzmann weights: the best values; failed candidates are never chosen.
        let mut v = [0.1, f64::NEG_INFINITY, 5.0, 0.7, 1.2];
        mark_restarts(&mut v, 3, None, 0, 2);
        let marked: Vec<usize> = (0..5).filter(|&i| v[i] == f64::INFINITY).collect();
        assert_eq!(marked, [2, 3, 4]);
        let mut v = [f64::NEG_INFINITY, 1.0];
        mark_restarts(&mut v, 5, Some(1.0), 0, 1);
        assert_eq!(v, [f64::NEG_INFINITY, f64::INFINITY]);
    }

    #[test]
    fn restarts_find_the_higher_of_two_bumps_in_every_dimension_kept() {
        let set = ControlSet::of(&[0, 1]);
        let want = grid_max(|a, b| bumps(&[a, b, 0.0], 0.005).0);
        let config = RestartConfig::paper_002(2);
        let mut scratch = vec![0.0; config.scratch_len()];
        for seed in 0..5 {
            let mut f = |x: &[f64; 3], _: Need<f64>| Some(bumps(x, 0.005));
            let r = maximize_with_restarts(set, &mut f, &config, seed, &mut scratch).unwrap();
            assert!(
                r.value >= want - 1e-6,
                "seed {seed}: {} vs grid {want}",
                r.value
            );
            assert_eq!(r.x[2], 0.5, "uncontrolled coordinate must not move");
        }
        // Scratch too short, or failures everywhere: no result.
        let mut f = |x: &[f64; 3], _: Need<f64>| Some(bumps(x, 0.005));
        assert!(maximize_with_restarts(set, &mut f, &config, 0, &mut [0.0; 3]).is_none());
        let mut g = |_: &[f64; 3], _: Need<f64>| None;
        assert!(maximize_with_restarts(set, &mut g, &config, 0, &mut scratch).is_none());
    }

    #[test]
    fn beyond_sobols_table_candidates_are_iid_and_maxima_are_found() {
        // D = 25 > 21: a concave quadratic peaked at t_l = 0.1 + 0.03·l; both maximisers
        // reach the peak (value 0) from i.i.d. candidates.
        const D: usize = 25;
        let t: [f64; D] = core::array::from_fn(|l| 0.1 + 0.03 * l as f64);
        let quadratic = |x: &[f64; D], _: Need<f64>| {
            let v = -x
                .iter()
                .zip(&t)
                .map(|(a, b)| (a - b) * (a - b))
                .sum::<f64>();
            Some((v, core::array::from_fn(|l| -2.0 * (x[l] - t[l]))))
        };
        let set = ControlSet::full(D);
        let config = RestartConfig::paper_002(D);
        let mut scratch = vec![0.0; config.scratch_len()];
        let mut f = quadratic;
        let r = maximize_with_restarts(set, &mut f, &config, 3, &mut scratch).unwrap();
        assert!(r.value > -1e-8, "{}", r.value);
        let mut f = quadratic;
        let p = maximize(set, &mut f, &InnerConfig::default(), 3).unwrap();
        assert!(p.value > -1e-6, "{}", p.value);
        // The candidates spread over the cube (not the centre every time).
        let mut c = Candidates::<D>::new(7);
        let (a, b): ([f64; D], [f64; D]) = (c.next_point(), c.next_point());
        assert!(a != b && a.iter().all(|&v| v > 0.0 && v < 1.0));
    }
}
