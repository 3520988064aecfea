//! GP-UCB over a box: play the maximiser of `μ + √β_t·σ` over the control set of every variable
//! (Srinivas et al. 2010; paper 002's UCB baseline, with the schedule its code uses).

use super::{Choice, DriverError, Maximiser, Policy, Round};
use crate::acquisition::ucb::UpperBound;
use crate::problem::Problem;
use crate::real::Real;

/// The exploration weight `β_t` of a round.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BetaSchedule<R> {
    /// The same `β` every round.
    Constant(R),
    /// Srinivas et al.'s schedule as paper 002's code uses it:
    /// `β_t = scale · 2 ln(d t² π² / (6δ))` with `t = C + 1`, `C` the budget spent so far (the
    /// iteration index under uniform costs), `d` the dimension; the paper's code takes
    /// `δ = 0.1` and `scale = 1/5` ("scaled down by 5 as in Srinivas' experiments").
    Srinivas {
        /// `δ`.
        delta: R,
        /// Factor on the theoretical value.
        scale: R,
    },
}

impl<R: Real> BetaSchedule<R> {
    /// Paper 002's UCB schedule: Srinivas with `δ = 0.1`, scaled by 1/5.
    pub fn paper_002() -> Self {
        BetaSchedule::Srinivas {
            delta: R::from_f64(0.1),
            scale: R::from_f64(0.2),
        }
    }

    /// `β` after spending `spent`, in `d` dimensions (never negative).
    pub fn beta(&self, spent: R, d: usize) -> R {
        match *self {
            BetaSchedule::Constant(b) => b.max(R::ZERO),
            BetaSchedule::Srinivas { delta, scale } => {
                let t = spent.max(R::ZERO) + R::ONE;
                let pi2 = R::from_f64(core::f64::consts::PI * core::f64::consts::PI);
                let arg = R::from_usize(d) * t * t * pi2 / (R::from_f64(6.0) * delta);
                (scale * R::TWO * arg.ln()).max(R::ZERO)
            }
        }
    }
}

/// GP-UCB over the box.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpUcb<R> {
    schedule: BetaSchedule<R>,
    maximiser: Maximiser,
}

impl<R: Real> GpUcb<R> {
    /// GP-UCB with `schedule`, maximised by `maximiser`.
    pub fn new(schedule: BetaSchedule<R>, maximiser: Maximiser) -> Self {
        GpUcb {
            schedule,
            maximiser,
        }
    }

    /// The schedule.
    pub fn schedule(&self) -> BetaSchedule<R> {
        self.schedule
    }
}

impl<R: Real, const D: usize, const M: usize> Policy<R, D, M> for GpUcb<R> {
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
        let width = self
            .schedule
            .beta(round.spent, round.gp.kernel().inputs_seen())
            .sqrt();
        let mut ucb = UpperBound::new(round.gp, width);
        round.play_box(&self.maximiser, &mut ucb).map(Choice::Play)
    }
}

use super::names::{in_precision, Parsed, Parameter, RuleDefaults, RuleName};

/// This rule's names in the registry ([`RULES`](super::RULES)).
pub const NAMES: &[RuleName] = &[
    RuleName {
        name: "gp-ucb",
        summary: "GP-UCB over the box, Srinivas' beta scaled by 1/5 (paper 002's UCB)",
    },
];

/// The parameters of the rule called `name` if it is one of [`NAMES`], with `defaults` for
/// what the name leaves open; `None` for another rule's name.
pub fn parse<R: Real>(
    name: &str,
    defaults: &RuleDefaults<R>,
) -> Parsed<(BetaSchedule<R>, Maximiser)> {
    Some(Ok(match name {
        "gp-ucb" => (BetaSchedule::paper_002(), defaults.maximiser),
        _ => return None,
    }))
}

impl<R: Real, T: Real> Parameter<T> for BetaSchedule<R> {
    type In = BetaSchedule<T>;

    fn convert(self) -> BetaSchedule<T> {
        let c = in_precision::<R, T>;
        match self {
            BetaSchedule::Constant(v) => BetaSchedule::Constant(c(v)),
            BetaSchedule::Srinivas { delta, scale } => BetaSchedule::Srinivas {
                delta: c(delta),
                scale: c(scale),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn srinivas_schedule_as_paper_002s_code() {
        // β = 2 ln(d t² π² / 0.6) / 5 at t = C + 1.
        let s = BetaSchedule::<f64>::paper_002();
        let pi2 = core::f64::consts::PI.powi(2);
        for (spent, d) in [(0.0, 8), (9.0, 16), (123.5, 4)] {
            let t = spent + 1.0;
            let want = 2.0 * (d as f64 * t * t * pi2 / 0.6).ln() / 5.0;
            assert!((s.beta(spent, d) - want).abs() < 1e-14 * want);
        }
        assert_eq!(BetaSchedule::Constant(4.0f64).beta(7.0, 3), 4.0);
        assert_eq!(BetaSchedule::Constant(-1.0f64).beta(7.0, 3), 0.0);
    }
}
