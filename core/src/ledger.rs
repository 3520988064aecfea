//! The budget a controller has spent: one ledger for the dosing controller
//! ([`driver::Controller`](crate::driver::Controller)), paper 003's feedback controller
//! ([`CandidateController::with_budget`](crate::feedback::controller::CandidateController::with_budget))
//! and the contextual causal controller (`causal::CausalController::with_budget`).
//!
//! Costs are summed with Neumaier compensation, so that thousands of small costs add up to the
//! budget closely enough that the last affordable round is not refused, and a cost is
//! affordable up to a few units in the last place of the budget ([`Ledger::affords`]): costs
//! that add up to the budget on paper (ten rounds of 0.1 for a budget of 1) are all paid,
//! also in `f32`.

use crate::real::Real;

/// The budget spent so far, with its compensation term.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ledger<R> {
    spent: R,
    error: R,
}

impl<R: Real> Default for Ledger<R> {
    fn default() -> Self {
        Self::new()
    }
}

impl<R: Real> Ledger<R> {
    /// Nothing spent.
    pub fn new() -> Self {
        Ledger {
            spent: R::ZERO,
            error: R::ZERO,
        }
    }

    /// A ledger from its saved parts ([`parts`](Self::parts)).
    pub fn from_parts(spent: R, error: R) -> Self {
        Ledger { spent, error }
    }

    /// The running sum and its compensation term, as a snapshot saves them.
    pub fn parts(&self) -> (R, R) {
        (self.spent, self.error)
    }

    /// The compensated total.
    pub fn total(&self) -> R {
        self.spent + self.error
    }

    /// What is left of `budget`.
    pub fn left(&self, budget: R) -> R {
        (budget - self.spent) - self.error
    }

    /// True when `cost` can still be paid from `budget`: up to four units in the last place of
    /// the budget beyond what is left.
    pub fn affords(&self, cost: R, budget: R) -> bool {
        cost <= self.left(budget) + R::from_f64(4.0) * R::EPSILON * budget
    }

    /// Adds `cost`.
    pub fn charge(&mut self, cost: R) {
        let t = self.spent + cost;
        self.error += if self.spent.abs() >= cost.abs() {
            (self.spent - t) + cost
        } else {
            (cost - t) + self.spent
        };
        self.spent = t;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn costs_that_add_up_to_the_budget_on_paper_are_all_paid() {
        // 0.1 is not exact in binary: twenty f32 tenths sum to more than 2 without the slack.
        let mut l = Ledger::<f32>::new();
        for _ in 0..20 {
            assert!(l.affords(0.1, 2.0));
            l.charge(0.1);
        }
        assert!(!l.affords(0.1, 2.0));
        assert!(l.affords(0.0, 2.0));
        // The compensated total is the f32 nearest the exact sum of the twenty f32 tenths.
        let exact = 20.0 * f64::from(0.1f32);
        assert_eq!(l.total(), exact as f32);
        let mut l = Ledger::<f64>::new();
        for _ in 0..10_000 {
            l.charge(1e-4);
        }
        assert!((l.total() - 1.0).abs() < 1e-15);
        assert_eq!(Ledger::from_parts(l.parts().0, l.parts().1), l);
    }
}
