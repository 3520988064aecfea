//! Tests of the platform itself (FPU/soft-float, libm, the harness) and of the core's packed
//! Cholesky factorisation on it.

use core::hint::black_box;

use costbo_core::linalg::{cholesky_in_place, idx, solve_cholesky, tri_len, NotPositiveDefinite};

use crate::harness::TestResult;
use crate::testdata::{max_residual, spd_packed, Lcg};

const N: usize = 16;
const P: usize = tri_len(N);

/// The core's packed Cholesky of a 16x16 SPD matrix in f32: positive diagonal, small residual,
/// and a matrix that is not positive definite is rejected at the right row.
pub fn cholesky_16x16_f32() -> TestResult {
    let mut a = [0.0f32; P];
    spd_packed::<f32, N>(black_box(1), &mut a);
    let mut l = a;
    if let Err(e) = cholesky_in_place(&mut l, N) {
        fail!("SPD matrix rejected at row {}", e.row);
    }
    for i in 0..N {
        check!(l[idx(i, i)] > 0.0, "L[{}][{}] = {}", i, i, l[idx(i, i)]);
    }
    let amax = a.iter().fold(0.0f32, |m, &x| m.max(libm::fabsf(x)));
    let res = max_residual(&a, &l, N);
    check!(
        res <= 1e-6 * f64::from(amax),
        "max|LLᵀ-A| = {:e}, max|A| = {}",
        res,
        amax
    );
    let mut bad = a;
    bad[idx(5, 5)] = -1.0;
    check_eq!(
        cholesky_in_place(&mut bad, N),
        Err(NotPositiveDefinite { row: 5 })
    );
    Ok(())
}

/// The core's Cholesky and solve in f64 (soft-float on both targets): `A·x = b` recovers x.
pub fn cholesky_solve_16x16_f64() -> TestResult {
    let mut a = [0.0f64; P];
    spd_packed::<f64, N>(black_box(2), &mut a);
    let mut l = a;
    if let Err(e) = cholesky_in_place(&mut l, N) {
        fail!("SPD matrix rejected at row {}", e.row);
    }
    let res = max_residual(&a, &l, N);
    check!(res <= 1e-14 * 32.0, "max|LLᵀ-A| = {:e}", res);
    let mut rng = Lcg::new(7);
    let mut x = [0.0f64; N];
    for xi in x.iter_mut() {
        *xi = rng.next_f64();
    }
    let mut b = [0.0f64; N];
    for i in 0..N {
        for j in 0..N {
            let aij = if j <= i { a[idx(i, j)] } else { a[idx(j, i)] };
            b[i] += aij * x[j];
        }
    }
    solve_cholesky(&l, N, &mut b);
    for (got, want) in b.iter().zip(x.iter()) {
        check_close!(*got, *want, 1e-12, 1e-13);
    }
    Ok(())
}

/// libm exp/log/sqrt against values known to full precision.
pub fn libm_exp_log_known_values() -> TestResult {
    // f64: within a couple of ulps.
    check_close!(libm::exp(black_box(1.0)), core::f64::consts::E, 4e-16);
    check_close!(libm::exp(black_box(-0.5)), 0.606_530_659_712_633_4, 4e-16);
    check_close!(libm::exp(black_box(10.0)), 22_026.465_794_806_718, 4e-16);
    check_close!(libm::log(black_box(10.0)), core::f64::consts::LN_10, 4e-16);
    check_close!(libm::log(black_box(2.0)), core::f64::consts::LN_2, 4e-16);
    check_close!(libm::log(black_box(1e-300)), -690.775_527_898_213_7, 4e-16);
    check_close!(
        libm::sqrt(black_box(2.0)),
        core::f64::consts::SQRT_2,
        2.3e-16
    );
    check_close!(libm::log(black_box(1.0)), 0.0, 0.0, 0.0);
    // f32: within a couple of ulps (f32 eps = 1.19e-7).
    check_close!(libm::expf(black_box(1.0)), core::f64::consts::E, 2.4e-7);
    check_close!(
        libm::expf(black_box(-10.0)),
        4.539_992_976_248_485e-5,
        2.4e-7
    );
    check_close!(
        libm::logf(black_box(10.0)),
        core::f64::consts::LN_10,
        2.4e-7
    );
    check_close!(
        libm::sqrtf(black_box(2.0)),
        core::f64::consts::SQRT_2,
        1.2e-7
    );
    // Round trips over a range of magnitudes.
    let mut x = 1e-6f64;
    while x < 1e6 {
        check_close!(libm::exp(libm::log(black_box(x))), x, 1e-13);
        check_close!(
            libm::log(libm::exp(black_box(x.min(700.0)))),
            x.min(700.0),
            1e-15,
            1e-15
        );
        x *= 3.7;
    }
    Ok(())
}

/// The same computations in f32 and f64 agree to f32 precision: Cholesky factors entry by entry,
/// and libm's f32 functions against the f64 ones on a grid.
pub fn f32_vs_f64_consistency() -> TestResult {
    let mut l32 = [0.0f32; P];
    let mut l64 = [0.0f64; P];
    spd_packed::<f32, N>(black_box(3), &mut l32);
    spd_packed::<f64, N>(black_box(3), &mut l64);
    check!(cholesky_in_place(&mut l32, N).is_ok());
    check!(cholesky_in_place(&mut l64, N).is_ok());
    for (a, b) in l32.iter().zip(l64.iter()) {
        check_close!(*a, *b, 1e-5, 1e-6);
    }
    let mut x = 0.01f32;
    while x < 80.0 {
        let xd = f64::from(x);
        check_close!(libm::expf(black_box(x)), libm::exp(xd), 3e-7);
        check_close!(libm::logf(black_box(x)), libm::log(xd), 3e-7, 1e-7);
        check_close!(libm::sqrtf(black_box(x)), libm::sqrt(xd), 1.2e-7);
        check_close!(black_box(x) * 3.0 / 7.0, xd * 3.0 / 7.0, 2.4e-7);
        x *= 1.37;
    }
    Ok(())
}

/// The harness's own checks: they must fail on the right inputs, with file and line.
pub fn harness_checks_detect_failures() -> TestResult {
    fn close(a: f64, b: f64, rel: f64) -> TestResult {
        check_close!(a, b, rel);
        Ok(())
    }
    fn close_abs(a: f32, b: f32, rel: f32, abs: f32) -> TestResult {
        check_close!(a, b, rel, abs);
        Ok(())
    }
    fn eq(a: u32, b: u32) -> TestResult {
        check_eq!(a, b);
        Ok(())
    }
    fn cond(c: bool) -> TestResult {
        check!(c, "c = {}", c);
        Ok(())
    }
    check!(close(1.0, 1.0 + 1e-9, 1e-6).is_ok());
    check!(close(1.0, 1.1, 1e-3).is_err());
    check!(close(f64::NAN, f64::NAN, 1.0).is_err());
    check!(close(f64::INFINITY, f64::INFINITY, 0.0).is_ok());
    check!(close(0.0, 1e-30, 1e-6).is_err());
    check!(close_abs(0.0, 1e-30, 1e-6, 1e-20).is_ok());
    check!(eq(3, 3).is_ok());
    check!(cond(true).is_ok());
    match eq(3, 4) {
        Ok(()) => fail!("check_eq!(3, 4) passed"),
        Err(e) => {
            check!(e.file().ends_with("basic.rs"), "file = {}", e.file());
            check!(e.line() > 0);
            check!(
                e.message().contains("left = 3, right = 4"),
                "message = {}",
                e.message()
            );
        }
    }
    // A failure whose message quotes an earlier one; the earlier one is then overwritten.
    fn wrap(inner: &str) -> TestResult {
        fail!("wrapped: {}", inner)
    }
    match eq(1, 2) {
        Ok(()) => fail!("check_eq!(1, 2) passed"),
        Err(first) => match wrap(first.message()) {
            Ok(()) => fail!("fail! returned Ok"),
            Err(second) => {
                check_eq!(
                    second.message(),
                    "wrapped: check_eq!(a, b) failed: left = 1, right = 2"
                );
                check_eq!(first.message(), "<message overwritten>");
            }
        },
    }
    match cond(false) {
        Ok(()) => fail!("check!(false) passed"),
        Err(e) => check!(
            e.message().contains("c = false"),
            "message = {}",
            e.message()
        ),
    }
    Ok(())
}
