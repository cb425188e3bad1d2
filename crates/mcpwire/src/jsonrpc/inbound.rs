//! Inbound requests: the in-flight table, one task per request, peer cancellation, and the
//! single place where a handler's outcome becomes (or does not become) a response.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, LazyLock};

use futures_util::FutureExt;
use mcpwire_protocol::{codes, ErrorObject, ErrorResponse, Message, RawJson, Request, RequestId, Response};
use serde::Deserialize;
use tokio::sync::OwnedSemaphorePermit;

use super::context::{InFlight, RequestContext, Settle};
use super::{lock, Handler, Peer, PeerCancelMode, Shared};
use crate::error::McpError;
use crate::transport::{InboundMeta, Outgoing, UnansweredHook};

/// Registers an inbound request and returns the task that serves it, or `None` when its id
/// is already in flight (that duplicate is answered `-32600` here and the original request
/// is left alone).
pub(super) async fn start_request<H: Handler>(
    peer: &Peer,
    handler: &Arc<H>,
    request: Request,
    meta: InboundMeta,
    permit: OwnedSemaphorePermit,
) -> Option<impl Future<Output = ()> + Send + 'static> {
    let shared = &peer.shared;
    let entry = in_flight(shared, &request);
    let duplicate = match lock(&shared.in_flight).entry(request.id.key()) {
        std::collections::hash_map::Entry::Occupied(_) => true,
        std::collections::hash_map::Entry::Vacant(slot) => {
            slot.insert(entry.clone());
            false
        }
    };
    if duplicate {
        let error = ErrorObject::new(
            codes::INVALID_REQUEST,
            format!("Invalid request: request id {} is already in flight", request.id),
        );
        peer.send(Outgoing::unrelated(ErrorResponse::new(Some(request.id), error))).await;
        return None;
    }
    arrive(&**handler, &request);
    let hook = meta.on_unanswered;
    let ctx = context(peer.clone(), entry.clone(), &request, meta.extensions, meta.no_back_channel);
    let peer = peer.clone();
    let handler = handler.clone();
    Some(async move {
        serve(peer, handler, request, ctx, entry, hook).await;
        drop(permit);
    })
}

/// The state of a request that has just arrived; its token fires when the connection
/// shuts down (or when the request is cancelled).
pub(super) fn in_flight(shared: &Shared, request: &Request) -> Arc<InFlight> {
    Arc::new(InFlight {
        id: request.id.clone(),
        cancel: shared.shutdown.child_token(),
        peer_cancelled: AtomicBool::new(false),
        settled: AtomicU8::new(Settle::Running as u8),
    })
}

/// Calls the handler's arrival hook; a panic there is logged, not propagated.
pub(super) fn arrive<H: Handler>(handler: &H, request: &Request) {
    if std::panic::catch_unwind(AssertUnwindSafe(|| handler.on_arrival(request))).is_err() {
        tracing::error!(id = %request.id, "the handler's arrival hook panicked");
    }
}

/// The context a request's handler gets.
pub(super) fn context(
    peer: Peer,
    entry: Arc<InFlight>,
    request: &Request,
    extensions: crate::extensions::Extensions,
    no_back_channel: bool,
) -> RequestContext {
    RequestContext {
        entry,
        peer,
        extensions,
        progress_token: progress_token(request.params.as_deref()),
        back_channel: !no_back_channel,
    }
}

/// Runs the handler and settles the request: answered, or (when the peer cancelled it)
/// unanswered with the transport's hook called.
async fn serve<H: Handler>(
    peer: Peer,
    handler: Arc<H>,
    request: Request,
    ctx: RequestContext,
    entry: Arc<InFlight>,
    hook: Option<UnansweredHook>,
) {
    let shared = &peer.shared;
    let method = request.method.clone();
    // Boxed: a handler's future is kilobytes (the router's state machine), and unboxed it
    // made this task's future as large, copied whole on every move into and through
    // `spawn` (a sixth of a pipelined call's instructions). One allocation is cheaper.
    let outcome = run(shared, &entry, Box::pin(handler.on_request(request, ctx))).await;
    let Some(message) = settle(shared, &entry, &method, outcome, hook) else { return };
    let id = &entry.id;
    if !peer.send(Outgoing::new(message, Some(id.clone()))).await {
        tracing::debug!(%id, "could not answer: the connection is closed");
    }
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
    let limit = shared.config.handler_timeout;
    let token = &entry.cancel;
    let run = async move {
        let Some(limit) = limit else { return run.await };
        match tokio::time::timeout(limit, run).await {
            Ok(outcome) => outcome,
            Err(_) => {
                // The handler is dropped here; what it spawned sees its token fire.
                token.cancel();
                Ok(Err(McpError::new(
                    codes::INTERNAL_ERROR,
                    format!("Request timed out: the handler did not finish within {limit:?}"),
                )))
            }
        }
    };
    match shared.config.cancel_mode {
        PeerCancelMode::Interrupt => tokio::select! {
            biased;
            _ = entry.cancel.cancelled() => None,
            result = run => Some(result),
        },
        PeerCancelMode::Signal => tokio::select! {
            biased;
            _ = shared.shutdown.cancelled() => None,
            result = run => Some(result),
        },
    }
}

/// The one place a finished request becomes its answer. It settles once, under the
/// in-flight table's lock, so a racing cancellation either lands before this point (and
/// silences the answer: `None`, with the transport's hook called) or finds nothing in
/// flight (and is ignored). Handler errors keep their code when they are protocol
/// errors and are logged and answered `-32603` otherwise; a panic is answered like an
/// internal error; a stopped handler is answered `-32000` "Connection closed".
pub(super) fn settle(
    shared: &Shared,
    entry: &Arc<InFlight>,
    method: &str,
    outcome: Outcome,
    hook: Option<UnansweredHook>,
) -> Option<Message> {
    let id = &entry.id;
    let peer_cancelled = {
        let mut table = lock(&shared.in_flight);
        let key = id.key();
        if table.get(&key).is_some_and(|e| Arc::ptr_eq(e, entry)) {
            table.remove(&key);
        }
        entry.peer_cancelled.load(Ordering::Acquire)
    };
    if peer_cancelled {
        entry.settled.store(Settle::Unanswered as u8, Ordering::Release);
        tracing::debug!(%id, method, "request cancelled by the peer: not answered");
        if let Some(hook) = hook {
            if std::panic::catch_unwind(AssertUnwindSafe(hook)).is_err() {
                tracing::error!(%id, "the transport's unanswered-request hook panicked");
            }
        }
        return None;
    }

    let message = match outcome {
        None => error_message(id.clone(), ErrorObject::new(codes::CONNECTION_CLOSED, "Connection closed")),
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
    entry.settled.store(Settle::Answered as u8, Ordering::Release);
    Some(message)
}

/// Applies the peer's `notifications/cancelled` to a request in flight (an unknown or
/// finished id is ignored, as the spec allows).
pub(super) fn cancel(shared: &Shared, id: &RequestId) {
    let table = lock(&shared.in_flight);
    match table.get(&id.key()) {
        Some(entry) => {
            entry.peer_cancelled.store(true, Ordering::Release);
            entry.cancel.cancel();
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

/// Reads `_meta.progressToken` from raw params, without parsing anything else.
fn progress_token(params: Option<&serde_json::value::RawValue>) -> Option<RawJson> {
    static KEY: LazyLock<memchr::memmem::Finder<'static>> =
        LazyLock::new(|| memchr::memmem::Finder::new("progressToken"));
    let raw = params?.get();
    KEY.find(raw.as_bytes())?;
    #[derive(Deserialize)]
    struct Params {
        #[serde(rename = "_meta")]
        meta: Option<MetaProbe>,
    }
    #[derive(Deserialize)]
    struct MetaProbe {
        #[serde(rename = "progressToken")]
        progress_token: Option<RawJson>,
    }
    serde_json::from_str::<Params>(raw).ok()?.meta?.progress_token
}
