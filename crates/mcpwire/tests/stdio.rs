//! The dispatcher's rules over a real child process speaking newline-delimited JSON on
//! real pipes: the `jsonrpc_test_peer` example.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod scratch;

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use mcpwire::jsonrpc::{
    CallOptions, Dispatcher, Handler, NoHandler, NotificationContext, Peer, RequestContext,
};
use mcpwire::protocol::{codes, Notification, RawJson, Request};
use mcpwire::transport::child::{ChildHandle, ChildProcess, StderrMode};
use mcpwire::{McpError, RequestError};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};

/// The child on raw pipes: we write bytes and read lines ourselves.
struct RawChild {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Lines<BufReader<ChildStdout>>,
}

impl RawChild {
    fn spawn(args: &[&str]) -> RawChild {
        let mut child = tokio::process::Command::new(test_peer_path())
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            // A panic's backtrace in this debug child loads its debug info (over 100 MB)
            // to print to a null stderr: slow enough on a busy machine to miss a deadline.
            .env("RUST_BACKTRACE", "0")
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        RawChild { child, stdin, lines }
    }

    async fn write(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).await.unwrap();
        stdin.flush().await.unwrap();
    }

    async fn line(&mut self) -> Option<Value> {
        let line = tokio::time::timeout(Duration::from_secs(5), self.lines.next_line())
            .await
            .expect("timed out")
            .unwrap()?;
        Some(serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}")))
    }

    async fn no_line_for(&mut self, wait: Duration) {
        if let Ok(Ok(Some(line))) = tokio::time::timeout(wait, self.lines.next_line()).await {
            panic!("expected no frame, got {line}");
        }
    }
}

#[tokio::test]
async fn a_cancelled_request_produces_no_bytes_at_all_in_either_mode() {
    for args in [&[][..], &["--signal"][..]] {
        let mut child = RawChild::spawn(args);
        child.write(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"sleep\",\"params\":{\"ms\":150}}\n").await;
        child.write(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1}}\n").await;
        child.write(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"echo\",\"params\":{\"n\":2}}\n").await;
        let mut frames = vec![child.line().await.unwrap()];
        if args.contains(&"--signal") {
            // The handler noticed the cancel and said so (unrelated to the request).
            frames.push(child.line().await.unwrap());
        }
        // Well past the sleep: still nothing for id 1.
        child.no_line_for(Duration::from_millis(300)).await;
        child.write(b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"echo\",\"params\":{}}\n").await;
        frames.push(child.line().await.unwrap());
        assert!(frames.iter().all(|f| f["id"] != json!(1)), "{args:?}: {frames:?}");
        assert!(frames.iter().any(|f| f["id"] == json!(2) && f["result"] == json!({ "n": 2 })));
        assert!(frames.iter().any(|f| f["id"] == json!(3)));
        if args.contains(&"--signal") {
            assert!(frames
                .iter()
                .any(|f| f["method"] == "test/noticed_cancel" && f["params"]["id"] == json!(1)));
        }
    }
}

#[tokio::test]
async fn garbage_is_answered_and_the_connection_goes_on() {
    let mut child = RawChild::spawn(&[]);
    child.write(b"this is not json\n").await;
    assert_eq!(child.line().await.unwrap()["error"]["code"], json!(codes::PARSE_ERROR));
    child.write(b"{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"echo\"}\n").await;
    let e = child.line().await.unwrap();
    assert_eq!(e["error"]["code"], json!(codes::INVALID_REQUEST));
    assert!(e.get("id").is_none());
    child.write(b"[1,2]\n\xff\xfe\n\n   \n{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"echo\",\"params\":[1]}\n").await;
    // The batch's two errors in one array, and the parse error of the invalid UTF-8 (in
    // either order: the reader answers the batch, the dispatcher the parse error).
    let (first, second) = (child.line().await.unwrap(), child.line().await.unwrap());
    let (batch, parse) = if first.is_array() { (first, second) } else { (second, first) };
    let errors = batch.as_array().unwrap_or_else(|| panic!("one array: {batch}"));
    assert_eq!(errors.len(), 2, "{batch}");
    assert!(errors.iter().all(|e| e["error"]["code"] == json!(codes::INVALID_REQUEST)), "{batch}");
    assert_eq!(parse["error"]["code"], json!(codes::PARSE_ERROR));
    let e = child.line().await.unwrap();
    assert_eq!((e["id"].clone(), e["error"]["code"].clone()), (json!("x"), json!(codes::INVALID_REQUEST)));
    child.write(b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"echo\",\"params\":{\"ok\":true}}\n").await;
    assert_eq!(child.line().await.unwrap()["result"], json!({ "ok": true }));
}

#[tokio::test]
async fn an_unterminated_last_line_is_still_served_before_eof() {
    let mut child = RawChild::spawn(&[]);
    child.write(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\",\"params\":{\"last\":1}}").await;
    drop(child.stdin.take());
    // Answered as usual: a request running when the input ends gets a grace to finish.
    let frame = child.line().await.unwrap();
    assert_eq!((frame["id"].clone(), frame["result"].clone()), (json!(1), json!({ "last": 1 })));
    assert!(child.line().await.is_none());
    assert!(child.child.wait().await.unwrap().success());
}

/// `printf ... | server`: every request written before stdin closes is answered as usual,
/// not "Connection closed"; one that outlasts the grace is answered "Connection closed";
/// then stdout closes and the server exits.
#[tokio::test]
async fn requests_written_before_stdin_closes_are_answered_as_usual() {
    let mut child = RawChild::spawn(&[]);
    let mut input = String::new();
    for id in 1..=20 {
        input.push_str(&format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"echo\",\"params\":{{\"n\":{id}}}}}\n"
        ));
    }
    input.push_str("{\"jsonrpc\":\"2.0\",\"id\":21,\"method\":\"sleep\",\"params\":{\"ms\":60000}}\n");
    child.write(input.as_bytes()).await;
    drop(child.stdin.take());
    let mut answers = std::collections::BTreeMap::new();
    while let Some(frame) = child.line().await {
        assert!(answers.insert(frame["id"].as_i64().unwrap(), frame.clone()).is_none(), "twice: {frame}");
    }
    assert_eq!(answers.len(), 21, "{answers:?}");
    for id in 1..=20 {
        assert_eq!(answers[&id]["result"], json!({ "n": id }), "{}", answers[&id]);
    }
    assert_eq!(answers[&21]["error"]["code"], json!(codes::CONNECTION_CLOSED), "{}", answers[&21]);
    assert!(child.child.wait().await.unwrap().success());
}

#[tokio::test]
async fn closing_stdin_answers_in_flight_requests_with_connection_closed_then_exits() {
    let mut child = RawChild::spawn(&[]);
    child.write(b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"sleep\",\"params\":{\"ms\":10000}}\n").await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    drop(child.stdin.take());
    let e = child.line().await.unwrap();
    assert_eq!((e["id"].clone(), e["error"]["code"].clone()), (json!(5), json!(codes::CONNECTION_CLOSED)));
    assert!(child.line().await.is_none(), "then stdout closes");
    assert!(child.child.wait().await.unwrap().success());
}

#[tokio::test]
async fn a_panicking_handler_is_answered_and_the_child_lives() {
    let mut child = RawChild::spawn(&[]);
    child.write(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"panic\"}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"echo\",\"params\":{}}\n").await;
    let mut frames = [child.line().await.unwrap(), child.line().await.unwrap()];
    frames.sort_by_key(|f| f["id"].as_i64());
    assert_eq!(frames[0]["error"]["code"], json!(codes::INTERNAL_ERROR));
    assert_eq!(frames[1]["result"], json!({}));
}

#[tokio::test]
async fn an_overlong_line_is_rejected_and_the_next_one_served() {
    let mut child = RawChild::spawn(&[]);
    let big = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\",\"params\":{{\"s\":\"{}\"}}}}\n",
        "x".repeat(17 * 1024 * 1024)
    );
    child.write(big.as_bytes()).await;
    child.write(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"echo\",\"params\":{}}\n").await;
    let e = child.line().await.unwrap();
    assert_eq!(e["error"]["code"], json!(codes::INVALID_REQUEST));
    assert!(e["error"]["message"].as_str().unwrap().contains("exceeds"));
    assert_eq!(child.line().await.unwrap()["id"], json!(2));
}

// ---- through the dispatcher and the child-process transport ----

struct Collector(Arc<Mutex<Vec<Value>>>);
impl Handler for Collector {
    async fn on_request(&self, request: Request, _ctx: RequestContext) -> Result<RawJson, McpError> {
        Ok(serde_json::value::to_raw_value(&json!({ "parent_answered": request.method })).unwrap())
    }
    async fn on_notification(&self, n: Notification, _ctx: NotificationContext) {
        self.0.lock().unwrap().push(json!({ "method": n.method, "params": n.params.map(|p| serde_json::from_str::<Value>(p.get()).unwrap()) }));
    }
}

fn connect(args: &[&str]) -> (Peer, ChildHandle, Arc<Mutex<Vec<Value>>>) {
    let (conn, handle) =
        ChildProcess::new(test_peer_path()).args(args).stderr(StderrMode::Capture).spawn().unwrap();
    let dispatcher = Dispatcher::new(conn);
    let peer = dispatcher.peer();
    let seen = Arc::new(Mutex::new(Vec::new()));
    dispatcher.spawn(Collector(seen.clone()));
    (peer, handle, seen)
}

#[tokio::test]
async fn a_thousand_concurrent_requests_over_real_pipes() {
    let (peer, handle, _) = connect(&[]);
    let calls = (0..1000).map(|i| {
        let peer = peer.clone();
        async move {
            let r =
                peer.request_raw("echo", to_raw(json!({ "i": i })), CallOptions::default()).await.unwrap();
            serde_json::from_str::<Value>(r.get()).unwrap()["i"].as_i64().unwrap()
        }
    });
    assert_eq!(futures_util::future::join_all(calls).await, (0..1000).collect::<Vec<i64>>());
    assert!(handle.shutdown().await.unwrap().success());
}

#[tokio::test]
async fn a_child_that_dies_mid_request_fails_the_waiters_with_a_clear_error() {
    let (peer, mut handle, _) = connect(&[]);
    let p = peer.clone();
    let slow = tokio::spawn(async move {
        p.request_raw("sleep", to_raw(json!({ "ms": 10000 })), CallOptions::default()).await
    });
    tokio::time::sleep(Duration::from_millis(50)).await;
    let exit = peer.request_raw("exit", to_raw(json!({ "code": 7 })), CallOptions::default()).await;
    for result in [exit, slow.await.unwrap()] {
        match result {
            Err(RequestError::ConnectionClosed { reason: Some(reason) }) => {
                assert!(reason.contains("exit status: 7"), "{reason}")
            }
            other => panic!("expected connection closed with a reason, got {other:?}"),
        }
    }
    assert_eq!(handle.wait().await.unwrap().code(), Some(7));
}

#[tokio::test]
async fn a_timeout_cancels_the_handler_in_the_child() {
    let (peer, handle, seen) = connect(&["--signal"]);
    let r = peer
        .request_raw(
            "sleep",
            to_raw(json!({ "ms": 5000 })),
            CallOptions::default().timeout(Duration::from_millis(100)),
        )
        .await;
    assert!(matches!(r, Err(RequestError::Timeout { .. })));
    // The child notices the cancel as soon as it reads it, however late that is.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while seen.lock().unwrap().is_empty() && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen, vec![json!({ "method": "test/noticed_cancel", "params": { "id": 1 } })]);
    handle.shutdown().await;
}

#[tokio::test]
async fn progress_and_server_to_client_requests_cross_real_pipes() {
    let (peer, handle, _) = connect(&[]);
    let updates = Arc::new(Mutex::new(Vec::new()));
    let u = updates.clone();
    let r = peer
        .request_raw(
            "progress",
            to_raw(json!({ "steps": 3 })),
            CallOptions::default().on_progress(move |p| u.lock().unwrap().push(p.progress)),
        )
        .await
        .unwrap();
    assert_eq!(r.get(), r#"{"steps":3}"#);
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert_eq!(*updates.lock().unwrap(), vec![1.0, 2.0, 3.0]);
    let asked = peer
        .request_raw("ask", to_raw(json!({ "method": "roots/list" })), CallOptions::default())
        .await
        .unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(asked.get()).unwrap(),
        json!({ "parent_answered": "roots/list" })
    );
    handle.shutdown().await;
}

#[cfg(not(feature = "portable-stdio"))]
#[tokio::test]
async fn shutdown_escalates_to_sigterm_and_sigkill_and_reaps() {
    use std::os::unix::process::ExitStatusExt;
    // Ignores stdin closing: needs SIGTERM.
    let (_conn, handle) = ChildProcess::new("sleep")
        .arg("30")
        .shutdown_timeouts(Duration::from_millis(100), Duration::from_secs(2))
        .spawn()
        .unwrap();
    let status = handle.shutdown().await.unwrap();
    assert_eq!(status.signal(), Some(15));
    // Ignores SIGTERM too: needs SIGKILL. The shell makes a file once its trap is set;
    // a SIGTERM sent before that would end it.
    let dir = scratch::Scratch::new("trap-set");
    let ready = dir.join("ready");
    let script = format!("trap '' TERM; : > '{}'; sleep 30 & wait", ready.display());
    let (_conn, handle) = ChildProcess::new("sh")
        .args(["-c", &script])
        .shutdown_timeouts(Duration::from_millis(100), Duration::from_millis(200))
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while !ready.exists() {
        assert!(started.elapsed() < Duration::from_secs(30), "the shell never set its trap");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let status = handle.shutdown().await.unwrap();
    assert_eq!(status.signal(), Some(9));
}

/// Waits (10 s at most) until `pid` has ended: gone, or a zombie its new parent has not
/// reaped yet.
#[cfg(not(feature = "portable-stdio"))]
async fn until_ended(pid: &str) {
    let ended = || {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        stat.rsplit_once(')').is_none_or(|(_, rest)| rest.trim_start().starts_with('Z'))
    };
    let started = std::time::Instant::now();
    while !ended() {
        assert!(started.elapsed() < Duration::from_secs(10), "pid {pid} outlived the shutdown");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Polls `file` until it holds a line (a pid a test script wrote).
#[cfg(not(feature = "portable-stdio"))]
async fn pid_in(file: &std::path::Path) -> String {
    let started = std::time::Instant::now();
    loop {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        if text.ends_with('\n') {
            return text.trim().to_owned();
        }
        assert!(started.elapsed() < Duration::from_secs(30), "the script never wrote its pid");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// A process the server started in its group, which ignores `SIGTERM`, does not
/// outlive the shutdown: it gets `SIGKILL` after the term grace, though the server
/// itself ended at its `SIGTERM`.
#[cfg(not(feature = "portable-stdio"))]
#[tokio::test]
async fn shutdown_ends_what_the_server_left_in_its_group() {
    let dir = scratch::Scratch::new("leftover");
    let file = dir.join("pid");
    let script = format!("(trap '' TERM; exec sleep 60) & echo $! > '{}'; exec sleep 60", file.display());
    let (_conn, handle) = ChildProcess::new("sh")
        .args(["-c", &script])
        .shutdown_timeouts(Duration::from_millis(100), Duration::from_millis(300))
        .spawn()
        .unwrap();
    let leftover = pid_in(&file).await;
    handle.shutdown().await;
    until_ended(&leftover).await;
}

/// A server that exits by itself has what it left in its group ended at its exit, while
/// the group's id is still its own (the leftover holds it); a shutdown that comes after
/// signals nothing, as by then the id may name another process's group, and returns the
/// exit status at once (no grace is waited for).
#[cfg(not(feature = "portable-stdio"))]
#[tokio::test]
async fn a_server_that_exited_by_itself_is_not_signalled_at_shutdown() {
    let dir = scratch::Scratch::new("exited-before-shutdown");
    let file = dir.join("pid");
    let script = format!("sleep 30 </dev/null >/dev/null 2>&1 & echo $! > '{}'; exit 0", file.display());
    let (_conn, mut handle) = ChildProcess::new("sh")
        .args(["-c", &script])
        .shutdown_timeouts(Duration::from_secs(60), Duration::from_secs(60))
        .spawn()
        .unwrap();
    let leftover = pid_in(&file).await;
    let exited =
        tokio::time::timeout(Duration::from_secs(10), handle.wait()).await.expect("the server never exited");
    assert!(exited.is_some_and(|s| s.success()), "{exited:?}");
    // Ended at the exit, before any shutdown.
    until_ended(&leftover).await;
    let status = tokio::time::timeout(Duration::from_secs(10), handle.shutdown())
        .await
        .expect("the shutdown of an exited server waited");
    assert_eq!(status, exited);
}

/// A handle dropped without `shutdown` leaves no child running, though this one ignores
/// its stdin closing (and its connection is still held): dropped in a runtime, the child
/// is shut down in the background the spec's way; dropped outside one, it is killed.
#[cfg(not(feature = "portable-stdio"))]
#[test]
fn a_dropped_handle_leaves_no_child_running() {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let spawn = || {
        let process = ChildProcess::new("sleep").arg("60");
        let (conn, handle) = process
            .shutdown_timeouts(Duration::from_millis(100), Duration::from_millis(300))
            .spawn()
            .unwrap();
        let pid = handle.pid().unwrap().to_string();
        (conn, handle, pid)
    };
    let (conn, handle, pid) = runtime.block_on(async { spawn() });
    runtime.block_on(async {
        drop(handle);
        until_ended(&pid).await;
    });
    drop(conn);
    let (conn, handle, pid) = runtime.block_on(async { spawn() });
    drop(handle);
    runtime.block_on(until_ended(&pid));
    drop(conn);
}

/// A server that exits while a process it started holds its stdout open: the
/// connection ends at once with the exit (requests waiting on it fail then, not at their
/// timeout), and the shutdown ends that process.
#[cfg(not(feature = "portable-stdio"))]
#[tokio::test]
async fn a_server_that_exits_ends_the_connection_though_its_stdout_stays_open() {
    let dir = scratch::Scratch::new("holder");
    let file = dir.join("pid");
    let script = format!("sleep 60 & echo $! > '{}'; exit 3", file.display());
    let (mut conn, handle) = ChildProcess::new("sh").args(["-c", &script]).spawn().unwrap();
    let holder = pid_in(&file).await;
    let closed = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match conn.incoming.recv().await {
                Some(mcpwire::transport::TransportEvent::Closed { reason }) => return reason.map(|r| *r),
                Some(_) => {}
                None => return None,
            }
        }
    })
    .await
    .expect("the connection stayed open after the server exited");
    let reason = closed.unwrap_or_default();
    assert!(reason.contains("exited") && reason.contains('3'), "{reason}");
    handle.shutdown().await;
    until_ended(&holder).await;
}

/// The sequence of platforms without `SIGTERM`: close stdin, wait, kill. A child that
/// would exit 3 on `SIGTERM` shows it was never sent one.
#[cfg(feature = "portable-stdio")]
#[tokio::test]
async fn portable_shutdown_closes_stdin_then_kills_without_sigterm_and_reaps() {
    use std::os::unix::process::ExitStatusExt;
    let script = "trap 'exit 3' TERM; while :; do sleep 0.05; done";
    let (_conn, handle) = ChildProcess::new("sh")
        .args(["-c", script])
        .shutdown_timeouts(Duration::from_millis(200), Duration::from_secs(30))
        .spawn()
        .unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let started = std::time::Instant::now();
    let status = tokio::time::timeout(Duration::from_secs(10), handle.shutdown()).await.unwrap().unwrap();
    assert_eq!(status.signal(), Some(9), "killed, not terminated: {status:?}");
    assert!(started.elapsed() < Duration::from_secs(5), "the term grace is not waited for");
    // A child that ends on stdin's close ends by itself, before any kill.
    let (_conn, handle) = ChildProcess::new("cat")
        .shutdown_timeouts(Duration::from_secs(5), Duration::from_secs(5))
        .spawn()
        .unwrap();
    let status = handle.shutdown().await.unwrap();
    assert!(status.success(), "{status:?}");
}

#[tokio::test]
async fn a_missing_program_is_a_spawn_error() {
    let err = ChildProcess::new("/definitely/not/a/program").spawn().err().unwrap();
    assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
    let _ = NoHandler;
}

/// A program that cannot be started is named in the error, with how to fix a missing one
/// (the OS's "No such file or directory" alone names neither).
#[tokio::test]
async fn a_program_that_cannot_start_is_named_in_the_error() {
    let Err(error) = ChildProcess::new("mcpwire-no-such-program").spawn() else { panic!("spawned") };
    assert_eq!(error.kind(), std::io::ErrorKind::NotFound);
    assert_eq!(error.to_string(), "\"mcpwire-no-such-program\" not found (give its path, or put it on PATH)");
    let client =
        mcpwire::client::Client::builder("c", "1").spawn(ChildProcess::new("mcpwire-no-such-program")).await;
    let Err(error) = client else { panic!("connected") };
    assert!(error.to_string().contains("\"mcpwire-no-such-program\" not found"), "{error}");
}

/// A working directory that does not exist fails the spawn as a missing program does
/// (the OS says "No such file or directory" for either): the error names the directory,
/// not the program, which is there.
#[tokio::test]
async fn a_missing_working_directory_is_named_in_the_error_not_the_program() {
    let scratch = scratch::Scratch::new("missing-cwd");
    let gone = scratch.join("gone");
    let Err(error) = ChildProcess::new("sh").current_dir(&gone).spawn() else { panic!("spawned") };
    assert_eq!(error.kind(), std::io::ErrorKind::NotFound);
    let message = error.to_string();
    assert!(message.contains(&format!("{gone:?}")) && message.contains("working directory"), "{message}");
    assert!(!message.contains("PATH"), "{message}");
}

/// A script whose `#!` interpreter is missing fails with the error a missing program gives
/// (the OS says "No such file or directory"): the error says the file is there and what
/// is missing, rather than asking for the program's path, which was given.
#[cfg(unix)]
#[tokio::test]
async fn a_script_whose_interpreter_is_missing_is_told_apart_from_a_missing_program() {
    use std::os::unix::fs::PermissionsExt;
    let scratch = scratch::Scratch::new("missing-interpreter");
    let script = scratch.join("server.sh");
    std::fs::write(&script, "#!/mcpwire/no/such/interpreter\n").unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let Err(error) = ChildProcess::new(&script).spawn() else { panic!("spawned") };
    assert_eq!(error.kind(), std::io::ErrorKind::NotFound);
    let message = error.to_string();
    assert!(message.contains("interpreter") && !message.contains("PATH"), "{message}");
}
