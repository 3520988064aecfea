//! The device's paper-003 run (CE-GP-UCB on a time-varying GP, `costbo_firmware::feedback`) on
//! the desktop f32 core: its fingerprint is the constant the firmware self-test compares with,
//! so device and desktop decide bit for bit alike.

use costbo_core::linalg::tri_len;
use costbo_firmware::feedback::{
    fingerprint, fold, Scenario, DECISIONS, FINGERPRINT, FNV_START, N, WARM_UP,
};

#[test]
fn desktop_f32_decisions_match_the_firmware_constant() {
    let mut scenario = Scenario::new(vec![0.0f32; tri_len(N)]).unwrap();
    let (hash, paid) = fingerprint(&mut scenario).unwrap();
    println!("feedback {hash:#010x}, {paid} of {DECISIONS} paid");
    // The hashed decisions cover both branches of the rule: a paid round (a push that drops
    // the oldest point) and a skipped one.
    assert!(paid > 0 && paid < DECISIONS, "{paid} of {DECISIONS} paid");
    assert_eq!(hash, FINGERPRINT, "feedback {hash:#010x}");
}

#[test]
fn decisions_run_at_capacity_and_replay_exactly() {
    let mut a = Scenario::new(vec![0.0f32; tri_len(N)]).unwrap();
    a.warm_up().unwrap();
    assert_eq!(a.gp().len(), N);
    assert_eq!(a.gp().round(), WARM_UP as u32);
    let mut hash = FNV_START;
    for i in 0..DECISIONS {
        let d = a.decide().unwrap();
        println!(
            "round {} x=({:.4}, {:.4}) pay={} p_min={:.4} optima={}",
            d.round, d.x[0], d.x[1], d.query.pay, d.query.min_probability, d.optima
        );
        assert_eq!(d.round, (WARM_UP + i) as u32);
        assert!(d.x.iter().all(|v| (0.0..=1.0).contains(v)), "{d:?}");
        // A paid round pushes into a full buffer: the oldest point goes, the size stays.
        assert_eq!(a.gp().len(), N);
        hash = fold(hash, &d);
    }
    // The same scenario over another factor storage gives the same hash.
    let mut factor = [0.0f32; tri_len(N)];
    let mut b = Scenario::new(&mut factor[..]).unwrap();
    assert_eq!(fingerprint(&mut b).unwrap().0, hash);
}
