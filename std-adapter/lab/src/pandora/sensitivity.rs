//! Paper 002's sensitivity of PBGI to its λ and of PBGI-D to its λ₀ and β (Fig. 3, right, and
//! Fig. 12; App. D.3) on the paper's 256 seeds: the Bayesian-regret problem at d = 8 (κ = 0.1,
//! fixed model) under the cost `1 + 20·mean(u)` with budget 400, the setting of the main
//! study's Fig. 3 panel; the paper says only "the Bayesian regret experiment with d = 8" for
//! Fig. 12, and its code's grid is `λ₀ ∈ {0.1, 10⁻⁴} × β ∈ {2, 10, 100}`.
//!
//! As [`super::lookahead`], its report (`pandora-sensitivity.md`) is a function of one
//! committed file of per-seed finals (`pandora-sensitivity.finals.csv`, regret at a quarter, a
//! half and the whole of the budget), which a run's trace on disk updates.
//!
//! The paper's claims are read as paired tests, seed for seed (a seed fixes the GP sample path
//! and the initial design of every rule): large λ is better early and worse late; smaller λ₀
//! is "very slightly" worse early and better late; β has "minimal" effect; and PBGI-D is less
//! sensitive to its hyperparameters than PBGI is to λ, tested on each seed's spread (standard
//! deviation) of final regret across each family's settings.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::grid::{read_trace, regret_at, run_pending, run_traced, PandoraOptions, TraceJob};
use super::paired::{evidence, find, judge, Paired, ALPHA};
use super::run::{BoxCost, BoxModel, BoxRun};
use super::side::{kept, SideStudy};
use crate::study::{Status, Verdict};
use costbo_core::kernel::Shape;

/// The figure key `--objectives` selects this study by.
pub const KEY: &str = "sensitivity";

/// Seeds of the full study: the paper's for Figs. 3 and 12 (`--seeds` sets the quick grid's).
pub const SEEDS: u64 = 256;

/// Header of the finals file.
pub const HEADER: &str =
    "cell,rule,seed,regret_tenth,regret_quarter,regret_half,final_regret,decisions,seconds";

/// PBGI's fixed λ, Fig. 3's (the paper's code).
pub const FIXED: [&str; 5] = [
    "pbgi:0.1",
    "pbgi:0.01",
    "pbgi:0.001",
    "pbgi:0.0001",
    "pbgi:0.00001",
];

/// PBGI-D's `(λ₀, β)`, Fig. 12's; `pbgi-d` is the paper's default `(0.1, 2)`.
pub const DECAYING: [&str; 6] = [
    "pbgi-d",
    "pbgi-d:0.1:10",
    "pbgi-d:0.1:100",
    "pbgi-d:0.0001:2",
    "pbgi-d:0.0001:10",
    "pbgi-d:0.0001:100",
];

/// The spread of final regret across [`FIXED`] on a seed (a pseudo-rule of the spread table).
const FIXED_SPREAD: &str = "PBGI over its 5 λ";

/// The spread across [`DECAYING`].
const DECAYING_SPREAD: &str = "PBGI-D over its 6 (λ₀, β)";

/// An equivalence margin of the β claim, as a fraction of the between-seed interquartile range
/// of PBGI-D's regret at the same point of the budget: the paper's "minimal overall impact on
/// performance … on the scale of variability".
pub const BETA_MARGIN: f64 = 0.1;

/// The points of the budget the report reads regret at, and their labels.
const POINTS: [(f64, &str); 4] = [(0.1, "B/10"), (0.25, "B/4"), (0.5, "B/2"), (1.0, "B")];

/// The point the claims call early ("sooner", "small time scales").
const EARLY: usize = 0;

/// The end of the budget.
const END: usize = 3;

/// The study's one cell.
#[derive(Debug, Clone, PartialEq)]
pub struct CellSpec {
    /// Key in paths, tables and the finals.
    pub key: &'static str,
    /// Dimension.
    pub dim: usize,
    /// Budget.
    pub budget: f64,
}

/// The cell: d = 8, budget 400 (quick: d = 2, budget 20).
pub fn cell(quick: bool) -> CellSpec {
    if quick {
        CellSpec {
            key: "quick-gp-matern52-d2-linear",
            dim: 2,
            budget: 20.0,
        }
    } else {
        CellSpec {
            key: "gp-matern52-d8-linear",
            dim: 8,
            budget: 400.0,
        }
    }
}

/// Seeds per rule: [`SEEDS`], or the options' for the quick grid.
pub fn seeds(options: &PandoraOptions) -> u64 {
    if options.quick {
        options.seeds
    } else {
        SEEDS
    }
}

fn rules() -> impl Iterator<Item = &'static str> {
    FIXED.iter().chain(DECAYING.iter()).copied()
}

/// One run.
#[derive(Debug, Clone)]
pub struct Job {
    cell: CellSpec,
    rule: &'static str,
    seed: u64,
}

impl Job {
    fn path(&self, out: &Path) -> PathBuf {
        out.join(KEY)
            .join(self.cell.key)
            .join(self.rule.replace(':', "_"))
            .join(format!("seed-{}.csv", self.seed))
    }
}

/// Whether `options` select the study (it has one cell: its key selects it whole).
fn selected(options: &PandoraOptions) -> bool {
    match &options.figures {
        None => true,
        Some(keep) => keep.iter().any(|k| k == KEY),
    }
}

/// The study's jobs in a fixed order (rules, seeds); none when it is not selected.
fn jobs(options: &PandoraOptions) -> Vec<Job> {
    if !selected(options) {
        return Vec::new();
    }
    let cell = cell(options.quick);
    rules()
        .flat_map(|rule| {
            let cell = cell.clone();
            (0..seeds(options)).map(move |seed| Job {
                cell: cell.clone(),
                rule,
                seed,
            })
        })
        .collect()
}

impl TraceJob for Job {
    fn path(&self, out: &Path) -> PathBuf {
        Job::path(self, out)
    }

    fn seed(&self) -> u64 {
        self.seed
    }

    fn label(&self) -> String {
        format!("{KEY} {} seed {}", self.rule, self.seed)
    }

    fn run(&self) -> Result<super::grid::Trace, String> {
        let run = BoxRun {
            rule: self.rule.to_string(),
            seed: self.seed,
            budget: self.cell.budget,
            cost: BoxCost::MeanLinear,
            model: BoxModel::Fixed {
                lengthscale: 0.1,
                shape: Shape::Matern52,
            },
            paper_optimiser: true,
        };
        run_traced("gp-matern52", self.cell.dim, true, &run, None)
    }
}

/// One finished run as the finals file holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct Final {
    /// Cell key.
    pub cell: String,
    /// Rule.
    pub rule: String,
    /// Seed.
    pub seed: u64,
    /// Regret after a tenth, a quarter, a half and the whole of the budget (the trace read as
    /// a step function of the budget spent).
    pub regret: [f64; 4],
    /// Decisions the run made.
    pub decisions: usize,
    /// CPU seconds of its decisions.
    pub seconds: f64,
}

impl super::finals::Row for Final {
    const HEADER: &'static str = HEADER;

    fn key(&self) -> super::finals::RunKey {
        (self.cell.clone(), self.rule.clone(), self.seed)
    }

    fn values(&self) -> String {
        let [a, b, c, d] = self.regret;
        format!(
            "{a:?},{b:?},{c:?},{d:?},{},{:?}",
            self.decisions, self.seconds
        )
    }

    fn from_fields((cell, rule, seed): super::finals::RunKey, f: &[&str]) -> Option<Self> {
        let number = |t: &str| t.parse::<f64>().ok();
        Some(Final {
            cell,
            rule,
            seed,
            regret: [number(f[0])?, number(f[1])?, number(f[2])?, number(f[3])?],
            decisions: f[4].parse().ok()?,
            seconds: number(f[5])?,
        })
    }
}

/// The finals file: [`HEADER`], then one row per run.
pub fn to_csv(rows: &[Final]) -> String {
    super::finals::write_rows(rows)
}

/// Reads a finals file; an error names the line.
pub fn parse(text: &str) -> Result<Vec<Final>, String> {
    super::finals::parse_rows(text)
}

/// The study, as the main study runs it ([`SideStudy`]).
#[derive(Debug, Clone, Copy)]
pub struct Sensitivity;

impl SideStudy for Sensitivity {
    fn key(&self) -> &'static str {
        KEY
    }

    fn selected(&self, options: &PandoraOptions) -> bool {
        selected(options)
    }

    fn job_count(&self, options: &PandoraOptions) -> usize {
        jobs(options).len()
    }

    fn run_missing(
        &self,
        options: &PandoraOptions,
        keep: &dyn Fn(usize) -> bool,
    ) -> Result<(), String> {
        let jobs = kept(jobs(options), keep);
        if jobs.is_empty() {
            return Ok(());
        }
        run_pending("pandora sensitivity", &jobs, options)
    }

    fn report(&self, options: &PandoraOptions) -> Result<Vec<Verdict>, String> {
        let finals_file = self.finals_path(&options.report);
        let finals = gather(options, &finals_file)?;
        let path = self.report_path(&options.report);
        let discussion = crate::reproduce::report::discussion(&path);
        let (md, verdicts) = render(&finals, options.quick, seeds(options), &discussion)?;
        crate::experiment::write_atomic(&finals_file, &to_csv(&finals))?;
        crate::experiment::write_atomic(&path, &md)?;
        Ok(verdicts)
    }
}

/// The committed rows of `finals_file` updated by the traces on disk
/// ([`super::finals::merge`]).
fn gather(options: &PandoraOptions, finals_file: &Path) -> Result<Vec<Final>, String> {
    let everything = PandoraOptions {
        figures: None,
        ..options.clone()
    };
    let fresh = jobs(&everything).into_iter().map(|job| {
        let key = (job.cell.key.to_string(), job.rule.to_string(), job.seed);
        let row = read_trace(&job.path(&options.out)).map(|t| Final {
            cell: key.0.clone(),
            rule: key.1.clone(),
            seed: key.2,
            regret: POINTS.map(|(f, _)| regret_at(&t, f * job.cell.budget)),
            decisions: t.rounds.len(),
            seconds: t.rounds.iter().map(|r| r.decide_seconds).sum(),
        });
        (key, row)
    });
    super::finals::merge(finals_file, fresh)
}

/// Final regret of `rule` at point `k` of the budget, by seed.
fn regret_by_seed(finals: &[Final], cell: &str, rule: &str, k: usize) -> Vec<(u64, f64)> {
    finals
        .iter()
        .filter(|f| f.cell == cell && f.rule == rule)
        .map(|f| (f.seed, f.regret[k]))
        .collect()
}

/// Each seed's sample standard deviation of the regrets of `family` at point `k`, on the seeds
/// every setting of the family finished.
fn spread_by_seed(finals: &[Final], cell: &str, family: &[&str], k: usize) -> Vec<(u64, f64)> {
    let mut by_seed: BTreeMap<u64, Vec<f64>> = BTreeMap::new();
    for f in finals
        .iter()
        .filter(|f| f.cell == cell && family.contains(&f.rule.as_str()))
    {
        by_seed.entry(f.seed).or_default().push(f.regret[k]);
    }
    by_seed
        .into_iter()
        .filter(|(_, v)| v.len() == family.len())
        .map(|(s, v)| {
            let n = v.len() as f64;
            let mean = v.iter().sum::<f64>() / n;
            let ss: f64 = v.iter().map(|x| (x - mean) * (x - mean)).sum();
            (s, (ss / (n - 1.0)).sqrt())
        })
        .collect()
}

/// A scope label: the cell at a point of the budget.
fn scope(cell: &str, k: usize) -> String {
    format!("{cell} at {}", POINTS[k].1)
}

/// The point index and cell of a scope label.
fn parse_scope(scope: &str) -> (usize, &str) {
    for (k, (_, label)) in POINTS.iter().enumerate() {
        if let Some(cell) = scope.strip_suffix(&format!(" at {label}")) {
            return (k, cell);
        }
    }
    (POINTS.len() - 1, scope)
}

/// The regret comparisons at every point of the budget: λ = 0.1 and 0.01 against 10⁻⁵; λ₀ =
/// 10⁻⁴ against 0.1 (β = 2); each β against 2 at both λ₀.
fn regret_comparisons(cell: &str) -> Vec<(String, &'static str, &'static str)> {
    let mut out = Vec::new();
    for k in 0..POINTS.len() {
        let s = scope(cell, k);
        out.push((s.clone(), "pbgi:0.1", "pbgi:0.00001"));
        out.push((s.clone(), "pbgi:0.01", "pbgi:0.00001"));
        out.push((s.clone(), "pbgi-d:0.0001:2", "pbgi-d"));
        for (beta, base) in [
            ("pbgi-d:0.1:10", "pbgi-d"),
            ("pbgi-d:0.1:100", "pbgi-d"),
            ("pbgi-d:0.0001:10", "pbgi-d:0.0001:2"),
            ("pbgi-d:0.0001:100", "pbgi-d:0.0001:2"),
        ] {
            out.push((s.clone(), beta, base));
        }
    }
    out
}

/// The spread comparisons: PBGI's spread over λ against PBGI-D's over `(λ₀, β)`, at each point.
fn spread_comparisons(cell: &str) -> Vec<(String, &'static str, &'static str)> {
    (0..POINTS.len())
        .map(|k| (scope(cell, k), FIXED_SPREAD, DECAYING_SPREAD))
        .collect()
}

/// The report's text and verdicts from the finals alone and the hand-written discussion's
/// section (empty for none).
pub fn render(
    finals: &[Final],
    quick: bool,
    seeds: u64,
    discussion: &str,
) -> Result<(String, Vec<Verdict>), String> {
    let c = cell(quick);
    let mut md = String::new();
    let _ = writeln!(
        md,
        "# Paper 002: PBGI's λ and PBGI-D's λ₀ and β (Fig. 3, right; Fig. 12)\n\n\
         Produced by `costbo reproduce pandora --objectives {KEY}{}` from \
         `pandora-sensitivity.finals.csv` (committed: one row per finished run; `--no-run` \
         rewrites this report from it alone). The main study's report is `pandora.md`.\n\n\
         Bayesian regret: a Matérn-5/2 GP sample path (κ = 0.1) at d = {}, the model fixed at \
         the prior's hyperparameters, the cost `1 + 20·mean(u)`, budget {} (the main study's \
         Fig. 3 panel; the paper gives Fig. 12 no cost setting of its own). PBGI with each λ of \
         Fig. 3 ({}), PBGI-D with each (λ₀, β) of its code's Fig. 12 grid (`pbgi-d` is the \
         default, λ₀ = 0.1, β = 2). A seed fixes the GP sample path and the initial design of \
         every rule; the paper draws both figures on 256 seeds.",
        if quick { " --quick" } else { "" },
        c.dim,
        c.budget,
        FIXED
            .iter()
            .map(|r| r.trim_start_matches("pbgi:"))
            .collect::<Vec<_>>()
            .join(", "),
    );
    let _ = writeln!(
        md,
        "\nRegret after a tenth, a quarter, a half and the whole of the budget: medians over \
         seeds, the quartiles at the end, and the mean CPU seconds per decision.\n\n\
         | rule | median at B/10 | median at B/4 | median at B/2 | median at B | 25 % at B | 75 % at B | seeds | s per decision |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for rule in rules() {
        let runs: Vec<&Final> = finals
            .iter()
            .filter(|f| f.cell == c.key && f.rule == rule)
            .collect();
        if runs.is_empty() {
            let _ = writeln!(md, "| {rule} | not run | | | | | | 0 | |");
            continue;
        }
        let at = |k: usize| -> Vec<f64> {
            let mut v: Vec<f64> = runs.iter().map(|f| f.regret[k]).collect();
            v.sort_by(f64::total_cmp);
            v
        };
        let decisions: usize = runs.iter().map(|f| f.decisions).sum();
        let seconds: f64 = runs.iter().map(|f| f.seconds).sum();
        let _ = writeln!(
            md,
            "| {rule} | {:.4} | {:.4} | {:.4} | {} | {:.4} |",
            super::grid::median(&at(0)),
            super::grid::median(&at(1)),
            super::grid::median(&at(2)),
            super::grid::quartile_columns(&at(END)),
            seconds / decisions.max(1) as f64
        );
    }
    let regret = super::paired::compare(&regret_comparisons(c.key), |s, rule| {
        let (k, cell) = parse_scope(s);
        regret_by_seed(finals, cell, rule, k)
    })?;
    let spread = super::paired::compare(&spread_comparisons(c.key), |s, family| {
        let (k, cell) = parse_scope(s);
        let family: &[&str] = if family == FIXED_SPREAD {
            &FIXED
        } else {
            &DECAYING
        };
        spread_by_seed(finals, cell, family, k)
    })?;
    super::paired::table(
        &mut md,
        "Paired comparisons of regret",
        "regret, first rule minus second (negative: the first is better)",
        &regret,
    );
    super::paired::table(
        &mut md,
        "Paired comparisons of sensitivity",
        "per-seed standard deviation of regret across a family's settings, PBGI's over its 5 λ \
         minus PBGI-D's over its 6 (λ₀, β) (positive: PBGI is the more sensitive; the seeds are \
         those on which every setting of both families finished)",
        &spread,
    );
    let margins = beta_margins(finals, c.key);
    let verdicts = verdicts(&regret, &spread, &margins, c.key);
    let _ = writeln!(
        md,
        "\n## Verdicts on the paper's sensitivity claims\n\n\
         \"Shown\" means Holm-corrected p ≤ {ALPHA} in the tables above. β's \"minimal \
         effect\" is judged against an equivalence margin fixed before the run: {BETA_MARGIN} \
         of the between-seed interquartile range of PBGI-D's regret at the same point ({}).\n\n\
         | claim | scope | verdict | evidence |\n|---|---|---|---|",
        margins
            .iter()
            .enumerate()
            .filter_map(|(k, m)| m.map(|m| format!("±{m:.4} at {}", POINTS[k].1)))
            .collect::<Vec<_>>()
            .join(", ")
    );
    for v in &verdicts {
        md.push_str(&super::grid::verdict_row(v));
    }
    md.push_str(discussion);
    md.push_str(&not_run(finals, quick, seeds));
    Ok((md, verdicts))
}

/// β's equivalence margin at each point: [`BETA_MARGIN`] × the interquartile range of the
/// default PBGI-D's regret (`None` with no run).
fn beta_margins(finals: &[Final], cell: &str) -> [Option<f64>; 4] {
    [0, 1, 2, 3].map(|k| {
        let mut v: Vec<f64> = regret_by_seed(finals, cell, "pbgi-d", k)
            .into_iter()
            .map(|x| x.1)
            .collect();
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        Some(BETA_MARGIN * (super::grid::quantile(&v, 0.75) - super::grid::quantile(&v, 0.25)))
    })
}

fn verdict(claim: &str, scope: &str, status: Status, evidence: String) -> Verdict {
    super::paired::verdict(KEY, claim, scope, status, evidence)
}

/// Every comparison of `pairs` (early, late) as expected: `Supported`; one of them:
/// `Partly`; none: `NotSupported`; a missing one: `Inconclusive`.
fn early_and_late(rows: [Option<&Paired>; 2], early: i8, late: i8) -> Status {
    match rows {
        [Some(a), Some(b)] => match (a.sign() == early, b.sign() == late) {
            (true, true) => Status::Supported,
            (false, false) => Status::NotSupported,
            _ => Status::Partly,
        },
        _ => Status::Inconclusive,
    }
}

fn verdicts(
    regret: &[Paired],
    spread: &[Paired],
    margins: &[Option<f64>; 4],
    cell: &str,
) -> Vec<Verdict> {
    let (early, late) = (scope(cell, EARLY), scope(cell, END));
    let mut out = Vec::new();
    let rows = [
        find(regret, &early, "pbgi:0.1", "pbgi:0.00001"),
        find(regret, &late, "pbgi:0.1", "pbgi:0.00001"),
    ];
    out.push(verdict(
        "Fig. 3: a large λ (0.1) decreases regret sooner (lower at B/10) but eventually loses \
         to a small one (1e-5; higher at B)",
        cell,
        early_and_late(rows, -1, 1),
        evidence(&rows),
    ));
    let rows = [
        find(regret, &early, "pbgi:0.01", "pbgi:0.00001"),
        find(regret, &late, "pbgi:0.01", "pbgi:0.00001"),
    ];
    out.push(verdict(
        "Fig. 3, a second pair chosen after the main study's 16 seeds showed λ = 0.1 stalling: \
         λ = 0.01 lower than 1e-5 at B/10, higher at B",
        cell,
        early_and_late(rows, -1, 1),
        evidence(&rows),
    ));
    let rows = [
        find(regret, &early, "pbgi-d:0.0001:2", "pbgi-d"),
        find(regret, &late, "pbgi-d:0.0001:2", "pbgi-d"),
    ];
    out.push(verdict(
        "Fig. 12: a smaller λ₀ (1e-4 against 0.1) gives very slightly higher regret on small \
         time scales (B/10) and very slightly lower on larger ones (B)",
        cell,
        early_and_late(rows, 1, -1),
        evidence(&rows),
    ));
    let beta: Vec<Option<&Paired>> = [&early, &late]
        .iter()
        .flat_map(|s| {
            [
                ("pbgi-d:0.1:10", "pbgi-d"),
                ("pbgi-d:0.1:100", "pbgi-d"),
                ("pbgi-d:0.0001:10", "pbgi-d:0.0001:2"),
                ("pbgi-d:0.0001:100", "pbgi-d:0.0001:2"),
            ]
            .map(|(a, b)| find(regret, s, a, b))
        })
        .collect();
    let status = if beta.iter().any(Option::is_none) || margins.iter().any(Option::is_none) {
        Status::Inconclusive
    } else if beta.iter().flatten().any(|r| r.sign() != 0) {
        Status::NotSupported
    } else if beta.iter().flatten().all(|r| {
        let m = margins[parse_scope(&r.cell).0].unwrap_or(0.0);
        r.shift.lower >= -m && r.shift.upper <= m
    }) {
        Status::Supported
    } else {
        Status::Partly
    };
    let intervals = beta
        .iter()
        .flatten()
        .map(|r| {
            format!(
                "{} − {} at {} {:+.4} [{:+.4}, {:+.4}]",
                r.first,
                r.second,
                POINTS[parse_scope(&r.cell).0].1,
                r.shift.estimate,
                r.shift.lower,
                r.shift.upper
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    out.push(verdict(
        "Fig. 12: β (2, 10, 100) has minimal effect on regret: no difference shown at B/10 \
         or B, every 95 % interval inside the margin",
        cell,
        status,
        intervals,
    ));
    let rows: Vec<Option<&Paired>> = (0..POINTS.len())
        .map(|k| find(spread, &scope(cell, k), FIXED_SPREAD, DECAYING_SPREAD))
        .collect();
    out.push(verdict(
        "App. D.3: in terms of regret, PBGI-D is less sensitive to its hyperparameters than \
         PBGI is to λ (each seed's spread across settings larger for PBGI at B/10, B/4, B/2 \
         and B)",
        cell,
        judge(&rows, |r| r.sign() > 0),
        evidence(&rows),
    ));
    out
}

/// The rules with fewer finished seeds than the study's, priced from the runs that did finish.
fn not_run(finals: &[Final], quick: bool, seeds: u64) -> String {
    let c = cell(quick);
    let mut s = String::from("\n## Runs not finished\n\n");
    let super::finals::Unfinished {
        counts,
        missing,
        hours,
        unpriced,
    } = super::finals::unfinished(rules(), seeds, |rule| {
        finals
            .iter()
            .filter(|f| f.cell == c.key && f.rule == rule)
            .map(|f| f.seconds)
            .collect()
    });
    if missing == 0 {
        s.push_str("Every run has finished.\n");
        return s;
    }
    let _ = writeln!(
        s,
        "- `{}`: {} of {seeds} seeds; the other {missing} runs need about {hours:.2} h of CPU \
         in their decisions, priced at the mean of each rule's finished runs{} (`costbo \
         reproduce pandora --objectives {KEY}`).",
        c.key,
        counts.join(", "),
        unpriced,
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(rule: &str, seed: u64, regret: [f64; 4]) -> Final {
        Final {
            cell: cell(false).key.into(),
            rule: rule.into(),
            seed,
            regret,
            decisions: 10,
            seconds: 0.5,
        }
    }

    #[test]
    fn finals_round_trip_bit_for_bit() {
        let rows = vec![
            row("pbgi:0.1", 0, [0.7, 0.1 + 0.2, 1e-300, 0.0]),
            row(
                "pbgi-d:0.0001:100",
                255,
                [4.0, 3.5, -1e-9, f64::MIN_POSITIVE],
            ),
        ];
        assert_eq!(parse(&to_csv(&rows)).unwrap(), rows);
        assert!(parse("cell,rule\n").is_err());
        assert!(parse(&format!("{HEADER}\na,b,0,1,2,3,4,x,5\n")).is_err());
        assert!(parse(&format!("{HEADER}\na,b,0,1,2,3,4,5\n")).is_err());
    }

    #[test]
    fn every_rule_name_parses_and_the_default_schedule_is_the_bare_name() {
        use costbo_core::policy::{PolicySpec, RuleDefaults};
        let d = RuleDefaults::<f64>::new(0.0);
        for rule in rules() {
            assert!(PolicySpec::parse(rule, &d).is_ok(), "{rule}");
        }
        assert_eq!(
            PolicySpec::parse("pbgi-d", &d),
            PolicySpec::parse("pbgi-d:0.1:2", &d)
        );
        assert_eq!(
            PolicySpec::parse("pbgi:0.0001", &d),
            PolicySpec::parse("pbgi", &d)
        );
    }

    #[test]
    fn spread_is_the_sample_deviation_on_seeds_every_setting_finished() {
        // Seed 0: regrets 1, 2, 3, 4, 5 at the end, sample variance 2.5; seed 1 misses one λ.
        let mut finals: Vec<Final> = FIXED
            .iter()
            .enumerate()
            .map(|(i, r)| row(r, 0, [0.0, 0.0, 0.0, (i + 1) as f64]))
            .collect();
        finals.extend(FIXED[1..].iter().map(|r| row(r, 1, [0.0; 4])));
        let s = spread_by_seed(&finals, cell(false).key, &FIXED, END);
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].0, 0);
        assert!((s[0].1 - 2.5f64.sqrt()).abs() < 1e-15);
    }

    /// A synthetic study with the paper's shape: λ = 0.1 better early and worse late, λ₀ = 1e-4
    /// slightly worse early and better late, β without effect (identical regrets), PBGI's
    /// settings spread widely and PBGI-D's narrowly.
    #[test]
    fn the_papers_shape_gives_supported_verdicts_and_its_reverse_does_not() {
        let make = |reverse: bool| {
            let mut finals = Vec::new();
            for seed in 0..12u64 {
                let base = 1.0 + 0.1 * seed as f64;
                let sign = if reverse { -1.0 } else { 1.0 };
                for (i, r) in FIXED.iter().enumerate() {
                    // λ from large to small: early regret grows, late regret falls.
                    let t = i as f64 * sign;
                    finals.push(row(
                        r,
                        seed,
                        [base + t, base + 0.7 * t, base + 0.5 * t, base - 0.2 * t],
                    ));
                }
                for r in DECAYING {
                    let small = r.starts_with("pbgi-d:0.0001") as u8 as f64 * sign;
                    finals.push(row(
                        r,
                        seed,
                        [
                            base + 0.01 * small,
                            base + 0.007 * small,
                            base + 0.005 * small,
                            base - 0.01 * small,
                        ],
                    ));
                }
            }
            finals
        };
        let (md, v) = render(&make(false), false, SEEDS, "").unwrap();
        let status: Vec<Status> = v.iter().map(|v| v.status).collect();
        assert_eq!(status, [Status::Supported; 5], "{md}");
        // 12 of 256 seeds of 11 rules finished: 11 × 244 runs are left.
        assert!(md.contains("the other 2684 runs"), "{md}");
        let (_, v) = render(&make(true), false, SEEDS, "").unwrap();
        assert_eq!(v[0].status, Status::NotSupported);
        assert_eq!(v[1].status, Status::NotSupported);
        assert_eq!(v[2].status, Status::NotSupported);
        // No run at all: nothing is judged.
        let (md, v) = render(&[], false, SEEDS, "").unwrap();
        assert!(v.iter().all(|v| v.status == Status::Inconclusive));
        assert!(md.contains("| pbgi-d | not run |"));
    }
}
