//! A scratch directory for one test, removed with everything in it when dropped (a failed
//! assertion included), so that no run leaves files in the temporary directory. A module
//! directory, not a test target; mcpwire-cli's test support includes it too.
#![allow(dead_code, clippy::unwrap_used)]

use std::path::{Path, PathBuf};

/// `<tmp>/mcpwire-<name>-<pid>`, empty when made; removed when dropped.
pub struct Scratch(PathBuf);

impl Scratch {
    /// A fresh directory named after `name` (unique among the test process's scratches)
    /// and this process.
    pub fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("mcpwire-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// `name` inside the directory.
    pub fn join(&self, name: impl AsRef<Path>) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
