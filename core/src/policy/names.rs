//! What a rule's name is read with: [`RuleName`] (a name and what it is), the
//! [`RuleDefaults`] an experiment supplies for what names leave open, the
//! [`PolicySpecError`] of a name refused, and [`Parameter`], a rule parameter in another
//! precision. Each rule's file uses these to say its names and read them; the registry
//! ([`super::any`]) gathers them.

use super::{Maximiser, Selection};
use crate::real::Real;

/// A rule's name in the registry, with what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleName {
    /// The name (`ucb-cvs:EPS` stands for any `ucb-cvs:` followed by a number).
    pub name: &'static str,
    /// One line on what it is.
    pub summary: &'static str,
}

/// Parameters that rule names leave open, supplied by the caller (an experiment's settings).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RuleDefaults<R> {
    /// `ε` of `ucb-cvs` when the name carries none.
    pub(super) epsilon: R,
    /// How the rules over a box maximise (read only by their names).
    #[allow(dead_code)]
    pub(super) maximiser: Maximiser,
    /// The unknown-cost rule's settings.
    #[cfg(feature = "policy-unknown-cost")]
    pub(super) unknown_cost: crate::round::UnknownCostConfig<R>,
}

impl<R: Real> RuleDefaults<R> {
    /// `ε` of `ucb-cvs` when the name carries none; `unknown-cost` with paper 001's settings
    /// (explore for 60 % of the budget, `α = 0.1`, never halved).
    pub fn new(epsilon: R) -> Self {
        RuleDefaults {
            epsilon,
            maximiser: Maximiser::Pool,
            #[cfg(feature = "policy-unknown-cost")]
            unknown_cost: crate::round::UnknownCostConfig {
                exploration: crate::round::Exploration::BudgetFraction(R::from_f64(
                    crate::round::PAPER_001_EXPLORATION,
                )),
                alpha: R::from_f64(crate::round::PAPER_001_ALPHA),
                halve_every: None,
                exploitation: crate::round::Exploitation::Paper,
            },
        }
    }

    /// The settings the desktop runner gives the papers' rules, for a problem of `dim`
    /// variables: `ε = 0.1` for `ucb-cvs`, and `unknown-cost` as paper 001 states it (explore
    /// for 60 % of the budget, `α = 0.1` halved after every `dim` exploitation rounds). What
    /// an experiment file's rule names mean.
    pub fn papers(dim: usize) -> Self {
        let defaults = Self::new(R::from_f64(PAPERS_EPSILON));
        #[cfg(feature = "policy-unknown-cost")]
        let defaults = {
            let mut d = defaults;
            d.unknown_cost.halve_every = Some(u32::try_from(dim).unwrap_or(u32::MAX));
            d
        };
        #[cfg(not(feature = "policy-unknown-cost"))]
        let _ = dim;
        defaults
    }

    /// With `epsilon` for `ucb-cvs` when the name carries none.
    pub fn with_epsilon(mut self, epsilon: R) -> Self {
        self.epsilon = epsilon;
        self
    }

    /// With `maximiser` for the rules over a box (`gp-ucb`, `pbgi*`, `log-ei*`; default: the
    /// inner optimiser's pool, [`Maximiser::Pool`]).
    pub fn with_maximiser(self, maximiser: Maximiser) -> Self {
        RuleDefaults { maximiser, ..self }
    }

    /// With other settings for `unknown-cost`.
    #[cfg(feature = "policy-unknown-cost")]
    pub fn with_unknown_cost(self, unknown_cost: crate::round::UnknownCostConfig<R>) -> Self {
        RuleDefaults {
            unknown_cost,
            ..self
        }
    }
}

/// `ε` of `ucb-cvs` in [`RuleDefaults::papers`] (the desktop runner's default).
pub const PAPERS_EPSILON: f64 = 0.1;

/// What a rule's `parse` gives for a name: `None` for another rule's name, else the rule's
/// parameters `P` or why the name was refused.
pub type Parsed<P> = Option<Result<P, PolicySpecError>>;

/// Why a rule name was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PolicySpecError {
    /// No rule of this name is compiled in (see [`RULES`](super::RULES)).
    UnknownName,
    /// `ucb-cvs:EPS` with an `EPS` that is not a finite number ≥ 0.
    BadEpsilon,
    /// `etc-0`: explore-then-commit needs at least one play per group.
    BadPlays,
    /// `pbgi:LAMBDA` (or `gittins-cvs:LAMBDA`) with a `LAMBDA` that is not a finite number > 0.
    BadLambda,
}

/// A rule's parameter in another precision, each number converted through `f64`: what
/// [`PolicySpec::convert`](super::PolicySpec::convert) does to every parameter. A rule's file
/// implements it for the parameter types it defines.
pub trait Parameter<T: Real> {
    /// The parameter in precision `T`.
    type In;

    /// The same parameter in precision `T`.
    fn convert(self) -> Self::In;
}

/// A number of a rule parameter in precision `T`, through `f64` (what [`Parameter::convert`]
/// does to each).
pub fn in_precision<R: Real, T: Real>(v: R) -> T {
    T::from_f64(v.to_f64())
}

/// [`Parameter`] for parameter types without numbers of the core's precision: the same value.
macro_rules! plain_parameter {
    ($($t:ty),*) => {
        $(
            impl<T: $crate::real::Real> $crate::policy::names::Parameter<T> for $t {
                type In = $t;

                fn convert(self) -> $t {
                    self
                }
            }
        )*
    };
}
// Builds whose rules have no parameter type of their own do not use it.
#[allow(unused_imports)]
pub(crate) use plain_parameter;

plain_parameter!(bool, Maximiser, Selection);
