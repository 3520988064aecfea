//! Benchmark functions shared by the core's tests, the firmware's on-target suite and the
//! desktop objectives (feature `test-functions`): the Hartmann family, negated so that it is
//! maximised, on the unit cube.
//!
//! `f(x) = Σᵣ αᵣ exp(−Σⱼ Aᵣⱼ (xⱼ − Pᵣⱼ)²)` with `α = (1, 1.2, 3, 3.2)` ([`HARTMANN_ALPHA`]) and
//! each function's `A` and `P` (Dixon & Szegő, *Towards global optimisation 2*, 1978).
//!
//! Recorded results depend on the last bit of every value, so how a value is computed is
//! part of each caller's contract: the scalar type and the elementary functions are type
//! parameters ([`Elementary`]), and the rounding of `Aᵣⱼ (xⱼ − Pᵣⱼ)²` is a [`Grouping`].
//! Within those choices the order of every operation is fixed (terms summed in index order,
//! from zero).

use crate::real::{Elementary, Real};

/// The weights `α` of the four terms of every Hartmann function.
pub const HARTMANN_ALPHA: [f64; 4] = [1.0, 1.2, 3.0, 3.2];

/// How each term `Aᵣⱼ (xⱼ − Pᵣⱼ)²` is rounded. Both are the same real number; in floating
/// point they differ in the last bit, and a caller keeps the one its results were recorded with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grouping {
    /// `Aᵣⱼ · ((xⱼ − Pᵣⱼ)·(xⱼ − Pᵣⱼ))`: the square first (the desktop objectives and the core's
    /// tests).
    SquareFirst,
    /// `(Aᵣⱼ · (xⱼ − Pᵣⱼ)) · (xⱼ − Pᵣⱼ)`: left to right (the firmware's on-target suite and
    /// benchmarks).
    LeftToRight,
}

/// A Hartmann function in `D` variables: its coefficients and its maximum.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hartmann<const D: usize> {
    /// The coefficients `Aᵣⱼ`, one row per term.
    pub a: [[f64; D]; 4],
    /// The centres `Pᵣⱼ`, one row per term.
    pub p: [[f64; D]; 4],
    /// The largest value on `[0, 1]^D`.
    pub optimum: f64,
    /// Where [`optimum`](Self::optimum) is reached.
    pub argmax: [f64; D],
}

/// Hartmann-3 as in Dixon & Szegő and Hedar's test-problem collection, with `P₄₁ = 0.03815`
/// (the core's tests and the firmware). Maximum `3.8627821478207554` at
/// `(0.11461433858967197, 0.5556488499718569, 0.8525469535208657)`: refined by Newton's method
/// with mpmath (40 digits) from Stripinis' `Hartman3.m` (3.8627821478207558 at
/// (0.1146143418950719, 0.5556488502790051, 0.8525469532210148), 3e-10 away); the literature
/// rounds it to 3.86278 at (0.114614, 0.555649, 0.852547).
pub const HARTMANN3: Hartmann<3> = Hartmann {
    a: HARTMANN3_A,
    p: [
        [0.3689, 0.1170, 0.2673],
        [0.4699, 0.4387, 0.7470],
        [0.1091, 0.8732, 0.5547],
        [0.03815, 0.5743, 0.8828],
    ],
    optimum: 3.8627821478207554,
    argmax: [0.11461433858967197, 0.5556488499718569, 0.8525469535208657],
};

/// Hartmann-3 as tabulated by Surjanovic & Bingham's *Virtual Library of Simulation
/// Experiments* (`P = 10⁻⁴ [3689 1170 2673; 4699 4387 7470; 1091 8732 5547; 381 5743 8828]`,
/// so `P₄₁ = 0.0381`): the desktop objective `hartmann3`, whose recorded runs use it. Maximum
/// `3.862779787332663` at `(0.11458887665506896, 0.5556488946169301, 0.8525469846866774)`
/// (refined by Newton's method in f64 from the published maximiser, gradient below 3e-15; the
/// library gives 3.86278 at (0.114614, 0.555649, 0.852547)).
pub const HARTMANN3_VLSE: Hartmann<3> = Hartmann {
    a: HARTMANN3_A,
    p: [
        [0.3689, 0.1170, 0.2673],
        [0.4699, 0.4387, 0.7470],
        [0.1091, 0.8732, 0.5547],
        [0.0381, 0.5743, 0.8828],
    ],
    optimum: 3.862779787332663,
    argmax: [0.11458887665506896, 0.5556488946169301, 0.8525469846866774],
};

const HARTMANN3_A: [[f64; 3]; 4] = [
    [3.0, 10.0, 30.0],
    [0.1, 10.0, 35.0],
    [3.0, 10.0, 30.0],
    [0.1, 10.0, 35.0],
];

/// Hartmann-6 (Dixon & Szegő; Surjanovic & Bingham's table). Maximum `3.322368011415515` at
/// `(0.20168951100670543, 0.15001069182345797, 0.47687397422189703, 0.2753324304940561,
/// 0.31165161660011326, 0.6573005340656204)` (refined by Newton's method in f64 from the
/// published maximiser, gradient below 3e-15; the literature gives 3.32237 at (0.20169,
/// 0.150011, 0.476874, 0.275332, 0.311652, 0.6573)).
pub const HARTMANN6: Hartmann<6> = Hartmann {
    a: [
        [10.0, 3.0, 17.0, 3.5, 1.7, 8.0],
        [0.05, 10.0, 17.0, 0.1, 8.0, 14.0],
        [3.0, 3.5, 1.7, 10.0, 17.0, 8.0],
        [17.0, 8.0, 0.05, 10.0, 0.1, 14.0],
    ],
    p: [
        [0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886],
        [0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991],
        [0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.6650],
        [0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381],
    ],
    optimum: 3.322368011415515,
    argmax: [
        0.20168951100670543,
        0.15001069182345797,
        0.47687397422189703,
        0.2753324304940561,
        0.31165161660011326,
        0.6573005340656204,
    ],
};

impl<const D: usize> Hartmann<D> {
    /// `f(x)`, in `R` with the exponential of `E`, each term rounded as `grouping` says.
    ///
    /// The coefficients are stored in `f64` and converted with [`Real::from_f64`]; for `f32`
    /// every coefficient of this module converts to the same value as its `f32` literal.
    #[inline]
    pub fn value<R: Real, E: Elementary<R>>(&self, x: &[R; D], grouping: Grouping) -> R {
        let mut f = R::ZERO;
        for ((alpha, a), p) in HARTMANN_ALPHA.iter().zip(&self.a).zip(&self.p) {
            let mut e = R::ZERO;
            for j in 0..D {
                let (a, d) = (R::from_f64(a[j]), x[j] - R::from_f64(p[j]));
                e += match grouping {
                    Grouping::SquareFirst => a * (d * d),
                    Grouping::LeftToRight => a * d * d,
                };
            }
            f += R::from_f64(*alpha) * E::exp(-e);
        }
        f
    }
}

#[cfg(test)]
mod tests {
    use rand_core::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro128PlusPlus;

    use super::*;
    use crate::real::Libm;

    /// The central-difference gradient of `h` at `x` (step 1e-6).
    fn gradient<const D: usize>(h: &Hartmann<D>, x: &[f64; D]) -> [f64; D] {
        core::array::from_fn(|j| {
            let (mut up, mut down) = (*x, *x);
            up[j] += 1e-6;
            down[j] -= 1e-6;
            (h.value::<f64, Libm>(&up, Grouping::SquareFirst)
                - h.value::<f64, Libm>(&down, Grouping::SquareFirst))
                / 2e-6
        })
    }

    /// The published maxima: the value at the published (rounded) maximiser within 1e-5 of
    /// the published (rounded) maximum, the stored maximum reached at the stored maximiser,
    /// where the gradient vanishes, and no random point above it.
    #[test]
    fn maxima_match_the_literature() {
        let rounded3 = [0.114614, 0.555649, 0.852547];
        let rounded6 = [0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573];
        let f3 = |h: &Hartmann<3>, x: &[f64; 3]| h.value::<f64, Libm>(x, Grouping::SquareFirst);
        let f6 = |x: &[f64; 6]| HARTMANN6.value::<f64, Libm>(x, Grouping::SquareFirst);
        for h in [&HARTMANN3, &HARTMANN3_VLSE] {
            assert!((f3(h, &rounded3) - 3.86278).abs() < 1e-5);
            assert!((f3(h, &h.argmax) - h.optimum).abs() < 1e-14);
            assert!(gradient(h, &h.argmax).iter().all(|g| g.abs() < 1e-8));
        }
        // At the stored maximisers, mpmath (40 digits) gives 3.86278214782075526 (P₄₁ =
        // 0.03815) and 3.86277978733266252 (0.0381).
        assert!((f3(&HARTMANN3, &HARTMANN3.argmax) - 3.862_782_147_820_755_3).abs() < 2e-15);
        assert!(
            (f3(&HARTMANN3_VLSE, &HARTMANN3_VLSE.argmax) - 3.862_779_787_332_662_5).abs() < 2e-15
        );
        // Stripinis' maximum of the P₄₁ = 0.03815 table (Hedar's collection), parsed from its
        // 17 digits (more than an f64 keeps, so not written as a literal).
        let stripinis: f64 = "3.8627821478207558".parse().unwrap();
        assert!((HARTMANN3.optimum - stripinis).abs() < 1e-15);
        // The two tables differ by 5e-5 in one centre: their maxima differ, slightly.
        assert!((HARTMANN3.optimum - HARTMANN3_VLSE.optimum - 2.36e-6).abs() < 1e-8);
        assert!((f6(&rounded6) - 3.32237).abs() < 1e-5);
        assert!((f6(&HARTMANN6.argmax) - HARTMANN6.optimum).abs() < 1e-14);
        assert!(gradient(&HARTMANN6, &HARTMANN6.argmax)
            .iter()
            .all(|g| g.abs() < 1e-8));

        let mut rng = Xoshiro128PlusPlus::seed_from_u64(5);
        let mut u = || (rng.next_u32() as f64 + 0.5) / 4_294_967_296.0;
        for _ in 0..20_000 {
            let x3: [f64; 3] = core::array::from_fn(|_| u());
            let x6: [f64; 6] = core::array::from_fn(|_| u());
            assert!(f3(&HARTMANN3, &x3) < HARTMANN3.optimum);
            assert!(f3(&HARTMANN3_VLSE, &x3) < HARTMANN3_VLSE.optimum);
            assert!(f6(&x6) < HARTMANN6.optimum);
        }
    }

    /// Hartmann-3 at the corners and the centre against values computed by hand from the
    /// definition with mpmath (30 digits).
    #[test]
    fn values_at_fixed_points() {
        let f = |x: [f64; 3]| HARTMANN3.value::<f64, Libm>(&x, Grouping::SquareFirst);
        assert!((f([0.5, 0.5, 0.5]) - 0.628_022_096_175_061_5).abs() < 2e-15);
        assert!((f([0.0, 0.0, 0.0]) - 0.067_974_116_590_134_7).abs() < 2e-15);
    }

    /// Both groupings and both precisions compute the same function: within a few ulps of
    /// each other.
    #[test]
    #[cfg_attr(
        feature = "fast-math",
        ignore = "compares f32 with f64 at libm's tolerances; fast-math's f32 exp is 2.4e-3 relative"
    )]
    fn groupings_and_precisions_agree() {
        let mut rng = Xoshiro128PlusPlus::seed_from_u64(9);
        for _ in 0..10_000 {
            let x: [f64; 3] = core::array::from_fn(|_| (rng.next_u32() >> 8) as f64 / 16_777_216.0);
            let a = HARTMANN3.value::<f64, Libm>(&x, Grouping::SquareFirst);
            let b = HARTMANN3.value::<f64, Libm>(&x, Grouping::LeftToRight);
            assert!((a - b).abs() <= 8.0 * f64::EPSILON * a.max(1.0));
            // x is exact in f32 (24 bits).
            let x32 = x.map(|v| v as f32);
            let c = HARTMANN3.value::<f32, Libm>(&x32, Grouping::LeftToRight) as f64;
            assert!((a - c).abs() <= 1e-5 * a.max(1.0), "{a} {c}");
        }
    }

    /// The f64 coefficients convert to exactly the f32 values of their literals (so the
    /// firmware's f32 evaluation is that of its former f32 tables).
    #[test]
    fn coefficients_convert_exactly_to_f32() {
        let h = &HARTMANN3;
        let a32: [[f32; 3]; 4] = [
            [3.0, 10.0, 30.0],
            [0.1, 10.0, 35.0],
            [3.0, 10.0, 30.0],
            [0.1, 10.0, 35.0],
        ];
        let p32: [[f32; 3]; 4] = [
            [0.3689, 0.1170, 0.2673],
            [0.4699, 0.4387, 0.7470],
            [0.1091, 0.8732, 0.5547],
            [0.03815, 0.5743, 0.8828],
        ];
        let alpha32: [f32; 4] = [1.0, 1.2, 3.0, 3.2];
        for r in 0..4 {
            assert_eq!(HARTMANN_ALPHA[r] as f32, alpha32[r]);
            for j in 0..3 {
                assert_eq!(h.a[r][j] as f32, a32[r][j]);
                assert_eq!(h.p[r][j] as f32, p32[r][j]);
            }
        }
    }
}
