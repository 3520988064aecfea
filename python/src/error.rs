//! `costbo.CostboError`: every refusal of the package, with the Rust message.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use costbo_std::ErrorKind;

create_exception!(
    costbo,
    CostboError,
    PyValueError,
    "A call that costbo refused. The message names the offending argument, setting or value; \
     `kind` says what went wrong (\"experiment\", \"io\", \"input\", \"sequence\", \"model\", \
     \"state\", \"resources\"). The object the call was made on is unchanged."
);

/// A `CostboError` of `kind` carrying `message`.
pub fn raise(py: Python<'_>, kind: &str, message: impl Into<String>) -> PyErr {
    let err = CostboError::new_err(message.into());
    // Setting an attribute on a fresh exception object cannot fail short of memory; the
    // error is still raised (without `kind`) if it does.
    let _ = err.value(py).setattr("kind", kind);
    err
}

/// An input refused by the package before it reached the core.
pub fn input(py: Python<'_>, message: impl Into<String>) -> PyErr {
    raise(py, "input", message)
}

/// The adapter's error as a `CostboError`.
pub fn from_std(py: Python<'_>, e: costbo_std::Error) -> PyErr {
    let kind = match e.kind() {
        ErrorKind::Experiment => "experiment",
        ErrorKind::Io => "io",
        ErrorKind::Input => "input",
        ErrorKind::Sequence => "sequence",
        ErrorKind::Model => "model",
        ErrorKind::State => "state",
        ErrorKind::Resources => "resources",
        _ => "other",
    };
    raise(py, kind, e.message())
}
