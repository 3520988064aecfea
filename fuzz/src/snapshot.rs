//! Controller snapshots from hostile bytes.

use std::sync::OnceLock;

use costbo_core::dist::{Distribution, TruncatedNormal};
use costbo_core::driver::{BudgetRule, Controller, NoCostModel, Refit, Settings};
use costbo_core::expectation::SampleBank;
use costbo_core::gp::{Gp, WhenFull};
use costbo_core::inner::InnerConfig;
use costbo_core::kernel::Kernel;
use costbo_core::linalg::tri_len;
use costbo_core::policy::explore_then_commit::PlaysPerGroup;
use costbo_core::policy::unknown_cost::{Exploration, UnknownCostConfig};
use costbo_core::policy::{AnyPolicy, Policy, PolicySpec, Selection};
use costbo_core::problem::{ControlSet, Problem, Variable};
use costbo_core::snapshot::Snapshot;

use crate::bytes::Bytes;

const N: usize = 16;
const D: usize = 2;
const M: usize = 3;
type Pol = AnyPolicy<f64, D, M, 32, N>;
type Ctl = Controller<f64, N, D, M, Vec<f64>, Vec<[f64; D]>, Pol>;
type Snap = Snapshot<f64, N, D, <Pol as Policy<f64, D, M>>::Record>;
const COSTS: [f64; M] = [0.1, 0.1, 1.0];

fn rule(i: u8) -> (PolicySpec<f64>, bool) {
    match i % 3 {
        0 => (PolicySpec::ExploreThenCommit(PlaysPerGroup::Adaptive), true),
        1 => (PolicySpec::Ei(Selection::Argmax), true),
        _ => (
            PolicySpec::UnknownCost(UnknownCostConfig {
                exploration: Exploration::Rounds(1),
                alpha: 0.1,
                halve_every: Some(2),
                exploitation: costbo_core::policy::unknown_cost::Exploitation::Paper,
            }),
            false,
        ),
    }
}

/// What a controller is built from.
type Parts = (
    Problem<f64, D, M>,
    Gp<f64, N, D, Vec<f64>>,
    SampleBank<f64, D, Vec<[f64; D]>>,
    Settings<f64>,
    Pol,
);

/// The parts of a fresh controller of rule `i` (see [`rule`]), also for a restore.
fn parts(i: u8) -> Parts {
    let (spec, known) = rule(i);
    let tn = TruncatedNormal::with_truncated_variance(0.5, 0.04, 0.0, 1.0)
        .expect("valid truncated normal");
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
    let problem = Problem::new(&[v; D], &sets, known.then_some(&COSTS[..])).expect("problem");
    let gp = Gp::new(
        Kernel::squared_exponential([0.2; D], 1.0).expect("kernel"),
        0.0,
        1e-4,
        WhenFull::DropOldest,
        vec![0.0; tri_len(N)],
    )
    .expect("gp");
    let bank = SampleBank::quasi_random(&problem, vec![[0.0; D]; 8], 4).expect("bank");
    let settings = Settings {
        beta: 2.0,
        budget: 20.0,
        inner: InnerConfig {
            pool: 4,
            starts: 1,
            evaluations_per_start: 3,
        },
        seed: 3,
        budget_rule: BudgetRule::Affordable,
        refit: Refit::Never,
    };
    (problem, gp, bank, settings, spec.build())
}

fn restore(i: u8, snap: &Snap) -> Option<Ctl> {
    let (p, g, b, s, r) = parts(i);
    Controller::restore(p, g, b, s, r, NoCostModel, snap).ok()
}

/// Valid snapshots of each rule, in postcard: initial points (one input twice, so a merged
/// slot is saved), a few rounds, and a pending decision.
fn valid(i: u8) -> &'static [u8] {
    static VALID: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    &VALID.get_or_init(|| {
        (0..3)
            .map(|i| {
                let (p, g, b, s, r) = parts(i);
                let mut c = Ctl::new(p, g, b, s, r).expect("controller");
                for x in [[0.2, 0.7], [0.9, 0.1], [0.2, 0.7]] {
                    c.observe_initial(&x, x[0] - x[1]).expect("initial point");
                }
                for round in 0..3 {
                    let d = c.suggest().expect("decision");
                    let x =
                        core::array::from_fn(|l| d.values[l].unwrap_or(0.3 + 0.1 * round as f64));
                    c.observe(&x, x[0] * x[1], 0.1 + 0.05 * d.set as f64)
                        .expect("observation");
                }
                c.suggest().expect("pending decision");
                postcard::to_allocvec(&c.snapshot()).expect("snapshot serialises")
            })
            .collect()
    })[usize::from(i % 3)]
}

/// Reads a snapshot for one of three rules from the bytes: as JSON text, as raw postcard, or
/// as a valid postcard snapshot with bytes flipped (which reaches the restore's checks far
/// more often than random bytes). Deserialising and restoring must end in a typed error or a
/// controller that decides, and whose own snapshot restores to a controller with the same
/// snapshot (nothing lost or invented in a second save).
pub fn snapshot_bytes(data: &[u8]) {
    let mut bytes = Bytes::new(data);
    let i = bytes.u8();
    let mode = bytes.u8() % 3;
    let snap: Snap = match mode {
        0 => {
            let text = String::from_utf8_lossy(bytes.rest());
            match serde_json::from_str(&text) {
                Ok(s) => s,
                Err(_) => return,
            }
        }
        1 => match postcard::from_bytes(bytes.rest()) {
            Ok(s) => s,
            Err(_) => return,
        },
        _ => {
            let mut image = valid(i).to_vec();
            while !bytes.is_empty() {
                let at = usize::from(bytes.u16()) % image.len();
                image[at] ^= bytes.u8() | 1;
            }
            match postcard::from_bytes(&image) {
                Ok(s) => s,
                Err(_) => return,
            }
        }
    };
    let Some(mut ctl) = restore(i, &snap) else {
        return;
    };
    let saved = ctl.snapshot();
    let again = restore(i, &saved).expect("a restored controller's snapshot restores");
    assert_eq!(
        postcard::to_allocvec(&again.snapshot()).expect("serialises"),
        postcard::to_allocvec(&saved).expect("serialises"),
        "a second save differs from the first"
    );
    // Deciding may refuse (budget spent), but never panics.
    let _ = ctl.suggest();
}
