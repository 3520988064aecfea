//! The Markdown report of a reproduction, the same for every study: settings, completeness,
//! compute, figures, the table of final simple regret and the verdicts, with the study's own
//! preamble, figures and sections where [`RunnerStudy`](super::RunnerStudy) puts them.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::verdict::{self, Row, Table, Verdict};
use super::{PartResult, ReproduceOptions};
use crate::experiment::curves::{mean_commit_budget, mean_curve, mean_stderr, Metric, Trace};
use crate::experiment::{job_path, Cell, CellSummary, JobTime, Settings};
use crate::objectives;
use crate::plot::{Curve, Figure, Panel};

/// Budgets per curve in the figures.
const CURVE_POINTS: usize = 200;

/// One cell with its finished jobs read back.
#[derive(Debug)]
pub struct CellData {
    /// The cell.
    pub cell: Cell,
    /// The runner's summary of its finished jobs.
    pub summary: CellSummary,
    /// Seeds the grid plans for it.
    pub planned_seeds: usize,
    /// The finished jobs' rounds, in seed order.
    pub traces: Vec<Trace>,
    /// The timed jobs' compute.
    pub times: Vec<JobTime>,
    /// Start and end of each timed job, seconds since the Unix epoch.
    pub spans: Vec<(f64, f64)>,
    /// Whether one of the objective's control sets holds every variable.
    pub has_full_set: bool,
}

fn load(parts: &[PartResult]) -> Result<Vec<CellData>, String> {
    let mut out = Vec::new();
    for p in parts {
        let settings = &p.part.settings;
        for cell in settings.cells()? {
            let Some(summary) = p.summary.cells.iter().find(|c| c.cell == cell.name) else {
                continue;
            };
            let mut traces = Vec::new();
            let (mut times, mut spans) = (Vec::new(), Vec::new());
            for seed in settings.seed_list() {
                let path = job_path(&p.dir, &cell, seed);
                // The jobs the summary counted: finished, never a damaged file (read_job).
                if p.summary
                    .jobs
                    .iter()
                    .any(|j| j.cell == cell.name && j.seed == seed)
                {
                    traces.push(Trace::read(&path)?);
                    if let Some(t) = JobTime::read(&p.dir, &cell, seed) {
                        if let Some(end) = JobTime::finished_at(&p.dir, &cell, seed) {
                            spans.push((end - t.wall_seconds, end));
                        }
                        times.push(t);
                    }
                }
            }
            let has_full_set = has_full_set(settings, cell.objective)?;
            out.push(CellData {
                summary: summary.clone(),
                planned_seeds: settings.seed_list().len(),
                cell,
                traces,
                times,
                spans,
                has_full_set,
            });
        }
    }
    Ok(out)
}

/// Whether one of the objective's control sets holds every variable.
fn has_full_set(settings: &Settings, objective: usize) -> Result<bool, String> {
    let o = &settings.objectives[objective];
    let d = match o.dim {
        Some(d) => d,
        None => {
            objectives::entry(&o.name)
                .map_err(|e| e.to_string())?
                .default_dim
        }
    };
    Ok(o.sets.iter().any(|s| s.len() == d))
}

fn row(c: &CellData) -> Option<Row> {
    row_with(c, &c.traces, c.summary.budget)
}

/// The row of `c` from `traces` (its own, or cut at a smaller `budget`).
fn row_with(c: &CellData, traces: &[Trace], budget: f64) -> Option<Row> {
    let finals: Vec<f64> = traces
        .iter()
        .filter_map(Trace::final_simple_regret)
        .collect();
    let (mean_regret, stderr_regret) = mean_stderr(&finals)?;
    let n = traces.len() as f64;
    let most_expensive = (0..c.cell.costs.len())
        .max_by(|&i, &j| c.cell.costs[i].total_cmp(&c.cell.costs[j]))
        .unwrap_or(0);
    let cheapest_optimal = c
        .summary
        .optimal_sets
        .iter()
        .copied()
        .min_by(|&i, &j| c.cell.costs[i].total_cmp(&c.cell.costs[j]));
    Some(Row {
        objective: c.summary.objective.clone(),
        has_full_set: c.has_full_set,
        costs: c.summary.costs.clone(),
        variance: c.summary.variance,
        algorithm: c.summary.algorithm.clone(),
        budget,
        seeds: finals.len(),
        mean_regret,
        stderr_regret,
        mean_rounds: traces.iter().map(|t| t.rounds() as f64).sum::<f64>() / n,
        cheap_share: traces
            .iter()
            .map(|t| t.budget_share_outside(&[most_expensive]))
            .sum::<f64>()
            / n,
        cheaper_optimal_set: cheapest_optimal
            .is_some_and(|i| c.cell.costs[i] < c.cell.costs[most_expensive]),
        cheapest_optimal_share: cheapest_optimal.map_or(0.0, |i| {
            traces
                .iter()
                .map(|t| 1.0 - t.budget_share_outside(&[i]))
                .sum::<f64>()
                / n
        }),
    })
}

/// Distinct values in first-seen order.
fn distinct<T: PartialEq + Clone>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for i in items {
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}

fn curve(c: &CellData, metric: Metric) -> Curve {
    let m = mean_curve(&c.traces, c.summary.budget, CURVE_POINTS, metric);
    Curve {
        // The algorithm alone: its colour then stays the same in every panel; the seed counts
        // are in the table.
        label: c.summary.algorithm.clone(),
        x: m.budget,
        mean: m.mean,
        stderr: m.stderr,
        marker: match metric {
            Metric::SimpleRegret => mean_commit_budget(&c.traces, &c.summary.optimal_sets),
            Metric::Evaluations => None,
        },
        band: None,
    }
}

/// Panels over `costs` (rows) × `variances` (columns) of one objective, curves in `algorithms`
/// order from `cells`.
pub(crate) fn objective_figure(
    title: String,
    cells: &[&CellData],
    metric: Metric,
) -> Option<Figure> {
    let costs = distinct(cells.iter().map(|c| c.summary.costs.clone()));
    let variances = distinct(cells.iter().map(|c| c.summary.variance.to_bits()));
    let algorithms = distinct(cells.iter().map(|c| c.summary.algorithm.clone()));
    let mut panels = Vec::new();
    for cost in &costs {
        for v in &variances {
            let curves: Vec<Curve> = algorithms
                .iter()
                .filter_map(|a| {
                    cells.iter().find(|c| {
                        c.summary.costs == *cost
                            && c.summary.variance.to_bits() == *v
                            && c.summary.algorithm == *a
                            && !c.traces.is_empty()
                    })
                })
                .map(|c| curve(c, metric))
                .collect();
            panels.push(Panel {
                title: format!("{cost} costs, variance {}", f64::from_bits(*v)),
                curves,
            });
        }
    }
    if panels.iter().all(|p| p.curves.is_empty()) {
        return None;
    }
    Some(Figure {
        title,
        rows: costs.len(),
        cols: variances.len(),
        panels,
        x_label: "budget spent".into(),
        y_label: match metric {
            Metric::SimpleRegret => "simple regret".into(),
            Metric::Evaluations => "evaluations".into(),
        },
        panel_width: 380,
        panel_height: 270,
    })
}

fn fmt_seconds(s: f64) -> String {
    if s >= 3600.0 {
        let minutes = (s / 60.0).round() as u64;
        format!("{} h {:02} min", minutes / 60, minutes % 60)
    } else if s >= 60.0 {
        format!("{:.1} min", s / 60.0)
    } else {
        format!("{s:.1} s")
    }
}

/// A table with a row per (objective, costs, variance) and a column per algorithm; `text`
/// gives a cell's entry (`–` where it gives none).
pub(crate) fn settings_table(
    md: &mut String,
    cells: &[CellData],
    text: impl Fn(&CellData) -> Option<String>,
) {
    let algorithms = distinct(cells.iter().map(|c| c.summary.algorithm.clone()));
    let _ = writeln!(
        md,
        "| objective | costs | variance | {} |\n|---|---|---|{}",
        algorithms.join(" | "),
        "---|".repeat(algorithms.len())
    );
    let settings = distinct(cells.iter().map(|c| {
        (
            c.summary.objective.clone(),
            c.summary.costs.clone(),
            c.summary.variance.to_bits(),
        )
    }));
    for (o, cost, v) in &settings {
        let mut line = format!("| {o} | {cost} | {} |", f64::from_bits(*v));
        for a in &algorithms {
            let entry = cells
                .iter()
                .find(|c| {
                    c.summary.objective == *o
                        && c.summary.costs == *cost
                        && c.summary.variance.to_bits() == *v
                        && c.summary.algorithm == *a
                })
                .and_then(&text)
                .unwrap_or_else(|| "–".into());
            let _ = write!(line, " {entry} |");
        }
        let _ = writeln!(md, "{line}");
    }
}

fn settings_lines(s: &Settings) -> String {
    let objectives: Vec<String> = s
        .objectives
        .iter()
        .map(|o| format!("{} (budget {}, {} sets)", o.label(), o.budget, o.sets.len()))
        .collect();
    let costs: Vec<String> = s
        .costs
        .iter()
        .map(|c| match c {
            crate::experiment::CostSpec::Named(n) => n.clone(),
            crate::experiment::CostSpec::List(l) => format!("{l:?}"),
        })
        .collect();
    format!(
        "objectives {}; costs {}; variances {:?}; algorithms {}; seeds {:?}; bank {}; judge {}",
        objectives.join(", "),
        costs.join(", "),
        s.variances,
        s.algorithms.join(", "),
        s.seed_list(),
        s.bank,
        s.judge_points.describe(s.judge)
    )
}

/// Writes the report and its figures; returns the verdicts and the files written.
pub fn write(
    options: &ReproduceOptions,
    parts: &[PartResult],
    elapsed: f64,
) -> Result<(Vec<Verdict>, Vec<PathBuf>), String> {
    let study = options.study;
    let cells = load(parts)?;
    let mut table = Table {
        rows: cells.iter().filter_map(row).collect(),
        min_seeds: options.min_seeds.max(1),
    };
    // A cell run with a smaller budget than others of its setting (appendix B's EI) is
    // compared with them as they were when they had spent that budget.
    for small in &cells {
        for c in &cells {
            let same_setting = c.summary.objective == small.summary.objective
                && c.summary.costs == small.summary.costs
                && c.summary.variance == small.summary.variance;
            if same_setting && c.summary.budget > small.summary.budget {
                let b = small.summary.budget;
                let cut: Vec<Trace> = c.traces.iter().map(|t| t.truncated(b)).collect();
                if let Some(r) = row_with(c, &cut, b) {
                    if !table.rows.contains(&r) {
                        table.rows.push(r);
                    }
                }
            }
        }
    }
    let verdicts = study.verdicts(&table);
    let report_dir = options
        .report
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let fig_dir_name = study.name().to_string();
    let fig_dir = report_dir.join(&fig_dir_name);
    std::fs::create_dir_all(&fig_dir).map_err(|e| format!("{}: {e}", fig_dir.display()))?;
    let mut written = Vec::new();
    let mut md = String::new();
    let _ = writeln!(
        md,
        "# Reproduction: {}{}\n",
        study.name(),
        if options.quick {
            " (quick smoke grid)"
        } else {
            ""
        }
    );
    let _ = writeln!(
        md,
        "Generated by `costbo reproduce {}{}` from the runner's results in `{}` (resumable: run \
         the same command without `--no-run` to add missing jobs; with `--no-run` it rewrites \
         this report from what has finished).\n",
        study.name(),
        command_flags(options),
        options.out.display()
    );
    let _ = writeln!(md, "{}\n", study.preamble());
    if options.quick {
        let _ = writeln!(
            md,
            "**This is the smoke grid**: a few rounds, 2 seeds, small banks. Its numbers test \
             the pipeline, not the paper.\n"
        );
    } else if options.seeds < study.paper_seeds() || options.objectives.is_some() {
        let objectives = options
            .objectives
            .as_ref()
            .map_or_else(|| "all of the paper's".to_string(), |o| o.join(", "));
        let _ = writeln!(
            md,
            "**This is a subset of the paper's grid**: {} of its {} seeds; objectives: {}. The \
             claims below are judged on this subset only.\n",
            options.seeds,
            study.paper_seeds(),
            objectives
        );
    }

    // Completeness and compute.
    let _ = writeln!(md, "## What was run\n");
    let (mut done, mut planned, mut wall, mut cpu, mut timed) = (0, 0, 0.0, 0.0, 0);
    for p in parts {
        let part_cells: Vec<&CellData> = cells
            .iter()
            .filter(|c| p.summary.cells.iter().any(|s| s.cell == c.cell.name))
            .collect();
        let d: usize = part_cells.iter().map(|c| c.traces.len()).sum();
        let n: usize = part_cells.iter().map(|c| c.planned_seeds).sum();
        let complete = part_cells
            .iter()
            .filter(|c| c.traces.len() == c.planned_seeds)
            .count();
        let empty = part_cells.iter().filter(|c| c.traces.is_empty()).count();
        done += d;
        planned += n;
        let _ = writeln!(
            md,
            "- `{}` ({}): {d} of {n} jobs finished; {complete} of {} cells complete, {empty} \
             with no finished job. Grid: {}.",
            p.part.dir,
            p.part.about,
            part_cells.len(),
            settings_lines(&p.part.settings)
        );
        for f in &p.failed {
            let _ = writeln!(md, "  - failed: {f}");
        }
        // Wall time of the part: from the first job's start to the last job's end.
        let spans = part_cells.iter().flat_map(|c| c.spans.iter());
        let first = spans.clone().map(|s| s.0).fold(f64::INFINITY, f64::min);
        let last = spans.map(|s| s.1).fold(f64::NEG_INFINITY, f64::max);
        if last > first {
            let _ = writeln!(
                md,
                "  - its jobs ran from the first start to the last end over **{}** of wall \
                 time (from the time files' modification times; pauses between resumed \
                 invocations count).",
                fmt_seconds(last - first)
            );
        }
        for c in &part_cells {
            for t in &c.times {
                wall += t.wall_seconds;
                if let Some(s) = t.cpu_seconds {
                    cpu += s;
                }
                timed += 1;
            }
        }
    }
    let _ = writeln!(
        md,
        "\n{done} of {planned} planned jobs are included. Compute: {} of job wall time and {} \
         of job CPU time over the {timed} timed jobs (each job is single-threaded; jobs run \
         in parallel, on a machine shared with other work, so wall exceeds CPU); this \
         invocation took {} of wall time. Algorithm bank {}, independent regret bank {}.\n",
        fmt_seconds(wall),
        fmt_seconds(cpu),
        fmt_seconds(elapsed),
        parts.first().map_or(0, |p| p.part.settings.bank),
        parts.first().map_or(String::new(), |p| {
            let s = &p.part.settings;
            s.judge_points.describe(s.judge)
        }),
    );

    // Time per job by objective × costs × algorithm (the sizing of a full run).
    let _ = writeln!(md, "### Time per job\n");
    let _ = writeln!(
        md,
        "| objective | costs | algorithm | jobs | mean rounds | mean CPU s/job | mean wall s/job |\n|---|---|---|---|---|---|---|"
    );
    let keys = distinct(cells.iter().filter(|c| !c.times.is_empty()).map(|c| {
        (
            c.summary.objective.clone(),
            c.summary.costs.clone(),
            c.summary.algorithm.clone(),
        )
    }));
    for (o, cost, a) in &keys {
        let group: Vec<&CellData> = cells
            .iter()
            .filter(|c| {
                c.summary.objective == *o && c.summary.costs == *cost && c.summary.algorithm == *a
            })
            .collect();
        let times: Vec<&JobTime> = group.iter().flat_map(|c| c.times.iter()).collect();
        let rounds: Vec<f64> = group
            .iter()
            .flat_map(|c| c.traces.iter().map(|t| t.rounds() as f64))
            .collect();
        let cpus: Vec<f64> = times.iter().filter_map(|t| t.cpu_seconds).collect();
        let walls: Vec<f64> = times.iter().map(|t| t.wall_seconds).collect();
        let m = |v: &[f64]| mean_stderr(v).map_or("–".into(), |(m, _)| format!("{m:.1}"));
        let _ = writeln!(
            md,
            "| {o} | {cost} | {a} | {} | {} | {} | {} |",
            times.len(),
            m(&rounds),
            m(&cpus),
            m(&walls)
        );
    }

    // Figures.
    let _ = writeln!(md, "\n## Figures\n");
    let _ = writeln!(
        md,
        "Simple regret against budget spent: mean over seeds (line) ± one standard error \
         (band). A diamond marks the mean budget after which an algorithm only plays an optimal \
         control set (drawn only when every seed settles on one). Each figure also exists as \
         SVG beside the PNG. The table below gives each cell's number of seeds.\n"
    );
    let objectives = distinct(cells.iter().map(|c| c.summary.objective.clone()));
    let main_dir = parts.first().map(|p| p.part.dir);
    let mut figures: Vec<(String, String, Figure)> = Vec::new();
    for o in &objectives {
        let main: Vec<&CellData> = cells
            .iter()
            .filter(|c| c.summary.objective == *o && in_part(parts, c, main_dir))
            .collect();
        if let Some(f) = objective_figure(
            format!("{}: {o}", study.name()),
            &main,
            Metric::SimpleRegret,
        ) {
            figures.push((format!("{o}-regret"), format!("{o}: simple regret"), f));
        }
        figures.extend(study.objective_figures(o, &main));
    }
    // The appendix: every algorithm of every part, in the settings the other parts cover.
    if parts.len() > 1 {
        let extra: Vec<&CellData> = cells
            .iter()
            .filter(|c| !in_part(parts, c, main_dir))
            .collect();
        let settings = distinct(extra.iter().map(|c| {
            (
                c.summary.objective.clone(),
                c.summary.costs.clone(),
                c.summary.variance.to_bits(),
            )
        }));
        let chosen: Vec<&CellData> = cells
            .iter()
            .filter(|c| {
                settings.contains(&(
                    c.summary.objective.clone(),
                    c.summary.costs.clone(),
                    c.summary.variance.to_bits(),
                ))
            })
            .collect();
        figures.extend(study.appendix_figure(&chosen));
    }
    for (stem, caption, f) in &figures {
        let png = fig_dir.join(format!("{stem}.png"));
        let svg = fig_dir.join(format!("{stem}.svg"));
        f.write_png(&png)
            .map_err(|e| format!("{}: {e}", png.display()))?;
        f.write_svg(&svg)
            .map_err(|e| format!("{}: {e}", svg.display()))?;
        let _ = writeln!(
            md,
            "### {caption}\n\n![{caption}]({fig_dir_name}/{stem}.png)\n"
        );
        written.push(png);
        written.push(svg);
    }

    // Table of final simple regret.
    let _ = writeln!(md, "## Final simple regret\n");
    let _ = writeln!(
        md,
        "Mean ± standard error over the finished seeds (their number in brackets when fewer \
         than planned); `–`: no finished job.\n"
    );
    settings_table(&mut md, &cells, |c| {
        let r = row(c)?;
        let n = if r.seeds < c.planned_seeds {
            format!(" ({})", r.seeds)
        } else {
            String::new()
        };
        Some(format!("{:.4} ± {:.4}{n}", r.mean_regret, r.stderr_regret))
    });

    study.sections(&mut md, &cells);

    // Verdicts.
    let _ = writeln!(md, "\n## Headline claims\n");
    let _ = writeln!(
        md,
        "Computed by `std-adapter/lab/src/reproduce/verdict.rs`: a setting counts only if every \
         algorithm compared has at least {} finished seeds; a claim is *supported* when at \
         least {:.0}% of its comparisons agree, *not supported* at {:.0}% or less, *mixed* in \
         between, *inconclusive* when nothing could be compared.\n",
        table.min_seeds,
        100.0 * verdict::SUPPORT_SHARE,
        100.0 * (1.0 - verdict::SUPPORT_SHARE)
    );
    if table.min_seeds < verdict::MIN_SEEDS {
        let _ = writeln!(
            md,
            "**Weak evidence:** these verdicts admit cells with {} seed(s) (`--min-seeds {}`), \
             below the default {}; a single run per cell has no standard error, and one unlucky \
             run can decide a comparison.\n",
            table.min_seeds,
            table.min_seeds,
            verdict::MIN_SEEDS
        );
    }
    for v in &verdicts {
        let _ = writeln!(
            md,
            "- **{} — {}.** {}\n  - Criterion: {}.\n  - Result: {}",
            v.id,
            verdict::word(v.status),
            v.claim,
            v.criterion,
            v.evidence
        );
    }
    md.push_str(&discussion(&options.report));
    if let Some(dir) = options.report.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    crate::experiment::write_atomic(&options.report, &md)?;
    written.insert(0, options.report.clone());
    Ok((verdicts, written))
}

/// The options that shaped this report, as command-line flags.
fn command_flags(options: &ReproduceOptions) -> String {
    let mut s = String::new();
    if options.quick {
        s.push_str(" --quick");
    } else if options.seeds != options.study.paper_seeds() {
        let _ = write!(s, " --seeds {}", options.seeds);
    }
    if let Some(o) = &options.objectives {
        let _ = write!(s, " --objectives {}", o.join(","));
    }
    if options.min_seeds != verdict::MIN_SEEDS {
        let _ = write!(s, " --min-seeds {}", options.min_seeds);
    }
    if !options.run {
        s.push_str(" --no-run");
    }
    s
}

fn in_part(parts: &[PartResult], c: &CellData, dir: Option<&str>) -> bool {
    parts
        .iter()
        .any(|p| Some(p.part.dir) == dir && p.summary.cells.iter().any(|s| s.cell == c.cell.name))
}

/// A variant of ours wins a cell when its mean final simple regret is at most this fraction
/// of the paper's best method's (issue 20: "at least 20 % lower").
pub const VARIANT_WIN_RATIO: f64 = 0.8;

/// The hand-written discussion beside a report (`<report>.discussion.md`) as a section to
/// append, or nothing if there is none. The verdicts are computed; why a claim fails is not:
/// the discussion survives regeneration and is appended as it stands.
pub(crate) fn discussion(report: &Path) -> String {
    let path = report.with_extension("discussion.md");
    match std::fs::read_to_string(&path) {
        Ok(text) => discussion_section(&path.display().to_string(), &text),
        Err(_) => String::new(),
    }
}

/// The per-seed finals file beside a report (`causal.md` → `causal.finals.csv`): the data a
/// report's numbers are computed from, committed beside it.
pub fn finals_path(report: &Path) -> PathBuf {
    report.with_extension("finals.csv")
}

/// The discussion's section as a report holds it: `text`, the hand-written file shown as
/// `shown_as`.
pub fn discussion_section(shown_as: &str, text: &str) -> String {
    format!(
        "\n## Discussion\n\n*Hand-written in `{shown_as}`, not regenerated: its numbers are those \
         of the run it describes.*\n\n{}\n",
        text.trim_end()
    )
}
