//! `airfoil`: the airfoil self-noise objective of papers 000 and 001, the posterior mean of an
//! exact GP fitted to the 1503 transformed rows of the UCI "Airfoil Self-Noise" data set
//! (CC BY 4.0; hyperparameters from `sebtsh/bocvs`, MIT; see `data/README.md`):
//!
//! ```text
//! μ(u) = c + k(u, X) (K + σₙ² I)⁻¹ (y − c)
//! ```
//!
//! with the Matérn-5/2 ARD kernel, constant mean `c` and noise variance `σₙ²` of
//! `data/airfoil/model.json`. Both data files are embedded in the binary.
//!
//! The GP is the core's [`Gp`] (capacity [`CAPACITY`], `Vec` storage), built once per process
//! on first use: 1503 incremental appends, about 0.5 s optimised. Maximum `2.614005842384836`
//! (from `model.json`: 100k random points and L-BFGS-B).

use std::sync::{Arc, OnceLock};

use costbo_core::gp::{Gp, WhenFull};
use costbo_core::kernel::Kernel;
use costbo_core::linalg::tri_len;
use serde::Deserialize;

use super::plant::CheckPoint;
use super::{Objective, ObjectiveError};
use crate::csv_matrix::Table;

/// `data/airfoil/model.json`, embedded.
pub const MODEL_JSON: &str = include_str!("../../data/airfoil/model.json");
/// `data/airfoil/airfoil.csv`, embedded.
pub const DATA_CSV: &str = include_str!("../../data/airfoil/airfoil.csv");

/// Capacity of the GP (at least the 1503 rows).
pub const CAPACITY: usize = 1536;

type AirfoilGp = Gp<f64, CAPACITY, 5, Vec<f64>>;

#[derive(Debug, Deserialize)]
struct ModelFile {
    lengthscales: Vec<f64>,
    outputscale: f64,
    mean_constant: f64,
    noise: f64,
    optimum: CheckPoint,
    check_points: Vec<CheckPoint>,
}

/// The airfoil objective; see the [module documentation](self).
#[derive(Debug, Clone)]
pub struct Airfoil {
    model: Arc<Model>,
}

#[derive(Debug)]
struct Model {
    gp: Box<AirfoilGp>,
    optimum: CheckPoint,
    check_points: Vec<CheckPoint>,
}

impl Model {
    fn build() -> Result<Model, ObjectiveError> {
        let data = |e: String| ObjectiveError::Data(format!("airfoil: {e}"));
        let m: ModelFile = serde_json::from_str(MODEL_JSON).map_err(|e| data(e.to_string()))?;
        let table = Table::parse(DATA_CSV).map_err(|e| data(e.to_string()))?;
        if table.width() != 6 || table.rows.len() > CAPACITY {
            return Err(data(format!(
                "airfoil.csv needs 5 inputs and an output, at most {CAPACITY} rows"
            )));
        }
        let ls: [f64; 5] = m.lengthscales[..]
            .try_into()
            .map_err(|_| data("5 lengthscales needed".into()))?;
        let kernel =
            Kernel::matern52(ls, m.outputscale).map_err(|e| data(format!("kernel {e}")))?;
        let mut gp = Box::new(
            AirfoilGp::new(
                kernel,
                m.mean_constant,
                m.noise,
                WhenFull::Reject,
                vec![0.0; tri_len(CAPACITY)],
            )
            .map_err(|e| data(format!("{e}")))?,
        );
        for r in &table.rows {
            gp.push(&core::array::from_fn(|i| r[i]), r[5])
                .map_err(|e| data(format!("{e}")))?;
        }
        if gp.jitters().iter().any(|j| *j != 0.0) {
            return Err(data("the kernel matrix needed jitter".into()));
        }
        Ok(Model {
            gp,
            optimum: m.optimum,
            check_points: m.check_points,
        })
    }
}

impl Airfoil {
    /// The objective, built once per process and shared.
    pub fn shared() -> Result<Airfoil, ObjectiveError> {
        static MODEL: OnceLock<Result<Arc<Model>, ObjectiveError>> = OnceLock::new();
        MODEL
            .get_or_init(|| Model::build().map(Arc::new))
            .clone()
            .map(|model| Airfoil { model })
    }

    /// `μ(u)` and its gradient.
    pub fn value_and_gradient(&self, u: &[f64; 5]) -> (f64, [f64; 5]) {
        self.model
            .gp
            .predict_mean_with_gradient(u)
            .unwrap_or((f64::NAN, [f64::NAN; 5]))
    }

    /// The check points listed in `model.json`.
    pub fn check_points(&self) -> &[CheckPoint] {
        &self.model.check_points
    }
}

impl Objective for Airfoil {
    fn name(&self) -> &str {
        "airfoil"
    }
    fn dim(&self) -> usize {
        5
    }
    fn eval(&self, u: &[f64]) -> f64 {
        // Only non-finite input fails; it yields NaN.
        self.model
            .gp
            .predict_mean(&core::array::from_fn(|i| u[i]))
            .unwrap_or(f64::NAN)
    }
    fn optimum(&self) -> f64 {
        self.model.optimum.value
    }
    fn argmax(&self) -> Option<Vec<f64>> {
        Some(self.model.optimum.unit_x.clone())
    }
}
