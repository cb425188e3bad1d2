//! The 2026-07-28 path: one POST carries one request and gets one answer — a JSON body,
//! or an SSE stream when the handler sends notifications first (progress, logs, a
//! `subscriptions/listen` stream). Closing the response cancels the request, and nothing
//! more is written for it. The headers must agree with the body (`-32020` otherwise).

use std::time::Duration;

use bytes::Bytes;
use http::{header, HeaderMap, HeaderValue, Response, StatusCode};
use mcpwire_protocol::subscriptions::SubscriptionsListenResult;
use mcpwire_protocol::{codes, methods, Message, Request};
use serde_json::value::RawValue;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::body::McpBody;
use super::{headers, sse, status, HttpSettings};
use crate::extensions::Extensions;
use crate::jsonrpc::{Dispatcher, Handler, RequestContext};
use crate::server::Server;
use crate::transport::{Connection, InboundMeta, Outgoing, TransportEvent};

/// The dispatcher handler of one 2026 request.
struct Modern(Server);

impl Handler for Modern {
    async fn on_request(
        &self,
        request: Request,
        ctx: RequestContext,
    ) -> Result<mcpwire_protocol::RawJson, crate::McpError> {
        self.0.serve_stateless(request, ctx).await
    }
}

/// Checks the 2026 headers of a request against its body.
pub(crate) fn check_headers(server: &Server, headers: &HeaderMap, request: &Request) -> Result<(), String> {
    let meta_version = request.parse_params::<Value>().ok().and_then(|p| {
        p.get("_meta")?.get(mcpwire_protocol::meta::PROTOCOL_VERSION)?.as_str().map(str::to_owned)
    });
    match (headers::protocol_version(headers)?, meta_version) {
        (None, _) => return Err("the MCP-Protocol-Version header is required".into()),
        (Some(h), Some(m)) if h != m => {
            return Err(format!("the MCP-Protocol-Version header ({h:?}) does not match _meta ({m:?})"))
        }
        _ => {}
    }
    headers::check_routing(headers, request)?;
    if request.method == methods::TOOLS_CALL {
        let params: Value = request.parse_params().unwrap_or(Value::Null);
        let tool = params.get("name").and_then(Value::as_str).and_then(|name| server.tool_def(name));
        if let Some(tool) = tool {
            let annotated = headers::param_headers(&tool.tool().input_schema);
            if !annotated.is_empty() {
                headers::check_params(headers, &annotated, params.get("arguments"))?;
            }
        }
    }
    Ok(())
}

/// Serves one 2026 request. When `closing` fires (the endpoint shuts down) the request
/// ends at once: a `subscriptions/listen` stream with its final result, anything else by
/// closing its stream (which cancels its handler).
pub(crate) async fn serve(
    server: &Server,
    settings: &HttpSettings,
    request: Request,
    extensions: Extensions,
    accepts_sse: bool,
    closing: CancellationToken,
) -> Response<McpBody> {
    let id = request.id.clone();
    let listen = request.method == methods::SUBSCRIPTIONS_LISTEN;
    if listen && !accepts_sse {
        return status::error(
            StatusCode::NOT_ACCEPTABLE,
            Some(id),
            codes::INVALID_REQUEST,
            "subscriptions/listen needs Accept: text/event-stream",
        );
    }
    let (in_tx, in_rx) = mpsc::channel(1);
    let (out_tx, mut out_rx) = mpsc::channel::<Outgoing>(settings.stream_queue);
    let dispatcher = Dispatcher::with_config(
        Connection { incoming: in_rx, outgoing: out_tx },
        server.inner.config.dispatcher.clone(),
    );
    dispatcher.spawn(Modern(server.clone()));
    let meta = InboundMeta { extensions, no_back_channel: true, ..Default::default() };
    if in_tx.send(TransportEvent::Message(Message::Request(request), meta)).await.is_err() {
        return status::error(
            StatusCode::INTERNAL_SERVER_ERROR,
            Some(id),
            codes::INTERNAL_ERROR,
            "Internal error",
        );
    }

    // Answer with JSON if the answer comes before anything else; otherwise commit to SSE.
    let first = tokio::select! {
        first = tokio::time::timeout(settings.keep_alive, out_rx.recv()) => first,
        _ = closing.cancelled() => return shutting_down(id),
    };
    let first = match first {
        Ok(Some(out)) if is_answer(&out.message) => return json_answer(out.message),
        Ok(Some(out)) => Some(out),
        Ok(None) => {
            return status::error(
                StatusCode::INTERNAL_SERVER_ERROR,
                Some(id),
                codes::INTERNAL_ERROR,
                "Internal error",
            )
        }
        Err(_) => None,
    };
    if !accepts_sse {
        // The client takes JSON only: wait for the answer and drop the notifications.
        while let Some(out) = out_rx.recv().await {
            if is_answer(&out.message) {
                return json_answer(out.message);
            }
        }
        return status::error(
            StatusCode::INTERNAL_SERVER_ERROR,
            Some(id),
            codes::INTERNAL_ERROR,
            "Internal error",
        );
    }
    let (body_tx, body_rx) = mpsc::channel::<Bytes>(settings.stream_queue);
    let keep_alive = settings.keep_alive;
    tokio::spawn(async move {
        // `in_tx` lives as long as this task: dropping it (the client went away) ends the
        // dispatcher, which cancels the handler.
        let _request_alive = in_tx;
        if let Some(out) = first {
            if body_tx.send(sse::event(None, None, &out.message.to_vec())).await.is_err() {
                return;
            }
        } else if body_tx.send(sse::keep_alive()).await.is_err() {
            return;
        }
        loop {
            let next = tokio::select! {
                _ = body_tx.closed() => return,
                _ = closing.cancelled() => {
                    if listen {
                        let end = Message::Response(mcpwire_protocol::Response::new(
                            id.clone(),
                            serde_json::value::to_raw_value(&SubscriptionsListenResult::closed(&id))
                                .unwrap_or_else(|_| RawValue::NULL.to_owned()),
                        ));
                        let _ = body_tx.send(sse::event(None, None, &end.to_vec())).await;
                    }
                    return;
                }
                next = tokio::time::timeout(keep_alive, out_rx.recv()) => next,
            };
            match next {
                Ok(Some(out)) => {
                    let answer = is_answer(&out.message);
                    if body_tx.send(sse::event(None, None, &out.message.to_vec())).await.is_err() || answer {
                        return;
                    }
                }
                Ok(None) => return,
                Err(_) => {
                    if body_tx.send(sse::keep_alive()).await.is_err() {
                        return;
                    }
                }
            }
        }
    });
    sse_response(McpBody::stream(body_rx))
}

/// The answer to a request that was still uncommitted when the endpoint shut down.
fn shutting_down(id: mcpwire_protocol::RequestId) -> Response<McpBody> {
    status::error(
        StatusCode::SERVICE_UNAVAILABLE,
        Some(id),
        codes::INTERNAL_ERROR,
        "The server is shutting down",
    )
}

fn is_answer(message: &Message) -> bool {
    matches!(message, Message::Response(_) | Message::Error(_))
}

/// A JSON answer, with the HTTP status the spec maps its error code to.
fn json_answer(message: Message) -> Response<McpBody> {
    let code = match &message {
        Message::Error(e) => status::for_code(e.error.code),
        _ => StatusCode::OK,
    };
    status::json(code, message.to_vec())
}

/// An SSE response.
pub(crate) fn sse_response(body: McpBody) -> Response<McpBody> {
    let mut response = Response::new(body);
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// How long a 2026 response may stay uncommitted, and the keep-alive interval after.
pub(crate) const DEFAULT_KEEP_ALIVE: Duration = Duration::from_secs(15);
