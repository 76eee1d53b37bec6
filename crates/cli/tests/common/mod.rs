//! Helpers shared by the integration tests of the `bohf` binary.

// Each test file compiles this module; not every one uses every helper.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A fresh folder under the system's temporary directory, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// `bohf-cli-TAG-PID` under the temporary directory, emptied first.
    pub fn new(tag: &str) -> Self {
        let p = std::env::temp_dir().join(format!("bohf-cli-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Self(p)
    }

    /// A path inside the folder.
    pub fn join(&self, p: &str) -> PathBuf {
        self.0.join(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs the `bohf` binary in `dir` with `args`, writes `stdin` to it, closes it, and waits for the
/// output (whatever the exit status).
pub fn run_bohf(dir: &Path, args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_bohf"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child.stdin.take().expect("piped").write_all(stdin).expect("stdin");
    child.wait_with_output().expect("the binary runs")
}
