//! The benchmark server: one `echo` tool built with mcpwire's public API.

use mcpwire::server::{tool, Args, BuildError, Server};
use schemars::JsonSchema;
use serde::Deserialize;

/// The arguments of `echo`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct EchoArgs {
    /// The text to send back.
    pub text: String,
}

/// A server with one tool, `echo`: `{text}` comes back as one text content.
pub fn server() -> Result<Server, BuildError> {
    Server::builder("mcpwire-echo", env!("CARGO_PKG_VERSION"))
        .tool(
            tool("echo")
                .description("Echoes the text back")
                .handler(|Args(EchoArgs { text }): Args<EchoArgs>| async move { text }),
        )
        .build()
}
