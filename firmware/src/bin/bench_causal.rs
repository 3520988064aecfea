//! Instructions per round of paper 004's Algorithm 2 on the device (two arms, a GP of
//! capacity 64 per arm in f32; the scenario of `costbo_firmware::causal`), run by hand; the
//! counts go to `docs/embedded.md`:
//!
//! ```text
//! QEMU_ICOUNT=3 cargo run --profile firmware -p costbo-firmware --target thumbv7em-none-eabihf --features causal --bin bench_causal
//! COSTBO_FIRMWARE_MACHINE=an386 QEMU_MACHINE=an386 QEMU_ICOUNT=3 cargo run --profile firmware -p costbo-firmware --target thumbv6m-none-eabi --features causal --bin bench_causal
//! ```
//!
//! With `--features causal,fitted-model` it then counts the same rounds with every arm's model
//! refitted after each of its plays (`[model] fit = "map"`, `refit_every = 1`), the rounds that
//! fit apart from those that do not.
//!
//! The Cortex-M0 code runs on the AN386's memory map: two factors of 64 need 16.6 KB, more
//! than the microbit's 16 KiB of RAM, and an instruction count is a property of the
//! instruction stream. Each of [`ROUNDS`] rounds (arm choice, UCB ascent with the context
//! pinned, the outcome told, which drops the arm's oldest point) is counted on its own; the
//! bench prints the mean per arm, the extremes, and checks that the first `causal::DECISIONS`
//! hash to `causal::FINGERPRINT` (exit status 1 if not).
#![cfg_attr(all(target_arch = "arm", target_os = "none"), no_std, no_main)]

#[cfg(all(target_arch = "arm", target_os = "none"))]
mod firmware {
    use cortex_m_rt::entry;
    use costbo_core::linalg::tri_len;
    use costbo_firmware::causal::{fold, Scenario, DECISIONS, FINGERPRINT, FNV_START, N, STARTS};
    use costbo_firmware::icount::Icount;
    use costbo_firmware::semihosting::exit;
    use costbo_firmware::{println, CORE, MACHINE};

    /// Rounds counted (the first `DECISIONS` of them are also hashed).
    const ROUNDS: usize = 16;

    #[entry]
    fn main() -> ! {
        let cp = cortex_m::Peripherals::take().unwrap();
        let ic = Icount::init(cp.SYST);
        let f0 = cortex_m::singleton!(: [f32; tri_len(N)] = [0.0; tri_len(N)]).unwrap();
        let f1 = cortex_m::singleton!(: [f32; tri_len(N)] = [0.0; tri_len(N)]).unwrap();
        let (scenario, insns) = ic.insns(|| Scenario::new([&mut f0[..], &mut f1[..]]));
        let mut scenario = match scenario {
            Ok(s) => s,
            Err(e) => {
                println!("bench_causal: {:?}", e);
                exit(3)
            }
        };
        let Some(insns) = insns else {
            println!("bench_causal: run with QEMU_ICOUNT=3");
            exit(2)
        };
        println!(
            "causal warm-up: 2 arms x {} observations, {} insns",
            N, insns
        );
        let mut per_arm = [(0u64, 0u64); 2];
        let (mut low, mut high) = (u64::MAX, 0u64);
        let mut hash = FNV_START;
        for i in 0..ROUNDS {
            let (d, n) = ic.insns(|| scenario.round());
            let (d, n) = match (d, n) {
                (Ok(d), Some(n)) => (d, n),
                (Err(e), _) => {
                    println!("bench_causal: round {}: {:?}", i + 1, e);
                    exit(3)
                }
                (_, None) => exit(2),
            };
            println!(
                "round {} arm={} ({:?}) insns={}",
                d.choice.round, d.choice.arm, d.choice.reason, n
            );
            if i < DECISIONS {
                hash = fold(hash, &d);
            }
            let slot = &mut per_arm[d.choice.arm.min(1)];
            *slot = (slot.0 + n, slot.1 + 1);
            low = low.min(n);
            high = high.max(n);
        }
        let mean = |(sum, count): (u64, u64)| sum.checked_div(count).unwrap_or(0);
        let total = (per_arm[0].0 + per_arm[1].0, per_arm[0].1 + per_arm[1].1);
        println!(
            "bench causal_round_n{}_f32 insns={} ({} rounds, {} starts; {} code on {})",
            N,
            mean(total),
            total.1,
            STARTS,
            CORE,
            MACHINE
        );
        for (arm, slot) in per_arm.iter().enumerate() {
            println!(
                "bench causal_round_arm{}_n{}_f32 insns={} ({} rounds)",
                arm,
                N,
                mean(*slot),
                slot.1
            );
        }
        println!("causal round insns: min {} max {}", low, high);
        if hash != FINGERPRINT {
            println!(
                "bench_causal: fingerprint {:#010x}, expected {:#010x}",
                hash, FINGERPRINT
            );
            exit(1)
        }
        println!("causal fingerprint {:#010x} ok", hash);
        #[cfg(feature = "fitted-model")]
        fitted(&ic, &mut f0[..], &mut f1[..]);
        exit(0)
    }

    /// The same rounds with every arm refitted after each of its plays (from its 2nd), the
    /// worst case of `[model] fit = "map"` with `refit_every = 1` at capacity 64: the rounds
    /// that fit are counted apart.
    #[cfg(feature = "fitted-model")]
    fn fitted(ic: &Icount, f0: &mut [f32], f1: &mut [f32]) {
        use costbo_core::causal::{ArmFit, ArmModel};
        let fit = ArmFit {
            every: 1,
            spacing: 0,
            noise_floor: 1e-6,
            evaluations: costbo_experiment::CAUSAL_FIT_EVALUATIONS,
        };
        let mut scenario = match Scenario::with_model([f0, f1], ArmModel::Fitted(fit)) {
            Ok(s) => s,
            Err(e) => {
                println!("bench_causal: {:?}", e);
                exit(3)
            }
        };
        let (mut fitting, mut plain) = ((0u64, 0u64), (0u64, 0u64));
        let mut high = 0u64;
        for i in 0..ROUNDS {
            let fits_before = scenario.controller().fits(0) + scenario.controller().fits(1);
            let (d, n) = ic.insns(|| scenario.round());
            let n = match (d, n) {
                (Ok(_), Some(n)) => n,
                (Err(e), _) => {
                    println!("bench_causal: fitted round {}: {:?}", i + 1, e);
                    exit(3)
                }
                (_, None) => exit(2),
            };
            let fitted =
                scenario.controller().fits(0) + scenario.controller().fits(1) > fits_before;
            let slot = if fitted { &mut fitting } else { &mut plain };
            *slot = (slot.0 + n, slot.1 + 1);
            high = high.max(n);
        }
        let mean = |(sum, count): (u64, u64)| sum.checked_div(count).unwrap_or(0);
        println!(
            "bench causal_round_fitted_n{}_f32 insns={} ({} rounds that fit, at most {} \
             likelihood evaluations each; {} code on {})",
            N,
            mean(fitting),
            fitting.1,
            fit.evaluations,
            CORE,
            MACHINE
        );
        println!(
            "bench causal_round_fitted_nofit_n{}_f32 insns={} ({} rounds that do not fit)",
            N,
            mean(plain),
            plain.1
        );
        println!("causal fitted round insns: max {}", high);
    }
}

#[cfg(not(all(target_arch = "arm", target_os = "none")))]
fn main() {
    eprintln!("bench_causal is Cortex-M firmware; see its header for the command");
    std::process::exit(2);
}
