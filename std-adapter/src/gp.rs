//! The core's Gaussian process with its sizes chosen at run time: prediction and
//! maximum-likelihood fitting on data held in `Vec`s.
//!
//! The core's GP has its capacity `N` and dimension `D` fixed at compile time; this module
//! picks the smallest capacity bucket that holds the training set and the exact dimension,
//! and runs the job on a thread whose stack holds the model.
//!
//! ```
//! use costbo_std::gp::{predict, GpSpec};
//! use costbo_std::Precision;
//! use costbo_core::kernel::Shape;
//!
//! let spec = GpSpec { shape: Shape::Matern52, lengthscales: vec![0.3], outputscale: 1.0,
//!                     noise: 1e-6, mean: 0.0 };
//! let xs = vec![vec![0.1], vec![0.5], vec![0.9]];
//! let ys = vec![0.3, -0.2, 0.4];
//! let p = predict(&spec, &xs, &ys, &[vec![0.5]], Precision::F64)?;
//! assert!((p[0].0 + 0.2).abs() < 1e-4 && p[0].1 < 1e-4); // a training point: its own value
//! # Ok::<(), costbo_std::Error>(())
//! ```

use costbo_core::gp::{FitConfig, Gp, GpError, WhenFull};
use costbo_core::kernel::{Kernel, Shape};
use costbo_core::linalg::tri_len;
use costbo_core::Real;

use crate::{Error, ErrorKind, Precision};

/// Largest input dimension.
pub const MAX_DIM: usize = 16;

/// The input dimensions compiled in: 1 to 12, and 16 (paper 002's box problems).
pub const DIMS: [usize; 13] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 16];
/// Largest training set.
pub const MAX_POINTS: usize = 2048;
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
    /// Number of starts: the given hyperparameters, then random points of the fitting box.
    pub starts: usize,
    /// Likelihood evaluations per start.
    pub evaluations_per_start: usize,
    /// Seed of the random starts.
    pub seed: u64,
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

fn input(message: String) -> Error {
    Error::new(ErrorKind::Input, message)
}

impl GpSpec {
    /// Checks the settings: lengthscales and outputscale in [[`MIN_SCALE`], [`MAX_SCALE`]],
    /// noise 0 or in that range, a finite mean; the message names the setting and its range.
    pub fn check(&self) -> Result<(), Error> {
        let range = |name: &str, v: f64, zero: bool| {
            if (zero && v == 0.0) || (MIN_SCALE..=MAX_SCALE).contains(&v) {
                Ok(())
            } else {
                Err(input(format!(
                    "{name} {v:?}: must be {}in [{MIN_SCALE:e}, {MAX_SCALE:e}]",
                    if zero { "0 or " } else { "" }
                )))
            }
        };
        if self.lengthscales.is_empty() {
            return Err(input("lengthscales: none given".into()));
        }
        for &l in &self.lengthscales {
            range("lengthscales", l, false)?;
        }
        range("outputscale", self.outputscale, false)?;
        range("noise", self.noise, true)?;
        if !self.mean.is_finite() {
            return Err(input(format!(
                "mean {:?}: must be a finite number",
                self.mean
            )));
        }
        Ok(())
    }
}

impl FitOptions {
    /// Checks the options: starts in `1..=`[`MAX_STARTS`], evaluations in
    /// `1..=`[`MAX_EVALUATIONS`].
    pub fn check(&self) -> Result<(), Error> {
        if !(1..=MAX_STARTS).contains(&self.starts) {
            return Err(input(format!(
                "starts {}: must be in 1..={MAX_STARTS} (the first start is the given \
                 hyperparameters)",
                self.starts
            )));
        }
        if !(1..=MAX_EVALUATIONS).contains(&self.evaluations_per_start) {
            return Err(input(format!(
                "evaluations {}: must be in 1..={MAX_EVALUATIONS}",
                self.evaluations_per_start
            )));
        }
        Ok(())
    }
}

/// Checks a data set: `d` values in every row, finite values, at most [`MAX_POINTS`] rows
/// and a dimension of [`DIMS`]. `what` names it in messages.
pub fn check_rows(what: &str, rows: &[Vec<f64>], d: usize) -> Result<(), Error> {
    if !DIMS.contains(&d) {
        return Err(input(format!(
            "{what}: {d} inputs; 1 to 12, or 16, are supported"
        )));
    }
    if rows.len() > MAX_POINTS {
        return Err(input(format!(
            "{what}: {} points; at most {MAX_POINTS} are supported",
            rows.len()
        )));
    }
    for (i, row) in rows.iter().enumerate() {
        if row.len() != d {
            return Err(input(format!(
                "{what}: row {i} has {} values, the others {d}",
                row.len()
            )));
        }
        if let Some(j) = row.iter().position(|v| !v.is_finite()) {
            return Err(input(format!(
                "{what}: row {i}, column {j} is {:?}, not a finite number",
                row[j]
            )));
        }
    }
    Ok(())
}

/// The training set's dimension; `None` for an empty set (a prediction from the prior).
fn check_training(xs: &[Vec<f64>], ys: &[f64]) -> Result<Option<usize>, Error> {
    if xs.len() != ys.len() {
        return Err(input(format!(
            "{} training inputs but {} outputs",
            xs.len(),
            ys.len()
        )));
    }
    let Some(d) = xs.first().map(Vec::len) else {
        return Ok(None);
    };
    check_rows("training inputs", xs, d)?;
    if let Some(i) = ys.iter().position(|v| !v.is_finite()) {
        return Err(input(format!(
            "training outputs: y[{i}] is {:?}, not a finite number",
            ys[i]
        )));
    }
    Ok(Some(d))
}

/// What to compute once the model is built: one job type, so that each (precision,
/// capacity, dimension) is compiled once, not once per kind of job.
enum Task {
    Predict(Vec<Vec<f64>>),
    Fit(FitOptions),
    Likelihood,
}

/// What a [`Task`] computed.
enum Outcome {
    Predicted(Vec<(f64, f64)>),
    Fitted(FitSummary),
    Likelihood(f64),
}

struct Job {
    spec: GpSpec,
    xs: Vec<Vec<f64>>,
    ys: Vec<f64>,
    task: Task,
}

macro_rules! with_dim {
    ($job:expr, $r:ty, $n:literal, $d:expr, [$($k:literal),*]) => {
        match $d {
            $($k => $job.run::<$r, $n, $k>(),)*
            d => Err(input(format!("{d} inputs: 1 to 12, or 16, are supported"))),
        }
    };
}

macro_rules! with_capacity {
    ($job:expr, $r:ty, $n:expr, $d:expr) => {
        match $n {
            0..=256 => with_dim!(
                $job,
                $r,
                256,
                $d,
                [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 16]
            ),
            257..=2048 => with_dim!(
                $job,
                $r,
                2048,
                $d,
                [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 16]
            ),
            n => Err(input(format!(
                "{n} training points: at most {MAX_POINTS} are supported"
            ))),
        }
    };
}

/// Runs `job` for `n` points of dimension `d` on a thread whose stack holds the model.
fn dispatch(job: Job, precision: Precision, n: usize, d: usize) -> Result<Outcome, Error> {
    let thread = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || match precision {
            Precision::F32 => with_capacity!(job, f32, n, d),
            Precision::F64 => with_capacity!(job, f64, n, d),
        })
        .map_err(Error::no_thread)?;
    thread
        .join()
        .unwrap_or_else(|_| Err(Error::new(ErrorKind::Model, "the GP thread stopped")))
}

fn model_error(e: GpError) -> Error {
    Error::new(ErrorKind::Model, format!("GP error: {e}"))
}

fn kernel<R: Real, const D: usize>(spec: &GpSpec) -> Result<Kernel<R, D>, Error> {
    let ls: [R; D] = match spec.lengthscales.len() {
        1 => [R::from_f64(spec.lengthscales[0]); D],
        l if l == D => core::array::from_fn(|i| R::from_f64(spec.lengthscales[i])),
        l => return Err(input(format!("{l} lengthscales given for {D} inputs"))),
    };
    Kernel::new(spec.shape, ls, R::from_f64(spec.outputscale))
        .map_err(|e| input(format!("invalid kernel parameters: {e}")))
}

fn point<R: Real, const D: usize>(row: &[f64]) -> [R; D] {
    core::array::from_fn(|i| R::from_f64(row[i]))
}

fn build<R: Real, const N: usize, const D: usize>(
    spec: &GpSpec,
    xs: &[Vec<f64>],
    ys: &[f64],
) -> Result<Gp<R, N, D, Vec<R>>, Error> {
    let mut gp = Gp::new(
        kernel::<R, D>(spec)?,
        R::from_f64(spec.mean),
        R::from_f64(spec.noise),
        WhenFull::Reject,
        vec![R::ZERO; tri_len(N)],
    )
    .map_err(model_error)?;
    for (x, y) in xs.iter().zip(ys) {
        gp.push(&point::<R, D>(x), R::from_f64(*y))
            .map_err(model_error)?;
    }
    Ok(gp)
}

impl Job {
    fn run<R: Real, const N: usize, const D: usize>(self) -> Result<Outcome, Error> {
        let mut gp = build::<R, N, D>(&self.spec, &self.xs, &self.ys)?;
        match self.task {
            Task::Predict(test) => test
                .iter()
                .map(|t| {
                    let p = gp.predict(&point::<R, D>(t)).map_err(model_error)?;
                    Ok((p.mean.to_f64(), p.variance.to_f64()))
                })
                .collect::<Result<_, _>>()
                .map(Outcome::Predicted),
            Task::Likelihood => Ok(Outcome::Likelihood(gp.log_marginal_likelihood().to_f64())),
            Task::Fit(options) => {
                let lo = self.ys.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = self.ys.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let mut config = FitConfig::<R, D>::unit_cube(R::from_f64(lo), R::from_f64(hi));
                config.starts = options.starts;
                config.evaluations_per_start = options.evaluations_per_start;
                config.seed = options.seed;
                let report = gp.fit(&config).map_err(model_error)?;
                let k = gp.kernel();
                Ok(Outcome::Fitted(FitSummary {
                    spec: GpSpec {
                        shape: k.shape(),
                        lengthscales: k.lengthscales().iter().map(|v| v.to_f64()).collect(),
                        outputscale: k.outputscale().to_f64(),
                        noise: gp.noise().to_f64(),
                        mean: gp.prior_mean().to_f64(),
                    },
                    log_marginal_likelihood: report.log_marginal_likelihood.to_f64(),
                    evaluations: report.evaluations,
                }))
            }
        }
    }
}

/// Posterior mean and latent variance (without the noise) at each test row, given the
/// training inputs `xs` and outputs `ys`.
pub fn predict(
    spec: &GpSpec,
    xs: &[Vec<f64>],
    ys: &[f64],
    test: &[Vec<f64>],
    precision: Precision,
) -> Result<Vec<(f64, f64)>, Error> {
    spec.check()?;
    let d = match (check_training(xs, ys)?, test.first()) {
        (Some(d), _) => d,
        (None, Some(t)) => t.len(),
        (None, None) => return Ok(Vec::new()),
    };
    check_rows("test inputs", test, d)?;
    let job = Job {
        spec: spec.clone(),
        xs: xs.to_vec(),
        ys: ys.to_vec(),
        task: Task::Predict(test.to_vec()),
    };
    let Outcome::Predicted(predictions) = dispatch(job, precision, xs.len(), d)? else {
        unreachable!("a prediction job predicts")
    };
    // Outputs near the edge of the precision's range (|y| of 1e308 in f64, 1e38 in f32)
    // overflow the model's sums: refused, never returned as NaN or infinity.
    if let Some(row) = predictions
        .iter()
        .position(|(m, v)| !m.is_finite() || !v.is_finite())
    {
        return Err(Error::new(
            ErrorKind::Model,
            format!(
                "the prediction at test row {row} is not finite: the outputs are too large \
                 for {} arithmetic (rescale y)",
                precision.name()
            ),
        ));
    }
    Ok(predictions)
}

/// Fits the hyperparameters by maximum likelihood within the unit-cube box
/// ([`FitConfig::unit_cube`]), starting from `spec`.
pub fn fit(
    spec: &GpSpec,
    xs: &[Vec<f64>],
    ys: &[f64],
    precision: Precision,
    options: FitOptions,
) -> Result<FitSummary, Error> {
    spec.check()?;
    options.check()?;
    let d = check_training(xs, ys)?.ok_or_else(|| input("no training points".into()))?;
    // The fit standardises y: a spread whose square overflows leaves it nothing to fit, which
    // the likelihood would report as a kernel matrix it cannot factorise.
    let (lo, hi) = ys
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &y| {
            (lo.min(y), hi.max(y))
        });
    if (hi - lo).abs() > precision.widest_spread() {
        return Err(Error::new(
            ErrorKind::Model,
            format!(
                "the outputs span [{lo:e}, {hi:e}]: their variance is beyond {} arithmetic \
                 (rescale y)",
                precision.name()
            ),
        ));
    }
    let job = Job {
        spec: spec.clone(),
        xs: xs.to_vec(),
        ys: ys.to_vec(),
        task: Task::Fit(options),
    };
    match dispatch(job, precision, xs.len(), d)? {
        Outcome::Fitted(summary) => Ok(summary),
        _ => unreachable!("a fitting job fits"),
    }
}

/// The log marginal likelihood of the training data under `spec`.
pub fn log_marginal_likelihood(
    spec: &GpSpec,
    xs: &[Vec<f64>],
    ys: &[f64],
    precision: Precision,
) -> Result<f64, Error> {
    spec.check()?;
    let d = check_training(xs, ys)?.ok_or_else(|| input("no training points".into()))?;
    let job = Job {
        spec: spec.clone(),
        xs: xs.to_vec(),
        ys: ys.to_vec(),
        task: Task::Likelihood,
    };
    let Outcome::Likelihood(lml) = dispatch(job, precision, xs.len(), d)? else {
        unreachable!("a likelihood job computes the likelihood")
    };
    if !lml.is_finite() {
        return Err(Error::new(
            ErrorKind::Model,
            format!(
                "the log marginal likelihood is not finite in {} arithmetic (rescale y)",
                precision.name()
            ),
        ));
    }
    Ok(lml)
}
