//! Reading finished jobs back: per-round traces from the CSVs, curves against budget spent
//! (mean ± standard error over seeds), and the budget after which a run only plays the optimal
//! control set (the papers' diamond marker).

use std::path::Path;

/// What a job did, round by round (from its CSV).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Trace {
    /// Budget spent after each round.
    pub spent: Vec<f64>,
    /// Cost charged in each round.
    pub cost: Vec<f64>,
    /// 0-based control set played in each round.
    pub set: Vec<usize>,
    /// Simple regret after each round.
    pub simple_regret: Vec<f64>,
}

/// A job CSV written by the runner: its header, and its non-empty data rows split into fields.
pub struct JobCsv<'a> {
    header: Vec<&'a str>,
    rows: Vec<Vec<&'a str>>,
}

impl<'a> JobCsv<'a> {
    /// Splits `text` into the header and the data rows.
    pub fn new(text: &'a str) -> Result<Self, String> {
        let mut lines = text.lines();
        let header = lines.next().ok_or("empty CSV")?.split(',').collect();
        let rows = lines
            .filter(|l| !l.is_empty())
            .map(|l| l.split(',').collect())
            .collect();
        Ok(JobCsv { header, rows })
    }

    /// The index of the column called `name`.
    pub fn column(&self, name: &str) -> Result<usize, String> {
        self.header
            .iter()
            .position(|h| *h == name)
            .ok_or(format!("no column `{name}`"))
    }

    /// Number of data rows.
    pub fn rows(&self) -> usize {
        self.rows.len()
    }

    /// Row `i`'s value in column `c`, parsed (and finite, for numbers that can be infinite).
    pub fn value<T: std::str::FromStr + Finite>(&self, i: usize, c: usize) -> Result<T, String> {
        self.rows[i]
            .get(c)
            .and_then(|v| v.parse::<T>().ok())
            .filter(Finite::is_finite_value)
            .ok_or(format!("row {}: bad `{}`", i + 1, self.header[c]))
    }
}

/// Values a job CSV may hold; a non-finite number is as bad as an unparsable one.
pub trait Finite {
    /// Whether the value is usable.
    fn is_finite_value(&self) -> bool;
}

impl Finite for f64 {
    fn is_finite_value(&self) -> bool {
        self.is_finite()
    }
}

impl Finite for usize {
    fn is_finite_value(&self) -> bool {
        true
    }
}

impl Trace {
    /// Parses a job CSV written by the runner (columns found by name).
    pub fn parse(text: &str) -> Result<Trace, String> {
        let csv = JobCsv::new(text)?;
        let (spent, cost, set, regret) = (
            csv.column("spent")?,
            csv.column("cost")?,
            csv.column("set")?,
            csv.column("simple_regret")?,
        );
        let mut t = Trace::default();
        for i in 0..csv.rows() {
            t.spent.push(csv.value(i, spent)?);
            t.cost.push(csv.value(i, cost)?);
            t.simple_regret.push(csv.value(i, regret)?);
            t.set.push(csv.value(i, set)?);
        }
        Ok(t)
    }

    /// Reads and parses a job CSV.
    pub fn read(path: &Path) -> Result<Trace, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Trace::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Rounds played.
    pub fn rounds(&self) -> usize {
        self.spent.len()
    }

    /// The final simple regret (`None` if no round was played).
    pub fn final_simple_regret(&self) -> Option<f64> {
        self.simple_regret.last().copied()
    }

    /// Index of the last round whose spent budget is at most `budget` (with a relative slack of
    /// 1e-9 against rounding in the running sum).
    fn last_round_within(&self, budget: f64) -> Option<usize> {
        let slack = 1e-9 * budget.abs().max(1.0);
        self.spent.iter().rposition(|&s| s <= budget + slack)
    }

    /// The rounds played within `budget` (what the run had done when it had spent that much).
    pub fn truncated(&self, budget: f64) -> Trace {
        let n = self.last_round_within(budget).map_or(0, |i| i + 1);
        Trace {
            spent: self.spent[..n].to_vec(),
            cost: self.cost[..n].to_vec(),
            set: self.set[..n].to_vec(),
            simple_regret: self.simple_regret[..n].to_vec(),
        }
    }

    /// The budget after which this run only plays sets in `optimal`: the budget spent before
    /// the first round of the final unbroken streak of rounds on `optimal` sets. `None` if the
    /// last round is not on an optimal set (the run never settles), or no round was played.
    pub fn commit_budget(&self, optimal: &[usize]) -> Option<f64> {
        let last = *self.set.last()?;
        if !optimal.contains(&last) {
            return None;
        }
        let first = self
            .set
            .iter()
            .rposition(|s| !optimal.contains(s))
            .map_or(0, |i| i + 1);
        Some(if first == 0 {
            0.0
        } else {
            self.spent[first - 1]
        })
    }

    /// Share of the budget spent on sets that are not in `sets` (e.g. the cheaper ones).
    pub fn budget_share_outside(&self, sets: &[usize]) -> f64 {
        let total: f64 = self.cost.iter().sum();
        if total <= 0.0 {
            return 0.0;
        }
        let outside: f64 = self
            .set
            .iter()
            .zip(&self.cost)
            .filter(|(s, _)| !sets.contains(s))
            // A fold from +0, not `sum` (which starts from −0): nothing outside is a share of
            // 0, printed "0%", not "-0%".
            .fold(0.0, |a, (_, c)| a + c);
        outside / total
    }
}

/// What a curve plots against budget spent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// Simple regret after the last round within the budget (defined once a round is played).
    SimpleRegret,
    /// Rounds played within the budget (paper 001's "number of evaluations").
    Evaluations,
}

/// Mean ± standard error of a metric over seeds, on a grid of budgets.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MeanCurve {
    /// Budgets (increasing).
    pub budget: Vec<f64>,
    /// Mean over the traces.
    pub mean: Vec<f64>,
    /// Standard error of the mean (0 with one trace).
    pub stderr: Vec<f64>,
}

/// Mean and standard error of the mean (sample standard deviation over √n; 0 for one value).
pub fn mean_stderr(values: &[f64]) -> Option<(f64, f64)> {
    if values.is_empty() {
        return None;
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    if values.len() == 1 {
        return Some((mean, 0.0));
    }
    let var = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1.0);
    Some((mean, (var / n).sqrt()))
}

/// The curve of `metric` over `traces` at `points` budgets evenly spaced in `(0, budget]`. A
/// budget enters the curve only once every trace has a value there (simple regret is undefined
/// before a run's first round), so every point averages the same seeds.
pub fn mean_curve(traces: &[Trace], budget: f64, points: usize, metric: Metric) -> MeanCurve {
    let mut c = MeanCurve::default();
    if traces.is_empty() || points == 0 || budget.is_nan() || budget <= 0.0 {
        return c;
    }
    for k in 1..=points {
        let b = budget * k as f64 / points as f64;
        let values: Option<Vec<f64>> = traces
            .iter()
            .map(|t| match metric {
                Metric::SimpleRegret => t.last_round_within(b).map(|i| t.simple_regret[i]),
                Metric::Evaluations => Some(t.last_round_within(b).map_or(0.0, |i| i as f64 + 1.0)),
            })
            .collect();
        if let Some((m, s)) = values.as_deref().and_then(mean_stderr) {
            c.budget.push(b);
            c.mean.push(m);
            c.stderr.push(s);
        }
    }
    c
}

/// The papers' diamond: the mean over seeds of the budget after which each run only plays an
/// optimal set; `None` unless every run settles on an optimal set (a mean over only the runs
/// that settle would flatter the algorithm).
pub fn mean_commit_budget(traces: &[Trace], optimal: &[usize]) -> Option<f64> {
    let budgets: Option<Vec<f64>> = traces.iter().map(|t| t.commit_budget(optimal)).collect();
    budgets
        .as_deref()
        .and_then(mean_stderr)
        .map(|(mean, _)| mean)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace(sets: &[usize], costs: &[f64], regrets: &[f64]) -> Trace {
        let mut spent = Vec::new();
        let mut s = 0.0;
        for c in costs {
            s += c;
            spent.push(s);
        }
        Trace {
            spent,
            cost: costs.to_vec(),
            set: sets.to_vec(),
            simple_regret: regrets.to_vec(),
        }
    }

    #[test]
    fn commit_budget_is_the_spend_before_the_final_streak() {
        let t = trace(
            &[0, 1, 6, 0, 6, 6],
            &[0.1, 0.1, 1.0, 0.1, 1.0, 1.0],
            &[1.0; 6],
        );
        // The streak on set 6 starts at round 5, after 1.3 spent.
        assert!((t.commit_budget(&[6]).unwrap() - 1.3).abs() < 1e-12);
        // Two optimal sets: the streak starts at round 3.
        assert!((t.commit_budget(&[0, 6]).unwrap() - 0.2).abs() < 1e-12);
        // Always optimal: from the start.
        assert_eq!(t.commit_budget(&[0, 1, 6]), Some(0.0));
        // Ends elsewhere: never commits.
        assert_eq!(t.commit_budget(&[1]), None);
        assert_eq!(Trace::default().commit_budget(&[0]), None);
    }

    #[test]
    fn mean_commit_needs_every_run_to_settle() {
        let a = trace(&[0, 6], &[0.1, 1.0], &[1.0, 0.5]);
        let b = trace(&[0, 0, 6], &[0.1, 0.1, 1.0], &[1.0, 0.9, 0.2]);
        let c = trace(&[6, 0], &[1.0, 0.1], &[1.0, 0.9]);
        assert!((mean_commit_budget(&[a.clone(), b.clone()], &[6]).unwrap() - 0.15).abs() < 1e-12);
        assert_eq!(mean_commit_budget(&[a, b, c], &[6]), None);
    }

    #[test]
    fn curves_average_the_same_seeds_at_every_budget() {
        let a = trace(&[0, 0, 0], &[0.5, 0.5, 1.0], &[3.0, 2.0, 1.0]);
        let b = trace(&[0], &[1.0], &[4.0]);
        let c = mean_curve(&[a, b], 2.0, 4, Metric::SimpleRegret);
        // At 0.5 run b has not played yet: the curve starts at 1.0.
        assert_eq!(c.budget, vec![1.0, 1.5, 2.0]);
        assert_eq!(c.mean, vec![3.0, 3.0, 2.5]);
        assert!((c.stderr[2] - 1.5).abs() < 1e-12);
        let a = trace(&[0, 0, 0], &[0.5, 0.5, 1.0], &[3.0, 2.0, 1.0]);
        let e = mean_curve(&[a], 2.0, 4, Metric::Evaluations);
        assert_eq!(e.mean, vec![1.0, 2.0, 2.0, 3.0]);
    }

    #[test]
    fn parse_reads_the_runner_columns_and_rejects_garbage() {
        let text = "round,spent,cost,set,control,u1,y,expected,simple_regret,cumulative_regret,\
                    cost_weighted_regret\n1,0.1,0.1,2,1,0.5,1.0,1.0,0.25,0.25,0.025\n";
        let t = Trace::parse(text).unwrap();
        assert_eq!(t.set, vec![2]);
        assert_eq!(t.final_simple_regret(), Some(0.25));
        assert!(Trace::parse("round,spent\n1,0.1\n").is_err());
        assert!(Trace::parse(&text.replace("0.25,0.25", "x,0.25")).is_err());
        assert!(Trace::parse("").is_err());
    }

    #[test]
    fn truncated_keeps_the_rounds_within_the_budget() {
        let t = trace(&[0, 1, 6], &[0.5, 0.5, 1.0], &[3.0, 2.0, 1.0]);
        assert_eq!(t.truncated(1.0).set, vec![0, 1]);
        assert_eq!(t.truncated(0.1).rounds(), 0);
        assert_eq!(t.truncated(5.0), t);
    }

    #[test]
    fn budget_share_counts_cost_not_rounds() {
        let t = trace(&[0, 0, 6], &[0.1, 0.1, 1.0], &[1.0; 3]);
        assert!((t.budget_share_outside(&[6]) - 0.2 / 1.2).abs() < 1e-12);
        // Nothing outside: +0 (reports print "0%", not "-0%").
        let none = t.budget_share_outside(&[0, 6]);
        assert!(none == 0.0 && none.is_sign_positive());
    }
}
