//! Explore-then-commit over cost groups (paper 000's ETC-50, ETC-100 and ETC-Ada).
//!
//! A *cost group* is the control sets sharing one cost that is not the largest cost. Groups are
//! explored cheapest first: each round plays, from the cheapest group with plays left, its set
//! with the highest expected-UCB score. When every group is spent, play the overall argmax.

use crate::real::Real;

/// How many plays each cost group gets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PlaysPerGroup {
    /// The same number for every group (ETC-50, ETC-100).
    Fixed(u32),
    /// `floor(4 / c)` for a group of cost `c` (ETC-Ada).
    Adaptive,
}

/// The state of explore-then-commit: the groups and their remaining plays.
#[derive(Debug, Clone, PartialEq)]
pub struct ExploreThenCommit<R, const M: usize> {
    group_cost: [R; M],
    plays_left: [u32; M],
    groups: usize,
}

impl<R: Real, const M: usize> ExploreThenCommit<R, M> {
    /// Groups the sets of `costs` (at most `M`) by equal cost, excluding the largest cost.
    pub fn new(costs: &[R], plays: PlaysPerGroup) -> Self {
        let max = costs.iter().copied().fold(R::ZERO, R::max);
        let mut group_cost = [R::ZERO; M];
        let mut groups = 0;
        for &c in costs.iter().take(M) {
            if c < max && !group_cost[..groups].contains(&c) {
                group_cost[groups] = c;
                groups += 1;
            }
        }
        // Cheapest first (insertion sort: M is small).
        for i in 1..groups {
            let mut j = i;
            while j > 0 && group_cost[j] < group_cost[j - 1] {
                group_cost.swap(j, j - 1);
                j -= 1;
            }
        }
        let mut plays_left = [0u32; M];
        for g in 0..groups {
            plays_left[g] = match plays {
                PlaysPerGroup::Fixed(n) => n,
                PlaysPerGroup::Adaptive => {
                    let p = (R::from_f64(4.0) / group_cost[g]).floor().to_f64();
                    if p >= u32::MAX as f64 {
                        u32::MAX
                    } else {
                        p as u32
                    }
                }
            };
        }
        ExploreThenCommit {
            group_cost,
            plays_left,
            groups,
        }
    }

    /// Group costs, cheapest first, with their remaining plays.
    pub fn groups(&self) -> impl Iterator<Item = (R, u32)> + '_ {
        (0..self.groups).map(|g| (self.group_cost[g], self.plays_left[g]))
    }

    /// True once every group's plays are spent (the rule then plays the overall argmax).
    pub fn committed(&self) -> bool {
        self.plays_left[..self.groups].iter().all(|&p| p == 0)
    }

    /// The set to play given this round's scores (expected-UCB maxima) and costs.
    pub fn select(&self, scores: &[R], costs: &[R]) -> Option<usize> {
        if scores.len() != costs.len() {
            return None;
        }
        let argmax = |keep: &dyn Fn(usize) -> bool| {
            (0..scores.len())
                .filter(|&i| keep(i) && scores[i].is_finite())
                .fold(None, |b: Option<usize>, i| match b {
                    Some(b) if scores[b] >= scores[i] => Some(b),
                    _ => Some(i),
                })
        };
        for g in 0..self.groups {
            if self.plays_left[g] > 0 {
                if let Some(i) = argmax(&|i| costs[i] == self.group_cost[g]) {
                    return Some(i);
                }
            }
        }
        argmax(&|_| true)
    }

    /// Group costs and remaining plays, for saving the state.
    pub fn parts(&self) -> (&[R], &[u32]) {
        (
            &self.group_cost[..self.groups],
            &self.plays_left[..self.groups],
        )
    }

    /// Rebuilds a state saved with [`parts`](Self::parts); `None` if the lengths differ, exceed
    /// `M`, or a cost is not positive and finite.
    pub fn from_parts(group_cost: &[R], plays_left: &[u32]) -> Option<Self> {
        if group_cost.len() != plays_left.len() || group_cost.len() > M {
            return None;
        }
        if !group_cost.iter().all(|c| c.is_finite() && *c > R::ZERO) {
            return None;
        }
        let mut s = ExploreThenCommit {
            group_cost: [R::ZERO; M],
            plays_left: [0; M],
            groups: group_cost.len(),
        };
        s.group_cost[..s.groups].copy_from_slice(group_cost);
        s.plays_left[..s.groups].copy_from_slice(plays_left);
        Some(s)
    }

    /// Records that a set of cost `cost` was played: its group loses one play.
    pub fn record_play(&mut self, cost: R) {
        if let Some(g) = (0..self.groups).find(|&g| self.group_cost[g] == cost) {
            self.plays_left[g] = self.plays_left[g].saturating_sub(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHEAP: [f64; 7] = [0.01, 0.01, 0.01, 0.1, 0.1, 0.1, 1.0];

    #[test]
    fn groups_are_ordered_and_sized() {
        let etc = ExploreThenCommit::<f64, 7>::new(&CHEAP, PlaysPerGroup::Adaptive);
        let g: std::vec::Vec<_> = etc.groups().collect();
        assert_eq!(g, [(0.01, 400), (0.1, 40)]);
        let etc = ExploreThenCommit::<f64, 7>::new(
            &[0.6, 0.6, 0.6, 0.8, 0.8, 0.8, 1.0],
            PlaysPerGroup::Adaptive,
        );
        let g: std::vec::Vec<_> = etc.groups().collect();
        assert_eq!(g, [(0.6, 6), (0.8, 5)]);
        let etc = ExploreThenCommit::<f64, 7>::new(&CHEAP, PlaysPerGroup::Fixed(50));
        assert!(etc.groups().all(|(_, p)| p == 50));
    }

    #[test]
    fn plays_cheapest_group_then_next_then_argmax() {
        let costs = [0.1, 0.1, 0.2, 0.2, 1.0];
        let scores = [0.5, 0.7, 2.0, 0.1, 3.0];
        let mut etc = ExploreThenCommit::<f64, 5>::new(&costs, PlaysPerGroup::Fixed(2));
        let mut played = std::vec::Vec::new();
        for _ in 0..6 {
            let i = etc.select(&scores, &costs).unwrap();
            played.push(i);
            etc.record_play(costs[i]);
        }
        // Two plays of the best 0.1-set (1), two of the best 0.2-set (2), then the argmax (4).
        assert_eq!(played, [1, 1, 2, 2, 4, 4]);
        assert!(etc.committed());
    }

    extern crate std;
}
