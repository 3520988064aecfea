//! Saving and restoring a controller's state with serde (feature `serde`).
//!
//! A [`Snapshot`] holds what a controller has learned and decided: the observations (unit
//! coordinates), the GP hyperparameters, the budget ledger, the rule's own state (its
//! [`Policy::Record`](crate::policy::Policy::Record): ETC's counters, the unknown-cost rule's
//! statistics, EI's query history, nothing for the others) and the pending decision (rules
//! that draw at random seed a generator from the settings' seed and the round, so there is no
//! generator state to save). The problem, the bank, the settings and the rule's configuration
//! are configuration: restore with the same ones. Restoring replays the observations into an empty
//! GP, so every value is validated again and a damaged snapshot yields a typed error instead of
//! a broken model. A restored controller decides bit for bit as the saved one would have, with
//! one exception: once a drop-oldest GP has forgotten observations (or merged a repeated input
//! into a slot older than its newest), its live factor is the O(n²)-downdated one while the
//! restored one is factorised afresh; they agree to rounding (about 3e-13 relative in f64 in
//! `core/tests/measurement.rs`), so later decisions may differ in the last bits. Journal replay
//! repeats the downdates and stays exact. A text format must read every float back to its bits
//! (serde_json with its `float_roundtrip` feature; its default parser may miss the last bit).
//!
//! Arrays whose length is a const generic have no serde implementation of their own, so
//! [`FixedArray`] carries them (as a sequence of exactly `K` values), and bounded lists are
//! [`heapless::Vec`]s, which serde writes as a sequence of their length (the same bytes the
//! hand-written bounded vector of earlier versions wrote: snapshots saved by them load
//! unchanged; `core/tests/snapshot_bytes.rs` pins them).

use serde::de::Error as _;
use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An array of exactly `K` values, serialised as a sequence.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FixedArray<T, const K: usize>(pub [T; K]);

impl<T: Serialize, const K: usize> Serialize for FixedArray<T, K> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(K))?;
        for v in &self.0 {
            seq.serialize_element(v)?;
        }
        seq.end()
    }
}

impl<'de, T: Deserialize<'de>, const K: usize> Deserialize<'de> for FixedArray<T, K> {
    fn deserialize<De: Deserializer<'de>>(d: De) -> Result<Self, De::Error> {
        // At most K values (more fail inside heapless's visitor), then exactly K.
        let v = heapless::Vec::<T, K>::deserialize(d)?;
        let len = v.len();
        v.into_array()
            .map(FixedArray)
            .map_err(|_| De::Error::invalid_length(len, &"exactly the array's length"))
    }
}

/// The first `K` values of `xs` (the rest are dropped), for saving a state whose lists hold at
/// most `K` values by construction.
pub(crate) fn bounded<T: Clone, const K: usize>(xs: &[T]) -> heapless::Vec<T, K> {
    let mut v = heapless::Vec::new();
    for x in xs.iter().take(K) {
        // Cannot fail: at most K values are taken.
        let _ = v.push(x.clone());
    }
    v
}

/// One stored observation, or several at one point merged (see [`crate::gp`]): the point in
/// unit coordinates, the (mean) outcome, how many observations and their spread. Records
/// without `count` and `spread` (saved before repeats were merged) read as single ones.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(bound(
    serialize = "R: Serialize",
    deserialize = "R: Deserialize<'de> + Copy + Default"
))]
pub struct ObservationRecord<R: Copy + Default, const D: usize> {
    /// Inputs in unit coordinates.
    pub x: FixedArray<R, D>,
    /// Outcome, or the mean outcome of `count` merged observations.
    pub y: R,
    /// Number of observations merged into this record.
    #[serde(default = "one")]
    pub count: u32,
    /// Sum of squared deviations of the merged outcomes from `y` (0 for one observation).
    #[serde(default)]
    pub spread: R,
}

impl<R: Copy + Default, const D: usize> Default for ObservationRecord<R, D> {
    fn default() -> Self {
        ObservationRecord {
            x: FixedArray::default(),
            y: R::default(),
            count: 1,
            spread: R::default(),
        }
    }
}

/// The count of a record saved without one.
fn one() -> u32 {
    1
}

impl<R: crate::real::Real, const D: usize> ObservationRecord<R, D> {
    /// The records of a GP's slots, oldest first.
    pub fn all_of<const N: usize, S: AsRef<[R]> + AsMut<[R]>>(
        gp: &crate::gp::Gp<R, N, D, S>,
    ) -> heapless::Vec<Self, N> {
        let mut records = heapless::Vec::new();
        for (i, x) in gp.inputs().iter().enumerate() {
            // Cannot fail: a GP of capacity N holds at most N slots.
            let _ = records.push(ObservationRecord {
                x: FixedArray(*x),
                y: gp.outputs()[i],
                count: gp.counts()[i],
                spread: gp.spreads()[i],
            });
        }
        records
    }

    /// Pushes the record into `gp`, its point checked to lie in the unit cube.
    pub fn push_into<const N: usize, S: AsRef<[R]> + AsMut<[R]>>(
        &self,
        gp: &mut crate::gp::Gp<R, N, D, S>,
    ) -> Result<(), crate::gp::GpError> {
        let in_cube = self
            .x
            .0
            .iter()
            .all(|v| v.is_finite() && *v >= R::ZERO && *v <= R::ONE);
        if !in_cube {
            return Err(crate::gp::GpError::NonFinite);
        }
        gp.push_merged(&self.x.0, self.y, self.count, self.spread)
    }
}

impl<R: Copy + Default, const D: usize> Default for FixedArray<R, D> {
    fn default() -> Self {
        FixedArray([R::default(); D])
    }
}

/// One past query: the control set (bitmask) and the point in unit coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(bound(
    serialize = "R: Serialize",
    deserialize = "R: Deserialize<'de> + Copy + Default"
))]
pub struct QueryRecord<R: Copy + Default, const D: usize> {
    /// Control set bitmask.
    pub set: crate::problem::Mask,
    /// Point in unit coordinates.
    pub x: FixedArray<R, D>,
}

/// The pending decision.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(bound(
    serialize = "R: Serialize",
    deserialize = "R: Deserialize<'de> + Copy + Default"
))]
pub struct PendingRecord<R: Copy + Default, const D: usize> {
    /// Index of the control set.
    pub set: usize,
    /// Values in unit coordinates (meaningful on the controlled variables).
    pub x: FixedArray<R, D>,
    /// The winning score.
    pub score: R,
    /// Whether the measurement is to be paid for.
    pub measure: bool,
}

/// Everything a controller has learned and decided (see the module documentation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(bound(
    serialize = "R: Serialize, P: Serialize",
    deserialize = "R: Deserialize<'de> + Copy + Default, P: Deserialize<'de>"
))]
pub struct Snapshot<R: Copy + Default, const N: usize, const D: usize, P> {
    /// Observations in the GP, oldest first.
    pub observations: heapless::Vec<ObservationRecord<R, D>, N>,
    /// Kernel lengthscales.
    pub lengthscales: FixedArray<R, D>,
    /// Kernel outputscale.
    pub outputscale: R,
    /// Noise variance.
    pub noise: R,
    /// Prior mean.
    pub mean: R,
    /// Budget spent (compensated sum: value and error term).
    pub spent: (R, R),
    /// Rounds observed.
    pub rounds: usize,
    /// The decision rule's state ([`Policy::Record`](crate::policy::Policy::Record)).
    pub policy: P,
    /// The pending decision.
    pub pending: Option<PendingRecord<R, D>>,
    /// The model of ln(cost), for a controller that learns costs.
    pub cost_model: Option<ModelRecord<R, N, D>>,
}

/// A GP as saved: its observations (unit coordinates) and hyperparameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(bound(
    serialize = "R: Serialize",
    deserialize = "R: Deserialize<'de> + Copy + Default"
))]
pub struct ModelRecord<R: Copy + Default, const N: usize, const D: usize> {
    /// Observations, oldest first.
    pub observations: heapless::Vec<ObservationRecord<R, D>, N>,
    /// Kernel lengthscales.
    pub lengthscales: FixedArray<R, D>,
    /// Kernel outputscale.
    pub outputscale: R,
    /// Noise variance.
    pub noise: R,
    /// Prior mean.
    pub mean: R,
}

impl<R: crate::real::Real, const N: usize, const D: usize> ModelRecord<R, N, D> {
    /// The record of `gp`.
    pub fn of<S: AsRef<[R]> + AsMut<[R]>>(gp: &crate::gp::Gp<R, N, D, S>) -> Self {
        let observations = ObservationRecord::all_of(gp);
        let k = gp.kernel();
        ModelRecord {
            observations,
            lengthscales: FixedArray(*k.lengthscales()),
            outputscale: k.outputscale(),
            noise: gp.noise(),
            mean: gp.prior_mean(),
        }
    }

    /// Sets `gp` (empty, of the record's kernel shape) to the record: hyperparameters, then
    /// the observations one by one, each validated again.
    pub fn restore_into<S: AsRef<[R]> + AsMut<[R]>>(
        &self,
        gp: &mut crate::gp::Gp<R, N, D, S>,
    ) -> Result<(), crate::gp::GpError> {
        let kernel =
            crate::kernel::Kernel::new(gp.kernel().shape(), self.lengthscales.0, self.outputscale)
                .map_err(crate::gp::GpError::from)?;
        gp.set_hyperparameters(kernel, self.mean, self.noise)?;
        for o in self.observations.as_slice() {
            o.push_into(gp)?;
        }
        Ok(())
    }
}
