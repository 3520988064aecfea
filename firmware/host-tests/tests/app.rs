//! The controller application over a scripted host: whole experiments, a power cut and the
//! resume, the host rebuilding every decision from the journal, and every refusal.

use std::cell::RefCell;
use std::rc::Rc;

use costbo_core::link::{DeviceMessage, ErrorCode, HostMessage, Values};
use costbo_firmware::app::{App, AppError, Phase};
use costbo_firmware::drivers::pumps::Pumps;
use costbo_firmware::drivers::sensor::Sensors;
use costbo_firmware::experiment::{BANK, CONFIG_ID, D, FACTOR_LEN, M, N, SPEC};
use costbo_firmware::journal;
use costbo_firmware::sim::{FileFlash, SimClock, SimDelay, SimPin, SimSensorBus};
use costbo_firmware_host_tests::{RamFile, Responder, ScriptedLink};

type Flash = FileFlash<RamFile, 65536, 4096>;
type TestApp =
    App<'static, SimPin<'static>, SimDelay<'static>, SimSensorBus<D>, ScriptedLink, Flash, String>;

/// A booted-from-scratch device on the journal in `file`, talking to `link`.
fn device(file: &RamFile, link: ScriptedLink) -> TestApp {
    let clock: &'static SimClock = Box::leak(Box::new(SimClock::new()));
    let factor: &'static mut [f32] = Box::leak(vec![0.0f32; FACTOR_LEN].into_boxed_slice());
    let bank: &'static mut [[f32; D]] = Box::leak(vec![[0.0f32; D]; BANK].into_boxed_slice());
    let ctl = SPEC.controller::<f32, N, D, M, _, _>(factor, bank).unwrap();
    let pumps = Pumps::new([SimPin::new(clock); D], SimDelay::new(clock)).unwrap();
    let sensors = Sensors::new(SimSensorBus::<D>::new(&SPEC));
    let (j, _) = journal::open(Flash::new(file.clone()), 0, 65536, false).unwrap();
    App::new(
        &SPEC,
        CONFIG_ID,
        ctl,
        pumps,
        sensors,
        link,
        j,
        String::new(),
    )
}

/// The source water of the toy host: a deterministic point inside the bounds.
fn water(round: u32, l: usize) -> f32 {
    let v = &SPEC.variables[l];
    let t = ((round as usize * 7 + l * 3) % 10) as f64 / 10.0;
    (v.lower + (v.upper - v.lower) * (0.05 + 0.9 * t)) as f32
}

fn growth(x: &[f32]) -> f32 {
    let mut s = 0.0;
    for (l, &v) in x.iter().enumerate() {
        let var = &SPEC.variables[l];
        let u = (v as f64 - var.lower) / (var.upper - var.lower);
        s += (u - 0.6) * (u - 0.6);
    }
    (1.0 - s) as f32
}

/// A host that starts the experiment, answers every decision with a measurement and an
/// outcome, and goes silent (a power cut) when the decision of round `cut` arrives.
fn playing_host(cut: Option<u32>) -> Responder {
    Box::new(move |m: &DeviceMessage| match m {
        DeviceMessage::Hello { .. } => vec![HostMessage::Start],
        DeviceMessage::Decision {
            round, set, values, ..
        } => {
            if Some(*round) == cut {
                return vec![];
            }
            let x: Vec<f32> = values
                .as_slice()
                .iter()
                .enumerate()
                .map(|(l, v)| if v.is_nan() { water(*round, l) } else { *v })
                .collect();
            vec![
                HostMessage::Measurement {
                    round: *round,
                    values: Values::from_slice(&x).unwrap(),
                },
                HostMessage::Outcome {
                    round: *round,
                    y: growth(&x),
                    cost: SPEC.cost(*set as usize).unwrap(),
                },
            ]
        }
        _ => vec![],
    })
}

fn run(app: &mut TestApp) {
    assert_eq!(app.run(), AppError::Link); // the scripted host ran out of messages
}

fn decisions(sent: &[DeviceMessage]) -> Vec<DeviceMessage> {
    sent.iter()
        .filter(|m| matches!(m, DeviceMessage::Decision { .. }))
        .cloned()
        .collect()
}

/// A message's frame: equality of frames is bit-for-bit equality (NaN included).
fn bits(m: &DeviceMessage) -> Vec<u8> {
    let mut buf = [0u8; costbo_core::link::MAX_FRAME];
    let n = costbo_core::link::encode(m, &mut buf).unwrap();
    buf[..n].to_vec()
}

fn all_bits(ms: &[DeviceMessage]) -> Vec<Vec<u8>> {
    ms.iter().map(bits).collect()
}

#[test]
fn a_whole_experiment_spends_the_budget_and_journals_every_round() {
    let file = RamFile::default();
    let mut app = device(&file, ScriptedLink::new(&[], playing_host(None)));
    run(&mut app);
    assert_eq!(app.phase(), Phase::Finished);
    let sent = app.link().sent.clone();
    assert!(matches!(
        sent[0],
        DeviceMessage::Hello { round: 0, config, .. } if config == CONFIG_ID
    ));
    let acks = sent
        .iter()
        .filter(|m| matches!(m, DeviceMessage::Ack { .. }))
        .count();
    let Some(DeviceMessage::Done { round, spent, .. }) = sent.last() else {
        panic!("no Done: {:?}", sent.last())
    };
    assert_eq!(*round as usize, acks);
    assert!(
        acks >= 3 && *spent <= SPEC.budget as f32 + 1e-5,
        "{acks} rounds, {spent}"
    );
    assert!(!sent
        .iter()
        .any(|m| matches!(m, DeviceMessage::Error { .. })));
    assert_eq!(app.journal().len(), acks);
    // Every dosed variable ran its pump for the calibrated on-time.
    let mut expected = [0u64; D];
    for d in decisions(&sent) {
        let DeviceMessage::Decision { values, .. } = d else {
            unreachable!()
        };
        for (l, v) in values.as_slice().iter().enumerate() {
            if !v.is_nan() {
                let var = &SPEC.variables[l];
                let p = var.pump.unwrap();
                expected[p.channel as usize] +=
                    u64::from(p.on_time_ms(*v, var.lower as f32).unwrap().on_ms) * 1_000_000;
            }
        }
    }
    let total: Vec<u64> = app.pumps().pins().iter().map(|p| p.total_on_ns).collect();
    assert_eq!(total, expected);
}

/// The host rebuilds the device's controller from the same file and the journal's records
/// and makes every decision the device made, bit for bit.
#[test]
fn the_host_reproduces_every_decision_from_the_journal() {
    let file = RamFile::default();
    let mut app = device(&file, ScriptedLink::new(&[], playing_host(None)));
    run(&mut app);
    let device_decisions = decisions(&app.link().sent);
    let records: Vec<_> = app.journal().records().map(Result::unwrap).collect();

    let spec = costbo_experiment::toml::load_device(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../experiment.toml"
    )))
    .unwrap();
    let (mut f, mut b) = (vec![0.0f32; FACTOR_LEN], vec![[0.0f32; D]; BANK]);
    let mut host = spec
        .controller::<f32, N, D, M, _, _>(&mut f[..], &mut b[..])
        .unwrap();
    for (r, dd) in records.iter().zip(&device_decisions) {
        let d = host.suggest().unwrap();
        let DeviceMessage::Decision {
            set, values, score, ..
        } = dd
        else {
            unreachable!()
        };
        assert_eq!((d.set as u8, d.score.to_bits()), (*set, score.to_bits()));
        for l in 0..D {
            assert_eq!(
                d.values[l].map_or(f32::NAN.to_bits(), f32::to_bits),
                values.as_slice()[l].to_bits()
            );
        }
        let x: [f32; D] = core::array::from_fn(|l| r.x()[l]);
        host.observe(&x, r.y, r.cost).unwrap();
    }
    // Every observed round was checked (the last decision found the budget spent: Done).
    assert_eq!(records.len(), device_decisions.len());
}

#[test]
fn after_a_power_cut_the_device_resumes_and_finishes_as_if_nothing_happened() {
    // Reference: an uninterrupted run.
    let file = RamFile::default();
    let mut app = device(&file, ScriptedLink::new(&[], playing_host(None)));
    run(&mut app);
    let reference = app.link().sent.clone();

    // Cut the power when the decision of round 4 has been sent (and dosed).
    let file = RamFile::default();
    let mut app = device(&file, ScriptedLink::new(&[], playing_host(Some(4))));
    run(&mut app);
    let before = decisions(&app.link().sent);
    drop(app);
    let mut app = device(&file, ScriptedLink::new(&[], playing_host(None)));
    run(&mut app);
    assert_eq!(app.replayed(), 4);
    let after = app.link().sent.clone();
    assert!(matches!(after[0], DeviceMessage::Hello { round: 4, .. }));
    // Round 4 is decided again, identically; the rest follows the uninterrupted run.
    assert_eq!(bits(&decisions(&after)[0]), bits(&before[4]));
    assert_eq!(bits(after.last().unwrap()), bits(reference.last().unwrap()));
    assert_eq!(
        all_bits(&decisions(&after)),
        all_bits(&decisions(&reference)[4..])
    );
}

#[test]
fn messages_out_of_place_are_refused_and_change_nothing() {
    let file = RamFile::default();
    let decided: Rc<RefCell<Option<Values>>> = Rc::default();
    let seen = decided.clone();
    let responder: Responder = Box::new(move |m| {
        if let DeviceMessage::Decision { values, .. } = m {
            *seen.borrow_mut() = Some(values.clone());
        }
        vec![]
    });
    let mut link = ScriptedLink::new(
        &[
            HostMessage::Outcome {
                round: 0,
                y: 1.0,
                cost: 0.1,
            },
            HostMessage::Measurement {
                round: 0,
                values: Values::from_slice(&[1.0; D]).unwrap(),
            },
        ],
        responder,
    );
    link.push_raw(&[0x05, 0x11, 0x22, 0x33, 0x44, 0x00]); // CRC mismatch
    link.push_raw(&[0x07, 0x00]); // COBS block cut short
    link.push(&HostMessage::Start);
    link.push(&HostMessage::Start); // again: the same decision, not dosed again
    let mut app = device(&file, link);
    app.boot().unwrap();
    for _ in 0..6 {
        app.poll().unwrap();
    }
    let dosed: Vec<u32> = app.pumps().pins().iter().map(|p| p.activations).collect();
    let decision = decided.borrow().clone().unwrap();
    let x: Vec<f32> = decision
        .as_slice()
        .iter()
        .enumerate()
        .map(|(l, v)| if v.is_nan() { water(0, l) } else { *v })
        .collect();
    let mut off = x.clone();
    let l = decision
        .as_slice()
        .iter()
        .position(|v| !v.is_nan())
        .unwrap();
    let var = &SPEC.variables[l];
    // A controlled reading 30% of the range away from its dose.
    let range = (var.upper - var.lower) as f32;
    let middle = (var.lower + var.upper) as f32 / 2.0;
    off[l] = if x[l] > middle {
        x[l] - 0.3 * range
    } else {
        x[l] + 0.3 * range
    };
    let script = [
        HostMessage::Measurement {
            round: 1,
            values: Values::from_slice(&x).unwrap(),
        },
        HostMessage::Measurement {
            round: 0,
            values: Values::from_slice(&x[..D - 1]).unwrap(),
        },
        HostMessage::Measurement {
            round: 0,
            values: Values::from_slice(&[f32::NAN; D]).unwrap(),
        },
        HostMessage::Measurement {
            round: 0,
            values: Values::from_slice(&off).unwrap(),
        },
        HostMessage::Outcome {
            round: 0,
            y: 1.0,
            cost: 0.1,
        },
        HostMessage::Ping,
        HostMessage::Measurement {
            round: 0,
            values: Values::from_slice(&x).unwrap(),
        },
        HostMessage::Outcome {
            round: 0,
            y: f32::INFINITY,
            cost: 0.1,
        },
        HostMessage::Outcome {
            round: 0,
            y: 0.5,
            cost: -1.0,
        },
        HostMessage::Stop,
        HostMessage::Start,
    ];
    for m in &script {
        app.link().push(m);
        app.poll().unwrap();
    }
    let sent = &app.link().sent;
    let codes: Vec<String> = sent
        .iter()
        .map(|m| match m {
            DeviceMessage::Hello { round, .. } => format!("Hello{round}"),
            DeviceMessage::Decision { round, .. } => format!("Decision{round}"),
            DeviceMessage::Ack { round } => format!("Ack{round}"),
            DeviceMessage::Done { round, .. } => format!("Done{round}"),
            DeviceMessage::Error { code, round } => format!("{code:?}{round}"),
            DeviceMessage::Query { round, .. } => format!("Query{round}"),
            DeviceMessage::MeasureContexts { round, .. } => format!("MeasureContexts{round}"),
        })
        .collect();
    assert_eq!(
        codes,
        [
            "Hello0",
            "Unexpected0",
            "Unexpected0",
            "BadFrame0",
            "BadFrame0",
            "Decision0",
            "Decision0",
            "WrongRound0",
            "InvalidMeasurement0",
            "InvalidMeasurement0",
            "InvalidMeasurement0",
            "Unexpected0",
            "Hello0",
            "InvalidOutcome0",
            "InvalidOutcome0",
            "Done0",
            "Done0",
        ]
    );
    assert_eq!(
        app.pumps()
            .pins()
            .iter()
            .map(|p| p.activations)
            .collect::<Vec<_>>(),
        dosed,
        "a repeated Start does not dose again"
    );
    assert_eq!(app.controller().unwrap().rounds(), 0);
    assert_eq!(app.journal().len(), 0);
    assert!(matches!(app.phase(), Phase::Finished));
    let _: ErrorCode = ErrorCode::BadFrame;
}
