//! How a rule turns each control set's best score into the set it plays, when that choice is
//! all that distinguishes two rules: the cost-blind argmax (TS-PSQ, EI-PSQ) or the best score
//! per unit cost (the per-unit-cost baselines of paper 000's appendix B). A rule built on
//! sample paths takes a [`Selection`] instead of existing twice.

use crate::real::Real;

/// The choice among the sets' best scores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Selection {
    /// The best score, whatever it costs ([`argmax`]).
    #[default]
    Argmax,
    /// The best score divided by the set's cost ([`per_unit_cost`]); needs known costs.
    PerUnitCost,
}

impl Selection {
    /// The chosen set's index, or `None` if no score can be compared.
    pub fn select<R: Real>(self, scores: &[R], costs: &[R]) -> Option<usize> {
        match self {
            Selection::Argmax => argmax(scores),
            Selection::PerUnitCost => per_unit_cost(scores, costs),
        }
    }

    /// Plays the set chosen among the maxima `out` (one per set, `None` where a set was not
    /// scored or failed) with the sets' `costs`, at its maximiser.
    pub fn play<R: Real, const D: usize>(
        self,
        out: &[Option<crate::inner::InnerResult<R, D>>],
        costs: &[R],
    ) -> Result<super::Choice<R, D>, super::DriverError> {
        let scores = |i: usize| {
            out.get(i)
                .copied()
                .flatten()
                .map_or(-R::INFINITY, |r| r.value)
        };
        let chosen = match self {
            Selection::Argmax => argmax_by(out.len(), scores),
            Selection::PerUnitCost => per_unit_cost_by(out.len(), scores, costs),
        };
        super::play_selected(out, chosen)
    }

    /// True when the choice is the overall argmax, so that the set controlling every variable
    /// may be scored alone ([`super::score_full_set_first`]).
    pub fn plays_argmax(self) -> bool {
        self == Selection::Argmax
    }
}

/// The first index of the largest finite score; `None` if there is none.
pub fn argmax<R: Real>(scores: &[R]) -> Option<usize> {
    argmax_by(scores.len(), |i| scores[i])
}

/// [`argmax`] of the scores `score(0..len)`.
fn argmax_by<R: Real>(len: usize, score: impl Fn(usize) -> R) -> Option<usize> {
    (0..len)
        .filter(|&i| score(i).is_finite())
        .fold(None, |b: Option<usize>, i| match b {
            Some(b) if score(b) >= score(i) => Some(b),
            _ => Some(i),
        })
}

/// The set with the largest score per unit cost, `scores[i] / costs[i]` (the first on ties;
/// non-finite ratios are never chosen). A baseline that paper 000 shows failing: ratios
/// favour cheap sets whatever their value.
pub fn per_unit_cost<R: Real>(scores: &[R], costs: &[R]) -> Option<usize> {
    per_unit_cost_by(scores.len(), |i| scores[i], costs)
}

/// [`per_unit_cost`] of the scores `score(0..len)`.
fn per_unit_cost_by<R: Real>(len: usize, score: impl Fn(usize) -> R, costs: &[R]) -> Option<usize> {
    if len != costs.len() {
        return None;
    }
    (0..len)
        .filter(|&i| (score(i) / costs[i]).is_finite())
        .fold(None, |b: Option<usize>, i| match b {
            Some(b) if score(b) / costs[b] >= score(i) / costs[i] => Some(b),
            _ => Some(i),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cheap_sets_win_per_unit_cost_even_with_lower_scores() {
        assert_eq!(per_unit_cost(&[0.5, 2.0], &[0.01, 1.0]), Some(0));
        assert_eq!(per_unit_cost(&[0.5, 2.0], &[1.0, 1.0]), Some(1));
        assert_eq!(per_unit_cost::<f64>(&[1.0], &[0.0]), None);
        assert_eq!(per_unit_cost(&[1.0, 2.0], &[1.0]), None);
    }

    #[test]
    fn argmax_takes_the_first_best_finite_score() {
        assert_eq!(argmax(&[1.0, 3.0, 3.0, f64::INFINITY]), Some(1));
        assert_eq!(argmax(&[f64::NAN, -1.0]), Some(1));
        assert_eq!(argmax::<f64>(&[f64::NAN, f64::NEG_INFINITY]), None);
        assert_eq!(Selection::Argmax.select(&[0.5, 2.0], &[0.01, 1.0]), Some(1));
        assert_eq!(
            Selection::PerUnitCost.select(&[0.5, 2.0], &[0.01, 1.0]),
            Some(0)
        );
    }
}
