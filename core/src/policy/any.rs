//! The registry of rules by name ([`PolicySpec`], [`RULES`]) and [`AnyPolicy`], which runs
//! any of the rules compiled in (each behind its cargo feature) and only dispatches: it never
//! decides anything itself.

use super::{Choice, DriverError, Memo, Outcome, Policy, Round};
use crate::problem::Problem;
use crate::real::Real;

#[cfg(feature = "policy-ei")]
use super::ei_psq::EiPsq;
#[cfg(feature = "policy-explore-then-commit")]
use super::explore_then_commit::{ExploreThenCommit, PlaysPerGroup};
#[cfg(feature = "policy-gittins-cvs")]
use super::gittins_cvs::GittinsCvs;
#[cfg(feature = "policy-gp-ucb")]
use super::gp_ucb::{BetaSchedule, GpUcb};
#[cfg(feature = "policy-kg")]
use super::knowledge_gradient::KnowledgeGradientSearch;
#[cfg(feature = "policy-log-ei")]
use super::log_ei::{CostUse, LogEi};
#[cfg(feature = "policy-mes")]
use super::mes::{Gain, MaxValueEntropySearch};
#[cfg(feature = "policy-msei")]
use super::multi_step::MultiStepLookahead;
#[cfg(feature = "policy-pbgi")]
use super::pbgi::{Lambda, PandoraIndex};
#[cfg(feature = "policy-per-unit-cost")]
use super::per_unit_cost::UcbPerUnitCost;
#[cfg(feature = "policy-random-search")]
use super::random_search::RandomSearch;
#[cfg(any(feature = "policy-thompson", feature = "policy-ei"))]
use super::select::Selection;
#[cfg(feature = "policy-textbook")]
use super::textbook::{Form, TextbookRule};
#[cfg(feature = "policy-thompson")]
use super::thompson_psq::ThompsonPsq;
#[cfg(feature = "policy-ucb-cvs")]
use super::ucb_cvs::{EpsilonSchedule, UcbCvs};
#[cfg(feature = "policy-unknown-cost")]
use super::unknown_cost::{UnknownCost, UnknownCostConfig};
#[cfg(any(
    feature = "policy-gp-ucb",
    feature = "policy-kg",
    feature = "policy-log-ei",
    feature = "policy-mes",
    feature = "policy-msei",
    feature = "policy-pbgi",
    feature = "policy-textbook"
))]
use super::Maximiser;

/// A rule's name in the registry, with what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleName {
    /// The name (`ucb-cvs:EPS` stands for any `ucb-cvs:` followed by a number).
    pub name: &'static str,
    /// One line on what it is.
    pub summary: &'static str,
}

/// Every rule name [`PolicySpec::parse`] knows in this build, in the order papers present them.
pub const RULES: &[RuleName] = &[
    #[cfg(feature = "policy-ucb-cvs")]
    RuleName {
        name: "ucb-psq",
        summary: "expected UCB, best over all sets (paper 000's UCB-PSQ)",
    },
    #[cfg(feature = "policy-ucb-cvs")]
    RuleName {
        name: "ucb-cvs",
        summary: "UCB-CVS with the default epsilon (paper 000)",
    },
    #[cfg(feature = "policy-ucb-cvs")]
    RuleName {
        name: "ucb-cvs:EPS",
        summary: "UCB-CVS with epsilon EPS >= 0 (paper 000)",
    },
    #[cfg(feature = "policy-explore-then-commit")]
    RuleName {
        name: "etc-50",
        summary: "explore-then-commit, 50 plays per cost group (paper 000)",
    },
    #[cfg(feature = "policy-explore-then-commit")]
    RuleName {
        name: "etc-100",
        summary: "explore-then-commit, 100 plays per cost group (paper 000)",
    },
    #[cfg(feature = "policy-explore-then-commit")]
    RuleName {
        name: "etc-N",
        summary: "explore-then-commit, N > 0 plays per cost group",
    },
    #[cfg(feature = "policy-explore-then-commit")]
    RuleName {
        name: "etc-ada",
        summary: "explore-then-commit, floor(4/c) plays per group of cost c (paper 000)",
    },
    #[cfg(feature = "policy-unknown-cost")]
    RuleName {
        name: "unknown-cost",
        summary: "unknown random costs, no-regret costs (paper 001)",
    },
    #[cfg(feature = "policy-unknown-cost")]
    RuleName {
        name: "unknown-cost-code",
        summary: "paper 001's rule as its authors' code exploits (no alpha, UCB 1.96, LCB 0.3)",
    },
    #[cfg(feature = "policy-thompson")]
    RuleName {
        name: "ts-psq",
        summary: "Thompson sampling over partial queries (paper 000's baseline)",
    },
    #[cfg(feature = "policy-ei")]
    RuleName {
        name: "ei-psq",
        summary: "expected improvement over partial queries (paper 000's baseline)",
    },
    #[cfg(feature = "policy-per-unit-cost")]
    RuleName {
        name: "ucb-per-cost",
        summary: "expected UCB per unit cost (paper 000's appendix B)",
    },
    #[cfg(feature = "policy-thompson")]
    RuleName {
        name: "ts-per-cost",
        summary: "Thompson sampling per unit cost (paper 000's appendix B)",
    },
    #[cfg(feature = "policy-ei")]
    RuleName {
        name: "ei-per-cost",
        summary: "expected improvement per unit cost (paper 000's appendix B)",
    },
    #[cfg(feature = "policy-random-search")]
    RuleName {
        name: "random-search",
        summary: "a uniformly random affordable set at uniformly random values",
    },
    #[cfg(feature = "policy-gp-ucb")]
    RuleName {
        name: "gp-ucb",
        summary: "GP-UCB over the box, Srinivas' beta scaled by 1/5 (paper 002's UCB)",
    },
    #[cfg(feature = "policy-pbgi")]
    RuleName {
        name: "pbgi",
        summary: "Pandora's Box Gittins index, lambda = 1e-4 (paper 002's budgeted PBGI)",
    },
    #[cfg(feature = "policy-pbgi")]
    RuleName {
        name: "pbgi:LAMBDA",
        summary: "Pandora's Box Gittins index with a fixed LAMBDA > 0 (paper 002)",
    },
    #[cfg(feature = "policy-pbgi")]
    RuleName {
        name: "pbgi-d",
        summary: "PBGI-D: lambda from 0.1, halved when the stopping rule fires (paper 002)",
    },
    #[cfg(feature = "policy-pbgi")]
    RuleName {
        name: "pbgi-d:LAMBDA:BETA",
        summary: "PBGI-D from LAMBDA > 0, divided by BETA > 1 when the stopping rule fires",
    },
    #[cfg(feature = "policy-pbgi")]
    RuleName {
        name: "pbgi-stop:LAMBDA",
        summary: "cost-per-sample PBGI: fixed LAMBDA, stops by the Pandora rule (paper 002)",
    },
    #[cfg(feature = "policy-gittins-cvs")]
    RuleName {
        name: "gittins-cvs",
        summary: "each control set's Gittins index over the bank, PBGI-D's lambda (ours, issue 20)",
    },
    #[cfg(feature = "policy-gittins-cvs")]
    RuleName {
        name: "gittins-cvs:LAMBDA",
        summary: "the Gittins-index rule for control sets with a fixed LAMBDA > 0 (ours)",
    },
    #[cfg(feature = "policy-log-ei")]
    RuleName {
        name: "log-ei",
        summary: "LogEI over the box (paper 002's EI baseline)",
    },
    #[cfg(feature = "policy-log-ei")]
    RuleName {
        name: "log-eipc",
        summary: "LogEI per unit cost (paper 002's EIPC baseline)",
    },
    #[cfg(feature = "policy-log-ei")]
    RuleName {
        name: "log-eicc",
        summary: "LogEI with cost cooling (paper 002's EICC baseline)",
    },
    #[cfg(feature = "policy-mes")]
    RuleName {
        name: "mes",
        summary: "max-value entropy search over the box, Gumbel samples (paper 002's MES)",
    },
    #[cfg(feature = "policy-mes")]
    RuleName {
        name: "mfmes",
        summary: "MES per unit cost (paper 002's MFMES on one fidelity)",
    },
    #[cfg(feature = "policy-kg")]
    RuleName {
        name: "kg",
        summary: "one-shot knowledge gradient over the box, 64 fantasies (paper 002's KG)",
    },
    #[cfg(feature = "policy-msei")]
    RuleName {
        name: "msei",
        summary: "four-stage lookahead EI over the box, one-shot tree (paper 002's MSEI)",
    },
    #[cfg(feature = "policy-msei")]
    RuleName {
        name: "bmsei",
        summary: "MSEI within a lookahead budget, known costs (paper 002's BMSEI)",
    },
    #[cfg(feature = "policy-textbook")]
    RuleName {
        name: "ei-unstable",
        summary: "EI from the textbook formula (paper 002's App. D.1 ablation, Unst. EI)",
    },
    #[cfg(feature = "policy-textbook")]
    RuleName {
        name: "log-ei-unstable",
        summary: "ln(EI + 1e-6) of the textbook EI (paper 002's ablation, Log(Unst. EI))",
    },
    #[cfg(feature = "policy-textbook")]
    RuleName {
        name: "exp-log-ei",
        summary: "exp(LogEI): EI to full precision, not log-scaled (paper 002's ablation)",
    },
    #[cfg(feature = "policy-textbook")]
    RuleName {
        name: "pbgi-unstable",
        summary: "PBGI by the paper code's bisection of the textbook EI (its PBGI; ours is S-PBGI)",
    },
];

/// Parameters that rule names leave open, supplied by the caller (an experiment's settings).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RuleDefaults<R> {
    epsilon: R,
    #[cfg(any(
        feature = "policy-gp-ucb",
        feature = "policy-kg",
        feature = "policy-log-ei",
        feature = "policy-mes",
        feature = "policy-msei",
        feature = "policy-pbgi",
        feature = "policy-textbook"
    ))]
    maximiser: Maximiser,
    #[cfg(feature = "policy-unknown-cost")]
    unknown_cost: UnknownCostConfig<R>,
}

impl<R: Real> RuleDefaults<R> {
    /// `ε` of `ucb-cvs` when the name carries none; `unknown-cost` with paper 001's settings
    /// (explore for 60 % of the budget, `α = 0.1`, never halved).
    pub fn new(epsilon: R) -> Self {
        RuleDefaults {
            epsilon,
            #[cfg(any(
                feature = "policy-gp-ucb",
                feature = "policy-kg",
                feature = "policy-log-ei",
                feature = "policy-mes",
                feature = "policy-msei",
                feature = "policy-pbgi",
                feature = "policy-textbook"
            ))]
            maximiser: Maximiser::Pool,
            #[cfg(feature = "policy-unknown-cost")]
            unknown_cost: UnknownCostConfig {
                exploration: super::unknown_cost::Exploration::BudgetFraction(R::from_f64(
                    crate::round::PAPER_001_EXPLORATION,
                )),
                alpha: R::from_f64(crate::round::PAPER_001_ALPHA),
                halve_every: None,
                exploitation: super::unknown_cost::Exploitation::Paper,
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
    #[cfg(any(
        feature = "policy-gp-ucb",
        feature = "policy-kg",
        feature = "policy-log-ei",
        feature = "policy-mes",
        feature = "policy-msei",
        feature = "policy-pbgi",
        feature = "policy-textbook"
    ))]
    pub fn with_maximiser(self, maximiser: Maximiser) -> Self {
        RuleDefaults { maximiser, ..self }
    }

    /// With other settings for `unknown-cost`.
    #[cfg(feature = "policy-unknown-cost")]
    pub fn with_unknown_cost(self, unknown_cost: UnknownCostConfig<R>) -> Self {
        RuleDefaults {
            unknown_cost,
            ..self
        }
    }
}

/// `ε` of `ucb-cvs` in [`RuleDefaults::papers`] (the desktop runner's default).
pub const PAPERS_EPSILON: f64 = 0.1;

/// Why a rule name was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PolicySpecError {
    /// No rule of this name is compiled in (see [`RULES`]).
    UnknownName,
    /// `ucb-cvs:EPS` with an `EPS` that is not a finite number ≥ 0.
    BadEpsilon,
    /// `etc-0`: explore-then-commit needs at least one play per group.
    BadPlays,
    /// `pbgi:LAMBDA` (or `gittins-cvs:LAMBDA`) with a `LAMBDA` that is not a finite number > 0.
    BadLambda,
}

impl core::fmt::Display for PolicySpecError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::UnknownName => {
                // The names a user may write, so that the error says what is allowed.
                f.write_str("no rule of this name is compiled in; the rules are")?;
                for (i, rule) in RULES.iter().enumerate() {
                    f.write_str(if i == 0 { " " } else { ", " })?;
                    f.write_str(rule.name)?;
                }
                Ok(())
            }
            Self::BadEpsilon => {
                f.write_str("the epsilon of ucb-cvs:EPS is not a finite number >= 0")
            }
            Self::BadPlays => f.write_str("explore-then-commit needs at least one play per group"),
            Self::BadLambda => f.write_str(
                "the lambda of pbgi:LAMBDA or gittins-cvs:LAMBDA is not a finite number > 0, or \
                 pbgi-d:LAMBDA:BETA lacks LAMBDA > 0 and BETA > 1",
            ),
        }
    }
}

impl core::error::Error for PolicySpecError {}

/// A rule and its parameters: what a configuration file, a command line or a firmware build
/// names, turned into a policy by [`build`](Self::build).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PolicySpec<R> {
    /// UCB-CVS with an ε-schedule; `EpsilonSchedule::Constant(0)` is UCB-PSQ.
    #[cfg(feature = "policy-ucb-cvs")]
    UcbCvs(EpsilonSchedule<R>),
    /// Explore-then-commit over cost groups.
    #[cfg(feature = "policy-explore-then-commit")]
    ExploreThenCommit(PlaysPerGroup),
    /// Expected UCB per unit cost.
    #[cfg(feature = "policy-per-unit-cost")]
    UcbPerUnitCost,
    /// Unknown random costs.
    #[cfg(feature = "policy-unknown-cost")]
    UnknownCost(UnknownCostConfig<R>),
    /// Thompson sampling over partial queries.
    #[cfg(feature = "policy-thompson")]
    Thompson(Selection),
    /// Expected improvement over partial queries.
    #[cfg(feature = "policy-ei")]
    Ei(Selection),
    /// Uniform random search.
    #[cfg(feature = "policy-random-search")]
    RandomSearch,
    /// GP-UCB over the box.
    #[cfg(feature = "policy-gp-ucb")]
    GpUcb(BetaSchedule<R>, Maximiser),
    /// A Pandora's Box Gittins index rule: `λ`, whether to stop by the Pandora rule.
    #[cfg(feature = "policy-pbgi")]
    Pandora(Lambda<R>, bool, Maximiser),
    /// A LogEI rule.
    #[cfg(feature = "policy-log-ei")]
    LogEi(CostUse, Maximiser),
    /// The Gittins-index rule for control sets, with its `λ` schedule.
    #[cfg(feature = "policy-gittins-cvs")]
    GittinsCvs(Lambda<R>),
    /// An entropy rule: what the gain is weighed against.
    #[cfg(feature = "policy-mes")]
    Mes(Gain, Maximiser),
    /// The one-shot knowledge gradient, climbed by the maximiser's restarts.
    #[cfg(feature = "policy-kg")]
    Kg(Maximiser),
    /// Multi-step lookahead EI (budgeted or not), climbed by the maximiser's restarts.
    #[cfg(feature = "policy-msei")]
    Msei(bool, Maximiser),
    /// One of paper 002's App. D.1 ablation rules.
    #[cfg(feature = "policy-textbook")]
    Textbook(Form, Maximiser),
    #[doc(hidden)]
    _Never(core::convert::Infallible, core::marker::PhantomData<R>),
}

impl<R: Real> PolicySpec<R> {
    /// The rule called `name` (see [`RULES`]), with `defaults` for what the name leaves open.
    pub fn parse(name: &str, defaults: &RuleDefaults<R>) -> Result<Self, PolicySpecError> {
        let _ = defaults;
        Ok(match name {
            #[cfg(feature = "policy-ucb-cvs")]
            "ucb-psq" => PolicySpec::UcbCvs(EpsilonSchedule::Constant(R::ZERO)),
            #[cfg(feature = "policy-ucb-cvs")]
            "ucb-cvs" => PolicySpec::UcbCvs(EpsilonSchedule::Constant(defaults.epsilon)),
            #[cfg(feature = "policy-explore-then-commit")]
            "etc-50" => PolicySpec::ExploreThenCommit(PlaysPerGroup::Fixed(50)),
            #[cfg(feature = "policy-explore-then-commit")]
            "etc-100" => PolicySpec::ExploreThenCommit(PlaysPerGroup::Fixed(100)),
            #[cfg(feature = "policy-explore-then-commit")]
            "etc-ada" => PolicySpec::ExploreThenCommit(PlaysPerGroup::Adaptive),
            #[cfg(feature = "policy-unknown-cost")]
            "unknown-cost" => PolicySpec::UnknownCost(defaults.unknown_cost),
            #[cfg(feature = "policy-unknown-cost")]
            "unknown-cost-code" => PolicySpec::UnknownCost(UnknownCostConfig {
                exploitation: super::unknown_cost::Exploitation::AuthorsCode {
                    ucb_beta: R::from_f64(1.96),
                    lcb_beta: R::from_f64(0.3),
                },
                ..defaults.unknown_cost
            }),
            #[cfg(feature = "policy-thompson")]
            "ts-psq" => PolicySpec::Thompson(Selection::Argmax),
            #[cfg(feature = "policy-thompson")]
            "ts-per-cost" => PolicySpec::Thompson(Selection::PerUnitCost),
            #[cfg(feature = "policy-ei")]
            "ei-psq" => PolicySpec::Ei(Selection::Argmax),
            #[cfg(feature = "policy-ei")]
            "ei-per-cost" => PolicySpec::Ei(Selection::PerUnitCost),
            #[cfg(feature = "policy-per-unit-cost")]
            "ucb-per-cost" => PolicySpec::UcbPerUnitCost,
            #[cfg(feature = "policy-random-search")]
            "random-search" => PolicySpec::RandomSearch,
            #[cfg(feature = "policy-gp-ucb")]
            "gp-ucb" => PolicySpec::GpUcb(BetaSchedule::paper_002(), defaults.maximiser),
            #[cfg(feature = "policy-pbgi")]
            "pbgi" => PolicySpec::Pandora(Lambda::paper_002_fixed(), false, defaults.maximiser),
            #[cfg(feature = "policy-pbgi")]
            "pbgi-d" => {
                PolicySpec::Pandora(Lambda::paper_002_decaying(), false, defaults.maximiser)
            }
            #[cfg(feature = "policy-log-ei")]
            "log-ei" => PolicySpec::LogEi(CostUse::Ignore, defaults.maximiser),
            #[cfg(feature = "policy-log-ei")]
            "log-eipc" => PolicySpec::LogEi(CostUse::PerUnit, defaults.maximiser),
            #[cfg(feature = "policy-log-ei")]
            "log-eicc" => PolicySpec::LogEi(CostUse::Cooling, defaults.maximiser),
            #[cfg(feature = "policy-gittins-cvs")]
            "gittins-cvs" => PolicySpec::GittinsCvs(Lambda::paper_002_decaying()),
            #[cfg(feature = "policy-mes")]
            "mes" => PolicySpec::Mes(Gain::Total, defaults.maximiser),
            #[cfg(feature = "policy-mes")]
            "mfmes" => PolicySpec::Mes(Gain::PerUnitCost, defaults.maximiser),
            #[cfg(feature = "policy-kg")]
            "kg" => PolicySpec::Kg(defaults.maximiser),
            #[cfg(feature = "policy-msei")]
            "msei" => PolicySpec::Msei(false, defaults.maximiser),
            #[cfg(feature = "policy-msei")]
            "bmsei" => PolicySpec::Msei(true, defaults.maximiser),
            #[cfg(feature = "policy-textbook")]
            "ei-unstable" => PolicySpec::Textbook(Form::Ei, defaults.maximiser),
            #[cfg(feature = "policy-textbook")]
            "log-ei-unstable" => PolicySpec::Textbook(Form::LogOfEi, defaults.maximiser),
            #[cfg(feature = "policy-textbook")]
            "exp-log-ei" => PolicySpec::Textbook(Form::ExpOfLogEi, defaults.maximiser),
            #[cfg(feature = "policy-textbook")]
            "pbgi-unstable" => PolicySpec::Textbook(Form::BisectedGittins, defaults.maximiser),
            other => {
                #[cfg(feature = "policy-pbgi")]
                for (prefix, stop) in [("pbgi:", false), ("pbgi-stop:", true)] {
                    if let Some(l) = other.strip_prefix(prefix) {
                        let lambda: f64 = l.parse().map_err(|_| PolicySpecError::BadLambda)?;
                        let lambda = Lambda::Fixed(R::from_f64(lambda));
                        if !lambda.is_valid() {
                            return Err(PolicySpecError::BadLambda);
                        }
                        return Ok(PolicySpec::Pandora(lambda, stop, defaults.maximiser));
                    }
                }
                #[cfg(feature = "policy-pbgi")]
                if let Some(rest) = other.strip_prefix("pbgi-d:") {
                    let (initial, factor) =
                        rest.split_once(':').ok_or(PolicySpecError::BadLambda)?;
                    let number = |t: &str| t.parse::<f64>().map_err(|_| PolicySpecError::BadLambda);
                    let lambda = Lambda::Decaying {
                        initial: R::from_f64(number(initial)?),
                        factor: R::from_f64(number(factor)?),
                    };
                    if !lambda.is_valid() {
                        return Err(PolicySpecError::BadLambda);
                    }
                    return Ok(PolicySpec::Pandora(lambda, false, defaults.maximiser));
                }
                #[cfg(feature = "policy-gittins-cvs")]
                if let Some(l) = other.strip_prefix("gittins-cvs:") {
                    let lambda: f64 = l.parse().map_err(|_| PolicySpecError::BadLambda)?;
                    let lambda = Lambda::Fixed(R::from_f64(lambda));
                    if !lambda.is_valid() {
                        return Err(PolicySpecError::BadLambda);
                    }
                    return Ok(PolicySpec::GittinsCvs(lambda));
                }
                #[cfg(feature = "policy-explore-then-commit")]
                if let Some(n) = other
                    .strip_prefix("etc-")
                    .and_then(|n| n.parse::<u32>().ok())
                {
                    return match n {
                        0 => Err(PolicySpecError::BadPlays),
                        n => Ok(PolicySpec::ExploreThenCommit(PlaysPerGroup::Fixed(n))),
                    };
                }
                #[cfg(feature = "policy-ucb-cvs")]
                if let Some(e) = other.strip_prefix("ucb-cvs:") {
                    let eps: f64 = e.parse().map_err(|_| PolicySpecError::BadEpsilon)?;
                    if !(eps.is_finite() && eps >= 0.0) {
                        return Err(PolicySpecError::BadEpsilon);
                    }
                    return Ok(PolicySpec::UcbCvs(EpsilonSchedule::Constant(R::from_f64(
                        eps,
                    ))));
                }
                let _ = other;
                return Err(PolicySpecError::UnknownName);
            }
        })
    }

    /// The same rule in another precision (each parameter converted through `f64`).
    pub fn convert<T: Real>(&self) -> PolicySpec<T> {
        #[cfg(any(
            feature = "policy-ucb-cvs",
            feature = "policy-unknown-cost",
            feature = "policy-gp-ucb",
            feature = "policy-pbgi"
        ))]
        let c = |v: R| T::from_f64(v.to_f64());
        match *self {
            #[cfg(feature = "policy-ucb-cvs")]
            PolicySpec::UcbCvs(s) => PolicySpec::UcbCvs(match s {
                EpsilonSchedule::Constant(e) => EpsilonSchedule::Constant(c(e)),
                EpsilonSchedule::Linear { start, cutoff } => EpsilonSchedule::Linear {
                    start: c(start),
                    cutoff,
                },
            }),
            #[cfg(feature = "policy-explore-then-commit")]
            PolicySpec::ExploreThenCommit(p) => PolicySpec::ExploreThenCommit(p),
            #[cfg(feature = "policy-per-unit-cost")]
            PolicySpec::UcbPerUnitCost => PolicySpec::UcbPerUnitCost,
            #[cfg(feature = "policy-unknown-cost")]
            PolicySpec::UnknownCost(u) => {
                use super::unknown_cost::{Exploitation, Exploration};
                PolicySpec::UnknownCost(UnknownCostConfig {
                    exploration: match u.exploration {
                        Exploration::Rounds(t) => Exploration::Rounds(t),
                        Exploration::BudgetFraction(f) => Exploration::BudgetFraction(c(f)),
                    },
                    alpha: c(u.alpha),
                    halve_every: u.halve_every,
                    exploitation: match u.exploitation {
                        Exploitation::Paper => Exploitation::Paper,
                        Exploitation::AuthorsCode { ucb_beta, lcb_beta } => {
                            Exploitation::AuthorsCode {
                                ucb_beta: c(ucb_beta),
                                lcb_beta: c(lcb_beta),
                            }
                        }
                    },
                })
            }
            #[cfg(feature = "policy-thompson")]
            PolicySpec::Thompson(s) => PolicySpec::Thompson(s),
            #[cfg(feature = "policy-ei")]
            PolicySpec::Ei(s) => PolicySpec::Ei(s),
            #[cfg(feature = "policy-random-search")]
            PolicySpec::RandomSearch => PolicySpec::RandomSearch,
            #[cfg(feature = "policy-gp-ucb")]
            PolicySpec::GpUcb(b, m) => PolicySpec::GpUcb(
                match b {
                    BetaSchedule::Constant(v) => BetaSchedule::Constant(c(v)),
                    BetaSchedule::Srinivas { delta, scale } => BetaSchedule::Srinivas {
                        delta: c(delta),
                        scale: c(scale),
                    },
                },
                m,
            ),
            #[cfg(feature = "policy-pbgi")]
            PolicySpec::Pandora(l, stop, m) => PolicySpec::Pandora(
                match l {
                    Lambda::Fixed(v) => Lambda::Fixed(c(v)),
                    Lambda::Decaying { initial, factor } => Lambda::Decaying {
                        initial: c(initial),
                        factor: c(factor),
                    },
                },
                stop,
                m,
            ),
            #[cfg(feature = "policy-log-ei")]
            PolicySpec::LogEi(u, m) => PolicySpec::LogEi(u, m),
            #[cfg(feature = "policy-gittins-cvs")]
            PolicySpec::GittinsCvs(l) => PolicySpec::GittinsCvs(match l {
                Lambda::Fixed(v) => Lambda::Fixed(c(v)),
                Lambda::Decaying { initial, factor } => Lambda::Decaying {
                    initial: c(initial),
                    factor: c(factor),
                },
            }),
            #[cfg(feature = "policy-mes")]
            PolicySpec::Mes(g, m) => PolicySpec::Mes(g, m),
            #[cfg(feature = "policy-kg")]
            PolicySpec::Kg(m) => PolicySpec::Kg(m),
            #[cfg(feature = "policy-msei")]
            PolicySpec::Msei(b, m) => PolicySpec::Msei(b, m),
            #[cfg(feature = "policy-textbook")]
            PolicySpec::Textbook(f, m) => PolicySpec::Textbook(f, m),
            PolicySpec::_Never(never, _) => match never {},
        }
    }

    /// True for the rules that cannot decide without caller memory of their own
    /// ([`Controller::workspace_len`](crate::driver::Controller::workspace_len)): the entropy
    /// rules' candidate set. The others only decide faster with it.
    pub fn needs_workspace(&self) -> bool {
        match self {
            #[cfg(feature = "policy-mes")]
            PolicySpec::Mes(..) => true,
            #[cfg(feature = "policy-kg")]
            PolicySpec::Kg(..) => true,
            #[cfg(feature = "policy-msei")]
            PolicySpec::Msei(..) => true,
            _ => false,
        }
    }

    /// True for the rules that learn costs from what is paid (the problem then has no known
    /// costs).
    pub fn learns_costs(&self) -> bool {
        match self {
            #[cfg(feature = "policy-unknown-cost")]
            PolicySpec::UnknownCost(_) => true,
            _ => false,
        }
    }

    /// True for the rules over a box that price each point by its cost (PBGI and PBGI-D,
    /// LogEIPC, LogEICC, MFMES, the bisected index): where the costs are learned they read a
    /// model of ln(cost) ([`Controller::with_cost_model`](crate::driver::Controller::with_cost_model)).
    pub fn prices_points(&self) -> bool {
        match self {
            #[cfg(feature = "policy-pbgi")]
            PolicySpec::Pandora(..) => true,
            #[cfg(feature = "policy-log-ei")]
            PolicySpec::LogEi(cost, _) => *cost != CostUse::Ignore,
            #[cfg(feature = "policy-mes")]
            PolicySpec::Mes(gain, _) => *gain == Gain::PerUnitCost,
            #[cfg(feature = "policy-textbook")]
            PolicySpec::Textbook(form, _) => *form == Form::BisectedGittins,
            _ => false,
        }
    }

    /// The rule, for problems of `D` variables and `M` control sets; `F` random Fourier
    /// features for the sample-path rules and a window of `H` queries for EI.
    pub fn build<const D: usize, const M: usize, const F: usize, const H: usize>(
        &self,
    ) -> AnyPolicy<R, D, M, F, H> {
        match *self {
            #[cfg(feature = "policy-ucb-cvs")]
            PolicySpec::UcbCvs(s) => AnyPolicy::UcbCvs(UcbCvs::new(s)),
            #[cfg(feature = "policy-explore-then-commit")]
            PolicySpec::ExploreThenCommit(p) => {
                AnyPolicy::ExploreThenCommit(ExploreThenCommit::new(p))
            }
            #[cfg(feature = "policy-per-unit-cost")]
            PolicySpec::UcbPerUnitCost => AnyPolicy::UcbPerUnitCost(UcbPerUnitCost),
            #[cfg(feature = "policy-unknown-cost")]
            PolicySpec::UnknownCost(c) => AnyPolicy::UnknownCost(UnknownCost::new(c)),
            #[cfg(feature = "policy-thompson")]
            PolicySpec::Thompson(s) => AnyPolicy::Thompson(ThompsonPsq::new(s)),
            #[cfg(feature = "policy-ei")]
            PolicySpec::Ei(s) => AnyPolicy::Ei(EiPsq::new(s)),
            #[cfg(feature = "policy-random-search")]
            PolicySpec::RandomSearch => AnyPolicy::RandomSearch(RandomSearch),
            #[cfg(feature = "policy-gp-ucb")]
            PolicySpec::GpUcb(b, m) => AnyPolicy::GpUcb(GpUcb::new(b, m)),
            #[cfg(feature = "policy-pbgi")]
            PolicySpec::Pandora(l, stop, m) => AnyPolicy::Pandora(PandoraIndex::new(l, stop, m)),
            #[cfg(feature = "policy-log-ei")]
            PolicySpec::LogEi(u, m) => AnyPolicy::LogEi(LogEi::new(u, m)),
            #[cfg(feature = "policy-gittins-cvs")]
            PolicySpec::GittinsCvs(l) => AnyPolicy::GittinsCvs(GittinsCvs::new(l)),
            #[cfg(feature = "policy-mes")]
            PolicySpec::Mes(g, m) => AnyPolicy::Mes(MaxValueEntropySearch::new(g, m)),
            #[cfg(feature = "policy-kg")]
            PolicySpec::Kg(m) => AnyPolicy::Kg(KnowledgeGradientSearch::new(m)),
            #[cfg(feature = "policy-msei")]
            PolicySpec::Msei(b, m) => AnyPolicy::Msei(MultiStepLookahead::new(b, m)),
            #[cfg(feature = "policy-textbook")]
            PolicySpec::Textbook(f, m) => AnyPolicy::Textbook(TextbookRule::new(f, m)),
            PolicySpec::_Never(never, _) => match never {},
        }
    }
}

/// Any rule compiled in (see the module documentation).
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)] // a controller holds exactly one, for its whole life
pub enum AnyPolicy<R, const D: usize, const M: usize, const F: usize, const H: usize> {
    /// UCB-CVS or UCB-PSQ.
    #[cfg(feature = "policy-ucb-cvs")]
    UcbCvs(UcbCvs<R>),
    /// Explore-then-commit.
    #[cfg(feature = "policy-explore-then-commit")]
    ExploreThenCommit(ExploreThenCommit<R, M>),
    /// Expected UCB per unit cost.
    #[cfg(feature = "policy-per-unit-cost")]
    UcbPerUnitCost(UcbPerUnitCost),
    /// Unknown random costs.
    #[cfg(feature = "policy-unknown-cost")]
    UnknownCost(UnknownCost<R, M>),
    /// Thompson sampling.
    #[cfg(feature = "policy-thompson")]
    Thompson(ThompsonPsq<F>),
    /// Expected improvement.
    #[cfg(feature = "policy-ei")]
    Ei(EiPsq<R, D, F, H>),
    /// Uniform random search.
    #[cfg(feature = "policy-random-search")]
    RandomSearch(RandomSearch),
    /// GP-UCB over the box.
    #[cfg(feature = "policy-gp-ucb")]
    GpUcb(GpUcb<R>),
    /// A Pandora's Box Gittins index rule.
    #[cfg(feature = "policy-pbgi")]
    Pandora(PandoraIndex<R>),
    /// A LogEI rule.
    #[cfg(feature = "policy-log-ei")]
    LogEi(LogEi),
    /// The Gittins-index rule for control sets.
    #[cfg(feature = "policy-gittins-cvs")]
    GittinsCvs(GittinsCvs<R>),
    /// An entropy rule (MES, MFMES).
    #[cfg(feature = "policy-mes")]
    Mes(MaxValueEntropySearch),
    /// The one-shot knowledge gradient.
    #[cfg(feature = "policy-kg")]
    Kg(KnowledgeGradientSearch),
    /// Multi-step lookahead EI.
    #[cfg(feature = "policy-msei")]
    Msei(MultiStepLookahead),
    /// One of paper 002's App. D.1 ablation rules.
    #[cfg(feature = "policy-textbook")]
    Textbook(TextbookRule),
    #[doc(hidden)]
    _Never(core::convert::Infallible, core::marker::PhantomData<R>),
}

/// The saved state of an [`AnyPolicy`]: its rule's record.
#[cfg(feature = "serde")]
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(bound(
    serialize = "R: serde::Serialize",
    deserialize = "R: serde::Deserialize<'de> + Copy + Default"
))]
pub enum AnyRecord<R: Copy + Default, const D: usize, const M: usize, const H: usize> {
    /// A rule without state.
    Stateless,
    /// Explore-then-commit's counters.
    #[cfg(feature = "policy-explore-then-commit")]
    ExploreThenCommit(super::explore_then_commit::EtcRecord<R, M>),
    /// The unknown-cost rule's statistics.
    #[cfg(feature = "policy-unknown-cost")]
    UnknownCost(super::unknown_cost::UnknownCostRecord<R, M>),
    /// EI's query history.
    #[cfg(feature = "policy-ei")]
    Ei(super::ei_psq::EiRecord<R, D, H>),
    /// A Gittins index rule's `λ` and pending decision.
    #[cfg(feature = "policy-pbgi")]
    Pandora(super::pbgi::PandoraRecord<R>),
    /// The Gittins-index rule for control sets' `λ` and pending decision (last, so that the
    /// records before it keep their bytes).
    #[cfg(feature = "policy-gittins-cvs")]
    GittinsCvs(super::gittins_cvs::GittinsCvsRecord<R>),
}

/// `$body` with `$p` bound to the running rule, whichever it is.
macro_rules! dispatch {
    ($self:expr, $p:ident => $body:expr) => {
        match $self {
            #[cfg(feature = "policy-ucb-cvs")]
            AnyPolicy::UcbCvs($p) => $body,
            #[cfg(feature = "policy-explore-then-commit")]
            AnyPolicy::ExploreThenCommit($p) => $body,
            #[cfg(feature = "policy-per-unit-cost")]
            AnyPolicy::UcbPerUnitCost($p) => $body,
            #[cfg(feature = "policy-unknown-cost")]
            AnyPolicy::UnknownCost($p) => $body,
            #[cfg(feature = "policy-thompson")]
            AnyPolicy::Thompson($p) => $body,
            #[cfg(feature = "policy-ei")]
            AnyPolicy::Ei($p) => $body,
            #[cfg(feature = "policy-random-search")]
            AnyPolicy::RandomSearch($p) => $body,
            #[cfg(feature = "policy-gp-ucb")]
            AnyPolicy::GpUcb($p) => $body,
            #[cfg(feature = "policy-pbgi")]
            AnyPolicy::Pandora($p) => $body,
            #[cfg(feature = "policy-log-ei")]
            AnyPolicy::LogEi($p) => $body,
            #[cfg(feature = "policy-gittins-cvs")]
            AnyPolicy::GittinsCvs($p) => $body,
            #[cfg(feature = "policy-mes")]
            AnyPolicy::Mes($p) => $body,
            #[cfg(feature = "policy-kg")]
            AnyPolicy::Kg($p) => $body,
            #[cfg(feature = "policy-msei")]
            AnyPolicy::Msei($p) => $body,
            #[cfg(feature = "policy-textbook")]
            AnyPolicy::Textbook($p) => $body,
            AnyPolicy::_Never(never, _) => match *never {},
        }
    };
}

impl<R: Real, const D: usize, const M: usize, const F: usize, const H: usize> Policy<R, D, M>
    for AnyPolicy<R, D, M, F, H>
{
    #[cfg(feature = "serde")]
    type Record = AnyRecord<R, D, M, H>;

    fn start(&mut self, problem: &Problem<R, D, M>) -> Result<(), DriverError> {
        dispatch!(self, p => Policy::<R, D, M>::start(p, problem))
    }

    fn workspace_len(&self, problem: &Problem<R, D, M>, capacity: usize, bank: usize) -> usize {
        dispatch!(self, p => Policy::<R, D, M>::workspace_len(p, problem, capacity, bank))
    }

    fn decide<const N: usize, S, B>(
        &mut self,
        round: &mut Round<'_, R, N, D, M, S, B>,
    ) -> Result<Choice<R, D>, DriverError>
    where
        S: AsRef<[R]> + AsMut<[R]>,
        B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
    {
        dispatch!(self, p => p.decide(round))
    }

    fn record(&mut self, outcome: &Outcome<'_, R, D, M>) {
        dispatch!(self, p => Policy::<R, D, M>::record(p, outcome))
    }

    fn memo(&self) -> Memo<R> {
        dispatch!(self, p => Policy::<R, D, M>::memo(p))
    }

    fn check_memo(&self, memo: &Memo<R>) -> Result<(), DriverError> {
        dispatch!(self, p => Policy::<R, D, M>::check_memo(p, memo))
    }

    fn apply_memo(&mut self, memo: &Memo<R>) {
        dispatch!(self, p => Policy::<R, D, M>::apply_memo(p, memo))
    }

    #[cfg(feature = "serde")]
    fn save(&self) -> Self::Record {
        match self {
            #[cfg(feature = "policy-explore-then-commit")]
            AnyPolicy::ExploreThenCommit(p) => {
                AnyRecord::ExploreThenCommit(Policy::<R, D, M>::save(p))
            }
            #[cfg(feature = "policy-unknown-cost")]
            AnyPolicy::UnknownCost(p) => AnyRecord::UnknownCost(Policy::<R, D, M>::save(p)),
            #[cfg(feature = "policy-ei")]
            AnyPolicy::Ei(p) => AnyRecord::Ei(Policy::<R, D, M>::save(p)),
            #[cfg(feature = "policy-pbgi")]
            AnyPolicy::Pandora(p) => AnyRecord::Pandora(Policy::<R, D, M>::save(p)),
            #[cfg(feature = "policy-gittins-cvs")]
            AnyPolicy::GittinsCvs(p) => AnyRecord::GittinsCvs(Policy::<R, D, M>::save(p)),
            _ => AnyRecord::Stateless,
        }
    }

    #[cfg(feature = "serde")]
    fn load(&mut self, record: &Self::Record) -> Result<(), DriverError> {
        match (self, record) {
            #[cfg(feature = "policy-explore-then-commit")]
            (AnyPolicy::ExploreThenCommit(p), AnyRecord::ExploreThenCommit(r)) => {
                Policy::<R, D, M>::load(p, r)
            }
            #[cfg(feature = "policy-unknown-cost")]
            (AnyPolicy::UnknownCost(p), AnyRecord::UnknownCost(r)) => Policy::<R, D, M>::load(p, r),
            #[cfg(feature = "policy-ei")]
            (AnyPolicy::Ei(p), AnyRecord::Ei(r)) => Policy::<R, D, M>::load(p, r),
            #[cfg(feature = "policy-pbgi")]
            (AnyPolicy::Pandora(p), AnyRecord::Pandora(r)) => Policy::<R, D, M>::load(p, r),
            #[cfg(feature = "policy-pbgi")]
            (AnyPolicy::Pandora(_), _) => Err(DriverError::InvalidSnapshot),
            #[cfg(feature = "policy-gittins-cvs")]
            (AnyPolicy::GittinsCvs(p), AnyRecord::GittinsCvs(r)) => Policy::<R, D, M>::load(p, r),
            #[cfg(feature = "policy-gittins-cvs")]
            (AnyPolicy::GittinsCvs(_), _) => Err(DriverError::InvalidSnapshot),
            #[cfg(feature = "policy-explore-then-commit")]
            (AnyPolicy::ExploreThenCommit(_), _) => Err(DriverError::InvalidSnapshot),
            #[cfg(feature = "policy-unknown-cost")]
            (AnyPolicy::UnknownCost(_), _) => Err(DriverError::InvalidSnapshot),
            #[cfg(feature = "policy-ei")]
            (AnyPolicy::Ei(_), _) => Err(DriverError::InvalidSnapshot),
            (_, AnyRecord::Stateless) => Ok(()),
            #[allow(unreachable_patterns)]
            _ => Err(DriverError::InvalidSnapshot),
        }
    }
}
