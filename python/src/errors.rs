//! The exceptions of `bohf`: `BohfError` and one subclass per kind of failure; those of bad
//! arguments (`SpecError`, `InputError`, `AnswerError`) are `ValueError`s too.

use bohf_experiments::ExperimentError;
use bohf_session::SessionError as LibSessionError;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyTuple, PyType};

create_exception!(bohf, BohfError, PyException, "Base class of every error bohf raises.");
create_exception!(
    bohf,
    SessionError,
    BohfError,
    "A session file is missing, damaged, in use, or cannot be replayed; the file is left as it is."
);
create_exception!(bohf, AlgorithmError, BohfError, "An algorithm or a numerical routine failed.");
create_exception!(
    bohf,
    RunError,
    BohfError,
    "An experiment run failed, or was stopped (finished runs are kept; resume continues)."
);

/// The class `bohf.NAME(base, ValueError)`, made once: a `bohf` error that is also a
/// `ValueError`, so that `except ValueError` catches a bad argument as Python code expects.
/// (`create_exception!` gives a class one base only.)
fn value_error_class(py: Python<'_>, name: &str, doc: &str, base: Bound<'_, PyType>) -> PyResult<Py<PyType>> {
    let bases = PyTuple::new(py, [base, py.get_type::<PyValueError>()])?;
    let dict = PyDict::new(py);
    dict.set_item("__doc__", doc)?;
    dict.set_item("__module__", "bohf")?;
    let class = py.get_type::<PyType>().call1((name, bases, dict))?;
    Ok(class.cast_into::<PyType>()?.unbind())
}

/// An exception class of `bohf` that subclasses `ValueError` too: `NAME::new_err(message)` as for
/// the classes of `create_exception!`.
macro_rules! value_error {
    ($name:ident, $base:ty, $doc:literal) => {
        #[doc = $doc]
        pub struct $name;

        impl $name {
            /// The class (made on first use).
            pub fn type_object(py: Python<'_>) -> PyResult<Bound<'_, PyType>> {
                static CLASS: PyOnceLock<Py<PyType>> = PyOnceLock::new();
                CLASS
                    .get_or_try_init(py, || value_error_class(py, stringify!($name), $doc, py.get_type::<$base>()))
                    .map(|c| c.bind(py).clone())
            }

            /// The exception with `message`.
            pub fn new_err(message: impl Into<String>) -> PyErr {
                let message = message.into();
                Python::attach(|py| match Self::type_object(py) {
                    Ok(class) => PyErr::from_type(class, message),
                    Err(e) => e,
                })
            }
        }
    };
}

value_error!(
    SpecError,
    BohfError,
    "A spec, a parameter or a session's candidates are invalid (names the field). Also a ValueError."
);
value_error!(
    InputError,
    BohfError,
    "An argument of the wrong type, shape or dtype, a negative count, or a NaN (names the argument). \
     Also a ValueError."
);
value_error!(
    AnswerError,
    SessionError,
    "An answer that does not answer the pending query (the JSON protocol's message); nothing changed. \
     Also a ValueError."
);

/// Adds the exception classes to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("BohfError", py.get_type::<BohfError>())?;
    m.add("SpecError", SpecError::type_object(py)?)?;
    m.add("InputError", InputError::type_object(py)?)?;
    m.add("SessionError", py.get_type::<SessionError>())?;
    m.add("AnswerError", AnswerError::type_object(py)?)?;
    m.add("AlgorithmError", py.get_type::<AlgorithmError>())?;
    m.add("RunError", py.get_type::<RunError>())?;
    Ok(())
}

/// A count, index or seed argument `arg`: a Python integer (or numpy integer) in 0..=`max`, else an
/// `InputError` naming `arg` (instead of pyo3's bare `OverflowError` or `TypeError`).
pub fn whole(arg: &str, obj: &Bound<'_, PyAny>, max: u64) -> PyResult<u64> {
    let ty = || obj.get_type().name().map(|n| n.to_string()).unwrap_or_default();
    if obj.is_instance_of::<PyBool>() {
        return Err(InputError::new_err(format!("{arg}: need a non-negative integer, got a bool ({obj})")));
    }
    let Ok(index) = obj.call_method0("__index__") else {
        return Err(InputError::new_err(format!("{arg}: need a non-negative integer, got a `{}`", ty())));
    };
    match index.extract::<i128>() {
        Ok(v) if v < 0 => Err(InputError::new_err(format!("{arg}: need a non-negative integer, got {v}"))),
        Ok(v) if v <= i128::from(max) => Ok(v as u64),
        _ => Err(InputError::new_err(format!("{arg}: {index} is too large (at most {max})"))),
    }
}

/// The exception of a session error (its message unchanged).
pub fn session_err(e: LibSessionError) -> PyErr {
    let m = e.to_string();
    match e {
        LibSessionError::Spec(_) => SpecError::new_err(m),
        LibSessionError::File(_) => SessionError::new_err(m),
        LibSessionError::Answer(_) => AnswerError::new_err(m),
        LibSessionError::Algorithm(_) => AlgorithmError::new_err(m),
        // From the registry's parameter check (a spec problem), file locks or saving (file problems).
        LibSessionError::Experiment(e @ (ExperimentError::Spec { .. } | ExperimentError::Toml { .. })) => {
            SpecError::new_err(e.to_string())
        }
        LibSessionError::Experiment(e) => SessionError::new_err(e.to_string()),
    }
}

/// The exception of an experiment error: a spec problem is a `SpecError`, anything else a `RunError`.
pub fn experiment_err(e: ExperimentError) -> PyErr {
    let m = e.to_string();
    match e {
        ExperimentError::Toml { .. }
        | ExperimentError::Spec { .. }
        | ExperimentError::InFile { .. }
        | ExperimentError::Memory { .. } => SpecError::new_err(m),
        _ => RunError::new_err(m),
    }
}

/// The exception of a numerical routine's error: invalid input is an `InputError`, anything else
/// (a solver failure) an `AlgorithmError`.
pub fn core_err(e: bohf_core::Error) -> PyErr {
    let m = e.to_string();
    match e {
        bohf_core::Error::InvalidParameter { .. }
        | bohf_core::Error::DimensionMismatch { .. }
        | bohf_core::Error::NonFinite(_)
        | bohf_core::Error::IndexOutOfRange { .. }
        | bohf_core::Error::Empty(_) => InputError::new_err(m),
        _ => AlgorithmError::new_err(m),
    }
}
