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
//! - **list changes and resource updates**: republished to every client that asked for
//!   them (the upstream is subscribed to what any client is: [`subscriptions`]); a 2025
//!   client's `notifications/roots/list_changed` goes upstream (see
//!   [`upstream::Pool::roots_changed`]);
//! - **log messages**: to the downstream request in flight, at that client's level; a
//!   2025 server's sent outside a request (or while several are in flight) to every 2025
//!   client, each at its own level (2026 clients take log messages only with a request);
//!   a 2026 server's, which all belong to requests, are dropped while several are in
//!   flight (nothing on the wire says whose they are).
//!
//! Upstream connections: a 2026 upstream is one connection (one server process, so one
//! server state for every client), each request declaring its own client's capabilities;
//! a 2025 upstream, whose capabilities are fixed per connection, gets one connection per
//! set of client capabilities (see [`upstream::Pool`]), each its own server process.
//!
//! Tasks: the proxy offers none and relays no `tasks/*`, so every result is final. A tool
//! that a 2025 upstream runs only as a task is run as one by the proxy, which follows it
//! to its end (its questions reach the client as any upstream question does) and answers
//! with its result; the tool is listed without its `taskSupport`.
//!
//! Limits: a 2026 upstream sees the proxy's
//! `clientInfo`, not the client's own; a 2025 upstream's per-session state is the
//! connection's, not the client's: subscriptions live on the first connection, and a
//! client that can be asked things may be served by another connection (another upstream
//! session) per request, so a server that sends resource updates only to the session
//! that also switched them on by a tool call (server-everything's
//! `toggle-subscriber-updates`) sends that client none; a 2025 server's `roots/list`
//! outside a request (at start-up, after a change) goes to the 2025 client that last used
//! that connection or last said its roots changed ([`downstream`]), and clients of the
//! same kind share its answer.

mod clients;
mod downstream;
mod relay;
mod subscriptions;
mod upstream;
mod url_required;

use std::sync::Arc;

use mcpwire::client::Client;
use mcpwire::protocol::capabilities::ServerCapabilities;
use mcpwire::protocol::{meta, methods, Era};
use mcpwire::server::Server;
use serde_json::{Map, Value};

use relay::Relay;
use subscriptions::Subscriptions;
use upstream::{Pool, Settings};

use crate::cli::Proxy;
use crate::commands::{client_options, pinned_version, seconds_option};
use crate::errors::{Failure, EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK};
use crate::interrupt;
use crate::target::{self, Target};

/// The methods forwarded upstream as they are. (`resources/subscribe` and
/// `resources/unsubscribe` are the bridge's own, told upstream by [`subscriptions`].)
const FORWARDED: [&str; 8] = [
    methods::TOOLS_LIST,
    methods::TOOLS_CALL,
    methods::RESOURCES_LIST,
    methods::RESOURCES_TEMPLATES_LIST,
    methods::RESOURCES_READ,
    methods::PROMPTS_LIST,
    methods::PROMPTS_GET,
    methods::COMPLETION_COMPLETE,
];

/// The upstream's capabilities as the bridge advertises them: all of them but tasks
/// (the proxy does not relay `tasks/*`, so its upstream connections declare no tasks
/// and it offers none), `logging` only when the upstream has it (the bridge server then
/// declares it itself).
fn advertised(caps: Option<&ServerCapabilities>) -> (Map<String, Value>, bool) {
    let mut caps = match caps.map(serde_json::to_value) {
        Some(Ok(Value::Object(o))) => o,
        _ => Map::new(),
    };
    let logging = caps.remove("logging").is_some();
    caps.remove("tasks");
    if let Some(Value::Object(extensions)) = caps.get_mut("extensions") {
        extensions.remove(meta::TASKS_EXTENSION);
        if extensions.is_empty() {
            caps.remove("extensions");
        }
    }
    (caps, logging)
}

/// Builds the bridge server in front of a connected upstream client.
async fn bridge(
    relay: &Arc<Relay>,
    pool: &Arc<Pool>,
    client: &Client,
    subscriptions: Arc<Subscriptions>,
) -> anyhow::Result<Server> {
    let (mut info, mut caps, mut instructions) =
        (client.server_info(), client.server_capabilities(), client.instructions());
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
    let (caps, logging) = advertised(caps.as_ref());
    let mut builder = Server::builder(name, version)
        .extra_capabilities(caps)
        .middleware(downstream::Downstream::new(pool.clone()))
        .on_subscribe({
            let subscriptions = subscriptions.clone();
            move |uri: String| {
                let subscriptions = subscriptions.clone();
                async move { subscriptions.subscribe(&uri).await }
            }
        })
        .on_unsubscribe(move |uri: &str| {
            let (subscriptions, uri) = (subscriptions.clone(), uri.to_owned());
            tokio::spawn(async move { subscriptions.unsubscribe(&uri).await });
        });
    if !logging {
        builder = builder.without_logging();
    }
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
        if let Some(icons) = &i.icons {
            builder = builder.icons(icons.clone());
        }
    }
    if let Some(text) = instructions {
        builder = builder.instructions(text);
    }
    for method in FORWARDED {
        let relay = relay.clone();
        builder = builder.method(method, move |ctx, params| relay.clone().forward(ctx, method, params));
    }
    Ok(builder.build()?)
}

/// `mcpwire proxy`.
pub async fn run(args: &Proxy, max_message: usize) -> anyhow::Result<i32> {
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
    let options = client_options(c.timeout, matches!(target, Target::Stdio { .. }))?;
    let version = c.protocol_version.as_deref().map(pinned_version).transpose()?;
    let max_total_timeout =
        args.max_total_timeout.map(|s| seconds_option("--max-total-timeout", s)).transpose()?;
    let settings = Settings { target: target.clone(), options, version, max_message, max_total_timeout };
    let pool = tokio::select! {
        pool = Pool::open(settings) => pool?,
        _ = interrupt::interrupted(1) => return Ok(EXIT_INTERRUPTED),
    };
    let client = pool.primary().clone();
    tracing::debug!(era = ?client.era(), version = %client.protocol_version().as_str(), "upstream connected");
    let relay = Relay::new(pool.clone());
    // A 2026 upstream pushes list changes only on a listen stream, which this opens.
    let subscriptions = Arc::new(Subscriptions::start(client.clone()).await);
    let server = bridge(&relay, &pool, &client, subscriptions.clone()).await?;
    let _ = pool.server.set(server.clone());
    upstream::set_log_level(&client).await;
    let upstream_gone = {
        let peer = client.peer().clone();
        async move { peer.closed().await }
    };
    let code = match &args.listen {
        Some(addr) => {
            let bound = mcpwire::http::serve_with_shutdown(crate::serve::service(server, addr, max_message), addr.as_str(), "/mcp")
                .await
                .map_err(|e| {
                    Failure::connect(format!("cannot listen on {addr}: {e}"))
                        .hint("use HOST:PORT that is free on this machine, for example 127.0.0.1:8080 (port 0 picks one)")
                })?;
            say!("mcpwire: proxying {target} at http://{}/mcp (Ctrl-C stops)", bound.local_addr);
            let code = tokio::select! {
                _ = interrupt::interrupted(1) => EXIT_INTERRUPTED,
                _ = upstream_gone => {
                    say!("error: the upstream server stopped; the proxy stops too");
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
                // A stop signal ends it too, once what was running is answered.
                served = crate::serve::serve_stdio(&server, max_message) => match served {
                    Ok(EXIT_OK) => EXIT_OK,
                    Ok(_) => EXIT_INTERRUPTED,
                    Err(_) => EXIT_FAILURE,
                },
                _ = upstream_gone => {
                    say!("error: the upstream server closed the connection");
                    EXIT_FAILURE
                }
            }
        }
    };
    // Every connection at once: each may take the spec's waits (after stdin closes, after
    // SIGTERM), which one after another would add up. A second stop signal cuts them
    // short: the runtime's end then kills what is left (see `main`).
    let mut closing = tokio::task::JoinSet::new();
    for client in pool.take_clients() {
        closing.spawn(async move { client.close().await });
    }
    tokio::select! {
        () = async { while closing.join_next().await.is_some() {} } => {}
        _ = interrupt::interrupted(2) => {}
    }
    target::close(&client).await;
    Ok(code)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn advertises_upstream_capabilities_without_logging() {
        let caps: ServerCapabilities =
            serde_json::from_value(json!({ "tools": { "listChanged": true }, "logging": {} })).unwrap();
        let (advertised, logging) = advertised(Some(&caps));
        assert_eq!(Value::Object(advertised), json!({ "tools": { "listChanged": true } }));
        assert!(logging);
        let caps: ServerCapabilities = serde_json::from_value(json!({ "tools": {} })).unwrap();
        assert!(!super::advertised(Some(&caps)).1);
    }
}
