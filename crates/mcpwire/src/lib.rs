//! mcpwire: a Rust SDK for the Model Context Protocol.
//!
//! - [`jsonrpc`]: the transport-agnostic JSON-RPC dispatcher both sides run on.
//! - [`transport`]: stdio (server side and child process), in-memory pairs, any byte stream.
//! - [`protocol`]: every message type of every revision (the `mcpwire-protocol` crate).

#![forbid(unsafe_code)]

#[cfg(feature = "auth")]
pub mod auth;
pub mod client;
pub mod error;
pub mod extensions;
#[cfg(feature = "http")]
pub mod http;
mod json_write;
pub mod jsonrpc;
pub mod server;
pub mod transport;

pub use mcpwire_protocol as protocol;

pub use error::{McpError, RequestError};
#[cfg(feature = "macros")]
pub use mcpwire_macros::{definitions, prompt, resource, tool};

/// What the attribute macros' generated code names; not part of the public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::server::tool_output;
    pub use schemars;
    pub use serde;
}
pub use extensions::{Extensions, Principal};
/// Cancels a request ([`client::RequestOptions::cancel_on`]) or tells a handler it was
/// cancelled ([`server::Ctx::cancellation`]).
pub use tokio_util::sync::CancellationToken;
