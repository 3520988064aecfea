//! The "per unit cost" baselines of paper 000: each control set's score divided by its cost,
//! then the argmax. The paper shows that they fail (cheap sets stay artificially attractive, or
//! EI vanishes); they are here to reproduce that.

use crate::real::Real;

/// `argmax_i scoreᵢ / costᵢ` over finite ratios; `None` when none is finite or lengths differ.
pub fn select<R: Real>(scores: &[R], costs: &[R]) -> Option<usize> {
    if scores.len() != costs.len() {
        return None;
    }
    (0..scores.len())
        .filter(|&i| (scores[i] / costs[i]).is_finite())
        .fold(None, |b: Option<usize>, i| match b {
            Some(b) if scores[b] / costs[b] >= scores[i] / costs[i] => Some(b),
            _ => Some(i),
        })
}

#[cfg(test)]
mod tests {
    #[test]
    fn cheap_sets_win_even_with_lower_scores() {
        assert_eq!(super::select(&[0.5, 2.0], &[0.01, 1.0]), Some(0));
        assert_eq!(super::select(&[0.5, 2.0], &[1.0, 1.0]), Some(1));
        assert_eq!(super::select::<f64>(&[1.0], &[0.0]), None);
    }
}
