//! What a decision changes in a rule's state beyond what its observation records, so that
//! [`Controller::replay`](crate::driver::Controller::replay) can rebuild the state without
//! deciding again.
//!
//! Most rules have no such state: their state follows from the observations alone (ETC's
//! group counters from the sets played, the ledger from the costs). The unknown-cost rule's
//! running bounds are intersected with every round's scores when it decides, so it memoes
//! them.
//!
//! A memo is tagged: [`Memo::write`] gives no scalar for the empty memo, and otherwise the tag
//! (a small integer, exact in `f32`) followed by the rule's scalars, so [`Memo::read`] never
//! has to guess a memo's kind from its length. Tags are assigned in one place ([`tags`]).

use crate::real::Real;

/// Most scalars a memo carries besides its tag (running bounds of up to 32 control sets, plus
/// one).
pub const MEMO_CAPACITY: usize = 33;

/// The memo tags of the rules that write memos; no two rules share one.
pub mod tags {
    /// The unknown-cost rule's running bounds: the upper bound of each set, then the lower
    /// bound.
    pub const RUNNING_BOUNDS: u8 = 1;
    /// PBGI-D's count of divisions of `λ` after the round's observation.
    pub const GITTINS_DIVISIONS: u8 = 2;
}

/// A tagged list of up to [`MEMO_CAPACITY`] scalars (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Memo<R> {
    tag: u8,
    len: u8,
    values: [R; MEMO_CAPACITY],
}

/// Why scalars do not form a memo.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoError {
    /// More than [`MEMO_CAPACITY`] scalars, or too short an output.
    Length,
    /// The tag scalar is not a known tag.
    Tag,
}

impl core::fmt::Display for MemoError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Length => write!(
                f,
                "a memo holds at most {MEMO_CAPACITY} scalars, or the output is too short"
            ),
            Self::Tag => f.write_str("the tag scalar is not a known memo tag"),
        }
    }
}

impl core::error::Error for MemoError {}

impl<R: Real> Memo<R> {
    /// The empty memo: nothing beyond the observation.
    pub const EMPTY: Memo<R> = Memo {
        tag: 0,
        len: 0,
        values: [R::ZERO; MEMO_CAPACITY],
    };

    /// A memo of `values` under `tag` (non-zero); `None` if there are too many values or the
    /// tag is 0.
    pub fn new(tag: u8, values: &[R]) -> Option<Self> {
        if tag == 0 || values.len() > MEMO_CAPACITY {
            return None;
        }
        let mut m = Memo {
            tag,
            len: values.len() as u8,
            values: [R::ZERO; MEMO_CAPACITY],
        };
        m.values[..values.len()].copy_from_slice(values);
        Some(m)
    }

    /// The tag (0 for the empty memo).
    pub fn tag(&self) -> u8 {
        self.tag
    }

    /// The rule's scalars.
    pub fn values(&self) -> &[R] {
        &self.values[..self.len as usize]
    }

    /// True for the empty memo.
    pub fn is_empty(&self) -> bool {
        self.tag == 0
    }

    /// Number of scalars [`write`](Self::write) produces: 0 for the empty memo, else the tag
    /// and the values.
    pub fn len(&self) -> usize {
        if self.is_empty() {
            0
        } else {
            1 + self.len as usize
        }
    }

    /// Writes the memo as a flat list of scalars (nothing for the empty memo; else the tag,
    /// then the values) into `out`; returns how many, or `None` (nothing written) if `out` is
    /// too short.
    pub fn write(&self, out: &mut [R]) -> Option<usize> {
        let n = self.len();
        let out = out.get_mut(..n)?;
        if let Some((tag, rest)) = out.split_first_mut() {
            *tag = R::from_usize(self.tag as usize);
            rest.copy_from_slice(self.values());
        }
        Some(n)
    }

    /// Reads a memo written by [`write`](Self::write).
    pub fn read(scalars: &[R]) -> Result<Self, MemoError> {
        let Some((tag, values)) = scalars.split_first() else {
            return Ok(Memo::EMPTY);
        };
        if values.len() > MEMO_CAPACITY {
            return Err(MemoError::Length);
        }
        let t = tag.to_f64();
        if !((1.0..=255.0).contains(&t) && t == (t as u8) as f64) {
            return Err(MemoError::Tag);
        }
        Memo::new(t as u8, values).ok_or(MemoError::Tag)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_what_it_did_not_write() {
        let m = Memo::<f32>::new(tags::RUNNING_BOUNDS, &[1.5, -2.0, 3.25]).unwrap();
        let mut out = [0.0f32; 8];
        assert_eq!(m.write(&mut out), Some(4));
        assert_eq!(out[..4], [1.0, 1.5, -2.0, 3.25]);
        assert_eq!(Memo::read(&out[..4]), Ok(m));
        assert_eq!(Memo::<f32>::EMPTY.write(&mut out), Some(0));
        assert_eq!(Memo::<f32>::read(&[]), Ok(Memo::EMPTY));
        assert_eq!(m.write(&mut out[..3]), None);
        for bad in [0.0f32, 0.5, -1.0, 256.0, f32::NAN] {
            assert_eq!(Memo::read(&[bad, 1.0]), Err(MemoError::Tag), "tag {bad}");
        }
        assert_eq!(
            Memo::<f64>::read(&[1.0; MEMO_CAPACITY + 2]),
            Err(MemoError::Length)
        );
        assert!(Memo::<f64>::new(0, &[1.0]).is_none());
    }
}
