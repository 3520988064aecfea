//! What the controller tests share: Hartmann-3 and paper 000's control sets and cheap costs
//! for three variables.

use costbo_core::problem::ControlSet;
use costbo_core::real::Libm;
use costbo_core::testfn::{Grouping, HARTMANN3};

/// Paper 000's seven control sets of three variables, in cost order.
pub fn sets() -> [ControlSet; 7] {
    [
        ControlSet::of(&[0]),
        ControlSet::of(&[1]),
        ControlSet::of(&[2]),
        ControlSet::of(&[0, 1]),
        ControlSet::of(&[0, 2]),
        ControlSet::of(&[1, 2]),
        ControlSet::of(&[0, 1, 2]),
    ]
}

/// Paper 000's cheap costs, in the order of [`sets`].
pub const CHEAP: [f64; 7] = [0.01, 0.01, 0.01, 0.1, 0.1, 0.1, 1.0];

/// Hartmann-3 ([`HARTMANN3`]), negated so that it is maximised; maximum 3.86278 at
/// (0.114614, 0.555649, 0.852547).
pub fn hartmann3(x: &[f64; 3]) -> f64 {
    HARTMANN3.value::<f64, Libm>(x, Grouping::SquareFirst)
}
