//! Honest regret: expected values over an independent bank (the core's
//! [`SampleBank`], scrambled Sobol or i.i.d.), and the best expected value of each control set,
//! computed once and cached on disk.

use std::path::Path;

use costbo_core::dist::{Distribution, TruncatedNormal};
use costbo_core::expectation::{merge, SampleBank};
use costbo_core::inner::{self, InnerConfig};
use costbo_core::optimize::maximize;
use costbo_core::optimize::Need;
use costbo_core::problem::{ControlSet, Problem, Variable};
use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro128PlusPlus;

use costbo_objectives::Objective;

/// FNV-1a, 64 bits: a stable hash for cache keys and judge seeds.
pub fn fnv(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The problem the judge's bank is drawn for: `D` variables on `[0, 1]`, each a normal at ½
/// truncated to `[0, 1]` with truncated variance `variance` when left to chance. (A problem
/// needs a control set; the judge's bank does not use it.)
fn centred_problem<const D: usize>(variance: f64) -> Result<Problem<f64, D, 1>, String> {
    let tn = TruncatedNormal::with_truncated_variance(0.5, variance, 0.0, 1.0)
        .map_err(|e| format!("variance {variance}: {e}"))?;
    let variable = Variable {
        lower: 0.0,
        upper: 1.0,
        uncontrolled: Distribution::TruncatedNormal(tn),
    };
    Problem::new(&[variable; D], &[ControlSet::full(D)], None)
        .map_err(|e| format!("variance {variance}: {e}"))
}

/// The independent bank that measures regret: the core's [`SampleBank`] of draws of every
/// variable (unit cube), seeded from the (objective, variance) key only, never from a run's
/// seed.
#[derive(Debug, Clone)]
pub struct Judge<const D: usize> {
    bank: SampleBank<f64, D, Vec<[f64; D]>>,
}

/// What a run needs of its judge, whatever its number of variables: the runner prepares one
/// judge per objective and variance and hands it to jobs that know `D` only as a value.
pub trait Expected: Send + Sync {
    /// `E f([u^set, X^{-set}])` over the bank; `u` holds one value per variable.
    fn expected(&self, f: &dyn Objective, set: ControlSet, u: &[f64]) -> f64;
}

impl<const D: usize> Expected for Judge<D> {
    fn expected(&self, f: &dyn Objective, set: ControlSet, u: &[f64]) -> f64 {
        let u: &[f64; D] = u.try_into().unwrap_or_else(|_| {
            panic!(
                "a judge of {D} variables was asked about {} values",
                u.len()
            )
        });
        Judge::expected(self, f, set, u)
    }
}

impl<const D: usize> Judge<D> {
    /// `size` i.i.d. draws of the `D` variables, each a normal at ½ truncated to `[0, 1]` with
    /// truncated variance `variance`; `key` seeds the draws.
    pub fn iid(variance: f64, size: usize, key: &str) -> Result<Self, String> {
        let problem = centred_problem::<D>(variance)?;
        let mut rng = Xoshiro128PlusPlus::seed_from_u64(fnv(key) ^ 0x4A55_4447_4500_0000);
        let bank = SampleBank::iid(&problem, vec![[0.0; D]; size], &mut rng)
            .map_err(|e| format!("a judge of {size} points: {e}"))?;
        Ok(Judge { bank })
    }

    /// The first `size` points of a scrambled Sobol sequence in `D` variables, each pushed
    /// through the inverse CDF of a normal at ½ truncated to `[0, 1]` with truncated variance
    /// `variance`; `key` seeds the scrambling. For the smooth objectives of the grids, 512
    /// such points average more accurately than 2 048 i.i.d. draws (docs/performance.md,
    /// "The regret judge's bank"), at a quarter of the cost per decision.
    pub fn sobol(variance: f64, size: usize, key: &str) -> Result<Self, String> {
        let problem = centred_problem::<D>(variance)?;
        let bank = SampleBank::quasi_random(
            &problem,
            vec![[0.0; D]; size],
            fnv(key) ^ 0x534F_424F_4C00_0000,
        )
        .map_err(|e| format!("Sobol points in {D} variables: {e}"))?;
        Ok(Judge { bank })
    }

    /// A bank of given draws (other distributions than [`iid`](Self::iid)'s, e.g. the plant's
    /// source water).
    ///
    /// # Panics
    /// If `points` is empty.
    pub fn from_points(points: Vec<[f64; D]>) -> Self {
        Judge {
            bank: SampleBank::from_points(points).expect("a judge needs at least one point"),
        }
    }

    /// `E f([u^set, X^{-set}])` over the bank (`f(u)` itself when `set` holds every variable).
    ///
    /// The sum runs from zero in bank order and is divided by the bank's size, where the
    /// core's [`bank_average`](costbo_core::expectation::bank_average) multiplies by its
    /// reciprocal: the two differ in the last bit unless the size is a power of two, and the
    /// judge's cached best values and recorded regrets were computed this way.
    pub fn expected(&self, f: &dyn Objective, set: ControlSet, u: &[f64; D]) -> f64 {
        if (0..D).all(|l| set.contains(l)) {
            return f.eval(u);
        }
        let points = self.bank.points();
        let mut sum = 0.0;
        for w in points {
            sum += f.eval(&merge(set, u, w));
        }
        sum / points.len() as f64
    }

    /// The first `size` draws of the bank (all of them if it holds fewer).
    fn prefix(&self, size: usize) -> Judge<D> {
        Judge::from_points(
            self.bank
                .points()
                .iter()
                .take(size.max(1))
                .copied()
                .collect(),
        )
    }

    /// The bank average and its forward-difference gradient in the coordinates of `set`.
    fn value_and_gradient(
        &self,
        f: &dyn Objective,
        set: ControlSet,
        x: &[f64; D],
        gradient: bool,
    ) -> Option<(f64, [f64; D])> {
        let v = self.expected(f, set, x);
        if !v.is_finite() {
            return None;
        }
        let mut g = [0.0; D];
        if gradient {
            let h = 1e-6;
            for l in (0..D).filter(|&l| set.contains(l)) {
                let mut y = *x;
                let step = if y[l] + h <= 1.0 { h } else { -h };
                y[l] += step;
                g[l] = (self.expected(f, set, &y) - v) / step;
            }
        }
        Some((v, g))
    }

    /// The best expected value over the controlled variables of `set`, in two stages to keep
    /// its cost down (it is paid once per objective, sets and variance, but on the full bank
    /// it took minutes per set): the core's inner optimiser (Sobol pool, then projected
    /// gradient ascent with forward-difference gradients) on the average over the bank's first
    /// [`SCREEN_DRAWS`] draws finds the maximiser's neighbourhood, then gradient ascent on the
    /// full bank average polishes it. The objective's known maximiser is tried too.
    pub fn best(&self, f: &dyn Objective, set: ControlSet) -> f64 {
        let config = InnerConfig {
            pool: 512,
            starts: 8,
            evaluations_per_start: 60,
        };
        let screen = self.prefix(SCREEN_DRAWS);
        let found = inner::maximize(
            set,
            &mut |x: &[f64; D], need: Need<f64>| {
                screen.value_and_gradient(f, set, x, need.wants_gradient())
            },
            &config,
            fnv(&format!("{set:?}")),
        );
        let polished = found.and_then(|r| {
            let lower: [f64; D] =
                core::array::from_fn(|l| if set.contains(l) { 0.0 } else { r.x[l] });
            let upper: [f64; D] =
                core::array::from_fn(|l| if set.contains(l) { 1.0 } else { r.x[l] });
            maximize(
                |x: &[f64; D], _| self.value_and_gradient(f, set, x, true),
                r.x,
                &lower,
                &upper,
                POLISH_EVALUATIONS,
            )
        });
        let polished = polished.map_or(f64::NEG_INFINITY, |a| a.value);
        // The known maximiser has `f.dim() == D` values (the runner's judges match their
        // objectives).
        let known = f.argmax().map_or(f64::NEG_INFINITY, |a| {
            self.expected(f, set, &core::array::from_fn(|l| a[l]))
        });
        polished.max(known)
    }
}

/// Draws of the bank the best-value search screens with before polishing on the full bank.
pub const SCREEN_DRAWS: usize = 256;
/// Full-bank evaluations of the polishing ascent.
pub const POLISH_EVALUATIONS: usize = 40;

/// The best expected value of every set, from `cache` (a file under the output directory) if
/// it holds them for `key`, otherwise computed (sets in parallel) and written there.
pub fn best_values<const D: usize>(
    f: &dyn Objective,
    judge: &Judge<D>,
    sets: &[ControlSet],
    key: &str,
    cache: &Path,
) -> Result<Vec<f64>, String> {
    if let Ok(text) = std::fs::read_to_string(cache) {
        if let Some(v) = parse_cache(&text, key, sets.len()) {
            return Ok(v);
        }
    }
    let values: Vec<f64> = std::thread::scope(|s| {
        let handles: Vec<_> = sets
            .iter()
            .map(|&set| s.spawn(move || judge.best(f, set)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or(f64::NEG_INFINITY))
            .collect()
    });
    // Exact decimal round trip: `{:?}` prints the shortest text that parses back to the value.
    let text = serde_json::json!({
        "key": key,
        "best": values.iter().map(|v| format!("{v:?}")).collect::<Vec<_>>(),
    });
    if let Some(dir) = cache.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    crate::files::write_atomic(cache, &format!("{text:#}\n"))?;
    Ok(values)
}

fn parse_cache(text: &str, key: &str, len: usize) -> Option<Vec<f64>> {
    let v: serde_json::Value = serde_json::from_str(text).ok()?;
    if v.get("key")?.as_str()? != key {
        return None;
    }
    let best: Vec<f64> = v
        .get("best")?
        .as_array()?
        .iter()
        .map(|x| x.as_str()?.parse().ok())
        .collect::<Option<_>>()?;
    (best.len() == len).then_some(best)
}
