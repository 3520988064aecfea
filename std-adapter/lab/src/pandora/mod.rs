//! Paper 002's experiment loop over a box: a `2(d+1)`-point scrambled-Sobol initial design (not
//! charged), then one decision of the rule per round while the budget spent is below `B`
//! (uniform costs: a fixed number of rounds), the model refitted every round as BoTorch fits it
//! (or fixed, for the Bayesian-regret study), the acquisition maximised by BoTorch's raw
//! samples and restarts with quasi-Newton ascent. Regret is the objective's maximum minus the
//! best value observed, initial design included.
//!
//! The rules are the core's ([`costbo_core::policy`]): `pbgi`, `pbgi-d`, `log-ei`,
//! `log-eipc`, `log-eicc`, `gp-ucb`, `ts-psq` (Thompson sampling by a pathwise sample),
//! `random-search`, and the lookahead rules the paper compares PBGI with, `kg`, `mes`, `msei`,
//! `mfmes` and `bmsei` ([`lookahead`] runs them in the paper's cells), and the textbook forms of
//! EI and PBGI that App. D.1's ablation compares them with ([`stability`]).

pub mod empirical;
pub mod finals;
pub mod grid;
pub mod kernels;
pub mod lookahead;
pub mod onedim;
pub mod paired;
pub mod run;
pub mod sensitivity;
pub mod side;
pub mod stability;
pub mod study;

pub use run::{
    run_box, run_box_from, run_box_watched, BoxCost, BoxModel, BoxRound, BoxRun, BoxTrace, BOX_DIMS,
};
