//! `plant`: the plant growth simulator of papers 000 and 001, the standardised maximum leaf
//! area of Marchantia as a function of Ca, B, NH₃, K (log µM) and pH.
//!
//! It is the posterior mean of a sparse GP exported from `sebtsh/bocvs` (MIT licence; see
//! `data/README.md`): with `x = lower + u · (upper − lower)` in raw units,
//!
//! ```text
//! f(u) = Σⱼ wⱼ · variance · exp(−½ Σₗ ((xₗ − zⱼₗ) / ℓₗ)²)
//! ```
//!
//! over the 464 inducing points `zⱼ` with weights `wⱼ` (`data/plant/weights.csv`) and the SE-ARD
//! hyperparameters of `data/plant/model.json`, both embedded in the binary. The kernel is the
//! core's [`Kernel`]. Maximum `2.1941161756480008` (from `model.json`: 200k random points and
//! L-BFGS-B).

use std::sync::{Arc, OnceLock};

use costbo_core::kernel::Kernel;
use serde::Deserialize;

use super::{Objective, ObjectiveError};
use crate::csv_matrix::Table;

/// `data/plant/model.json`, embedded.
pub const MODEL_JSON: &str = include_str!("../../data/plant/model.json");
/// `data/plant/weights.csv`, embedded.
pub const WEIGHTS_CSV: &str = include_str!("../../data/plant/weights.csv");

/// One check point of a `model.json`: a unit-cube input and the value there.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct CheckPoint {
    /// Unit-cube input.
    pub unit_x: Vec<f64>,
    /// Objective value.
    pub value: f64,
}

#[derive(Debug, Deserialize)]
struct ModelFile {
    lower: Vec<f64>,
    upper: Vec<f64>,
    variance: f64,
    lengthscales: Vec<f64>,
    optimum: CheckPoint,
    check_points: Vec<CheckPoint>,
}

/// The plant growth simulator; see the [module documentation](self).
#[derive(Debug, Clone)]
pub struct Plant {
    model: Arc<Model>,
}

#[derive(Debug)]
struct Model {
    kernel: Kernel<f64, 5>,
    lower: [f64; 5],
    width: [f64; 5],
    inducing: Vec<[f64; 5]>,
    weights: Vec<f64>,
    optimum: CheckPoint,
    check_points: Vec<CheckPoint>,
}

fn five(v: &[f64], what: &str) -> Result<[f64; 5], ObjectiveError> {
    v.try_into()
        .map_err(|_| ObjectiveError::Data(format!("plant: {what} needs 5 values")))
}

impl Model {
    fn parse() -> Result<Model, ObjectiveError> {
        let data = |e: String| ObjectiveError::Data(format!("plant: {e}"));
        let m: ModelFile = serde_json::from_str(MODEL_JSON).map_err(|e| data(e.to_string()))?;
        let table = Table::parse(WEIGHTS_CSV).map_err(|e| data(e.to_string()))?;
        if table.width() != 6 || table.rows.is_empty() {
            return Err(data("weights.csv needs 5 inputs and a weight".into()));
        }
        let kernel =
            Kernel::squared_exponential(five(&m.lengthscales, "lengthscales")?, m.variance)
                .map_err(|e| data(format!("kernel {e}")))?;
        let (lower, upper) = (five(&m.lower, "lower")?, five(&m.upper, "upper")?);
        Ok(Model {
            kernel,
            lower,
            width: core::array::from_fn(|i| upper[i] - lower[i]),
            inducing: table
                .rows
                .iter()
                .map(|r| core::array::from_fn(|i| r[i]))
                .collect(),
            weights: table.rows.iter().map(|r| r[5]).collect(),
            optimum: m.optimum,
            check_points: m.check_points,
        })
    }
}

impl Plant {
    /// The simulator, parsed once per process and shared.
    pub fn shared() -> Result<Plant, ObjectiveError> {
        static MODEL: OnceLock<Result<Arc<Model>, ObjectiveError>> = OnceLock::new();
        MODEL
            .get_or_init(|| Model::parse().map(Arc::new))
            .clone()
            .map(|model| Plant { model })
    }

    /// The raw-unit input for the unit-cube point `u`.
    pub fn raw(&self, u: &[f64; 5]) -> [f64; 5] {
        let m = &self.model;
        core::array::from_fn(|i| m.lower[i] + u[i] * m.width[i])
    }

    /// `f(u)` and its gradient with respect to `u`.
    pub fn value_and_gradient(&self, u: &[f64; 5]) -> (f64, [f64; 5]) {
        let m = &self.model;
        let x = self.raw(u);
        let (mut v, mut g, mut gk) = (0.0, [0.0; 5], [0.0; 5]);
        for (z, w) in m.inducing.iter().zip(&m.weights) {
            v += w * m.kernel.eval_with_grad(&x, z, &mut gk);
            for i in 0..5 {
                g[i] += w * gk[i] * m.width[i];
            }
        }
        (v, g)
    }

    /// The check points listed in `model.json`.
    pub fn check_points(&self) -> &[CheckPoint] {
        &self.model.check_points
    }
}

impl Objective for Plant {
    fn name(&self) -> &str {
        "plant"
    }
    fn dim(&self) -> usize {
        5
    }
    fn eval(&self, u: &[f64]) -> f64 {
        let m = &self.model;
        let x = self.raw(&core::array::from_fn(|i| u[i]));
        m.inducing
            .iter()
            .zip(&m.weights)
            .map(|(z, w)| w * m.kernel.eval(&x, z))
            .sum()
    }
    fn optimum(&self) -> f64 {
        self.model.optimum.value
    }
    fn argmax(&self) -> Option<Vec<f64>> {
        Some(self.model.optimum.unit_x.clone())
    }
}
