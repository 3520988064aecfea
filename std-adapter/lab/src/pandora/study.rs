//! `costbo reproduce pandora`: paper 002's experiments on [`run_box`](super::run::run_box),
//! with figures in the paper's form (median and quartiles of regret against cumulative cost),
//! a table of final regret and a verdict on each headline claim the data can speak to.
//!
//! Jobs are one `(panel, cost setting, rule, seed)` each; each writes its rounds to
//! `OUT/<figure>/<panel>-<cost>/<rule>/seed-<s>.csv` when it finishes, so an interrupted grid
//! resumes where it stopped and a report can be written from whatever has finished.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::run::{initial_points, BoxCost, BoxModel, BoxRun};
use super::side::{kept, SideStudy};
use crate::plot::{Curve, Figure, Panel};
use crate::study::{Outcome, Request, Setting, Status, Study, Verdict};
use costbo_core::kernel::Shape;

use super::grid::*;
pub use super::grid::{FigureSpec, PandoraOptions, PanelSpec};

fn panel(objective: &str, dim: usize, model: BoxModel, uniform: f64, cost: f64) -> PanelSpec {
    let seeded = objective.starts_with("gp-");
    PanelSpec {
        key: format!("{objective}-d{dim}"),
        title: format!("{objective}, d = {dim}"),
        objective: objective.to_string(),
        dim,
        seeded_objective: seeded,
        model,
        uniform_budget: uniform,
        cost_budget: cost,
    }
}

/// The objectives the study names (paper 002's scalings; see `costbo objective list`).
pub mod names {
    /// A Matérn-5/2 GP prior sample, lengthscale 0.1 (Bayesian regret).
    pub const BAYES: &str = "gp-matern52";
    /// Ackley on [−1, 1]^d, negated.
    pub const ACKLEY: &str = "ackley-pbgi";
    /// Levy on [−10, 10]^d, negated and divided by 100.
    pub const LEVY: &str = "levy-pbgi";
    /// Rosenbrock on [−5, 10]^d, negated and divided by 10⁵.
    pub const ROSENBROCK: &str = "rosenbrock-pbgi";
}

/// The figures of the paper's grid, or of the smoke grid (`quick`); the 1-D constructions
/// ([`super::onedim`]) come last, so the jobs of the others keep their order.
pub fn figures(quick: bool) -> Vec<FigureSpec> {
    let mut figs = grid_figures(quick);
    figs.extend(super::onedim::figures(quick));
    figs
}

fn grid_figures(quick: bool) -> Vec<FigureSpec> {
    let fixed = BoxModel::Fixed {
        lengthscale: 0.1,
        shape: Shape::Matern52,
    };
    let fitted = BoxModel::Fitted;
    let both = vec![BoxCost::Uniform, BoxCost::MeanLinear];
    if quick {
        return vec![
            FigureSpec {
                key: "fig4",
                title: "Bayesian regret (smoke grid)",
                panels: vec![panel(names::BAYES, 2, fixed, 8.0, 30.0)],
                costs: both.clone(),
                uniform_rules: UNIFORM_RULES.to_vec(),
                cost_rules: COST_RULES.to_vec(),
            },
            FigureSpec {
                key: "fig5",
                title: "Synthetic benchmarks (smoke grid)",
                panels: vec![panel(names::ACKLEY, 2, fitted, 6.0, 20.0)],
                costs: both,
                uniform_rules: UNIFORM_RULES.to_vec(),
                cost_rules: COST_RULES.to_vec(),
            },
        ];
    }
    vec![
        FigureSpec {
            key: "fig4",
            title: "Fig. 4: Bayesian regret (Matérn-5/2, κ = 0.1, fixed model)",
            panels: vec![
                panel(names::BAYES, 8, fixed, 200.0, 400.0),
                panel(names::BAYES, 16, fixed, 400.0, 800.0),
                // The code's budgets at d = 32: 25d rounds uniform, B = 25d cost-aware.
                panel(names::BAYES, 32, fixed, 800.0, 800.0),
            ],
            costs: both.clone(),
            uniform_rules: UNIFORM_RULES.to_vec(),
            cost_rules: COST_RULES.to_vec(),
        },
        FigureSpec {
            key: "fig5",
            title: "Fig. 5: synthetic benchmarks, d = 16 (MAP refits every round)",
            panels: vec![
                panel(names::ACKLEY, 16, fitted, 160.0, 400.0),
                panel(names::LEVY, 16, fitted, 160.0, 400.0),
                panel(names::ROSENBROCK, 16, fitted, 160.0, 400.0),
            ],
            costs: both,
            uniform_rules: UNIFORM_RULES.to_vec(),
            cost_rules: COST_RULES.to_vec(),
        },
        FigureSpec {
            key: "fig3",
            title: "Fig. 3 (right): fixed λ against PBGI-D, Bayesian regret d = 8, cost-aware",
            panels: vec![panel(names::BAYES, 8, fixed, 200.0, 400.0)],
            costs: vec![BoxCost::MeanLinear],
            uniform_rules: vec![],
            cost_rules: vec![
                "pbgi:0.1",
                "pbgi:0.01",
                "pbgi:0.001",
                "pbgi:0.0001",
                "pbgi:0.00001",
                "pbgi-d",
            ],
        },
        FigureSpec {
            key: "fig11",
            title: "Fig. 11: CPU time per iteration, Ackley (uniform cost, 10d iterations)",
            panels: vec![
                panel(names::ACKLEY, 4, fitted, 40.0, 0.0),
                panel(names::ACKLEY, 8, fitted, 80.0, 0.0),
                panel(names::ACKLEY, 16, fitted, 160.0, 0.0),
            ],
            costs: vec![BoxCost::Uniform],
            uniform_rules: vec!["pbgi", "log-ei", "ts-psq"],
            cost_rules: vec![],
        },
    ]
}

/// One job of the grid.
#[derive(Debug, Clone)]
struct Job {
    figure: &'static str,
    panel: PanelSpec,
    cost: BoxCost,
    rule: &'static str,
    seed: u64,
}

impl Job {
    /// `figure/panel-cost`, what `--objectives` may select by prefix
    /// (`fig4/gp-matern52-d32-uniform`).
    fn selector(&self) -> String {
        format!("{}/{}-{}", self.figure, self.panel.key, self.cost.name())
    }

    fn dir(&self, out: &Path) -> PathBuf {
        out.join(self.figure)
            .join(format!("{}-{}", self.panel.key, self.cost.name()))
            .join(self.rule.replace(':', "_"))
    }

    fn path(&self, out: &Path) -> PathBuf {
        self.dir(out).join(format!("seed-{}.csv", self.seed))
    }

    fn budget(&self) -> f64 {
        match self.cost {
            BoxCost::Uniform => self.panel.uniform_budget,
            _ => self.panel.cost_budget,
        }
    }
}

fn jobs(figures: &[FigureSpec], seeds: u64) -> Vec<Job> {
    let mut out = Vec::new();
    for f in figures {
        for p in &f.panels {
            for &cost in &f.costs {
                let rules = match cost {
                    BoxCost::Uniform => &f.uniform_rules,
                    _ => &f.cost_rules,
                };
                for &rule in rules {
                    for seed in 0..seeds {
                        out.push(Job {
                            figure: f.key,
                            panel: p.clone(),
                            cost,
                            rule,
                            seed,
                        });
                    }
                }
            }
        }
    }
    out
}

fn run_job(job: &Job) -> Result<Trace, String> {
    let run = BoxRun {
        rule: job.rule.to_string(),
        seed: job.seed,
        budget: job.budget(),
        cost: job.cost,
        model: job.panel.model,
        paper_optimiser: true,
    };
    let initial = super::onedim::initial_design(&job.panel);
    run_traced(
        &job.panel.objective,
        job.panel.dim,
        job.panel.seeded_objective,
        &run,
        initial.as_deref(),
    )
}

/// Every side study ([`super::side`]), in the order this study runs and shards them.
const SIDE_STUDIES: [&dyn SideStudy; 4] = [
    &super::lookahead::STUDY,
    &super::sensitivity::Sensitivity,
    &super::kernels::STUDY,
    &super::stability::STUDY,
];

/// Runs the missing jobs of the study and writes the report; returns the report's path and
/// the verdicts in it.
pub fn reproduce(options: &PandoraOptions) -> Result<Outcome, String> {
    let (figs, all) = grid(options)?;
    if !options.no_run {
        run_missing(&all, options)?;
        super::empirical::run_missing(&super::empirical::jobs(options), options)?;
        for side in SIDE_STUDIES {
            side.run_missing(options, &|_| true)?;
        }
    }
    if let Some(dir) = options.report.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let mut outcome = Outcome::default();
    // A selection of the lookahead comparison, the sensitivity study or the kernel sweep alone
    // leaves the main report as it is: it would be rewritten from none of its runs.
    if !figs.is_empty() || super::empirical::selected(options) {
        let (report, verdicts) = report(&figs, &all, options)?;
        crate::experiment::write_atomic(&options.report, &report)?;
        outcome.verdicts = verdicts;
        outcome.written.push(options.report.clone());
    }
    for side in SIDE_STUDIES.iter().filter(|s| s.selected(options)) {
        outcome.verdicts.extend(side.report(options)?);
        outcome.written.push(side.report_path(&options.report));
    }
    Ok(outcome)
}

/// Runs the missing jobs of `shard`'s share of the study's grid (`costbo reproduce pandora
/// --shard K/N`): job `i` of the grid's fixed order (figures, panels, costs, rules, seeds) is
/// shard `i mod N + 1`'s, as the runner's shards (see [`crate::experiment::shard`]). A shard
/// writes no report: once every shard has finished, [`reproduce`] on the shared output
/// directory finds every job done and writes it. Every shard must be given the same options
/// (seeds, quick, figures), which fix the order.
pub fn run_shard(options: &PandoraOptions, shard: crate::experiment::Shard) -> Result<(), String> {
    let (_, all) = grid(options)?;
    let n = all.len();
    run_missing(&kept(all, &|i| shard.owns(i)), options)?;
    // Fig. 6's jobs (`super::empirical`) follow the grid's in the fixed order.
    let fig6 = kept(super::empirical::jobs(options), &|i| shard.owns(n + i));
    super::empirical::run_missing(&fig6, options)?;
    // Then each side study's, in SIDE_STUDIES's order.
    let mut n = n + super::empirical::jobs(options).len();
    for side in SIDE_STUDIES {
        side.run_missing(options, &|i| shard.owns(n + i))?;
        n += side.job_count(options);
    }
    Ok(())
}

/// The figures selected by `options` and their jobs, in the grid's fixed order.
fn grid(options: &PandoraOptions) -> Result<(Vec<FigureSpec>, Vec<Job>), String> {
    let mut figs = figures(options.quick);
    let mut all;
    if let Some(keep) = &options.figures {
        // A figure's key selects it whole; `figure/panel-cost` (a prefix of one) selects
        // those cells of it only.
        let whole = |f: &str| keep.iter().any(|k| k == f);
        figs.retain(|f| {
            keep.iter()
                .any(|k| k == f.key || k.starts_with(&format!("{}/", f.key)))
        });
        let others =
            super::empirical::selected(options) || SIDE_STUDIES.iter().any(|s| s.selected(options));
        if figs.is_empty() && !others {
            return Err(format!(
                "no figure among {keep:?} (known: fig2, fig3, fig4, fig5, fig6, fig9, fig11, \
                 lookahead, sensitivity, kernels, stability, or a figure's cells such as \
                 fig4/gp-matern52-d32-uniform)"
            ));
        }
        all = jobs(&figs, options.seeds);
        all.retain(|j| {
            whole(j.figure) || keep.iter().any(|k| j.selector().starts_with(k.as_str()))
        });
        if all.is_empty() && !others {
            return Err(format!("no cell of the grid matches {keep:?}"));
        }
    } else {
        all = jobs(&figs, options.seeds);
    }
    Ok((figs, all))
}

fn run_missing(all: &[Job], options: &PandoraOptions) -> Result<(), String> {
    run_pending("pandora", all, options)
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
            "{} {} {} {} seed {}",
            self.figure,
            self.panel.key,
            self.cost.name(),
            self.rule,
            self.seed
        )
    }

    fn run(&self) -> Result<Trace, String> {
        run_job(self)
    }
}

/// Final regrets of each rule in one panel and cost setting, by rule.
type Finals = BTreeMap<&'static str, Vec<f64>>;

fn report(
    figs: &[FigureSpec],
    all: &[Job],
    options: &PandoraOptions,
) -> Result<(String, Vec<Verdict>), String> {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "# Paper 002: cost-aware BO with the Pandora's Box Gittins index\n"
    );
    let _ = writeln!(
        md,
        "Produced by `costbo reproduce pandora{}{}{}` (runs in `{}`).\n",
        if options.quick { " --quick" } else { "" },
        match &options.figures {
            Some(keep) => format!(" --objectives {}", keep.join(",")),
            None => String::new(),
        },
        if options.seeds != 16 {
            format!(" --seeds {}", options.seeds)
        } else {
            String::new()
        },
        options.out.display()
    );
    let _ = writeln!(
        md,
        "Regret is the objective's maximum minus the best value observed (the `2(d+1)`-point \
         Sobol initial design included), read as a step function of the budget spent; curves are \
         the median and quartiles over seeds, as the paper plots them. Every rule is the core's \
         (`costbo_core::policy`), maximised as the paper does (200·d raw Sobol points, 10·d \
         Boltzmann restarts, quasi-Newton ascent with bounds)."
    );
    let mut cells = Cells::new();
    for f in figs {
        let _ = writeln!(md, "\n## {}\n", f.title);
        if let Some(note) = super::onedim::note(f.key) {
            let _ = writeln!(md, "{note}\n");
        }
        let mut panels = Vec::new();
        let mut table = String::new();
        for p in &f.panels {
            for &cost in &f.costs {
                let cell: Vec<&Job> = all
                    .iter()
                    .filter(|j| j.figure == f.key && j.panel == *p && j.cost == cost)
                    .collect();
                let b = cell.first().map(|j| j.budget()).unwrap_or(0.0);
                let mut curves = Vec::new();
                let mut finals = Finals::new();
                let mut times: BTreeMap<&'static str, Vec<f64>> = BTreeMap::new();
                let rules: Vec<&'static str> = {
                    let mut r: Vec<&'static str> = cell.iter().map(|j| j.rule).collect();
                    r.dedup();
                    r
                };
                for rule in &rules {
                    let traces: Vec<Trace> = cell
                        .iter()
                        .filter(|j| j.rule == *rule)
                        .filter_map(|j| read_trace(&j.path(&options.out)))
                        .collect();
                    if traces.is_empty() {
                        continue;
                    }
                    let (xs, q) = quartile_curve(&traces, b, 100, regret_at);
                    cells
                        .entry((f.key, p.key.clone(), cost.name()))
                        .or_default()
                        .insert(rule, (b, traces.clone()));
                    finals.insert(rule, traces.iter().map(|t| regret_at(t, b)).collect());
                    times.insert(
                        rule,
                        traces
                            .iter()
                            .flat_map(|t| t.rounds.iter().map(|r| r.decide_seconds))
                            .collect(),
                    );
                    curves.push(Curve {
                        label: rule.to_string(),
                        x: xs,
                        mean: q[1].clone(),
                        stderr: vec![0.0; q[1].len()],
                        marker: None,
                        band: Some((q[0].clone(), q[2].clone())),
                    });
                }
                if curves.is_empty() {
                    // A cell with no finished run gets a line, not an empty table or panel.
                    let _ = writeln!(
                        table,
                        "\n**{}, {} costs, budget {}**: no finished run (see \"Cells not \
                         finished\").",
                        p.title,
                        cost.name(),
                        b
                    );
                    continue;
                }
                if f.key == "fig11" {
                    let _ = writeln!(
                        table,
                        "\n**{}** (CPU seconds per decision: refit and acquisition optimisation)\n",
                        p.title
                    );
                    let _ = writeln!(
                        table,
                        "| rule | median | mean | decisions |\n|---|---:|---:|---:|"
                    );
                    for (rule, t) in &times {
                        let mut v = t.clone();
                        v.sort_by(f64::total_cmp);
                        let mean = v.iter().sum::<f64>() / v.len().max(1) as f64;
                        let _ = writeln!(
                            table,
                            "| {rule} | {:.4} | {:.4} | {} |",
                            quantile(&v, 0.5),
                            mean,
                            v.len()
                        );
                    }
                    continue;
                }
                // A cell still running (rules with different numbers of finished seeds) says
                // so in its heading and panel title: its curves are not yet comparable.
                let seeds: BTreeSet<usize> = finals.values().map(Vec::len).collect();
                let partial = if seeds.len() > 1 {
                    ", partial: rules differ in finished seeds"
                } else {
                    ""
                };
                let _ = writeln!(
                    table,
                    "\n**{}, {} costs, budget {}{partial}** (final regret: median [quartiles], \
                     seeds)\n",
                    p.title,
                    cost.name(),
                    b
                );
                let _ = writeln!(
                    table,
                    "| rule | median | 25 % | 75 % | seeds |\n|---|---:|---:|---:|---:|"
                );
                for (rule, v) in &finals {
                    let mut s = v.clone();
                    s.sort_by(f64::total_cmp);
                    let _ = writeln!(table, "| {rule} | {} |", quartile_columns(&s));
                }
                panels.push(Panel {
                    title: format!(
                        "{} — {} costs{}",
                        p.title,
                        cost.name(),
                        if partial.is_empty() { "" } else { " (partial)" }
                    ),
                    curves,
                });
            }
        }
        if !panels.is_empty() {
            let figure = Figure {
                title: f.title.to_string(),
                rows: panels.len().div_ceil(2),
                cols: panels.len().min(2),
                panels,
                x_label: "budget spent".into(),
                y_label: "regret".into(),
                panel_width: 480,
                panel_height: 320,
            };
            let dir = options.report.parent().unwrap_or(Path::new("."));
            let stem = if options.quick {
                format!("pandora-quick-{}", f.key)
            } else {
                format!("pandora-{}", f.key)
            };
            let png = dir.join("figures").join(format!("{stem}.png"));
            std::fs::create_dir_all(png.parent().unwrap_or(dir)).map_err(|e| e.to_string())?;
            figure
                .write_png(&png)
                .map_err(|e| format!("{}: {e}", png.display()))?;
            let _ = writeln!(md, "![{}](figures/{stem}.png)\n", f.title);
        }
        md.push_str(&table);
    }
    let figures_dir = options
        .report
        .parent()
        .unwrap_or(Path::new("."))
        .join("figures");
    let stem = if options.quick {
        "pandora-quick-fig6"
    } else {
        "pandora-fig6"
    };
    let (fig6, fig6_verdicts) = super::empirical::section(
        &super::empirical::jobs(options),
        options,
        &figures_dir,
        stem,
    )?;
    md.push_str(&fig6);
    let (mut verdicts, section) = verdicts(&cells);
    md.push_str(&section);
    verdicts.extend(fig6_verdicts);
    md.push_str(&crate::reproduce::report::discussion(&options.report));
    md.push_str(&missing(options));
    md.push_str(&unfinished(all, options));
    Ok((md, verdicts))
}

/// Every finished cell: (figure, panel, cost) → [`Cell`].
type Cells = BTreeMap<(&'static str, String, &'static str), Cell>;

/// `rule`'s median final regret is at most `factor` × the best median of `others`.
fn within(cell: &Cell, rule: &str, others: &[&str], factor: f64) -> Option<(bool, String)> {
    let m = median_at(cell, rule, 1.0)?;
    // Every rule compared must have run: the best of a subset is not the claim's.
    let best = others
        .iter()
        .map(|o| median_at(cell, o, 1.0).map(|v| (*o, v)))
        .collect::<Option<Vec<_>>>()?
        .into_iter()
        .min_by(|a, b| a.1.total_cmp(&b.1))?;
    Some((
        m <= factor * best.1 + 1e-12,
        format!(
            "{rule} {m:.4}; best of {} {:.4} ({})",
            others.join(", "),
            best.1,
            best.0
        ),
    ))
}

const CLAIMS: &[Claim] = &[
    Claim {
        figure: "fig4",
        panel: "gp-matern52",
        cost: "linear",
        text: "PBGI-D decisively outperforms random search (Bayesian regret, cost-aware)",
        check: |c| {
            let d = median_at(c, "pbgi-d", 1.0)?;
            let rs = median_at(c, "random-search", 1.0)?;
            Some((d < 0.5 * rs, format!("PBGI-D {d:.4} vs RS {rs:.4} (decisive: below half)")))
        },
    },
    Claim {
        figure: "fig4",
        panel: "gp-matern52",
        cost: "linear",
        text: "both PBGI variants are comparable to LogEIPC and LogEICC (within 1.5× of the better)",
        check: |c| {
            let (a, ea) = within(c, "pbgi", &["log-eipc", "log-eicc"], 1.5)?;
            let (b, eb) = within(c, "pbgi-d", &["log-eipc", "log-eicc"], 1.5)?;
            Some((a && b, format!("{ea}; {eb}")))
        },
    },
    Claim {
        figure: "fig4",
        panel: "gp-matern52",
        cost: "uniform",
        text: "PBGI and PBGI-D are comparable to the best baselines, LogEI and UCB (within 1.5×)",
        check: |c| {
            let (a, ea) = within(c, "pbgi", &["log-ei", "gp-ucb"], 1.5)?;
            let (b, eb) = within(c, "pbgi-d", &["log-ei", "gp-ucb"], 1.5)?;
            Some((a && b, format!("{ea}; {eb}")))
        },
    },
    Claim {
        figure: "fig5",
        panel: "ackley-pbgi",
        cost: "uniform",
        text: "Ackley, uniform cost: PBGI beats PBGI-D and the baselines",
        check: |c| within(c, "pbgi", &["pbgi-d", "log-ei", "gp-ucb", "ts-psq", "random-search"], 1.0),
    },
    Claim {
        figure: "fig5",
        panel: "ackley-pbgi",
        cost: "linear",
        text: "Ackley, cost-aware: PBGI, PBGI-D, LogEIPC and LogEICC are similar (within 1.5× of the best of them)",
        check: |c| {
            let all = ["pbgi", "pbgi-d", "log-eipc", "log-eicc"];
            let v: Vec<f64> = all.iter().filter_map(|r| median_at(c, r, 1.0)).collect();
            if v.len() < all.len() {
                return None;
            }
            let (lo, hi) = (v.iter().cloned().fold(f64::INFINITY, f64::min), v.iter().cloned().fold(0.0, f64::max));
            Some((hi <= 1.5 * lo + 1e-12, format!("medians {v:.4?}")))
        },
    },
    Claim {
        figure: "fig5",
        panel: "levy-pbgi",
        cost: "uniform",
        text: "Levy, uniform cost: PBGI is best",
        check: |c| within(c, "pbgi", &["pbgi-d", "log-ei", "gp-ucb", "ts-psq", "random-search"], 1.0),
    },
    Claim {
        figure: "fig5",
        panel: "levy-pbgi",
        cost: "linear",
        text: "Levy, cost-aware: PBGI-D, LogEIPC and LogEICC are best (PBGI-D within 1.1× of every baseline)",
        check: |c| within(c, "pbgi-d", &["pbgi", "log-eipc", "log-eicc", "gp-ucb", "ts-psq", "random-search"], 1.1),
    },
    Claim {
        figure: "fig5",
        panel: "rosenbrock-pbgi",
        cost: "linear",
        text: "Rosenbrock, cost-aware: PBGI-D is strongest, matching the LogEI variants and beating PBGI",
        check: |c| {
            let (a, ea) = within(c, "pbgi-d", &["log-eipc", "log-eicc"], 1.1)?;
            let d = median_at(c, "pbgi-d", 1.0)?;
            let p = median_at(c, "pbgi", 1.0)?;
            Some((a && d < p, format!("{ea}; PBGI {p:.4}")))
        },
    },
    Claim {
        figure: "fig5",
        panel: "rosenbrock-pbgi",
        cost: "uniform",
        text: "Rosenbrock, uniform cost: PBGI is beaten by PBGI-D and most baselines",
        check: |c| {
            let p = median_at(c, "pbgi", 1.0)?;
            let others = ["pbgi-d", "log-ei", "gp-ucb", "ts-psq", "random-search"];
            let beat = others.iter().filter(|r| median_at(c, r, 1.0).is_some_and(|v| v < p)).count();
            let d = median_at(c, "pbgi-d", 1.0)?;
            Some((d < p && beat * 2 > others.len(), format!("PBGI {p:.4}; {beat} of {} rules below it, PBGI-D {d:.4}", others.len())))
        },
    },
    Claim {
        figure: "fig3",
        panel: "gp-matern52",
        cost: "linear",
        text: "fixed λ: a large λ (0.1) decreases regret sooner but ends worse than a small one (1e-5)",
        check: |c| {
            let (big_early, small_early) = (median_at(c, "pbgi:0.1", 0.25)?, median_at(c, "pbgi:0.00001", 0.25)?);
            let (big_late, small_late) = (median_at(c, "pbgi:0.1", 1.0)?, median_at(c, "pbgi:0.00001", 1.0)?);
            Some((
                big_early < small_early && big_late > small_late,
                format!("at B/4: λ=0.1 {big_early:.4}, λ=1e-5 {small_early:.4}; at B: {big_late:.4}, {small_late:.4}"),
            ))
        },
    },
];

/// The verdicts on the headline claims and the report's section of them.
fn verdicts(cells: &Cells) -> (Vec<Verdict>, String) {
    let mut md = String::from("\n## Verdicts on the headline claims (notes §5)\n\n");
    md.push_str(
        "Each claim is checked on the final median regrets of the panels it speaks of (the \
         paper gives no numbers, only plots; the thresholds that turn \"comparable\" or \
         \"decisively\" into a test are ours and stated in each claim). With few seeds these \
         are indications, not significance tests.\n\n",
    );
    md.push_str("| claim | panel | verdict | evidence |\n|---|---|---|---|\n");
    let mut verdicts = Vec::new();
    for claim in CLAIMS.iter().chain(super::onedim::CLAIMS) {
        for ((figure, panel, cost), cell) in cells {
            if *figure != claim.figure || *cost != claim.cost || !panel.starts_with(claim.panel) {
                continue;
            }
            // Medians over different seeds are not comparable: a cell still running (some
            // rules with more finished seeds than others) is not judged.
            let seeds: BTreeSet<usize> = cell.values().map(|(_, t)| t.len()).collect();
            let (status, evidence) = match (claim.check)(cell) {
                _ if seeds.len() > 1 => (
                    Status::Inconclusive,
                    "its rules have different numbers of finished seeds".to_string(),
                ),
                Some((ok, e)) => (Status::from_bool(ok), e),
                None => (
                    Status::Inconclusive,
                    "a rule's runs are missing".to_string(),
                ),
            };
            verdicts.push(Verdict {
                id: claim.figure.into(),
                claim: claim.text.into(),
                scope: format!("{panel}, {cost}"),
                status,
                evidence,
                ..Verdict::default()
            });
        }
    }
    if verdicts.is_empty() {
        md.push_str("| (no panel of a claim has finished) | | | |\n");
    }
    // The runtime claim (Fig. 11): PBGI slightly slower than LogEI and TS, same order.
    for ((figure, panel, _), cell) in cells {
        if *figure != "fig11" {
            continue;
        }
        let time = |r: &str| {
            cell.get(r).map(|(_, t)| {
                median(
                    &t.iter()
                        .flat_map(|t| t.rounds.iter().map(|r| r.decide_seconds))
                        .collect::<Vec<_>>(),
                )
            })
        };
        if let (Some(p), Some(l), Some(ts)) = (time("pbgi"), time("log-ei"), time("ts-psq")) {
            verdicts.push(Verdict {
                id: "fig11".into(),
                claim: "runtime: PBGI is slightly slower than LogEI and TS, within the same order \
                        (≤ 1.5× LogEI)"
                    .into(),
                scope: panel.clone(),
                status: Status::from_bool(p <= 1.5 * l),
                evidence: format!(
                    "median CPU s per decision: PBGI {p:.4}, LogEI {l:.4}, TS {ts:.4}"
                ),
                ..Verdict::default()
            });
        }
    }
    for v in &verdicts {
        md.push_str(&verdict_row(v));
    }
    (verdicts, md)
}

/// What the report does not cover, said plainly.
fn missing(options: &PandoraOptions) -> String {
    let mut md = String::from("\n## What is not reproduced here\n\n");
    if options.seeds < 16 {
        let _ = writeln!(
            md,
            "- **Seeds**: {} per cell instead of the paper's 16 (256 for Fig. 3); the rest of \
             the grid is the same command with `--seeds 16` (it resumes).",
            options.seeds
        );
    }
    md.push_str(
        "- **Non-myopic baselines**: KG, MES, MSEI, MFMES and BMSEI (known costs) run beside \
         PBGI in Fig. 4's and Fig. 5's cells and in Fig. 11's timing in a report of their own, \
         [`pandora-lookahead.md`](pandora-lookahead.md) (`--objectives lookahead`), computed \
         from committed per-seed finals; the cells not yet run are listed there with their \
         price. Fig. 6's problems are not in it.\n\
         - **Fig. 12** (PBGI-D's λ₀ and β) and **Fig. 3** on the paper's 256 seeds: in a \
         report of their own, [`pandora-sensitivity.md`](pandora-sensitivity.md) \
         (`--objectives sensitivity`), computed from committed per-seed finals.\n\
         - The **kernel/lengthscale sweep** (App. D.6, Figs. 15–18) at d = 4: in \
         [`pandora-kernels.md`](pandora-kernels.md) (`--objectives kernels`); at d = 8, 16 \
         and 32 not run.\n\
         - **Figs. 19–20** (the synthetic benchmarks at d = 4 and 8 beside Fig. 5's 16) and \
         **Fig. 13** (Robot Pushing with a known cost beside the learned one): not in the \
         grid.\n\
         - **Fig. 10** (App. D.1: textbook EI, its log, exp(LogEI), LogEI, the paper code's \
         PBGI and the stable one, S-PBGI): in [`pandora-stability.md`](pandora-stability.md) \
         (`--objectives stability`), computed from committed per-seed finals.\n\
         - **Fig. 8** (EI's and PBGI's maximisers on one four-point posterior: an illustration, \
         no claim tested) and **Fig. 14** (Figs. 4–6 as mean ± 2 SE instead of medians and \
         quartiles: not drawn, though the per-seed traces give it).\n\
         - **Costs**: the code's `1 + 20·mean(u)` (the paper's text says `1 + 20‖S(x)‖₁`), as \
         the paper's experiments ran.\n\
         - **Model details that differ**: MAP refits start from one fixed point (BoTorch \
         restarts L-BFGS-B from its current values); Sobol' streams, the RFF draws and the \
         initial designs are ours, not torch's, so individual runs differ from the paper's while \
         the distributions they are drawn from match; regret is read as a step function of the \
         budget (the code interpolates linearly).\n",
    );
    md
}

/// The cells of the grid with fewer finished seeds than asked for, with what a finished run
/// of each cost (the CPU time its decisions took, as recorded) and so what the rest would take.
fn unfinished(all: &[Job], options: &PandoraOptions) -> String {
    // (figure/panel-cost, jobs, finished, CPU seconds of the finished ones); a cell's jobs
    // are consecutive in the grid's order.
    let mut cells: Vec<(String, usize, usize, f64)> = Vec::new();
    for j in all {
        let key = j.selector();
        if cells.last().is_none_or(|c| c.0 != key) {
            cells.push((key, 0, 0, 0.0));
        }
        let Some(c) = cells.last_mut() else { continue };
        c.1 += 1;
        if let Some(t) = read_trace(&j.path(&options.out)) {
            c.2 += 1;
            c.3 += t.rounds.iter().map(|r| r.decide_seconds).sum::<f64>();
        }
    }
    let lines: Vec<String> = cells
        .iter()
        .filter(|(_, n, done, _)| done < n)
        .map(|(k, n, done, cpu)| {
            let (n, done) = (*n, *done);
            if done == 0 {
                format!(
                    "- `{k}`: none of {n} runs finished (no run of this cell to time; see the \
                     discussion for measured estimates)."
                )
            } else {
                let per_run = cpu / done as f64;
                format!(
                    "- `{k}`: {done} of {n} runs finished; a finished run's decisions took \
                     {} of CPU on average, so the other {} need about {} \
                     (`costbo reproduce pandora --objectives {k}`).",
                    cpu_time(per_run),
                    n - done,
                    cpu_time(per_run * (n - done) as f64)
                )
            }
        })
        .collect();
    if lines.is_empty() {
        return String::new();
    }
    format!(
        "\n## Cells not finished\n\nEvery rule and seed of these cells is in the grid; these \
         have not all run (the CPU times are the decisions' as the runs recorded them, on this \
         2-core machine with other work; the objective's own time is not counted).\n\n{}\n",
        lines.join("\n")
    )
}

/// A CPU time in the unit that reads best: seconds, minutes or hours.
fn cpu_time(seconds: f64) -> String {
    if seconds < 120.0 {
        format!("{seconds:.1} s")
    } else if seconds < 7200.0 {
        format!("{:.1} min", seconds / 60.0)
    } else {
        format!("{:.1} h", seconds / 3600.0)
    }
}

/// The initial design size for `d` (re-exported for the report's text).
pub fn initial_design_size(d: usize) -> usize {
    initial_points(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pandora::run::BoxRound;

    fn round(spent: f64, best: f64) -> BoxRound {
        BoxRound {
            spent,
            y: best,
            best,
            decide_seconds: 0.0,
        }
    }

    #[test]
    fn regret_is_a_step_function_of_the_budget_spent() {
        let t = Trace {
            optimum: 10.0,
            initial_best: 4.0,
            rounds: vec![round(1.5, 6.0), round(3.0, 6.0), round(4.5, 9.0)],
        };
        // Before the first round only the initial design is known.
        assert_eq!(regret_at(&t, 0.0), 6.0);
        assert_eq!(regret_at(&t, 1.49), 6.0);
        assert_eq!(regret_at(&t, 1.5), 4.0);
        assert_eq!(regret_at(&t, 4.4), 4.0);
        assert_eq!(regret_at(&t, 100.0), 1.0);
    }

    #[test]
    fn a_cell_is_judged_only_when_every_rule_has_the_same_seeds() {
        // Fig. 4's uniform claim: PBGI and PBGI-D within 1.5× of the better of LogEI and UCB.
        let run = |regret: f64| Trace {
            optimum: 10.0,
            initial_best: 10.0 - regret,
            rounds: vec![round(800.0, 10.0 - regret)],
        };
        let cell_of = |seeds: &[(&'static str, usize)]| -> Cell {
            seeds
                .iter()
                .map(|(r, k)| (*r, (800.0, vec![run(1.0); *k])))
                .collect()
        };
        let judge = |cell: Cell| {
            let mut cells = Cells::new();
            cells.insert(("fig4", "gp-matern52-d8".to_string(), "uniform"), cell);
            verdicts(&cells).1
        };
        let all = [("pbgi", 2), ("pbgi-d", 2), ("log-ei", 2), ("gp-ucb", 2)];
        assert!(judge(cell_of(&all)).contains("| gp-matern52-d8, uniform | supported |"));
        // UCB has not run: the best of LogEI alone is not the claim's baseline.
        let no_ucb = judge(cell_of(&all[..3]));
        assert!(no_ucb.contains("| gp-matern52-d8, uniform | no data | a rule's runs are missing"));
        // LogEI has one seed where the others have two.
        let mut uneven = all;
        uneven[2].1 = 1;
        assert!(judge(cell_of(&uneven)).contains("| gp-matern52-d8, uniform | no data | its rules"));
    }

    fn paper_options(figures: &[&str], out: &Path) -> PandoraOptions {
        PandoraOptions {
            out: out.to_path_buf(),
            report: out.join("pandora.md"),
            seeds: 3,
            quick: false,
            jobs: 1,
            figures: Some(figures.iter().map(|f| f.to_string()).collect()),
            no_run: true,
        }
    }

    #[test]
    fn a_cell_selector_keeps_that_cell_only() {
        let out = std::env::temp_dir().join("costbo-pandora-selector-test");
        let o = paper_options(&["fig4/gp-matern52-d32-uniform"], &out);
        let (figs, all) = grid(&o).unwrap();
        assert_eq!(figs.len(), 1);
        // Six uniform-cost rules × three seeds, all of that cell.
        assert_eq!(all.len(), UNIFORM_RULES.len() * 3);
        assert!(all
            .iter()
            .all(|j| j.selector() == "fig4/gp-matern52-d32-uniform" && j.budget() == 800.0));
        // A figure's key still selects it whole: d = 8, 16 and 32, both costs.
        let (_, whole) = grid(&paper_options(&["fig4"], &out)).unwrap();
        assert_eq!(
            whole.len(),
            3 * (UNIFORM_RULES.len() + COST_RULES.len()) * 3
        );
        assert!(grid(&paper_options(&["fig4/no-such-panel"], &out)).is_err());
        // Nothing has run there: the cell is listed as not started.
        let text = unfinished(&all, &o);
        assert!(text.contains("`fig4/gp-matern52-d32-uniform`: none of 18 runs finished ("));
    }

    #[test]
    fn quartiles_interpolate_like_numpy() {
        // numpy.quantile([1, 2, 3, 4], [0.25, 0.5, 0.75]) = [1.75, 2.5, 3.25].
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&v, 0.25), 1.75);
        assert_eq!(quantile(&v, 0.5), 2.5);
        assert_eq!(quantile(&v, 0.75), 3.25);
        assert!(quantile(&[], 0.5).is_nan());
    }

    #[test]
    fn traces_round_trip_through_their_files() {
        let dir = std::env::temp_dir().join(format!("costbo-pandora-{}", std::process::id()));
        let path = dir.join("seed-0.csv");
        let t = Trace {
            optimum: 0.1 + 0.2,
            initial_best: -1.0 / 3.0,
            rounds: vec![round(1.0, 0.25), round(2.5, 0.3)],
        };
        write_trace(&path, &t).unwrap();
        assert_eq!(read_trace(&path), Some(t));
        std::fs::write(&path, "garbage").unwrap();
        assert_eq!(read_trace(&path), None);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn the_paper_grid_holds_every_method_for_each_cost_setting() {
        let figs = figures(false);
        let fig5 = figs.iter().find(|f| f.key == "fig5").unwrap();
        assert_eq!(fig5.panels.len(), 3);
        assert!(fig5
            .panels
            .iter()
            .all(|p| p.dim == 16 && p.uniform_budget == 160.0));
        assert!(fig5.cost_rules.contains(&"log-eicc") && fig5.uniform_rules.contains(&"log-ei"));
        assert_eq!(initial_design_size(16), 34);
    }

    #[test]
    fn the_1d_constructions_are_new_jobs_after_the_grid() {
        let out = Path::new("OUT");
        for quick in [false, true] {
            let all = jobs(&figures(quick), 2);
            let grid = jobs(&grid_figures(quick), 2);
            // The grid's jobs come first, in their order, so shards and paths are unchanged.
            let paths = |js: &[Job]| js.iter().map(|j| j.path(out)).collect::<Vec<_>>();
            assert_eq!(paths(&grid), paths(&all[..grid.len()]));
            let d = if quick { 2 } else { 8 };
            assert_eq!(
                all[0].path(out),
                Path::new(&format!(
                    "OUT/fig4/gp-matern52-d{d}-uniform/pbgi/seed-0.csv"
                ))
            );
            let new = &all[grid.len()..];
            assert_eq!(new.len(), 2 * super::super::onedim::RULES.len() * 2);
            for j in new {
                let dir = match j.figure {
                    "fig2" => "OUT/fig2/bump-eipc-d1-bump",
                    "fig9" => "OUT/fig9/bump-ei-d1-bump",
                    other => panic!("{other}"),
                };
                assert!(j.path(out).starts_with(dir), "{}", j.path(out).display());
                assert_eq!(j.budget(), if quick { 1.0 } else { 40.0 });
                assert_eq!(j.cost, BoxCost::Bump);
                assert_eq!(
                    super::super::onedim::initial_design(&j.panel),
                    Some(vec![vec![0.0]])
                );
            }
        }
    }

    #[test]
    fn a_1d_construction_job_starts_from_zero_and_spends_its_budget() {
        let fig = figures(true).into_iter().find(|f| f.key == "fig2").unwrap();
        let job = jobs(&[fig], 1)
            .into_iter()
            .find(|j| j.rule == "log-eipc")
            .unwrap();
        let options = crate::objectives::Options {
            dim: Some(job.panel.dim),
            seed: None,
        };
        let f = crate::objectives::build(&job.panel.objective, &options).unwrap();
        let t = run_job(&job).unwrap();
        // The initial design is the single point x = 0, where the amplitude is ε² + tiny.
        assert_eq!(t.initial_best, f.eval(&[0.0]));
        assert_eq!(t.optimum, f.optimum());
        // Rounds until the spend reaches the budget; each costs between 0.1 and 10.
        let last = t.rounds.last().unwrap().spent;
        assert!(last >= job.budget() && last < job.budget() + 10.0, "{last}");
        assert!(t.rounds.len() <= 10);
    }
}

/// Paper 002's study (`costbo reproduce pandora`).
#[derive(Debug, Clone, Copy)]
pub struct Pandora;

impl Study for Pandora {
    fn name(&self) -> &'static str {
        "pandora"
    }

    fn help(&self) -> &'static str {
        "Paper 002: the Pandora's Box Gittins index (figures 2, 3, 4, 5, 6, 9 and 11; \
         --objectives selects figures, e.g. fig5, a figure's cells by prefix, e.g. \
         fig4/gp-matern52-d32-uniform or fig6/robot-push-d14-uniform, or \
         fig6-pest-control, fig6-lunar-lander, fig6-robot-push; fig6's Box2D problems \
         need tools/box2d/setup.sh; lookahead: PBGI against KG, MES, MSEI, MFMES and BMSEI \
         in Fig. 4's cells and Fig. 11's timing, its own report pandora-lookahead.md, \
         e.g. lookahead/fig4-gp-matern52-d8-uniform; sensitivity: PBGI's λ and PBGI-D's \
         λ₀ and β on 256 seeds (Figs. 3 and 12), its own report pandora-sensitivity.md; \
         kernels: App. D.6's kernels and lengthscales at d = 4, pandora-kernels.md; \
         stability: App. D.1's textbook EI and PBGI against LogEI and ours (Fig. 10), \
         pandora-stability.md)"
    }

    fn takes(&self) -> &'static [Setting] {
        &[
            Setting::Quick,
            Setting::Seeds,
            Setting::Objectives,
            Setting::Shard,
        ]
    }

    fn reproduce(&self, request: &Request) -> Result<Outcome, String> {
        let outputs = self.writable_outputs(request)?;
        let options = PandoraOptions {
            out: outputs.out,
            report: outputs.report,
            seeds: request.seeds.unwrap_or(if request.quick { 2 } else { 16 }),
            quick: request.quick,
            jobs: request.jobs,
            figures: request.objectives.clone(),
            no_run: !request.run,
        };
        let shard = request.share();
        if !shard.is_whole() {
            run_shard(&options, shard)?;
            return Ok(Outcome::default());
        }
        reproduce(&options)
    }
}
