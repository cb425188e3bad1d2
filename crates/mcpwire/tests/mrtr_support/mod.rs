//! Servers and forms shared by the tests of 2026 multi round-trip requests. A module
//! directory, not a test target; the including crate declares `mod mrtr_support;`.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use mcpwire::protocol::elicitation::{ElicitRequestFormParams, ElicitRequestParams};
use mcpwire::server::{tool, Ctx, Server};
use serde_json::json;

/// A form asking for one text field, `text`.
pub fn text_form(message: &str) -> ElicitRequestParams {
    let form = json!({ "message": message, "requestedSchema": {
        "type": "object", "properties": { "text": { "type": "string" } }, "required": ["text"] } });
    ElicitRequestParams::Form(serde_json::from_value::<ElicitRequestFormParams>(form).unwrap())
}

/// A server whose `keys` tool asks for `a`, then (a second round) for `b`, and answers
/// with the keys of the answers its last round was handed, comma-separated: what a
/// handler sees of the answers a client sent.
pub fn keys_server() -> Server {
    Server::builder("s", "1")
        .tool(tool("keys").handler(|ctx: Ctx| async move {
            ctx.elicit_as("a", text_form("A?")).await?;
            ctx.elicit_as("b", text_form("B?")).await?;
            let keys = ctx.input_responses().map(|r| r.keys().cloned().collect::<Vec<_>>());
            Ok::<_, mcpwire::McpError>(keys.unwrap_or_default().join(","))
        }))
        .build()
        .unwrap()
}
