//! stdio through tokio's `Stdin` and `Stdout` alone: every platform tokio runs on has
//! them. Each read and write is a hand-off to the blocking thread pool, which is the cost
//! of not depending on a platform's way of watching a pipe.

/// stdin as tokio reads it.
pub(super) type Input = tokio::io::Stdin;
/// stdout as tokio writes it.
pub(super) type Output = tokio::io::Stdout;

/// This process's stdin.
pub(super) fn open_input() -> Input {
    tokio::io::stdin()
}

/// This process's stdout.
pub(super) fn open_output() -> Output {
    tokio::io::stdout()
}
