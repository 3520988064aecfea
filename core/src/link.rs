//! The host–device protocol (feature `link`): one definition for the firmware and the desktop.
//!
//! # Contract (stable; version [`VERSION`])
//!
//! **Framing.** A message is serialised with postcard, the CRC-32 (ISO-HDLC, the zlib/Ethernet
//! CRC) of those bytes is appended little-endian, the whole is COBS-encoded and a `0x00`
//! delimiter ends the frame: `COBS(postcard(msg) ++ crc32_le) ++ [0x00]`. A frame holds at most
//! [`MAX_PAYLOAD`] payload bytes and takes at most [`MAX_FRAME`] bytes on the wire. A sender
//! may put a lone `0x00` before a frame to flush a receiver's partial garbage; the
//! [`FrameDecoder`] ignores empty frames. Encode with [`encode`] into a caller buffer, decode
//! byte by byte with [`FrameDecoder::push`]; malformed input gives a typed [`LinkError`] at
//! its delimiter and never panics.
//!
//! **Values** travel as `f32` in *physical units* (the units of the problem's variable bounds),
//! in the problem's variable order, `D ≤` [`MAX_VARS`] of them. Rounds count charged
//! rounds from 0 (the controller's [`rounds`](crate::driver::Controller::rounds)): round `r`
//! is the decision made after `r` observations (with a costly measurement, `r` observed or
//! skipped rounds).
//!
//! **Conversation.** The device speaks first:
//!
//! 1. At boot (and after replaying its journal) the device sends [`DeviceMessage::Hello`] with
//!    the round it is at; it answers every [`HostMessage::Ping`] with `Hello` too.
//! 2. The host sends [`HostMessage::Start`]; the device decides and sends
//!    [`DeviceMessage::Decision`] for the current round (again the same decision if it is
//!    asked again before the round is observed: decisions are deterministic).
//! 3. The host sends [`HostMessage::Measurement`] with the sensor reading of *every* variable
//!    (controlled ones as dosed, the others as the source gave them), then
//!    [`HostMessage::Outcome`] with the outcome and the cost paid.
//! 4. The device observes, appends the round to its journal and sends [`DeviceMessage::Ack`]
//!    once the record is durable; then it decides the next round (back to 2 without waiting
//!    for another `Start`).
//! 5. When the budget cannot pay another decision the device sends [`DeviceMessage::Done`]
//!    with its recommendation. [`HostMessage::Stop`] ends the experiment early (the device
//!    answers with `Done`).
//!
//! Anything out of place (a wrong round, a message the device does not expect, a value it
//! refuses) is answered with [`DeviceMessage::Error`] and changes nothing; the host may then
//! send `Ping` to learn where the device stands.
//!
//! A power cut loses at most the round in flight: after reboot the `Hello` round says whether
//! the last outcome was journaled (round advanced) or not (the same round is decided again,
//! identically).
//!
//! **Costly measurement.** When the experiment makes measuring the outcome costly (its
//! `[measurement]` table; the controller has a
//! [`MeasurementRule`](crate::driver::MeasurementRule)), step 3 becomes a question:
//!
//! 3. After the `Measurement` the device asks its controller
//!    ([`Controller::query`](crate::driver::Controller::query)) and sends
//!    [`DeviceMessage::Query`] with the answer. If it says measure, the device runs the growth
//!    measurement (the growth period) and the host sends `Outcome` (the dose's cost; the
//!    device charges the measurement's cost itself). If it says skip, the device measures
//!    nothing and the host sends [`HostMessage::Skipped`] with the dose's cost.
//! 4. Either way the device journals the round (a skipped round as a skipped record) and sends
//!    `Ack`. An `Outcome` for a round told to skip is refused with
//!    [`ErrorCode::NotMeasured`], a `Skipped` for a round told to measure with
//!    [`ErrorCode::MeasurementDue`].
//!
//! **Contexts measured before dosing.** When the experiment is a contextual causal one (its
//! `[causal]` table: arms, each dosing one control set after measuring its context
//! variables), step 2 begins with a question:
//!
//! 2. The device chooses the round's arm and sends [`DeviceMessage::MeasureContexts`] with the
//!    variables to measure. The host measures them (the source water as it is, before any
//!    dose) and sends [`HostMessage::Contexts`] with one reading per variable (`NaN` for the
//!    variables not asked for). The device reads its context sensors, chooses the action with
//!    the contexts held, and sends `Decision` (the arm's control set, the doses, the UCB
//!    value as `score`); the round goes on at 3 as above. `Start` while the device waits for
//!    the contexts repeats `MeasureContexts`.
//!
//! Without a costly measurement or contexts nothing of this happens and the conversation is
//! the one above. The new messages and codes are appended to their enums, so every message of
//! the plain conversation encodes the same with or without them, and [`VERSION`] stays 1: a host that does not
//! know `Query` or `MeasureContexts` only meets them with an experiment file it cannot mirror
//! anyway (the `config` of `Hello` differs).

use serde::{Deserialize, Serialize};

/// Protocol version carried by [`DeviceMessage::Hello`].
pub const VERSION: u16 = 1;

/// Most variables a message carries.
pub const MAX_VARS: usize = 16;

/// Most bytes of a serialised message (before the CRC and COBS).
pub const MAX_PAYLOAD: usize = 128;

/// Most bytes of a frame on the wire: COBS of payload and CRC, plus the delimiter.
pub const MAX_FRAME: usize = cobs_max(MAX_PAYLOAD + 4) + 1;

/// Decoder capacity that holds any message of this protocol ([`MAX_PAYLOAD`] plus the CRC).
pub const DECODER_CAPACITY: usize = MAX_PAYLOAD + 4;

/// Up to [`MAX_VARS`] values, physical units, in variable order (serialised as a sequence:
/// a varint count, then the values).
pub type Values = heapless::Vec<f32, MAX_VARS>;

/// The CRC-32 used by frames and by the journal (ISO-HDLC: zlib's `crc32`).
pub const CRC32: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC);

/// Longest COBS encoding of `n` bytes (one overhead byte per 254, at least one).
pub const fn cobs_max(n: usize) -> usize {
    n + n / 254 + 1
}

/// Why a device refused a message or could not go on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ErrorCode {
    /// A frame arrived damaged (COBS, CRC, overflow or undecodable); it was dropped.
    BadFrame,
    /// The message is not expected now (for example an `Outcome` before a `Measurement`).
    Unexpected,
    /// The message names another round than the current one.
    WrongRound,
    /// The measurement was refused: wrong number of values, non-finite, out of bounds, or a
    /// controlled variable that differs from the decided value.
    InvalidMeasurement,
    /// The outcome or cost was refused (non-finite, cost not positive).
    InvalidOutcome,
    /// The controller could not decide (a [`DriverError`](crate::driver::DriverError) other
    /// than an exhausted budget).
    Controller,
    /// The journal is full: the observation was not stored (and not observed).
    JournalFull,
    /// The flash failed; the observation may not be durable.
    Storage,
    /// Another, device-specific reason.
    Other(u16),
    /// An `Outcome` for a round the controller told to skip measuring (costly measurement).
    NotMeasured,
    /// A `Skipped` for a round the controller told to measure (costly measurement).
    MeasurementDue,
}

impl core::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::BadFrame => f.write_str("a frame arrived damaged and was dropped"),
            Self::Unexpected => f.write_str("the message is not expected now"),
            Self::WrongRound => f.write_str("the message names another round than the current one"),
            Self::InvalidMeasurement => f.write_str("the measurement was refused"),
            Self::InvalidOutcome => f.write_str("the outcome or cost was refused"),
            Self::Controller => f.write_str("the controller could not decide"),
            Self::JournalFull => f.write_str("the journal is full: the observation was not stored"),
            Self::Storage => f.write_str("the flash failed: the observation may not be durable"),
            Self::Other(code) => write!(f, "device-specific error {code}"),
            Self::NotMeasured => {
                f.write_str("an outcome arrived for a round the controller told to skip measuring")
            }
            Self::MeasurementDue => {
                f.write_str("a skip arrived for a round the controller told to measure")
            }
        }
    }
}

impl core::error::Error for ErrorCode {}

/// Messages from the device to the host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum DeviceMessage {
    /// At boot, after resume, and in answer to `Ping`: where the device stands.
    Hello {
        /// Protocol version ([`VERSION`]).
        version: u16,
        /// Identifier of the experiment configuration the firmware was built with (the
        /// firmware's choice, e.g. a CRC-32 of its configuration); the host may check it.
        config: u32,
        /// The round the device is at (rounds played so far: observed, or skipped under a
        /// costly measurement; replayed ones included).
        round: u32,
        /// Budget spent.
        spent: f32,
        /// Total budget.
        budget: f32,
    },
    /// The decision of round `round`.
    Decision {
        /// Round.
        round: u32,
        /// Index of the control set in the problem.
        set: u8,
        /// One value per variable (all `D`): the value to dose for the controlled variables,
        /// `NaN` for the variables left to chance.
        values: Values,
        /// The acquisition value that won (lets the host compare decisions bit for bit).
        score: f32,
    },
    /// The observation of round `round` is in the journal (durable).
    Ack {
        /// Round observed.
        round: u32,
    },
    /// The budget cannot pay another decision (or the host sent `Stop`): the recommendation.
    Done {
        /// Rounds observed.
        round: u32,
        /// Budget spent.
        spent: f32,
        /// Recommended control set.
        set: u8,
        /// Recommended values, as in [`DeviceMessage::Decision`] (`NaN` where left to chance).
        values: Values,
        /// Expected posterior mean of the recommendation.
        score: f32,
    },
    /// A message was refused or the device cannot go on.
    Error {
        /// Why.
        code: ErrorCode,
        /// The round the device is at.
        round: u32,
    },
    /// With a costly measurement, the answer to round `round`'s `Measurement`: whether to
    /// measure the outcome (see the module documentation).
    Query {
        /// Round.
        round: u32,
        /// Measure (the host then sends `Outcome`) or not (`Skipped`).
        measure: bool,
        /// The smallest confidence probability over the competitors (1 when the rule has no
        /// test), so that the host can compare answers bit for bit.
        min_probability: f32,
    },
    /// In a contextual causal experiment: round `round` plays arm `arm`, which needs the
    /// variables of `contexts` measured before it doses (see the module documentation).
    MeasureContexts {
        /// Round.
        round: u32,
        /// The arm chosen (its index in the experiment's arm table).
        arm: u8,
        /// The variables to measure: bit `l` for variable `l`.
        contexts: u32,
    },
}

/// Messages from the host to the device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum HostMessage {
    /// Begin (or continue after `Hello`) the experiment.
    Start,
    /// The sensor readings of every variable for round `round` (in QEMU they feed the simulated
    /// sensor).
    Measurement {
        /// Round.
        round: u32,
        /// One reading per variable, physical units.
        values: Values,
    },
    /// The outcome of round `round` and the cost paid.
    Outcome {
        /// Round.
        round: u32,
        /// Outcome (e.g. growth).
        y: f32,
        /// Cost paid.
        cost: f32,
    },
    /// Ask for a `Hello`.
    Ping,
    /// End the experiment now; the device answers with `Done`.
    Stop,
    /// With a costly measurement: round `round`'s outcome was not measured, as the device's
    /// `Query` said; `cost` is the dose's cost paid.
    Skipped {
        /// Round.
        round: u32,
        /// Cost paid for the dose.
        cost: f32,
    },
    /// In a contextual causal experiment: the readings asked for by `MeasureContexts` for
    /// round `round`, one per variable in physical units (`NaN` for those not asked for).
    Contexts {
        /// Round.
        round: u32,
        /// One reading per variable.
        values: Values,
    },
}

/// Errors of framing and deframing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkError {
    /// The output buffer is too small for the frame, or the message exceeds [`MAX_PAYLOAD`].
    BufferTooSmall,
    /// A received frame did not fit the decoder's buffer.
    Overflow,
    /// A received frame is not valid COBS.
    Cobs,
    /// A received frame's CRC does not match (or it is shorter than the CRC).
    Crc,
    /// A received frame's payload is not a valid message.
    Decode,
}

impl core::fmt::Display for LinkError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::BufferTooSmall => write!(
                f,
                "the output buffer is too small for the frame, or the message exceeds \
                 {MAX_PAYLOAD} bytes"
            ),
            Self::Overflow => f.write_str("a received frame did not fit the decoder's buffer"),
            Self::Cobs => f.write_str("a received frame is not valid cobs"),
            Self::Crc => f.write_str("a received frame's crc does not match"),
            Self::Decode => f.write_str("a received frame's payload is not a valid message"),
        }
    }
}

impl core::error::Error for LinkError {}

/// Frames `msg` into `out`: `COBS(postcard(msg) ++ crc32_le) ++ [0x00]`. Returns the frame's
/// length; on error `out` may hold partial bytes.
pub fn encode<T: Serialize>(msg: &T, out: &mut [u8]) -> Result<usize, LinkError> {
    let mut raw = [0u8; MAX_PAYLOAD + 4];
    let n = postcard::to_slice(msg, &mut raw[..MAX_PAYLOAD])
        .map_err(|_| LinkError::BufferTooSmall)?
        .len();
    let crc = CRC32.checksum(&raw[..n]);
    raw[n..n + 4].copy_from_slice(&crc.to_le_bytes());
    encode_raw(&raw[..n + 4], out)
}

/// COBS-encodes `data` into `out` and appends the delimiter; returns the length written.
pub fn encode_raw(data: &[u8], out: &mut [u8]) -> Result<usize, LinkError> {
    if out.len() < cobs_max(data.len()) + 1 {
        return Err(LinkError::BufferTooSmall);
    }
    // The `cobs` crate writes nothing for empty data; standard COBS (and this protocol's
    // earlier encoder) writes one code byte 0x01 for it.
    let n = if data.is_empty() {
        out[0] = 1;
        1
    } else {
        cobs::try_encode(data, out).map_err(|_| LinkError::BufferTooSmall)?
    };
    *out.get_mut(n).ok_or(LinkError::BufferTooSmall)? = 0;
    Ok(n + 1)
}

/// A byte-at-a-time frame decoder holding up to `B` decoded bytes (payload and CRC; use
/// [`DECODER_CAPACITY`] for this protocol's messages).
///
/// Feed every received byte to [`push`](Self::push); at each delimiter it returns the frame's
/// message or why the frame was dropped, and starts afresh, so garbage costs at most the frame
/// it touches. The COBS state machine is the `cobs` crate's [`cobs::DecoderState`]; this type
/// adds the buffer, the overflow flag and the CRC check.
#[derive(Debug)]
pub struct FrameDecoder<const B: usize> {
    buf: heapless::Vec<u8, B>,
    state: cobs::DecoderState,
    overflow: bool,
}

impl<const B: usize> Clone for FrameDecoder<B> {
    fn clone(&self) -> Self {
        use cobs::DecoderState::*;
        // `cobs::DecoderState` is neither `Clone` nor `Copy` (clippy's `self.state` would be a
        // move out of a borrow); its variants are public and plain, so rebuild it.
        #[allow(clippy::needless_match)]
        let state = match self.state {
            Idle => Idle,
            Grab(n) => Grab(n),
            GrabChain(n) => GrabChain(n),
        };
        FrameDecoder {
            buf: self.buf.clone(),
            state,
            overflow: self.overflow,
        }
    }
}

impl<const B: usize> Default for FrameDecoder<B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const B: usize> FrameDecoder<B> {
    /// An empty decoder.
    pub const fn new() -> Self {
        FrameDecoder {
            buf: heapless::Vec::new(),
            state: cobs::DecoderState::Idle,
            overflow: false,
        }
    }

    /// Forgets a partial frame.
    pub fn reset(&mut self) {
        self.buf.clear();
        self.state = cobs::DecoderState::Idle;
        self.overflow = false;
    }

    /// Takes one byte. At a delimiter ending a non-empty frame, returns the decoded message or
    /// the frame's error; otherwise `None`.
    pub fn push<T: serde::de::DeserializeOwned>(
        &mut self,
        byte: u8,
    ) -> Option<Result<T, LinkError>> {
        self.push_raw(byte).map(|r| {
            r.and_then(|payload| postcard::from_bytes(payload).map_err(|_| LinkError::Decode))
        })
    }

    /// Like [`push`](Self::push), but returns the checked payload (CRC removed) instead of
    /// decoding it.
    pub fn push_raw(&mut self, byte: u8) -> Option<Result<&[u8], LinkError>> {
        if matches!(self.state, cobs::DecoderState::Idle) {
            // Between frames: what the buffer holds is the last frame's payload, which the
            // previous call lent out. Start afresh.
            self.buf.clear();
            self.overflow = false;
        }
        match self.state.feed(byte) {
            // A code byte, or a delimiter outside a frame (an idle line or a flush).
            Ok(cobs::DecodeResult::NoData) => None,
            Ok(cobs::DecodeResult::DataContinue(b)) => {
                if self.buf.push(b).is_err() {
                    // Keep reading to the delimiter, so that the next frame starts clean.
                    self.overflow = true;
                }
                None
            }
            // The state machine is idle again; the buffer is emptied at the next byte.
            Ok(cobs::DecodeResult::DataComplete) => Some(if self.overflow {
                Err(LinkError::Overflow)
            } else {
                check_crc(&self.buf)
            }),
            // A delimiter inside a block: the frame ended early. The state machine is idle.
            Err(_) => {
                let overflow = self.overflow;
                self.reset();
                Some(Err(if overflow {
                    LinkError::Overflow
                } else {
                    LinkError::Cobs
                }))
            }
        }
    }
}

fn check_crc(frame: &[u8]) -> Result<&[u8], LinkError> {
    if frame.len() < 4 {
        return Err(LinkError::Crc);
    }
    let (payload, crc) = frame.split_at(frame.len() - 4);
    let want = u32::from_le_bytes([crc[0], crc[1], crc[2], crc[3]]);
    if CRC32.checksum(payload) == want {
        Ok(payload)
    } else {
        Err(LinkError::Crc)
    }
}

/// `D` decision values (`None`: left to chance) as message values (`NaN` there); `None` if
/// `D > MAX_VARS`.
pub fn values_from_options<R: crate::Real, const D: usize>(v: &[Option<R>; D]) -> Option<Values> {
    if D > MAX_VARS {
        return None;
    }
    let mut out = Values::new();
    for x in v {
        out.push(x.map_or(f32::NAN, |x| x.to_f64() as f32)).ok()?;
    }
    Some(out)
}

/// Message values as a point of `D` variables; `None` unless there are exactly `D` values.
pub fn values_to_array<const D: usize>(v: &Values) -> Option<[f32; D]> {
    let s = v.as_slice();
    (s.len() == D).then(|| core::array::from_fn(|l| s[l]))
}
