//! Validation of user-supplied base Gram matrices of a candidate set.

use bohf_core::linalg::max_asymmetry;
use bohf_core::{Error, Result};
use nalgebra::DMatrix;

/// Errors unless `k` is square, finite and symmetric up to 1e-9 of its largest entry (a Gram matrix
/// built by a kernel is exactly symmetric; one computed as a product may carry rounding asymmetry).
pub(crate) fn check_base_gram(k: &DMatrix<f64>, what: &str) -> Result<()> {
    if k.ncols() != k.nrows() {
        return Err(Error::dims(format!("{what} (square matrix)"), k.nrows(), k.ncols()));
    }
    bohf_core::error::ensure_finite(what, k.iter())?;
    let scale = k.iter().fold(0.0_f64, |m, v| m.max(v.abs())).max(f64::MIN_POSITIVE);
    let asym = max_asymmetry(k);
    if asym > 1e-9 * scale {
        return Err(Error::invalid(
            "base_gram",
            format!("{what} is not symmetric: max |K_ij − K_ji| = {asym:.3e} (largest entry {scale:.3e})"),
        ));
    }
    Ok(())
}
