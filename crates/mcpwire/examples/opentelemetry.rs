//! A client's trace continued in the server, exported to OpenTelemetry.
//!
//! The client puts the current span's W3C trace context in every request's `_meta`
//! (`ClientBuilder::trace_context`); a middleware on the server reads it back and makes
//! the server's span a child of the client's. (A 2025 server's questions to the client,
//! such as `elicitation/create`, carry the request's trace context back the same way.)
//! Both sides here export to one in-memory OpenTelemetry exporter, printed at the end:
//! the server's spans share the client's trace id. In a real deployment each process
//! exports to a collector instead (the `opentelemetry-otlp` crate).
//!
//! Run: `cargo run -p mcpwire --example opentelemetry`

use std::collections::HashMap;

use mcpwire::client::Client;
use mcpwire::extensions::TraceContext;
use mcpwire::server::{middleware_fn, Server};
use opentelemetry::propagation::TextMapPropagator;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
use serde_json::{json, Value};
use tracing::Instrument;
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::layer::SubscriberExt;

/// Adds two numbers.
#[mcpwire::tool]
async fn add(a: i64, b: i64) -> i64 {
    tracing::info_span!("adding").in_scope(|| a + b)
}

/// The current span's trace context, for the client's next request.
fn current_trace() -> Option<TraceContext> {
    let mut carrier = HashMap::new();
    TraceContextPropagator::new().inject_context(&tracing::Span::current().context(), &mut carrier);
    Some(TraceContext {
        traceparent: carrier.remove("traceparent")?,
        tracestate: carrier.remove("tracestate").filter(|state| !state.is_empty()),
    })
}

/// The trace context a request carries in `_meta`, as a propagator reads it.
fn carried_trace(params: Option<&serde_json::value::RawValue>) -> HashMap<String, String> {
    let meta = params
        .and_then(|p| serde_json::from_str::<Value>(p.get()).ok())
        .and_then(|p| p.get("_meta").cloned())
        .unwrap_or_default();
    ["traceparent", "tracestate"]
        .into_iter()
        .filter_map(|key| Some((key.to_owned(), meta.get(key)?.as_str()?.to_owned())))
        .collect()
}

/// A server whose requests each run in a span that continues the caller's trace.
fn server() -> Result<Server, mcpwire::server::BuildError> {
    Server::builder("traced", "1.0.0")
        .middleware(middleware_fn(|request, ctx, next| async move {
            let span = tracing::info_span!("mcp.server", method = %request.method);
            let parent = TraceContextPropagator::new().extract(&carried_trace(request.params.as_deref()));
            // A request without a trace context starts a trace of its own.
            let _ = span.set_parent(parent);
            next.run(request, ctx).instrument(span).await
        }))
        .register_all(mcpwire::definitions![add])
        .build()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder().with_simple_exporter(exporter.clone()).build();
    let otel = tracing_opentelemetry::layer().with_tracer(provider.tracer("mcpwire-example"));
    tracing::subscriber::set_global_default(tracing_subscriber::registry().with(otel))?;

    let server = server()?;
    let (server_side, client_side) = mcpwire::transport::memory::pair();
    tokio::spawn(async move { server.serve(server_side).await });
    let client =
        Client::builder("traced-client", "1.0.0").trace_context(current_trace).connect(client_side).await?;

    let work = tracing::info_span!("client.work");
    let sum = async { client.call_tool("add", json!({ "a": 2, "b": 3 })).await }.instrument(work).await?;
    println!("add(2, 3) = {}", sum.content[0].as_text().unwrap_or_default());
    client.close().await;
    provider.force_flush()?;

    let spans = exporter.get_finished_spans()?;
    for span in &spans {
        println!(
            "{:<12} trace {} span {} parent {}",
            span.name,
            span.span_context.trace_id(),
            span.span_context.span_id(),
            span.parent_span_id
        );
    }
    let client_span = spans.iter().find(|s| s.name == "client.work").ok_or("no client span")?;
    let trace = client_span.span_context.trace_id();
    let continued = spans.iter().filter(|s| s.name == "mcp.server" && s.span_context.trace_id() == trace);
    let call = continued
        .clone()
        .find(|s| s.parent_span_id == client_span.span_context.span_id())
        .ok_or("the server's tools/call span does not continue the client's trace")?;
    println!("the server's {} span continues the client's trace {trace}", call.name);
    Ok(())
}
