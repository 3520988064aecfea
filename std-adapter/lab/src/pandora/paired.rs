//! Paired comparisons of rules seed for seed, shared by the reports written from per-seed
//! finals ([`super::lookahead`], [`super::sensitivity`]): the test of a family of comparisons,
//! the table the reports print it as, and the verdicts read from it.

use std::fmt::Write as _;

use costbo_eval::stats;

use crate::study::{Status, Verdict};

/// Family-wise error rate of each table.
pub const ALPHA: f64 = 0.05;

/// Fewest paired seeds a comparison is made on.
pub const MIN_SEEDS: usize = 8;

/// A paired comparison: `first − second` on the seeds both finished.
#[derive(Debug, Clone)]
pub struct Paired {
    /// Where the two were compared (a cell key, with the point of the budget where it is not
    /// the end).
    pub cell: String,
    /// The rule expected lower (or whose claim is tested).
    pub first: &'static str,
    /// The other.
    pub second: &'static str,
    /// Paired seeds.
    pub seeds: usize,
    /// Medians of the first's and the second's values on those seeds.
    pub medians: (f64, f64),
    /// Hodges–Lehmann estimate of `first − second` and its 95 % interval.
    pub shift: stats::HodgesLehmann,
    /// Wilcoxon's two-sided p-value.
    pub p: f64,
    /// Holm's corrected p-value over the table.
    pub holm: f64,
}

impl Paired {
    /// `-1` when the first is shown lower, `1` when shown higher, `0` when no difference is
    /// shown.
    pub fn sign(&self) -> i8 {
        if self.holm > ALPHA {
            0
        } else if self.shift.estimate < 0.0 {
            -1
        } else {
            1
        }
    }
}

/// Pairs, tests and corrects `wanted` (`(cell, first, second)`), `values(cell, rule)` giving a
/// rule's value by seed; comparisons with fewer than [`MIN_SEEDS`] paired seeds are left out.
pub fn compare(
    wanted: &[(String, &'static str, &'static str)],
    values: impl Fn(&str, &str) -> Vec<(u64, f64)>,
) -> Result<Vec<Paired>, String> {
    let items = wanted.iter().map(|(cell, first, second)| {
        let pairs = stats::pair_by_seed(&values(cell, first), &values(cell, second));
        ((cell.clone(), *first, *second), pairs)
    });
    let family = stats::paired_family(items, MIN_SEEDS, 0.05).map_err(|e| e.to_string())?;
    Ok(family
        .into_iter()
        .map(|m| {
            let firsts: Vec<f64> = m.pairs.iter().map(|p| p.0).collect();
            let seconds: Vec<f64> = m.pairs.iter().map(|p| p.1).collect();
            Paired {
                cell: m.item.0,
                first: m.item.1,
                second: m.item.2,
                seeds: m.pairs.len(),
                medians: (super::grid::median(&firsts), super::grid::median(&seconds)),
                shift: m.shift,
                p: m.p_value,
                holm: m.holm,
            }
        })
        .collect())
}

/// The comparison of `first` against `second` in `cell`, if it was made.
pub fn find<'a>(rows: &'a [Paired], cell: &str, first: &str, second: &str) -> Option<&'a Paired> {
    rows.iter()
        .find(|r| r.cell == cell && r.first == first && r.second == second)
}

/// A section of the report: what the comparisons are, then one row per comparison.
pub fn table(md: &mut String, title: &str, what: &str, rows: &[Paired]) {
    let shown = rows.iter().filter(|r| r.sign() != 0).count();
    let _ = writeln!(
        md,
        "\n## {title}\n\n\
         Per comparison, the runs of the two rules on the same seeds of a cell: the medians, the \
         Hodges–Lehmann estimate of the {what} with its 95 % interval, Wilcoxon's exact \
         two-sided signed-rank p-value and that p-value corrected by Holm's method over the {} \
         comparisons of this table (comparisons with fewer than {MIN_SEEDS} paired seeds are \
         not made). A difference is shown at corrected p ≤ {ALPHA}: {shown} of {}.\n",
        rows.len(),
        rows.len()
    );
    if rows.is_empty() {
        let _ = writeln!(md, "No comparison has {MIN_SEEDS} paired seeds yet.");
        return;
    }
    let _ = writeln!(
        md,
        "| cell | first | second | seeds | median, first | median, second | difference [95 % interval] | p | Holm p | shown |\n\
         |---|---|---|---:|---:|---:|---|---:|---:|---|"
    );
    for r in rows {
        md.push_str(&row(r));
    }
}

/// A section of final-regret comparisons whose Holm correction runs over `family` (e.g. "the
/// cell's comparisons"), then one row per comparison.
pub fn regret_section<'a>(
    md: &mut String,
    title: &str,
    family: &str,
    rows: impl IntoIterator<Item = &'a Paired>,
) {
    let _ = writeln!(
        md,
        "\n## {title}\n\n\
         Final regret, first rule minus second (negative: the first is better): the \
         Hodges–Lehmann estimate with its 95 % interval, Wilcoxon's exact two-sided p-value and \
         that p-value corrected by Holm's method over {family} (made on {MIN_SEEDS} or \
         more paired seeds). A difference is shown at corrected p ≤ {ALPHA}.\n\n\
         | cell | first | second | seeds | median, first | median, second | difference [95 % interval] | p | Holm p | shown |\n\
         |---|---|---|---:|---:|---:|---|---:|---:|---|"
    );
    for r in rows {
        md.push_str(&row(r));
    }
}

/// A comparison as a row of [`table`]'s.
pub fn row(r: &Paired) -> String {
    format!(
        "| {} | {} | {} | {} | {:.4} | {:.4} | {:+.4} [{:+.4}, {:+.4}] | {} | {} | {} |\n",
        r.cell,
        r.first,
        r.second,
        r.seeds,
        r.medians.0,
        r.medians.1,
        r.shift.estimate,
        r.shift.lower,
        r.shift.upper,
        stats::p_text(r.p),
        stats::p_text(r.holm),
        match r.sign() {
            -1 => "first lower",
            1 => "first higher",
            _ => "no",
        }
    )
}

/// A verdict of the report `id`.
pub fn verdict(id: &str, claim: &str, scope: &str, status: Status, evidence: String) -> Verdict {
    Verdict {
        id: id.into(),
        claim: claim.into(),
        scope: scope.into(),
        criterion: String::new(),
        status,
        qualifier: String::new(),
        evidence,
    }
}

/// The comparisons a verdict rests on, in words.
pub fn evidence(rows: &[Option<&Paired>]) -> String {
    rows.iter()
        .flatten()
        .map(|r| {
            format!(
                "{} − {} {:+.4} (Holm p {})",
                r.first,
                r.second,
                r.shift.estimate,
                stats::p_text(r.holm)
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// `Supported` when every comparison `ok`s, `NotSupported` when none does, `Partly` between;
/// `Inconclusive` when one is missing.
pub fn judge(rows: &[Option<&Paired>], ok: fn(&Paired) -> bool) -> Status {
    if rows.iter().any(Option::is_none) || rows.is_empty() {
        return Status::Inconclusive;
    }
    let good = rows.iter().flatten().filter(|r| ok(r)).count();
    if good == rows.len() {
        Status::Supported
    } else if good == 0 {
        Status::NotSupported
    } else {
        Status::Partly
    }
}
