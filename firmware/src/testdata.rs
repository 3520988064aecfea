//! Reproducible test data for the on-target tests and benchmarks (no algorithms: those come
//! from `costbo-core`).

#![allow(clippy::needless_range_loop)] // dense matrix loops read best with indices

use costbo_core::linalg::idx;
use costbo_core::Real;

/// Deterministic pseudo-random numbers in [-1, 1) (a 32-bit LCG).
pub struct Lcg(u32);

impl Lcg {
    /// A generator with the given seed.
    pub fn new(seed: u32) -> Self {
        Lcg(seed)
    }
    /// The next number in [-1, 1).
    pub fn next_f64(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        f64::from(self.0 >> 8) / f64::from(1u32 << 23) - 1.0
    }
    /// The next number in [0, 1).
    pub fn next_unit(&mut self) -> f64 {
        0.5 * (self.next_f64() + 1.0)
    }
}

/// Writes the lower triangle of the well-conditioned SPD matrix `B·Bᵀ + n·I` (B from [`Lcg`],
/// computed in f64 and rounded to `R`) into `a`, packed row by row.
pub fn spd_packed<R: Real, const N: usize>(seed: u32, a: &mut [R]) {
    let mut rng = Lcg::new(seed);
    let mut b = [[0.0f64; N]; N];
    for row in b.iter_mut() {
        for x in row.iter_mut() {
            *x = rng.next_f64();
        }
    }
    for i in 0..N {
        for j in 0..=i {
            let mut s = if i == j { N as f64 } else { 0.0 };
            for k in 0..N {
                s += b[i][k] * b[j][k];
            }
            a[idx(i, j)] = R::from_f64(s);
        }
    }
}

/// `max |(L·Lᵀ − A)ᵢⱼ|` over the lower triangle, in f64, for packed `a` and `l` of order `n`.
pub fn max_residual<R: Real>(a: &[R], l: &[R], n: usize) -> f64 {
    let mut worst = 0.0f64;
    for i in 0..n {
        for j in 0..=i {
            let mut s = 0.0f64;
            for k in 0..=j {
                s += l[idx(i, k)].to_f64() * l[idx(j, k)].to_f64();
            }
            worst = libm::fmax(worst, libm::fabs(s - a[idx(i, j)].to_f64()));
        }
    }
    worst
}
