//! numpy arrays in and out: every array argument is checked (a float64 array of the right number
//! of dimensions, finite values) and a failure names the argument.

use crate::errors::InputError;
use nalgebra::DMatrix;
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods, ToPyArray};
use pyo3::prelude::*;

/// What `obj` is, for messages: `a float64 array of shape (3, 2)`, `a list`, ….
fn describe(obj: &Bound<'_, PyAny>) -> String {
    match obj.cast::<PyUntypedArray>() {
        Ok(a) => {
            let dtype = a.dtype().to_string();
            let shape: Vec<String> = a.shape().iter().map(usize::to_string).collect();
            let shape = if shape.len() == 1 { format!("({},)", shape[0]) } else { format!("({})", shape.join(", ")) };
            format!("a {dtype} array of shape {shape}")
        }
        Err(_) => {
            let ty = obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into());
            format!("a `{ty}`")
        }
    }
}

/// `arg` as an n×d matrix from a 2-D float64 array with finite values (one point per row).
pub fn matrix(arg: &str, what: &str, obj: &Bound<'_, PyAny>) -> PyResult<DMatrix<f64>> {
    let arr = obj.cast::<PyArray2<f64>>().map_err(|_| {
        InputError::new_err(format!(
            "{arg}: need a 2-D float64 numpy array ({what}), got {} (convert with np.asarray({arg}, dtype=float))",
            describe(obj)
        ))
    })?;
    let ro = arr.readonly();
    let (n, d) = (ro.shape()[0], ro.shape()[1]);
    // Contiguous arrays (numpy's C order, or Fortran order as nalgebra stores them) are read from
    // their slice; anything else (a strided or reversed view) element by element.
    let m = match ro.as_slice() {
        Ok(s) if ro.is_c_contiguous() => DMatrix::from_row_slice(n, d, s),
        Ok(s) => DMatrix::from_column_slice(n, d, s),
        Err(_) => {
            let a = ro.as_array();
            DMatrix::from_fn(n, d, |i, j| a[[i, j]])
        }
    };
    if let Some(k) = m.iter().position(|v| !v.is_finite()) {
        let (i, j) = (k % m.nrows(), k / m.nrows());
        return Err(InputError::new_err(format!(
            "{arg}: entry [{i}, {j}] is {} (every value must be finite)",
            m[(i, j)]
        )));
    }
    Ok(m)
}

/// A square matrix (a Gram matrix), checked as [`matrix`] plus square.
pub fn square(arg: &str, obj: &Bound<'_, PyAny>) -> PyResult<DMatrix<f64>> {
    let m = matrix(arg, "an n×n Gram matrix", obj)?;
    if m.nrows() != m.ncols() {
        return Err(InputError::new_err(format!(
            "{arg}: need a square n×n matrix, got shape ({}, {})",
            m.nrows(),
            m.ncols()
        )));
    }
    Ok(m)
}

/// A matrix as a new numpy array.
pub fn to_numpy<'py>(py: Python<'py>, m: &DMatrix<f64>) -> Bound<'py, PyArray2<f64>> {
    m.to_pyarray(py)
}

/// A vector as a new 1-D numpy array.
pub fn vec_to_numpy<'py>(py: Python<'py>, v: &[f64]) -> Bound<'py, PyArray1<f64>> {
    v.to_pyarray(py)
}
