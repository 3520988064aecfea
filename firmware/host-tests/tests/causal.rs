//! The device's paper-004 run (Algorithm 2 over two arms of capacity 64,
//! `costbo_firmware::causal`) on the desktop f32 core: its fingerprint is the constant the
//! firmware self-test and bench_causal compare with, so device and desktop decide bit for bit
//! alike. The run's behaviour is also checked against what the scenario implies.

use costbo_core::causal::controller::ArmReason;
use costbo_core::linalg::tri_len;
use costbo_firmware::causal::{
    context, fingerprint, fold, outcome, Scenario, DECISIONS, FINGERPRINT, FNV_START, N,
};

fn scenario() -> Scenario<Vec<f32>> {
    Scenario::new([vec![0.0f32; tri_len(N)], vec![0.0f32; tri_len(N)]]).unwrap()
}

#[test]
fn desktop_f32_decisions_match_the_firmware_constant() {
    let (hash, first_arm) = fingerprint(&mut scenario()).unwrap();
    println!("causal {hash:#010x}, arm 0 in {first_arm} of {DECISIONS}");
    assert!(
        first_arm > 0 && first_arm < DECISIONS,
        "arm 0 in {first_arm} of {DECISIONS}"
    );
    assert_eq!(hash, FINGERPRINT, "causal {hash:#010x}");
}

#[test]
fn rounds_run_at_capacity_and_follow_the_context() {
    let mut s = scenario();
    let mut hash = FNV_START;
    for t in 0..40u32 {
        let d = s.round().unwrap();
        assert_eq!(d.choice.round, t + 1);
        if t < 2 {
            // Algorithm 2 plays every arm once, in order, first.
            assert_eq!(
                (d.choice.arm, d.choice.reason),
                (t as usize, ArmReason::RoundRobin)
            );
        }
        // Full GPs drop their oldest point: every arm stays at capacity.
        for arm in 0..2 {
            assert_eq!(s.controller().gp(arm).unwrap().len(), N);
        }
        assert!(d.input.iter().all(|v| (0.0..=1.0).contains(v)), "{d:?}");
        if d.choice.arm == 0 {
            // The context is pinned at its measured value.
            assert_eq!(d.input[1], context(t));
        }
        if (t as usize) < DECISIONS {
            hash = fold(hash, &d);
        }
    }
    // Arm 0 is worth 1 at X = C and arm 1 at most 0.7: after the warm-up grids, Algorithm 2
    // settles on arm 0, and its actions track the context: their mean outcome beats arm 1's
    // best (0.7) and, by far, the best context-free action on arm 0 (X = ½ gives
    // √(0.05π)·erf(½/√0.05) ≈ 0.396 on average over C ~ U(0, 1)).
    let mut late_arm0 = 0;
    let mut late_value = 0.0;
    for t in 40..80u32 {
        let d = s.round().unwrap();
        if d.choice.arm == 0 {
            late_arm0 += 1;
            late_value += outcome(0, &d.input);
        }
        assert_eq!(d.choice.round, t + 1);
    }
    assert!(late_arm0 >= 30, "arm 0 in {late_arm0} of 40 late rounds");
    assert!(
        late_value / late_arm0 as f32 > 0.7,
        "mean outcome {}",
        late_value / late_arm0 as f32
    );
    let mut other = scenario();
    assert_eq!(fingerprint(&mut other).unwrap().0, hash);
}
