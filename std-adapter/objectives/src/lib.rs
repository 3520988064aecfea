//! The objectives and simulators of costbo's lab: benchmark functions on the unit cube
//! `[0, 1]^d`, each with its known maximum, the plant-growth and airfoil simulators, and the
//! external-program protocol. A crate of its own so that the Python package and the lab share
//! them without the package building the lab's runner, plots and command.
//!
//! Every objective is **maximised** (as in the papers): minimisation benchmarks are negated.
//! Inputs are always unit-cube coordinates `u`; a benchmark defined on a box `[lo, hi]^d` sees
//! `x = u · (hi − lo) + lo`.
//!
//! | name | d | optimum | definition |
//! |---|---|---|---|
//! | `gp-sample` | 1..=12 (3) | searched | [`gp_sample`]: SE prior sample, lengthscale 0.1, seeded |
//! | `hartmann3` | 3 | 3.862779787332663 | [`synthetic::Hartmann`] |
//! | `hartmann6` | 6 | 3.322368011415515 | [`synthetic::Hartmann`] |
//! | `ackley` | ≥ 1 (6) | 0 | [`synthetic::Ackley`] on `[−32.768, 32.768]^d` |
//! | `levy` | ≥ 1 (6) | 0 | [`synthetic::Levy`] on `[−10, 10]^d` |
//! | `rosenbrock` | ≥ 2 (6) | 0 | [`synthetic::Rosenbrock`] on `[−5, 10]^d` |
//! | `branin` | ≥ 2 (2) | −5/(4π) = −0.3978873577297384 | [`synthetic::Branin`], mean over pairs |
//! | `hartmann6-ext12` | 12 | 3.322368011415515 | Hartmann-6 on inputs 1–6, 7–12 ignored |
//! | `ackley6-ext12` | 12 | 0 | Ackley-6 on inputs 1–6, 7–12 ignored |
//! | `levy6-ext12` | 12 | 0 | Levy-6 on inputs 1–6, 7–12 ignored |
//! | `plant` | 5 | 2.1941161756480008 | [`plant`]: leaf-area simulator (sparse-GP mean) |
//! | `airfoil` | 5 | 2.614005842384836 | [`airfoil`]: airfoil self-noise (exact-GP mean) |
//! | `pest-control` | 25 | best known | [`pest_control`]: paper 002's Pest Control simulator |
//! | `bump-eipc` | 1 | searched | [`bump`]: paper 002's Fig. 2, hard for EI per unit cost, seeded |
//! | `bump-ei` | 1 | searched | [`bump`]: paper 002's Fig. 9, hard for EI, seeded |
//!
//! `external` (not in the catalogue: it needs a command, `costbo pandora --objective external
//! --command ...`) runs a user's program over JSON lines: [`external`]. The known costs of
//! paper 002's cost-aware settings are in [`pbgi_costs`].
//!
//! The dimension in parentheses is the default when none is requested; "≥ k" means up to
//! [`MAX_DIM`]. Look objectives up by name with [`build`]; [`CATALOGUE`] lists them.
//!
//! ```
//! use costbo_objectives::{build, Options};
//!
//! let f = build("hartmann3", &Options::default()).unwrap();
//! let x = f.argmax().unwrap();
//! assert!((f.eval(&x) - f.optimum()).abs() < 1e-12);
//! let g = build("ackley", &Options { dim: Some(4), ..Options::default() }).unwrap();
//! assert_eq!(g.eval(&[0.5; 4]), 0.0);
//! ```

#![deny(missing_docs)]

pub mod airfoil;
pub mod bump;
pub mod csv_matrix;
pub mod external;
pub mod gp_sample;
pub mod numpy_rng;
pub mod pandora;
pub mod pbgi_costs;
pub mod pest_control;
pub mod plant;
pub mod platform;
pub mod search;
pub mod shown;
pub mod synthetic;
pub mod text_file;

use std::fmt;

use synthetic::{Ackley, Branin, Hartmann, Levy, Padded, Rosenbrock};

/// A deterministic function on the unit cube `[0, 1]^d` with a known (or searched) maximum.
pub trait Objective: Send + Sync {
    /// Registry name (see [`CATALOGUE`]).
    fn name(&self) -> &str;

    /// Input dimension `d`.
    fn dim(&self) -> usize;

    /// The value at the unit-cube point `u`. `u` must hold exactly [`dim`](Self::dim)
    /// coordinates (shorter input may panic); points outside the cube are evaluated by the same
    /// formula but are not part of the benchmark. Use [`checked_eval`](Self::checked_eval) for
    /// untrusted input.
    fn eval(&self, u: &[f64]) -> f64;

    /// The maximum over the unit cube.
    fn optimum(&self) -> f64;

    /// A maximiser in unit-cube coordinates, if known (inputs an objective ignores are set to
    /// ½).
    fn argmax(&self) -> Option<Vec<f64>>;

    /// The value at `u` with the cost the evaluation reports, if any, or why it failed.
    /// Simulators that cannot fail keep this default: [`eval`](Self::eval) and no cost;
    /// [`external::External`] reports its program's cost and errors.
    fn evaluate(&self, u: &[f64]) -> Result<Evaluation, ObjectiveError> {
        Ok(Evaluation {
            value: self.eval(u),
            cost: None,
        })
    }

    /// [`eval`](Self::eval) after checking that `u` has [`dim`](Self::dim) finite coordinates
    /// in `[0, 1]`.
    fn checked_eval(&self, u: &[f64]) -> Result<f64, ObjectiveError> {
        check_point(u, self.dim())?;
        Ok(self.eval(u))
    }
}

/// One evaluation: the value and the cost the objective reported, if it reports one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Evaluation {
    /// The objective's value.
    pub value: f64,
    /// The cost the evaluation reported (`None`: the objective reports none).
    pub cost: Option<f64>,
}

/// Why an objective could not be built or evaluated.
#[derive(Debug, Clone, PartialEq)]
pub enum ObjectiveError {
    /// No objective has this name.
    UnknownName(String),
    /// The requested dimension is not allowed for this objective.
    Dimension {
        /// Objective name.
        name: String,
        /// Dimension requested.
        requested: usize,
        /// Dimensions allowed.
        allowed: Dims,
    },
    /// A seed was given for an objective that is not random.
    SeedNotApplicable(String),
    /// A point has the wrong number of coordinates.
    Length {
        /// Coordinates expected (the dimension).
        expected: usize,
        /// Coordinates found.
        found: usize,
    },
    /// A coordinate is not a finite number in `[0, 1]`.
    OutsideCube {
        /// 0-based coordinate index.
        coordinate: usize,
        /// The offending value.
        value: f64,
    },
    /// Embedded model data could not be read or factorised (a build defect).
    Data(String),
    /// The program behind an external objective failed.
    External(external::ExternalError),
}

impl fmt::Display for ObjectiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ObjectiveError::UnknownName(n) => {
                let names: Vec<&str> = CATALOGUE.iter().map(|e| e.name).collect();
                write!(
                    f,
                    "unknown objective `{}` (known: {})",
                    crate::shown::Shown(n),
                    names.join(", ")
                )
            }
            ObjectiveError::Dimension {
                name,
                requested,
                allowed,
            } => write!(
                f,
                "{name} is not defined for d = {requested} (allowed: {allowed})"
            ),
            ObjectiveError::SeedNotApplicable(n) => {
                write!(f, "{n} is deterministic: --seed applies only to gp-sample")
            }
            ObjectiveError::Length { expected, found } => {
                write!(f, "{found} coordinates given, the objective has {expected}")
            }
            ObjectiveError::OutsideCube { coordinate, value } => write!(
                f,
                "coordinate {} is {value:?}, outside the unit interval [0, 1]",
                coordinate + 1
            ),
            ObjectiveError::Data(s) => write!(f, "embedded model data: {s}"),
            ObjectiveError::External(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ObjectiveError {}

/// Checks that `u` has `dim` finite coordinates in `[0, 1]`.
pub fn check_point(u: &[f64], dim: usize) -> Result<(), ObjectiveError> {
    if u.len() != dim {
        return Err(ObjectiveError::Length {
            expected: dim,
            found: u.len(),
        });
    }
    match u.iter().position(|v| !(0.0..=1.0).contains(v)) {
        Some(coordinate) => Err(ObjectiveError::OutsideCube {
            coordinate,
            value: u[coordinate],
        }),
        None => Ok(()),
    }
}

/// The most inputs an objective defined in any dimension takes (far beyond the papers' 32; a
/// point of more is a mistake, not an experiment).
pub const MAX_DIM: usize = 10_000;

/// The dimensions an objective is defined for. Displayed in Rust range notation: `3`,
/// `2..=10000` (2 up to [`MAX_DIM`]), `1..=12`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dims {
    /// Exactly this dimension.
    Fixed(usize),
    /// Any dimension from this one up to [`MAX_DIM`].
    AtLeast(usize),
    /// Any dimension in `lo..=hi`.
    Range(usize, usize),
}

impl Dims {
    /// True when `d` is allowed.
    pub fn allows(self, d: usize) -> bool {
        match self {
            Dims::Fixed(k) => d == k,
            Dims::AtLeast(k) => (k..=MAX_DIM).contains(&d),
            Dims::Range(lo, hi) => (lo..=hi).contains(&d),
        }
    }
}

impl fmt::Display for Dims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dims::Fixed(k) => write!(f, "{k}"),
            Dims::AtLeast(k) => write!(f, "{k}..={MAX_DIM}"),
            Dims::Range(lo, hi) => write!(f, "{lo}..={hi}"),
        }
    }
}

/// One registry entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// Name accepted by [`build`].
    pub name: &'static str,
    /// Dimension used when none is requested.
    pub default_dim: usize,
    /// Dimensions allowed.
    pub dims: Dims,
    /// True when the objective depends on a seed.
    pub seeded: bool,
    /// One-line description.
    pub summary: &'static str,
}

/// Every objective [`build`] knows, in a stable order.
pub const CATALOGUE: &[Entry] = &[
    Entry {
        name: "gp-sample",
        default_dim: 3,
        dims: Dims::Range(1, gp_sample::MAX_DIM),
        seeded: true,
        summary: "GP prior sample, SE kernel, lengthscale 0.1, outputscale 1 (paper 000)",
    },
    Entry {
        name: "hartmann3",
        default_dim: 3,
        dims: Dims::Fixed(3),
        seeded: false,
        summary: "negated Hartmann-3",
    },
    Entry {
        name: "hartmann6",
        default_dim: 6,
        dims: Dims::Fixed(6),
        seeded: false,
        summary: "negated Hartmann-6",
    },
    Entry {
        name: "ackley",
        default_dim: 6,
        dims: Dims::AtLeast(1),
        seeded: false,
        summary: "negated Ackley (a=20, b=0.2, c=2pi) on [-32.768, 32.768]^d",
    },
    Entry {
        name: "levy",
        default_dim: 6,
        dims: Dims::AtLeast(1),
        seeded: false,
        summary: "negated Levy on [-10, 10]^d",
    },
    Entry {
        name: "rosenbrock",
        default_dim: 6,
        dims: Dims::AtLeast(2),
        seeded: false,
        summary: "negated Rosenbrock on [-5, 10]^d",
    },
    Entry {
        name: "branin",
        default_dim: 2,
        dims: Dims::AtLeast(2),
        seeded: false,
        summary: "negated Branin on [-5, 10] x [0, 15], averaged over disjoint input pairs",
    },
    Entry {
        name: "hartmann6-ext12",
        default_dim: 12,
        dims: Dims::Fixed(12),
        seeded: false,
        summary: "negated Hartmann-6 on inputs 1-6, inputs 7-12 ignored (paper 001)",
    },
    Entry {
        name: "ackley6-ext12",
        default_dim: 12,
        dims: Dims::Fixed(12),
        seeded: false,
        summary: "negated Ackley-6 on inputs 1-6, inputs 7-12 ignored (paper 001)",
    },
    Entry {
        name: "levy6-ext12",
        default_dim: 12,
        dims: Dims::Fixed(12),
        seeded: false,
        summary: "negated Levy-6 on inputs 1-6, inputs 7-12 ignored (paper 001)",
    },
    Entry {
        name: "gp-matern52",
        default_dim: 8,
        dims: Dims::Range(1, 32),
        seeded: true,
        summary: "GP prior sample by 1024 RFF, Matern-5/2, lengthscale 0.1 (paper 002)",
    },
    Entry {
        name: "gp-matern32",
        default_dim: 8,
        dims: Dims::Range(1, 32),
        seeded: true,
        summary: "GP prior sample by 1024 RFF, Matern-3/2, lengthscale 0.1 (paper 002)",
    },
    Entry {
        name: "gp-se",
        default_dim: 8,
        dims: Dims::Range(1, 32),
        seeded: true,
        summary: "GP prior sample by 1024 RFF, squared exponential, lengthscale 0.1 (paper 002)",
    },
    Entry {
        name: "ackley-pbgi",
        default_dim: 16,
        dims: Dims::AtLeast(1),
        seeded: false,
        summary: "negated Ackley on [-1, 1]^d (paper 002)",
    },
    Entry {
        name: "levy-pbgi",
        default_dim: 16,
        dims: Dims::AtLeast(1),
        seeded: false,
        summary: "negated Levy on [-10, 10]^d, divided by 100 (paper 002)",
    },
    Entry {
        name: "rosenbrock-pbgi",
        default_dim: 16,
        dims: Dims::AtLeast(2),
        seeded: false,
        summary: "negated Rosenbrock on [-5, 10]^d, divided by 1e5 (paper 002)",
    },
    Entry {
        name: "pest-control",
        default_dim: pest_control::STAGES,
        dims: Dims::Fixed(pest_control::STAGES),
        seeded: false,
        summary: "negated Pest Control score, 25 stages x 5 choices min(floor(5u), 4) (paper 002)",
    },
    Entry {
        name: "plant",
        default_dim: 5,
        dims: Dims::Fixed(5),
        seeded: false,
        summary: "plant growth simulator: standardised max leaf area (sebtsh/bocvs)",
    },
    Entry {
        name: "airfoil",
        default_dim: 5,
        dims: Dims::Fixed(5),
        seeded: false,
        summary: "airfoil self-noise: exact-GP posterior mean (UCI, sebtsh/bocvs)",
    },
    Entry {
        name: "bump-eipc",
        default_dim: 1,
        dims: Dims::Fixed(1),
        seeded: true,
        summary: "Matern-5/2 sample (l = 1e-4) times a narrow bump, bump cost (paper 002 Fig. 2)",
    },
    Entry {
        name: "bump-ei",
        default_dim: 1,
        dims: Dims::Fixed(1),
        seeded: true,
        summary:
            "Matern-5/2 sample (l = 1e-4) times 0.81 + 0.19 bump, bump cost (paper 002 Fig. 9)",
    },
];

/// Options of [`build`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Options {
    /// Dimension; `None` for the entry's default.
    pub dim: Option<usize>,
    /// Seed of a random objective (`gp-sample`); `None` for seed 0. Rejected for the
    /// deterministic objectives.
    pub seed: Option<u64>,
}

/// The registry entry called `name`.
pub fn entry(name: &str) -> Result<&'static Entry, ObjectiveError> {
    CATALOGUE
        .iter()
        .find(|e| e.name == name)
        .ok_or_else(|| ObjectiveError::UnknownName(name.to_string()))
}

/// Builds the objective called `name` (see [`CATALOGUE`]).
///
/// `plant` and `airfoil` are parsed (and the airfoil GP factorised) once per process and
/// shared; `gp-sample` factorises its support points on every call (about 0.1 s for the
/// default 1000 points) and searches its optimum on first use.
pub fn build(name: &str, options: &Options) -> Result<Box<dyn Objective>, ObjectiveError> {
    let e = entry(name)?;
    let d = options.dim.unwrap_or(e.default_dim);
    if !e.dims.allows(d) {
        return Err(ObjectiveError::Dimension {
            name: name.to_string(),
            requested: d,
            allowed: e.dims,
        });
    }
    if options.seed.is_some() && !e.seeded {
        return Err(ObjectiveError::SeedNotApplicable(name.to_string()));
    }
    Ok(match e.name {
        "gp-sample" => gp_sample::build(&gp_sample::Config {
            seed: options.seed.unwrap_or(0),
            ..gp_sample::Config::paper(d)
        })?,
        "hartmann3" => Box::new(Hartmann::three()),
        "hartmann6" => Box::new(Hartmann::six()),
        "ackley" => Box::new(Ackley::new(d)),
        "levy" => Box::new(Levy::new(d)),
        "rosenbrock" => Box::new(Rosenbrock::new(d)),
        "branin" => Box::new(Branin::new(d)),
        "hartmann6-ext12" => Box::new(Padded::new(e.name, Hartmann::six(), 12)),
        "ackley6-ext12" => Box::new(Padded::new(e.name, Ackley::new(6), 12)),
        "levy6-ext12" => Box::new(Padded::new(e.name, Levy::new(6), 12)),
        "gp-matern52" | "gp-matern32" | "gp-se" => {
            match pandora::gp_sample(e.name, d, options.seed.unwrap_or(0)) {
                Some(f) => Box::new(f),
                None => return Err(ObjectiveError::UnknownName(name.to_string())),
            }
        }
        "ackley-pbgi" => Box::new(pandora::ackley(d)),
        "levy-pbgi" => Box::new(pandora::levy(d)),
        "rosenbrock-pbgi" => Box::new(pandora::rosenbrock(d)),
        "pest-control" => Box::new(pest_control::PestControl::new()),
        "plant" => Box::new(plant::Plant::shared()?),
        "airfoil" => Box::new(airfoil::Airfoil::shared()?),
        "bump-eipc" => Box::new(bump::Bump::new(bump::Hard::Eipc, options.seed.unwrap_or(0))),
        "bump-ei" => Box::new(bump::Bump::new(bump::Hard::Ei, options.seed.unwrap_or(0))),
        other => unreachable!("catalogue entry {other} has no constructor"),
    })
}

/// Evaluates `objective` at every row of `rows`, checking each row first.
///
/// Errors name the 1-based data row (the header is not counted).
pub fn eval_rows(objective: &dyn Objective, rows: &[Vec<f64>]) -> Result<Vec<f64>, String> {
    rows.iter()
        .enumerate()
        .map(|(i, r)| {
            objective
                .checked_eval(r)
                .map_err(|e| format!("data row {}: {e}", i + 1))
        })
        .collect()
}
