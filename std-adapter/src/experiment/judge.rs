//! Honest regret: expected values over an independent bank (scrambled Sobol or i.i.d.), and the
//! best expected value of each control set, computed once and cached on disk.

use std::path::Path;

use costbo_core::dist::TruncatedNormal;
use costbo_core::inner::{self, InnerConfig};
use costbo_core::optimize::maximize;
use costbo_core::optimize::Need;
use costbo_core::problem::ControlSet;
use costbo_core::qmc::Sobol;
use costbo_core::random::uniform_open;
use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro128PlusPlus;

use crate::objectives::Objective;

/// FNV-1a, 64 bits: a stable hash for cache keys and judge seeds.
pub(crate) fn fnv(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// A normal at ½ truncated to `[0, 1]` with truncated variance `variance`.
fn centred_normal(variance: f64) -> Result<TruncatedNormal<f64>, String> {
    TruncatedNormal::with_truncated_variance(0.5, variance, 0.0, 1.0)
        .map_err(|e| format!("variance {variance}: {e:?}"))
}

/// The independent bank that measures regret: draws of every variable (unit cube), seeded from
/// the (objective, variance) key only, never from a run's seed.
#[derive(Debug, Clone)]
pub struct Judge {
    points: Vec<Vec<f64>>,
    dim: usize,
}

impl Judge {
    /// `size` i.i.d. draws of `dim` variables, each a normal at ½ truncated to `[0, 1]` with
    /// truncated variance `variance`; `key` seeds the draws.
    pub fn new(dim: usize, variance: f64, size: usize, key: &str) -> Result<Self, String> {
        let tn = centred_normal(variance)?;
        let mut rng = Xoshiro128PlusPlus::seed_from_u64(fnv(key) ^ 0x4A55_4447_4500_0000);
        let points = (0..size)
            .map(|_| {
                (0..dim)
                    .map(|_| tn.sample(uniform_open(&mut rng)))
                    .collect()
            })
            .collect();
        Ok(Judge { points, dim })
    }

    /// The first `size` points of a scrambled Sobol sequence in `D` variables, each pushed
    /// through the inverse CDF of a normal at ½ truncated to `[0, 1]` with truncated variance
    /// `variance`; `key` seeds the scrambling. For the smooth objectives of the grids, 512
    /// such points average more accurately than 2 048 i.i.d. draws (docs/performance.md,
    /// "The regret judge's bank"), at a quarter of the cost per decision.
    pub fn sobol<const D: usize>(variance: f64, size: usize, key: &str) -> Result<Self, String> {
        let tn = centred_normal(variance)?;
        let mut sobol = Sobol::<D>::new(fnv(key) ^ 0x534F_424F_4C00_0000)
            .map_err(|e| format!("Sobol points in {D} variables: {e:?}"))?;
        let points = (0..size)
            .map(|_| {
                let u: [f64; D] = sobol.next_point();
                u.iter().map(|&u| tn.sample(u)).collect()
            })
            .collect();
        Ok(Judge { points, dim: D })
    }

    /// A bank of given draws of `D` variables (other distributions than [`new`](Self::new)'s,
    /// e.g. the plant's source water).
    pub fn from_points<const D: usize>(points: &[[f64; D]]) -> Self {
        Judge {
            points: points.iter().map(|p| p.to_vec()).collect(),
            dim: D,
        }
    }

    /// `E f([u^set, X^{-set}])` over the bank (`f(u)` itself when `set` holds every variable).
    pub fn expected(&self, f: &dyn Objective, set: ControlSet, u: &[f64]) -> f64 {
        if (0..self.dim).all(|l| set.contains(l)) {
            return f.eval(u);
        }
        let mut x = vec![0.0; self.dim];
        let mut sum = 0.0;
        for w in &self.points {
            for l in 0..self.dim {
                x[l] = if set.contains(l) { u[l] } else { w[l] };
            }
            sum += f.eval(&x);
        }
        sum / self.points.len() as f64
    }

    /// The first `size` draws of the bank (all of them if it holds fewer).
    fn prefix(&self, size: usize) -> Judge {
        Judge {
            points: self.points.iter().take(size.max(1)).cloned().collect(),
            dim: self.dim,
        }
    }

    /// The bank average and its forward-difference gradient in the coordinates of `set`.
    fn value_and_gradient<const D: usize>(
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
    pub fn best<const D: usize>(&self, f: &dyn Objective, set: ControlSet) -> f64 {
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
        let known = f
            .argmax()
            .map_or(f64::NEG_INFINITY, |a| self.expected(f, set, &a));
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
    judge: &Judge,
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
            .map(|&set| s.spawn(move || judge.best::<D>(f, set)))
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
    super::write_atomic(cache, &format!("{text:#}\n"))?;
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
