//! What the proxy's clients are subscribed to, kept upstream on the first connection.
//!
//! The bridge server keeps each client's own subscriptions (a 2025 session's
//! `resources/subscribe`, a 2026 `subscriptions/listen` stream's filter) and sends each
//! client the changes it asked for; this module makes the upstream server send the
//! proxy those changes. A 2025 server is sent `resources/subscribe` for a URI when the
//! first client subscribes to it and `resources/unsubscribe` when the last one leaves; a
//! 2026 server gets one `subscriptions/listen` stream for list changes and every URI
//! subscribed, opened again whenever that set changes. What arrives reaches the bridge
//! through the first connection's `on_change`.

use std::collections::BTreeMap;

use mcpwire::client::{Client, Subscription};
use mcpwire::protocol::subscriptions::SubscriptionFilter;
use mcpwire::protocol::Era;
use mcpwire::McpError;
use tokio::sync::Mutex;

use super::relay::upstream_error;

/// The resource URIs clients are subscribed to upstream, with how many of them each.
pub struct Subscriptions {
    upstream: Client,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    uris: BTreeMap<String, usize>,
    /// A 2026 upstream's listen stream, and its reader.
    listen: Option<tokio::task::JoinHandle<()>>,
}

impl Subscriptions {
    /// Over the first upstream connection; a 2026 one gets its listen stream for list
    /// changes now.
    pub async fn start(upstream: Client) -> Subscriptions {
        let subscriptions = Subscriptions { upstream, state: Mutex::default() };
        if subscriptions.upstream.era() == Era::Stateless {
            let mut state = subscriptions.state.lock().await;
            if let Err(e) = subscriptions.relisten(&mut state).await {
                tracing::debug!("the upstream refused subscriptions/listen: {e}");
            }
        }
        subscriptions
    }

    /// A client subscribed to `uri`.
    pub async fn subscribe(&self, uri: &str) -> Result<(), McpError> {
        let mut state = self.state.lock().await;
        if let Some(count) = state.uris.get_mut(uri) {
            *count += 1;
            return Ok(());
        }
        state.uris.insert(uri.to_owned(), 1);
        let told = match self.upstream.era() {
            Era::Stateful => self.upstream.subscribe(uri).await.map_err(upstream_error),
            Era::Stateless => self.relisten(&mut state).await,
        };
        if told.is_err() {
            state.uris.remove(uri);
        }
        told
    }

    /// A client that had subscribed to `uri` no longer is.
    pub async fn unsubscribe(&self, uri: &str) {
        let mut state = self.state.lock().await;
        match state.uris.get_mut(uri) {
            Some(count) if *count > 1 => *count -= 1,
            Some(_) => {
                state.uris.remove(uri);
                let told = match self.upstream.era() {
                    Era::Stateful => self.upstream.unsubscribe(uri).await.map_err(upstream_error),
                    Era::Stateless => self.relisten(&mut state).await,
                };
                if let Err(e) = told {
                    tracing::debug!(uri, "unsubscribing upstream failed: {e}");
                }
            }
            None => {}
        }
    }

    /// Opens a 2026 upstream's listen stream for list changes and `state`'s URIs, then
    /// closes the one it replaces (a change in between may arrive twice, none is lost).
    async fn relisten(&self, state: &mut State) -> Result<(), McpError> {
        let filter = SubscriptionFilter {
            tools_list_changed: Some(true),
            prompts_list_changed: Some(true),
            resources_list_changed: Some(true),
            resource_subscriptions: (!state.uris.is_empty()).then(|| state.uris.keys().cloned().collect()),
            ..Default::default()
        };
        let subscription = self.upstream.listen(filter).await.map_err(upstream_error)?;
        if let Some(old) = state.listen.replace(drain(subscription)) {
            old.abort();
        }
        Ok(())
    }
}

impl Drop for Subscriptions {
    fn drop(&mut self) {
        if let Some(listen) = self.state.get_mut().listen.take() {
            listen.abort();
        }
    }
}

/// Keeps a listen stream read (its notifications already reached `on_change`).
fn drain(mut subscription: Subscription) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move { while subscription.next().await.is_some() {} })
}
