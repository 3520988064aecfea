//! The known evaluation costs of paper 002's cost-aware settings (`docs/notes/seed-002.md` §1.1,
//! §4.1–4.4), each with its gradient in unit-cube coordinates, so that a runner can price a
//! point and a cost-aware rule can differentiate the price.
//!
//! | objectives | cost | range |
//! |---|---|---|
//! | `gp-matern52`, `gp-matern32`, `gp-se`, `ackley-pbgi`, `levy-pbgi`, `rosenbrock-pbgi` | [`mean_linear`]: `1 + 20·mean(u)` | `[1, 21]` |
//! | `pest-control` | [`pest_control::cost`]: the price paid, floored at 10⁻⁶ | `[10⁻⁶, 25]` |
//! | `bump-eipc`, `bump-ei` | [`bump_cost`]: `ε + (1 + δ − ε)·exp(−(u − ½)²/(2s²))` | `[0.1, 10]` |
//!
//! The mean-linear cost is the paper's **code's** form: the text writes `c(x) = 20‖S(x)‖₁ + 1`,
//! which ranges over `[1, 20d + 1]` and with the budgets `25d`/`50d` would allow only a handful
//! of evaluations at `d = 16`; the configs (`max_to_min_ratio: 21`) and the code use
//! `20·(0.05 + mean u) = 1 + 20·mean(u)`, which produced the figures (`docs/notes/seed-002.md` §6.2, pitfall 1).
//!
//! [`paper_cost`] finds the cost of an objective by its catalogue name. Each cost also exists as
//! a plain `fn(usize, &[f64; D]) -> (f64, [f64; D])` ([`mean_linear_fn`], [`bump_cost_fn`],
//! [`pest_control_cost_fn`]), the shape of the core's
//! [`CostFunction`](costbo_core::problem::CostFunction) (the first argument, the control set, is
//! ignored: these problems have one).

use super::bump;
use super::pest_control;

/// `1 + 20·mean(u)` and its gradient `20/d` in every coordinate.
///
/// # Panics
/// If `u` is empty.
pub fn mean_linear(u: &[f64]) -> (f64, Vec<f64>) {
    assert!(!u.is_empty(), "the mean-linear cost needs d >= 1");
    let d = u.len() as f64;
    (
        1.0 + 20.0 * u.iter().sum::<f64>() / d,
        vec![20.0 / d; u.len()],
    )
}

/// [`mean_linear`] in the shape of the core's `CostFunction`.
pub fn mean_linear_fn<const D: usize>(_set: usize, u: &[f64; D]) -> (f64, [f64; D]) {
    let n = D as f64;
    (1.0 + 20.0 * u.iter().sum::<f64>() / n, [20.0 / n; D])
}

/// The cost of the 1-D constructions of Figs. 2 and 9 (see [`bump`]) and its
/// derivative, as a one-element gradient.
pub fn bump_cost(u: &[f64]) -> (f64, Vec<f64>) {
    let (c, g) = bump::bump_cost(u[0]);
    (c, vec![g])
}

/// [`bump_cost`] in the shape of the core's `CostFunction`.
pub fn bump_cost_fn(_set: usize, u: &[f64; 1]) -> (f64, [f64; 1]) {
    let (c, g) = bump::bump_cost(u[0]);
    (c, [g])
}

/// Pest Control's price (see [`pest_control::cost`]) in the shape of the core's
/// `CostFunction`.
pub fn pest_control_cost_fn(
    _set: usize,
    u: &[f64; pest_control::STAGES],
) -> (f64, [f64; pest_control::STAGES]) {
    (pest_control::cost(u).0, [0.0; pest_control::STAGES])
}

/// A known cost: its name and the function giving the cost and gradient at a unit-cube point.
#[derive(Debug, Clone, Copy)]
pub struct KnownCost {
    /// `mean-linear`, `pest-control-price` or `bump`.
    pub name: &'static str,
    /// The cost and its gradient at `u`.
    pub eval: fn(&[f64]) -> (f64, Vec<f64>),
}

/// The known cost of the cost-aware setting of the objective called `objective` (a catalogue
/// name), or `None` for objectives outside paper 002.
pub fn paper_cost(objective: &str) -> Option<KnownCost> {
    match objective {
        "gp-matern52" | "gp-matern32" | "gp-se" | "ackley-pbgi" | "levy-pbgi"
        | "rosenbrock-pbgi" => Some(KnownCost {
            name: "mean-linear",
            eval: mean_linear,
        }),
        "pest-control" => Some(KnownCost {
            name: "pest-control-price",
            eval: pest_control::cost,
        }),
        "bump-eipc" | "bump-ei" => Some(KnownCost {
            name: "bump",
            eval: bump_cost,
        }),
        _ => None,
    }
}
