//! What the user registers to answer the server: sampling, elicitation, roots, and the
//! notifications worth hearing about. The client declares exactly the capabilities for
//! which a callback is registered. In the 2025 era the callbacks answer real requests
//! from the server; in the 2026 era they resolve the `inputRequests` of `input_required`
//! results. Either way the same callback runs.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use mcpwire_protocol::capabilities::{
    ClientCapabilities, ElicitationCapability, RootsCapability, SamplingCapability,
};
use mcpwire_protocol::common::JsonObject;
use mcpwire_protocol::elicitation::{ElicitRequestParams, ElicitResult};
use mcpwire_protocol::logging::LoggingMessageNotificationParams;
use mcpwire_protocol::roots::ListRootsResult;
use mcpwire_protocol::sampling::{CreateMessageRequestParams, CreateMessageResult};
use mcpwire_protocol::Request;
use serde::de::DeserializeOwned;

use crate::error::McpError;

/// A request's params as `T`; `-32602` when they do not fit.
pub(super) fn parse<T: DeserializeOwned>(request: &Request) -> Result<T, McpError> {
    request.parse_params().map_err(|e| McpError::invalid_params(format!("Invalid params: {e}")))
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

pub(crate) type SamplingFn =
    Arc<dyn Fn(CreateMessageRequestParams) -> BoxFuture<Result<CreateMessageResult, McpError>> + Send + Sync>;
pub(crate) type ElicitationFn =
    Arc<dyn Fn(ElicitRequestParams) -> BoxFuture<Result<ElicitResult, McpError>> + Send + Sync>;
pub(crate) type RootsFn = Arc<dyn Fn() -> BoxFuture<Result<ListRootsResult, McpError>> + Send + Sync>;
pub(crate) type LogFn = Arc<dyn Fn(LoggingMessageNotificationParams) + Send + Sync>;
pub(crate) type ChangeFn = Arc<dyn Fn(ServerChange) + Send + Sync>;
pub(crate) type ElicitationCompleteFn = Arc<dyn Fn(String) + Send + Sync>;
pub(crate) type TraceContextFn = Arc<dyn Fn() -> Option<crate::extensions::TraceContext> + Send + Sync>;

/// A change the server announced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerChange {
    /// `notifications/tools/list_changed`.
    ToolsChanged,
    /// `notifications/prompts/list_changed`.
    PromptsChanged,
    /// `notifications/resources/list_changed`.
    ResourcesChanged,
    /// `notifications/resources/updated` for a URI.
    ResourceUpdated(String),
}

/// The registered callbacks.
#[derive(Clone, Default)]
pub(crate) struct Callbacks {
    pub(crate) sampling: Option<SamplingFn>,
    pub(crate) sampling_tools: bool,
    pub(crate) elicitation: Option<ElicitationFn>,
    pub(crate) elicitation_url: bool,
    pub(crate) roots: Option<RootsFn>,
    pub(crate) log: Option<LogFn>,
    pub(crate) change: Option<ChangeFn>,
    /// `notifications/elicitation/complete`, with the finished `elicitationId`.
    pub(crate) elicitation_complete: Option<ElicitationCompleteFn>,
    /// The W3C trace context each request carries in `_meta`.
    pub(crate) trace_context: Option<TraceContextFn>,
}

impl Callbacks {
    /// The capabilities these callbacks let the client declare, shaped as a 2026 request
    /// declares them: `roots` is `{}` (2026 has no `roots.listChanged`, its client sends
    /// no list-changed notification); [`Callbacks::stateful_capabilities`] is the 2025 form.
    pub(crate) fn capabilities(&self) -> ClientCapabilities {
        let mut caps = ClientCapabilities::default();
        if self.sampling.is_some() {
            caps.sampling = Some(SamplingCapability {
                tools: self.sampling_tools.then(JsonObject::new),
                ..Default::default()
            });
        }
        if self.elicitation.is_some() {
            caps.elicitation = Some(ElicitationCapability {
                form: Some(JsonObject::new()),
                url: self.elicitation_url.then(JsonObject::new),
                ..Default::default()
            });
        }
        if self.roots.is_some() {
            caps.roots = Some(RootsCapability::default());
        }
        caps
    }

    /// The capabilities these callbacks let a 2025 client declare at `initialize`:
    /// `roots.listChanged` too, as that era's clients that list roots do.
    pub(crate) fn stateful_capabilities(&self) -> ClientCapabilities {
        let mut caps = self.capabilities();
        if let Some(roots) = &mut caps.roots {
            roots.list_changed = Some(true);
        }
        caps
    }

    pub(crate) async fn sample(
        &self,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, McpError> {
        let Some(f) = &self.sampling else {
            return Err(McpError::method_not_found("sampling/createMessage"));
        };
        // A conversation whose tool turns do not pair up never reaches the model.
        params.check_tool_turns().map_err(|e| McpError::invalid_params(format!("Invalid params: {e}")))?;
        f(params).await
    }

    /// Whether sampling `params` use tools (`tools` or `toolChoice`) that `declared` (what
    /// the request that led to it declared) did not declare (`sampling.tools`): the spec
    /// has the client return an error for such a request, so it never reaches the callback.
    pub(crate) fn undeclared_tools(
        declared: &ClientCapabilities,
        params: &CreateMessageRequestParams,
    ) -> bool {
        let uses_tools = params.tools.is_some() || params.tool_choice.is_some();
        uses_tools && declared.sampling.as_ref().is_none_or(|s| s.tools.is_none())
    }

    /// Whether an elicitation `params` can be put to the user: `declared` (what the
    /// request that led to it declared) has its mode (an empty `elicitation` is form mode;
    /// URL mode needs `elicitation.url`), and there is a callback to ask. A server must not
    /// ask what was not declared, and the user is not sent to a URL the client never said
    /// it could show.
    pub(crate) fn declares(&self, declared: &ClientCapabilities, params: &ElicitRequestParams) -> bool {
        self.elicitation.is_some() && declared.declares_elicitation_of(params)
    }

    /// Without an elicitation callback the user cannot be asked: decline.
    pub(crate) async fn elicit(&self, params: ElicitRequestParams) -> Result<ElicitResult, McpError> {
        match &self.elicitation {
            Some(f) => f(params).await,
            None => Err(McpError::method_not_found("elicitation/create")),
        }
    }

    pub(crate) async fn roots(&self) -> Result<ListRootsResult, McpError> {
        match &self.roots {
            Some(f) => f().await,
            None => Err(McpError::method_not_found("roots/list")),
        }
    }
}

pub(crate) fn boxed<A, R, F, Fut>(f: F) -> Arc<dyn Fn(A) -> BoxFuture<Result<R, McpError>> + Send + Sync>
where
    F: Fn(A) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<R, McpError>> + Send + 'static,
{
    Arc::new(move |a| Box::pin(f(a)))
}
