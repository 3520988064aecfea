//! `costbo run`: an experiment grid from a TOML file, in parallel and resumably.

use std::path::PathBuf;

use clap::Args;

use super::{parse_shard, worker_threads};

#[derive(Args)]
pub struct RunArgs {
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

/// Runs the grid (or the share `--shard` names) and writes its summary.
pub fn run(a: RunArgs) -> Result<(), String> {
    let shard = parse_shard(a.shard.as_deref())?;
    let text =
        costbo_objectives::text_file::read(&a.config, costbo_objectives::text_file::SETTINGS_LIMIT)
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
    Ok(())
}
