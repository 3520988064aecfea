//! An append-only observation log on NOR flash (feature `journal`), from which a device
//! rebuilds its controller after a reset or a power cut.
//!
//! # Contract (stable)
//!
//! - A journal lives in a region `[start, end)` of any
//!   [`NorFlash`]. [`Journal::format`] erases the region
//!   (it must be aligned to `ERASE_SIZE`) and writes a header with the record shape (`dims`
//!   variables, `memo_len` memo scalars) and a caller `tag` (e.g. a CRC of the experiment
//!   configuration); [`Journal::open`] checks them and refuses another journal with a typed
//!   error.
//! - Each round is one [`Record`]: sequence number, the control set played
//!   ([`SET_INITIAL`] for an uncharged initial observation), the full measured point (`f32`,
//!   physical units), the outcome, the cost paid, and the controller's tagged
//!   [`Memo`] after the round — everything
//!   [`Controller::replay`](crate::driver::Controller::replay) needs. [`replay_into`] feeds a
//!   record to a controller.
//! - A round whose outcome was not measured (a costly measurement the controller told to skip,
//!   [`Controller::skip`](crate::driver::Controller::skip)) is a *skipped* record
//!   ([`Record::skipped`]): the same fields (outcome 0), told apart by its body's mark byte
//!   (`0xA6` instead of `0xA5`), and replayed with
//!   [`Controller::replay_skip`](crate::driver::Controller::replay_skip). Records of measured
//!   rounds keep their bytes, so a journal without skipped rounds is byte for byte what it was
//!   before skipped records existed.
//! - A round of a contextual causal experiment (the experiment file's `[causal]` table: an
//!   arm chosen, its contexts measured before dosing, the action dosed) is a *causal* record
//!   ([`Record::causal`]): `set` is the arm, the point holds the action's doses and the
//!   measured contexts (NaN elsewhere), mark byte `0xA7`. It is not a driver round:
//!   [`replay_into`] refuses it; the causal controller is rebuilt by deciding each recorded
//!   round again from its contexts and outcome (the firmware's `app` module).
//! - Records sit in fixed-size slots. [`Journal::append`] writes a slot's body (with a CRC-32)
//!   first and a commit word after it, each write aligned to the flash's `WRITE_SIZE`, and
//!   writes only erased bytes. A slot counts only when its commit word is complete and its CRC
//!   matches, so a write torn by a power cut is never mistaken for a record.
//! - [`Journal::open`] scans the slots: the valid records, in order, are the appends that
//!   returned `Ok`; a torn slot is skipped and the next append goes after the last slot
//!   written to. [`Journal::records`] reads them back in order.
//! - [`JournalError::Full`] when no slot is left; nothing is written then.
//! - Memos are tagged ([`Memo::write`]). A journal whose records carry memos says so in its
//!   header (memo format 1); a journal written before memos were tagged, with untagged memos,
//!   is refused with [`JournalError::LegacyMemo`] rather than misread. Journals without memos
//!   (`memo_len` 0, the explore-then-commit rules) are the same in both formats.

use embedded_storage::nor_flash::{NorFlash, NorFlashError, NorFlashErrorKind};

use crate::driver::{Controller, DriverError, Memo};
use crate::policy::memo::MEMO_CAPACITY;
use crate::policy::Policy;
use crate::real::Real;

/// Most variables a record holds.
pub const MAX_VARS: usize = 16;

/// Most memo scalars a record holds: a tag and [`MEMO_CAPACITY`] values (running bounds of up
/// to 32 control sets, plus one).
pub const MAX_MEMO: usize = 1 + MEMO_CAPACITY;

/// The `set` of an initial observation (not charged, replayed with
/// [`observe_initial`](crate::driver::Controller::observe_initial)).
pub const SET_INITIAL: u8 = 0xFF;

/// Largest alignment unit supported (`max(READ_SIZE, WRITE_SIZE, 4)`).
pub const MAX_UNIT: usize = 64;

const HEADER_MAGIC: [u8; 4] = *b"cbJ1";
/// Header byte 6 of a journal whose records carry tagged memos.
const MEMO_FORMAT_TAGGED: u8 = 1;
const HEADER_LEN: usize = 16;
const COMMIT: [u8; 4] = *b"cbOK";
const BODY_FIXED: usize = 8;
/// Body byte 7 of a measured round's (or an initial observation's) record.
const MARK_MEASURED: u8 = 0xA5;
/// Body byte 7 of a skipped round's record.
const MARK_SKIPPED: u8 = 0xA6;
/// Body byte 7 of a contextual causal round's record.
const MARK_CAUSAL: u8 = 0xA7;
const MAX_BODY: usize = BODY_FIXED + 4 * (MAX_VARS + 2 + MAX_MEMO) + 4;
const MAX_SLOT: usize = align(MAX_BODY, MAX_UNIT) + MAX_UNIT;

const fn align(n: usize, unit: usize) -> usize {
    n.div_ceil(unit) * unit
}

/// Errors of the journal. An error leaves the journal's records as they were.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JournalError {
    /// The flash reported an error (an append that fails so may have written a torn slot,
    /// which is skipped).
    Flash(NorFlashErrorKind),
    /// No slot is left.
    Full,
    /// The region is not aligned to the flash's units, is too small, or the flash's units are
    /// larger than [`MAX_UNIT`].
    Region,
    /// The region holds no journal header (blank, or a format was interrupted).
    NotFormatted,
    /// The header is another journal's: other record shape or tag.
    Foreign,
    /// A record or shape exceeds [`MAX_VARS`]/[`MAX_MEMO`], or does not match the journal's
    /// shape.
    Shape,
    /// The journal was written with untagged memos (before memos carried a tag): its memos
    /// cannot be read safely. Replay it with the version that wrote it, or start a new one.
    LegacyMemo,
    /// A committed record carries the wrong sequence number (the flash was altered).
    Corrupt,
}

impl core::fmt::Display for JournalError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Flash(kind) => write!(f, "the flash reported an error: {kind}"),
            Self::Full => f.write_str("no journal slot is left"),
            Self::Region => write!(
                f,
                "the journal region is not aligned to the flash's units or is too small, or the \
                 units exceed {MAX_UNIT} bytes"
            ),
            Self::NotFormatted => f.write_str("the region holds no journal header"),
            Self::Foreign => {
                f.write_str("the header is another journal's: other record shape or tag")
            }
            Self::Shape => write!(
                f,
                "a record or shape exceeds {MAX_VARS} variables or {MAX_MEMO} memo scalars, or \
                 does not match the journal's shape"
            ),
            Self::LegacyMemo => f.write_str(
                "the journal was written with untagged memos: replay it with the version that \
                 wrote it, or start a new one",
            ),
            Self::Corrupt => f.write_str(
                "a committed record carries the wrong sequence number (the flash was altered)",
            ),
        }
    }
}

impl core::error::Error for JournalError {}

impl<E: NorFlashError> From<E> for JournalError {
    fn from(e: E) -> Self {
        JournalError::Flash(e.kind())
    }
}

/// One observation as stored.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Record {
    /// Sequence number: the record's index in the journal (assigned by `append`).
    pub seq: u32,
    /// Index of the control set played, or [`SET_INITIAL`].
    pub set: u8,
    /// Outcome.
    pub y: f32,
    /// Cost paid (ignored for initial observations).
    pub cost: f32,
    x: [f32; MAX_VARS],
    dims: u8,
    memo: [f32; MAX_MEMO],
    memo_len: u8,
    skipped: bool,
    causal: bool,
}

impl Record {
    /// A record of set `set` (or [`SET_INITIAL`]) with the measured point `x`, outcome, cost
    /// and memo scalars ([`Memo::write`]); `None` if `x` or `memo` is too long.
    pub fn new(set: u8, x: &[f32], y: f32, cost: f32, memo: &[f32]) -> Option<Record> {
        if x.len() > MAX_VARS || memo.len() > MAX_MEMO {
            return None;
        }
        let mut r = Record {
            seq: 0,
            set,
            y,
            cost,
            x: [0.0; MAX_VARS],
            dims: x.len() as u8,
            memo: [0.0; MAX_MEMO],
            memo_len: memo.len() as u8,
            skipped: false,
            causal: false,
        };
        r.x[..x.len()].copy_from_slice(x);
        r.memo[..memo.len()].copy_from_slice(memo);
        Some(r)
    }

    /// The round of a controller as a record: its set, point (physical units), outcome, cost
    /// and current memo (call after `observe`). `None` if `D > MAX_VARS` or the memo is too
    /// long.
    pub fn of_round<R: Real, const D: usize>(
        set: usize,
        x: &[R; D],
        y: R,
        cost: R,
        memo: &Memo<R>,
    ) -> Option<Record> {
        if D > MAX_VARS || set >= SET_INITIAL as usize {
            return None;
        }
        let mut m = [R::ZERO; MAX_MEMO];
        let k = memo.write(&mut m)?;
        let xs: [f32; D] = core::array::from_fn(|l| x[l].to_f64() as f32);
        let ms: [f32; MAX_MEMO] = core::array::from_fn(|i| m[i].to_f64() as f32);
        Record::new(
            set as u8,
            &xs,
            y.to_f64() as f32,
            cost.to_f64() as f32,
            &ms[..k],
        )
    }

    /// A skipped round's record (see the module documentation): set `set` (not
    /// [`SET_INITIAL`]) with the measured point `x`, the dose cost charged and the memo after
    /// the round; its outcome is 0. `None` if `x` or `memo` is too long or `set` is
    /// [`SET_INITIAL`].
    pub fn skipped(set: u8, x: &[f32], cost: f32, memo: &[f32]) -> Option<Record> {
        if set == SET_INITIAL {
            return None;
        }
        let mut r = Record::new(set, x, 0.0, cost, memo)?;
        r.skipped = true;
        Some(r)
    }

    /// A controller's skipped round as a record ([`of_round`](Self::of_round) for a round
    /// ended with [`skip`](crate::driver::Controller::skip); call after it).
    pub fn of_skipped_round<R: Real, const D: usize>(
        set: usize,
        x: &[R; D],
        cost: R,
        memo: &Memo<R>,
    ) -> Option<Record> {
        let mut r = Record::of_round(set, x, R::ZERO, cost, memo)?;
        r.skipped = true;
        Some(r)
    }

    /// True for a skipped round (its outcome was not measured).
    pub fn is_skipped(&self) -> bool {
        self.skipped
    }

    /// A contextual causal round's record (see the module documentation): arm `arm` (not
    /// [`SET_INITIAL`]), the point `x` (the action's doses and the measured contexts in
    /// physical units, NaN for the other variables), the outcome and the cost paid; no memo
    /// (the causal controller is rebuilt by deciding again). `None` if `x` is too long or
    /// `arm` is [`SET_INITIAL`].
    pub fn causal(arm: u8, x: &[f32], y: f32, cost: f32) -> Option<Record> {
        if arm == SET_INITIAL {
            return None;
        }
        let mut r = Record::new(arm, x, y, cost, &[])?;
        r.causal = true;
        Some(r)
    }

    /// True for a contextual causal round ([`Record::causal`]); its `set` is the arm.
    pub fn is_causal(&self) -> bool {
        self.causal
    }

    /// The measured point.
    pub fn x(&self) -> &[f32] {
        &self.x[..self.dims as usize]
    }

    /// The memo scalars.
    pub fn memo(&self) -> &[f32] {
        &self.memo[..self.memo_len as usize]
    }

    /// True for an initial (uncharged) observation.
    pub fn is_initial(&self) -> bool {
        self.set == SET_INITIAL
    }

    fn body_len(dims: usize, memo_len: usize) -> usize {
        BODY_FIXED + 4 * (dims + 2 + memo_len) + 4
    }

    /// Serialises into `out` (at least `body_len` bytes); returns the length.
    fn write_body(&self, out: &mut [u8]) -> usize {
        out[0..4].copy_from_slice(&self.seq.to_le_bytes());
        out[4] = self.set;
        out[5] = self.dims;
        out[6] = self.memo_len;
        out[7] = if self.causal {
            MARK_CAUSAL
        } else if self.skipped {
            MARK_SKIPPED
        } else {
            MARK_MEASURED
        };
        let mut w = BODY_FIXED;
        let mut put = |v: f32, w: &mut usize| {
            out[*w..*w + 4].copy_from_slice(&v.to_bits().to_le_bytes());
            *w += 4;
        };
        for &v in self.x() {
            put(v, &mut w);
        }
        put(self.y, &mut w);
        put(self.cost, &mut w);
        for &v in self.memo() {
            put(v, &mut w);
        }
        let crc = crate_crc(&out[..w]);
        out[w..w + 4].copy_from_slice(&crc.to_le_bytes());
        w + 4
    }

    /// Parses a body of a journal of the given shape; `None` unless complete and intact.
    fn read_body(b: &[u8], dims: usize, memo_len: usize) -> Option<Record> {
        let n = Record::body_len(dims, memo_len);
        let body = b.get(..n)?;
        let (data, crc) = body.split_at(n - 4);
        if crate_crc(data) != u32::from_le_bytes([crc[0], crc[1], crc[2], crc[3]]) {
            return None;
        }
        let (skipped, causal) = match data[7] {
            MARK_MEASURED => (false, false),
            // Only a played round can be skipped, or be a causal round.
            MARK_SKIPPED if data[4] != SET_INITIAL => (true, false),
            MARK_CAUSAL if data[4] != SET_INITIAL => (false, true),
            _ => return None,
        };
        if data[5] as usize != dims || data[6] as usize != memo_len {
            return None;
        }
        let f = |i: usize| {
            let o = BODY_FIXED + 4 * i;
            f32::from_bits(u32::from_le_bytes([
                data[o],
                data[o + 1],
                data[o + 2],
                data[o + 3],
            ]))
        };
        let mut r = Record {
            seq: u32::from_le_bytes([data[0], data[1], data[2], data[3]]),
            set: data[4],
            y: f(dims),
            cost: f(dims + 1),
            x: [0.0; MAX_VARS],
            dims: dims as u8,
            memo: [0.0; MAX_MEMO],
            memo_len: memo_len as u8,
            skipped,
            causal,
        };
        for l in 0..dims {
            r.x[l] = f(l);
        }
        for i in 0..memo_len {
            r.memo[i] = f(dims + 2 + i);
        }
        Some(r)
    }
}

fn crate_crc(bytes: &[u8]) -> u32 {
    const CRC: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC);
    CRC.checksum(bytes)
}

/// Replays one record into a controller: [`observe_initial`](Controller::observe_initial)
/// for [`SET_INITIAL`], [`replay_skip`](Controller::replay_skip) for a skipped round,
/// [`replay`](Controller::replay) otherwise. A causal record ([`Record::causal`]) is not a
/// driver round: [`DriverError::InvalidMemo`], and nothing changes. On error the controller
/// is unchanged.
pub fn replay_into<R, const N: usize, const D: usize, const M: usize, S, B, P>(
    ctl: &mut Controller<R, N, D, M, S, B, P>,
    record: &Record,
) -> Result<(), DriverError>
where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
    B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
    P: Policy<R, D, M>,
{
    if record.is_causal() {
        return Err(DriverError::InvalidMemo);
    }
    let xs = record.x();
    if xs.len() != D {
        return Err(DriverError::OutOfBounds(xs.len().min(D)));
    }
    let x: [R; D] = core::array::from_fn(|l| R::from_f64(xs[l] as f64));
    let y = R::from_f64(record.y as f64);
    if record.is_initial() {
        return ctl.observe_initial(&x, y);
    }
    let mut m = [R::ZERO; MAX_MEMO];
    for (o, v) in m.iter_mut().zip(record.memo()) {
        *o = R::from_f64(*v as f64);
    }
    let memo = Memo::read(&m[..record.memo().len()]).map_err(|_| DriverError::InvalidMemo)?;
    if record.is_skipped() {
        return ctl.replay_skip(
            record.set as usize,
            &x,
            R::from_f64(record.cost as f64),
            &memo,
        );
    }
    ctl.replay(
        record.set as usize,
        &x,
        y,
        R::from_f64(record.cost as f64),
        &memo,
    )
}

/// Where the slots lie and what they hold.
#[derive(Debug, Clone, Copy)]
struct Geometry {
    unit: usize,
    first_slot: u32,
    slot_len: u32,
    slots: u32,
    dims: usize,
    memo_len: usize,
}

#[allow(clippy::large_enum_variant)] // short-lived, on the stack of one scan step
enum Slot {
    Empty,
    Torn,
    Valid(Record),
}

impl Geometry {
    fn read_slot<F: NorFlash>(&self, flash: &mut F, s: u32) -> Result<Slot, JournalError> {
        let len = self.slot_len as usize;
        let mut buf = [0u8; MAX_SLOT];
        flash.read(self.first_slot + s * self.slot_len, &mut buf[..len])?;
        let buf = &buf[..len];
        if buf.iter().all(|&b| b == 0xFF) {
            return Ok(Slot::Empty);
        }
        let commit = &buf[len - self.unit..];
        if commit[..4] != COMMIT || commit[4..].iter().any(|&b| b != 0) {
            return Ok(Slot::Torn);
        }
        Ok(match Record::read_body(buf, self.dims, self.memo_len) {
            Some(r) => Slot::Valid(r),
            None => Slot::Torn,
        })
    }
}

/// The log: a region of a NOR flash holding a header and fixed-size record slots.
#[derive(Debug)]
pub struct Journal<F> {
    flash: F,
    geo: Geometry,
    // Index of the next slot to write.
    next: u32,
    // Valid records.
    count: u32,
}

impl<F: NorFlash> Journal<F> {
    fn unit() -> Result<usize, JournalError> {
        let unit = F::READ_SIZE.max(F::WRITE_SIZE).max(4);
        let ok = |s: usize| s >= 1 && unit.is_multiple_of(s);
        if unit > MAX_UNIT || !ok(F::READ_SIZE) || !ok(F::WRITE_SIZE) || !ok(4) {
            return Err(JournalError::Region);
        }
        Ok(unit)
    }

    /// Bytes one record slot takes on a flash like `F` for this shape.
    pub fn slot_len(dims: usize, memo_len: usize) -> Result<usize, JournalError> {
        let unit = Self::unit()?;
        if dims > MAX_VARS || memo_len > MAX_MEMO {
            return Err(JournalError::Shape);
        }
        Ok(align(Record::body_len(dims, memo_len), unit) + unit)
    }

    fn check_region(flash: &F, start: u32, end: u32, unit: usize) -> Result<(), JournalError> {
        let cap = flash.capacity() as u64;
        if start >= end
            || end as u64 > cap
            || !(start as usize).is_multiple_of(unit)
            || !(end as usize).is_multiple_of(unit)
        {
            return Err(JournalError::Region);
        }
        Ok(())
    }

    fn header(dims: usize, memo_len: usize, tag: u32) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        h[0..4].copy_from_slice(&HEADER_MAGIC);
        h[4] = dims as u8;
        h[5] = memo_len as u8;
        // Memo format: 1 = tagged. Without memos both formats are the same (0).
        h[6] = if memo_len > 0 { MEMO_FORMAT_TAGGED } else { 0 };
        h[8..12].copy_from_slice(&tag.to_le_bytes());
        let crc = crate_crc(&h[..12]);
        h[12..16].copy_from_slice(&crc.to_le_bytes());
        h
    }

    /// Erases `[start, end)` (aligned to `ERASE_SIZE`, room for at least one record) and
    /// writes an empty journal for records of `dims` variables and `memo_len` memo scalars,
    /// tagged `tag`.
    pub fn format(
        flash: &mut F,
        start: u32,
        end: u32,
        dims: usize,
        memo_len: usize,
        tag: u32,
    ) -> Result<(), JournalError> {
        let unit = Self::unit()?;
        Self::check_region(flash, start, end, unit)?;
        let slot = Self::slot_len(dims, memo_len)?;
        let header_len = align(HEADER_LEN, unit);
        if ((end - start) as usize) < header_len + slot
            || !(start as usize).is_multiple_of(F::ERASE_SIZE)
            || !(end as usize).is_multiple_of(F::ERASE_SIZE)
        {
            return Err(JournalError::Region);
        }
        flash.erase(start, end)?;
        let mut buf = [0xFFu8; MAX_UNIT];
        buf[..HEADER_LEN].copy_from_slice(&Self::header(dims, memo_len, tag));
        flash.write(start, &buf[..header_len])?;
        Ok(())
    }

    /// Opens the journal in `[start, end)`: checks the header against the shape and `tag`,
    /// counts the valid records and places the next append after the last slot written. On
    /// error the flash is handed back with it.
    pub fn open(
        mut flash: F,
        start: u32,
        end: u32,
        dims: usize,
        memo_len: usize,
        tag: u32,
    ) -> Result<Self, (F, JournalError)> {
        match Self::scan(&mut flash, start, end, dims, memo_len, tag) {
            Ok((geo, next, count)) => Ok(Journal {
                flash,
                geo,
                next,
                count,
            }),
            Err(e) => Err((flash, e)),
        }
    }

    fn scan(
        flash: &mut F,
        start: u32,
        end: u32,
        dims: usize,
        memo_len: usize,
        tag: u32,
    ) -> Result<(Geometry, u32, u32), JournalError> {
        let unit = Self::unit()?;
        Self::check_region(flash, start, end, unit)?;
        let slot_len = Self::slot_len(dims, memo_len)?;
        let header_len = align(HEADER_LEN, unit);
        if ((end - start) as usize) < header_len {
            return Err(JournalError::Region);
        }
        let mut buf = [0u8; MAX_UNIT];
        flash.read(start, &mut buf[..header_len])?;
        let h = &buf[..HEADER_LEN];
        if h[0..4] != HEADER_MAGIC
            || crate_crc(&h[..12]) != u32::from_le_bytes([h[12], h[13], h[14], h[15]])
        {
            return Err(JournalError::NotFormatted);
        }
        if h[5] > 0 && h[6] == 0 {
            return Err(JournalError::LegacyMemo);
        }
        if h[..HEADER_LEN] != Self::header(dims, memo_len, tag) {
            return Err(JournalError::Foreign);
        }
        let first_slot = start + header_len as u32;
        let geo = Geometry {
            unit,
            first_slot,
            slot_len: slot_len as u32,
            slots: ((end - first_slot) as usize / slot_len) as u32,
            dims,
            memo_len,
        };
        let (mut next, mut count) = (0, 0);
        for s in 0..geo.slots {
            match geo.read_slot(flash, s)? {
                Slot::Empty => {}
                Slot::Torn => next = s + 1,
                Slot::Valid(r) => {
                    if r.seq != count {
                        return Err(JournalError::Corrupt);
                    }
                    count += 1;
                    next = s + 1;
                }
            }
        }
        Ok((geo, next, count))
    }

    /// Valid records.
    pub fn len(&self) -> usize {
        self.count as usize
    }

    /// True when there is no record.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Slots left for appends.
    pub fn remaining(&self) -> usize {
        (self.geo.slots - self.next) as usize
    }

    /// Appends `record` (its `seq` is set to the journal's length) and returns the sequence
    /// number once the record is durable. A record of another shape is refused with
    /// [`JournalError::Shape`]; with no slot left, [`JournalError::Full`]; nothing is written
    /// then. If the flash fails midway the slot is left torn and skipped.
    pub fn append(&mut self, record: &Record) -> Result<u32, JournalError> {
        let g = self.geo;
        if record.x().len() != g.dims || record.memo().len() != g.memo_len {
            return Err(JournalError::Shape);
        }
        if self.next >= g.slots {
            return Err(JournalError::Full);
        }
        let mut r = *record;
        r.seq = self.count;
        let mut buf = [0xFFu8; MAX_SLOT];
        let n = r.write_body(&mut buf);
        let body = align(n, g.unit);
        let at = g.first_slot + self.next * g.slot_len;
        // From here on the slot is used, whatever happens.
        self.next += 1;
        self.flash.write(at, &buf[..body])?;
        let mut commit = [0u8; MAX_UNIT];
        commit[..4].copy_from_slice(&COMMIT);
        self.flash.write(at + body as u32, &commit[..g.unit])?;
        self.count += 1;
        Ok(r.seq)
    }

    /// The valid records in order (each read from flash when the iterator reaches it).
    pub fn records(&mut self) -> Records<'_, F> {
        Records {
            journal: self,
            slot: 0,
        }
    }

    /// Gives the flash back.
    pub fn release(self) -> F {
        self.flash
    }
}

/// Iterator over a journal's valid records, in order.
pub struct Records<'a, F> {
    journal: &'a mut Journal<F>,
    slot: u32,
}

impl<F: NorFlash> Iterator for Records<'_, F> {
    type Item = Result<Record, JournalError>;

    fn next(&mut self) -> Option<Self::Item> {
        let j = &mut *self.journal;
        while self.slot < j.next {
            let s = self.slot;
            self.slot += 1;
            match j.geo.read_slot(&mut j.flash, s) {
                Ok(Slot::Valid(r)) => return Some(Ok(r)),
                Ok(_) => {}
                Err(e) => {
                    self.slot = j.next;
                    return Some(Err(e));
                }
            }
        }
        None
    }
}
