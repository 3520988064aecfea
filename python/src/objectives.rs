//! `costbo.Objective`: the objectives and simulators of the papers (the lab's catalogue:
//! the plant growth simulator, the airfoil simulator, Hartmann, Ackley, Levy, GP samples, ...)
//! on the unit cube, so that a notebook can run a study against the same functions as the
//! `costbo` command.

use pyo3::prelude::*;

use costbo_objectives::{self as objectives, Options};

use crate::convert::{array, count_or, matrix, text, vector};
use crate::error::input;

/// An objective of the papers, to be maximised over the unit cube `[0, 1]^dim`: `obj(u)` is
/// its value at `u`, `obj.evaluate(U)` its values at the rows of `U`. `costbo.OBJECTIVES`
/// lists the names, default dimensions and what each is.
#[pyclass(module = "costbo")]
pub struct Objective {
    inner: Box<dyn objectives::Objective>,
}

#[pymethods]
impl Objective {
    /// The objective called `name` in dimension `dim` (its default if omitted); `seed` picks
    /// the function of a random objective (`"gp-sample"`, 0 if omitted).
    #[new]
    #[pyo3(signature = (name, dim = None, seed = None))]
    fn new(
        py: Python<'_>,
        name: &Bound<'_, PyAny>,
        dim: Option<&Bound<'_, PyAny>>,
        seed: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let name = text(name, "name")?;
        let dim = match dim {
            None => None,
            Some(d) => Some(
                usize::try_from(count_or(Some(d), "dim", 0)?)
                    .map_err(|_| input(py, "dim is too large"))?,
            ),
        };
        let seed = match seed {
            None => None,
            Some(s) => Some(count_or(Some(s), "seed", 0)?),
        };
        let options = Options { dim, seed };
        py.detach(|| objectives::build(&name, &options))
            .map(|inner| Objective { inner })
            .map_err(|e| input(py, e.to_string()))
    }

    /// The value at the unit-cube point `u` (a list or 1-D array of `dim` values in [0, 1]).
    fn __call__(&self, py: Python<'_>, u: &Bound<'_, PyAny>) -> PyResult<f64> {
        let u = vector(u, "u")?;
        let inner = &self.inner;
        py.detach(|| inner.checked_eval(&u))
            .map_err(|e| input(py, e.to_string()))
    }

    /// The values at the rows of `U` (m × dim), as a NumPy array.
    fn evaluate<'py>(&self, py: Python<'py>, u: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let rows = matrix(u, "U")?;
        let inner = &self.inner;
        let values = py
            .detach(|| {
                rows.iter()
                    .enumerate()
                    .map(|(i, r)| inner.checked_eval(r).map_err(|e| format!("U[{i}]: {e}")))
                    .collect::<Result<Vec<f64>, String>>()
            })
            .map_err(|e| input(py, e))?;
        array(py, values)
    }

    /// Its name in the catalogue.
    #[getter]
    fn name(&self) -> String {
        self.inner.name().to_string()
    }

    /// The dimension.
    #[getter]
    fn dim(&self) -> usize {
        self.inner.dim()
    }

    /// The maximum over the unit cube.
    #[getter]
    fn optimum(&self) -> f64 {
        self.inner.optimum()
    }

    /// A maximiser in unit-cube coordinates, or `None` where none is known.
    #[getter]
    fn argmax(&self) -> Option<Vec<f64>> {
        self.inner.argmax()
    }

    fn __repr__(&self) -> String {
        format!(
            "Objective(name={:?}, dim={}, optimum={:?})",
            self.inner.name(),
            self.inner.dim(),
            self.inner.optimum()
        )
    }
}

/// The catalogue: `(name, default dimension, summary)` of every objective.
pub fn catalogue() -> Vec<(&'static str, usize, &'static str)> {
    objectives::CATALOGUE
        .iter()
        .map(|e| (e.name, e.default_dim, e.summary))
        .collect()
}
