//! A round-by-round controller for costly feedback over a finite candidate set: TV-GP-UCB (or
//! PI/EI) chooses the candidate, [`QueryRule`] says whether to pay for its measurement, and the
//! caller then reports the outcome ([`CandidateController::tell`]) or that it did not measure
//! ([`CandidateController::skip`]). Paid measurements are the cost ledger.
//!
//! The round protocol is checked: asking twice without closing the round, reporting an outcome
//! for a round that was not paid for, or closing a round that was never asked are typed errors
//! that change nothing.

use rand_core::Rng;

use super::query::{QueryDecision, QueryRule};
use super::select::{
    argmax, best_mean, grid_competitors, grid_local_maxima_competitors,
    grid_stationary_competitors, Acquire,
};
use crate::gp::candidates::CandidatePosterior;
use crate::gp::time_varying::TimeVaryingError;
use crate::gp::Prediction;
use crate::ledger::Ledger;
use crate::real::Real;

/// The most competitors the confidence test compares against (local maxima kept by height).
pub const MAX_COMPETITORS: usize = 64;

/// The exploration schedule `β_t` (the UCB width is `√β_t`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Beta<R> {
    /// The same β every round (paper 003's SimCLR study: β = 1).
    Constant(R),
    /// `β_t = max(scale·ln(rate·t), 0)`, the form of Bogunovic et al.'s (2016) experiments
    /// (`0.8·ln(0.4t)`); zero in the first rounds, where the logarithm is negative.
    Logarithmic {
        /// The factor in front of the logarithm.
        scale: R,
        /// The factor of `t` inside it.
        rate: R,
    },
}

impl<R: Real> Beta<R> {
    /// `β_t` for round `t ≥ 1`.
    pub fn at(&self, t: u32) -> R {
        match *self {
            Beta::Constant(b) => b,
            Beta::Logarithmic { scale, rate } => {
                (scale * (rate * R::from_f64(f64::from(t.max(1)))).ln()).max(R::ZERO)
            }
        }
    }

    fn valid(&self) -> bool {
        match *self {
            Beta::Constant(b) => b.is_finite() && b >= R::ZERO,
            Beta::Logarithmic { scale, rate } => {
                scale.is_finite() && rate.is_finite() && scale >= R::ZERO && rate > R::ZERO
            }
        }
    }
}

/// Which acquisition chooses the candidate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Chooser<R> {
    /// TV-GP-UCB: `μ + √β_t σ`.
    Ucb,
    /// Probability of improvement over the largest posterior mean, margin ξ.
    Pi(R),
    /// Expected improvement over the largest posterior mean.
    Ei,
}

/// Which candidates the confidence test compares the chosen one with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Competitors {
    /// Every other candidate (the paper's theory; independent arms).
    All,
    /// The UCB's optima on a grid of the candidates evenly spaced on [0, 1], merged within a
    /// bandwidth of one another and of the chosen point (the paper's practice, App. E.1 and
    /// E.3: local optima from many starts, mean-shift with bandwidth 0.2); see
    /// [`grid_competitors`].
    Grid {
        /// Optima closer than this (in units of the unit interval) are one.
        bandwidth: f64,
        /// The slope (per unit of x) below which a point counts as stationary.
        slope_tolerance: f64,
    },
    /// [`Competitors::Grid`] without its best point beyond the bandwidth: the stationary
    /// points only, the paper's procedure (L-BFGS from many starts, which stops on flat
    /// stretches as on maxima) emulated on the grid without our addition; see
    /// [`grid_stationary_competitors`].
    Stationary {
        /// Optima closer than this (in units of the unit interval) are one.
        bandwidth: f64,
        /// The slope (per unit of x) below which a point counts as stationary.
        slope_tolerance: f64,
    },
    /// The UCB's strict local maxima on a grid of the candidates evenly spaced on [0, 1],
    /// merged within a bandwidth of one another and of the chosen point: the paper's
    /// competitor set read literally (a gradient ascent run to a maximum from every start);
    /// see [`grid_local_maxima_competitors`].
    LocalMaxima {
        /// Maxima closer than this (in units of the unit interval) are one.
        bandwidth: f64,
    },
}

impl Competitors {
    /// The paper's bandwidth 0.2 and a slope tolerance of 1e-4 (our choice, about where a
    /// gradient method's stopping rule leaves the flat prior far from the data).
    pub const PAPER_GRID: Competitors = Competitors::Grid {
        bandwidth: 0.2,
        slope_tolerance: 1e-4,
    };

    /// [`Competitors::PAPER_GRID`]'s stationary points without our addition.
    pub const PAPER_STATIONARY: Competitors = Competitors::Stationary {
        bandwidth: 0.2,
        slope_tolerance: 1e-4,
    };

    /// The paper's competitor set read literally: the local maxima, merged within its
    /// bandwidth 0.2.
    pub const PAPER_MAXIMA: Competitors = Competitors::LocalMaxima { bandwidth: 0.2 };
}

/// A controller's settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FeedbackSettings<R> {
    /// The exploration schedule.
    pub beta: Beta<R>,
    /// What chooses the candidate.
    pub chooser: Chooser<R>,
    /// Whether to pay.
    pub rule: QueryRule<R>,
    /// The confidence test's competitors.
    pub competitors: Competitors,
    /// Forget everything every this many rounds (R-GP-UCB); `None` never.
    pub reset_every: Option<u32>,
}

/// Why a controller refused a call. Nothing changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeedbackError {
    /// The model refused (non-finite outcome, singular update, ...).
    Model(TimeVaryingError),
    /// A setting is out of its domain (β < 0, a zero reset period, a PI margin < 0 or NaN).
    InvalidSetting,
    /// `ask` was called while the previous round is still open.
    RoundOpen,
    /// `tell` or `skip` was called with no round open.
    NoRound,
    /// `tell` was called for a round the rule did not pay for.
    NotPaid,
    /// No candidate has a finite acquisition value.
    NoCandidate,
    /// A replayed log does not match the decisions this controller makes (another seed,
    /// settings or prior): the round, counted from 1, where they part.
    Diverged {
        /// The first round that differs.
        round: u32,
    },
}

impl core::fmt::Display for FeedbackError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Model(e) => write!(f, "the model refused: {e}"),
            Self::InvalidSetting => f.write_str("a setting is out of its domain"),
            Self::RoundOpen => f.write_str("ask was called while the previous round is still open"),
            Self::NoRound => f.write_str("tell or skip was called with no round open"),
            Self::NotPaid => f.write_str("tell was called for a round the rule did not pay for"),
            Self::NoCandidate => f.write_str("no candidate has a finite acquisition value"),
            Self::Diverged { round } => write!(
                f,
                "the replayed log parts from this controller's decisions at round {round}"
            ),
        }
    }
}

impl core::error::Error for FeedbackError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            Self::Model(e) => Some(e),
            _ => None,
        }
    }
}

/// One closed round, as a log keeps it: where it measured (or would have) and the outcome if
/// it paid. A controller rebuilt with the same prior, settings and generator seed and fed its
/// log by [`CandidateController::replay`] is in the state the original was.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FeedbackRecord<R> {
    /// The round's candidate.
    pub candidate: usize,
    /// The measured outcome, `None` for a skipped round.
    pub outcome: Option<R>,
}

impl From<TimeVaryingError> for FeedbackError {
    fn from(e: TimeVaryingError) -> Self {
        FeedbackError::Model(e)
    }
}

/// One round's decision.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FeedbackAsk<R> {
    /// The round, counted from 1.
    pub round: u32,
    /// The chosen candidate.
    pub candidate: usize,
    /// The posterior there when it was chosen.
    pub prediction: Prediction<R>,
    /// Whether to pay for the measurement, and why. With a budget
    /// ([`CandidateController::with_budget`]), a measurement the budget cannot cover is not
    /// paid (`query.pay` false) and [`over_budget`](Self::over_budget) says so.
    pub query: QueryDecision<R>,
    /// The rule wanted to pay but the remaining budget could not cover the measurement.
    pub over_budget: bool,
}

/// The controller (see the module docs).
#[derive(Debug, Clone)]
pub struct CandidateController<R, S, G> {
    // Visible to the `snapshot` module, which saves and restores them.
    pub(super) posterior: CandidatePosterior<R, S>,
    settings: FeedbackSettings<R>,
    pub(super) rng: G,
    pub(super) round: u32,
    pub(super) open: Option<FeedbackAsk<R>>,
    pub(super) paid: u32,
    // (cost of one measurement, budget) when measurements are priced.
    pub(super) price: Option<(R, R)>,
    // What the paid measurements cost: the dosing controller's ledger.
    pub(super) spent: Ledger<R>,
}

impl<R: Real, S: AsRef<[R]> + AsMut<[R]>, G: Rng> CandidateController<R, S, G> {
    /// A controller at round 1 over `posterior` (its forgetting rate is the model's).
    pub fn new(
        posterior: CandidatePosterior<R, S>,
        settings: FeedbackSettings<R>,
        rng: G,
    ) -> Result<Self, FeedbackError> {
        let chooser_ok = match settings.chooser {
            Chooser::Pi(margin) => margin.is_finite() && margin >= R::ZERO,
            _ => true,
        };
        let competitors_ok = match settings.competitors {
            Competitors::All => true,
            Competitors::Grid {
                bandwidth,
                slope_tolerance,
            }
            | Competitors::Stationary {
                bandwidth,
                slope_tolerance,
            } => {
                bandwidth.is_finite()
                    && bandwidth >= 0.0
                    && slope_tolerance.is_finite()
                    && slope_tolerance >= 0.0
            }
            Competitors::LocalMaxima { bandwidth } => bandwidth.is_finite() && bandwidth >= 0.0,
        };
        if !settings.beta.valid()
            || !chooser_ok
            || !competitors_ok
            || settings.reset_every == Some(0)
        {
            return Err(FeedbackError::InvalidSetting);
        }
        Ok(CandidateController {
            posterior,
            settings,
            rng,
            round: 1,
            open: None,
            paid: 0,
            price: None,
            spent: Ledger::new(),
        })
    }

    /// Prices every measurement at `cost` (> 0) and caps their total at `budget` (≥ 0): a round
    /// whose measurement would take the spending past the budget is not paid for, whatever
    /// the rule says. Rounds without a measurement cost nothing (the paper's unit cost per
    /// query, generalised).
    pub fn with_budget(mut self, cost: R, budget: R) -> Result<Self, FeedbackError> {
        if !(cost.is_finite() && cost > R::ZERO && budget.is_finite() && budget >= R::ZERO) {
            return Err(FeedbackError::InvalidSetting);
        }
        self.price = Some((cost, budget));
        Ok(self)
    }

    /// What the measurements paid for so far cost (zero without a budget).
    pub fn spent(&self) -> R {
        self.spent.total()
    }

    /// The posterior for the current round's function.
    pub fn posterior(&self) -> &CandidatePosterior<R, S> {
        &self.posterior
    }

    /// Measurements paid for so far (the cost `C_t`).
    pub fn paid(&self) -> u32 {
        self.paid
    }

    /// The round the next [`ask`](Self::ask) decides.
    pub fn round(&self) -> u32 {
        self.round
    }

    /// Chooses this round's candidate and whether to pay for its measurement.
    pub fn ask(&mut self) -> Result<FeedbackAsk<R>, FeedbackError> {
        if self.open.is_some() {
            return Err(FeedbackError::RoundOpen);
        }
        let t = self.round;
        if let Some(period) = self.settings.reset_every {
            if t > 1 && (t - 1).is_multiple_of(period) {
                self.posterior.reset();
            }
        }
        let post = &self.posterior;
        let m = post.len();
        let predict = |i: usize| {
            post.predict(i).unwrap_or(Prediction {
                mean: R::ZERO,
                variance: R::ZERO,
            })
        };
        let width = self.settings.beta.at(t).sqrt();
        let acquire = match self.settings.chooser {
            Chooser::Ucb => Acquire::Ucb { width },
            Chooser::Pi(margin) => Acquire::Pi {
                incumbent: best_mean(m, predict).unwrap_or(R::ZERO),
                margin,
            },
            Chooser::Ei => Acquire::Ei {
                incumbent: best_mean(m, predict).unwrap_or(R::ZERO),
            },
        };
        let (candidate, _) =
            argmax(m, |i| acquire.value(predict(i))).ok_or(FeedbackError::NoCandidate)?;
        let chosen = predict(candidate);
        let ucb = Acquire::Ucb { width };
        // The competitors: every other candidate, or the UCB's optima written into `optima`.
        let ucb_at = |i: usize| ucb.value(predict(i));
        let mut optima = [0usize; MAX_COMPETITORS];
        let found = match self.settings.competitors {
            Competitors::All => None,
            Competitors::Grid {
                bandwidth,
                slope_tolerance,
            } => Some(grid_competitors(
                m,
                ucb_at,
                candidate,
                R::from_f64(slope_tolerance),
                R::from_f64(bandwidth),
                &mut optima,
            )),
            Competitors::Stationary {
                bandwidth,
                slope_tolerance,
            } => Some(grid_stationary_competitors(
                m,
                ucb_at,
                candidate,
                R::from_f64(slope_tolerance),
                R::from_f64(bandwidth),
                &mut optima,
            )),
            Competitors::LocalMaxima { bandwidth } => Some(grid_local_maxima_competitors(
                m,
                ucb_at,
                candidate,
                R::from_f64(bandwidth),
                &mut optima,
            )),
        };
        let query = match found {
            None => self.settings.rule.decide(
                chosen,
                (0..m).filter(|&i| i != candidate).map(predict),
                width,
                &mut self.rng,
            ),
            Some(k) => self.settings.rule.decide(
                chosen,
                optima[..k].iter().map(|&i| predict(i)),
                width,
                &mut self.rng,
            ),
        };
        let mut query = query;
        let over_budget = match self.price {
            Some((cost, budget)) => query.pay && !self.spent.affords(cost, budget),
            None => false,
        };
        if over_budget {
            query.pay = false;
            query.reason = super::query::QueryReason::Skip;
        }
        let ask = FeedbackAsk {
            round: t,
            candidate,
            prediction: chosen,
            query,
            over_budget,
        };
        self.open = Some(ask);
        Ok(ask)
    }

    /// Reports the outcome measured at the round's candidate (only for a paid round), then
    /// moves to the next round.
    pub fn tell(&mut self, outcome: R) -> Result<(), FeedbackError> {
        let ask = self.open.ok_or(FeedbackError::NoRound)?;
        if !ask.query.pay {
            return Err(FeedbackError::NotPaid);
        }
        self.posterior.observe(ask.candidate, outcome)?;
        self.paid += 1;
        if let Some((cost, _)) = self.price {
            self.spent.charge(cost);
        }
        self.close();
        Ok(())
    }

    /// Reports that the round's outcome was not measured (what a skipped round does; a paid
    /// round whose measurement failed may skip too, and is then not charged), then moves to
    /// the next round.
    pub fn skip(&mut self) -> Result<(), FeedbackError> {
        self.open.ok_or(FeedbackError::NoRound)?;
        self.close();
        Ok(())
    }

    /// Replays closed rounds from a log: each round is asked again and must choose the logged
    /// candidate and pay exactly when the log has an outcome. On any mismatch or refusal
    /// nothing changes (the replay runs on a copy).
    pub fn replay(&mut self, log: &[FeedbackRecord<R>]) -> Result<(), FeedbackError>
    where
        S: Clone,
        G: Clone,
    {
        if self.open.is_some() {
            return Err(FeedbackError::RoundOpen);
        }
        let mut copy = self.clone();
        for record in log {
            let ask = copy.ask()?;
            if ask.candidate != record.candidate || ask.query.pay != record.outcome.is_some() {
                return Err(FeedbackError::Diverged { round: ask.round });
            }
            match record.outcome {
                Some(y) => copy.tell(y)?,
                None => copy.skip()?,
            }
        }
        *self = copy;
        Ok(())
    }

    fn close(&mut self) {
        self.open = None;
        self.posterior.advance();
        self.round = self.round.saturating_add(1);
    }
}
