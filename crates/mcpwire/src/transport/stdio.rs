//! The server side of stdio: messages on stdin, messages on stdout, nothing else ever on
//! stdout. Log to stderr (for example with a `tracing` subscriber writing to stderr).

use tokio::io::{Stdin, Stdout};

use super::io::IoTransport;

/// A transport on this process's stdin and stdout.
pub fn stdio() -> IoTransport<Stdin, Stdout> {
    IoTransport::new(tokio::io::stdin(), tokio::io::stdout())
}
