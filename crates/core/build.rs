//! With the `lapack` feature, nalgebra-lapack is built with `lapack-custom` (no bundled BLAS), so
//! this crate links the system OpenBLAS (Debian: `libopenblas-dev`), which provides BLAS and LAPACK.
fn main() {
    println!("cargo:rerun-if-env-changed=CARGO_FEATURE_LAPACK");
    if std::env::var_os("CARGO_FEATURE_LAPACK").is_some() {
        println!("cargo:rustc-link-lib=dylib=openblas");
    }
}
