//! Python values to Rust ones, checked: a list, tuple or NumPy array of real numbers, with
//! errors that name the argument and the element.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyString};

use crate::error::input;

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".into())
}

/// A real number: an `int`, a `float` or a NumPy scalar, finite. Booleans, strings and other
/// objects are refused.
pub fn number(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<f64> {
    let py = obj.py();
    // NumPy's booleans (`numpy.bool_`) are not Python bools but convert to 1.0 and 0.0.
    if obj.is_instance_of::<PyBool>() || matches!(type_name(obj).as_str(), "bool" | "bool_") {
        return Err(input(py, format!("{what} is a bool, not a number")));
    }
    if obj.is_instance_of::<PyString>() || obj.is_instance_of::<PyBytes>() {
        return Err(input(
            py,
            format!("{what} is a {}, not a number", type_name(obj)),
        ));
    }
    let v: f64 = obj
        .extract()
        .map_err(|_| input(py, format!("{what} is a {}, not a number", type_name(obj))))?;
    if !v.is_finite() {
        return Err(input(py, format!("{what} is {v}, not a finite number")));
    }
    Ok(v)
}

/// The elements of a sequence or NumPy array (converted with `tolist()`), refusing strings and
/// arrays of the wrong number of dimensions.
fn elements<'py>(
    obj: &Bound<'py, PyAny>,
    what: &str,
    ndim: usize,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let py = obj.py();
    let shape = if ndim == 1 {
        "a list or 1-D array of numbers"
    } else {
        "a list of rows or a 2-D array of numbers"
    };
    if obj.is_instance_of::<PyString>() || obj.is_instance_of::<PyBytes>() {
        return Err(input(
            py,
            format!("{what} must be {shape}, not a {}", type_name(obj)),
        ));
    }
    let list = if obj.hasattr("ndim")? && obj.hasattr("tolist")? {
        let dims: usize = obj.getattr("ndim")?.extract().unwrap_or(usize::MAX);
        if dims != ndim {
            return Err(input(
                py,
                format!("{what} must be {shape}, not an array of {dims} dimensions"),
            ));
        }
        obj.call_method0("tolist")?
    } else {
        obj.clone()
    };
    let iter = list.try_iter().map_err(|_| {
        input(
            py,
            format!("{what} must be {shape}, not a {}", type_name(obj)),
        )
    })?;
    iter.collect()
}

/// A vector of finite real numbers.
pub fn vector(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<f64>> {
    elements(obj, what, 1)?
        .iter()
        .enumerate()
        .map(|(i, e)| number(e, &format!("{what}[{i}]")))
        .collect()
}

/// A vector of finite real numbers with gaps: `None` where a value is not given.
pub fn optional_vector(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<Option<f64>>> {
    elements(obj, what, 1)?
        .iter()
        .enumerate()
        .map(|(i, e)| {
            if e.is_none() {
                Ok(None)
            } else {
                number(e, &format!("{what}[{i}]")).map(Some)
            }
        })
        .collect()
}

/// A matrix of finite real numbers, every row of the same length.
pub fn matrix(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<Vec<f64>>> {
    let py = obj.py();
    let rows: Vec<Vec<f64>> = elements(obj, what, 2)?
        .iter()
        .enumerate()
        .map(|(i, r)| vector(r, &format!("{what}[{i}]")))
        .collect::<PyResult<_>>()?;
    if let Some(first) = rows.first() {
        if let Some(i) = rows.iter().position(|r| r.len() != first.len()) {
            return Err(input(
                py,
                format!(
                    "{what}[{i}] has {} values, {what}[0] has {}",
                    rows[i].len(),
                    first.len()
                ),
            ));
        }
    }
    Ok(rows)
}

/// A file path: a `str` or an `os.PathLike`.
pub fn path(obj: &Bound<'_, PyAny>) -> PyResult<std::path::PathBuf> {
    obj.extract()
        .map_err(|_| input(obj.py(), "path must be a str or an os.PathLike"))
}

/// A string, refusing other types with a message naming it.
pub fn text(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<String> {
    obj.extract::<String>().map_err(|_| {
        input(
            obj.py(),
            format!("{what} must be a str, not a {}", type_name(obj)),
        )
    })
}

/// A keyword argument's string, or `default` when it was not given.
pub fn text_or(obj: Option<&Bound<'_, PyAny>>, what: &str, default: &str) -> PyResult<String> {
    obj.map_or_else(|| Ok(default.to_string()), |o| text(o, what))
}

/// A keyword argument's non-negative integer (an `int` or a NumPy integer; booleans, floats
/// and strings refused), or `default` when it was not given.
pub fn count_or(obj: Option<&Bound<'_, PyAny>>, what: &str, default: u64) -> PyResult<u64> {
    let Some(obj) = obj else {
        return Ok(default);
    };
    let refused = || {
        input(
            obj.py(),
            format!(
                "{what} must be a non-negative integer, not {}",
                obj.repr()
                    .map(|r| costbo_objectives::shown::Shown(&r.to_string()).to_string())
                    .unwrap_or_else(|_| type_name(obj))
            ),
        )
    };
    if obj.is_instance_of::<PyBool>() || !obj.hasattr("__index__")? {
        return Err(refused());
    }
    obj.extract::<u64>().map_err(|_| refused())
}

/// [`count_or`] as a `usize` (saturating where `usize` is narrower than `u64`: the setting's
/// own bound then refuses it).
pub fn size_or(obj: Option<&Bound<'_, PyAny>>, what: &str, default: usize) -> PyResult<usize> {
    let v = count_or(obj, what, default as u64)?;
    Ok(usize::try_from(v).unwrap_or(usize::MAX))
}

/// A keyword argument's boolean (`True` or `False` only), or `default` when it was not given.
pub fn flag_or(obj: Option<&Bound<'_, PyAny>>, what: &str, default: bool) -> PyResult<bool> {
    match obj {
        None => Ok(default),
        Some(o) if o.is_instance_of::<PyBool>() => o.extract(),
        Some(o) => Err(input(
            o.py(),
            format!("{what} must be True or False, not a {}", type_name(o)),
        )),
    }
}

/// A keyword argument's precision (`"f64"` unless given).
pub fn precision_or(
    py: Python<'_>,
    obj: Option<&Bound<'_, PyAny>>,
) -> PyResult<costbo_std::Precision> {
    precision(py, &text_or(obj, "precision", "f64")?)
}

/// A precision by name: `"f64"` or `"f32"`.
pub fn precision(py: Python<'_>, name: &str) -> PyResult<costbo_std::Precision> {
    match name {
        "f64" => Ok(costbo_std::Precision::F64),
        "f32" => Ok(costbo_std::Precision::F32),
        other => Err(input(
            py,
            format!("precision {other:?}: must be \"f64\" or \"f32\""),
        )),
    }
}

/// A NumPy array of `values`.
pub fn array<'py>(py: Python<'py>, values: Vec<f64>) -> PyResult<Bound<'py, PyAny>> {
    py.import("numpy")?.call_method1("asarray", (values,))
}
