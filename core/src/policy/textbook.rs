//! Paper 002's App. D.1 ablation rules over a box (Fig. 10): play the maximiser of one of the
//! [`Form`]s of [`Textbook`], to tell how much of LogEI's gain over EI comes from its log
//! scale and how much from its numerical stability, and whether the Gittins index's stable
//! computation matters:
//!
//! - `ei-unstable`: EI from the textbook `h` ("Unst. EI");
//! - `log-ei-unstable`: `ln(EI + 10⁻⁶)` of that EI ("Log(Unst. EI)");
//! - `exp-log-ei`: `exp(LogEI)` ("Exp(LogEI)");
//! - `pbgi-unstable`: the index at `λ = 10⁻⁴` by the paper code's bisection ("PBGI"; ours,
//!   `pbgi`, is the paper's "S-PBGI").
//!
//! They exist to reproduce that comparison; LogEI (`log-ei`) and PBGI (`pbgi`) decide better or
//! as well.

use super::{Choice, DriverError, Maximiser, Policy, Round};
use crate::acquisition::cost::Uniform;
pub use crate::acquisition::textbook::Form;
use crate::acquisition::textbook::Textbook;
use crate::problem::Problem;
use crate::real::Real;

/// `λ` of [`Form::BisectedGittins`]: paper 002's budgeted PBGI's.
pub const LAMBDA: f64 = 1e-4;

/// An ablation rule (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextbookRule {
    form: Form,
    maximiser: Maximiser,
}

impl TextbookRule {
    /// The rule maximising `form` by `maximiser`.
    pub fn new(form: Form, maximiser: Maximiser) -> Self {
        TextbookRule { form, maximiser }
    }

    /// What it maximises.
    pub fn form(&self) -> Form {
        self.form
    }
}

impl<R: Real, const D: usize, const M: usize> Policy<R, D, M> for TextbookRule {
    fn prices_points(&self) -> bool {
        self.form == Form::BisectedGittins
    }

    super::stateless_record!();

    fn start(&mut self, problem: &Problem<R, D, M>) -> Result<(), DriverError> {
        super::require_full_set(problem).map(|_| ())
    }

    fn workspace_len(&self, _: &Problem<R, D, M>, _: usize, _: usize) -> usize {
        self.maximiser.workspace_len()
    }

    fn decide<const N: usize, S, B>(
        &mut self,
        round: &mut Round<'_, R, N, D, M, S, B>,
    ) -> Result<Choice<R, D>, DriverError>
    where
        S: AsRef<[R]> + AsMut<[R]>,
        B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
    {
        let (gp, m, form) = (round.gp, &self.maximiser, self.form);
        let play = if form == Form::BisectedGittins {
            // The index's price is E[c], as PBGI's.
            let cost = round.box_cost(R::ONE)?;
            let log_lambda = R::from_f64(LAMBDA).ln();
            round.play_box(m, &mut Textbook::new(gp, form, R::ZERO, log_lambda, cost))
        } else {
            let incumbent = round.best_observed();
            if !incumbent.is_finite() {
                // EI needs an incumbent: the initial design comes first.
                return Err(DriverError::NoScore);
            }
            round.play_box(m, &mut Textbook::new(gp, form, incumbent, R::ZERO, Uniform))
        };
        play.map(Choice::Play)
    }
}

use super::names::{Parsed, RuleDefaults, RuleName};

/// This rule's names in the registry ([`RULES`](super::RULES)).
pub const NAMES: &[RuleName] = &[
    RuleName {
        name: "ei-unstable",
        summary: "EI from the textbook formula (paper 002's App. D.1 ablation, Unst. EI)",
    },
    RuleName {
        name: "log-ei-unstable",
        summary: "ln(EI + 1e-6) of the textbook EI (paper 002's ablation, Log(Unst. EI))",
    },
    RuleName {
        name: "exp-log-ei",
        summary: "exp(LogEI): EI to full precision, not log-scaled (paper 002's ablation)",
    },
    RuleName {
        name: "pbgi-unstable",
        summary: "PBGI by the paper code's bisection of the textbook EI (its PBGI; ours is S-PBGI)",
    },
];

/// The parameters of the rule called `name` if it is one of [`NAMES`], with `defaults` for
/// what the name leaves open; `None` for another rule's name.
pub fn parse<R: Real>(
    name: &str,
    defaults: &RuleDefaults<R>,
) -> Parsed<(Form, Maximiser)> {
    Some(Ok(match name {
        "ei-unstable" => (Form::Ei, defaults.maximiser),
        "log-ei-unstable" => (Form::LogOfEi, defaults.maximiser),
        "exp-log-ei" => (Form::ExpOfLogEi, defaults.maximiser),
        "pbgi-unstable" => (Form::BisectedGittins, defaults.maximiser),
        _ => return None,
    }))
}

super::names::plain_parameter!(Form);
