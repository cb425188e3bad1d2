//! The proxy's downstream connections, by client: what the bridge's middleware
//! ([`Downstream`](super::downstream::Downstream)) notes and the upstream pool asks a
//! 2025 server's out-of-request questions on.

use std::collections::HashMap;
use std::sync::Mutex;

use mcpwire::jsonrpc::Peer;
use mcpwire::Extensions;

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
    /// Remembers `peer` as the connection of client `key`.
    pub(super) fn note(&self, key: String, peer: &Peer) {
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
