//! Instruction counts of small workloads, measured with SysTick under QEMU `-icount`:
//!
//! ```text
//! QEMU_ICOUNT=6 cargo run --profile firmware -p costbo-firmware --target thumbv7em-none-eabihf --bin bench
//! QEMU_ICOUNT=6 cargo run --profile firmware -p costbo-firmware --target thumbv6m-none-eabi --bin bench
//! ```
//!
//! (`scripts/qemu-run.sh` uses `QEMU_ICOUNT=6` by default for binaries named `bench*`.)
//! Prints one `bench NAME insns=N` line per workload; N is the instruction count of one call,
//! deterministic for a given binary. `calibration_spin_1000` runs exactly 2000 loop instructions
//! plus a few for the call, as a check of the tick-to-instruction conversion;
//! `calibration_spin_10000000` (20 M instructions) checks the handling of SysTick wraparound.
//! The `gp_*` and `cholesky64_f32` lines measure `costbo-core` at capacity 64, d = 5, f32.
//! With the feature `fast-math`, `fast_math_*_x100` measure the core's micromath functions on
//! the arguments of the libm lines.
#![cfg_attr(all(target_arch = "arm", target_os = "none"), no_std, no_main)]

#[cfg(all(target_arch = "arm", target_os = "none"))]
mod firmware {
    use core::hint::black_box;

    use cortex_m_rt::entry;
    use costbo_core::gp::{Gp, WhenFull};
    use costbo_core::kernel::Kernel;
    use costbo_core::linalg::{cholesky_in_place, idx, tri_len};
    use costbo_firmware::icount::{self, Icount};
    use costbo_firmware::semihosting::exit;
    use costbo_firmware::testdata::Lcg;
    use costbo_firmware::{println, MACHINE};

    /// Measures `f` once after one warm-up call and prints its line.
    fn bench<R>(ic: &Icount, name: &str, mut f: impl FnMut() -> R) {
        black_box(f());
        let (r, insns) = ic.insns(&mut f);
        black_box(r);
        match insns {
            Some(n) => println!("bench {} insns={}", name, n),
            None => println!(
                "bench {} ticks={} (no icount: wall-clock, not reproducible)",
                name,
                ic.ticks(&mut f).1
            ),
        }
    }

    const N: usize = 64;
    const D: usize = 5;

    fn points(seed: u32) -> impl FnMut() -> [f32; D] {
        let mut rng = Lcg::new(seed);
        move || core::array::from_fn(|_| rng.next_unit() as f32)
    }

    fn objective(x: &[f32; D]) -> f32 {
        libm::sinf(6.0 * x[0]) + libm::cosf(4.0 * x[1]) * x[2] - 0.5 * x[3] * x[4]
    }

    fn kernel() -> Kernel<f32, D> {
        Kernel::matern52([0.4; D], 1.0).unwrap()
    }

    /// The packed Cholesky factorisation of a 64-point Matérn kernel matrix (no kernel
    /// evaluations counted). Own stack frame, so that the M0's 16 KiB hold it and then the GP.
    #[inline(never)]
    fn cholesky64_f32(ic: &Icount) {
        let mut a = [0.0f32; tri_len(N)];
        let mut next = points(3);
        let mut xs = [[0.0f32; D]; N];
        for x in xs.iter_mut() {
            *x = next();
        }
        let k = kernel();
        for i in 0..N {
            for j in 0..=i {
                a[idx(i, j)] = k.eval(&xs[i], &xs[j]) + if i == j { 1e-3 } else { 0.0 };
            }
        }
        let (r, insns) = ic.insns(|| cholesky_in_place(black_box(&mut a), N));
        r.unwrap();
        match insns {
            Some(n) => println!("bench cholesky64_f32 insns={}", n),
            None => println!("bench cholesky64_f32 (no icount)"),
        }
    }

    /// GP operations at capacity 64, d = 5, f32.
    #[inline(never)]
    fn gp64_f32(ic: &Icount) {
        let mut gp: Gp<f32, N, D, [f32; tri_len(N)]> =
            Gp::new(kernel(), 0.0, 1e-3, WhenFull::DropOldest, [0.0; tri_len(N)]).unwrap();
        let mut next = points(5);
        for _ in 0..N - 1 {
            let x = next();
            gp.push(&x, objective(&x)).unwrap();
        }
        let x = next();
        let (r, insns) = ic.insns(|| gp.push(black_box(&x), objective(&x)));
        r.unwrap();
        if let Some(n) = insns {
            println!("bench gp_append_63_to_64_f32 insns={}", n);
        }
        let probe = next();
        bench(ic, "gp_predict_n64_f32", || {
            gp.predict(black_box(&probe)).unwrap()
        });
        bench(ic, "gp_predict_gradient_n64_f32", || {
            gp.predict_with_gradient(black_box(&probe)).unwrap()
        });
        let x = next();
        bench(ic, "gp_push_full_drop_oldest_n64_f32", || {
            gp.push(black_box(&x), 0.5).unwrap()
        });
        let k2 = Kernel::matern52([0.35; D], 1.1).unwrap();
        bench(ic, "gp_refactor_n64_f32", || {
            gp.set_hyperparameters(black_box(k2), 0.0, 1e-3).unwrap()
        });
        bench(ic, "gp_log_marginal_likelihood_n64_f32", || {
            gp.log_marginal_likelihood()
        });
    }

    #[entry]
    fn main() -> ! {
        let cp = cortex_m::Peripherals::take().unwrap();
        let ic = Icount::init(cp.SYST);
        match ic.shift() {
            Some(s) => println!(
                "# bench on {}: -icount shift={}, SysTick {} MHz: insns = ticks * 1000 / ({} << {})",
                MACHINE,
                s,
                icount::SYSTICK_MHZ,
                icount::SYSTICK_MHZ,
                s
            ),
            None => println!(
                "# bench on {}: QEMU runs without -icount, so only wall-clock ticks (set QEMU_ICOUNT=6)",
                MACHINE
            ),
        }

        bench(&ic, "calibration_spin_1000", || {
            icount::spin(black_box(1000))
        });
        // 20 M instructions: SysTick wraps (every 2^24 ticks) about three times on the an386 at
        // shift=6, which checks the wrap counting.
        bench(&ic, "calibration_spin_10000000", || {
            icount::spin(black_box(10_000_000))
        });

        cholesky64_f32(&ic);
        gp64_f32(&ic);

        bench(&ic, "expf_x100", || {
            let mut s = 0.0f32;
            for i in 0..100 {
                s += libm::expf(black_box(i as f32 * 0.37 - 18.0));
            }
            s
        });
        bench(&ic, "logf_x100", || {
            let mut s = 0.0f32;
            for i in 1..=100 {
                s += libm::logf(black_box(i as f32 * 0.37));
            }
            s
        });
        bench(&ic, "sqrtf_x100", || {
            let mut s = 0.0f32;
            for i in 1..=100 {
                s += libm::sqrtf(black_box(i as f32 * 0.37));
            }
            s
        });
        // The core's fast-math functions on the same arguments as the libm lines above (only
        // exp is what f32's Real uses with the feature; ln and sqrt are measured beside it).
        #[cfg(feature = "fast-math")]
        {
            use costbo_core::real::fast_math;
            bench(&ic, "fast_math_exp_x100", || {
                let mut s = 0.0f32;
                for i in 0..100 {
                    s += fast_math::exp(black_box(i as f32 * 0.37 - 18.0));
                }
                s
            });
            bench(&ic, "fast_math_ln_x100", || {
                let mut s = 0.0f32;
                for i in 1..=100 {
                    s += fast_math::ln(black_box(i as f32 * 0.37));
                }
                s
            });
            bench(&ic, "fast_math_sqrt_x100", || {
                let mut s = 0.0f32;
                for i in 1..=100 {
                    s += fast_math::sqrt(black_box(i as f32 * 0.37));
                }
                s
            });
        }
        exit(0)
    }
}

#[cfg(not(all(target_arch = "arm", target_os = "none")))]
fn main() {
    eprintln!(
        "bench is Cortex-M firmware: QEMU_ICOUNT=6 cargo run --profile firmware -p costbo-firmware \
         --target thumbv7em-none-eabihf --bin bench   (or --target thumbv6m-none-eabi)"
    );
    std::process::exit(2);
}
