//! Behaviour tests of the baselines, one file per optimiser (the layout of every algorithm crate:
//! the optimiser's behaviour tests in the crate-root `tests` module, unit tests of helper modules
//! next to them; shared fixtures in `bohf_core::testing`).

mod maxminlcb;
mod random;
mod scalar;
mod scalar_box;
