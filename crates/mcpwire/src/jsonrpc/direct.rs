//! A connection with no reading loop: its messages are delivered by the tasks that
//! bring them, and its outgoing messages are placed by a router as they are sent. A 2025
//! HTTP session runs on one, so that an idle session is a few structures in memory
//! rather than a task and two queues.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};

use super::intake::{Inline, Intake, Next};
use super::{close_connection, DispatcherConfig, Handler, Outlet, Peer, Shared, State};
use crate::transport::{Outgoing, TransportEvent};

/// What takes a connection's messages as they are sent ([`Outlet::Direct`]).
pub(crate) trait Route: Send + Sync {
    /// Places `out` on its way to the peer. Never waits: it is called under the
    /// connection's outlet lock, from any task (and from destructors).
    fn route(&self, out: Outgoing);

    /// The connection was asked to shut down ([`Peer::close`], whoever called it): the
    /// router finishes the shutdown ([`Direct::close`]), since a direct connection has
    /// no loop of its own to do it.
    fn closing(self: Arc<Self>);
}

/// A connection with no reading loop and no task of its own: whoever has messages for it delivers
/// them ([`Direct::deliver`]), in the delivering task, under the same rules as
/// [`Dispatcher::run`](super::Dispatcher::run). Its outgoing messages go straight to a [`Route`]. A
/// 2025 HTTP session is one: its messages arrive with POSTs, which can take them in themselves, so
/// an idle session holds neither a task nor a queue (a few kilobytes each, over thousands of mostly
/// idle sessions).
pub(crate) struct Direct<H> {
    intake: Intake<H>,
}

impl<H: Handler> Direct<H> {
    /// A running connection served by `handler`, writing to `route`.
    pub(crate) fn new(handler: H, route: Weak<dyn Route>, config: Arc<DispatcherConfig>) -> Self {
        let shared = Arc::new(Shared::new(config, Outlet::Direct(route)));
        shared.state.store(State::Running as u8, Ordering::Release);
        Direct { intake: Intake::new(shared, Arc::new(handler), Inline::OwnTask) }
    }

    /// A handle for outbound messages.
    pub(crate) fn peer(&self) -> &Peer {
        &self.intake.peer
    }

    /// Takes in one event as the reading loop would; `false` once the connection is
    /// shutting down (the event is then dropped, as the loop stops reading). A future
    /// dropped half-way loses nothing: what it started runs on.
    pub(crate) async fn deliver(&self, event: TransportEvent) -> bool {
        if self.intake.peer.shared.shutdown.is_cancelled() {
            return false;
        }
        matches!(self.intake.take(event).await, Next::Read)
    }

    /// Shuts the connection down as the end of [`Dispatcher::run`](super::Dispatcher::run) does:
    /// in-flight requests are answered "Connection closed" (within the shutdown grace), outbound
    /// waiters fail, and the outlet closes.
    pub(crate) async fn close(&self) {
        close_connection(&self.intake.peer.shared, self.intake.tasks.clone(), None, false).await;
    }
}
