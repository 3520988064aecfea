//! `costbo reproduce ucb-cvs|unknown-cost`: the papers' experiment grids on the runner, then a
//! Markdown report with figures (PNG embedded, SVG beside them), a table of final simple
//! regret, the compute used, and a verdict on each headline claim.
//!
//! The runner is resumable, so a long grid can be stopped and continued; `--no-run` writes the
//! report from whatever has finished (the report lists what is missing).

pub mod grids;
pub mod report;
pub mod verdict;

use std::path::PathBuf;
use std::time::Instant;

use crate::experiment::{self, RunOptions, Summary};
pub use grids::Part;

/// Which paper's experiments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Study {
    /// Paper 000 (Tay et al. 2023): UCB-CVS and its explore-then-commit variants.
    UcbCvs,
    /// Paper 001 (Hoang et al.): unknown random costs.
    UnknownCost,
}

impl Study {
    /// The study's name (report file stem, default output directory suffix).
    pub fn name(self) -> &'static str {
        match self {
            Study::UcbCvs => "ucb-cvs",
            Study::UnknownCost => "unknown-cost",
        }
    }

    /// The paper's number of seeds.
    pub fn paper_seeds(self) -> u64 {
        match self {
            Study::UcbCvs => 10,
            Study::UnknownCost => 5,
        }
    }

    /// The grids: the paper's with `seeds` seeds, or the smoke grid.
    pub fn parts(self, quick: bool, seeds: u64) -> Vec<Part> {
        match (self, quick) {
            (Study::UcbCvs, false) => grids::ucb_cvs(seeds),
            (Study::UcbCvs, true) => grids::ucb_cvs_quick(),
            (Study::UnknownCost, false) => grids::unknown_cost(seeds),
            (Study::UnknownCost, true) => grids::unknown_cost_quick(),
        }
    }
}

/// Options of `costbo reproduce`.
#[derive(Debug, Clone)]
pub struct ReproduceOptions {
    /// Which study.
    pub study: Study,
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
        if !dest.exists() {
            std::fs::copy(e.path(), &dest).map_err(|err| format!("{}: {err}", dest.display()))?;
        }
    }
    Ok(())
}

/// Runs (unless `options.run` is false) every part of the study, then writes the report.
pub fn reproduce(options: &ReproduceOptions) -> Result<Outcome, String> {
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
                println!("{}: {} → {}", part.dir, part.about, dir.display());
            }
            let r = experiment::run(
                &part.settings,
                &RunOptions {
                    out: dir.clone(),
                    jobs: options.jobs,
                    progress: options.progress,
                },
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
    let elapsed = start.elapsed().as_secs_f64();
    let (verdicts, written) = report::write(options, &parts, elapsed)?;
    Ok(Outcome {
        parts,
        verdicts,
        written,
    })
}
