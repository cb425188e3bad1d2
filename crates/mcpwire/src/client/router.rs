//! Routes the server's notifications that the client acts on (list changes, resource
//! updates, listen-stream frames, finished URL elicitations) in arrival order.
//!
//! The dispatcher runs each notification on its own task, so on a multi-threaded runtime
//! two log messages could reach `on_log` out of order, or after the response of the call
//! they belong to. Routing them on a task that sits between the transport and the
//! dispatcher keeps the order the server sent: every notification is handled before
//! anything that follows it (a response included) is passed on. The rest (progress,
//! cancellation, server requests, responses) goes to the dispatcher unchanged, except
//! that once the client is in the 2026 era a request from the server is dropped: a 2026
//! server sends none, and a 2026 client sends no responses (so not even an error).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use mcpwire_protocol::notifications::subscription_id;
use mcpwire_protocol::subscriptions::SubscriptionsListenResult;
use mcpwire_protocol::{methods, Era, IdKey, Message, Notification, Response};
use serde::Deserialize;
use tokio::sync::mpsc;

use super::cache::Cache;
use super::callbacks::{Callbacks, ServerChange};
use super::output_schema::OutputSchemas;
use super::tasks::TaskTools;
use crate::transport::{Connection, Inbound, Transport, TransportEvent, DEFAULT_CHANNEL_CAPACITY};

/// Open `subscriptions/listen` streams, by subscription id.
pub(crate) type Listeners = Arc<Mutex<HashMap<IdKey, Listener>>>;

/// One listen stream's queue, and whether the server has acknowledged it.
pub(crate) struct Listener {
    pub(crate) queue: mpsc::Sender<Notification>,
    pub(crate) acknowledged: bool,
}

impl Listener {
    /// A stream waiting for its acknowledgement.
    pub(crate) fn new(queue: mpsc::Sender<Notification>) -> Self {
        Listener { queue, acknowledged: false }
    }
}

/// The listen stream a notification names: the subscription id in its `_meta`.
pub(crate) fn stream_id(notification: &Notification) -> Option<mcpwire_protocol::RequestId> {
    #[derive(Deserialize)]
    struct MetaProbe {
        #[serde(rename = "_meta")]
        meta: Option<mcpwire_protocol::Meta>,
    }
    let meta = notification.parse_params::<MetaProbe>().ok().and_then(|p| p.meta);
    subscription_id(meta.as_ref())
}

pub(crate) struct Router {
    pub(crate) callbacks: Callbacks,
    pub(crate) cache: Arc<Cache>,
    /// The tools' output schemas, forgotten when the tool list changes.
    pub(crate) output_schemas: Arc<OutputSchemas>,
    /// The tools' 2025-11-25 task support, forgotten when the tool list changes.
    pub(crate) task_tools: Arc<TaskTools>,
    pub(crate) listeners: Listeners,
    /// The era, once the handshake or probe has chosen it.
    pub(crate) era: Arc<OnceLock<Era>>,
}

impl Router {
    /// Connects `transport` and routes its notifications on a task of their own; the
    /// returned connection carries everything else, in the same order.
    pub(crate) fn connect(self, transport: impl Transport) -> Connection {
        let Connection { mut incoming, outgoing } = transport.connect();
        let (tx, rx) = mpsc::channel(DEFAULT_CHANNEL_CAPACITY);
        tokio::spawn(async move {
            loop {
                let event = tokio::select! {
                    event = incoming.recv() => event,
                    // The dispatcher is gone: stop reading.
                    _ = tx.closed() => return,
                };
                let event = match event {
                    None => return,
                    // (Only a notification is unboxed and boxed again.)
                    Some(TransportEvent::Message(inbound))
                        if matches!(inbound.message, Message::Notification(_)) =>
                    {
                        let Inbound { message, meta } = *inbound;
                        match message {
                            Message::Notification(n) => match self.route(n) {
                                None => continue,
                                Some(message) => TransportEvent::message(message, meta),
                            },
                            other => TransportEvent::message(other, meta),
                        }
                    }
                    Some(TransportEvent::Message(inbound))
                        if matches!(inbound.message, Message::Request(_))
                            && self.era.get() == Some(&Era::Stateless) =>
                    {
                        if let Message::Request(request) = &inbound.message {
                            tracing::warn!(
                                method = %request.method,
                                id = %request.id,
                                "dropped a request from a 2026 server (the era has none to answer)"
                            );
                        }
                        continue;
                    }
                    // A 2026 client writes no responses, error responses to what it could
                    // not read included: such a frame is only logged. (One that answers a
                    // request of ours, with its id and no method, still goes on, one that
                    // is not JSON included: the dispatcher fails that request at once,
                    // writing nothing.)
                    Some(TransportEvent::Invalid(error))
                        if self.era.get() == Some(&Era::Stateless)
                            && (error.had_method || error.id.is_none()) =>
                    {
                        tracing::warn!(
                            code = error.code,
                            "dropped an unreadable frame from a 2026 server: {}",
                            error.message
                        );
                        continue;
                    }
                    Some(other) => other,
                };
                if tx.send(event).await.is_err() {
                    return;
                }
            }
        });
        Connection { incoming: rx, outgoing }
    }

    /// Handles a notification the client acts on, or gives back what goes on to the
    /// dispatcher: the notification itself, or (a server's cancel of a listen stream) the
    /// end of that listen request.
    fn route(&self, notification: Notification) -> Option<Message> {
        if notification.method == methods::NOTIFICATION_ELICITATION_COMPLETE {
            use mcpwire_protocol::elicitation::ElicitationCompleteNotificationParams;
            match (
                &self.callbacks.elicitation_complete,
                notification.parse_params::<ElicitationCompleteNotificationParams>(),
            ) {
                (Some(f), Ok(params)) => contained("elicitation complete", || f(params.elicitation_id)),
                (_, Err(e)) => tracing::debug!("ignored a malformed notifications/elicitation/complete: {e}"),
                (None, Ok(_)) => {}
            }
            return None;
        }
        // A server ends a listen stream (stdio) by cancelling the listen request: the
        // subscription's queue closes, and its owner sees the stream end. The request is
        // over, as if the server had sent its final result, which the dispatcher is given
        // instead: it then sends no cancel of its own for a request no longer in progress.
        if notification.method == methods::NOTIFICATION_CANCELLED {
            #[derive(Deserialize)]
            #[serde(rename_all = "camelCase")]
            struct Cancelled {
                request_id: mcpwire_protocol::RequestId,
            }
            if let Ok(c) = notification.parse_params::<Cancelled>() {
                let ended =
                    self.listeners.lock().unwrap_or_else(|e| e.into_inner()).remove(&c.request_id.key());
                if ended.is_some() {
                    tracing::debug!(id = %c.request_id, "the server ended a listen stream");
                    let closed = SubscriptionsListenResult::closed(&c.request_id);
                    let raw = serde_json::value::to_raw_value(&closed).ok()?;
                    return Some(Message::Response(Response::new(c.request_id, raw)));
                }
            }
            return Some(Message::Notification(notification));
        }
        // Listen-stream frames carry their subscription id.
        let stream = stream_id(&notification);
        let is_ack = notification.method == methods::NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED;
        if let Some(id) = &stream {
            let sender = {
                let mut listeners = self.listeners.lock().unwrap_or_else(|e| e.into_inner());
                listeners.get_mut(&id.key()).map(|listener| {
                    listener.acknowledged |= is_ack;
                    listener.queue.clone()
                })
            };
            if let Some(sender) = sender {
                self.apply_change(&notification);
                if sender.try_send(notification).is_err() {
                    tracing::debug!(%id, "a listen stream's queue is full or closed: dropped a notification");
                }
                return None;
            }
        }
        if is_ack {
            self.unattributed_ack(notification, stream.is_some());
            return None;
        }
        if self.apply_change(&notification) {
            return None;
        }
        Some(Message::Notification(notification))
    }

    /// An acknowledgement that names no open listen stream. One without a readable
    /// subscription id (which the spec has the server put on every notification of a
    /// listen stream, the acknowledgement first) cannot be told apart: every listen still
    /// waiting for its acknowledgement gets it, and fails as the server's protocol error at
    /// once rather than waiting out its timeout. One whose id is unknown (a stream already
    /// given up) is dropped.
    fn unattributed_ack(&self, ack: Notification, has_id: bool) {
        if has_id {
            tracing::debug!("dropped an acknowledgement of a listen stream no longer open");
            return;
        }
        let listeners = self.listeners.lock().unwrap_or_else(|e| e.into_inner());
        for listener in listeners.values().filter(|l| !l.acknowledged) {
            let _ = listener.queue.try_send(ack.clone());
        }
    }

    /// Invalidates cached results on a change notification and tells the user; `false`
    /// when `notification` is not a change notification.
    fn apply_change(&self, notification: &Notification) -> bool {
        let change = match notification.method.as_str() {
            methods::NOTIFICATION_TOOLS_LIST_CHANGED => ServerChange::ToolsChanged,
            methods::NOTIFICATION_PROMPTS_LIST_CHANGED => ServerChange::PromptsChanged,
            methods::NOTIFICATION_RESOURCES_LIST_CHANGED => ServerChange::ResourcesChanged,
            methods::NOTIFICATION_RESOURCES_UPDATED => {
                #[derive(Deserialize)]
                struct Updated {
                    uri: String,
                }
                match notification.parse_params::<Updated>() {
                    Ok(u) => ServerChange::ResourceUpdated(u.uri),
                    Err(_) => return false,
                }
            }
            _ => return false,
        };
        self.cache.invalidate(&change);
        if change == ServerChange::ToolsChanged {
            self.output_schemas.forget();
            self.task_tools.forget();
        }
        if let Some(f) = &self.callbacks.change {
            contained("change", || f(change));
        }
        true
    }
}

/// Runs a user's notification callback on the routing task, where a panic would end the
/// task and with it the connection: a callback that panics loses its notification only.
fn contained(callback: &str, f: impl FnOnce()) {
    if std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err() {
        tracing::error!("the {callback} callback panicked; the notification is dropped");
    }
}
