//! `pest-control`: paper 002's Pest Control problem (d = 25; Oh et al. 2019, COMBO, in the
//! setup of Li et al. 2024), as the paper's code evaluates it (notes `seed-002.md` §4.3).
//!
//! **Decisions.** 25 stages, each with a choice among 5: 0 = no treatment, 1–4 = a pesticide.
//! The optimiser works on the relaxed cube: coordinate `u_i ∈ [0, 1]` is the choice
//! `min(⌊5u_i⌋, 4)` ([`choice`]), so every choice owns a fifth of the interval.
//!
//! **Simulator** (COMBO's `_pest_control_score`, 100 simulations at once):
//! - the pest fraction starts at `Beta(1, 30)`;
//! - at each stage a spread rate `s ~ Beta(1, 17/3)` is drawn; untreated, the fraction moves
//!   to `s·(1 − curr) + curr`; treated with pesticide `k`, a control rate
//!   `c ~ Beta(1, β_k)` is drawn and the fraction moves to `(1 − c)·curr`;
//! - each use of pesticide `k` raises `β_k` (tolerance: later uses control less) by
//!   `r_k/25`, with `β = (2, 3, 3, 5)/7` initially and `r = (1, 2.5, 2, 0.5)/7`;
//! - each use of `k` costs `p_k·(1 − δ_k·n_k/25)`, where `n_k` is how many of the 25 stages
//!   use `k` (a bulk discount on the whole plan), `p = (1, 0.8, 0.7, 0.5)`,
//!   `δ = (0.2, 0.3, 0.3, 0)`;
//! - the penalty adds, for each stage, the fraction of the simulations whose pest fraction
//!   *entering* the stage exceeds 0.1 (the code counts before the stage's transition: the
//!   result of the last stage's treatment is never counted).
//!
//! The score is total price + penalty; the objective is its negation, `−(price + penalty)`.
//! The cost of the cost-aware setting is the total price alone ([`cost`], known to the rule,
//! piecewise constant: its gradient is 0 wherever it exists), so the objective is
//! `−(cost + penalty)`: objective and cost are coupled.
//!
//! **Randomness.** The paper's code calls `np.random.RandomState(1).beta(...)` for *every*
//! draw, so every draw of 100 variates starts from the same stream and the objective is
//! deterministic. We cannot reproduce numpy's legacy Beta stream (a ratio of Marsaglia–Tsang
//! gammas), so values differ from the paper's; what we keep is its structure: one fixed set of
//! 100 uniforms `U_j` ([`simulation_uniforms`], xoshiro256++ seeded with 1) is reused by every
//! draw, and a `Beta(1, b)` variate is its inverse CDF at `U_j`, `1 − (1 − U_j)^{1/b}`. So
//! simulation `j` sees the same spread rate at every stage (as in the code), and its control
//! rate falls as tolerance raises `β_k`.
//!
//! **Not reproduced.** The code adds `10⁻⁶·N(0, 1)` to the score and to the cost "to prevent
//! training instabilities"; we do not (the loop's GP has noise variance `10⁻⁴` anyway). The
//! cost is 0 when no stage is treated (a corner of volume `0.2²⁵`); the pricing in
//! [`crate::pandora::BoxCost::PestControl`] clamps it to `10⁻⁶`, the scale of the code's noise.
//!
//! **Optimum.** Unknown. [`PestControl::optimum`] is the best plan we found
//! ([`BEST_KNOWN_PLAN`]), so regret against it can be negative.

use costbo_core::random::uniform_open;
use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use super::Objective;

/// Stages of the problem (the input dimension).
pub const STAGES: usize = 25;

/// Choices per stage: no treatment and four pesticides.
pub const CHOICES: usize = 5;

/// Simulations per evaluation.
pub const SIMULATIONS: usize = 100;

/// Pest fraction above which a simulation is penalised at a stage.
pub const THRESHOLD: f64 = 0.1;

/// Seed of the simulations' uniforms (the code's `RandomState(1)`).
pub const SEED: u64 = 1;

/// Second shape of the initial pest fraction's `Beta(1, 30)`.
const INITIAL_BETA: f64 = 30.0;
/// Second shape of the spread rate's `Beta(1, 17/3)`.
const SPREAD_BETA: f64 = 17.0 / 3.0;
/// Price per use of pesticides 1–4 before discount.
pub const PRICE: [f64; 4] = [1.0, 0.8, 0.7, 0.5];
/// Largest bulk discount of pesticides 1–4 (reached when all 25 stages use it).
pub const MAX_DISCOUNT: [f64; 4] = [0.2, 0.3, 0.3, 0.0];
/// Initial second shape `β_k` of the control rate's `Beta(1, β_k)`.
pub const INITIAL_CONTROL_BETA: [f64; 4] = [2.0 / 7.0, 3.0 / 7.0, 3.0 / 7.0, 5.0 / 7.0];
/// Rise of `β_k` over 25 uses (each use adds a 25th of it).
pub const TOLERANCE_RATE: [f64; 4] = [1.0 / 7.0, 2.5 / 7.0, 2.0 / 7.0, 0.5 / 7.0];

/// The best plan we know (choices 0–4 per stage) and [`PestControl::optimum`]'s source.
///
/// Pesticide 3 at stages 1–24, nothing at the last: price `24·0.7·(1 − 0.3·24/25) = 11.9616`,
/// penalty 0.04 (the 4 simulations whose *initial* fraction exceeds 0.1, which no plan can
/// avoid), value −12.0016. Found by our own search (single-stage coordinate ascent from the
/// five uniform plans and 295 random ones, the ignored test `search_pest_control`); the
/// tests check that no single-stage change improves it. The paper reports no optimum.
pub const BEST_KNOWN_PLAN: [usize; STAGES] = {
    let mut p = [3; STAGES];
    p[STAGES - 1] = 0;
    p
};

/// The choice of a relaxed coordinate: `min(⌊5u⌋, 4)` (negative or NaN input gives 0).
pub fn choice(u: f64) -> usize {
    // `as usize` saturates: negative and NaN become 0.
    ((CHOICES as f64 * u).floor() as usize).min(CHOICES - 1)
}

/// The plan of a relaxed point: [`choice`] of each coordinate.
pub fn plan(u: &[f64]) -> Vec<usize> {
    u.iter().map(|&v| choice(v)).collect()
}

/// The 100 uniforms every draw of the simulator reuses (xoshiro256++ seeded with [`SEED`]).
pub fn simulation_uniforms() -> [f64; SIMULATIONS] {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(SEED);
    core::array::from_fn(|_| uniform_open(&mut rng))
}

/// `Beta(1, b)` at the uniform `u` by its inverse CDF, `1 − (1 − u)^{1/b}`.
fn beta_one(b: f64, u: f64) -> f64 {
    // −expm1(ln(1 − u)/b) keeps small variates (large b) accurate.
    -((-u).ln_1p() / b).exp_m1()
}

/// How many stages of `plan` use each pesticide.
fn uses(plan: &[usize]) -> [usize; 4] {
    let mut n = [0; 4];
    for &k in plan {
        if k > 0 {
            n[k - 1] += 1;
        }
    }
    n
}

/// The total price of `plan` (choices 0–4; its length is the number of stages):
/// `Σ_{treated stages} p_k·(1 − δ_k·n_k/stages)`.
pub fn plan_price(plan: &[usize]) -> f64 {
    let n = uses(plan);
    let stages = plan.len() as f64;
    plan.iter()
        .filter(|&&k| k > 0)
        .map(|&k| PRICE[k - 1] * (1.0 - MAX_DISCOUNT[k - 1] / stages * n[k - 1] as f64))
        .sum()
}

/// The pest penalty of `plan`: for each stage, the fraction of the simulations whose pest
/// fraction entering the stage exceeds [`THRESHOLD`]. In `[0, stages]`.
pub fn pest_penalty(plan: &[usize]) -> f64 {
    let u = simulation_uniforms();
    let stages = plan.len() as f64;
    let mut beta = INITIAL_CONTROL_BETA;
    let mut current: [f64; SIMULATIONS] = core::array::from_fn(|j| beta_one(INITIAL_BETA, u[j]));
    let mut above = 0.0;
    for &k in plan {
        let entering = current.iter().filter(|&&p| p > THRESHOLD).count();
        above += entering as f64 / SIMULATIONS as f64;
        for (p, &uj) in current.iter_mut().zip(&u) {
            *p = if k > 0 {
                (1.0 - beta_one(beta[k - 1], uj)) * *p
            } else {
                beta_one(SPREAD_BETA, uj) * (1.0 - *p) + *p
            };
        }
        if k > 0 {
            beta[k - 1] += TOLERANCE_RATE[k - 1] / stages;
        }
    }
    above
}

/// The known cost at the relaxed point `u`: the total price of its plan ([`plan_price`]).
/// Piecewise constant; 0 when no stage is treated.
pub fn cost(u: &[f64]) -> f64 {
    plan_price(&plan(u))
}

/// The objective `−(price + penalty)` of a plan.
pub fn plan_value(plan: &[usize]) -> f64 {
    -(plan_price(plan) + pest_penalty(plan))
}

/// Pest Control on `[0, 1]^25` (see the module documentation).
#[derive(Debug, Clone, Copy, Default)]
pub struct PestControl;

impl Objective for PestControl {
    fn name(&self) -> &str {
        "pest-control"
    }
    fn dim(&self) -> usize {
        STAGES
    }
    fn eval(&self, u: &[f64]) -> f64 {
        plan_value(&plan(&u[..STAGES]))
    }
    /// The value of [`BEST_KNOWN_PLAN`] (the true optimum is unknown).
    fn optimum(&self) -> f64 {
        plan_value(&BEST_KNOWN_PLAN)
    }
    /// The centre of [`BEST_KNOWN_PLAN`]'s cell.
    fn argmax(&self) -> Option<Vec<f64>> {
        Some(
            BEST_KNOWN_PLAN
                .iter()
                .map(|&k| (k as f64 + 0.5) / CHOICES as f64)
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The closed form of the untreated dynamics: with `v = 1 − U` uniform, the fraction
    /// entering stage `i` is `1 − v^{e_i}`, `e_i = 1/30 + 3i/17` (each untreated stage
    /// multiplies `1 − curr` by `1 − s = v^{3/17}`), above 0.1 iff `v < 0.9^{1/e_i}`.
    fn untreated_penalty_closed_form(stages: usize) -> f64 {
        let u = simulation_uniforms();
        (0..stages)
            .map(|i| {
                let e = 1.0 / 30.0 + 3.0 * i as f64 / 17.0;
                let cut = 0.9f64.powf(1.0 / e);
                u.iter().filter(|&&uj| 1.0 - uj < cut).count() as f64 / 100.0
            })
            .sum()
    }

    #[test]
    fn relaxed_coordinates_map_to_fifths() {
        for (u, k) in [
            (0.0, 0),
            (0.199_999, 0),
            (0.2, 1),
            (0.41, 2),
            (0.6, 3),
            (0.799, 3),
            (0.8, 4),
            (0.999, 4),
            (1.0, 4),
            (-0.3, 0),
            (f64::NAN, 0),
        ] {
            assert_eq!(choice(u), k, "u = {u}");
        }
    }

    #[test]
    fn untreated_plan_pays_nothing_and_its_penalty_is_the_closed_form() {
        let u = [0.1; STAGES];
        assert_eq!(cost(&u), 0.0);
        let want = untreated_penalty_closed_form(STAGES);
        let got = pest_penalty(&[0; STAGES]);
        assert!((got - want).abs() < 1e-12, "{got} vs {want}");
        assert_eq!(PestControl.eval(&u), -want);
        // With v = 1 − U uniform, E[penalty] = Σ_i 0.9^{1/e_i} ≈ 22.5; 100 simulations give a
        // standard error below 0.5 on the sum (stages are comonotone: at most 25·0.05).
        let expected: f64 = (0..STAGES)
            .map(|i| 0.9f64.powf(1.0 / (1.0 / 30.0 + 3.0 * i as f64 / 17.0)))
            .sum();
        assert!((got - expected).abs() < 1.5, "{got} vs {expected}");
    }

    #[test]
    fn one_treated_stage_costs_its_discounted_price() {
        // One use of pesticide k: p_k·(1 − δ_k/25).
        let want = [1.0 * (1.0 - 0.2 / 25.0), 0.8 * 0.988, 0.7 * 0.988, 0.5];
        for k in 1..=4 {
            for stage in [0, 7, 24] {
                let mut u = [0.1; STAGES];
                u[stage] = (k as f64 + 0.5) / 5.0;
                assert!((cost(&u) - want[k - 1]).abs() < 1e-15, "k = {k}");
            }
        }
        // All 25 stages with pesticide k: 25·p_k·(1 − δ_k).
        for (k, want) in [(1, 20.0), (2, 14.0), (3, 12.25), (4, 12.5)] {
            let u = [(k as f64 + 0.5) / 5.0; STAGES];
            assert!((cost(&u) - want).abs() < 1e-12, "k = {k}: {}", cost(&u));
        }
        // Mixed: 3 uses of 1 and 2 of 4: 3·(1 − 0.2·3/25) + 2·0.5 = 3.928.
        let mut p = [0; STAGES];
        p[..3].copy_from_slice(&[1, 1, 1]);
        p[10] = 4;
        p[20] = 4;
        assert!((plan_price(&p) - 3.928).abs() < 1e-12);
    }

    #[test]
    fn treating_the_last_stage_only_adds_its_price() {
        // The code counts the pest fraction entering each stage, so the last stage's
        // transition never reaches the penalty.
        let untreated = plan_value(&[0; STAGES]);
        let price = [0.992, 0.7904, 0.6916, 0.5];
        for k in 1..=4 {
            let mut p = [0; STAGES];
            p[STAGES - 1] = k;
            assert!(
                (plan_value(&p) - (untreated - price[k - 1])).abs() < 1e-12,
                "k = {k}"
            );
        }
    }

    #[test]
    fn a_single_treatment_never_raises_the_penalty() {
        // Treating stage i lowers every simulation's fraction after it ((1 − c)·p ≤ p ≤
        // s(1 − p) + p) and the untreated dynamics are increasing in p, so with no other
        // treatment the penalty cannot rise; stage 0's entering fraction is the initial one.
        let untreated = pest_penalty(&[0; STAGES]);
        for k in 1..=4 {
            for stage in 0..STAGES {
                let mut p = [0; STAGES];
                p[stage] = k;
                assert!(pest_penalty(&p) <= untreated, "k = {k}, stage {stage}");
            }
            // Treating the first stage strictly helps: some simulation crosses 0.1 later.
            let mut p = [0; STAGES];
            p[0] = k;
            assert!(pest_penalty(&p) < untreated, "k = {k}");
        }
    }

    #[test]
    fn evaluation_is_deterministic_and_piecewise_constant() {
        let u: Vec<f64> = (0..STAGES).map(|i| ((i * 7) % 10) as f64 / 10.0).collect();
        let a = PestControl.eval(&u);
        assert_eq!(a, PestControl.eval(&u));
        assert_eq!(simulation_uniforms(), simulation_uniforms());
        // Moving every coordinate inside its fifth changes neither the value nor the cost.
        let v: Vec<f64> = u.iter().map(|x| x + 0.05).collect();
        assert_eq!(PestControl.eval(&v), a);
        assert_eq!(cost(&v), cost(&u));
        // Score = price + penalty, penalty in [0, 25].
        let p = plan(&u);
        let penalty = pest_penalty(&p);
        assert!((0.0..=25.0).contains(&penalty));
        assert!((a + plan_price(&p) + penalty).abs() < 1e-12);
    }

    #[test]
    fn uniforms_look_uniform() {
        // 100 draws: mean ½ with standard error 0.029; tolerance 4 of them.
        let u = simulation_uniforms();
        assert!(u.iter().all(|&x| x > 0.0 && x < 1.0));
        let mean = u.iter().sum::<f64>() / 100.0;
        assert!((mean - 0.5).abs() < 0.116, "{mean}");
    }

    #[test]
    fn best_known_plan_is_a_local_optimum() {
        let best = plan_value(&BEST_KNOWN_PLAN);
        assert_eq!(PestControl.optimum(), best);
        assert_eq!(PestControl.eval(&PestControl.argmax().unwrap()), best);
        // Hand-worked: 24 uses of pesticide 3 and the unavoidable initial 0.04.
        let initial = pest_penalty(&[0; 1]);
        assert!((best + 24.0 * 0.7 * (1.0 - 0.3 * 24.0 / 25.0) + initial).abs() < 1e-12);
        assert!((best + 12.0016).abs() < 1e-12, "{best}");
        for stage in 0..STAGES {
            for k in 0..CHOICES {
                let mut p = BEST_KNOWN_PLAN;
                p[stage] = k;
                assert!(plan_value(&p) <= best, "stage {stage} → {k}");
            }
        }
    }
}

/// The search behind [`BEST_KNOWN_PLAN`] (`cargo test -p costbo-std --lib
/// search_pest_control -- --ignored --nocapture` prints its best plan).
#[cfg(test)]
mod search {
    use super::*;

    #[test]
    #[ignore = "a search of a few seconds; prints the best plan it finds"]
    fn search_pest_control() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2024);
        let mut best: ([usize; STAGES], f64) = (BEST_KNOWN_PLAN, plan_value(&BEST_KNOWN_PLAN));
        // Starts: the uniform plans (bulk discounts reward them, and no single-stage change
        // reaches them from a mixed plan), then random plans.
        for start in 0..300 {
            let mut p: [usize; STAGES] = if start < CHOICES {
                [start; STAGES]
            } else {
                core::array::from_fn(|_| choice(uniform_open(&mut rng)))
            };
            let mut v = plan_value(&p);
            // Coordinate descent: take any improving single-stage change until none is left.
            loop {
                let mut improved = false;
                for stage in 0..STAGES {
                    for k in 0..CHOICES {
                        let mut q = p;
                        q[stage] = k;
                        let w = plan_value(&q);
                        if w > v {
                            (p, v, improved) = (q, w, true);
                        }
                    }
                }
                if !improved {
                    break;
                }
            }
            if v > best.1 {
                best = (p, v);
            }
        }
        println!("best plan {:?}: {:?}", best.0, best.1);
    }
}
