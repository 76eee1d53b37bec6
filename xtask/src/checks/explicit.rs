//! Explicit regret bounds and lemmas evaluated where their constants are computable: PF-TS
//! (C′ = 85, Lemmas 3–4) and MR-LPF (simple regret, eq. (16)).

use super::Check;

/// The explicit-bound checks, in table order.
pub fn catalogue() -> Vec<Check> {
    vec![]
}
