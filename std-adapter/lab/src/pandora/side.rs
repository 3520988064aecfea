//! The studies beside paper 002's main report, each with a report and a per-seed finals file
//! of its own (`pandora-<key>.md`, `pandora-<key>.finals.csv`): the lookahead comparison
//! ([`super::lookahead`]), the sensitivity study ([`super::sensitivity`]) and the kernel sweep
//! ([`super::kernels`]). The main study ([`super::study`]) runs, shards and reports every one
//! of [`SIDE_STUDIES`] through this trait, in that order.

use std::path::{Path, PathBuf};

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
        self.report_path(main_report).with_extension("finals.csv")
    }
}

/// Every side study, in the order the main study runs and shards them.
pub const SIDE_STUDIES: [&dyn SideStudy; 3] = [
    &super::lookahead::Lookahead,
    &super::sensitivity::Sensitivity,
    &super::kernels::Kernels,
];

/// The jobs whose place in `jobs` `keep` accepts.
pub fn kept<J>(jobs: Vec<J>, keep: &dyn Fn(usize) -> bool) -> Vec<J> {
    jobs.into_iter()
        .enumerate()
        .filter(|(i, _)| keep(*i))
        .map(|(_, j)| j)
        .collect()
}
