//! Our variants against the papers' best methods, seed for seed on fresh seeds
//! (`docs/results/variants/PLAN.md`): the planned jobs, their per-seed results in one CSV per
//! study, and the report computed from that CSV alone (`costbo reproduce variants`).
//!
//! The plan's cells and algorithms come from the committed baselines
//! (`docs/results/variants/<study>.baselines.csv`: the paper's best method of each cell on the
//! tuning seeds); the jobs are the runner's, in the settings of the study's reproduction grid
//! with the fresh seeds, so a cell here is a cell of `costbo reproduce <study>`.

pub mod demo;
pub mod report;
pub use costbo_eval::stats;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::experiment::{self, JobTime, RunOptions, Settings};
use crate::reproduce::{cvs, unknown_cost};
use crate::study::{Outcome, Outputs, Request, Setting, Study};

/// The studies with a variants comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VariantStudy {
    /// Paper 000's grid (`costbo reproduce ucb-cvs`).
    UcbCvs,
    /// Paper 001's grid (`costbo reproduce unknown-cost`).
    UnknownCost,
}

/// Both studies, in the plan's order.
pub const STUDIES: [VariantStudy; 2] = [VariantStudy::UcbCvs, VariantStudy::UnknownCost];

/// Where the plan, the baselines, the per-seed data and the reports live.
pub const DOCS: &str = "docs/results/variants";

/// Paired final regrets closer than this are a tie: the observation noise standard deviation of
/// both grids. It is also the floor of a regret in a log-ratio.
pub const TIE: f64 = 0.01;

/// Family-wise error rate of Holm's correction, and one minus the intervals' coverage.
pub const ALPHA: f64 = 0.05;

/// What an algorithm is in the comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The paper's best method of the cell (on the paper's fixed model).
    Baseline,
    /// A frozen variant of ours.
    Variant,
    /// A control that separates the model from the rule.
    Control,
}

impl Role {
    /// The name in the per-seed CSV.
    pub fn name(self) -> &'static str {
        match self {
            Role::Baseline => "baseline",
            Role::Variant => "variant",
            Role::Control => "control",
        }
    }
}

impl VariantStudy {
    /// The study's name (that of its reproduction).
    pub fn name(self) -> &'static str {
        match self {
            VariantStudy::UcbCvs => "ucb-cvs",
            VariantStudy::UnknownCost => "unknown-cost",
        }
    }

    /// The paper.
    pub fn paper(self) -> &'static str {
        match self {
            VariantStudy::UcbCvs => "paper 000 (UCB-CVS, cost-varying variable subsets)",
            VariantStudy::UnknownCost => "paper 001 (unknown random costs)",
        }
    }

    /// The fresh seeds (not used in any tuning).
    pub fn seeds(self) -> Vec<u64> {
        match self {
            VariantStudy::UcbCvs => (10..30).collect(),
            VariantStudy::UnknownCost => (5..25).collect(),
        }
    }

    /// The headline variant, whose result the plan's criterion is about.
    pub fn headline(self) -> &'static str {
        match self {
            VariantStudy::UcbCvs => "etc-ada+fitted",
            VariantStudy::UnknownCost => "unknown-cost+fitted",
        }
    }

    /// Every frozen variant of ours.
    pub fn variants(self) -> &'static [&'static str] {
        match self {
            VariantStudy::UcbCvs => &["etc-ada+fitted", "gittins-cvs", "gittins-cvs+fitted"],
            VariantStudy::UnknownCost => &["unknown-cost+fitted"],
        }
    }

    /// Wins the criterion asks of the headline variant: half of the cells.
    pub fn wins_needed(self) -> usize {
        match self {
            VariantStudy::UcbCvs => 18,
            VariantStudy::UnknownCost => 8,
        }
    }

    /// The settings of the study's reproduction grid (its objectives, sets, budgets, bank,
    /// judge, noise, round cap and prior mean), with the fresh seeds.
    fn grid(self) -> Settings {
        let mut parts = match self {
            VariantStudy::UcbCvs => cvs::grid(1),
            VariantStudy::UnknownCost => unknown_cost::grid(1),
        };
        let mut s = parts.swap_remove(0).settings;
        s.seeds = experiment::Seeds::List(self.seeds());
        s
    }

    /// Role of `algorithm` in a cell whose paper's best method is `baseline`.
    pub fn role(self, algorithm: &str, baseline: &str) -> Role {
        if algorithm == baseline {
            Role::Baseline
        } else if self.variants().contains(&algorithm) {
            Role::Variant
        } else {
            Role::Control
        }
    }
}

/// The paper's best method of one cell, from the committed baselines file.
#[derive(Debug, Clone, PartialEq)]
pub struct Baseline {
    /// Objective label.
    pub objective: String,
    /// Cost preset.
    pub costs: String,
    /// Variance as written in the file.
    pub variance: String,
    /// The paper's method with the lowest mean final regret on the tuning seeds.
    pub baseline: String,
}

impl Baseline {
    /// The cell's key in the per-seed CSV: `<objective>_<costs>_v<variance>`, the runner's
    /// cell name without its algorithm.
    pub fn cell(&self) -> String {
        format!("{}_{}_v{}", self.objective, self.costs, self.variance)
    }
}

/// Reads `DOCS/<study>.baselines.csv` (header `objective,costs,variance,baseline,mean,se`).
pub fn read_baselines(docs: &Path, study: VariantStudy) -> Result<Vec<Baseline>, String> {
    let path = docs.join(format!("{}.baselines.csv", study.name()));
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut lines = text.lines();
    if lines.next() != Some("objective,costs,variance,baseline,mean,se") {
        return Err(format!(
            "{}: not a baselines file (its header)",
            path.display()
        ));
    }
    lines
        .filter(|l| !l.is_empty())
        .enumerate()
        .map(|(i, l)| {
            let f: Vec<&str> = l.split(',').collect();
            if f.len() != 6 {
                return Err(format!(
                    "{}: row {}: 6 fields expected",
                    path.display(),
                    i + 1
                ));
            }
            Ok(Baseline {
                objective: f[0].into(),
                costs: f[1].into(),
                variance: f[2].into(),
                baseline: f[3].into(),
            })
        })
        .collect()
}

/// One planned cell: its baseline and the algorithms of a phase.
#[derive(Debug, Clone)]
pub struct PlannedCell {
    /// The plan's phase.
    pub phase: &'static str,
    /// The cell and its paper's best method.
    pub baseline: Baseline,
    /// Algorithms run on every fresh seed.
    pub algorithms: Vec<String>,
}

/// Paper 001's method as its authors' code runs it (the plan's C5): the code's exploitation on
/// the model it refits by Adam once exploration ends.
pub const AUTHORS_CODE: &str = "unknown-cost-code+adam";

/// The plan's phases, in its order.
pub const PHASES: [&str; 4] = ["000-main", "000-cheap", "001", "000-gittins"];

/// The study's planned cells, phase by phase in the plan's order .
pub fn plan(study: VariantStudy, baselines: &[Baseline]) -> Vec<PlannedCell> {
    let mut out = Vec::new();
    for phase in PHASES {
        for b in baselines {
            let mut algorithms: Vec<String> = match (study, phase) {
                (VariantStudy::UcbCvs, "000-main" | "000-cheap") => {
                    if (b.costs == "cheap") != (phase == "000-cheap") {
                        continue;
                    }
                    vec![b.baseline.clone(), "etc-ada+fitted".into()]
                }
                (VariantStudy::UcbCvs, "000-gittins") if b.costs == "expensive" => [
                    "gittins-cvs",
                    "ei-psq",
                    "gittins-cvs+fitted",
                    "ei-psq+fitted",
                ]
                .map(String::from)
                .to_vec(),
                (VariantStudy::UnknownCost, "001") => {
                    vec![b.baseline.clone(), "unknown-cost+fitted".into()]
                }
                _ => continue,
            };
            if phase != "000-gittins" {
                algorithms.push(format!("{}+fitted", b.baseline));
                if study == VariantStudy::UnknownCost {
                    if b.baseline != "unknown-cost" {
                        algorithms.push("unknown-cost".into());
                    }
                    algorithms.push(AUTHORS_CODE.into());
                }
            }
            let mut seen = std::collections::HashSet::new();
            // Where the paper's best is ETC-Ada, its fitted form is our variant: run it once.
            algorithms.retain(|a| seen.insert(a.clone()));
            out.push(PlannedCell {
                phase,
                baseline: b.clone(),
                algorithms,
            });
        }
    }
    out
}

/// The runner's settings of a planned cell.
fn cell_settings(study: VariantStudy, cell: &PlannedCell) -> Result<Settings, String> {
    let mut s = study.grid();
    s.objectives
        .retain(|o| o.label() == cell.baseline.objective);
    s.costs = vec![experiment::CostSpec::Named(cell.baseline.costs.clone())];
    s.variances = vec![cell
        .baseline
        .variance
        .parse()
        .map_err(|_| format!("variance `{}` is not a number", cell.baseline.variance))?];
    s.algorithms = cell.algorithms.clone();
    if s.objectives.is_empty() {
        return Err(format!(
            "objective `{}` is not in the {} grid",
            cell.baseline.objective,
            study.name()
        ));
    }
    Ok(s)
}

/// One finished job of the comparison: a row of `DOCS/<study>.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct SeedRow {
    /// `<objective>_<costs>_v<variance>`.
    pub cell: String,
    /// Seed.
    pub seed: u64,
    /// Algorithm (runner name, `+fitted` for the fitted model).
    pub algorithm: String,
    /// `paper` for the cell's baseline, `ours` otherwise.
    pub origin: &'static str,
    /// See [`Role`].
    pub role: Role,
    /// Simple regret after the last round.
    pub final_simple_regret: f64,
    /// Rounds played.
    pub rounds: usize,
    /// CPU seconds of the job (`None` when its time file has none).
    pub cpu_seconds: Option<f64>,
}

/// The per-seed CSV's header.
pub const CSV_HEADER: &str =
    "cell,seed,algorithm,origin,role,final_simple_regret,rounds,cpu_seconds";

/// Writes rows as the per-seed CSV (floats in Rust's shortest round-trip form).
pub fn to_csv(rows: &[SeedRow]) -> String {
    let mut s = format!("{CSV_HEADER}\n");
    for r in rows {
        let _ = writeln!(
            s,
            "{},{},{},{},{},{:?},{},{}",
            r.cell,
            r.seed,
            r.algorithm,
            r.origin,
            r.role.name(),
            r.final_simple_regret,
            r.rounds,
            // Centiseconds: the clock's resolution, without the float noise of its difference.
            r.cpu_seconds.map(|c| format!("{c:.2}")).unwrap_or_default()
        );
    }
    s
}

/// A data row of a per-seed file, split into its fields.
pub(crate) struct CsvRow<'a> {
    row: usize,
    fields: Vec<&'a str>,
}

impl CsvRow<'_> {
    /// An error about this row: `row N: what`.
    fn bad(&self, what: &str) -> String {
        format!("row {}: {what}", self.row)
    }
}

/// The data rows of a per-seed file whose header must be `header`, each of exactly `fields`
/// fields.
pub(crate) fn csv_rows<'a>(
    text: &'a str,
    header: &str,
    fields: usize,
) -> Result<Vec<CsvRow<'a>>, String> {
    let mut lines = text.lines();
    if lines.next() != Some(header) {
        return Err(format!("not a per-seed file (header `{header}` expected)"));
    }
    lines
        .filter(|l| !l.is_empty())
        .enumerate()
        .map(|(i, l)| {
            let row = CsvRow {
                row: i + 1,
                fields: l.split(',').collect(),
            };
            if row.fields.len() != fields {
                return Err(row.bad(&format!("{fields} fields expected")));
            }
            Ok(row)
        })
        .collect()
}

/// Reads the per-seed CSV written by [`to_csv`].
pub fn from_csv(text: &str) -> Result<Vec<SeedRow>, String> {
    csv_rows(text, CSV_HEADER, 8)?
        .into_iter()
        .map(|row| {
            let (f, bad) = (&row.fields, |what: &str| row.bad(what));
            let role = match f[4] {
                "baseline" => Role::Baseline,
                "variant" => Role::Variant,
                "control" => Role::Control,
                _ => return Err(bad("role is not baseline, variant or control")),
            };
            let origin = match f[3] {
                "paper" => "paper",
                "ours" => "ours",
                _ => return Err(bad("origin is not paper or ours")),
            };
            let regret: f64 = f[5].parse().map_err(|_| bad("final_simple_regret"))?;
            if !regret.is_finite() {
                return Err(bad("final_simple_regret is not finite"));
            }
            Ok(SeedRow {
                cell: f[0].into(),
                seed: f[1].parse().map_err(|_| bad("seed"))?,
                algorithm: f[2].into(),
                origin,
                role,
                final_simple_regret: regret,
                rounds: f[6].parse().map_err(|_| bad("rounds"))?,
                cpu_seconds: if f[7].is_empty() {
                    None
                } else {
                    Some(f[7].parse().map_err(|_| bad("cpu_seconds"))?)
                },
            })
        })
        .collect()
}

/// Options of `costbo reproduce variants`.
#[derive(Debug, Clone)]
pub struct VariantOptions {
    /// The runner's output (`<out>/<study>/grid`).
    pub out: PathBuf,
    /// The plan, baselines, per-seed data and reports.
    pub docs: PathBuf,
    /// Worker threads.
    pub jobs: usize,
    /// Run the missing jobs; otherwise read the finished ones (or, with no `out`, the committed
    /// per-seed files).
    pub run: bool,
    /// Print the runner's progress.
    pub progress: bool,
    /// Run only these parts (`ucb-cvs`, `unknown-cost`, `demo`); all when empty.
    pub only: Vec<String>,
}

/// Runs the missing planned jobs (with `options.run`), gathers the per-seed rows from the
/// runner's output into `DOCS/<study>.csv` (when that output exists), and writes each study's
/// report from its per-seed file. Returns the files written.
pub fn reproduce(options: &VariantOptions) -> Result<Vec<PathBuf>, String> {
    let mut written = Vec::new();
    let mut studies = Vec::new();
    for study in STUDIES {
        let baselines = read_baselines(&options.docs, study)?;
        let rows = committed(&options.docs, study.name(), from_csv)?;
        studies.push((study, plan(study, &baselines), baselines, rows));
    }
    let demo_rows = committed(&options.docs, "demo", demo::from_csv)?;
    let wanted = |part: &str| options.only.is_empty() || options.only.iter().any(|o| o == part);
    if options.run {
        if wanted("demo") {
            demo::run(&options.out, &demo_rows, options.jobs, options.progress)?;
        }
        for phase in PHASES {
            for (study, planned, _, committed) in &studies {
                if !wanted(study.name()) {
                    continue;
                }
                for cell in planned.iter().filter(|c| c.phase == phase) {
                    let mut settings = cell_settings(*study, cell)?;
                    // The jobs whose rows are committed are not run again: the per-seed file
                    // carries a grid across machines whose `--out` did not survive. A seed some
                    // algorithm still lacks runs for all of them, so the cell stays paired.
                    let missing = missing_seeds(*study, cell, committed);
                    if missing.is_empty() {
                        continue;
                    }
                    settings.seeds = experiment::Seeds::List(missing);
                    let out = grid_dir(&options.out, *study);
                    if options.progress {
                        outln!(
                            "{phase}: {} {} → {}",
                            study.name(),
                            cell.baseline.cell(),
                            out.display()
                        );
                    }
                    experiment::run_shard(
                        &settings,
                        &RunOptions {
                            out,
                            jobs: options.jobs,
                            progress: options.progress,
                        },
                        experiment::Shard::WHOLE,
                    )?;
                }
            }
        }
    }
    for (study, planned, baselines, committed) in studies {
        let data = options.docs.join(format!("{}.csv", study.name()));
        let dir = grid_dir(&options.out, study);
        // With no runner output the committed rows are the data (none before any run: the
        // report says so).
        let rows = if dir.is_dir() {
            let rows = with_committed(study, &planned, collect(study, &planned, &dir)?, committed)?;
            experiment::write_atomic(&data, &to_csv(&rows))?;
            written.push(data.clone());
            rows
        } else {
            committed
        };
        let discussion = options.docs.join(format!("{}.discussion.md", study.name()));
        let discussion = std::fs::read_to_string(&discussion).ok();
        let md = report::render(study, &planned, &baselines, &rows, discussion.as_deref())?;
        let path = options.docs.join(format!("{}.md", study.name()));
        experiment::write_atomic(&path, &md)?;
        written.push(path);
    }
    let data = options.docs.join("demo.csv");
    let rows = if options.out.join("demo").is_dir() {
        let rows = demo::collect(&options.out, &demo_rows)?;
        experiment::write_atomic(&data, &demo::to_csv(&rows))?;
        written.push(data.clone());
        rows
    } else {
        demo_rows
    };
    let discussion = std::fs::read_to_string(options.docs.join("demo.discussion.md")).ok();
    let path = options.docs.join("demo.md");
    experiment::write_atomic(&path, &demo::render(&rows, discussion.as_deref()))?;
    written.push(path);
    Ok(written)
}

/// The committed per-seed rows of `DOCS/<name>.csv` (`parse` reads them), none when the file
/// does not exist yet.
fn committed<T>(
    docs: &Path,
    name: &str,
    parse: fn(&str) -> Result<Vec<T>, String>,
) -> Result<Vec<T>, String> {
    let data = docs.join(format!("{name}.csv"));
    match std::fs::read_to_string(&data) {
        Ok(text) => parse(&text).map_err(|e| format!("{}: {e}", data.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(format!("{}: {e}", data.display())),
    }
}

/// The fresh seeds on which some algorithm of `cell` has no committed row, in seed order.
fn missing_seeds(study: VariantStudy, cell: &PlannedCell, committed: &[SeedRow]) -> Vec<u64> {
    let name = cell.baseline.cell();
    let done: std::collections::HashSet<(&str, u64)> = committed
        .iter()
        .filter(|r| r.cell == name)
        .map(|r| (r.algorithm.as_str(), r.seed))
        .collect();
    study
        .seeds()
        .into_iter()
        .filter(|&seed| {
            cell.algorithms
                .iter()
                .any(|a| !done.contains(&(a.as_str(), seed)))
        })
        .collect()
}

/// The rows found in the runner's output with the committed rows it lacks, in plan order
/// (cell, algorithm, seed). A committed row of a job the plan no longer has is dropped.
fn with_committed(
    study: VariantStudy,
    planned: &[PlannedCell],
    found: Vec<SeedRow>,
    committed: Vec<SeedRow>,
) -> Result<Vec<SeedRow>, String> {
    let mut groups: Vec<(String, String)> = Vec::new();
    for cell in planned {
        for c in cell_settings(study, cell)?.cells()? {
            let key = (cell.baseline.cell(), c.algorithm_name.clone());
            if !groups.contains(&key) {
                groups.push(key);
            }
        }
    }
    let seeds = study.seeds();
    let position = |r: &SeedRow| {
        let g = groups
            .iter()
            .position(|(c, a)| *c == r.cell && *a == r.algorithm)?;
        let s = seeds.iter().position(|&s| s == r.seed)?;
        Some((g, s))
    };
    let mut seen = std::collections::HashSet::new();
    let mut rows: Vec<((usize, usize), SeedRow)> = Vec::new();
    for r in found.into_iter().chain(committed) {
        if let Some(p) = position(&r) {
            if seen.insert(p) {
                rows.push((p, r));
            }
        }
    }
    rows.sort_by_key(|(p, _)| *p);
    Ok(rows.into_iter().map(|(_, r)| r).collect())
}

fn grid_dir(out: &Path, study: VariantStudy) -> PathBuf {
    out.join(study.name()).join("grid")
}

/// The finished planned jobs in `dir`, in plan order (cell, algorithm, seed).
fn collect(
    study: VariantStudy,
    planned: &[PlannedCell],
    dir: &Path,
) -> Result<Vec<SeedRow>, String> {
    let mut rows = Vec::new();
    for cell in planned {
        let settings = cell_settings(study, cell)?;
        // A cell with no job here (its rows committed before, on another machine) would only
        // cost the best values of its sets, computed anew to summarise nothing.
        if !settings.cells()?.iter().any(|c| dir.join(&c.name).is_dir()) {
            continue;
        }
        let summary = experiment::summarise_finished(&settings, dir)?;
        for c in settings.cells()? {
            for job in summary.jobs.iter().filter(|j| j.cell == c.name) {
                let Some(regret) = job.final_simple_regret else {
                    continue;
                };
                let role = study.role(&c.algorithm_name, &cell.baseline.baseline);
                rows.push(SeedRow {
                    cell: cell.baseline.cell(),
                    seed: job.seed,
                    algorithm: c.algorithm_name.clone(),
                    origin: if role == Role::Baseline {
                        "paper"
                    } else {
                        "ours"
                    },
                    role,
                    final_simple_regret: regret,
                    rounds: job.rounds,
                    cpu_seconds: JobTime::read(dir, &c, job.seed).and_then(|t| t.cpu_seconds),
                });
            }
        }
    }
    // A baseline planned in two phases (none today) would be listed twice: keep the first.
    let mut seen = std::collections::HashSet::new();
    rows.retain(|r| seen.insert((r.cell.clone(), r.algorithm.clone(), r.seed)));
    Ok(rows)
}

/// Our variants against the papers' best methods (`costbo reproduce variants`).
#[derive(Debug, Clone, Copy)]
pub struct Variants;

/// The parts of the plan `--objectives` can select.
const PARTS: [&str; 3] = ["ucb-cvs", "unknown-cost", "demo"];

impl Study for Variants {
    fn name(&self) -> &'static str {
        "variants"
    }

    fn help(&self) -> &'static str {
        "Our variants against the papers' best methods on fresh seeds, papers 000 and 001 \
         (docs/results/variants/PLAN.md): runs the planned jobs into --out \
         (results/variants), gathers docs/results/variants/<study>.csv and writes the \
         reports; --no-run writes them from the finished jobs, or with no --out directory \
         from the committed per-seed files; --objectives ucb-cvs,demo runs only those parts"
    }

    fn takes(&self) -> &'static [Setting] {
        &[Setting::Objectives]
    }

    /// The runner's output in `--out` (default `results/variants`); the reports, with the
    /// plan and the per-seed files they are computed from, in [`DOCS`].
    fn outputs(&self, request: &Request) -> Outputs {
        Outputs {
            out: request
                .out
                .clone()
                .unwrap_or_else(|| PathBuf::from("results/variants")),
            report: PathBuf::from(DOCS),
        }
    }

    fn reproduce(&self, request: &Request) -> Result<Outcome, String> {
        let only = request.objectives.clone().unwrap_or_default();
        if let Some(bad) = only.iter().find(|o| !PARTS.contains(&o.as_str())) {
            return Err(format!(
                "--objectives {bad}: variants runs the parts ucb-cvs, unknown-cost and demo"
            ));
        }
        let options = VariantOptions {
            out: self.outputs(request).out,
            docs: PathBuf::from(DOCS),
            jobs: request.jobs,
            run: request.run,
            progress: true,
            only,
        };
        Ok(Outcome {
            written: reproduce(&options)?,
            ..Outcome::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cell: &str, algorithm: &str, seed: u64, regret: f64) -> SeedRow {
        SeedRow {
            cell: cell.into(),
            seed,
            algorithm: algorithm.into(),
            origin: "ours",
            role: Role::Variant,
            final_simple_regret: regret,
            rounds: 3,
            cpu_seconds: None,
        }
    }

    fn planned() -> Vec<PlannedCell> {
        let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/results/variants");
        let baselines = read_baselines(&docs, VariantStudy::UcbCvs).unwrap();
        plan(VariantStudy::UcbCvs, &baselines)
    }

    /// A seed is run again only where some algorithm of the cell lacks it.
    #[test]
    fn missing_seeds_are_those_any_algorithm_lacks() {
        let planned = planned();
        let cell = &planned[0];
        let name = cell.baseline.cell();
        let mut committed = Vec::new();
        for seed in 10..30 {
            for (i, a) in cell.algorithms.iter().enumerate() {
                // The last algorithm lacks seeds 17 and 29; every other one is complete.
                if i + 1 == cell.algorithms.len() && (seed == 17 || seed == 29) {
                    continue;
                }
                committed.push(row(&name, a, seed, 0.5));
            }
        }
        // Rows of another cell say nothing about this one.
        committed.push(row("other_cell_v0.02", &cell.algorithms[0], 11, 0.5));
        assert_eq!(
            missing_seeds(VariantStudy::UcbCvs, cell, &committed),
            vec![17, 29]
        );
        assert_eq!(
            missing_seeds(VariantStudy::UcbCvs, cell, &[]),
            (10..30).collect::<Vec<_>>()
        );
    }

    /// Rows found in the runner's output win over committed ones of the same job; the rest
    /// are added; the order is the plan's (cell, algorithm, seed); unplanned rows are dropped.
    #[test]
    fn committed_rows_fill_in_what_the_output_lacks() {
        let planned = planned();
        let (first, second) = (&planned[0], &planned[1]);
        let (c1, c2) = (first.baseline.cell(), second.baseline.cell());
        let a = &first.algorithms[0];
        let b = &second.algorithms[0];
        let found = vec![row(&c1, a, 12, 0.25), row(&c2, b, 10, 0.5)];
        let committed = vec![
            row(&c2, b, 11, 0.75),
            row(&c1, a, 12, 9.0),
            row(&c1, a, 10, 0.125),
            row(&c1, "no-such-algorithm", 10, 1.0),
            row(&c1, a, 99, 1.0),
        ];
        let rows = with_committed(VariantStudy::UcbCvs, &planned, found, committed).unwrap();
        let got: Vec<(String, u64, f64)> = rows
            .iter()
            .map(|r| (r.cell.clone(), r.seed, r.final_simple_regret))
            .collect();
        assert_eq!(
            got,
            vec![
                (c1.clone(), 10, 0.125),
                (c1, 12, 0.25),
                (c2.clone(), 10, 0.5),
                (c2, 11, 0.75),
            ]
        );
    }
}
