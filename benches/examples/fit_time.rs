//! Wall time of paper 002's MAP refit (`FitConfig::botorch_map`, Matérn-5/2 ARD, noise 1e-4)
//! on n Sobol' points of the negated Ackley function at d = 4, 8, 16 and n = 50, 100, 200: the
//! refit half of one iteration of `benches/pandora.rs`, alone, with the number of likelihood
//! evaluations and the fitted objective's bits (so that two builds can be compared for both
//! speed and identical results). Prints one line per (d, n): the best of `REPEATS` fits.
//!
//! Run: `cargo run --profile bench -p costbo-benches --example fit_time`.

use costbo_core::gp::{fit_cache_len, FitConfig, Gp, WhenFull};
use costbo_core::kernel::Kernel;
use costbo_core::linalg::tri_len;
use costbo_core::qmc::Sobol;
use std::time::Instant;

const CAPACITY: usize = 256;
const REPEATS: usize = 5;

fn time_fit<const D: usize>(n: usize) {
    let kernel = Kernel::matern52([2.0; D], 1.0).expect("valid kernel");
    let mut gp: Gp<f64, CAPACITY, D, Vec<f64>> = Gp::new(
        kernel,
        0.0,
        1e-4,
        WhenFull::Reject,
        vec![0.0; tri_len(CAPACITY)],
    )
    .expect("valid GP");
    let mut sobol = Sobol::<D>::new(9).expect("D within Sobol's table");
    for _ in 0..n {
        let u: [f64; D] = sobol.next_point();
        gp.push(&u, costbo_benches::negated_ackley(&u))
            .expect("room for n points");
    }
    let config = FitConfig::botorch_map(gp.outputs(), 1e-4);
    // Without and with the kernel-profile cache (Gp::fit_with_cache): the same fit, timed.
    let mut cache = vec![0.0; fit_cache_len(n)];
    for cache in [&mut [][..], &mut cache[..]] {
        let mut best = f64::INFINITY;
        let mut report = None;
        for _ in 0..REPEATS {
            let mut fitted = gp.clone();
            let t = Instant::now();
            report = Some(
                fitted
                    .fit_with_cache(&config, cache)
                    .expect("the fit converges"),
            );
            best = best.min(t.elapsed().as_secs_f64());
        }
        let r = report.expect("REPEATS > 0");
        println!(
            "d={D} n={n}{}: fit {:.2} ms ({} likelihood evaluations), objective {:e} (bits {:016x})",
            if cache.is_empty() { "" } else { " cached" },
            best * 1e3,
            r.evaluations,
            r.objective,
            r.objective.to_bits()
        );
    }
}

fn main() {
    for n in [50, 100, 200] {
        time_fit::<4>(n);
        time_fit::<8>(n);
        time_fit::<16>(n);
    }
}
