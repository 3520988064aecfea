//! The studies beside paper 002's main report, each with a report and a per-seed finals file
//! of its own (`pandora-<key>.md`, `pandora-<key>.finals.csv`): the lookahead comparison
//! ([`super::lookahead`]), the sensitivity study ([`super::sensitivity`]), the kernel sweep
//! ([`super::kernels`]) and App. D.1's ablation ([`super::stability`]). The main study ([`super::study`]) runs, shards and reports each
//! through this trait, in its list `SIDE_STUDIES`.

use std::path::{Path, PathBuf};

use super::finals::{CellSpec, Final};
use super::grid::PandoraOptions;
use crate::study::Verdict;

/// A study beside the main report.
pub trait SideStudy: Sync {
    /// The `--objectives` label that selects the study (and, as `<key>/<cell>`, a cell of
    /// it); also the middle of its file names.
    fn key(&self) -> &'static str;

    /// Whether `options` select it.
    fn selected(&self, options: &PandoraOptions) -> bool {
        super::finals::selected(self.key(), options)
    }

    /// How many jobs `options` select, in the study's fixed order.
    fn job_count(&self, options: &PandoraOptions) -> usize;

    /// Runs the missing ones of the selected jobs whose place in the fixed order `keep`
    /// accepts (a shard's share).
    fn run_missing(
        &self,
        options: &PandoraOptions,
        keep: &dyn Fn(usize) -> bool,
    ) -> Result<(), String>;

    /// Writes the report and the finals file from the finals; returns the verdicts.
    fn report(&self, options: &PandoraOptions) -> Result<Vec<Verdict>, String>;

    /// The report's path beside the main report.
    fn report_path(&self, main_report: &Path) -> PathBuf {
        main_report.with_file_name(format!("pandora-{}.md", self.key()))
    }

    /// The finals file beside the report.
    fn finals_path(&self, main_report: &Path) -> PathBuf {
        crate::reproduce::report::finals_path(&self.report_path(main_report))
    }
}

/// A side study of cells of rules and seeds ([`super::finals`]): its cells and how its
/// report is written from the finals.
#[derive(Debug, Clone, Copy)]
pub struct CellStudy {
    /// The key ([`SideStudy::key`]).
    pub key: &'static str,
    /// The cells, of the quick grid or the paper's.
    pub cells: fn(bool) -> Vec<CellSpec>,
    /// The report's text and verdicts from the finals, the quick flag, the seeds per rule and
    /// the hand-written discussion's section.
    pub render: Render,
}

/// How a [`CellStudy`] writes its report: the finals, the quick flag, the seeds per rule and
/// the discussion's section in; the text and the verdicts out.
pub type Render = fn(&[Final], bool, u64, &str) -> Result<(String, Vec<Verdict>), String>;

impl SideStudy for CellStudy {
    fn key(&self) -> &'static str {
        self.key
    }

    fn job_count(&self, options: &PandoraOptions) -> usize {
        super::finals::jobs(self.key, &(self.cells)(options.quick), options).len()
    }

    fn run_missing(
        &self,
        options: &PandoraOptions,
        keep: &dyn Fn(usize) -> bool,
    ) -> Result<(), String> {
        let all = super::finals::jobs(self.key, &(self.cells)(options.quick), options);
        // A run the finals file already holds is done, whether or not its trace is under
        // `--out`: a fresh clone adds seeds without redoing the committed ones.
        let finals_file = self.finals_path(&options.report);
        let done: std::collections::BTreeSet<(String, String, u64)> = if finals_file.exists() {
            let text = std::fs::read_to_string(&finals_file)
                .map_err(|e| format!("{}: {e}", finals_file.display()))?;
            super::finals::parse(&text)?
                .into_iter()
                .map(|f| (f.cell, f.rule, f.seed))
                .collect()
        } else {
            Default::default()
        };
        let missing: Vec<_> = kept(all, keep)
            .into_iter()
            .filter(|j| !done.contains(&(j.cell.key.clone(), j.rule.to_string(), j.seed)))
            .collect();
        let name = format!("pandora {}", self.key);
        super::finals::run_missing(&name, &missing, options)
    }

    fn report(&self, options: &PandoraOptions) -> Result<Vec<Verdict>, String> {
        let finals_file = self.finals_path(&options.report);
        let cells = (self.cells)(options.quick);
        let finals = super::finals::gather(self.key, &cells, &finals_file, options)?;
        let path = self.report_path(&options.report);
        let discussion = crate::reproduce::report::discussion(&path);
        let (md, verdicts) = (self.render)(&finals, options.quick, options.seeds, &discussion)?;
        crate::experiment::write_atomic(&finals_file, &super::finals::to_csv(&finals))?;
        crate::experiment::write_atomic(&path, &md)?;
        Ok(verdicts)
    }
}

/// The jobs whose place in `jobs` `keep` accepts.
pub fn kept<J>(jobs: Vec<J>, keep: &dyn Fn(usize) -> bool) -> Vec<J> {
    jobs.into_iter()
        .enumerate()
        .filter(|(i, _)| keep(*i))
        .map(|(_, j)| j)
        .collect()
}
