//! The Python package of costbo, `import costbo`: the desktop adapter's ask/tell
//! [`Optimizer`](costbo_std::Optimizer), the GP, the acquisition values and the papers'
//! objectives, for programs and notebooks in Python.
//!
//! Every argument is checked here before it reaches the core (types, lengths, NaN and
//! infinities), so that a refused call raises `costbo.CostboError` (a `ValueError`) with a
//! message that names the argument, and leaves the optimizer as it was. The GIL is released
//! while the core computes.
#![deny(missing_docs)]

use pyo3::prelude::*;

mod causal;
mod convert;
mod error;
mod functions;
mod gp;
mod objectives;
mod optimizer;

/// The native module, re-exported by `costbo/__init__.py`.
#[pymodule]
fn _costbo(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("CostboError", py.get_type::<error::CostboError>())?;
    m.add_class::<optimizer::Optimizer>()?;
    m.add_class::<optimizer::Ask>()?;
    m.add_class::<optimizer::Recommendation>()?;
    m.add_class::<optimizer::QueryAnswer>()?;
    m.add_class::<optimizer::Variable>()?;
    m.add_class::<optimizer::ControlSet>()?;
    m.add_class::<causal::CausalOptimizer>()?;
    m.add_class::<causal::ArmAsk>()?;
    m.add_class::<causal::CausalDecision>()?;
    m.add_class::<causal::CausalRecommendation>()?;
    m.add_class::<gp::GP>()?;
    m.add_class::<gp::FitResult>()?;
    m.add_class::<objectives::Objective>()?;
    m.add("OBJECTIVES", objectives::catalogue())?;
    m.add_function(wrap_pyfunction!(functions::_log_ei, m)?)?;
    m.add_function(wrap_pyfunction!(functions::_expected_improvement, m)?)?;
    m.add_function(wrap_pyfunction!(functions::_gittins_index, m)?)?;
    m.add_function(wrap_pyfunction!(functions::_normal_cdf, m)?)?;
    m.add("MAX_DIM", costbo_std::optimizer::MAX_DIM)?;
    m.add("MAX_WIDE_DIM", costbo_std::optimizer::MAX_WIDE_DIM)?;
    m.add("MAX_WIDE_DIM_F32", costbo_std::optimizer::MAX_WIDE_DIM_F32)?;
    m.add(
        "WIDE_MAX_CAPACITY",
        costbo_std::optimizer::WIDE_MAX_CAPACITY,
    )?;
    m.add("MAX_SETS", costbo_std::optimizer::MAX_SETS)?;
    m.add(
        "MAX_SETS_LEARNING_COSTS",
        costbo_std::optimizer::MAX_SETS_LEARNING_COSTS,
    )?;
    let rules: Vec<(&str, &str)> = costbo_core::policy::RULES
        .iter()
        .map(|r| (r.name, r.summary))
        .collect();
    m.add("RULES", rules)?;
    Ok(())
}
