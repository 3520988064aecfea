//! The registry of rules by name ([`PolicySpec`], [`RULES`]) and [`AnyPolicy`], which runs
//! any of the rules compiled in (each behind its cargo feature) and only dispatches: it never
//! decides anything itself. Everything here that names a rule is generated from the registry
//! table (`registry!` in `policy/mod.rs`); each rule's names, how they are read and its
//! parameters live in its file.

// Also at their former paths (`policy::any::RuleDefaults`, ...).
pub use super::names::{PolicySpecError, RuleDefaults, RuleName, PAPERS_EPSILON};
use super::{Choice, DriverError, Memo, Outcome, Policy, Round};
// The parameter types of the registry's lines, and their conversion: each build uses those of
// the rules it has.
#[allow(unused_imports)]
use super::{names::Parameter, Maximiser, Selection};
use crate::problem::Problem;
use crate::real::Real;

impl core::fmt::Display for PolicySpecError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::UnknownName => {
                // The names a user may write, so that the error says what is allowed.
                f.write_str("no rule of this name is compiled in; the rules are")?;
                for (i, rule) in RULES.iter().enumerate() {
                    f.write_str(if i == 0 { " " } else { ", " })?;
                    f.write_str(rule.name)?;
                }
                Ok(())
            }
            Self::BadEpsilon => {
                f.write_str("the epsilon of ucb-cvs:EPS is not a finite number >= 0")
            }
            Self::BadPlays => f.write_str("explore-then-commit needs at least one play per group"),
            Self::BadLambda => f.write_str(
                "the lambda of pbgi:LAMBDA or gittins-cvs:LAMBDA is not a finite number > 0, or \
                 pbgi-d:LAMBDA:BETA lacks LAMBDA > 0 and BETA > 1",
            ),
        }
    }
}

impl core::error::Error for PolicySpecError {}

/// The names of `parts` in order, `N` of them (for [`RULES`], built at compile
/// time from each rule's `NAMES`).
const fn concat_names<const N: usize>(parts: &[&[RuleName]]) -> [RuleName; N] {
    let mut names = [RuleName {
        name: "",
        summary: "",
    }; N];
    let (mut k, mut i) = (0, 0);
    while i < parts.len() {
        let mut j = 0;
        while j < parts[i].len() {
            names[k] = parts[i][j];
            k += 1;
            j += 1;
        }
        i += 1;
    }
    names
}

/// Everything here that names a rule, from the registry table (see the module documentation).
macro_rules! define_registry {
    ($(
        $(#[$doc:meta])*
        { $feature:literal $module:ident
        $variant:ident $(($($field:ident: $param:ty),*))? => $policy:ty
        $(, record $record:ty)? }
    )*) => {
        $(
            #[cfg(feature = $feature)]
            use super::$module;
        )*

        const _: () = assert!(
            0 $(+ cfg!(feature = $feature) as usize)* > 0,
            "costbo-core needs at least one decision rule: enable a `policy-*` feature or \
             `all-policies`"
        );

        /// Each rule's names, in the registry's order.
        const NAME_PARTS: &[&[RuleName]] = &[$(
            #[cfg(feature = $feature)]
            $module::NAMES,
        )*];

        /// How many names [`RULES`] has.
        const NAME_COUNT: usize = {
            let (mut n, mut i) = (0, 0);
            while i < NAME_PARTS.len() {
                n += NAME_PARTS[i].len();
                i += 1;
            }
            n
        };

        /// Every rule name [`PolicySpec::parse`] knows in this build, in the order papers
        /// present them (each rule's names from its file).
        pub const RULES: &[RuleName] = &concat_names::<NAME_COUNT>(NAME_PARTS);

        /// A rule and its parameters: what a configuration file, a command line or a firmware
        /// build names, turned into a policy by [`build`](Self::build).
        #[derive(Debug, Clone, Copy, PartialEq)]
        pub enum PolicySpec<R> {
            $(
                $(#[$doc])*
                #[cfg(feature = $feature)]
                $variant $(($($param),*))?,
            )*
            #[doc(hidden)]
            _Never(core::convert::Infallible, core::marker::PhantomData<R>),
        }

        impl<R: Real> PolicySpec<R> {
            /// The rule called `name` (see [`RULES`]), with `defaults` for what the name leaves
            /// open.
            // A rule of one parameter reads it as `(parameter)`.
            #[allow(unused_parens)]
            pub fn parse(name: &str, defaults: &RuleDefaults<R>) -> Result<Self, PolicySpecError> {
                let _ = (name, defaults);
                $(
                    #[cfg(feature = $feature)]
                    if let Some(parameters) = $module::parse(name, defaults) {
                        return parameters.map(|($($($field),*)?)| {
                            PolicySpec::$variant $(($($field),*))?
                        });
                    }
                )*
                Err(PolicySpecError::UnknownName)
            }

            /// The same rule in another precision (each parameter converted through `f64`).
            pub fn convert<T: Real>(&self) -> PolicySpec<T> {
                match *self {
                    $(
                        #[cfg(feature = $feature)]
                        PolicySpec::$variant $(($($field),*))? => PolicySpec::$variant
                            $(($(<_ as Parameter<T>>::convert($field)),*))?,
                    )*
                    PolicySpec::_Never(never, _) => match never {},
                }
            }

            /// The rule, for problems of `D` variables and `M` control sets; `F` random
            /// Fourier features for the sample-path rules and a window of `H` queries for EI.
            pub fn build<const D: usize, const M: usize, const F: usize, const H: usize>(
                &self,
            ) -> AnyPolicy<R, D, M, F, H> {
                match *self {
                    $(
                        #[cfg(feature = $feature)]
                        PolicySpec::$variant $(($($field),*))? => {
                            AnyPolicy::$variant(<$policy>::new($($($field),*)?))
                        }
                    )*
                    PolicySpec::_Never(never, _) => match never {},
                }
            }
        }

        /// Any rule compiled in (see the module documentation).
        #[derive(Debug, Clone, PartialEq)]
        #[allow(clippy::large_enum_variant)] // a controller holds exactly one, for its whole life
        pub enum AnyPolicy<R, const D: usize, const M: usize, const F: usize, const H: usize> {
            $(
                $(#[$doc])*
                #[cfg(feature = $feature)]
                $variant($policy),
            )*
            #[doc(hidden)]
            _Never(core::convert::Infallible, core::marker::PhantomData<R>),
        }

        /// The saved state of an [`AnyPolicy`]: its rule's record.
        #[cfg(feature = "serde")]
        #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(bound(
            serialize = "R: serde::Serialize",
            deserialize = "R: serde::Deserialize<'de> + Copy + Default"
        ))]
        pub enum AnyRecord<R: Copy + Default, const D: usize, const M: usize, const H: usize> {
            /// A rule without state.
            Stateless,
            $($(
                #[doc = concat!("The state of [`AnyPolicy::", stringify!($variant), "`].")]
                #[cfg(feature = $feature)]
                $variant($record),
            )?)*
        }

        impl<R: Real, const D: usize, const M: usize, const F: usize, const H: usize>
            Policy<R, D, M> for AnyPolicy<R, D, M, F, H>
        {
            #[cfg(feature = "serde")]
            type Record = AnyRecord<R, D, M, H>;

            fn start(&mut self, problem: &Problem<R, D, M>) -> Result<(), DriverError> {
                match self {
                    $(
                        #[cfg(feature = $feature)]
                        AnyPolicy::$variant(p) => Policy::<R, D, M>::start(p, problem),
                    )*
                    AnyPolicy::_Never(never, _) => match *never {},
                }
            }

            fn workspace_len(
                &self,
                problem: &Problem<R, D, M>,
                capacity: usize,
                bank: usize,
            ) -> usize {
                match self {
                    $(
                        #[cfg(feature = $feature)]
                        AnyPolicy::$variant(p) => {
                            Policy::<R, D, M>::workspace_len(p, problem, capacity, bank)
                        }
                    )*
                    AnyPolicy::_Never(never, _) => match *never {},
                }
            }

            fn needs_workspace(&self) -> bool {
                match self {
                    $(
                        #[cfg(feature = $feature)]
                        AnyPolicy::$variant(p) => Policy::<R, D, M>::needs_workspace(p),
                    )*
                    AnyPolicy::_Never(never, _) => match *never {},
                }
            }

            fn learns_costs(&self) -> bool {
                match self {
                    $(
                        #[cfg(feature = $feature)]
                        AnyPolicy::$variant(p) => Policy::<R, D, M>::learns_costs(p),
                    )*
                    AnyPolicy::_Never(never, _) => match *never {},
                }
            }

            fn prices_points(&self) -> bool {
                match self {
                    $(
                        #[cfg(feature = $feature)]
                        AnyPolicy::$variant(p) => Policy::<R, D, M>::prices_points(p),
                    )*
                    AnyPolicy::_Never(never, _) => match *never {},
                }
            }

            fn decide<const N: usize, S, B>(
                &mut self,
                round: &mut Round<'_, R, N, D, M, S, B>,
            ) -> Result<Choice<R, D>, DriverError>
            where
                S: AsRef<[R]> + AsMut<[R]>,
                B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
            {
                match self {
                    $(
                        #[cfg(feature = $feature)]
                        AnyPolicy::$variant(p) => p.decide(round),
                    )*
                    AnyPolicy::_Never(never, _) => match *never {},
                }
            }

            fn record(&mut self, outcome: &Outcome<'_, R, D, M>) {
                match self {
                    $(
                        #[cfg(feature = $feature)]
                        AnyPolicy::$variant(p) => Policy::<R, D, M>::record(p, outcome),
                    )*
                    AnyPolicy::_Never(never, _) => match *never {},
                }
            }

            fn memo(&self) -> Memo<R> {
                match self {
                    $(
                        #[cfg(feature = $feature)]
                        AnyPolicy::$variant(p) => Policy::<R, D, M>::memo(p),
                    )*
                    AnyPolicy::_Never(never, _) => match *never {},
                }
            }

            fn check_memo(&self, memo: &Memo<R>) -> Result<(), DriverError> {
                match self {
                    $(
                        #[cfg(feature = $feature)]
                        AnyPolicy::$variant(p) => Policy::<R, D, M>::check_memo(p, memo),
                    )*
                    AnyPolicy::_Never(never, _) => match *never {},
                }
            }

            fn apply_memo(&mut self, memo: &Memo<R>) {
                match self {
                    $(
                        #[cfg(feature = $feature)]
                        AnyPolicy::$variant(p) => Policy::<R, D, M>::apply_memo(p, memo),
                    )*
                    AnyPolicy::_Never(never, _) => match *never {},
                }
            }

            #[cfg(feature = "serde")]
            fn save(&self) -> Self::Record {
                match self {
                    $($(
                        #[cfg(feature = $feature)]
                        AnyPolicy::$variant(p) => {
                            let record: $record = Policy::<R, D, M>::save(p);
                            AnyRecord::$variant(record)
                        }
                    )?)*
                    #[allow(unreachable_patterns)]
                    _ => AnyRecord::Stateless,
                }
            }

            #[cfg(feature = "serde")]
            fn load(&mut self, record: &Self::Record) -> Result<(), DriverError> {
                match (self, record) {
                    $($(
                        #[cfg(feature = $feature)]
                        (AnyPolicy::$variant(p), AnyRecord::$variant(r)) => {
                            let r: &$record = r;
                            Policy::<R, D, M>::load(p, r)
                        }
                        #[cfg(feature = $feature)]
                        (AnyPolicy::$variant(_), _) => Err(DriverError::InvalidSnapshot),
                    )?)*
                    (_, AnyRecord::Stateless) => Ok(()),
                    #[allow(unreachable_patterns)]
                    _ => Err(DriverError::InvalidSnapshot),
                }
            }
        }
    };
}

registry!(define_registry);

impl<R: Real> PolicySpec<R> {
    /// A small instance of the rule, to ask its properties of (none depends on the sizes).
    fn probe(&self) -> AnyPolicy<R, 1, 1, 1, 1> {
        self.build::<1, 1, 1, 1>()
    }

    /// True for the rules that cannot decide without caller memory of their own
    /// ([`Controller::workspace_len`](crate::driver::Controller::workspace_len)): the entropy
    /// and lookahead rules' candidates. The others only decide faster with it.
    pub fn needs_workspace(&self) -> bool {
        Policy::<R, 1, 1>::needs_workspace(&self.probe())
    }

    /// True for the rules that learn costs from what is paid (the problem then has no known
    /// costs).
    pub fn learns_costs(&self) -> bool {
        Policy::<R, 1, 1>::learns_costs(&self.probe())
    }

    /// True for the rules over a box that price each point by its cost (PBGI and PBGI-D,
    /// LogEIPC, LogEICC, MFMES, the bisected index): where the costs are learned they read a
    /// model of ln(cost) ([`Controller::with_cost_model`](crate::driver::Controller::with_cost_model)).
    pub fn prices_points(&self) -> bool {
        Policy::<R, 1, 1>::prices_points(&self.probe())
    }
}
