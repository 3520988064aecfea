//! Global maximisation of a smooth function on the unit cube: dense search, then local
//! refinement of the best candidates with the core's projected gradient ascent
//! ([`costbo_core::optimize::maximize`]).
//!
//! Used to find the optimum of objectives that have no closed-form maximum (the GP prior
//! sample). The result is the best point found, a lower bound on the true maximum that is tight
//! when the candidates are dense relative to the function's lengthscale.

use costbo_core::optimize::maximize;
use costbo_core::qmc::{IidUniform, Sobol};

/// Settings of [`maximise`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchConfig {
    /// Number of best candidates refined by gradient ascent.
    pub starts: usize,
    /// Evaluations (value and gradient) per refinement.
    pub budget: usize,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            starts: 16,
            budget: 300,
        }
    }
}

/// `count` points of a scrambled Sobol sequence seeded with `seed` (or i.i.d. uniform points
/// from the same seed beyond the Sobol table's dimensions), all in the open cube `(0, 1)^D`.
pub fn space_filling<const D: usize>(seed: u64, count: usize) -> Vec<[f64; D]> {
    match Sobol::<D>::new(seed) {
        Ok(mut s) => (0..count).map(|_| s.next_point()).collect(),
        Err(_) => {
            let mut s = IidUniform::<D>::new(seed);
            (0..count).map(|_| s.next_point()).collect()
        }
    }
}

/// The best point of `f` over `[0, 1]^D`: evaluates every candidate, then runs gradient
/// ascent from the `config.starts` best ones. `f` returns the value and its gradient.
///
/// Returns `None` only when there are no candidates.
pub fn maximise<const D: usize, F>(
    f: F,
    candidates: impl IntoIterator<Item = [f64; D]>,
    config: SearchConfig,
) -> Option<([f64; D], f64)>
where
    F: Fn(&[f64; D]) -> (f64, [f64; D]),
{
    // The `starts` best candidates, best first.
    let mut best: Vec<([f64; D], f64)> = Vec::with_capacity(config.starts + 1);
    for c in candidates {
        let v = f(&c).0;
        if !v.is_finite() {
            continue;
        }
        if best.len() < config.starts.max(1) || v > best[best.len() - 1].1 {
            let at = best.partition_point(|(_, b)| *b >= v);
            best.insert(at, (c, v));
            best.truncate(config.starts.max(1));
        }
    }
    let mut winner = *best.first()?;
    let (lower, upper) = ([0.0; D], [1.0; D]);
    for (start, _) in best.iter().take(config.starts) {
        let ascent = maximize(
            |x: &[f64; D], _| {
                let (v, g) = f(x);
                v.is_finite().then_some((v, g))
            },
            *start,
            &lower,
            &upper,
            config.budget,
        );
        if let Some(a) = ascent {
            if a.value > winner.1 {
                winner = (a.point, a.value);
            }
        }
    }
    Some(winner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_global_maximum_of_a_multimodal_function() {
        // Two bumps; the higher one at (0.8, 0.3) is narrow.
        let f = |x: &[f64; 2]| {
            let b = |c: [f64; 2], w: f64, h: f64| {
                let r2 = ((x[0] - c[0]).powi(2) + (x[1] - c[1]).powi(2)) / (w * w);
                let v = h * (-0.5 * r2).exp();
                (
                    v,
                    [-v * (x[0] - c[0]) / (w * w), -v * (x[1] - c[1]) / (w * w)],
                )
            };
            let (v1, g1) = b([0.2, 0.7], 0.3, 1.0);
            let (v2, g2) = b([0.8, 0.3], 0.05, 1.5);
            (v1 + v2, [g1[0] + g2[0], g1[1] + g2[1]])
        };
        let (x, v) = maximise(f, space_filling::<2>(1, 1024), SearchConfig::default()).unwrap();
        // The narrow bump, shifted slightly by the wide one's slope; a stationary point.
        assert!(
            (x[0] - 0.8).abs() < 2e-3 && (x[1] - 0.3).abs() < 2e-3,
            "{x:?}"
        );
        let g = f(&x).1;
        assert!(g[0].abs() < 1e-6 && g[1].abs() < 1e-6, "{g:?}");
        assert!(v > 1.55 && v < 1.56, "{v}");
        assert!(maximise(f, Vec::new(), SearchConfig::default()).is_none());
    }

    #[test]
    fn space_filling_points_are_in_the_open_cube_and_reproducible() {
        let a = space_filling::<3>(7, 64);
        assert_eq!(a, space_filling::<3>(7, 64));
        assert_ne!(a, space_filling::<3>(8, 64));
        assert!(a.iter().flatten().all(|v| *v > 0.0 && *v < 1.0));
        assert_eq!(space_filling::<30>(7, 4).len(), 4);
    }
}
