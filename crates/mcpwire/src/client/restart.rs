//! A spawned 2026 server that exits unexpectedly is started again.
//!
//! The 2026 stdio transport asks this of a client: the protocol keeps no state between
//! requests, so the requests the dead process had not answered can be sent again to a new
//! one, and open `subscriptions/listen` streams must be re-established. [`Supervised`]
//! sits between the client's dispatcher and the child's transport: it remembers each
//! request until it is answered or cancelled, and when the child's transport closes while
//! restarts are allowed (the client connected in 2026 and is not closing), it spawns the
//! same command again and sends those requests to the new process (a listen stream gets a
//! new acknowledgement, then its notifications). A server that keeps dying stops being
//! restarted after [`ClientOptions::max_restarts`](super::ClientOptions::max_restarts)
//! restarts within [`RESTART_WINDOW`]: the connection then closes with the last exit's
//! reason, as it always does in 2025. A server that exits with success is not restarted:
//! it ended the connection on purpose, as a server may.

use std::collections::{HashMap, VecDeque};
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use mcpwire_protocol::notifications::CancelledNotificationParams;
use mcpwire_protocol::{methods, Message, RequestId};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::transport::child::{ChildHandle, ChildProcess};
use crate::transport::{Connection, Outgoing, TransportEvent, DEFAULT_CHANNEL_CAPACITY};

/// The span over which [`ClientOptions::max_restarts`](super::ClientOptions::max_restarts)
/// counts restarts.
pub(crate) const RESTART_WINDOW: Duration = Duration::from_secs(60);

/// A spawned server under supervision: the handle of the process running now, and the
/// switches of its relay.
pub(crate) struct Supervised {
    shared: Arc<Shared>,
}

/// What the client and the relay's two tasks share.
struct Shared {
    /// The process running now (replaced by each restart; taken by shutdown).
    child: Mutex<Option<ChildHandle>>,
    /// Where messages for the process running now go, and the requests it has not
    /// answered.
    state: Mutex<State>,
    /// Set once the client connected in the 2026 era, where a restart is allowed.
    enabled: AtomicBool,
    /// Cancelled when the client closes (or its dispatcher ends): no more restarts.
    closing: CancellationToken,
}

struct State {
    /// The transport of the process running now; `None` once the client is done.
    outgoing: Option<mpsc::Sender<Outgoing>>,
    /// Requests sent and not yet answered, in the order they were sent (`next` counts).
    unanswered: HashMap<RequestId, (u64, Message)>,
    next: u64,
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn child(&self) -> MutexGuard<'_, Option<ChildHandle>> {
        self.child.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Shuts down the process running now, if any (at once if it has exited).
    async fn end_child(&self) {
        let child = self.child().take();
        if let Some(child) = child {
            child.shutdown().await;
        }
    }
}

impl Supervised {
    /// Spawns `process` and the relay in front of it; the returned connection is the
    /// dispatcher's. At most `max_restarts` restarts within [`RESTART_WINDOW`], once
    /// [`Supervised::allow_restarts`] has been called.
    pub(crate) fn start(process: ChildProcess, max_restarts: u32) -> io::Result<(Connection, Supervised)> {
        let (child_connection, handle) = process.start()?;
        let shared = Arc::new(Shared {
            child: Mutex::new(Some(handle)),
            state: Mutex::new(State {
                outgoing: Some(child_connection.outgoing),
                unanswered: HashMap::new(),
                next: 0,
            }),
            enabled: AtomicBool::new(false),
            closing: CancellationToken::new(),
        });
        let (to_dispatcher, incoming) = mpsc::channel(DEFAULT_CHANNEL_CAPACITY);
        let (outgoing, from_dispatcher) = mpsc::channel(DEFAULT_CHANNEL_CAPACITY);
        tokio::spawn(send_out(shared.clone(), from_dispatcher));
        let restarts = Restarts { process, max: max_restarts as usize, recent: VecDeque::new() };
        tokio::spawn(bring_in(shared.clone(), child_connection.incoming, to_dispatcher, restarts));
        Ok((Connection { incoming, outgoing }, Supervised { shared }))
    }

    /// Restarts are allowed from now on (the client connected in 2026).
    pub(crate) fn allow_restarts(&self) {
        self.shared.enabled.store(true, Ordering::Release);
    }

    /// Restarts are no longer allowed (a new probe found the server 2025-era, whose
    /// sessions do not survive their process).
    pub(crate) fn forbid_restarts(&self) {
        self.shared.enabled.store(false, Ordering::Release);
    }

    /// Shuts the server down as [`ChildHandle::shutdown`] does; no restart follows.
    pub(crate) async fn shutdown(&self) {
        self.shared.closing.cancel();
        self.shared.end_child().await;
    }
}

/// A server whose client is gone without [`Supervised::shutdown`] (a handshake abandoned
/// by its caller, a client dropped unclosed) is shut down in the background, the same
/// way: it is not left running with nobody to answer or stop it.
impl Drop for Supervised {
    fn drop(&mut self) {
        self.shared.closing.cancel();
        let Some(child) = self.shared.child().take() else { return };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn(async move { child.shutdown().await })),
            // No runtime to wait on: the handle's drop kills the process.
            Err(_) => drop(child),
        }
    }
}

/// The dispatcher's messages to the process running now; once restarts are allowed,
/// requests are remembered until answered or cancelled. When the dispatcher is done, the
/// process's stdin is closed (its sender dropped) and no restart follows.
async fn send_out(shared: Arc<Shared>, mut from_dispatcher: mpsc::Receiver<Outgoing>) {
    while let Some(out) = from_dispatcher.recv().await {
        let sender = {
            let mut state = shared.state();
            // Nothing is sent again where there is no restart (before the era is known: the
            // probe; in 2025).
            let remember = shared.enabled.load(Ordering::Acquire);
            match out.message() {
                Message::Request(request) if remember => {
                    let n = state.next;
                    state.next += 1;
                    state.unanswered.insert(request.id.clone(), (n, out.message().clone()));
                }
                Message::Notification(note) if note.method == methods::NOTIFICATION_CANCELLED => {
                    if let Some(id) =
                        note.parse_params::<CancelledNotificationParams>().ok().and_then(|p| p.request_id)
                    {
                        state.unanswered.remove(&id);
                    }
                }
                _ => {}
            }
            state.outgoing.clone()
        };
        // A process that died takes nothing more; what it was sent is sent again to the
        // next one (it is remembered above).
        if let Some(sender) = sender {
            let _ = sender.send(out).await;
        }
    }
    shared.closing.cancel();
    shared.state().outgoing = None;
}

/// When and how often the server was restarted.
struct Restarts {
    process: ChildProcess,
    max: usize,
    /// The restarts within the last [`RESTART_WINDOW`].
    recent: VecDeque<Instant>,
}

impl Restarts {
    /// Whether one more restart, `now`, stays within the limit (and counts it if so).
    fn another(&mut self, now: Instant) -> bool {
        while self.recent.front().is_some_and(|t| now.duration_since(*t) > RESTART_WINDOW) {
            self.recent.pop_front();
        }
        if self.recent.len() >= self.max {
            return false;
        }
        self.recent.push_back(now);
        true
    }
}

/// The process's messages to the dispatcher, answered requests forgotten. When the
/// process's transport closes, the server is restarted if that is allowed, and what it
/// had not answered is sent to the new process; otherwise the dispatcher is told the
/// connection closed.
async fn bring_in(
    shared: Arc<Shared>,
    mut incoming: mpsc::Receiver<TransportEvent>,
    to_dispatcher: mpsc::Sender<TransportEvent>,
    mut restarts: Restarts,
) {
    loop {
        let event = incoming.recv().await.unwrap_or_else(|| TransportEvent::closed(None));
        let reason = match event {
            TransportEvent::Closed { reason } => reason.map(|r| *r),
            TransportEvent::Message(inbound) => {
                if let Message::Response(mcpwire_protocol::Response { id, .. })
                | Message::Error(mcpwire_protocol::ErrorResponse { id: Some(id), .. }) = &inbound.message
                {
                    shared.state().unanswered.remove(id);
                }
                if to_dispatcher.send(TransportEvent::Message(inbound)).await.is_err() {
                    return;
                }
                continue;
            }
            other => {
                if let TransportEvent::Failed(failure) = &other {
                    shared.state().unanswered.remove(&failure.id);
                }
                if to_dispatcher.send(other).await.is_err() {
                    return;
                }
                continue;
            }
        };
        // A server that exited with success chose to stop (the spec lets it end the
        // connection so): that is no crash.
        let stopped = shared.child().as_ref().and_then(ChildHandle::try_status).is_some_and(|s| s.success());
        let restartable =
            shared.enabled.load(Ordering::Acquire) && !shared.closing.is_cancelled() && !stopped;
        let restarted = match restartable && restarts.another(Instant::now()) {
            true => restart(&shared, &restarts.process, reason.as_deref()).await,
            false => None,
        };
        match restarted {
            Some(next) => incoming = next,
            None => {
                let _ = to_dispatcher.send(TransportEvent::closed(reason)).await;
                return;
            }
        }
    }
}

/// Starts the server again after its process ended (`reason`), and sends the new process
/// every request the old one had not answered, in the order they were first sent. `None`
/// when it could not be started, or the client closed meanwhile.
async fn restart(
    shared: &Shared,
    process: &ChildProcess,
    reason: Option<&str>,
) -> Option<mpsc::Receiver<TransportEvent>> {
    let reason = reason.unwrap_or("the server process ended");
    // A process that closed its stdout may still run: it is ended first (at once if it
    // has exited), so that two never run side by side.
    shared.end_child().await;
    let (connection, handle) = match process.start() {
        Ok(started) => started,
        Err(e) => {
            tracing::warn!("{reason}; starting it again failed: {e}");
            return None;
        }
    };
    let unwanted = {
        // Checked under the lock that `Supervised::shutdown` takes the handle with: a
        // shutdown either finds this process or was already under way (then it is ended
        // here).
        let mut child = shared.child();
        match shared.closing.is_cancelled() {
            true => Some(handle),
            false => {
                *child = Some(handle);
                None
            }
        }
    };
    if let Some(unwanted) = unwanted {
        unwanted.shutdown().await;
        return None;
    }
    let resend = {
        let mut state = shared.state();
        match state.outgoing {
            // The dispatcher ended meanwhile.
            None => None,
            Some(_) => {
                state.outgoing = Some(connection.outgoing.clone());
                let mut resend: Vec<_> = state.unanswered.values().cloned().collect();
                resend.sort_by_key(|(n, _)| *n);
                Some(resend)
            }
        }
    };
    let Some(resend) = resend else {
        // So does the new process.
        shared.end_child().await;
        return None;
    };
    tracing::warn!(
        "{reason}; started it again, and resent the {} requests it had not answered",
        resend.len()
    );
    for (_, message) in resend {
        if connection.outgoing.send(Outgoing::unrelated(message)).await.is_err() {
            break;
        }
    }
    Some(connection.incoming)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restarts_are_counted_within_the_window() {
        let mut restarts = Restarts { process: ChildProcess::new("true"), max: 2, recent: VecDeque::new() };
        let start = Instant::now();
        assert!(restarts.another(start));
        assert!(restarts.another(start + Duration::from_secs(1)));
        assert!(!restarts.another(start + Duration::from_secs(2)), "a third restart within the window");
        // Restarts older than the window no longer count.
        let later = start + RESTART_WINDOW + Duration::from_secs(2);
        assert!(restarts.another(later));
        assert_eq!(restarts.recent.len(), 1);
        let mut never = Restarts { process: ChildProcess::new("true"), max: 0, recent: VecDeque::new() };
        assert!(!never.another(start));
    }
}
