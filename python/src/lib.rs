//! The native module `bohf._bohf` of the Python package `bohf` (see `docs/python.md`).
//!
//! * [`session`]: ask/tell sessions on the session files of `bohf ask` (`bohf_session`).
//! * [`run`]: `bohf.run`, the code of `bohf run` (`bohf_experiments::folder::run_experiment`).
//! * [`numerics`]: kernels, information gain, the preference model and the confidence bounds on
//!   numpy arrays.
//! * [`registry`]: `bohf.algorithms()`, the registry with each parameter's default and meaning.
//!
//! Errors are Python exceptions under `bohf.BohfError`; their messages are the library's, which
//! name the file, the field or the query.

use pyo3::prelude::*;

mod arrays;
mod convert;
mod errors;
mod numerics;
mod registry;
mod run;
mod session;

#[pymodule]
fn _bohf(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    // One source of the version: python/Cargo.toml (maturin gives the wheel the same one).
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<session::NativeSession>()?;
    m.add_function(wrap_pyfunction!(run::run, m)?)?;
    m.add_function(wrap_pyfunction!(registry::algorithms, m)?)?;
    numerics::register(m)?;
    Ok(())
}
