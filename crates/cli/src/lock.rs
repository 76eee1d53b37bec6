//! An exclusive lock on a file the operating system releases when the process ends (even by
//! kill -9), so that two bohf processes never write one results folder or session at once.

use crate::CliError;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::Path;

/// Holds the lock until dropped (or the process ends).
#[derive(Debug)]
pub struct LockGuard {
    _file: File,
}

/// Takes an exclusive lock on `lock_file_path` (created if missing; it records the holder's pid) or
/// fails at once with an error naming `what` and the pid of the process that holds it.
pub fn lock_exclusive(lock_file_path: &Path, what: &str) -> Result<LockGuard, CliError> {
    lock(lock_file_path, what, false)
}

/// Takes a shared lock on `lock_file_path`: any number of processes may hold it together (e.g. the
/// shards of one experiment), but not while one holds it exclusively, and an exclusive lock is
/// refused while any shared holder lives. Records the pid of the latest holder.
pub fn lock_shared(lock_file_path: &Path, what: &str) -> Result<LockGuard, CliError> {
    lock(lock_file_path, what, true)
}

fn lock(lock_file_path: &Path, what: &str, shared: bool) -> Result<LockGuard, CliError> {
    let cannot = |e: std::io::Error| {
        CliError::msg(format!("cannot lock {what} (lock file `{}`): {e}", lock_file_path.display()))
    };
    let mut file =
        OpenOptions::new().read(true).write(true).create(true).truncate(false).open(lock_file_path).map_err(cannot)?;
    let attempt = if shared { file.try_lock_shared() } else { file.try_lock() };
    match attempt {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            let pid = holder.trim();
            let by = if pid.is_empty() { "another bohf process".to_string() } else { format!("bohf process {pid}") };
            return Err(CliError::msg(format!(
                "{what} is in use by {by} (lock file `{}`); wait for it to finish, or stop it first",
                lock_file_path.display()
            )));
        }
        Err(TryLockError::Error(e)) => return Err(cannot(e)),
    }
    file.set_len(0).map_err(cannot)?;
    file.rewind().map_err(cannot)?;
    writeln!(file, "{}", std::process::id()).map_err(cannot)?;
    Ok(LockGuard { _file: file })
}
