//! Paper 002's illustrative 1-D constructions in `costbo reproduce pandora`: Fig. 2 (hard for
//! EI per unit cost) and Fig. 9 (hard for EI), after Astudillo et al. 2021, §A (notes
//! `seed-002.md` §4.4), as the paper's code builds them on `[0, 1]`:
//!
//! - the objective `a·f_M` of [`bump`] (`bump-eipc`, `bump-ei`; a Matérn-5/2 sample with
//!   `ℓ = 10⁻⁴`, one per seed, shared by every rule), its maximum searched on a grid over
//!   `[0.45, 0.55]`;
//! - the known bump cost from 0.1 to 10 ([`BoxCost::Bump`]), budget 40, the single initial
//!   point `x = 0` (not charged);
//! - the model [`BoxModel::Modulated`]: the fixed Matérn-5/2 (`ℓ = 10⁻⁴`, outputscale 1, zero
//!   mean, noise 10⁻⁴) times the construction's amplitude, `√(a(x)a(x'))·k_M(x, x')`, the
//!   code's kernel. The objective's covariance is `a(x)a(x')·k_M`, so the model's prior
//!   standard deviation at `x` is `√a(x)` where the objective's is `a(x)`: the code's
//!   misspecification, kept so that the runs are the paper's (see [`bump`]).
//!
//! The rules are those the paper's code ran on these problems that we have: PBGI (λ = 10⁻⁴),
//! PBGI-D, LogEIPC, LogEICC and LogEI, plus random search. The paper's Fig. 2 plots LogEIPC
//! and PBGI; Fig. 9 plots LogEI against PBGI. The jobs go to `OUT/fig2/bump-eipc-d1-bump/` and
//! `OUT/fig9/bump-ei-d1-bump/`; `--objectives fig2,fig9` selects them.

use super::grid::{final_quantile, Cell, Claim, FigureSpec, PanelSpec};
use super::run::{BoxCost, BoxModel};
use crate::objectives::bump::{self, Hard};

/// Budget of the paper's runs.
pub const BUDGET: f64 = 40.0;

/// Budget of the smoke grid (`--quick`): a handful of rounds, seconds in all.
pub const QUICK_BUDGET: f64 = 1.0;

/// The single initial point of every run (not charged).
pub const INITIAL_POINT: f64 = 0.0;

/// The rules of both figures.
pub const RULES: [&str; 6] = [
    "pbgi",
    "pbgi-d",
    "log-eipc",
    "log-eicc",
    "log-ei",
    "random-search",
];

/// The panel of the construction hard for `hard`, with budget `budget`.
pub fn panel(hard: Hard, budget: f64) -> PanelSpec {
    PanelSpec {
        key: format!("{}-d1", hard.name()),
        title: format!("{}, d = 1", hard.name()),
        objective: hard.name().to_string(),
        dim: 1,
        // Each seed draws its own Matérn sample; every rule sees the same one.
        seeded_objective: true,
        model: BoxModel::Modulated {
            lengthscale: bump::LENGTHSCALE,
            amplitude: hard,
        },
        uniform_budget: 0.0,
        cost_budget: budget,
    }
}

/// Figs. 2 and 9 (or their smoke versions with `quick`).
pub fn figures(quick: bool) -> Vec<FigureSpec> {
    let budget = if quick { QUICK_BUDGET } else { BUDGET };
    let figure = |key, title, hard| FigureSpec {
        key,
        title,
        panels: vec![panel(hard, budget)],
        costs: vec![BoxCost::Bump],
        uniform_rules: vec![],
        cost_rules: RULES.to_vec(),
    };
    if quick {
        return vec![
            figure(
                "fig2",
                "Fig. 2: hard for EI per unit cost (smoke grid)",
                Hard::Eipc,
            ),
            figure("fig9", "Fig. 9: hard for EI (smoke grid)", Hard::Ei),
        ];
    }
    vec![
        figure("fig2", "Fig. 2: 1-D, hard for EI per unit cost", Hard::Eipc),
        figure("fig9", "Fig. 9: 1-D, hard for EI", Hard::Ei),
    ]
}

/// What the report says under the figure `key`'s title: the construction and how its runs
/// differ from the other figures'.
pub fn note(key: &str) -> Option<&'static str> {
    match key {
        "fig2" => Some(
            "Paper 002's Fig. 2 after Astudillo et al. 2021, §A, in the paper's code's form on \
             [0, 1] (notes §4.4): objective `a(x)·f_M(x)` with `f_M` a Matérn-5/2 sample \
             (ℓ = 1e-4, one per seed) and amplitude `a = ε² + (1 − ε²)·g`, `g` a bump at ½ of \
             width `s ≈ 2.3e-4`; known bump cost `c = ε + (1 + δ − ε)·g` from 0.1 to 10 \
             (ε = 0.1, δ = 9); budget 40; the single initial point x = 0 (not charged) instead \
             of a Sobol' design; the model is the code's: Matérn-5/2 (ℓ = 1e-4, fixed) times \
             the amplitude, `√(a(x)a(x'))·k_M(x, x')`, noise 1e-4 (its prior standard deviation \
             is `√a` where the objective's is `a`, as in the code). The optimum is the maximum \
             on a grid over [0.45, 0.55], as in the code. The paper plots LogEIPC and PBGI; we \
             run every rule the code ran on it that we have.",
        ),
        "fig9" => Some(
            "Paper 002's Fig. 9: as Fig. 2 (same bump cost, budget, initial point x = 0 and \
             model form) with amplitude `a = (1 − ε)² + (1 − (1 − ε)²)·g`, i.e. 0.81 away from \
             the bump and 1 on it. The optimum is the maximum on the grid over [0.45, 0.55], \
             as in the paper's code; larger values of the objective often lie outside it (the \
             amplitude is 0.81 there), so regret can be negative. The paper plots LogEI \
             against PBGI.",
        ),
        _ => None,
    }
}

/// The initial design of a panel's runs: the single point `x = 0` for the constructions (the
/// panels with the modulated model), `None` (the `2(d+1)`-point Sobol' design) otherwise.
pub fn initial_design(panel: &PanelSpec) -> Option<Vec<Vec<f64>>> {
    match panel.model {
        BoxModel::Modulated { .. } => Some(vec![vec![INITIAL_POINT]]),
        _ => None,
    }
}

/// `rule`'s median final regret lies above PBGI's upper quartile: at the end of the budget
/// its median curve is outside PBGI's band, what "substantially worse" means on the paper's
/// plots (median and quartiles).
fn substantially_worse_than_pbgi(cell: &Cell, rule: &str) -> Option<(bool, String)> {
    let m = final_quantile(cell, rule, 0.5)?;
    let (lo, hi) = (
        final_quantile(cell, rule, 0.25)?,
        final_quantile(cell, rule, 0.75)?,
    );
    let p = final_quantile(cell, "pbgi", 0.5)?;
    let (plo, phi) = (
        final_quantile(cell, "pbgi", 0.25)?,
        final_quantile(cell, "pbgi", 0.75)?,
    );
    let mut evidence = format!(
        "final regret, median [quartiles]: {rule} {m:.4} [{lo:.4}, {hi:.4}]; PBGI {p:.4} \
         [{plo:.4}, {phi:.4}]"
    );
    if let (Some(d), Some(dlo), Some(dhi)) = (
        final_quantile(cell, "pbgi-d", 0.5),
        final_quantile(cell, "pbgi-d", 0.25),
        final_quantile(cell, "pbgi-d", 0.75),
    ) {
        evidence.push_str(&format!("; PBGI-D {d:.4} [{dlo:.4}, {dhi:.4}]"));
    }
    Some((m > phi, evidence))
}

/// The claims of Figs. 2 and 9, checked by `study`'s verdicts beside the others.
pub(super) const CLAIMS: &[Claim] = &[
    Claim {
        figure: "fig2",
        panel: "bump-eipc",
        cost: "bump",
        text: "Fig. 2 — paper (§3.3.3): \"EIPC—even in its numerically stable logarithmic \
               form […]—has substantially worse performance than PBGI\"; tested: LogEIPC's \
               median final regret above PBGI's upper quartile",
        check: |c| substantially_worse_than_pbgi(c, "log-eipc"),
    },
    Claim {
        figure: "fig9",
        panel: "bump-ei",
        cost: "bump",
        text: "Fig. 9 — paper (App. A.3): \"LogEI […] which ignores the cost function, also has \
               poor performance\" (the notes: substantially worse than PBGI); tested: LogEI's \
               median final regret above PBGI's upper quartile",
        check: |c| substantially_worse_than_pbgi(c, "log-ei"),
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::objectives::{self, Options};

    #[test]
    fn the_figures_hold_the_constructions_with_the_papers_settings() {
        for quick in [false, true] {
            let figs = figures(quick);
            let keys: Vec<&str> = figs.iter().map(|f| f.key).collect();
            assert_eq!(keys, ["fig2", "fig9"]);
            for (f, hard) in figs.iter().zip([Hard::Eipc, Hard::Ei]) {
                assert_eq!(f.costs, [BoxCost::Bump]);
                assert!(f.uniform_rules.is_empty());
                for rule in ["pbgi", "pbgi-d", "log-ei", "log-eipc"] {
                    assert!(f.cost_rules.contains(&rule), "{} {rule}", f.key);
                }
                let [p] = f.panels.as_slice() else {
                    panic!("one panel")
                };
                assert_eq!(p.objective, hard.name());
                assert_eq!((p.dim, p.seeded_objective), (1, true));
                assert_eq!(p.cost_budget, if quick { QUICK_BUDGET } else { 40.0 });
                assert_eq!(
                    p.model,
                    BoxModel::Modulated {
                        lengthscale: 1e-4,
                        amplitude: hard
                    }
                );
                assert_eq!(initial_design(p), Some(vec![vec![0.0]]));
            }
        }
    }

    #[test]
    fn the_construction_optimum_matches_a_dense_brute_force_search() {
        // Brute force: every point of a grid of spacing 2·10⁻⁷ (ℓ/500) over [0.45, 0.55],
        // independent of the objective's own grid-and-golden-section search. The sample's
        // curvature scale is ℓ, so a peak falls between grid points by at most 10⁻⁷ and loses
        // at most about (10⁻⁷/ℓ)²·5/6 ≈ 10⁻⁶ of its height.
        for (name, seed) in [("bump-eipc", 5), ("bump-ei", 11)] {
            let f = objectives::build(
                name,
                &Options {
                    dim: Some(1),
                    seed: Some(seed),
                },
            )
            .unwrap();
            let n = 500_000;
            let mut brute = f64::NEG_INFINITY;
            for i in 0..=n {
                let x = bump::GRID_LOW + (bump::GRID_HIGH - bump::GRID_LOW) * i as f64 / n as f64;
                brute = brute.max(f.eval(&[x]));
            }
            let best = f.optimum();
            assert!(
                best >= brute - 1e-6 * brute.abs(),
                "{name}: {best} < {brute}"
            );
            assert!(
                best <= brute + 1e-5 * brute.abs(),
                "{name}: {best} vs {brute}"
            );
        }
    }
}
