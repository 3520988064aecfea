//! Saving and restoring a [`CandidateController`] with serde (feature `serde`).
//!
//! A controller's state is what it learned and where it is: the posterior's learned part (the
//! scaled mean `μ̂`, the reduction `P̂` and their scale factors; see
//! [`crate::gp::candidates`]), the round, the rounds paid for, the money spent and the
//! generator. The prior, the settings, the budget and the storage are configuration: restore
//! into a controller built with the same ones ([`CandidateController::restore`]). Snapshots
//! are taken between rounds: a round asked but not closed is simply asked again after a
//! restore, and gets the same answer, because the generator is saved with the rest.
//!
//! The state is kept whole rather than as a log of rounds (which
//! [`CandidateController::replay`] also accepts) because the filter's cost does not grow with
//! the rounds but a log does: a snapshot is `M² + M` numbers however long the run.
//!
//! The encoding is a serde tuple (any self-describing or compact format: postcard on a device,
//! JSON on a desktop): a format number, `M`, the round, the paid rounds, the money spent (the
//! ledger's running sum and its compensation term), the
//! observations since the last reset, the two scale factors, `μ̂`, `P̂` row by row, and the
//! generator.

use core::fmt;
use core::marker::PhantomData;

use serde::de::{DeserializeSeed, Error as _, SeqAccess, Visitor};
use serde::ser::SerializeTuple;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::controller::{CandidateController, FeedbackError};
use crate::ledger::Ledger;
use crate::real::Real;

/// The encoding's version: bumped when the field list changes.
const FORMAT: u8 = 2;
/// Number of fields in the tuple.
const FIELDS: usize = 11;

/// A controller's state, borrowed for serialisation ([`CandidateController::snapshot`]).
#[derive(Debug)]
pub struct FeedbackSnapshot<'a, R, S, G>(&'a CandidateController<R, S, G>);

/// Why a snapshot could not be restored. The controller is left as it was: freshly built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RestoreError<E> {
    /// The bytes do not decode as a snapshot (the format's own error).
    Decode(E),
    /// The controller already ran rounds: restore into a freshly built one.
    NotFresh,
    /// A snapshot of another encoding version.
    Format,
    /// A snapshot of a controller over another number of candidates.
    Mismatch,
    /// A value no controller can reach (non-finite, a negative or over-budget spending, more
    /// paid rounds than rounds, scale factors out of range, a posterior variance below zero
    /// or above the prior's).
    Invalid,
}

impl<E: core::fmt::Display> core::fmt::Display for RestoreError<E> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Decode(e) => write!(f, "the bytes do not decode as a snapshot: {e}"),
            Self::NotFresh => {
                f.write_str("the controller already ran rounds: restore into a freshly built one")
            }
            Self::Format => f.write_str("the snapshot is of another encoding version"),
            Self::Mismatch => {
                f.write_str("the snapshot is of a controller over another number of candidates")
            }
            Self::Invalid => f.write_str("the snapshot holds a value no controller can reach"),
        }
    }
}

impl<E: core::error::Error + 'static> core::error::Error for RestoreError<E> {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            Self::Decode(e) => Some(e),
            Self::NotFresh | Self::Format | Self::Mismatch | Self::Invalid => None,
        }
    }
}

impl<R: Real, S: AsRef<[R]> + AsMut<[R]>, G: Serialize> Serialize
    for FeedbackSnapshot<'_, R, S, G>
{
    fn serialize<Ser: Serializer>(&self, s: Ser) -> Result<Ser::Ok, Ser::Error> {
        let c = self.0;
        let (mean_scale, reduction_scale, observations, mu, reduction) = c.posterior.learned();
        let mut t = s.serialize_tuple(FIELDS)?;
        t.serialize_element(&FORMAT)?;
        t.serialize_element(&(c.posterior.len() as u64))?;
        t.serialize_element(&c.round)?;
        t.serialize_element(&c.paid)?;
        t.serialize_element(&c.spent.parts())?;
        t.serialize_element(&(observations as u64))?;
        t.serialize_element(&mean_scale)?;
        t.serialize_element(&reduction_scale)?;
        t.serialize_element(mu)?;
        t.serialize_element(reduction)?;
        t.serialize_element(&c.rng)?;
        t.end()
    }
}

impl<R: Real, S: AsRef<[R]> + AsMut<[R]>, G> CandidateController<R, S, G> {
    /// The state to save, between rounds (`RoundOpen` while a round is open: close it with
    /// `tell` or `skip`, or save before asking).
    pub fn snapshot(&self) -> Result<FeedbackSnapshot<'_, R, S, G>, FeedbackError> {
        if self.open.is_some() {
            return Err(FeedbackError::RoundOpen);
        }
        Ok(FeedbackSnapshot(self))
    }

    /// Restores a snapshot into this controller, which must be freshly built (round 1) with
    /// the prior, settings, budget and storage of the one saved. Every value is checked; on
    /// any error the controller stays as it was.
    pub fn restore<'de, D>(&mut self, d: D) -> Result<(), RestoreError<D::Error>>
    where
        G: Deserialize<'de>,
        D: Deserializer<'de>,
    {
        if self.round != 1 || self.open.is_some() || self.posterior.observations() != 0 {
            return Err(RestoreError::NotFresh);
        }
        let outcome = d.deserialize_tuple(
            FIELDS,
            RestoreVisitor {
                controller: self,
                marker: PhantomData,
            },
        );
        match outcome {
            Ok(Ok(())) => Ok(()),
            Ok(Err(refusal)) => {
                self.posterior.reset();
                Err(refusal.into())
            }
            Err(e) => {
                self.posterior.reset();
                Err(RestoreError::Decode(e))
            }
        }
    }
}

/// What a restore found wrong in a snapshot that decoded.
#[derive(Debug, Clone, Copy)]
enum Refusal {
    Format,
    Mismatch,
    Invalid,
}

impl<E> From<Refusal> for RestoreError<E> {
    fn from(r: Refusal) -> Self {
        match r {
            Refusal::Format => RestoreError::Format,
            Refusal::Mismatch => RestoreError::Mismatch,
            Refusal::Invalid => RestoreError::Invalid,
        }
    }
}

struct RestoreVisitor<'c, 'de, R, S, G> {
    controller: &'c mut CandidateController<R, S, G>,
    marker: PhantomData<&'de ()>,
}

impl<'de, R, S, G> RestoreVisitor<'_, 'de, R, S, G>
where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
    G: Deserialize<'de>,
{
    /// Reads the fields into the posterior's storage and locals; the scalar state and the
    /// generator are applied only once every check passed.
    fn read<A: SeqAccess<'de>>(&mut self, seq: &mut A) -> Result<Result<(), Refusal>, A::Error> {
        let c = &mut *self.controller;
        let missing = || A::Error::invalid_length(0, &"a feedback controller snapshot");
        // Every field is read before any is judged: a compact format (postcard) cannot skip
        // the rest of a refused snapshot, and a self-describing one would report it as
        // trailing data.
        let format: u8 = seq.next_element()?.ok_or_else(missing)?;
        let m: u64 = seq.next_element()?.ok_or_else(missing)?;
        let round: u32 = seq.next_element()?.ok_or_else(missing)?;
        let paid: u32 = seq.next_element()?.ok_or_else(missing)?;
        let (spent, error): (R, R) = seq.next_element()?.ok_or_else(missing)?;
        let observations: u64 = seq.next_element()?.ok_or_else(missing)?;
        let mean_scale: R = seq.next_element()?.ok_or_else(missing)?;
        let reduction_scale: R = seq.next_element()?.ok_or_else(missing)?;
        let (a, b, obs, mu, reduction) = c.posterior.learned_mut();
        let mu_ok = seq.next_element_seed(FillSlice(mu))?.ok_or_else(missing)?;
        let reduction_ok = seq
            .next_element_seed(FillSlice(reduction))?
            .ok_or_else(missing)?;
        *a = mean_scale;
        *b = reduction_scale;
        *obs = usize::try_from(observations).unwrap_or(usize::MAX);
        let rng: G = seq.next_element()?.ok_or_else(missing)?;
        let budget = c.price.map(|(_, budget)| budget);
        let ledger = Ledger::from_parts(spent, error);
        let spent_ok = spent.is_finite()
            && error.is_finite()
            && ledger.total() >= R::ZERO
            && match budget {
                // Paid measurements never take the ledger past what it affords.
                Some(budget) => ledger.affords(R::ZERO, budget),
                None => spent == R::ZERO && error == R::ZERO,
            };
        if format != FORMAT {
            return Ok(Err(Refusal::Format));
        }
        if m != c.posterior.len() as u64 {
            return Ok(Err(Refusal::Mismatch));
        }
        let counts_ok = round >= 1 && paid < round && observations <= u64::from(paid);
        if !(mu_ok && reduction_ok && spent_ok && counts_ok && c.posterior.learned_is_valid()) {
            return Ok(Err(Refusal::Invalid));
        }
        c.round = round;
        c.paid = paid;
        c.spent = ledger;
        c.rng = rng;
        Ok(Ok(()))
    }
}

impl<'de, R, S, G> Visitor<'de> for RestoreVisitor<'_, 'de, R, S, G>
where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
    G: Deserialize<'de>,
{
    type Value = Result<(), Refusal>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a feedback controller snapshot")
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<Self::Value, A::Error> {
        self.read(&mut seq)
    }
}

/// Decodes a sequence into a slice of exactly its length; the value says whether the length
/// matched and every number is finite.
struct FillSlice<'s, R>(&'s mut [R]);

impl<'de, R: Real> DeserializeSeed<'de> for FillSlice<'_, R> {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, R: Real> Visitor<'de> for FillSlice<'_, R> {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a sequence of {} numbers", self.0.len())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        let mut n = 0;
        let mut finite = true;
        while let Some(v) = seq.next_element::<R>()? {
            if let Some(slot) = self.0.get_mut(n) {
                *slot = v;
            }
            finite &= v.is_finite();
            n += 1;
        }
        Ok(finite && n == self.0.len())
    }
}
