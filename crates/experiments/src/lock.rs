//! Locks that keep two bohf processes off the same file or folder.
//!
//! The lock is an OS file lock ([`std::fs::File::try_lock`]) on a small lock file (e.g.
//! `SESSION.json.lock`, or a `.lock` file inside a results folder), held for as long as the returned
//! [`LockGuard`] lives. The lock file holds the pid of the process that holds the lock, for the
//! message the next process shows. The OS releases the lock when the process ends, even by
//! `kill -9`, so a lock file left behind never blocks anyone: only a live holder does. The lock
//! file itself is left in place (removing it would race with a process that just opened it).

use crate::ExperimentError;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

/// Holds a lock (exclusive or shared) until dropped.
#[derive(Debug)]
pub struct LockGuard {
    file: File,
}

impl Drop for LockGuard {
    fn drop(&mut self) {
        // Best effort: the OS releases the lock at exit anyway.
        let _ = self.file.unlock();
    }
}

/// Takes an exclusive lock on `lock_path` (created if missing) without waiting. `what` names the
/// locked thing for the message, e.g. "session `coffee.json`"; if another process holds the lock the
/// error says "{what} is in use by another bohf process (pid N)".
pub fn lock_exclusive(lock_path: &Path, what: &str) -> Result<LockGuard, ExperimentError> {
    lock(lock_path, what, false)
}

/// Takes a shared lock on `lock_path`: any number of processes may hold it together (e.g. the shards
/// of one experiment filling one folder), but not while one holds it exclusively, and an exclusive
/// lock is refused while any shared holder lives. The lock file records the latest holder's pid.
pub fn lock_shared(lock_path: &Path, what: &str) -> Result<LockGuard, ExperimentError> {
    lock(lock_path, what, true)
}

fn lock(lock_path: &Path, what: &str, shared: bool) -> Result<LockGuard, ExperimentError> {
    let cannot = |e: std::io::Error| {
        ExperimentError::Folder(format!("cannot lock {what} (lock file `{}`): {e}", lock_path.display()))
    };
    let mut file =
        OpenOptions::new().read(true).write(true).create(true).truncate(false).open(lock_path).map_err(cannot)?;
    match if shared { file.try_lock_shared() } else { file.try_lock() } {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            let pid = match holder.trim().parse::<u32>() {
                Ok(pid) => format!(" (pid {pid})"),
                Err(_) => String::new(),
            };
            return Err(ExperimentError::Folder(format!(
                "{what} is in use by another bohf process{pid}; wait for it to finish or stop it, then try again \
                 (lock file `{}`)",
                lock_path.display()
            )));
        }
        Err(TryLockError::Error(e)) => return Err(cannot(e)),
    }
    // Ours now: record our pid for the next process' message.
    file.set_len(0).map_err(cannot)?;
    file.seek(SeekFrom::Start(0)).map_err(cannot)?;
    write!(file, "{}", std::process::id()).map_err(cannot)?;
    file.flush().map_err(cannot)?;
    Ok(LockGuard { file })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_is_refused_with_the_pid_and_a_dropped_lock_is_free_again() {
        let dir = std::env::temp_dir().join(format!("bohf-lock-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("x.lock");
        let first = lock_exclusive(&path, "session `x`").unwrap();
        // A second handle in the same process conflicts too (flock-style locks are per open file).
        let e = lock_exclusive(&path, "session `x`").unwrap_err().to_string();
        assert!(e.contains("session `x` is in use by another bohf process"), "{e}");
        assert!(e.contains(&format!("(pid {})", std::process::id())), "{e}");
        drop(first);
        drop(lock_exclusive(&path, "session `x`").unwrap());
        // Shared locks coexist, and exclude an exclusive one.
        let (a, b) = (lock_shared(&path, "folder `x`").unwrap(), lock_shared(&path, "folder `x`").unwrap());
        let e = lock_exclusive(&path, "folder `x`").unwrap_err().to_string();
        assert!(e.contains("folder `x` is in use by another bohf process"), "{e}");
        drop((a, b));
        drop(lock_exclusive(&path, "folder `x`").unwrap());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
