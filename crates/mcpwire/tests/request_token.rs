//! A request's cancellation token, which the dispatcher makes only when a handler asks
//! for it: whenever it is made, it behaves as if every request had one from the start.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use mcpwire::jsonrpc::{Dispatcher, DispatcherConfig, Handler, PeerCancelMode, RequestContext};
use mcpwire::protocol::{codes, RawJson, Request};
use mcpwire::McpError;
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// Hands out the tokens its handlers ask for, at the moment the method says.
#[derive(Clone, Default)]
struct Tokens {
    /// Every token a handler made, in order.
    made: Arc<Mutex<Vec<CancellationToken>>>,
    /// Contexts kept past their request's answer.
    kept: Arc<Mutex<Vec<RequestContext>>>,
}

impl Tokens {
    fn token(&self, i: usize) -> CancellationToken {
        self.made.lock().unwrap()[i].clone()
    }
}

impl Handler for Tokens {
    async fn on_request(&self, request: Request, ctx: RequestContext) -> Result<RawJson, McpError> {
        match request.method.as_str() {
            // Asks for the token before anything happened, then waits.
            "early" => {
                self.made.lock().unwrap().push(ctx.cancellation().clone());
                tokio::time::sleep(Duration::from_secs(60)).await;
            }
            // Waits, then asks for the token (after a cancel, in signal mode).
            "late" => {
                tokio::time::sleep(Duration::from_millis(100)).await;
                self.made.lock().unwrap().push(ctx.cancellation().clone());
            }
            // Something the handler spawned makes the token and cancels it.
            "spawned_cancel" => {
                let ctx = ctx.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    ctx.cancellation().cancel();
                });
                tokio::time::sleep(Duration::from_secs(60)).await;
            }
            // Answers at once, keeping its context (a background job would).
            "keep" => self.kept.lock().unwrap().push(ctx.clone()),
            _ => return Err(McpError::method_not_found(&request.method)),
        }
        Ok(serde_json::value::to_raw_value(&json!({ "cancelled": ctx.is_cancelled() })).unwrap())
    }
}

fn serve(mode: PeerCancelMode) -> (RawPeer, Tokens, tokio::task::JoinHandle<()>) {
    let (conn, raw) = raw_connection();
    let handler = Tokens::default();
    let config = DispatcherConfig { cancel_mode: mode, ..Default::default() };
    let task = Dispatcher::with_config(conn, config).spawn(handler.clone());
    (raw, handler, task)
}

/// A connection whose request 1 has made its token and is waiting.
async fn waiting_early(mode: PeerCancelMode) -> (RawPeer, Tokens, tokio::task::JoinHandle<()>) {
    let (raw, tokens, task) = serve(mode);
    raw.request(1, "early", json!({})).await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    (raw, tokens, task)
}

#[tokio::test]
async fn a_token_made_early_fires_when_the_peer_cancels() {
    for mode in [PeerCancelMode::Interrupt, PeerCancelMode::Signal] {
        let (mut raw, tokens, _) = waiting_early(mode).await;
        assert!(!tokens.token(0).is_cancelled());
        raw.cancel(1).await;
        tokio::time::timeout(Duration::from_secs(5), tokens.token(0).cancelled()).await.expect("{mode:?}");
        raw.expect_silence(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_token_made_after_the_cancel_is_born_cancelled() {
    let (mut raw, tokens, _) = serve(PeerCancelMode::Signal);
    raw.request(1, "late", json!({})).await;
    raw.cancel(1).await;
    raw.expect_silence(Duration::from_millis(200)).await;
    assert!(tokens.token(0).is_cancelled());
}

#[tokio::test]
async fn a_token_cancelled_by_what_the_handler_spawned_interrupts_it() {
    let (mut raw, _, _) = serve(PeerCancelMode::Interrupt);
    raw.request(1, "spawned_cancel", json!({})).await;
    let error = expect_error(&tokio::time::timeout(Duration::from_secs(5), raw.next()).await.unwrap(), 1);
    assert_eq!((error.code, error.message.as_str()), (codes::CONNECTION_CLOSED, "Connection closed"));
}

#[tokio::test]
async fn shutdown_fires_a_made_token_and_answers_connection_closed() {
    // In signal mode too: the shutdown, not the token, stops the handler there.
    for mode in [PeerCancelMode::Interrupt, PeerCancelMode::Signal] {
        let (mut raw, tokens, task) = waiting_early(mode).await;
        raw.hang_up();
        let error = expect_error(&raw.next().await, 1);
        assert_eq!((error.code, error.message.as_str()), (codes::CONNECTION_CLOSED, "Connection closed"));
        assert!(tokens.token(0).is_cancelled(), "{mode:?}");
        task.await.unwrap();
    }
}

#[tokio::test]
async fn a_settled_request_sees_the_shutdown_through_its_kept_context() {
    let (mut raw, tokens, task) = serve(PeerCancelMode::Interrupt);
    raw.request(1, "keep", json!({})).await;
    assert_eq!(expect_result(&raw.next().await, 1), json!({ "cancelled": false }));
    let ctx = tokens.kept.lock().unwrap()[0].clone();
    let made_before = ctx.cancellation().clone();
    assert!(!ctx.is_cancelled() && !made_before.is_cancelled());
    raw.hang_up();
    task.await.unwrap();
    assert!(ctx.is_cancelled());
    assert!(made_before.is_cancelled(), "a token made after the answer still fires at shutdown");
    assert!(ctx.cancellation().is_cancelled());
}
