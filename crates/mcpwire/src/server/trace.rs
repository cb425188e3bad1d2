//! [`trace_requests`]: a `tracing` span (and, with feature `metrics`, counts and
//! latencies) for every request.

use std::time::Instant;

use futures_util::future::BoxFuture;
use mcpwire_protocol::{RawJson, Request};
use serde::Deserialize;
use tracing::field::Empty;
use tracing::{Instrument, Span};

use super::middleware::{Middleware, Next};
use crate::error::McpError;
use crate::jsonrpc::RequestContext;

/// A middleware that gives every request a `tracing` span, and with the
/// `metrics` feature counts requests and times them through the `metrics` facade.
///
/// The span, `mcp.request`, carries the method, the request id, the tool or prompt name
/// or resource URI, the era (`2026` for a request with the 2026 `_meta` envelope, else
/// `2025`), the 2025 HTTP session, and the W3C trace context a client put in `_meta`
/// (`traceparent`, `tracestate`), so that a subscriber that
/// continues traces (for example `tracing-opentelemetry`) can link the server's work to the
/// client's. When the request ends it records `outcome` (`ok`, the JSON-RPC error code,
/// or `cancelled` when the request was dropped) and `duration_ms`, and logs one event.
///
/// ```
/// use mcpwire::server::{trace_requests, Server};
/// let server = Server::builder("traced", "1.0").middleware(trace_requests()).build();
/// # let _ = server;
/// ```
///
/// Metrics (feature `metrics`): `mcp_requests_total` (labels `method`, `outcome`) and
/// `mcp_request_duration_seconds` (label `method`), recorded by whatever recorder the
/// application installs (Prometheus, OpenTelemetry, ...); nothing when none is. The
/// `method` label is the method's name for the requests MCP defines, and `other` for any
/// other (the server's own custom methods included): the name comes from the client, and a
/// label per name it sends would let it add series to the recorder without end.
pub fn trace_requests() -> TraceRequests {
    TraceRequests
}

/// The middleware [`trace_requests`] returns.
#[derive(Clone, Copy, Debug, Default)]
pub struct TraceRequests;

/// What the span reads from a request's params: borrowed, and only these members.
#[derive(Deserialize, Default)]
struct Facts<'a> {
    #[serde(borrow, default)]
    name: Option<&'a str>,
    #[serde(borrow, default)]
    uri: Option<&'a str>,
    #[serde(rename = "_meta", borrow, default)]
    meta: Option<MetaFacts<'a>>,
}

#[derive(Deserialize, Default)]
struct MetaFacts<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow, default)]
    protocol_version: Option<&'a str>,
    #[serde(borrow, default)]
    traceparent: Option<&'a str>,
    #[serde(borrow, default)]
    tracestate: Option<&'a str>,
}

impl Middleware for TraceRequests {
    fn on_request(
        &self,
        request: Request,
        ctx: RequestContext,
        next: Next,
    ) -> BoxFuture<'static, Result<RawJson, McpError>> {
        let span = request_span(&request, &ctx);
        let mut finish = Finish {
            span: span.clone(),
            start: Instant::now(),
            #[cfg(feature = "metrics")]
            method: method_label(&request.method),
            done: false,
        };
        Box::pin(
            async move {
                let result = next.run(request, ctx).await;
                finish.record(match &result {
                    Ok(_) => "ok".to_owned(),
                    Err(error) => error.code().to_string(),
                });
                result
            }
            .instrument(span),
        )
    }
}

/// The span of one request (facts a malformed params cannot give are left out).
fn request_span(request: &Request, ctx: &RequestContext) -> Span {
    let facts: Facts<'_> =
        request.params.as_deref().and_then(|p| serde_json::from_str(p.get()).ok()).unwrap_or_default();
    let meta = facts.meta.unwrap_or_default();
    let era = if meta.protocol_version.is_some() { "2026" } else { "2025" };
    tracing::info_span!(
        "mcp.request",
        method = %request.method,
        id = %request.id,
        name = facts.name.or(facts.uri),
        era,
        session = session_of(ctx),
        traceparent = meta.traceparent,
        tracestate = meta.tracestate,
        outcome = Empty,
        duration_ms = Empty,
    )
}

/// The 2025 HTTP session a request belongs to, from its `Mcp-Session-Id` header.
#[cfg(feature = "http")]
fn session_of(ctx: &RequestContext) -> Option<&str> {
    let headers = ctx.extensions().get::<http::HeaderMap>()?;
    headers.get("mcp-session-id").and_then(|v| v.to_str().ok())
}

#[cfg(not(feature = "http"))]
fn session_of(_: &RequestContext) -> Option<&str> {
    None
}

/// Records a request's end once: its outcome, or `cancelled` when its future is dropped
/// before it finished.
struct Finish {
    span: Span,
    start: Instant,
    /// The `method` label of the request's metrics.
    #[cfg(feature = "metrics")]
    method: &'static str,
    done: bool,
}

impl Finish {
    fn record(&mut self, outcome: String) {
        self.done = true;
        let elapsed = self.start.elapsed();
        let duration_ms = elapsed.as_secs_f64() * 1000.0;
        self.span.record("outcome", outcome.as_str());
        self.span.record("duration_ms", duration_ms);
        tracing::info!(parent: &self.span, outcome = %outcome, duration_ms, "request finished");
        #[cfg(feature = "metrics")]
        {
            let method = self.method;
            metrics::counter!("mcp_requests_total", "method" => method, "outcome" => outcome).increment(1);
            metrics::histogram!("mcp_request_duration_seconds", "method" => method)
                .record(elapsed.as_secs_f64());
        }
    }
}

/// The `method` label of a request's metrics: its name when MCP defines the method (in
/// either era), else `other`, so that the labels a client can make are a fixed few.
#[cfg(feature = "metrics")]
fn method_label(method: &str) -> &'static str {
    use mcpwire_protocol::methods as m;
    const KNOWN: &[&str] = &[
        m::INITIALIZE,
        m::PING,
        m::SERVER_DISCOVER,
        m::TOOLS_LIST,
        m::TOOLS_CALL,
        m::RESOURCES_LIST,
        m::RESOURCES_TEMPLATES_LIST,
        m::RESOURCES_READ,
        m::RESOURCES_SUBSCRIBE,
        m::RESOURCES_UNSUBSCRIBE,
        m::PROMPTS_LIST,
        m::PROMPTS_GET,
        m::COMPLETION_COMPLETE,
        m::LOGGING_SET_LEVEL,
        m::SUBSCRIPTIONS_LISTEN,
        m::TASKS_GET,
        m::TASKS_RESULT,
        m::TASKS_LIST,
        m::TASKS_CANCEL,
        m::TASKS_UPDATE,
    ];
    KNOWN.iter().copied().find(|known| *known == method).unwrap_or("other")
}

impl Drop for Finish {
    fn drop(&mut self) {
        if !self.done {
            self.record("cancelled".to_owned());
        }
    }
}
