//! The firmware's application (its host build: simulated pumps, sensors and NOR flash)
//! against a hostile host.

use std::cell::RefCell;
use std::rc::Rc;

use costbo_core::link::{DeviceMessage, HostMessage, Values};
use costbo_firmware::app::{App, AppError};
use costbo_firmware::drivers::pumps::Pumps;
use costbo_firmware::drivers::sensor::Sensors;
use costbo_firmware::experiment::{BANK, CONFIG_ID, D, FACTOR_LEN, M, N, SPEC};
use costbo_firmware::journal;
use costbo_firmware::sim::{FileFlash, SimClock, SimDelay, SimPin, SimSensorBus};
use costbo_firmware_host_tests::{RamFile, Responder, ScriptedLink};

use crate::bytes::Bytes;

type Flash = FileFlash<RamFile, 65536, 4096>;

/// The host's script: the fuzz bytes, read one answer at a time.
struct Script {
    data: Vec<u8>,
    at: usize,
    last_decision: Option<(u32, u8, Values)>,
}

impl Script {
    /// The messages the host answers `m` with, from the next bytes; nothing once they are
    /// spent (the host goes silent and the run ends).
    fn answer(&mut self, m: &DeviceMessage) -> Vec<HostMessage> {
        if let DeviceMessage::Decision {
            round, set, values, ..
        } = m
        {
            self.last_decision = Some((*round, *set, values.clone()));
        }
        let mut bytes = Bytes::new(&self.data[self.at..]);
        if bytes.is_empty() {
            return vec![];
        }
        let before = bytes.remaining();
        let count = 1 + bytes.u8() % 3;
        let mut out = Vec::new();
        for _ in 0..count {
            out.extend(self.one(&mut bytes));
        }
        let used = before - bytes.remaining();
        self.at += used;
        out
    }

    fn one(&self, bytes: &mut Bytes) -> Vec<HostMessage> {
        let round = |bytes: &mut Bytes, near: u32| match bytes.u8() % 4 {
            0 => bytes.u32(),
            k => near.wrapping_add(u32::from(k)).wrapping_sub(2),
        };
        let near = self.last_decision.as_ref().map_or(0, |d| d.0);
        match bytes.u8() % 8 {
            // A plausible host: the doses as measured, the source water elsewhere, a finite
            // outcome and the set's cost; this is what lets the experiment advance.
            0 | 1 => match self.last_decision.clone() {
                Some((r, set, values)) => {
                    let x: Vec<f32> = values
                        .as_slice()
                        .iter()
                        .enumerate()
                        .map(|(l, v)| {
                            if v.is_nan() {
                                let var = &SPEC.variables[l];
                                let t = f64::from(bytes.u8()) / 255.0;
                                (var.lower + (var.upper - var.lower) * t) as f32
                            } else {
                                *v
                            }
                        })
                        .collect();
                    let y = f32::from(bytes.u8()) / 64.0 - 1.0;
                    vec![
                        HostMessage::Measurement {
                            round: r,
                            values: Values::from_slice(&x).expect("D ≤ 16 values"),
                        },
                        HostMessage::Outcome {
                            round: r,
                            y,
                            cost: SPEC.cost(usize::from(set)).unwrap_or(1.0) as f32,
                        },
                    ]
                }
                None => vec![HostMessage::Start],
            },
            2 => vec![HostMessage::Start],
            3 => vec![HostMessage::Ping],
            4 => vec![HostMessage::Stop],
            // Lies: wrong rounds, wrong lengths, any bits (NaN, ∞, 1e30, subnormals).
            5 => {
                let r = round(bytes, near);
                let n = usize::from(bytes.u8()) % (D + 2);
                let v: Vec<f32> = (0..n).map(|_| bytes.f32()).collect();
                vec![HostMessage::Measurement {
                    round: r,
                    values: Values::from_slice(&v).expect("at most D + 1 ≤ 16 values"),
                }]
            }
            6 => {
                let r = round(bytes, near);
                vec![HostMessage::Outcome {
                    round: r,
                    y: bytes.f32(),
                    cost: bytes.f32(),
                }]
            }
            _ => vec![],
        }
    }
}

/// Boots a device on `file` and runs it against a host answering from `data` until the host
/// goes silent; returns the messages it sent and the round it ended at.
fn session(file: &RamFile, data: &[u8], garbage: &[u8]) -> (Vec<DeviceMessage>, u32) {
    let clock = SimClock::new();
    let mut factor = vec![0.0f32; FACTOR_LEN];
    let mut bank = vec![[0.0f32; D]; BANK];
    let ctl = SPEC
        .controller::<f32, N, D, M, _, _>(&mut factor[..], &mut bank[..])
        .expect("the shipped experiment builds a controller");
    let pumps = Pumps::new([SimPin::new(&clock); D], SimDelay::new(&clock)).expect("pumps");
    let sensors = Sensors::new(SimSensorBus::<D>::new(&SPEC));
    let (j, _) = journal::open(Flash::new(file.clone()), 0, 65536, false)
        .expect("the journal opens (formatting a blank one)");
    let script = Rc::new(RefCell::new(Script {
        data: data.to_vec(),
        at: 0,
        last_decision: None,
    }));
    let host = script.clone();
    let responder: Responder = Box::new(move |m| host.borrow_mut().answer(m));
    let mut link = ScriptedLink::new(&[], responder);
    link.push_raw(garbage);
    let mut app = App::new(
        &SPEC,
        CONFIG_ID,
        ctl,
        pumps,
        sensors,
        link,
        j,
        String::new(),
    );
    // The host's bytes are finite, so it falls silent and the device stops on end of stream.
    assert_eq!(app.run(), AppError::Link);
    let round = app.round();
    let sent = std::mem::take(&mut app.link().sent);
    (sent, round)
}

/// A hostile host: garbage first, then every device message answered from the bytes with
/// plausible answers, repeated or missing `Start`s, `Stop`, and lies (rounds off by one or
/// anything, values of any bits and count, outcomes and costs of any bits). The device must
/// send only valid frames (the scripted link decodes each), never dose outside a variable's
/// bounds, acknowledge rounds in order, and stop only when the host is silent; a reboot on
/// the same flash must replay the journal to the round the device had reached.
pub fn firmware_app(data: &[u8]) {
    let mut bytes = Bytes::new(data);
    let garbage_len = usize::from(bytes.u8() % 32);
    let garbage = bytes.take(garbage_len).to_vec();
    let file = RamFile::default();
    let (sent, round) = session(&file, bytes.rest(), &garbage);
    let mut acked = Vec::new();
    for m in &sent {
        match m {
            DeviceMessage::Decision { values, .. } => {
                assert_eq!(values.as_slice().len(), D);
                for (l, v) in values.as_slice().iter().enumerate() {
                    let var = &SPEC.variables[l];
                    let inside = v.is_nan()
                        || (f64::from(*v) >= var.lower - 1e-4 * (var.upper - var.lower)
                            && f64::from(*v) <= var.upper + 1e-4 * (var.upper - var.lower));
                    assert!(inside, "dose {v} of variable {l} outside its bounds");
                }
            }
            DeviceMessage::Ack { round } => acked.push(*round),
            _ => {}
        }
    }
    for (i, r) in acked.iter().enumerate() {
        assert_eq!(*r as usize, i, "acknowledgements out of order: {acked:?}");
    }
    assert_eq!(
        acked.len() as u32,
        round,
        "rounds observed but not acknowledged"
    );
    // Reboot on the same flash with a silent host: the journal brings back every round.
    let (hello, replayed_round) = session(&file, &[], &[]);
    assert_eq!(replayed_round, round);
    assert!(matches!(
        hello.first(),
        Some(DeviceMessage::Hello { round: r, .. }) if *r == round
    ));
}
