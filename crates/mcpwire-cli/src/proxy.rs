//! `mcpwire proxy`: one server, another transport.
//!
//! `proxy --listen ADDR stdio:'...'` spawns the stdio server once and serves it over
//! Streamable HTTP at `http://ADDR/mcp`, to 2025 clients (sessions, SSE) and 2026
//! clients (stateless) at once. `proxy --stdio URL` does the reverse (it waits for the
//! HTTP client transport: see `target::connect`).
//!
//! The bridge is a [`Server`] that registers no tools, resources or prompts of its own:
//! it advertises the upstream server's identity and capabilities, and registers each
//! forwarded method (`tools/call`, `resources/read`, ...) as a custom method, which the
//! SDK's router reaches because the matching built-in capability is not set. The
//! HTTP-side `Server` still owns each era's handshake, envelope checks, stamping,
//! sessions and `subscriptions/listen` streams. What passes through:
//! - **cancellation**: a downstream cancel (or a closed 2026 response) drops the handler,
//!   and dropping the upstream request sends `notifications/cancelled` upstream;
//! - **progress**: asked for downstream, forwarded as it arrives;
//! - **server-to-client input**: a 2026 upstream's `input_required` result passes through
//!   to a 2026 client unchanged (its retry carries `inputResponses` and `requestState`
//!   back); for a 2025 client the bridge asks it for real (`elicitation/create`,
//!   `sampling/createMessage`, `roots/list`) and retries upstream. A 2025 upstream's
//!   requests are put to the one downstream request in flight (see the limits below);
//! - **list changes**: republished to every client that asked for them;
//! - **log messages**: to the downstream request in flight, at that client's level.
//!
//! Limits (the SDK gives no way around them yet): over stdio, a 2025 upstream's log
//! messages and requests name no request, so with several downstream requests in flight
//! they cannot be attributed (they are then dropped or declined); the upstream sees the
//! proxy's client capabilities, not each downstream client's; `resources/updated` does
//! not reach 2025 downstream sessions (their subscriptions are forwarded, but the
//! SDK's per-session subscription set is not updated by a custom method).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use mcpwire::client::{Client, RequestOptions, ServerChange};
use mcpwire::jsonrpc::ProgressUpdate;
use mcpwire::protocol::capabilities::ServerCapabilities;
use mcpwire::protocol::elicitation::ElicitRequestParams;
use mcpwire::protocol::mrtr::{InputRequest, InputRequiredResult};
use mcpwire::protocol::subscriptions::SubscriptionFilter;
use mcpwire::protocol::{codes, meta, methods, Era};
use mcpwire::server::{Ctx, Server, ServerEvent};
use mcpwire::{McpError, RequestError};
use serde_json::{json, Map, Value};
use tokio::sync::mpsc;

use crate::cli::Proxy;
use crate::commands::{client_options, pinned_version};
use crate::errors::{Failure, EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK};
use crate::interrupt;
use crate::target::{self, Target};

/// The methods forwarded upstream as they are.
const FORWARDED: [&str; 10] = [
    methods::TOOLS_LIST,
    methods::TOOLS_CALL,
    methods::RESOURCES_LIST,
    methods::RESOURCES_TEMPLATES_LIST,
    methods::RESOURCES_READ,
    methods::RESOURCES_SUBSCRIBE,
    methods::RESOURCES_UNSUBSCRIBE,
    methods::PROMPTS_LIST,
    methods::PROMPTS_GET,
    methods::COMPLETION_COMPLETE,
];

/// Results that 2026 clients expect cache hints on.
const CACHEABLE: [&str; 5] = [
    methods::TOOLS_LIST,
    methods::RESOURCES_LIST,
    methods::RESOURCES_TEMPLATES_LIST,
    methods::RESOURCES_READ,
    methods::PROMPTS_LIST,
];

/// Most `input_required` rounds the bridge resolves for a 2025 client.
const MAX_ROUNDS: usize = 10;

/// The downstream requests in flight, for what a 2025 upstream sends unattributed.
#[derive(Clone, Default)]
struct Active {
    next: Arc<AtomicU64>,
    requests: Arc<Mutex<Vec<(u64, Ctx)>>>,
}

/// Removes a request from [`Active`] when its handler ends (or is dropped).
struct ActiveGuard {
    active: Active,
    id: u64,
}

impl Drop for ActiveGuard {
    fn drop(&mut self) {
        self.active.requests.lock().unwrap_or_else(|e| e.into_inner()).retain(|(id, _)| *id != self.id);
    }
}

impl Active {
    fn enter(&self, ctx: &Ctx) -> ActiveGuard {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        self.requests.lock().unwrap_or_else(|e| e.into_inner()).push((id, ctx.clone()));
        ActiveGuard { active: self.clone(), id }
    }

    /// The one request in flight, if exactly one is.
    fn single(&self) -> Option<Ctx> {
        match self.requests.lock().unwrap_or_else(|e| e.into_inner()).as_slice() {
            [(_, ctx)] => Some(ctx.clone()),
            _ => None,
        }
    }
}

fn not_carried(what: &str) -> McpError {
    McpError::new(
        codes::INTERNAL_ERROR,
        format!("mcpwire proxy: cannot carry {what} to the client (none or several requests in flight, or a 2026 client)"),
    )
}

/// The upstream client, with its server-to-client requests and notifications routed to
/// the downstream side.
fn upstream_builder(active: &Active, server: &Arc<OnceLock<Server>>) -> mcpwire::client::ClientBuilder {
    let (a1, a2, a3, a4) = (active.clone(), active.clone(), active.clone(), active.clone());
    let server = server.clone();
    Client::builder("mcpwire-proxy", env!("CARGO_PKG_VERSION"))
        .on_elicitation(move |params: ElicitRequestParams| {
            let active = a1.clone();
            async move {
                match active.single() {
                    Some(ctx) => match ctx.elicit(params).await {
                        Err(e) if e.is_input_required() => Err(not_carried("elicitation")),
                        other => other,
                    },
                    None => Err(not_carried("elicitation")),
                }
            }
        })
        .on_sampling(move |params| {
            let active = a2.clone();
            async move {
                match active.single() {
                    Some(ctx) => match ctx.sample(params).await {
                        Err(e) if e.is_input_required() => Err(not_carried("sampling")),
                        other => other,
                    },
                    None => Err(not_carried("sampling")),
                }
            }
        })
        .on_roots(move || {
            let active = a3.clone();
            async move {
                match active.single() {
                    Some(ctx) => match ctx.list_roots().await {
                        Err(e) if e.is_input_required() => Err(not_carried("roots/list")),
                        other => other,
                    },
                    None => Err(not_carried("roots/list")),
                }
            }
        })
        .on_log(move |params| match a4.single() {
            Some(ctx) => {
                tokio::spawn(async move {
                    ctx.log_as(params.level, params.logger.as_deref(), params.data).await;
                });
            }
            None => tracing::debug!(target: "mcpwire::upstream", "log message with no single request in flight: {:?}", params.data),
        })
        .on_change(move |change| {
            let Some(server) = server.get() else { return };
            server.notify(match change {
                ServerChange::ToolsChanged => ServerEvent::ToolsChanged,
                ServerChange::PromptsChanged => ServerEvent::PromptsChanged,
                ServerChange::ResourcesChanged => ServerEvent::ResourcesChanged,
                ServerChange::ResourceUpdated(uri) => ServerEvent::ResourceUpdated(uri),
            });
        })
}

/// Params as received downstream, made ready for upstream: the downstream era's
/// envelope and progress token go (the upstream client adds its own).
fn upstream_params(params: Value) -> Map<String, Value> {
    let mut params = match params {
        Value::Object(o) => o,
        _ => Map::new(),
    };
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

/// An upstream result shaped for the downstream era: a 2025 client gets no 2026-only
/// members; a 2026 client gets cache hints on cacheable results.
fn downstream_result(mut result: Value, method: &str, era: Option<Era>) -> Value {
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

/// The upstream server's own error goes downstream as it is; anything else (a timeout, a
/// transport failure) is this proxy's internal error.
fn upstream_error(e: RequestError) -> McpError {
    match e {
        RequestError::Peer(e) => McpError::from_error_object(e),
        other => McpError::new(codes::INTERNAL_ERROR, format!("upstream server: {other}")),
    }
}

/// One upstream request, with progress forwarded to the downstream request.
async fn send(
    client: &Client,
    ctx: &Ctx,
    method: &str,
    params: &Map<String, Value>,
) -> Result<Value, McpError> {
    let wants_progress = ctx.meta().is_some_and(|m| m.contains_key(meta::PROGRESS_TOKEN));
    if !wants_progress {
        let sent = client.send_request(method, Value::Object(params.clone()), RequestOptions::default());
        return sent.await.map_err(upstream_error);
    }
    let (tx, mut rx) = mpsc::unbounded_channel::<ProgressUpdate>();
    let options = RequestOptions::default().on_progress(move |update| {
        let _ = tx.send(update);
    });
    let request = client.send_request(method, Value::Object(params.clone()), options);
    tokio::pin!(request);
    loop {
        tokio::select! {
            biased;
            Some(update) = rx.recv() => {
                ctx.progress(update.progress, update.total, update.message.as_deref()).await;
            }
            result = &mut request => {
                while let Ok(update) = rx.try_recv() {
                    ctx.progress(update.progress, update.total, update.message.as_deref()).await;
                }
                return result.map_err(upstream_error);
            }
        }
    }
}

/// Forwards one downstream request; resolves a 2026 upstream's `input_required` rounds
/// with a 2025 client, and passes them through to a 2026 client.
async fn forward(
    client: Client,
    active: Active,
    ctx: Ctx,
    method: &'static str,
    params: Value,
) -> Result<Value, McpError> {
    let _active = active.enter(&ctx);
    let era = ctx.protocol_version().era();
    let mut params = upstream_params(params);
    let mut backoff = Duration::from_millis(50);
    for _ in 0..=MAX_ROUNDS {
        let result = send(&client, &ctx, method, &params).await?;
        let input_required = result.get("resultType").and_then(Value::as_str) == Some("input_required");
        if !input_required || era == Some(Era::Stateless) {
            return Ok(downstream_result(result, method, era));
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
            let answer = match request {
                InputRequest::Elicit(p) => serde_json::to_value(ctx.elicit(p).await?)?,
                InputRequest::CreateMessage(p) => serde_json::to_value(ctx.sample(p).await?)?,
                InputRequest::ListRoots(_) => serde_json::to_value(ctx.list_roots().await?)?,
                InputRequest::Other(call) => return Err(McpError::method_not_found(&call.method)),
            };
            answers.insert(key, answer);
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

/// The upstream's capabilities as the bridge advertises them (everything but `logging`,
/// which every mcpwire server declares itself).
fn advertised(caps: Option<&ServerCapabilities>) -> Map<String, Value> {
    let mut caps = match caps.map(serde_json::to_value) {
        Some(Ok(Value::Object(o))) => o,
        _ => Map::new(),
    };
    caps.remove("logging");
    caps
}

/// Builds the bridge server in front of a connected upstream client.
async fn bridge(client: &Client, active: &Active) -> anyhow::Result<Server> {
    let (mut info, mut caps, mut instructions) = (
        client.server_info(),
        client.server_capabilities().cloned(),
        client.instructions().map(str::to_owned),
    );
    if client.era() == Era::Stateless && client.discover_result().is_none() {
        let discover = client.discover().await.map_err(|e| Failure::request("server/discover", &e))?;
        info = info.or_else(|| {
            discover
                .meta
                .as_ref()
                .and_then(|m| m.get(meta::SERVER_INFO))
                .and_then(|v| serde_json::from_value(v.clone()).ok())
        });
        instructions = instructions.or(discover.instructions.clone());
        caps = Some(discover.capabilities);
    }
    let (name, version) = match &info {
        Some(i) => (i.name.clone(), i.version.clone()),
        None => ("mcpwire-proxy".to_owned(), env!("CARGO_PKG_VERSION").to_owned()),
    };
    let mut builder = Server::builder(name, version).extra_capabilities(advertised(caps.as_ref()));
    if let Some(i) = &info {
        if let Some(t) = &i.title {
            builder = builder.title(t.clone());
        }
        if let Some(d) = &i.description {
            builder = builder.description(d.clone());
        }
        if let Some(w) = &i.website_url {
            builder = builder.website_url(w.clone());
        }
    }
    if let Some(text) = instructions {
        builder = builder.instructions(text);
    }
    for method in FORWARDED {
        let (client, active) = (client.clone(), active.clone());
        builder = builder
            .method(method, move |ctx, params| forward(client.clone(), active.clone(), ctx, method, params));
    }
    Ok(builder.build()?)
}

/// `mcpwire proxy`.
pub async fn run(args: &Proxy) -> anyhow::Result<i32> {
    interrupt::install()?;
    let c = &args.connect;
    let target = c.target.clone().with_http_options(&c.headers, c.bearer.as_deref())?;
    match (&args.listen, &target) {
        (Some(_), Target::Http { .. }) => {
            return Err(Failure::usage(
                "proxy --listen exposes a stdio server: give a stdio:'COMMAND ARGS' target",
            )
            .hint("to reach an HTTP server over stdio, use proxy --stdio URL")
            .into())
        }
        (None, Target::Stdio { .. }) => {
            return Err(Failure::usage(
                "proxy --stdio exposes an http(s):// server over stdio: give a URL target",
            )
            .hint("to expose a stdio server over HTTP, use proxy --listen ADDR stdio:'COMMAND ARGS'")
            .into())
        }
        _ => {}
    }
    let active = Active::default();
    let server_slot = Arc::new(OnceLock::new());
    let options = client_options(c.timeout, matches!(target, Target::Stdio { .. }))?;
    let mut builder = upstream_builder(&active, &server_slot).options(options);
    if let Some(version) = &c.protocol_version {
        builder = builder.protocol_version(pinned_version(version)?);
    }
    // HTTP-CLIENT: `proxy --stdio URL` goes through here too; it works as soon as
    // target::connect handles http(s):// targets.
    let client = tokio::select! {
        client = target::connect(&target, builder) => client?,
        _ = interrupt::interrupted(1) => return Ok(EXIT_INTERRUPTED),
    };
    tracing::debug!(era = ?client.era(), version = %client.protocol_version().as_str(), "upstream connected");
    let server = bridge(&client, &active).await?;
    let _ = server_slot.set(server.clone());
    // Every log message the upstream has: each downstream request gets what its own
    // level asks for (the bridge's `ctx.log` filters).
    let debug: mcpwire::protocol::logging::LoggingLevel = serde_json::from_value(json!("debug"))?;
    let logs =
        client.era() == Era::Stateless || client.server_capabilities().is_some_and(|c| c.logging.is_some());
    if logs {
        if let Err(e) = client.set_log_level(debug).await {
            tracing::debug!("setting the upstream log level failed: {e}");
        }
    }
    // A 2026 upstream pushes list changes only on a listen stream.
    let _listen = if client.era() == Era::Stateless {
        let filter = SubscriptionFilter {
            tools_list_changed: Some(true),
            prompts_list_changed: Some(true),
            resources_list_changed: Some(true),
            ..Default::default()
        };
        match client.listen(filter).await {
            Ok(subscription) => Some(drain(subscription)),
            Err(e) => {
                tracing::debug!("the upstream refused subscriptions/listen: {e}");
                None
            }
        }
    } else {
        None
    };
    let upstream_gone = {
        let peer = client.peer().clone();
        async move { peer.closed().await }
    };
    let code = match &args.listen {
        Some(addr) => {
            let bound = mcpwire::http::serve_with_shutdown(mcpwire::http::McpService::new(server), addr.as_str(), "/mcp")
                .await
                .map_err(|e| {
                    Failure::connect(format!("cannot listen on {addr}: {e}"))
                        .hint("use HOST:PORT that is free on this machine, for example 127.0.0.1:8080 (port 0 picks one)")
                })?;
            eprintln!("mcpwire: proxying {target} at http://{}/mcp (Ctrl-C stops)", bound.local_addr);
            let code = tokio::select! {
                _ = interrupt::interrupted(1) => EXIT_INTERRUPTED,
                _ = upstream_gone => {
                    eprintln!("error: the upstream server stopped; the proxy stops too");
                    EXIT_FAILURE
                }
            };
            bound.shutdown.cancel();
            tokio::select! {
                _ = bound.task => {}
                _ = interrupt::interrupted(2) => {}
            }
            code
        }
        None => {
            tokio::select! {
                _ = server.serve_stdio() => EXIT_OK,
                _ = interrupt::interrupted(1) => EXIT_INTERRUPTED,
                _ = upstream_gone => {
                    eprintln!("error: the upstream server closed the connection");
                    EXIT_FAILURE
                }
            }
        }
    };
    target::close(&client).await;
    Ok(code)
}

/// Keeps a listen stream read (its notifications already reached `on_change`).
fn drain(mut subscription: mcpwire::client::Subscription) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move { while subscription.next().await.is_some() {} })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
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
    }

    #[test]
    fn shapes_results_per_era() {
        let upstream = json!({ "tools": [], "resultType": "complete", "ttlMs": 5,
            "_meta": { "io.modelcontextprotocol/serverInfo": {} } });
        assert_eq!(
            downstream_result(upstream.clone(), methods::TOOLS_LIST, Some(Era::Stateful)),
            json!({ "tools": [] })
        );
        let modern = downstream_result(json!({ "tools": [] }), methods::TOOLS_LIST, Some(Era::Stateless));
        assert_eq!(modern, json!({ "tools": [], "ttlMs": 0, "cacheScope": "private" }));
        assert_eq!(downstream_result(upstream.clone(), methods::TOOLS_LIST, Some(Era::Stateless)), {
            let mut u = upstream;
            u["cacheScope"] = json!("private");
            u
        });
    }

    #[test]
    fn advertises_upstream_capabilities_without_logging() {
        let caps: ServerCapabilities =
            serde_json::from_value(json!({ "tools": { "listChanged": true }, "logging": {} })).unwrap();
        assert_eq!(Value::Object(advertised(Some(&caps))), json!({ "tools": { "listChanged": true } }));
    }
}
