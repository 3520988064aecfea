//! Where to measure: TV-GP-UCB's choice over a finite candidate set, the paper's PI and EI
//! baselines, and the local maxima of the UCB that the confidence test compares against.
//!
//! Candidates are indices `0 … M−1` and the posterior is read through a closure, so the same
//! code serves [`CandidatePosterior`](crate::gp::candidates::CandidatePosterior) (grids,
//! independent arms) and any other model. Ties go to the lowest index, so a choice is a pure
//! function of the posterior.
//!
//! On a grid, neighbouring points of the chosen one are nearly tied with it, so testing
//! against every candidate would make the confidence test fire always; the paper (App. E.1,
//! E.3) tests against the local optima of the UCB instead, found by L-BFGS from 50 random
//! starts and merged by mean-shift with bandwidth 0.2. [`grid_local_maxima`] finds the strict
//! local maxima of a 1-D grid; [`grid_competitors`] emulates the paper's procedure: every
//! *stationary* point (where a gradient method would stop: the slope to both neighbours at
//! most a tolerance, which includes the flat stretches far from any data, where L-BFGS
//! started there does not move) is a candidate optimum, and optima within the bandwidth of a
//! higher one, or of the chosen point, are merged into it. One addition of ours: the UCB's
//! maximum over the candidates beyond the bandwidth from the chosen point always competes,
//! stationary or not. Without it the rule is silent whenever the UCB has a single mode,
//! however uncertain the posterior is there: after one observation the UCB rises
//! monotonically toward the far end of the interval, the chosen point is that end, and no
//! other optimum exists (we saw CE pay once in 120 rounds).

use crate::acquisition::ucb::ascend_ucb;
use crate::gp::Prediction;
use crate::real::Real;
use crate::special::improvement::expected_improvement;
use crate::special::normal_cdf;

/// An acquisition over candidates, a function of the posterior at the candidate alone.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Acquire<R> {
    /// `μ + w·σ` with `w = √β_t` (TV-GP-UCB).
    Ucb {
        /// The width `√β_t`.
        width: R,
    },
    /// Probability of improvement `Φ((μ − best − ξ)/σ)`.
    Pi {
        /// The incumbent value `best` (for a drifting function: the largest posterior mean
        /// over the candidates, since past outcomes were measured on past functions).
        incumbent: R,
        /// The margin ξ ≥ 0.
        margin: R,
    },
    /// Expected improvement `E[max(f − best, 0)]`.
    Ei {
        /// The incumbent value `best` (see [`Acquire::Pi`]).
        incumbent: R,
    },
}

impl<R: Real> Acquire<R> {
    /// The acquisition's value for a posterior `p` (−∞ where it cannot be evaluated).
    pub fn value(&self, p: Prediction<R>) -> R {
        let std = p.variance.max(R::ZERO).sqrt();
        match *self {
            Acquire::Ucb { width } => p.mean + width * std,
            Acquire::Pi { incumbent, margin } => {
                let gap = p.mean - incumbent - margin;
                if std > R::ZERO {
                    normal_cdf(gap / std)
                } else if gap > R::ZERO {
                    R::ONE
                } else {
                    R::ZERO
                }
            }
            Acquire::Ei { incumbent } => {
                expected_improvement(p.mean, std, incumbent).unwrap_or(-R::INFINITY)
            }
        }
    }
}

/// The first candidate of largest value among `0 … n−1`, with its value; `None` when `n = 0`
/// or no value is a number.
pub fn argmax<R: Real>(n: usize, value: impl Fn(usize) -> R) -> Option<(usize, R)> {
    let mut best: Option<(usize, R)> = None;
    for i in 0..n {
        let v = value(i);
        if v.is_nan() {
            continue;
        }
        if best.is_none_or(|(_, b)| v > b) {
            best = Some((i, v));
        }
    }
    best
}

/// The largest posterior mean over `0 … n−1` (the PI/EI incumbent of a drifting function).
pub fn best_mean<R: Real>(n: usize, predict: impl Fn(usize) -> Prediction<R>) -> Option<R> {
    argmax(n, |i| predict(i).mean).map(|(_, v)| v)
}

/// The local maxima of `value` on a 1-D grid of `n` points: `i` with `v[i] ≥ v[i−1]` and
/// `v[i] > v[i+1]` (a missing neighbour always passes), so a plateau yields its right end and
/// a constant function one maximum at the last point. Writes up to `out.len()` indices, the
/// highest values kept when there are more maxima than room, in increasing index order;
/// returns how many were written.
pub fn grid_local_maxima<R: Real>(
    n: usize,
    value: impl Fn(usize) -> R,
    out: &mut [usize],
) -> usize {
    let cap = out.len();
    if cap == 0 {
        return 0;
    }
    let mut count = 0;
    let mut prev: Option<R> = None;
    let mut here = (n > 0).then(|| value(0));
    for i in 0..n {
        let next = (i + 1 < n).then(|| value(i + 1));
        let Some(v) = here.filter(|v| !v.is_nan()) else {
            (prev, here) = (here, next);
            continue;
        };
        // A missing (or NaN) neighbour always passes.
        let left_ok = prev.is_none_or(|p| p <= v || p.is_nan());
        let right_ok = next.is_none_or(|q| q < v || q.is_nan());
        if left_ok && right_ok {
            if count < cap {
                out[count] = i;
                count += 1;
            } else {
                // Replace the lowest kept maximum if this one is higher.
                let (slot, low) = (0..cap)
                    .map(|k| (k, value(out[k])))
                    .fold((0, R::INFINITY), |a, b| if b.1 < a.1 { b } else { a });
                if v > low {
                    out.copy_within(slot + 1..cap, slot);
                    out[cap - 1] = i;
                }
            }
        }
        (prev, here) = (here, next);
    }
    count
}

/// The confidence test's competitors on a 1-D grid of `n` points evenly spaced on [0, 1] (see
/// the module docs): first the highest point of `value` farther than `bandwidth` from
/// `chosen`, then repeatedly the highest stationary point farther than `bandwidth` from
/// `chosen` and from every competitor already taken. A point `i` is
/// stationary when `v[i] ≥ v[i±1] − slope_tolerance·h` for both neighbours (`h = 1/(n−1)`).
/// Writes up to `out.len()` indices, highest first; returns how many. O(n·out.len()).
pub fn grid_competitors<R: Real>(
    n: usize,
    value: impl Fn(usize) -> R,
    chosen: usize,
    slope_tolerance: R,
    bandwidth: R,
    out: &mut [usize],
) -> usize {
    competitors_among_stationary(n, value, chosen, slope_tolerance, bandwidth, true, out)
}

/// [`grid_competitors`] without its first, unconditional competitor: only stationary points
/// compete (where a gradient ascent started there would stop, the paper's procedure of
/// L-BFGS from many starts emulated on the grid), so a UCB that rises to one mode with no
/// flat stretch leaves the test without competitors.
pub fn grid_stationary_competitors<R: Real>(
    n: usize,
    value: impl Fn(usize) -> R,
    chosen: usize,
    slope_tolerance: R,
    bandwidth: R,
    out: &mut [usize],
) -> usize {
    competitors_among_stationary(n, value, chosen, slope_tolerance, bandwidth, false, out)
}

fn competitors_among_stationary<R: Real>(
    n: usize,
    value: impl Fn(usize) -> R,
    chosen: usize,
    slope_tolerance: R,
    bandwidth: R,
    best_far_first: bool,
    out: &mut [usize],
) -> usize {
    if n < 2 {
        return 0;
    }
    let spacing = R::ONE / R::from_usize(n - 1);
    let step = slope_tolerance * spacing;
    let at = |i: usize| R::from_usize(i) * spacing;
    let stationary = |i: usize, v: R| {
        let left = i == 0 || value(i - 1) - step <= v;
        let right = i + 1 == n || value(i + 1) - step <= v;
        left && right
    };
    let far = |i: usize, j: usize| {
        let d = at(i) - at(j);
        d > bandwidth || -d > bandwidth
    };
    let mut count = 0;
    while count < out.len() {
        let mut best: Option<(usize, R)> = None;
        let any_point = best_far_first && count == 0;
        for i in 0..n {
            if !far(i, chosen) || out[..count].iter().any(|&j| !far(i, j)) {
                continue;
            }
            let v = value(i);
            if v.is_nan() || best.is_some_and(|(_, b)| v <= b) || (!any_point && !stationary(i, v))
            {
                continue;
            }
            best = Some((i, v));
        }
        let Some((i, _)) = best else {
            break;
        };
        out[count] = i;
        count += 1;
    }
    count
}

/// The confidence test's competitors as paper 003 writes them (App. E.1, E.3): the local
/// maxima of `value` on a 1-D grid of `n` points evenly spaced on [0, 1]
/// ([`grid_local_maxima`]), merged highest first as [`box_ucb_optima`] merges its optima (a
/// greedy stand-in for mean-shift with that bandwidth): a maximum within `bandwidth` of
/// `chosen` or of a higher one already kept is dropped. Unlike [`grid_competitors`], a point
/// that is not a local maximum never competes, so a UCB with one mode leaves the test without
/// competitors. Writes up to `out.len()` indices, highest first; returns how many.
/// O(n + out.len()²).
pub fn grid_local_maxima_competitors<R: Real>(
    n: usize,
    value: impl Fn(usize) -> R,
    chosen: usize,
    bandwidth: R,
    out: &mut [usize],
) -> usize {
    if n < 2 {
        return 0;
    }
    let found = grid_local_maxima(n, &value, out);
    // Highest first (insertion sort: a handful of maxima).
    for i in 1..found {
        let mut j = i;
        while j > 0 && value(out[j]) > value(out[j - 1]) {
            out.swap(j, j - 1);
            j -= 1;
        }
    }
    let spacing = R::ONE / R::from_usize(n - 1);
    let far = |i: usize, j: usize| {
        let d = (R::from_usize(i) - R::from_usize(j)) * spacing;
        d > bandwidth || -d > bandwidth
    };
    let mut kept = 0;
    for k in 0..found {
        let i = out[k];
        if far(i, chosen) && out[..kept].iter().all(|&j| far(i, j)) {
            out[kept] = i;
            kept += 1;
        }
    }
    kept
}

/// One local optimum of the UCB over the unit box.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoxOptimum<R, const D: usize> {
    /// Where it is.
    pub x: [R; D],
    /// The UCB there.
    pub value: R,
    /// The posterior there (mean and latent variance).
    pub prediction: Prediction<R>,
}

/// The local optima of `μ + width·σ` of a time-varying GP over the unit box, the paper's
/// continuous procedure (App. E.3): a quasi-Newton ascent (projected L-BFGS) from each start,
/// and optima within `bandwidth` (Euclidean) of a higher one merged into it — a greedy stand-in
/// for mean-shift with that bandwidth. Writes up to `out.len()` optima, highest first (the
/// first is TV-GP-UCB's choice, the rest the confidence test's competitors); returns how many.
/// Starts where the posterior cannot be evaluated are skipped.
pub fn box_ucb_optima<R, const N: usize, const D: usize, S>(
    gp: &crate::gp::time_varying::TimeVaryingGp<R, N, D, S>,
    width: R,
    starts: &[[R; D]],
    config: &crate::optimize::QuasiNewtonConfig,
    bandwidth: R,
    out: &mut [BoxOptimum<R, D>],
) -> usize
where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
{
    let lower = [R::ZERO; D];
    let upper = [R::ONE; D];
    let mut count = 0;
    for start in starts {
        let Some(m) = ascend_ucb(gp, width, *start, &lower, &upper, config) else {
            continue;
        };
        let found = BoxOptimum {
            x: m.input,
            value: m.value,
            prediction: m.prediction,
        };
        let near = out[..count].iter().position(|o| {
            let d2 = (0..D).fold(R::ZERO, |s, l| s + (o.x[l] - found.x[l]).sq());
            d2 <= bandwidth * bandwidth
        });
        match near {
            Some(k) if found.value > out[k].value => out[k] = found,
            Some(_) => {}
            None if count < out.len() => {
                out[count] = found;
                count += 1;
            }
            None => {
                // Full: replace the lowest optimum if this one is higher.
                if let Some(k) = (0..count).min_by(|&a, &b| {
                    out[a]
                        .value
                        .partial_cmp(&out[b].value)
                        .unwrap_or(core::cmp::Ordering::Equal)
                }) {
                    if found.value > out[k].value {
                        out[k] = found;
                    }
                }
            }
        }
    }
    // Highest first (insertion sort: a handful of optima).
    for i in 1..count {
        let mut j = i;
        while j > 0 && out[j].value > out[j - 1].value {
            out.swap(j, j - 1);
            j -= 1;
        }
    }
    count
}

/// The chosen point and the confidence test's competitors over the unit box in our reading (as
/// [`grid_competitors`] on a grid, the `ce` rows of paper 003's study): the optima of
/// [`box_ucb_optima`] (`out[0]` is TV-GP-UCB's choice), and where the UCB at some start
/// farther than `bandwidth` from the choice is higher than every optimum that far, that start
/// competes first and the optima within `bandwidth` of it merge into it. Without it a UCB
/// with a single mode leaves the test with no competitor and the rule stops paying for good
/// (paper 003's study measures it: `docs/results/costly-feedback.md`). Writes up to
/// `out.len()` points, the choice then the competitors; returns how many.
pub fn box_competitors<R, const N: usize, const D: usize, S>(
    gp: &crate::gp::time_varying::TimeVaryingGp<R, N, D, S>,
    width: R,
    starts: &[[R; D]],
    config: &crate::optimize::QuasiNewtonConfig,
    bandwidth: R,
    out: &mut [BoxOptimum<R, D>],
) -> usize
where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
{
    use crate::gp::Posterior;
    let count = box_ucb_optima(gp, width, starts, config, bandwidth, out);
    if count == 0 || out.len() < 2 {
        return count;
    }
    let far = |a: &[R; D], b: &[R; D]| {
        (0..D).fold(R::ZERO, |s, l| s + (a[l] - b[l]).sq()) > bandwidth * bandwidth
    };
    let chosen = out[0].x;
    let mut best: Option<BoxOptimum<R, D>> = None;
    for start in starts.iter().filter(|s| far(s, &chosen)) {
        let Ok(p) = Posterior::predict(gp, start) else {
            continue;
        };
        let value = p.mean + width * p.variance.max(R::ZERO).sqrt();
        if !value.is_nan() && best.is_none_or(|b| value > b.value) {
            best = Some(BoxOptimum {
                x: *start,
                value,
                prediction: p,
            });
        }
    }
    let Some(start) = best else {
        return count;
    };
    // The optima are highest first: out[1] is the highest beyond the bandwidth.
    if count > 1 && out[1].value >= start.value {
        return count;
    }
    let mut kept = 1;
    for i in 1..count {
        if far(&out[i].x, &start.x) {
            out[kept] = out[i];
            kept += 1;
        }
    }
    // Room for the start: when full, the lowest optimum gives way.
    let total = (kept + 1).min(out.len());
    for i in (2..total).rev() {
        out[i] = out[i - 1];
    }
    out[1] = start;
    total
}
