//! Snapshot and link bytes pinned: every rule's saved state (ETC's counters, the unknown-cost
//! rule's statistics and its cost model, EI's query history) serialised with postcard and with
//! JSON, and one frame of every link message, compared with fixtures written by the code that
//! held these collections in hand-written bounded vectors (before heapless) and framed with a
//! hand-written COBS encoder (before the `cobs` crate). A change of storage or framing crate
//! must not change a byte: old snapshots keep loading and old hosts keep talking.
//!
//!
//! One intended format change since: observation records carry the repeat count and spread of
//! a merged slot (repeated inputs, docs/architecture.md). The JSON images written before it are
//! kept (`snapshots-before-repeats.json.txt`) and must still load, as single observations;
//! postcard is not self-describing, so its old images are not readable and were rewritten.
//!
//! To rewrite the fixtures (only for an intended format change, with the version bumped):
//! `COSTBO_WRITE_FIXTURES=1 cargo test -p costbo-core --features serde,link --test integration snapshot_bytes`.
#![allow(clippy::type_complexity)]

use std::path::PathBuf;

use costbo_core::dist::{Distribution, TruncatedNormal};
use costbo_core::driver::{BudgetRule, Controller, Refit, Settings};
use costbo_core::expectation::SampleBank;
use costbo_core::gp::{Gp, WhenFull};
use costbo_core::inner::InnerConfig;
use costbo_core::kernel::Kernel;
use costbo_core::linalg::tri_len;
use costbo_core::link::{encode, DeviceMessage, ErrorCode, HostMessage, Values, MAX_FRAME};
use costbo_core::policy::explore_then_commit::PlaysPerGroup;
use costbo_core::policy::unknown_cost::{Exploration, UnknownCostConfig};
use costbo_core::policy::{AnyPolicy, Policy, PolicySpec, Selection};
use costbo_core::problem::{ControlSet, Problem, Variable};
use costbo_core::snapshot::Snapshot;
use rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro128PlusPlus;

const N: usize = 8;
const D: usize = 2;
const M: usize = 3;
type Pol = AnyPolicy<f64, D, M, 32, 4>;
type Ctl = Controller<f64, N, D, M, Vec<f64>, Vec<[f64; D]>, Pol>;
type Snap = Snapshot<f64, N, D, <Pol as Policy<f64, D, M>>::Record>;
const COSTS: [f64; M] = [0.1, 0.1, 1.0];

fn f(x: &[f64; D]) -> f64 {
    (5.0 * x[0]).sin() + (3.0 * x[1]).cos()
}

fn controller(rule: PolicySpec<f64>, known: bool) -> Ctl {
    let tn = TruncatedNormal::with_truncated_variance(0.5, 0.04, 0.0, 1.0).unwrap();
    let v = Variable {
        lower: 0.0,
        upper: 1.0,
        uncontrolled: Distribution::TruncatedNormal(tn),
    };
    let sets = [
        ControlSet::of(&[0]),
        ControlSet::of(&[1]),
        ControlSet::of(&[0, 1]),
    ];
    let problem = Problem::new(&[v; D], &sets, known.then_some(&COSTS[..])).unwrap();
    let gp = Gp::new(
        Kernel::squared_exponential([0.2; D], 1.0).unwrap(),
        0.0,
        1e-4,
        WhenFull::DropOldest,
        vec![0.0; tri_len(N)],
    )
    .unwrap();
    let bank = SampleBank::quasi_random(&problem, vec![[0.0; D]; 8], 4).unwrap();
    let settings = Settings {
        beta: 2.0,
        budget: 50.0,
        inner: InnerConfig {
            pool: 4,
            starts: 1,
            evaluations_per_start: 3,
        },
        seed: 8,
        budget_rule: BudgetRule::Affordable,
        refit: Refit::Never,
    };
    Controller::new(problem, gp, bank, settings, rule.build()).unwrap()
}

/// A controller of `rule` after 2 initial points and 9 decided rounds (past the GP's capacity
/// of 8, so the observations window has dropped its oldest), with a decision pending.
fn played(rule: PolicySpec<f64>, known: bool) -> Snap {
    let mut c = controller(rule, known);
    let mut rng = Xoshiro128PlusPlus::seed_from_u64(5);
    for _ in 0..2 {
        let x = [
            (rng.next_u32() as f64) / 4.3e9,
            (rng.next_u32() as f64) / 4.3e9,
        ];
        c.observe_initial(&x, f(&x)).unwrap();
    }
    for _ in 0..9 {
        let d = c.suggest().unwrap();
        let x: [f64; D] = core::array::from_fn(|l| {
            d.values[l].unwrap_or((rng.next_u32() as f64 + 0.5) / 4_294_967_296.0)
        });
        let cost = c
            .problem()
            .known_cost(d.set)
            .unwrap_or(0.05 + 0.1 * d.set as f64);
        c.observe(&x, f(&x), cost).unwrap();
    }
    c.suggest().unwrap();
    c.snapshot()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Compares `text` with the fixture `name` (or writes it when asked to).
fn check(name: &str, text: &str) {
    let path = fixture(name);
    if std::env::var_os("COSTBO_WRITE_FIXTURES").is_some() {
        std::fs::write(&path, text).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(text, want, "{name} differs from its fixture");
}

fn rules() -> Vec<(&'static str, PolicySpec<f64>, bool)> {
    vec![
        (
            "etc",
            PolicySpec::ExploreThenCommit(PlaysPerGroup::Adaptive),
            true,
        ),
        (
            "unknown_cost",
            PolicySpec::UnknownCost(UnknownCostConfig {
                exploration: Exploration::Rounds(1),
                alpha: 0.1,
                halve_every: Some(2),
                exploitation: costbo_core::policy::unknown_cost::Exploitation::Paper,
            }),
            false,
        ),
        ("ei", PolicySpec::Ei(Selection::Argmax), true),
        ("thompson", PolicySpec::Thompson(Selection::Argmax), true),
    ]
}

#[test]
fn snapshots_serialise_to_the_pinned_bytes_and_load_back() {
    let mut json = String::new();
    let mut post = String::new();
    for (name, rule, known) in rules() {
        let snap = played(rule, known);
        let j = serde_json::to_string(&snap).unwrap();
        let mut buf = vec![0u8; 1 << 16];
        let p = postcard::to_slice(&snap, &mut buf).unwrap();
        // The pinned images load back: postcard exactly; JSON goes through serde_json's
        // decimal parsing, which may round a float's last bit, so only its counts are compared.
        assert_eq!(postcard::from_bytes::<Snap>(p).unwrap(), snap);
        let back: Snap = serde_json::from_str(&j).unwrap();
        assert_eq!(back.rounds, snap.rounds);
        assert_eq!(
            back.observations.as_slice().len(),
            snap.observations.as_slice().len()
        );
        json.push_str(&format!("{name} {j}\n"));
        post.push_str(&format!("{name} {}\n", hex(p)));
    }
    check("snapshots.json.txt", &json);
    check("snapshots.postcard.txt", &post);
}

#[test]
fn json_snapshots_from_before_repeat_merging_still_load() {
    let old = std::fs::read_to_string(fixture("snapshots-before-repeats.json.txt")).unwrap();
    let mut lines = 0;
    for ((name, rule, known), line) in rules().into_iter().zip(old.lines()) {
        let text = line
            .strip_prefix(name)
            .and_then(|t| t.strip_prefix(' '))
            .unwrap_or_else(|| panic!("{name}: {line}"));
        assert!(
            !text.contains("\"count\""),
            "{name}: an old image has no counts"
        );
        let back: Snap = serde_json::from_str(text).unwrap();
        let now = played(rule, known);
        assert_eq!(back.rounds, now.rounds, "{name}");
        let (a, b) = (back.observations.as_slice(), now.observations.as_slice());
        assert_eq!(a.len(), b.len(), "{name}");
        for (r, s) in a.iter().zip(b) {
            // Read as single observations; the same points (JSON's decimals to the last bit
            // aside).
            assert_eq!((r.count, r.spread), (1, 0.0), "{name}");
            assert!((r.y - s.y).abs() <= 1e-12 * s.y.abs().max(1.0), "{name}");
        }
        lines += 1;
    }
    assert_eq!(lines, 4);
}

#[test]
fn link_frames_are_the_pinned_bytes() {
    let v = |x: &[f32]| Values::from_slice(x).unwrap();
    let device = [
        DeviceMessage::Hello {
            version: 1,
            config: 0xDEAD_BEEF,
            round: 17,
            spent: 1.7,
            budget: 3.0,
        },
        DeviceMessage::Decision {
            round: 300,
            set: 6,
            values: v(&[1.0, f32::NAN, 10.4, 8.9, 6.5]),
            score: -0.25,
        },
        DeviceMessage::Decision {
            round: u32::MAX,
            set: 255,
            values: v(&[f32::MAX; 16]),
            score: f32::MIN_POSITIVE,
        },
        DeviceMessage::Ack { round: 3 },
        DeviceMessage::Done {
            round: 40,
            spent: 2.9999998,
            set: 2,
            values: v(&[f32::NAN, 0.0, -0.0, 10.0, 3.25]),
            score: 2.19,
        },
        DeviceMessage::Error {
            code: ErrorCode::Other(0xFFFF),
            round: 0,
        },
    ];
    let host = [
        HostMessage::Start,
        HostMessage::Measurement {
            round: 9,
            values: v(&[0.0, 3.5, 1e-30, 11.3, 2.5]),
        },
        HostMessage::Measurement {
            round: 1 << 30,
            values: v(&[]),
        },
        HostMessage::Outcome {
            round: 9,
            y: 1.875,
            cost: 0.1,
        },
        HostMessage::Ping,
        HostMessage::Stop,
    ];
    let mut text = String::new();
    let mut buf = [0u8; MAX_FRAME];
    for m in &device {
        let n = encode(m, &mut buf).unwrap();
        text.push_str(&format!("{}\n", hex(&buf[..n])));
    }
    for m in &host {
        let n = encode(m, &mut buf).unwrap();
        text.push_str(&format!("{}\n", hex(&buf[..n])));
    }
    check("link_frames.txt", &text);
}
