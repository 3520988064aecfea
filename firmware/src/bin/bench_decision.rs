//! Instructions per decision of the core's controller on Cortex-M (run by hand; the counts go to
//! `docs/performance.md`):
//!
//! ```text
//! QEMU_ICOUNT=3 cargo run --profile firmware -p costbo-firmware --target thumbv7em-none-eabihf --bin bench_decision
//! QEMU_ICOUNT=3 cargo run --profile firmware -p costbo-firmware --target thumbv6m-none-eabi --bin bench_decision
//! COSTBO_FIRMWARE_MACHINE=an386 QEMU_MACHINE=an386 QEMU_ICOUNT=3 \
//!     cargo run --profile firmware -p costbo-firmware --target thumbv6m-none-eabi --bin bench_decision
//! ```
//!
//! The last one is Cortex-M0 code (ARMv6-M, soft float) run on the `mps2-an386` machine: QEMU
//! has no Cortex-M0 machine with more than the microbit's 16 KiB of RAM, and the instruction
//! count is a property of the instruction stream, not of the core that executes it. Checked with
//! the capacity-40 configuration: 3 106 878 480 instructions on the an386, 3 106 879 490 on the
//! microbit (a 3e-7 difference: the SysTick wrap interrupts that the count itself relies on
//! come at 25 MHz on one machine and 16 MHz on the other).
//!
//! ETC-Ada on Hartmann-3 (7 control sets), capacity 64 with 63 observations (40 and 39 on the
//! microbit), f32, a 64-point bank; the inner optimiser scores a 16-point pool and refines 2 starts with 10 evaluations
//! each, per control set.
#![cfg_attr(all(target_arch = "arm", target_os = "none"), no_std, no_main)]

#[cfg(all(target_arch = "arm", target_os = "none"))]
mod firmware {
    use cortex_m_rt::entry;
    use costbo_core::inner::InnerConfig;
    use costbo_core::linalg::tri_len;
    use costbo_firmware::icount::Icount;
    use costbo_firmware::semihosting::exit;
    use costbo_firmware::suite::decision::{controller, hartmann3, D};

    /// Capacity and bank size of the measured configuration. The microbit's 16 KiB of RAM cannot
    /// hold the controller at capacity 64 (the packed factor alone is 8.3 KiB and the controller
    /// is moved by value while it is built), so it is measured at 40 there, and Cortex-M0 code
    /// at 64 on the an386 (`COSTBO_FIRMWARE_MACHINE=an386`, see above).
    #[cfg(not(costbo_machine = "microbit"))]
    const N: usize = 64;
    #[cfg(costbo_machine = "microbit")]
    const N: usize = 40;
    const BANK: usize = 64;

    use costbo_firmware::testdata::Lcg;
    use costbo_firmware::{println, CORE, MACHINE};

    #[entry]
    fn main() -> ! {
        let cp = cortex_m::Peripherals::take().unwrap();
        let ic = Icount::init(cp.SYST);
        let inner = InnerConfig {
            pool: 16,
            starts: 2,
            evaluations_per_start: 10,
        };
        // Static buffers (in .bss, not on the stack): the microbit has 16 KiB of RAM in all and
        // the packed factor alone takes 8.3 KiB.
        let factor = cortex_m::singleton!(: [f32; tri_len(N)] = [0.0; tri_len(N)]).unwrap();
        let bank = cortex_m::singleton!(: [[f32; D]; BANK] = [[0.0; D]; BANK]).unwrap();
        let mut ctl = controller::<N>(100.0, inner, factor, bank).unwrap();
        let mut rng = Lcg::new(9);
        for _ in 0..N - 1 {
            let x: [f32; 3] = core::array::from_fn(|_| rng.next_unit() as f32);
            ctl.observe_initial(&x, hartmann3(&x)).unwrap();
        }
        let (d, insns) = ic.insns(|| ctl.suggest());
        let d = d.unwrap();
        match insns {
            Some(n) => println!(
                "bench decision_etc_ada_n{}_bank{}_f32 insns={} (set {}) {} code on {}",
                N - 1,
                BANK,
                n,
                d.set,
                CORE,
                MACHINE
            ),
            None => println!("bench decision: run with QEMU_ICOUNT=3"),
        }
        exit(0)
    }
}

#[cfg(not(all(target_arch = "arm", target_os = "none")))]
fn main() {
    eprintln!("bench_decision is Cortex-M firmware; see its header for the command");
    std::process::exit(2);
}
