//! The demo on equal footing (`docs/results/variants/PLAN.md`, "The demo"): every contender's
//! β swept on the tuning seeds, the contenders at their chosen β on held-out seeds, and ours
//! beside the paper's ETC-Ada in paper 000's other plant settings. One run is one small file
//! under `<out>/demo/`; the runs gather into `DOCS/demo.csv`, and the report is computed from
//! that file alone.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::stats;
use crate::demo::{self, Contender, PlantSetting, COST_UNAWARE, ETC_120, OPTIMUM, OURS, PAPER};
use crate::experiment::config::cost_values;
use crate::experiment::CostSpec;

/// The demo's budget (that of `costbo demo`).
pub const BUDGET: f64 = 200.0;
/// β values of the sweep.
pub const BETAS: [f64; 5] = [2.0, 4.0, 8.0, 12.0, 16.0];
/// Tuning seeds (every tuning of the demo so far used them).
pub const TUNING: std::ops::RangeInclusive<u64> = 1..=20;
/// Held-out seeds.
pub const HELD_OUT: std::ops::RangeInclusive<u64> = 61..=160;
/// Held-out seeds of each other plant setting.
pub const SETTINGS_SEEDS: std::ops::RangeInclusive<u64> = 61..=80;
/// A run succeeds when its recommendation reaches this share of the best growth.
pub const SUCCESS: f64 = 0.9;

/// The contenders by the names of the per-seed file.
pub const CONTENDERS: [(&str, Contender); 3] = [
    ("ours", OURS),
    ("paper", PAPER),
    ("cost-unaware", COST_UNAWARE),
];

/// The rule declared better than ours after the held-out runs, before its own test (PLAN.md,
/// log of 2026-11-29), by its name in the per-seed file.
pub const CANDIDATE: (&str, Contender) = ("etc-120", ETC_120);
/// The candidate's test seeds, which no run had used when it was declared.
pub const CANDIDATE_SEEDS: std::ops::RangeInclusive<u64> = 161..=260;

/// Paper 000's cost presets.
const COSTS: [&str; 3] = ["cheap", "moderate", "expensive"];
/// Variances of the other settings.
const VARIANCES: [f64; 3] = [0.02, 0.04, 0.08];

/// One planned run.
#[derive(Debug, Clone, PartialEq)]
pub struct DemoJob {
    /// `tuning`, `held-out`, `settings`, `candidate-tuning` (the candidate and ours on the
    /// tuning seeds) or `candidate` (both on [`CANDIDATE_SEEDS`]).
    pub experiment: &'static str,
    /// Contender name (see [`CONTENDERS`]).
    pub contender: &'static str,
    /// β of the run.
    pub beta: f64,
    /// Cost preset name.
    pub costs: &'static str,
    /// Variance of the source water.
    pub variance: f64,
    /// Seed.
    pub seed: u64,
}

impl DemoJob {
    fn key(&self) -> String {
        format!(
            "{}_b{}_{}_v{}",
            self.contender, self.beta, self.costs, self.variance
        )
    }
}

/// Every planned run, in the plan's order: the sweep, the held-out seeds, the other settings,
/// then the candidate's test.
pub fn plan() -> Vec<DemoJob> {
    let mut jobs = Vec::new();
    for (name, _) in CONTENDERS {
        for beta in BETAS {
            for seed in TUNING {
                jobs.push(DemoJob {
                    experiment: "tuning",
                    contender: name,
                    beta,
                    costs: "moderate",
                    variance: 0.04,
                    seed,
                });
            }
        }
    }
    for (name, c) in CONTENDERS {
        for seed in HELD_OUT {
            jobs.push(DemoJob {
                experiment: "held-out",
                contender: name,
                beta: c.beta,
                costs: "moderate",
                variance: 0.04,
                seed,
            });
        }
    }
    // The cheap costs last: their runs play about 630 rounds, three times the others'.
    for costs in COSTS.iter().rev() {
        for variance in VARIANCES {
            for (name, c) in &CONTENDERS[..2] {
                for seed in SETTINGS_SEEDS {
                    jobs.push(DemoJob {
                        experiment: "settings",
                        contender: name,
                        beta: c.beta,
                        costs,
                        variance,
                        seed,
                    });
                }
            }
        }
    }
    for (experiment, seeds) in [("candidate-tuning", TUNING), ("candidate", CANDIDATE_SEEDS)] {
        for (name, c) in [("ours", OURS), CANDIDATE] {
            for seed in seeds.clone() {
                jobs.push(DemoJob {
                    experiment,
                    contender: name,
                    beta: c.beta,
                    costs: "moderate",
                    variance: 0.04,
                    seed,
                });
            }
        }
    }
    jobs
}

/// One finished run: a row of `DOCS/demo.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct DemoRow {
    /// The job.
    pub job: DemoJob,
    /// Expected growth of the recommendation over the best achievable.
    pub share_of_best: f64,
    /// Rounds played.
    pub rounds: usize,
}

/// The per-seed file's header.
pub const CSV_HEADER: &str = "experiment,contender,beta,costs,variance,seed,share_of_best,rounds";

fn result_path(out: &Path, job: &DemoJob) -> PathBuf {
    out.join("demo")
        .join(job.key())
        .join(format!("{}.txt", job.seed))
}

/// Runs the planned runs that have no result file yet, on `threads` workers. The held-out and
/// settings runs use the contenders' β as compiled, so they wait until the tuning runs have
/// chosen exactly those β: until then only the tuning runs run, and the β to compile in are
/// printed.
pub fn run(
    out: &Path,
    committed: &[DemoRow],
    threads: usize,
    progress: bool,
) -> Result<(), String> {
    let done = |j: &DemoJob| committed_share(committed, j).is_some();
    run_missing(out, threads, progress, |j| {
        j.experiment == "tuning" && !done(j)
    })?;
    let rows = collect(out, committed)?;
    let mut tuned = true;
    for (name, c) in CONTENDERS {
        match chosen_beta(&rows, name) {
            Some(b) if b == c.beta => {}
            chosen => {
                tuned = false;
                outln!(
                    "demo: the tuning runs choose β = {} for {name}, compiled in is {}; the \
                     held-out runs wait for it",
                    chosen.map_or("(unfinished)".into(), |b| b.to_string()),
                    c.beta
                );
            }
        }
    }
    if tuned {
        run_missing(out, threads, progress, |j| {
            j.experiment != "tuning" && !done(j)
        })?;
    }
    Ok(())
}

fn run_missing(
    out: &Path,
    threads: usize,
    progress: bool,
    keep: impl Fn(&DemoJob) -> bool,
) -> Result<(), String> {
    let mut jobs: Vec<DemoJob> = plan()
        .into_iter()
        .filter(|j| keep(j) && !result_path(out, j).exists())
        .collect();
    // The settings runs repeat some held-out runs (one file each).
    let mut seen = std::collections::HashSet::new();
    jobs.retain(|j| seen.insert((j.key(), j.seed)));
    if progress {
        outln!("demo: {} runs to go", jobs.len());
    }
    let errors = crate::pool::Errors::default();
    let done = std::sync::atomic::AtomicUsize::new(0);
    crate::pool::for_each(&jobs, threads, 64 << 20, |_, job| {
        let path = result_path(out, job);
        let result = simulate(job).and_then(|(share, rounds)| {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            }
            crate::experiment::write_atomic(&path, &format!("{share:?},{rounds}\n"))
        });
        if let Err(e) = result {
            errors.push(format!("{}: {e}", path.display()));
        }
        let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        if progress && n.is_multiple_of(20) {
            outln!("demo: {n}/{} runs", jobs.len());
        }
    })?;
    errors.into_result()
}

fn simulate(job: &DemoJob) -> Result<(f64, usize), String> {
    let Some((_, base)) = CONTENDERS
        .iter()
        .chain([&CANDIDATE])
        .find(|(n, _)| *n == job.contender)
    else {
        return Err(format!("no contender `{}`", job.contender));
    };
    let costs: [f64; 7] = cost_values(&CostSpec::Named(job.costs.into()))?
        .try_into()
        .map_err(|_| format!("cost preset `{}` is not for 7 control sets", job.costs))?;
    let contender = Contender {
        beta: job.beta,
        ..*base
    };
    let setting = PlantSetting {
        costs,
        variance: job.variance,
    };
    let r = demo::simulate_in(&contender, &setting, BUDGET, job.seed, false)?;
    Ok((r.recommended_expected / OPTIMUM, r.rounds.len()))
}

/// Ours against the paper's ETC-Ada in each other plant setting, seed for seed: McNemar's
/// exact test on the seeds both finished, Holm's correction over the settings compared.
fn settings_tests(md: &mut String, rows: &[DemoRow]) {
    let success = |contender: &str, costs: &str, variance: f64| {
        rows.iter()
            .filter(|r| {
                r.job.experiment == "settings"
                    && r.job.contender == contender
                    && r.job.costs == costs
                    && r.job.variance == variance
            })
            .map(|r| (r.job.seed, r.share_of_best >= SUCCESS))
            .collect::<std::collections::BTreeMap<u64, bool>>()
    };
    // (costs, variance, seeds, only ours, only the paper's, p)
    let mut tests = Vec::new();
    for costs in COSTS {
        for variance in VARIANCES {
            let mine = success("ours", costs, variance);
            let theirs = success("paper", costs, variance);
            let pairs: Vec<(bool, bool)> = mine
                .iter()
                .filter_map(|(seed, &x)| theirs.get(seed).map(|&y| (x, y)))
                .collect();
            if pairs.is_empty() {
                continue;
            }
            let b = pairs.iter().filter(|&&p| p == (true, false)).count();
            let c = pairs.iter().filter(|&&p| p == (false, true)).count();
            tests.push((
                costs,
                variance,
                pairs.len(),
                b,
                c,
                stats::mcnemar_exact(b, c),
            ));
        }
    }
    let _ = writeln!(
        md,
        "
Seed for seed in each setting: McNemar's exact test, Holm's correction over the {} \
         settings compared (family-wise α = {}).\n\n| costs | variance | seeds | only ours | \
         only the paper's | p | Holm p | result |\n|---|---:|---:|---:|---:|---:|---:|---|",
        tests.len(),
        super::ALPHA
    );
    let adjusted = stats::holm(&tests.iter().map(|t| t.5).collect::<Vec<_>>());
    let (mut wins, mut losses) = (0, 0);
    for (&(costs, variance, n, b, c, p), &q) in tests.iter().zip(&adjusted) {
        let result = if q >= super::ALPHA {
            "–"
        } else if b > c {
            wins += 1;
            "**win**"
        } else {
            losses += 1;
            "**loss**"
        };
        let _ = writeln!(
            md,
            "| {costs} | {variance} | {n} | {b} | {c} | {p:.2e} | {q:.2e} | {result} |"
        );
    }
    let _ = writeln!(
        md,
        "\nOurs against the paper's ETC-Ada: {wins} Holm-significant wins and {losses} losses \
         in {} settings.",
        tests.len()
    );
}

/// The committed result of `job`'s run: a row of the same run (contender, β, setting and
/// seed; the held-out and settings experiments share some runs).
fn committed_share(committed: &[DemoRow], job: &DemoJob) -> Option<(f64, usize)> {
    committed
        .iter()
        .find(|r| {
            let j = &r.job;
            (j.contender, j.beta, j.costs, j.variance, j.seed)
                == (job.contender, job.beta, job.costs, job.variance, job.seed)
        })
        .map(|r| (r.share_of_best, r.rounds))
}

/// The finished planned runs in `out`, with the `committed` rows of runs that have no file
/// there (the per-seed file carries the runs across machines), in plan order.
pub fn collect(out: &Path, committed: &[DemoRow]) -> Result<Vec<DemoRow>, String> {
    let mut rows = Vec::new();
    for job in plan() {
        let path = result_path(out, &job);
        let Ok(text) = std::fs::read_to_string(&path) else {
            if let Some((share_of_best, rounds)) = committed_share(committed, &job) {
                rows.push(DemoRow {
                    job,
                    share_of_best,
                    rounds,
                });
            }
            continue;
        };
        let parsed = text.trim_end().split_once(',').and_then(|(s, r)| {
            Some((
                s.parse::<f64>().ok().filter(|s| s.is_finite())?,
                r.parse().ok()?,
            ))
        });
        let Some((share_of_best, rounds)) = parsed else {
            return Err(format!(
                "{}: damaged (delete it to run it again)",
                path.display()
            ));
        };
        rows.push(DemoRow {
            job,
            share_of_best,
            rounds,
        });
    }
    Ok(rows)
}

/// Writes rows as the per-seed file.
pub fn to_csv(rows: &[DemoRow]) -> String {
    let mut s = format!("{CSV_HEADER}\n");
    for r in rows {
        let j = &r.job;
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{:?},{}",
            j.experiment,
            j.contender,
            j.beta,
            j.costs,
            j.variance,
            j.seed,
            r.share_of_best,
            r.rounds
        );
    }
    s
}

/// Reads the per-seed file: every row must be a planned run.
pub fn from_csv(text: &str) -> Result<Vec<DemoRow>, String> {
    let planned = plan();
    super::csv_rows(text, CSV_HEADER, 8)?
        .into_iter()
        .map(|row| {
            let (f, bad) = (&row.fields, |what: &str| row.bad(what));
            let beta: f64 = f[2].parse().map_err(|_| bad("beta"))?;
            let variance: f64 = f[4].parse().map_err(|_| bad("variance"))?;
            let seed: u64 = f[5].parse().map_err(|_| bad("seed"))?;
            let job = planned
                .iter()
                .find(|j| {
                    j.experiment == f[0]
                        && j.contender == f[1]
                        && j.beta == beta
                        && j.costs == f[3]
                        && j.variance == variance
                        && j.seed == seed
                })
                .ok_or_else(|| bad("not a planned run"))?;
            let share: f64 = f[6].parse().map_err(|_| bad("share_of_best"))?;
            if !share.is_finite() {
                return Err(bad("share_of_best is not finite"));
            }
            Ok(DemoRow {
                job: job.clone(),
                share_of_best: share,
                rounds: f[7].parse().map_err(|_| bad("rounds"))?,
            })
        })
        .collect()
}

fn shares<'a>(rows: &'a [DemoRow], keep: impl Fn(&DemoJob) -> bool + 'a) -> Vec<f64> {
    rows.iter()
        .filter(|r| keep(&r.job))
        .map(|r| r.share_of_best)
        .collect()
}

fn summary(shares: &[f64]) -> (f64, usize) {
    let mean = shares.iter().sum::<f64>() / shares.len().max(1) as f64;
    (mean, shares.iter().filter(|&&s| s >= SUCCESS).count())
}

/// The β each contender's tuning runs choose (highest mean share of the best; ties: more
/// successes, then the smaller β), with every β's mean and successes; `None` until all its
/// tuning runs have finished.
pub fn chosen_beta(rows: &[DemoRow], contender: &str) -> Option<f64> {
    let mut best: Option<(f64, usize, f64)> = None;
    for beta in BETAS {
        let s = shares(rows, |j| {
            j.experiment == "tuning" && j.contender == contender && j.beta == beta
        });
        if s.len() != TUNING.clone().count() {
            return None;
        }
        let (mean, successes) = summary(&s);
        let better = match best {
            None => true,
            Some((m, k, _)) => mean > m || (mean == m && successes > k),
        };
        if better {
            best = Some((mean, successes, beta));
        }
    }
    best.map(|b| b.2)
}

/// Whether each seed's run of `contender` in `experiment` succeeded.
fn successes(
    rows: &[DemoRow],
    experiment: &str,
    contender: &str,
) -> std::collections::BTreeMap<u64, bool> {
    rows.iter()
        .filter(|r| r.job.experiment == experiment && r.job.contender == contender)
        .map(|r| (r.job.seed, r.share_of_best >= SUCCESS))
        .collect()
}

/// The seeds both ran, as (first succeeded, second succeeded).
fn paired(
    first: &std::collections::BTreeMap<u64, bool>,
    second: &std::collections::BTreeMap<u64, bool>,
) -> Vec<(bool, bool)> {
    first
        .iter()
        .filter_map(|(seed, &x)| second.get(seed).map(|&y| (x, y)))
        .collect()
}

/// `k` successes of `n` as a rate with its Wilson interval at 95 %.
fn rate_with_interval(k: usize, n: usize) -> String {
    match stats::wilson(k, n, stats::Z95) {
        Some((lo, hi)) => format!("{} [{}, {}]", pct(k as f64 / n as f64), pct(lo), pct(hi)),
        None => "–".into(),
    }
}

/// The candidate rule beside ours, on the tuning seeds it was chosen on and on the seeds of its
/// test: success rates with Wilson intervals, McNemar's exact test seed for seed, and the
/// demo's goal.
fn candidate_test(md: &mut String, rows: &[DemoRow]) {
    let (name, candidate) = CANDIDATE;
    let _ = writeln!(
        md,
        "\n## A better rule declared before its test: {}\n\nDeclared in [PLAN.md](PLAN.md) \
         (log of 2026-11-29) after the runs above, from a sweep on the tuning seeds: \
         explore-then-commit with 120 plays per cost group, on ours' fitted model and β. Its \
         test: seeds {}–{}, which no run had used, beside ours on the same seeds.\n\n| \
         contender (β) | seeds | runs | successes | rate [95 % CI] | mean share of the best \
         |\n|---|---|---:|---:|---|---:|",
        candidate.label,
        CANDIDATE_SEEDS.start(),
        CANDIDATE_SEEDS.end()
    );
    let experiments = [
        ("candidate-tuning", "tuning", TUNING),
        ("candidate", "test", CANDIDATE_SEEDS),
    ];
    for (experiment, what, seeds) in &experiments {
        for (contender, c) in [("ours", OURS), CANDIDATE] {
            let s = shares(rows, |j| {
                j.experiment == *experiment && j.contender == contender
            });
            let (mean, k) = summary(&s);
            let _ = writeln!(
                md,
                "| {} (β = {}) | {what}, {}–{} | {} | {k} | {} | {} |",
                c.label,
                c.beta,
                seeds.start(),
                seeds.end(),
                s.len(),
                rate_with_interval(k, s.len()),
                mean_cell(&s, mean)
            );
        }
    }
    let _ = writeln!(
        md,
        "\nSeed for seed (McNemar's exact test on the seeds both finished):\n\n| seeds | runs \
         | both succeed | only the candidate | only ours | neither | p |\n\
         |---|---:|---:|---:|---:|---:|---:|"
    );
    // The verdict's test: the candidate's own seeds, not the tuning seeds.
    let mut test = None;
    for (experiment, what, seeds) in &experiments {
        let pairs = paired(
            &successes(rows, experiment, name),
            &successes(rows, experiment, "ours"),
        );
        let count = |want: (bool, bool)| pairs.iter().filter(|&&p| p == want).count();
        let (only_candidate, only_ours) = (count((true, false)), count((false, true)));
        let p = stats::mcnemar_exact(only_candidate, only_ours);
        let _ = writeln!(
            md,
            "| {what}, {}–{} | {} | {} | {only_candidate} | {only_ours} | {} | {p:.2e} |",
            seeds.start(),
            seeds.end(),
            pairs.len(),
            count((true, true)),
            count((false, false)),
        );
        if *experiment == "candidate" {
            test = Some((pairs.len(), only_candidate, only_ours, p));
        }
    }
    let tested = shares(rows, |j| j.experiment == "candidate" && j.contender == name);
    let verdict = match test {
        Some((n, b, c, p)) if n == CANDIDATE_SEEDS.clone().count() => {
            let rate = summary(&tested).1 as f64 / tested.len() as f64;
            format!(
                "the demo's goal, a success rate of at least 95 % on the test seeds, is {} \
                 (the candidate: {}); against ours on the same seeds the candidate {}",
                if rate >= 0.95 {
                    "**met**"
                } else {
                    "**not met**"
                },
                pct(rate),
                if p < super::ALPHA && b > c {
                    format!("succeeds significantly more often (p = {p:.2e})")
                } else if p < super::ALPHA {
                    format!("succeeds significantly less often (p = {p:.2e})")
                } else {
                    format!("does not differ significantly (p = {p:.2e})")
                }
            )
        }
        _ => "not decided: the test runs are not complete".into(),
    };
    let _ = writeln!(md, "\nThe candidate's test: {verdict}.");
}

/// A table's mean share of the best: `–` without runs.
fn mean_cell(shares: &[f64], mean: f64) -> String {
    if shares.is_empty() {
        "–".into()
    } else {
        pct(mean)
    }
}

fn pct(x: f64) -> String {
    format!("{:.1} %", 100.0 * x)
}

/// The demo's report.
pub fn render(rows: &[DemoRow], discussion: Option<&str>) -> String {
    let planned = plan().len();
    let mut md = String::new();
    let _ = writeln!(md, "# The demo on equal footing\n");
    let _ = writeln!(
        md,
        "Generated by `costbo reproduce variants` from `{}/demo.csv` (one row per finished \
         run); the plan: [PLAN.md](PLAN.md), \"The demo\". `costbo demo`'s plant, budget \
         {BUDGET}; a run *succeeds* when its recommendation's expected growth reaches {} of \
         the best achievable. Intervals are Wilson's at 95 %.\n",
        super::DOCS,
        pct(SUCCESS)
    );
    let _ = writeln!(
        md,
        "**{} of {planned} planned runs finished.**{}\n",
        rows.len(),
        if rows.len() == planned {
            ""
        } else {
            " The run is not complete: what follows is provisional."
        }
    );
    let _ = writeln!(
        md,
        "## β chosen on the tuning seeds {}–{}\n\nEach contender's mean share of the best \
         growth and successes per β; the chosen β has the highest mean (ties: more successes, \
         then the smaller β).\n",
        TUNING.start(),
        TUNING.end()
    );
    let _ = writeln!(
        md,
        "| contender | {} | chosen | the demo's β |\n|---|{}---|---|",
        BETAS.map(|b| format!("β = {b}")).join(" | "),
        "---|".repeat(BETAS.len())
    );
    for (name, c) in CONTENDERS {
        let cells: Vec<String> = BETAS
            .iter()
            .map(|&beta| {
                let s = shares(rows, |j| {
                    j.experiment == "tuning" && j.contender == name && j.beta == beta
                });
                if s.is_empty() {
                    return "–".into();
                }
                let (mean, k) = summary(&s);
                format!("{}, {k}/{}", pct(mean), s.len())
            })
            .collect();
        let chosen = chosen_beta(rows, name).map_or("–".into(), |b| b.to_string());
        let _ = writeln!(
            md,
            "| {} | {} | {chosen} | {} |",
            c.label,
            cells.join(" | "),
            c.beta
        );
    }
    let _ = writeln!(
        md,
        "\n## Held-out seeds {}–{}\n\n| contender (β) | runs | successes | rate [95 % CI] | \
         mean share of the best |\n|---|---:|---:|---|---:|",
        HELD_OUT.start(),
        HELD_OUT.end()
    );
    for (name, c) in CONTENDERS {
        let s = shares(rows, |j| j.experiment == "held-out" && j.contender == name);
        let (mean, k) = summary(&s);
        let rate = rate_with_interval(k, s.len());
        let _ = writeln!(
            md,
            "| {} (β = {}) | {} | {k} | {rate} | {} |",
            c.label,
            c.beta,
            s.len(),
            mean_cell(&s, mean)
        );
    }
    let _ = writeln!(
        md,
        "\nSeed for seed (McNemar's exact test on the seeds both finished):\n\n| ours against | \
         seeds | both succeed | only ours | only the other | neither | p |\n\
         |---|---:|---:|---:|---:|---:|---:|"
    );
    let mine = successes(rows, "held-out", "ours");
    for (name, c) in &CONTENDERS[1..] {
        let pairs = paired(&mine, &successes(rows, "held-out", name));
        let count = |want: (bool, bool)| pairs.iter().filter(|&&p| p == want).count();
        let (only_ours, only_other) = (count((true, false)), count((false, true)));
        let _ = writeln!(
            md,
            "| {} | {} | {} | {only_ours} | {only_other} | {} | {:.2e} |",
            c.label,
            pairs.len(),
            count((true, true)),
            count((false, false)),
            stats::mcnemar_exact(only_ours, only_other)
        );
    }
    let ours = shares(rows, |j| {
        j.experiment == "held-out" && j.contender == "ours"
    });
    let goal = if ours.len() < HELD_OUT.clone().count() {
        "not decided: the held-out runs are not complete".to_string()
    } else {
        let rate = summary(&ours).1 as f64 / ours.len() as f64;
        format!(
            "{} (ours: {})",
            if rate >= 0.95 {
                "**met**"
            } else {
                "**not met**"
            },
            pct(rate)
        )
    };
    let _ = writeln!(
        md,
        "\nThe plan's goal, a held-out success rate of ours of at least 95 %: {goal}.\n"
    );
    let _ = writeln!(
        md,
        "## Paper 000's other plant settings, held-out seeds {}–{}\n\nSuccesses of each \
         contender at its demo β (ours / the paper's ETC-Ada).\n\n| costs | variance 0.02 | \
         variance 0.04 | variance 0.08 |\n|---|---|---|---|",
        SETTINGS_SEEDS.start(),
        SETTINGS_SEEDS.end()
    );
    for costs in COSTS {
        let cells: Vec<String> = VARIANCES
            .iter()
            .map(|&v| {
                let count = |name: &str| {
                    let s = shares(rows, |j| {
                        j.experiment == "settings"
                            && j.contender == name
                            && j.costs == costs
                            && j.variance == v
                    });
                    (summary(&s).1, s.len())
                };
                let ((a, n), (b, m)) = (count("ours"), count("paper"));
                format!("{a}/{n} / {b}/{m}")
            })
            .collect();
        let _ = writeln!(md, "| {costs} | {} |", cells.join(" | "));
    }
    settings_tests(&mut md, rows);
    candidate_test(&mut md, rows);
    if let Some(text) = discussion {
        md.push('\n');
        md.push_str(text.trim_end());
        md.push('\n');
    }
    md
}
