//! Ctrl-C (`SIGINT`) as an event commands can wait for. Installing the handler replaces
//! the default "terminate" action, so the command can cancel its request and exit 130.

use std::sync::OnceLock;

use tokio::sync::watch;

static INTERRUPTS: OnceLock<watch::Receiver<u64>> = OnceLock::new();

/// Starts counting interrupts (idempotent). Must be called inside the runtime.
pub fn install() -> std::io::Result<()> {
    if INTERRUPTS.get().is_some() {
        return Ok(());
    }
    let (tx, rx) = watch::channel(0u64);
    #[cfg(unix)]
    {
        let mut signal = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())?;
        tokio::spawn(async move {
            while signal.recv().await.is_some() {
                tx.send_modify(|n| *n += 1);
            }
        });
    }
    #[cfg(not(unix))]
    tokio::spawn(async move {
        while tokio::signal::ctrl_c().await.is_ok() {
            tx.send_modify(|n| *n += 1);
        }
    });
    let _ = INTERRUPTS.set(rx);
    Ok(())
}

/// Resolves once `count` interrupts have arrived (never, if none can).
pub async fn interrupted(count: u64) {
    let Some(rx) = INTERRUPTS.get() else { return std::future::pending().await };
    let mut rx = rx.clone();
    if rx.wait_for(|n| *n >= count).await.is_err() {
        std::future::pending::<()>().await;
    }
}
