//! `costbo gp`: Gaussian-process prediction and fitting on CSV data, through the core's GP.
//!
//! The core's GP has its capacity `N` and dimension `D` fixed at compile time; this module
//! picks the smallest capacity bucket that holds the training set and the exact dimension,
//! and runs the job on a thread with a stack large enough for the model.

use std::fmt;

use costbo_core::gp::{FitConfig, Gp, GpError, WhenFull};
use costbo_core::kernel::{Kernel, Shape};
use costbo_core::linalg::tri_len;
use costbo_core::Real;

use crate::csv_matrix::Table;

/// Floating-point precision of the computation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    /// Single precision, as on a Cortex-M4F.
    F32,
    /// Double precision.
    F64,
}

/// Largest input dimension the command supports.
pub const MAX_DIM: usize = 12;
/// Largest training set the command supports.
pub const MAX_POINTS: usize = 2048;

/// Kernel and likelihood settings, in physical (not log) units.
#[derive(Debug, Clone, PartialEq)]
pub struct GpSpec {
    /// Kernel shape.
    pub shape: Shape,
    /// One lengthscale per input (or one value for all).
    pub lengthscales: Vec<f64>,
    /// Outputscale.
    pub outputscale: f64,
    /// Observation noise variance.
    pub noise: f64,
    /// Constant prior mean.
    pub mean: f64,
}

/// Fitting options.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FitOptions {
    /// Number of starts.
    pub starts: usize,
    /// Likelihood evaluations per start.
    pub evaluations_per_start: usize,
    /// Seed of the random starts.
    pub seed: u64,
}

/// Most optimiser starts of a fit (each is up to `evaluations_per_start` likelihoods of
/// O(n³) at the capacity of 2 048 points).
pub const MAX_STARTS: usize = 1_000;
/// Most likelihood evaluations per start.
pub const MAX_EVALUATIONS: usize = 100_000;
/// Smallest positive noise, lengthscale or outputscale accepted: hyperparameters are fitted
/// in log space, and below this the kernel or its Cholesky factor underflows even in f64.
pub const MIN_SCALE: f64 = 1e-12;
/// Largest lengthscale, outputscale or noise accepted (a kernel beyond is a constant).
pub const MAX_SCALE: f64 = 1e12;

impl GpSpec {
    /// Checks the settings: lengthscales and outputscale in [[`MIN_SCALE`], [`MAX_SCALE`]],
    /// noise 0 or in that range, a finite mean; the message names the setting and its range.
    pub fn check(&self) -> Result<(), ToolError> {
        let range = |name: &str, v: f64, zero: bool| {
            if (zero && v == 0.0) || (MIN_SCALE..=MAX_SCALE).contains(&v) {
                Ok(())
            } else {
                Err(ToolError::Data(format!(
                    "--{name} {v:?}: must be {}in [{MIN_SCALE:e}, {MAX_SCALE:e}]",
                    if zero { "0 or " } else { "" }
                )))
            }
        };
        if self.lengthscales.is_empty() {
            return Err(ToolError::Data("--lengthscales: none given".into()));
        }
        for &l in &self.lengthscales {
            range("lengthscales", l, false)?;
        }
        range("outputscale", self.outputscale, false)?;
        range("noise", self.noise, true)?;
        if !self.mean.is_finite() {
            return Err(ToolError::Data(format!(
                "--mean {:?}: must be a finite number",
                self.mean
            )));
        }
        Ok(())
    }
}

impl FitOptions {
    /// Checks the options: starts in `1..=`[`MAX_STARTS`], evaluations in
    /// `1..=`[`MAX_EVALUATIONS`].
    pub fn check(&self) -> Result<(), ToolError> {
        if !(1..=MAX_STARTS).contains(&self.starts) {
            return Err(ToolError::Data(format!(
                "--starts {}: must be in 1..={MAX_STARTS} (the first start is the given \
                 hyperparameters)",
                self.starts
            )));
        }
        if !(1..=MAX_EVALUATIONS).contains(&self.evaluations_per_start) {
            return Err(ToolError::Data(format!(
                "--evaluations {}: must be in 1..={MAX_EVALUATIONS}",
                self.evaluations_per_start
            )));
        }
        Ok(())
    }
}

/// Result of a fit, in physical units.
#[derive(Debug, Clone, PartialEq)]
pub struct FitSummary {
    /// Fitted settings.
    pub spec: GpSpec,
    /// Log marginal likelihood at the fitted hyperparameters.
    pub log_marginal_likelihood: f64,
    /// Likelihood evaluations used.
    pub evaluations: usize,
}

/// Errors of the GP tool.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolError {
    /// The data do not fit the command's limits or each other.
    Data(String),
    /// The core rejected the model or data.
    Gp(GpError),
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolError::Data(s) => write!(f, "{s}"),
            ToolError::Gp(e) => write!(f, "GP error: {e}"),
        }
    }
}

impl std::error::Error for ToolError {}

impl From<GpError> for ToolError {
    fn from(e: GpError) -> Self {
        ToolError::Gp(e)
    }
}

/// Splits a training table into the output, the column named `y`, and the inputs, every other
/// column in order.
fn split_train(train: &Table) -> Result<(Vec<Vec<f64>>, Vec<f64>), ToolError> {
    let named_y: Vec<usize> = (0..train.width())
        .filter(|&c| train.header[c] == "y")
        .collect();
    let y = match named_y[..] {
        [y] => y,
        [] => {
            return Err(ToolError::Data(
                "training data have no column `y` (the output; every other column is an input)"
                    .into(),
            ))
        }
        _ => {
            return Err(ToolError::Data(
                "training data have more than one column `y`".into(),
            ))
        }
    };
    if train.width() < 2 {
        return Err(ToolError::Data(
            "training data need at least one input column beside `y`".into(),
        ));
    }
    let xs = train
        .rows
        .iter()
        .map(|r| (0..r.len()).filter(|&c| c != y).map(|c| r[c]).collect())
        .collect();
    let ys = train.rows.iter().map(|r| r[y]).collect();
    Ok((xs, ys))
}

/// A job that runs with the dimension and capacity as compile-time constants.
trait Job: Send + 'static {
    type Output: Send + 'static;
    fn run<R: Real, const N: usize, const D: usize>(self) -> Result<Self::Output, ToolError>;
}

macro_rules! with_dim {
    ($job:expr, $r:ty, $n:literal, $d:expr, [$($k:literal),*]) => {
        match $d {
            $($k => $job.run::<$r, $n, $k>(),)*
            d => Err(ToolError::Data(format!("{d} inputs: at most {MAX_DIM} are supported"))),
        }
    };
}

macro_rules! with_capacity {
    ($job:expr, $r:ty, $n:expr, $d:expr) => {
        match $n {
            0..=32 => with_dim!($job, $r, 32, $d, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]),
            33..=256 => with_dim!($job, $r, 256, $d, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]),
            257..=2048 => with_dim!($job, $r, 2048, $d, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]),
            n => Err(ToolError::Data(format!(
                "{n} training points: at most {MAX_POINTS} are supported"
            ))),
        }
    };
}

/// Runs `job` for `n` points of dimension `d` on a thread whose stack holds the model.
fn dispatch<J: Job>(
    job: J,
    precision: Precision,
    n: usize,
    d: usize,
) -> Result<J::Output, ToolError> {
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || match precision {
            Precision::F32 => with_capacity!(job, f32, n, d),
            Precision::F64 => with_capacity!(job, f64, n, d),
        })
        .expect("spawning the GP thread")
        .join()
        .expect("GP thread panicked")
}

fn kernel<R: Real, const D: usize>(spec: &GpSpec) -> Result<Kernel<R, D>, ToolError> {
    let ls: [R; D] = match spec.lengthscales.len() {
        1 => [R::from_f64(spec.lengthscales[0]); D],
        l if l == D => core::array::from_fn(|i| R::from_f64(spec.lengthscales[i])),
        l => {
            return Err(ToolError::Data(format!(
                "{l} lengthscales given for {D} inputs"
            )))
        }
    };
    Kernel::new(spec.shape, ls, R::from_f64(spec.outputscale))
        .map_err(|e| ToolError::Data(format!("invalid kernel parameters: {e}")))
}

fn point<R: Real, const D: usize>(row: &[f64]) -> [R; D] {
    core::array::from_fn(|i| R::from_f64(row[i]))
}

fn build<R: Real, const N: usize, const D: usize>(
    spec: &GpSpec,
    xs: &[Vec<f64>],
    ys: &[f64],
) -> Result<Gp<R, N, D, Vec<R>>, ToolError> {
    let mut gp = Gp::new(
        kernel::<R, D>(spec)?,
        R::from_f64(spec.mean),
        R::from_f64(spec.noise),
        WhenFull::Reject,
        vec![R::ZERO; tri_len(N)],
    )?;
    for (x, y) in xs.iter().zip(ys) {
        gp.push(&point::<R, D>(x), R::from_f64(*y))?;
    }
    Ok(gp)
}

struct PredictJob {
    spec: GpSpec,
    xs: Vec<Vec<f64>>,
    ys: Vec<f64>,
    test: Vec<Vec<f64>>,
}

impl Job for PredictJob {
    type Output = Vec<(f64, f64)>;
    fn run<R: Real, const N: usize, const D: usize>(self) -> Result<Self::Output, ToolError> {
        let gp = build::<R, N, D>(&self.spec, &self.xs, &self.ys)?;
        self.test
            .iter()
            .map(|t| {
                let p = gp.predict(&point::<R, D>(t))?;
                Ok((p.mean.to_f64(), p.variance.to_f64()))
            })
            .collect()
    }
}

/// Posterior mean and latent variance at each test row.
pub fn predict(
    spec: &GpSpec,
    train: &Table,
    test: &Table,
    precision: Precision,
) -> Result<Vec<(f64, f64)>, ToolError> {
    spec.check()?;
    let (xs, ys) = split_train(train)?;
    let d = xs.first().map_or(train.width() - 1, Vec::len);
    if test.width() != d {
        return Err(ToolError::Data(format!(
            "test data have {} columns, training data {d} inputs",
            test.width()
        )));
    }
    let n = xs.len();
    let job = PredictJob {
        spec: spec.clone(),
        xs,
        ys,
        test: test.rows.clone(),
    };
    let predictions = dispatch(job, precision, n, d)?;
    // Outputs near the edge of the precision's range (|y| of 1e308 in f64, 1e38 in f32)
    // overflow the model's sums: refused, never printed as NaN or infinity.
    if let Some(row) = predictions
        .iter()
        .position(|(m, v)| !m.is_finite() || !v.is_finite())
    {
        return Err(ToolError::Data(format!(
            "the prediction at test row {} is not finite: the outputs are too large for {} \
             arithmetic (rescale `y`)",
            row + 1,
            match precision {
                Precision::F32 => "f32",
                Precision::F64 => "f64",
            }
        )));
    }
    Ok(predictions)
}

struct FitJob {
    spec: GpSpec,
    xs: Vec<Vec<f64>>,
    ys: Vec<f64>,
    options: FitOptions,
}

impl Job for FitJob {
    type Output = FitSummary;
    fn run<R: Real, const N: usize, const D: usize>(self) -> Result<Self::Output, ToolError> {
        let mut gp = build::<R, N, D>(&self.spec, &self.xs, &self.ys)?;
        let lo = self.ys.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = self.ys.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mut config = FitConfig::<R, D>::unit_cube(R::from_f64(lo), R::from_f64(hi));
        config.starts = self.options.starts;
        config.evaluations_per_start = self.options.evaluations_per_start;
        config.seed = self.options.seed;
        let report = gp.fit(&config)?;
        let k = gp.kernel();
        Ok(FitSummary {
            spec: GpSpec {
                shape: k.shape(),
                lengthscales: k.lengthscales().iter().map(|v| v.to_f64()).collect(),
                outputscale: k.outputscale().to_f64(),
                noise: gp.noise().to_f64(),
                mean: gp.prior_mean().to_f64(),
            },
            log_marginal_likelihood: report.log_marginal_likelihood.to_f64(),
            evaluations: report.evaluations,
        })
    }
}

/// Fits the hyperparameters by maximum likelihood, starting from `spec`.
pub fn fit(
    spec: &GpSpec,
    train: &Table,
    precision: Precision,
    options: FitOptions,
) -> Result<FitSummary, ToolError> {
    spec.check()?;
    options.check()?;
    let (xs, ys) = split_train(train)?;
    if xs.is_empty() {
        return Err(ToolError::Data("no training rows".into()));
    }
    let (n, d) = (xs.len(), xs[0].len());
    dispatch(
        FitJob {
            spec: spec.clone(),
            xs,
            ys,
            options,
        },
        precision,
        n,
        d,
    )
}
