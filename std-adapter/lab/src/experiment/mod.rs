//! The experiment runner (`costbo run --config FILE.toml`): a grid of settings (objective ×
//! costs × variance × algorithm × seed) read from TOML, run in parallel, reproducible from the
//! seeds and resumable.
//!
//! Layout of the output directory:
//!
//! ```text
//! OUT/<cell>/<seed>.csv   one row per round (written atomically and synced; finished if it
//!                         passes read_job's checks, else re-run)
//! OUT/<cell>/<seed>.time  wall and CPU seconds, and the CSV's length and hash (written first)
//! OUT/<cell>/cell.txt     the cell's settings (a rerun with other settings is refused)
//! OUT/best/<key>.json     best expected value of each control set (the regret reference)
//! OUT/summary.json        final simple regret per job, mean ± standard error per cell
//! OUT/summary-shard-K-of-N.json   the same over shard K's jobs only (`--shard K/N`)
//! ```
//!
//! Regret is measured honestly: the expected value of each decision (its control set and
//! values, averaged over the uncontrolled variables) is computed with an independent bank of
//! [`Settings::judge`] scrambled Sobol points (or i.i.d. draws, [`Settings::judge_points`]),
//! seeded from the (objective, sets, variance) only, never the algorithm's bank. The best
//! expected value of every control set is found once per (objective, sets, variance) by
//! maximising the same bank average with the core's inner
//! optimiser, and cached under `OUT/best/`. Simple regret after round `t` is
//! `max_i best_i − max_{s ≤ t} E_s`; cumulative regret sums `max_i best_i − E_s`; cost-weighted
//! regret sums `c_s · (max_i best_i − E_s)`.
//!
//! Each job is deterministic in its seed: the initial points, the uncontrolled draws, the noise
//! and the controller's bank all derive from it, so every algorithm of a cell row sees the same
//! initial design. Re-running with the same output directory skips the jobs whose CSV is
//! finished ([`read_job`]) and re-runs those whose CSV is missing or damaged (a power cut, a
//! `kill -9`). Runs need no lock on the directory: every file is written whole by a rename and
//! every job's files are deterministic, so two runs (or shards) at once write the same bytes.
//!
//! A grid can be spread over machines that share the output directory: [`run_shard`] with
//! [`Shard`] K/N runs only the jobs at positions `i` with `i mod N = K − 1` of the grid's stable
//! job order ([`job_position`]), and [`merge`] then writes `summary.json` from every finished
//! job, identical to a run on one machine (jobs depend on their seed only, never on which
//! machine or thread ran them).

pub mod config;
pub mod shard;
pub mod simulate;

use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;

pub(crate) use costbo_eval::files::thread_cpu_seconds;
pub use costbo_eval::files::{ensure_writable, write_atomic, write_atomic_with};
pub use costbo_eval::{curves, judge};

pub use config::{
    file_rule_name, parse_algorithm, split_model, Algorithm, Cell, CostSpec, JudgePoints, Model,
    ObjectiveSpec, PriorMean, Seeds, Settings, DEFAULT_REFIT_EVERY, FITTED_SUFFIX, PAPER_001_ALPHA,
};
use costbo_core::policy::unknown_cost::within_tolerance;
use judge::{Expected, Judge};
pub use shard::{Shard, ShardError};
use simulate::{JobInput, Round};

use crate::objectives::{self, Objective, Options};

/// Relative tolerance under which a control set counts as optimal: its best expected value is
/// at least `optimum − OPTIMAL_TOLERANCE · max(1, |optimum|)`. The best values come from a
/// numerical maximisation, so two sets with the same true optimum differ by optimiser error.
pub const OPTIMAL_TOLERANCE: f64 = 1e-3;

/// Stack of each job's thread: the controller holds capacity-sized arrays inline.
pub const JOB_STACK: usize = 256 << 20;

/// Options of a run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Output directory.
    pub out: PathBuf,
    /// Worker threads (at least 1).
    pub jobs: usize,
    /// Print a progress line (to stdout).
    pub progress: bool,
}

/// Shared progress counters.
#[derive(Debug, Default)]
pub struct Progress {
    rounds: AtomicUsize,
    jobs_done: AtomicUsize,
    // Work done in millionths of a job (a job's work is the budget fraction it spent).
    work: AtomicU64,
}

impl Progress {
    fn round(&self, budget_fraction: f64) {
        self.rounds.fetch_add(1, Ordering::Relaxed);
        self.work
            .fetch_add((budget_fraction * 1e6) as u64, Ordering::Relaxed);
    }
}

/// What a run did.
#[derive(Debug, Clone)]
pub struct RunReport {
    /// Jobs in the grid (in the shard's share, for a shard).
    pub total: usize,
    /// Jobs run now.
    pub ran: usize,
    /// Jobs skipped because their CSV already existed.
    pub skipped: usize,
    /// Jobs that failed, with the reason.
    pub failed: Vec<String>,
    /// The summary written to `summary.json`.
    pub summary: Summary,
}

/// Final numbers of one job.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct JobSummary {
    /// Cell name.
    pub cell: String,
    /// Seed.
    pub seed: u64,
    /// Rounds played.
    pub rounds: usize,
    /// Budget spent.
    pub spent: f64,
    /// Simple regret at the end (`None` if no round was played).
    pub final_simple_regret: Option<f64>,
    /// Cumulative regret at the end.
    pub cumulative_regret: Option<f64>,
    /// Cost-weighted regret at the end.
    pub cost_weighted_regret: Option<f64>,
    /// Paper 001's quality regret at the end, `Σₜ (OPT − α·|OPT| − E f(xₜ))` with
    /// α = [`PAPER_001_ALPHA`] (not clipped: a round may lower it).
    pub quality_regret: Option<f64>,
    /// Paper 001's cost regret at the end, `Σₜ max(c(iₜ) − c(i*), 0)` with mean costs and `i*`
    /// the cheapest set whose best expected value reaches `OPT − α·|OPT|`.
    pub cost_regret: Option<f64>,
}

/// How far below a reference value `opt` a set's best value may lie and still count as reaching
/// it: [`OPTIMAL_TOLERANCE`] relative, absolute below 1.
fn optimiser_error(opt: f64) -> f64 {
    OPTIMAL_TOLERANCE * opt.abs().max(1.0)
}

/// Paper 001's quality target `OPT − α·|OPT|` and the mean cost of the cheapest set whose best
/// expected value reaches it (`best_per_set` within [`OPTIMAL_TOLERANCE`], as the optimal sets).
pub fn paper_001_targets(best_per_set: &[f64], costs: &[f64]) -> Option<(f64, f64)> {
    let opt = best_per_set
        .iter()
        .copied()
        .fold(f64::NEG_INFINITY, f64::max);
    if !opt.is_finite() || best_per_set.len() != costs.len() {
        return None;
    }
    // The rule's own threshold: (1 − α)·OPT for OPT ≥ 0, below OPT when it is negative.
    let target = within_tolerance(opt, PAPER_001_ALPHA);
    let cheapest = best_per_set
        .iter()
        .zip(costs)
        .filter(|(b, _)| **b >= target - optimiser_error(opt))
        .map(|(_, c)| *c)
        .fold(f64::INFINITY, f64::min);
    Some((target, cheapest))
}

/// Final simple regret of a cell over its seeds.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CellSummary {
    /// Cell name.
    pub cell: String,
    /// Objective label.
    pub objective: String,
    /// Cost setting.
    pub costs: String,
    /// Truncated variance.
    pub variance: f64,
    /// Algorithm.
    pub algorithm: String,
    /// Budget.
    pub budget: f64,
    /// Best expected value over all control sets (the regret reference).
    pub optimum: f64,
    /// Best expected value of each control set (independent bank), in set order.
    pub best_per_set: Vec<f64>,
    /// 0-based indices of the optimal control sets: those whose best expected value is within
    /// [`OPTIMAL_TOLERANCE`] of the optimum (paper 001's extended functions have two).
    pub optimal_sets: Vec<usize>,
    /// Seeds finished.
    pub seeds: usize,
    /// Mean final simple regret.
    pub mean_simple_regret: Option<f64>,
    /// Standard error of the mean (0 with one seed).
    pub stderr_simple_regret: Option<f64>,
    /// Mean and standard error over the seeds of paper 001's quality regret at the end.
    pub quality_regret: Option<(f64, f64)>,
    /// Mean and standard error over the seeds of paper 001's cost regret at the end.
    pub cost_regret: Option<(f64, f64)>,
}

/// The content of `summary.json`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Summary {
    /// Every finished job, in grid order.
    pub jobs: Vec<JobSummary>,
    /// Every cell, in grid order.
    pub cells: Vec<CellSummary>,
}

/// A problem of the grid, prepared: objective, sets, and per variance the judge and the best
/// values.
struct Prepared {
    objective: Arc<dyn Objective>,
    sets: Vec<costbo_core::problem::ControlSet>,
    per_variance: Vec<(f64, Box<dyn Expected>, Vec<f64>)>,
}

macro_rules! with_dim {
    ($d:expr, $body:ident, [$($k:literal),*]) => {
        match $d {
            $($k => $body!($k),)*
            d => Err(format!("{d} variables: the runner supports d in {{3, 5, 6, 12}}")),
        }
    };
}

/// The capacity bucket for at most `rounds` observations (beyond 1024 the oldest are dropped).
fn capacity(rounds: f64) -> usize {
    if rounds <= 128.0 {
        128
    } else if rounds <= 512.0 {
        512
    } else {
        1024
    }
}

fn run_job(input: &JobInput<'_>, progress: &Progress) -> Result<Vec<Round>, String> {
    let min_cost = input.costs.iter().copied().fold(f64::INFINITY, f64::min);
    let rounds = (input.budget / min_cost.max(1e-3))
        .min(input.max_rounds.map_or(f64::INFINITY, |r| r as f64));
    simulate::run(input, capacity(rounds + input.initial as f64), progress)
}

fn prepare(settings: &Settings, out: &Path) -> Result<Vec<Prepared>, String> {
    let mut prepared = Vec::new();
    for o in &settings.objectives {
        let f: Arc<dyn Objective> = Arc::from(
            objectives::build(
                &o.name,
                &Options {
                    dim: o.dim,
                    seed: o.seed,
                },
            )
            .map_err(|e| e.to_string())?,
        );
        let d = f.dim();
        let sets = o.control_sets(d)?;
        let mut per_variance = Vec::new();
        for &v in &settings.variances {
            // The i.i.d. key is the one from before Sobol judges, so its caches stay valid.
            let kind = match settings.judge_points {
                JudgePoints::Iid => "",
                JudgePoints::Sobol => "sobol-",
            };
            let key = format!(
                "{}|sets={:?}|variance={v:?}|judge={kind}{}",
                o.label(),
                o.sets,
                settings.judge
            );
            let cache = out.join("best").join(cache_name(&o.label(), v, &key));
            macro_rules! go {
                ($k:literal) => {{
                    let judge = match settings.judge_points {
                        JudgePoints::Iid => Judge::<$k>::iid(v, settings.judge, &key)?,
                        JudgePoints::Sobol => Judge::<$k>::sobol(v, settings.judge, &key)?,
                    };
                    let best = judge::best_values(f.as_ref(), &judge, &sets, &key, &cache)?;
                    Ok::<_, String>((Box::new(judge) as Box<dyn Expected>, best))
                }};
            }
            let (judge, best) = with_dim!(d, go, [3, 5, 6, 12])?;
            per_variance.push((v, judge, best));
        }
        prepared.push(Prepared {
            objective: f,
            sets,
            per_variance,
        });
    }
    Ok(prepared)
}

/// The file name of a cached best-values file: the objective's label, the variance and the
/// hash of the full key. The variance is written as its shortest decimal when that is short
/// (the names of every cache written before, kept so those caches stay valid), otherwise as
/// the hex of its bits (`vx3f…`): a name of bounded length that no two variances share.
fn cache_name(label: &str, variance: f64, key: &str) -> String {
    let decimal = format!("{variance}");
    let v = if decimal.len() <= 16 {
        decimal
    } else {
        format!("x{:016x}", variance.to_bits())
    };
    format!("{label}_v{v}_{:016x}.json", judge::fnv(key))
}

/// The CSV text of one run over `d` variables.
pub fn csv(rounds: &[Round], d: usize) -> String {
    let mut s = String::from("round,spent,cost,set,control,");
    for l in 1..=d {
        let _ = write!(s, "u{l},");
    }
    s.push_str("y,expected,simple_regret,cumulative_regret,cost_weighted_regret\n");
    for r in rounds {
        let control: Vec<String> = (0..d)
            .filter(|&l| r.control.contains(l))
            .map(|l| (l + 1).to_string())
            .collect();
        let _ = write!(
            s,
            "{},{:?},{:?},{},{},",
            r.round,
            r.spent,
            r.cost,
            r.set,
            control.join("+")
        );
        for v in &r.values {
            if let Some(v) = v {
                let _ = write!(s, "{v:?}");
            }
            s.push(',');
        }
        let _ = writeln!(
            s,
            "{:?},{:?},{:?},{:?},{:?}",
            r.y, r.expected, r.simple_regret, r.cumulative_regret, r.cost_weighted_regret
        );
    }
    s
}

/// The job summary of a finished CSV; `targets` are [`paper_001_targets`] and `costs` the
/// cell's mean costs.
fn job_summary(
    cell: &str,
    seed: u64,
    text: &str,
    targets: Option<(f64, f64)>,
    costs: &[f64],
) -> Result<JobSummary, String> {
    let csv = curves::JobCsv::new(text)?;
    let (spent, simple, cumulative, weighted) = (
        csv.column("spent")?,
        csv.column("simple_regret")?,
        csv.column("cumulative_regret")?,
        csv.column("cost_weighted_regret")?,
    );
    let mut summary = JobSummary {
        cell: cell.to_string(),
        seed,
        rounds: csv.rows(),
        spent: 0.0,
        final_simple_regret: None,
        cumulative_regret: None,
        cost_weighted_regret: None,
        quality_regret: None,
        cost_regret: None,
    };
    if let Some(last) = csv.rows().checked_sub(1) {
        summary.spent = csv.value(last, spent)?;
        summary.final_simple_regret = Some(csv.value(last, simple)?);
        summary.cumulative_regret = Some(csv.value(last, cumulative)?);
        summary.cost_weighted_regret = Some(csv.value(last, weighted)?);
        if let Some((target, cheapest)) = targets {
            let (set, expected) = (csv.column("set")?, csv.column("expected")?);
            let (mut quality, mut cost) = (0.0, 0.0);
            for r in 0..csv.rows() {
                let i: usize = csv.value(r, set)?;
                let c = costs.get(i).ok_or_else(|| format!("row {r}: no set {i}"))?;
                quality += target - csv.value::<f64>(r, expected)?;
                cost += (c - cheapest).max(0.0);
            }
            summary.quality_regret = Some(quality);
            summary.cost_regret = Some(cost);
        }
    }
    Ok(summary)
}

/// `OUT/<cell>/<seed>.csv`: a finished job's rounds.
pub fn job_path(out: &Path, cell: &Cell, seed: u64) -> PathBuf {
    out.join(&cell.name).join(format!("{seed}.csv"))
}

/// `OUT/<cell>/<seed>.time`: how long the job took.
fn time_path(out: &Path, cell: &Cell, seed: u64) -> PathBuf {
    out.join(&cell.name).join(format!("{seed}.time"))
}

/// Key of the time file's line holding the length of the job's CSV in bytes.
const CSV_BYTES: &str = "csv_bytes";
/// Key of the time file's line holding the FNV-1a hash of the job's CSV, in hex.
const CSV_HASH: &str = "csv_fnv1a";

/// The completion record of a job's CSV, appended to its time file: its length and hash.
fn job_record(csv: &str) -> String {
    format!(
        "{CSV_BYTES} = {}\n{CSV_HASH} = {:016x}\n",
        csv.len(),
        judge::fnv(csv)
    )
}

/// What the job files on disk say about one job.
#[derive(Debug, Clone, PartialEq)]
pub enum JobFile {
    /// No CSV: the job has not finished.
    Missing,
    /// A complete CSV (its text).
    Finished(String),
    /// A CSV that is not a finished job's (empty, cut short, damaged, or not the one its
    /// record describes): the job must run again. The reason, in words.
    Damaged(String),
}

/// Reads and checks the CSV of job `seed` of `cell` over `d` variables.
///
/// A CSV counts as finished only if it is what the runner writes: UTF-8, the header of `d`
/// variables, every line whole (ending in a newline) with one field per column, rounds
/// numbered 1, 2, … and finite numbers. A job written by this version also leaves a record of
/// its CSV's length and hash in its time file (written before the CSV), and the CSV must match
/// it; that catches a file cut at a line boundary too. A CSV without a record (written by an
/// earlier version) must hold at least one round: a header alone is what a cut leaves.
pub fn read_job(out: &Path, cell: &Cell, seed: u64, d: usize) -> JobFile {
    let path = job_path(out, cell, seed);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return JobFile::Missing,
        Err(e) => return JobFile::Damaged(format!("unreadable ({e})")),
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return JobFile::Damaged("not UTF-8 text".into());
    };
    if let Err(why) = check_job_csv(&text, d) {
        return JobFile::Damaged(why);
    }
    let record = std::fs::read(time_path(out, cell, seed)).ok();
    let recorded = record.as_deref().and_then(|r| {
        let r = std::str::from_utf8(r).ok()?;
        let value = |key: &str| {
            r.lines()
                .filter_map(|l| l.split_once('='))
                .find(|(k, _)| k.trim() == key)
                .map(|(_, v)| v.trim().to_string())
        };
        Some((value(CSV_BYTES)?, value(CSV_HASH)?))
    });
    match recorded {
        Some((bytes, hash))
            if bytes != text.len().to_string() || hash != format!("{:016x}", judge::fnv(&text)) =>
        {
            return JobFile::Damaged(format!(
                "{} bytes that differ from the {bytes} bytes recorded in its time file (cut \
                 short or damaged)",
                text.len()
            ));
        }
        Some(_) => {}
        None if text.lines().nth(1).is_none() => {
            return JobFile::Damaged("a header without rounds and no record of completion".into());
        }
        None => {}
    }
    JobFile::Finished(text)
}

/// Checks the shape of a job CSV over `d` variables (see [`read_job`]).
fn check_job_csv(text: &str, d: usize) -> Result<(), String> {
    if text.is_empty() {
        return Err("empty".into());
    }
    if !text.ends_with('\n') {
        return Err("its last line is cut short".into());
    }
    let header = csv(&[], d);
    let mut lines = text.lines();
    if lines.next() != header.lines().next() {
        return Err(format!("not the header of a job over {d} variables"));
    }
    let columns = header.trim_end().split(',').count();
    for (i, line) in lines.enumerate() {
        let fields: Vec<&str> = line.split(',').collect();
        let whole = fields.len() == columns
            && fields[0].parse::<usize>().ok() == Some(i + 1)
            && fields[3].parse::<usize>().is_ok()
            && [1, 2]
                .into_iter()
                .chain(columns - 5..columns)
                .all(|c| fields[c].parse::<f64>().is_ok_and(f64::is_finite));
        if !whole {
            return Err(format!("round {} is not a whole row", i + 1));
        }
    }
    Ok(())
}

/// How long one job took: wall-clock seconds and, where the platform tells (Linux), the CPU
/// seconds of its thread (less than the wall time when the machine is shared).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JobTime {
    /// Wall-clock seconds from start to finish.
    pub wall_seconds: f64,
    /// CPU seconds of the job's thread.
    pub cpu_seconds: Option<f64>,
}

impl JobTime {
    /// `wall_seconds = W` and `cpu_seconds = C` lines.
    pub fn to_text(&self) -> String {
        let mut s = format!("wall_seconds = {:?}\n", self.wall_seconds);
        if let Some(c) = self.cpu_seconds {
            let _ = writeln!(s, "cpu_seconds = {c:?}");
        }
        s
    }

    /// Parses [`JobTime::to_text`]'s output.
    pub fn parse(text: &str) -> Option<JobTime> {
        let mut t = JobTime {
            wall_seconds: f64::NAN,
            cpu_seconds: None,
        };
        for line in text.lines() {
            let (k, v) = line.split_once('=')?;
            if matches!(k.trim(), CSV_BYTES | CSV_HASH) {
                continue;
            }
            let v: f64 = v.trim().parse().ok()?;
            match k.trim() {
                "wall_seconds" => t.wall_seconds = v,
                "cpu_seconds" => t.cpu_seconds = Some(v),
                _ => return None,
            }
        }
        t.wall_seconds.is_finite().then_some(t)
    }

    /// The time of a finished job of `cell` (`None` if it was not recorded).
    pub fn read(out: &Path, cell: &Cell, seed: u64) -> Option<JobTime> {
        JobTime::parse(&std::fs::read_to_string(time_path(out, cell, seed)).ok()?)
    }

    /// When a finished job of `cell` ended, in seconds since the Unix epoch: the modification
    /// time of its time file, written once as the job ends (`None` where the file system does
    /// not tell).
    pub fn finished_at(out: &Path, cell: &Cell, seed: u64) -> Option<f64> {
        let modified = std::fs::metadata(time_path(out, cell, seed))
            .ok()?
            .modified()
            .ok()?;
        Some(
            modified
                .duration_since(std::time::UNIX_EPOCH)
                .ok()?
                .as_secs_f64(),
        )
    }
}

/// The summary of the finished jobs of `shard`'s share ([`Shard::WHOLE`]: every finished job).
fn summarise(
    settings: &Settings,
    cells: &[Cell],
    prepared: &[Prepared],
    out: &Path,
    shard: Shard,
) -> Result<Summary, String> {
    let mut jobs = Vec::new();
    let mut cell_summaries = Vec::new();
    let seeds = settings.seed_list();
    for (ci, cell) in cells.iter().enumerate() {
        let per_set: Vec<f64> = prepared[cell.objective]
            .per_variance
            .iter()
            .find(|(v, _, _)| *v == cell.variance)
            .map_or(Vec::new(), |(_, _, b)| b.clone());
        let targets = paper_001_targets(&per_set, &cell.costs);
        let first = jobs.len();
        for (si, &seed) in seeds.iter().enumerate() {
            if !shard.owns(job_position(ci, si, seeds.len())) {
                continue;
            }
            let path = job_path(out, cell, seed);
            let text = match read_job(out, cell, seed, prepared[cell.objective].objective.dim()) {
                JobFile::Finished(text) => text,
                JobFile::Missing => continue,
                JobFile::Damaged(why) => {
                    errln!(
                        "costbo: {}: {why}; not counted (a run will redo the job)",
                        path.display()
                    );
                    continue;
                }
            };
            let j = job_summary(&cell.name, seed, &text, targets, &cell.costs)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            jobs.push(j);
        }
        let cell_jobs: &[JobSummary] = &jobs[first..];
        let stats = |f: fn(&JobSummary) -> Option<f64>| {
            curves::mean_stderr(&cell_jobs.iter().filter_map(f).collect::<Vec<_>>())
        };
        let simple = stats(|j| j.final_simple_regret);
        let o = &settings.objectives[cell.objective];
        let best = per_set.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let optimal_sets = (0..per_set.len())
            .filter(|&i| per_set[i] >= best - optimiser_error(best))
            .collect();
        cell_summaries.push(CellSummary {
            cell: cell.name.clone(),
            objective: o.label(),
            costs: cell.costs_label.clone(),
            variance: cell.variance,
            algorithm: cell.algorithm_name.clone(),
            budget: o.budget,
            optimum: best,
            best_per_set: per_set,
            optimal_sets,
            seeds: cell_jobs.len(),
            mean_simple_regret: simple.map(|s| s.0),
            stderr_simple_regret: simple.map(|s| s.1),
            quality_regret: stats(|j| j.quality_regret),
            cost_regret: stats(|j| j.cost_regret),
        });
    }
    Ok(Summary {
        jobs,
        cells: cell_summaries,
    })
}

fn format_duration(s: f64) -> String {
    if !s.is_finite() {
        return "?".into();
    }
    let s = s.round() as u64;
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, (s % 3600) / 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

fn progress_line(p: &Progress, pending: usize, skipped: usize, start: Instant) -> String {
    let done = p.work.load(Ordering::Relaxed) as f64 / 1e6;
    let elapsed = start.elapsed().as_secs_f64();
    let left = if done > 0.0 {
        elapsed * (pending as f64 - done).max(0.0) / done
    } else {
        f64::INFINITY
    };
    format!(
        "jobs {}/{} ({} skipped), rounds {}, {:.1}% of budget, elapsed {}, ~{} left",
        p.jobs_done.load(Ordering::Relaxed),
        pending,
        skipped,
        p.rounds.load(Ordering::Relaxed),
        100.0 * done / pending.max(1) as f64,
        format_duration(elapsed),
        format_duration(left)
    )
}

/// The summary of the jobs already finished under `out`, without running any (the best values
/// of the control sets are computed if they are not cached yet).
pub fn summarise_finished(settings: &Settings, out: &Path) -> Result<Summary, String> {
    settings.validate()?;
    let cells = settings.cells()?;
    let prepared = prepare(settings, out)?;
    summarise(settings, &cells, &prepared, out, Shard::WHOLE)
}

/// Writes `OUT/summary.json` from the jobs already finished under `out`, running none: the
/// merge step after the shards of a grid (`costbo run --no-run`). The cells' settings are
/// checked against those the jobs were run with, as a run checks them.
pub fn merge(settings: &Settings, out: &Path) -> Result<Summary, String> {
    settings.validate()?;
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let cells = settings.cells()?;
    for cell in &cells {
        check_cell_settings(settings, cell, out)?;
    }
    let prepared = prepare(settings, out)?;
    let summary = summarise(settings, &cells, &prepared, out, Shard::WHOLE)?;
    write_summary(&summary_path(out, Shard::WHOLE), &summary)?;
    Ok(summary)
}

/// The 0-based position of job (cell `ci`, `si`-th seed) in the grid's stable job order:
/// cells in grid order, each cell's seeds in seed order. Shards split the grid by it.
pub fn job_position(ci: usize, si: usize, seeds: usize) -> usize {
    ci * seeds + si
}

/// Where a run of `shard` writes its summary: `OUT/summary.json` for the whole grid,
/// `OUT/summary-shard-K-of-N.json` for a share (its own jobs only), so that shards finishing
/// at the same time never overwrite the grid's summary with a partial one.
pub fn summary_path(out: &Path, shard: Shard) -> PathBuf {
    if shard.is_whole() {
        out.join("summary.json")
    } else {
        out.join(format!("summary-{}.json", shard.stem()))
    }
}

fn write_summary(path: &Path, summary: &Summary) -> Result<(), String> {
    let text = serde_json::to_string_pretty(summary).map_err(|e| e.to_string())?;
    write_atomic(path, &format!("{text}\n"))
}

/// Runs every job of the grid whose CSV is missing under `options.out`, seed by seed (every
/// cell's first seed, then every cell's second, …), then writes `summary.json` (over every
/// finished job).
pub fn run(settings: &Settings, options: &RunOptions) -> Result<RunReport, String> {
    run_shard(settings, options, Shard::WHOLE)
}

/// [`run`] for `shard`'s share of the grid only (see [`shard`]): runs the share's jobs whose
/// CSV is missing under `options.out` (a directory the shards share), and writes the summary
/// of the share's finished jobs to [`summary_path`]. With [`Shard::WHOLE`] this is [`run`].
/// After every shard has finished, [`merge`] (or [`run`], which then finds every job done)
/// writes the grid's `summary.json`, the same as a run on one machine.
pub fn run_shard(
    settings: &Settings,
    options: &RunOptions,
    shard: Shard,
) -> Result<RunReport, String> {
    settings.validate()?;
    let out = &options.out;
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let cells = settings.cells()?;
    let prepared = prepare(settings, out)?;
    let seeds = settings.seed_list();
    let mut pending = Vec::new();
    let mut total = 0;
    for (ci, cell) in cells.iter().enumerate() {
        // Check the algorithm against this problem's dimension.
        parse_algorithm(
            &cell.algorithm_name,
            settings.epsilon,
            prepared[cell.objective].objective.dim(),
        )?;
        check_cell_settings(settings, cell, out)?;
        for (si, &seed) in seeds.iter().enumerate() {
            if !shard.owns(job_position(ci, si, seeds.len())) {
                continue;
            }
            total += 1;
            let d = prepared[cell.objective].objective.dim();
            match read_job(out, cell, seed, d) {
                JobFile::Finished(_) => {}
                JobFile::Missing => pending.push((ci, seed)),
                JobFile::Damaged(why) => {
                    errln!(
                        "costbo: {}: {why}; running the job again",
                        job_path(out, cell, seed).display()
                    );
                    pending.push((ci, seed));
                }
            }
        }
    }
    // Seed by seed: a run stopped part-way leaves every cell with the same seeds done (or one
    // fewer), not some cells finished and others not started.
    pending.sort_by_key(|&(_, seed)| seeds.iter().position(|&s| s == seed));
    let skipped = total - pending.len();
    let progress = Progress::default();
    let failed = Mutex::new(Vec::new());
    let finished = AtomicBool::new(false);
    let start = Instant::now();
    let workers = options.jobs.max(1).min(pending.len().max(1));
    std::thread::scope(|s| -> Result<(), String> {
        if options.progress && !pending.is_empty() {
            let (progress, finished) = (&progress, &finished);
            let n = pending.len();
            s.spawn(move || {
                let terminal = std::io::stdout().is_terminal();
                let period = if terminal {
                    Duration::from_millis(500)
                } else {
                    Duration::from_secs(10)
                };
                let mut last = Instant::now();
                while !finished.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(100));
                    if last.elapsed() >= period {
                        last = Instant::now();
                        let line = progress_line(progress, n, skipped, start);
                        crate::output::progress(&line, terminal);
                    }
                }
            });
        }
        let (prepared, progress, failed) = (&prepared, &progress, &failed);
        let ran = crate::pool::for_each(&pending, workers, JOB_STACK, |_, &(ci, seed)| {
            let cell = &cells[ci];
            let (wall, cpu) = (Instant::now(), thread_cpu_seconds());
            let r = run_one(settings, cell, &prepared[cell.objective], seed, progress).and_then(
                |(rounds, d, spent_fraction)| {
                    let path = job_path(out, cell, seed);
                    let dir = path.parent().unwrap_or(out);
                    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
                    let time = JobTime {
                        wall_seconds: wall.elapsed().as_secs_f64(),
                        cpu_seconds: cpu.zip(thread_cpu_seconds()).map(|(a, b)| b - a),
                    };
                    // The time and the CSV's record first: a CSV present means its
                    // time is there too, and a CSV that does not match its record is
                    // not a finished job's (read_job).
                    let text = csv(&rounds, d);
                    write_atomic(
                        &time_path(out, cell, seed),
                        &(time.to_text() + &job_record(&text)),
                    )?;
                    write_atomic(&path, &text)?;
                    Ok(spent_fraction)
                },
            );
            match r {
                Ok(fraction) => {
                    // Count the unspent budget as done: the job is finished.
                    progress
                        .work
                        .fetch_add(((1.0 - fraction).max(0.0) * 1e6) as u64, Ordering::Relaxed);
                }
                Err(e) => {
                    if let Ok(mut f) = failed.lock() {
                        f.push(format!("{} seed {seed}: {e}", cell.name));
                    }
                }
            }
            progress.jobs_done.fetch_add(1, Ordering::Relaxed);
        });
        finished.store(true, Ordering::Relaxed);
        ran
    })?;
    if options.progress && !pending.is_empty() {
        let line = progress_line(&progress, pending.len(), skipped, start);
        let terminal = std::io::stdout().is_terminal();
        crate::output::progress(&line, terminal);
        if terminal {
            crate::output::progress("", false);
        }
    }
    let summary = summarise(settings, &cells, &prepared, out, shard)?;
    write_summary(&summary_path(out, shard), &summary)?;
    let failed = failed.into_inner().unwrap_or_default();
    Ok(RunReport {
        total,
        ran: pending.len() - failed.len(),
        skipped,
        failed,
        summary,
    })
}

/// Everything that determines a cell's results except the seed, as text.
fn cell_fingerprint(settings: &Settings, cell: &Cell) -> String {
    let o = &settings.objectives[cell.objective];
    format!(
        "objective = {:?}\ncosts = {:?}\nvariance = {:?}\nalgorithm = {:?}\nbank = {}\n\
         judge = {}{}\ninitial = {}\nnoise = {:?}\nbeta = {:?}\nepsilon = {:?}\n\
         cost_noise = {:?}\n",
        o,
        cell.costs,
        cell.variance,
        cell.algorithm_name,
        settings.bank,
        settings.judge,
        // Absent for i.i.d. judges, so that cells run before Sobol judges still resume.
        match settings.judge_points {
            JudgePoints::Iid => String::new(),
            JudgePoints::Sobol => " sobol".to_string(),
        },
        settings.initial,
        settings.noise,
        settings.beta,
        settings.epsilon,
        settings.cost_noise
    ) + &non_default_settings(settings)
        + &match cell.model() {
            Model::Fixed => String::new(),
            Model::Fitted => format!("refit_every = {}\n", settings.refit_every),
            // Its settings are fixed: the name says them.
            Model::Adam => String::new(),
        }
}

/// Fingerprint lines of the settings added later, only where they differ from their defaults:
/// cells run before those settings existed keep their fingerprints and still resume.
fn non_default_settings(settings: &Settings) -> String {
    let mut s = String::new();
    if let Some(r) = settings.max_rounds {
        let _ = writeln!(s, "max_rounds = {r}");
    }
    if settings.prior_mean != PriorMean::Zero {
        let _ = writeln!(s, "prior_mean = {:?}", settings.prior_mean);
    }
    s
}

/// Writes `OUT/<cell>/cell.txt` (the cell's settings) or checks that the one there matches, so
/// that a resumed run never mixes results of other settings into a cell.
fn check_cell_settings(settings: &Settings, cell: &Cell, out: &Path) -> Result<(), String> {
    let dir = out.join(&cell.name);
    let path = dir.join("cell.txt");
    let text = cell_fingerprint(settings, cell);
    // Bytes, not text: a damaged (non-UTF-8) file must meet the same refusal as other
    // settings, never count as absent and be overwritten.
    match std::fs::read(&path) {
        Ok(old) if old == text.as_bytes() => Ok(()),
        Ok(old) if std::str::from_utf8(&old).is_err() || old.is_empty() => Err(format!(
            "{} is damaged (empty or not text), so the settings of the results in {} are \
             unknown; remove that directory or use another --out",
            path.display(),
            dir.display()
        )),
        Ok(_) => Err(format!(
            "{} holds results of other settings for cell {}; use another --out",
            out.display(),
            cell.name
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            write_atomic(&path, &text)
        }
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

/// Runs one job; returns its rounds, the dimension and the budget fraction spent.
fn run_one(
    settings: &Settings,
    cell: &Cell,
    p: &Prepared,
    seed: u64,
    progress: &Progress,
) -> Result<(Vec<Round>, usize, f64), String> {
    let o = &settings.objectives[cell.objective];
    let d = p.objective.dim();
    let (_, judge, best) = p
        .per_variance
        .iter()
        .find(|(v, _, _)| *v == cell.variance)
        .ok_or("variance not prepared")?;
    let input = JobInput {
        objective: p.objective.as_ref(),
        sets: &p.sets,
        costs: &cell.costs,
        variance: cell.variance,
        algorithm: parse_algorithm(&cell.algorithm_name, settings.epsilon, d)?,
        rule: file_rule_name(&cell.algorithm_name, settings.epsilon),
        seed,
        budget: o.budget,
        bank: settings.bank,
        initial: settings.initial,
        noise: settings.noise,
        cost_noise: settings.cost_noise,
        max_rounds: settings.max_rounds,
        prior_mean: settings.prior_mean,
        model: cell.model(),
        refit_every: settings.refit_every,
        beta: settings.beta,
        lengthscale: o.lengthscale_for(d),
        judge: judge.as_ref(),
        best,
    };
    let rounds = run_job(&input, progress)?;
    let fraction = rounds.last().map_or(0.0, |r| r.spent / o.budget);
    Ok((rounds, d, fraction))
}
