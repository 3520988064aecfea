//! What the controller tests share: Hartmann-3 and paper 000's control sets and cheap costs
//! for three variables.

use costbo_core::problem::ControlSet;

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

/// Hartmann-3, negated so that it is maximised; maximum 3.86278 at (0.114614, 0.555649, 0.852547).
pub fn hartmann3(x: &[f64; 3]) -> f64 {
    const ALPHA: [f64; 4] = [1.0, 1.2, 3.0, 3.2];
    const A: [[f64; 3]; 4] = [
        [3.0, 10.0, 30.0],
        [0.1, 10.0, 35.0],
        [3.0, 10.0, 30.0],
        [0.1, 10.0, 35.0],
    ];
    const P: [[f64; 3]; 4] = [
        [0.3689, 0.1170, 0.2673],
        [0.4699, 0.4387, 0.7470],
        [0.1091, 0.8732, 0.5547],
        [0.03815, 0.5743, 0.8828],
    ];
    (0..4)
        .map(|r| {
            ALPHA[r]
                * (-(0..3)
                    .map(|j| A[r][j] * (x[j] - P[r][j]).powi(2))
                    .sum::<f64>())
                .exp()
        })
        .sum()
}
