//! Persistence of a controller: replaying journaled rounds, snapshots.

use super::{Controller, DriverError, Memo};
use crate::policy::Policy;
use crate::real::Real;

impl<R, const N: usize, const D: usize, const M: usize, S, B, P, C>
    Controller<R, N, D, M, S, B, P, C>
where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
    B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
    P: Policy<R, D, M>,
    C: super::CostModel<R, N, D, S>,
{
    /// Records a round that was decided and observed before, without deciding again: the
    /// control set `set` that was played, the measured point, outcome and cost exactly as
    /// given to [`observe`](Self::observe) then, and the [`memo`](Self::memo) read after it.
    /// The GP, the ledger, the round counter and the rule's state change exactly as that
    /// round's `suggest` and `observe` changed them, so replaying a run's rounds in order into
    /// a fresh controller (with the same configuration, and the same initial observations and
    /// refits at the same points) gives bit-identical decisions after. With a costly
    /// measurement the round was a measured one: the measurement's cost is charged too
    /// (skipped rounds are replayed with [`replay_skip`](Self::replay_skip)).
    ///
    /// Discards a pending decision. On error nothing changes.
    pub fn replay(
        &mut self,
        set: usize,
        x: &[R; D],
        y: R,
        cost: R,
        memo: &Memo<R>,
    ) -> Result<(), DriverError> {
        let control = self.problem.set(set).ok_or(DriverError::InvalidSet(set))?;
        if !cost.is_finite() || cost <= R::ZERO {
            return Err(DriverError::InvalidCost);
        }
        let u = self.check_point(x, y)?;
        self.policy.check_memo(memo)?;
        // The decision of this round refitted the model first if the settings say so; do the
        // same with the same data, so later decisions see the same hyperparameters.
        self.check_room()?;
        let saved = (*self.gp.kernel(), self.gp.prior_mean(), self.gp.noise());
        let refitted = self.refit_if_due(&mut []);
        let measurement = self.measurement.map_or(R::ZERO, |m| m.cost());
        if let Err(e) = self.apply(set, control, &u, y, cost, measurement) {
            // Only a numerically singular update gets here; the old hyperparameters come back
            // (the factor is rebuilt, equal to the old one to rounding).
            if refitted {
                let _ = self.gp.set_hyperparameters(saved.0, saved.1, saved.2);
            }
            return Err(e);
        }
        self.policy.apply_memo(memo);
        self.pending = None;
        self.asked = None;
        Ok(())
    }

    /// Saves the state (see [`crate::snapshot`]).
    #[cfg(feature = "serde")]
    pub fn snapshot(&self) -> crate::snapshot::Snapshot<R, N, D, P::Record> {
        use crate::snapshot::*;
        let observations = ObservationRecord::all_of(&self.gp);
        let pending = self.pending.map(|d| {
            let u = self.problem.to_unit(&core::array::from_fn(|l| {
                d.values[l].unwrap_or(self.problem.lower()[l])
            }));
            PendingRecord {
                set: d.set,
                x: FixedArray(u),
                score: d.score,
                measure: d.measure,
            }
        });
        let k = self.gp.kernel();
        Snapshot {
            observations,
            lengthscales: FixedArray(*k.lengthscales()),
            outputscale: k.outputscale(),
            noise: self.gp.noise(),
            mean: self.gp.prior_mean(),
            spent: self.ledger.parts(),
            rounds: self.rounds,
            policy: self.policy.save(),
            pending,
            cost_model: self.cost_model.model().map(ModelRecord::of),
        }
    }

    /// Rebuilds a controller from a snapshot and the configuration it was saved with. `gp`
    /// provides the storage and the kernel shape (its observations are discarded), and so
    /// does `cost_model` for a controller that has one ([`NoCostModel`](super::NoCostModel)
    /// otherwise); `policy` is the rule as configured (its saved state comes from the
    /// snapshot). A costly measurement is configuration too: give its rule again with
    /// [`with_measurement`](Self::with_measurement) (the snapshot's round count restores its
    /// stream; an answer asked before the snapshot is asked again).
    #[cfg(feature = "serde")]
    #[allow(clippy::too_many_arguments)]
    pub fn restore(
        problem: crate::problem::Problem<R, D, M>,
        gp: crate::gp::Gp<R, N, D, S>,
        bank: crate::expectation::SampleBank<R, D, B>,
        settings: super::Settings<R>,
        policy: P,
        mut cost_model: C,
        snap: &crate::snapshot::Snapshot<R, N, D, P::Record>,
    ) -> Result<Self, DriverError> {
        let bad = DriverError::InvalidSnapshot;
        let learned = matches!(problem.costs(), crate::problem::Costs::Unknown);
        if cost_model.model().is_some() && !learned {
            return Err(DriverError::InvalidCostModel);
        }
        match (cost_model.model_mut(), &snap.cost_model) {
            (Some(model), Some(record)) => {
                model.clear();
                record.restore_into(model).map_err(|_| bad)?;
            }
            (None, None) => {}
            _ => return Err(bad),
        }
        let plain = Controller::new(problem, gp, bank, settings, policy)?;
        let mut ctl = Controller {
            problem: plain.problem,
            gp: plain.gp,
            bank: plain.bank,
            settings: plain.settings,
            policy: plain.policy,
            cost_model,
            ledger: plain.ledger,
            rounds: plain.rounds,
            pending: plain.pending,
            measurement: plain.measurement,
            asked: None,
        };
        let kernel = crate::kernel::Kernel::new(
            ctl.gp.kernel().shape(),
            snap.lengthscales.0,
            snap.outputscale,
        )
        .map_err(|_| bad)?;
        ctl.gp.clear();
        ctl.gp
            .set_hyperparameters(kernel, snap.mean, snap.noise)
            .map_err(|_| bad)?;
        let in_cube = |x: &[R; D]| {
            x.iter()
                .all(|v| v.is_finite() && *v >= R::ZERO && *v <= R::ONE)
        };
        for o in snap.observations.as_slice() {
            o.push_into(&mut ctl.gp).map_err(|_| bad)?;
        }
        let (spent, err) = snap.spent;
        if !spent.is_finite() || !err.is_finite() || spent < R::ZERO {
            return Err(bad);
        }
        ctl.ledger = crate::ledger::Ledger::from_parts(spent, err);
        ctl.rounds = snap.rounds;
        ctl.policy.load(&snap.policy).map_err(|_| bad)?;
        if let Some(p) = &snap.pending {
            let control = ctl.problem.set(p.set).ok_or(bad)?;
            if !in_cube(&p.x.0) || !p.score.is_finite() {
                return Err(bad);
            }
            let phys = ctl.problem.to_physical(&p.x.0);
            ctl.pending = Some(super::Decision {
                set: p.set,
                control,
                values: core::array::from_fn(|l| control.contains(l).then_some(phys[l])),
                score: p.score,
                measure: p.measure,
            });
        }
        Ok(ctl)
    }
}
