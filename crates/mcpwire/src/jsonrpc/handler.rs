//! What the dispatcher calls for inbound requests and notifications.

use std::future::Future;

use mcpwire_protocol::{Notification, RawJson, Request};

use super::context::{NotificationContext, RequestContext};
use crate::error::McpError;

/// Handles what the peer sends. Each request and each notification runs as its own task,
/// started in arrival order; a request's result (or error) is written by the dispatcher,
/// unless the peer cancelled it. (A stateless HTTP request, served alone, runs inside the
/// task of its HTTP request instead, under the same rules.)
pub trait Handler: Send + Sync + 'static {
    /// Called for each request as it arrives, in arrival order, before its task starts
    /// (tasks can start running in any order on a multi-threaded runtime). For quick,
    /// order-sensitive bookkeeping only (a stream's first request deciding its protocol
    /// era, say): it runs on the reading task and must not block.
    fn on_arrival(&self, request: &Request) {
        let _ = request;
    }

    /// Called for each notification as it arrives, in arrival order, on the reading task,
    /// before any task starts for it: takes (returns `None` for) what must be handled in
    /// wire order with the progress the dispatcher delivers there (a client's log
    /// messages, which must not overtake the progress sent before them). It must not
    /// block. What it gives back is handled by [`Handler::on_notification`] on a task.
    fn on_notification_arrival(&self, notification: Notification) -> Option<Notification> {
        Some(notification)
    }

    /// Handles a request and returns its raw result.
    fn on_request(
        &self,
        request: Request,
        ctx: RequestContext,
    ) -> impl Future<Output = Result<RawJson, McpError>> + Send;

    /// Whether this handler serves the 2026 era, where codes `-32000…-32019` should not
    /// be used: a request that the connection's shutdown stops before it is answered then
    /// gets `-32603` "Internal error: the server is shutting down" rather than the
    /// `-32000` "Connection closed" of the 2025 era's SDKs. Asked as each request arrives,
    /// after [`Handler::on_arrival`]; `false` unless a handler says otherwise.
    fn in_stateless_era(&self) -> bool {
        false
    }

    /// Handles a notification. `notifications/cancelled` never reaches here (the
    /// dispatcher applies it), nor does progress for a request this side sent with a
    /// progress callback.
    fn on_notification(
        &self,
        notification: Notification,
        ctx: NotificationContext,
    ) -> impl Future<Output = ()> + Send {
        let _ = (notification, ctx);
        async {}
    }
}

/// A handler that answers every request with `-32601` and ignores notifications: the
/// inbound side of a peer that only sends requests.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoHandler;

impl Handler for NoHandler {
    async fn on_request(&self, request: Request, _ctx: RequestContext) -> Result<RawJson, McpError> {
        Err(McpError::method_not_found(&request.method))
    }
}
