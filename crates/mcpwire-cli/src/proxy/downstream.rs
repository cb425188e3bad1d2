//! The proxy's downstream 2025 clients, as connections it can ask things outside a
//! request: a 2025 server asks for roots at start-up (after `initialized`) and again
//! when told they changed, on an upstream connection that no request may hold by then.
//! The bridge's middleware notes each session's connection (in [`Clients`]) and passes a
//! client's `notifications/roots/list_changed` upstream (the bridge server would take
//! it as its own news and drop it). (Which resources clients follow reaches the upstream
//! server through the bridge's subscription hooks: see [`super::subscriptions`].)
//!
//! [`Clients`]: super::clients::Clients

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use mcpwire::jsonrpc::{NotificationContext, RequestContext};
use mcpwire::protocol::{methods, Notification, RawJson, Request};
use mcpwire::server::{Middleware, Next, NextNotification};
use mcpwire::McpError;

use super::clients::client_key;
use super::upstream::Pool;

type Boxed<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// The bridge's middleware: notes each client's connection, and tells the upstream
/// connections about a client's new roots.
pub struct Downstream {
    pool: Arc<Pool>,
}

impl Downstream {
    /// Over the proxy's upstream connections.
    pub fn new(pool: Arc<Pool>) -> Self {
        Downstream { pool }
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
        next.run(request, ctx)
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
