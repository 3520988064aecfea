//! The description of a cost-varying-subset optimisation problem.
//!
//! `D` variables, each with physical bounds and the distribution it follows when it is not
//! controlled; up to `M` control sets (which variables the learner pays to set), each with a
//! known cost or with costs that are only observed after paying. Inside the core every point
//! lives in the unit cube `[0, 1]^D`; this type converts at the boundary.

use crate::dist::Distribution;
use crate::real::Real;

/// The bits of a [`ControlSet`]: `u32`, or `u64` with the `wide-sets` feature (the desktop
/// adapter's; a device keeps the narrower mask, whose tests take fewer instructions on a
/// Cortex-M0).
#[cfg(not(feature = "wide-sets"))]
pub type Mask = u32;
/// The bits of a [`ControlSet`]: `u64` with the `wide-sets` feature, `u32` without.
#[cfg(feature = "wide-sets")]
pub type Mask = u64;

/// Largest number of variables a [`ControlSet`] can name (and a problem have): 32, or 64 with
/// the `wide-sets` feature.
pub const MAX_VARIABLES: usize = Mask::BITS as usize;

/// A set of variables, as a bitmask (bit `l` set means variable `l` is controlled).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct ControlSet(pub Mask);

impl ControlSet {
    /// The set of the listed variables (0-based). Indices of [`MAX_VARIABLES`] or more are
    /// ignored; use
    /// [`Problem::new`] to validate a set against a problem.
    pub fn of(variables: &[usize]) -> Self {
        let mut m: Mask = 0;
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
            ControlSet(Mask::MAX)
        } else {
            ControlSet(((1 as Mask) << d) - 1)
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
    /// Cost `.0` is not a positive finite number (for [`Costs::Dosed`]: its base, rate, or its
    /// cheapest value is not).
    Cost(usize),
    /// The cost function gave control set `.0` a cost that is not positive and finite.
    CostValue(usize),
    /// The context mask names a variable index `>= D`.
    ContextOutOfRange,
}

impl core::fmt::Display for ProblemError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Bounds(i) => write!(f, "variable {i} has non-finite bounds or lower >= upper"),
            Self::Distribution(i) => write!(
                f,
                "the distribution of variable {i} is not supported inside its bounds"
            ),
            Self::NoControlSets => f.write_str("no control set was given"),
            Self::TooManyControlSets => {
                f.write_str("more control sets were given than the problem holds (M)")
            }
            Self::EmptyControlSet(i) => write!(f, "control set {i} is empty"),
            Self::ControlSetOutOfRange(i) => write!(
                f,
                "control set {i} names a variable index beyond the problem's variables"
            ),
            Self::DuplicateControlSet(i) => write!(f, "control set {i} repeats an earlier one"),
            Self::CostCount => {
                f.write_str("the number of costs differs from the number of control sets")
            }
            Self::Cost(i) => write!(
                f,
                "the cost of control set {i} (or its base, rate or cheapest value) is not a \
                 positive finite number"
            ),
            Self::CostValue(i) => write!(
                f,
                "the cost function gave control set {i} a cost that is not positive and finite"
            ),
            Self::ContextOutOfRange => f.write_str(
                "the context mask names a variable index beyond the problem's variables",
            ),
        }
    }
}

impl core::error::Error for ProblemError {}

/// What a round costs: a price per control set known in advance (paper 000), random costs
/// observed only when paid (paper 001), or a price that depends on the values chosen (paper
/// 002: a dose of 8 mM costs more than one of 1 mM), in closed form with a gradient.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Costs<R, const D: usize, const M: usize> {
    /// The cost of each set, known and deterministic.
    Known([R; M]),
    /// Random costs with unknown means, observed after each round.
    Unknown,
    /// Set `i` at physical values `x` costs `base[i] + Σ_{l ∈ set i} rate[l]·x_l`: a price per
    /// unit of each variable dosed on top of a set's fixed cost (rates ≥ 0).
    Dosed {
        /// Fixed cost of each set.
        base: [R; M],
        /// Price per physical unit of each variable, charged when its set controls it.
        rate: [R; D],
    },
    /// Any known cost function of the set and the physical values, with its gradient.
    Function(CostFunction<R, D>),
}

/// A known cost function: `f(set, x)` returns the cost of control set `set` at physical values
/// `x` (only the set's variables are meaningful) and its gradient in `x`. A plain function
/// pointer, so that a problem stays `Copy`-able and allocation-free; the controller refuses a
/// decision whose cost is not positive and finite ([`ProblemError::CostValue`]).
#[derive(Clone, Copy)]
pub struct CostFunction<R, const D: usize>(pub fn(usize, &[R; D]) -> (R, [R; D]));

impl<R, const D: usize> core::fmt::Debug for CostFunction<R, D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("CostFunction")
    }
}

impl<R, const D: usize> PartialEq for CostFunction<R, D> {
    fn eq(&self, other: &Self) -> bool {
        core::ptr::fn_addr_eq(self.0, other.0)
    }
}

/// A validated problem: `D` variables and up to `M` control sets.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem<R, const D: usize, const M: usize> {
    lower: [R; D],
    upper: [R; D],
    // Distribution of each variable in unit-cube coordinates.
    unit: [Distribution<R>; D],
    sets: heapless::Vec<ControlSet, M>,
    costs: Costs<R, D, M>,
    // Variables measured before each decision (paper 004's contexts).
    contexts: ControlSet,
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
        let stored =
            heapless::Vec::from_slice(sets).map_err(|_| ProblemError::TooManyControlSets)?;
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
            costs,
            contexts: ControlSet(0),
        })
    }

    /// The problem with other costs (validated like [`new`](Self::new)'s: known costs
    /// positive and finite; dosed costs with finite, non-negative bases and rates whose
    /// cheapest value over the bounds is positive). Costs of sets beyond
    /// [`num_sets`](Self::num_sets) are ignored.
    pub fn with_costs(mut self, costs: Costs<R, D, M>) -> Result<Self, ProblemError> {
        match &costs {
            Costs::Known(c) => {
                if let Some(i) =
                    (0..self.sets.len()).find(|&i| !(c[i].is_finite() && c[i] > R::ZERO))
                {
                    return Err(ProblemError::Cost(i));
                }
            }
            Costs::Dosed { base, rate } => {
                let rates_ok = rate.iter().all(|r| r.is_finite() && *r >= R::ZERO);
                for (i, set) in self.sets().iter().enumerate() {
                    let cheapest = (0..D)
                        .filter(|&l| set.contains(l))
                        .fold(base[i], |c, l| c + rate[l] * self.lower[l]);
                    let base_ok = base[i].is_finite() && base[i] >= R::ZERO;
                    if !(rates_ok && base_ok && cheapest.is_finite() && cheapest > R::ZERO) {
                        return Err(ProblemError::Cost(i));
                    }
                }
            }
            Costs::Unknown | Costs::Function(_) => {}
        }
        self.costs = costs;
        Ok(self)
    }

    /// The problem with the variables in `contexts` measured before each decision (paper
    /// 004): the controller then takes their values with every request for a decision
    /// ([`Controller::next`](crate::driver::Controller::next)).
    pub fn with_contexts(mut self, contexts: ControlSet) -> Result<Self, ProblemError> {
        if !contexts.is_subset_of(ControlSet::full(D)) || D > MAX_VARIABLES {
            return Err(ProblemError::ContextOutOfRange);
        }
        self.contexts = contexts;
        Ok(self)
    }

    /// The variables measured before each decision (empty unless
    /// [`with_contexts`](Self::with_contexts) set them).
    pub fn contexts(&self) -> ControlSet {
        self.contexts
    }

    /// Number of control sets.
    pub fn num_sets(&self) -> usize {
        self.sets.len()
    }

    /// The control sets.
    pub fn sets(&self) -> &[ControlSet] {
        &self.sets
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
    pub fn costs(&self) -> &Costs<R, D, M> {
        &self.costs
    }

    /// The cost of playing set `i` at physical values `x` and its gradient in `x`, when costs
    /// are known (per set, dosed or by a function); `Ok(None)` when they are learned from what
    /// is paid, or `i` is not a set. A cost function that gives a cost that is not positive
    /// and finite is an error.
    pub fn cost_at(&self, i: usize, x: &[R; D]) -> Result<Option<(R, [R; D])>, ProblemError> {
        let Some(set) = self.set(i) else {
            return Ok(None);
        };
        let (c, g) = match &self.costs {
            Costs::Unknown => return Ok(None),
            Costs::Known(c) => (c[i], [R::ZERO; D]),
            Costs::Dosed { base, rate } => {
                let mut c = base[i];
                let mut g = [R::ZERO; D];
                for l in (0..D).filter(|&l| set.contains(l)) {
                    c += rate[l] * x[l];
                    g[l] = rate[l];
                }
                (c, g)
            }
            Costs::Function(f) => (f.0)(i, x),
        };
        if c.is_finite() && c > R::ZERO {
            Ok(Some((c, g)))
        } else {
            Err(ProblemError::CostValue(i))
        }
    }

    /// The cost of a decision: set `i` with the decided physical `values` (`None` for the
    /// variables left to chance, on which a set's cost does not depend), as
    /// [`cost_at`](Self::cost_at) prices it; `None` when costs are learned, `i` is not a set,
    /// or the price is not positive and finite.
    pub fn decision_cost(&self, i: usize, values: &[Option<R>; D]) -> Option<R> {
        let x: [R; D] = core::array::from_fn(|l| values[l].unwrap_or(self.lower[l]));
        self.cost_at(i, &x).ok().flatten().map(|(c, _)| c)
    }

    /// Known cost of set `i`, if costs are known.
    pub fn known_cost(&self, i: usize) -> Option<R> {
        match &self.costs {
            Costs::Known(c) if i < self.sets.len() => Some(c[i]),
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
