//! What paper 002's study is made of, shared by its figures ([`super::study`], the 1-D
//! figures of [`super::onedim`] and the empirical problems of [`super::empirical`]): the
//! figures' and panels' specifications, the options, the rules, the stored traces and the
//! quantiles their tables and verdicts read.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use std::fmt::Write as _;

use super::run::{BoxCost, BoxModel, BoxRound};

/// One panel of a figure: an objective at a dimension, with its model and budgets.
#[derive(Debug, Clone, PartialEq)]
pub struct PanelSpec {
    /// Key in paths and tables (`ackley-d16`).
    pub key: String,
    /// Caption.
    pub title: String,
    /// Objective name in the catalogue.
    pub objective: String,
    /// Dimension.
    pub dim: usize,
    /// Whether each seed draws its own objective (GP samples: the objective's seed is the
    /// run's, shared by every rule).
    pub seeded_objective: bool,
    /// Model.
    pub model: BoxModel,
    /// Rounds under uniform costs.
    pub uniform_budget: f64,
    /// Budget under the cost `1 + 20·mean(u)`.
    pub cost_budget: f64,
}

/// A figure: panels × cost settings × rules.
#[derive(Debug, Clone, PartialEq)]
pub struct FigureSpec {
    /// Key (`fig5`).
    pub key: &'static str,
    /// What it reproduces.
    pub title: &'static str,
    /// Panels.
    pub panels: Vec<PanelSpec>,
    /// Cost settings.
    pub costs: Vec<BoxCost>,
    /// Rules under uniform costs.
    pub uniform_rules: Vec<&'static str>,
    /// Rules under the cost.
    pub cost_rules: Vec<&'static str>,
}

/// The study's settings.
#[derive(Debug, Clone)]
pub struct PandoraOptions {
    /// Where the runs go (and, with `quick`, the report).
    pub out: PathBuf,
    /// Where the report goes.
    pub report: PathBuf,
    /// Seeds per cell (the paper: 16).
    pub seeds: u64,
    /// The small smoke grid instead of the paper's.
    pub quick: bool,
    /// Worker threads.
    pub jobs: usize,
    /// Only these figures (keys), if given.
    pub figures: Option<Vec<String>>,
    /// Write the report without running missing jobs.
    pub no_run: bool,
}

pub(crate) const UNIFORM_RULES: [&str; 6] = [
    "pbgi",
    "pbgi-d",
    "log-ei",
    "gp-ucb",
    "ts-psq",
    "random-search",
];
pub(crate) const COST_RULES: [&str; 7] = [
    "pbgi",
    "pbgi-d",
    "log-eipc",
    "log-eicc",
    "gp-ucb",
    "ts-psq",
    "random-search",
];

/// Stack of each worker thread (see `run_missing`).
pub(crate) const STACK_BYTES: usize = 64 << 20;

/// A finished run as stored: the best value of the initial design, then the rounds.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Trace {
    pub(crate) optimum: f64,
    pub(crate) initial_best: f64,
    pub(crate) rounds: Vec<BoxRound>,
}

pub(crate) fn write_trace(path: &Path, t: &Trace) -> Result<(), String> {
    let mut text = format!(
        "# optimum {:?} initial_best {:?}\nspent,y,best,decide_seconds\n",
        t.optimum, t.initial_best
    );
    for r in &t.rounds {
        let _ = writeln!(
            text,
            "{:?},{:?},{:?},{:?}",
            r.spent, r.y, r.best, r.decide_seconds
        );
    }
    crate::sealed::write_sealed(path, &text)
}

/// One run of the box loop on the catalogue's `objective` at dimension `dim` (its own seed is
/// the run's when `seeded`, so that every rule of a seed sees the same GP sample), as a
/// [`Trace`]: the objective's optimum, the initial design's best value and the rounds.
pub(crate) fn run_traced(
    objective: &str,
    dim: usize,
    seeded: bool,
    run: &super::run::BoxRun,
    initial: Option<&[Vec<f64>]>,
) -> Result<Trace, String> {
    let options = crate::objectives::Options {
        dim: Some(dim),
        seed: seeded.then_some(run.seed),
    };
    let f = crate::objectives::build(objective, &options).map_err(|e| e.to_string())?;
    run_traced_on(f.as_ref(), run, initial)
}

/// One run of the box loop on `f`, as a [`Trace`].
pub(crate) fn run_traced_on(
    f: &dyn crate::objectives::Objective,
    run: &super::run::BoxRun,
    initial: Option<&[Vec<f64>]>,
) -> Result<Trace, String> {
    let trace = super::run::run_box_from(f, run, initial)?;
    Ok(Trace {
        optimum: f.optimum(),
        initial_best: trace.initial_best,
        rounds: trace.rounds,
    })
}

/// A job of a grid whose result is one [`Trace`] file.
pub(crate) trait TraceJob: Sync {
    /// Where its trace goes under the results directory `out`.
    fn path(&self, out: &Path) -> PathBuf;
    /// Its seed (the jobs run seed by seed).
    fn seed(&self) -> u64;
    /// What progress lines and errors call it.
    fn label(&self) -> String;
    /// Runs it.
    fn run(&self) -> Result<Trace, String>;
}

/// Runs the jobs of `all` whose traces are not finished (a file cut short or damaged by a crash
/// is run again, never counted), seed by seed (the grid's order within a seed), so that a run
/// stopped part way leaves every rule of a cell with the same seeds but those in flight.
pub(crate) fn run_pending<J: TraceJob>(
    name: &str,
    all: &[J],
    options: &PandoraOptions,
) -> Result<(), String> {
    let mut missing: Vec<&J> = all
        .iter()
        .filter(|j| crate::sealed::pending(&j.path(&options.out), parse_trace))
        .collect();
    missing.sort_by_key(|j| j.seed());
    errln!(
        "{name}: {} jobs, {} finished, {} to run on {} threads",
        all.len(),
        all.len() - missing.len(),
        missing.len(),
        options.jobs
    );
    let errors = crate::pool::Errors::default();
    let started = std::time::Instant::now();
    // A controller of capacity 1024 at d = 16 with Thompson sampling's 1024 Fourier features
    // holds arrays of a few hundred KiB that pass through the stack when it is built; the
    // default 2 MiB of a spawned thread is not enough.
    let pool = crate::pool::for_each(&missing, options.jobs, STACK_BYTES, |i, job| {
        match job
            .run()
            .and_then(|t| write_trace(&job.path(&options.out), &t))
        {
            Ok(()) => errln!(
                "[{}/{}] {} ({:.0} s elapsed)",
                i + 1,
                missing.len(),
                job.label(),
                started.elapsed().as_secs_f64()
            ),
            Err(e) => errors.push(format!("{}: {e}", job.label())),
        }
    });
    if let Err(e) = pool {
        errors.push(e);
    }
    errors.into_result()
}

/// Reads a finished trace (a whole, sealed file), quietly.
pub(crate) fn read_trace(path: &Path) -> Option<Trace> {
    crate::sealed::read_finished(path, parse_trace)
}

/// Parses a trace file's body (the optimum line, the header, one row per round).
pub(crate) fn parse_trace(text: &str) -> Option<Trace> {
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next()?.split_whitespace().collect();
    let (optimum, initial_best) = match head.as_slice() {
        ["#", "optimum", o, "initial_best", b] => (o.parse().ok()?, b.parse().ok()?),
        _ => return None,
    };
    lines.next()?;
    let mut rounds = Vec::new();
    for l in lines {
        let v: Vec<f64> = l
            .split(',')
            .map(|f| f.parse())
            .collect::<Result<_, _>>()
            .ok()?;
        if v.len() != 4 {
            return None;
        }
        rounds.push(BoxRound {
            spent: v[0],
            y: v[1],
            best: v[2],
            decide_seconds: v[3],
        });
    }
    Some(Trace {
        optimum,
        initial_best,
        rounds,
    })
}

/// Regret (optimum − best observed) after spending `c`, the trace read as a step function of
/// the budget spent (the paper's code interpolates linearly onto the integer grid; a step is
/// what was actually known at `c`).
pub(super) fn regret_at(t: &Trace, c: f64) -> f64 {
    t.optimum - best_at(t, c)
}

/// The best value known after spending `c`, the trace read as a step function of the budget
/// spent (what regret reads; Fig. 6 plots it directly, its optimum being unknown).
pub(crate) fn best_at(t: &Trace, c: f64) -> f64 {
    let mut best = t.initial_best;
    for r in &t.rounds {
        if r.spent > c {
            break;
        }
        best = r.best;
    }
    best
}

pub(crate) fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

/// Quartiles, median and upper quartile of `value(trace, budget)` across traces on a grid of
/// `points` budgets in `[0, b]` (the value is regret, or the best value where the optimum is
/// unknown).
pub(crate) fn quartile_curve(
    traces: &[Trace],
    b: f64,
    points: usize,
    value: impl Fn(&Trace, f64) -> f64,
) -> (Vec<f64>, [Vec<f64>; 3]) {
    let xs: Vec<f64> = (0..=points).map(|i| b * i as f64 / points as f64).collect();
    let mut q = [Vec::new(), Vec::new(), Vec::new()];
    for &x in &xs {
        let mut v: Vec<f64> = traces.iter().map(|t| value(t, x)).collect();
        v.sort_by(f64::total_cmp);
        q[0].push(quantile(&v, 0.25));
        q[1].push(quantile(&v, 0.5));
        q[2].push(quantile(&v, 0.75));
    }
    (xs, q)
}

/// One cell's finished traces: rule → (budget, traces).
pub(super) type Cell = BTreeMap<&'static str, (f64, Vec<Trace>)>;

/// `median | 25 % | 75 % | count` of sorted values, the columns of the final-value tables.
pub(crate) fn quartile_columns(sorted: &[f64]) -> String {
    format!(
        "{:.4} | {:.4} | {:.4} | {}",
        quantile(sorted, 0.5),
        quantile(sorted, 0.25),
        quantile(sorted, 0.75),
        sorted.len()
    )
}

/// The median of `v`.
pub(crate) fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    quantile(&s, 0.5)
}

/// The `q`-quantile of `rule`'s final regrets in a cell.
pub(super) fn final_quantile(cell: &Cell, rule: &str, q: f64) -> Option<f64> {
    let (b, traces) = cell.get(rule)?;
    let mut v: Vec<f64> = traces.iter().map(|t| regret_at(t, *b)).collect();
    v.sort_by(f64::total_cmp);
    Some(quantile(&v, q))
}

/// Median regret of `rule` in a cell at `fraction` of its budget.
pub(super) fn median_at(cell: &Cell, rule: &str, fraction: f64) -> Option<f64> {
    let (b, traces) = cell.get(rule)?;
    Some(median(
        &traces
            .iter()
            .map(|t| regret_at(t, fraction * b))
            .collect::<Vec<_>>(),
    ))
}

/// A verdict as a row of the report's tables (claim, panel, verdict, evidence), in the
/// report's words: *no data* where a rule's runs are missing.
pub(super) fn verdict_row(v: &crate::study::Verdict) -> String {
    let word = match v.status {
        crate::study::Status::Inconclusive => "no data".to_string(),
        s => s.to_string(),
    };
    format!("| {} | {} | {word} | {} |\n", v.claim, v.scope, v.evidence)
}

/// One headline claim of the paper, checked on one kind of panel.
pub(super) struct Claim {
    /// Which figure and panels (objective prefix of the panel key; cost setting).
    pub(super) figure: &'static str,
    pub(super) panel: &'static str,
    pub(super) cost: &'static str,
    /// The claim as `docs/notes/seed-002.md` states it.
    pub(super) text: &'static str,
    /// The verdict and its evidence from a cell, or `None` when a rule is missing.
    pub(super) check: fn(&Cell) -> Option<(bool, String)>,
}
