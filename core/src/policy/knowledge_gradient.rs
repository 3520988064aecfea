//! Paper 002's knowledge-gradient baseline over a box (**KG**, Frazier et al. 2009), as the
//! paper's code runs BoTorch's one-shot `qKnowledgeGradient` with its defaults: [`FANTASIES`]
//! fantasies, the point to observe optimised jointly with one point per fantasy
//! ([`KnowledgeGradient`], whose values and gradients equal BoTorch's).
//!
//! Each round, as BoTorch's `optimize_acqf` with `gen_one_shot_kg_initial_conditions` does:
//! 1. the fantasies' standard normal draws: [`FANTASIES`] points of a scrambled one-dimensional
//!    Sobol sequence through the normal quantile (BoTorch's `SobolQMCNormalSampler` draws
//!    them by a Box–Muller transform of two-dimensional Sobol points: another QMC design of
//!    the same normal);
//! 2. the maxima of the posterior mean (BoTorch's "value function"): [`VALUE_RAW_SAMPLES`]
//!    Sobol points, the [`VALUE_RESTARTS`] best climbed by quasi-Newton ascent (BoTorch draws
//!    those starts by its Boltzmann heuristic);
//! 3. the raw one-shot points: the maximiser's `raw_samples` Sobol points to observe, each with
//!    fantasy points of which a share [`RANDOM_FANTASY_SHARE`] are uniform and the rest drawn
//!    from step 2's maxima with weights `exp(η·z)` (`η` = [`VALUE_ETA`], `z` the maxima's
//!    standardised values); BoTorch draws every fantasy point at random, scores, picks the
//!    starts and only then replaces 90 % of their fantasy points by drawn maxima, so ours
//!    scores the points it will climb from;
//! 4. the maximiser's `restarts` starts among them (BoTorch's Boltzmann heuristic), each
//!    climbed by quasi-Newton ascent in all `d·(K + 1)` coordinates; the play is the point to
//!    observe of the best one-shot value.
//!
//! Its cost per decision is what the paper reports: an evaluation is `O(n² + K·n·d)`, and an
//! ascent moves `65·d` coordinates. A one-shot point is kept on the stack
//! (`65·d` scalars, and about 30 of them in an ascent: about 120 KiB at `d = 8` in `f64`), so the
//! rule is meant for a desktop (feature `policy-kg`).

use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro128PlusPlus;

use super::{Choice, DriverError, Maximiser, Play, Policy, Round};
use crate::acquisition::knowledge_gradient::{KnowledgeGradient, OneShot};
use crate::expectation::uniform_open;
use crate::gp::Gp;
use crate::inner::{maximize_one_shot, Candidates};
use crate::optimize::{maximize_quasi_newton, Need, QuasiNewtonConfig};
use crate::problem::Problem;
use crate::real::Real;
use crate::special::normal::normal_quantile;

/// Fantasies (BoTorch's `qKnowledgeGradient` default `num_fantasies`).
pub const FANTASIES: usize = 64;

/// Sobol points scored to find the posterior mean's maxima (BoTorch's `raw_inner_samples`).
pub const VALUE_RAW_SAMPLES: usize = 1024;

/// Maxima of the posterior mean climbed to (BoTorch's `num_inner_restarts`).
pub const VALUE_RESTARTS: usize = 20;

/// Share of a raw point's fantasy points drawn uniformly (BoTorch's `frac_random`).
pub const RANDOM_FANTASY_SHARE: f64 = 0.1;

/// Weight of a standardised maximum in the draw of fantasy points (BoTorch's `eta`).
pub const VALUE_ETA: f64 = 2.0;

/// Mixed into the round's seed for the fantasies' draws and the raw fantasy points.
const STREAM: u64 = 0x4b47_5f6f_6e65_7368;

/// The one-shot knowledge-gradient rule (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KnowledgeGradientSearch {
    maximiser: Maximiser,
}

impl KnowledgeGradientSearch {
    /// The rule with the raw samples, restarts and ascent of `maximiser`
    /// ([`Maximiser::Restarts`]); [`Maximiser::Pool`] stands for paper 002's
    /// ([`RestartConfig::paper_002`](crate::inner::RestartConfig::paper_002)).
    pub fn new(maximiser: Maximiser) -> Self {
        KnowledgeGradientSearch { maximiser }
    }
}

/// The fantasies' standard normal draws of a round.
pub fn base_samples<R: Real>(seed: u64) -> [R; FANTASIES] {
    let mut sobol = Candidates::<1>::new(seed ^ STREAM);
    core::array::from_fn(|_| normal_quantile(sobol.next_point::<R>()[0]))
}

/// The maxima of the posterior mean from the best of [`VALUE_RAW_SAMPLES`] Sobol points, with
/// their values, best first; fewer than [`VALUE_RESTARTS`] only where the mean fails.
fn mean_maxima<R, const N: usize, const D: usize, S>(
    gp: &Gp<R, N, D, S>,
    seed: u64,
) -> ([(R, [R; D]); VALUE_RESTARTS], usize)
where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
{
    // The best raw points, kept sorted (value, index), best first.
    let mut top = [(-R::INFINITY, usize::MAX); VALUE_RESTARTS];
    let mut sobol = Candidates::<D>::new(seed);
    for i in 0..VALUE_RAW_SAMPLES {
        let x: [R; D] = sobol.next_point();
        let Ok(v) = gp.predict_mean(&x) else { continue };
        if v.is_finite() && v > top[VALUE_RESTARTS - 1].0 {
            let mut k = VALUE_RESTARTS - 1;
            while k > 0 && v > top[k - 1].0 {
                top[k] = top[k - 1];
                k -= 1;
            }
            top[k] = (v, i);
        }
    }
    let (lower, upper) = ([R::ZERO; D], [R::ONE; D]);
    let config = QuasiNewtonConfig::default();
    let mut maxima = [(-R::INFINITY, [R::ZERO; D]); VALUE_RESTARTS];
    let mut found = 0;
    let mut sobol = Candidates::<D>::new(seed);
    for i in 0..VALUE_RAW_SAMPLES {
        let x0: [R; D] = sobol.next_point();
        if !top.iter().any(|(_, j)| *j == i) {
            continue;
        }
        let mean = |x: &[R; D], _: Need<R>| gp.predict_mean_with_gradient(x).ok();
        if let Some(a) = maximize_quasi_newton(mean, x0, &lower, &upper, &config) {
            if a.value.is_finite() {
                maxima[found] = (a.value, a.point);
                found += 1;
            }
        }
    }
    (maxima, found)
}

/// Draws of the posterior mean's maxima with weights `exp(η·z)`.
struct MaximaDraw<R, const D: usize> {
    maxima: [(R, [R; D]); VALUE_RESTARTS],
    cumulative: [R; VALUE_RESTARTS],
    found: usize,
}

impl<R: Real, const D: usize> MaximaDraw<R, D> {
    fn new((maxima, found): ([(R, [R; D]); VALUE_RESTARTS], usize)) -> Self {
        let values = &maxima[..found];
        let n = R::from_usize(found.max(1));
        let mean = values.iter().fold(R::ZERO, |s, (v, _)| s + *v) / n;
        let var = if found > 1 {
            values
                .iter()
                .fold(R::ZERO, |s, (v, _)| s + (*v - mean) * (*v - mean))
                / R::from_usize(found - 1)
        } else {
            R::ZERO
        };
        let std = var.sqrt();
        let mut cumulative = [R::ZERO; VALUE_RESTARTS];
        let mut total = R::ZERO;
        for (c, (v, _)) in cumulative.iter_mut().zip(values) {
            let z = if std > R::ZERO {
                (*v - mean) / std
            } else {
                R::ZERO
            };
            total += (R::from_f64(VALUE_ETA) * z).exp();
            *c = total;
        }
        MaximaDraw {
            maxima,
            cumulative,
            found,
        }
    }

    /// A maximum drawn by `u` in (0, 1), or `None` when there is none.
    fn draw(&self, u: R) -> Option<[R; D]> {
        let total = *self.cumulative[..self.found].last()?;
        let target = u * total;
        let k = self.cumulative[..self.found]
            .iter()
            .position(|c| target < *c)
            .unwrap_or(self.found - 1);
        Some(self.maxima[k].1)
    }
}

/// The raw one-shot point of rank `r` with `x` to observe.
fn raw_point<R: Real, const D: usize>(
    x: [R; D],
    r: usize,
    seed: u64,
    draw: &MaximaDraw<R, D>,
) -> OneShot<R, D, FANTASIES> {
    let mut rng = Xoshiro128PlusPlus::seed_from_u64(
        seed ^ STREAM.rotate_left(17) ^ (r as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
    );
    let random = FANTASIES - ((1.0 - RANDOM_FANTASY_SHARE) * FANTASIES as f64) as usize;
    let fantasies = core::array::from_fn(|k| {
        let uniform: [R; D] = core::array::from_fn(|_| uniform_open(&mut rng));
        if k < random {
            uniform
        } else {
            draw.draw(uniform_open(&mut rng)).unwrap_or(uniform)
        }
    });
    OneShot { x, fantasies }
}

impl<R: Real, const D: usize, const M: usize> Policy<R, D, M> for KnowledgeGradientSearch {
    fn needs_workspace(&self) -> bool {
        true
    }

    super::stateless_record!();

    fn start(&mut self, problem: &Problem<R, D, M>) -> Result<(), DriverError> {
        super::require_full_set(problem).map(|_| ())
    }

    fn workspace_len(&self, _: &Problem<R, D, M>, _: usize, _: usize) -> usize {
        self.maximiser.one_shot(D).scratch_len()
    }

    fn decide<const N: usize, S, B>(
        &mut self,
        round: &mut Round<'_, R, N, D, M, S, B>,
    ) -> Result<Choice<R, D>, DriverError>
    where
        S: AsRef<[R]> + AsMut<[R]>,
        B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
    {
        let set = super::require_full_set(round.problem)?;
        let gp = round.gp;
        if gp.is_empty() {
            // The fantasies condition a posterior: the initial design comes first.
            return Err(DriverError::NoScore);
        }
        let config = self.maximiser.one_shot(gp.kernel().inputs_seen());
        if round.workspace.len() < config.raw_samples.max(1) {
            return Err(DriverError::WorkspaceTooSmall);
        }
        let seed = round.seed;
        let kg = KnowledgeGradient::new(gp, base_samples(seed)).map_err(DriverError::Gp)?;
        let draw = MaximaDraw::new(mean_maxima(gp, seed ^ STREAM));
        let found = maximize_one_shot(
            &config,
            seed,
            round.workspace,
            |x, r| raw_point(x, r, seed, &draw),
            |p| kg.value(p, false).ok().map(|(v, _)| v),
            |p, need| kg.evaluate(p, need),
            &OneShot::splat(R::ZERO),
            &OneShot::splat(R::ONE),
        );
        let (score, x) = found.map(|(v, p)| (v, p.x)).ok_or(DriverError::NoScore)?;
        Ok(Choice::Play(Play {
            set,
            x,
            score,
            measure: true,
        }))
    }
}

use super::names::{Parsed, RuleDefaults, RuleName};

/// This rule's names in the registry ([`RULES`](super::RULES)).
pub const NAMES: &[RuleName] = &[
    RuleName {
        name: "kg",
        summary: "one-shot knowledge gradient over the box, 64 fantasies (paper 002's KG)",
    },
];

/// The parameters of the rule called `name` if it is one of [`NAMES`], with `defaults` for
/// what the name leaves open; `None` for another rule's name.
pub fn parse<R: Real>(
    name: &str,
    defaults: &RuleDefaults<R>,
) -> Parsed<Maximiser> {
    Some(Ok(match name {
        "kg" => defaults.maximiser,
        _ => return None,
    }))
}
