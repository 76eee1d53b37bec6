//! Helpers shared by the integration tests of the `bohf` binary.

use std::path::PathBuf;

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
