//! Paired comparisons of paper 004's study, seed for seed, from the per-seed final regrets the
//! study writes beside its report (`docs/results/causal.finals.csv`, committed): the report's
//! section is a function of that file alone, so it regenerates from what is in the repository.
//!
//! Each comparison pairs two cells of the study on the seeds both finished (a seed draws the
//! same environment noise in every cell) and takes, per seed, the difference of the
//! time-normalised cumulative regret at `T`, `(1/T) Σ_t r_t`. The test is Wilcoxon's
//! signed-rank test (exact, two-sided), the estimate and its 95 % interval Hodges–Lehmann's,
//! and the p-values are corrected by Holm's method over every comparison of the section; a
//! difference is *shown* when its corrected p-value is at most [`ALPHA`]. The section does not
//! change a verdict: the verdicts keep their rules (intervals of the mean), as issue 34 asks.

use std::fmt::Write as _;

use costbo_eval::stats::{self, HodgesLehmann};

use super::bandit::{Backend, Method};
use super::envs::A3;

/// Family-wise error rate of the section.
pub const ALPHA: f64 = 0.05;

/// Header of the finals file.
pub const HEADER: &str = "env,method,model,y_noise_sd,seed,final_regret";

/// One run's final regret.
#[derive(Clone, Debug, PartialEq)]
pub struct Final {
    /// Environment name (`psa-1`, `fig1`, `a2`, `a3`, ...).
    pub env: String,
    /// Method key ([`Method::key`]).
    pub method: String,
    /// Model key ([`Backend::key`]).
    pub model: String,
    /// Standard deviation of the noise term of `Y`.
    pub y_noise_sd: f64,
    /// Seed.
    pub seed: u64,
    /// Time-normalised cumulative regret at the last round.
    pub regret: f64,
}

/// The finals file: [`HEADER`], then one row per run in the order given. Numbers are written
/// in Rust's shortest round-trip form, so [`parse`] reads back the same bits.
pub fn to_csv(rows: &[Final]) -> String {
    let mut s = String::from(HEADER);
    s.push('\n');
    for r in rows {
        let _ = writeln!(
            s,
            "{},{},{},{},{},{}",
            r.env, r.method, r.model, r.y_noise_sd, r.seed, r.regret
        );
    }
    s
}

/// Reads a finals file; an error names the line.
pub fn parse(text: &str) -> Result<Vec<Final>, String> {
    let mut lines = text.lines();
    if lines.next() != Some(HEADER) {
        return Err(format!("the finals file does not start with `{HEADER}`"));
    }
    lines
        .enumerate()
        .map(|(i, l)| {
            let bad = || format!("finals line {}: `{l}`", i + 2);
            let f: Vec<&str> = l.split(',').collect();
            if f.len() != 6 {
                return Err(bad());
            }
            let regret: f64 = f[5].parse().map_err(|_| bad())?;
            let y_noise_sd: f64 = f[3].parse().map_err(|_| bad())?;
            if !regret.is_finite() || !y_noise_sd.is_finite() {
                return Err(bad());
            }
            Ok(Final {
                env: f[0].into(),
                method: f[1].into(),
                model: f[2].into(),
                y_noise_sd,
                seed: f[4].parse().map_err(|_| bad())?,
                regret,
            })
        })
        .collect()
}

/// One paired comparison: `lower`'s regret against `higher`'s in `env`, each with its model;
/// the claim says which the paper (or the question) expects lower.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// What is compared, for the table.
    pub claim: String,
    /// Environment name.
    pub env: &'static str,
    /// The cell expected lower.
    pub lower: (Method, Backend),
    /// The cell expected higher.
    pub higher: (Method, Backend),
}

/// The section's comparisons: the paper's method comparisons with each model, then the fitted
/// model against the fixed one for each method and environment.
pub fn comparisons() -> Vec<Comparison> {
    let mut v = Vec::new();
    let claims: [(&str, &'static str, Method, Method); 6] = [
        (
            "Fig. 3a: CoCa-BO below CaBO",
            "psa-1",
            Method::CocaBo,
            Method::CaBo,
        ),
        (
            "Fig. 3b: CoCa-BO below CaBO",
            "psa-2",
            Method::CocaBo,
            Method::CaBo,
        ),
        (
            "Fig. 3c: CoBO below CoCa-BO",
            "a2",
            Method::CoBo,
            Method::CocaBo,
        ),
        (
            "Fig. 3d: CoCa-BO below CoBO",
            "fig1",
            Method::CocaBo,
            Method::CoBo,
        ),
        (
            "Fig. 1: CoCa-BO below CaBO",
            "fig1",
            Method::CocaBo,
            Method::CaBo,
        ),
        (
            "Fig. 6b: CoCa-BO below CoBO",
            A3.name,
            Method::CocaBo,
            Method::CoBo,
        ),
    ];
    for model in [Backend::default(), Backend::Fitted] {
        for (claim, env, a, b) in claims {
            v.push(Comparison {
                claim: format!("{claim} ({})", model_word(model)),
                env,
                lower: (a, model),
                higher: (b, model),
            });
        }
    }
    for env in ["psa-1", "psa-2", "fig1", "a2", A3.name] {
        for m in [Method::CocaBo, Method::CoBo, Method::CaBo] {
            v.push(Comparison {
                claim: format!("{}: fitted below fixed", short(m)),
                env,
                lower: (m, Backend::Fitted),
                higher: (m, Backend::default()),
            });
        }
    }
    v
}

fn model_word(b: Backend) -> &'static str {
    if b == Backend::Fitted {
        "fitted"
    } else {
        "fixed"
    }
}

fn short(m: Method) -> &'static str {
    match m {
        Method::CocaBo => "CoCa-BO",
        Method::CoBo => "CoBO",
        Method::CaBo => "CaBO",
        other => other.key(),
    }
}

/// A comparison's result.
#[derive(Clone, Debug)]
pub struct Paired {
    /// The comparison.
    pub comparison: Comparison,
    /// Seeds both cells finished.
    pub seeds: usize,
    /// Mean of the expected-lower cell's regrets, then of the other's, on those seeds.
    pub means: (f64, f64),
    /// Hodges–Lehmann estimate of `lower − higher` and its 95 % interval.
    pub shift: HodgesLehmann,
    /// Wilcoxon's two-sided p-value.
    pub p: f64,
    /// Holm's corrected p-value over the section.
    pub holm: f64,
}

impl Paired {
    /// The result in words: which cell is lower when the corrected test shows a difference.
    pub fn outcome(&self) -> &'static str {
        if self.holm > ALPHA {
            "no difference shown"
        } else if self.shift.estimate < 0.0 {
            "lower, as expected"
        } else {
            "higher: the reverse"
        }
    }
}

/// The comparisons of [`comparisons`] whose cells both have at least `min_seeds` paired seeds
/// in `finals` (at the environment's own noise level), tested and corrected together.
pub fn compare(finals: &[Final], min_seeds: usize) -> Result<Vec<Paired>, String> {
    let own = super::envs::A2_Y_NOISE_SD;
    let cell = |env: &str, (m, b): (Method, Backend)| {
        let mut v: Vec<(u64, f64)> = finals
            .iter()
            .filter(|f| {
                f.env == env && f.method == m.key() && f.model == b.key() && f.y_noise_sd == own
            })
            .map(|f| (f.seed, f.regret))
            .collect();
        v.sort_by_key(|x| x.0);
        v
    };
    let items = comparisons().into_iter().map(|c| {
        let pairs = stats::pair_by_seed(&cell(c.env, c.lower), &cell(c.env, c.higher));
        (c, pairs)
    });
    let family = stats::paired_family(items, min_seeds, 0.05).map_err(|e| e.to_string())?;
    Ok(family
        .into_iter()
        .map(|m| {
            let n = m.pairs.len() as f64;
            Paired {
                comparison: m.item,
                seeds: m.pairs.len(),
                means: (
                    m.pairs.iter().map(|p| p.0).sum::<f64>() / n,
                    m.pairs.iter().map(|p| p.1).sum::<f64>() / n,
                ),
                shift: m.shift,
                p: m.p_value,
                holm: m.holm,
            }
        })
        .collect())
}

/// The report's section, from the finals file's text alone.
pub fn section(finals_csv: &str, file: &str, min_seeds: usize) -> Result<String, String> {
    let rows = compare(&parse(finals_csv)?, min_seeds)?;
    let shown = rows.iter().filter(|r| r.holm <= ALPHA).count();
    let reverse = rows
        .iter()
        .filter(|r| r.holm <= ALPHA && r.shift.estimate > 0.0)
        .count();
    let mut s = format!(
        "\n## Paired comparisons, seed for seed\n\n\
         Computed from `{file}` alone (the final time-normalised cumulative regret of every run, \
         committed; `cargo test -p costbo --test integration causal_paired` recomputes this \
         section from it). Per comparison, the runs of the two cells on the same seeds: the \
         Hodges–Lehmann estimate of the difference (first cell minus second) with its 95 % \
         interval, Wilcoxon's exact two-sided signed-rank p-value, and that p-value corrected by \
         Holm's method over the {} comparisons of this table; a difference is shown when the \
         corrected p-value is at most {ALPHA}. The verdicts above keep their own rules; this \
         table is the paired test beside them. Shown: {shown} of {}, {reverse} of them in the \
         reverse of the expected direction.\n\n\
         | comparison | env | seeds | mean regret, first | second | difference [95 % interval] | p | Holm p | result |\n\
         |---|---|---:|---:|---:|---|---:|---:|---|\n",
        rows.len(),
        rows.len()
    );
    for r in &rows {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {:.4} | {:.4} | {:+.4} [{:+.4}, {:+.4}] | {} | {} | {} |",
            r.comparison.claim,
            r.comparison.env,
            r.seeds,
            r.means.0,
            r.means.1,
            r.shift.estimate,
            r.shift.lower,
            r.shift.upper,
            stats::p_text(r.p),
            stats::p_text(r.holm),
            r.outcome()
        );
    }
    Ok(s)
}
