//! Timeouts, cancellation, crashes and close: the calls end promptly with the right
//! error, the server sees the cancellation, and no process outlives the client.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcpwire::client::RequestOptions;
use mcpwire::protocol::subscriptions::SubscriptionFilter;
use mcpwire::RequestError;
use serde_json::json;

use crate::common::callbacks::eventually;
use crate::fixture::{matrix, process_exists, Fixture, Mode, Server};

matrix!(
    timeout_cancels,
    dropped_call_cancels,
    hung_callback_times_out,
    server_crash,
    crash_during_a_callback,
    close_ends_the_server,
    dropping_the_client_ends_the_server,
);

/// 2026 only: a 2025 session has no listen stream, and does not outlive its process.
mod listen_outlives_a_crash {
    use crate::fixture::{run, Mode, Server};
    #[tokio::test]
    async fn python_auto() {
        run(Server::Python, Mode::Auto, super::listen_outlives_a_crash).await
    }
    #[tokio::test]
    async fn rust_auto() {
        run(Server::Rust, Mode::Auto, super::listen_outlives_a_crash).await
    }
}

/// Whether the everything-server logged that the peer cancelled a `tools/call`.
fn rust_saw_cancel(f: &Fixture) -> bool {
    f.stderr()
        .lines()
        .any(|l| l.contains("request cancelled by the peer: not answered") && l.contains("tools/call"))
}

/// The everything-server logged the cancellation, and still answers.
async fn cancel_seen_and_server_answers(f: &Fixture) {
    assert!(eventually(|| rust_saw_cancel(f)).await, "no cancellation in the server log:\n{}", f.stderr());
    assert_eq!(f.text("test_simple_text", json!({})).await, "This is a simple text response for testing.");
}

/// A call's timeout: `RequestError::Timeout` quickly, and the server saw the cancellation.
async fn timeout_cancels(f: Fixture) {
    let c = &f.client;
    let started = Instant::now();
    match f.server {
        Server::Python => {
            let options = RequestOptions::default().timeout(Duration::from_millis(300));
            let error =
                c.call_tool_with("slow", json!({ "seconds": 30, "tag": "t1" }), options).await.unwrap_err();
            assert!(
                matches!(&error, RequestError::Timeout { method, timeout } if method == "tools/call" && *timeout == Duration::from_millis(300)),
                "{error:?}"
            );
            assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
            assert_eq!(f.text("was_cancelled", json!({ "tag": "t1" })).await, "cancelled");
        }
        Server::Rust => {
            // The progress tool takes about 100 ms; give up after 20.
            let options = RequestOptions::default().timeout(Duration::from_millis(20));
            let error = c.call_tool_with("test_tool_with_progress", json!({}), options).await.unwrap_err();
            assert!(matches!(error, RequestError::Timeout { .. }), "{error:?}");
            assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
            cancel_seen_and_server_answers(&f).await;
        }
    }
    f.close().await;
}

/// Dropping a call's future cancels the call on the server.
async fn dropped_call_cancels(f: Fixture) {
    let c = &f.client;
    match f.server {
        Server::Python => {
            let call = c.call_tool("slow", json!({ "seconds": 30, "tag": "t2" }));
            assert!(tokio::time::timeout(Duration::from_millis(300), call).await.is_err());
            assert_eq!(f.text("was_cancelled", json!({ "tag": "t2" })).await, "cancelled");
            // A call that is not dropped runs to its end.
            f.text("slow", json!({ "seconds": 0.05, "tag": "t3" })).await;
            assert_eq!(f.text("was_cancelled", json!({ "tag": "t3" })).await, "finished");
        }
        Server::Rust => {
            let call = c.call_tool("test_tool_with_progress", json!({}));
            assert!(tokio::time::timeout(Duration::from_millis(20), call).await.is_err());
            cancel_seen_and_server_answers(&f).await;
        }
    }
    f.close().await;
}

/// A call whose server waits on a callback that never answers: the call's timeout still
/// ends it, and the callback is dropped (2025: the server cancelled its `elicitation/create`
/// after seeing our `notifications/cancelled`; 2026: the client stopped the round).
async fn hung_callback_times_out(f: Fixture) {
    let tool =
        if f.server == Server::Python { "elicit_name" } else { "test_input_required_result_elicitation" };
    f.seen.hang.store(true, Ordering::SeqCst);
    let started = Instant::now();
    let options = RequestOptions::default().timeout(Duration::from_millis(500));
    let error = f.client.call_tool_with(tool, json!({}), options).await.unwrap_err();
    assert!(matches!(error, RequestError::Timeout { .. }), "{error:?}");
    assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
    assert!(f.seen.hang_started.load(Ordering::SeqCst));
    assert!(
        eventually(|| f.seen.hang_dropped.load(Ordering::SeqCst)).await,
        "the hung callback was never dropped"
    );
    if f.server == Server::Rust && f.mode == Mode::Legacy {
        assert!(
            eventually(|| rust_saw_cancel(&f)).await,
            "no cancellation in the server log:\n{}",
            f.stderr()
        );
    }
    f.seen.hang.store(false, Ordering::SeqCst);
    assert_eq!(f.text(tool, json!({})).await, "Hello, Ada!");
    f.close().await;
}

/// The server dies mid-call. In 2025 the call fails with `ConnectionClosed` naming the
/// exit status, within a few seconds, and later calls fail at once. In 2026 the client
/// starts the server again and sends it the call, which then succeeds; a call that crashes
/// every process it reaches fails once the restarts allowed are used up.
async fn server_crash(f: Fixture) {
    let c = &f.client;
    let started = Instant::now();
    let (outcome, status) = match f.server {
        Server::Python => (c.call_tool("crash", json!({})).await, "exit status: 3"),
        Server::Rust => {
            // Kill the server (SIGKILL, by its pid) when its first progress report arrives.
            let pid = f.pid;
            let killed = Arc::new(AtomicBool::new(false));
            let once = killed.clone();
            let options = RequestOptions::default().on_progress(move |_| {
                if !once.swap(true, Ordering::SeqCst) {
                    let status =
                        std::process::Command::new("kill").arg("-KILL").arg(pid.to_string()).status();
                    assert!(status.unwrap().success());
                }
            });
            let outcome = c.call_tool_with("test_tool_with_progress", json!({}), options).await;
            assert!(killed.load(Ordering::SeqCst));
            (outcome, "signal: 9")
        }
    };
    if f.stateless() && f.server == Server::Rust {
        let result = outcome.expect("the call, sent again to a restarted server");
        assert_ne!(result.is_error, Some(true), "{result:?}");
        assert!(!c.is_closed());
        let pid = f.current_pid();
        assert!(pid != f.pid && process_exists(pid), "no new server process: {pid}");
        assert_eq!(
            f.text("test_simple_text", json!({})).await,
            "This is a simple text response for testing."
        );
        f.close().await;
        return;
    }
    // A 2025 session dies with its process; a call that kills every 2026 process it is
    // sent to fails after the default three restarts.
    let limit = if f.stateless() { Duration::from_secs(20) } else { Duration::from_secs(5) };
    assert!(started.elapsed() < limit, "{:?}", started.elapsed());
    match &outcome {
        Err(RequestError::ConnectionClosed { reason: Some(reason) }) => {
            assert!(reason.contains(status), "{reason:?} does not name {status:?}")
        }
        other => panic!("expected ConnectionClosed with a reason, got {other:?}"),
    }
    if f.stateless() {
        assert!(f.current_pid() != f.pid, "the server was never restarted");
    }
    assert!(eventually(|| c.is_closed()).await);
    let started = Instant::now();
    let again = c.call_tool("anything", json!({})).await.unwrap_err();
    assert!(matches!(again, RequestError::ConnectionClosed { .. }), "{again:?}");
    assert!(started.elapsed() < Duration::from_secs(1));
    f.close().await;
}

/// The server dies while the client's callback is still answering it (a person taking
/// their time over a form). In 2025 the call ends at once with the exit status, and the
/// callback is dropped. In 2026 the server held nothing of the call meanwhile (its
/// `input_required` answer ended that request): the client starts it again and the call
/// goes on, its next round bound for the new process.
async fn crash_during_a_callback(f: Fixture) {
    let tool =
        if f.server == Server::Python { "elicit_name" } else { "test_input_required_result_elicitation" };
    f.seen.hang.store(true, Ordering::SeqCst);
    let client = f.client.clone();
    let call = tokio::spawn(async move { client.call_tool(tool, json!({})).await });
    assert!(eventually(|| f.seen.hang_started.load(Ordering::SeqCst)).await);
    let started = Instant::now();
    let status = std::process::Command::new("kill").arg("-KILL").arg(f.pid.to_string()).status();
    assert!(status.unwrap().success());
    if f.stateless() {
        let restarted = || {
            let pid = f.current_pid();
            pid != f.pid && pid != 0 && process_exists(pid)
        };
        assert!(eventually(restarted).await, "the server was not restarted");
        assert!(!call.is_finished(), "the call ended with its server: {:?}", call.await);
        call.abort();
        assert!(eventually(|| f.seen.hang_dropped.load(Ordering::SeqCst)).await);
        f.seen.hang.store(false, Ordering::SeqCst);
        assert_eq!(f.text(tool, json!({})).await, "Hello, Ada!");
        f.close().await;
        return;
    }
    let error = call.await.unwrap().unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    match &error {
        RequestError::ConnectionClosed { reason: Some(reason) } => {
            assert!(reason.contains("signal: 9"), "{reason}")
        }
        other => panic!("expected ConnectionClosed with a reason, got {other:?}"),
    }
    assert!(
        eventually(|| f.seen.hang_dropped.load(Ordering::SeqCst)).await,
        "the callback was never dropped"
    );
    f.close().await;
}

/// `close()` ends the server process, and later calls fail at once.
async fn close_ends_the_server(f: Fixture) {
    assert!(process_exists(f.pid));
    let client = f.client.clone();
    f.close().await;
    let error = client.list_tools(None).await.unwrap_err();
    assert!(matches!(error, RequestError::ConnectionClosed { .. }), "{error:?}");
}

/// Dropping every handle of the client (without `close()`) also ends the server: its
/// stdin closes and it exits.
async fn dropping_the_client_ends_the_server(f: Fixture) {
    let Fixture { client, pid, dir, .. } = f;
    assert!(process_exists(pid));
    drop(client);
    assert!(eventually(|| !process_exists(pid)).await, "the server process {pid} outlived its client");
    let _ = std::fs::remove_dir_all(dir);
}

/// A `subscriptions/listen` stream open when the server dies is opened again on the new
/// process: the stream gets the new acknowledgement, then the new process's changes.
async fn listen_outlives_a_crash(f: Fixture) {
    let tool = if f.server == Server::Python { "change_tools" } else { "test_trigger_tool_change" };
    let filter = SubscriptionFilter { tools_list_changed: Some(true), ..Default::default() };
    let mut sub = f.client.listen(filter).await.unwrap();
    let status = std::process::Command::new("kill").arg("-KILL").arg(f.pid.to_string()).status();
    assert!(status.unwrap().success());
    let next = tokio::time::timeout(Duration::from_secs(10), sub.next()).await.unwrap().unwrap();
    assert_eq!(next.method, "notifications/subscriptions/acknowledged");
    assert_ne!(f.current_pid(), f.pid);
    f.text(tool, json!({})).await;
    let next = tokio::time::timeout(Duration::from_secs(5), sub.next()).await.unwrap().unwrap();
    assert_eq!(next.method, "notifications/tools/list_changed");
    drop(sub);
    f.close().await;
}
