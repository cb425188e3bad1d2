//! The proxy's downstream 2025 clients, as connections it can ask things outside a
//! request: a 2025 server asks for roots at start-up (after `initialized`) and again
//! when told they changed, on an upstream connection that no request may hold by then.
//! The bridge's middleware notes each session's connection ([`Clients`]) and passes a
//! client's `notifications/roots/list_changed` upstream (the bridge server would take
//! it as its own news and drop it).

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use mcpwire::jsonrpc::{NotificationContext, Peer, RequestContext};
use mcpwire::protocol::{methods, Notification, RawJson, Request};
use mcpwire::server::{Middleware, Next, NextNotification};
use mcpwire::{Extensions, McpError};

use super::upstream::Pool;

/// Most downstream connections remembered (closed ones are forgotten first).
const MAX_CLIENTS: usize = 1024;

/// The header that names a 2025 Streamable HTTP session.
const SESSION_HEADER: &str = "mcp-session-id";

/// Which downstream connection a message came on: its 2025 session, or the one stdio
/// client (`proxy --stdio`); `None` for a 2026 HTTP request, which has no connection
/// to ask anything on later.
pub fn client_key(extensions: &Extensions) -> Option<String> {
    match extensions.get::<http::HeaderMap>() {
        Some(headers) => headers.get(SESSION_HEADER).and_then(|v| v.to_str().ok()).map(str::to_owned),
        None => Some(String::new()),
    }
}

/// The downstream connections by [`client_key`].
#[derive(Default)]
pub struct Clients {
    peers: Mutex<HashMap<String, Peer>>,
}

impl Clients {
    fn note(&self, key: String, peer: &Peer) {
        let mut peers = self.peers.lock().unwrap_or_else(|e| e.into_inner());
        if peers.len() >= MAX_CLIENTS && !peers.contains_key(&key) {
            peers.retain(|_, p| !p.is_closed());
            if peers.len() >= MAX_CLIENTS {
                return;
            }
        }
        peers.insert(key, peer.clone());
    }

    /// The connection of the client whose message carried `extensions`, while open.
    pub fn of(&self, extensions: &Extensions) -> Option<Peer> {
        let key = client_key(extensions)?;
        let peers = self.peers.lock().unwrap_or_else(|e| e.into_inner());
        peers.get(&key).filter(|p| !p.is_closed()).cloned()
    }
}

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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_client_is_its_session_or_the_stdio_connection() {
        let mut session = Extensions::new();
        let mut headers = http::HeaderMap::new();
        headers.insert(SESSION_HEADER, http::HeaderValue::from_static("abc"));
        session.insert(headers);
        assert_eq!(client_key(&session).as_deref(), Some("abc"));
        let mut stateless = Extensions::new();
        stateless.insert(http::HeaderMap::new());
        assert_eq!(client_key(&stateless), None);
        assert_eq!(client_key(&Extensions::new()).as_deref(), Some(""));
    }
}
