//! Accuracy of the core's `fast-math` functions (micromath's `f32` `exp`, `ln`, `sqrt`, as
//! `costbo_core::real::fast_math` guards them) and of libm's `f32` functions they replace,
//! both against libm's `f64` functions as the reference, over the arguments the core gives
//! them; and the same for the normal density and CDF, which inherit `exp`.
//!
//! Run: `cargo run --release -p costbo-benches --features fast-math --example fast_math_accuracy`

use costbo_core::real::fast_math;
use costbo_core::special::{normal_cdf, normal_pdf};

/// Worst errors of one function over one range.
#[derive(Default)]
struct Worst {
    abs: f64,
    abs_at: f32,
    rel: f64,
    rel_at: f32,
}

impl Worst {
    fn add(&mut self, x: f32, got: f32, want: f64) {
        let abs = (got as f64 - want).abs();
        if abs > self.abs || abs.is_nan() {
            self.abs = abs;
            self.abs_at = x;
        }
        if want != 0.0 {
            let rel = abs / want.abs();
            if rel > self.rel || rel.is_nan() {
                self.rel = rel;
                self.rel_at = x;
            }
        }
    }
}

/// Every `count`-th point of an even grid on `[lo, hi]`, both ends included.
fn grid(lo: f32, hi: f32, count: usize) -> impl Iterator<Item = f32> {
    (0..=count).map(move |i| (lo as f64 + (hi as f64 - lo as f64) * i as f64 / count as f64) as f32)
}

/// Positive `f32` values from `lo` to `hi` taken by a fixed odd stride through their bit
/// patterns, so every binade and every region of the mantissa is visited.
fn binades(lo: f32, hi: f32, count: u32) -> impl Iterator<Item = f32> {
    let (a, b) = (lo.to_bits(), hi.to_bits());
    let stride = ((b - a) / count).max(1) | 1;
    (a..=b).step_by(stride as usize).map(f32::from_bits)
}

fn row(
    name: &str,
    range: &str,
    xs: impl Iterator<Item = f32>,
    fast: fn(f32) -> f32,
    libm32: fn(f32) -> f32,
    reference: fn(f64) -> f64,
) {
    let (mut f, mut l) = (Worst::default(), Worst::default());
    let mut n = 0usize;
    for x in xs {
        let want = reference(x as f64);
        f.add(x, fast(x), want);
        l.add(x, libm32(x), want);
        n += 1;
    }
    println!(
        "| {name} | {range} | {n} | {:.2e} (x = {}) | {:.2e} (x = {}) | {:.2e} | {:.2e} |",
        f.abs, f.abs_at, f.rel, f.rel_at, l.abs, l.rel
    );
}

fn main() {
    const POINTS: usize = 2_000_000;
    println!("| function | arguments | points | fast-math: max abs error | fast-math: max rel error | libm f32: max abs | libm f32: max rel |");
    println!("|---|---|---:|---:|---:|---:|---:|");
    // SE kernel exp(−r²/2) and Matérn exp(−√5 r): non-positive arguments; most of a
    // decision's exponentials lie in [−20, 0] (lengthscale 0.2 in the unit cube: r² ≤ 125).
    row(
        "exp",
        "[−20, 0]",
        grid(-20.0, 0.0, POINTS),
        fast_math::exp,
        libm::expf,
        libm::exp,
    );
    row(
        "exp",
        "[−87, 0]",
        grid(-87.0, 0.0, POINTS),
        fast_math::exp,
        libm::expf,
        libm::exp,
    );
    // Positive arguments: log-hyperparameters, exp(ln h) in the improvement functions.
    row(
        "exp",
        "[0, 88]",
        grid(0.0, 88.0, POINTS),
        fast_math::exp,
        libm::expf,
        libm::exp,
    );
    // ln of probabilities and variances (normal quantile's tails, log likelihoods, LogEI).
    row(
        "ln",
        "[1e-30, 1)",
        binades(1e-30, 0.999_999_94, POINTS as u32),
        fast_math::ln,
        libm::logf,
        libm::log,
    );
    row(
        "ln",
        "[1, 1e30]",
        binades(1.0, 1e30, POINTS as u32),
        fast_math::ln,
        libm::logf,
        libm::log,
    );
    // Near 1, where ln crosses zero and only an absolute error means anything.
    row(
        "ln",
        "[0.5, 2]",
        grid(0.5, 2.0, POINTS),
        fast_math::ln,
        libm::logf,
        libm::log,
    );
    // Posterior variances (σ = √var) and Cholesky pivots; Matérn distances.
    row(
        "sqrt",
        "[1e-12, 1e4]",
        binades(1e-12, 1e4, POINTS as u32),
        fast_math::sqrt,
        libm::sqrtf,
        libm::sqrt,
    );
    row(
        "sqrt",
        "[1, 4]",
        grid(1.0, 4.0, POINTS),
        fast_math::sqrt,
        libm::sqrtf,
        libm::sqrt,
    );
    // The normal density and CDF as the core computes them in f32 (with the feature, through
    // fast_math::exp; erfc stays libm's), against the same formulas in f64.
    row(
        "normal pdf (libm column: f64 rounded)",
        "[−13, 13]",
        grid(-13.0, 13.0, POINTS),
        normal_pdf::<f32>,
        pdf_libm32,
        normal_pdf::<f64>,
    );
    row(
        "normal cdf (libm column: f64 rounded)",
        "[−13, 8]",
        grid(-13.0, 8.0, POINTS),
        normal_cdf::<f32>,
        cdf_libm32,
        normal_cdf::<f64>,
    );
}

/// The core's f32 normal density with libm's exp (its formula, `exp_neg_half_sq`, without the
/// feature): computed in f64 and rounded, within an ulp of the f32 computation.
fn pdf_libm32(x: f32) -> f32 {
    normal_pdf::<f64>(x as f64) as f32
}

/// As [`pdf_libm32`] for the CDF.
fn cdf_libm32(x: f32) -> f32 {
    normal_cdf::<f64>(x as f64) as f32
}
