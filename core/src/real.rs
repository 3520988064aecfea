//! The floating-point abstraction: every algorithm in the core is written once over [`Real`]
//! and instantiated for `f32` (microcontrollers with a single-precision FPU) and `f64`
//! (desktop, references).
//!
//! `core` on stable Rust has no `sqrt`, `exp` and friends, so the special functions come from
//! [`libm`], which is pure Rust and identical on every target.
//!
//! With the feature `fast-math`, `f32`'s `exp` comes from micromath's approximation instead
//! (`real::fast_math`); `f64` stays on libm (micromath has no `f64`).

use core::fmt::{Debug, Display};
use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

/// What saving a scalar needs: serde's `Serialize` and `Deserialize` with the feature `serde`
/// (so that every rule's saved state is serialisable), nothing without it.
#[cfg(feature = "serde")]
pub trait Persist: serde::Serialize + for<'de> serde::Deserialize<'de> {}
#[cfg(feature = "serde")]
impl<T: serde::Serialize + for<'de> serde::Deserialize<'de>> Persist for T {}

/// What saving a scalar needs: nothing without the feature `serde`.
#[cfg(not(feature = "serde"))]
pub trait Persist {}
#[cfg(not(feature = "serde"))]
impl<T> Persist for T {}

/// A real scalar type: `f32` or `f64`.
///
/// The trait is sealed in spirit (only the two IEEE types implement it) but left open so that
/// tests may wrap a type to count operations.
pub trait Real:
    Copy
    + Default
    + Debug
    + Display
    + PartialOrd
    + PartialEq
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + DivAssign
    + Persist
    + 'static
{
    /// Additive identity.
    const ZERO: Self;
    /// Multiplicative identity.
    const ONE: Self;
    /// Two.
    const TWO: Self;
    /// One half.
    const HALF: Self;
    /// Machine epsilon (distance from 1 to the next larger value).
    const EPSILON: Self;
    /// Largest finite value.
    const MAX: Self;
    /// Smallest positive normal value.
    const MIN_POSITIVE: Self;
    /// Positive infinity.
    const INFINITY: Self;
    /// The constant π.
    const PI: Self;
    /// ln(2π), used by Gaussian log densities.
    const LN_2PI: Self;

    /// Converts from `f64`, rounding to nearest.
    fn from_f64(v: f64) -> Self;
    /// Converts to `f64` exactly.
    fn to_f64(self) -> f64;
    /// Converts a count; exact for every count the core stores.
    fn from_usize(v: usize) -> Self;

    /// Square root.
    fn sqrt(self) -> Self;
    /// Natural exponential.
    fn exp(self) -> Self;
    /// [`exp`](Self::exp) of every lane, with its bits lane by lane. `f64` on a desktop core
    /// computes the lanes together (`exp_lanes_f64`); otherwise one lane at a time.
    #[inline]
    fn exp_lanes<const B: usize>(x: [Self; B]) -> [Self; B] {
        x.map(Self::exp)
    }
    /// `exp(self) - 1`, accurate near zero.
    fn exp_m1(self) -> Self;
    /// Natural logarithm.
    fn ln(self) -> Self;
    /// `ln(1 + self)`, accurate near zero.
    fn ln_1p(self) -> Self;
    /// Error function.
    fn erf(self) -> Self;
    /// Complementary error function `1 - erf(self)`, accurate in the tail.
    fn erfc(self) -> Self;
    /// Sine.
    fn sin(self) -> Self;
    /// Cosine.
    fn cos(self) -> Self;
    /// `self` raised to the real power `e`.
    fn powf(self, e: Self) -> Self;
    /// Absolute value.
    fn abs(self) -> Self;
    /// Fused (or at least correctly rounded) `self * a + b`.
    fn mul_add(self, a: Self, b: Self) -> Self;
    /// Largest integer not greater than `self`.
    fn floor(self) -> Self;

    /// True when the value is neither NaN nor infinite.
    fn is_finite(self) -> bool;

    /// True when the value is NaN.
    fn is_nan(self) -> bool;

    /// The larger of two values; NaN-free inputs assumed.
    #[inline]
    fn max(self, other: Self) -> Self {
        if other > self {
            other
        } else {
            self
        }
    }

    /// The smaller of two values; NaN-free inputs assumed.
    #[inline]
    fn min(self, other: Self) -> Self {
        if other < self {
            other
        } else {
            self
        }
    }

    /// Clamps into `[lo, hi]`.
    #[inline]
    fn clamp_to(self, lo: Self, hi: Self) -> Self {
        self.max(lo).min(hi)
    }

    /// `self * self`.
    #[inline]
    fn sq(self) -> Self {
        self * self
    }
}

macro_rules! impl_real {
    ($t:ty, $sqrt:path, $exp:path, $expm1:path, $ln:path, $ln1p:path, $erf:path, $erfc:path,
     $sin:path, $cos:path, $pow:path, $fabs:path, $fma:path, $floor:path
     $(, lanes: $exp_lanes:path)?) => {
        impl Real for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const TWO: Self = 2.0;
            const HALF: Self = 0.5;
            const EPSILON: Self = <$t>::EPSILON;
            const MAX: Self = <$t>::MAX;
            const MIN_POSITIVE: Self = <$t>::MIN_POSITIVE;
            const INFINITY: Self = <$t>::INFINITY;
            const PI: Self = core::f64::consts::PI as $t;
            const LN_2PI: Self = 1.837_877_066_409_345_5_f64 as $t;

            #[inline]
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            #[inline]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline]
            fn from_usize(v: usize) -> Self {
                v as $t
            }
            #[inline]
            fn sqrt(self) -> Self {
                $sqrt(self)
            }
            #[inline]
            fn exp(self) -> Self {
                $exp(self)
            }
            $(
                #[inline]
                fn exp_lanes<const B: usize>(x: [Self; B]) -> [Self; B] {
                    $exp_lanes(x)
                }
            )?
            #[inline]
            fn exp_m1(self) -> Self {
                $expm1(self)
            }
            #[inline]
            fn ln(self) -> Self {
                $ln(self)
            }
            #[inline]
            fn ln_1p(self) -> Self {
                $ln1p(self)
            }
            #[inline]
            fn erf(self) -> Self {
                $erf(self)
            }
            #[inline]
            fn erfc(self) -> Self {
                $erfc(self)
            }
            #[inline]
            fn sin(self) -> Self {
                $sin(self)
            }
            #[inline]
            fn cos(self) -> Self {
                $cos(self)
            }
            #[inline]
            fn powf(self, e: Self) -> Self {
                $pow(self, e)
            }
            #[inline]
            fn abs(self) -> Self {
                $fabs(self)
            }
            #[inline]
            fn mul_add(self, a: Self, b: Self) -> Self {
                $fma(self, a, b)
            }
            #[inline]
            fn floor(self) -> Self {
                $floor(self)
            }
            #[inline]
            fn is_finite(self) -> bool {
                <$t>::is_finite(self)
            }
            #[inline]
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
        }
    };
}

#[cfg(not(feature = "fast-math"))]
impl_real!(
    f32,
    libm::sqrtf,
    libm::expf,
    libm::expm1f,
    libm::logf,
    libm::log1pf,
    libm::erff,
    libm::erfcf,
    libm::sinf,
    libm::cosf,
    libm::powf,
    libm::fabsf,
    libm::fmaf,
    libm::floorf
);
// Only exp is routed: it is where a decision's time goes (a kernel value per bank point and
// training point), while sqrt and ln are called a few times per candidate and micromath's are
// far coarser (6 % for sqrt; for ln, 0.12 absolute below 1, where it takes an approximate
// reciprocal). docs/performance.md, "fast-math (micromath)", has the measurements.
#[cfg(feature = "fast-math")]
impl_real!(
    f32,
    libm::sqrtf,
    fast_math::exp,
    libm::expm1f,
    libm::logf,
    libm::log1pf,
    libm::erff,
    libm::erfcf,
    libm::sinf,
    libm::cosf,
    libm::powf,
    libm::fabsf,
    libm::fmaf,
    libm::floorf
);
impl_real!(
    f64,
    libm::sqrt,
    libm::exp,
    libm::expm1,
    libm::log,
    libm::log1p,
    libm::erf,
    libm::erfc,
    libm::sin,
    libm::cos,
    libm::pow,
    libm::fabs,
    libm::fma,
    libm::floor,
    lanes: exp_lanes_f64
);

/// libm's `exp` of `f64` (FreeBSD's `e_exp.c`) of every lane, with its bits, written without
/// branches so that the lanes share vector instructions.
///
/// Why: the kernel's exponentials are most of a model fit's time on a desktop (one per pair of
/// observations, twice per likelihood evaluation: 40 % of a fit measured with `perf`), and
/// libm's scalar routine runs one at a time. The steps are libm's, in its order: the reduction
/// `x = k ln2 + r` (`k` = 0, ±1 or `⌊x/ln2 ± ½⌉` by the same thresholds on the high word),
/// the degree-5 rational approximation, and the scaling by `2ᵏ` (one multiplication, which is
/// what libm's `scalbn` does for `k` in `[−1022, 1023]`). Lanes outside libm's main path
/// (`|x| ≤ 2⁻²⁸`, `|x| ≥ 708.39`, NaN) are recomputed by libm itself. Rust never fuses a
/// multiply and an add, so vector lanes round as libm's scalar code does. On 32-bit Arm (no
/// `f64` vectors) it is libm lane by lane.
fn exp_lanes_f64<const B: usize>(x: [f64; B]) -> [f64; B] {
    // libm's constants, by their bits (as e_exp.c gives them).
    const LN2HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
    const LN2LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
    const INVLN2: f64 = f64::from_bits(0x3ff7_1547_652b_82fe);
    const P1: f64 = f64::from_bits(0x3fc5_5555_5555_553e);
    const P2: f64 = f64::from_bits(0xbf66_c16c_16be_bd93);
    const P3: f64 = f64::from_bits(0x3f11_566a_af25_de2c);
    const P4: f64 = f64::from_bits(0xbebb_bd41_c5d2_6bf1);
    const P5: f64 = f64::from_bits(0x3e66_3769_72be_a4d0);
    /// `|x|`'s bits: libm's tests "high word of |x| > C" are `abs_bits ≥ (C + 1)·2³²`.
    #[inline(always)]
    fn abs_bits(x: f64) -> u64 {
        x.to_bits() & 0x7fff_ffff_ffff_ffff
    }
    /// libm's main path: `2⁻²⁸ < |x| < 708.39` (high words `0x3e30_0000 < hx < 0x4086_232b`).
    #[inline(always)]
    fn main_path(ax: u64) -> bool {
        (0x3e30_0001 << 32..0x4086_232b << 32).contains(&ax)
    }
    if cfg!(target_arch = "arm") {
        return x.map(libm::exp);
    }
    let mut out = [0.0; B];
    let mut rare = false;
    // Every step of a lane is computed and the branches become selects, so that the compiler
    // can run the lanes in vector registers.
    for (o, xt) in out.iter_mut().zip(x) {
        let ax = abs_bits(xt);
        rare |= !main_path(ax);
        let sign = xt.to_bits() & 0x8000_0000_0000_0000;
        // ½ and 1 with the sign of x: libm's HALF[sign] and 1 − 2·sign.
        let half = f64::from_bits(0x3fe0_0000_0000_0000 | sign);
        let one = f64::from_bits(0x3ff0_0000_0000_0000 | sign);
        // libm: k = (int)(x/ln2 ± ½) if |x| ≥ 1.5 ln2, ±1 if ½ln2 < |x| < 1.5 ln2, else 0.
        // The truncation `(int)` without a conversion instruction (Rust's saturating `as`
        // does not vectorise): adding and taking away 1.5·2⁵² rounds to the nearest integer
        // (exact while |v| < 2⁵¹; on the main path |v| < 1024), then one step towards zero.
        let v = INVLN2 * xt + half;
        let nearest = (v + 6_755_399_441_055_744.0) - 6_755_399_441_055_744.0;
        let floor = if nearest > v { nearest - 1.0 } else { nearest };
        let ceil = if nearest < v { nearest + 1.0 } else { nearest };
        let rounded = if v >= 0.0 { floor } else { ceil };
        let beyond_one = if ax >= 0x3ff0_a2b2 << 32 {
            rounded
        } else {
            one
        };
        let k = if ax >= 0x3fd6_2e43 << 32 {
            beyond_one
        } else {
            0.0
        };
        // With k = 0 these are libm's hi = x, lo = 0, r = x exactly.
        let hi = xt - k * LN2HI;
        let lo = k * LN2LO;
        let r = hi - lo;
        let xx = r * r;
        let c = r - xx * (P1 + xx * (P2 + xx * (P3 + xx * (P4 + xx * P5))));
        let y = 1.0 + (r * c / (2.0 - c) - lo + hi);
        // 2ᵏ from its bits without a conversion: k + 1023 + 2⁵² holds k + 1023 in its low
        // bits, which the shift moves into the exponent field. Exact for k + 1023 in
        // [1, 2046], which holds on the main path; other lanes are recomputed below.
        let biased = (k + (1023.0 + 4_503_599_627_370_496.0)).to_bits();
        *o = y * f64::from_bits(biased << 52);
    }
    if rare {
        for (o, xt) in out.iter_mut().zip(x) {
            if !main_path(abs_bits(xt)) {
                *o = libm::exp(xt);
            }
        }
    }
    out
}

/// micromath's `f32` approximations of `exp`, `ln` and `sqrt`, guarded. `f32`'s [`Real`]
/// implementation uses [`exp`](fast_math::exp) with the feature `fast-math`; `ln` and `sqrt`
/// are here so that their accuracy can be measured next to it, and are not routed (their
/// errors, 0.12 and 6 %, buy a small share of a decision's time). docs/performance.md,
/// "fast-math (micromath)", gives the accuracy of each against libm and what `exp` does to
/// decisions.
///
/// micromath computes `f32` only, so `f64` keeps libm. Each function hands micromath only the
/// arguments its approximation is made for and leaves the rest (zero, subnormals, infinities,
/// NaN, negative logarithms and roots, `exp` beyond −87 and 88) to libm: outside that range
/// micromath returns wrong values (its `sqrt(0)` is 8e-20, its `ln` of a negative number is
/// finite) or, in a build with debug assertions, panics (its `exp` of NaN or of 88.8), and the
/// core must do neither.
#[cfg(feature = "fast-math")]
pub mod fast_math {
    use micromath::F32Ext;

    /// Where `exp`'s approximation holds: the result and its scaling by 2ᵏ stay normal.
    const EXP_LO: f32 = -87.0;
    const EXP_HI: f32 = 88.0;

    /// Natural exponential: micromath's (a degree-4 Taylor polynomial on the fraction of
    /// `x·log₂e`, scaled by a power of two) on [−87, 88], libm's elsewhere.
    #[inline]
    pub fn exp(x: f32) -> f32 {
        if (EXP_LO..=EXP_HI).contains(&x) {
            F32Ext::exp(x)
        } else {
            libm::expf(x)
        }
    }

    /// Natural logarithm: micromath's (a degree-4 polynomial on the mantissa) for positive
    /// normal finite `x`, libm's elsewhere (−∞ at 0, NaN below, subnormals).
    #[inline]
    pub fn ln(x: f32) -> f32 {
        if (f32::MIN_POSITIVE..f32::INFINITY).contains(&x) {
            F32Ext::ln(x)
        } else {
            libm::logf(x)
        }
    }

    /// Square root: micromath's (halving the bit pattern: linear between powers of four, no
    /// refinement) for positive normal finite `x`, libm's elsewhere (exactly 0 at 0).
    #[inline]
    pub fn sqrt(x: f32) -> f32 {
        if (f32::MIN_POSITIVE..f32::INFINITY).contains(&x) {
            F32Ext::sqrt(x)
        } else {
            libm::sqrtf(x)
        }
    }
}

/// Where a computation takes its elementary functions from.
///
/// Implementations of `exp`, `ln`, `sin` and `cos` that are accurate to within an ulp still
/// differ in the last bit on some arguments: the [`libm`] crate and glibc disagree on about 7%
/// of logarithms and 3% of cosines of `f64` arguments in (0, 1). A computation whose results
/// were recorded with one implementation (a simulator's noise and objective values, say) is
/// reproduced bit for bit only with the same one, so the functions that must match a record
/// ([`random::standard_normal`](crate::random::standard_normal), the benchmark functions of
/// `testfn`) take the implementation as a type parameter. [`Libm`] is the core's own.
pub trait Elementary<R> {
    /// Natural exponential.
    fn exp(x: R) -> R;
    /// Natural logarithm.
    fn ln(x: R) -> R;
    /// Sine.
    fn sin(x: R) -> R;
    /// Cosine.
    fn cos(x: R) -> R;
}

/// The elementary functions of [`Real`]: the [`libm`] crate, pure Rust and identical on every
/// target (what the core and the firmware compute with). With the feature `fast-math`, `f32`'s
/// `exp` is micromath's ([`Real`] for `f32` routes it there), and `Libm` follows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Libm;

impl<R: Real> Elementary<R> for Libm {
    #[inline]
    fn exp(x: R) -> R {
        x.exp()
    }
    #[inline]
    fn ln(x: R) -> R {
        x.ln()
    }
    #[inline]
    fn sin(x: R) -> R {
        x.sin()
    }
    #[inline]
    fn cos(x: R) -> R {
        x.cos()
    }
}

/// True when every element of the slice is finite.
#[inline]
pub fn all_finite<R: Real>(xs: &[R]) -> bool {
    xs.iter().all(|v| v.is_finite())
}

/// Dot product of two equally long slices (the shorter length is used).
#[inline]
pub fn dot<R: Real>(a: &[R], b: &[R]) -> R {
    let mut s = R::ZERO;
    for (x, y) in a.iter().zip(b) {
        s += *x * *y;
    }
    s
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;

    #[test]
    fn exp_of_lanes_has_libm_bits() {
        // Every branch of libm's exp and both sides of each threshold: tiny (|x| ≤ 2⁻²⁸),
        // |x| ≤ ½ln2 (k = 0), ½ln2 < |x| < 1.5ln2 (k = ±1), the rounded k, the subnormal and
        // overflowing ends, and the special values; then a sweep of the kernel's range.
        let ln2 = core::f64::consts::LN_2;
        let mut xs = std::vec![
            0.0,
            -0.0,
            1e-300,
            -1e-300,
            3.7e-9,
            -3.7e-9,
            3.8e-9,
            -3.8e-9,
            0.5 * ln2,
            -0.5 * ln2,
            1.5 * ln2,
            -1.5 * ln2,
            1.0,
            -1.0,
            708.39,
            -708.39,
            708.4,
            -708.4,
            709.78,
            709.79,
            -745.1,
            -745.2,
            -1000.0,
            1000.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE,
            f64::MAX,
            -f64::MAX,
        ];
        for b in [0.5 * ln2, 1.5 * ln2, 708.396_418_532_264, 2f64.powi(-28)] {
            for u in -64i64..=64 {
                for s in [1.0, -1.0] {
                    xs.push(s * f64::from_bits((b.to_bits() as i64 + u) as u64));
                }
            }
        }
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        for i in 0..200_000 {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let u = (seed >> 11) as f64 / (1u64 << 53) as f64;
            // Half the draws in the kernel's range [−40, 0], half over all of [−750, 750].
            xs.push(if i % 2 == 0 {
                -40.0 * u
            } else {
                1500.0 * u - 750.0
            });
        }
        for chunk in xs.chunks(8) {
            let mut lanes = [0.5; 8];
            lanes[..chunk.len()].copy_from_slice(chunk);
            let got = f64::exp_lanes(lanes);
            for (x, g) in lanes.iter().zip(got) {
                let want = libm::exp(*x);
                assert!(
                    g.to_bits() == want.to_bits() || (g.is_nan() && want.is_nan()),
                    "exp({x:e}) = {g:e}, libm {want:e}"
                );
            }
        }
        // Other lane counts, f32 (lane by lane) included.
        let three = f64::exp_lanes([-1.25, 0.0, -30.5]);
        assert_eq!(
            three.map(f64::to_bits),
            [-1.25, 0.0, -30.5].map(|x| libm::exp(x).to_bits())
        );
        // With `fast-math`, f32's exp is micromath's (tested in `fast_math_*` below).
        if cfg!(not(feature = "fast-math")) {
            let f = f32::exp_lanes([-1.25f32, 3.0]);
            assert_eq!(
                f.map(f32::to_bits),
                [-1.25f32, 3.0].map(|x| x.exp().to_bits())
            );
        }
    }

    #[test]
    fn constants_agree_between_precisions() {
        // ln 2π = 1.83787706640934548356…; within one ulp of the libm value.
        assert!((<f64 as Real>::LN_2PI - libm::log(2.0 * core::f64::consts::PI)).abs() <= 2.3e-16);
        assert!((<f32 as Real>::LN_2PI as f64 - (2.0 * core::f64::consts::PI).ln()).abs() < 1e-6);
    }

    #[test]
    fn special_functions_match_std() {
        for &x in &[-3.0f64, -0.5, 1e-9, 0.3, 2.0, 10.0] {
            assert_eq!(Real::exp(x), x.exp());
            assert!((Real::erf(x) - libm::erf(x)).abs() == 0.0);
            // With `fast-math`, f32's exp is micromath's (tested in `fast_math_*` below).
            if cfg!(not(feature = "fast-math")) {
                assert!(((Real::exp(x as f32) as f64) - x.exp()).abs() <= 2e-7 * x.exp());
            }
        }
        assert!((Real::erfc(5.0f64) - 1.537_459_794_428_034_8e-12).abs() < 1e-25);
    }

    /// Arguments micromath must not see: its answers there are wrong or, with debug assertions
    /// (on in tests), panics. Every one must come back as libm's.
    #[cfg(feature = "fast-math")]
    #[test]
    fn fast_math_leaves_every_edge_to_libm() {
        let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
        let outside_exp = [
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::MAX,
            f32::MIN,
            88.01,
            88.8,
            89.0,
            -87.01,
            -100.0,
        ];
        for x in outside_exp {
            assert!(same(fast_math::exp(x), libm::expf(x)), "exp({x})");
        }
        let outside_ln_sqrt = [
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            0.0,
            -0.0,
            f32::MIN_POSITIVE / 2.0,
            f32::from_bits(1),
            -1.0,
            f32::MIN,
        ];
        for x in outside_ln_sqrt {
            assert!(same(fast_math::ln(x), libm::logf(x)), "ln({x})");
            assert!(same(fast_math::sqrt(x), libm::sqrtf(x)), "sqrt({x})");
        }
        // f32 routes exp only.
        assert_eq!(Real::exp(-3.0f32), fast_math::exp(-3.0));
        assert_ne!(fast_math::exp(-3.0), libm::expf(-3.0));
        assert_eq!(Real::sqrt(2.0f32), libm::sqrtf(2.0));
        assert_eq!(Real::ln(0.75f32), libm::logf(0.75));
    }

    /// micromath's exp against libm's f64 over every 97th f32 of its guarded range, and at
    /// both ends of it: within its documented error (2.4e-3 relative measured; bound 2.5e-3).
    #[cfg(feature = "fast-math")]
    #[test]
    fn fast_math_exp_is_within_its_error_over_the_guarded_range() {
        let check = |x: f32| {
            let (got, want) = (fast_math::exp(x) as f64, libm::exp(x as f64));
            assert!(
                (got - want).abs() <= 2.5e-3 * want,
                "exp({x}) = {got}, want {want}"
            );
        };
        for bits in (0..=87.0f32.to_bits()).step_by(97) {
            check(-f32::from_bits(bits));
        }
        for bits in (0..=88.0f32.to_bits()).step_by(97) {
            check(f32::from_bits(bits));
        }
        for x in [-87.0f32, -86.999, 87.999, 88.0] {
            check(x);
        }
    }
}
