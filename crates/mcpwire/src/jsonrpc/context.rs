//! What an inbound request's handler can reach: its cancellation token, the transport's
//! facts, and a way to send messages that belong to this request.

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::Arc;

use mcpwire_protocol::{RawJson, RequestId};
use serde_json::value::RawValue;
use tokio_util::sync::CancellationToken;

use super::outbound::CallOptions;
use super::Peer;
use crate::error::RequestError;
use crate::extensions::Extensions;

/// The state of one inbound request, shared by its task, its context and the in-flight
/// table. Settling is decided once, under the in-flight table's lock.
#[derive(Debug)]
pub(crate) struct InFlight {
    pub(crate) id: RequestId,
    /// Cancelled by the peer's `notifications/cancelled` or by shutdown.
    pub(crate) cancel: CancellationToken,
    /// Set (under the table lock) when the peer cancelled this request.
    pub(crate) peer_cancelled: AtomicBool,
    /// [`Settle`] state.
    pub(crate) settled: AtomicU8,
}

/// Whether a request has settled and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Settle {
    Running = 0,
    Answered = 1,
    Unanswered = 2,
}

impl InFlight {
    pub(crate) fn is_settled(&self) -> bool {
        self.settled.load(Ordering::Acquire) != Settle::Running as u8
    }
}

/// The context of one inbound request.
#[derive(Clone)]
pub struct RequestContext {
    pub(crate) entry: Arc<InFlight>,
    pub(crate) peer: Peer,
    pub(crate) extensions: Extensions,
    pub(crate) progress_token: Option<RawJson>,
    pub(crate) back_channel: bool,
}

impl RequestContext {
    /// The request's id.
    pub fn id(&self) -> &RequestId {
        &self.entry.id
    }

    /// Cancelled when the peer cancels this request or the connection shuts down. In
    /// interrupt mode the handler's future is also dropped; in signal mode the handler
    /// should watch this token and stop early.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.entry.cancel
    }

    /// Whether the request was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.entry.cancel.is_cancelled()
    }

    /// Transport facts (HTTP headers, the authenticated principal, ...).
    pub fn extensions(&self) -> &Extensions {
        &self.extensions
    }

    /// The connection's peer handle, for messages unrelated to this request.
    pub fn peer(&self) -> &Peer {
        &self.peer
    }

    /// The request's `_meta.progressToken`, raw, if it asked for progress.
    pub fn progress_token(&self) -> Option<&RawValue> {
        self.progress_token.as_deref()
    }

    /// Sends a notification that belongs to this request (progress, a log message). Once
    /// the request has settled this is dropped with a debug log: nothing may follow a
    /// request's response.
    pub async fn notify(&self, method: &str, params: Option<RawJson>) {
        if self.entry.is_settled() {
            tracing::debug!(method, id = %self.entry.id, "dropped a notification for a settled request");
            return;
        }
        self.peer.notify_related(method, params, Some(self.entry.id.clone())).await;
    }

    /// Sends `notifications/progress` for this request, if it asked for progress (no-op
    /// otherwise).
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let Some(token) = self.progress_token.as_deref() else { return };
        let mut params = serde_json::Map::new();
        params.insert("progressToken".into(), serde_json::from_str(token.get()).unwrap_or_default());
        params.insert("progress".into(), progress.into());
        if let Some(total) = total {
            params.insert("total".into(), total.into());
        }
        if let Some(message) = message {
            params.insert("message".into(), message.into());
        }
        let raw = serde_json::value::to_raw_value(&params).ok();
        self.notify(mcpwire_protocol::methods::NOTIFICATION_PROGRESS, raw).await;
    }

    /// Sends a request to the peer on behalf of this request (a server asking the client
    /// for sampling, elicitation or roots mid-call). HTTP transports carry it on this
    /// request's stream.
    pub async fn request(
        &self,
        method: &str,
        params: Option<RawJson>,
        mut options: CallOptions,
    ) -> Result<RawJson, RequestError> {
        if self.entry.is_settled() {
            return Err(RequestError::Protocol("the request this belongs to has already settled".into()));
        }
        if !self.back_channel {
            return Err(RequestError::NoBackChannel);
        }
        options.related = Some(self.entry.id.clone());
        self.peer.request_raw(method, params, options).await
    }
}

/// The context of one inbound notification.
#[derive(Clone)]
pub struct NotificationContext {
    pub(crate) peer: Peer,
    pub(crate) extensions: Extensions,
}

impl NotificationContext {
    /// The connection's peer handle.
    pub fn peer(&self) -> &Peer {
        &self.peer
    }

    /// Transport facts.
    pub fn extensions(&self) -> &Extensions {
        &self.extensions
    }
}
