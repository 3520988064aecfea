//! What `costbo reproduce <study>` asks of a study, whichever paper it reproduces: the
//! [`Study`] trait, the [`Request`] the command hands it and the [`Outcome`] it hands back.
//!
//! The five papers' studies run on different loops (the runner's grids for papers 000 and
//! 001, a box for paper 002, candidate sets for paper 003, arms for paper 004), so each keeps
//! its own jobs and the rules its verdicts follow; what they share is here: the options a
//! study takes (the command refuses the others, [`Setting`]), where its results and report go
//! by default ([`Study::outputs`]), the seeds a cell needs to enter a verdict
//! ([`Study::min_seeds`]), running the missing jobs of a share of the grid before writing the
//! report ([`Study::reproduce`]), and the [`Verdict`]s on the paper's claims it hands back in
//! its [`Outcome`]. The registry of every study is [`crate::studies`].

use std::path::PathBuf;

use crate::experiment::Shard;

/// An option of `costbo reproduce` that only some studies take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting {
    /// `--quick`: the smoke grid.
    Quick,
    /// `--seeds`: seeds (or trials) per cell.
    Seeds,
    /// `--rounds`: rounds per run.
    Rounds,
    /// `--objectives`: a part of the grid.
    Objectives,
    /// `--shard K/N`: one machine's share of the grid.
    Shard,
    /// `--min-seeds`: seeds a cell needs to enter a verdict.
    MinSeeds,
    /// `--lengthscale`: the synthetic kernel's lengthscale.
    Lengthscale,
}

impl Setting {
    /// Every setting.
    pub const ALL: [Setting; 7] = [
        Setting::Quick,
        Setting::Seeds,
        Setting::Rounds,
        Setting::Objectives,
        Setting::Shard,
        Setting::MinSeeds,
        Setting::Lengthscale,
    ];

    /// The option's flag on the command line.
    pub fn flag(self) -> &'static str {
        match self {
            Setting::Quick => "--quick",
            Setting::Seeds => "--seeds",
            Setting::Rounds => "--rounds",
            Setting::Objectives => "--objectives",
            Setting::Shard => "--shard",
            Setting::MinSeeds => "--min-seeds",
            Setting::Lengthscale => "--lengthscale",
        }
    }
}

/// What `costbo reproduce` was asked, each value checked for its range by the command.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// The smoke grid instead of the paper's.
    pub quick: bool,
    /// The output directory, if given.
    pub out: Option<PathBuf>,
    /// Worker threads (at least 1).
    pub jobs: usize,
    /// Seeds (or trials) per cell, if given.
    pub seeds: Option<u64>,
    /// Rounds per run, if given.
    pub rounds: Option<usize>,
    /// A part of the grid, if given (what the labels select is the study's).
    pub objectives: Option<Vec<String>>,
    /// Run the missing jobs (otherwise report on the finished ones).
    pub run: bool,
    /// One machine's share of the grid, if given.
    pub shard: Option<Shard>,
    /// Seeds a cell needs to enter a verdict, if given.
    pub min_seeds: Option<usize>,
    /// The synthetic kernel's lengthscale, if given.
    pub lengthscale: Option<f64>,
}

impl Request {
    /// Whether the option behind `setting` was given.
    pub fn gives(&self, setting: Setting) -> bool {
        match setting {
            Setting::Quick => self.quick,
            Setting::Seeds => self.seeds.is_some(),
            Setting::Rounds => self.rounds.is_some(),
            Setting::Objectives => self.objectives.is_some(),
            Setting::Shard => self.shard.is_some(),
            Setting::MinSeeds => self.min_seeds.is_some(),
            Setting::Lengthscale => self.lengthscale.is_some(),
        }
    }

    /// The share of the grid to run (the whole grid unless `--shard` was given).
    pub fn share(&self) -> Shard {
        self.shard.unwrap_or(Shard::WHOLE)
    }
}

/// Where a study's results and report go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outputs {
    /// The directory of the job files.
    pub out: PathBuf,
    /// The report (Markdown), with figures and a JSON summary beside it where the study has
    /// them; for a study that writes several reports (the variants), their directory.
    pub report: PathBuf,
}

/// How a claim of a paper fared on our data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Status {
    /// The data agree with the claim by the study's stated criterion.
    Supported,
    /// Some of what the claim says holds and some does not, or it holds in some of the
    /// settings it speaks of and not in others.
    Partly,
    /// The data do not agree with the claim.
    NotSupported,
    /// Nothing to judge: too few seeds, or a method's runs are missing.
    #[default]
    Inconclusive,
}

impl Status {
    /// `Supported` when `holds`, else `NotSupported`.
    pub fn from_bool(holds: bool) -> Status {
        if holds {
            Status::Supported
        } else {
            Status::NotSupported
        }
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Status::Supported => "supported",
            Status::Partly => "partly supported",
            Status::NotSupported => "not supported",
            Status::Inconclusive => "inconclusive",
        })
    }
}

/// A verdict on one claim of a paper in one place it speaks of: every study judges its
/// paper's claims into these, its report renders them (each report in its own words, kept
/// as they were so that the committed reports regenerate byte for byte: paper 002's "no
/// data" and paper 004's "not tested" are [`Status::Inconclusive`], the runner's "mixed"
/// and paper 003's "mostly" and "partly" are [`Status::Partly`]) and the command prints
/// them one per line.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Verdict {
    /// The claim's short identifier (`000-1`, `fig4`, ...), if the study numbers its claims.
    pub id: String,
    /// The claim as the paper makes it.
    pub claim: String,
    /// Where it was checked (a panel, a cost setting), when the claim is judged in several.
    pub scope: String,
    /// The criterion applied, when the report states it apart from the claim.
    pub criterion: String,
    /// The outcome.
    pub status: Status,
    /// What the status alone does not say: which part holds, or the threshold it passed.
    pub qualifier: String,
    /// The numbers behind the outcome.
    pub evidence: String,
}

/// How many of a group of verdicts came out each way: a study's JSON summary gives one per
/// model its verdicts were judged with.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct VerdictCounts {
    /// The model (or setting) the verdicts were judged with.
    pub model: String,
    /// Verdicts [`Status::Supported`].
    pub supported: usize,
    /// Verdicts [`Status::Partly`].
    pub partly: usize,
    /// Verdicts [`Status::NotSupported`].
    pub not_supported: usize,
    /// Verdicts [`Status::Inconclusive`].
    pub not_tested: usize,
}

impl VerdictCounts {
    /// The counts of `verdicts` under the name `model`.
    pub fn of<'a>(model: &str, verdicts: impl IntoIterator<Item = &'a Verdict>) -> Self {
        let mut c = VerdictCounts {
            model: model.into(),
            supported: 0,
            partly: 0,
            not_supported: 0,
            not_tested: 0,
        };
        for v in verdicts {
            match v.status {
                Status::Supported => c.supported += 1,
                Status::Partly => c.partly += 1,
                Status::NotSupported => c.not_supported += 1,
                Status::Inconclusive => c.not_tested += 1,
            }
        }
        c
    }
}

impl std::fmt::Display for Verdict {
    /// One line: `[id ]status: claim[ (scope)]`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !self.id.is_empty() {
            write!(f, "{} ", self.id)?;
        }
        write!(f, "{}: {}", self.status, self.claim)?;
        if !self.scope.is_empty() {
            write!(f, " ({})", self.scope)?;
        }
        Ok(())
    }
}

/// What a study did.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    /// The verdicts on the paper's claims (none for a shard: a share of the grid is no basis
    /// for verdicts).
    pub verdicts: Vec<Verdict>,
    /// Files written (reports, figures, per-seed data).
    pub written: Vec<PathBuf>,
    /// Jobs that failed in this invocation, one line each.
    pub failed: Vec<String>,
}

/// Seeds a cell needs to enter a verdict unless a study says otherwise: below 2 there is no
/// standard error.
pub const MIN_SEEDS: usize = 2;

/// A paper's study, as `costbo reproduce <name>` runs it.
pub trait Study: Sync {
    /// The study's name on the command line.
    fn name(&self) -> &'static str;

    /// One paragraph for the command's help.
    fn help(&self) -> &'static str;

    /// The options of [`Setting`] the study takes; the command refuses the others.
    fn takes(&self) -> &'static [Setting];

    /// Seeds a cell needs to enter a verdict.
    fn min_seeds(&self) -> usize {
        MIN_SEEDS
    }

    /// Where the results and the report go: the job files in `--out` (by default
    /// `results/reproduce-<name>[-quick]`); the report beside them when `--out` or `--quick`
    /// is given (a smoke run never touches `docs/`), else `docs/results/<name>.md`.
    fn outputs(&self, request: &Request) -> Outputs {
        let suffix = if request.quick { "-quick" } else { "" };
        let out = request.out.clone().unwrap_or_else(|| {
            PathBuf::from("results").join(format!("reproduce-{}{suffix}", self.name()))
        });
        let report = if request.out.is_some() || request.quick {
            out.join(format!("{}.md", self.name()))
        } else {
            PathBuf::from("docs/results").join(format!("{}.md", self.name()))
        };
        Outputs { out, report }
    }

    /// [`Study::outputs`], once both directories are created and found writable, so that a
    /// study fails before its jobs run, not after.
    fn writable_outputs(&self, request: &Request) -> Result<Outputs, String> {
        let outputs = self.outputs(request);
        check_outputs(&outputs)?;
        Ok(outputs)
    }

    /// Runs the missing jobs of the request's share of the grid (unless `request.run` is
    /// false) and, for the whole grid, writes the report from every finished job.
    fn reproduce(&self, request: &Request) -> Result<Outcome, String>;
}

impl std::fmt::Debug for dyn Study {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Creates the results directory and the report's and checks that both can be written, so a
/// study fails before its jobs run, not after.
pub fn check_outputs(outputs: &Outputs) -> Result<(), String> {
    crate::experiment::ensure_writable(&outputs.out)?;
    match outputs.report.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => crate::experiment::ensure_writable(dir),
        _ => Ok(()),
    }
}
