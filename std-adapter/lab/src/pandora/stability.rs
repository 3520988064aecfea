//! Paper 002's App. D.1 ablation (Fig. 10): how much of LogEI's gain over EI comes from its
//! log scale and how much from its numerical stability, and whether computing the Gittins index
//! stably matters. Bayesian regret at d = 16, κ = 0.1 (Matérn-5/2, the model fixed at the
//! prior), uniform costs, Fig. 4's budget (25d = 400 rounds), six rules: EI from the textbook
//! formula (`ei-unstable`, the paper's "Unst. EI"), `ln(EI + 10⁻⁶)` of it (`log-ei-unstable`,
//! "Log(Unst. EI)"), `exp(LogEI)` (`exp-log-ei`, "Exp(LogEI)"), LogEI (`log-ei`), PBGI by the
//! paper code's bisection (`pbgi-unstable`, its "PBGI") and ours, solved in log space (`pbgi`,
//! its "S-PBGI"); the rules are the core's (`costbo_core::policy::textbook`).
//!
//! The paper reads the figure as: Exp(LogEI) ≈ Unst. EI; Log(Unst. EI) ≫ EI, so LogEI's gain
//! comes mostly from the log scale, stability adding more; LogEI best overall; PBGI ≈ S-PBGI.
//! Each reading is tested seed for seed, Holm-corrected over the cell's comparisons. As
//! [`super::kernels`], the report (`pandora-stability.md`) is a function of its committed
//! per-seed finals (`pandora-stability.finals.csv`).

use std::fmt::Write as _;

use costbo_core::kernel::Shape;

use super::finals::{by_seed, CellSpec, Final};
use super::paired::{evidence, judge, Paired};
use super::run::{BoxCost, BoxModel};
use super::side::CellStudy;
use crate::study::{Status, Verdict};

/// The figure key `--objectives` selects this ablation by (`stability`).
pub const KEY: &str = "stability";

/// The rules, each with the paper's name for it.
pub const RULES: [(&str, &str); 6] = [
    ("ei-unstable", "Unst. EI"),
    ("log-ei-unstable", "Log(Unst. EI)"),
    ("exp-log-ei", "Exp(LogEI)"),
    ("log-ei", "LogEI"),
    ("pbgi-unstable", "PBGI"),
    ("pbgi", "S-PBGI"),
];

/// The cell: d = 16, κ = 0.1, uniform costs, 400 rounds (quick: d = 2, 8 rounds).
pub fn cells(quick: bool) -> Vec<CellSpec> {
    let (dim, budget) = if quick { (2, 8.0) } else { (16, 400.0) };
    vec![CellSpec {
        key: format!("fig10-gp-matern52-d{dim}-uniform"),
        figure: "Fig. 10",
        objective: "gp-matern52",
        dim,
        model: BoxModel::Fixed {
            lengthscale: 0.1,
            shape: Shape::Matern52,
        },
        cost: BoxCost::Uniform,
        budget,
        rules: RULES.iter().map(|(rule, _)| *rule).collect(),
    }]
}

/// The ablation, as the main study runs it.
pub const STUDY: CellStudy = CellStudy {
    key: KEY,
    cells,
    render,
};

/// The comparisons, first rule against second, in the table's order; the claims below read
/// them by position.
const COMPARISONS: [(&str, &str); 7] = [
    ("exp-log-ei", "ei-unstable"),
    ("log-ei-unstable", "ei-unstable"),
    ("log-ei", "log-ei-unstable"),
    ("log-ei", "exp-log-ei"),
    ("log-ei", "pbgi"),
    ("log-ei", "pbgi-unstable"),
    ("pbgi-unstable", "pbgi"),
];

/// The report's text and verdicts from the finals alone and the hand-written discussion's
/// section (empty for none).
pub fn render(
    finals: &[Final],
    quick: bool,
    seeds: u64,
    discussion: &str,
) -> Result<(String, Vec<Verdict>), String> {
    let all = cells(quick);
    let cell = &all[0];
    let mut md = String::new();
    let _ = writeln!(
        md,
        "# Paper 002: EI's log scale against its stability, and the stable Gittins index \
         (App. D.1, Fig. 10)\n\n\
         Produced by `costbo reproduce pandora --objectives {KEY}{}` from \
         `pandora-stability.finals.csv` (committed: one row per finished run; `--no-run` \
         rewrites this report from it alone). The main study's report is `pandora.md`.\n\n\
         Bayesian regret: a GP sample path of 1024 random Fourier features from a Matérn-5/2 \
         prior with lengthscale κ = 0.1, the model fixed at that prior (zero mean, unit \
         outputscale, noise 1e-4), d = {}, uniform costs, {} rounds after the initial design, \
         each rule maximised as the paper's optimiser does (200d raw samples, 10d restarts, \
         L-BFGS-B's tolerances). A seed fixes the GP sample path and the initial design of \
         every rule.\n\n\
         | rule | the paper's name | what is maximised |\n|---|---|---|\n\
         | `ei-unstable` | Unst. EI | `σ·(φ(u) + u·Φ(u))` as written: cancels for u < 0, exactly 0 (gradient too) once φ(u) underflows |\n\
         | `log-ei-unstable` | Log(Unst. EI) | `ln(EI + 10⁻⁶)` of that EI: log-scaled, not stable |\n\
         | `exp-log-ei` | Exp(LogEI) | `exp(LogEI)`: EI to full precision, not log-scaled |\n\
         | `log-ei` | LogEI | `ln EI` to full precision (Ament et al. 2023) |\n\
         | `pbgi-unstable` | PBGI | the index at λ = 10⁻⁴ by the paper code's bisection of the textbook EI in g (bracket from [−1, 1] doubled, 100 halvings), Eq. 10's gradient |\n\
         | `pbgi` | S-PBGI | the same index solved in log space (safeguarded Newton on ln h), the stable gradient |\n\n\
         Final regret after the whole budget: median and quartiles over seeds, and the mean CPU \
         seconds per decision.",
        if quick { " --quick" } else { "" },
        cell.dim,
        cell.budget,
    );
    super::finals::cell_tables(&mut md, &all, finals);
    let wanted: Vec<(String, &'static str, &'static str)> = COMPARISONS
        .iter()
        .map(|(a, b)| (cell.key.clone(), *a, *b))
        .collect();
    let rows = super::paired::compare(&wanted, |c, rule| by_seed(finals, c, rule, |f| f.regret))?;
    super::paired::regret_section(
        &mut md,
        "Paired comparisons",
        "the table's comparisons",
        &rows,
    );
    let at = |i: usize| {
        let (a, b) = COMPARISONS[i];
        super::paired::find(&rows, &cell.key, a, b)
    };
    let mut verdicts = Vec::new();
    let mut claim = |text: &str, status: Status, evidence: String| {
        verdicts.push(super::paired::verdict(
            KEY, text, &cell.key, status, evidence,
        ));
    };
    claim(
        "Exp(LogEI) performs about as Unst. EI: no difference shown",
        judge(&[at(0)], |r| r.sign() == 0),
        evidence(&[at(0)]),
    );
    claim(
        "Log(Unst. EI) is much better than Unst. EI",
        judge(&[at(1)], |r| r.sign() < 0),
        evidence(&[at(1)]),
    );
    claim(
        "LogEI's gain over EI comes mostly from the log scale (Log(Unst. EI) − Unst. EI), \
         stability adding more (LogEI − Log(Unst. EI)): both shown, the first the larger",
        mostly_from_scale(at(1), at(2)),
        evidence(&[at(1), at(2)]),
    );
    let against_log_ei = [at(2), at(3), at(4), at(5)];
    claim(
        "LogEI is best overall: shown worse than none of the other five, and the lowest median",
        best_overall(&against_log_ei, finals, &cell.key),
        evidence(&against_log_ei),
    );
    claim(
        "PBGI (the paper code's bisection) performs about as S-PBGI (stable): no difference shown",
        judge(&[at(6)], |r| r.sign() == 0),
        evidence(&[at(6)]),
    );
    let shown = |s: Status| verdicts.iter().filter(|v| v.status == s).count();
    let _ = writeln!(
        md,
        "\n## Verdicts on the paper's reading of Fig. 10\n\n\
         {} supported, {} partly, {} not, {} without data.\n\n\
         | claim | scope | verdict | evidence |\n|---|---|---|---|",
        shown(Status::Supported),
        shown(Status::Partly),
        shown(Status::NotSupported),
        shown(Status::Inconclusive)
    );
    for v in &verdicts {
        md.push_str(&super::grid::verdict_row(v));
    }
    md.push_str(discussion);
    md.push_str(&super::finals::not_run(KEY, &all, finals, seeds));
    Ok((md, verdicts))
}

/// The gain from the log scale (`scale`: Log(Unst. EI) against Unst. EI) and from stability
/// (`stability`: LogEI against Log(Unst. EI)): supported when both are shown and the scale's
/// estimate is the larger, partly when only the scale's is shown or it is shown but smaller.
fn mostly_from_scale(scale: Option<&Paired>, stability: Option<&Paired>) -> Status {
    let (Some(scale), Some(stability)) = (scale, stability) else {
        return Status::Inconclusive;
    };
    match (scale.sign(), stability.sign()) {
        (-1, -1) if scale.shift.estimate < stability.shift.estimate => Status::Supported,
        (-1, _) => Status::Partly,
        _ => Status::NotSupported,
    }
}

/// LogEI against each other rule (`rows`, LogEI first): not supported when one is shown
/// better than LogEI, partly when none is but another rule's median is lower, supported
/// otherwise.
fn best_overall(rows: &[Option<&Paired>], finals: &[Final], cell: &str) -> Status {
    if rows.iter().any(Option::is_none) {
        return Status::Inconclusive;
    }
    if rows.iter().flatten().any(|r| r.sign() > 0) {
        return Status::NotSupported;
    }
    let median = |rule: &str| {
        let v: Vec<f64> = by_seed(finals, cell, rule, |f| f.regret)
            .into_iter()
            .map(|(_, r)| r)
            .collect();
        super::grid::median(&v)
    };
    let log_ei = median("log-ei");
    let lowest = RULES
        .iter()
        .filter(|(rule, _)| *rule != "log-ei")
        .all(|(rule, _)| median(rule) >= log_ei);
    if lowest {
        Status::Supported
    } else {
        Status::Partly
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finals(regret: impl Fn(&str, u64) -> f64) -> Vec<Final> {
        let c = &cells(false)[0];
        let mut out = Vec::new();
        for s in 0..12u64 {
            for &rule in &c.rules {
                out.push(Final {
                    cell: c.key.clone(),
                    rule: rule.into(),
                    seed: s,
                    regret: regret(rule, s),
                    decisions: 400,
                    seconds_first_half: 0.1,
                    seconds_second_half: 0.1,
                });
            }
        }
        out
    }

    /// A seed-to-seed spread shared by every rule, and a small alternation of its own.
    fn base(rule: &str, s: u64) -> f64 {
        let wiggle = if (s + rule.len() as u64).is_multiple_of(2) {
            0.01
        } else {
            -0.01
        };
        1.0 + 0.1 * s as f64 + wiggle
    }

    #[test]
    fn the_papers_reading_is_supported_only_by_finals_that_show_it() {
        // The paper's picture: Unst. EI and Exp(LogEI) worst and level, Log(Unst. EI) much
        // better, LogEI a little better again, both PBGIs level just above LogEI.
        let paper = finals(|rule, s| {
            base(rule, s)
                + match rule {
                    "ei-unstable" | "exp-log-ei" => 2.0,
                    "log-ei-unstable" => 0.5,
                    "log-ei" => 0.0,
                    _ => 0.2,
                }
        });
        let (md, v) = render(&paper, false, 12, "").unwrap();
        assert_eq!(v.len(), 5);
        for verdict in &v {
            assert_eq!(verdict.status, Status::Supported, "{}", verdict.claim);
        }
        assert!(md.contains("**Fig. 10: gp-matern52, d = 16, uniform costs, budget 400**"));
        // Stability adding more than the scale: the third claim only partly holds.
        let even = finals(|rule, s| {
            base(rule, s)
                + match rule {
                    "ei-unstable" | "exp-log-ei" => 2.0,
                    "log-ei-unstable" => 1.2,
                    "log-ei" => 0.0,
                    _ => 0.2,
                }
        });
        let (_, v) = render(&even, false, 12, "").unwrap();
        assert_eq!(v[2].status, Status::Partly);
        // Every rule level: the "about as" claims hold, the others do not.
        let level = finals(base);
        let (_, v) = render(&level, false, 12, "").unwrap();
        let status: Vec<Status> = v.iter().map(|v| v.status).collect();
        assert_eq!(status[0], Status::Supported);
        assert_eq!(status[1], Status::NotSupported);
        assert_eq!(status[2], Status::NotSupported);
        assert_eq!(status[4], Status::Supported);
        // S-PBGI better than LogEI on every seed: LogEI is not best.
        let pbgi_best = finals(|rule, s| base(rule, s) - if rule == "pbgi" { 0.5 } else { 0.0 });
        let (_, v) = render(&pbgi_best, false, 12, "").unwrap();
        assert_eq!(v[3].status, Status::NotSupported);
        assert_eq!(v[4].status, Status::NotSupported, "PBGI and S-PBGI differ");
        // No runs: nothing is judged.
        let (md, v) = render(&[], false, 12, "").unwrap();
        assert!(v.iter().all(|v| v.status == Status::Inconclusive));
        assert!(md.contains("## Runs not finished"));
    }
}
