//! The era-neutral core: routes a request to the registries and returns a typed reply;
//! the era adapters stamp and serialize it.

use std::borrow::Cow;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

use mcpwire_protocol::completion::{CompleteRequestParams, CompleteResult, Completion, CompletionReference};
use mcpwire_protocol::lifecycle::RequestEnvelope;
use mcpwire_protocol::mrtr::{InputRequiredResult, InputResponses, MAX_INPUT_RESPONSES};
use mcpwire_protocol::prompts::{GetPromptRequestParams, ListPromptsRequestParams, ListPromptsResult};
use mcpwire_protocol::resources::{
    ListResourceTemplatesRequestParams, ListResourceTemplatesResult, ListResourcesRequestParams,
    ListResourcesResult, ReadResourceRequestParams,
};
use mcpwire_protocol::tasks::TaskMetadata;
use mcpwire_protocol::tools::{not_an_object, ListToolsRequestParams, ListToolsResult};
use mcpwire_protocol::{codes, methods, ProtocolVersion, RawJson};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};

use super::catalog::Catalog;
use super::context::{Ctx, CtxInner, EraInfo, StatelessInfo};
use super::params::{parse, parse_with_meta};
use super::prompt::PromptArgs;
use super::reply::Reply;
use super::request_meta::RequestMeta;
use super::request_state::{digest_json, digest_json_text, Binding, MAX_TOKEN_LEN};
use super::resource::ResourceRequest;
use super::session_info::SessionInfo;
use super::tool::ToolDef;
use super::{cursor, Server};
use crate::error::{shown, McpError};
use crate::jsonrpc::RequestContext;

/// What an era adapter knows before the method's params are read.
pub(crate) enum Seed {
    Stateful(Arc<SessionInfo>),
    Stateless(RequestEnvelope),
}

/// The 2026 retry fields of `tools/call`, `prompts/get` and `resources/read`, and what
/// the sealed `requestState` is bound to. A tool's arguments are borrowed from the
/// request's params, which the call keeps for as long as its retry lives.
struct Retry<'a> {
    responses: Option<InputResponses>,
    request_state: Option<String>,
    method: &'static str,
    /// The tool or prompt name, or the resource URI, borrowed from the request.
    target: Cow<'a, str>,
    args: RetryArgs<'a>,
}

/// The arguments a `requestState` is bound to. A tool's raw arguments are parsed only
/// when a digest is needed (a retry's state to open, an `input_required` to seal):
/// most calls need neither.
enum RetryArgs<'a> {
    /// A tool's raw arguments; absent ones bind as `{}`, ones that do not read as a tree
    /// as their text ([`digest_json_text`]).
    Tool(Option<&'a RawValue>),
    /// Arguments already in tree form.
    Value(Value),
}

impl RetryArgs<'_> {
    /// The digest the sealed state binds.
    fn digest(&self) -> [u8; 32] {
        match self {
            RetryArgs::Tool(raw) => {
                raw.map_or_else(|| digest_json(&json!({})), |a| digest_json_text(a.get()))
            }
            RetryArgs::Value(v) => digest_json(v),
        }
    }
}

/// `tools/call` params as the server reads them: the name and the arguments borrowed
/// from the request's text (the wire type,
/// [`CallToolRequestParams`](mcpwire_protocol::tools::CallToolRequestParams), owns copies).
/// `_meta` is set aside by [`parse_with_meta`].
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ToolCallParams<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow, default, deserialize_with = "object_arguments")]
    arguments: Option<&'a RawValue>,
    /// Read as a 2025 `task` only where core tasks exist; ignored (an unknown member)
    /// elsewhere, 2026 included.
    #[serde(borrow, default)]
    task: Option<&'a RawValue>,
    #[serde(default, deserialize_with = "mcpwire_protocol::mrtr::bounded_optional_input_responses")]
    input_responses: Option<InputResponses>,
    #[serde(default)]
    request_state: Option<String>,
}

/// `arguments`, borrowed: a JSON object, or `null` (read as absent); anything else is
/// refused as [`CallToolRequestParams`](mcpwire_protocol::tools::CallToolRequestParams)
/// refuses it.
fn object_arguments<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    let raw = Option::<&'de RawValue>::deserialize(d)?;
    raw.map_or(Ok(()), not_an_object)?;
    Ok(raw)
}

/// A `tools/call` past its checks: what its handler's await needs, and no more.
struct ToolCall<'s, 'p> {
    def: &'s ToolDef,
    ctx: Ctx,
    retry: Option<Retry<'p>>,
    arguments: Option<&'p RawValue>,
    /// `params.task` (2025-11-25 core tasks).
    task: Option<TaskMetadata>,
}

impl Server {
    /// Routes one era-neutral request. The branches that await a handler are boxed:
    /// each holds its own state across the handler's await, and inline, the largest of
    /// them would size every request's future.
    pub(crate) async fn route(
        &self,
        rpc: RequestContext,
        seed: Seed,
        method: &str,
        params: Option<RawJson>,
    ) -> Result<Reply, McpError> {
        let serves = self.inner.serves;
        if method == methods::TOOLS_CALL && serves.tools {
            // Given the params, not lent them: see `call_tool`.
            return Box::pin(self.call_tool(rpc, seed, params)).await;
        }
        let params = params.as_deref();
        match method {
            methods::TOOLS_LIST if serves.tools => {
                let (p, _): (ListToolsRequestParams, _) = parse_with_meta(params)?;
                let catalog = self.catalog();
                let (page, next_cursor) = self.page(&catalog.tools, p.cursor.as_deref(), |d| &d.tool.name)?;
                let tools = page.iter().map(|d| self.listed_tool(d, &seed)).collect();
                Ok(Reply::ListTools(ListToolsResult { tools, next_cursor, ..Default::default() }))
            }
            methods::RESOURCES_LIST if serves.resources => {
                let (p, _): (ListResourcesRequestParams, _) = parse_with_meta(params)?;
                let catalog = self.catalog();
                let (page, next_cursor) =
                    self.page(&catalog.resources, p.cursor.as_deref(), |d| &d.resource.uri)?;
                let resources = page.iter().map(|d| d.resource.clone()).collect();
                Ok(Reply::ListResources(ListResourcesResult { resources, next_cursor, ..Default::default() }))
            }
            methods::RESOURCES_TEMPLATES_LIST if serves.resources => {
                let (p, _): (ListResourceTemplatesRequestParams, _) = parse_with_meta(params)?;
                let catalog = self.catalog();
                let (page, next_cursor) =
                    self.page(&catalog.templates, p.cursor.as_deref(), |d| &d.template.uri_template)?;
                let resource_templates = page.iter().map(|d| d.template.clone()).collect();
                Ok(Reply::ListResourceTemplates(ListResourceTemplatesResult {
                    resource_templates,
                    next_cursor,
                    ..Default::default()
                }))
            }
            methods::RESOURCES_READ if serves.resources => {
                let (p, meta) = parse_with_meta(params)?;
                Box::pin(self.read_resource(rpc, seed, p, meta)).await
            }
            methods::PROMPTS_LIST if serves.prompts => {
                let (p, _): (ListPromptsRequestParams, _) = parse_with_meta(params)?;
                let catalog = self.catalog();
                let (page, next_cursor) =
                    self.page(&catalog.prompts, p.cursor.as_deref(), |d| &d.prompt.name)?;
                let prompts = page.iter().map(|d| d.prompt.clone()).collect();
                Ok(Reply::ListPrompts(ListPromptsResult { prompts, next_cursor, ..Default::default() }))
            }
            methods::PROMPTS_GET if serves.prompts => {
                let (p, meta) = parse_with_meta(params)?;
                Box::pin(self.get_prompt(rpc, seed, p, meta)).await
            }
            methods::COMPLETION_COMPLETE if serves.completion => {
                Box::pin(self.complete(rpc, seed, parse(params)?)).await
            }
            other => Box::pin(self.custom(rpc, seed, other, params)).await,
        }
    }

    /// `resources/read`, its params parsed.
    async fn read_resource(
        &self,
        rpc: RequestContext,
        seed: Seed,
        p: ReadResourceRequestParams,
        meta: RequestMeta,
    ) -> Result<Reply, McpError> {
        let found = self.find_resource(&p.uri);
        let retry = self.retry_fields(
            &seed,
            p.input_responses,
            p.request_state,
            methods::RESOURCES_READ,
            &p.uri,
            || RetryArgs::Value(json!({})),
        );
        // `-32002`; a 2026 request answers it as `-32602` (`stateless.rs`, `in_2026_terms`).
        let Some((handler, request)) = found else { return Err(McpError::resource_not_found(&p.uri)) };
        self.with_context(rpc, seed, meta, retry, |ctx| handler(ctx, request), Reply::ReadResource).await
    }

    /// `prompts/get`, its params parsed.
    async fn get_prompt(
        &self,
        rpc: RequestContext,
        seed: Seed,
        p: GetPromptRequestParams,
        meta: RequestMeta,
    ) -> Result<Reply, McpError> {
        let catalog = self.catalog();
        let Some(def) = catalog.prompt(&p.name) else {
            return Err(McpError::invalid_params(format!("Unknown prompt: {}", shown(&p.name, 200))));
        };
        let args = PromptArgs(p.arguments.unwrap_or_default());
        let retry = self.retry_fields(
            &seed,
            p.input_responses,
            p.request_state,
            methods::PROMPTS_GET,
            &p.name,
            || RetryArgs::Value(serde_json::to_value(&args.0).unwrap_or(Value::Null)),
        );
        self.with_context(rpc, seed, meta, retry, |ctx| def.get(ctx, args), Reply::GetPrompt).await
    }

    /// `completion/complete`, its params parsed.
    async fn complete(
        &self,
        rpc: RequestContext,
        seed: Seed,
        p: CompleteRequestParams,
    ) -> Result<Reply, McpError> {
        let inner = &self.inner;
        let Some(handler) = inner.completion.clone() else {
            return Err(McpError::method_not_found(methods::COMPLETION_COMPLETE));
        };
        // A reference to a prompt or resource this server does not have is the client's
        // mistake (-32602), not an empty completion. (Unless its custom methods serve
        // that family: the server cannot tell then.)
        let custom = |method: &str| inner.methods.contains_key(method);
        let catalog = self.catalog();
        match &p.reference {
            CompletionReference::Prompt(r)
                if catalog.prompt(&r.name).is_none() && !custom(methods::PROMPTS_GET) =>
            {
                return Err(McpError::invalid_params(format!("Unknown prompt: {}", shown(&r.name, 200))));
            }
            CompletionReference::Resource(r)
                if catalog.resource(&r.uri).is_none()
                    && !catalog.has_template(&r.uri)
                    && !custom(methods::RESOURCES_READ) =>
            {
                return Err(McpError::invalid_params(format!(
                    "Unknown resource or template: {}",
                    shown(&r.uri, 200)
                )));
            }
            _ => {}
        }
        let meta = p.meta.clone().into();
        let complete = |ctx| async move { handler(ctx, p).await.map(at_most_max_values) };
        self.with_context(rpc, seed, meta, None, complete, Reply::Complete).await
    }

    /// A method registered with the server builder, or `-32601`.
    async fn custom(
        &self,
        rpc: RequestContext,
        seed: Seed,
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<Reply, McpError> {
        let Some(handler) = self.inner.methods.get(method).cloned() else {
            return Err(McpError::method_not_found(method));
        };
        // Whatever JSON the client sent: the method's handler decides what it takes.
        let value: Value = serde_json::from_str(params.map_or("{}", RawValue::get))
            .map_err(super::params::invalid_params)?;
        let meta = value.get("_meta").and_then(|m| m.as_object().cloned()).into();
        self.with_context(rpc, seed, meta, None, |ctx| handler(ctx, value), Reply::Custom).await
    }

    /// Runs a handler with its context (verified on a 2026 retry) and settles what it
    /// returns into a reply.
    async fn with_context<T, F, Fut>(
        &self,
        rpc: RequestContext,
        seed: Seed,
        meta: RequestMeta,
        retry: Option<Retry<'_>>,
        handler: F,
        reply: fn(T) -> Reply,
    ) -> Result<Reply, McpError>
    where
        F: FnOnce(Ctx) -> Fut,
        Fut: std::future::Future<Output = Result<T, McpError>>,
    {
        let ctx = self.context(rpc, seed, meta, retry.as_ref())?;
        let outcome = handler(ctx.clone()).await;
        self.settle(ctx, retry, outcome.map(reply))
    }

    /// `tools/call`. The tool's handler reads the arguments in place, from the params;
    /// a 2025 call then frees the params before the handler's await, a 2026 call keeps
    /// them in case its `input_required` result must be bound to them.
    async fn call_tool(
        &self,
        rpc: RequestContext,
        seed: Seed,
        params: Option<RawJson>,
    ) -> Result<Reply, McpError> {
        let catalog = self.catalog();
        let ToolCall { def, ctx, retry, arguments, task } =
            self.prepare_tool_call(&catalog, rpc, seed, params.as_deref())?;
        if self.runs_as_task(def, &ctx, task.as_ref())? {
            // Input the tool gathers before its task exists comes in 2026 `input_required`
            // rounds (a 2025 task asks through the task instead).
            if let (Some(gather), EraInfo::Stateless(_)) = (&def.before_task, &ctx.inner.era) {
                if let Err(e) = gather(ctx.clone()).await {
                    return self.settle(ctx, retry, Err(e));
                }
            }
            return self.start_tool_task(def, ctx, arguments, task).await;
        }
        // The handler has read its arguments once `call` exists.
        let call = def.call(ctx.clone(), arguments);
        let (outcome, retry) = match retry {
            None => {
                // Nothing will bind to the params: a large call holds the handler's copy
                // of its arguments, not the request's too.
                drop(params);
                (call.await, None)
            }
            retry => (call.await, retry),
        };
        self.settle(ctx, retry, outcome.map(Reply::CallTool))
    }

    /// Everything `tools/call` does before its handler runs: the tool, the arguments'
    /// shape, the retry fields and the context.
    fn prepare_tool_call<'s, 'p>(
        &self,
        catalog: &'s Catalog,
        rpc: RequestContext,
        seed: Seed,
        params: Option<&'p RawValue>,
    ) -> Result<ToolCall<'s, 'p>, McpError> {
        let (p, meta): (ToolCallParams<'p>, _) = parse_with_meta(params)?;
        let ToolCallParams { name, arguments, task, input_responses, request_state } = p;
        // Borrowed, not cloned: a `ToolDef` carries the tool's schemas.
        let Some(def) = catalog.tool(&name) else {
            return Err(McpError::invalid_params(format!("Unknown tool: {}", shown(&name, 200))));
        };
        let task = match (&seed, task) {
            (Seed::Stateful(session), Some(task))
                if self.inner.tasks_enabled && super::tasks::session_has_core_tasks(session) =>
            {
                Some(
                    serde_json::from_str::<TaskMetadata>(task.get())
                        .map_err(super::params::invalid_params)?,
                )
            }
            _ => None,
        };
        let retry =
            self.retry_fields(&seed, input_responses, request_state, methods::TOOLS_CALL, name, || {
                RetryArgs::Tool(arguments)
            });
        let ctx = self.context(rpc, seed, meta, retry.as_ref())?;
        Ok(ToolCall { def, ctx, retry, arguments, task })
    }

    /// One page of a list, from an opaque cursor. The cursor names where the page before
    /// ended (an offset, and the key of its last item), so a list that changed in
    /// between still goes on after that item: nothing still listed is skipped. If that
    /// item was removed, the cursor is refused and the client lists again from the start.
    fn page<'a, T>(
        &self,
        items: &'a [T],
        cursor: Option<&str>,
        key: impl Fn(&T) -> &str,
    ) -> Result<(&'a [T], Option<String>), McpError> {
        let start = match cursor {
            None => 0,
            Some(c) => {
                let (offset, last) =
                    cursor::decode_position(c).map_err(|_| McpError::invalid_params("Invalid cursor"))?;
                let ended_with = |item: &T| cursor::key_digest(key(item)) == last;
                match offset.checked_sub(1).and_then(|i| items.get(i)) {
                    Some(item) if ended_with(item) => offset,
                    _ => match items.iter().position(ended_with) {
                        Some(i) => i + 1,
                        None => {
                            return Err(McpError::invalid_params(
                                "Invalid cursor: the list changed and the item this page followed is gone; list again from the start",
                            ))
                        }
                    },
                }
            }
        };
        let end = (start + self.inner.config.page_size.max(1)).min(items.len());
        let next = (end < items.len()).then(|| cursor::encode_position(end, key(&items[end - 1])));
        Ok((&items[start..end], next))
    }

    fn find_resource(&self, uri: &str) -> Option<(super::resource::ReadHandler, ResourceRequest)> {
        let catalog = self.catalog();
        if let Some(def) = catalog.resource(uri) {
            let request = ResourceRequest { uri: uri.to_owned(), variables: Default::default() };
            return Some((def.handler.clone(), request));
        }
        catalog.templates.iter().find_map(|def| {
            let variables = def.parsed.as_ref().ok()?.match_uri(uri)?;
            Some((def.handler.clone(), ResourceRequest { uri: uri.to_owned(), variables }))
        })
    }

    /// The retry fields, on a 2026 request (they mean nothing on a 2025 session). `target`
    /// and `args` are taken only then: a caller that owns them can hand them over
    /// without a copy.
    fn retry_fields<'a>(
        &self,
        seed: &Seed,
        responses: Option<InputResponses>,
        request_state: Option<String>,
        method: &'static str,
        target: impl Into<Cow<'a, str>>,
        args: impl FnOnce() -> RetryArgs<'a>,
    ) -> Option<Retry<'a>> {
        match seed {
            Seed::Stateful(_) => None,
            Seed::Stateless(_) => {
                Some(Retry { responses, request_state, method, target: target.into(), args: args() })
            }
        }
    }

    /// Builds the handler's context; on a 2026 retry, verifies the sealed `requestState`.
    fn context(
        &self,
        rpc: RequestContext,
        seed: Seed,
        meta: RequestMeta,
        retry: Option<&Retry<'_>>,
    ) -> Result<Ctx, McpError> {
        let era = match seed {
            Seed::Stateful(session) => EraInfo::Stateful(session),
            Seed::Stateless(envelope) => {
                let mut info = StatelessInfo {
                    envelope,
                    responses: InputResponses::new(),
                    request_state: None,
                    pending: Mutex::new(Default::default()),
                    next_state: Mutex::new(None),
                };
                if let Some(retry) = retry {
                    if let Some(token) = &retry.request_state {
                        let digest = retry.args.digest();
                        let binding = Binding {
                            method: retry.method,
                            target: &retry.target,
                            args_digest: digest,
                            principal: principal(&rpc),
                        };
                        let invalid = || McpError::invalid_params("Invalid or expired requestState");
                        let sealed = self
                            .inner
                            .sealer
                            .open(token, &binding, SystemTime::now())
                            .map_err(|_| invalid())?;
                        let carried = CarriedState::read(sealed.as_deref()).ok_or_else(invalid)?;
                        info.request_state = carried.user;
                        info.responses = carried.answers;
                        // This round's answers to what it asked join those carried from
                        // earlier rounds.
                        let answers = retry.responses.iter().flatten();
                        info.responses.extend(
                            answers
                                .filter(|(key, _)| carried.asked.contains(key))
                                .map(|(key, answer)| (key.clone(), answer.clone())),
                        );
                    } else {
                        // Answers without a state (nothing says what was asked): each
                        // question takes its own, by key.
                        info.responses.extend(retry.responses.clone().unwrap_or_default());
                    }
                }
                EraInfo::Stateless(Box::new(info))
            }
        };
        Ok(Ctx { inner: Arc::new(CtxInner { server: self.clone(), rpc, era, meta, task: OnceLock::new() }) })
    }

    /// Turns a handler's "input required" marker into the `input_required` result of a
    /// 2026 round (with every unanswered input request and a sealed `requestState`).
    fn settle(
        &self,
        ctx: Ctx,
        retry: Option<Retry<'_>>,
        outcome: Result<Reply, McpError>,
    ) -> Result<Reply, McpError> {
        let error = match outcome {
            Ok(reply) => return Ok(reply),
            Err(e) if e.is_input_required() => e,
            // 2026 has no `-32042`: the URLs are asked for as input requests.
            Err(e)
                if e.code() == codes::URL_ELICITATION_REQUIRED
                    && matches!(ctx.inner.era, EraInfo::Stateless(_)) =>
            {
                match ctx.url_elicitations_as_input(e) {
                    e if e.is_input_required() => e,
                    other => return Err(other),
                }
            }
            Err(e) => return Err(e),
        };
        let (EraInfo::Stateless(info), Some(retry)) = (&ctx.inner.era, retry) else {
            return Err(McpError::internal(
                "a handler asked for client input where the protocol allows none",
            ));
        };
        let mut result = error.take_input_required().unwrap_or_else(InputRequiredResult::new);
        let pending = std::mem::take(&mut *info.pending.lock().unwrap_or_else(|e| e.into_inner()));
        if !pending.is_empty() {
            result.input_requests.get_or_insert_with(Default::default).extend(pending);
        }
        // No request may carry more answers than this: a round asking more could never
        // be answered.
        let asked = result.input_requests.as_ref().map_or(0, |r| r.len());
        if asked > MAX_INPUT_RESPONSES {
            return Err(McpError::internal(format!(
                "a handler asked {asked} questions in one round, more than the {MAX_INPUT_RESPONSES} one retry can answer"
            )));
        }
        // A hand-made result is held to what this request declared, as `ctx.elicit` is.
        let caps = ctx.client_capabilities();
        if let Some(required) = super::input_check::input_requests(caps, result.input_requests.as_ref())? {
            return Err(ctx.missing_capability(required));
        }
        let user = result
            .request_state
            .take()
            .or_else(|| info.next_state.lock().unwrap_or_else(|e| e.into_inner()).take());
        // The answers of every round so far travel in the sealed state, so a handler that
        // asks one question after another finds the earlier answers when it runs again.
        // Answers that came without a state are not among them: this server seals a state
        // into every `input_required` result, so nothing says it asked for those (a client
        // that dropped its state could otherwise have anything sealed and carried on).
        let answers = match retry.request_state {
            Some(_) => info.responses.clone(),
            None => InputResponses::new(),
        };
        let asked = result.input_requests.iter().flat_map(|r| r.keys().cloned()).collect();
        let user_state = CarriedState { user, answers, asked }.write()?;
        let binding = Binding {
            method: retry.method,
            target: &retry.target,
            args_digest: retry.args.digest(),
            principal: principal(&ctx.inner.rpc),
        };
        let token = self.inner.sealer.seal(&binding, user_state.as_deref(), SystemTime::now());
        // A token the retry could not open is not handed out: the exchange fails now, saying
        // why, rather than at the retry as "invalid or expired".
        if token.len() > MAX_TOKEN_LEN {
            return Err(McpError::new(
                codes::INTERNAL_ERROR,
                format!(
                    "Internal error: the answers of this exchange's rounds are too large to carry in its requestState ({} bytes; at most {MAX_TOKEN_LEN})",
                    token.len()
                ),
            ));
        }
        result.request_state = Some(token);
        Ok(Reply::InputRequired(result))
    }
}

/// The authenticated principal of a request, if an authentication layer named one: a
/// sealed `requestState` is bound to it, so another principal cannot replay it.
fn principal(rpc: &RequestContext) -> Option<&str> {
    rpc.extensions().get::<crate::extensions::Principal>().map(|p| p.0.as_str())
}

/// A completion result cut to the protocol's 100 values, saying how many there were (a
/// handler's `total` below that is raised to it) and that there are more.
fn at_most_max_values(mut result: CompleteResult) -> CompleteResult {
    let completion = &mut result.completion;
    if completion.values.len() > Completion::MAX_VALUES {
        let returned = completion.values.len() as u64;
        completion.total = Some(completion.total.map_or(returned, |total| total.max(returned)));
        completion.has_more = Some(true);
        completion.values.truncate(Completion::MAX_VALUES);
    }
    result
}

/// What a sealed `requestState` holds: the handler's own state
/// ([`Ctx::set_request_state`](super::Ctx::set_request_state)), the answers of the
/// rounds so far and the keys this round asked. Sealed by this server, so a token that
/// does not read is refused.
#[derive(serde::Serialize, serde::Deserialize)]
struct CarriedState {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    user: Option<String>,
    #[serde(default, skip_serializing_if = "InputResponses::is_empty")]
    answers: InputResponses,
    /// The input requests' keys: the retry's answers to anything else are ignored (MRTR:
    /// a server SHOULD ignore responses it did not ask for), neither seen by the handler
    /// nor carried on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    asked: Vec<String>,
}

impl CarriedState {
    /// The state of a token (`None` inside: an empty one); `None` if it does not read.
    fn read(sealed: Option<&str>) -> Option<CarriedState> {
        match sealed {
            None => Some(CarriedState { user: None, answers: InputResponses::new(), asked: Vec::new() }),
            Some(text) => serde_json::from_str(text).ok(),
        }
    }

    /// The text to seal; `None` when there is nothing to carry.
    fn write(&self) -> Result<Option<String>, McpError> {
        if self.user.is_none() && self.answers.is_empty() && self.asked.is_empty() {
            return Ok(None);
        }
        Ok(Some(serde_json::to_string(self)?))
    }
}

/// Whether a version is one this server serves statelessly.
pub(crate) fn is_stateless_version(version: &ProtocolVersion) -> bool {
    ProtocolVersion::STATELESS.contains(version)
}
