//! Forwarding one downstream request upstream, and carrying what the upstream server
//! asks while it runs (elicitation, sampling, roots) to the client that sent it.
//!
//! - A 2026 server asks inside its result (`input_required`): a 2026 client gets that
//!   result as it is and retries; for a 2025 client the proxy asks it for real and
//!   retries upstream itself.
//! - A 2025 server asks with requests of its own on a connection this request holds
//!   alone (see [`super::upstream`]). A 2025 client is asked for real. A 2026 client
//!   gets an `input_required` result whose `requestState` names the waiting upstream
//!   request, parked here until the retry brings the answer (or the timeout ends it,
//!   which cancels the upstream request). A 2025 server's `-32042` (URL elicitation
//!   required) reaches a 2026 client as a round asking the URLs, whose retry makes the
//!   call again ([`url_required`](super::url_required)).

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcpwire::client::{Client, RequestOptions};
use mcpwire::jsonrpc::ProgressUpdate;
use mcpwire::protocol::capabilities::ClientCapabilities;
use mcpwire::protocol::content::ContentBlock;
use mcpwire::protocol::logging::LoggingMessageNotificationParams;
use mcpwire::protocol::mrtr::{InputRequest, InputRequiredResult};
use mcpwire::protocol::{codes, meta, methods, Era, ProtocolVersion};
use mcpwire::server::Ctx;
use mcpwire::{McpError, RequestError};
use serde_json::{json, Map, Value};
use tokio::sync::mpsc;

use super::upstream::{park_time, Ask, Holder, Lease, Pool, Wants, LOG_QUEUE};
use super::url_required::as_input_requests;

/// Results that 2026 clients expect cache hints on.
const CACHEABLE: [&str; 5] = [
    methods::TOOLS_LIST,
    methods::RESOURCES_LIST,
    methods::RESOURCES_TEMPLATES_LIST,
    methods::RESOURCES_READ,
    methods::PROMPTS_LIST,
];

/// Listings: they ask the client nothing, so they share a connection.
const LISTINGS: [&str; 4] =
    [methods::TOOLS_LIST, methods::RESOURCES_LIST, methods::RESOURCES_TEMPLATES_LIST, methods::PROMPTS_LIST];

/// Most `input_required` rounds the bridge resolves for a 2025 client.
const MAX_ROUNDS: usize = 10;

/// Progress updates kept for a request whose handler is busy (more are dropped).
const PROGRESS_QUEUE: usize = 64;

type Pending = Pin<Box<dyn Future<Output = Result<Value, RequestError>> + Send>>;

/// The upstream log messages of one downstream request, forwarded by its handler.
type Logs = mpsc::Receiver<LoggingMessageNotificationParams>;

/// Forwards one upstream log message to the downstream request (at its client's level).
async fn log_to(ctx: &Ctx, params: LoggingMessageNotificationParams) {
    ctx.log_as(params.level, params.logger.as_deref(), params.data).await;
}

/// An upstream request on a leased connection, with what arrives for it.
struct Flight {
    /// The connection, held while the flight lives (dropped, it is given back).
    _lease: Lease,
    request: Pending,
    asks: mpsc::Receiver<Ask>,
    progress: mpsc::Receiver<ProgressUpdate>,
    logs: Logs,
    /// A question put to a 2026 client, waiting for its retry: its input key and itself.
    pending: Option<(String, Ask)>,
    asked: u64,
}

/// What a 2026 client's retry comes back to.
enum Parked {
    /// An upstream request waiting for the answer to its question.
    Flight(Box<Flight>),
    /// An upstream request that ended in `-32042`: the retry makes the call again.
    Again,
}

/// Forwards requests; holds the flights that wait for a 2026 client's retry.
pub struct Relay {
    pool: Arc<Pool>,
    parked: Arc<Mutex<HashMap<String, Parked>>>,
    next: AtomicU64,
}

impl Relay {
    /// A relay over the upstream connections.
    pub fn new(pool: Arc<Pool>) -> Arc<Relay> {
        Arc::new(Relay { pool, parked: Arc::default(), next: AtomicU64::new(1) })
    }

    /// Forwards one downstream request.
    pub async fn forward(
        self: Arc<Self>,
        ctx: Ctx,
        method: &'static str,
        params: Value,
    ) -> Result<Value, McpError> {
        let wants = Wants::of(ctx.client_capabilities());
        let stateless_upstream = self.pool.primary().era() == Era::Stateless;
        let era = ctx.protocol_version().era();
        // Who a 2025 server's roots/list outside a request goes to: this 2025 client.
        let roots_client = (wants.roots() && !stateless_upstream && era != Some(Era::Stateless))
            .then(|| self.pool.clients.of(ctx.extensions()))
            .flatten();
        if stateless_upstream || !wants.can_be_asked() || LISTINGS.contains(&method) {
            // A 2026 server takes each request's capabilities from the request itself:
            // one connection (one server process, so one server state) serves every
            // client, each request declaring its own client's capabilities.
            let shared = match stateless_upstream {
                true => None,
                false => Some(self.pool.shared(wants, roots_client).await?),
            };
            let (log_tx, mut logs) = mpsc::channel(LOG_QUEUE);
            let _active = shared.as_ref().map_or(&self.pool.active, |s| &s.active).enter(log_tx);
            let client = shared.as_ref().map_or(self.pool.primary(), |s| &s.client);
            let base = self.pool.request_options();
            return forward_shared(client, base, &ctx, &mut logs, method, params).await;
        }
        let mut params = match params {
            Value::Object(o) => o,
            _ => Map::new(),
        };
        let responses = match params.remove("inputResponses") {
            Some(Value::Object(r)) => r,
            _ => Map::new(),
        };
        if let Some(state) = params.remove("requestState").filter(|_| era == Some(Era::Stateless)) {
            let parked =
                state.as_str().and_then(|s| self.parked.lock().unwrap_or_else(|e| e.into_inner()).remove(s));
            match parked {
                Some(Parked::Flight(flight)) => return self.run(ctx, *flight, method, responses).await,
                // The URLs were opened (or not: the upstream server is the judge): again.
                Some(Parked::Again) => {}
                None => {
                    return Err(McpError::invalid_params(
                        "mcpwire proxy: this retry's upstream request is gone (it timed out or was answered); send the request again without requestState",
                    ))
                }
            }
        }
        let (asks_tx, asks) = mpsc::channel(super::upstream::ASK_QUEUE);
        let (log_tx, logs) = mpsc::channel(LOG_QUEUE);
        let holder = Holder { asks: asks_tx, logs: log_tx };
        let lease = self.pool.lease(wants, Some(holder), roots_client).await?;
        let (progress_tx, progress) = mpsc::channel(PROGRESS_QUEUE);
        let options = self.pool.request_options().on_progress(move |update| {
            let _ = progress_tx.try_send(update);
        });
        let client = lease.client.clone();
        let params = Value::Object(upstream_params(Value::Object(params)));
        let request: Pending =
            Box::pin(async move { upstream_request(&client, method, params, options).await });
        let flight = Flight { _lease: lease, request, asks, progress, logs, pending: None, asked: 0 };
        self.run(ctx, flight, method, Map::new()).await
    }

    /// Runs a flight for `ctx` until its result, or until a 2026 client must be asked:
    /// then the flight is parked and the answer is an `input_required` result.
    /// `responses` are a 2026 retry's `inputResponses`.
    async fn run(
        &self,
        ctx: Ctx,
        mut flight: Flight,
        method: &'static str,
        responses: Map<String, Value>,
    ) -> Result<Value, McpError> {
        let era = ctx.protocol_version().era();
        loop {
            if let Some((key, mut ask)) = flight.pending.take() {
                let answered = match era {
                    Some(Era::Stateless) => Ok(responses.get(&key).cloned()),
                    // The server may take its question back (`notifications/cancelled`
                    // drops its asker): the client's is dropped too, which cancels it.
                    _ => tokio::select! {
                        answered = answer(&ctx, &key, &ask.request) => answered.map(Some),
                        () = ask.reply.closed() => continue,
                    },
                };
                match answered {
                    Ok(Some(value)) => {
                        let _ = ask.reply.send(Ok(value));
                    }
                    Ok(None) => {
                        let requests = json!({ key.as_str(): ask.request.clone() });
                        flight.pending = Some((key, ask));
                        let token = self.park(Parked::Flight(Box::new(flight)));
                        return Ok(json!({
                            "resultType": "input_required",
                            "inputRequests": requests,
                            "requestState": token,
                        }));
                    }
                    Err(e) => {
                        let _ = ask.reply.send(Err(e));
                    }
                }
            }
            // Log messages and progress are forwarded as they come, and what came before
            // the answer goes out before it.
            tokio::select! {
                biased;
                Some(params) = flight.logs.recv() => log_to(&ctx, params).await,
                Some(update) = flight.progress.recv() => {
                    ctx.progress(update.progress, update.total, update.message.as_deref()).await;
                }
                Some(ask) = flight.asks.recv() => {
                    flight.asked += 1;
                    flight.pending = Some((format!("upstream-{}", flight.asked), ask));
                }
                result = &mut flight.request => {
                    while let Ok(params) = flight.logs.try_recv() {
                        log_to(&ctx, params).await;
                    }
                    while let Ok(update) = flight.progress.try_recv() {
                        ctx.progress(update.progress, update.total, update.message.as_deref()).await;
                    }
                    // Only the methods that may ask for input can ask for the URLs.
                    let urls = match (&result, era) {
                        (Err(e), Some(Era::Stateless)) if methods::INPUT_REQUIRED_ALLOWED.contains(&method) => {
                            as_input_requests(e, ctx.client_capabilities())
                        }
                        _ => None,
                    };
                    if let Some(requests) = urls {
                        return Ok(json!({
                            "resultType": "input_required",
                            "inputRequests": requests,
                            "requestState": self.park(Parked::Again),
                        }));
                    }
                    return result
                        .map(|r| downstream_result(r, method, ctx.protocol_version()))
                        .map_err(|e| downstream_error(upstream_error(e), method, era));
                }
            }
        }
    }

    /// Keeps what a retry comes back to; returns the token its `requestState` carries.
    /// A flight is dropped (its upstream request cancelled, its connection given back) if
    /// no retry comes within the request timeout.
    fn park(&self, parked: Parked) -> String {
        let token = token(self.next.fetch_add(1, Ordering::Relaxed));
        self.parked.lock().unwrap_or_else(|e| e.into_inner()).insert(token.clone(), parked);
        let (parked, key) = (self.parked.clone(), token.clone());
        let wait = park_time(self.pool.options()).max(Duration::from_secs(1));
        tokio::spawn(async move {
            tokio::time::sleep(wait).await;
            let expired = parked.lock().unwrap_or_else(|e| e.into_inner()).remove(&key);
            drop(expired);
        });
        token
    }
}

/// A parked flight's name: unguessable (the `requestState` of one client must not let
/// another answer its questions), and unique.
fn token(n: u64) -> String {
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        bytes[..8].copy_from_slice(&n.to_le_bytes());
    }
    let random: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("mcpwire-proxy-{n}-{random}")
}

/// Puts one upstream question to a 2025 downstream client, as a real request.
async fn answer(ctx: &Ctx, key: &str, request: &InputRequest) -> Result<Value, McpError> {
    Ok(match request {
        InputRequest::Elicit(p) => serde_json::to_value(ctx.elicit_as(key, p.clone()).await?)?,
        InputRequest::CreateMessage(p) => serde_json::to_value(ctx.sample_as(key, p.clone()).await?)?,
        InputRequest::ListRoots(_) => serde_json::to_value(ctx.list_roots_as(key).await?)?,
        InputRequest::Other(call) => return Err(McpError::method_not_found(&call.method)),
    })
}

/// Params as received downstream, made ready for upstream: the downstream era's
/// envelope and progress token go (the upstream client adds its own), and so does a
/// 2025 `task` request: the proxy offers no tasks, and a server without them runs such
/// a request as an ordinary one.
pub fn upstream_params(params: Value) -> Map<String, Value> {
    let mut params = match params {
        Value::Object(o) => o,
        _ => Map::new(),
    };
    params.remove("task");
    if let Some(Value::Object(m)) = params.get_mut("_meta") {
        m.retain(|k, _| {
            k != meta::PROGRESS_TOKEN
                && ![meta::PROTOCOL_VERSION, meta::CLIENT_CAPABILITIES, meta::CLIENT_INFO, meta::LOG_LEVEL]
                    .contains(&k.as_str())
        });
        if m.is_empty() {
            params.remove("_meta");
        }
    }
    params
}

/// An upstream result shaped for the downstream client's revision `version`: a 2025
/// client gets no 2026-only members, and content blocks its revision has (see
/// [`fit_content`]); a 2026 client gets cache hints on cacheable results. Listed tools
/// lose their `execution.taskSupport`: the proxy offers no tasks, and runs a tool that
/// its upstream runs only as a task to its end itself ([`upstream_request`]).
pub fn downstream_result(mut result: Value, method: &str, version: &ProtocolVersion) -> Value {
    let era = version.era();
    if method == methods::TOOLS_LIST {
        without_task_support(&mut result);
    }
    fit_content(&mut result, method, version);
    if let Value::Object(o) = &mut result {
        match era {
            Some(Era::Stateless) => {
                if CACHEABLE.contains(&method) {
                    o.entry("ttlMs").or_insert(json!(0));
                    o.entry("cacheScope").or_insert(json!("private"));
                }
            }
            _ => {
                o.remove("resultType");
                o.remove("ttlMs");
                o.remove("cacheScope");
                if let Some(Value::Object(m)) = o.get_mut("_meta") {
                    m.remove(meta::SERVER_INFO);
                    if m.is_empty() {
                        o.remove("_meta");
                    }
                }
            }
        }
    }
    result
}

/// The content blocks of a `tools/call` or `prompts/get` result made what `version` has,
/// as the SDK's own server makes its own ([`ContentBlock::for_revision`]): audio (from
/// 2025-03-26) and resource links (from 2025-06-18) become text for older revisions,
/// whose schema has no such block.
fn fit_content(result: &mut Value, method: &str, version: &ProtocolVersion) {
    if !version.is_known() || version.is_at_least(&ProtocolVersion::V2025_06_18) {
        return;
    }
    let fit = |block: &mut Value| {
        let fitted = serde_json::from_value::<ContentBlock>(block.clone())
            .ok()
            .and_then(|b| serde_json::to_value(b.for_revision(version)).ok());
        if let Some(fitted) = fitted {
            *block = fitted;
        }
    };
    match method {
        methods::TOOLS_CALL => {
            if let Some(Value::Array(blocks)) = result.get_mut("content") {
                blocks.iter_mut().for_each(fit);
            }
        }
        methods::PROMPTS_GET => {
            if let Some(Value::Array(messages)) = result.get_mut("messages") {
                messages.iter_mut().filter_map(|m| m.get_mut("content")).for_each(fit);
            }
        }
        _ => {}
    }
}

/// Drops `execution.taskSupport` from each tool of a `tools/list` result (and `execution`
/// when nothing else is left in it).
fn without_task_support(result: &mut Value) {
    let Some(Value::Array(tools)) = result.get_mut("tools") else { return };
    for tool in tools.iter_mut().filter_map(Value::as_object_mut) {
        let Some(Value::Object(execution)) = tool.get_mut("execution") else { continue };
        execution.remove("taskSupport");
        if execution.is_empty() {
            tool.remove("execution");
        }
    }
}

/// The upstream server's own error goes downstream as it is; anything else (a timeout, a
/// transport failure) is this proxy's internal error.
pub(super) fn upstream_error(e: RequestError) -> McpError {
    match e {
        RequestError::Peer(e) => McpError::from_error_object(e),
        other => {
            let mut message = format!("upstream server: {other}");
            if message.contains("message size limit") {
                message.push_str(" (mcpwire proxy --max-message-size raises the proxy's limit)");
            }
            McpError::new(codes::INTERNAL_ERROR, message)
        }
    }
}

/// An upstream error in the downstream client's era's terms: a 2026 server says a
/// resource is missing with `-32602`, which a 2025 client must get as `-32002` (its
/// revision's code, as this proxy's own server answers it). The `-32602` of a
/// `resources/read` is taken as "not found" when it names the URI in `data` or says so.
/// A missing client capability (see [`capability_error`]) is said in the client's era's
/// code too.
fn downstream_error(error: McpError, method: &str, era: Option<Era>) -> McpError {
    let error = capability_error(error, era);
    let names_a_missing_resource = |object: &mcpwire::protocol::ErrorObject| {
        object.data.as_ref().is_some_and(|d| d.get("uri").is_some())
            || object.message.to_ascii_lowercase().contains("not found")
    };
    if method != methods::RESOURCES_READ
        || era == Some(Era::Stateless)
        || error.code() != codes::INVALID_PARAMS
    {
        return error;
    }
    let mut object = error.to_error_object();
    if !names_a_missing_resource(&object) {
        return error;
    }
    object.code = codes::RESOURCE_NOT_FOUND;
    McpError::from_error_object(object)
}

/// A refusal for a client capability the request did not declare, in the client's
/// era's code, as this proxy's own server gives it: `-32021` for a 2026 client (a 2025
/// upstream says `-32601`, which 2026 HTTP reads as an unknown method), `-32601` for a
/// 2025 client (a 2026 upstream says `-32021`, a code no 2025 revision defines). Only an
/// error whose `data` names the `requiredCapabilities` is taken for one.
fn capability_error(error: McpError, era: Option<Era>) -> McpError {
    let (from, to) = match era {
        Some(Era::Stateless) => (codes::METHOD_NOT_FOUND, codes::MISSING_REQUIRED_CLIENT_CAPABILITY),
        Some(Era::Stateful) => (codes::MISSING_REQUIRED_CLIENT_CAPABILITY, codes::METHOD_NOT_FOUND),
        None => return error,
    };
    if error.code() != from {
        return error;
    }
    let mut object = error.to_error_object();
    if object.data.as_ref().is_none_or(|d| d.get("requiredCapabilities").is_none()) {
        return error;
    }
    object.code = to;
    McpError::from_error_object(object)
}

/// What a request declares upstream (to a 2026 server; a 2025 one has the connection's):
/// the downstream client's capabilities, since it answers the server's questions, without
/// tasks (the extension, or a 2025 client's core `tasks`), which the proxy does not relay.
fn declared_for(ctx: &Ctx) -> ClientCapabilities {
    let mut capabilities = ctx.client_capabilities().clone();
    capabilities.tasks = None;
    if let Some(extensions) = &mut capabilities.extensions {
        extensions.remove(meta::TASKS_EXTENSION);
    }
    capabilities
}

/// One upstream request, with its log messages and progress (if asked for) forwarded to
/// the downstream request, those that came before the answer before it.
async fn send(
    client: &Client,
    base: &RequestOptions,
    ctx: &Ctx,
    logs: &mut Logs,
    method: &str,
    params: &Map<String, Value>,
) -> Result<Value, McpError> {
    let wants_progress = ctx.meta().is_some_and(|m| m.contains_key(meta::PROGRESS_TOKEN));
    let options = base.clone().declaring(declared_for(ctx));
    let (tx, mut progress) = mpsc::channel::<ProgressUpdate>(PROGRESS_QUEUE);
    let options = match wants_progress {
        true => options.on_progress(move |update| {
            let _ = tx.try_send(update);
        }),
        false => options,
    };
    let request = upstream_request(client, method, Value::Object(params.clone()), options);
    tokio::pin!(request);
    loop {
        tokio::select! {
            biased;
            Some(params) = logs.recv() => log_to(ctx, params).await,
            Some(update) = progress.recv() => {
                ctx.progress(update.progress, update.total, update.message.as_deref()).await;
            }
            result = &mut request => {
                while let Ok(params) = logs.try_recv() {
                    log_to(ctx, params).await;
                }
                while let Ok(update) = progress.try_recv() {
                    ctx.progress(update.progress, update.total, update.message.as_deref()).await;
                }
                let era = ctx.protocol_version().era();
                return result.map_err(|e| downstream_error(upstream_error(e), method, era));
            }
        }
    }
}

/// One upstream request. A `tools/call` goes through [`Client::call_tool_raw`]: a tool
/// that a 2025 upstream runs only as a task is run as one and followed to its end there,
/// so that the proxy (which offers no tasks) serves it as a plain call.
async fn upstream_request(
    client: &Client,
    method: &str,
    params: Value,
    options: RequestOptions,
) -> Result<Value, RequestError> {
    match method == methods::TOOLS_CALL {
        true => client.call_tool_raw(params, options).await,
        false => client.send_request(method, params, options).await,
    }
}

/// Forwards one request on a shared connection; resolves a 2026 upstream's
/// `input_required` rounds with a 2025 client, and passes them through to a 2026 client.
async fn forward_shared(
    client: &Client,
    base: RequestOptions,
    ctx: &Ctx,
    logs: &mut Logs,
    method: &'static str,
    params: Value,
) -> Result<Value, McpError> {
    let era = ctx.protocol_version().era();
    let mut params = upstream_params(params);
    let mut backoff = Duration::from_millis(50);
    for _ in 0..=MAX_ROUNDS {
        let result = send(client, &base, ctx, logs, method, &params).await?;
        let input_required = result.get("resultType").and_then(Value::as_str) == Some("input_required");
        if !input_required || era == Some(Era::Stateless) {
            return Ok(downstream_result(result, method, ctx.protocol_version()));
        }
        // A 2025 client: ask it for real, then retry upstream.
        let round: InputRequiredResult = serde_json::from_value(result)?;
        let requests = round.input_requests.unwrap_or_default();
        if requests.is_empty() {
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(Duration::from_millis(250));
        }
        let mut answers = Map::new();
        for (key, request) in requests {
            answers.insert(key.clone(), answer(ctx, &key, &request).await?);
        }
        params.remove("inputResponses");
        params.remove("requestState");
        if !answers.is_empty() {
            params.insert("inputResponses".into(), Value::Object(answers));
        }
        if let Some(state) = round.request_state {
            params.insert("requestState".into(), Value::String(state));
        }
    }
    Err(McpError::new(
        codes::INTERNAL_ERROR,
        format!("{method} still needed input after {MAX_ROUNDS} rounds"),
    ))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn strips_the_downstream_envelope() {
        let params = json!({ "name": "t", "_meta": {
            "progressToken": 7, "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}, "custom": 1 } });
        assert_eq!(Value::Object(upstream_params(params)), json!({ "name": "t", "_meta": { "custom": 1 } }));
        let bare = json!({ "_meta": { "progressToken": 1 } });
        assert_eq!(Value::Object(upstream_params(bare)), json!({}));
        let task = json!({ "name": "t", "task": { "ttl": 1000 } });
        assert_eq!(Value::Object(upstream_params(task)), json!({ "name": "t" }));
    }

    #[test]
    fn shapes_results_per_era() {
        let upstream = json!({ "tools": [], "resultType": "complete", "ttlMs": 5,
            "_meta": { "io.modelcontextprotocol/serverInfo": {} } });
        assert_eq!(
            downstream_result(upstream.clone(), methods::TOOLS_LIST, &ProtocolVersion::V2025_11_25),
            json!({ "tools": [] })
        );
        let stateless =
            downstream_result(json!({ "tools": [] }), methods::TOOLS_LIST, &ProtocolVersion::LATEST);
        assert_eq!(stateless, json!({ "tools": [], "ttlMs": 0, "cacheScope": "private" }));
        assert_eq!(downstream_result(upstream.clone(), methods::TOOLS_LIST, &ProtocolVersion::LATEST), {
            let mut u = upstream;
            u["cacheScope"] = json!("private");
            u
        });
    }
}
