//! A client's roots: what a server hears when a 2025 client's roots change, and the
//! check every answer naming roots passes ([`file_roots`]).
//!
//! A client that declared `roots.listChanged` sends `notifications/roots/list_changed`
//! whenever its list of roots changes; a server that works within those roots (a file
//! server, say) asks for the new list then. [`ServerBuilder::on_roots_changed`] runs its
//! hook for each such notification with a [`RootsChanged`], which asks that session's
//! client. The 2026 revision has no such notification: a 2026 handler asks for the roots
//! it needs with [`Ctx::list_roots`](super::Ctx::list_roots) in each request.
//!
//! [`ServerBuilder::on_roots_changed`]: super::ServerBuilder::on_roots_changed

use std::sync::Arc;

use mcpwire_protocol::roots::{ListRootsRequestParams, ListRootsResult};

use super::session_info::SessionInfo;
use crate::error::McpError;
use crate::extensions::Extensions;
use crate::jsonrpc::CallOptions;

/// The session whose client said its roots changed, handed to the hook of
/// [`ServerBuilder::on_roots_changed`](super::ServerBuilder::on_roots_changed).
pub struct RootsChanged {
    pub(crate) session: Arc<SessionInfo>,
    pub(crate) extensions: Extensions,
}

impl RootsChanged {
    /// Asks the client for its roots as they are now (`roots/list`, under the
    /// connection's request timeout).
    pub async fn list_roots(&self) -> Result<ListRootsResult, McpError> {
        let peer = &self.session.peer;
        file_roots(peer.request(&ListRootsRequestParams::default(), CallOptions::default()).await?)
    }

    /// What the transport and the middleware put on the notification: the caller's
    /// principal over authenticated HTTP, say, to tell whose roots these are.
    pub fn extensions(&self) -> &Extensions {
        &self.extensions
    }
}

impl std::fmt::Debug for RootsChanged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RootsChanged").field("protocol_version", &self.session.version).finish()
    }
}

/// A client's list of roots, if every root is a `file://` URI, as every revision's schema
/// says a root's URI must be; else `-32602` naming the first that is not, so a handler
/// that takes the roots for directories is never handed a web address or a script.
pub(crate) fn file_roots(answer: ListRootsResult) -> Result<ListRootsResult, McpError> {
    let is_file = |uri: &str| uri.get(..7).is_some_and(|scheme| scheme.eq_ignore_ascii_case("file://"));
    match answer.roots.iter().find(|root| !is_file(&root.uri)) {
        None => Ok(answer),
        Some(root) => Err(McpError::invalid_params(format!(
            "The client's answer to roots/list names a root that is not a file:// URI: {:?}",
            crate::error::shown(&root.uri, 200)
        ))),
    }
}
