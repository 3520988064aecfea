//! The variants report of one study, computed from its per-seed rows alone.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::stats::{self, HodgesLehmann};
use super::{Baseline, PlannedCell, SeedRow, VariantStudy, ALPHA, DOCS, TIE};

/// Who is compared with whom: `ours` against `reference`, both algorithm names derived from the
/// cell's baseline.
struct Comparison {
    title: &'static str,
    about: &'static str,
    ours: fn(&str) -> String,
    reference: fn(&str) -> String,
    /// Part of the plan's criterion.
    headline: bool,
}

fn same(b: &str) -> String {
    b.to_string()
}

fn fitted(b: &str) -> String {
    format!("{b}+fitted")
}

fn comparisons(study: VariantStudy) -> Vec<Comparison> {
    let mut v = match study {
        VariantStudy::UcbCvs => vec![Comparison {
            title: "etc-ada+fitted (ours) against the paper's best",
            about: "The headline: ETC-Ada on the fitted model against the cell's best paper \
                    method on the paper's fixed model.",
            ours: |_| "etc-ada+fitted".into(),
            reference: same,
            headline: true,
        }],
        VariantStudy::UnknownCost => vec![Comparison {
            title: "unknown-cost+fitted (ours) against the paper's best",
            about: "The headline: paper 001's rule on the fitted model against the cell's best \
                    paper method on the paper's fixed model.",
            ours: |_| "unknown-cost+fitted".into(),
            reference: same,
            headline: true,
        }],
    };
    v.push(Comparison {
        title: "The model's share: the paper's best on the fitted model against itself",
        about: "The cell's best paper method with nothing changed but the model.",
        ours: fitted,
        reference: same,
        headline: false,
    });
    match study {
        VariantStudy::UcbCvs => {
            v.push(Comparison {
                title:
                    "The rule's share: etc-ada+fitted against the paper's best on the fitted model",
                about: "Both on the fitted model, so only the rule differs (none where the \
                        paper's best is ETC-Ada).",
                ours: |_| "etc-ada+fitted".into(),
                reference: fitted,
                headline: false,
            });
            for (title, about, ours, reference) in [
                (
                    "gittins-cvs (ours, fixed model) against the paper's best",
                    "The Gittins-index rule for control sets on the paper's model; expensive \
                     cells only.",
                    (|_: &str| "gittins-cvs".to_string()) as fn(&str) -> String,
                    same as fn(&str) -> String,
                ),
                (
                    "gittins-cvs+fitted (ours) against the paper's best",
                    "The Gittins-index rule on the fitted model; expensive cells only.",
                    |_| "gittins-cvs+fitted".into(),
                    same,
                ),
                (
                    "ei-psq (cost-unaware EI, fixed model) against the paper's best",
                    "A control: expected improvement over the control sets with no regard \
                     to their costs.",
                    |_| "ei-psq".into(),
                    same,
                ),
                (
                    "ei-psq+fitted (cost-unaware EI, fitted model) against the paper's best",
                    "The same control on the fitted model.",
                    |_| "ei-psq+fitted".into(),
                    same,
                ),
                (
                    "The Gittins rule's share: gittins-cvs against ei-psq (fixed model)",
                    "The same model and the same expected improvements; only the price of a \
                     control set differs.",
                    |_| "gittins-cvs".into(),
                    |_| "ei-psq".into(),
                ),
                (
                    "The Gittins rule's share: gittins-cvs+fitted against ei-psq+fitted",
                    "As above on the fitted model.",
                    |_| "gittins-cvs+fitted".into(),
                    |_| "ei-psq+fitted".into(),
                ),
            ] {
                v.push(Comparison {
                    title,
                    about,
                    ours,
                    reference,
                    headline: false,
                });
            }
        }
        VariantStudy::UnknownCost => {
            v.push(Comparison {
                title: "The rule's share: unknown-cost+fitted against the paper's best on the \
                        fitted model",
                about: "Both on the fitted model, so only the rule differs (none where the \
                        paper's best is paper 001's rule).",
                ours: |_| "unknown-cost+fitted".into(),
                reference: fitted,
                headline: false,
            });
            v.push(Comparison {
                title: "Paper 001's rule on the fitted model against itself on the fixed model",
                about: "The model's share for the paper's own rule (our refits: MAP with \
                        priors every 5 rounds, both phases).",
                ours: |_| "unknown-cost+fitted".into(),
                reference: |_| "unknown-cost".into(),
                headline: false,
            });
            v.push(Comparison {
                title: "Paper 001's method as its authors' code runs it against the paper's best",
                about: "unknown-cost-code+adam: the code's exploitation (no α, UCB β 1.96, a \
                        full-set LCB β 0.3 raised to the best observation, the least unclamped \
                        cost bound) on the model it refits by 10 Adam steps from the fixed \
                        hyperparameters every exploitation round.",
                ours: |_| super::AUTHORS_CODE.into(),
                reference: same,
                headline: false,
            });
            v.push(Comparison {
                title: "Ours against the authors' code: unknown-cost+fitted against \
                        unknown-cost-code+adam",
                about: "What our variant adds to the paper's method as its authors ran it.",
                ours: |_| "unknown-cost+fitted".into(),
                reference: |_| super::AUTHORS_CODE.into(),
                headline: false,
            });
        }
    }
    v
}

/// One cell's paired comparison.
struct CellResult {
    cell: String,
    baseline: String,
    reference: String,
    seeds: usize,
    mean_reference: f64,
    mean_ours: f64,
    better: usize,
    tied: usize,
    worse: usize,
    test: stats::SignedRank,
    hl: Option<HodgesLehmann>,
    holm: f64,
}

impl CellResult {
    fn outcome(&self) -> Outcome {
        if self.holm > ALPHA {
            Outcome::NotSignificant
        } else if self.test.w_plus < self.test.null_mean {
            Outcome::Win
        } else {
            Outcome::Loss
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Win,
    Loss,
    NotSignificant,
}

/// The paired log-ratio of one seed: 0 within [`TIE`], else `ln(max(a, TIE) / max(b, TIE))`.
pub fn paired_log_ratio(ours: f64, reference: f64) -> f64 {
    if (ours - reference).abs() < TIE {
        0.0
    } else {
        (ours.max(TIE) / reference.max(TIE)).ln()
    }
}

fn compare(
    c: &Comparison,
    baselines: &[Baseline],
    by_key: &BTreeMap<(&str, &str), BTreeMap<u64, f64>>,
) -> Result<Vec<CellResult>, String> {
    let mut out = Vec::new();
    for b in baselines {
        let cell = b.cell();
        let (ours, reference) = ((c.ours)(&b.baseline), (c.reference)(&b.baseline));
        if ours == reference {
            continue;
        }
        let (Some(a), Some(r)) = (
            by_key.get(&(cell.as_str(), ours.as_str())),
            by_key.get(&(cell.as_str(), reference.as_str())),
        ) else {
            continue;
        };
        let pairs: Vec<(f64, f64)> = a
            .iter()
            .filter_map(|(seed, &x)| r.get(seed).map(|&y| (x, y)))
            .collect();
        if pairs.is_empty() {
            continue;
        }
        let d: Vec<f64> = pairs.iter().map(|&(x, y)| paired_log_ratio(x, y)).collect();
        let n = pairs.len() as f64;
        out.push(CellResult {
            cell,
            baseline: b.baseline.clone(),
            reference,
            seeds: pairs.len(),
            mean_reference: pairs.iter().map(|p| p.1).sum::<f64>() / n,
            mean_ours: pairs.iter().map(|p| p.0).sum::<f64>() / n,
            better: d.iter().filter(|&&x| x < 0.0).count(),
            tied: d.iter().filter(|&&x| x == 0.0).count(),
            worse: d.iter().filter(|&&x| x > 0.0).count(),
            test: stats::signed_rank(&d).map_err(|e| e.to_string())?,
            hl: stats::hodges_lehmann(&d, ALPHA).map_err(|e| e.to_string())?,
            holm: 1.0,
        });
    }
    let adjusted = stats::holm(&out.iter().map(|r| r.test.p_value).collect::<Vec<_>>());
    for (r, h) in out.iter_mut().zip(adjusted) {
        r.holm = h;
    }
    Ok(out)
}

fn ratio(x: f64) -> String {
    if x == f64::INFINITY {
        "∞".into()
    } else if x == 0.0 {
        "0".into()
    } else if !(0.01..100.0).contains(&x) {
        format!("{x:.2e}")
    } else {
        format!("{x:.2}")
    }
}

/// The report: the plan's criterion first, then one table per comparison, then the
/// discussion (hand-written, from `DOCS/<study>.discussion.md`).
pub fn render(
    study: VariantStudy,
    planned: &[PlannedCell],
    baselines: &[Baseline],
    rows: &[SeedRow],
    discussion: Option<&str>,
) -> Result<String, String> {
    let seeds = study.seeds();
    let mut by_key: BTreeMap<(&str, &str), BTreeMap<u64, f64>> = BTreeMap::new();
    for r in rows {
        by_key
            .entry((r.cell.as_str(), r.algorithm.as_str()))
            .or_default()
            .insert(r.seed, r.final_simple_regret);
    }
    let planned_jobs: usize = planned
        .iter()
        .map(|c| c.algorithms.len() * seeds.len())
        .sum();
    let mut md = String::new();
    let name = study.name();
    let _ = writeln!(
        md,
        "# Variants of ours against the paper's best method: {name}\n"
    );
    let _ = writeln!(
        md,
        "Generated by `costbo reproduce variants` from `{DOCS}/{name}.csv` (one row per finished \
         job); the plan, written before the runs: [PLAN.md](PLAN.md). {} in the settings of \
         `costbo reproduce {name}`'s grid, on the fresh seeds {}–{}. The paper's best method \
         of each cell is the one with the lowest mean final regret on the tuning seeds \
         (`{name}.baselines.csv`).\n",
        capitalise(study.paper()),
        seeds[0],
        seeds[seeds.len() - 1]
    );
    let _ = writeln!(
        md,
        "Statistic (the plan's): per cell and seed, d = 0 when the two final simple regrets \
         differ by less than {TIE} (the observation noise), else d = ln(max(ours, {TIE}) / \
         max(paper's, {TIE})); Wilcoxon's signed-rank test, two-sided and exact (zeros \
         dropped, mid-ranks); Holm's correction over the cells of each table at α = {ALPHA}; a \
         *win* is a Holm-significant cell where ours is lower, a *loss* one where it is \
         higher. The ratio is exp of the Hodges–Lehmann estimate of d with its exact 95 % \
         interval (per cell, not adjusted).\n"
    );
    let complete = rows.len() == planned_jobs;
    let _ = writeln!(
        md,
        "**{} of {planned_jobs} planned jobs finished.**{}\n",
        rows.len(),
        if complete {
            ""
        } else {
            " The run is not complete: every count below is provisional, and a cell enters a \
             table with the seeds both of its algorithms have finished."
        }
    );
    let comps = comparisons(study);
    let mut sections = String::new();
    let mut criterion = String::new();
    for c in &comps {
        let results = compare(c, baselines, &by_key)?;
        let wins = results
            .iter()
            .filter(|r| r.outcome() == Outcome::Win)
            .count();
        let losses = results
            .iter()
            .filter(|r| r.outcome() == Outcome::Loss)
            .count();
        if c.headline {
            let full = results.iter().filter(|r| r.seeds == seeds.len()).count();
            let goal = study.wins_needed();
            // A finished cell that is not a win never becomes one: more cells only raise
            // Holm's adjusted p-values. So the goal can be out of reach before the run ends.
            let settled = results
                .iter()
                .filter(|r| r.seeds == seeds.len() && r.outcome() != Outcome::Win)
                .count();
            let most = baselines.len().saturating_sub(settled);
            let verdict = if !complete && most < goal {
                format!(
                    "**not met**: at most {most} wins are still possible, since the {settled} \
                     finished cells that are not wins stay so as cells are added (Holm's \
                     adjusted p-values only grow)"
                )
            } else if !complete {
                "not decided: the run is not complete".to_string()
            } else if wins >= goal && losses == 0 {
                "**met**".to_string()
            } else {
                "**not met**".to_string()
            };
            let _ = writeln!(
                criterion,
                "## The plan's criterion\n\n{}: **{} and {}** (Holm-significant) in {} \
                 compared ({full} of {} with all {} seeds). The goal, at \
                 least {goal} wins and no loss: {verdict}.\n",
                c.title,
                count(wins, "win", "wins"),
                count(losses, "loss", "losses"),
                count(results.len(), "cell", "cells"),
                baselines.len(),
                seeds.len()
            );
        }
        let _ = writeln!(sections, "## {}\n\n{}\n", c.title, c.about);
        if results.is_empty() {
            let _ = writeln!(sections, "No cell has finished jobs of both yet.\n");
            continue;
        }
        let _ = writeln!(
            sections,
            "{}, {}, {} not significant, in {}.\n",
            count(wins, "win", "wins"),
            count(losses, "loss", "losses"),
            results.len() - wins - losses,
            count(results.len(), "cell", "cells")
        );
        let _ = writeln!(
            sections,
            "| cell | paper's best | reference | seeds | mean regret: reference | ours | seeds \
             better / tied / worse | ratio [95 % CI] | p | Holm p | result |\n\
             |---|---|---|---:|---:|---:|---|---|---:|---:|---|"
        );
        for r in &results {
            let ci = match r.hl {
                Some(h) => format!(
                    "{} [{}, {}]",
                    ratio(h.estimate.exp()),
                    ratio(h.lower.exp()),
                    ratio(h.upper.exp())
                ),
                None => "–".into(),
            };
            let result = match r.outcome() {
                Outcome::Win => "**win**",
                Outcome::Loss => "**loss**",
                Outcome::NotSignificant => "–",
            };
            let _ = writeln!(
                sections,
                "| {} | {} | {} | {} | {:.4} | {:.4} | {} / {} / {} | {ci} | {} | {} | {result} |",
                r.cell,
                r.baseline,
                r.reference,
                r.seeds,
                r.mean_reference,
                r.mean_ours,
                r.better,
                r.tied,
                r.worse,
                stats::p_text(r.test.p_value),
                stats::p_text(r.holm),
            );
        }
        sections.push('\n');
    }
    md.push_str(&criterion);
    md.push_str(&sections);
    if let Some(text) = discussion {
        md.push_str(text.trim_end());
        md.push('\n');
    }
    Ok(md)
}

fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}
