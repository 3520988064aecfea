//! The controller application with contexts measured before dosing
//! (`firmware/experiments/causal-contexts.toml`, loaded at run time: it has the plant's sizes,
//! so the firmware built from `experiment.toml` with feature `causal-dosing` runs it): each
//! round the device chooses an arm, asks for exactly that arm's contexts, reads them, doses
//! the arm's control set and journals the round; a desktop f32 causal controller fed the same
//! data chooses the same arms and the same doses bit for bit, also after power cuts; the
//! `[causal]` table's bad settings are refused by name.

use costbo_core::problem::Mask;
use std::path::Path;

use costbo_core::causal::{ArmFit, ArmModel, CausalController};
use costbo_core::link::{DeviceMessage, ErrorCode, HostMessage, Values};
use costbo_experiment::Spec;
use costbo_firmware::app::{codes, App, AppError, Phase};
use costbo_firmware::drivers::pumps::Pumps;
use costbo_firmware::drivers::sensor::Sensors;
use costbo_firmware::experiment::{causal_rng, CausalRng, ARMS, BANK, D, FACTOR_LEN, M, N};
use costbo_firmware::journal;
use costbo_firmware::sim::{FileFlash, SimClock, SimDelay, SimPin, SimSensorBus};
use costbo_firmware_host_tests::{RamFile, Responder, ScriptedLink};

type Flash = FileFlash<RamFile, 65536, 4096>;
type TestApp =
    App<'static, SimPin<'static>, SimDelay<'static>, SimSensorBus<D>, ScriptedLink, Flash, String>;
/// The desktop's controller: exactly the file's three arms (the device holds [`ARMS`]).
type Desktop = CausalController<f32, 3, N, D, Vec<f32>, CausalRng>;

const FILE: &str = "../experiments/causal-contexts.toml";

/// The same experiment with each arm's model fitted (`[model] fit = "map"`, every 4th play).
const FITTED_FILE: &str = "../experiments/causal-contexts-fitted.toml";

fn read(file: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(file)).unwrap()
}

fn text() -> String {
    read(FILE)
}

fn spec() -> &'static Spec<'static> {
    Box::leak(Box::new(
        costbo_experiment::toml::parse_device(&text()).unwrap(),
    ))
}

/// The device with the dosing rule's controller beside the causal one (a firmware with
/// feature `causal-dosing`), or with the causal one only (`dosing_rule` false: what a firmware
/// built from a `[causal]` experiment runs, `App::causal`).
fn build(
    spec: &'static Spec<'static>,
    file: &RamFile,
    link: ScriptedLink,
    dosing_rule: bool,
) -> TestApp {
    let clock: &'static SimClock = Box::leak(Box::new(SimClock::new()));
    let storage: [&'static mut [f32]; ARMS] =
        core::array::from_fn(|_| Box::leak(vec![0.0f32; FACTOR_LEN].into_boxed_slice()));
    let causal = spec
        .causal_controller::<f32, ARMS, N, D, _, _>(storage, causal_rng(spec.seed))
        .unwrap();
    let causal = Box::leak(Box::new(causal));
    let pumps = Pumps::new([SimPin::new(clock); D], SimDelay::new(clock)).unwrap();
    let sensors = Sensors::new(SimSensorBus::<D>::new(spec));
    let (j, _) = journal::open(Flash::new(file.clone()), 0, 65536, false).unwrap();
    let id = 0x1234_5678;
    if !dosing_rule {
        return App::causal(spec, id, causal, pumps, sensors, link, j, String::new());
    }
    let factor: &'static mut [f32] = Box::leak(vec![0.0f32; FACTOR_LEN].into_boxed_slice());
    let bank: &'static mut [[f32; D]] = Box::leak(vec![[0.0f32; D]; BANK].into_boxed_slice());
    let bank = &mut bank[..spec.bank];
    let ctl = spec.controller::<f32, N, D, M, _, _>(factor, bank).unwrap();
    App::new(spec, id, ctl, pumps, sensors, link, j, String::new()).with_causal(causal)
}

fn device(spec: &'static Spec<'static>, file: &RamFile, link: ScriptedLink) -> TestApp {
    build(spec, file, link, true)
}

fn causal_only_device(spec: &'static Spec<'static>, file: &RamFile, link: ScriptedLink) -> TestApp {
    build(spec, file, link, false)
}

fn desktop(spec: &Spec<'static>) -> Desktop {
    let storage: [Vec<f32>; 3] = core::array::from_fn(|_| vec![0.0; FACTOR_LEN]);
    spec.causal_controller::<f32, 3, N, D, _, _>(storage, causal_rng(spec.seed))
        .unwrap()
}

/// The toy host's source water: a deterministic point inside the bounds per round.
fn water(spec: &Spec<'_>, round: u32, l: usize) -> f32 {
    let v = &spec.variables[l];
    let t = ((round as usize * 7 + l * 3) % 10) as f64 / 10.0;
    (v.lower + (v.upper - v.lower) * (0.05 + 0.9 * t)) as f32
}

/// The experiment file's model of the growth (its comment), noiseless.
fn growth(spec: &Spec<'_>, x: &[f32]) -> f32 {
    let u = |name: &str| {
        let l = spec.variable_index(name).unwrap();
        let v = &spec.variables[l];
        (x[l] as f64 - v.lower) / (v.upper - v.lower)
    };
    let g = 1.0
        - 2.0 * (u("K") - 0.2 - 0.6 * u("NO3")).powi(2)
        - (u("pH") - 0.3 - 0.4 * u("T")).powi(2)
        - 0.5 * (u("Ca") - 0.5).powi(2);
    g as f32
}

/// The host's context readings for round `round`: the source water of the asked variables.
fn contexts(spec: &Spec<'_>, round: u32, mask: Mask) -> Vec<f32> {
    (0..D)
        .map(|l| {
            if mask & (1 << l) != 0 {
                water(spec, round, l)
            } else {
                f32::NAN
            }
        })
        .collect()
}

/// What the host sends as the readings of a decision's round: doses where dosed, the source
/// water elsewhere (the contexts as they were measured).
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

/// A host that plays the experiment and goes silent (a power cut) when the `Decision` of
/// round `cut` arrives.
fn playing_host(spec: &'static Spec<'static>, cut: Option<u32>) -> Responder {
    Box::new(move |m: &DeviceMessage| match m {
        DeviceMessage::Hello { .. } => vec![HostMessage::Start],
        DeviceMessage::MeasureContexts {
            round, contexts: c, ..
        } => vec![HostMessage::Contexts {
            round: *round,
            values: Values::from_slice(&contexts(spec, *round, Mask::from(*c))).unwrap(),
        }],
        DeviceMessage::Decision {
            round, set, values, ..
        } => {
            if Some(*round) == cut {
                return vec![];
            }
            let x = readings(spec, *round, values);
            vec![
                HostMessage::Measurement {
                    round: *round,
                    values: Values::from_slice(&x).unwrap(),
                },
                HostMessage::Outcome {
                    round: *round,
                    y: growth(spec, &x),
                    cost: spec.cost(*set as usize).unwrap(),
                },
            ]
        }
        _ => vec![],
    })
}

/// The desktop's side: the device's messages replayed into the desktop causal controller
/// with the contexts the device's sensors read; asserts every arm, context request and
/// decision equal bit for bit. Returns the rounds told and the plays per arm.
fn check_against_desktop(spec: &'static Spec<'static>, sent: &[DeviceMessage]) -> (u32, [u32; 3]) {
    let mut host = desktop(spec);
    let mut spent = 0.0f64;
    let mut open: Option<(u32, usize)> = None;
    let mut plays = [0u32; 3];
    for m in sent {
        match m {
            DeviceMessage::MeasureContexts {
                round,
                arm,
                contexts: c,
            } => {
                assert_eq!(*round, host.rounds());
                if host.chosen().is_none() {
                    let choice = host.next_arm().unwrap();
                    open = Some((*round, choice.arm));
                }
                let (_, arm_host) = open.unwrap();
                assert_eq!(usize::from(*arm), arm_host, "round {round}");
                assert_eq!(Some(Mask::from(*c)), spec.arm_contexts(arm_host));
            }
            DeviceMessage::Decision {
                round,
                set,
                values,
                score,
            } => {
                let (r, arm) = open.unwrap();
                assert_eq!(r, *round);
                let mask = spec.arm_contexts(arm).unwrap();
                // The device reads its sensors: the host's value through the sensor's raw
                // count and calibration, then in unit coordinates.
                let unit: Vec<f32> = contexts(spec, r, mask)
                    .iter()
                    .enumerate()
                    .map(|(l, &v)| {
                        if v.is_nan() {
                            f32::NAN
                        } else {
                            let seen = spec
                                .measured(l, spec.variables[l].sensor.unwrap().to_raw(v))
                                .unwrap();
                            spec.to_unit(l, seen)
                        }
                    })
                    .collect();
                let ask = host.ask(&unit).unwrap();
                assert_eq!(spec.arm_set(arm), Some(*set as usize));
                assert_eq!(ask.ucb.to_bits(), score.to_bits(), "round {round}");
                let actions = host.table().get(arm).unwrap().actions().to_vec();
                for l in 0..D {
                    match actions.iter().position(|&a| a == l) {
                        Some(k) => assert_eq!(
                            spec.from_unit(l, ask.input[k]).to_bits(),
                            values[l].to_bits(),
                            "round {round} variable {l}"
                        ),
                        None => assert!(values[l].is_nan()),
                    }
                }
            }
            DeviceMessage::Ack { round } => {
                let (r, arm) = open.take().unwrap();
                assert_eq!(r, *round);
                let a = *host.open().unwrap();
                let actions = host.table().get(arm).unwrap().actions().to_vec();
                let doses: Vec<f32> = (0..D)
                    .map(|l| match actions.iter().position(|&v| v == l) {
                        Some(k) => spec.from_unit(l, a.input[k]),
                        None => f32::NAN,
                    })
                    .collect();
                let x = readings(spec, r, &Values::from_slice(&doses).unwrap());
                host.tell(growth(spec, &x)).unwrap();
                let cost = spec.cost::<f32>(spec.arm_set(arm).unwrap()).unwrap();
                spent += f64::from(cost);
                plays[arm] += 1;
            }
            DeviceMessage::Done {
                round, spent: s, ..
            } => {
                assert_eq!(*round, host.rounds());
                assert_eq!(s.to_bits(), (spent as f32).to_bits());
            }
            DeviceMessage::Error { code, round } => panic!("device error {code:?} at {round}"),
            _ => {}
        }
    }
    (host.rounds(), plays)
}

#[test]
fn the_causal_table_parses_into_arms_of_control_sets_and_contexts() {
    let spec = spec();
    let c = spec.causal.unwrap();
    let bit = |name: &str| (1 as Mask) << spec.variable_index(name).unwrap();
    assert_eq!(c.contexts, bit("NO3") | bit("T"));
    assert_eq!((c.beta, c.rho, c.starts), (4.0, 1.0, 4));
    // Arm 0 doses set 0 ({K}) given NO3; arm 1 set 1 ({Ca, pH}) given T; arm 2 set 2 ({pH}).
    let arms: Vec<(usize, Mask)> = c.arms.iter().map(|a| (a.set, a.contexts)).collect();
    assert_eq!(arms, [(0, bit("NO3")), (1, bit("T")), (2, 0)]);
    assert_eq!(spec.sets[1].mask, bit("Ca") | bit("pH"));
    // The core's table: actions then contexts, as variable indices, boxes [0, 1].
    let t = spec.arm_table::<f32, 3, D>().unwrap();
    assert_eq!(t.get(1).unwrap().actions(), [1, 3]);
    assert_eq!(t.get(1).unwrap().contexts(), [4]);
    assert_eq!(t.get(2).unwrap().contexts(), [] as [usize; 0]);
    assert_eq!(t.get(0).unwrap().upper()[..2], [1.0, 1.0]);
    // The generated constants carry the table; the plain experiment's carry none.
    let code = costbo_experiment::toml::to_rust(spec, "x");
    assert!(code.contains("pub const CAUSAL_ARMS: usize = 3;"), "{code}");
    assert!(code.contains(
        "causal: Some(costbo_experiment::CausalSpec { contexts: 0b10001, arms: &[costbo_experiment::CausalArmSpec { set: 0, contexts: 0b1 }, costbo_experiment::CausalArmSpec { set: 1, contexts: 0b10000 }, costbo_experiment::CausalArmSpec { set: 2, contexts: 0b0 }], beta: 4.0, rho: 1.0, starts: 4 }),"
    ), "{code}");
    let plain = costbo_experiment::toml::load_device(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiment.toml"),
    )
    .unwrap();
    let code = costbo_experiment::toml::to_rust(&plain, "x");
    assert!(code.contains("pub const CAUSAL_ARMS: usize = 0;"));
    assert!(code.contains("causal: None,"));
    // Unit coordinates: the bounds map to 0 and 1, and back.
    let k = spec.variable_index("K").unwrap();
    assert_eq!(spec.to_unit(k, 8.9), 0.0);
    assert_eq!(spec.to_unit(k, 11.3), 1.0);
    assert_eq!(spec.from_unit(k, 0.0), 8.9);
    assert_eq!(spec.from_unit(k, 1.0), 11.3);
    assert_eq!(spec.from_unit(k, 0.5), 8.9 + 0.5 * (11.3f32 - 8.9));
}

#[test]
fn bad_causal_settings_are_refused_by_name() {
    let base = text();
    let cases: &[(&str, &str, &str)] = &[
        (
            "contexts = [\"NO3\", \"T\"]",
            "contexts = [\"NO3\", \"Nitrite\"]",
            "[causal] contexts: no variable called \"Nitrite\"",
        ),
        (
            "contexts = [\"NO3\", \"T\"]",
            "contexts = [\"NO3\", \"T\", \"Ca\"]",
            "[causal] contexts: \"Ca\" is dosed by a [[control_set]]",
        ),
        (
            "actions = [\"K\"]\ncontexts = [\"NO3\"]",
            "actions = [\"K\", \"pH\", \"Ca\", \"NO3\"]\ncontexts = []",
            "[[causal.arm]] 0 actions = [\"K\", \"pH\", \"Ca\", \"NO3\"]: no [[control_set]] doses exactly these variables",
        ),
        (
            "actions = [\"K\"]\ncontexts = [\"NO3\"]",
            "actions = []\ncontexts = [\"NO3\"]",
            "[[causal.arm]] 0: actions is empty",
        ),
        (
            "actions = [\"K\"]\ncontexts = [\"NO3\"]",
            "actions = [\"K\"]\ncontexts = [\"Kx\"]",
            "[[causal.arm]] 0 contexts: no variable called \"Kx\"",
        ),
        (
            "actions = [\"K\"]\ncontexts = [\"NO3\"]",
            "actions = [\"K\"]\ncontexts = [\"K\"]",
            "[[causal.arm]] 0: \"K\" is both an action and a context",
        ),
        (
            "actions = [\"pH\"]\ncontexts = []",
            "actions = [\"pH\"]\ncontexts = [\"Ca\"]",
            "[[causal.arm]] 2 contexts: \"Ca\" is not in [causal] contexts",
        ),
        (
            "actions = [\"pH\"]\ncontexts = []",
            "actions = [\"K\"]\ncontexts = [\"NO3\"]",
            "[[causal.arm]] 2: the same actions and contexts as an earlier arm",
        ),
        ("rho = 1.0", "rho = -1.0", "[causal] beta and rho must be finite and >= 0"),
        ("starts = 4", "starts = 17", "starts between 1 and 16"),
        (
            "[causal]\n",
            "[measurement]\ncost = 0.1\nrule = \"always\"\n\n[causal]\n",
            "[causal] and [measurement] cannot be combined",
        ),
        ("starts = 4", "starts = 4\ngraph = \"g.toml\"", "unknown field `graph`"),
        (
            "mean = 0.0\n",
            "mean = 0.0\nfit = \"botorch\"\nrefit_every = 4\n",
            "a [causal] experiment's arms are fitted with fit = \"map\"",
        ),
        (
            "mean = 0.0\n",
            "mean = 0.0\nfit = \"adam\"\n",
            "a [causal] experiment's arms are fitted with fit = \"map\"",
        ),
    ];
    for (from, to, want) in cases {
        assert!(base.contains(from), "{from}");
        let text = base.replacen(from, to, 1);
        let e = costbo_experiment::toml::parse_device(&text).unwrap_err();
        assert!(e.0.contains(want), "{to}: {}", e.0);
    }
    // No arm at all.
    let cut = &base[..base.find("# K given the nitrate.").unwrap()];
    let e = costbo_experiment::toml::parse_device(cut).unwrap_err();
    assert!(e.0.contains("[causal]: no [[causal.arm]]"), "{}", e.0);
}

#[test]
fn fitted_arms_refit_on_the_device_and_decide_as_the_desktop() {
    let spec: &'static Spec<'static> = Box::leak(Box::new(
        costbo_experiment::toml::parse_device(&read(FITTED_FILE)).unwrap(),
    ));
    let file = RamFile::default();
    let mut app = device(
        spec,
        &file,
        ScriptedLink::new(&[], playing_host(spec, None)),
    );
    let fit = ArmFit {
        every: 4,
        spacing: 0,
        noise_floor: 1e-6f32,
        evaluations: costbo_experiment::CAUSAL_FIT_EVALUATIONS,
    };
    assert_eq!(
        app.causal_controller().unwrap().settings().model,
        ArmModel::Fitted(fit)
    );
    assert_eq!(app.run(), AppError::Link);
    let sent = app.link().sent.clone();
    let (rounds, plays) = check_against_desktop(spec, &sent);
    assert_eq!(rounds, 20);
    let device = app.causal_controller().unwrap();
    for (arm, &n) in plays.iter().enumerate() {
        // A fit after every 4th play of the arm, each of which succeeded.
        assert_eq!(device.fits(arm), n / 4, "arm {arm}, {n} plays");
    }
    assert!(
        plays.iter().any(|&n| n >= 4),
        "no arm was fitted: {plays:?}"
    );
    // The fitted means moved from the file's 0 towards the growth the arms saw (about 0.5-1).
    for arm in (0..3).filter(|&a| device.fits(a) > 0) {
        let m = device.gp(arm).unwrap().prior_mean();
        assert!(m > 0.2 && m < 1.5, "arm {arm}: fitted mean {m}");
    }
}

#[test]
fn twenty_causal_rounds_measure_the_arms_contexts_and_decide_as_the_desktop() {
    let spec = spec();
    let file = RamFile::default();
    let mut app = device(
        spec,
        &file,
        ScriptedLink::new(&[], playing_host(spec, None)),
    );
    assert_eq!(app.run(), AppError::Link);
    assert_eq!(app.phase(), Phase::Finished);
    let sent = app.link().sent.clone();
    assert!(!sent
        .iter()
        .any(|m| matches!(m, DeviceMessage::Error { .. })));
    let asked: Vec<(u8, u32)> = sent
        .iter()
        .filter_map(|m| match m {
            DeviceMessage::MeasureContexts { arm, contexts, .. } => Some((*arm, *contexts)),
            _ => None,
        })
        .collect();
    // 20 rounds at 0.1 for a budget of 2, and one more arm chosen that the budget cannot pay.
    assert_eq!(asked.len(), 20);
    // Algorithm 2 plays every arm once first, in table order.
    assert_eq!(asked[..3], [(0, 0b1), (1, 0b10000), (2, 0)]);
    let (rounds, plays) = check_against_desktop(spec, &sent);
    assert_eq!(rounds, 20);
    assert_eq!(plays.iter().sum::<u32>(), 20);
    println!("plays per arm: {plays:?}");
    // The journal holds every round as a causal record: the arm, the doses of its control
    // set and its contexts as read, NaN elsewhere.
    let records: Vec<_> = app.journal().records().map(|r| r.unwrap()).collect();
    assert_eq!(records.len(), 20);
    for (i, r) in records.iter().enumerate() {
        assert!(r.is_causal());
        let arm = usize::from(r.set);
        let mask = spec.sets[spec.arm_set(arm).unwrap()].mask | spec.arm_contexts(arm).unwrap();
        for l in 0..D {
            assert_eq!(!r.x()[l].is_nan(), mask & (1 << l) != 0, "record {i} {l}");
        }
        assert!((r.cost - 0.1).abs() < 1e-7);
    }
    assert_eq!(app.causal_controller().unwrap().rounds(), 20);
}

#[test]
fn after_power_cuts_the_replayed_device_decides_as_before() {
    let spec = spec();
    let mut whole = device(
        spec,
        &RamFile::default(),
        ScriptedLink::new(&[], playing_host(spec, None)),
    );
    assert_eq!(whole.run(), AppError::Link);
    let reference = whole.link().sent.clone();
    let file = RamFile::default();
    let mut sent_all = vec![];
    // Cut while round 4 (in the round-robin's wake) and then round 13 are being decided.
    for cut in [Some(4), Some(13), None] {
        let mut app = device(spec, &file, ScriptedLink::new(&[], playing_host(spec, cut)));
        assert_eq!(app.run(), AppError::Link);
        let sent = app.link().sent.clone();
        let hello = sent
            .iter()
            .find_map(|m| match m {
                DeviceMessage::Hello { round, .. } => Some(*round),
                _ => None,
            })
            .unwrap();
        match cut {
            Some(4) => assert_eq!(hello, 0),
            Some(13) => assert_eq!(hello, 4, "rounds 0..4 replayed"),
            _ => assert_eq!(hello, 13, "rounds 0..13 replayed"),
        }
        sent_all.extend(sent);
    }
    // Every arm, context request and decision after the cuts is the uninterrupted run's.
    let key = |m: &DeviceMessage| match m {
        DeviceMessage::MeasureContexts { round, .. } => Some((*round, 0)),
        DeviceMessage::Decision { round, .. } => Some((*round, 1)),
        DeviceMessage::Done { round, .. } => Some((*round, 2)),
        _ => None,
    };
    let mut seen = std::collections::BTreeMap::new();
    for m in &sent_all {
        if let Some(k) = key(m) {
            let bits = format!("{m:?}");
            if let Some(old) = seen.insert(k, bits.clone()) {
                assert_eq!(old, bits, "{k:?} decided differently after the cut");
            }
        }
    }
    let want: std::collections::BTreeMap<_, _> = reference
        .iter()
        .filter_map(|m| key(m).map(|k| (k, format!("{m:?}"))))
        .collect();
    assert_eq!(seen, want);
}

#[test]
fn without_the_dosing_rule_the_device_sends_the_same_messages_through_power_cuts() {
    let spec = spec();
    let mut with_rule = device(
        spec,
        &RamFile::default(),
        ScriptedLink::new(&[], playing_host(spec, None)),
    );
    assert_eq!(with_rule.run(), AppError::Link);
    let reference = with_rule.link().sent.clone();
    assert!(reference
        .iter()
        .any(|m| matches!(m, DeviceMessage::Done { .. })));
    let file = RamFile::default();
    let mut sent = vec![];
    for cut in [Some(9), None] {
        let mut app =
            causal_only_device(spec, &file, ScriptedLink::new(&[], playing_host(spec, cut)));
        assert!(app.controller().is_none());
        assert_eq!(app.run(), AppError::Link);
        sent.push(app.link().sent.clone());
    }
    // Up to the cut, message for message (by their text: NaN marks the variables not
    // dosed); after it the replayed device resumes at round 9 and from there equals the
    // uninterrupted run with the rule.
    let text = |ms: &[DeviceMessage]| ms.iter().map(|m| format!("{m:?}")).collect::<Vec<_>>();
    let before = &sent[0];
    assert_eq!(text(before), text(&reference[..before.len()]));
    let after = &sent[1];
    assert!(matches!(after[0], DeviceMessage::Hello { round: 9, .. }));
    let resumed = reference
        .iter()
        .position(|m| matches!(m, DeviceMessage::MeasureContexts { round: 9, .. }))
        .unwrap();
    assert_eq!(text(&after[1..]), text(&reference[resumed..]));
    check_against_desktop(spec, &reference);
}

#[test]
fn a_journal_whose_round_decides_otherwise_halts_the_device() {
    let spec = spec();
    let file = RamFile::default();
    // A record of round 0 on arm 0 with a K dose the controller would not choose.
    {
        let (mut j, _) = journal::open(Flash::new(file.clone()), 0, 65536, false).unwrap();
        let mut x = [f32::NAN; D];
        x[0] = 5.0;
        x[2] = 8.9;
        j.append(&costbo_core::journal::Record::causal(0, &x, 0.5, 0.1).unwrap())
            .unwrap();
    }
    let mut app = device(
        spec,
        &file,
        ScriptedLink::new(&[], playing_host(spec, None)),
    );
    let _ = app.run();
    assert_eq!(app.phase(), Phase::Halted(ErrorCode::Other(codes::REPLAY)));
    assert_eq!(app.replayed(), 0);
    // A plain (driver) record in a causal journal is refused too.
    let file = RamFile::default();
    {
        let (mut j, _) = journal::open(Flash::new(file.clone()), 0, 65536, false).unwrap();
        j.append(&costbo_core::journal::Record::new(0, &[1.0; D], 0.5, 0.1, &[]).unwrap())
            .unwrap();
    }
    let mut app = device(
        spec,
        &file,
        ScriptedLink::new(&[], playing_host(spec, None)),
    );
    let _ = app.run();
    assert_eq!(app.phase(), Phase::Halted(ErrorCode::Other(codes::REPLAY)));
}

#[test]
fn contexts_out_of_place_or_missing_are_refused_and_change_nothing() {
    let spec = spec();
    let file = RamFile::default();
    let mut tried = false;
    let responder: Responder = Box::new(move |m: &DeviceMessage| match m {
        DeviceMessage::Hello { .. } => vec![HostMessage::Start],
        // The arm's context missing, then for another round, then a Measurement instead,
        // then the right answer; after that the host stops.
        DeviceMessage::MeasureContexts {
            round, contexts: c, ..
        } if !tried => {
            tried = true;
            let good = Values::from_slice(&contexts(spec, *round, Mask::from(*c))).unwrap();
            vec![
                HostMessage::Contexts {
                    round: *round,
                    values: Values::from_slice(&[f32::NAN; D]).unwrap(),
                },
                HostMessage::Contexts {
                    round: round + 1,
                    values: good.clone(),
                },
                HostMessage::Measurement {
                    round: *round,
                    values: good.clone(),
                },
                HostMessage::Start,
                HostMessage::Contexts {
                    round: *round,
                    values: good,
                },
            ]
        }
        DeviceMessage::Decision { .. } => vec![HostMessage::Stop],
        _ => vec![],
    });
    let mut app = device(spec, &file, ScriptedLink::new(&[], responder));
    assert_eq!(app.run(), AppError::Link);
    let sent = app.link().sent.clone();
    let codes_sent: Vec<ErrorCode> = sent
        .iter()
        .filter_map(|m| match m {
            DeviceMessage::Error { code, .. } => Some(*code),
            _ => None,
        })
        .collect();
    assert_eq!(
        codes_sent,
        [
            ErrorCode::InvalidMeasurement,
            ErrorCode::WrongRound,
            ErrorCode::Unexpected
        ]
    );
    // Start repeated the request; the decision is the uninterrupted run's first.
    let asks = sent
        .iter()
        .filter(|m| matches!(m, DeviceMessage::MeasureContexts { .. }))
        .count();
    assert_eq!(asks, 2);
    let mut whole = device(
        spec,
        &RamFile::default(),
        ScriptedLink::new(&[], playing_host(spec, None)),
    );
    let _ = whole.run();
    let first = |s: &[DeviceMessage]| {
        s.iter()
            .find(|m| matches!(m, DeviceMessage::Decision { .. }))
            .map(|m| format!("{m:?}"))
    };
    assert_eq!(first(&sent), first(&whole.link().sent));
    assert!(matches!(
        sent.last(),
        Some(DeviceMessage::Done { round: 0, .. })
    ));
}
