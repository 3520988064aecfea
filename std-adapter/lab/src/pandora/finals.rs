//! A grid of cells (an objective at a dimension under a model and a cost setting, with its
//! rules) whose report is a function of one committed file of per-seed finals, shared by
//! [`super::lookahead`] and [`super::kernels`]: the cells' jobs and traces, the finals file and
//! how traces on disk update it, the per-cell tables of final regret and the list of runs not
//! yet finished with their price.
//!
//! A run's trace (`OUT/<key>/<cell>/<rule>/seed-<s>.csv`) updates its row whenever it is on
//! disk; a row whose trace is gone is kept, so `--no-run` on a clean clone rewrites a report
//! byte for byte.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::grid::{read_trace, regret_at, run_pending, run_traced, PandoraOptions, TraceJob};
use super::run::{BoxCost, BoxModel, BoxRun};

/// Header of a finals file.
pub const HEADER: &str =
    "cell,rule,seed,final_regret,decisions,seconds_first_half,seconds_second_half";

/// One cell: an objective at a dimension under one cost setting, with its rules.
#[derive(Debug, Clone, PartialEq)]
pub struct CellSpec {
    /// Key in paths, tables and selectors (`fig4-gp-matern52-d8-uniform`).
    pub key: String,
    /// The paper's figure.
    pub figure: &'static str,
    /// Objective name in the catalogue. A GP sample (`gp-*`) under a fixed model is drawn with
    /// the model's lengthscale: the paper draws the objective from the model's prior.
    pub objective: &'static str,
    /// Dimension.
    pub dim: usize,
    /// Model.
    pub model: BoxModel,
    /// Cost setting.
    pub cost: BoxCost,
    /// Budget (rounds under uniform costs).
    pub budget: f64,
    /// Rules.
    pub rules: Vec<&'static str>,
}

/// One run of a grid.
#[derive(Debug, Clone)]
pub struct Job {
    /// The grid's key (`lookahead`), the first component of paths and selectors.
    pub grid: &'static str,
    /// The cell.
    pub cell: CellSpec,
    /// The rule.
    pub rule: &'static str,
    /// The seed.
    pub seed: u64,
}

impl Job {
    fn selector(&self) -> String {
        format!("{}/{}", self.grid, self.cell.key)
    }

    /// Where its trace goes under the results directory `out`.
    pub fn path(&self, out: &Path) -> PathBuf {
        out.join(self.grid)
            .join(&self.cell.key)
            .join(self.rule.replace(':', "_"))
            .join(format!("seed-{}.csv", self.seed))
    }
}

/// Whether `options` select the grid `key` (the key, or one of its cells: `key/<cell>`).
pub fn selected(key: &str, options: &PandoraOptions) -> bool {
    match &options.figures {
        None => true,
        Some(keep) => keep
            .iter()
            .any(|k| k == key || k.starts_with(&format!("{key}/"))),
    }
}

/// The selected jobs of the grid `key` over `cells` in a fixed order (cells, rules, seeds).
pub fn jobs(key: &'static str, cells: &[CellSpec], options: &PandoraOptions) -> Vec<Job> {
    let mut out = Vec::new();
    if !selected(key, options) {
        return out;
    }
    for cell in cells {
        for &rule in &cell.rules {
            for seed in 0..options.seeds {
                let job = Job {
                    grid: key,
                    cell: cell.clone(),
                    rule,
                    seed,
                };
                let keep = match &options.figures {
                    None => true,
                    Some(keep) => keep
                        .iter()
                        .any(|k| k == key || job.selector().starts_with(k.as_str())),
                };
                if keep {
                    out.push(job);
                }
            }
        }
    }
    out
}

impl TraceJob for Job {
    fn path(&self, out: &Path) -> PathBuf {
        Job::path(self, out)
    }

    fn seed(&self) -> u64 {
        self.seed
    }

    fn label(&self) -> String {
        format!(
            "{} {} {} seed {}",
            self.grid, self.cell.key, self.rule, self.seed
        )
    }

    fn run(&self) -> Result<super::grid::Trace, String> {
        let c = &self.cell;
        let run = BoxRun {
            rule: self.rule.to_string(),
            seed: self.seed,
            budget: c.budget,
            cost: c.cost,
            model: c.model,
            paper_optimiser: true,
        };
        let seeded = c.objective.starts_with("gp-");
        match c.model {
            BoxModel::Fixed { lengthscale, .. } if seeded => {
                let f = crate::objectives::pandora::gp_sample_scaled(
                    c.objective,
                    c.dim,
                    lengthscale,
                    self.seed,
                )
                .ok_or_else(|| format!("{} is not a GP sample", c.objective))?;
                super::grid::run_traced_on(&f, &run, None)
            }
            _ => run_traced(c.objective, c.dim, seeded, &run, None),
        }
    }
}

/// Runs the jobs whose traces are missing, seed by seed.
pub fn run_missing(name: &str, all: &[Job], options: &PandoraOptions) -> Result<(), String> {
    if all.is_empty() {
        return Ok(());
    }
    run_pending(name, all, options)
}

/// One finished run as a finals file holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct Final {
    /// Cell key.
    pub cell: String,
    /// Rule.
    pub rule: String,
    /// Seed.
    pub seed: u64,
    /// Regret after the whole budget (the trace read as a step function of the budget spent).
    pub regret: f64,
    /// Decisions the run made.
    pub decisions: usize,
    /// CPU seconds of the first `⌊decisions/2⌋` decisions (refit and acquisition optimisation).
    pub seconds_first_half: f64,
    /// CPU seconds of the others.
    pub seconds_second_half: f64,
}

impl Final {
    /// Mean CPU seconds per decision.
    pub fn seconds_per_decision(&self) -> f64 {
        (self.seconds_first_half + self.seconds_second_half) / self.decisions.max(1) as f64
    }
}

/// A run's cell, rule and seed: what a finals file is keyed by.
pub type RunKey = (String, String, u64);

/// A row of a finals file: one finished run, written in Rust's shortest round-trip form so
/// that reading it back gives the same bits.
pub trait Row: Sized {
    /// The file's header line.
    const HEADER: &'static str;
    /// The run's cell, rule and seed.
    fn key(&self) -> RunKey;
    /// The row's fields after the key, comma-separated.
    fn values(&self) -> String;
    /// The row from its key and the fields after it, `None` when one does not parse.
    fn from_fields(key: RunKey, fields: &[&str]) -> Option<Self>;
}

/// A finals file of `rows`: the header, then one line per row.
pub fn write_rows<R: Row>(rows: &[R]) -> String {
    let mut s = String::from(R::HEADER);
    s.push('\n');
    for r in rows {
        let (cell, rule, seed) = r.key();
        let _ = writeln!(s, "{cell},{rule},{seed},{}", r.values());
    }
    s
}

/// Reads a finals file of `R`; an error names the line.
pub fn parse_rows<R: Row>(text: &str) -> Result<Vec<R>, String> {
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, h)) if h == R::HEADER => {}
        _ => {
            return Err(format!(
                "the finals file does not start with `{}`",
                R::HEADER
            ))
        }
    }
    let columns = R::HEADER.split(',').count();
    let mut out = Vec::new();
    for (i, line) in lines {
        let f: Vec<&str> = line.split(',').collect();
        let bad = || format!("finals line {}: `{line}`", i + 1);
        if f.len() != columns {
            return Err(bad());
        }
        let seed = f[2].parse().map_err(|_| bad())?;
        let key = (f[0].to_string(), f[1].to_string(), seed);
        out.push(R::from_fields(key, &f[3..]).ok_or_else(bad)?);
    }
    Ok(out)
}

/// The finals: the rows of the file at `path`, each replaced by the row of its run's trace
/// where `fresh` has one, and the rows of traces the file does not hold yet, in `fresh`'s
/// order (the grid's); rows of cells or seeds the grid no longer has stay at the end, as they
/// were.
pub fn merge<R: Row>(
    path: &Path,
    fresh: impl IntoIterator<Item = (RunKey, Option<R>)>,
) -> Result<Vec<R>, String> {
    let mut rows: BTreeMap<RunKey, R> = BTreeMap::new();
    if path.exists() {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        for r in parse_rows::<R>(&text)? {
            rows.insert(r.key(), r);
        }
    }
    let mut order = Vec::new();
    for (k, row) in fresh {
        if let Some(r) = row {
            rows.insert(k.clone(), r);
        }
        order.push(k);
    }
    let mut out = Vec::new();
    for k in &order {
        if let Some(r) = rows.remove(k) {
            out.push(r);
        }
    }
    out.extend(rows.into_values());
    Ok(out)
}

impl Row for Final {
    const HEADER: &'static str = HEADER;

    fn key(&self) -> RunKey {
        (self.cell.clone(), self.rule.clone(), self.seed)
    }

    fn values(&self) -> String {
        format!(
            "{:?},{},{:?},{:?}",
            self.regret, self.decisions, self.seconds_first_half, self.seconds_second_half
        )
    }

    fn from_fields((cell, rule, seed): RunKey, f: &[&str]) -> Option<Self> {
        Some(Final {
            cell,
            rule,
            seed,
            regret: f[0].parse().ok()?,
            decisions: f[1].parse().ok()?,
            seconds_first_half: f[2].parse().ok()?,
            seconds_second_half: f[3].parse().ok()?,
        })
    }
}

/// A finals file: [`HEADER`], then one row per run.
pub fn to_csv(rows: &[Final]) -> String {
    write_rows(rows)
}

/// Reads a finals file; an error names the line.
pub fn parse(text: &str) -> Result<Vec<Final>, String> {
    parse_rows(text)
}

/// The finals of the grid `key` over `cells` ([`merge`]): the file at `path` updated by the
/// traces under `options.out`.
pub fn gather(
    key: &'static str,
    cells: &[CellSpec],
    path: &Path,
    options: &PandoraOptions,
) -> Result<Vec<Final>, String> {
    let everything = PandoraOptions {
        figures: None,
        ..options.clone()
    };
    let fresh = jobs(key, cells, &everything).into_iter().map(|job| {
        let k = (job.cell.key.clone(), job.rule.to_string(), job.seed);
        let row = read_trace(&job.path(&options.out)).map(|t| {
            let half = t.rounds.len() / 2;
            let sum = |r: &[super::run::BoxRound]| r.iter().map(|r| r.decide_seconds).sum();
            Final {
                cell: k.0.clone(),
                rule: k.1.clone(),
                seed: k.2,
                regret: regret_at(&t, job.cell.budget),
                decisions: t.rounds.len(),
                seconds_first_half: sum(&t.rounds[..half]),
                seconds_second_half: sum(&t.rounds[half..]),
            }
        });
        (k, row)
    });
    merge(path, fresh)
}

/// Values of `rule` in `cell` by seed.
pub fn by_seed(
    finals: &[Final],
    cell: &str,
    rule: &str,
    value: fn(&Final) -> f64,
) -> Vec<(u64, f64)> {
    finals
        .iter()
        .filter(|f| f.cell == cell && f.rule == rule)
        .map(|f| (f.seed, value(f)))
        .collect()
}

/// Each cell's table of final regret (median and quartiles over seeds, CPU seconds per
/// decision), under a heading naming the cell; a cell without runs says so.
pub fn cell_tables(md: &mut String, cells: &[CellSpec], finals: &[Final]) {
    for c in cells {
        let _ = write!(
            md,
            "\n**{}: {}, d = {}, {} costs, budget {}** (`{}`)",
            c.figure,
            c.objective,
            c.dim,
            c.cost.name(),
            c.budget,
            c.key
        );
        if !finals.iter().any(|f| f.cell == c.key) {
            let _ = writeln!(md, ": no run yet (see \"Runs not finished\").");
            continue;
        }
        let _ = writeln!(md, "\n");
        let _ = writeln!(
            md,
            "| rule | median regret | 25 % | 75 % | seeds | s per decision |\n\
             |---|---:|---:|---:|---:|---:|"
        );
        for &rule in &c.rules {
            let runs: Vec<&Final> = finals
                .iter()
                .filter(|f| f.cell == c.key && f.rule == rule)
                .collect();
            if runs.is_empty() {
                let _ = writeln!(md, "| {rule} | not run | | | 0 | |");
                continue;
            }
            let mut v: Vec<f64> = runs.iter().map(|f| f.regret).collect();
            v.sort_by(f64::total_cmp);
            let decisions: usize = runs.iter().map(|f| f.decisions).sum();
            let seconds: f64 = runs
                .iter()
                .map(|f| f.seconds_first_half + f.seconds_second_half)
                .sum();
            let _ = writeln!(
                md,
                "| {rule} | {} | {:.4} |",
                super::grid::quartile_columns(&v),
                seconds / decisions.max(1) as f64
            );
        }
    }
}

/// What is left of a cell's runs.
pub struct Unfinished {
    /// Each rule with its count of finished runs (`pbgi 12`).
    pub counts: Vec<String>,
    /// Runs missing.
    pub missing: u64,
    /// Their CPU hours, each priced at the mean of its rule's finished runs.
    pub hours: f64,
    /// `, and R, S not priced (none finished)`, or empty.
    pub unpriced: String,
}

/// What is left of `rules` × `seeds` runs, `seconds(rule)` giving the CPU seconds of each
/// finished run of a rule.
pub fn unfinished<'a>(
    rules: impl IntoIterator<Item = &'a str>,
    seeds: u64,
    seconds: impl Fn(&str) -> Vec<f64>,
) -> Unfinished {
    let mut counts = Vec::new();
    let mut hours = 0.0;
    let mut missing = 0;
    let mut unpriced = Vec::new();
    for rule in rules {
        let runs = seconds(rule);
        let done = runs.len() as u64;
        counts.push(format!("{rule} {done}"));
        if done >= seeds {
            continue;
        }
        missing += seeds - done;
        if runs.is_empty() {
            unpriced.push(rule);
            continue;
        }
        let per = runs.iter().sum::<f64>() / runs.len() as f64;
        hours += per * (seeds - done) as f64 / 3600.0;
    }
    Unfinished {
        counts,
        missing,
        hours,
        unpriced: if unpriced.is_empty() {
            String::new()
        } else {
            format!(", and {} not priced (none finished)", unpriced.join(", "))
        },
    }
}

/// The cells' rules with fewer finished seeds than `seeds`, priced from the runs that did
/// finish (CPU seconds of their decisions).
pub fn not_run(key: &str, cells: &[CellSpec], finals: &[Final], seeds: u64) -> String {
    let mut s = String::from("\n## Runs not finished\n\n");
    let mut any = false;
    for c in cells {
        if !finals.iter().any(|f| f.cell == c.key) {
            any = true;
            let _ = writeln!(
                s,
                "- `{}`: none of its {} rules has run (`costbo reproduce pandora --objectives \
                 {key}/{}`).",
                c.key,
                c.rules.len(),
                c.key
            );
            continue;
        }
        let Unfinished {
            counts,
            missing,
            hours,
            unpriced,
        } = unfinished(c.rules.iter().copied(), seeds, |rule| {
            finals
                .iter()
                .filter(|f| f.cell == c.key && f.rule == rule)
                .map(|f| f.seconds_first_half + f.seconds_second_half)
                .collect()
        });
        if missing == 0 {
            continue;
        }
        any = true;
        let _ = writeln!(
            s,
            "- `{}`: {} of {seeds} seeds; the other runs need about {hours:.2} h of CPU, priced \
             at the mean of each rule's finished runs{} (`costbo reproduce pandora --objectives \
             {key}/{}`).",
            c.key,
            counts.join(", "),
            unpriced,
            c.key
        );
    }
    if !any {
        s.push_str("Every run of every cell has finished.\n");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finals_round_trip_bit_for_bit() {
        let row = |rule: &str, seed, regret, seconds| Final {
            cell: "a".into(),
            rule: String::from(rule),
            seed,
            regret,
            decisions: 4,
            seconds_first_half: seconds,
            seconds_second_half: seconds,
        };
        let rows = vec![
            row("pbgi", 0, 0.1 + 0.2, 1e-7),
            row("kg", 3, f64::MIN_POSITIVE, 12.5),
        ];
        assert_eq!(parse(&to_csv(&rows)).unwrap(), rows);
        assert!(parse("cell,rule\n").is_err());
        assert!(parse(&format!("{HEADER}\na,b,x,1,2,3,4\n")).is_err());
    }
}
