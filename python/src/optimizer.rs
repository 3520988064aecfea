//! `costbo.Optimizer`: the desktop adapter's ask/tell optimizer
//! ([`costbo_std::Optimizer`]) for Python, with its answers as small frozen classes.

use std::sync::{Mutex, MutexGuard};
use std::time::Instant;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use costbo_std::optimizer::{
    Chance, ExperimentBuilder, FitSpec, BOTORCH_REFIT_EVERY, DEFAULT_NOISE_FLOOR,
    DEFAULT_REFIT_EVERY,
};

use crate::convert::{count_or, number, precision_or, size_or, text, vector};
use crate::error::{from_std, input, raise};

/// One decision: which control set to pay for and the values of its variables.
#[pyclass(module = "costbo", frozen, eq, get_all)]
#[derive(Debug, Clone, PartialEq)]
pub struct Ask {
    /// Index of the control set, in the experiment file's order.
    pub set: usize,
    /// One value per variable in the file's order (physical units); `None` for a variable
    /// left to chance, whose measured value goes to `tell`.
    pub values: Vec<Option<f64>>,
    /// What the round costs (the set's cost).
    pub cost: f64,
    /// The rule's score of the decision (for logs, and for checking a device bit for bit).
    pub score: f64,
}

#[pymethods]
impl Ask {
    fn __repr__(&self) -> String {
        format!(
            "Ask(set={}, values={}, cost={:?}, score={:?})",
            self.set,
            values_repr(&self.values),
            self.cost,
            self.score
        )
    }
}

/// The best (control set, values) by expected posterior mean.
#[pyclass(module = "costbo", frozen, eq, get_all)]
#[derive(Debug, Clone, PartialEq)]
pub struct Recommendation {
    /// Index of the control set.
    pub set: usize,
    /// The set's variables' values; `None` for the variables left to chance.
    pub values: Vec<Option<f64>>,
    /// The expected outcome under the model, the others left to chance.
    pub expected: f64,
}

#[pymethods]
impl Recommendation {
    fn __repr__(&self) -> String {
        format!(
            "Recommendation(set={}, values={}, expected={:?})",
            self.set,
            values_repr(&self.values),
            self.expected
        )
    }
}

/// The answer of `Optimizer.query`: whether to pay for measuring this round's outcome.
#[pyclass(module = "costbo", frozen, eq, get_all)]
#[derive(Debug, Clone, PartialEq)]
pub struct QueryAnswer {
    /// Pay for the measurement (then `tell`); otherwise `skip`.
    pub measure: bool,
    /// The smallest probability, over the competitors, that the dosed point is not beaten.
    pub min_probability: f64,
}

#[pymethods]
impl QueryAnswer {
    fn __repr__(&self) -> String {
        format!(
            "QueryAnswer(measure={}, min_probability={:?})",
            if self.measure { "True" } else { "False" },
            self.min_probability
        )
    }

    fn __bool__(&self) -> bool {
        self.measure
    }
}

/// A variable of the experiment.
#[pyclass(module = "costbo", frozen, eq, get_all)]
#[derive(Debug, Clone, PartialEq)]
pub struct Variable {
    /// Its name in the file.
    pub name: String,
    /// Its unit.
    pub unit: String,
    /// Lower bound (physical units).
    pub lower: f64,
    /// Upper bound.
    pub upper: f64,
    /// Price per physical unit dosed, on top of a set's cost (0: none).
    pub price: f64,
}

#[pymethods]
impl Variable {
    fn __repr__(&self) -> String {
        format!(
            "Variable(name={:?}, unit={:?}, lower={:?}, upper={:?}, price={:?})",
            self.name, self.unit, self.lower, self.upper, self.price
        )
    }
}

/// A control set of the experiment.
#[pyclass(module = "costbo", frozen, eq, get_all)]
#[derive(Debug, Clone, PartialEq)]
pub struct ControlSet {
    /// Indices of the variables it sets.
    pub variables: Vec<usize>,
    /// What a round with it costs; `None` when the costs are learned from the costs told.
    pub cost: Option<f64>,
}

#[pymethods]
impl ControlSet {
    fn __repr__(&self) -> String {
        format!(
            "ControlSet(variables={:?}, cost={})",
            self.variables,
            self.cost.map_or("None".into(), |c| format!("{c:?}"))
        )
    }
}

pub(crate) fn values_repr(values: &[Option<f64>]) -> String {
    let parts: Vec<String> = values
        .iter()
        .map(|v| v.map_or("None".into(), |v| format!("{v:?}")))
        .collect();
    format!("[{}]", parts.join(", "))
}

impl From<costbo_std::Ask> for Ask {
    fn from(a: costbo_std::Ask) -> Self {
        Ask {
            set: a.set,
            values: a.values,
            cost: a.cost,
            score: a.score,
        }
    }
}

struct Inner {
    opt: costbo_std::Optimizer,
    // Seconds the last `ask` or `tell` spent in the Rust optimizer.
    core_seconds: f64,
}

/// An ask/tell optimizer over an experiment, opened from an experiment file (the format of
/// `firmware/experiment.toml`, the file the firmware is built from), its text, a saved state
/// or keywords (`Optimizer.build`).
///
/// Each round `ask()` says which control set to pay for and the values of its variables
/// (`None` for those left to chance); apply them, measure every variable and the outcome, and
/// `tell(x, y)`. A refused call raises `CostboError` and changes nothing. The same file and
/// seed give the same decisions bit for bit as the Rust `costbo_std::Optimizer` (and, in
/// `"f32"`, as the device).
#[pyclass(module = "costbo")]
pub struct Optimizer {
    inner: Mutex<Inner>,
}

impl Optimizer {
    fn wrap(opt: costbo_std::Optimizer) -> Self {
        Optimizer {
            inner: Mutex::new(Inner {
                opt,
                core_seconds: 0.0,
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic in the core would poison the lock; the core does not panic on input, and
        // the optimizer's state is only changed by calls that succeeded.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `f` on the optimizer with the GIL released, timing it.
    fn run<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut costbo_std::Optimizer) -> Result<T, costbo_std::Error> + Send,
    ) -> PyResult<T> {
        let out = py.detach(|| {
            let mut inner = self.lock();
            let start = Instant::now();
            let out = f(&mut inner.opt);
            inner.core_seconds = start.elapsed().as_secs_f64();
            out
        });
        out.map_err(|e| from_std(py, e))
    }

    /// The cost of a round: the given one, or the pending decision's.
    fn cost_or_asked(
        &self,
        py: Python<'_>,
        call: &str,
        cost: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<f64> {
        match cost {
            Some(c) if !c.is_none() => number(c, "cost"),
            _ if self.lock().opt.learns_costs() => Err(raise(
                py,
                "input",
                format!(
                    "{call}: the cost is missing; the costs are learned, so every round's is told"
                ),
            )),
            _ => self.lock().opt.pending().map(|a| a.cost).ok_or_else(|| {
                raise(
                    py,
                    "sequence",
                    format!("{call}: no decision is pending (call ask first)"),
                )
            }),
        }
    }
}

/// The value of `key` in a variable's or set's dict.
fn entry<'py>(
    d: &Bound<'py, PyDict>,
    key: &str,
    what: &str,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    d.get_item(key)
        .map_err(|_| input(d.py(), format!("{what}: the key {key:?} could not be read")))
}

fn check_keys(d: &Bound<'_, PyDict>, allowed: &[&str], what: &str) -> PyResult<()> {
    for k in d.keys() {
        let k = text(&k, &format!("{what}: a key"))?;
        if !allowed.contains(&k.as_str()) {
            return Err(input(
                d.py(),
                format!(
                    "{what}: unknown key {k:?} (the keys are {})",
                    allowed.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// One variable of `Optimizer.build`: a dict with `name`, `lower`, `upper`, and optionally
/// `unit` and (for a truncated normal instead of a uniform) `mean` and `variance`.
#[allow(clippy::type_complexity)]
fn variable(
    obj: &Bound<'_, PyAny>,
    i: usize,
) -> PyResult<(String, String, f64, f64, Chance, Option<f64>)> {
    let what = format!("variables[{i}]");
    let py = obj.py();
    let d = obj.cast::<PyDict>().map_err(|_| {
        input(
            py,
            format!(
                "{what} must be a dict with keys name, lower, upper (and unit, mean, variance, price)"
            ),
        )
    })?;
    check_keys(
        d,
        &[
            "name", "unit", "lower", "upper", "mean", "variance", "price",
        ],
        &what,
    )?;
    let need = |key: &str| -> PyResult<Bound<'_, PyAny>> {
        entry(d, key, &what)?
            .ok_or_else(|| input(py, format!("{what}: the key {key:?} is missing")))
    };
    let name = text(&need("name")?, &format!("{what}[\"name\"]"))?;
    let unit = match entry(d, "unit", &what)? {
        Some(u) => text(&u, &format!("{what}[\"unit\"]"))?,
        None => String::new(),
    };
    let lower = number(&need("lower")?, &format!("{what}[\"lower\"]"))?;
    let upper = number(&need("upper")?, &format!("{what}[\"upper\"]"))?;
    let chance = match (entry(d, "mean", &what)?, entry(d, "variance", &what)?) {
        (None, None) => Chance::Uniform,
        (Some(m), Some(v)) => Chance::TruncatedNormal {
            mean: number(&m, &format!("{what}[\"mean\"]"))?,
            variance: number(&v, &format!("{what}[\"variance\"]"))?,
        },
        _ => {
            return Err(input(
                py,
                format!("{what}: a truncated normal needs both \"mean\" and \"variance\""),
            ))
        }
    };
    let price = match entry(d, "price", &what)? {
        Some(p) => Some(number(&p, &format!("{what}[\"price\"]"))?),
        None => None,
    };
    Ok((name, unit, lower, upper, chance, price))
}

/// The items of a list argument.
fn list<'py>(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let l = obj
        .cast::<PyList>()
        .map_err(|_| input(obj.py(), format!("{what} must be a list")))?;
    Ok(l.iter().collect())
}

/// One control set of `Optimizer.build`: `(names, cost)` or a dict with `variables` and
/// `cost`.
fn control_set(obj: &Bound<'_, PyAny>, i: usize) -> PyResult<(Vec<String>, Option<f64>)> {
    let what = format!("sets[{i}]");
    let py = obj.py();
    let (names, cost) = if let Ok(d) = obj.cast::<PyDict>() {
        check_keys(d, &["variables", "cost"], &what)?;
        let get = |key: &str| {
            entry(d, key, &what)?
                .ok_or_else(|| input(py, format!("{what}: the key {key:?} is missing")))
        };
        (get("variables")?, get("cost")?)
    } else if let Ok(t) = obj.cast::<PyTuple>() {
        if t.len() != 2 {
            return Err(input(
                py,
                format!(
                    "{what} must be (variable names, cost), not a tuple of {}",
                    t.len()
                ),
            ));
        }
        (t.get_item(0)?, t.get_item(1)?)
    } else {
        return Err(input(
            py,
            format!("{what} must be (variable names, cost) or a dict with variables and cost"),
        ));
    };
    let list = names
        .cast::<PyList>()
        .map_err(|_| input(py, format!("{what}: the variables must be a list of names")))?;
    let names = list
        .iter()
        .enumerate()
        .map(|(j, n)| text(&n, &format!("{what}: variable {j}")))
        .collect::<PyResult<Vec<_>>>()?;
    if cost.is_none() {
        return Ok((names, None));
    }
    Ok((names, Some(number(&cost, &format!("{what}: the cost"))?)))
}

#[pymethods]
impl Optimizer {
    /// An optimizer for the experiment in `text` (the format of `firmware/experiment.toml`),
    /// computing in `precision`: `"f64"` (the desktop's) or `"f32"` (the device's, bit for
    /// bit).
    #[staticmethod]
    #[pyo3(signature = (text, precision = None))]
    fn from_toml(
        py: Python<'_>,
        text: &Bound<'_, PyAny>,
        precision: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let p = precision_or(py, precision)?;
        let text = crate::convert::text(text, "text")?;
        py.detach(|| costbo_std::Optimizer::from_toml_str_with(&text, p))
            .map(Self::wrap)
            .map_err(|e| from_std(py, e))
    }

    /// An optimizer for the experiment file at `path` (a `str` or `os.PathLike`).
    #[staticmethod]
    #[pyo3(signature = (path, precision = None))]
    fn from_file(
        py: Python<'_>,
        path: &Bound<'_, PyAny>,
        precision: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let p = precision_or(py, precision)?;
        let path = crate::convert::path(path)?;
        py.detach(|| costbo_std::Optimizer::from_file_with(&path, p))
            .map(Self::wrap)
            .map_err(|e| from_std(py, e))
    }

    /// Restores an optimizer saved by `to_json`; it makes the same decisions bit for bit. A
    /// damaged, foreign or inconsistent state is refused whole.
    #[staticmethod]
    fn from_json(py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<Self> {
        let text = crate::convert::text(text, "text")?;
        py.detach(|| costbo_std::Optimizer::from_json(&text))
            .map(Self::wrap)
            .map_err(|e| from_std(py, e))
    }

    /// An experiment described by keywords instead of a file. `variables` is a list of dicts
    /// (`name`, `lower`, `upper`; optionally `unit`, and `mean` with `variance` for a
    /// truncated normal instead of a uniform when left to chance); `sets` a list of
    /// `(names, cost)`, the cost `None` for every set when the costs are learned from the
    /// costs told; `inner` the inner optimiser's `(pool, starts, evaluations_per_start)`;
    /// `fit` `"fixed"` or `"map"` (the model refitted every `refit_every` rounds, its noise
    /// at least `noise_floor`); `bank_seed` the sample bank's seed apart from `seed`.
    /// The rest have the file's defaults. `to_toml()` gives the file.
    #[staticmethod]
    #[pyo3(signature = (name, budget, variables, sets, *, rule = None, seed = None,
        capacity = None, bank = None, beta = None, kernel = None, lengthscale = None,
        outputscale = None, noise = None, mean = None, inner = None, precision = None,
        bank_seed = None, fit = None, refit_every = None, noise_floor = None,
        budget_rule = None, from_spent = None, steps = None, learning_rate = None))]
    #[allow(clippy::too_many_arguments)]
    fn build(
        py: Python<'_>,
        name: &Bound<'_, PyAny>,
        budget: &Bound<'_, PyAny>,
        variables: &Bound<'_, PyAny>,
        sets: &Bound<'_, PyAny>,
        rule: Option<&Bound<'_, PyAny>>,
        seed: Option<&Bound<'_, PyAny>>,
        capacity: Option<&Bound<'_, PyAny>>,
        bank: Option<&Bound<'_, PyAny>>,
        beta: Option<&Bound<'_, PyAny>>,
        kernel: Option<&Bound<'_, PyAny>>,
        lengthscale: Option<&Bound<'_, PyAny>>,
        outputscale: Option<&Bound<'_, PyAny>>,
        noise: Option<&Bound<'_, PyAny>>,
        mean: Option<&Bound<'_, PyAny>>,
        inner: Option<&Bound<'_, PyAny>>,
        precision: Option<&Bound<'_, PyAny>>,
        bank_seed: Option<&Bound<'_, PyAny>>,
        fit: Option<&Bound<'_, PyAny>>,
        refit_every: Option<&Bound<'_, PyAny>>,
        noise_floor: Option<&Bound<'_, PyAny>>,
        budget_rule: Option<&Bound<'_, PyAny>>,
        from_spent: Option<&Bound<'_, PyAny>>,
        steps: Option<&Bound<'_, PyAny>>,
        learning_rate: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let p = precision_or(py, precision)?;
        let fit = fit.map(|f| text(f, "fit")).transpose()?;
        let fit = fit.as_deref().unwrap_or("fixed");
        // A fit's settings are refused under another fit, as in the file.
        for (key, given, of) in [
            (
                "refit_every",
                refit_every.is_some(),
                &["map", "botorch"][..],
            ),
            ("noise_floor", noise_floor.is_some(), &["map"][..]),
            ("from_spent", from_spent.is_some(), &["adam"][..]),
            ("steps", steps.is_some(), &["adam"][..]),
            ("learning_rate", learning_rate.is_some(), &["adam"][..]),
        ] {
            if given && !of.contains(&fit) {
                return Err(input(
                    py,
                    format!("{key}: not a setting of fit={fit:?} (it belongs to fit={of:?})"),
                ));
            }
        }
        let number_of =
            |v: Option<&Bound<'_, PyAny>>, what: &str| v.map(|v| number(v, what)).transpose();
        let fit = match fit {
            "fixed" => FitSpec::Fixed,
            "map" => FitSpec::Map {
                every: size_or(refit_every, "refit_every", DEFAULT_REFIT_EVERY)?,
                noise_floor: number_of(noise_floor, "noise_floor")?.unwrap_or(DEFAULT_NOISE_FLOOR),
            },
            "botorch" => FitSpec::Botorch {
                every: size_or(refit_every, "refit_every", BOTORCH_REFIT_EVERY)?,
            },
            "adam" => FitSpec::adam_of_paper_001(
                number_of(from_spent, "from_spent")?,
                steps.map(|v| size_or(Some(v), "steps", 0)).transpose()?,
                number_of(learning_rate, "learning_rate")?,
            ),
            other => {
                return Err(input(
                    py,
                    format!("fit={other:?}: expected \"fixed\", \"map\", \"botorch\" or \"adam\""),
                ))
            }
        };
        let inner = match inner {
            None => None,
            Some(t) => {
                let items = t
                    .cast::<PyTuple>()
                    .ok()
                    .filter(|t| t.len() == 3)
                    .ok_or_else(|| {
                        input(
                            py,
                            "inner must be a tuple (pool, starts, evaluations_per_start)",
                        )
                    })?;
                Some((
                    size_or(Some(&items.get_item(0)?), "inner pool", 0)?,
                    size_or(Some(&items.get_item(1)?), "inner starts", 0)?,
                    size_or(Some(&items.get_item(2)?), "inner evaluations_per_start", 0)?,
                ))
            }
        };
        // Only the keywords given are set: the builder holds the defaults (the file's).
        let mut b =
            ExperimentBuilder::new(&text(name, "name")?, number(budget, "budget")?).precision(p);
        if let Some(v) = rule {
            b = b.rule(&text(v, "rule")?);
        }
        if let Some(v) = seed {
            b = b.seed(count_or(Some(v), "seed", 0)?);
        }
        if let Some(v) = capacity {
            b = b.capacity(size_or(Some(v), "capacity", 0)?);
        }
        if let Some(v) = bank {
            b = b.bank(size_or(Some(v), "bank", 0)?);
        }
        if let Some(v) = beta {
            b = b.beta(number(v, "beta")?);
        }
        if let Some(v) = kernel {
            b = b.kernel_shape(&text(v, "kernel")?);
        }
        if let Some(v) = lengthscale {
            b = b.lengthscale(number(v, "lengthscale")?);
        }
        if let Some(v) = outputscale {
            b = b.outputscale(number(v, "outputscale")?);
        }
        if let Some(v) = noise {
            b = b.noise_variance(number(v, "noise")?);
        }
        if let Some(v) = mean {
            b = b.mean(number(v, "mean")?);
        }
        if let Some((pool, starts, evaluations)) = inner {
            b = b.inner(pool, starts, evaluations);
        }
        if let Some(v) = bank_seed {
            b = b.bank_seed(count_or(Some(v), "bank_seed", 0)?);
        }
        b = b.fit(fit);
        if let Some(v) = budget_rule {
            b = b.budget_rule(&text(v, "budget_rule")?);
        }
        for (i, v) in list(variables, "variables")?.iter().enumerate() {
            let (name, unit, lower, upper, chance, price) = variable(v, i)?;
            b = b.variable(&name, &unit, lower, upper, chance);
            if let Some(p) = price {
                b = b.price(&name, p);
            }
        }
        for (i, s) in list(sets, "sets")?.iter().enumerate() {
            let (names, cost) = control_set(s, i)?;
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            b = match cost {
                Some(cost) => b.control_set(&names, cost),
                None => b.control_set_of_learned_cost(&names),
            };
        }
        py.detach(|| b.build())
            .map(Self::wrap)
            .map_err(|e| from_std(py, e))
    }

    /// The next decision, or `None` once the budget cannot pay for another round or the rule
    /// stops. Until its outcome is told, asking again returns the same decision.
    fn ask(&self, py: Python<'_>) -> PyResult<Option<Ask>> {
        Ok(self.run(py, |o| o.ask())?.map(Ask::from))
    }

    /// Tells the outcome of the pending decision: the full measured point `x` (a list or 1-D
    /// NumPy array, one value per variable in file order: the controlled ones as applied, the
    /// others as measured), the outcome `y`, and the cost paid (the asked cost if omitted).
    #[pyo3(signature = (x, y, cost = None))]
    fn tell(
        &self,
        py: Python<'_>,
        x: &Bound<'_, PyAny>,
        y: &Bound<'_, PyAny>,
        cost: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let x = vector(x, "x")?;
        let y = number(y, "y")?;
        let cost = self.cost_or_asked(py, "tell", cost)?;
        self.run(py, |o| o.tell(&x, y, cost))
    }

    /// An observation made outside the rounds (earlier data, an initial design): the full
    /// point `x` and its outcome `y`, not charged to the budget. Not while a decision is
    /// pending. Where the costs are learned as a function of the values
    /// (`learns_cost_function`), `cost` is what measuring `x` cost, which the model of
    /// ln(cost) learns from; elsewhere it may be left out (given, it is checked, not used).
    #[pyo3(signature = (x, y, cost = None))]
    fn tell_prior(
        &self,
        py: Python<'_>,
        x: &Bound<'_, PyAny>,
        y: &Bound<'_, PyAny>,
        cost: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let x = vector(x, "x")?;
        let y = number(y, "y")?;
        match cost.filter(|c| !c.is_none()) {
            Some(c) => {
                let c = number(c, "cost")?;
                self.run(py, |o| o.tell_prior_with_cost(&x, y, c))
            }
            None => self.run(py, |o| o.tell_prior(&x, y)),
        }
    }

    /// With a costly measurement (the file's `[measurement]`, paper 003's pay-or-skip):
    /// whether to pay for measuring the pending round's outcome, given the full point `x`
    /// measured after dosing. Then `tell` the outcome, or `skip` the round.
    fn query(&self, py: Python<'_>, x: &Bound<'_, PyAny>) -> PyResult<QueryAnswer> {
        let x = vector(x, "x")?;
        let a = self.run(py, |o| o.query(&x))?;
        Ok(QueryAnswer {
            measure: a.measure,
            min_probability: a.min_probability,
        })
    }

    /// Ends the pending round without measuring its outcome, as `query` answered for `x`:
    /// charges the dose's cost (the asked cost if omitted); the model learns nothing.
    #[pyo3(signature = (x, cost = None))]
    fn skip(
        &self,
        py: Python<'_>,
        x: &Bound<'_, PyAny>,
        cost: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let x = vector(x, "x")?;
        let cost = self.cost_or_asked(py, "skip", cost)?;
        self.run(py, |o| o.skip(&x, cost))
    }

    /// The best (control set, values) by expected posterior mean.
    fn recommend(&self, py: Python<'_>) -> PyResult<Recommendation> {
        let r = self.run(py, |o| o.recommend())?;
        Ok(Recommendation {
            set: r.set,
            values: r.values,
            expected: r.expected,
        })
    }

    /// The state as JSON text: the experiment file and every observation told, with a
    /// checksum. `Optimizer.from_json` restores it.
    fn to_json(&self) -> String {
        self.lock().opt.to_json()
    }

    /// The experiment file's text (also of an optimizer made by `build`).
    fn to_toml(&self) -> String {
        self.lock().opt.experiment_toml().to_string()
    }

    /// The experiment's name.
    #[getter]
    fn name(&self) -> String {
        self.lock().opt.name().to_string()
    }

    /// The precision the core computes in: `"f64"` or `"f32"`.
    #[getter]
    fn precision(&self) -> &'static str {
        self.lock().opt.precision().name()
    }

    /// The variables, in file order.
    #[getter]
    fn variables(&self) -> Vec<Variable> {
        self.lock()
            .opt
            .variables()
            .iter()
            .map(|v| Variable {
                name: v.name.clone(),
                unit: v.unit.clone(),
                lower: v.lower,
                upper: v.upper,
                price: v.price,
            })
            .collect()
    }

    /// The control sets, in file order.
    #[getter]
    fn sets(&self) -> Vec<ControlSet> {
        self.lock()
            .opt
            .sets()
            .iter()
            .map(|s| ControlSet {
                variables: s.variables.clone(),
                cost: s.cost,
            })
            .collect()
    }

    /// True when the costs are learned from the costs told (no set has a cost): `tell` and
    /// `skip` then need the cost the round had.
    #[getter]
    fn learns_costs(&self) -> bool {
        self.lock().opt.learns_costs()
    }

    /// True when the costs are learned as a function of the values (`costs = "learned"` with
    /// a rule that prices each point, paper 002's unknown costs): a GP of ln(cost) learns
    /// from every cost told, `tell_prior` needs each point's `cost`, and an ask's `cost` is
    /// that model's estimate at the asked values.
    #[getter]
    fn learns_cost_function(&self) -> bool {
        self.lock().opt.learns_cost_function()
    }

    /// Most distinct points the model holds; beyond it the oldest are dropped.
    #[getter]
    fn capacity(&self) -> usize {
        self.lock().opt.capacity()
    }

    /// Points in the sample bank of the variables left to chance.
    #[getter]
    fn bank(&self) -> usize {
        self.lock().opt.bank()
    }

    /// The total budget.
    #[getter]
    fn budget(&self) -> f64 {
        self.lock().opt.budget()
    }

    /// Budget spent so far.
    #[getter]
    fn spent(&self) -> f64 {
        self.lock().opt.spent()
    }

    /// Rounds played (measured or skipped).
    #[getter]
    fn rounds(&self) -> usize {
        self.lock().opt.rounds()
    }

    /// Distinct points the model holds.
    #[getter]
    fn observations(&self) -> usize {
        self.lock().opt.observations()
    }

    /// The decision asked and not yet told, or `None`.
    #[getter]
    fn pending(&self) -> Option<Ask> {
        self.lock().opt.pending().cloned().map(Ask::from)
    }

    /// Seconds the last call spent inside the Rust optimizer (without the conversions and
    /// the GIL): for measuring the package's own overhead.
    #[getter]
    fn _core_seconds(&self) -> f64 {
        self.lock().core_seconds
    }

    fn __repr__(&self) -> String {
        let inner = self.lock();
        format!(
            "Optimizer(name={:?}, precision={:?}, rounds={}, spent={:?}, budget={:?})",
            inner.opt.name(),
            inner.opt.precision().name(),
            inner.opt.rounds(),
            inner.opt.spent(),
            inner.opt.budget()
        )
    }
}
