//! Middleware: code that wraps every inbound request and notification of a server —
//! `initialize` and `server/discover` and unknown methods included — before any era
//! logic runs, for authorization checks, logging, metrics or limits. Each middleware
//! sees the raw method and params and the transport facts (headers, principal), and may
//! answer itself, refuse with an error, change the request, hand the handlers what it
//! found (`ctx.extensions_mut().insert(..)`, read in a tool with `ctx.extensions().get`
//! or as an extractor of your own), or call the rest of the chain.
//!
//! A middleware's error reaches the client as it is, in the request's era's terms: on a
//! 2026 request, `-32002` (resource not found) goes out as `-32602`, and `-32042` (URL
//! elicitation required, which 2026 does not have) as `-32603` naming it. A handler's
//! `-32042` becomes an `input_required` round instead, held to the capabilities the
//! request declared: ask for URLs there.
//!
//! A request the client cancels (or that times out) is dropped where it waits, in the
//! default interrupt mode: a middleware's code after `next.run(..).await` does not run for
//! it. One that must see every request end (metrics, an audit log) records it in a value
//! whose `Drop` runs either way, or reads `ctx.cancellation()`.
//!
//! ```
//! use mcpwire::server::{middleware_fn, Server};
//! use mcpwire::McpError;
//!
//! /// Who is calling, for the tools to read.
//! #[derive(Clone)]
//! struct Caller(String);
//!
//! let audit = middleware_fn(|request, mut ctx, next| async move {
//!     let Some(principal) = ctx.extensions().get::<mcpwire::Principal>().cloned() else {
//!         if request.method == "tools/call" {
//!             return Err(McpError::invalid_request("sign in first"));
//!         }
//!         return next.run(request, ctx).await;
//!     };
//!     ctx.extensions_mut().insert(Caller(principal.0));
//!     next.run(request, ctx).await
//! });
//! let server = Server::builder("demo", "1.0").middleware(audit).build();
//! # let _ = server;
//! ```

use std::future::Future;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use mcpwire_protocol::{Notification, RawJson, Request};

use crate::error::McpError;
use crate::jsonrpc::{NotificationContext, RequestContext};

/// What a request reaches past the middleware: the server in one era, for one connection
/// or session. Made once per connection and shared by its requests (a reference count a
/// request, not a closure allocated for each).
pub(crate) trait Endpoint: Send + Sync + 'static {
    /// Serves `request`, past the middleware. The box holds the serving `async fn`'s own
    /// future, not an `async` block around a call to it: such a block keeps its own copy
    /// of the request and context beside the call's for the request's whole life, and
    /// the larger box can outgrow what the allocator keeps ready per thread.
    fn serve(
        self: Arc<Self>,
        request: Request,
        ctx: RequestContext,
    ) -> BoxFuture<'static, Result<RawJson, McpError>>;
}

/// What a notification reaches past the middleware.
pub(crate) type NotificationEndpoint =
    Arc<dyn Fn(Notification, NotificationContext) -> BoxFuture<'static, ()> + Send + Sync>;

/// A layer around every inbound message.
pub trait Middleware: Send + Sync + 'static {
    /// Handles a request; call `next.run(request, ctx)` to go on.
    fn on_request(
        &self,
        request: Request,
        ctx: RequestContext,
        next: Next,
    ) -> BoxFuture<'static, Result<RawJson, McpError>>;

    /// Handles a notification; the default passes it on.
    fn on_notification(
        &self,
        notification: Notification,
        ctx: NotificationContext,
        next: NextNotification,
    ) -> BoxFuture<'static, ()> {
        next.run(notification, ctx)
    }
}

/// The rest of the request chain.
pub struct Next {
    chain: Arc<[Arc<dyn Middleware>]>,
    index: usize,
    endpoint: Arc<dyn Endpoint>,
}

impl Next {
    pub(crate) fn new(chain: Arc<[Arc<dyn Middleware>]>, endpoint: Arc<dyn Endpoint>) -> Self {
        Next { chain, index: 0, endpoint }
    }

    /// Runs the rest of the chain, then the server.
    pub fn run(self, request: Request, ctx: RequestContext) -> BoxFuture<'static, Result<RawJson, McpError>> {
        match self.chain.get(self.index).cloned() {
            Some(middleware) => {
                let next = Next { chain: self.chain, index: self.index + 1, endpoint: self.endpoint };
                middleware.on_request(request, ctx, next)
            }
            None => self.endpoint.serve(request, ctx),
        }
    }
}

/// The rest of the notification chain.
pub struct NextNotification {
    chain: Arc<[Arc<dyn Middleware>]>,
    index: usize,
    endpoint: NotificationEndpoint,
}

impl NextNotification {
    pub(crate) fn new(chain: Arc<[Arc<dyn Middleware>]>, endpoint: NotificationEndpoint) -> Self {
        NextNotification { chain, index: 0, endpoint }
    }

    /// Runs the rest of the chain, then the server.
    pub fn run(self, notification: Notification, ctx: NotificationContext) -> BoxFuture<'static, ()> {
        match self.chain.get(self.index).cloned() {
            Some(middleware) => {
                let next =
                    NextNotification { chain: self.chain, index: self.index + 1, endpoint: self.endpoint };
                middleware.on_notification(notification, ctx, next)
            }
            None => (self.endpoint)(notification, ctx),
        }
    }
}

struct FnMiddleware<F>(F);

impl<F, Fut> Middleware for FnMiddleware<F>
where
    F: Fn(Request, RequestContext, Next) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<RawJson, McpError>> + Send + 'static,
{
    fn on_request(
        &self,
        request: Request,
        ctx: RequestContext,
        next: Next,
    ) -> BoxFuture<'static, Result<RawJson, McpError>> {
        Box::pin((self.0)(request, ctx, next))
    }
}

/// A request middleware from an async closure `(request, ctx, next) -> result`.
pub fn middleware_fn<F, Fut>(f: F) -> impl Middleware
where
    F: Fn(Request, RequestContext, Next) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<RawJson, McpError>> + Send + 'static,
{
    FnMiddleware(f)
}
