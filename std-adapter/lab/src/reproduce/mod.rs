//! The studies of papers 000 and 001, on the runner's grids: each paper's experiment grids,
//! then a Markdown report with figures (PNG embedded, SVG beside them), a table of final
//! simple regret, the compute used, and a verdict on each headline claim.
//!
//! Each of these studies is one module that implements [`Study`] and [`RunnerStudy`]: its
//! grids, the claims and how they are judged, what the report says about it and any report
//! sections of its own ([`cvs`] for paper 000, [`unknown_cost`] for paper 001). This module
//! holds what they share (the trait, the grids' building blocks, running the grids);
//! [`report`] writes their reports and [`verdict`] holds the rules their verdicts follow.
//!
//! The runner is resumable, so a long grid can be stopped and continued; `--no-run` writes the
//! report from whatever has finished (the report lists what is missing).

pub mod cvs;
pub mod report;
pub mod unknown_cost;
pub mod verdict;

use std::path::PathBuf;
use std::time::Instant;

use crate::experiment::{
    self, CostSpec, JudgePoints, Model, ObjectiveSpec, PriorMean, RunOptions, Seeds, Settings,
    Shard, Summary,
};
use crate::plot::Figure;
use crate::study::{self, Request, Setting, Study};
use report::CellData;
use verdict::{Table, Verdict};

/// A paper's study on the runner's grids (papers 000 and 001): what its report is made of.
pub trait RunnerStudy: Study {
    /// The paper's number of seeds.
    fn paper_seeds(&self) -> u64;

    /// The grids: the paper's with `seeds` seeds, or the smoke grid (`quick`).
    fn parts(&self, quick: bool, seeds: u64) -> Vec<Part>;

    /// The report's opening: the paper, what is reproduced as its code does it, and the
    /// departures.
    fn preamble(&self) -> &'static str;

    /// The verdicts on the paper's headline claims.
    fn verdicts(&self, table: &Table) -> Vec<Verdict>;

    /// Figures of one objective after its simple-regret figure, from the cells of the first
    /// part: `(file stem, caption, figure)`.
    fn objective_figures(
        &self,
        _objective: &str,
        _cells: &[&CellData],
    ) -> Vec<(String, String, Figure)> {
        Vec::new()
    }

    /// The figure comparing the cells of the later parts with the first part's in the same
    /// settings (`cells` holds both), when the study has more than one part.
    fn appendix_figure(&self, _cells: &[&CellData]) -> Option<(String, String, Figure)> {
        None
    }

    /// Report sections of the study's own, after the table of final simple regret.
    fn sections(&self, _md: &mut String, _cells: &[CellData]) {}
}

/// The studies on the runner's grids.
pub static STUDIES: &[&dyn RunnerStudy] = &[&cvs::UcbCvs, &unknown_cost::UnknownCost];

/// The runner's study called `name`.
pub fn study(name: &str) -> Option<&'static dyn RunnerStudy> {
    STUDIES.iter().copied().find(|s| s.name() == name)
}

impl std::fmt::Debug for dyn RunnerStudy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The options of `costbo reproduce` a study on the runner's grids takes.
pub(crate) const RUNNER_SETTINGS: &[Setting] = &[
    Setting::Quick,
    Setting::Seeds,
    Setting::Objectives,
    Setting::Shard,
    Setting::MinSeeds,
];

/// [`Study::reproduce`] of a study on the runner's grids.
pub(crate) fn run(
    study: &'static dyn RunnerStudy,
    request: &Request,
) -> Result<study::Outcome, String> {
    let outputs = study.writable_outputs(request)?;
    let options = ReproduceOptions {
        study,
        quick: request.quick,
        seeds: request.seeds.unwrap_or(study.paper_seeds()),
        objectives: request.objectives.clone(),
        out: outputs.out,
        report: outputs.report,
        jobs: request.jobs,
        run: request.run,
        min_seeds: request.min_seeds.unwrap_or(study.min_seeds()),
        progress: true,
    };
    let outcome = reproduce_shard(&options, request.share())?;
    Ok(study::Outcome {
        verdicts: outcome.verdicts,
        written: outcome.written,
        failed: outcome.parts.into_iter().flat_map(|p| p.failed).collect(),
    })
}

/// One runner grid of a study.
#[derive(Debug, Clone)]
pub struct Part {
    /// Subdirectory of the study's output directory.
    pub dir: &'static str,
    /// What this grid reproduces (for the report).
    pub about: &'static str,
    /// The grid.
    pub settings: Settings,
}

/// An objective of a grid by registry name, with its control sets (1-based) and budget.
pub(crate) fn objective(name: &str, sets: &[&[usize]], budget: f64) -> ObjectiveSpec {
    ObjectiveSpec {
        name: name.to_string(),
        dim: None,
        seed: None,
        sets: sets.iter().map(|s| s.to_vec()).collect(),
        budget,
        lengthscale: None,
    }
}

/// Cost presets by name.
pub(crate) fn named(costs: &[&str]) -> Vec<CostSpec> {
    costs
        .iter()
        .map(|c| CostSpec::Named(c.to_string()))
        .collect()
}

/// Owned copies of names.
pub(crate) fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// The runner's defaults (bank 128, judge 512 scrambled Sobol points, 5 initial points, noise
/// 0.01, β = 2, ε 0.1, cost noise 0.01) with the given grid.
pub(crate) fn settings(
    objectives: Vec<ObjectiveSpec>,
    costs: Vec<CostSpec>,
    variances: Vec<f64>,
    algorithms: Vec<String>,
    seeds: u64,
) -> Settings {
    Settings {
        objectives,
        costs,
        variances,
        algorithms,
        seeds: Seeds::Count(seeds),
        bank: 128,
        judge: 512,
        judge_points: JudgePoints::Sobol,
        initial: 5,
        noise: 0.01,
        beta: 2.0,
        epsilon: 0.1,
        cost_noise: 0.01,
        max_rounds: None,
        prior_mean: PriorMean::Zero,
        model: Model::Fixed,
        refit_every: experiment::DEFAULT_REFIT_EVERY,
    }
}

/// Options of `costbo reproduce`.
#[derive(Debug, Clone)]
pub struct ReproduceOptions {
    /// Which study.
    pub study: &'static dyn RunnerStudy,
    /// The smoke grid instead of the paper's.
    pub quick: bool,
    /// Seeds of the paper grid (ignored with `quick`).
    pub seeds: u64,
    /// Only the objectives with these labels (`None`: all); parts left with none are skipped.
    pub objectives: Option<Vec<String>>,
    /// Runner output directory (one subdirectory per part).
    pub out: PathBuf,
    /// The Markdown report; its figures go into a directory beside it named after the study.
    pub report: PathBuf,
    /// Worker threads.
    pub jobs: usize,
    /// Run the missing jobs (otherwise report on the finished ones only).
    pub run: bool,
    /// Seeds a cell needs to enter a verdict (see [`verdict::MIN_SEEDS`]).
    pub min_seeds: usize,
    /// Print the runner's progress.
    pub progress: bool,
}

/// A part after running (or reading) it.
#[derive(Debug, Clone)]
pub struct PartResult {
    /// The grid.
    pub part: Part,
    /// Its output directory.
    pub dir: PathBuf,
    /// Summary of its finished jobs.
    pub summary: Summary,
    /// Jobs that failed in this invocation.
    pub failed: Vec<String>,
}

/// What `reproduce` did.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The parts.
    pub parts: Vec<PartResult>,
    /// The verdicts written into the report.
    pub verdicts: Vec<verdict::Verdict>,
    /// Files written (report and figures).
    pub written: Vec<PathBuf>,
}

/// Copies the cached best values of the control sets from one part's output directory to
/// another's, where missing: the parts of a study share objectives, variances and the judge,
/// and the values take minutes to compute. The runner checks each file's key before using it,
/// so a file that does not fit is recomputed, never misused.
fn share_best_values(from: &std::path::Path, to: &std::path::Path) -> Result<(), String> {
    let Ok(entries) = std::fs::read_dir(from.join("best")) else {
        return Ok(());
    };
    let target = to.join("best");
    std::fs::create_dir_all(&target).map_err(|e| format!("{}: {e}", target.display()))?;
    for e in entries.flatten() {
        let dest = target.join(e.file_name());
        // Skip the temporary files of writers in progress (shards on other machines).
        if e.file_name().to_string_lossy().starts_with('.') || dest.exists() {
            continue;
        }
        // A damaged file is not copied: the runner recomputes what it cannot read.
        let Ok(text) = std::fs::read_to_string(e.path()) else {
            continue;
        };
        // Through a temporary file: a shard on another machine may read `dest` meanwhile.
        experiment::write_atomic(&dest, &text)?;
    }
    Ok(())
}

/// Runs (unless `options.run` is false) every part of the study, then writes the report.
pub fn reproduce(options: &ReproduceOptions) -> Result<Outcome, String> {
    reproduce_shard(options, Shard::WHOLE)
}

/// [`reproduce`] for `shard`'s share of every part's grid (`costbo reproduce --shard K/N`, see
/// [`experiment::shard`]). A share of the grid is no basis for verdicts, so a shard writes no
/// report: it runs its jobs and writes each part's `summary-shard-K-of-N.json` (listed in
/// [`Outcome::written`], with no verdicts). Once every shard has finished, [`reproduce`] on the
/// same output directory finds every job done and writes the parts' `summary.json` and the
/// report. With [`Shard::WHOLE`] this is [`reproduce`].
pub fn reproduce_shard(options: &ReproduceOptions, shard: Shard) -> Result<Outcome, String> {
    if !shard.is_whole() && !options.run {
        return Err(format!(
            "--shard {shard} with --no-run: a shard runs its share of the grid; the report \
             comes from the merge (the command without --shard)"
        ));
    }
    let start = Instant::now();
    if let Some(only) = &options.objectives {
        let parts = options.study.parts(options.quick, options.seeds);
        let known: Vec<String> = parts
            .iter()
            .flat_map(|p| p.settings.objectives.iter().map(|o| o.label()))
            .collect();
        if let Some(bad) = only.iter().find(|o| !known.contains(o)) {
            return Err(format!(
                "objective `{bad}` is not in the {} grid (it has {})",
                options.study.name(),
                known.join(", ")
            ));
        }
    }
    let mut parts: Vec<PartResult> = Vec::new();
    for mut part in options.study.parts(options.quick, options.seeds) {
        if let Some(only) = &options.objectives {
            part.settings
                .objectives
                .retain(|o| only.contains(&o.label()));
            if part.settings.objectives.is_empty() {
                continue;
            }
        }
        let dir = options.out.join(part.dir);
        if let Some(first) = parts.first() {
            share_best_values(&first.dir, &dir)?;
        }
        let (summary, failed) = if options.run {
            if options.progress {
                outln!("{}: {} → {}", part.dir, part.about, dir.display());
            }
            let r = experiment::run_shard(
                &part.settings,
                &RunOptions {
                    out: dir.clone(),
                    jobs: options.jobs,
                    progress: options.progress,
                },
                shard,
            )?;
            (r.summary, r.failed)
        } else {
            (
                experiment::summarise_finished(&part.settings, &dir)?,
                Vec::new(),
            )
        };
        parts.push(PartResult {
            part,
            dir,
            summary,
            failed,
        });
    }
    if !shard.is_whole() {
        let written = parts
            .iter()
            .map(|p| experiment::summary_path(&p.dir, shard))
            .collect();
        return Ok(Outcome {
            parts,
            verdicts: Vec::new(),
            written,
        });
    }
    let elapsed = start.elapsed().as_secs_f64();
    let (verdicts, written) = report::write(options, &parts, elapsed)?;
    Ok(Outcome {
        parts,
        verdicts,
        written,
    })
}
