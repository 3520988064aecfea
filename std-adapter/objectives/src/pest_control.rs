//! `pest-control`: paper 002's Pest Control problem (Oh et al. 2019's COMBO benchmark in the
//! setup of Li et al. 2024), ported from the paper's code (`pest_control.py` of
//! `QianJaneXie/PandoraBayesOpt`; `docs/notes/seed-002.md` §4.3), deterministic.
//!
//! # The problem
//!
//! 25 stages; at each one the farmer applies no pesticide (choice 0) or one of four (1–4). The
//! unit-cube input `u ∈ [0, 1]^25` picks stage `i`'s choice `min(⌊5 uᵢ⌋, 4)` (the code's
//! relaxation; the model sees `u` as continuous). The simulator follows 100 fields:
//!
//! - the initial pest fraction of each field is a `Beta(1, 30)` draw;
//! - at every stage, an untreated field grows `p ← s·(1 − p) + p` with spread rate
//!   `s ~ Beta(1, 17/3)`; a field treated with pesticide `k` shrinks `p ← (1 − r)·p` with
//!   control rate `r ~ Beta(1, β_k)`, `β = (2, 3, 3, 5)/7` at first, and every use of `k`
//!   raises `β_k` by `(1, 2.5, 2, 0.5)/7 / 25` (the pests grow tolerant);
//! - each use of `k` is paid `p_k·(1 − δ_k·n_k/25)`, `p = (1, 0.8, 0.7, 0.5)`,
//!   `δ = (0.2, 0.3, 0.3, 0)`, `n_k` the number of stages that use `k` (a volume discount);
//! - the score is the total price paid plus, over the stages, the fraction of fields whose
//!   pest fraction exceeds 0.1 *before* that stage's treatment.
//!
//! The objective is the negated score (maximised).
//!
//! # Determinism
//!
//! The code draws every batch of 100 rates from a *fresh* `numpy.random.RandomState(1)`, so the
//! initial fractions, the spread rates (the same vector at every stage) and the control rates
//! (a function of the current `β_k` only) are fixed: the score is a deterministic function of
//! the choices. [`numpy_rng`](super::numpy_rng) reproduces NumPy's legacy stream bit for bit,
//! so this port computes the code's score (in the code's order of floating-point operations)
//! to the last bit where the C library's `pow` and `log` agree with NumPy's.
//!
//! The code then adds `10⁻⁶` Gaussian noise to the score and to the cost "to prevent training
//! instabilities". That noise is left out here (the objective is deterministic); the cost is
//! instead floored at [`PRICE_FLOOR`] so that it stays positive at the all-untreated corner,
//! where the price is 0 (`docs/notes/seed-002.md` §6.2, pitfall 8).
//!
//! # Cost
//!
//! The known cost of the cost-aware setting is the total price paid, [`price`] (budget 800 in
//! the paper); it is piecewise constant, so its gradient is zero almost everywhere
//! ([`cost`]).
//!
//! # Optimum
//!
//! Not known. [`BEST_KNOWN`] is the best choice vector a local search found (see its
//! documentation); [`Objective::optimum`] reports its value, so regret against it can be
//! negative.

use super::numpy_rng::RandomState;
use super::Objective;

/// Stages (the input dimension).
pub const STAGES: usize = 25;
/// Choices per stage (0 = no pesticide, 1–4 = pesticide type).
pub const CHOICES: usize = 5;
/// Simulated fields.
pub const FIELDS: usize = 100;
/// Pest fraction above which a field counts against the score.
pub const THRESHOLD: f64 = 0.1;
/// The seed the code re-creates `RandomState` with before every batch of draws.
pub const SEED: u32 = 1;
/// Lower bound of [`cost`]: the price is 0 when no stage is treated, and cost-aware rules
/// need a positive cost.
pub const PRICE_FLOOR: f64 = 1e-6;

/// Price per use of pesticides 1–4.
const PRICE: [f64; 4] = [1.0, 0.8, 0.7, 0.5];
/// Largest volume discount of pesticides 1–4 (reached when all 25 stages use it).
const MAX_DISCOUNT: [f64; 4] = [0.2, 0.3, 0.3, 0.0];
/// Increase of `β_k` per use, before division by the number of stages.
const TOLERANCE_RATE: [f64; 4] = [1.0 / 7.0, 2.5 / 7.0, 2.0 / 7.0, 0.5 / 7.0];
/// Initial `β_k` of the control-rate distributions `Beta(1, β_k)`.
const CONTROL_BETA: [f64; 4] = [2.0 / 7.0, 3.0 / 7.0, 3.0 / 7.0, 5.0 / 7.0];

/// The best choice vector a local search found: pesticide 3 at every stage but the last, which
/// is left untreated (a treatment at the last stage is paid for but never counted, since the
/// penalty looks at the fractions before each stage's treatment). The search
/// (`pest_control_search` in `tests/pandora_objectives.rs`) is first improvement over changes
/// of one stage, then of two, from 1000 random starts; every start ended at this vector or a
/// worse one. Not a proven optimum.
pub const BEST_KNOWN: [usize; STAGES] = [
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 0,
];

/// The score of [`BEST_KNOWN`] (lower is better; the objective's optimum is its negative), as
/// the paper's code computes it.
pub const BEST_KNOWN_SCORE: f64 = 11.991600000000002;

/// The stage choices `min(⌊5 uᵢ⌋, 4)` of a unit-cube point.
pub fn choices(u: &[f64]) -> Vec<usize> {
    u.iter()
        .map(|&v| ((5.0 * v).floor().max(0.0) as usize).min(CHOICES - 1))
        .collect()
}

/// The price paid for one use of pesticide `k ∈ 1..=4` used at `count` stages out of
/// `stages`, in the code's order of operations.
fn unit_price(k: usize, count: usize, stages: usize) -> f64 {
    PRICE[k - 1] * (1.0 - MAX_DISCOUNT[k - 1] / stages as f64 * count as f64)
}

/// The total price paid for `choices` (the code's `pest_control_price`).
pub fn price(choices: &[usize]) -> f64 {
    let mut total = 0.0;
    for &k in choices {
        if k > 0 {
            let n = choices.iter().filter(|&&c| c == k).count();
            total += unit_price(k, n, choices.len());
        }
    }
    total
}

/// The known cost at the unit-cube point `u`, floored at [`PRICE_FLOOR`], and its gradient
/// (zero: the price is piecewise constant in `u`).
pub fn cost(u: &[f64]) -> (f64, Vec<f64>) {
    (price(&choices(u)).max(PRICE_FLOOR), vec![0.0; u.len()])
}

/// The simulator's fixed random draws. The control rates of pesticide `k` depend only on `β_k`,
/// which depends only on how many earlier stages used `k`, so they are drawn once per
/// `(k, earlier uses)`.
#[derive(Debug, Clone)]
struct Draws {
    initial: Vec<f64>,
    spread: Vec<f64>,
    /// `control[k − 1][n]`: the control rates of pesticide `k` after `n` earlier uses.
    control: Vec<Vec<Vec<f64>>>,
}

/// `n` draws of `Beta(a, b)` from a fresh `RandomState(SEED)`, as the code draws them.
fn fresh_beta(a: f64, b: f64, n: usize) -> Vec<f64> {
    RandomState::new(SEED).beta_vec(a, b, n)
}

impl Draws {
    fn new() -> Self {
        let control = (0..4)
            .map(|k| {
                // β_k grows by the same increment at each use, accumulated as the code does.
                let mut beta = CONTROL_BETA[k];
                (0..STAGES)
                    .map(|_| {
                        let rates = fresh_beta(1.0, beta, FIELDS);
                        beta += TOLERANCE_RATE[k] / STAGES as f64;
                        rates
                    })
                    .collect()
            })
            .collect();
        Draws {
            initial: fresh_beta(1.0, 30.0, FIELDS),
            spread: fresh_beta(1.0, 17.0 / 3.0, FIELDS),
            control,
        }
    }
}

/// The score (price paid plus pest penalty; lower is better) of a choice vector, each choice in
/// `0..5`. The code's `_pest_control_score(x, seed=1)`.
///
/// # Panics
/// If a choice is 5 or more, or there are not 25 choices.
pub fn score(choices: &[usize]) -> f64 {
    score_with(&Draws::new(), choices)
}

fn score_with(draws: &Draws, choices: &[usize]) -> f64 {
    assert!(
        choices.len() == STAGES && choices.iter().all(|&k| k < CHOICES),
        "pest control takes 25 choices in 0..5"
    );
    let stages = choices.len();
    let mut uses = [0usize; 4];
    let mut current = draws.initial.clone();
    let (mut paid, mut above) = (0.0, 0.0);
    for &k in choices {
        let (next, unit): (Vec<f64>, f64) = if k > 0 {
            let control = &draws.control[k - 1][uses[k - 1]];
            uses[k - 1] += 1;
            let n = choices.iter().filter(|&&c| c == k).count();
            (
                control
                    .iter()
                    .zip(&current)
                    .map(|(r, p)| (1.0 - r) * p)
                    .collect(),
                unit_price(k, n, stages),
            )
        } else {
            (
                draws
                    .spread
                    .iter()
                    .zip(&current)
                    .map(|(s, p)| s * (1.0 - p) + p)
                    .collect(),
                0.0,
            )
        };
        paid += unit;
        // np.mean of a boolean array: the exact count divided by the number of fields.
        let count = current.iter().filter(|&&p| p > THRESHOLD).count();
        above += count as f64 / FIELDS as f64;
        current = next;
    }
    paid + above
}

/// The Pest Control objective, `−score(choices(u))`.
#[derive(Debug, Clone)]
pub struct PestControl {
    draws: Draws,
}

impl Default for PestControl {
    fn default() -> Self {
        Self::new()
    }
}

impl PestControl {
    /// The objective (draws the fixed initial fractions and spread rates once).
    pub fn new() -> Self {
        PestControl {
            draws: Draws::new(),
        }
    }

    /// The score of a choice vector (see [`score`]).
    pub fn score(&self, choices: &[usize]) -> f64 {
        score_with(&self.draws, choices)
    }
}

impl Objective for PestControl {
    fn name(&self) -> &str {
        "pest-control"
    }
    fn dim(&self) -> usize {
        STAGES
    }
    fn eval(&self, u: &[f64]) -> f64 {
        -self.score(&choices(&u[..STAGES]))
    }
    fn optimum(&self) -> f64 {
        -BEST_KNOWN_SCORE
    }
    fn argmax(&self) -> Option<Vec<f64>> {
        // The middle of each choice's interval [k/5, (k+1)/5).
        Some(BEST_KNOWN.iter().map(|&k| (k as f64 + 0.5) / 5.0).collect())
    }
}
