//! mcpwire: a Rust SDK for the Model Context Protocol, for servers and clients, in both
//! protocol eras (the 2025 `initialize` sessions and the stateless 2026-07-28 revision).
//!
//! - [`server`]: tools, prompts, resources and templates as Rust functions (`#[tool]`,
//!   `#[prompt]`, `#[resource]`, or builders with extractors), completion, logging,
//!   progress, elicitation and sampling, middleware; served over stdio or HTTP.
//! - [`client`]: connect to any server (it probes the era), call it, answer its questions
//!   with callbacks.
//! - `http` (feature `http`): the Streamable HTTP server, a tower `Service` to serve or
//!   mount in an axum `Router`; `http::cluster` (feature `redis`): many instances of
//!   one server behind a load balancer, sharing sessions through Redis; `auth` (feature
//!   `auth`): OAuth for clients and bearer tokens for servers.
//! - [`jsonrpc`]: the transport-agnostic JSON-RPC dispatcher both sides run on.
//! - [`transport`]: stdio (server side and child process), in-memory pairs, any byte stream.
//! - [`protocol`]: every message type of every revision (the `mcpwire-protocol` crate).
//!
//! Start with the examples, one small program per capability (in `crates/mcpwire/examples/`):
//! `tools.rs` (structured output), `resources.rs` (templates and completion), `prompts.rs`,
//! `logging_progress.rs`, `elicitation_sampling.rs` (the same handler in both eras),
//! `client.rs`, `opentelemetry.rs` (a client's trace continued in the server),
//! `http_axum.rs` (the HTTP endpoint in an axum `Router` behind `BearerAuthLayer` and
//! tower-http layers), and `oauth_login.rs` (an OAuth client that logs in through the
//! browser and keeps its token). Each says how to run it; the tests run each against the
//! official Python SDK client, mcpwire's own client, or (the login) the tests'
//! authorization server. Below MCP, `demo.rs` and `jsonrpc_test_peer.rs` use the JSON-RPC
//! dispatcher on its own (a child process over stdio, cancellation, progress).
//!
// The example needs the attribute macros (feature `macros`), so that `cargo test --doc`
// builds without them too.
#![cfg_attr(
    feature = "macros",
    doc = r##"
```no_run
/// Adds two numbers.
#[mcpwire::tool]
async fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Greets someone.
#[mcpwire::prompt]
async fn greet(#[arg(description = "Who to greet")] name: String) -> String {
    format!("Say hello to {name}.")
}

/// A note, by id.
#[mcpwire::resource(uri = "notes://{id}", mime_type = "text/plain")]
async fn note(id: String) -> String {
    format!("The note {id}.")
}

# async fn run() -> Result<(), Box<dyn std::error::Error>> {
let server = mcpwire::server::Server::builder("notes", "1.0.0")
    .register_all(mcpwire::definitions![add, greet, note])
    .build()?;
server.serve_stdio().await;
# Ok(()) }
```
"##
)]
#![forbid(unsafe_code)]

#[cfg(feature = "auth")]
pub mod auth;
pub mod client;
pub mod error;
pub mod extensions;
#[cfg(feature = "http")]
pub mod http;
mod id_map;
mod json_write;
pub mod jsonrpc;
#[cfg(feature = "http")]
mod mcp_headers;
pub mod server;
pub mod transport;

pub use mcpwire_protocol as protocol;

pub use error::{McpError, RequestError};
/// Collects functions marked `#[tool]`, `#[prompt]` or `#[resource]` for
/// [`ServerBuilder::register_all`](server::ServerBuilder::register_all):
/// `definitions![add, greet, notes::read]`.
#[cfg(feature = "macros")]
pub use mcpwire_macros::definitions;

/// Makes a function an MCP tool.
///
/// - **Arguments**: the function's parameters, whose types make the tool's `inputSchema`
///   (`Option<T>` is optional; a parameter's `///` doc comment, its lines joined with
///   newlines, or `#[arg(description = "...")]`, which wins over it, describes one;
///   `#[arg(rename = "wireName")]` names one in the schema and on the wire, its Rust
///   name unchanged); or all of
///   them as one struct, `Args(query): Args<Query>`, whose schema is the `inputSchema`.
///   A struct or enum of your own is written out in place in the schema, not behind a
///   `$ref` (which many hosts do not follow); only where a recursive type recurs does the
///   schema refer to its definition under `$defs`.
///   `Ctx` and `State<T>` parameters are extractors (the request's context, shared
///   state), not arguments; so is a parameter marked `#[arg(extractor)]`, of a type of
///   your own that implements [`FromRequest`](server::FromRequest) (below). Parameters are
///   owned values (`String`, not `&str`).
/// - **Description**: the doc comment (a `#[doc = include_str!("..")]` line included),
///   or `description = "..."` (or `= include_str!("..")`). Other options: `name`
///   (default: the function's), `title`, and the annotations' behaviour hints
///   `read_only_hint`, `destructive_hint`, `idempotent_hint`, `open_world_hint` (`= true`
///   or `= false`).
/// - **Result**: a type that implements [`IntoToolResult`](server::IntoToolResult) (text,
///   content, `CallToolResult`, [`Json<T>`](server::Json)) is sent as it is; any other
///   `Serialize + JsonSchema` type is structured content with a generated `outputSchema`
///   (a type whose schema is not an object's, such as a number, an `Option` or an enum,
///   as `{"result": ...}`). In a `Result<T, E>`, an `E` such as
///   [`ToolError`](server::ToolError) becomes an `isError` result the model sees, an
///   [`McpError`] a protocol error; `E` must implement
///   [`IntoToolError`](server::IntoToolError) (an error type of your own that does not
///   stops the build, rather than being sent as a successful `{"Err": ...}` value).
/// - **Sync or async**: a sync function runs on tokio's blocking pool, where it may block
///   without holding up other requests (its parameters are then `Send + 'static`).
/// - **Generated**: `<function>_tool()`, the [`ToolDef`](server::ToolDef), for
///   `ServerBuilder::tool` (or `register_all(definitions![...])`). Icons and task support
///   are set on a definition built with [`server::tool`].
/// - **Free functions only**: not a method, nor another function of an `impl` block
///   (the attribute sees the function alone, not the `impl` around it, and what it
///   generates beside the function builds at module level only). Group tools in a module
///   instead (`definitions![tools::search]`), and take what `self` would have held as a
///   `State<T>` parameter.
///
/// ```
/// use mcpwire::server::{Ctx, Server, ToolError};
///
/// /// Divides two numbers.
/// #[mcpwire::tool(title = "Divider", read_only_hint = true, open_world_hint = false)]
/// async fn divide(_ctx: Ctx, a: f64, #[arg(description = "Not zero")] b: f64) -> Result<f64, ToolError> {
///     if b == 0.0 {
///         return Err(ToolError::new("b must not be zero"));
///     }
///     Ok(a / b)
/// }
///
/// let server = Server::builder("calc", "1").tool(divide_tool()).build().unwrap();
/// let hints = server.tools()[0].tool().annotations.clone().unwrap();
/// assert_eq!((hints.read_only_hint, hints.open_world_hint, hints.destructive_hint), (Some(true), Some(false), None));
/// ```
///
/// An extractor of your own, marked `#[arg(extractor)]`: here the user a middleware
/// (or an HTTP layer in front) put on the request.
///
/// ```
/// use mcpwire::server::{FromRequest, Rejection, RequestParts};
/// use mcpwire::McpError;
///
/// #[derive(Clone)]
/// struct User(String);
///
/// impl FromRequest for User {
///     fn from_request(parts: &RequestParts<'_>) -> Result<Self, Rejection> {
///         let user = parts.ctx().extensions().get::<User>().cloned();
///         user.ok_or_else(|| Rejection::Protocol(McpError::invalid_request("sign in first")))
///     }
/// }
///
/// /// Greets the caller.
/// #[mcpwire::tool]
/// async fn hello(#[arg(extractor)] user: User, greeting: Option<String>) -> String {
///     format!("{}, {}", greeting.as_deref().unwrap_or("Hello"), user.0)
/// }
///
/// let tool = hello_tool();
/// let schema = serde_json::to_value(&tool.tool().input_schema).unwrap();
/// assert!(schema["properties"].get("user").is_none() && schema["properties"].get("greeting").is_some());
/// ```
///
/// A borrowed parameter does not compile (the compiler says to take an owned type):
///
/// ```compile_fail
/// #[mcpwire::tool]
/// async fn shout(text: &str) -> String {
///     text.to_uppercase()
/// }
/// ```
///
/// An error type that is not a tool error does not compile, even a serializable one:
///
/// ```compile_fail
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct MyError { code: u32 }
///
/// #[mcpwire::tool]
/// async fn fails() -> Result<i64, MyError> {
///     Err(MyError { code: 7 })
/// }
/// ```
#[cfg(feature = "macros")]
pub use mcpwire_macros::tool;

/// Makes a function an MCP prompt.
///
/// Its parameters are the prompt's arguments (strings on the wire; a typed parameter
/// such as `u32` or `bool` is parsed from its string; `Option<T>` is optional; a
/// parameter's doc comment or `#[arg(description = "...")]` describes it, as for a tool),
/// its doc comment the description; options `name`, `description`, `title`. It returns text (one
/// user message), `Vec<PromptMessage>` or a `GetPromptResult`. Generates
/// `<function>_prompt()`, for `ServerBuilder::prompt`.
///
/// ```
/// /// Writes a commit message.
/// #[mcpwire::prompt]
/// async fn commit(#[arg(description = "What changed")] change: String, short: Option<bool>) -> String {
///     let style = if short.unwrap_or(false) { "one line" } else { "a subject and a body" };
///     format!("Write a commit message, {style}, for: {change}")
/// }
///
/// let server = mcpwire::server::Server::builder("git", "1").prompt(commit_prompt()).build().unwrap();
/// ```
#[cfg(feature = "macros")]
pub use mcpwire_macros::prompt;

/// Makes a function an MCP resource (`uri = "..."`, required) or, when the URI has
/// RFC 6570 `{variables}`, a resource template whose variables are the function's
/// parameters (strings on the wire, parsed into the parameters' types).
///
/// Options: `uri`, `name`, `description` (default: the doc comment), `title`,
/// `mime_type`. `Ctx`, `State<T>`, `Uri` (the URI read) and `ResourceRequest` are
/// extractors. It returns text, [`Blob`](server::Blob) or a `ReadResourceResult`.
/// Generates `<function>_resource()`, for `ServerBuilder::resource` or
/// `ServerBuilder::resource_template`.
///
/// ```
/// /// An order, by its number.
/// #[mcpwire::resource(uri = "orders://{id}", mime_type = "application/json")]
/// async fn order(id: u64) -> String {
///     format!("{{\"id\": {id}}}")
/// }
///
/// let server = mcpwire::server::Server::builder("shop", "1").resource_template(order_resource()).build().unwrap();
/// ```
#[cfg(feature = "macros")]
pub use mcpwire_macros::resource;

/// What the attribute macros' generated code names; not part of the public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::server::tool_output;
    pub use schemars;
    pub use serde;

    /// Compiles only for a type a handler can take as an extractor: the macros check
    /// each parameter they take for one, so that the compiler names the parameter.
    pub fn is_an_extractor<T: crate::server::FromRequest>() {}
}
pub use extensions::{Extensions, Principal, TokenClaims};

/// README.md's Rust examples, compiled by `cargo test --doc` so that they stay true (with
/// the attribute macros, which its server example uses).
#[cfg(all(doctest, feature = "macros"))]
#[doc = include_str!("../../../README.md")]
struct ReadmeExamples;
/// Cancels a request ([`client::RequestOptions::cancel_on`]) or tells a handler it was
/// cancelled ([`server::Ctx::cancellation`]).
pub use tokio_util::sync::CancellationToken;
