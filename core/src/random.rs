//! Uniform and standard normal variates from a [`rand_core::Rng`]: the one place the crate and
//! its users turn random bits into numbers, so that a generator seeded identically gives the
//! same stream everywhere.
//!
//! Two streams exist, and each caller's choice is part of what it has recorded:
//!
//! - [`standard_normal`]: one normal from two [`uniform_open`] draws (32 bits each), the cosine
//!   half of the Box–Muller pair. The simulators of `costbo-lab` add it as observation and
//!   cost noise.
//! - [`NormalPairs`]: both halves of each pair, from [`uniform_open_23_bits`] draws, which are
//!   exact in `f32` so that `f32` and `f64` see the same uniforms. Posterior sample paths
//!   ([`thompson`](crate::thompson)) draw their random features from it.
//!
//! Both go through [`box_muller`]'s formula. The elementary functions are a type parameter
//! ([`Elementary`]): the core computes with [`Libm`]; a program whose
//! results were recorded with its platform's `ln` and `cos` passes those.

use rand_core::Rng;

use crate::real::{Elementary, Libm, Real};

/// A uniform draw in the open interval (0, 1) from one `next_u32`: `(k + ½)/2³²`.
///
/// In `f64` the value is exact; in `f32` it is rounded (and may round to 1 for the largest
/// `k`); [`uniform_open_23_bits`] is exact in both.
pub fn uniform_open<R: Real>(rng: &mut impl Rng) -> R {
    R::from_f64((rng.next_u32() as f64 + 0.5) / 4_294_967_296.0)
}

/// A uniform draw in the open interval (0, 1) from the top 23 bits `k` of one `next_u32`:
/// `(2k + 1)/2²⁴`, exact in both `f32` and `f64`, never 0 or 1.
pub fn uniform_open_23_bits<R: Real, G: Rng + ?Sized>(rng: &mut G) -> R {
    let k = rng.next_u32() >> 9;
    // 2k + 1 < 2²⁴ is exact in f32; 2⁻²⁴ is a power of two.
    R::from_usize((2 * k + 1) as usize) * R::from_f64(1.0 / 16_777_216.0)
}

/// The Box–Muller radius `√(−2 ln u₁)`.
#[inline]
fn radius<R: Real, E: Elementary<R>>(u1: R) -> R {
    (-R::TWO * E::ln(u1)).sqrt()
}

/// The Box–Muller angle `2π u₂`.
#[inline]
fn angle<R: Real>(u2: R) -> R {
    R::TWO * R::PI * u2
}

/// The Box–Muller transform: two uniforms `u₁, u₂ ∈ (0, 1)` give two independent standard
/// normals `(√(−2 ln u₁) cos 2πu₂, √(−2 ln u₁) sin 2πu₂)`.
///
/// There is no rejection (unlike the polar method), so a sampler built on it consumes a fixed
/// amount of randomness per normal. The smallest `u₁` a sampler can produce bounds the normals:
/// `√(−2 ln 2⁻³³) ≈ 6.77` for [`uniform_open`], `√(48 ln 2) ≈ 5.77` for
/// [`uniform_open_23_bits`] (true tail mass beyond 5.77 ≈ 8·10⁻⁹).
#[inline]
pub fn box_muller<R: Real, E: Elementary<R>>(u1: R, u2: R) -> (R, R) {
    let (r, theta) = (radius::<R, E>(u1), angle(u2));
    (r * E::cos(theta), r * E::sin(theta))
}

/// A standard normal draw: two [`uniform_open`] draws `u₁` then `u₂` (two `next_u32` calls) and
/// the cosine half of [`box_muller`], `√(−2 ln u₁) cos 2πu₂`. The sine half is not kept, so
/// each normal costs two draws and depends on nothing but them.
pub fn standard_normal<R: Real, E: Elementary<R>>(rng: &mut impl Rng) -> R {
    let u1: R = uniform_open(rng);
    let u2: R = uniform_open(rng);
    // The cosine half of `box_muller`, without computing the sine.
    radius::<R, E>(u1) * E::cos(angle(u2))
}

/// Standard normals in Box–Muller pairs: each pair takes two [`uniform_open_23_bits`] draws
/// `u₁` then `u₂`; the first normal of a pair is the cosine half of [`box_muller`], the second
/// (returned by the next call) the sine half. Elementary functions from [`Libm`], so `f32` and
/// `f64` streams agree up to their rounding.
#[derive(Debug)]
pub struct NormalPairs<'g, R, G: ?Sized> {
    rng: &'g mut G,
    spare: Option<R>,
}

impl<'g, R: Real, G: Rng + ?Sized> NormalPairs<'g, R, G> {
    /// A sampler drawing from `rng`, with no normal held back.
    pub fn new(rng: &'g mut G) -> Self {
        NormalPairs { rng, spare: None }
    }

    /// A uniform from the same generator ([`uniform_open_23_bits`]), for callers that
    /// interleave uniforms with the normals.
    pub fn uniform(&mut self) -> R {
        uniform_open_23_bits(self.rng)
    }

    /// The next standard normal: the held-back sine half if there is one, otherwise a fresh
    /// pair's cosine half.
    pub fn next_normal(&mut self) -> R {
        if let Some(z) = self.spare.take() {
            return z;
        }
        let u1 = self.uniform();
        let u2 = self.uniform();
        let (z, spare) = box_muller::<R, Libm>(u1, u2);
        self.spare = Some(spare);
        z
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use std::vec::Vec;

    use core::convert::Infallible;
    use rand_core::{SeedableRng, TryRng};
    use rand_xoshiro::Xoshiro128PlusPlus;

    use super::*;

    /// A generator that returns given words and counts the calls.
    struct Words<'a> {
        words: &'a [u32],
        calls: usize,
    }

    impl TryRng for Words<'_> {
        type Error = Infallible;
        fn try_next_u32(&mut self) -> Result<u32, Infallible> {
            let w = self.words[self.calls];
            self.calls += 1;
            Ok(w)
        }
        fn try_next_u64(&mut self) -> Result<u64, Infallible> {
            unreachable!("the samplers draw 32 bits at a time")
        }
        fn try_fill_bytes(&mut self, _: &mut [u8]) -> Result<(), Infallible> {
            unreachable!("the samplers draw 32 bits at a time")
        }
    }

    #[test]
    fn box_muller_at_hand_computed_points() {
        // u₁ = ¼, u₂ = ⅛: r = √(4 ln 2), θ = π/4, so both halves are √(2 ln 2)
        // = 1.17741002251547469101… (mpmath).
        let (c, s) = box_muller::<f64, Libm>(0.25, 0.125);
        assert!((c - 1.177_410_022_515_474_7).abs() < 4e-16, "{c}");
        assert!((s - 1.177_410_022_515_474_7).abs() < 4e-16, "{s}");
        // u₁ = e⁻², u₂ = ½: r = 2, θ = π: (−2, 0).
        let (c, s) = box_muller::<f64, Libm>((-2.0f64).exp(), 0.5);
        assert!((c + 2.0).abs() < 1e-15 && s.abs() < 1e-15, "{c} {s}");
        // The same in f32, to f32 precision.
        let (c, _) = box_muller::<f32, Libm>(0.25, 0.125);
        assert!((f64::from(c) - 1.177_410_022_515_474_7).abs() < 3e-7, "{c}");
    }

    #[test]
    fn uniforms_are_the_documented_grids() {
        let mut g = Words {
            words: &[0, u32::MAX, 0, u32::MAX, 0x8000_0000],
            calls: 0,
        };
        assert_eq!(uniform_open::<f64>(&mut g), 0.5 / 4_294_967_296.0);
        assert_eq!(uniform_open::<f64>(&mut g), 1.0 - 0.5 / 4_294_967_296.0);
        assert_eq!(uniform_open_23_bits::<f32, _>(&mut g), 1.0 / 16_777_216.0);
        assert_eq!(
            uniform_open_23_bits::<f32, _>(&mut g),
            1.0 - 1.0 / 16_777_216.0
        );
        assert_eq!(
            uniform_open_23_bits::<f64, _>(&mut g),
            0.5 + 1.0 / 16_777_216.0
        );
        assert_eq!(g.calls, 5);
    }

    #[test]
    fn standard_normal_is_the_cosine_half_of_two_fresh_uniforms() {
        // Words 2³⁰ and 2²⁹: u₁ = ¼ + 2⁻³³, u₂ = ⅛ + 2⁻³³, so z = √(−2 ln u₁) cos 2πu₂
        // = 1.17741002145649934512 (mpmath, 30 digits), 1.06e-9 below √(2 ln 2).
        let mut g = Words {
            words: &[1 << 30, 1 << 29, 1 << 30, 1 << 29],
            calls: 0,
        };
        let z: f64 = standard_normal::<f64, Libm>(&mut g);
        assert_eq!(g.calls, 2, "two draws per normal");
        assert!((z - 1.177_410_021_456_499_3).abs() < 5e-16, "{z}");
        // No spare is kept: the same two words give the same normal again.
        assert_eq!(standard_normal::<f64, Libm>(&mut g), z);
        assert_eq!(g.calls, 4);
    }

    #[test]
    fn normal_pairs_hold_the_sine_half_for_the_next_call() {
        let mut g = Words {
            words: &[0x4000_0000, 0x2000_0000, 0x4000_0000, 0x2000_0000],
            calls: 0,
        };
        let mut pairs = NormalPairs::<f64, _>::new(&mut g);
        let (a, b) = (pairs.next_normal(), pairs.next_normal());
        // The top 23 bits of 2³⁰ and 2²⁹ give u = ¼ + 2⁻²⁴ and ⅛ + 2⁻²⁴.
        let (c, s) = box_muller::<f64, Libm>(0.25 + 1.0 / 16_777_216.0, 0.125 + 1.0 / 16_777_216.0);
        assert_eq!((a, b), (c, s));
        assert_eq!(g.calls, 2, "one pair, two draws");
    }

    /// Kolmogorov–Smirnov distance of `xs` from the standard normal CDF.
    fn ks_distance(mut xs: Vec<f64>) -> f64 {
        xs.sort_by(f64::total_cmp);
        let n = xs.len() as f64;
        xs.iter()
            .enumerate()
            .map(|(i, &x)| {
                let cdf = 0.5 * libm::erfc(-x / core::f64::consts::SQRT_2);
                (cdf - i as f64 / n).abs().max((i as f64 + 1.0) / n - cdf)
            })
            .fold(0.0, f64::max)
    }

    /// The first four moments of 200 000 draws of each sampler within 5 standard errors
    /// (√(1/n), √(2/n), √(15/n), √(96/n)), the KS distance below the 0.1% critical value
    /// 1.95/√n, and every draw inside the bound its smallest uniform sets.
    #[test]
    fn samplers_draw_standard_normals() {
        let n = 200_000;
        let mut rng = Xoshiro128PlusPlus::seed_from_u64(11);
        let single: Vec<f64> = (0..n)
            .map(|_| standard_normal::<f64, Libm>(&mut rng))
            .collect();
        let mut pairs = NormalPairs::<f64, _>::new(&mut rng);
        let paired: Vec<f64> = (0..n).map(|_| pairs.next_normal()).collect();
        let nf = n as f64;
        for (xs, bound) in [(single, 6.78), (paired, 5.78)] {
            let moment = |k: i32| xs.iter().map(|x| x.powi(k)).sum::<f64>() / nf;
            let (m1, m2, m3, m4) = (moment(1), moment(2), moment(3), moment(4));
            assert!(m1.abs() < 5.0 * (1.0 / nf).sqrt(), "{m1}");
            assert!((m2 - 1.0).abs() < 5.0 * (2.0 / nf).sqrt(), "{m2}");
            assert!(m3.abs() < 5.0 * (15.0 / nf).sqrt(), "{m3}");
            assert!((m4 - 3.0).abs() < 5.0 * (96.0 / nf).sqrt(), "{m4}");
            assert!(xs.iter().all(|x| x.abs() < bound));
            let ks = ks_distance(xs);
            assert!(ks < 1.95 / nf.sqrt(), "KS distance {ks}");
        }
    }
}
