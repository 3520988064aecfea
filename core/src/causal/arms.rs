//! The arm table: at most `A` arms, each an equivalence class of possibly-optimal mixed policy
//! scopes (same action variables, same context variables), with inputs to its GP laid out as
//! the arm's actions followed by its contexts, at most `D` in all. Input positions beyond them
//! are unused and held at zero, so every arm's GP can share the type `Gp<R, N, D, S>`.
//!
//! Variables are indices into the problem's variables (the caller's numbering); a table is
//! built on the host from the POMPS of a graph or by hand, and checked here.

use crate::real::Real;

/// Why an arm was refused. The table is unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArmTableError {
    /// The table already holds `A` arms.
    TooManyArms,
    /// The arm's actions and contexts together exceed the GP's `D` inputs.
    TooManyInputs,
    /// A bound is not finite or has `lower > upper`.
    InvalidBounds {
        /// The variable concerned.
        variable: usize,
    },
    /// A variable appears twice in one arm (twice as an action or context, or as both).
    DuplicateVariable {
        /// The variable concerned.
        variable: usize,
    },
    /// An arm with the same action set and context set is already in the table (equivalent
    /// scopes are one arm: the algorithm cannot tell them apart).
    DuplicateArm {
        /// The arm already there.
        arm: usize,
    },
}

impl core::fmt::Display for ArmTableError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::TooManyArms => f.write_str("the arm table is full"),
            Self::TooManyInputs => {
                f.write_str("the arm's actions and contexts together exceed the gp's inputs")
            }
            Self::InvalidBounds { variable } => write!(
                f,
                "the bounds of variable {variable} are not finite or have lower > upper"
            ),
            Self::DuplicateVariable { variable } => {
                write!(f, "variable {variable} appears twice in the arm")
            }
            Self::DuplicateArm { arm } => write!(
                f,
                "arm {arm} already has the same action set and context set"
            ),
        }
    }
}

impl core::error::Error for ArmTableError {}

/// One arm: `n_actions` action variables and `n_contexts` context variables, with bounds per
/// GP input position (actions first).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Arm<R, const D: usize> {
    variables: [usize; D],
    lower: [R; D],
    upper: [R; D],
    n_actions: usize,
    n_contexts: usize,
}

impl<R: Real, const D: usize> Arm<R, D> {
    const EMPTY: Self = Arm {
        variables: [0; D],
        lower: [R::ZERO; D],
        upper: [R::ZERO; D],
        n_actions: 0,
        n_contexts: 0,
    };

    /// The action variables, in GP input order.
    pub fn actions(&self) -> &[usize] {
        &self.variables[..self.n_actions]
    }

    /// The context variables, in GP input order (after the actions).
    pub fn contexts(&self) -> &[usize] {
        &self.variables[self.n_actions..self.n_actions + self.n_contexts]
    }

    /// Lower bounds per GP input position (zero at unused positions).
    pub fn lower(&self) -> &[R; D] {
        &self.lower
    }

    /// Upper bounds per GP input position (zero at unused positions).
    pub fn upper(&self) -> &[R; D] {
        &self.upper
    }

    /// Number of GP inputs in use (actions plus contexts).
    pub fn inputs(&self) -> usize {
        self.n_actions + self.n_contexts
    }

    fn same_sets(&self, other: &Self) -> bool {
        let contains = |s: &[usize], v: usize| s.contains(&v);
        self.n_actions == other.n_actions
            && self.n_contexts == other.n_contexts
            && self.actions().iter().all(|&v| contains(other.actions(), v))
            && self
                .contexts()
                .iter()
                .all(|&v| contains(other.contexts(), v))
    }
}

/// At most `A` arms over GP inputs of dimension `D` (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ArmTable<R, const A: usize, const D: usize> {
    arms: [Arm<R, D>; A],
    len: usize,
}

impl<R: Real, const A: usize, const D: usize> Default for ArmTable<R, A, D> {
    fn default() -> Self {
        Self::new()
    }
}

impl<R: Real, const A: usize, const D: usize> ArmTable<R, A, D> {
    /// An empty table.
    pub const fn new() -> Self {
        ArmTable {
            arms: [Arm::EMPTY; A],
            len: 0,
        }
    }

    /// Appends an arm of `(variable, lower, upper)` actions and contexts and returns its index.
    /// An arm with neither is allowed (the empty scope: "do nothing", a constant to estimate).
    pub fn push(
        &mut self,
        actions: &[(usize, R, R)],
        contexts: &[(usize, R, R)],
    ) -> Result<usize, ArmTableError> {
        if self.len == A {
            return Err(ArmTableError::TooManyArms);
        }
        if actions.len() + contexts.len() > D {
            return Err(ArmTableError::TooManyInputs);
        }
        let mut arm = Arm::EMPTY;
        for (k, &(v, lo, hi)) in actions.iter().chain(contexts).enumerate() {
            if !(lo.is_finite() && hi.is_finite() && lo <= hi) {
                return Err(ArmTableError::InvalidBounds { variable: v });
            }
            if arm.variables[..k].contains(&v) {
                return Err(ArmTableError::DuplicateVariable { variable: v });
            }
            arm.variables[k] = v;
            arm.lower[k] = lo;
            arm.upper[k] = hi;
        }
        arm.n_actions = actions.len();
        arm.n_contexts = contexts.len();
        if let Some(other) = self.arms[..self.len].iter().position(|a| a.same_sets(&arm)) {
            return Err(ArmTableError::DuplicateArm { arm: other });
        }
        self.arms[self.len] = arm;
        self.len += 1;
        Ok(self.len - 1)
    }

    /// CoBO's table (Krause & Ong 2011): one arm that sets every action given every context.
    pub fn single(
        actions: &[(usize, R, R)],
        contexts: &[(usize, R, R)],
    ) -> Result<Self, ArmTableError> {
        let mut t = Self::new();
        t.push(actions, contexts)?;
        Ok(t)
    }

    /// Number of arms.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the table has no arm.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Arm `i`, if there is one.
    pub fn get(&self, i: usize) -> Option<&Arm<R, D>> {
        self.arms[..self.len].get(i)
    }

    /// The arms in order.
    pub fn arms(&self) -> &[Arm<R, D>] {
        &self.arms[..self.len]
    }
}
