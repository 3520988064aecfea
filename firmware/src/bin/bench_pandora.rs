//! Instructions per decision of paper 002's rules on the device (f32, a 2-D box with the cost
//! `1 + 20·mean(u)`, capacity 64 filled with 63 observations), run by hand; the counts go to
//! `docs/embedded.md`:
//!
//! ```text
//! QEMU_ICOUNT=3 cargo run --profile firmware -p costbo-firmware --target thumbv7em-none-eabihf --features pandora --bin bench_pandora
//! COSTBO_FIRMWARE_MACHINE=an386 QEMU_MACHINE=an386 QEMU_ICOUNT=3 \
//!     cargo run --profile firmware -p costbo-firmware --target thumbv6m-none-eabi --features pandora --bin bench_pandora
//! ```
//!
//! Each rule is counted twice: maximised by the device's pool (`pandora::INNER`) and by paper
//! 002's optimiser (`200·d` raw samples, `10·d` quasi-Newton restarts).
#![cfg_attr(all(target_arch = "arm", target_os = "none"), no_std, no_main)]

#[cfg(all(target_arch = "arm", target_os = "none", costbo_machine = "an386"))]
mod firmware {
    use cortex_m_rt::entry;
    use costbo_core::inner::RestartConfig;
    use costbo_core::linalg::tri_len;
    use costbo_core::policy::log_ei::{CostUse, LogEi};
    use costbo_core::policy::pbgi::{Lambda, PandoraIndex};
    use costbo_core::policy::{Maximiser, Policy, PolicySpec};
    use costbo_firmware::icount::Icount;
    use costbo_firmware::pandora::{controller, objective, D};
    use costbo_firmware::semihosting::exit;
    use costbo_firmware::testdata::Lcg;
    use costbo_firmware::{println, CORE, MACHINE};

    const N: usize = 64;
    const RAW: usize = 200 * D;

    /// Counts one decision of `policy` on a controller filled with 63 observations.
    fn count<P: Policy<f32, D, 1>>(
        ic: &Icount,
        name: &str,
        policy: P,
        spec: PolicySpec<f32>,
        factor: &mut [f32],
        workspace: &mut [f32],
    ) {
        let mut bank = [[0.0f32; D]; 1];
        let mut ctl = match controller::<N, P>(policy, spec, factor, &mut bank) {
            Ok(c) => c,
            Err(e) => {
                println!("bench_pandora: {}: {:?}", name, e);
                exit(3)
            }
        };
        let mut rng = Lcg::new(5);
        for _ in 0..N - 1 {
            let u: [f32; D] = core::array::from_fn(|_| rng.next_unit() as f32);
            ctl.observe_initial(&u, objective(&u)).unwrap();
        }
        let len = ctl.workspace_len();
        let (step, insns) = ic.insns(|| ctl.next(&[None; D], &mut workspace[..len]));
        match (step, insns) {
            (Ok(_), Some(n)) => println!(
                "bench pandora_{}_n{}_f32 insns={} {} code on {}",
                name,
                N - 1,
                n,
                CORE,
                MACHINE
            ),
            (Err(e), _) => println!("bench_pandora: {}: {:?}", name, e),
            (_, None) => println!("bench_pandora: run with QEMU_ICOUNT=3"),
        }
    }

    #[entry]
    fn main() -> ! {
        let cp = cortex_m::Peripherals::take().unwrap();
        let ic = Icount::init(cp.SYST);
        let factor = cortex_m::singleton!(: [f32; tri_len(N)] = [0.0; tri_len(N)]).unwrap();
        let workspace = cortex_m::singleton!(: [f32; RAW] = [0.0; RAW]).unwrap();
        let pool = Maximiser::Pool;
        let paper = Maximiser::Restarts(RestartConfig::paper_002(D));
        let lambda = Lambda::paper_002_decaying();
        for (name, m) in [("pool", pool), ("restarts", paper)] {
            let rule = PandoraIndex::new(lambda, false, m);
            let spec = PolicySpec::Pandora(lambda, false, m);
            count(
                &ic,
                if name == "pool" {
                    "pbgi_d_pool"
                } else {
                    "pbgi_d_restarts"
                },
                rule,
                spec,
                &mut factor[..],
                &mut workspace[..],
            );
            let rule = LogEi::new(CostUse::PerUnit, m);
            let spec = PolicySpec::LogEi(CostUse::PerUnit, m);
            count(
                &ic,
                if name == "pool" {
                    "log_eipc_pool"
                } else {
                    "log_eipc_restarts"
                },
                rule,
                spec,
                &mut factor[..],
                &mut workspace[..],
            );
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
            "bench_pandora: capacity 64 does not fit the microbit; build with \
             COSTBO_FIRMWARE_MACHINE=an386 and run with QEMU_MACHINE=an386"
        );
        exit(2)
    }
}

#[cfg(not(all(target_arch = "arm", target_os = "none")))]
fn main() {
    eprintln!("bench_pandora is Cortex-M firmware; see its header for the command");
    std::process::exit(2);
}
