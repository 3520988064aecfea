//! Instructions per decision of paper 003's costly-feedback rule on the device (CE-GP-UCB,
//! κ = 0.8, on a time-varying GP of capacity 64 in f32; the scenario of
//! `costbo_firmware::feedback`), run by hand; the counts go to `docs/embedded.md`:
//!
//! ```text
//! QEMU_ICOUNT=3 cargo run --profile firmware -p costbo-firmware --target thumbv7em-none-eabihf --features feedback --bin bench_feedback
//! QEMU_ICOUNT=3 cargo run --profile firmware -p costbo-firmware --target thumbv6m-none-eabi --features feedback --bin bench_feedback
//! ```
//!
//! After the 64 warm-up rounds, each of [`ROUNDS`] decisions (optima search, query decision,
//! and the push when paid) is counted on its own; the bench prints the mean over all of them
//! and over the paid and the skipped ones, the extremes, and checks that the first
//! `feedback::DECISIONS` hash to `feedback::FINGERPRINT` (exit status 1 if not).
#![cfg_attr(all(target_arch = "arm", target_os = "none"), no_std, no_main)]

#[cfg(all(target_arch = "arm", target_os = "none"))]
mod firmware {
    use cortex_m_rt::entry;
    use costbo_core::linalg::tri_len;
    use costbo_firmware::feedback::{
        fold, Scenario, DECISIONS, FINGERPRINT, FNV_START, N, STARTS, WARM_UP,
    };
    use costbo_firmware::icount::Icount;
    use costbo_firmware::semihosting::exit;
    use costbo_firmware::{println, CORE, MACHINE};

    /// Decisions counted (the first `DECISIONS` of them are also hashed).
    const ROUNDS: usize = 32;

    #[entry]
    fn main() -> ! {
        let cp = cortex_m::Peripherals::take().unwrap();
        let ic = Icount::init(cp.SYST);
        let factor = cortex_m::singleton!(: [f32; tri_len(N)] = [0.0; tri_len(N)]).unwrap();
        let mut scenario = match Scenario::new(&mut factor[..]) {
            Ok(s) => s,
            Err(e) => {
                println!("bench_feedback: {:?}", e);
                exit(3)
            }
        };
        let (warm, insns) = ic.insns(|| scenario.warm_up());
        if let Err(e) = warm {
            println!("bench_feedback: warm-up: {:?}", e);
            exit(3)
        }
        if insns.is_none() {
            println!("bench_feedback: run with QEMU_ICOUNT=3");
            exit(2)
        }
        println!(
            "feedback warm-up: {} paid rounds, {} insns",
            WARM_UP,
            insns.unwrap_or(0)
        );
        let (mut all, mut paid, mut skipped) = ((0u64, 0u64), (0u64, 0u64), (0u64, 0u64));
        let (mut low, mut high) = (u64::MAX, 0u64);
        let mut hash = FNV_START;
        for i in 0..ROUNDS {
            let (d, n) = ic.insns(|| scenario.decide());
            let (d, n) = match (d, n) {
                (Ok(d), Some(n)) => (d, n),
                (Err(e), _) => {
                    println!("bench_feedback: round {}: {:?}", WARM_UP + i, e);
                    exit(3)
                }
                (_, None) => exit(2),
            };
            println!(
                "round {} pay={} optima={} insns={}",
                d.round, d.query.pay, d.optima, n
            );
            if i < DECISIONS {
                hash = fold(hash, &d);
            }
            all = (all.0 + n, all.1 + 1);
            if d.query.pay {
                paid = (paid.0 + n, paid.1 + 1);
            } else {
                skipped = (skipped.0 + n, skipped.1 + 1);
            }
            low = low.min(n);
            high = high.max(n);
        }
        let mean = |(sum, count): (u64, u64)| sum.checked_div(count).unwrap_or(0);
        println!(
            "bench feedback_decision_n{}_f32 insns={} ({} decisions, {} starts; {} code on {})",
            N,
            mean(all),
            all.1,
            STARTS.len(),
            CORE,
            MACHINE
        );
        println!(
            "bench feedback_paid_n{}_f32 insns={} ({} decisions)",
            N,
            mean(paid),
            paid.1
        );
        println!(
            "bench feedback_skipped_n{}_f32 insns={} ({} decisions)",
            N,
            mean(skipped),
            skipped.1
        );
        println!("feedback decision insns: min {} max {}", low, high);
        if hash != FINGERPRINT {
            println!(
                "bench_feedback: fingerprint {:#010x}, expected {:#010x}",
                hash, FINGERPRINT
            );
            exit(1)
        }
        println!("feedback fingerprint {:#010x} ok", hash);
        exit(0)
    }
}

#[cfg(not(all(target_arch = "arm", target_os = "none")))]
fn main() {
    eprintln!("bench_feedback is Cortex-M firmware; see its header for the command");
    std::process::exit(2);
}
