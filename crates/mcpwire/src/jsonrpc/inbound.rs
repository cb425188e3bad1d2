//! Inbound requests: the in-flight table, one task per request, peer cancellation, and the
//! single place where a handler's outcome becomes (or does not become) a response.

use std::borrow::Cow;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt;
use mcpwire_protocol::{
    codes, methods, ErrorObject, ErrorResponse, Message, RawJson, Request, RequestId, Response,
};
use tokio::sync::OwnedSemaphorePermit;

use super::context::{Fire, InFlight, RequestContext, Settle};
use super::{lock, Handler, Peer, Shared};
use crate::error::McpError;
use crate::transport::{InboundMeta, Outgoing, UnansweredHook};

/// Registers an inbound request and returns the task that serves it, or, when its id is
/// already in flight, the `-32600` answer to that duplicate (the original request is left
/// alone). Not `async`: the task is returned by value straight to `spawn`, with no
/// future of this call around it to move it through.
pub(super) fn start_request<H: Handler>(
    peer: &Peer,
    handler: &Arc<H>,
    request: Request,
    meta: InboundMeta,
    permit: OwnedSemaphorePermit,
) -> Result<impl Future<Output = ()> + Send + 'static, Outgoing> {
    let shared = &peer.shared;
    let entry = in_flight(&request);
    let duplicate = !lock(&shared.in_flight).insert(request.id.clone(), entry.clone());
    if duplicate {
        let error = duplicate_id(&request.id);
        return Err(Outgoing::unrelated(ErrorResponse::new(Some(request.id), error)));
    }
    // Registered after a shutdown began, it would not be among the requests it fired.
    if shared.shutdown.is_cancelled() {
        entry.fire(Fire::Shutdown);
    }
    arrive(&**handler, &request);
    note_era(&**handler, &entry);
    let hook = meta.on_unanswered;
    let ctx = context(peer.clone(), entry.clone(), meta.extensions, meta.no_back_channel);
    let method = method_name(&request.method);
    // The handler's future is boxed here, with the request and its context moved in:
    // it is kilobytes (the router's state machine), and the task's own future, copied
    // whole on every move into and through `spawn` and on each change of the task's
    // stage, then holds a pointer instead (the arguments of an `async fn` stay in its
    // future for its whole life, so passing them to `serve` would keep them there too).
    let handler = handler.clone();
    let call = Box::pin(async move { handler.on_request(request, ctx).await });
    Ok(serve(peer.clone(), call, method, entry, hook, permit))
}

/// The answer to a request whose id is already in flight on its connection: `-32600`,
/// the original request left alone (JSON-RPC ids name one request at a time). The one
/// statement of that rule: the dispatcher refuses with it here, and an HTTP session,
/// which must refuse before it delivers (its answers find their streams by id), with the
/// same error.
pub(crate) fn duplicate_id(id: &RequestId) -> ErrorObject {
    ErrorObject::new(codes::INVALID_REQUEST, format!("Invalid request: request id {id} is already in flight"))
}

/// A request's method, kept for the logs of [`settle`]: borrowed when it is one of the
/// methods a server serves most (no allocation per request for them), copied otherwise.
pub(super) fn method_name(method: &str) -> Cow<'static, str> {
    const COMMON: [&str; 8] = [
        methods::TOOLS_CALL,
        methods::TOOLS_LIST,
        methods::RESOURCES_READ,
        methods::RESOURCES_LIST,
        methods::PROMPTS_GET,
        methods::PROMPTS_LIST,
        methods::PING,
        methods::COMPLETION_COMPLETE,
    ];
    match COMMON.iter().find(|m| **m == method) {
        Some(m) => Cow::Borrowed(m),
        None => Cow::Owned(method.to_owned()),
    }
}

/// The state of a request that has just arrived.
pub(super) fn in_flight(request: &Request) -> Arc<InFlight> {
    Arc::new(InFlight::with_params(request.id.clone(), request.params.as_deref()))
}

/// Calls the handler's arrival hook; a panic there is logged, not propagated.
pub(super) fn arrive<H: Handler>(handler: &H, request: &Request) {
    if std::panic::catch_unwind(AssertUnwindSafe(|| handler.on_arrival(request))).is_err() {
        tracing::error!(id = %request.id, "the handler's arrival hook panicked");
    }
}

/// Notes on the request whether its handler serves the 2026 era, for [`settle`].
pub(super) fn note_era<H: Handler>(handler: &H, entry: &InFlight) {
    if handler.in_stateless_era() {
        entry.stateless_era.store(true, Ordering::Relaxed);
    }
}

/// The answer of a request that the connection's shutdown stopped: `-32000` "Connection
/// closed", as the 2025 era's SDKs send it; in the 2026 era, which asks that
/// `-32000…-32019` not be used, `-32603`.
pub(crate) fn closed_error(stateless_era: bool) -> ErrorObject {
    match stateless_era {
        false => ErrorObject::new(codes::CONNECTION_CLOSED, "Connection closed"),
        true => ErrorObject::new(codes::INTERNAL_ERROR, "Internal error: the server is shutting down"),
    }
}

/// The context a request's handler gets.
pub(super) fn context(
    peer: Peer,
    entry: Arc<InFlight>,
    extensions: crate::extensions::Extensions,
    no_back_channel: bool,
) -> RequestContext {
    RequestContext { entry, peer, extensions, back_channel: !no_back_channel }
}

/// Runs the handler and settles the request: answered, or (when the peer cancelled it)
/// unanswered with the transport's hook called.
async fn serve<F>(
    peer: Peer,
    call: Pin<Box<F>>,
    method: Cow<'static, str>,
    entry: Arc<InFlight>,
    hook: Option<UnansweredHook>,
    permit: OwnedSemaphorePermit,
) where
    F: Future<Output = Result<RawJson, McpError>> + Send,
{
    let shared = &peer.shared;
    let outcome = run(shared, &entry, call).await;
    // Boxed into its `Outgoing` at once: only a pointer is held across the send.
    let answer =
        settle(shared, &entry, &method, outcome, hook).map(|m| Outgoing::new(m, Some(entry.id.clone())));
    if let Some(answer) = answer {
        if !peer.send(answer).await {
            tracing::debug!(id = %entry.id, "could not answer: the connection is closed");
        }
    }
    drop(permit);
}

/// What running a handler gave: `None` when it was stopped (its token fired in interrupt
/// mode, the connection shut down in signal mode), else its result or its panic.
pub(super) type Outcome = Option<std::thread::Result<Result<RawJson, McpError>>>;

/// Runs a handler's future under the dispatcher's rules: panics are caught,
/// `handler_timeout` applies, and cancellation stops it as the cancel mode says.
pub(super) async fn run<F>(shared: &Shared, entry: &InFlight, handler: F) -> Outcome
where
    F: Future<Output = Result<RawJson, McpError>> + Send,
{
    let run = AssertUnwindSafe(handler).catch_unwind();
    let run = async move {
        match shared.config.handler_timeout {
            None => run.await,
            // Boxed: a timer is large, and unboxed it would be part of every request's
            // task whether a limit is set or not.
            Some(limit) => Box::pin(timed(limit, entry, run)).await,
        }
    };
    tokio::select! {
        biased;
        _ = entry.stopped(shared.config.cancel_mode, &shared.shutdown) => None,
        result = run => Some(result),
    }
}

/// Runs a handler within `limit`; past it the handler is dropped, the request fires (so
/// what the handler spawned sees its token fire), and the outcome is a `-32603`.
async fn timed<F>(limit: Duration, entry: &InFlight, run: F) -> std::thread::Result<Result<RawJson, McpError>>
where
    F: Future<Output = std::thread::Result<Result<RawJson, McpError>>>,
{
    match tokio::time::timeout(limit, run).await {
        Ok(outcome) => outcome,
        Err(_) => {
            entry.fire(Fire::Cancel);
            Ok(Err(McpError::new(
                codes::INTERNAL_ERROR,
                format!("Request timed out: the handler did not finish within {limit:?}"),
            )))
        }
    }
}

/// The one place a finished request becomes its answer. It settles once, under the
/// in-flight table's lock, so a racing cancellation either lands before this point (and
/// silences the answer: `None`, with the transport's hook called) or finds nothing in
/// flight (and is ignored). Handler errors keep their code when they are protocol
/// errors and are logged and answered `-32603` otherwise; a panic is answered like an
/// internal error; a stopped handler is answered with the result it named for that
/// ([`RequestContext::answer_at_shutdown`]), or as [`closed_error`] says.
pub(super) fn settle(
    shared: &Shared,
    entry: &Arc<InFlight>,
    method: &str,
    outcome: Outcome,
    hook: Option<UnansweredHook>,
) -> Option<Message> {
    let id = &entry.id;
    let peer_cancelled = {
        lock(&shared.in_flight).remove(id, entry);
        entry.peer_cancelled.load(Ordering::Acquire)
    };
    if peer_cancelled {
        entry.settle(Settle::Unanswered);
        tracing::debug!(%id, method, "request cancelled by the peer: not answered");
        if let Some(hook) = hook {
            if std::panic::catch_unwind(AssertUnwindSafe(hook)).is_err() {
                tracing::error!(%id, "the transport's unanswered-request hook panicked");
            }
        }
        return None;
    }

    let message = match outcome {
        None => match entry.shutdown_answer.get() {
            Some(result) => Message::Response(Response::new(id.clone(), result.clone())),
            None => error_message(id.clone(), closed_error(entry.stateless_era.load(Ordering::Relaxed))),
        },
        Some(Ok(Ok(result))) => Message::Response(Response::new(id.clone(), result)),
        Some(Ok(Err(error))) => {
            if error.is_internal() {
                tracing::error!(%id, method, "handler failed: {error}");
            }
            error_message(id.clone(), error.to_error_object())
        }
        Some(Err(panic)) => {
            tracing::error!(%id, method, "handler panicked: {}", panic_message(&panic));
            error_message(id.clone(), ErrorObject::new(codes::INTERNAL_ERROR, "Internal error"))
        }
    };
    entry.settle(Settle::Answered);
    Some(message)
}

/// Applies the peer's `notifications/cancelled` to a request in flight (an unknown or
/// finished id is ignored, as the spec allows). The request leaves the table at once: it
/// will not be answered, so its id is no longer outstanding and the peer may use it again
/// straight away (its handler may still be finishing).
pub(super) fn cancel(shared: &Shared, id: &RequestId) {
    let mut table = lock(&shared.in_flight);
    match table.get(id).cloned() {
        Some(entry) => {
            entry.peer_cancelled.store(true, Ordering::Release);
            table.remove(id, &entry);
            entry.fire(Fire::Cancel);
        }
        None => tracing::debug!(%id, "ignored a cancellation for a request not in flight"),
    }
}

fn error_message(id: RequestId, error: ErrorObject) -> Message {
    Message::Error(ErrorResponse::new(Some(id), error))
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(non-string panic payload)")
}
