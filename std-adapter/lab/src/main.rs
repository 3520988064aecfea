//! The `costbo` command.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand, ValueEnum};
use costbo_core::kernel::Shape;
use costbo_lab::csv_matrix::Table;
use costbo_lab::experiment::{Shard, ShardError};
use costbo_lab::gp_tool::{self, FitOptions, GpSpec, Precision};
use costbo_lab::objectives::{self, Options, CATALOGUE};
use costbo_lab::studies;
use costbo_lab::study::{Request, Study};
use costbo_lab::{errln, outln};

#[derive(Parser)]
#[command(
    name = "costbo",
    version,
    about = "Cost-aware Bayesian optimisation, desktop tools"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The main job: a simulated nutrient-dosing experiment on the plant simulator (ETC-Ada),
    /// with progress, a summary of what was learned, a CSV and a plot.
    Demo(costbo_lab::demo::DemoArgs),
    /// Run an experiment grid from a TOML file (objective × costs × variance × algorithm ×
    /// seed), in parallel and resumably: one CSV per job and a summary.json. With --shard K/N,
    /// only machine K's share of the grid (see `costbo run --help`).
    Run(RunArgs),
    /// Drive a costbo device (firmware, or QEMU) over its link, playing the plant simulator and
    /// checking every decision against the same controller run on the host.
    Device(costbo_lab::device::DeviceArgs),
    /// Reproduce a paper's experiments on the runner and write a report with figures, a
    /// table of final simple regret and a verdict on each headline claim (resumable).
    Reproduce(ReproduceArgs),
    /// Gaussian-process regression on CSV data.
    #[command(subcommand)]
    Gp(GpCommand),
    /// Benchmark objectives on the unit cube (maximised).
    #[command(subcommand)]
    Objective(ObjectiveCommand),
    /// Causal graphs, possibly-optimal policy scopes and environments (paper 004).
    #[command(subcommand)]
    Causal(costbo_lab::causal::cli::CausalCommand),
    /// Paper 002's acquisition values from posterior moments (f64, full precision).
    #[command(subcommand)]
    Acq(AcqCommand),
    /// One run of paper 002's loop over a box (initial Sobol design, then the rule while the
    /// budget lasts); prints a CSV of the rounds.
    Pandora(PandoraArgs),
}

#[derive(Args)]
struct PandoraArgs {
    /// Objective name (see `costbo objective list`), or `external` for a program given by
    /// --command.
    #[arg(long)]
    objective: String,
    /// With `--objective external`: the program (split on whitespace, e.g. "python3
    /// sim.py"), which reads `{"x": [...]}` lines and answers `{"y": v, "cost": c}` lines
    /// (see costbo_lab::objectives::external); --dim is required.
    #[arg(long)]
    command: Option<String>,
    /// With `--objective external`: seconds to wait for each answer before giving up
    /// (default 600; a line on stderr every 30 s of waiting).
    #[arg(long)]
    timeout: Option<f64>,
    /// Input dimension.
    #[arg(long)]
    dim: Option<usize>,
    /// Seed of a random objective (gp-sample).
    #[arg(long)]
    objective_seed: Option<u64>,
    /// The rule (pbgi, pbgi-d, log-ei, log-eipc, log-eicc, gp-ucb, ts-psq, random-search, ...).
    #[arg(long)]
    rule: String,
    /// Budget (rounds under uniform costs).
    #[arg(long)]
    budget: f64,
    /// Costs: uniform, linear (1 + 20·mean(u), known), linear-learned, pest-control (the
    /// plan's price, known), bump (paper 002's 1-D bump cost, known) or external (the
    /// program's reported cost, learned).
    #[arg(long, default_value = "uniform")]
    cost: String,
    /// Model: `fitted` (MAP refits every round) or `fixed:LENGTHSCALE`.
    #[arg(long, default_value = "fitted")]
    model: String,
    /// Seed of the initial design and the rule.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The inner optimiser's pool instead of the paper's 200d raw samples and 10d restarts.
    #[arg(long)]
    fast: bool,
}

#[derive(Subcommand)]
enum AcqCommand {
    /// The Pandora's Box Gittins index: reads columns `mean,std,lambda_cost`, prints `index`.
    Pbgi(AcqArgs),
    /// Log expected improvement: reads columns `mean,std,best`, prints `log_ei`.
    LogEi(AcqArgs),
    /// Max-value entropy search: reads columns `mean,std` and the samples of the maximum
    /// (column `max_value` of --max-values), prints `mes` for each row.
    Mes(MesArgs),
}

#[derive(Args)]
struct MesArgs {
    /// CSV file with columns `mean` and `std` (one point per row).
    #[arg(long)]
    input: PathBuf,
    /// CSV file with a column `max_value`: the samples of the maximum, shared by every point.
    #[arg(long)]
    max_values: PathBuf,
}

#[derive(Args)]
struct AcqArgs {
    /// CSV file with a header row naming the columns.
    #[arg(long)]
    input: PathBuf,
}

#[derive(Subcommand)]
enum ObjectiveCommand {
    /// Print the value (CSV `value`) at each row of a CSV file of unit-cube points.
    Eval(ObjectiveEvalArgs),
    /// List the objectives (CSV `name,dim,dims,optimum,summary`; `dim` is the default).
    List,
}

#[derive(Args)]
struct ObjectiveEvalArgs {
    /// Objective name (see `costbo objective list`).
    #[arg(long)]
    name: String,
    /// Input dimension, for objectives defined in several (default: the listed `dim`).
    #[arg(long)]
    dim: Option<usize>,
    /// Seed of gp-sample (default 0).
    #[arg(long)]
    seed: Option<u64>,
    /// Points CSV: a header row, then one point of the unit cube per row.
    #[arg(long)]
    points: PathBuf,
}

#[derive(Args)]
struct RunArgs {
    /// The settings grid (see std-adapter/configs/quick.toml).
    #[arg(long)]
    config: PathBuf,
    /// Output directory (default: `results/<config file stem>`).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Worker threads (default: available parallelism).
    #[arg(long)]
    jobs: Option<usize>,
    /// Run only share K of N of the grid (1 ≤ K ≤ N), for N machines sharing the output
    /// directory (e.g. a Slurm job array: --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT
    /// with --array=1-N). Job i of the grid's fixed order (cells in grid order, seeds in
    /// order) is shard (i mod N)+1's, so shards never share a job; finished jobs are skipped
    /// as always. A shard writes summary-shard-K-of-N.json (its own jobs); once all have
    /// finished, the command without --shard (or with --no-run) writes the grid's summary.json,
    /// equal to a one-machine run's.
    #[arg(long, value_name = "K/N", allow_hyphen_values = true)]
    shard: Option<String>,
    /// Run no job: write summary.json from the jobs already finished in the output directory
    /// (the merge step after the shards of a grid).
    #[arg(long, conflicts_with = "shard")]
    no_run: bool,
}

/// `--shard K/N`, parsed here rather than by clap so that a bad value is refused with the
/// command's one-line error (`costbo: shard 5/4: ...`) like every other bad input.
fn parse_shard(shard: Option<&str>) -> Result<Shard, String> {
    shard.map_or(Ok(Shard::WHOLE), |s| {
        s.parse().map_err(|e: ShardError| e.to_string())
    })
}

/// What a shard of `costbo reproduce` says when its share is done.
fn shard_done(shard: Shard, start: std::time::Instant) -> String {
    format!(
        "shard {shard} done in {:.1}s; once every shard is done, the same command without \
         --shard writes the report",
        start.elapsed().as_secs_f64()
    )
}

/// The studies as the values of `<STUDY>`, each with its help.
fn study_parser() -> impl TypedValueParser<Value = &'static dyn Study> {
    PossibleValuesParser::new(
        studies::STUDIES
            .iter()
            .map(|s| PossibleValue::new(s.name()).help(s.help())),
    )
    .try_map(|name| studies::find(&name).ok_or("no such study"))
}

#[derive(Args)]
struct ReproduceArgs {
    /// Which paper.
    #[arg(value_parser = study_parser())]
    study: &'static dyn Study,
    /// A small smoke grid (seconds) instead of the paper's.
    #[arg(long)]
    quick: bool,
    /// Output directory of the runner's results; the report goes there too (default: results
    /// under `results/reproduce-<study>[-quick]`, the report in `docs/results/<study>.md`, or in
    /// the output directory with --quick).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Worker threads (default: available parallelism).
    #[arg(long)]
    jobs: Option<usize>,
    /// Seeds of the paper grid (default: the paper's, 10 for ucb-cvs, 5 for unknown-cost, 16 for
    /// pandora; trials for costly-feedback, 50).
    #[arg(long)]
    seeds: Option<u64>,
    /// causal only: rounds per run (default 700 as in the paper, at most the per-arm GP
    /// capacity 704).
    #[arg(long)]
    rounds: Option<usize>,
    /// Only these objectives (comma separated labels, e.g. gp-sample,hartmann3). causal: run
    /// only the cells whose directory (`<env>-t<rounds>[-epsy<σ>]/<method>`) contains one of
    /// these (e.g. a3-,cocabo-f32); the report still covers every finished cell.
    #[arg(long, value_delimiter = ',')]
    objectives: Option<Vec<String>>,
    /// Write the report from the finished jobs without running the missing ones.
    #[arg(long)]
    no_run: bool,
    /// Papers 000 to 003: run only share K of N of the study's grids (1 ≤ K ≤ N), for N machines sharing the
    /// output directory (give --out; e.g. a Slurm job array: --shard
    /// $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT with --array=1-N). Shards never share a
    /// job and write no report; once all have finished, the command without --shard writes the
    /// summaries and the report, as a one-machine run would.
    #[arg(
        long,
        value_name = "K/N",
        conflicts_with = "no_run",
        allow_hyphen_values = true
    )]
    shard: Option<String>,
    /// ucb-cvs and unknown-cost only: seeds a cell needs to enter a verdict (default 2: below
    /// 2 there is no standard error; the report says which was used).
    #[arg(long)]
    min_seeds: Option<usize>,
    /// costly-feedback only: the synthetic kernel's lengthscale (the paper does not give it).
    #[arg(long, allow_negative_numbers = true)]
    lengthscale: Option<f64>,
}

#[derive(Subcommand)]
enum GpCommand {
    /// Print the posterior mean and latent variance (CSV `mean,variance`) at each test row.
    Predict(PredictArgs),
    /// Fit the hyperparameters by maximum likelihood and print them.
    Fit(FitArgs),
}

#[derive(Clone, Copy, ValueEnum)]
enum KernelArg {
    /// Squared exponential.
    Se,
    /// Matérn-5/2.
    Matern52,
}

#[derive(Clone, Copy, ValueEnum)]
enum PrecisionArg {
    F32,
    F64,
}

#[derive(Args)]
struct ModelArgs {
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
struct PredictArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// Test CSV: a header row and the input columns.
    #[arg(long)]
    test: PathBuf,
}

#[derive(Args)]
struct FitArgs {
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

/// The request `costbo reproduce` makes of its study, once its numbers are checked (the study
/// checks the rest).
fn reproduce_request(a: &ReproduceArgs) -> Result<Request, String> {
    if let Some(n) = a.seeds {
        if !(1..=MAX_REPRODUCE_SEEDS).contains(&n) {
            return Err(format!("--seeds {n}: must be in 1..={MAX_REPRODUCE_SEEDS}"));
        }
    }
    if let Some(m) = a.min_seeds {
        if m as u64 > MAX_REPRODUCE_SEEDS {
            return Err(format!(
                "--min-seeds {m}: must be in 0..={MAX_REPRODUCE_SEEDS}"
            ));
        }
    }
    if a.rounds == Some(0) {
        return Err("--rounds 0: must be at least 1".into());
    }
    if let Some(l) = a.lengthscale {
        if !(l.is_finite() && (1e-4..=1e4).contains(&l)) {
            return Err(format!("--lengthscale {l:?}: must be in [1e-4, 1e4]"));
        }
    }
    let shard = match &a.shard {
        Some(s) => Some(parse_shard(Some(s))?),
        None => None,
    };
    let request = Request {
        quick: a.quick,
        out: a.out.clone(),
        jobs: worker_threads(a.jobs)?,
        seeds: a.seeds,
        rounds: a.rounds,
        objectives: a.objectives.clone(),
        run: !a.no_run,
        shard,
        min_seeds: a.min_seeds,
        lengthscale: a.lengthscale,
    };
    studies::check(a.study, &request)?;
    Ok(request)
}

/// Shortest text that reads back as the same value in the working precision.
fn full(v: f64, precision: Precision) -> String {
    match precision {
        Precision::F32 => format!("{:?}", v as f32),
        Precision::F64 => format!("{v:?}"),
    }
}

fn read(path: &Path) -> Result<Table, String> {
    Table::read(path).map_err(|e| format!("{}: {e}", path.display()))
}

fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Command::Demo(a) => {
            costbo_lab::demo::run(&a.options()?)?;
        }
        Command::Run(a) => {
            let shard = parse_shard(a.shard.as_deref())?;
            let text = costbo_objectives::text_file::read(
                &a.config,
                costbo_objectives::text_file::SETTINGS_LIMIT,
            )
            .map_err(|e| format!("{}: {e}", a.config.display()))?;
            let settings = costbo_lab::experiment::Settings::from_toml(&text)
                .map_err(|e| format!("{}: {e}", a.config.display()))?;
            let out = a.out.unwrap_or_else(|| {
                let stem = a
                    .config
                    .file_stem()
                    .map_or("run".into(), |s| s.to_string_lossy());
                PathBuf::from("results").join(stem.as_ref())
            });
            let jobs = worker_threads(a.jobs)?;
            costbo_lab::experiment::ensure_writable(&out)?;
            if a.no_run {
                let summary = costbo_lab::experiment::merge(&settings, &out)?;
                let done = summary.jobs.len();
                let total = settings.cells()?.len() * settings.seed_list().len();
                outln!("{done} of {total} jobs finished (none run)");
                outln!("wrote {}", out.join("summary.json").display());
                return Ok(());
            }
            let options = costbo_lab::experiment::RunOptions {
                out: out.clone(),
                jobs,
                progress: true,
            };
            let start = std::time::Instant::now();
            let report = costbo_lab::experiment::run_shard(&settings, &options, shard)?;
            let share = if shard.is_whole() {
                String::new()
            } else {
                format!(" (shard {shard})")
            };
            outln!(
                "{} jobs{share}: {} run, {} skipped (already done), {} failed, in {:.1}s",
                report.total,
                report.ran,
                report.skipped,
                report.failed.len(),
                start.elapsed().as_secs_f64()
            );
            for c in &report.summary.cells {
                match (c.mean_simple_regret, c.stderr_simple_regret) {
                    (Some(m), Some(s)) => outln!(
                        "  {:<50} simple regret {m:.4} ± {s:.4} ({} seeds)",
                        c.cell,
                        c.seeds
                    ),
                    _ if c.seeds == 0 => outln!("  {:<50} no finished job", c.cell),
                    _ => outln!("  {:<50} no rounds played", c.cell),
                }
            }
            outln!(
                "wrote {}",
                costbo_lab::experiment::summary_path(&out, shard).display()
            );
            if !report.failed.is_empty() {
                return Err(report.failed.join("\n"));
            }
        }
        Command::Device(a) => {
            costbo_lab::device::run(&a.options()?)?;
        }
        Command::Reproduce(a) => {
            let request = reproduce_request(&a)?;
            let start = std::time::Instant::now();
            let outcome = a.study.reproduce(&request)?;
            if !request.share().is_whole() {
                outln!("{}", shard_done(request.share(), start));
            }
            for v in &outcome.verdicts {
                outln!("{v}");
            }
            for f in &outcome.written {
                outln!("wrote {}", f.display());
            }
            outln!("in {:.1}s", start.elapsed().as_secs_f64());
            if !outcome.failed.is_empty() {
                return Err(outcome.failed.join("\n"));
            }
        }
        Command::Gp(GpCommand::Predict(a)) => {
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
        Command::Gp(GpCommand::Fit(a)) => {
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
        Command::Objective(ObjectiveCommand::Eval(a)) => {
            let options = Options {
                dim: a.dim,
                seed: a.seed,
            };
            let f = objectives::build(&a.name, &options).map_err(|e| e.to_string())?;
            let points = read(&a.points)?;
            if points.width() != f.dim() {
                return Err(format!(
                    "{}: {} columns, but {} takes {} inputs",
                    a.points.display(),
                    points.width(),
                    a.name,
                    f.dim()
                ));
            }
            let values = objectives::eval_rows(f.as_ref(), &points.rows)
                .map_err(|e| format!("{}: {e}", a.points.display()))?;
            outln!("value");
            for v in values {
                outln!("{v:?}");
            }
        }
        Command::Acq(AcqCommand::Mes(a)) => {
            let table = read(&a.input)?;
            let samples = read(&a.max_values)?;
            let values = costbo_lab::acq_tool::mes(&table, &samples).map_err(|e| {
                format!("{} with {}: {e}", a.input.display(), a.max_values.display())
            })?;
            outln!("mes");
            for v in values {
                outln!("{v:?}");
            }
        }
        Command::Acq(c) => {
            let (a, column) = match &c {
                AcqCommand::Pbgi(a) => (a, "index"),
                AcqCommand::LogEi(a) => (a, "log_ei"),
                AcqCommand::Mes(_) => return Ok(()),
            };
            let table = read(&a.input)?;
            let values = match c {
                AcqCommand::Pbgi(_) => costbo_lab::acq_tool::pbgi(&table),
                AcqCommand::LogEi(_) => costbo_lab::acq_tool::log_ei(&table),
                AcqCommand::Mes(_) => return Ok(()),
            }
            .map_err(|e| format!("{}: {e}", a.input.display()))?;
            outln!("{column}");
            for v in values {
                outln!("{v:?}");
            }
        }
        Command::Pandora(a) => {
            use costbo_lab::pandora::{run_box_watched, BoxCost, BoxModel, BoxRun};
            // Before anything is built or spawned (an external objective is a process).
            if !(a.budget > 0.0 && a.budget <= MAX_PANDORA_BUDGET) {
                return Err(format!(
                    "--budget {:?}: must be in (0, {MAX_PANDORA_BUDGET}] (the run's GP holds at \
                     most {MAX_PANDORA_BUDGET} observations)",
                    a.budget
                ));
            }
            let options = Options {
                dim: a.dim,
                seed: a.objective_seed,
            };
            let f: Box<dyn objectives::Objective> = match (a.objective.as_str(), &a.command) {
                ("external", Some(command)) => {
                    let Some(d) = a.dim else {
                        return Err("--objective external needs --dim".into());
                    };
                    let timeout = match a.timeout {
                        None => objectives::external::DEFAULT_TIMEOUT,
                        Some(t) if t.is_finite() && t > 0.0 && t <= MAX_EXTERNAL_TIMEOUT => {
                            std::time::Duration::from_secs_f64(t)
                        }
                        Some(t) => {
                            return Err(format!(
                                "--timeout {t:?}: must be in (0, {MAX_EXTERNAL_TIMEOUT}] seconds"
                            ))
                        }
                    };
                    Box::new(
                        objectives::external::External::spawn(command, d)
                            .map_err(|e| e.to_string())?
                            .with_timeout(timeout),
                    )
                }
                (_, None) if a.timeout.is_some() => {
                    return Err("--timeout applies only to --objective external".into())
                }
                ("external", None) => return Err("--objective external needs --command".into()),
                (_, Some(_)) => return Err("--command applies only to --objective external".into()),
                (name, None) => objectives::build(name, &options).map_err(|e| e.to_string())?,
            };
            let model = match a.model.as_str() {
                "fitted" => BoxModel::Fitted,
                m => match m.strip_prefix("fixed:").map(str::parse::<f64>) {
                    Some(Ok(l)) if l.is_finite() && l > 0.0 => BoxModel::Fixed { lengthscale: l },
                    _ => {
                        return Err(format!(
                            "model `{m}`: expected fitted or fixed:LENGTHSCALE > 0"
                        ))
                    }
                },
            };
            let run = BoxRun {
                rule: a.rule,
                seed: a.seed,
                budget: a.budget,
                cost: BoxCost::parse(&a.cost)?,
                model,
                paper_optimiser: !a.fast,
            };
            // Each round is printed as it ends, so the rounds before a failure (an external
            // program that crashes) are kept.
            outln!("round,spent,y,best,regret,decide_seconds");
            // An objective whose optimum is unknown (an external program) has an empty regret
            // cell, not NaN.
            let optimum = f.optimum();
            let warned = std::sync::atomic::AtomicBool::new(false);
            let print = |i: usize, r: &costbo_lab::pandora::BoxRound| {
                // Costs far below the budget (a program reporting 1e-300) would need more
                // rounds than the model holds: said once, early, rather than discovered when
                // the model fills minutes later.
                let needed = a.budget / (r.spent / i as f64);
                if needed > MAX_PANDORA_BUDGET
                    && !warned.swap(true, std::sync::atomic::Ordering::Relaxed)
                {
                    let rounds = if needed.is_finite() {
                        format!("about {} rounds", csv_number(needed.round()))
                    } else {
                        "more rounds than an f64 counts".into()
                    };
                    errln!(
                        "costbo: warning: at the mean cost so far ({}) the budget {} lasts \
                         {rounds}; the run ends when the model is full ({MAX_PANDORA_BUDGET} \
                         observations)",
                        csv_number(r.spent / i as f64),
                        a.budget,
                    );
                }
                let regret = if optimum.is_finite() {
                    csv_number(optimum - r.best)
                } else {
                    String::new()
                };
                outln!(
                    "{},{},{},{},{},{:.6}",
                    i,
                    csv_number(r.spent),
                    csv_number(r.y),
                    csv_number(r.best),
                    regret,
                    r.decide_seconds
                );
            };
            let trace = run_box_watched(f.as_ref(), &run, None, Some(&print))?;
            let spent = trace.rounds.last().map_or(0.0, |r| r.spent);
            if trace.model_full && spent < a.budget {
                errln!(
                    "costbo: stopped after {} rounds with {spent} of the budget {} spent: the \
                     model holds at most {MAX_PANDORA_BUDGET} observations",
                    trace.rounds.len(),
                    a.budget
                );
            }
        }
        Command::Causal(c) => costbo_lab::causal::cli::run(c)?,
        Command::Objective(ObjectiveCommand::List) => {
            outln!("name,dim,dims,optimum,summary");
            for e in CATALOGUE {
                let f =
                    objectives::build(e.name, &Options::default()).map_err(|e| e.to_string())?;
                outln!(
                    "{},{},{},{:?},\"{}\"",
                    e.name,
                    e.default_dim,
                    e.dims,
                    f.optimum(),
                    e.summary
                );
            }
        }
    }
    Ok(())
}

/// A number for a CSV cell: Rust's shortest round-trip text, in exponent form where the plain
/// form would run to dozens of digits (a cost of 5e-324 summed, a value of 1e300).
fn csv_number(v: f64) -> String {
    if v == 0.0 || (1e-5..1e16).contains(&v.abs()) {
        v.to_string()
    } else {
        format!("{v:e}")
    }
}

/// Worker threads: the given number (1 to [`MAX_THREADS`]) or the machine's parallelism.
fn worker_threads(jobs: Option<usize>) -> Result<usize, String> {
    match jobs {
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
        Some(j) if (1..=MAX_THREADS).contains(&j) => Ok(j),
        Some(j) => Err(format!(
            "--jobs {j}: must be in 1..={MAX_THREADS} (each worker reserves a {} MiB stack)",
            costbo_lab::experiment::JOB_STACK >> 20
        )),
    }
}

/// Longest `costbo pandora --timeout` for an external program's answer: a day.
const MAX_EXTERNAL_TIMEOUT: f64 = 86_400.0;
/// Most worker threads (`--jobs`).
const MAX_THREADS: usize = 1024;
/// Most seeds (or trials) of `costbo reproduce --seeds`: the runner's grid limit.
const MAX_REPRODUCE_SEEDS: u64 = 10_000;
/// Largest `costbo pandora --budget`: the run's GP holds at most 1 024 observations, so at
/// costs of at least 1 (uniform, linear) no more rounds fit.
const MAX_PANDORA_BUDGET: f64 = costbo_lab::pandora::run::CAPACITY as f64;

fn main() -> ExitCode {
    costbo_eval::cli::finish("costbo", run(costbo_eval::cli::parse("costbo")))
}
