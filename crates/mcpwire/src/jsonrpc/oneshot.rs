//! One request served without a dispatcher, inside its caller's own future: for
//! transports that receive each request on its own and answer it on its own (a 2026
//! HTTP POST).
//!
//! The rules are the dispatcher's, applied by the same code ([`inbound::run`] runs the
//! handler, [`inbound::settle`] is the one place its outcome becomes an answer). What a
//! lone request does not need is left out: the reading loop and its input queue, the
//! in-flight table (nothing can name this request to cancel it: its caller cancels it by
//! dropping it), a task of its own (the handler runs when the caller polls, so a quick
//! answer costs no wake-up of another thread), and the answer's trip through the output
//! queue (it is this future's output). The output queue carries only what the handler
//! sends before its answer: notifications, and requests where the transport has a back
//! channel; it is made only when something needs it ([`OnDemandQueue`]).

use std::borrow::Cow;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::{ready, Context, Poll};

use mcpwire_protocol::{Message, Request};
use tokio::sync::mpsc;

use super::context::{Fire, InFlight};
use super::inbound::{self, Outcome};
use super::{DispatcherConfig, Handler, Peer, Shared, State};
use crate::transport::{InboundMeta, Outgoing, UnansweredHook};

/// The queue of what a one-shot request's handler sends before its answer. Made when
/// first used (by the handler's first message, or by [`OneShot::sent`] when the answer
/// did not come at once): most handlers send nothing, and a channel is two allocations
/// and its set-up and tear-down.
pub(crate) struct OnDemandQueue {
    capacity: usize,
    /// The queue's two ends, once made; the receiver until [`OneShot::sent`] takes it.
    made: Option<(mpsc::Sender<Outgoing>, Option<mpsc::Receiver<Outgoing>>)>,
}

impl OnDemandQueue {
    fn new(capacity: usize) -> Self {
        OnDemandQueue { capacity: capacity.max(1), made: None }
    }

    /// The sender, if the queue was made.
    pub(crate) fn made(&self) -> Option<&mpsc::Sender<Outgoing>> {
        self.made.as_ref().map(|(sender, _)| sender)
    }

    /// The sender, the queue made now if it was not.
    pub(crate) fn sender(&mut self) -> &mpsc::Sender<Outgoing> {
        let capacity = self.capacity;
        let (sender, _) = self.made.get_or_insert_with(|| {
            let (sender, receiver) = mpsc::channel(capacity);
            (sender, Some(receiver))
        });
        sender
    }

    /// The receiver (the queue made now if it was not); `None` once taken.
    fn take_receiver(&mut self) -> Option<mpsc::Receiver<Outgoing>> {
        self.sender();
        self.made.as_mut().and_then(|(_, receiver)| receiver.take())
    }
}

/// One request being served: resolves to its answer (`None` only if it settled
/// unanswered, or when polled again after it resolved).
///
/// Dropping it before it resolves cancels the request: its token fires (so what the
/// handler spawned can stop), then the handler's future is dropped, and nothing is
/// answered. Dropping it after it resolved fires the token too, as the end of a
/// connection does.
pub(crate) struct OneShot {
    /// The handler under the dispatcher's rules. Kept when it has finished: its box is
    /// freed with this future, which a 2026 endpoint keeps until the answer has been
    /// written.
    run: Pin<Box<dyn Future<Output = Outcome> + Send>>,
    /// Whether `run` has finished and the request was settled.
    settled: bool,
    shared: Arc<Shared>,
    entry: Arc<InFlight>,
    /// For the logs of [`inbound::settle`].
    method: Cow<'static, str>,
    hook: Option<UnansweredHook>,
}

/// Starts serving `request` with `handler` (its arrival hook runs now, the handler when
/// the returned future is first polled), with `config`'s cancel mode and
/// `handler_timeout`. What the handler sends through its context or peer before the
/// answer waits in a queue of at most `queue` messages ([`OneShot::sent`]).
pub(crate) fn serve_one<H: Handler>(
    handler: H,
    request: Request,
    meta: InboundMeta,
    config: Arc<DispatcherConfig>,
    queue: usize,
) -> OneShot {
    let outlet = super::Outlet::OnDemand(OnDemandQueue::new(queue));
    let shared = Arc::new(Shared::new(config, outlet));
    shared.state.store(State::Running as u8, Ordering::Release);
    let entry = inbound::in_flight(&request);
    inbound::arrive(&handler, &request);
    inbound::note_era(&handler, &entry);
    let peer = Peer { shared: shared.clone() };
    let ctx = inbound::context(peer, entry.clone(), meta.extensions, meta.no_back_channel);
    let method = inbound::method_name(&request.method);
    let (run_shared, run_entry) = (shared.clone(), entry.clone());
    // The handler's future is boxed as soon as it exists, as the dispatcher's tasks box
    // theirs: it is kilobytes (the router's state machine), and every move of a future
    // holding it inline (into `inbound::run`, through its wrappers, into this box) copied
    // it whole; with it boxed, the rules around it stay a few hundred bytes.
    let run = async move {
        let handler = handler;
        inbound::run(&run_shared, &run_entry, Box::pin(handler.on_request(request, ctx))).await
    };
    let run = Box::pin(run);
    OneShot { run, settled: false, shared, entry, method, hook: meta.on_unanswered }
}

impl OneShot {
    /// The receiving end of what the handler sends before its answer, the queue made now
    /// if it was not (`make`) or `None` if the handler has sent nothing (`!make`); `None`
    /// too once taken.
    pub(crate) fn sent(&self, make: bool) -> Option<mpsc::Receiver<Outgoing>> {
        match &mut *self.shared.outgoing.write().unwrap_or_else(|e| e.into_inner()) {
            Some(super::Outlet::OnDemand(queue)) if make || queue.made().is_some() => queue.take_receiver(),
            _ => None,
        }
    }

    /// Stops the request as the end of its connection stops a request in flight: its
    /// token fires, the peer handle reports closed, and the handler is stopped in either
    /// cancel mode. Awaited after this, it resolves at once, to the answer a request
    /// stopped by shutdown gets ([`inbound::closed_error`]), made where every answer is
    /// made ([`inbound::settle`]). For a transport that shuts down with the request still
    /// running and can still write its answer.
    pub(crate) fn shut_down(&self) {
        self.shared.state.store(State::Closed as u8, Ordering::Release);
        self.shared.shutdown.cancel();
        self.entry.fire(Fire::Shutdown);
    }

    /// Whether the handler refused the request for its 2026 envelope
    /// ([`RequestContext::refuse_envelope`](super::RequestContext)).
    pub(crate) fn envelope_refused(&self) -> bool {
        self.entry.envelope_refused.load(Ordering::Relaxed)
    }
}

impl Future for OneShot {
    type Output = Option<Message>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Message>> {
        let this = &mut *self;
        if this.settled {
            return Poll::Ready(None);
        }
        let outcome = ready!(this.run.as_mut().poll(cx));
        this.settled = true;
        Poll::Ready(inbound::settle(&this.shared, &this.entry, &this.method, outcome, this.hook.take()))
    }
}

impl Drop for OneShot {
    fn drop(&mut self) {
        // The connection of this one request ends: the token fires before the handler's
        // future (the `run` field) is dropped, and the peer handle reports closed.
        self.shut_down();
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::sync::atomic::AtomicBool;
    use std::time::Duration;

    use mcpwire_protocol::RawJson;
    use serde_json::json;

    use super::*;
    use crate::error::McpError;
    use crate::jsonrpc::{Dispatcher, PeerCancelMode, RequestContext};
    use crate::transport::{Connection, TransportEvent};

    /// Answers by method, covering every kind of outcome `settle` knows.
    #[derive(Clone, Default)]
    struct Probe {
        /// Set when a handler's future is dropped, to whether its token had fired then.
        dropped_after_cancel: Arc<std::sync::Mutex<Option<bool>>>,
    }

    struct OnDrop(RequestContext, Arc<std::sync::Mutex<Option<bool>>>);
    impl Drop for OnDrop {
        fn drop(&mut self) {
            *self.1.lock().unwrap() = Some(self.0.is_cancelled());
        }
    }

    impl Handler for Probe {
        async fn on_request(&self, request: Request, ctx: RequestContext) -> Result<RawJson, McpError> {
            match request.method.as_str() {
                "echo" => Ok(request.params.unwrap_or_else(|| raw("null".into()).unwrap())),
                "fail" => {
                    Err(McpError::new(-32050, "custom \"failure\"").with_data(json!({ "x": [1, "é"] })))
                }
                "internal" => Err(McpError::internal(std::io::Error::other("secret detail"))),
                "panic" => panic!("on purpose"),
                "progress" => {
                    ctx.progress(1.0, Some(2.0), Some("half")).await;
                    ctx.notify("notifications/message", Some(raw("{\"a\":1}".into()).unwrap())).await;
                    Ok(raw("{}".into()).unwrap())
                }
                "self_cancel" => {
                    ctx.cancellation().cancel();
                    tokio::task::yield_now().await;
                    Ok(raw("{}".into()).unwrap())
                }
                "slow" => {
                    let _guard = OnDrop(ctx.clone(), self.dropped_after_cancel.clone());
                    tokio::time::sleep(Duration::from_secs(60)).await;
                    Ok(raw("{}".into()).unwrap())
                }
                other => Err(McpError::method_not_found(other)),
            }
        }
    }

    fn raw(text: String) -> serde_json::Result<RawJson> {
        serde_json::value::RawValue::from_string(text)
    }

    fn request(method: &str) -> Request {
        let params = r#"{"_meta":{"progressToken":"t\u00e9"},"text":"a\"b\\c","n":[1.5e3,null]}"#;
        Request::new(7, method, Some(raw(params.into()).unwrap()))
    }

    /// What the dispatcher writes for `request`: every message up to the answer, encoded.
    async fn through_dispatcher(config: &DispatcherConfig, request: Request) -> Vec<Vec<u8>> {
        let (in_tx, in_rx) = mpsc::channel(4);
        let (out_tx, mut out_rx) = mpsc::channel::<Outgoing>(16);
        let dispatcher =
            Dispatcher::with_config(Connection { incoming: in_rx, outgoing: out_tx }, config.clone());
        let task = dispatcher.spawn(Probe::default());
        in_tx.send(TransportEvent::message(Message::Request(request), InboundMeta::default())).await.unwrap();
        let mut written = Vec::new();
        while let Some(out) = out_rx.recv().await {
            let answer = matches!(out.message(), Message::Response(_) | Message::Error(_));
            written.push(out.message().to_vec());
            if answer {
                break;
            }
        }
        task.abort();
        written
    }

    /// What [`serve_one`] gives for `request`: what it queued, then its answer.
    async fn one_shot(config: &DispatcherConfig, request: Request) -> Vec<Vec<u8>> {
        let mut call =
            serve_one(Probe::default(), request, InboundMeta::default(), Arc::new(config.clone()), 16);
        let answer = (&mut call).await.expect("answered");
        let mut written = Vec::new();
        // The queue exists only if the handler sent something.
        if let Some(mut sent) = call.sent(false) {
            while let Ok(out) = sent.try_recv() {
                written.push(out.message().to_vec());
            }
        }
        written.push(answer.to_vec());
        written
    }

    #[tokio::test]
    async fn the_queue_of_what_a_handler_sends_is_made_only_when_used() {
        let serve = |method| {
            serve_one(Probe::default(), request(method), InboundMeta::default(), Default::default(), 4)
        };
        // A handler that sends nothing: no queue, before or after its answer.
        let mut call = serve("echo");
        assert!(call.sent(false).is_none());
        assert!((&mut call).await.is_some());
        assert!(call.sent(false).is_none(), "nothing was sent");

        // One that sends: its first message makes the queue, which keeps what it sent.
        let mut call = serve("progress");
        assert!((&mut call).await.is_some());
        let mut sent = call.sent(false).expect("the handler's messages made the queue");
        let mut methods = Vec::new();
        while let Ok(out) = sent.try_recv() {
            if let Message::Notification(n) = out.message() {
                methods.push(n.method.clone());
            }
        }
        assert_eq!(methods, ["notifications/progress", "notifications/message"]);
        assert!(call.sent(true).is_none(), "the receiver is taken once");

        // A caller that waits makes the queue first; the handler's messages arrive on it.
        let mut call = serve("progress");
        let mut sent = call.sent(true).expect("made on demand");
        assert!((&mut call).await.is_some());
        assert!(sent.try_recv().is_ok());
    }

    #[tokio::test]
    async fn a_one_shot_request_is_answered_byte_for_byte_as_the_dispatcher_answers_it() {
        let timeout =
            DispatcherConfig { handler_timeout: Some(Duration::from_millis(20)), ..Default::default() };
        let signal = DispatcherConfig { cancel_mode: PeerCancelMode::Signal, ..Default::default() };
        let cases = [
            (DispatcherConfig::default(), "echo"),
            (DispatcherConfig::default(), "fail"),
            (DispatcherConfig::default(), "internal"),
            (DispatcherConfig::default(), "panic"),
            (DispatcherConfig::default(), "progress"),
            (DispatcherConfig::default(), "self_cancel"),
            (DispatcherConfig::default(), "unknown/method"),
            (timeout, "slow"),
            (signal.clone(), "self_cancel"),
            (signal, "progress"),
        ];
        for (config, method) in cases {
            let expected = through_dispatcher(&config, request(method)).await;
            let got = one_shot(&config, request(method)).await;
            assert_eq!(
                got.iter().map(|m| String::from_utf8_lossy(m).into_owned()).collect::<Vec<_>>(),
                expected.iter().map(|m| String::from_utf8_lossy(m).into_owned()).collect::<Vec<_>>(),
                "{method} ({:?})",
                config.cancel_mode
            );
        }
    }

    #[tokio::test]
    async fn dropping_a_one_shot_request_fires_its_token_before_dropping_the_handler() {
        for mode in [PeerCancelMode::Interrupt, PeerCancelMode::Signal] {
            let probe = Probe::default();
            let config = Arc::new(DispatcherConfig { cancel_mode: mode, ..Default::default() });
            let mut call = serve_one(probe.clone(), request("slow"), InboundMeta::default(), config, 1);
            let peer = Peer { shared: call.shared.clone() };
            assert!(futures_util::poll!(&mut call).is_pending());
            assert!(peer.is_running());
            drop(call);
            assert_eq!(*probe.dropped_after_cancel.lock().unwrap(), Some(true), "{mode:?}");
            assert!(peer.is_closed());
        }
    }

    #[tokio::test]
    async fn the_arrival_hook_runs_before_the_first_poll() {
        #[derive(Clone, Default)]
        struct Arrival(Arc<AtomicBool>);
        impl Handler for Arrival {
            fn on_arrival(&self, _: &Request) {
                self.0.store(true, Ordering::SeqCst);
            }
            async fn on_request(&self, _: Request, _: RequestContext) -> Result<RawJson, McpError> {
                Ok(raw("1".into()).unwrap())
            }
        }
        let handler = Arrival::default();
        let call = serve_one(
            handler.clone(),
            request("x"),
            InboundMeta::default(),
            Arc::new(DispatcherConfig::default()),
            1,
        );
        assert!(handler.0.load(Ordering::SeqCst));
        assert!(matches!(call.await, Some(Message::Response(_))));
    }
}
