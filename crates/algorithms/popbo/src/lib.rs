//! POP-BO: principled optimistic preferential Bayesian optimisation.
#![warn(missing_docs)]
