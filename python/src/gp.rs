//! `costbo.GP`: the core's Gaussian process ([`costbo_std::gp`]) on NumPy arrays.

use pyo3::prelude::*;

use costbo_core::kernel::Shape;
use costbo_std::gp::{FitOptions, GpSpec};
use costbo_std::Precision;

use crate::convert::{
    array, count_or, flag_or, matrix, number, precision_or, size_or, text_or, vector,
};
use crate::error::{from_std, input};

/// The hyperparameters a fit found, and how it went.
#[pyclass(module = "costbo", frozen, get_all)]
#[derive(Debug, Clone)]
pub struct FitResult {
    /// Fitted lengthscales, one per input.
    pub lengthscales: Vec<f64>,
    /// Fitted output scale.
    pub outputscale: f64,
    /// Fitted noise variance.
    pub noise: f64,
    /// Fitted constant prior mean.
    pub mean: f64,
    /// Log marginal likelihood at the fitted hyperparameters.
    pub log_marginal_likelihood: f64,
    /// Likelihood evaluations used.
    pub evaluations: usize,
}

#[pymethods]
impl FitResult {
    fn __repr__(&self) -> String {
        format!(
            "FitResult(lengthscales={:?}, outputscale={:?}, noise={:?}, mean={:?}, \
             log_marginal_likelihood={:?}, evaluations={})",
            self.lengthscales,
            self.outputscale,
            self.noise,
            self.mean,
            self.log_marginal_likelihood,
            self.evaluations
        )
    }
}

fn shape_name(shape: Shape) -> &'static str {
    match shape {
        Shape::SquaredExponential => "se",
        Shape::Matern52 => "matern52",
        Shape::Matern32 => "matern32",
    }
}

/// A Gaussian process with a constant prior mean and Gaussian noise, the model of costbo's
/// rules: kernel `"se"` (squared exponential), `"matern52"` or `"matern32"`, one lengthscale
/// for every input or one per input. `fit(X, y)` takes the data (and by default fits the
/// hyperparameters by maximum likelihood); `predict(X)` gives the posterior mean and latent
/// variance as NumPy arrays. 1 to 12 inputs, or 16; up to 2048 points.
#[pyclass(module = "costbo")]
pub struct GP {
    spec: GpSpec,
    precision: Precision,
    xs: Vec<Vec<f64>>,
    ys: Vec<f64>,
}

impl GP {
    fn spec_error(&self, py: Python<'_>) -> PyResult<()> {
        self.spec.check().map_err(|e| from_std(py, e))
    }
}

#[pymethods]
impl GP {
    /// A GP with these hyperparameters (in physical units) and no data.
    #[new]
    #[pyo3(signature = (kernel = None, lengthscales = None, outputscale = None,
        noise = None, mean = None, precision = None))]
    fn new(
        py: Python<'_>,
        kernel: Option<&Bound<'_, PyAny>>,
        lengthscales: Option<&Bound<'_, PyAny>>,
        outputscale: Option<&Bound<'_, PyAny>>,
        noise: Option<&Bound<'_, PyAny>>,
        mean: Option<&Bound<'_, PyAny>>,
        precision: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let kernel = text_or(kernel, "kernel", "matern52")?;
        let shape = match kernel.as_str() {
            "se" => Shape::SquaredExponential,
            "matern52" => Shape::Matern52,
            "matern32" => Shape::Matern32,
            other => {
                return Err(input(
                    py,
                    format!("kernel {other:?}: must be \"se\", \"matern52\" or \"matern32\""),
                ))
            }
        };
        let lengthscales = match lengthscales {
            None => vec![0.2],
            Some(l) => match number(l, "lengthscales") {
                Ok(v) => vec![v],
                Err(_) => vector(l, "lengthscales")?,
            },
        };
        let scalar = |v: Option<&Bound<'_, PyAny>>, what: &str, default: f64| match v {
            None => Ok(default),
            Some(v) => number(v, what),
        };
        let gp = GP {
            spec: GpSpec {
                shape,
                lengthscales,
                outputscale: scalar(outputscale, "outputscale", 1.0)?,
                noise: scalar(noise, "noise", 1e-4)?,
                mean: scalar(mean, "mean", 0.0)?,
            },
            precision: precision_or(py, precision)?,
            xs: Vec::new(),
            ys: Vec::new(),
        };
        gp.spec_error(py)?;
        Ok(gp)
    }

    /// Takes the training data `X` (n × d) and `y` (n), replacing any before, and, with
    /// `optimize`, fits the hyperparameters by maximum likelihood within the unit-cube box
    /// (inputs scaled to [0, 1]): `starts` starts (the current hyperparameters, then random
    /// ones drawn with `seed`) of at most `evaluations` likelihoods each. Returns the fit's
    /// result, or `None` without `optimize`. On error nothing changes.
    #[pyo3(signature = (x, y, *, optimize = None, starts = None, evaluations = None,
        seed = None))]
    #[allow(clippy::too_many_arguments)]
    fn fit(
        &mut self,
        py: Python<'_>,
        x: &Bound<'_, PyAny>,
        y: &Bound<'_, PyAny>,
        optimize: Option<&Bound<'_, PyAny>>,
        starts: Option<&Bound<'_, PyAny>>,
        evaluations: Option<&Bound<'_, PyAny>>,
        seed: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Option<FitResult>> {
        let optimize = flag_or(optimize, "optimize", true)?;
        let (starts, evaluations) = (
            size_or(starts, "starts", 8)?,
            size_or(evaluations, "evaluations", 200)?,
        );
        let seed = count_or(seed, "seed", 0)?;
        let xs = matrix(x, "X")?;
        let ys = vector(y, "y")?;
        let (spec, precision) = (&self.spec, self.precision);
        let fitted = if optimize {
            let options = FitOptions {
                starts,
                evaluations_per_start: evaluations,
                seed,
            };
            let s = py
                .detach(|| costbo_std::gp::fit(spec, &xs, &ys, precision, options))
                .map_err(|e| from_std(py, e))?;
            Some(s)
        } else {
            // Checks the data as a fit would, so that a later predict cannot fail on them.
            py.detach(|| costbo_std::gp::log_marginal_likelihood(spec, &xs, &ys, precision))
                .map_err(|e| from_std(py, e))?;
            None
        };
        self.xs = xs;
        self.ys = ys;
        Ok(fitted.map(|s| {
            self.spec = s.spec.clone();
            FitResult {
                lengthscales: s.spec.lengthscales,
                outputscale: s.spec.outputscale,
                noise: s.spec.noise,
                mean: s.spec.mean,
                log_marginal_likelihood: s.log_marginal_likelihood,
                evaluations: s.evaluations,
            }
        }))
    }

    /// The posterior mean and latent variance (without the noise) at each row of `X`
    /// (m × d), as two NumPy arrays of length m. With no data, the prior's.
    fn predict<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let test = matrix(x, "X")?;
        if let (Some(t), Some(r)) = (test.first(), self.xs.first()) {
            if t.len() != r.len() {
                return Err(input(
                    py,
                    format!(
                        "X has {} columns; the training inputs have {}",
                        t.len(),
                        r.len()
                    ),
                ));
            }
        }
        let (spec, xs, ys, precision) = (&self.spec, &self.xs, &self.ys, self.precision);
        let out = py
            .detach(|| costbo_std::gp::predict(spec, xs, ys, &test, precision))
            .map_err(|e| from_std(py, e))?;
        let (mean, var): (Vec<f64>, Vec<f64>) = out.into_iter().unzip();
        Ok((array(py, mean)?, array(py, var)?))
    }

    /// The log marginal likelihood of the training data under the current hyperparameters.
    fn log_marginal_likelihood(&self, py: Python<'_>) -> PyResult<f64> {
        let (spec, xs, ys, precision) = (&self.spec, &self.xs, &self.ys, self.precision);
        py.detach(|| costbo_std::gp::log_marginal_likelihood(spec, xs, ys, precision))
            .map_err(|e| from_std(py, e))
    }

    /// The kernel's name.
    #[getter]
    fn kernel(&self) -> &'static str {
        shape_name(self.spec.shape)
    }

    /// The lengthscales (one value stands for every input).
    #[getter]
    fn lengthscales(&self) -> Vec<f64> {
        self.spec.lengthscales.clone()
    }

    /// The output scale.
    #[getter]
    fn outputscale(&self) -> f64 {
        self.spec.outputscale
    }

    /// The noise variance.
    #[getter]
    fn noise(&self) -> f64 {
        self.spec.noise
    }

    /// The constant prior mean.
    #[getter]
    fn mean(&self) -> f64 {
        self.spec.mean
    }

    /// Training points held.
    fn __len__(&self) -> usize {
        self.xs.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "GP(kernel={:?}, lengthscales={:?}, outputscale={:?}, noise={:?}, mean={:?}, \
             precision={:?}, n={})",
            shape_name(self.spec.shape),
            self.spec.lengthscales,
            self.spec.outputscale,
            self.spec.noise,
            self.spec.mean,
            self.precision.name(),
            self.xs.len()
        )
    }
}
