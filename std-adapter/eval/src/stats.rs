//! Paired statistics of the variants' comparison (`docs/results/variants/PLAN.md`): Wilcoxon's
//! signed-rank test with its exact null distribution, Holm's step-down correction, and the
//! Hodges–Lehmann estimate with its distribution-free confidence interval.

/// Most non-zero differences the exact null distribution is computed for: its table has
/// `n (n + 1) + 1` entries and is built in `n` passes, a few milliseconds at this size.
pub const MAX_EXACT: usize = 2_000;

/// Wilcoxon's signed-rank test of paired differences.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SignedRank {
    /// Differences that are not zero (zeros are dropped, Wilcoxon's convention).
    pub n: usize,
    /// Sum of the ranks of the positive differences (mid-ranks for tied magnitudes).
    pub w_plus: f64,
    /// Its mean under the null hypothesis, `n (n + 1) / 4`.
    pub null_mean: f64,
    /// Two-sided p-value from the exact null distribution given the ranks (ties included);
    /// 1 when every difference is zero.
    pub p_value: f64,
}

/// Why a test could not be computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatsError {
    /// A difference is NaN.
    NotANumber,
    /// More non-zero differences than [`MAX_EXACT`].
    TooMany,
}

impl core::fmt::Display for StatsError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            StatsError::NotANumber => f.write_str("a paired difference is NaN"),
            StatsError::TooMany => {
                write!(f, "more than {MAX_EXACT} non-zero paired differences")
            }
        }
    }
}

impl std::error::Error for StatsError {}

/// Wilcoxon's signed-rank test, two-sided: `P(|T − E T| ≥ |t − E T|)` under the null
/// hypothesis that each non-zero difference is as likely positive as negative, `T` the sum of
/// the positive differences' ranks. Tied magnitudes share their mid-rank and the distribution is
/// that of those ranks (computed on doubled ranks, which are integers), so the p-value is exact
/// with ties too. Infinite differences rank above every finite one.
pub fn signed_rank(d: &[f64]) -> Result<SignedRank, StatsError> {
    if d.iter().any(|x| x.is_nan()) {
        return Err(StatsError::NotANumber);
    }
    let mut nonzero: Vec<f64> = d.iter().copied().filter(|&x| x != 0.0).collect();
    let n = nonzero.len();
    if n > MAX_EXACT {
        return Err(StatsError::TooMany);
    }
    let null_mean = (n * (n + 1)) as f64 / 4.0;
    if n == 0 {
        return Ok(SignedRank {
            n,
            w_plus: 0.0,
            null_mean,
            p_value: 1.0,
        });
    }
    nonzero.sort_by(|a, b| a.abs().total_cmp(&b.abs()));
    // Doubled mid-ranks: a run of equal magnitudes at 1-based ranks i..=j gets (i + j) / 2,
    // doubled i + j.
    let mut doubled = vec![0usize; n];
    let mut i = 0;
    while i < n {
        let mut j = i;
        while j + 1 < n && nonzero[j + 1].abs() == nonzero[i].abs() {
            j += 1;
        }
        for r in &mut doubled[i..=j] {
            *r = (i + 1) + (j + 1);
        }
        i = j + 1;
    }
    let total: usize = doubled.iter().sum();
    let t: usize = doubled
        .iter()
        .zip(&nonzero)
        .filter(|(_, &x)| x > 0.0)
        .map(|(r, _)| r)
        .sum();
    // Null distribution of the sum of doubled ranks with random signs, as probabilities (each
    // pass halves, so nothing overflows).
    let mut p = vec![0.0f64; total + 1];
    p[0] = 1.0;
    let mut reach = 0;
    for &r in &doubled {
        for s in (0..=reach).rev() {
            let q = p[s] * 0.5;
            p[s] = q;
            p[s + r] += q;
        }
        reach += r;
    }
    let far = (2 * t).abs_diff(total);
    let p_value: f64 = (0..=total)
        .filter(|&s| (2 * s).abs_diff(total) >= far)
        .map(|s| p[s])
        .sum();
    Ok(SignedRank {
        n,
        w_plus: t as f64 / 2.0,
        null_mean,
        p_value: p_value.min(1.0),
    })
}

/// Holm's step-down adjusted p-values, in the order given: the `i`-th smallest p-value is
/// multiplied by `m − i + 1` (1-based `i`), capped at 1, and made non-decreasing. A hypothesis
/// is rejected at family-wise level α when its adjusted p-value is at most α.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]).then(a.cmp(&b)));
    let mut adjusted = vec![0.0; m];
    let mut running: f64 = 0.0;
    for (i, &k) in order.iter().enumerate() {
        running = running.max(((m - i) as f64 * p[k]).min(1.0));
        adjusted[k] = running;
    }
    adjusted
}

/// The Hodges–Lehmann estimate of a location shift and its confidence interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HodgesLehmann {
    /// Median of the Walsh averages `(d_i + d_j) / 2`, `i ≤ j`.
    pub estimate: f64,
    /// Lower end of the interval.
    pub lower: f64,
    /// Upper end of the interval.
    pub upper: f64,
}

/// The Hodges–Lehmann estimate of the centre of `d` (zeros included) and the distribution-free
/// interval of coverage at least `1 − alpha` from the Walsh averages (Hollander & Wolfe):
/// `[W_(k), W_(M + 1 − k)]`, `M = n (n + 1) / 2`, `k` the largest integer with
/// `P(T ≤ k − 1) ≤ alpha / 2` for the signed-rank statistic `T` of `n` untied ranks; the whole
/// whole line when no `k ≥ 1` qualifies (n ≤ 5 at 95 %). `None` for an empty sample.
pub fn hodges_lehmann(d: &[f64], alpha: f64) -> Result<Option<HodgesLehmann>, StatsError> {
    if d.iter().any(|x| x.is_nan()) {
        return Err(StatsError::NotANumber);
    }
    let n = d.len();
    if n == 0 {
        return Ok(None);
    }
    if n > MAX_EXACT {
        return Err(StatsError::TooMany);
    }
    let mut walsh = Vec::with_capacity(n * (n + 1) / 2);
    for i in 0..n {
        for j in i..n {
            walsh.push(d[i] / 2.0 + d[j] / 2.0);
        }
    }
    walsh.sort_by(f64::total_cmp);
    let m = walsh.len();
    let estimate = if m % 2 == 1 {
        walsh[m / 2]
    } else {
        walsh[m / 2 - 1] / 2.0 + walsh[m / 2] / 2.0
    };
    // Untied null distribution of T = Σ positive ranks, ranks 1..=n.
    let mut p = vec![0.0f64; m + 1];
    p[0] = 1.0;
    let mut reach = 0;
    for r in 1..=n {
        for s in (0..=reach).rev() {
            let q = p[s] * 0.5;
            p[s] = q;
            p[s + r] += q;
        }
        reach += r;
    }
    let mut k = 0;
    let mut below = 0.0;
    // P(T ≤ k − 1) ≤ alpha / 2 holds for k = 0 (an empty sum); raise k while it still holds.
    while k < m / 2 + 1 && below + p[k] <= alpha / 2.0 {
        below += p[k];
        k += 1;
    }
    let (lower, upper) = if k == 0 {
        (f64::NEG_INFINITY, f64::INFINITY)
    } else {
        (walsh[k - 1], walsh[m - k])
    };
    Ok(Some(HodgesLehmann {
        estimate,
        lower,
        upper,
    }))
}

/// A p-value as the reports print it: four decimals, or two significant digits below 1e-4.
pub fn p_text(p: f64) -> String {
    if p < 1e-4 {
        format!("{p:.1e}")
    } else {
        format!("{p:.4}")
    }
}

/// The values of two samples keyed by seed, paired on the seeds both hold, in the first's order.
pub fn pair_by_seed(a: &[(u64, f64)], b: &[(u64, f64)]) -> Vec<(f64, f64)> {
    a.iter()
        .filter_map(|(s, x)| b.iter().find(|(t, _)| t == s).map(|(_, y)| (*x, *y)))
        .collect()
}

/// A paired comparison of `first − second`: Wilcoxon's test and the Hodges–Lehmann shift.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairedShift {
    /// The Hodges–Lehmann estimate of `first − second` and its interval.
    pub shift: HodgesLehmann,
    /// Wilcoxon's two-sided p-value.
    pub p_value: f64,
}

/// [`signed_rank`] and [`hodges_lehmann`] (interval of coverage `1 − alpha`) of the
/// differences `first − second` of `pairs`; `None` for no pair.
pub fn paired_shift(pairs: &[(f64, f64)], alpha: f64) -> Result<Option<PairedShift>, StatsError> {
    let d: Vec<f64> = pairs.iter().map(|(x, y)| x - y).collect();
    let test = signed_rank(&d)?;
    Ok(hodges_lehmann(&d, alpha)?.map(|shift| PairedShift {
        shift,
        p_value: test.p_value,
    }))
}

/// One comparison of a family tested together ([`paired_family`]).
#[derive(Debug, Clone, PartialEq)]
pub struct FamilyMember<T> {
    /// What was compared.
    pub item: T,
    /// Its pairs `(first, second)`.
    pub pairs: Vec<(f64, f64)>,
    /// The Hodges–Lehmann estimate of `first − second` and its interval.
    pub shift: HodgesLehmann,
    /// Wilcoxon's two-sided p-value.
    pub p_value: f64,
    /// That p-value corrected by Holm's method over the family.
    pub holm: f64,
}

/// A family of paired comparisons: each item with at least `min_pairs` pairs (and at least
/// one) is tested with [`paired_shift`] (interval of coverage `1 − alpha`), in the order given,
/// and the p-values of those tested are corrected together by [`holm`]; items with fewer pairs
/// are left out of the family and of its correction.
pub fn paired_family<T>(
    items: impl IntoIterator<Item = (T, Vec<(f64, f64)>)>,
    min_pairs: usize,
    alpha: f64,
) -> Result<Vec<FamilyMember<T>>, StatsError> {
    let mut out = Vec::new();
    for (item, pairs) in items {
        if pairs.len() < min_pairs.max(1) {
            continue;
        }
        if let Some(test) = paired_shift(&pairs, alpha)? {
            out.push(FamilyMember {
                item,
                pairs,
                shift: test.shift,
                p_value: test.p_value,
                holm: f64::NAN,
            });
        }
    }
    let adjusted = holm(&out.iter().map(|m| m.p_value).collect::<Vec<_>>());
    for (m, h) in out.iter_mut().zip(adjusted) {
        m.holm = h;
    }
    Ok(out)
}

/// McNemar's exact test of paired successes: `b` pairs where only the first succeeds, `c`
/// where only the second does; the two-sided binomial p-value of `b` in `b + c` trials at
/// one half, `min(1, 2 P(X ≤ min(b, c)))` (1 with no discordant pair).
pub fn mcnemar_exact(b: usize, c: usize) -> f64 {
    let n = b + c;
    let k = b.min(c);
    // P(X = j) = C(n, j) / 2^n, built up term by term in logs so no factor overflows.
    let mut log_term = -(n as f64) * core::f64::consts::LN_2;
    let mut tail = 0.0;
    for j in 0..=k {
        if j > 0 {
            log_term += ((n - j + 1) as f64).ln() - (j as f64).ln();
        }
        tail += log_term.exp();
    }
    (2.0 * tail).min(1.0)
}

/// The standard normal's 97.5 % quantile: two-sided 95 % intervals.
pub const Z95: f64 = 1.959_963_984_540_054;

/// The Wilson score interval of a binomial proportion `successes / n` at the normal quantile
/// `z` (1.959964 for 95 %); `None` when `n` is 0.
pub fn wilson(successes: usize, n: usize, z: f64) -> Option<(f64, f64)> {
    if n == 0 {
        return None;
    }
    let nf = n as f64;
    let phat = successes as f64 / nf;
    let z2 = z * z;
    let centre = (phat + z2 / (2.0 * nf)) / (1.0 + z2 / nf);
    let half = z / (1.0 + z2 / nf) * (phat * (1.0 - phat) / nf + z2 / (4.0 * nf * nf)).sqrt();
    Some(((centre - half).max(0.0), (centre + half).min(1.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SciPy's two-sided p-values (`tools/variants/reference_stats.py`): the exact distribution,
    /// and for ties a permutation test over every sign assignment.
    #[test]
    fn signed_rank_p_values_equal_scipys() {
        let text = include_str!("../tests/data/wilcoxon_scipy.csv");
        let mut cases = 0;
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let (d, p) = line.split_once(';').unwrap();
            let d: Vec<f64> = d.split(' ').map(|x| x.parse().unwrap()).collect();
            let p: f64 = p.parse().unwrap();
            let ours = signed_rank(&d).unwrap().p_value;
            assert!(
                (ours - p).abs() <= 1e-12 * p.max(1e-300),
                "{d:?}: {ours} against {p}"
            );
            cases += 1;
        }
        assert_eq!(cases, 11);
    }

    #[test]
    fn signed_rank_counts_and_edges() {
        let r = signed_rank(&[0.0, 3.0, -1.0, 2.0, 0.0]).unwrap();
        // Ranks of |3|, |1|, |2|: 3, 1, 2; positive: 3 + 2.
        assert_eq!((r.n, r.w_plus, r.null_mean), (3, 5.0, 3.0));
        assert_eq!(signed_rank(&[0.0; 4]).unwrap().p_value, 1.0);
        assert_eq!(signed_rank(&[]).unwrap().p_value, 1.0);
        assert_eq!(signed_rank(&[1.0, f64::NAN]), Err(StatsError::NotANumber));
        // Infinite differences rank highest: one negative infinity among small positives.
        let r = signed_rank(&[f64::NEG_INFINITY, 0.1, 0.2]).unwrap();
        assert_eq!(r.w_plus, 3.0);
        // Symmetry: flipping every sign keeps the two-sided p-value.
        let d = [0.3, -1.1, 2.0, 0.4, -0.2, 1.7, 1.7];
        let flipped: Vec<f64> = d.iter().map(|x| -x).collect();
        assert_eq!(
            signed_rank(&d).unwrap().p_value,
            signed_rank(&flipped).unwrap().p_value
        );
    }

    #[test]
    fn holm_steps_down() {
        // Sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1: 0.02, 0.03, 0.06, 0.04 -> 0.06.
        let adjusted = holm(&[0.01, 0.04, 0.03, 0.005]);
        let expected = [0.03, 0.06, 0.06, 0.02];
        for (a, e) in adjusted.iter().zip(expected) {
            assert!((a - e).abs() < 1e-15, "{adjusted:?}");
        }
        assert_eq!(holm(&[0.9, 0.8]), vec![1.0, 1.0]);
        assert!(holm(&[]).is_empty());
    }

    /// The interval is the set of shifts the test does not reject (Tukey's identity: the
    /// signed-rank statistic of d − θ counts the Walsh averages above θ), checked by running
    /// the test at shifts just inside and just outside each end.
    #[test]
    fn hodges_lehmann_interval_inverts_the_test() {
        for n in [6usize, 9, 14, 20] {
            // Distinct, irregular values, so that no Walsh average repeats.
            let d: Vec<f64> = (0..n)
                .map(|i| ((i * 7 + 3) % 11) as f64 * 0.37 + (i as f64).sqrt() * 0.113 - 1.3)
                .collect();
            let h = hodges_lehmann(&d, 0.05).unwrap().unwrap();
            let mut walsh: Vec<f64> = Vec::new();
            for i in 0..n {
                for j in i..n {
                    walsh.push((d[i] + d[j]) / 2.0);
                }
            }
            walsh.sort_by(f64::total_cmp);
            // Past the extreme Walsh averages, any farther shift is outside.
            let next_above = |x: f64| walsh.iter().copied().find(|&w| w > x).unwrap_or(x + 1.0);
            let next_below = |x: f64| {
                walsh
                    .iter()
                    .rev()
                    .copied()
                    .find(|&w| w < x)
                    .unwrap_or(x - 1.0)
            };
            let p_at = |theta: f64| {
                let shifted: Vec<f64> = d.iter().map(|x| x - theta).collect();
                signed_rank(&shifted).unwrap().p_value
            };
            let inside_low = (h.lower + next_above(h.lower)) / 2.0;
            let outside_low = (h.lower + next_below(h.lower)) / 2.0;
            let inside_high = (h.upper + next_below(h.upper)) / 2.0;
            let outside_high = (h.upper + next_above(h.upper)) / 2.0;
            assert!(
                p_at(inside_low) > 0.05 && p_at(inside_high) > 0.05,
                "n = {n}"
            );
            assert!(
                p_at(outside_low) <= 0.05 && p_at(outside_high) <= 0.05,
                "n = {n}"
            );
            assert!(h.lower <= h.estimate && h.estimate <= h.upper);
        }
        // Below six values no interval at 95 % is finite.
        let h = hodges_lehmann(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.05)
            .unwrap()
            .unwrap();
        assert_eq!(
            (h.lower, h.estimate, h.upper),
            (f64::NEG_INFINITY, 3.0, f64::INFINITY)
        );
        assert_eq!(hodges_lehmann(&[], 0.05), Ok(None));
    }

    /// SciPy's `binomtest(b, b + c, 0.5).pvalue`.
    #[test]
    fn mcnemar_equals_scipys_binomial_test() {
        for (b, c, p) in [
            (3, 12, 0.03515625),
            (20, 7, 0.0191572904586792),
            (0, 0, 1.0),
            (5, 5, 1.0),
            (1, 0, 1.0),
            (40, 11, 5.703811637403078e-05),
        ] {
            let ours = mcnemar_exact(b, c);
            assert!(
                (ours - p).abs() <= 1e-12 * p,
                "{b}, {c}: {ours} against {p}"
            );
        }
    }

    /// SciPy's `binomtest(k, n).proportion_ci(method="wilson")`.
    #[test]
    fn wilson_equals_scipys() {
        for (k, n, lo, hi) in [
            (8, 10, 0.4901624715366418, 0.9433178485456248),
            (0, 10, 0.0, 0.27753279986288926),
            (35, 40, 0.738878801611489, 0.945404997490546),
            (95, 100, 0.8882495307680809, 0.978456320845632),
        ] {
            let (a, b) = wilson(k, n, 1.959963984540054).unwrap();
            assert!(
                (a - lo).abs() < 1e-12 && (b - hi).abs() < 1e-12,
                "{k}/{n}: {a} {b}"
            );
        }
        assert_eq!(wilson(0, 0, 1.96), None);
    }

    #[test]
    fn pairs_are_made_on_common_seeds_and_tested_as_differences() {
        let a = [(3, 1.0), (0, 5.0), (7, 2.0)];
        let b = [(0, 4.0), (3, 0.5), (9, 8.0)];
        assert_eq!(pair_by_seed(&a, &b), vec![(1.0, 0.5), (5.0, 4.0)]);
        // Ten differences all positive and distinct: W+ is the largest of 2^10 equally likely
        // sums, so the exact two-sided p-value is 2/1024; the shift is their Walsh median.
        let pairs: Vec<(f64, f64)> = (1..=10).map(|i| (f64::from(i), 0.0)).collect();
        let t = paired_shift(&pairs, 0.05).unwrap().unwrap();
        assert_eq!(t.p_value, 2.0 / 1024.0);
        assert_eq!(t.shift.estimate, 5.5);
        assert!(t.shift.lower > 0.0 && t.shift.upper <= 10.0);
        assert_eq!(paired_shift(&[], 0.05).unwrap(), None);
        assert_eq!(
            paired_shift(&[(f64::NAN, 0.0)], 0.05),
            Err(StatsError::NotANumber)
        );
    }

    #[test]
    fn a_family_leaves_out_small_comparisons_and_corrects_the_rest_together() {
        // Two comparisons of ten positive distinct differences (exact p = 2/1024 each) and one
        // of three pairs: the third is left out, so Holm multiplies the smaller of two equal
        // p-values by 2 and the larger by 1, then makes them non-decreasing: both 4/1024.
        let ten: Vec<(f64, f64)> = (1..=10).map(|i| (f64::from(i), 0.0)).collect();
        let three = vec![(1.0, 0.0); 3];
        let family =
            paired_family([("a", ten.clone()), ("short", three), ("b", ten)], 8, 0.05).unwrap();
        let items: Vec<&str> = family.iter().map(|m| m.item).collect();
        assert_eq!(items, ["a", "b"]);
        for m in &family {
            assert_eq!(m.p_value, 2.0 / 1024.0);
            assert_eq!(m.holm, 4.0 / 1024.0);
            assert_eq!(m.shift.estimate, 5.5);
        }
        assert!(paired_family([("x", vec![(f64::NAN, 1.0); 9])], 8, 0.05).is_err());
        assert!(paired_family::<u8>([], 8, 0.05).unwrap().is_empty());
    }
}
