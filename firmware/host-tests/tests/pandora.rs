//! The device's paper-002 run on the desktop f32 core: its fingerprints are the constants the
//! firmware self-test compares with (so device and desktop decide bit for bit alike).

use costbo_core::linalg::tri_len;
use costbo_firmware::pandora::{
    controller, fingerprint, log_eipc, pbgi_d, D, LOG_EIPC_FINGERPRINT, PBGI_D_FINGERPRINT,
};

fn run<const C: usize, P: costbo_core::policy::Policy<f32, D, 1>>(
    rule: (P, costbo_core::policy::PolicySpec<f32>),
) -> u32 {
    let mut factor = vec![0.0f32; tri_len(C)];
    let mut bank = vec![[0.0f32; D]; 1];
    let mut ctl = controller::<C, P>(rule.0, rule.1, &mut factor, &mut bank).unwrap();
    fingerprint(&mut ctl).unwrap()
}

#[test]
fn desktop_f32_decisions_match_the_firmware_constants() {
    // Capacity 24 (the microbit's) and 64 (the an386's) hold the whole run: same decisions.
    let pbgi = run::<24, _>(pbgi_d());
    assert_eq!(pbgi, run::<64, _>(pbgi_d()));
    let log_ei = run::<24, _>(log_eipc());
    assert_eq!(log_ei, run::<64, _>(log_eipc()));
    println!("PBGI-D {pbgi:#010x}, LogEIPC {log_ei:#010x}");
    assert_eq!(pbgi, PBGI_D_FINGERPRINT, "PBGI-D {pbgi:#010x}");
    assert_eq!(log_ei, LOG_EIPC_FINGERPRINT, "LogEIPC {log_ei:#010x}");
}
