//! `costbo gp predict|fit`: Gaussian-process regression on CSV files.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};
use costbo_core::kernel::Shape;

use super::read;
use costbo::gp_tool::{self, FitOptions, GpSpec, Precision};

#[derive(Subcommand)]
pub enum GpCommand {
    /// Print the posterior mean and latent variance (CSV `mean,variance`) at each test row.
    Predict(PredictArgs),
    /// Fit the hyperparameters by maximum likelihood and print them.
    Fit(FitArgs),
}

#[derive(Clone, Copy, ValueEnum)]
pub enum KernelArg {
    /// Squared exponential.
    Se,
    /// Matérn-5/2.
    Matern52,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum PrecisionArg {
    F32,
    F64,
}

#[derive(Args)]
pub struct ModelArgs {
    /// Training CSV: a header row, input columns, then the output column `y`.
    #[arg(long)]
    train: PathBuf,
    /// Kernel shape.
    #[arg(long, value_enum)]
    kernel: KernelArg,
    /// Lengthscales, one per input or one for all (comma separated).
    #[arg(long, value_delimiter = ',')]
    lengthscales: Option<Vec<f64>>,
    /// Outputscale (kernel variance).
    #[arg(long)]
    outputscale: Option<f64>,
    /// Observation noise variance.
    #[arg(long)]
    noise: Option<f64>,
    /// Constant prior mean.
    #[arg(long, allow_negative_numbers = true)]
    mean: Option<f64>,
    /// Arithmetic precision.
    #[arg(long, value_enum, default_value = "f64")]
    precision: PrecisionArg,
}

#[derive(Args)]
pub struct PredictArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// Test CSV: a header row and the input columns.
    #[arg(long)]
    test: PathBuf,
}

#[derive(Args)]
pub struct FitArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// Number of optimiser starts (the first from the given hyperparameters).
    #[arg(long, default_value_t = 8)]
    starts: usize,
    /// Likelihood evaluations per start.
    #[arg(long, default_value_t = 100)]
    evaluations: usize,
    /// Seed of the random starts.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

impl ModelArgs {
    fn spec(&self, required: bool) -> Result<GpSpec, String> {
        let need = |name: &str| format!("--{name} is required");
        if required
            && (self.lengthscales.is_none() || self.outputscale.is_none() || self.noise.is_none())
        {
            return Err(["lengthscales", "outputscale", "noise"]
                .iter()
                .zip([
                    self.lengthscales.is_none(),
                    self.outputscale.is_none(),
                    self.noise.is_none(),
                ])
                .filter(|(_, missing)| *missing)
                .map(|(n, _)| need(n))
                .collect::<Vec<_>>()
                .join("; "));
        }
        Ok(GpSpec {
            shape: match self.kernel {
                KernelArg::Se => Shape::SquaredExponential,
                KernelArg::Matern52 => Shape::Matern52,
            },
            lengthscales: self.lengthscales.clone().unwrap_or_else(|| vec![0.5]),
            outputscale: self.outputscale.unwrap_or(1.0),
            noise: self.noise.unwrap_or(1e-2),
            mean: self.mean.unwrap_or(0.0),
        })
    }

    fn precision(&self) -> Precision {
        match self.precision {
            PrecisionArg::F32 => Precision::F32,
            PrecisionArg::F64 => Precision::F64,
        }
    }
}

/// Shortest text that reads back as the same value in the working precision.
fn full(v: f64, precision: Precision) -> String {
    match precision {
        Precision::F32 => format!("{:?}", v as f32),
        Precision::F64 => format!("{v:?}"),
    }
}

/// Prints the predictions or the fitted hyperparameters.
pub fn run(c: GpCommand) -> Result<(), String> {
    match c {
        GpCommand::Predict(a) => {
            let spec = a.model.spec(true)?;
            let (train, test) = (read(&a.model.train)?, read(&a.test)?);
            let precision = a.model.precision();
            let out =
                gp_tool::predict(&spec, &train, &test, precision).map_err(|e| e.to_string())?;
            outln!("mean,variance");
            for (m, v) in out {
                outln!("{},{}", full(m, precision), full(v, precision));
            }
        }
        GpCommand::Fit(a) => {
            let mut spec = a.model.spec(false)?;
            let train = read(&a.model.train)?;
            if a.model.mean.is_none() && !train.rows.is_empty() {
                let y = train.width() - 1;
                spec.mean = train.rows.iter().map(|r| r[y]).sum::<f64>() / train.rows.len() as f64;
            }
            let precision = a.model.precision();
            let options = FitOptions {
                starts: a.starts,
                evaluations_per_start: a.evaluations,
                seed: a.seed,
            };
            let s = gp_tool::fit(&spec, &train, precision, options).map_err(|e| e.to_string())?;
            let ls: Vec<String> = s
                .spec
                .lengthscales
                .iter()
                .map(|v| full(*v, precision))
                .collect();
            outln!(
                "kernel,{}",
                match s.spec.shape {
                    Shape::SquaredExponential => "se",
                    Shape::Matern52 => "matern52",
                    Shape::Matern32 => "matern32",
                }
            );
            outln!("lengthscales,{}", ls.join(","));
            outln!("outputscale,{}", full(s.spec.outputscale, precision));
            outln!("noise,{}", full(s.spec.noise, precision));
            outln!("mean,{}", full(s.spec.mean, precision));
            outln!(
                "log_marginal_likelihood,{}",
                full(s.log_marginal_likelihood, precision)
            );
            outln!("evaluations,{}", s.evaluations);
        }
    }
    Ok(())
}
