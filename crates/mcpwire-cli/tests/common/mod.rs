//! Helpers shared by the `mcpwire` binary's test targets: running it with its stderr
//! watched while it runs.
#![allow(dead_code, clippy::unwrap_used)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_mcpwire");

/// Spawns `mcpwire ARGS` with piped stderr, for tests that watch it while it runs.
pub fn spawn(args: &[&str]) -> Child {
    Command::new(BIN)
        .args(args)
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Reads `child`'s stderr lines on a thread; returns a receiver of lines.
pub fn stderr_lines(child: &mut Child) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    let err = child.stderr.take().unwrap();
    thread::spawn(move || {
        for line in BufReader::new(err).lines() {
            let Ok(line) = line else { return };
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    rx
}
