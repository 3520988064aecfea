//! The description of a cost-varying-subset optimisation problem.
//!
//! `D` variables, each with physical bounds and the distribution it follows when it is not
//! controlled; up to `M` control sets (which variables the learner pays to set), each with a
//! known cost or with costs that are only observed after paying. Inside the core every point
//! lives in the unit cube `[0, 1]^D`; this type converts at the boundary.

use crate::dist::Distribution;
use crate::real::Real;

/// Largest number of variables a [`ControlSet`] can name.
pub const MAX_VARIABLES: usize = 32;

/// A set of variables, as a bitmask (bit `l` set means variable `l` is controlled).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct ControlSet(pub u32);

impl ControlSet {
    /// The set of the listed variables (0-based). Indices of 32 or more are ignored; use
    /// [`Problem::new`] to validate a set against a problem.
    pub fn of(variables: &[usize]) -> Self {
        let mut m = 0u32;
        for &v in variables {
            if v < MAX_VARIABLES {
                m |= 1 << v;
            }
        }
        ControlSet(m)
    }

    /// All of the first `d` variables.
    pub fn full(d: usize) -> Self {
        if d >= MAX_VARIABLES {
            ControlSet(u32::MAX)
        } else {
            ControlSet((1u32 << d) - 1)
        }
    }

    /// True when variable `l` is controlled.
    #[inline]
    pub fn contains(self, l: usize) -> bool {
        l < MAX_VARIABLES && self.0 & (1 << l) != 0
    }

    /// Number of controlled variables.
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// True when no variable is controlled.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// True when every variable of `self` is in `other`.
    pub fn is_subset_of(self, other: ControlSet) -> bool {
        self.0 & !other.0 == 0
    }
}

/// One variable: physical bounds and the distribution it follows when not controlled.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Variable<R> {
    /// Smallest physical value.
    pub lower: R,
    /// Largest physical value.
    pub upper: R,
    /// Distribution of the variable (physical units) when it is left to chance.
    pub uncontrolled: Distribution<R>,
}

/// Why a problem description was rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProblemError {
    /// Variable `.0` has non-finite bounds or `lower >= upper`.
    Bounds(usize),
    /// Variable `.0`'s distribution is not supported inside its bounds.
    Distribution(usize),
    /// No control set was given.
    NoControlSets,
    /// More than `M` control sets were given.
    TooManyControlSets,
    /// Control set `.0` is empty.
    EmptyControlSet(usize),
    /// Control set `.0` names a variable index `>= D`.
    ControlSetOutOfRange(usize),
    /// Control set `.0` repeats an earlier one.
    DuplicateControlSet(usize),
    /// The number of costs differs from the number of control sets.
    CostCount,
    /// Cost `.0` is not a positive finite number.
    Cost(usize),
}

/// Costs of the control sets: known in advance, or observed only when paid (paper 001).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Costs<R, const M: usize> {
    /// The cost of each set, known and deterministic.
    Known([R; M]),
    /// Random costs with unknown means, observed after each round.
    Unknown,
}

/// A validated problem: `D` variables and up to `M` control sets.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem<R, const D: usize, const M: usize> {
    lower: [R; D],
    upper: [R; D],
    // Distribution of each variable in unit-cube coordinates.
    unit: [Distribution<R>; D],
    sets: [ControlSet; M],
    len: usize,
    costs: Costs<R, M>,
}

impl<R: Real, const D: usize, const M: usize> Problem<R, D, M> {
    /// Validates and builds a problem. `costs`, when given, has one positive cost per set;
    /// `None` means costs are unknown and observed each round.
    pub fn new(
        variables: &[Variable<R>; D],
        sets: &[ControlSet],
        costs: Option<&[R]>,
    ) -> Result<Self, ProblemError> {
        let mut lower = [R::ZERO; D];
        let mut upper = [R::ONE; D];
        let mut unit = [Distribution::Constant(R::HALF); D];
        for (l, v) in variables.iter().enumerate() {
            if !v.lower.is_finite() || !v.upper.is_finite() || v.lower >= v.upper {
                return Err(ProblemError::Bounds(l));
            }
            let (lo, hi) = v.uncontrolled.support();
            if !(lo >= v.lower && hi <= v.upper) {
                return Err(ProblemError::Distribution(l));
            }
            lower[l] = v.lower;
            upper[l] = v.upper;
            unit[l] = v
                .uncontrolled
                .affine(v.lower, v.upper - v.lower)
                .map_err(|_| ProblemError::Distribution(l))?;
        }
        if sets.is_empty() {
            return Err(ProblemError::NoControlSets);
        }
        if sets.len() > M {
            return Err(ProblemError::TooManyControlSets);
        }
        let mut stored = [ControlSet(0); M];
        for (i, s) in sets.iter().enumerate() {
            if s.is_empty() {
                return Err(ProblemError::EmptyControlSet(i));
            }
            if !s.is_subset_of(ControlSet::full(D)) || D > MAX_VARIABLES {
                return Err(ProblemError::ControlSetOutOfRange(i));
            }
            if sets[..i].contains(s) {
                return Err(ProblemError::DuplicateControlSet(i));
            }
            stored[i] = *s;
        }
        let costs = match costs {
            None => Costs::Unknown,
            Some(c) => {
                if c.len() != sets.len() {
                    return Err(ProblemError::CostCount);
                }
                let mut known = [R::ONE; M];
                for (i, &ci) in c.iter().enumerate() {
                    if !ci.is_finite() || ci <= R::ZERO {
                        return Err(ProblemError::Cost(i));
                    }
                    known[i] = ci;
                }
                Costs::Known(known)
            }
        };
        Ok(Problem {
            lower,
            upper,
            unit,
            sets: stored,
            len: sets.len(),
            costs,
        })
    }

    /// Number of control sets.
    pub fn num_sets(&self) -> usize {
        self.len
    }

    /// The control sets.
    pub fn sets(&self) -> &[ControlSet] {
        &self.sets[..self.len]
    }

    /// The first control set that controls every variable, if there is one. Its best
    /// acquisition value is never below another set's: for any `g`,
    /// `max_x g(x) ≥ max_{x^i} E[g([x^i, X])]`, so a rule that plays the overall argmax (UCB-PSQ,
    /// explore-then-commit once committed, TS-PSQ) always plays it, and the unknown-cost rule's
    /// best lower bound over all sets is its best lower bound.
    pub fn full_set(&self) -> Option<usize> {
        self.sets()
            .iter()
            .position(|s| (0..D).all(|l| s.contains(l)))
    }

    /// Control set `i`.
    pub fn set(&self, i: usize) -> Option<ControlSet> {
        self.sets().get(i).copied()
    }

    /// The costs as given.
    pub fn costs(&self) -> &Costs<R, M> {
        &self.costs
    }

    /// Known cost of set `i`, if costs are known.
    pub fn known_cost(&self, i: usize) -> Option<R> {
        match &self.costs {
            Costs::Known(c) if i < self.len => Some(c[i]),
            _ => None,
        }
    }

    /// Distribution of variable `l` in unit-cube coordinates.
    pub fn unit_distribution(&self, l: usize) -> &Distribution<R> {
        &self.unit[l]
    }

    /// Physical lower bounds.
    pub fn lower(&self) -> &[R; D] {
        &self.lower
    }

    /// Physical upper bounds.
    pub fn upper(&self) -> &[R; D] {
        &self.upper
    }

    /// Maps a physical point into the unit cube (no clamping).
    pub fn to_unit(&self, x: &[R; D]) -> [R; D] {
        core::array::from_fn(|l| (x[l] - self.lower[l]) / (self.upper[l] - self.lower[l]))
    }

    /// Maps a unit-cube point to physical units.
    pub fn to_physical(&self, u: &[R; D]) -> [R; D] {
        core::array::from_fn(|l| self.lower[l] + u[l] * (self.upper[l] - self.lower[l]))
    }

    /// True when the physical point lies within the bounds (and is finite).
    pub fn contains(&self, x: &[R; D]) -> bool {
        (0..D).all(|l| self.contains_coordinate(l, x[l]))
    }

    /// True when `v` is a finite value within variable `l`'s bounds (false for `l >= D`).
    pub fn contains_coordinate(&self, l: usize, v: R) -> bool {
        l < D && v.is_finite() && v >= self.lower[l] && v <= self.upper[l]
    }
}
