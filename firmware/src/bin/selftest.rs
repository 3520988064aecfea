//! On-target self-tests, run under QEMU:
//!
//! ```text
//! cargo run --profile firmware -p costbo-firmware --target thumbv7em-none-eabihf --features pandora,feedback,causal --bin selftest
//! cargo run --profile firmware -p costbo-firmware --target thumbv6m-none-eabi --features pandora,feedback,causal --bin selftest
//! ```
//!
//! Prints `test NAME ... ok|FAILED (reason)` per test, then `N passed, N failed`; QEMU exits with
//! 0 if all passed, 1 otherwise. To add a test, write `pub fn my_test() -> TestResult` in a module
//! of `src/suite/` and add one line to `TESTS` below.
#![cfg_attr(all(target_arch = "arm", target_os = "none"), no_std, no_main)]

#[cfg(all(target_arch = "arm", target_os = "none"))]
mod firmware {
    use cortex_m_rt::entry;
    use costbo_firmware::harness::{self, Test};
    use costbo_firmware::suite;

    /// The tests that run, in this order.
    static TESTS: &[Test] = costbo_firmware::tests![
        suite::basic::harness_checks_detect_failures,
        suite::basic::cholesky_16x16_f32,
        suite::basic::cholesky_solve_16x16_f64,
        suite::basic::libm_exp_log_known_values,
        suite::basic::f32_vs_f64_consistency,
        suite::gp::reference_cases_f64,
        suite::gp::reference_cases_f32,
        suite::gp::incremental_factor_equals_batch_f32,
        suite::gp::drop_oldest_matches_fresh_model_f32,
        suite::gp::errors_leave_model_unchanged_f32,
        suite::gp::repeated_inputs_f32,
        suite::gp::input_gradients_match_finite_differences_f64,
        suite::gp::fit_improves_likelihood_f32,
        suite::decision::etc_ada_20_rounds_on_hartmann3,
        #[cfg(feature = "pandora")]
        suite::decision::pbgi_d_decisions_equal_the_desktops,
        // Not on the microbit: its 256 KiB of flash cannot hold a second rule's code beside
        // the rest of the suite (ARMv6-M soft float); the an386 Cortex-M0 bench runs it.
        #[cfg(all(feature = "pandora", not(costbo_machine = "microbit")))]
        suite::decision::log_eipc_decisions_equal_the_desktops,
        #[cfg(feature = "feedback")]
        suite::decision::feedback_decisions_equal_the_desktops,
        #[cfg(all(feature = "causal", not(costbo_machine = "microbit")))]
        suite::decision::causal_decisions_equal_the_desktops,
    ];

    #[entry]
    fn main() -> ! {
        harness::run("costbo-firmware selftest", TESTS)
    }
}

#[cfg(not(all(target_arch = "arm", target_os = "none")))]
fn main() {
    eprintln!(
        "selftest is Cortex-M firmware: cargo run --profile firmware -p costbo-firmware \
         --target thumbv7em-none-eabihf --bin selftest   (or --target thumbv6m-none-eabi)"
    );
    std::process::exit(2);
}
