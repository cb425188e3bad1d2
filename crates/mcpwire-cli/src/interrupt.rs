//! Ctrl-C (`SIGINT`), and on Unix `SIGTERM` and `SIGHUP`, as an event commands can wait
//! for. Installing the handlers replaces the default "terminate" action, so a command
//! can cancel its request, shut its stdio servers down as the spec says (close stdin,
//! then `SIGTERM`, then `SIGKILL`) and exit: a service manager's or container runtime's
//! `SIGTERM` must not leave a proxy's server processes behind.

use std::sync::OnceLock;

use tokio::sync::watch;

use crate::errors::EXIT_INTERRUPTED;

/// How many stop signals have arrived, and the number of the first (0 for Ctrl-C off
/// Unix).
#[derive(Clone, Copy, Default)]
struct Signals {
    count: u64,
    first: i32,
}

static INTERRUPTS: OnceLock<watch::Receiver<Signals>> = OnceLock::new();

/// Starts counting stop signals (idempotent). Must be called inside the runtime.
pub fn install() -> std::io::Result<()> {
    if INTERRUPTS.get().is_some() {
        return Ok(());
    }
    let (tx, rx) = watch::channel(Signals::default());
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        for (kind, number) in
            [(SignalKind::interrupt(), 2), (SignalKind::terminate(), 15), (SignalKind::hangup(), 1)]
        {
            let mut signal = signal(kind)?;
            let tx = tx.clone();
            tokio::spawn(async move {
                while signal.recv().await.is_some() {
                    tx.send_modify(|s| {
                        if s.count == 0 {
                            s.first = number;
                        }
                        s.count += 1;
                    });
                }
            });
        }
    }
    #[cfg(not(unix))]
    tokio::spawn(async move {
        while tokio::signal::ctrl_c().await.is_ok() {
            tx.send_modify(|s| s.count += 1);
        }
    });
    let _ = INTERRUPTS.set(rx);
    Ok(())
}

/// Resolves once `count` stop signals have arrived (never, if none can).
pub async fn interrupted(count: u64) {
    let Some(rx) = INTERRUPTS.get() else { return std::future::pending().await };
    let mut rx = rx.clone();
    if rx.wait_for(|s| s.count >= count).await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// Whether a stop signal has arrived.
pub fn received() -> bool {
    INTERRUPTS.get().is_some_and(|rx| rx.borrow().count > 0)
}

/// The exit status of a command that stopped on a signal: 128 + the first signal's
/// number, as a shell reports a process the signal killed (130 for Ctrl-C).
pub fn exit_status() -> i32 {
    match INTERRUPTS.get().map(|rx| *rx.borrow()) {
        Some(Signals { first, .. }) if first > 0 => 128 + first,
        _ => EXIT_INTERRUPTED,
    }
}
