//! Instructions per decision of the shipped experiment (`firmware/experiment.toml`: the
//! plant-dosing controller, 5 nutrients, 7 control sets, capacity 64, bank 64, f32), run by
//! hand; the counts go to `docs/embedded.md`:
//!
//! ```text
//! QEMU_ICOUNT=3 cargo run --profile firmware -p costbo-firmware --target thumbv7em-none-eabihf --bin bench_controller
//! COSTBO_FIRMWARE_MACHINE=an386 QEMU_MACHINE=an386 QEMU_ICOUNT=3 \
//!     cargo run --profile firmware -p costbo-firmware --target thumbv6m-none-eabi --bin bench_controller
//! ```
//!
//! The controller is filled to capacity minus one with observations of a smooth test function
//! at pseudo-random points, then two things are counted: `suggest()` (the experiment's rule,
//! ETC-Ada, exploring its cheapest cost group: what the device does in most rounds) and the
//! expected UCB of all seven sets scored with the experiment's inner budget (what a round costs
//! at most, when every set is needed). The microbit's 16 KiB cannot hold this controller, so the
//! Cortex-M0 figure is ARMv6-M code on the an386's memory map (see `firmware/build.rs`).
#![cfg_attr(all(target_arch = "arm", target_os = "none"), no_std, no_main)]

#[cfg(all(target_arch = "arm", target_os = "none", costbo_machine = "an386"))]
mod firmware {
    use cortex_m_rt::entry;
    use costbo_core::expectation::Bound;
    use costbo_core::policy::score_sets;
    use costbo_firmware::experiment::{BANK, D, FACTOR_LEN, M, N, SPEC};
    use costbo_firmware::icount::Icount;
    use costbo_firmware::semihosting::exit;
    use costbo_firmware::testdata::Lcg;
    use costbo_firmware::{println, CORE, MACHINE};

    /// A smooth bump in the unit cube, standing in for growth (the count barely depends on it).
    fn response(u: &[f32; D]) -> f32 {
        let mut r2 = 0.0;
        for (l, v) in u.iter().enumerate() {
            let c = 0.3 + 0.1 * l as f32;
            r2 += (v - c) * (v - c);
        }
        libm::expf(-4.0 * r2)
    }

    #[entry]
    fn main() -> ! {
        let cp = cortex_m::Peripherals::take().unwrap();
        let ic = Icount::init(cp.SYST);
        let factor = cortex_m::singleton!(: [f32; FACTOR_LEN] = [0.0; FACTOR_LEN]).unwrap();
        let bank = cortex_m::singleton!(: [[f32; D]; BANK] = [[0.0; D]; BANK]).unwrap();
        let mut ctl = match SPEC.controller::<f32, N, D, M, _, _>(&mut factor[..], &mut bank[..]) {
            Ok(c) => c,
            Err(e) => {
                println!("bench_controller: the experiment cannot be built: {:?}", e);
                exit(3)
            }
        };
        let mut rng = Lcg::new(11);
        for _ in 0..N - 1 {
            let u: [f32; D] = core::array::from_fn(|_| rng.next_unit() as f32);
            let x = ctl.problem().to_physical(&u);
            ctl.observe_initial(&x, response(&u)).unwrap();
        }
        let (d, insns) = ic.insns(|| ctl.suggest());
        let d = d.unwrap();
        // The scores of every set, with the controller's own bank.
        let inner = SPEC.inner;
        let mut out = [None; M];
        let ((), all) = ic.insns(|| {
            score_sets(
                ctl.problem(),
                ctl.gp(),
                ctl.bank(),
                Bound::Upper(SPEC.beta as f32),
                &inner,
                1,
                &mut out,
                &mut [],
                |_| true,
            )
        });
        match (insns, all) {
            (Some(n), Some(a)) => {
                println!(
                    "bench controller_suggest_n{}_bank{}_f32 insns={} (set {}) {} code on {}",
                    N - 1,
                    BANK,
                    n,
                    d.set,
                    CORE,
                    MACHINE
                );
                println!(
                    "bench controller_all_sets_n{}_bank{}_f32 insns={} {} code on {}",
                    N - 1,
                    BANK,
                    a,
                    CORE,
                    MACHINE
                );
            }
            _ => println!("bench_controller: run with QEMU_ICOUNT=3"),
        }
        exit(0)
    }
}

#[cfg(all(target_arch = "arm", target_os = "none", costbo_machine = "microbit"))]
mod firmware {
    use cortex_m_rt::entry;
    use costbo_firmware::println;
    use costbo_firmware::semihosting::exit;

    #[entry]
    fn main() -> ! {
        println!(
            "bench_controller: the experiment does not fit the microbit; build with \
             COSTBO_FIRMWARE_MACHINE=an386 and run with QEMU_MACHINE=an386"
        );
        exit(2)
    }
}

#[cfg(not(all(target_arch = "arm", target_os = "none")))]
fn main() {
    eprintln!("bench_controller is Cortex-M firmware; see its header for the command");
    std::process::exit(2);
}
