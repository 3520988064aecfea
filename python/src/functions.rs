//! The acquisition values of the core as Python functions over equal-length lists (the
//! package's `costbo.log_ei` and the others broadcast NumPy arrays onto these).

use pyo3::prelude::*;

use costbo_core::special::improvement::{self, ImprovementError};
use costbo_core::special::normal;

use crate::convert::vector;
use crate::error::input;

/// Applies `f` to the rows of three equal-length columns, naming the row of a refusal.
fn rows3(
    py: Python<'_>,
    names: [&str; 3],
    columns: [&Bound<'_, PyAny>; 3],
    f: impl Fn(f64, f64, f64) -> Result<f64, ImprovementError> + Send + Sync,
) -> PyResult<Vec<f64>> {
    let [a, b, c] = [
        vector(columns[0], names[0])?,
        vector(columns[1], names[1])?,
        vector(columns[2], names[2])?,
    ];
    if a.len() != b.len() || a.len() != c.len() {
        return Err(input(
            py,
            format!(
                "{}, {} and {} have {}, {} and {} values (they must have as many)",
                names[0],
                names[1],
                names[2],
                a.len(),
                b.len(),
                c.len()
            ),
        ));
    }
    let out = py.detach(|| {
        a.iter()
            .zip(&b)
            .zip(&c)
            .enumerate()
            .map(|(i, ((&a, &b), &c))| f(a, b, c).map_err(|e| (i, e)))
            .collect::<Result<Vec<f64>, _>>()
    });
    let out = out.map_err(|(i, e)| input(py, format!("at index {i}: {e}")))?;
    // −∞ is LogEI's exact value where EI is 0; +∞ or NaN would be beyond f64's range.
    if let Some(i) = out.iter().position(|v| v.is_nan() || *v == f64::INFINITY) {
        return Err(input(
            py,
            format!("at index {i}: the value is beyond the range of f64 (rescale the inputs)"),
        ));
    }
    Ok(out)
}

/// `ln EI` (LogEI, Ament et al. 2023) of `f ~ N(mean, std²)` over `best`, per index of three
/// equal-length lists; exact in the far tail where EI itself underflows, `-inf` where no
/// improvement is possible (`std = 0` and `mean <= best`).
#[pyfunction]
pub fn _log_ei(
    py: Python<'_>,
    mean: &Bound<'_, PyAny>,
    std: &Bound<'_, PyAny>,
    best: &Bound<'_, PyAny>,
) -> PyResult<Vec<f64>> {
    rows3(
        py,
        ["mean", "std", "best"],
        [mean, std, best],
        improvement::log_expected_improvement,
    )
}

/// Expected improvement `E[max(f - best, 0)]` of `f ~ N(mean, std²)`, per index.
#[pyfunction]
pub fn _expected_improvement(
    py: Python<'_>,
    mean: &Bound<'_, PyAny>,
    std: &Bound<'_, PyAny>,
    best: &Bound<'_, PyAny>,
) -> PyResult<Vec<f64>> {
    rows3(
        py,
        ["mean", "std", "best"],
        [mean, std, best],
        improvement::expected_improvement,
    )
}

/// The Pandora's Box Gittins index (paper 002, Eq. 6) of `f ~ N(mean, std²)` at price
/// `price = λ·c(x) > 0`: the `g` with `EI(g) = price`, per index.
#[pyfunction]
pub fn _gittins_index(
    py: Python<'_>,
    mean: &Bound<'_, PyAny>,
    std: &Bound<'_, PyAny>,
    price: &Bound<'_, PyAny>,
) -> PyResult<Vec<f64>> {
    rows3(
        py,
        ["mean", "std", "price"],
        [mean, std, price],
        improvement::gittins_index,
    )
}

/// The standard normal distribution function `Φ(x)`, per element, accurate in both tails.
#[pyfunction]
pub fn _normal_cdf(x: &Bound<'_, PyAny>) -> PyResult<Vec<f64>> {
    Ok(vector(x, "x")?
        .into_iter()
        .map(normal::normal_cdf)
        .collect())
}
