//! `subscriptions/listen` (2026): a long-lived request whose stream carries the
//! notifications asked for, each tagged with the subscription id. Dropping the
//! [`Subscription`] ends the stream (the request is cancelled).

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Mutex;
use std::time::Duration;

use mcpwire_protocol::meta::SUBSCRIPTION_ID;
use mcpwire_protocol::subscriptions::{SubscriptionFilter, SubscriptionsAcknowledgedNotificationParams};
use mcpwire_protocol::{methods, Era, IdKey, Notification, RequestId};
use serde_json::Map;
use tokio::sync::{mpsc, oneshot};

use super::router::{Listener, Listeners};
use super::Client;
use crate::error::RequestError;
use crate::jsonrpc::CallOptions;

/// How many notifications a subscription queues; while it is full, those that arrive are
/// dropped (the change they announce still empties the result cache).
const QUEUE: usize = 256;

/// An open listen stream.
pub struct Subscription {
    id: RequestId,
    acknowledged: SubscriptionFilter,
    receiver: mpsc::Receiver<Notification>,
    listeners: Listeners,
    request: tokio::task::JoinHandle<()>,
}

impl std::fmt::Debug for Subscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscription")
            .field("id", &self.id)
            .field("acknowledged", &self.acknowledged)
            .finish()
    }
}

impl Subscription {
    /// The subscription id (the listen request's id).
    pub fn id(&self) -> &RequestId {
        &self.id
    }

    /// What the server agreed to send (it may be less than what was asked).
    pub fn acknowledged(&self) -> &SubscriptionFilter {
        &self.acknowledged
    }

    /// The next notification, or `None` when the stream ended.
    pub async fn next(&mut self) -> Option<Notification> {
        self.receiver.recv().await
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.request.abort();
        self.listeners.lock().unwrap_or_else(|e| e.into_inner()).remove(&self.id.key());
    }
}

/// The 2026 listen streams [`Client::subscribe`] opened, by URI: each a task that reads
/// its stream (whose notifications reach `on_change` as they arrive) until aborted.
#[derive(Default)]
pub(crate) struct ResourceStreams(Mutex<HashMap<String, AbortOnDrop>>);

/// A task aborted when its handle is dropped.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl Client {
    /// [`Client::subscribe`] in 2026: a listen stream for `uri` alone (one already open is
    /// kept; one the server ended is opened again). Fails when the server does not grant
    /// resource subscriptions.
    pub(crate) async fn listen_to_resource(&self, uri: &str) -> Result<(), RequestError> {
        // A stream the server has ended is no longer kept: subscribing opens a new one.
        let streams = &self.inner.resource_streams.0;
        let open =
            streams.lock().unwrap_or_else(|e| e.into_inner()).get(uri).is_some_and(|s| !s.0.is_finished());
        if open {
            return Ok(());
        }
        let filter =
            SubscriptionFilter { resource_subscriptions: Some(vec![uri.to_owned()]), ..Default::default() };
        let mut stream = self.listen(filter).await?;
        let granted = stream
            .acknowledged()
            .resource_subscriptions
            .as_ref()
            .is_some_and(|uris| uris.iter().any(|u| u == uri));
        if !granted {
            return Err(RequestError::Protocol(format!("the server does not grant subscriptions to {uri}")));
        }
        // The stream's notifications reach `on_change` as the router sees them; this only
        // keeps the stream open and its queue empty.
        let reader = tokio::spawn(async move { while stream.next().await.is_some() {} });
        let mut streams = self.inner.resource_streams.0.lock().unwrap_or_else(|e| e.into_inner());
        streams.insert(uri.to_owned(), AbortOnDrop(reader));
        Ok(())
    }

    /// [`Client::unsubscribe`] in 2026: ends `uri`'s listen stream, if there is one.
    pub(crate) fn stop_listening_to_resource(&self, uri: &str) {
        let stream = self.inner.resource_streams.0.lock().unwrap_or_else(|e| e.into_inner()).remove(uri);
        drop(stream);
    }

    /// Opens a `subscriptions/listen` stream and waits for its acknowledgement. On a
    /// connection made from a saved discover result
    /// ([`ClientBuilder::prior_discover`](super::ClientBuilder::prior_discover)) the
    /// stream's first answer is watched as any request's is: an acknowledgement confirms
    /// the saved result, and a refusal that shows it stale makes the client probe again
    /// (the stream is opened once more if the server still speaks 2026, another version).
    pub async fn listen(&self, filter: SubscriptionFilter) -> Result<Subscription, RequestError> {
        self.watched(methods::SUBSCRIPTIONS_LISTEN, || self.listen_once(&filter)).await
    }

    /// [`Client::listen`], one attempt.
    async fn listen_once(&self, filter: &SubscriptionFilter) -> Result<Subscription, RequestError> {
        if self.era() != Era::Stateless {
            return Err(RequestError::Protocol("subscriptions/listen is a 2026-07-28 method".into()));
        }
        let n = self.inner.next_listen.fetch_add(1, Ordering::Relaxed);
        let id = RequestId::String(format!("listen-{n}"));
        let (tx, mut rx) = mpsc::channel(QUEUE);
        self.inner.listeners.lock().unwrap_or_else(|e| e.into_inner()).insert(id.key(), Listener::new(tx));
        // Until the subscription takes the queue over, a failure takes it out again.
        let mut registered = Registered { listeners: &self.inner.listeners, key: Some(id.key()) };
        let mut params = Map::new();
        params.insert("notifications".into(), serde_json::to_value(filter).map_err(RequestError::Encode)?);
        let raw = self.params(params, None, None)?;
        let peer = self.inner.peer.clone();
        let request_id = id.clone();
        let listeners = self.inner.listeners.clone();
        // How the listen request ended, for a stream that ends before its acknowledgement.
        let (ended_tx, mut ended) = oneshot::channel();
        let request = tokio::spawn(async move {
            // Listen streams last until cancelled: no timeout.
            let options = CallOptions {
                id: Some(request_id.clone()),
                timeout: Some(Duration::from_secs(365 * 24 * 3600)),
                ..Default::default()
            };
            let outcome = peer.request_raw(methods::SUBSCRIPTIONS_LISTEN, Some(raw), options).await;
            tracing::debug!(id = %request_id, "listen stream ended: {:?}", outcome.as_ref().map(|_| ()));
            // Told before the queue closes, so that whoever sees it closed can read why.
            let _ = ended_tx.send(outcome.map(drop));
            // The stream ended: close the subscription's queue.
            listeners.lock().unwrap_or_else(|e| e.into_inner()).remove(&request_id.key());
        });
        let ack = tokio::time::timeout(self.inner.options.request_timeout, rx.recv()).await;
        let acknowledged = match ack {
            // The acknowledgement names its stream (the spec's MUST); one that does not
            // could be any waiting listen's (the router hands it to each of them).
            Ok(Some(n))
                if n.method == methods::NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED
                    && super::router::stream_id(&n).is_none() =>
            {
                request.abort();
                return Err(RequestError::Protocol(format!(
                    "the server acknowledged a listen stream without its {SUBSCRIPTION_ID}"
                )));
            }
            Ok(Some(n)) if n.method == methods::NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED => n
                .parse_params::<SubscriptionsAcknowledgedNotificationParams>()
                .map(|p| p.notifications)
                .unwrap_or_default(),
            Ok(Some(n)) => {
                request.abort();
                return Err(RequestError::Protocol(format!(
                    "the listen stream began with {:?}, not an acknowledgement",
                    n.method
                )));
            }
            Ok(None) => {
                request.abort();
                return Err(match ended.try_recv() {
                    // A listen request the server refused fails with its error (a closed
                    // connection's included).
                    Ok(Err(error)) => error,
                    // One it answered before acknowledging: the server broke the stream's
                    // rule (the acknowledgement comes first), the connection is still up.
                    Ok(Ok(())) => RequestError::Protocol(
                        "the server ended the listen stream before acknowledging it".into(),
                    ),
                    Err(_) => RequestError::ConnectionClosed {
                        reason: Some("the listen stream ended before its acknowledgement".into()),
                    },
                });
            }
            Err(_) => {
                request.abort();
                return Err(RequestError::Timeout {
                    method: methods::SUBSCRIPTIONS_LISTEN.into(),
                    timeout: self.inner.options.request_timeout,
                });
            }
        };
        registered.key = None;
        Ok(Subscription { id, acknowledged, receiver: rx, listeners: self.inner.listeners.clone(), request })
    }
}

/// A listen's queue in the router's table, removed on drop unless `key` was taken (the
/// subscription then owns it): a listen that fails leaves nothing behind.
struct Registered<'a> {
    listeners: &'a Listeners,
    key: Option<IdKey>,
}

impl Drop for Registered<'_> {
    fn drop(&mut self) {
        if let Some(key) = self.key.take() {
            self.listeners.lock().unwrap_or_else(|e| e.into_inner()).remove(&key);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use mcpwire_protocol::{Message, Notification, ProtocolVersion};
    use serde_json::json;

    use super::*;
    use crate::transport::{memory, Outgoing, TransportEvent};

    /// A listen stream that begins with something other than its acknowledgement fails,
    /// and takes its queue out of the router's table (no entry per failed listen).
    #[tokio::test]
    async fn a_failed_listen_leaves_no_queue_behind() {
        let (ours, mut theirs) = memory::pair();
        tokio::spawn(async move {
            while let Some(event) = theirs.incoming.recv().await {
                let TransportEvent::Message(inbound) = event else { continue };
                let Message::Request(request) = inbound.message else { continue };
                let meta = json!({ "_meta": { "io.modelcontextprotocol/subscriptionId": request.id } });
                let changed = Notification::new(
                    methods::NOTIFICATION_TOOLS_LIST_CHANGED,
                    serde_json::value::to_raw_value(&meta).ok(),
                );
                let _ = theirs.outgoing.send(Outgoing::unrelated(changed)).await;
            }
        });
        let client = Client::builder("c", "1")
            .protocol_version(ProtocolVersion::V2026_07_28)
            .connect(ours)
            .await
            .unwrap();
        let filter = SubscriptionFilter { tools_list_changed: Some(true), ..Default::default() };
        let refused = client.listen(filter).await.unwrap_err();
        assert!(matches!(refused, RequestError::Protocol(_)), "{refused:?}");
        assert!(client.inner.listeners.lock().unwrap().is_empty());
        client.close().await;
    }
}
