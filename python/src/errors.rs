//! The exceptions of `bohf`: `BohfError` and one subclass per kind of failure.

use bohf_experiments::ExperimentError;
use bohf_session::SessionError as LibSessionError;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(bohf, BohfError, PyException, "Base class of every error bohf raises.");
create_exception!(
    bohf,
    SpecError,
    BohfError,
    "A spec, a parameter or a session's candidates are invalid (names the field)."
);
create_exception!(
    bohf,
    InputError,
    BohfError,
    "An array of the wrong shape or dtype, or with a NaN (names the argument)."
);
create_exception!(
    bohf,
    SessionError,
    BohfError,
    "A session file is missing, damaged, in use, or cannot be replayed; the file is left as it is."
);
create_exception!(
    bohf,
    AnswerError,
    SessionError,
    "An answer that does not answer the pending query (the JSON protocol's message); nothing changed."
);
create_exception!(bohf, AlgorithmError, BohfError, "An algorithm or a numerical routine failed.");
create_exception!(
    bohf,
    RunError,
    BohfError,
    "An experiment run failed, or was stopped (finished runs are kept; resume continues)."
);

/// Adds the exception classes to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("BohfError", py.get_type::<BohfError>())?;
    m.add("SpecError", py.get_type::<SpecError>())?;
    m.add("InputError", py.get_type::<InputError>())?;
    m.add("SessionError", py.get_type::<SessionError>())?;
    m.add("AnswerError", py.get_type::<AnswerError>())?;
    m.add("AlgorithmError", py.get_type::<AlgorithmError>())?;
    m.add("RunError", py.get_type::<RunError>())?;
    Ok(())
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
