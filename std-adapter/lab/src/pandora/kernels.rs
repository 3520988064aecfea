//! Paper 002's kernel and lengthscale sweep (App. D.6, Figs. 15–18) at d = 4: the
//! Bayesian-regret problem drawn from a Matérn-3/2, Matérn-5/2 or squared-exponential prior
//! with lengthscale κ = 0.1, 0.5 or 1, the model fixed at that prior, under uniform costs and
//! the cost `1 + 20·mean(u)`, with the main grid's rules and the paper code's budgets (uniform:
//! 25d, 15d, 10d rounds for the Matérn kernels and 20d, 10d, 5d for the squared exponential at
//! κ = 0.1, 0.5, 1; cost-aware: 50d, 40d, 25d).
//!
//! The paper's reading of d = 4 is its "easy" regime: "most policies achieve similar
//! performance". Each cell compares PBGI and PBGI-D with every baseline but random search, seed
//! for seed, Holm-corrected within the cell. "Comparable" is read as no difference shown:
//! absence of evidence on the seeds run, which the report's intervals qualify.
//!
//! As [`super::lookahead`], its report (`pandora-kernels.md`) is a function of its committed
//! per-seed finals (`pandora-kernels.finals.csv`, [`super::finals`]).

use std::fmt::Write as _;

use costbo_core::kernel::Shape;

use super::finals::{by_seed, CellSpec, Final};
use super::grid::{COST_RULES, UNIFORM_RULES};
use super::paired::{evidence, judge, Paired};
use super::run::{BoxCost, BoxModel};
use super::side::CellStudy;
use crate::study::{Status, Verdict};

/// The figure key `--objectives` selects this sweep by (`kernels`, or one cell:
/// `kernels/d6-gp-se-l0.5-d4-uniform`).
pub const KEY: &str = "kernels";

/// The kernels: the catalogue's GP sample, the model's shape, and the budget in units of d
/// under uniform costs at κ = 0.1, 0.5, 1 (the paper's code).
const KERNELS: [(&str, Shape, [f64; 3]); 3] = [
    ("gp-matern32", Shape::Matern32, [25.0, 15.0, 10.0]),
    ("gp-matern52", Shape::Matern52, [25.0, 15.0, 10.0]),
    ("gp-se", Shape::SquaredExponential, [20.0, 10.0, 5.0]),
];

/// The lengthscales, and the cost-aware budget in units of d at each.
const LENGTHSCALES: [(f64, f64); 3] = [(0.1, 50.0), (0.5, 40.0), (1.0, 25.0)];

/// The baselines PBGI and PBGI-D are compared with in a cell of each cost setting.
fn baselines(cost: BoxCost) -> &'static [&'static str] {
    if cost == BoxCost::Uniform {
        &["log-ei", "gp-ucb", "ts-psq"]
    } else {
        &["log-eipc", "log-eicc", "gp-ucb", "ts-psq"]
    }
}

/// The cells: every kernel × lengthscale × cost setting at d = 4 (quick: the squared
/// exponential at κ = 0.5, d = 2, short budgets).
pub fn cells(quick: bool) -> Vec<CellSpec> {
    let cell = |objective: &'static str,
                shape: Shape,
                lengthscale: f64,
                dim: usize,
                cost: BoxCost,
                budget: f64| CellSpec {
        key: format!("d6-{objective}-l{lengthscale}-d{dim}-{}", cost.name()),
        figure: "App. D.6",
        objective,
        dim,
        model: BoxModel::Fixed { lengthscale, shape },
        cost,
        budget,
        rules: if cost == BoxCost::Uniform {
            UNIFORM_RULES.to_vec()
        } else {
            COST_RULES.to_vec()
        },
    };
    if quick {
        return vec![
            cell(
                "gp-se",
                Shape::SquaredExponential,
                0.5,
                2,
                BoxCost::Uniform,
                6.0,
            ),
            cell(
                "gp-se",
                Shape::SquaredExponential,
                0.5,
                2,
                BoxCost::MeanLinear,
                20.0,
            ),
        ];
    }
    let d = 4;
    let mut out = Vec::new();
    for (objective, shape, uniform) in KERNELS {
        for (i, (lengthscale, cost_aware)) in LENGTHSCALES.into_iter().enumerate() {
            out.push(cell(
                objective,
                shape,
                lengthscale,
                d,
                BoxCost::Uniform,
                uniform[i] * d as f64,
            ));
            out.push(cell(
                objective,
                shape,
                lengthscale,
                d,
                BoxCost::MeanLinear,
                cost_aware * d as f64,
            ));
        }
    }
    out
}

/// The sweep, as the main study runs it.
pub const STUDY: CellStudy = CellStudy {
    key: KEY,
    cells,
    render,
};

/// The comparisons of a cell: PBGI and PBGI-D against each baseline.
fn comparisons(c: &CellSpec) -> Vec<(String, &'static str, &'static str)> {
    let mut out = Vec::new();
    for &ours in &["pbgi", "pbgi-d"] {
        for &b in baselines(c.cost) {
            out.push((c.key.clone(), ours, b));
        }
    }
    out
}

/// The report's text and verdicts from the finals alone and the hand-written discussion's
/// section (empty for none).
pub fn render(
    finals: &[Final],
    quick: bool,
    seeds: u64,
    discussion: &str,
) -> Result<(String, Vec<Verdict>), String> {
    let all = cells(quick);
    let mut md = String::new();
    let _ = writeln!(
        md,
        "# Paper 002: the kernel and lengthscale sweep at d = {} (App. D.6)\n\n\
         Produced by `costbo reproduce pandora --objectives {KEY}{}` from \
         `pandora-kernels.finals.csv` (committed: one row per finished run; `--no-run` \
         rewrites this report from it alone). The main study's report is `pandora.md`.\n\n\
         Bayesian regret: a GP sample path of 1024 random Fourier features from a Matérn-3/2, \
         Matérn-5/2 or squared-exponential prior with lengthscale κ, the model fixed at that \
         prior (zero mean, unit outputscale, noise 1e-4), the rules of the main grid maximised \
         as the paper does. Budgets as the paper's code: uniform costs 25d, 15d, 10d rounds \
         (Matérn) and 20d, 10d, 5d (squared exponential) at κ = 0.1, 0.5, 1; under the cost \
         `1 + 20·mean(u)`, 50d, 40d, 25d. A seed fixes the GP sample path and the initial \
         design of every rule of a cell.\n\n\
         Final regret after the whole budget: median and quartiles over seeds, and the mean CPU \
         seconds per decision.",
        all.first().map_or(4, |c| c.dim),
        if quick { " --quick" } else { "" },
    );
    super::finals::cell_tables(&mut md, &all, finals);
    let mut verdicts = Vec::new();
    let mut tested: Vec<(CellSpec, Vec<Paired>)> = Vec::new();
    for c in &all {
        let rows = super::paired::compare(&comparisons(c), |cell, rule| {
            by_seed(finals, cell, rule, |f| f.regret)
        })?;
        tested.push((c.clone(), rows));
    }
    super::paired::regret_section(
        &mut md,
        "Paired comparisons within each cell",
        "the cell's comparisons",
        tested.iter().flat_map(|(_, rows)| rows),
    );
    for (c, rows) in &tested {
        let wanted: Vec<Option<&Paired>> = comparisons(c)
            .iter()
            .map(|(cell, a, b)| super::paired::find(rows, cell, a, b))
            .collect();
        verdicts.push(super::paired::verdict(
            KEY,
            "d = 4 is the easy regime: PBGI and PBGI-D comparable to the baselines (LogEI or \
             its cost-aware forms, UCB, TS): no difference shown",
            &c.key,
            judge(&wanted, |r| r.sign() == 0),
            evidence(&wanted),
        ));
    }
    // The weaker reading, over the whole sweep: neither PBGI variant is shown worse than a
    // baseline in any cell.
    let all_rows: Vec<&Paired> = tested.iter().flat_map(|(_, rows)| rows).collect();
    let worse: Vec<Option<&Paired>> = all_rows
        .iter()
        .filter(|r| r.sign() > 0)
        .map(|r| Some(*r))
        .collect();
    let expected: usize = all.iter().map(|c| comparisons(c).len()).sum();
    let status = if all_rows.len() < expected {
        Status::Inconclusive
    } else if worse.is_empty() {
        Status::Supported
    } else if worse.len() < all_rows.len() {
        Status::Partly
    } else {
        Status::NotSupported
    };
    let text = if worse.is_empty() {
        format!(
            "none of {} comparisons shows PBGI or PBGI-D worse",
            all_rows.len()
        )
    } else {
        let cells: Vec<String> = worse
            .iter()
            .flatten()
            .map(|r| format!("{}: {}", r.cell, evidence(&[Some(*r)])))
            .collect();
        format!(
            "{} of {} comparisons show PBGI or PBGI-D worse: {}",
            worse.len(),
            all_rows.len(),
            cells.join("; ")
        )
    };
    let weak = super::paired::verdict(
        KEY,
        "At d = 4, PBGI and PBGI-D are not worse than any baseline (the sweep's every cell)",
        "all cells",
        status,
        text,
    );
    let shown = |s: Status| verdicts.iter().filter(|v| v.status == s).count();
    let _ = writeln!(
        md,
        "\n## Verdicts on the paper's reading of d = 4\n\n\
         {} cells supported, {} partly, {} not, {} without data.\n\n\
         | claim | scope | verdict | evidence |\n|---|---|---|---|",
        shown(Status::Supported),
        shown(Status::Partly),
        shown(Status::NotSupported),
        shown(Status::Inconclusive)
    );
    for v in &verdicts {
        md.push_str(&super::grid::verdict_row(v));
    }
    md.push_str(&super::grid::verdict_row(&weak));
    verdicts.push(weak);
    md.push_str(discussion);
    md.push_str(&super::finals::not_run(KEY, &all, finals, seeds));
    Ok((md, verdicts))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grid_has_the_papers_budgets_and_unique_keys() {
        let all = cells(false);
        assert_eq!(all.len(), 18);
        let mut keys: Vec<&str> = all.iter().map(|c| c.key.as_str()).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), 18);
        let budget = |key: &str| all.iter().find(|c| c.key == key).unwrap().budget;
        assert_eq!(budget("d6-gp-matern32-l0.1-d4-uniform"), 100.0);
        assert_eq!(budget("d6-gp-se-l0.5-d4-uniform"), 40.0);
        assert_eq!(budget("d6-gp-se-l1-d4-uniform"), 20.0);
        assert_eq!(budget("d6-gp-matern52-l0.5-d4-linear"), 160.0);
        assert_eq!(budget("d6-gp-se-l1-d4-linear"), 100.0);
        let se = all
            .iter()
            .find(|c| c.key == "d6-gp-se-l1-d4-linear")
            .unwrap();
        assert_eq!(
            se.model,
            BoxModel::Fixed {
                lengthscale: 1.0,
                shape: Shape::SquaredExponential
            }
        );
        assert_eq!(se.rules, COST_RULES.to_vec());
    }

    #[test]
    fn a_cell_is_comparable_only_when_no_difference_is_shown() {
        let c = &cells(false)[0];
        let row = |rule: &str, seed: u64, regret: f64| Final {
            cell: c.key.clone(),
            rule: rule.into(),
            seed,
            regret,
            decisions: 4,
            seconds_first_half: 0.1,
            seconds_second_half: 0.1,
        };
        // Every rule's regret the same up to a seed-to-seed alternation: no difference.
        let mut finals = Vec::new();
        for s in 0..12u64 {
            for &rule in &c.rules {
                let wiggle = if (s + rule.len() as u64).is_multiple_of(2) {
                    0.01
                } else {
                    -0.01
                };
                finals.push(row(rule, s, 1.0 + 0.1 * s as f64 + wiggle));
            }
        }
        let (_, v) = render(&finals, false, 12, "").unwrap();
        assert_eq!(v[0].scope, c.key);
        assert_eq!(v[0].status, Status::Supported, "{}", v[0].evidence);
        // PBGI-D far better on every seed: a difference is shown, the cell only partly fits.
        for f in finals.iter_mut().filter(|f| f.rule == "pbgi-d") {
            f.regret -= 0.5;
        }
        let (_, v) = render(&finals, false, 12, "").unwrap();
        assert_eq!(v[0].status, Status::Partly);
        // Cells without runs are not judged, and the sweep's not-worse reading waits for them.
        assert_eq!(v[1].status, Status::Inconclusive);
        assert_eq!(v.len(), 19);
        assert_eq!(v[18].status, Status::Inconclusive);
        // Every cell run, PBGI-D far worse on every seed: all 63 of its comparisons (9 cells
        // × 3 baselines and 9 × 4) are shown worse, PBGI's 63 are not.
        let mut every = Vec::new();
        for c in cells(false) {
            for s in 0..12u64 {
                for &rule in &c.rules {
                    let wiggle = if (s + rule.len() as u64).is_multiple_of(2) {
                        0.01
                    } else {
                        -0.01
                    };
                    let worse = if rule == "pbgi-d" { 1.0 } else { 0.0 };
                    every.push(Final {
                        cell: c.key.clone(),
                        ..row(rule, s, 1.0 + 0.1 * s as f64 + wiggle + worse)
                    });
                }
            }
        }
        let (_, v) = render(&every, false, 12, "").unwrap();
        assert_eq!(v[18].status, Status::Partly, "{}", v[18].evidence);
        assert!(
            v[18].evidence.starts_with("63 of 126 comparisons"),
            "{}",
            v[18].evidence
        );
    }
}
