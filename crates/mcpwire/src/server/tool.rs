//! Tools as plain Rust functions, sync or async, in the style of axum handlers.
//!
//! A handler takes any number (0 to 6) of extractors ([`super::extract`]) — [`Ctx`],
//! [`State<T>`](super::State), [`Args<T>`] (the typed arguments; the tool's `inputSchema`
//! is generated from `T`) — and returns
//! anything that is [`IntoToolResult`]: text, content blocks, [`Json<T>`] (structured
//! content, with an `outputSchema` generated from `T`), a full `CallToolResult`, or a
//! `Result` of those. A tool's own failure (`Err` of [`ToolError`], a string, an I/O
//! error...) becomes a result with `isError: true`, as the spec asks; an `Err` of
//! [`McpError`] is a protocol error. A sync function runs on tokio's blocking pool, so it
//! may block (a file read, a database driver without async) without holding up the
//! server's other requests; an async one runs on the runtime's workers and must not.
//!
//! ```
//! use mcpwire::server::{tool, Args, Json};
//! # use schemars::JsonSchema; use serde::{Deserialize, Serialize};
//! #[derive(Deserialize, JsonSchema)]
//! struct AddArgs { a: i64, b: i64 }
//! #[derive(Serialize, JsonSchema)]
//! struct Sum { sum: i64 }
//!
//! let add = tool("add")
//!     .description("Adds two numbers")
//!     .handler(|Args(AddArgs { a, b }): Args<AddArgs>| async move { Json(Sum { sum: a + b }) });
//! # let _ = add;
//! ```

use std::future::Future;
use std::sync::Arc;

use futures_util::future::BoxFuture;

use mcpwire_protocol::common::JsonObject;
use mcpwire_protocol::content::{ContentBlock, Icon};
use mcpwire_protocol::tools::{CallToolResult, TaskSupport, Tool, ToolAnnotations};
use mcpwire_protocol::{codes, Meta, ProtocolVersion, RawJson};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::arguments::decode_arguments;
use super::blocking::run_blocking;
use super::context::Ctx;
use super::extract::{Args, FromRequest, Handler, Rejection, RequestParts};
use super::schema;
use crate::error::McpError;

/// A value sent as structured content, with an `outputSchema` generated from `T`, and its
/// JSON text as the result's content. Revisions before 2026 require structured content
/// to be an object: a type whose schema is not an object schema (a number, a list, an
/// `Option` or an enum, even one whose values are sometimes objects) is sent as
/// `{"result": value}`, every value alike, and its schema is wrapped to match; a
/// `serde_json::Value` is sent as it is when it is an object (its schema is then any
/// object) and as `{"result": value}` when it is not.
#[derive(Clone, Debug)]
pub struct Json<T>(pub T);

/// A tool's own failure: reported to the model as a result with `isError: true`.
#[derive(Clone, Debug)]
pub struct ToolError(pub String);

impl ToolError {
    /// A failure with a message.
    pub fn new(message: impl Into<String>) -> Self {
        ToolError(message.into())
    }
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Any error converts, so `?` works in a tool that returns `Result<T, ToolError>`: the
/// message is the error's, then each of its sources' (`reading notes.db: permission
/// denied`).
impl<E: std::error::Error> From<E> for ToolError {
    fn from(error: E) -> Self {
        ToolError(crate::error::error_chain(&error))
    }
}

/// What a handler returns.
pub trait IntoToolResult: Send + 'static {
    /// The result, or a protocol error.
    fn into_tool_result(self) -> Result<CallToolResult, McpError>;

    /// The output schema this type implies.
    fn output_schema() -> Option<JsonObject> {
        None
    }

    /// Whether [`output_schema`](Self::output_schema) describes the structured content
    /// as `{"result": value}` (a type whose schema is not an object schema): the call's
    /// structured content is then sent that way, whatever each value is.
    #[doc(hidden)]
    fn wraps_structured_content() -> bool {
        false
    }
}

impl IntoToolResult for CallToolResult {
    fn into_tool_result(self) -> Result<CallToolResult, McpError> {
        Ok(self)
    }
}

impl IntoToolResult for String {
    fn into_tool_result(self) -> Result<CallToolResult, McpError> {
        Ok(CallToolResult::text(self))
    }
}

impl IntoToolResult for &'static str {
    fn into_tool_result(self) -> Result<CallToolResult, McpError> {
        Ok(CallToolResult::text(self))
    }
}

impl IntoToolResult for () {
    fn into_tool_result(self) -> Result<CallToolResult, McpError> {
        Ok(CallToolResult::success(Vec::new()))
    }
}

impl IntoToolResult for ContentBlock {
    fn into_tool_result(self) -> Result<CallToolResult, McpError> {
        Ok(CallToolResult::success(vec![self]))
    }
}

impl IntoToolResult for Vec<ContentBlock> {
    fn into_tool_result(self) -> Result<CallToolResult, McpError> {
        Ok(CallToolResult::success(self))
    }
}

impl<T: Serialize + JsonSchema + Send + 'static> IntoToolResult for Json<T> {
    /// The value as structured content, as it is: the tool's call wraps it in
    /// `{"result": ..}` when its schema says so, and adds its text copy.
    /// A value with a NaN or an infinite number is a failure of the tool (`isError`):
    /// JSON has no such number, and serde_json's `null` in its place would not fit the
    /// output schema, so a client checking it would refuse the result. So is a value
    /// serde_json refuses to write (an integer beyond 64 bits, a map whose keys are not
    /// strings, a `Serialize` that fails): the tool's output failed, not the protocol.
    fn into_tool_result(self) -> Result<CallToolResult, McpError> {
        if let Some(at) = super::finite::first_non_finite(&self.0) {
            return Ok(CallToolResult::error(format!(
                "the tool's result has a number JSON cannot carry (NaN or infinite) at {}",
                place(&at)
            )));
        }
        match serde_json::to_value(&self.0) {
            Ok(value) => Ok(CallToolResult { structured_content: Some(value), ..Default::default() }),
            Err(error) => Ok(CallToolResult::error(match super::finite::first_wide_integer(&self.0) {
                Some(at) => format!(
                    "the tool's result has an integer beyond 64 bits, which JSON numbers here cannot carry, at {}",
                    place(&at)
                ),
                None => format!("the tool's result cannot be written as JSON: {error}"),
            })),
        }
    }

    fn output_schema() -> Option<JsonObject> {
        Some(schema::output_schema_for::<T>().0)
    }

    fn wraps_structured_content() -> bool {
        schema::output_schema_for::<T>().1
    }
}

/// A place in a tool's result, as a message names it: `` `stats.mean` ``, or the value
/// itself for the empty path.
fn place(at: &str) -> String {
    if at.is_empty() {
        "the value itself".to_owned()
    } else {
        format!("`{at}`")
    }
}

/// How an `Err` returned by a handler is reported.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's error",
    note = "return `ToolError` (any error converts to it, so `?` works), a `String`, `std::io::Error` or `Box<dyn Error + Send + Sync>` for a failure the model sees (`isError: true`), `McpError` for a protocol error, or implement `IntoToolError` for `{Self}`"
)]
pub trait IntoToolError: Send + 'static {
    /// `Ok(result)`: an execution error (`isError: true`) the model sees;
    /// `Err(error)`: a protocol error.
    fn into_tool_error(self) -> Result<CallToolResult, McpError>;
}

impl IntoToolError for McpError {
    fn into_tool_error(self) -> Result<CallToolResult, McpError> {
        Err(self)
    }
}

fn execution_error(message: impl Into<String>) -> Result<CallToolResult, McpError> {
    Ok(CallToolResult::error(message))
}

macro_rules! execution_errors {
    ($($t:ty),*) => {$(
        impl IntoToolError for $t {
            fn into_tool_error(self) -> Result<CallToolResult, McpError> {
                execution_error(self.to_string())
            }
        }
    )*};
}

execution_errors!(
    ToolError,
    String,
    &'static str,
    std::io::Error,
    serde_json::Error,
    Box<dyn std::error::Error + Send + Sync>
);

impl<T: IntoToolResult, E: IntoToolError> IntoToolResult for Result<T, E> {
    fn into_tool_result(self) -> Result<CallToolResult, McpError> {
        match self {
            Ok(v) => v.into_tool_result(),
            Err(e) => e.into_tool_error(),
        }
    }

    fn output_schema() -> Option<JsonObject> {
        T::output_schema()
    }

    fn wraps_structured_content() -> bool {
        T::wraps_structured_content()
    }
}

/// A function usable as a tool handler: sync or async functions and closures of up to
/// six [`FromRequest`] arguments returning [`IntoToolResult`].
pub trait ToolHandler<M>: Send + Sync + 'static {
    /// The input schema implied by the arguments.
    fn input_schema() -> Option<JsonObject>;
    /// The output schema implied by the return type.
    fn output_schema() -> Option<JsonObject>;
    /// Whether that schema wraps the structured content in `{"result": ..}`.
    #[doc(hidden)]
    fn wraps_structured_content() -> bool {
        false
    }
    /// Runs the handler. The arguments are lent, not given: the handler reads them into
    /// its typed arguments before it returns its future, so the future does not hold
    /// them and the caller may free them (or keep them, as a 2026 round does to bind its
    /// `requestState`) without a copy. (`self` is shared so that a sync handler can run
    /// on another thread.)
    fn call(
        self: Arc<Self>,
        ctx: Ctx,
        arguments: Option<&RawValue>,
    ) -> BoxFuture<'static, Result<CallToolResult, Rejection>>;
}

/// Marker for async handlers.
#[doc(hidden)]
pub struct IsAsync;
/// Marker for sync handlers.
#[doc(hidden)]
pub struct IsSync;

impl<H, M> ToolHandler<(IsAsync, M)> for H
where
    H: Handler<M>,
    H::Output: IntoToolResult,
{
    fn input_schema() -> Option<JsonObject> {
        H::arguments_schema()
    }
    fn output_schema() -> Option<JsonObject> {
        H::Output::output_schema()
    }
    fn wraps_structured_content() -> bool {
        H::Output::wraps_structured_content()
    }
    fn call(
        self: Arc<Self>,
        ctx: Ctx,
        arguments: Option<&RawValue>,
    ) -> BoxFuture<'static, Result<CallToolResult, Rejection>> {
        match Handler::call(&*self, &RequestParts::new(&ctx, arguments, None)) {
            Ok(fut) => Box::pin(async move { fut.await.into_tool_result().map_err(Rejection::Protocol) }),
            Err(rejection) => Box::pin(std::future::ready(Err(rejection))),
        }
    }
}

macro_rules! impl_sync_tool_handler {
    ($($e:ident),*) => {
        #[allow(non_snake_case, unused_variables)]
        impl<F, R, $($e,)*> ToolHandler<(IsSync, $($e,)*)> for F
        where
            F: Fn($($e),*) -> R + Send + Sync + 'static,
            R: IntoToolResult,
            $($e: FromRequest + Send + 'static,)*
        {
            fn input_schema() -> Option<JsonObject> {
                None$(.or_else($e::arguments_schema))*
            }
            fn output_schema() -> Option<JsonObject> {
                R::output_schema()
            }
            fn wraps_structured_content() -> bool {
                R::wraps_structured_content()
            }
            /// Reads the arguments here, then runs the function on the blocking pool
            /// ([`run_blocking`]).
            fn call(self: Arc<Self>, ctx: Ctx, arguments: Option<&RawValue>) -> BoxFuture<'static, Result<CallToolResult, Rejection>> {
                let parts = RequestParts::new(&ctx, arguments, None);
                let extract = || -> Result<_, Rejection> { Ok(($($e::from_request(&parts)?,)*)) };
                match extract() {
                    Ok(($($e,)*)) => Box::pin(async move {
                        run_blocking(move || (self)($($e),*).into_tool_result()).await.map_err(Rejection::Protocol)
                    }),
                    Err(rejection) => Box::pin(std::future::ready(Err(rejection))),
                }
            }
        }
    };
}

super::extract::for_each_arity!(impl_sync_tool_handler);

type ErasedHandler = Arc<
    dyn Fn(Ctx, Option<&RawValue>) -> BoxFuture<'static, Result<CallToolResult, Rejection>> + Send + Sync,
>;

/// Input gathered before a tool's task is created ([`ToolBuilder::input_before_task`]).
pub(crate) type BeforeTask = Arc<dyn Fn(Ctx) -> BoxFuture<'static, Result<(), McpError>> + Send + Sync>;

/// A registered tool: its description and its handler.
#[derive(Clone)]
pub struct ToolDef {
    pub(crate) tool: Tool,
    handler: ErasedHandler,
    /// Whether calls may or must run as tasks.
    pub(crate) task_support: TaskSupport,
    pub(crate) before_task: Option<BeforeTask>,
    /// Whether the output schema (generated from the handler's type) has the structured
    /// content as `{"result": value}`.
    wraps_structured: bool,
}

impl std::fmt::Debug for ToolDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolDef").field("tool", &self.tool).finish()
    }
}

impl ToolDef {
    /// The tool as `tools/list` shows it.
    pub fn tool(&self) -> &Tool {
        &self.tool
    }

    /// Whether calls of this tool may (`optional`) or must (`required`) run as tasks.
    pub fn task_support(&self) -> &TaskSupport {
        &self.task_support
    }

    /// The handler's future for one call, owning what it needs (a task's runner).
    pub(crate) fn call_owned(
        &self,
        ctx: Ctx,
        arguments: Option<RawJson>,
    ) -> impl Future<Output = Result<CallToolResult, McpError>> + Send + 'static {
        let def = self.clone();
        async move { def.call(ctx, arguments.as_deref()).await }
    }

    /// Calls the tool. The handler reads `arguments` before this returns, so the future
    /// does not hold them. Arguments that do not fit its input type are a tool execution
    /// error (`isError: true`) from revision 2025-11-25 on (SEP-1303), and `-32602` before.
    pub(crate) fn call(
        &self,
        ctx: Ctx,
        arguments: Option<&RawValue>,
    ) -> impl Future<Output = Result<CallToolResult, McpError>> + Send + '_ {
        let version = ctx.protocol_version().clone();
        let outcome = (self.handler)(ctx, arguments);
        async move { self.settle(version, outcome.await) }
    }

    /// What a call's handler returned, its rejections turned into the answer `version`
    /// gives them.
    fn settle(
        &self,
        version: ProtocolVersion,
        outcome: Result<CallToolResult, Rejection>,
    ) -> Result<CallToolResult, McpError> {
        match outcome {
            Ok(result) => Ok(self.finish_structured(result, &version)),
            Err(Rejection::Protocol(e)) => Err(e),
            Err(Rejection::InvalidArguments(detail)) => {
                let message = format!("Invalid arguments for tool {}: {detail}", self.tool.name);
                if version.is_at_least(&ProtocolVersion::V2025_11_25) || !version.is_known() {
                    execution_error(message)
                } else {
                    Err(McpError::new(codes::INVALID_PARAMS, message))
                }
            }
        }
    }

    /// Puts a result's structured content in the form the tool's output schema gives it:
    /// `{"result": value}` when the schema was wrapped so (whatever this value is: an
    /// `Option` of a struct is an object one call and `null` the next), and for any value
    /// that is not an object where only objects go: in the 2025 revisions, and under an
    /// output schema (every one is an object schema); a 2026 result of a tool without one
    /// may be any JSON value. A result without content gets the structured content's
    /// text, which the spec asks for so that clients without structured output see it too.
    fn finish_structured(&self, mut result: CallToolResult, version: &ProtocolVersion) -> CallToolResult {
        let Some(structured) = result.structured_content.take() else { return result };
        let objects_only =
            self.tool.output_schema.is_some() || !version.is_at_least(&ProtocolVersion::V2026_07_28);
        let structured = if self.wraps_structured || (objects_only && !structured.is_object()) {
            let mut wrapped = JsonObject::new();
            wrapped.insert("result".into(), structured);
            Value::Object(wrapped)
        } else {
            structured
        };
        if result.content.is_empty() {
            result.content.push(ContentBlock::text(structured.to_string()));
        }
        result.structured_content = Some(structured);
        result
    }
}

/// Starts describing a tool; finish with [`ToolBuilder::handler`].
pub fn tool(name: impl Into<String>) -> ToolBuilder {
    ToolBuilder {
        tool: Tool::new(name, JsonObject::new()),
        input_schema: None,
        output_schema: None,
        task_support: TaskSupport::Forbidden,
        before_task: None,
    }
}

/// Describes a tool.
pub struct ToolBuilder {
    tool: Tool,
    input_schema: Option<JsonObject>,
    output_schema: Option<Option<JsonObject>>,
    task_support: TaskSupport,
    before_task: Option<BeforeTask>,
}

impl std::fmt::Debug for ToolBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolBuilder")
            .field("tool", &self.tool)
            .field("task_support", &self.task_support)
            .finish()
    }
}

impl ToolBuilder {
    /// Runs a call as a task: when the client allows tasks (`optional`) or always
    /// (`required`). The handler stays the same function; inside the task its
    /// `ctx.elicit(..)`/`ctx.sample(..)` wait for the client's answer through the task,
    /// and `ctx.cancellation()` fires when the client cancels it.
    pub fn task_support(mut self, support: TaskSupport) -> Self {
        self.task_support = support;
        self
    }

    /// Input the tool gathers with `ctx.elicit(..)`/`ctx.sample(..)` *before* its task is
    /// created: a 2026 call asks for it with `input_required` rounds on `tools/call`
    /// itself, and the task starts only once `gather` succeeds. Its answers are carried
    /// into the task: each answers the handler's first ask under the same key, and is
    /// then let go (asked again, the question goes to the client through the task).
    pub fn input_before_task<F, Fut>(mut self, gather: F) -> Self
    where
        F: Fn(Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), McpError>> + Send + 'static,
    {
        self.before_task = Some(Arc::new(move |ctx| Box::pin(gather(ctx))));
        self
    }

    /// A human-readable title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.tool.title = Some(title.into());
        self
    }

    /// What the tool does (the model reads this).
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.tool.description = Some(description.into());
        self
    }

    /// Behaviour hints (untrusted by clients unless they trust the server).
    pub fn annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.tool.annotations = Some(annotations);
        self
    }

    /// Icons.
    pub fn icons(mut self, icons: Vec<Icon>) -> Self {
        self.tool.icons = Some(icons);
        self
    }

    /// `_meta` of the tool.
    pub fn meta(mut self, meta: Meta) -> Self {
        self.tool.meta = Some(meta);
        self
    }

    /// A hand-written input schema, kept verbatim (it wins over the generated one). Must
    /// be a JSON object whose root `type` is `"object"`.
    pub fn input_schema(mut self, schema: Value) -> Self {
        self.input_schema = Some(match schema {
            Value::Object(o) => o,
            _ => JsonObject::new(),
        });
        self
    }

    /// A hand-written output schema, kept verbatim (it wins over the generated one);
    /// `Value::Null` removes the generated one.
    pub fn output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(match schema {
            Value::Object(o) => Some(o),
            _ => None,
        });
        self
    }

    /// Sets a handler whose future need not be `Send` (it may hold an `Rc` or a
    /// `RefCell` across an `.await`): it runs on a dedicated single-threaded executor.
    /// The handler itself is called there with the context and the typed arguments.
    pub fn local_handler<F, Fut, A, R>(self, handler: F) -> ToolDef
    where
        F: Fn(Ctx, Args<A>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + 'static,
        A: DeserializeOwned + JsonSchema + Send + 'static,
        R: IntoToolResult,
    {
        let mut tool = self.tool;
        tool.input_schema = self.input_schema.unwrap_or_else(schema::input_schema_for::<A>);
        let wraps_structured = self.output_schema.is_none() && R::wraps_structured_content();
        tool.output_schema = self.output_schema.unwrap_or_else(R::output_schema);
        let handler = Arc::new(handler);
        let erased: ErasedHandler = Arc::new(move |ctx: Ctx, arguments: Option<&RawValue>| {
            let handler = handler.clone();
            let args: Result<A, _> = decode_arguments(arguments).map_err(Rejection::InvalidArguments);
            Box::pin(async move {
                let args = args?;
                let cancel = ctx.cancellation().clone();
                let server = ctx.inner.server.clone();
                let output =
                    super::local::run_local(&server.inner.local, move || handler(ctx, Args(args)), cancel)
                        .await
                        .map_err(Rejection::Protocol)?;
                output.into_tool_result().map_err(Rejection::Protocol)
            })
        });
        ToolDef {
            tool,
            handler: erased,
            task_support: self.task_support,
            before_task: self.before_task,
            wraps_structured,
        }
    }

    /// Sets the handler and finishes the tool.
    pub fn handler<M, H: ToolHandler<M>>(self, handler: H) -> ToolDef {
        let mut tool = self.tool;
        tool.input_schema =
            self.input_schema.or_else(H::input_schema).unwrap_or_else(schema::empty_object_schema);
        let wraps_structured = self.output_schema.is_none() && H::wraps_structured_content();
        tool.output_schema = self.output_schema.unwrap_or_else(H::output_schema);
        let handler = Arc::new(handler);
        ToolDef {
            tool,
            handler: Arc::new(move |ctx, args: Option<&RawValue>| handler.clone().call(ctx, args)),
            task_support: self.task_support,
            before_task: self.before_task,
            wraps_structured,
        }
    }
}

/// Whether `name` is a valid tool name: 1 to 128 characters of `A-Z a-z 0-9 _ - .`, as
/// the spec says tool names should be (2025-11-25 and later; the SEP's draft also allowed
/// `/` and stopped at 64).
pub fn is_valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

#[cfg(test)]
mod tests {
    use super::is_valid_tool_name;

    #[test]
    fn tool_names_follow_the_spec() {
        for good in ["getUser", "DATA_EXPORT_v2", "admin.tools.list", "a-b", "x", &"n".repeat(128)] {
            assert!(is_valid_tool_name(good), "{good}");
        }
        for bad in ["", "user-profile/update", "has space", "comma,", "é", &"n".repeat(129)] {
            assert!(!is_valid_tool_name(bad), "{bad}");
        }
    }
}
