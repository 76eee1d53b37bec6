//! Likelihood-ratio confidence sets for bohf as conic programs solved with clarabel; the papers' beta formulas.
#![warn(missing_docs)]
