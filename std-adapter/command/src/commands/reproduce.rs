//! `costbo reproduce <study>`: a paper's study (any of [`studies::STUDIES`]), its missing jobs
//! run and its report written.

use std::path::PathBuf;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::Args;
use costbo_lab::studies;
use costbo_lab::study::{Request, Study};

use super::{parse_shard, shard_done, worker_threads};

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
pub struct ReproduceArgs {
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
    /// only the cells whose directory (`<env>-t<rounds>[-sigmay<σ>]/<method>`) contains one of
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

/// Most seeds (or trials) of `costbo reproduce --seeds`: the runner's grid limit.
const MAX_REPRODUCE_SEEDS: u64 = 10_000;

/// Runs the study's missing jobs (of the share `--shard` names) and writes its report.
pub fn run(a: ReproduceArgs) -> Result<(), String> {
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
    Ok(())
}
