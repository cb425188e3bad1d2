//! mcpwire: a Rust SDK for the Model Context Protocol, for servers and clients, in both
//! protocol eras (the 2025 `initialize` sessions and the stateless 2026-07-28 revision).
//!
//! - [`server`]: tools, prompts, resources and templates as Rust functions (`#[tool]`,
//!   `#[prompt]`, `#[resource]`, or builders with extractors) or as methods of your own
//!   type (`#[handlers]` on its `impl` block), completion, logging,
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
mod random_id;
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
///   (`Option<T>` is optional; so is a parameter marked `#[arg(default)]`, which is
///   then its type's `Default`, the schema saying that value; a parameter's `///` doc
///   comment, its lines joined with newlines, or `#[arg(description = "...")]`, which
///   wins over it, describes one; `#[arg(rename = "wireName")]` names one in the schema
///   and on the wire, its Rust name unchanged; serde's and schemars' attributes do not
///   go on parameters, but on the fields of an `Args<T>`'s struct); or all of
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
///   (default: the function's), `title`, the annotations' behaviour hints
///   `read_only_hint`, `destructive_hint`, `idempotent_hint`, `open_world_hint` (`= true`
///   or `= false`), and `task_support = "optional"` (or `"required"`) for a long call that
///   runs as a task when the client allows it (or always; see [`server::tasks`]).
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
///   `ServerBuilder::tool` (or `register_all(definitions![...])`). Icons are set on a
///   definition built with [`server::tool`].
/// - **Methods**: on its own, the attribute takes free functions (it sees the function
///   alone, not the `impl` around it); for methods, put [`#[mcpwire::handlers]`](handlers)
///   on the `impl` block, and mark them `#[tool]` there. Or group free functions in a
///   module (`definitions![tools::search]`), taking what `self` would have held as a
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
///
/// Nor does a result type that is neither a tool result nor structured content, alone or
/// as the `Ok` of a `Result`: the error, at the return type, says "`Plain` cannot be a
/// tool's result" and which trait `Plain` lacks.
///
/// ```compile_fail,E0277
/// struct Plain { total: i64 }
///
/// #[mcpwire::tool]
/// async fn sums() -> Result<Plain, mcpwire::server::ToolError> {
///     Ok(Plain { total: 7 })
/// }
/// ```
#[cfg(feature = "macros")]
pub use mcpwire_macros::tool;

/// Makes a function an MCP prompt.
///
/// Its parameters are the prompt's arguments (strings on the wire; a typed parameter
/// such as `u32` or `bool` is parsed from its string; `Option<T>` is optional, and so is
/// one marked `#[arg(default)]`; a parameter's doc comment or
/// `#[arg(description = "...")]` describes it, as for a tool),
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

/// Makes the functions of an `impl` block marked `#[tool]`, `#[prompt]` or `#[resource]`
/// MCP definitions, as those attributes make free functions ones, and generates
/// `definitions()`, which returns them all for
/// [`ServerBuilder::register_all`](server::ServerBuilder::register_all), the way rmcp's
/// `#[tool_router]` does for its `#[tool]` methods.
///
/// - **In the block**: mark functions `#[tool]`, `#[prompt]` or `#[resource(uri = "...")]`
///   (bare, as the block's attribute reads them; `#[mcpwire::tool]` works too). They take
///   what they take as free functions (see [`tool`], [`prompt`] and [`resource`]): options,
///   arguments described by doc comments or `#[arg(...)]`, extractors (`Ctx`, `State<T>`,
///   `Uri`, ...), `Result`s, typed results with an `outputSchema`, sync or async. Other
///   items of the block stay as they are.
/// - **Receivers**: `&self`, or none (an associated function). The handlers made by one
///   `definitions()` call share one clone of the value, in an `Arc`, and call the `&self`
///   methods on it, so with such a method the type must be `Clone + Send + Sync +
///   'static`; what the handlers change lives behind an `Arc` (an atomic, a lock), as
///   anything that concurrent requests change. `self` by value and `&mut self` do not
///   compile: many requests may run at once.
/// - **Generated** in the block: beside each marked function, `<function>_tool(&self)`
///   (or `_prompt`, `_resource`; without `&self` for an associated function), its
///   definition alone, for `ServerBuilder::tool` and the like; and `pub fn
///   definitions(&self) -> Vec<Definition>` (an associated function, `Type::definitions()`,
///   when no marked function takes `&self`). A marked function's `#[cfg(..)]` applies to
///   what is generated for it too. `#[mcpwire::handlers(definitions = name)]` names that
///   function otherwise: for a type with a `definitions` of its own, or with its
///   definitions in several blocks (say, tools in one and prompts in another), each
///   registered with its own `register_all`.
/// - **Limits**: an inherent `impl` only, not a trait's; an argument's type is not written
///   `Self` (the arguments become a struct of their own), nor is a marked function generic.
///
/// ```
/// use std::sync::atomic::{AtomicI64, Ordering};
/// use std::sync::Arc;
///
/// use mcpwire::server::{Ctx, Server};
/// use mcpwire::McpError;
///
/// #[derive(Clone, Default)]
/// struct Counter {
///     n: Arc<AtomicI64>,
/// }
///
/// #[mcpwire::handlers]
/// impl Counter {
///     /// Adds one and returns the new count.
///     #[tool]
///     async fn increment(&self) -> i64 {
///         self.n.fetch_add(1, Ordering::SeqCst) + 1
///     }
///
///     /// Adds `by` and returns the new count.
///     #[tool(title = "Add", idempotent_hint = false)]
///     async fn add(&self, _ctx: Ctx, #[arg(description = "How much to add")] by: i64) -> Result<i64, McpError> {
///         Ok(self.n.fetch_add(by, Ordering::SeqCst) + by)
///     }
///
///     /// Greets someone.
///     #[prompt]
///     async fn greet(name: String) -> String {
///         format!("Say hello to {name}.")
///     }
///
///     /// The count now.
///     #[resource(uri = "counter://value", mime_type = "text/plain")]
///     async fn value(&self) -> String {
///         self.n.load(Ordering::SeqCst).to_string()
///     }
///
///     /// Not an MCP definition: left as it is.
///     fn reset(&self) {
///         self.n.store(0, Ordering::SeqCst);
///     }
/// }
///
/// let counter = Counter::default();
/// let server = Server::builder("counter", "1.0").register_all(counter.definitions()).build().unwrap();
/// let names: Vec<_> = server.tools().iter().map(|t| t.tool().name.clone()).collect();
/// assert_eq!(names, ["increment", "add"]);
/// counter.reset();
/// ```
///
/// A method that takes `&mut self` does not compile (the message says to take `&self`):
///
/// ```compile_fail
/// #[derive(Clone)]
/// struct Tally(u64);
///
/// #[mcpwire::handlers]
/// impl Tally {
///     #[tool]
///     async fn bump(&mut self) -> u64 {
///         self.0 += 1;
///         self.0
///     }
/// }
/// ```
///
/// Nor does a `&self` method of a type that is not `Clone`:
///
/// ```compile_fail
/// struct Tally(std::sync::atomic::AtomicU64);
///
/// #[mcpwire::handlers]
/// impl Tally {
///     #[tool]
///     async fn read(&self) -> u64 {
///         self.0.load(std::sync::atomic::Ordering::SeqCst)
///     }
/// }
/// ```
#[cfg(feature = "macros")]
pub use mcpwire_macros::handlers;

/// What the attribute macros' generated code names; not part of the public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::server::tool_output;
    pub use schemars;
    pub use serde;

    /// Compiles only for a type a handler can take as an extractor: the macros check
    /// each parameter they take for one, so that the compiler names the parameter.
    pub fn is_an_extractor<T: crate::server::FromRequest>() {}

    /// What the `&self` handlers of a `#[mcpwire::handlers]` block call their methods on:
    /// one clone of the value, shared by every handler of one `definitions()` call.
    pub fn shared<T: HandlersReceiver>(value: &T) -> std::sync::Arc<T> {
        std::sync::Arc::new(value.clone())
    }

    /// A type whose `&self` methods can be handlers: one clone of it is shared by handlers
    /// that run on any thread, for as long as the server lives.
    #[diagnostic::on_unimplemented(
        message = "`#[mcpwire::handlers]` needs `{Self}: Clone + Send + Sync + 'static` for its `&self` methods",
        label = "the handlers share one clone of this value, in an `Arc`, across threads",
        note = "derive `Clone`, keep what the handlers change behind an `Arc` (`Arc<Mutex<T>>`, `Arc<AtomicI64>`), \
                or make the methods associated functions (no `self`)"
    )]
    pub trait HandlersReceiver: Clone + Send + Sync + 'static {}

    impl<T: Clone + Send + Sync + 'static> HandlersReceiver for T {}
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
