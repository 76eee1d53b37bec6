//! POP-BO (Xu et al. 2024) and the likelihood-ratio confidence sets of bohf-confidence: constants,
//! β tables, coverage (Theorem 3.1), the elliptical and Lemma J.1 bounds, and regret growth.

use super::Check;

/// The POP-BO checks, in table order.
pub fn catalogue() -> Vec<Check> {
    vec![]
}
