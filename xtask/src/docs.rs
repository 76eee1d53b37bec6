//! `cargo xtask docs`: generated pages.
use std::process::ExitCode;

pub fn run(_args: &[String]) -> ExitCode {
    eprintln!("xtask docs: not implemented yet");
    ExitCode::from(2)
}
