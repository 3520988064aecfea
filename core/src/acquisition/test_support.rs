//! The small model and priced problem that the acquisitions' unit tests share.

extern crate std;

use crate::dist::Distribution;
use crate::gp::{Gp, WhenFull};
use crate::kernel::Kernel;
use crate::linalg::tri_len;
use crate::problem::{ControlSet, CostFunction, Costs, Problem, Variable};

/// A GP of up to 8 points in 2 dimensions.
pub(crate) type G = Gp<f64, 8, 2, [f64; tri_len(8)]>;

/// A Matérn-5/2 model (lengthscales 0.3 and 0.5, outputscale 1.3, noise 1e-4) of `points`.
pub(crate) fn model(points: &[([f64; 2], f64)]) -> G {
    let k = Kernel::matern52([0.3, 0.5], 1.3).unwrap();
    let mut gp: G = Gp::new(k, 0.1, 1e-4, WhenFull::Reject, [0.0; tri_len(8)]).unwrap();
    for (x, y) in points {
        gp.push(x, *y).unwrap();
    }
    gp
}

/// The model of four points the tests evaluate on.
pub(crate) fn data() -> G {
    model(&[
        ([0.1, 0.2], 0.3),
        ([0.8, 0.4], -0.2),
        ([0.5, 0.9], 0.9),
        ([0.3, 0.6], 0.1),
    ])
}

/// Cost 2 + 20·x₀² + x₁ on physical bounds [0, 2] × [−1, 1], with its gradient.
pub(crate) fn dose_cost(_: usize, x: &[f64; 2]) -> (f64, [f64; 2]) {
    (2.0 + 20.0 * x[0] * x[0] + x[1], [40.0 * x[0], 1.0])
}

/// One control set of both variables, priced by [`dose_cost`].
pub(crate) fn problem() -> Problem<f64, 2, 1> {
    let v = |lower: f64, upper: f64| Variable {
        lower,
        upper,
        uncontrolled: Distribution::uniform(lower, upper).unwrap(),
    };
    Problem::new(
        &[v(0.0, 2.0), v(-1.0, 1.0)],
        &[ControlSet::of(&[0, 1])],
        Some(&[1.0]),
    )
    .unwrap()
    .with_costs(Costs::Function(CostFunction(dose_cost)))
    .unwrap()
}

/// A fixture's array of numbers.
pub(crate) fn fixture_floats(v: &serde_json::Value) -> std::vec::Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}
