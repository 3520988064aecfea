//! The rules the verdicts on papers 000's and 001's headline claims follow, and the table of
//! results they are computed from, with explicit criteria (nothing is decided by hand); each
//! study's claims and criteria are in its own module (papers 002–004 judge theirs into the
//! same [`Verdict`] by rules of their own).
//!
//! Every claim compares mean final simple regrets (or round counts, or budget shares) of
//! algorithms within *settings* (objective × costs × variance). A setting takes part only if
//! every algorithm the comparison needs has at least [`Table::min_seeds`] finished seeds there
//! (by default [`MIN_SEEDS`]). Each
//! claim turns its settings into yes/no *comparisons*; the verdict is
//!
//! - **supported** if at least [`SUPPORT_SHARE`] of the comparisons agree with the claim,
//! - **not supported** if at most `1 − SUPPORT_SHARE` agree,
//! - **mixed** in between,
//! - **inconclusive** if no setting qualifies (too few seeds, or missing algorithms).
//!
//! Means are compared as they are (as the papers read their figures); the evidence also counts
//! how many of the differences exceed two combined standard errors.

/// The share of agreeing comparisons at or above which a claim is supported.
pub const SUPPORT_SHARE: f64 = 2.0 / 3.0;
/// Seeds an algorithm needs in a setting for the setting to count, by default: with one seed
/// there is no standard error and a single unlucky run decides.
pub use crate::study::MIN_SEEDS;
/// Results of one cell (objective × costs × variance × algorithm) over its seeds.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// Objective label.
    pub objective: String,
    /// Whether one control set holds every variable (a full query is possible).
    pub has_full_set: bool,
    /// Cost setting label (`cheap`, `moderate`, `expensive`).
    pub costs: String,
    /// Truncated variance.
    pub variance: f64,
    /// Algorithm name.
    pub algorithm: String,
    /// Budget the numbers refer to (a run cut at a smaller budget than its own is summarised
    /// there too, to compare with a cell run with that smaller budget).
    pub budget: f64,
    /// Finished seeds.
    pub seeds: usize,
    /// Mean final simple regret.
    pub mean_regret: f64,
    /// Its standard error.
    pub stderr_regret: f64,
    /// Mean rounds played.
    pub mean_rounds: f64,
    /// Mean share of the budget spent on sets other than the most expensive one.
    pub cheap_share: f64,
    /// Mean share of the budget spent on the cheapest optimal set.
    pub cheapest_optimal_share: f64,
    /// Whether an optimal set costs less than the most expensive set. If not, the cheapest
    /// optimal set is the expensive one, and there is no cheaper optimum to find (claim 001-3
    /// does not apply).
    pub cheaper_optimal_set: bool,
}

pub use crate::study::{Status, Verdict};

/// This report's word for a status: the share in between is *mixed*.
pub fn word(status: Status) -> &'static str {
    match status {
        Status::Supported => "supported",
        Status::Partly => "mixed",
        Status::NotSupported => "not supported",
        Status::Inconclusive => "inconclusive",
    }
}

/// Turns agreeing/total comparison counts into a status.
pub fn status(agree: usize, total: usize) -> Status {
    if total == 0 {
        return Status::Inconclusive;
    }
    let share = agree as f64 / total as f64;
    if share >= SUPPORT_SHARE - 1e-12 {
        Status::Supported
    } else if share <= 1.0 - SUPPORT_SHARE + 1e-12 {
        Status::NotSupported
    } else {
        Status::Partly
    }
}

/// A setting: objective, costs and variance.
pub type Setting = (String, String, f64);

/// Results indexed for lookups.
#[derive(Debug, Clone)]
pub struct Table {
    /// Every cell.
    pub rows: Vec<Row>,
    /// Seeds a cell needs to take part in a comparison.
    pub min_seeds: usize,
}

impl Default for Table {
    fn default() -> Self {
        Table {
            rows: Vec::new(),
            min_seeds: MIN_SEEDS,
        }
    }
}

impl Table {
    /// The row of a cell at its full budget, if it has at least `min_seeds` seeds.
    pub fn get(&self, (o, c, v): &Setting, algorithm: &str) -> Option<&Row> {
        self.rows
            .iter()
            .filter(|r| {
                r.objective == *o
                    && r.costs == *c
                    && r.variance == *v
                    && r.algorithm == algorithm
                    && r.seeds >= self.min_seeds
            })
            .max_by(|a, b| a.budget.total_cmp(&b.budget))
    }

    /// The row of a cell summarised at `budget`, if there is one with enough seeds.
    pub fn get_at(&self, s: &Setting, algorithm: &str, budget: f64) -> Option<&Row> {
        self.rows.iter().find(|r| {
            (&r.objective, &r.costs, r.variance) == (&s.0, &s.1, s.2)
                && r.algorithm == algorithm
                && r.budget == budget
                && r.seeds >= self.min_seeds
        })
    }

    /// Every setting (in first-seen order) that passes `keep`.
    pub fn settings(&self, keep: impl Fn(&Row) -> bool) -> Vec<Setting> {
        let mut out: Vec<Setting> = Vec::new();
        for r in self.rows.iter().filter(|r| keep(r)) {
            let s = (r.objective.clone(), r.costs.clone(), r.variance);
            if !out.contains(&s) {
                out.push(s);
            }
        }
        out
    }

    /// The rows of `algorithms` in setting `s`, if all are there with enough seeds.
    pub fn all(&self, s: &Setting, algorithms: &[&str]) -> Option<Vec<&Row>> {
        algorithms.iter().map(|a| self.get(s, a)).collect()
    }
}

/// Whether `a`'s mean regret is below `b`'s by more than two combined standard errors (never
/// with a single seed on either side: there is no standard error to go by).
pub fn clearly_below(a: &Row, b: &Row) -> bool {
    if a.seeds < 2 || b.seeds < 2 {
        return false;
    }
    let se = (a.stderr_regret.powi(2) + b.stderr_regret.powi(2)).sqrt();
    a.mean_regret + 2.0 * se < b.mean_regret
}

/// `lines` joined into a sentence, or nothing if there are none.
pub fn listed(lines: &[String]) -> String {
    if lines.is_empty() {
        String::new()
    } else {
        format!("{}.", lines.join("; "))
    }
}

/// A setting as `objective/costs/variance`.
pub fn fmt_setting((o, c, v): &Setting) -> String {
    format!("{o}/{c}/{v}")
}

/// The verdict on claim `id` from `agree` of `total` comparisons, with its evidence.
pub fn verdict(
    table: &Table,
    id: &str,
    claim: &str,
    criterion: &str,
    agree: usize,
    total: usize,
    evidence: String,
) -> Verdict {
    let status = status(agree, total);
    Verdict {
        id: id.into(),
        claim: claim.into(),
        criterion: criterion.into(),
        status,
        evidence: if total == 0 {
            format!(
                "no setting has the needed algorithms with ≥ {} seeds. {evidence}",
                table.min_seeds
            )
        } else {
            format!(
                "{agree} of {total} comparisons agree ({:.0}%). {evidence}",
                100.0 * agree as f64 / total as f64
            )
        },
        ..Verdict::default()
    }
}
