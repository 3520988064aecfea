//! Shared helpers of the benchmarks: reproducible inputs.

/// Deterministic points in the unit cube (a 64-bit LCG; quality is irrelevant here).
pub fn points<const D: usize>(n: usize, seed: u64) -> Vec<[f64; D]> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            core::array::from_fn(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (s >> 11) as f64 / (1u64 << 53) as f64
            })
        })
        .collect()
}

/// A smooth test function of the first three inputs.
pub fn objective<const D: usize>(x: &[f64; D]) -> f64 {
    (6.0 * x[0]).sin() + (4.0 * x[1 % D]).cos() * x[2 % D]
}
