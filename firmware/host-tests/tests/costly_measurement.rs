//! The controller application with a costly growth measurement
//! (`firmware/experiments/costly-measurement.toml`, loaded at run time: it has the plant's
//! sizes, so the firmware built from `experiment.toml` runs it): the device asks its
//! controller after every `Measurement`, runs the growth measurement only when told, journals
//! skipped rounds, and a desktop f32 controller fed the same data gives the same decisions and
//! the same answers bit for bit, also after a power cut; misplaced outcomes and skips are
//! refused.

use std::path::Path;

use costbo_core::driver::Controller;
use costbo_core::link::{DeviceMessage, ErrorCode, HostMessage, Values};
use costbo_core::policy::AnyPolicy;
use costbo_experiment::Spec;
use costbo_firmware::app::{App, AppError, Phase};
use costbo_firmware::drivers::pumps::Pumps;
use costbo_firmware::drivers::sensor::Sensors;
use costbo_firmware::experiment::{BANK, D, FACTOR_LEN, M, N};
use costbo_firmware::journal;
use costbo_firmware::sim::{FileFlash, SimClock, SimDelay, SimPin, SimSensorBus};
use costbo_firmware_host_tests::{RamFile, Responder, ScriptedLink};

type Flash = FileFlash<RamFile, 65536, 4096>;
type TestApp =
    App<'static, SimPin<'static>, SimDelay<'static>, SimSensorBus<D>, ScriptedLink, Flash, String>;
type Desktop = Controller<f32, N, D, M, Vec<f32>, Vec<[f32; D]>, AnyPolicy<f32, D, M, 1, 1>>;

fn spec() -> &'static Spec<'static> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments/costly-measurement.toml");
    Box::leak(Box::new(
        costbo_experiment::toml::load_device(&path).unwrap(),
    ))
}

/// A device booted on the journal in `file`, talking to `link`; also its simulated clock.
fn device(
    spec: &'static Spec<'static>,
    file: &RamFile,
    link: ScriptedLink,
) -> (TestApp, &'static SimClock) {
    let clock: &'static SimClock = Box::leak(Box::new(SimClock::new()));
    let factor: &'static mut [f32] = Box::leak(vec![0.0f32; FACTOR_LEN].into_boxed_slice());
    let bank: &'static mut [[f32; D]] = Box::leak(vec![[0.0f32; D]; BANK].into_boxed_slice());
    let ctl = spec.controller::<f32, N, D, M, _, _>(factor, bank).unwrap();
    let pumps = Pumps::new([SimPin::new(clock); D], SimDelay::new(clock)).unwrap();
    let sensors = Sensors::new(SimSensorBus::<D>::new(spec));
    let (j, _) = journal::open(Flash::new(file.clone()), 0, 65536, false).unwrap();
    let app = App::new(
        spec,
        0x1234_5678,
        ctl,
        pumps,
        sensors,
        link,
        j,
        String::new(),
    );
    (app, clock)
}

fn desktop(spec: &Spec<'static>) -> Desktop {
    spec.controller::<f32, N, D, M, _, _>(
        vec![0.0; costbo_core::linalg::tri_len(N)],
        vec![[0.0; D]; spec.bank],
    )
    .unwrap()
}

/// The toy host's source water: a deterministic point inside the bounds.
fn water(spec: &Spec<'_>, round: u32, l: usize) -> f32 {
    let v = &spec.variables[l];
    let t = ((round as usize * 7 + l * 3) % 10) as f64 / 10.0;
    (v.lower + (v.upper - v.lower) * (0.05 + 0.9 * t)) as f32
}

fn growth(spec: &Spec<'_>, x: &[f32]) -> f32 {
    let mut s = 0.0;
    for (l, &v) in x.iter().enumerate() {
        let var = &spec.variables[l];
        let u = (v as f64 - var.lower) / (var.upper - var.lower);
        s += (u - 0.6) * (u - 0.6);
    }
    (1.0 - s) as f32
}

/// What the host sends as the readings of a decision's round.
fn readings(spec: &Spec<'_>, round: u32, values: &Values) -> Vec<f32> {
    values
        .iter()
        .enumerate()
        .map(|(l, v)| {
            if v.is_nan() {
                water(spec, round, l)
            } else {
                *v
            }
        })
        .collect()
}

/// A host that measures when asked, skips when told, and goes silent (a power cut) when the
/// query of round `cut` arrives.
fn playing_host(spec: &'static Spec<'static>, cut: Option<u32>) -> Responder {
    let mut last: Option<(u32, Vec<f32>, f32)> = None;
    Box::new(move |m: &DeviceMessage| match m {
        DeviceMessage::Hello { .. } => vec![HostMessage::Start],
        DeviceMessage::Decision {
            round, set, values, ..
        } => {
            let x = readings(spec, *round, values);
            last = Some((*round, x.clone(), spec.cost(*set as usize).unwrap()));
            vec![HostMessage::Measurement {
                round: *round,
                values: Values::from_slice(&x).unwrap(),
            }]
        }
        DeviceMessage::Query { round, measure, .. } => {
            if Some(*round) == cut {
                return vec![];
            }
            let (r, x, cost) = last.clone().unwrap();
            assert_eq!(r, *round);
            if *measure {
                vec![HostMessage::Outcome {
                    round: r,
                    y: growth(spec, &x),
                    cost,
                }]
            } else {
                vec![HostMessage::Skipped { round: r, cost }]
            }
        }
        _ => vec![],
    })
}

/// The desktop's side of a session: the device's messages replayed into the desktop
/// controller with the data the device observed; asserts every decision and answer equal.
/// Returns (rounds, measured).
fn check_against_desktop(spec: &'static Spec<'static>, sent: &[DeviceMessage]) -> (u32, u32) {
    let mut host = desktop(spec);
    let mut measured = 0;
    let mut current: Option<(u32, Vec<f32>, usize)> = None;
    for m in sent {
        match m {
            DeviceMessage::Decision {
                round,
                set,
                values,
                score,
            } => {
                assert_eq!(*round as usize, host.rounds());
                let d = host.suggest().unwrap();
                assert_eq!(d.set, *set as usize);
                assert_eq!(d.score.to_bits(), score.to_bits(), "round {round}");
                for l in 0..D {
                    match d.values[l] {
                        Some(v) => assert_eq!(v.to_bits(), values[l].to_bits()),
                        None => assert!(values[l].is_nan()),
                    }
                }
                current = Some((*round, readings(spec, *round, values), *set as usize));
            }
            DeviceMessage::Query {
                round,
                measure,
                min_probability,
            } => {
                let (r, x, set) = current.clone().unwrap();
                assert_eq!(r, *round);
                // The device observes its sensors' readings (dosed variables at their doses).
                let d = *host.pending().unwrap();
                let xd: [f32; D] = core::array::from_fn(|l| match d.values[l] {
                    Some(v) => v,
                    None => spec
                        .measured(l, spec.variables[l].sensor.unwrap().to_raw(x[l]))
                        .unwrap(),
                });
                let a = host.query(&xd).unwrap();
                assert_eq!(a.pay, *measure, "round {round}");
                assert_eq!(a.min_probability.to_bits(), min_probability.to_bits());
                let cost = spec.cost::<f32>(set).unwrap();
                if a.pay {
                    measured += 1;
                    host.observe(&xd, growth(spec, &x), cost).unwrap();
                } else {
                    host.skip(&xd, cost).unwrap();
                }
            }
            DeviceMessage::Done { round, spent, .. } => {
                assert_eq!(*round as usize, host.rounds());
                assert_eq!(spent.to_bits(), host.spent().to_bits());
            }
            _ => {}
        }
    }
    (host.rounds() as u32, measured)
}

#[test]
fn a_costly_experiment_measures_only_when_told_and_decides_as_the_desktop() {
    let spec = spec();
    let file = RamFile::default();
    let (mut app, clock) = device(
        spec,
        &file,
        ScriptedLink::new(&[], playing_host(spec, None)),
    );
    assert_eq!(app.run(), AppError::Link);
    assert_eq!(app.phase(), Phase::Finished);
    let sent = app.link().sent.clone();
    let queries: Vec<bool> = sent
        .iter()
        .filter_map(|m| match m {
            DeviceMessage::Query { measure, .. } => Some(*measure),
            _ => None,
        })
        .collect();
    let measured = queries.iter().filter(|&&m| m).count() as u64;
    let skipped = queries.len() as u64 - measured;
    println!(
        "{} rounds: {measured} measured, {skipped} skipped",
        queries.len()
    );
    assert!(
        measured >= 3 && skipped >= 3,
        "{measured} measured, {skipped} skipped"
    );
    assert!(!sent
        .iter()
        .any(|m| matches!(m, DeviceMessage::Error { .. })));
    // The growth measurement ran on the measured rounds only: the simulated clock advanced by
    // the pumps' on-times and one growth period per measured round.
    let pumped: u64 = app.pumps().pins().iter().map(|p| p.total_on_ns).sum();
    assert_eq!(
        clock.now_ns(),
        pumped + measured * u64::from(spec.growth_period_ms) * 1_000_000
    );
    // The ledger: doses, plus 0.2 per measured round; the budget is never exceeded.
    let ctl = app.controller().unwrap();
    assert!(ctl.spent() <= spec.budget as f32 * (1.0 + 4.0 * f32::EPSILON));
    // The journal holds every round, skipped ones marked.
    let records: Vec<_> = app.journal().records().map(|r| r.unwrap()).collect();
    assert_eq!(records.len(), queries.len());
    for (r, m) in records.iter().zip(&queries) {
        assert_eq!(r.is_skipped(), !m);
    }
    let (rounds, by_desktop) = check_against_desktop(spec, &sent);
    assert_eq!(rounds as usize, queries.len());
    assert_eq!(u64::from(by_desktop), measured);
}

#[test]
fn after_a_power_cut_at_a_query_the_device_answers_the_same_and_finishes_as_the_desktop() {
    let spec = spec();
    let file = RamFile::default();
    // A reference run without a cut.
    let (mut whole, _) = device(
        spec,
        &RamFile::default(),
        ScriptedLink::new(&[], playing_host(spec, None)),
    );
    assert_eq!(whole.run(), AppError::Link);
    let reference = whole.link().sent.clone();
    let skipped_round = reference
        .iter()
        .find_map(|m| match m {
            DeviceMessage::Query {
                round,
                measure: false,
                ..
            } if *round > 2 => Some(*round),
            _ => None,
        })
        .expect("a skipped round");
    // Cut in the first skipped round (after its Query, before its Skipped), then after the
    // next round's Query, and resume each time.
    let mut sent_all = vec![];
    for cut in [Some(skipped_round), Some(skipped_round + 1), None] {
        let (mut app, _) = device(spec, &file, ScriptedLink::new(&[], playing_host(spec, cut)));
        assert_eq!(app.run(), AppError::Link);
        let sent = app.link().sent.clone();
        if let Some(c) = cut {
            let round = |m: &DeviceMessage| match m {
                DeviceMessage::Hello { round, .. } => Some(*round),
                _ => None,
            };
            assert!(sent.iter().filter_map(round).next().unwrap() <= c);
        }
        sent_all.extend(sent);
    }
    // The decisions and answers of the resumed sessions, with their repeats removed, are the
    // uninterrupted run's.
    let key = |m: &DeviceMessage| match m {
        DeviceMessage::Decision { round, .. } => Some((*round, 0)),
        DeviceMessage::Query { round, .. } => Some((*round, 1)),
        _ => None,
    };
    let mut seen = std::collections::BTreeMap::new();
    for m in &sent_all {
        if let Some(k) = key(m) {
            let bits = format!("{m:?}");
            if let Some(old) = seen.insert(k, bits.clone()) {
                assert_eq!(old, bits, "{k:?} answered differently after the cut");
            }
        }
    }
    let want: std::collections::BTreeMap<_, _> = reference
        .iter()
        .filter_map(|m| key(m).map(|k| (k, format!("{m:?}"))))
        .collect();
    assert_eq!(seen, want);
    check_against_desktop(spec, &reference);
}

#[test]
fn an_outcome_for_a_skipped_round_and_a_skip_for_a_measured_one_are_refused() {
    let spec = spec();
    let file = RamFile::default();
    // A host that misreports once: an Outcome when told to skip, a Skipped when told to
    // measure; then answers correctly.
    let mut last: Option<(u32, Vec<f32>, f32)> = None;
    let mut misreported = std::collections::BTreeSet::new();
    let responder: Responder = Box::new(move |m: &DeviceMessage| match m {
        DeviceMessage::Hello { .. } => vec![HostMessage::Start],
        DeviceMessage::Decision {
            round, set, values, ..
        } => {
            let x = readings(spec, *round, values);
            last = Some((*round, x.clone(), spec.cost(*set as usize).unwrap()));
            vec![HostMessage::Measurement {
                round: *round,
                values: Values::from_slice(&x).unwrap(),
            }]
        }
        DeviceMessage::Query { measure, .. } => {
            let (r, x, cost) = last.clone().unwrap();
            let right = if *measure {
                HostMessage::Outcome {
                    round: r,
                    y: growth(spec, &x),
                    cost,
                }
            } else {
                HostMessage::Skipped { round: r, cost }
            };
            if misreported.insert(*measure) {
                let wrong = if *measure {
                    HostMessage::Skipped { round: r, cost }
                } else {
                    HostMessage::Outcome {
                        round: r,
                        y: 1.0,
                        cost,
                    }
                };
                vec![wrong, right]
            } else {
                vec![right]
            }
        }
        _ => vec![],
    });
    let (mut app, _) = device(spec, &file, ScriptedLink::new(&[], responder));
    assert_eq!(app.run(), AppError::Link);
    assert_eq!(app.phase(), Phase::Finished);
    let sent = app.link().sent.clone();
    let codes: Vec<ErrorCode> = sent
        .iter()
        .filter_map(|m| match m {
            DeviceMessage::Error { code, .. } => Some(*code),
            _ => None,
        })
        .collect();
    assert_eq!(codes.len(), 2, "{codes:?}");
    assert!(codes.contains(&ErrorCode::NotMeasured));
    assert!(codes.contains(&ErrorCode::MeasurementDue));
    // The refusals changed nothing: the run is the one without them.
    let (mut clean, _) = device(
        spec,
        &RamFile::default(),
        ScriptedLink::new(&[], playing_host(spec, None)),
    );
    assert_eq!(clean.run(), AppError::Link);
    let strip = |ms: &[DeviceMessage]| -> Vec<String> {
        ms.iter()
            .filter(|m| !matches!(m, DeviceMessage::Error { .. }))
            .map(|m| format!("{m:?}"))
            .collect()
    };
    assert_eq!(strip(&sent), strip(&clean.link().sent));
}

fn costly_text() -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments/costly-measurement.toml"),
    )
    .unwrap()
}

fn refused(edit: impl Fn(String) -> String) -> String {
    match costbo_experiment::toml::parse_device(&edit(costly_text())) {
        Ok(_) => panic!("accepted an invalid configuration"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn the_measurement_table_parses_builds_and_generates_as_written() {
    use costbo_core::feedback::query::ConfidenceTest;
    use costbo_experiment::{MeasureRule, MeasurementSpec};
    let spec = spec();
    assert_eq!(
        spec.measurement,
        Some(MeasurementSpec {
            cost: 0.2,
            rule: MeasureRule::Ce {
                kappa: 0.75,
                quota: 0.0,
                gate: 0.5
            }
        })
    );
    let ctl = desktop(spec);
    let m = ctl.measurement().unwrap();
    assert_eq!(m.cost(), 0.2f32);
    assert_eq!(m.rule().quota_rate(), 0.0);
    assert_eq!(m.rule().gated_rate(), 0.5);
    assert_eq!(m.rule().test(), ConfidenceTest::Kappa(0.75));
    // The generated constants carry it; the plain experiment's say None.
    let code = costbo_experiment::toml::to_rust(spec, "x");
    assert!(code.contains(
        "measurement: Some(costbo_experiment::MeasurementSpec { cost: 0.2, rule: costbo_experiment::MeasureRule::Ce { kappa: 0.75, quota: 0.0, gate: 0.5 } }),"
    ), "{code}");
    let plain = costbo_experiment::toml::load_device(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiment.toml"),
    )
    .unwrap();
    assert_eq!(plain.measurement, None);
    assert!(costbo_experiment::toml::to_rust(&plain, "x").contains("measurement: None,"));
    assert!(desktop(&plain).measurement().is_none());
    // Defaults: ce and lcb-ucb without rates are pure (quota 0, gate 1); bernoulli and always.
    let with = |table: &str| {
        let t = costly_text();
        let at = t.find("[measurement]").unwrap();
        costbo_experiment::toml::parse_device(&format!("{}[measurement]\n{table}\n", &t[..at]))
            .unwrap()
            .measurement
            .unwrap()
            .rule
    };
    assert_eq!(
        with("cost = 1\nrule = \"lcb-ucb\""),
        MeasureRule::LcbUcb {
            quota: 0.0,
            gate: 1.0
        }
    );
    assert_eq!(
        with("cost = 1\nrule = \"ce\"\nkappa = 0.6\nquota = 0.25"),
        MeasureRule::Ce {
            kappa: 0.6,
            quota: 0.25,
            gate: 0.75
        }
    );
    assert_eq!(
        with("cost = 1\nrule = \"bernoulli\"\nrate = 0.3"),
        MeasureRule::Bernoulli { rate: 0.3 }
    );
    assert_eq!(with("cost = 1\nrule = \"always\""), MeasureRule::Always);
}

#[test]
fn invalid_measurement_settings_are_refused_with_the_setting_named() {
    let e = refused(|t| t.replace("[measurement]\ncost = 0.2", "[measurement]\ncost = 0.0"));
    assert!(e.contains("[measurement] cost"), "{e}");
    let e = refused(|t| t.replace("[measurement]\ncost = 0.2", "[measurement]\ncost = 1e39"));
    assert!(e.contains("[measurement] cost"), "{e}");
    let e = refused(|t| t.replace("kappa = 0.75", "kappa = 1.0"));
    assert!(e.contains("[measurement] kappa"), "{e}");
    let e = refused(|t| t.replace("kappa = 0.75", "kappa = 0.0"));
    assert!(e.contains("[measurement] kappa"), "{e}");
    let e = refused(|t| t.replace("kappa = 0.75\n", ""));
    assert!(
        e.contains("[measurement] kappa") && e.contains("needs it"),
        "{e}"
    );
    let e = refused(|t| t.replace("gate = 0.5", "gate = 0.5\nquota = 0.6"));
    assert!(e.contains("quota and gate"), "{e}");
    let e = refused(|t| t.replace("gate = 0.5", "gate = -0.1"));
    assert!(e.contains("quota and gate"), "{e}");
    let e = refused(|t| t.replace("gate = 0.5", "gate = 0.5\nrate = 0.5"));
    assert!(
        e.contains("[measurement] rate") && e.contains("not a setting"),
        "{e}"
    );
    let e = refused(|t| t.replace("rule = \"ce\"", "rule = \"sometimes\""));
    assert!(e.contains("[measurement] rule = \"sometimes\""), "{e}");
    let e = refused(|t| {
        t.replace(
            "rule = \"ce\"\nkappa = 0.75\ngate = 0.5",
            "rule = \"bernoulli\"\nrate = 1.5",
        )
    });
    assert!(e.contains("[measurement] rate"), "{e}");
    let e = refused(|t| t.replace("gate = 0.5", "gate = 0.5\nbogus = 1"));
    assert!(e.contains("bogus"), "{e}");
}
