//! The platform's elementary functions (Rust's `std`, i.e. the system's libm), for the
//! computations whose recorded results were made with them.

use costbo_core::real::Elementary;

/// `exp`, `ln`, `sin` and `cos` of `f64` from `std` (the system libm, glibc on Linux).
///
/// The simulators' observation and cost noise ([`costbo_core::random::standard_normal`]) and
/// the synthetic objectives ([`crate::synthetic`]) have always been computed with
/// these, and the results and reports of earlier runs were recorded with them; the core's
/// [`Libm`](costbo_core::real::Libm) differs in the last bit on about 7% of logarithms and 3%
/// of cosines, which would change every noisy observation it touches, and with them the runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Platform;

impl Elementary<f64> for Platform {
    #[inline]
    fn exp(x: f64) -> f64 {
        x.exp()
    }
    #[inline]
    fn ln(x: f64) -> f64 {
        x.ln()
    }
    #[inline]
    fn sin(x: f64) -> f64 {
        x.sin()
    }
    #[inline]
    fn cos(x: f64) -> f64 {
        x.cos()
    }
}
