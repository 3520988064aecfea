//! Verdicts on the papers' headline claims, computed from a table of results with explicit
//! criteria (nothing is decided by hand).
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

use std::fmt;

/// The share of agreeing comparisons at or above which a claim is supported.
pub const SUPPORT_SHARE: f64 = 2.0 / 3.0;
/// Seeds an algorithm needs in a setting for the setting to count, by default: with one seed
/// there is no standard error and a single unlucky run decides.
pub const MIN_SEEDS: usize = 2;
/// "Significantly more evaluations": at least this ratio of mean rounds played.
pub const MORE_EVALUATIONS_RATIO: f64 = 1.25;
/// "Does not use the cheaper sets": a budget share on them below this fraction of ETC-Ada's.
pub const CHEAP_SHARE_FRACTION: f64 = 0.5;

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

/// Outcome of a claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Enough comparisons agree.
    Supported,
    /// Too few comparisons agree.
    NotSupported,
    /// In between.
    Mixed,
    /// Nothing to compare.
    Inconclusive,
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Status::Supported => "supported",
            Status::NotSupported => "not supported",
            Status::Mixed => "mixed",
            Status::Inconclusive => "inconclusive",
        })
    }
}

/// A claim, how it was tested, and the outcome with numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// Short identifier (`000-1`, ...).
    pub id: String,
    /// The claim as the paper makes it.
    pub claim: String,
    /// The criterion applied.
    pub criterion: String,
    /// Outcome.
    pub status: Status,
    /// Counts and numbers behind the outcome.
    pub evidence: String,
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
        Status::Mixed
    }
}

/// A setting: objective, costs and variance.
type Setting = (String, String, f64);

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
    fn settings(&self, keep: impl Fn(&Row) -> bool) -> Vec<Setting> {
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
    fn all(&self, s: &Setting, algorithms: &[&str]) -> Option<Vec<&Row>> {
        algorithms.iter().map(|a| self.get(s, a)).collect()
    }
}

/// Whether `a`'s mean regret is below `b`'s by more than two combined standard errors (never
/// with a single seed on either side: there is no standard error to go by).
fn clearly_below(a: &Row, b: &Row) -> bool {
    if a.seeds < 2 || b.seeds < 2 {
        return false;
    }
    let se = (a.stderr_regret.powi(2) + b.stderr_regret.powi(2)).sqrt();
    a.mean_regret + 2.0 * se < b.mean_regret
}

/// `lines` joined into a sentence, or nothing if there are none.
fn listed(lines: &[String]) -> String {
    if lines.is_empty() {
        String::new()
    } else {
        format!("{}.", lines.join("; "))
    }
}

fn fmt_setting((o, c, v): &Setting) -> String {
    format!("{o}/{c}/{v}")
}

fn verdict(
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
    }
}

const PSQ: [&str; 2] = ["ts-psq", "ucb-psq"];
const ETC: [&str; 3] = ["etc-50", "etc-100", "etc-ada"];

fn best_psq<'a>(rows: &[&'a Row]) -> &'a Row {
    if rows[0].mean_regret <= rows[1].mean_regret {
        rows[0]
    } else {
        rows[1]
    }
}

/// Paper 000's headline claims (section 5, observations 1–4) and appendix B's.
pub fn ucb_cvs(table: &Table) -> Vec<Verdict> {
    let mut out = Vec::new();

    // (1) Full set available, cheap or moderate costs: each ETC variant below the better of
    // TS-PSQ and UCB-PSQ.
    let (mut agree, mut total, mut clear, mut lines) = (0, 0, 0, Vec::new());
    for s in table.settings(|r| r.has_full_set && (r.costs == "cheap" || r.costs == "moderate")) {
        let (Some(psq), Some(etc)) = (table.all(&s, &PSQ), table.all(&s, &ETC)) else {
            continue;
        };
        let best = best_psq(&psq);
        let below: Vec<&&Row> = etc
            .iter()
            .filter(|e| e.mean_regret < best.mean_regret)
            .collect();
        clear += etc.iter().filter(|e| clearly_below(e, best)).count();
        agree += below.len();
        total += etc.len();
        lines.push(format!(
            "{}: best PSQ {:.3}, ETC {}",
            fmt_setting(&s),
            best.mean_regret,
            etc.iter()
                .map(|e| format!("{:.3}", e.mean_regret))
                .collect::<Vec<_>>()
                .join("/")
        ));
    }
    out.push(verdict(
        table,
        "000-1",
        "With a full-query control set and cheap or moderate costs, the UCB-CVS variants find \
         better solutions for the budget than TS-PSQ and UCB-PSQ.",
        "in every full-set objective × {cheap, moderate} × variance, each of ETC-50/100/Ada \
         ends with a lower mean simple regret than the better of TS-PSQ and UCB-PSQ",
        agree,
        total,
        if lines.is_empty() {
            String::new()
        } else {
            format!(
                "{clear} of them by more than 2 s.e. Final regrets: {}",
                listed(&lines)
            )
        },
    ));

    // (1b) The advantage shrinks as the costs rise.
    let (mut agree, mut total, mut lines) = (0, 0, Vec::new());
    let groups: Vec<(String, f64)> = {
        let mut g: Vec<(String, f64)> = Vec::new();
        for r in table.rows.iter().filter(|r| r.has_full_set) {
            if !g.contains(&(r.objective.clone(), r.variance)) {
                g.push((r.objective.clone(), r.variance));
            }
        }
        g
    };
    for (o, v) in groups {
        let advantage = |c: &str| -> Option<f64> {
            let s = (o.clone(), c.to_string(), v);
            let best = best_psq(&table.all(&s, &PSQ)?);
            let etc = table.all(&s, &ETC)?;
            let mean = etc.iter().map(|e| e.mean_regret).sum::<f64>() / etc.len() as f64;
            // Absolute, not relative: the comparison is within one objective and variance, and
            // a best PSQ regret near 0 (UCB-PSQ solves Hartmann-3) makes ratios meaningless.
            Some(best.mean_regret - mean)
        };
        let (Some(a), Some(b), Some(c)) = (
            advantage("cheap"),
            advantage("moderate"),
            advantage("expensive"),
        ) else {
            continue;
        };
        total += 1;
        if a >= b && b >= c {
            agree += 1;
        }
        lines.push(format!(
            "{o}/{v}: cheap {a:.4}, moderate {b:.4}, expensive {c:.4}"
        ));
    }
    out.push(verdict(
        table,
        "000-1b",
        "The UCB-CVS variants' advantage shrinks as the costs rise towards the full set's.",
        "per full-set objective × variance, the advantage (best PSQ regret − mean ETC regret) is \
         non-increasing from cheap to moderate to expensive",
        agree,
        total,
        format!("Advantages: {}", listed(&lines)),
    ));

    // (2) Expensive costs: ETC-Ada competitive; ETC-50 and ETC-100 behind.
    let (mut agree_ada, mut total_ada, mut agree_fixed, mut total_fixed) = (0, 0, 0, 0);
    let (mut lines, mut fixed_lines, mut clearly_ahead) = (Vec::new(), Vec::new(), 0);
    for s in table.settings(|r| r.has_full_set && r.costs == "expensive") {
        let Some(psq) = table.all(&s, &PSQ) else {
            continue;
        };
        let best = best_psq(&psq);
        if let Some(ada) = table.get(&s, "etc-ada") {
            let se = (ada.stderr_regret.powi(2) + best.stderr_regret.powi(2)).sqrt();
            total_ada += 1;
            if ada.mean_regret <= best.mean_regret + 2.0 * se {
                agree_ada += 1;
            }
            lines.push(format!(
                "{}: best PSQ {:.3}, ETC-Ada {:.3}",
                fmt_setting(&s),
                best.mean_regret,
                ada.mean_regret
            ));
        }
        let mut fixed = Vec::new();
        for a in ["etc-50", "etc-100"] {
            if let Some(e) = table.get(&s, a) {
                total_fixed += 1;
                if e.mean_regret > best.mean_regret {
                    agree_fixed += 1;
                } else if clearly_below(e, best) {
                    clearly_ahead += 1;
                }
                fixed.push(format!("{a} {:.3}", e.mean_regret));
            }
        }
        if !fixed.is_empty() {
            fixed_lines.push(format!(
                "{}: best PSQ {:.3}, {}",
                fmt_setting(&s),
                best.mean_regret,
                fixed.join(", ")
            ));
        }
    }
    out.push(verdict(
        table,
        "000-2a",
        "Under expensive costs ETC-Ada stays competitive with TS-PSQ and UCB-PSQ.",
        "in every full-set objective × expensive × variance, ETC-Ada's mean final regret is at \
         most the better PSQ's plus two combined standard errors",
        agree_ada,
        total_ada,
        listed(&lines),
    ));
    out.push(verdict(
        table,
        "000-2b",
        "Under expensive costs ETC-50 and ETC-100 fall behind TS-PSQ and UCB-PSQ.",
        "in every full-set objective × expensive × variance, ETC-50 and ETC-100 each end with \
         a higher mean regret than the better of TS-PSQ and UCB-PSQ",
        agree_fixed,
        total_fixed,
        if fixed_lines.is_empty() {
            String::new()
        } else {
            format!(
                "Of the {} that disagree, {clearly_ahead} end lower than the better PSQ by more \
                 than 2 s.e. Final regrets: {}",
                total_fixed - agree_fixed,
                listed(&fixed_lines)
            )
        },
    ));

    // (3) No full set (airfoil): the PSQ baselines do relatively well.
    let (mut agree, mut total, mut lines) = (0, 0, Vec::new());
    for s in table.settings(|r| !r.has_full_set) {
        let (Some(psq), Some(etc)) = (table.all(&s, &PSQ), table.all(&s, &ETC)) else {
            continue;
        };
        let best = best_psq(&psq);
        total += etc.len();
        agree += etc
            .iter()
            .filter(|e| best.mean_regret < e.mean_regret)
            .count();
        lines.push(format!(
            "{}: best PSQ {:.3}, ETC {}",
            fmt_setting(&s),
            best.mean_regret,
            etc.iter()
                .map(|e| format!("{:.3}", e.mean_regret))
                .collect::<Vec<_>>()
                .join("/")
        ));
    }
    out.push(verdict(
        table,
        "000-3",
        "When the control sets are not subsets of each other (airfoil), TS-PSQ and UCB-PSQ do \
         relatively well and the UCB-CVS variants worse.",
        "in every objective without a full set × costs × variance, the better of TS-PSQ and \
         UCB-PSQ ends below each of ETC-50/100/Ada",
        agree,
        total,
        listed(&lines),
    ));

    // (4) The effect of the variance is problem dependent.
    out.push(variance_effect(table));

    // Appendix B: the per-unit-cost variants fail where UCB-CVS does not.
    let (mut agree, mut total, mut lines) = (0, 0, Vec::new());
    for s in table.settings(|r| r.algorithm.ends_with("-per-cost")) {
        for a in ["ts-per-cost", "ucb-per-cost", "ei-per-cost"] {
            let Some(r) = table.get(&s, a) else { continue };
            // ETC-Ada when it had spent what this variant's run could spend.
            if let Some(ada) = table.get_at(&s, "etc-ada", r.budget) {
                total += 1;
                if r.mean_regret > ada.mean_regret {
                    agree += 1;
                }
                lines.push(format!(
                    "{}: {a} {:.3} vs ETC-Ada {:.3}",
                    fmt_setting(&s),
                    r.mean_regret,
                    ada.mean_regret
                ));
            }
        }
    }
    out.push(verdict(
        table,
        "000-B1",
        "Appendix B: TS, UCB and EI per unit cost do not work well; UCB-CVS finds better \
         solutions.",
        "in every appendix setting, each per-unit-cost variant ends with a higher mean regret \
         than ETC-Ada had when it had spent the same budget",
        agree,
        total,
        listed(&lines),
    ));
    let (mut agree, mut total, mut lines) = (0, 0, Vec::new());
    for s in table.settings(|r| r.algorithm == "ei-per-cost") {
        let Some(ei) = table.get(&s, "ei-per-cost") else {
            continue;
        };
        let Some(ada) = table.get_at(&s, "etc-ada", ei.budget) else {
            continue;
        };
        total += 1;
        if ei.cheap_share < CHEAP_SHARE_FRACTION * ada.cheap_share {
            agree += 1;
        }
        lines.push(format!(
            "{}: EI per cost {:.0}% vs ETC-Ada {:.0}%",
            fmt_setting(&s),
            100.0 * ei.cheap_share,
            100.0 * ada.cheap_share
        ));
    }
    out.push(verdict(
        table,
        "000-B2",
        "Appendix B: EI per unit cost fails to explore with the cheaper control sets.",
        "EI per unit cost spends a share of its budget on sets other than the most expensive \
         one below half of ETC-Ada's share over the same budget",
        agree,
        total,
        format!("Budget share on the cheaper sets: {}", listed(&lines)),
    ));
    out
}

/// Paper 000's observation 4: count which variance ends lowest per (objective, costs,
/// algorithm) where the variance can matter (everything but TS-PSQ/UCB-PSQ on objectives with
/// a full set, which only ever play the full set).
fn variance_effect(table: &Table) -> Verdict {
    let mut variances: Vec<f64> = table.rows.iter().map(|r| r.variance).collect();
    variances.sort_by(f64::total_cmp);
    variances.dedup();
    let mut wins = vec![0usize; variances.len()];
    let mut groups: Vec<(String, String, String)> = Vec::new();
    for r in &table.rows {
        let matters = !(r.has_full_set && PSQ.contains(&r.algorithm.as_str()));
        let g = (r.objective.clone(), r.costs.clone(), r.algorithm.clone());
        if matters && !r.algorithm.ends_with("-per-cost") && !groups.contains(&g) {
            groups.push(g);
        }
    }
    let mut counted = 0;
    for (o, c, a) in &groups {
        let rows: Option<Vec<&Row>> = variances
            .iter()
            .map(|v| table.get(&(o.clone(), c.clone(), *v), a))
            .collect();
        let Some(rows) = rows else { continue };
        if rows.len() < 2 {
            continue;
        }
        let best = (0..rows.len())
            .min_by(|&i, &j| rows[i].mean_regret.total_cmp(&rows[j].mean_regret))
            .unwrap_or(0);
        wins[best] += 1;
        counted += 1;
    }
    let top = wins.iter().copied().max().unwrap_or(0);
    let winners = wins.iter().filter(|&&w| w > 0).count();
    let dependent = counted > 0 && winners >= 2 && (top as f64) < 0.8 * counted as f64;
    let counts: Vec<String> = variances
        .iter()
        .zip(&wins)
        .map(|(v, w)| format!("{v}: {w}"))
        .collect();
    Verdict {
        id: "000-4".into(),
        claim: "The effect of the variance of the random variables is problem and algorithm \
                dependent (the paper: lowest final regret 11, 6 and 25 times of 42 for variances \
                0.02, 0.04, 0.08)."
            .into(),
        criterion: "per objective × costs × algorithm where the variance matters, the variance \
                    with the lowest mean final regret; supported if at least two variances win \
                    somewhere and none wins 80% or more of the groups"
            .into(),
        status: if counted == 0 {
            Status::Inconclusive
        } else if dependent {
            Status::Supported
        } else {
            Status::NotSupported
        },
        evidence: format!("{counted} groups; wins by variance {}.", counts.join(", ")),
    }
}

/// Paper 001's headline claims (Figures 1 and 2).
pub fn unknown_cost(table: &Table) -> Vec<Verdict> {
    const BASELINES: [&str; 3] = ["ts-psq", "ucb-psq", "etc-50"];
    let mut out = Vec::new();
    let (mut agree, mut total, mut clear, mut lines) = (0, 0, 0, Vec::new());
    let (mut agree_n, mut total_n, mut lines_n) = (0, 0, Vec::new());
    let (mut agree_o, mut total_o, mut lines_o) = (0, 0, Vec::new());
    for s in table.settings(|_| true) {
        let Some(ours) = table.get(&s, "unknown-cost") else {
            continue;
        };
        let (mut regrets, mut rounds, mut shares) = (Vec::new(), Vec::new(), Vec::new());
        for b in BASELINES {
            let Some(r) = table.get(&s, b) else { continue };
            total += 1;
            if ours.mean_regret < r.mean_regret {
                agree += 1;
            }
            if clearly_below(ours, r) {
                clear += 1;
            }
            regrets.push(format!("{b} {:.3}", r.mean_regret));
            total_n += 1;
            if ours.mean_rounds >= MORE_EVALUATIONS_RATIO * r.mean_rounds {
                agree_n += 1;
            }
            rounds.push(format!("{b} {:.0}", r.mean_rounds));
            if ours.cheaper_optimal_set {
                total_o += 1;
                if ours.cheapest_optimal_share > r.cheapest_optimal_share {
                    agree_o += 1;
                }
                shares.push(format!("{b} {:.0}%", 100.0 * r.cheapest_optimal_share));
            }
        }
        // A setting without a comparable baseline adds nothing to the evidence.
        if regrets.is_empty() {
            continue;
        }
        lines.push(format!(
            "{}: unknown-cost {:.3}, {}",
            fmt_setting(&s),
            ours.mean_regret,
            regrets.join(", ")
        ));
        lines_n.push(format!(
            "{}: unknown-cost {:.0}, {}",
            fmt_setting(&s),
            ours.mean_rounds,
            rounds.join(", ")
        ));
        if !shares.is_empty() {
            lines_o.push(format!(
                "{}: unknown-cost {:.0}%, {}",
                fmt_setting(&s),
                100.0 * ours.cheapest_optimal_share,
                shares.join(", ")
            ));
        }
    }
    out.push(verdict(
        table,
        "001-1",
        "The naive methods (TS-PSQ, UCB-PSQ, ETC-50) are often less effective than the proposed \
         method.",
        "in every objective × costs × variance, the proposed method's mean final simple regret \
         is below each baseline's",
        agree,
        total,
        if lines.is_empty() {
            String::new()
        } else {
            format!(
                "{clear} of them by more than 2 s.e. Final regrets: {}",
                listed(&lines)
            )
        },
    ));
    out.push(verdict(
        table,
        "001-2",
        "The proposed method conducts significantly more evaluations than the baselines once \
         exploitation starts.",
        "in every setting, the proposed method plays at least 1.25× the mean rounds of each \
         baseline",
        agree_n,
        total_n,
        if lines_n.is_empty() {
            String::new()
        } else {
            format!("Mean rounds: {}", listed(&lines_n))
        },
    ));
    out.push(verdict(
        table,
        "001-3",
        "It spends its plays on the cheapest optimal set, where the baselines keep playing the \
         expensive full set.",
        "in every setting where an optimal control set is cheaper than the most expensive \
         set, the proposed method's share of the budget on the cheapest optimal set is above \
         each baseline's",
        agree_o,
        total_o,
        if lines_o.is_empty() {
            String::new()
        } else {
            format!(
                "Share of the budget on the cheapest optimal set: {}",
                listed(&lines_o)
            )
        },
    ));
    out
}
