//! Beyond the matrix: a probe answered too late, log order on a multi-threaded runtime
//! against a scripted server, a server that exits at once, and a crashed 2026 server left
//! down when no restart is allowed.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcpwire::client::{Client, ClientOptions};
use mcpwire::protocol::{Era, ProtocolVersion};
use mcpwire::transport::child::ChildProcess;
use mcpwire::RequestError;
use serde_json::json;

use crate::fixture::{Fixture, Mode, Server, TEST_LIMIT};

/// A 2026 server that answers the probe too late (a slow start: importing the Python SDK
/// alone can take seconds) has fixed its stream to 2026 by the time `initialize` arrives,
/// and refuses it with `-32022`: the client must land in 2026, not fail.
async fn late_probe_answer(server: Server) {
    let options = ClientOptions { probe_timeout: Duration::from_millis(1), ..Default::default() };
    let test = async {
        let Some(f) = Fixture::start_with(server, Mode::Auto, options).await else { return };
        assert_eq!(f.client.era(), Era::Stateless);
        assert_eq!(f.client.protocol_version(), &ProtocolVersion::V2026_07_28);
        assert_eq!(
            f.client.discover_result().unwrap().supported_versions,
            vec![ProtocolVersion::V2026_07_28]
        );
        let tools = f.client.list_all_tools().await.unwrap();
        assert!(!tools.is_empty());
        f.close().await;
    };
    tokio::time::timeout(TEST_LIMIT, test).await.expect("hung");
}

#[tokio::test]
async fn late_probe_answer_python() {
    late_probe_answer(Server::Python).await;
}

#[tokio::test]
async fn late_probe_answer_rust() {
    late_probe_answer(Server::Rust).await;
}

/// Log messages reach `on_log` in the order the server sent them, all before the response
/// that follows them, on a multi-threaded runtime too. A scripted 2025 server answers every
/// `tools/call` with 20 log messages and the result, written back to back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn log_messages_arrive_in_order_before_the_response() {
    use mcpwire::protocol::{Message, Notification, Response};
    use mcpwire::transport::{Outgoing, TransportEvent};

    let (client_end, mut server_end) = mcpwire::transport::memory::pair();
    tokio::spawn(async move {
        while let Some(event) = server_end.incoming.recv().await {
            let TransportEvent::Message(inbound) = event else { continue };
            let Message::Request(request) = inbound.message else { continue };
            let result = if request.method == "initialize" {
                json!({
                    "protocolVersion": "2025-11-25",
                    "capabilities": { "logging": {} },
                    "serverInfo": { "name": "scripted", "version": "1" }
                })
            } else if request.method == "tools/list" {
                // The client lists tools to learn output schemas before validating a result.
                json!({ "tools": [] })
            } else {
                for i in 0..20 {
                    let params =
                        serde_json::value::to_raw_value(&json!({ "level": "info", "data": i })).unwrap();
                    let log = Notification::new("notifications/message", Some(params));
                    server_end.outgoing.send(Outgoing::unrelated(Message::Notification(log))).await.unwrap();
                }
                json!({ "content": [] })
            };
            let raw = serde_json::value::to_raw_value(&result).unwrap();
            let response = Message::Response(Response::new(request.id, raw));
            server_end.outgoing.send(Outgoing::unrelated(response)).await.unwrap();
        }
    });
    let logs = Arc::new(Mutex::new(Vec::new()));
    let sink = logs.clone();
    let client = Client::builder("ordered", "1")
        .protocol_version(ProtocolVersion::V2025_11_25)
        .on_log(move |l| sink.lock().unwrap().push(l.data.as_u64().unwrap()))
        .connect(client_end)
        .await
        .unwrap();
    for call in 0..200 {
        logs.lock().unwrap().clear();
        client.call_tool("t", json!({})).await.unwrap();
        assert_eq!(*logs.lock().unwrap(), (0..20).collect::<Vec<u64>>(), "call {call}");
    }
    client.close().await;
}

/// A server that dies before answering anything: connecting fails at once, and the error
/// names its exit status and what it wrote to stderr.
#[tokio::test]
async fn a_server_that_exits_at_start() {
    use mcpwire::client::ConnectError;
    use mcpwire::transport::child::StderrMode;

    let process = ChildProcess::new("sh").arg("-c").arg("echo 'no config, giving up' >&2; exit 5");
    let started = Instant::now();
    let outcome = tokio::time::timeout(
        TEST_LIMIT,
        Client::builder("early", "1").spawn(process.stderr(StderrMode::Capture)),
    )
    .await
    .expect("hung");
    match outcome {
        Err(ConnectError::Handshake(RequestError::ConnectionClosed { reason: Some(reason) })) => {
            assert!(reason.contains("exit status: 5"), "{reason}");
            assert!(reason.contains("no config, giving up"), "{reason}");
        }
        other => panic!("expected a closed connection, got {other:?}"),
    }
    assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
}

/// With `max_restarts: 0` a 2026 client does not start a crashed server again: the call
/// fails with the exit status and the connection closes, as in 2025.
#[tokio::test]
async fn no_restart_when_none_are_allowed() {
    let options = ClientOptions { max_restarts: 0, ..Default::default() };
    let test = async {
        let Some(f) = Fixture::start_with(Server::Rust, Mode::Auto, options).await else { return };
        assert_eq!(f.client.era(), Era::Stateless);
        let pid = f.pid;
        let call = f.client.call_tool("test_tool_with_progress", json!({}));
        let kill = async {
            tokio::time::sleep(Duration::from_millis(20)).await;
            let status = std::process::Command::new("kill").arg("-KILL").arg(pid.to_string()).status();
            assert!(status.unwrap().success());
        };
        let (outcome, ()) = tokio::join!(call, kill);
        match outcome {
            Err(RequestError::ConnectionClosed { reason: Some(reason) }) => {
                assert!(reason.contains("signal: 9"), "{reason}")
            }
            other => panic!("expected ConnectionClosed with a reason, got {other:?}"),
        }
        assert_eq!(f.current_pid(), pid, "a server was started again");
        assert!(f.client.is_closed());
        f.close().await;
    };
    tokio::time::timeout(TEST_LIMIT, test).await.expect("hung");
}

/// A 2026 server that exits with success ended the connection on purpose: it is not
/// started again. One that fails is, up to the limit (three restarts by default), each
/// process getting the lost request again. The servers are scripts that count their
/// starts, take one line and exit.
#[tokio::test]
async fn a_server_that_stops_cleanly_is_not_restarted_and_a_failing_one_is() {
    for (code, starts) in [(0, 1), (7, 4)] {
        let dir = std::env::temp_dir().join(format!("mcpwire-restart-{}-{code}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let count = dir.join("starts");
        let _ = std::fs::remove_file(&count);
        let script = format!(r#"echo start >> "$1"; read line; exit {code}"#);
        let process = ChildProcess::new("sh").arg("-c").arg(script).arg("sh").arg(&count);
        let test = async {
            let client = Client::builder("restarts", "1")
                .protocol_version(ProtocolVersion::V2026_07_28)
                .spawn(process)
                .await
                .unwrap();
            let error = client.call_tool("anything", json!({})).await.unwrap_err();
            match &error {
                RequestError::ConnectionClosed { reason: Some(reason) } => {
                    assert!(reason.contains(&format!("exit status: {code}")), "{reason}")
                }
                other => panic!("expected ConnectionClosed with a reason, got {other:?}"),
            }
            assert!(client.is_closed());
            client.close().await;
        };
        tokio::time::timeout(TEST_LIMIT, test).await.expect("hung");
        let started = std::fs::read_to_string(&count).unwrap().lines().count();
        assert_eq!(started, starts, "exit {code}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
