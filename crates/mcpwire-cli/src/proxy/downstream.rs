//! The proxy's downstream 2025 clients, as connections it can ask things outside a
//! request: a 2025 server asks for roots at start-up (after `initialized`) and again
//! when told they changed, on an upstream connection that no request may hold by then.
//! The bridge's middleware notes each session's connection (in [`Clients`]) and passes a
//! client's `notifications/roots/list_changed` upstream (the bridge server would take
//! it as its own news and drop it). It also tells the upstream server which resources
//! clients subscribe to ([`Subscriptions`]): a 2025 client's `resources/subscribe` and
//! `resources/unsubscribe` once the bridge has recorded them, and a 2026 client's
//! `subscriptions/listen` URIs while its stream is open.
//!
//! [`Clients`]: super::clients::Clients

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use mcpwire::jsonrpc::{NotificationContext, RequestContext};
use mcpwire::protocol::resources::SubscribeRequestParams;
use mcpwire::protocol::subscriptions::SubscriptionsListenRequestParams;
use mcpwire::protocol::{methods, Notification, RawJson, Request};
use mcpwire::server::{Middleware, Next, NextNotification};
use mcpwire::McpError;

use super::clients::client_key;
use super::subscriptions::Subscriptions;
use super::upstream::Pool;

type Boxed<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// The bridge's middleware: notes each client's connection, and tells the upstream
/// connections about a client's new roots and subscriptions.
pub struct Downstream {
    pool: Arc<Pool>,
    subscriptions: Arc<Subscriptions>,
}

impl Downstream {
    /// Over the proxy's upstream connections.
    pub fn new(pool: Arc<Pool>, subscriptions: Arc<Subscriptions>) -> Self {
        Downstream { pool, subscriptions }
    }
}

/// A request's params read as `T`, if they are that.
fn params<T: serde::de::DeserializeOwned>(request: &Request) -> Option<T> {
    serde_json::from_str(request.params.as_deref()?.get()).ok()
}

/// The URIs a 2026 listen stream subscribes to, released upstream when it ends.
struct Listening {
    subscriptions: Arc<Subscriptions>,
    uris: Vec<String>,
}

impl Drop for Listening {
    fn drop(&mut self) {
        let (subscriptions, uris) = (self.subscriptions.clone(), std::mem::take(&mut self.uris));
        if let (false, Ok(runtime)) = (uris.is_empty(), tokio::runtime::Handle::try_current()) {
            runtime.spawn(async move {
                for uri in uris {
                    subscriptions.unsubscribe(&uri).await;
                }
            });
        }
    }
}

impl Middleware for Downstream {
    fn on_request(
        &self,
        request: Request,
        ctx: RequestContext,
        next: Next,
    ) -> Boxed<Result<RawJson, McpError>> {
        if let Some(key) = client_key(ctx.extensions()) {
            self.pool.clients.note(key, ctx.peer());
        }
        let subscriptions = self.subscriptions.clone();
        match request.method.as_str() {
            methods::RESOURCES_SUBSCRIBE | methods::RESOURCES_UNSUBSCRIBE => {
                let subscribe = request.method == methods::RESOURCES_SUBSCRIBE;
                let uri = params::<SubscribeRequestParams>(&request).map(|p| p.uri);
                Box::pin(async move {
                    // The bridge records it first (or refuses it: a 2026 client, bad params).
                    let answer = next.run(request, ctx).await?;
                    match (uri, subscribe) {
                        (Some(uri), true) => subscriptions.subscribe(&uri).await?,
                        (Some(uri), false) => subscriptions.unsubscribe(&uri).await,
                        (None, _) => {}
                    }
                    Ok(answer)
                })
            }
            methods::SUBSCRIPTIONS_LISTEN => {
                let uris = params::<SubscriptionsListenRequestParams>(&request)
                    .and_then(|p| p.notifications.resource_subscriptions)
                    .unwrap_or_default();
                Box::pin(async move {
                    let mut listening = Listening { subscriptions, uris: Vec::new() };
                    for uri in uris {
                        match listening.subscriptions.subscribe(&uri).await {
                            Ok(()) => listening.uris.push(uri),
                            Err(e) => tracing::debug!(uri, "subscribing upstream failed: {e}"),
                        }
                    }
                    // The stream runs until the client closes it; then `listening` drops.
                    next.run(request, ctx).await
                })
            }
            _ => next.run(request, ctx),
        }
    }

    fn on_notification(
        &self,
        notification: Notification,
        ctx: NotificationContext,
        next: NextNotification,
    ) -> Boxed<()> {
        if notification.method != methods::NOTIFICATION_ROOTS_LIST_CHANGED {
            return next.run(notification, ctx);
        }
        let pool = self.pool.clone();
        Box::pin(async move {
            pool.roots_changed(ctx.peer()).await;
            next.run(notification, ctx).await;
        })
    }
}
