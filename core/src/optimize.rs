//! Box-constrained gradient ascent with a fixed evaluation budget.
//!
//! Spectral projected gradient (Barzilai–Borwein steps projected onto the box, Armijo
//! backtracking): it needs only gradients and O(dimension) memory, handles bounds exactly, and
//! copes with badly scaled coordinates. Both the hyperparameter fit and the acquisition
//! maximisation use it, over any fixed-size coordinate type.

use crate::real::Real;

/// A fixed-length vector of coordinates that the optimiser can move.
pub trait Coordinates<R>: Copy {
    /// Number of coordinates.
    fn len(&self) -> usize;
    /// Coordinate `i`.
    fn get(&self, i: usize) -> R;
    /// Mutable coordinate `i`.
    fn get_mut(&mut self, i: usize) -> &mut R;
    /// True when there are no coordinates.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<R: Real, const K: usize> Coordinates<R> for [R; K] {
    fn len(&self) -> usize {
        K
    }
    fn get(&self, i: usize) -> R {
        self[i]
    }
    fn get_mut(&mut self, i: usize) -> &mut R {
        &mut self[i]
    }
}

/// Clamps every coordinate of `x` into `[lower, upper]`.
pub fn project<R: Real, V: Coordinates<R>>(x: &mut V, lower: &V, upper: &V) {
    for i in 0..x.len() {
        let v = x.get(i).clamp_to(lower.get(i), upper.get(i));
        *x.get_mut(i) = v;
    }
}

/// An ascent stops when no free coordinate of the projected gradient step `P(h + g) − h`
/// exceeds this: L-BFGS-B's default `pgtol` (SciPy), the optimiser paper 000's code uses.
pub const PROJECTED_GRADIENT_TOLERANCE: f64 = 1e-5;

/// An ascent also stops when [`STALLED_STEPS`] accepted steps in a row each improve the
/// objective by at most this times `max(|f|, |f'|, 1)`: L-BFGS-B's default `factr = 1e7` times
/// the `f64` machine epsilon.
pub const RELATIVE_IMPROVEMENT_TOLERANCE: f64 = 1e7 * f64::EPSILON;

/// Consecutive negligible improvements that end an ascent (one is not enough in a narrow curved
/// valley, where gradient steps are short but keep making progress).
pub const STALLED_STEPS: usize = 3;

/// Outcome of one ascent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ascent<R, V> {
    /// Best point found.
    pub point: V,
    /// Objective there.
    pub value: R,
    /// Objective evaluations used.
    pub evaluations: usize,
}

/// What one evaluation of an objective must deliver: the optimiser's one notion of "how precise
/// must this evaluation be".
///
/// An objective may answer a request it is told is unimportant with less work: an upper bound
/// in place of a value that is sure to be ignored, no gradient where none will be used. With
/// exact values and gradients wherever they matter the optimisers' results are unchanged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Need<R> {
    /// Value and gradient (the start of an ascent: both are always used).
    Gradient,
    /// A line-search trial of an ascent: it is accepted, and its gradient used, only if its
    /// value reaches `accept_from`. Below that, any value below `accept_from` (an upper bound,
    /// say) may be returned in its place, with any gradient.
    Trial {
        /// The value needed for acceptance.
        accept_from: R,
    },
    /// The value of a candidate that is only compared, never climbed from (a pool of starting
    /// points). Its gradient is not used, and a value at or below `floor` cannot change the
    /// result, so an upper bound of the value may be returned in its place whenever that
    /// bound is at most `floor`.
    Value {
        /// Values at or below it are ignored; −∞ while every value matters.
        floor: R,
    },
}

impl<R: Real> Need<R> {
    /// Where values stop mattering: `Some((at, inclusive))` when any value below `at` (or equal
    /// to it, if `inclusive`) is ignored, so that an upper bound in that range may stand in for
    /// the value; `None` when every value matters.
    pub fn ignored_below(&self) -> Option<(R, bool)> {
        match *self {
            Need::Gradient => None,
            Need::Trial { accept_from } => Some((accept_from, false)),
            Need::Value { floor } => Some((floor, true)),
        }
    }

    /// The value from which the gradient is used: −∞ (always), a trial's acceptance level, or
    /// +∞ (never, for a compared value).
    pub fn gradient_from(&self) -> R {
        match *self {
            Need::Gradient => -R::INFINITY,
            Need::Trial { accept_from } => accept_from,
            Need::Value { .. } => R::INFINITY,
        }
    }

    /// True unless the gradient is certainly unused (a compared value).
    pub fn wants_gradient(&self) -> bool {
        !matches!(self, Need::Value { .. })
    }
}

/// The largest move of a free coordinate under a projected gradient step, `|P(x + g) − x|`:
/// both ascents stop when it is at most [`PROJECTED_GRADIENT_TOLERANCE`] (a NaN gradient gives
/// NaN, which stops them too).
fn projected_gradient<R: Real, V: Coordinates<R>>(x: &V, g: &V, lower: &V, upper: &V) -> R {
    (0..x.len())
        .filter(|&i| lower.get(i) != upper.get(i))
        .fold(R::ZERO, |m, i| {
            let moved = (x.get(i) + g.get(i)).clamp_to(lower.get(i), upper.get(i)) - x.get(i);
            m.max(moved.abs())
        })
}

/// A line-search trial at `cand`: the point, its value and gradient if the value reaches
/// `threshold` (the Armijo condition), `None` otherwise.
fn try_step<R: Real, V: Coordinates<R>>(
    f: &mut impl FnMut(&V, Need<R>) -> Option<(R, V)>,
    cand: V,
    threshold: R,
) -> Option<(V, R, V)> {
    let (fc, gc) = f(
        &cand,
        Need::Trial {
            accept_from: threshold,
        },
    )?;
    (fc >= threshold).then_some((cand, fc, gc))
}

/// The first step length of an ascent: at most the box's width (or 1) along the steepest of
/// the coordinates `free` allows to move.
fn first_step<R: Real, V: Coordinates<R>>(
    g: &V,
    lower: &V,
    upper: &V,
    free: impl Fn(usize) -> bool,
) -> R {
    let gmax = (0..g.len())
        .filter(|&i| free(i))
        .fold(R::ZERO, |m, i| m.max(g.get(i).abs()));
    let width = (0..g.len())
        .filter(|&i| lower.get(i) != upper.get(i))
        .fold(R::ZERO, |m, i| m.max(upper.get(i) - lower.get(i)));
    let unit = if width.is_finite() && width > R::ZERO {
        width.min(R::ONE)
    } else {
        R::ONE
    };
    if gmax > R::ZERO {
        unit / gmax
    } else {
        R::ONE
    }
}

/// Maximises `f` over the box from `start` (projected into it), with at most `budget`
/// evaluations. `f` returns the value and the gradient, or `None` where it cannot be evaluated
/// (treated as worse than anything); it is told what each evaluation is for ([`Need`]): the
/// start point needs both ([`Need::Gradient`]), a line-search trial only what decides its
/// acceptance ([`Need::Trial`]), and the ascent is unchanged by any answer the contract allows.
/// Coordinates with `lower == upper` never move.
///
/// Returns `None` only when `f` fails at the start point.
pub fn maximize<R, V, F>(
    mut f: F,
    start: V,
    lower: &V,
    upper: &V,
    budget: usize,
) -> Option<Ascent<R, V>>
where
    R: Real,
    V: Coordinates<R>,
    F: FnMut(&V, Need<R>) -> Option<(R, V)>,
{
    let len = start.len();
    let mut h = start;
    project(&mut h, lower, upper);
    let mut used = 1;
    let (mut fx, mut g) = f(&h, Need::Gradient)?;
    let fixed = |i: usize| lower.get(i) == upper.get(i);
    // First step: move at most 1 along the steepest free coordinate... scaled to the box.
    let mut step = first_step(&g, lower, upper, |i| !fixed(i));
    let (step_min, step_max) = (R::from_f64(1e-12), R::from_f64(1e12));
    let pg_tol = R::from_f64(PROJECTED_GRADIENT_TOLERANCE);
    let f_tol = R::from_f64(RELATIVE_IMPROVEMENT_TOLERANCE);
    let mut stalled = 0;
    while used < budget {
        // Converged: the projected gradient is negligible (also stops on a NaN gradient).
        let pg = projected_gradient(&h, &g, lower, upper);
        if pg.partial_cmp(&pg_tol) != Some(core::cmp::Ordering::Greater) {
            break;
        }
        // Projected direction d = P(h + step·g) − h.
        let mut d = h;
        let mut slope = R::ZERO;
        let mut dmax = R::ZERO;
        for i in 0..len {
            let target = if fixed(i) {
                h.get(i)
            } else {
                (h.get(i) + step * g.get(i)).clamp_to(lower.get(i), upper.get(i))
            };
            let di = target - h.get(i);
            *d.get_mut(i) = di;
            slope += di * g.get(i);
            dmax = dmax.max(di.abs());
        }
        // `slope` must be positive for ascent; the negated test also stops on NaN.
        if dmax <= R::EPSILON * R::from_f64(16.0)
            || slope.partial_cmp(&R::ZERO) != Some(core::cmp::Ordering::Greater)
        {
            break;
        }
        // Armijo backtracking along d.
        let mut lambda = R::ONE;
        let mut accepted = None;
        while used < budget {
            let mut cand = h;
            for i in 0..len {
                *cand.get_mut(i) += lambda * d.get(i);
            }
            project(&mut cand, lower, upper);
            used += 1;
            let threshold = fx + R::from_f64(1e-4) * lambda * slope;
            if let Some(step) = try_step(&mut f, cand, threshold) {
                accepted = Some(step);
                break;
            }
            lambda *= R::HALF;
            if lambda < R::from_f64(1e-6) {
                break;
            }
        }
        let Some((cand, fc, gc)) = accepted else {
            break;
        };
        // Barzilai–Borwein step for the minimisation of −f: s = Δx, y = −Δg.
        let (mut ss, mut sy) = (R::ZERO, R::ZERO);
        for i in 0..len {
            let si = cand.get(i) - h.get(i);
            ss += si * si;
            sy += si * (g.get(i) - gc.get(i));
        }
        step = if sy > R::ZERO {
            (ss / sy).clamp_to(step_min, step_max)
        } else {
            step_max.min(step * R::from_f64(10.0))
        };
        if fc - fx <= f_tol * fx.abs().max(fc.abs()).max(R::ONE) {
            stalled += 1;
        } else {
            stalled = 0;
        }
        h = cand;
        fx = fc;
        g = gc;
        if stalled >= STALLED_STEPS {
            break;
        }
    }
    Some(Ascent {
        point: h,
        value: fx,
        evaluations: used,
    })
}

/// Settings of [`maximize_quasi_newton`]; the defaults are SciPy's L-BFGS-B defaults with
/// BoTorch's iteration cap, as paper 002's acquisition optimiser uses them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QuasiNewtonConfig {
    /// Most iterations (accepted steps); BoTorch passes `maxiter = 200`.
    pub max_iterations: usize,
    /// Most objective evaluations in all (line-search trials included).
    pub max_evaluations: usize,
    /// Stop when no free coordinate of the projected gradient step exceeds this (`pgtol`).
    pub projected_gradient_tolerance: f64,
    /// Stop when a step improves the objective by at most this times
    /// `max(|f|, |f'|, 1)` (`factr · ε`).
    pub relative_improvement_tolerance: f64,
}

impl Default for QuasiNewtonConfig {
    fn default() -> Self {
        QuasiNewtonConfig {
            max_iterations: 200,
            max_evaluations: 15_000,
            projected_gradient_tolerance: PROJECTED_GRADIENT_TOLERANCE,
            relative_improvement_tolerance: RELATIVE_IMPROVEMENT_TOLERANCE,
        }
    }
}

/// Pairs of steps and gradient changes kept by [`maximize_quasi_newton`] (L-BFGS-B's default
/// `m = 10`).
pub const QUASI_NEWTON_MEMORY: usize = 10;

/// Maximises `f` over the box from `start` by a limited-memory quasi-Newton method with bounds
/// (projected L-BFGS): the two-loop recursion of the last [`QUASI_NEWTON_MEMORY`] steps gives
/// the direction on the free coordinates (those not held at a bound by the gradient), steps
/// are projected onto the box and accepted by an Armijo test along the projected path, and the
/// ascent stops at SciPy's L-BFGS-B tolerances or after `config.max_iterations` steps. It
/// reaches the maxima SciPy's L-BFGS-B (paper 002's acquisition optimiser) reaches without its
/// generalised Cauchy point: the difference is in the path, not in the stopping rule.
///
/// `f` is told what each evaluation is for ([`Need`]), as in [`maximize`]. Returns `None` only
/// when `f` fails at the start point. The ascent itself is [`QuasiNewton`], which callers
/// with several ascents to run can step side by side.
pub fn maximize_quasi_newton<R, V, F>(
    mut f: F,
    start: V,
    lower: &V,
    upper: &V,
    config: &QuasiNewtonConfig,
) -> Option<Ascent<R, V>>
where
    R: Real,
    V: Coordinates<R>,
    F: FnMut(&V, Need<R>) -> Option<(R, V)>,
{
    let mut ascent = QuasiNewton::new(start, lower, upper, config);
    while let Some((x, need)) = ascent.next_point() {
        ascent.tell(f(&x, need));
    }
    ascent.result()
}

/// What a [`QuasiNewton`] ascent waits for.
#[derive(Debug, Clone, Copy)]
enum Pending<R, V> {
    /// The value and gradient at the start point.
    Start(V),
    /// A line-search trial at `cand`, accepted if its value reaches `threshold`.
    Trial { cand: V, threshold: R },
    /// Nothing: the ascent is over (`failed` when the start could not be evaluated).
    Done { failed: bool },
}

/// [`maximize_quasi_newton`] as a state machine: [`next_point`](Self::next_point) gives the
/// point to evaluate next and what for, [`tell`](Self::tell) takes the objective's answer,
/// and [`result`](Self::result) is the ascent's outcome once no point is left. Several ascents
/// can so be advanced side by side, their points evaluated together (one pass of a triangular
/// solve for several points, [`crate::inner::maximize_with_restarts`]); each ascent sees only
/// its own answers, so it takes the same path as alone.
#[derive(Debug, Clone, Copy)]
pub struct QuasiNewton<R, V> {
    lower: V,
    upper: V,
    config: QuasiNewtonConfig,
    /// The current point, its value and gradient.
    x: V,
    fx: R,
    g: V,
    /// Evaluations used, and iterations begun.
    used: usize,
    iterations: usize,
    /// Memory of steps `s` and gradient changes `y` of the minimisation of −f, oldest first.
    s_mem: [V; QUASI_NEWTON_MEMORY],
    y_mem: [V; QUASI_NEWTON_MEMORY],
    rho: [R; QUASI_NEWTON_MEMORY],
    stored: usize,
    /// The line search's direction and step length.
    d: V,
    t: R,
    pending: Pending<R, V>,
}

impl<R: Real, V: Coordinates<R>> QuasiNewton<R, V> {
    /// An ascent from `start` (projected into the box), waiting for the value and gradient
    /// there.
    pub fn new(start: V, lower: &V, upper: &V, config: &QuasiNewtonConfig) -> Self {
        let mut x = start;
        project(&mut x, lower, upper);
        let zero = {
            let mut z = start;
            for i in 0..start.len() {
                *z.get_mut(i) = R::ZERO;
            }
            z
        };
        QuasiNewton {
            lower: *lower,
            upper: *upper,
            config: *config,
            x,
            fx: R::ZERO,
            g: zero,
            used: 1,
            iterations: 0,
            s_mem: [zero; QUASI_NEWTON_MEMORY],
            y_mem: [zero; QUASI_NEWTON_MEMORY],
            rho: [R::ZERO; QUASI_NEWTON_MEMORY],
            stored: 0,
            d: zero,
            t: R::ONE,
            pending: Pending::Start(x),
        }
    }

    /// The point to evaluate next and what for, or `None` when the ascent is over.
    pub fn next_point(&self) -> Option<(V, Need<R>)> {
        match self.pending {
            Pending::Start(x) => Some((x, Need::Gradient)),
            Pending::Trial { cand, threshold } => Some((
                cand,
                Need::Trial {
                    accept_from: threshold,
                },
            )),
            Pending::Done { .. } => None,
        }
    }

    /// The objective's answer at [`next_point`](Self::next_point)'s point: value and
    /// gradient, or `None` where it cannot be evaluated. Ignored once the ascent is over.
    pub fn tell(&mut self, answer: Option<(R, V)>) {
        match self.pending {
            Pending::Start(_) => match answer {
                Some((fx, g)) => {
                    (self.fx, self.g) = (fx, g);
                    self.begin_iteration();
                }
                None => self.pending = Pending::Done { failed: true },
            },
            Pending::Trial { cand, threshold } => match answer {
                Some((fc, gc)) if fc >= threshold => self.accept(cand, fc, gc),
                _ => {
                    self.t *= R::HALF;
                    if self.t < R::from_f64(1e-10) {
                        self.pending = Pending::Done { failed: false };
                    } else {
                        self.next_trial();
                    }
                }
            },
            Pending::Done { .. } => {}
        }
    }

    /// The ascent's outcome: `None` while it runs and when the start could not be evaluated.
    pub fn result(&self) -> Option<Ascent<R, V>> {
        match self.pending {
            Pending::Done { failed: false } => Some(Ascent {
                point: self.x,
                value: self.fx,
                evaluations: self.used,
            }),
            _ => None,
        }
    }

    /// Coordinate `i` does not move this iteration: fixed, or held at a bound by the gradient.
    fn held(&self, i: usize) -> bool {
        let (x, g, lower, upper) = (&self.x, &self.g, &self.lower, &self.upper);
        lower.get(i) == upper.get(i)
            || (x.get(i) <= lower.get(i) && g.get(i) < R::ZERO)
            || (x.get(i) >= upper.get(i) && g.get(i) > R::ZERO)
    }

    /// `Σ aᵢbᵢ` over the free coordinates.
    fn masked_dot(&self, a: &V, b: &V) -> R {
        (0..a.len())
            .filter(|&i| !self.held(i))
            .fold(R::ZERO, |acc, i| acc + a.get(i) * b.get(i))
    }

    /// Starts an iteration from the current point: stops at the iteration cap or a negligible
    /// projected gradient, else sets the direction and the first trial.
    // The two-loop recursion reads best with the memory's indices.
    #[allow(clippy::needless_range_loop)]
    fn begin_iteration(&mut self) {
        if self.iterations == self.config.max_iterations {
            self.pending = Pending::Done { failed: false };
            return;
        }
        self.iterations += 1;
        let len = self.x.len();
        let (lower, upper) = (self.lower, self.upper);
        // Converged: the projected gradient is negligible (also stops on a NaN gradient).
        let pg = projected_gradient(&self.x, &self.g, &lower, &upper);
        let pg_tol = R::from_f64(self.config.projected_gradient_tolerance);
        if pg.partial_cmp(&pg_tol) != Some(core::cmp::Ordering::Greater) {
            self.pending = Pending::Done { failed: false };
            return;
        }
        // Two-loop recursion on the free coordinates: d = H·g (an ascent direction).
        let g = self.g;
        let mut q = g;
        for i in 0..len {
            if self.held(i) {
                *q.get_mut(i) = R::ZERO;
            }
        }
        let mut alpha = [R::ZERO; QUASI_NEWTON_MEMORY];
        for k in (0..self.stored).rev() {
            alpha[k] = self.rho[k] * self.masked_dot(&self.s_mem[k], &q);
            for i in 0..len {
                *q.get_mut(i) -= alpha[k] * self.y_mem[k].get(i);
            }
        }
        let gamma = match self.stored {
            0 => first_step(&g, &lower, &upper, |i| !self.held(i)),
            k => {
                let yy = self.masked_dot(&self.y_mem[k - 1], &self.y_mem[k - 1]);
                let sy = self.masked_dot(&self.s_mem[k - 1], &self.y_mem[k - 1]);
                if yy > R::ZERO && sy > R::ZERO {
                    sy / yy
                } else {
                    R::ONE
                }
            }
        };
        for i in 0..len {
            *q.get_mut(i) *= gamma;
        }
        for k in 0..self.stored {
            let beta = self.rho[k] * self.masked_dot(&self.y_mem[k], &q);
            for i in 0..len {
                *q.get_mut(i) += self.s_mem[k].get(i) * (alpha[k] - beta);
            }
        }
        let mut d = q;
        for i in 0..len {
            if self.held(i) {
                *d.get_mut(i) = R::ZERO;
            }
        }
        // Not an ascent direction (a poor curvature model): forget it and climb the gradient.
        if self.masked_dot(&d, &g).partial_cmp(&R::ZERO) != Some(core::cmp::Ordering::Greater) {
            self.stored = 0;
            let gmax = (0..len)
                .filter(|&i| !self.held(i))
                .fold(R::ZERO, |m, i| m.max(g.get(i).abs()));
            let scale = if gmax > R::ZERO {
                R::ONE / gmax
            } else {
                R::ONE
            };
            for i in 0..len {
                *d.get_mut(i) = if self.held(i) {
                    R::ZERO
                } else {
                    g.get(i) * scale
                };
            }
        }
        self.d = d;
        // Armijo backtracking along the projected path x(t) = P(x + t·d).
        self.t = R::ONE;
        self.next_trial();
    }

    /// The trial at the current step length, or the end of the ascent when the evaluation
    /// budget is spent or the projected step no longer moves.
    fn next_trial(&mut self) {
        if self.used >= self.config.max_evaluations {
            self.pending = Pending::Done { failed: false };
            return;
        }
        let len = self.x.len();
        let mut cand = self.x;
        for i in 0..len {
            *cand.get_mut(i) += self.t * self.d.get(i);
        }
        project(&mut cand, &self.lower, &self.upper);
        let mut slope = R::ZERO;
        let mut moved = R::ZERO;
        for i in 0..len {
            let di = cand.get(i) - self.x.get(i);
            slope += di * self.g.get(i);
            moved = moved.max(di.abs());
        }
        if moved <= R::EPSILON * R::from_f64(16.0) {
            self.pending = Pending::Done { failed: false };
            return;
        }
        self.used += 1;
        let threshold = self.fx + R::from_f64(1e-4) * slope;
        self.pending = Pending::Trial { cand, threshold };
    }

    /// Takes an accepted trial: its curvature pair, then the next iteration unless the step
    /// improved the objective negligibly.
    fn accept(&mut self, cand: V, fc: R, gc: V) {
        let len = self.x.len();
        // Curvature pair of the minimisation of −f: s = Δx, y = −Δg; kept when s·y > 0.
        let mut s_new = self.d;
        let mut y_new = self.d;
        let (mut sy, mut yy) = (R::ZERO, R::ZERO);
        for i in 0..len {
            let si = cand.get(i) - self.x.get(i);
            let yi = self.g.get(i) - gc.get(i);
            *s_new.get_mut(i) = si;
            *y_new.get_mut(i) = yi;
            sy += si * yi;
            yy += yi * yi;
        }
        if sy > R::EPSILON * yy && sy > R::ZERO {
            if self.stored == QUASI_NEWTON_MEMORY {
                self.s_mem.copy_within(1.., 0);
                self.y_mem.copy_within(1.., 0);
                self.rho.copy_within(1.., 0);
                self.stored -= 1;
            }
            self.s_mem[self.stored] = s_new;
            self.y_mem[self.stored] = y_new;
            self.rho[self.stored] = R::ONE / sy;
            self.stored += 1;
        }
        let improvement = fc - self.fx;
        self.x = cand;
        self.g = gc;
        let scale = self.fx.abs().max(fc.abs()).max(R::ONE);
        self.fx = fc;
        if improvement <= R::from_f64(self.config.relative_improvement_tolerance) * scale {
            self.pending = Pending::Done { failed: false };
        } else {
            self.begin_iteration();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_interior_and_boundary_maxima() {
        // Concave quadratic with maximum at (0.3, 2.0): the second coordinate is clipped to 1.
        let f = |x: &[f64; 2], _: Need<f64>| {
            let v = -(x[0] - 0.3).powi(2) - 10.0 * (x[1] - 2.0).powi(2);
            Some((v, [-2.0 * (x[0] - 0.3), -20.0 * (x[1] - 2.0)]))
        };
        let r = maximize(f, [0.9, 0.1], &[0.0, 0.0], &[1.0, 1.0], 100).unwrap();
        assert!((r.point[0] - 0.3).abs() < 1e-6, "{:?}", r.point);
        assert_eq!(r.point[1], 1.0);
        assert!(r.evaluations <= 100);
    }

    #[test]
    fn a_flat_maximum_is_reached_within_the_tolerance() {
        // A quartic's flat top at 0.3, approached ever more slowly by gradient steps. A stop at
        // projected gradient 4|x − 0.3|³ ≤ 1e-5 is within 0.0136 of the maximum.
        let f = |x: &[f64; 1], _: Need<f64>| {
            Some((-(x[0] - 0.3).powi(4), [-4.0 * (x[0] - 0.3).powi(3)]))
        };
        let r = maximize(f, [0.9], &[0.0], &[1.0], 1000).unwrap();
        assert!(r.evaluations < 100, "{} evaluations", r.evaluations);
        assert!((r.point[0] - 0.3).abs() < 0.0137, "{:?}", r.point);
    }

    #[test]
    fn rosenbrock_converges_within_budget() {
        let f = |x: &[f64; 2], _: Need<f64>| {
            let (a, b) = (x[0], x[1]);
            let v = -((1.0 - a).powi(2) + 100.0 * (b - a * a).powi(2));
            let ga = 2.0 * (1.0 - a) + 400.0 * a * (b - a * a);
            let gb = -200.0 * (b - a * a);
            Some((v, [ga, gb]))
        };
        let r = maximize(f, [-1.2, 1.0], &[-2.0, -2.0], &[2.0, 2.0], 3000).unwrap();
        assert!(
            (r.point[0] - 1.0).abs() < 1e-3 && (r.point[1] - 1.0).abs() < 2e-3,
            "{:?}",
            r.point
        );
    }

    #[test]
    fn fixed_coordinates_stay_and_budget_is_respected() {
        let mut calls = 0;
        let f = |x: &[f64; 3], _: Need<f64>| {
            calls += 1;
            Some((
                -(x[0] * x[0]) - x[1] - x[2] * x[2],
                [-2.0 * x[0], -1.0, -2.0 * x[2]],
            ))
        };
        let r = maximize(f, [0.5, 0.7, 0.5], &[-1.0, 0.7, -1.0], &[1.0, 0.7, 1.0], 7).unwrap();
        assert_eq!(r.point[1], 0.7);
        assert!(r.evaluations <= 7);
        assert_eq!(calls, r.evaluations);
        assert!(r.value > -(0.25 + 0.7 + 0.25));
    }

    #[test]
    fn failure_at_start_is_reported_and_failures_elsewhere_avoided() {
        assert!(maximize(|_: &[f64; 1], _: Need<f64>| None, [0.0], &[0.0], &[1.0], 10).is_none());
        // f fails right of 0.5; the maximum of −(x−1)² on [0, 0.5] is at 0.5.
        let f = |x: &[f64; 1], _: Need<f64>| {
            (x[0] <= 0.5).then(|| (-(x[0] - 1.0).powi(2), [-2.0 * (x[0] - 1.0)]))
        };
        let r = maximize(f, [0.0], &[0.0], &[1.0], 200).unwrap();
        assert!(r.point[0] <= 0.5 && r.point[0] > 0.45, "{:?}", r.point);
    }

    #[test]
    fn quasi_newton_solves_rosenbrock_and_respects_bounds() {
        let rosen = |x: &[f64; 2], _: Need<f64>| {
            let (a, b) = (x[0], x[1]);
            let v = -((1.0 - a).powi(2) + 100.0 * (b - a * a).powi(2));
            let ga = 2.0 * (1.0 - a) + 400.0 * a * (b - a * a);
            let gb = -200.0 * (b - a * a);
            Some((v, [ga, gb]))
        };
        let config = QuasiNewtonConfig::default();
        let r =
            maximize_quasi_newton(rosen, [-1.2, 1.0], &[-2.0, -2.0], &[2.0, 2.0], &config).unwrap();
        assert!(
            (r.point[0] - 1.0).abs() < 1e-4 && (r.point[1] - 1.0).abs() < 1e-4,
            "{:?} after {} evaluations",
            r.point,
            r.evaluations
        );
        // The same valley with the optimum cut off by the box: the maximum over the box lies on
        // the bound b = 0.5, at the best a for it (a² = 0.5 nearly: f = −(1−a)² − 100(0.5−a²)²).
        let r =
            maximize_quasi_newton(rosen, [-1.2, 0.2], &[-2.0, -2.0], &[2.0, 0.5], &config).unwrap();
        assert_eq!(r.point[1], 0.5);
        let best_a = (0..=200_000)
            .map(|k| -2.0 + 4.0 * k as f64 / 200_000.0)
            .fold((f64::NEG_INFINITY, 0.0), |(bv, ba), a| {
                let v = rosen(&[a, 0.5], Need::Gradient).unwrap().0;
                if v > bv {
                    (v, a)
                } else {
                    (bv, ba)
                }
            });
        assert!(
            (r.point[0] - best_a.1).abs() < 1e-4,
            "{:?} vs a = {}",
            r.point,
            best_a.1
        );
        assert!(r.value >= best_a.0 - 1e-9);
    }

    #[test]
    fn quasi_newton_is_exact_fast_on_a_quadratic_and_keeps_fixed_coordinates() {
        // A badly scaled concave quadratic: L-BFGS needs a handful of steps where gradient
        // ascent needs hundreds.
        let scales = [1.0, 30.0, 1000.0, 5.0];
        let centre = [0.3, -0.2, 0.7, 0.1];
        let f = |x: &[f64; 4], _: Need<f64>| {
            let mut v = 0.0;
            let mut g = [0.0; 4];
            for i in 0..4 {
                v -= scales[i] * (x[i] - centre[i]).powi(2);
                g[i] = -2.0 * scales[i] * (x[i] - centre[i]);
            }
            Some((v, g))
        };
        let (lo, hi) = ([-1.0, -1.0, -1.0, 0.5], [1.0, 1.0, 1.0, 0.5]);
        let r = maximize_quasi_newton(
            f,
            [0.9, 0.9, -0.9, 0.5],
            &lo,
            &hi,
            &QuasiNewtonConfig::default(),
        )
        .unwrap();
        // SciPy's stopping rule ends the ascent once a step gains less than 2.2e-9 (relative
        // to max(|f|, 1)); on a quadratic of condition number 1000 that leaves a gap of a few
        // times that in value, and √(gap / scale) in each coordinate. The fixed fourth
        // coordinate costs 5·0.4² = 0.8.
        assert!(r.value > -0.8 - 1e-7, "{} at {:?}", r.value, r.point);
        for i in 0..3 {
            let tol = (1e-7 / scales[i]).sqrt();
            assert!((r.point[i] - centre[i]).abs() < tol, "{:?}", r.point);
        }
        assert_eq!(r.point[3], 0.5, "a fixed coordinate never moves");
        assert!(r.evaluations < 60, "{} evaluations", r.evaluations);
        let budget = QuasiNewtonConfig {
            max_evaluations: 5,
            ..QuasiNewtonConfig::default()
        };
        let mut calls = 0;
        let counted = |x: &[f64; 4], n: Need<f64>| {
            calls += 1;
            f(x, n)
        };
        let r = maximize_quasi_newton(counted, [0.9, 0.9, -0.9, 0.5], &lo, &hi, &budget).unwrap();
        assert!(r.evaluations <= 5 && calls == r.evaluations);
        assert!(maximize_quasi_newton(
            |_: &[f64; 1], _: Need<f64>| None,
            [0.0],
            &[0.0],
            &[1.0],
            &budget
        )
        .is_none());
    }
}
