//! A downstream 2025 client's `notifications/roots/list_changed`, passed upstream: the
//! bridge server would otherwise take it as its own news and drop it, and the upstream
//! server would go on with the roots it asked for first.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use mcpwire::jsonrpc::{NotificationContext, RequestContext};
use mcpwire::protocol::{methods, Notification, RawJson, Request};
use mcpwire::server::{Middleware, Next, NextNotification};
use mcpwire::McpError;

use super::upstream::Pool;

type Boxed<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// The bridge's middleware that tells the upstream connections about a client's roots.
pub struct RootsChanged {
    pool: Arc<Pool>,
}

impl RootsChanged {
    /// Over the proxy's upstream connections.
    pub fn new(pool: Arc<Pool>) -> Self {
        RootsChanged { pool }
    }
}

impl Middleware for RootsChanged {
    fn on_request(
        &self,
        request: Request,
        ctx: RequestContext,
        next: Next,
    ) -> Boxed<Result<RawJson, McpError>> {
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
