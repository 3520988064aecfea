//! Schedules for β (the square of the UCB width, `UCB = μ + √β σ`) and ρ (the numerator of
//! Algorithm 2's arm bonus `ρ/√n`), each a function of the arm's play count `n ≥ 1` and of
//! the arm's shape. The paper leaves both unspecified in its experiments (`docs/notes/seed-004.md`'s pitfall
//! 4), so every decision reports the values it used.

use crate::real::Real;

/// A schedule `n ↦ value` (see the module docs). `n` is clamped to at least 1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Schedule<R> {
    /// The same value for every `n`.
    Constant(R),
    /// `max(scale·ln n + offset, 0)`: the `log n` growth `docs/notes/seed-004.md` suggests for ρ.
    Logarithmic {
        /// The factor of `ln n`.
        scale: R,
        /// The constant added.
        offset: R,
    },
    /// HEBO's LCB width inside MACE (`υ = 0.5`): `(2 + D/2)·ln n + ln(π²/δ)`, with `D` the
    /// arm's input dimension (actions plus contexts).
    Hebo {
        /// The confidence parameter δ ∈ (0, 1) (HEBO: 0.01).
        delta: R,
    },
    /// Theorem 1's simplified form `A₁·d̄·ln(A₁·m·d̄·n/δ)`, with `d̄` the larger of the arm's
    /// action and context dimensions (at least 1) and `m` the number of arms.
    Theorem1 {
        /// The constant `A₁ > 0` (B.3: `8φ̄ψ̄(r̄ ∨ 1)`, unknown in practice).
        a1: R,
        /// The confidence parameter δ ∈ (0, 1).
        delta: R,
    },
}

impl<R: Real> Schedule<R> {
    /// The value at play count `n` for an arm with `actions` action and `contexts` context
    /// variables in a table of `arms` arms.
    pub fn at(&self, n: u32, actions: usize, contexts: usize, arms: usize) -> R {
        let n = R::from_f64(f64::from(n.max(1)));
        match *self {
            Schedule::Constant(c) => c,
            Schedule::Logarithmic { scale, offset } => (scale * n.ln() + offset).max(R::ZERO),
            Schedule::Hebo { delta } => {
                let d = R::from_usize(actions + contexts);
                (R::TWO + d * R::HALF) * n.ln() + (R::PI * R::PI / delta).ln()
            }
            Schedule::Theorem1 { a1, delta } => {
                let d = R::from_usize(actions.max(contexts).max(1));
                let m = R::from_usize(arms.max(1));
                (a1 * d * (a1 * m * d * n / delta).ln()).max(R::ZERO)
            }
        }
    }

    /// True when the parameters are in their domains (finite; δ in (0, 1); A₁ > 0).
    pub fn valid(&self) -> bool {
        match *self {
            Schedule::Constant(c) => c.is_finite() && c >= R::ZERO,
            Schedule::Logarithmic { scale, offset } => scale.is_finite() && offset.is_finite(),
            Schedule::Hebo { delta } => delta > R::ZERO && delta < R::ONE,
            Schedule::Theorem1 { a1, delta } => {
                a1.is_finite() && a1 > R::ZERO && delta > R::ZERO && delta < R::ONE
            }
        }
    }
}
