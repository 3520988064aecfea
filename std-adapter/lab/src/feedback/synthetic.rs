//! Paper 003's synthetic time-varying study (§4.1, App. E.1, Table A2, Fig. 1): a drifting
//! function on a 1 000-point grid of [0, 1], and one trial of each method on it.
//!
//! The functions follow the Markov model of `docs/notes/seed-003.md`: `f₁ ~ GP(0, k)`,
//! `f_{t+1} = √(1−ε)·f_t + √ε·g_{t+1}` with `g_t ~ GP(0, k)` i.i.d., `k` Matérn-3/2 of unit
//! variance, observation noise variance 0.01, T = 500 rounds. Draws use one Cholesky factor of
//! the grid's kernel matrix (a jitter of 1e-9 on its diagonal, far below the noise), computed
//! once per lengthscale.
//!
//! Every method of a trial runs on the *same* sequence of functions (common random numbers),
//! with its own stream for observation noise and coins, so the comparison between methods is
//! paired. The methods decide through the core's
//! [`CandidateController`] over the
//! grid, whose posterior is the exact time-varying GP in Kalman form.

use costbo_core::feedback::controller::{
    Beta, CandidateController, Chooser, Competitors, FeedbackSettings,
};
use costbo_core::feedback::query::QueryRule;
use costbo_core::gp::candidates::CandidatePosterior;
use costbo_core::random::standard_normal;
use rand_xoshiro::rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::platform::Platform;

/// Observation noise variance of the study (`docs/notes/seed-003.md`: σ² = 0.01).
pub const NOISE_VARIANCE: f64 = 0.01;
/// The jitter added to the kernel matrix's diagonal before factorising it for sampling.
const SAMPLING_JITTER: f64 = 1e-9;

/// One of the compared methods.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Method {
    /// TV-GP-UCB with feedback every round.
    TvGpUcb,
    /// R-GP-UCB: GP-UCB (no forgetting) reset every `period` rounds, feedback every round.
    RGpUcb {
        /// Rounds between resets.
        period: u32,
    },
    /// TV-GP-UCB paying with probability `p` ("Ber(p)").
    Bernoulli(f64),
    /// CE-GP-UCB at threshold κ (pure CE: `B₁ = 0`, `B₂ = T`).
    Confidence(f64),
    /// CE-GP-UCB with the LCB–UCB test ("@*").
    LcbUcb,
    /// CE-GP-UCB at threshold κ against the paper's procedure without our addition: the
    /// UCB's stationary points only ([`Competitors::PAPER_STATIONARY`]), where
    /// [`Method::Confidence`] adds the UCB's best point beyond the bandwidth
    /// ([`Competitors::PAPER_GRID`]).
    ConfidenceStationary(f64),
    /// The LCB–UCB test against the stationary points only.
    LcbUcbStationary,
    /// CE-GP-UCB at threshold κ against the paper's competitor set read literally: the UCB's
    /// strict local maxima ([`Competitors::PAPER_MAXIMA`]).
    ConfidenceMaxima(f64),
    /// The LCB–UCB test against the strict local maxima.
    LcbUcbMaxima,
    /// Probability of improvement (margin 0.01) with Bernoulli(p) feedback.
    PiBernoulli(f64),
    /// Expected improvement with Bernoulli(p) feedback.
    EiBernoulli(f64),
}

impl Method {
    /// The JSON's method name.
    pub fn name(&self) -> &'static str {
        match self {
            Method::TvGpUcb => "tv-gp-ucb",
            Method::RGpUcb { .. } => "r-gp-ucb",
            Method::Bernoulli(_) => "ber",
            Method::Confidence(_) => "ce",
            Method::LcbUcb => "ce-lcb-ucb",
            Method::ConfidenceStationary(_) => "ce-stationary",
            Method::LcbUcbStationary => "ce-stationary-lcb-ucb",
            Method::ConfidenceMaxima(_) => "ce-maxima",
            Method::LcbUcbMaxima => "ce-maxima-lcb-ucb",
            Method::PiBernoulli(_) => "pi-ber",
            Method::EiBernoulli(_) => "ei-ber",
        }
    }

    /// κ, for the CE rows.
    pub fn kappa(&self) -> Option<f64> {
        match self {
            Method::Confidence(k)
            | Method::ConfidenceStationary(k)
            | Method::ConfidenceMaxima(k) => Some(*k),
            _ => None,
        }
    }

    /// p, for the Bernoulli rows.
    pub fn p(&self) -> Option<f64> {
        match self {
            Method::Bernoulli(p) | Method::PiBernoulli(p) | Method::EiBernoulli(p) => Some(*p),
            _ => None,
        }
    }

    /// A label for tables and file rows, e.g. `ce@0.9`.
    pub fn label(&self) -> String {
        match self {
            Method::TvGpUcb => "tv-gp-ucb".into(),
            Method::RGpUcb { period } => format!("r-gp-ucb/{period}"),
            Method::Bernoulli(p) => format!("ber({p})"),
            Method::Confidence(k) => format!("ce@{k}"),
            Method::LcbUcb => "ce@*".into(),
            Method::ConfidenceStationary(k) => format!("ce-stationary@{k}"),
            Method::LcbUcbStationary => "ce-stationary@*".into(),
            Method::ConfidenceMaxima(k) => format!("ce-maxima@{k}"),
            Method::LcbUcbMaxima => "ce-maxima@*".into(),
            Method::PiBernoulli(p) => format!("pi-ber({p})"),
            Method::EiBernoulli(p) => format!("ei-ber({p})"),
        }
    }
}

/// R-GP-UCB's reset period (the paper does not give it): `⌈12·ε^{−1/4}⌉` rounds, the order
/// `ε^{−1/4}` of Bogunovic et al.'s analysis for the squared-exponential kernel with a constant
/// of our choosing, so that at ε = 0.003 it resets every 52 rounds and at ε = 0.05 every 26.
pub fn reset_period(epsilon: f64) -> u32 {
    (12.0 * epsilon.powf(-0.25)).ceil() as u32
}

/// The grid, its Matérn-3/2 kernel matrix and that matrix's Cholesky factor.
#[derive(Debug, Clone)]
pub struct Grid {
    /// The points, `i/(M−1)`.
    pub points: Vec<f64>,
    /// The lengthscale.
    pub lengthscale: f64,
    // Row-major M×M.
    kernel: Vec<f64>,
    factor: Vec<f64>,
}

/// Matérn-3/2 of unit variance.
pub fn matern32(a: f64, b: f64, lengthscale: f64) -> f64 {
    let r = 3f64.sqrt() * (a - b).abs() / lengthscale;
    (1.0 + r) * (-r).exp()
}

impl Grid {
    /// `points` evenly spaced points on [0, 1] (at least 2) and a positive lengthscale.
    pub fn new(points: usize, lengthscale: f64) -> Result<Self, String> {
        if !(2..=5_000).contains(&points) {
            return Err(format!("grid points {points} outside 2..=5000"));
        }
        if !(lengthscale.is_finite() && lengthscale > 0.0) {
            return Err(format!(
                "lengthscale {lengthscale} is not a positive number"
            ));
        }
        let m = points;
        let xs: Vec<f64> = (0..m).map(|i| i as f64 / (m - 1) as f64).collect();
        let mut kernel = vec![0.0; m * m];
        for i in 0..m {
            for j in 0..m {
                kernel[i * m + j] = matern32(xs[i], xs[j], lengthscale);
            }
        }
        let mut factor = kernel.clone();
        for i in 0..m {
            factor[i * m + i] += SAMPLING_JITTER;
        }
        // Dense Cholesky, lower triangle, row-major.
        for j in 0..m {
            let mut d = factor[j * m + j];
            for k in 0..j {
                d -= factor[j * m + k] * factor[j * m + k];
            }
            if d.is_nan() || d <= 0.0 {
                return Err(format!("kernel matrix not positive definite at row {j}"));
            }
            let d = d.sqrt();
            factor[j * m + j] = d;
            for i in j + 1..m {
                let mut s = factor[i * m + j];
                let (ri, rj) = (&factor[i * m..i * m + j], &factor[j * m..j * m + j]);
                s -= ri.iter().zip(rj).map(|(a, b)| a * b).sum::<f64>();
                factor[i * m + j] = s / d;
            }
        }
        for i in 0..m {
            for j in i + 1..m {
                factor[i * m + j] = 0.0;
            }
        }
        Ok(Grid {
            points: xs,
            lengthscale,
            kernel,
            factor,
        })
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// Always false (at least two points).
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// `k(xᵢ, xⱼ)`.
    pub fn covariance(&self, i: usize, j: usize) -> f64 {
        self.kernel[i * self.len() + j]
    }

    /// One draw of `GP(0, k)` on the grid.
    fn draw(&self, rng: &mut Xoshiro256PlusPlus, out: &mut [f64]) {
        let m = self.len();
        let z: Vec<f64> = (0..m)
            .map(|_| standard_normal::<f64, Platform>(rng))
            .collect();
        for (i, o) in out.iter_mut().enumerate() {
            let row = &self.factor[i * m..i * m + i + 1];
            *o = row.iter().zip(&z).map(|(a, b)| a * b).sum();
        }
    }

    /// The functions `f₁ … f_T` of one trial (row-major, `T × M`).
    pub fn sequence(&self, epsilon: f64, rounds: usize, seed: u64) -> Vec<f64> {
        let m = self.len();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut f = vec![0.0; rounds * m];
        let mut g = vec![0.0; m];
        if rounds == 0 {
            return f;
        }
        self.draw(&mut rng, &mut f[..m]);
        let (keep, fresh) = ((1.0 - epsilon).sqrt(), epsilon.sqrt());
        for t in 1..rounds {
            self.draw(&mut rng, &mut g);
            let (done, next) = f.split_at_mut(t * m);
            let prev = &done[(t - 1) * m..];
            for i in 0..m {
                next[i] = keep * prev[i] + fresh * g[i];
            }
        }
        f
    }
}

/// What one trial of one method gave.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Trial {
    /// `R_T / T`, the average regret against each round's maximum.
    pub regret_per_round: f64,
    /// `C_T`, the measurements paid for.
    pub queries: u32,
}

/// The exploration schedule of the synthetic study: `β_t = 0.8·ln(0.4t)` (floored at zero),
/// the schedule of Bogunovic et al.'s (2016) synthetic experiments; paper 003 does not give
/// its own.
pub const SYNTHETIC_BETA: Beta<f64> = Beta::Logarithmic {
    scale: 0.8,
    rate: 0.4,
};

/// Runs `method` on the functions `f` (`T × M`, from [`Grid::sequence`]) with forgetting rate
/// `epsilon` and the study's β schedule [`SYNTHETIC_BETA`]; `seed` drives the method's noise
/// and coins.
pub fn run_trial(
    grid: &Grid,
    f: &[f64],
    epsilon: f64,
    method: Method,
    seed: u64,
) -> Result<Trial, String> {
    run_trial_with_beta(grid, f, epsilon, method, seed, SYNTHETIC_BETA)
}

/// [`run_trial`] with the exploration schedule `beta` (the study's sensitivity to the β the
/// paper does not state).
pub fn run_trial_with_beta(
    grid: &Grid,
    f: &[f64],
    epsilon: f64,
    method: Method,
    seed: u64,
    beta: Beta<f64>,
) -> Result<Trial, String> {
    let m = grid.len();
    let rounds = f.len() / m;
    let (model_epsilon, rule, chooser, reset_every) = match method {
        Method::TvGpUcb => (epsilon, QueryRule::full(), Chooser::Ucb, None),
        Method::RGpUcb { period } => (0.0, QueryRule::full(), Chooser::Ucb, Some(period)),
        Method::Bernoulli(p) => (epsilon, bernoulli(p)?, Chooser::Ucb, None),
        Method::Confidence(k) => (
            epsilon,
            QueryRule::confidence(k).map_err(|e| format!("κ {k}: {e}"))?,
            Chooser::Ucb,
            None,
        ),
        Method::LcbUcb | Method::LcbUcbStationary | Method::LcbUcbMaxima => {
            (epsilon, QueryRule::lcb_ucb(), Chooser::Ucb, None)
        }
        Method::ConfidenceStationary(k) | Method::ConfidenceMaxima(k) => (
            epsilon,
            QueryRule::confidence(k).map_err(|e| format!("κ {k}: {e}"))?,
            Chooser::Ucb,
            None,
        ),
        Method::PiBernoulli(p) => (epsilon, bernoulli(p)?, Chooser::Pi(0.01), None),
        Method::EiBernoulli(p) => (epsilon, bernoulli(p)?, Chooser::Ei, None),
    };
    let posterior = CandidatePosterior::new(
        vec![0.0; CandidatePosterior::<f64, Vec<f64>>::storage_len(m)],
        m,
        |i, j| grid.covariance(i, j),
        0.0,
        NOISE_VARIANCE,
        model_epsilon,
    )
    .map_err(|e| format!("posterior: {e}"))?;
    let settings = FeedbackSettings {
        beta,
        chooser,
        rule,
        competitors: match method {
            Method::ConfidenceStationary(_) | Method::LcbUcbStationary => {
                Competitors::PAPER_STATIONARY
            }
            Method::ConfidenceMaxima(_) | Method::LcbUcbMaxima => Competitors::PAPER_MAXIMA,
            _ => Competitors::PAPER_GRID,
        },
        reset_every,
    };
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut noise = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x9e37_79b9_7f4a_7c15);
    let mut controller = CandidateController::new(posterior, settings, &mut rng)
        .map_err(|e| format!("controller: {e}"))?;
    let mut regret = 0.0;
    for t in 0..rounds {
        let ft = &f[t * m..(t + 1) * m];
        let ask = controller
            .ask()
            .map_err(|e| format!("round {}: {e}", t + 1))?;
        let best = ft.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        regret += best - ft[ask.candidate];
        if ask.query.pay {
            let y = ft[ask.candidate]
                + NOISE_VARIANCE.sqrt() * standard_normal::<f64, Platform>(&mut noise);
            controller
                .tell(y)
                .map_err(|e| format!("round {}: {e}", t + 1))?;
        } else {
            controller
                .skip()
                .map_err(|e| format!("round {}: {e}", t + 1))?;
        }
    }
    Ok(Trial {
        regret_per_round: regret / rounds.max(1) as f64,
        queries: controller.paid(),
    })
}

fn bernoulli(p: f64) -> Result<QueryRule<f64>, String> {
    QueryRule::bernoulli(p).map_err(|e| format!("p {p}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generator_covariance_is_the_markov_models() {
        // Cov(f_t(x), f_s(x')) = (1−ε)^{|t−s|/2} k(x, x'): sample statistics over 4 000 trials
        // of a small grid, each estimate within 5 standard errors (σ of a product of unit
        // normals ≤ √2 / √n).
        let grid = Grid::new(5, 0.3).unwrap();
        let eps = 0.2;
        let n = 4_000;
        let pairs = [
            (0usize, 0usize, 0usize, 0usize),
            (0, 3, 0, 1),
            (2, 2, 0, 4),
            (1, 4, 2, 2),
        ];
        let mut sums = [0.0; 4];
        for s in 0..n {
            let f = grid.sequence(eps, 5, s as u64);
            for (k, &(t1, t2, i, j)) in pairs.iter().enumerate() {
                sums[k] += f[t1 * 5 + i] * f[t2 * 5 + j];
            }
        }
        for (k, &(t1, t2, i, j)) in pairs.iter().enumerate() {
            let want = (1.0f64 - eps).powf(t1.abs_diff(t2) as f64 / 2.0)
                * matern32(grid.points[i], grid.points[j], 0.3);
            let got = sums[k] / n as f64;
            assert!(
                (got - want).abs() < 5.0 * (2.0 / n as f64).sqrt(),
                "{k}: {got} vs {want}"
            );
        }
    }

    #[test]
    fn full_feedback_pays_every_round_and_beats_no_feedback() {
        let grid = Grid::new(100, 0.2).unwrap();
        let f = grid.sequence(0.01, 100, 3);
        let full = run_trial(&grid, &f, 0.01, Method::TvGpUcb, 1).unwrap();
        let none = run_trial(&grid, &f, 0.01, Method::Bernoulli(0.0), 1).unwrap();
        assert_eq!((full.queries, none.queries), (100, 0));
        assert!(
            full.regret_per_round < 0.5 * none.regret_per_round,
            "{full:?} {none:?}"
        );
        let ce = run_trial(&grid, &f, 0.01, Method::Confidence(0.9), 1).unwrap();
        assert!(ce.queries > 0 && ce.queries < 100, "{ce:?}");
    }

    #[test]
    fn a_trial_is_determined_by_its_seeds() {
        let grid = Grid::new(50, 0.2).unwrap();
        let f = grid.sequence(0.05, 60, 9);
        assert_eq!(f, grid.sequence(0.05, 60, 9));
        let a = run_trial(&grid, &f, 0.05, Method::Confidence(0.8), 4).unwrap();
        assert_eq!(
            a,
            run_trial(&grid, &f, 0.05, Method::Confidence(0.8), 4).unwrap()
        );
    }
}
