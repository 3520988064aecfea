//! Paper 002's central comparison: PBGI against the lookahead rules (KG, MES and MSEI under
//! uniform costs, MFMES and BMSEI under the cost), in the cells of Fig. 4 the paper runs them in,
//! and Fig. 11's CPU time per decision of every uniform-cost rule measured in one grid.
//!
//! Its report (`pandora-lookahead.md` beside `pandora.md`) is a function of one committed file,
//! the per-seed finals (`pandora-lookahead.finals.csv`): one row per finished run with its final
//! regret and the CPU seconds its decisions took. A run's trace (`OUT/lookahead/<cell>/<rule>/
//! seed-<s>.csv`) updates its row whenever it is on disk; a row whose trace is gone is kept, so
//! `--no-run` on a clean clone rewrites the report byte for byte.
//!
//! Comparisons are seed for seed (a seed fixes the GP sample path and the initial design of
//! every rule in a cell): the Hodges–Lehmann estimate of the difference of final regrets with its
//! 95 % interval, Wilcoxon's exact signed-rank p-value, and Holm's correction over every
//! comparison of the report's regret table (times have their own table and correction).

use std::fmt::Write as _;

use costbo_core::kernel::Shape;
use costbo_eval::stats;

use super::finals::by_seed;
pub use super::finals::{parse, to_csv, CellSpec, Final, Job, HEADER};
use super::grid::{COST_RULES, UNIFORM_RULES};
use super::paired::{evidence, find, judge, Paired, ALPHA, MIN_SEEDS};
use super::run::{BoxCost, BoxModel};
use super::side::CellStudy;
use crate::study::{Status, Verdict};

fn verdict(claim: &str, scope: &str, status: Status, evidence: String) -> Verdict {
    super::paired::verdict(KEY, claim, scope, status, evidence)
}

/// The figure key `--objectives` selects this comparison by (`lookahead`, or one cell:
/// `lookahead/fig4-gp-matern52-d8-uniform`).
pub const KEY: &str = "lookahead";

/// The lookahead rules under uniform costs, run beside the main grid's rules.
const UNIFORM_LOOKAHEAD: [&str; 3] = ["kg", "mes", "msei"];

/// The cost-aware lookahead rules, run beside the main grid's rules under the cost.
const COST_LOOKAHEAD: [&str; 2] = ["mfmes", "bmsei"];

/// The lookahead rules of a cost setting.
fn lookahead_rules(cost: BoxCost) -> &'static [&'static str] {
    if cost == BoxCost::Uniform {
        &UNIFORM_LOOKAHEAD
    } else {
        &COST_LOOKAHEAD
    }
}

/// The cells: Fig. 4's at d = 8 and 16 (κ = 0.1, fixed model; the paper's budgets), Fig. 5's
/// three objectives at d = 16, then Fig. 11's Ackley at d = 4, 8 and 16 (MAP refits every
/// round, 10d iterations).
pub fn cells(quick: bool) -> Vec<CellSpec> {
    let fixed = BoxModel::Fixed {
        lengthscale: 0.1,
        shape: Shape::Matern52,
    };
    let cell = |figure: &'static str,
                objective: &'static str,
                dim: usize,
                model: BoxModel,
                cost: BoxCost,
                budget: f64| CellSpec {
        key: format!(
            "{}-{objective}-d{dim}-{}",
            figure.to_lowercase().replace(". ", ""),
            cost.name()
        ),
        figure,
        objective,
        dim,
        model,
        cost,
        budget,
        rules: if cost == BoxCost::Uniform {
            &UNIFORM_RULES[..]
        } else {
            &COST_RULES[..]
        }
        .iter()
        .chain(lookahead_rules(cost))
        .copied()
        .collect(),
    };
    if quick {
        return vec![
            cell("Fig. 4", "gp-matern52", 2, fixed, BoxCost::Uniform, 6.0),
            cell("Fig. 4", "gp-matern52", 2, fixed, BoxCost::MeanLinear, 20.0),
        ];
    }
    let mut out = Vec::new();
    for (dim, uniform, cost) in [(8, 200.0, 400.0), (16, 400.0, 800.0)] {
        out.push(cell(
            "Fig. 4",
            "gp-matern52",
            dim,
            fixed,
            BoxCost::Uniform,
            uniform,
        ));
        out.push(cell(
            "Fig. 4",
            "gp-matern52",
            dim,
            fixed,
            BoxCost::MeanLinear,
            cost,
        ));
    }
    // Fig. 5's synthetic objectives at d = 16, MAP refits every round (the main grid's budgets).
    for objective in ["ackley-pbgi", "levy-pbgi", "rosenbrock-pbgi"] {
        out.push(cell(
            "Fig. 5",
            objective,
            16,
            BoxModel::Fitted,
            BoxCost::Uniform,
            160.0,
        ));
        out.push(cell(
            "Fig. 5",
            objective,
            16,
            BoxModel::Fitted,
            BoxCost::MeanLinear,
            400.0,
        ));
    }
    for dim in [4, 8, 16] {
        let budget = 10.0 * dim as f64;
        out.push(cell(
            "Fig. 11",
            "ackley-pbgi",
            dim,
            BoxModel::Fitted,
            BoxCost::Uniform,
            budget,
        ));
    }
    out
}

/// The comparison, as the main study runs it.
pub const STUDY: CellStudy = CellStudy {
    key: KEY,
    cells,
    render,
};

/// Pairs, tests and corrects `wanted` (`(cell, first, second)`) on `value`.
fn compare(
    finals: &[Final],
    wanted: &[(String, &'static str, &'static str)],
    value: fn(&Final) -> f64,
) -> Result<Vec<Paired>, String> {
    super::paired::compare(wanted, |cell, rule| by_seed(finals, cell, rule, value))
}

/// The regret comparisons: in each Fig. 4 and Fig. 5 cell, PBGI and PBGI-D against each
/// lookahead rule, and in the cost-aware cells the LogEI variants and UCB against BMSEI (the
/// paper's claims).
fn regret_comparisons(quick: bool) -> Vec<(String, &'static str, &'static str)> {
    let mut out = Vec::new();
    for c in cells(quick).iter().filter(|c| c.figure != "Fig. 11") {
        for &l in lookahead_rules(c.cost) {
            for ours in ["pbgi", "pbgi-d"] {
                out.push((c.key.clone(), ours, l));
            }
        }
        if c.cost != BoxCost::Uniform {
            for other in ["log-eipc", "log-eicc", "gp-ucb"] {
                out.push((c.key.clone(), other, "bmsei"));
            }
        }
    }
    out
}

/// The time comparisons of Fig. 11: PBGI against KG, MSEI, LogEI and TS at each dimension.
fn time_comparisons(quick: bool) -> Vec<(String, &'static str, &'static str)> {
    let mut out = Vec::new();
    for c in cells(quick).iter().filter(|c| c.figure == "Fig. 11") {
        for other in ["kg", "msei", "log-ei", "ts-psq"] {
            out.push((c.key.clone(), "pbgi", other));
        }
    }
    out
}

/// The report's text and verdicts from the finals alone and the hand-written discussion's
/// section (`crate::reproduce::report::discussion_section`; empty for none).
pub fn render(
    finals: &[Final],
    quick: bool,
    seeds: u64,
    discussion: &str,
) -> Result<(String, Vec<Verdict>), String> {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "# Paper 002: PBGI against the lookahead rules (KG, MES, MSEI; MFMES, BMSEI)\n\n\
         Produced by `costbo reproduce pandora --objectives {KEY}{}` from \
         `pandora-lookahead.finals.csv` (committed: one row per finished run; `--no-run` \
         rewrites this report from it alone). The main study's report is `pandora.md`.\n\n\
         Each rule is the core's, maximised as the paper does (200·d raw Sobol points, 10·d \
         Boltzmann restarts, quasi-Newton ascent with bounds; KG's one-shot point and MSEI's and \
         BMSEI's trees climbed whole). KG: BoTorch's one-shot `qKnowledgeGradient`, 64 \
         fantasies. MES: `qMaxValueEntropy`, 10 Gumbel max values from 1000·d random points. \
         MSEI: four stages, one posterior-mean fantasy each, as the paper's code; BMSEI: the \
         same tree with the code's soft budget indicator and lookahead budget, known costs. \
         MFMES: MES per unit of the known cost. Neither MSEI nor BMSEI is warm-started from \
         the previous tree (the paper's code is; it \"favours them\", the paper says). A seed \
         fixes the GP sample path and the initial design of every rule of a cell.",
        if quick { " --quick" } else { "" },
    );
    let _ = writeln!(
        md,
        "\nFinal regret after the whole budget: median and quartiles over seeds, and the mean CPU \
         seconds per decision (refit and acquisition optimisation; the paper's Fig. 11 also \
         counts the objective's evaluation, which here is microseconds)."
    );
    super::finals::cell_tables(&mut md, &cells(quick), finals);
    let regret = compare(finals, &regret_comparisons(quick), |f| f.regret)?;
    let times = compare(
        finals,
        &time_comparisons(quick),
        Final::seconds_per_decision,
    )?;
    super::paired::table(
        &mut md,
        "Paired comparisons of final regret",
        "final regret, first rule minus second (negative: the first is better)",
        &regret,
    );
    super::paired::table(
        &mut md,
        "Paired comparisons of CPU time per decision (Fig. 11)",
        "mean seconds per decision of a run, first rule minus second (negative: the first is \
         faster)",
        &times,
    );
    let verdicts = verdicts(finals, &regret, &times, quick);
    let _ = writeln!(
        md,
        "\n## Verdicts on the paper's PBGI-against-lookahead claims\n\n\
         \"Shown\" means Holm-corrected p ≤ {ALPHA} in the tables above; \"comparable\" means no \
         difference shown.\n\n| claim | scope | verdict | evidence |\n|---|---|---|---|"
    );
    for v in &verdicts {
        md.push_str(&super::grid::verdict_row(v));
    }
    md.push_str(discussion);
    md.push_str(&super::finals::not_run(KEY, &cells(quick), finals, seeds));
    Ok((md, verdicts))
}

fn verdicts(finals: &[Final], regret: &[Paired], times: &[Paired], quick: bool) -> Vec<Verdict> {
    let mut out = Vec::new();
    let all = cells(quick);
    let not_worse = |r: &Paired| r.sign() <= 0;
    let better = |r: &Paired| r.sign() < 0;
    for c in all.iter().filter(|c| c.figure == "Fig. 4") {
        if c.cost == BoxCost::Uniform {
            // The paper's d = 16 cell has no MSEI (out of memory); ours runs it.
            let rows: Vec<Option<&Paired>> = UNIFORM_LOOKAHEAD
                .iter()
                .flat_map(|l| ["pbgi", "pbgi-d"].map(|o| find(regret, &c.key, o, l)))
                .collect();
            out.push(verdict(
                "PBGI and PBGI-D are comparable to the best baselines (among them MSEI at d = 8): \
                 not worse than KG, MES or MSEI",
                &c.key,
                judge(&rows, not_worse),
                evidence(&rows),
            ));
            continue;
        }
        let rows: Vec<Option<&Paired>> = COST_LOOKAHEAD
            .iter()
            .map(|l| find(regret, &c.key, "pbgi-d", l))
            .collect();
        out.push(verdict(
            "PBGI-D decisively outperforms MFMES and BMSEI",
            &c.key,
            judge(&rows, better),
            evidence(&rows),
        ));
        let mut rows: Vec<Option<&Paired>> = ["pbgi", "pbgi-d", "log-eipc", "log-eicc"]
            .iter()
            .map(|o| find(regret, &c.key, o, "bmsei"))
            .collect();
        if c.dim == 16 {
            rows.push(find(regret, &c.key, "gp-ucb", "bmsei"));
            out.push(verdict(
                "At d = 16, PBGI variants, LogEI variants and UCB decisively outperform BMSEI",
                &c.key,
                judge(&rows, better),
                evidence(&rows),
            ));
        } else {
            out.push(verdict(
                "PBGI and LogEI variants are similar to or better than BMSEI",
                &c.key,
                judge(&rows, not_worse),
                evidence(&rows),
            ));
        }
    }
    for c in all.iter().filter(|c| c.figure == "Fig. 5") {
        let rows: Vec<Option<&Paired>> = lookahead_rules(c.cost)
            .iter()
            .map(|l| find(regret, &c.key, "pbgi-d", l))
            .collect();
        out.push(verdict(
            "PBGI-D matches or beats the lookahead rules (Ackley and Levy: \"match or beat \
             BMSEI\"; Rosenbrock: PBGI-D \"beats (B)MSEI\")",
            &c.key,
            judge(&rows, not_worse),
            evidence(&rows),
        ));
    }
    for c in all.iter().filter(|c| c.figure == "Fig. 11") {
        let rows: Vec<Option<&Paired>> = ["kg", "msei"]
            .iter()
            .map(|l| find(times, &c.key, "pbgi", l))
            .collect();
        out.push(verdict(
            "PBGI is significantly faster than KG and MSEI",
            &c.key,
            judge(&rows, better),
            evidence(&rows),
        ));
        let rows: Vec<Option<&Paired>> = ["log-ei", "ts-psq"]
            .iter()
            .map(|l| find(times, &c.key, "pbgi", l))
            .collect();
        out.push(verdict(
            "PBGI is slightly slower than LogEI and TS",
            &c.key,
            judge(&rows, |r| r.sign() > 0),
            evidence(&rows),
        ));
        // The paper's MSEI is warm-started from the previous tree; the claim is about that.
        let halves: Vec<(f64, f64)> = finals
            .iter()
            .filter(|f| f.cell == c.key && f.rule == "msei" && f.decisions >= 2)
            .map(|f| {
                let first = f.decisions / 2;
                (
                    f.seconds_first_half / first as f64,
                    f.seconds_second_half / (f.decisions - first) as f64,
                )
            })
            .collect();
        let (status, text) = if halves.len() < MIN_SEEDS {
            (Status::Inconclusive, "too few runs".to_string())
        } else {
            let d: Vec<f64> = halves.iter().map(|(a, b)| b - a).collect();
            let p = stats::signed_rank(&d)
                .map(|t| t.p_value)
                .unwrap_or(f64::NAN);
            let (a, b) = (
                super::grid::median(&halves.iter().map(|h| h.0).collect::<Vec<_>>()),
                super::grid::median(&halves.iter().map(|h| h.1).collect::<Vec<_>>()),
            );
            let status = if p <= ALPHA && b < a {
                Status::Supported
            } else {
                Status::NotSupported
            };
            (
                status,
                format!(
                    "MSEI's median seconds per decision {a:.4} in the first half of a run, \
                     {b:.4} in the second (Wilcoxon p {}, {} runs; ours has no warm start)",
                    stats::p_text(p),
                    halves.len()
                ),
            )
        };
        out.push(verdict(
            "MSEI's time per iteration drops substantially as data accumulate",
            &c.key,
            status,
            text,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pandora::grid::PandoraOptions;

    fn row(cell: &str, rule: &str, seed: u64, regret: f64, seconds: f64) -> Final {
        Final {
            cell: cell.into(),
            rule: rule.into(),
            seed,
            regret,
            decisions: 4,
            seconds_first_half: seconds,
            seconds_second_half: seconds,
        }
    }

    #[test]
    fn cell_keys_are_unique_and_selectable() {
        let all = cells(false);
        let mut keys: Vec<&str> = all.iter().map(|c| c.key.as_str()).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), all.len());
        assert!(keys.contains(&"fig4-gp-matern52-d8-uniform"));
        assert!(keys.contains(&"fig11-ackley-pbgi-d16-uniform"));
        let options = PandoraOptions {
            out: "/nonexistent".into(),
            report: "/nonexistent/pandora.md".into(),
            seeds: 3,
            quick: false,
            jobs: 1,
            figures: Some(vec!["lookahead/fig4-gp-matern52-d8-linear".into()]),
            no_run: true,
        };
        let jobs = super::super::finals::jobs(KEY, &cells(false), &options);
        assert_eq!(jobs.len(), (COST_RULES.len() + COST_LOOKAHEAD.len()) * 3);
        assert_eq!(
            super::super::side::SideStudy::job_count(&STUDY, &options),
            jobs.len()
        );
        assert!(jobs
            .iter()
            .all(|j| j.cell.cost == BoxCost::MeanLinear && j.cell.dim == 8));
    }

    #[test]
    fn a_rule_better_on_every_seed_is_shown_better_and_the_claim_supported() {
        // PBGI-D's regret is below MFMES's and BMSEI's on all 12 seeds: Wilcoxon's exact p is
        // 2/2^12 for each, 4.9e-4, and Holm keeps it below 0.05 across the table.
        let cell = "fig4-gp-matern52-d8-linear";
        let mut finals = Vec::new();
        for s in 0..12 {
            let x = 1.0 + s as f64 * 0.01;
            for (rule, r) in [
                ("pbgi", x),
                ("pbgi-d", x),
                ("log-eipc", x),
                ("log-eicc", x),
                ("gp-ucb", x + 0.5),
                ("mfmes", x + 1.0 + s as f64 * 0.001),
                ("bmsei", x + 2.0 + s as f64 * 0.002),
            ] {
                finals.push(row(cell, rule, s, r, 0.1));
            }
        }
        let regret = compare(&finals, &regret_comparisons(false), |f| f.regret).unwrap();
        let d = find(&regret, cell, "pbgi-d", "bmsei").unwrap();
        assert_eq!(d.seeds, 12);
        assert!((d.p - 2.0 / 4096.0).abs() < 1e-15);
        assert_eq!(d.sign(), -1);
        let v = verdicts(&finals, &regret, &[], false);
        let decisive = v
            .iter()
            .find(|v| v.scope == cell && v.claim.starts_with("PBGI-D decisively"))
            .unwrap();
        assert_eq!(decisive.status, Status::Supported);
        // Cells without runs are not judged.
        let uniform = v
            .iter()
            .find(|v| v.scope == "fig4-gp-matern52-d8-uniform")
            .unwrap();
        assert_eq!(uniform.status, Status::Inconclusive);
    }

    #[test]
    fn fewer_than_the_minimum_of_paired_seeds_makes_no_comparison() {
        let cell = "fig4-gp-matern52-d8-uniform";
        let finals: Vec<Final> = (0..MIN_SEEDS as u64 - 1)
            .flat_map(|s| [row(cell, "pbgi", s, 1.0, 0.1), row(cell, "kg", s, 2.0, 0.1)])
            .collect();
        assert!(compare(&finals, &regret_comparisons(false), |f| f.regret)
            .unwrap()
            .is_empty());
    }
}
