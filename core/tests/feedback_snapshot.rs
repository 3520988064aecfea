//! Snapshots of paper 003's feedback controller: a restored controller makes the same
//! decisions bit for bit as the one saved (in f32 and f64, across a fold of the filter's
//! scale factors), and every damaged or foreign snapshot is refused with the controller left
//! freshly built.

use costbo_core::feedback::controller::{
    Beta, CandidateController, Chooser, Competitors, FeedbackError, FeedbackSettings,
};
use costbo_core::feedback::query::{ConfidenceTest, QueryRule};
use costbo_core::feedback::snapshot::RestoreError;
use costbo_core::gp::candidates::CandidatePosterior;
use costbo_core::real::Real;
use rand_xoshiro::rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

type Controller<R> = CandidateController<R, Vec<R>, Xoshiro256PlusPlus>;

const M: usize = 12;
/// Forgetting rate: the reduction's scale factor falls below the fold threshold (1e-6)
/// after ln(1e-6)/ln(0.95) ≈ 269 rounds, inside the runs below.
const EPSILON: f64 = 0.05;
/// Measurement cost and budget: the budget runs out before the end of the long run.
const COST: f64 = 1.0;
const BUDGET: f64 = 120.0;

fn controller<R: Real>(m: usize) -> Controller<R> {
    let post = CandidatePosterior::new(
        vec![R::ZERO; CandidatePosterior::<R, Vec<R>>::storage_len(m)],
        m,
        |i, j| {
            let r = 3f64.sqrt() * (i as f64 - j as f64).abs() / (m as f64 * 0.2);
            R::from_f64((1.0 + r) * (-r).exp())
        },
        R::ZERO,
        R::from_f64(0.01),
        R::from_f64(EPSILON),
    )
    .unwrap();
    let settings = FeedbackSettings {
        beta: Beta::Constant(R::from_f64(0.8)),
        chooser: Chooser::Ucb,
        // CE @0.9 with quotas: both coins and the test are exercised.
        rule: QueryRule::new(
            R::from_f64(30.0),
            R::from_f64(200.0),
            R::from_f64(500.0),
            ConfidenceTest::Kappa(R::from_f64(0.9)),
        )
        .unwrap(),
        competitors: Competitors::All,
        reset_every: None,
    };
    CandidateController::new(post, settings, Xoshiro256PlusPlus::seed_from_u64(17))
        .unwrap()
        .with_budget(R::from_f64(COST), R::from_f64(BUDGET))
        .unwrap()
}

/// The drifting truth's stand-in: a fixed bump plus noise from the world's own generator.
fn outcome<R: Real>(candidate: usize, world: &mut Xoshiro256PlusPlus) -> R {
    let u = (world.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let x = candidate as f64 / M as f64;
    R::from_f64((-(x - 0.6) * (x - 0.6) / 0.02).exp() + 0.1 * (u - 0.5))
}

fn run<R: Real>(
    c: &mut Controller<R>,
    rounds: usize,
    world: &mut Xoshiro256PlusPlus,
) -> Vec<String> {
    let mut log = Vec::new();
    for _ in 0..rounds {
        let ask = c.ask().unwrap();
        log.push(format!("{ask:?}"));
        if ask.query.pay {
            c.tell(outcome(ask.candidate, world)).unwrap();
        } else {
            c.skip().unwrap();
        }
    }
    log
}

fn save<R: Real>(c: &Controller<R>) -> Vec<u8> {
    let mut buf = vec![0u8; 16 * (2 * M * M + 64)];
    let used = postcard::to_slice(&c.snapshot().unwrap(), &mut buf)
        .unwrap()
        .len();
    buf.truncate(used);
    buf
}

fn restore<R: Real>(
    c: &mut Controller<R>,
    bytes: &[u8],
) -> Result<(), RestoreError<postcard::Error>> {
    c.restore(&mut postcard::Deserializer::from_bytes(bytes))
}

fn continues_bit_for_bit<R: Real>() {
    for saved_at in [0, 1, 57, 268, 300] {
        let mut original = controller::<R>(M);
        let mut world = Xoshiro256PlusPlus::seed_from_u64(3);
        run(&mut original, saved_at, &mut world);
        let bytes = save(&original);
        let mut restored = controller::<R>(M);
        restore(&mut restored, &bytes).unwrap();
        assert_eq!(restored.round(), original.round());
        assert_eq!(restored.paid(), original.paid());
        assert_eq!(restored.spent().to_f64(), original.spent().to_f64());
        let mut world_copy = world.clone();
        let a = run(&mut original, 400 - saved_at, &mut world);
        let b = run(&mut restored, 400 - saved_at, &mut world_copy);
        assert_eq!(a, b, "decisions after a restore at round {}", saved_at + 1);
        for j in 0..M {
            let (p, q) = (original.posterior(), restored.posterior());
            assert_eq!(
                p.mean(j).unwrap().to_f64().to_bits(),
                q.mean(j).unwrap().to_f64().to_bits()
            );
            assert_eq!(
                p.variance(j).unwrap().to_f64().to_bits(),
                q.variance(j).unwrap().to_f64().to_bits()
            );
        }
        assert!(original.paid() > 20, "the runs pay for measurements");
    }
}

#[test]
fn a_restored_controller_continues_bit_for_bit_f64() {
    continues_bit_for_bit::<f64>();
}

#[test]
fn a_restored_controller_continues_bit_for_bit_f32() {
    continues_bit_for_bit::<f32>();
}

/// The first decision of a freshly built controller, to check that a refused restore left it so.
fn first_ask<R: Real>(c: &mut Controller<R>) -> String {
    let mut copy = c.clone();
    format!("{:?} round {}", copy.ask().unwrap(), c.round())
}

#[test]
fn damaged_snapshots_leave_the_controller_fresh() {
    let mut original = controller::<f64>(M);
    let mut world = Xoshiro256PlusPlus::seed_from_u64(9);
    run(&mut original, 150, &mut world);
    let bytes = save(&original);
    let fresh = first_ask(&mut controller::<f64>(M));
    for cut in 0..bytes.len() {
        let mut c = controller::<f64>(M);
        assert!(
            restore(&mut c, &bytes[..cut]).is_err(),
            "truncated at {cut}"
        );
        assert_eq!(
            first_ask(&mut c),
            fresh,
            "after a refused restore cut at {cut}"
        );
    }
    let (mut refused, mut accepted) = (0, 0);
    for i in 0..bytes.len() {
        for bit in 0..8 {
            let mut damaged = bytes.clone();
            damaged[i] ^= 1 << bit;
            let mut c = controller::<f64>(M);
            match restore(&mut c, &damaged) {
                Err(_) => {
                    refused += 1;
                    assert_eq!(first_ask(&mut c), fresh, "byte {i} bit {bit}");
                }
                Ok(()) => {
                    // A flip in a value's low bits can still be a reachable state: then the
                    // controller must work on.
                    accepted += 1;
                    run(&mut c, 5, &mut world.clone());
                }
            }
        }
    }
    assert!(
        refused > 0 && accepted > 0,
        "refused {refused}, accepted {accepted}"
    );
}

/// A snapshot's fields before the generator: format, candidates, round, paid rounds, spent
/// (the ledger's sum and compensation), observations, mean scale, reduction scale, `μ̂`, `P̂`.
type Fields = (
    u8,
    u64,
    u32,
    u32,
    (f64, f64),
    u64,
    f64,
    f64,
    Vec<f64>,
    Vec<f64>,
);

/// The snapshot's tuple written field by field, to forge values no controller reaches.
fn forged(edit: impl Fn(&mut Fields)) -> Vec<u8> {
    let mut original = controller::<f64>(M);
    run(&mut original, 40, &mut Xoshiro256PlusPlus::seed_from_u64(2));
    let bytes = save(&original);
    // Decode the honest snapshot into its fields (the generator stays as bytes at the end).
    let (fields, rest): (Fields, &[u8]) = postcard::take_from_bytes(&bytes).unwrap();
    let mut fields = fields;
    edit(&mut fields);
    let mut out = vec![0u8; bytes.len() + 64];
    let used = postcard::to_slice(&fields, &mut out).unwrap().len();
    out.truncate(used);
    out.extend_from_slice(rest);
    out
}

#[test]
fn forged_values_are_refused_by_kind() {
    let mut c = controller::<f64>(M);
    assert_eq!(
        restore(&mut c, &forged(|_| {})),
        Ok(()),
        "the honest fields round-trip"
    );
    type Case = (&'static str, fn(&mut Fields), RestoreError<postcard::Error>);
    let cases: [Case; 11] = [
        ("format", |f| f.0 = 1, RestoreError::Format),
        ("candidates", |f| f.1 = 11, RestoreError::Mismatch),
        ("round 0", |f| f.2 = 0, RestoreError::Invalid),
        ("paid = round", |f| f.3 = f.2, RestoreError::Invalid),
        (
            "over budget",
            |f| f.4 = (BUDGET + 1.0, 0.0),
            RestoreError::Invalid,
        ),
        (
            "negative spending",
            |f| f.4 = (-1.0, 0.0),
            RestoreError::Invalid,
        ),
        (
            "NaN compensation",
            |f| f.4 = (f.4 .0, f64::NAN),
            RestoreError::Invalid,
        ),
        (
            "observations > paid",
            |f| f.5 = u64::from(f.3) + 1,
            RestoreError::Invalid,
        ),
        ("scale > 1", |f| f.7 = 2.0, RestoreError::Invalid),
        ("NaN mean", |f| f.8[3] = f64::NAN, RestoreError::Invalid),
        (
            "variance below zero",
            |f| f.9[5 * M + 5] = 10.0 / f.7,
            RestoreError::Invalid,
        ),
    ];
    let fresh = first_ask(&mut controller::<f64>(M));
    for (what, edit, want) in cases {
        let mut c = controller::<f64>(M);
        assert_eq!(restore(&mut c, &forged(edit)), Err(want), "{what}");
        assert_eq!(first_ask(&mut c), fresh, "{what}");
    }
    let short = forged(|f| {
        f.9.pop();
    });
    let mut c = controller::<f64>(M);
    assert_eq!(
        restore(&mut c, &short),
        Err(RestoreError::Invalid),
        "a short reduction"
    );
}

#[test]
fn snapshots_are_taken_between_rounds_and_restored_into_fresh_controllers() {
    let mut c = controller::<f64>(M);
    let ask = c.ask().unwrap();
    assert_eq!(c.snapshot().err(), Some(FeedbackError::RoundOpen));
    if ask.query.pay {
        c.tell(0.5).unwrap();
    } else {
        c.skip().unwrap();
    }
    let bytes = save(&c);
    // Into a controller that already ran a round: refused, and it keeps its state.
    let before = first_ask(&mut c);
    assert_eq!(restore(&mut c, &bytes), Err(RestoreError::NotFresh));
    assert_eq!(first_ask(&mut c), before);
    // Into one over another number of candidates.
    let mut other = controller::<f64>(M - 1);
    assert_eq!(restore(&mut other, &bytes), Err(RestoreError::Mismatch));
}
