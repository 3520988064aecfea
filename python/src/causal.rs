//! `costbo.CausalOptimizer`: a contextual causal experiment (the experiment file's `[causal]`
//! table, paper 004) on the desktop ([`costbo_std::CausalOptimizer`]): choose the arm,
//! measure its contexts, decide, tell.

use std::sync::{Mutex, MutexGuard};

use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::convert::{number, optional_vector, precision_or};
use crate::error::{from_std, input};
use crate::optimizer::Variable;

/// The arm chosen for this round: measure the variables in `contexts`, then `ask`.
#[pyclass(module = "costbo", frozen, eq, get_all)]
#[derive(Debug, Clone, PartialEq)]
pub struct ArmAsk {
    /// The arm's index, in the file's order.
    pub arm: usize,
    /// The control set it doses.
    pub set: usize,
    /// The indices of the variables to measure now (the arm's contexts).
    pub contexts: Vec<usize>,
    /// What the round costs.
    pub cost: f64,
}

#[pymethods]
impl ArmAsk {
    fn __repr__(&self) -> String {
        format!(
            "ArmAsk(arm={}, set={}, contexts={:?}, cost={:?})",
            self.arm, self.set, self.contexts, self.cost
        )
    }
}

/// The action of this round: the dose of each of the arm's actions.
#[pyclass(module = "costbo", frozen, eq, get_all)]
#[derive(Debug, Clone, PartialEq)]
pub struct CausalDecision {
    /// The arm.
    pub arm: usize,
    /// The control set it doses.
    pub set: usize,
    /// One value per variable in the file's order (physical units); `None` for the variables
    /// the arm does not set.
    pub values: Vec<Option<f64>>,
    /// The round's cost.
    pub cost: f64,
    /// The action's UCB value (the device sends it as its decision's score).
    pub ucb: f64,
}

#[pymethods]
impl CausalDecision {
    fn __repr__(&self) -> String {
        format!(
            "CausalDecision(arm={}, set={}, values={}, cost={:?}, ucb={:?})",
            self.arm,
            self.set,
            crate::optimizer::values_repr(&self.values),
            self.cost,
            self.ucb
        )
    }
}

/// The arm whose outcomes were best on average.
#[pyclass(module = "costbo", frozen, eq, get_all)]
#[derive(Debug, Clone, PartialEq)]
pub struct CausalRecommendation {
    /// The arm.
    pub arm: usize,
    /// Its control set.
    pub set: usize,
    /// Its mean outcome.
    pub mean_outcome: f64,
    /// Its plays.
    pub plays: u32,
}

#[pymethods]
impl CausalRecommendation {
    fn __repr__(&self) -> String {
        format!(
            "CausalRecommendation(arm={}, set={}, mean_outcome={:?}, plays={})",
            self.arm, self.set, self.mean_outcome, self.plays
        )
    }
}

/// A contextual causal experiment (a file with a `[causal]` table): each round `next_arm()`
/// chooses the arm and names the variables to measure; `ask(contexts)` gives the doses of the
/// arm's control set for the measured contexts; `tell(y)` the outcome. A refused call raises
/// `CostboError` and changes nothing. In `"f32"` it makes the device's decisions bit for bit.
#[pyclass(module = "costbo")]
pub struct CausalOptimizer {
    inner: Mutex<costbo_std::CausalOptimizer>,
}

impl CausalOptimizer {
    fn wrap(opt: costbo_std::CausalOptimizer) -> Self {
        CausalOptimizer {
            inner: Mutex::new(opt),
        }
    }

    fn lock(&self) -> MutexGuard<'_, costbo_std::CausalOptimizer> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn run<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut costbo_std::CausalOptimizer) -> Result<T, costbo_std::Error> + Send,
    ) -> PyResult<T> {
        py.detach(|| f(&mut self.lock()))
            .map_err(|e| from_std(py, e))
    }

    /// The contexts as the core takes them: a list or 1-D array with one entry per variable
    /// (`None` for the variables not measured), or a dict from variable names to values.
    fn contexts(&self, py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<Vec<Option<f64>>> {
        let names: Vec<String> = self
            .lock()
            .variables()
            .iter()
            .map(|v| v.name.clone())
            .collect();
        let Ok(d) = obj.cast::<PyDict>() else {
            return optional_vector(obj, "contexts");
        };
        let mut out = vec![None; names.len()];
        for (k, v) in d.iter() {
            let key: String = k
                .extract()
                .map_err(|_| input(py, "contexts: the keys must be variable names"))?;
            let Some(l) = names.iter().position(|n| *n == key) else {
                return Err(input(
                    py,
                    format!("contexts: no variable is called {key:?} (the file has {names:?})"),
                ));
            };
            out[l] = Some(number(&v, &format!("contexts[{key:?}]"))?);
        }
        Ok(out)
    }
}

#[pymethods]
impl CausalOptimizer {
    /// An optimizer for the causal experiment in `text`, in `precision` (`"f64"` or `"f32"`).
    #[staticmethod]
    #[pyo3(signature = (text, precision = None))]
    fn from_toml(
        py: Python<'_>,
        text: &Bound<'_, PyAny>,
        precision: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let p = precision_or(py, precision)?;
        let text = crate::convert::text(text, "text")?;
        py.detach(|| costbo_std::CausalOptimizer::from_toml_str_with(&text, p))
            .map(Self::wrap)
            .map_err(|e| from_std(py, e))
    }

    /// An optimizer for the causal experiment file at `path` (a `str` or `os.PathLike`).
    #[staticmethod]
    #[pyo3(signature = (path, precision = None))]
    fn from_file(
        py: Python<'_>,
        path: &Bound<'_, PyAny>,
        precision: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let p = precision_or(py, precision)?;
        let path = crate::convert::path(path)?;
        py.detach(|| costbo_std::CausalOptimizer::from_file_with(&path, p))
            .map(Self::wrap)
            .map_err(|e| from_std(py, e))
    }

    /// Restores an optimizer saved by `to_json` (its rounds replayed through the core).
    #[staticmethod]
    fn from_json(py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<Self> {
        let text = crate::convert::text(text, "text")?;
        py.detach(|| costbo_std::CausalOptimizer::from_json(&text))
            .map(Self::wrap)
            .map_err(|e| from_std(py, e))
    }

    /// This round's arm, or `None` once the budget cannot pay for it. Asked again before
    /// `ask`, the same arm.
    fn next_arm(&self, py: Python<'_>) -> PyResult<Option<ArmAsk>> {
        Ok(self.run(py, |o| o.next_arm())?.map(|a| ArmAsk {
            arm: a.arm,
            set: a.set,
            contexts: a.contexts,
            cost: a.cost,
        }))
    }

    /// The doses for the chosen arm given its measured `contexts` (a list or array with one
    /// entry per variable, `None` where not measured, or a dict from names to values).
    fn ask(&self, py: Python<'_>, contexts: &Bound<'_, PyAny>) -> PyResult<CausalDecision> {
        let contexts = self.contexts(py, contexts)?;
        let d = self.run(py, move |o| o.ask(&contexts))?;
        Ok(CausalDecision {
            arm: d.arm,
            set: d.set,
            values: d.values,
            cost: d.cost,
            ucb: d.ucb,
        })
    }

    /// The outcome of the decided round.
    fn tell(&self, py: Python<'_>, y: &Bound<'_, PyAny>) -> PyResult<()> {
        let y = number(y, "y")?;
        self.run(py, move |o| o.tell(y))
    }

    /// Drops the open round (not carried out); the next `next_arm` chooses again.
    fn abandon(&self, py: Python<'_>) -> PyResult<()> {
        self.run(py, |o| o.abandon())
    }

    /// The arm with the best mean outcome so far, `None` before any round.
    fn recommend(&self) -> Option<CausalRecommendation> {
        self.lock().recommend().map(|r| CausalRecommendation {
            arm: r.arm,
            set: r.set,
            mean_outcome: r.mean_outcome,
            plays: r.plays,
        })
    }

    /// The state (the experiment file and the rounds told) as JSON.
    fn to_json(&self) -> String {
        self.lock().to_json()
    }

    /// The experiment's name.
    #[getter]
    fn name(&self) -> String {
        self.lock().name().to_string()
    }

    /// `"f64"` or `"f32"`.
    #[getter]
    fn precision(&self) -> &'static str {
        self.lock().precision().name()
    }

    /// The arms: `(set, actions, contexts)` per arm, variable indices.
    #[getter]
    fn arms(&self) -> Vec<(usize, Vec<usize>, Vec<usize>)> {
        self.lock()
            .arms()
            .iter()
            .map(|a| (a.set, a.actions.clone(), a.contexts.clone()))
            .collect()
    }

    /// The variables, in the file's order.
    #[getter]
    fn variables(&self) -> Vec<Variable> {
        self.lock()
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

    /// The variables' names, in the file's order.
    #[getter]
    fn variable_names(&self) -> Vec<String> {
        self.lock()
            .variables()
            .iter()
            .map(|v| v.name.clone())
            .collect()
    }

    /// The budget.
    #[getter]
    fn budget(&self) -> f64 {
        self.lock().budget()
    }

    /// Budget spent.
    #[getter]
    fn spent(&self) -> f64 {
        self.lock().spent()
    }

    /// Rounds told.
    #[getter]
    fn rounds(&self) -> usize {
        self.lock().rounds()
    }

    fn __repr__(&self) -> String {
        let o = self.lock();
        format!(
            "CausalOptimizer({:?}, precision={:?}, rounds={}, spent={:?})",
            o.name(),
            o.precision().name(),
            o.rounds(),
            o.spent()
        )
    }
}
