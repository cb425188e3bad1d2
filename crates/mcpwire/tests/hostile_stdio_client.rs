//! Hostile input to our stdio client, on real pipes: the server is a tiny `sh` script that
//! misbehaves on purpose (garbage, huge or broken frames, floods, silence, dying), and the
//! tests assert what the client's calls return and what it wrote back.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use mcpwire::client::{Client, ClientOptions};
use mcpwire::jsonrpc::{CallOptions, Dispatcher, NoHandler, Peer};
use mcpwire::protocol::codes;
use mcpwire::transport::child::{ChildHandle, ChildProcess, StderrMode};
use mcpwire::RequestError;
use serde_json::Value;

/// A dispatcher over `sh -c script`, with a fresh scratch directory in `$D` for the
/// script to record what it read.
fn hostile_server(script: &str) -> (Peer, ChildHandle, tempdir::Dir) {
    hostile_server_with(script, NoHandler)
}

/// [`hostile_server`], with `handler` answering what the script asks the client.
fn hostile_server_with(
    script: &str,
    handler: impl mcpwire::jsonrpc::Handler,
) -> (Peer, ChildHandle, tempdir::Dir) {
    let dir = tempdir::Dir::new();
    let (connection, handle) = script_process(script, &dir).spawn().unwrap();
    let dispatcher = Dispatcher::new(connection);
    let peer = dispatcher.peer();
    dispatcher.spawn(handler);
    (peer, handle, dir)
}

/// `sh -c script`, with `dir` in `$D`, its stderr captured and a short shutdown.
fn script_process(script: &str, dir: &tempdir::Dir) -> ChildProcess {
    ChildProcess::new("sh")
        .arg("-c")
        .arg(script)
        .env("D", dir.path())
        .stderr(StderrMode::Capture)
        .shutdown_timeouts(Duration::from_millis(200), Duration::from_millis(200))
}

/// mcpwire's client at 2026-07-28 over `sh -c script` (see [`script_process`]).
async fn client_2026(script: &str, options: ClientOptions) -> (Client, tempdir::Dir) {
    let dir = tempdir::Dir::new();
    let client = Client::builder("t", "0")
        .protocol_version(mcpwire::protocol::ProtocolVersion::parse("2026-07-28"))
        .options(options)
        .spawn(script_process(script, &dir))
        .await
        .unwrap();
    (client, dir)
}

/// A tiny scratch directory, removed on drop.
mod tempdir {
    use std::path::{Path, PathBuf};
    use std::sync::atomic::{AtomicUsize, Ordering};

    pub struct Dir(PathBuf);

    impl Dir {
        pub fn new() -> Dir {
            static N: AtomicUsize = AtomicUsize::new(0);
            let path = std::env::temp_dir().join(format!(
                "mcpwire-hostile-{}-{}",
                std::process::id(),
                N.fetch_add(1, Ordering::SeqCst)
            ));
            std::fs::create_dir_all(&path).unwrap();
            Dir(path)
        }

        pub fn path(&self) -> &Path {
            &self.0
        }

        pub fn read(&self, name: &str) -> String {
            std::fs::read_to_string(self.0.join(name)).unwrap_or_default()
        }
    }

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

fn short(timeout_ms: u64) -> CallOptions {
    CallOptions::default().timeout(Duration::from_millis(timeout_ms))
}

#[tokio::test]
async fn the_client_answers_garbage_and_still_gets_its_result() {
    // Garbage, a response for an unknown id, a request it cannot serve, then the answer.
    let (peer, handle, dir) = hostile_server(
        r#"read req
printf 'this is not json\n'
printf '{"jsonrpc":"2.0","id":4242,"result":{"stray":true}}\n'
printf '{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{}}\n'
printf '{"jsonrpc":"2.0","id":1,"result":{"ok":true}}\n'
cat > "$D/in""#,
    );
    let result = peer.request_raw("anything", None, short(5_000)).await.unwrap();
    assert_eq!(result.get(), r#"{"ok":true}"#);
    peer.close();
    handle.shutdown().await;
    let seen = dir.read("in");
    let lines: Vec<Value> = seen.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    // The client answered the garbage with a parse error and the request with -32601.
    assert!(
        lines.iter().any(|l| l["error"]["code"] == codes::PARSE_ERROR && l.get("id").is_none()),
        "{seen}"
    );
    assert!(lines.iter().any(|l| l["id"] == "s1" && l["error"]["code"] == codes::METHOD_NOT_FOUND), "{seen}");
    // Nothing answered the stray response.
    assert!(!seen.contains("4242"), "{seen}");
}

/// A 2026 client writes no responses (the era has the client write none): what it cannot
/// read from a 2026 server is logged, not answered, and its call still gets its result.
#[tokio::test]
async fn a_2026_client_answers_no_garbage() {
    let script = r#"read req
id=$(printf '%s' "$req" | sed 's/.*"id":\([0-9]*\).*/\1/')
printf 'this is not json\n{"jsonrpc":"2.0"}\n{"jsonrpc":"2.0","method":7}\n'
printf '{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","tools":[]}}\n' "$id"
cat > "$D/in""#;
    let (client, dir) = client_2026(script, ClientOptions::default()).await;
    let tools = client.list_tools(None).await.unwrap();
    assert!(tools.tools.is_empty());
    client.close().await;
    let seen = dir.read("in");
    assert!(!seen.contains("\"error\""), "the client answered the garbage: {seen}");
}

#[tokio::test]
async fn the_client_skips_a_huge_frame_and_reads_on() {
    // 20 MiB on one line (over the 16 MiB limit), then the answer.
    let (peer, handle, _dir) = hostile_server(
        r#"read req
head -c 20971520 /dev/zero | tr '\0' 'a'
printf '\n{"jsonrpc":"2.0","id":1,"result":{"after":"huge"}}\n'
sleep 5"#,
    );
    let result = peer.request_raw("anything", None, short(20_000)).await.unwrap();
    assert_eq!(result.get(), r#"{"after":"huge"}"#);
    peer.close();
    handle.shutdown().await;
}

#[tokio::test]
async fn a_server_that_never_answers_times_out_and_is_told_so() {
    let (peer, handle, dir) = hostile_server(r#"cat > "$D/in""#);
    let started = std::time::Instant::now();
    let error = peer.request_raw("slow/thing", None, short(300)).await.unwrap_err();
    assert!(matches!(error, RequestError::Timeout { .. }), "{error:?}");
    assert!(started.elapsed() < Duration::from_secs(3));
    // The connection is still usable for the next call (which also times out here).
    let error = peer.request_raw("slow/other", None, short(100)).await.unwrap_err();
    assert!(matches!(error, RequestError::Timeout { .. }), "{error:?}");
    // (Closing at once could drop the queued cancel: shutdown closes the child's stdin.)
    tokio::time::sleep(Duration::from_millis(100)).await;
    peer.close();
    handle.shutdown().await;
    let seen = dir.read("in");
    let cancels: Vec<Value> = seen
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|l| l["method"] == "notifications/cancelled")
        .collect();
    assert_eq!(cancels.len(), 2, "{seen}");
    assert_eq!(cancels[0]["params"]["requestId"], 1, "{seen}");
    assert!(cancels[0]["params"]["reason"].as_str().unwrap().contains("timed out"), "{seen}");
}

#[tokio::test]
async fn connecting_to_a_silent_server_fails_cleanly() {
    let options = ClientOptions {
        probe_timeout: Duration::from_millis(200),
        request_timeout: Duration::from_millis(300),
        ..Default::default()
    };
    let started = std::time::Instant::now();
    let error = Client::builder("t", "0")
        .options(options)
        .spawn(ChildProcess::new("sh").args(["-c", "cat > /dev/null"]).stderr(StderrMode::Null))
        .await
        .unwrap_err();
    assert!(
        matches!(&error, mcpwire::client::ConnectError::Handshake(RequestError::Timeout { .. })),
        "{error:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
}

/// A handshake its caller gives up on (here, by a timeout around `spawn`) leaves no
/// server behind: the silent process is shut down in the background, as `close` would.
#[tokio::test]
async fn an_abandoned_handshake_shuts_its_server_down() {
    let dir = tempdir::Dir::new();
    let process = ChildProcess::new("sh")
        .args(["-c", "echo $$ > \"$D/pid\"; exec sleep 60"])
        .env("D", dir.path())
        .stderr(StderrMode::Null)
        .shutdown_timeouts(Duration::from_millis(200), Duration::from_millis(200));
    let connecting = tokio::spawn(Client::builder("t", "0").spawn(process));
    // Given up once the server runs (it has written its pid), however long it took to start.
    let pid_file = dir.path().join("pid");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let pid = loop {
        let pid = std::fs::read_to_string(&pid_file).unwrap_or_default().trim().to_owned();
        if !pid.is_empty() {
            break pid;
        }
        assert!(std::time::Instant::now() < deadline, "the server never started");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(!connecting.is_finished(), "it never answers");
    connecting.abort();
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while std::path::Path::new(&format!("/proc/{pid}")).exists() {
        assert!(std::time::Instant::now() < deadline, "the server {pid} still runs");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn the_server_killed_mid_request_fails_the_call_with_its_exit_status() {
    let (peer, handle, _dir) = hostile_server("read req; echo 'dying now' >&2; kill -KILL $$");
    let error = peer.request_raw("anything", None, short(10_000)).await.unwrap_err();
    match &error {
        RequestError::ConnectionClosed { reason: Some(reason) } => {
            assert!(reason.contains("signal: 9"), "{reason}");
            assert!(reason.contains("dying now"), "the stderr tail is kept: {reason}");
        }
        other => panic!("{other:?}"),
    }
    // Later calls fail at once, with the same reason.
    let again = peer.request_raw("anything", None, short(10_000)).await.unwrap_err();
    assert!(matches!(again, RequestError::ConnectionClosed { .. }), "{again:?}");
    assert!(peer.is_closed());
    drop(handle);
}

#[tokio::test]
async fn a_server_that_closes_stdout_but_lives_on_closes_the_connection() {
    let (peer, handle, _dir) = hostile_server("exec 1>&-; sleep 30");
    let error = peer.request_raw("anything", None, short(10_000)).await.unwrap_err();
    assert!(matches!(error, RequestError::ConnectionClosed { .. }), "{error:?}");
    // The shutdown escalates to SIGTERM (the script ignores the closed stdin).
    let status = tokio::time::timeout(Duration::from_secs(5), handle.shutdown()).await.unwrap();
    assert!(status.is_some_and(|s| !s.success()), "{status:?}");
}

/// A server that closes its stdin but lives on can be sent nothing more: the first write
/// that fails ends the connection, so the call it carried fails at once with the reason,
/// not at its timeout, and so do later ones.
#[tokio::test]
async fn a_server_that_closes_stdin_but_lives_on_fails_calls_at_once() {
    let (peer, handle, dir) = hostile_server("exec 0<&-; : > \"$D/closed\"; sleep 30");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !dir.path().join("closed").exists() {
        assert!(std::time::Instant::now() < deadline, "the script did not start");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let called =
        tokio::time::timeout(Duration::from_secs(10), peer.request_raw("anything", None, short(60_000)));
    match called.await.expect("the call waited for its timeout") {
        Err(RequestError::ConnectionClosed { reason: Some(reason) }) => {
            assert!(reason.contains("writing to the server process failed"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    let again = peer.request_raw("anything", None, short(60_000)).await.unwrap_err();
    assert!(matches!(again, RequestError::ConnectionClosed { .. }), "{again:?}");
    let status = tokio::time::timeout(Duration::from_secs(5), handle.shutdown()).await.unwrap();
    assert!(status.is_some(), "{status:?}");
}

#[tokio::test]
async fn a_server_flooding_unsolicited_messages_does_not_stop_the_answer() {
    let (peer, handle, _dir) = hostile_server(
        r#"read req
i=0
while [ $i -lt 20000 ]; do printf '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":%d}}\n' $i; i=$((i+1)); done
printf '{"jsonrpc":"2.0","id":1,"result":{}}\n'
sleep 5"#,
    );
    let result = peer.request_raw("anything", None, short(20_000)).await.unwrap();
    assert_eq!(result.get(), "{}");
    peer.close();
    handle.shutdown().await;
}

/// An answer that is not JSON (a `NaN`, as Python's `json` writes one; a byte that is not
/// UTF-8, as a server writing Latin-1 sends) but whose id can still be read, first member
/// or last, fails its call at once with the reason: the server did answer, so the call
/// does not wait out its timeout to report no answer. A broken answer whose id the
/// client never sent is only logged, as any malformed frame that reads as an answer
/// (answering it could start a loop).
#[tokio::test]
async fn an_answer_that_is_not_json_fails_its_call_at_once() {
    let (peer, handle, dir) = hostile_server(
        r#"read req; printf '{"jsonrpc":"2.0","id":1,"result":{"x":NaN}}\n'
read req; printf '{"jsonrpc":"2.0","id":2,"result":{"text":"caf\351"}}\n'
read req; printf '{"jsonrpc":"2.0","id":99,"result":NaN}\n{"jsonrpc":"2.0","result":{"x":NaN},"id":3}\n'
cat > "$D/in""#,
    );
    for _ in 1..=3 {
        let error = peer.request_raw("anything", None, short(20_000)).await.unwrap_err();
        let RequestError::Transport { reason } = &error else { panic!("{error:?}") };
        assert!(reason.contains("could not be taken in") && reason.contains("Parse error"), "{reason}");
    }
    peer.close();
    handle.shutdown().await;
    let written = lines_of(&dir.read("in"));
    assert!(written.iter().all(|l| l.get("error").is_none()), "{written:?}");
}

/// JSON-RPC has the answer carry its request's id. One written `1.0` carries the same
/// number as `1`, and one written `"2"` is taken for `2` as the official SDKs take it:
/// each is its request's answer. An answer whose id is of no type an id can have (an
/// array, an object, a boolean) cannot be told to answer any one request on stdio: it is
/// logged, and never answered (that would answer an answer); the request it meant still
/// gets the answer that follows.
#[tokio::test]
async fn answers_under_ids_of_another_type_are_matched_or_logged_never_answered() {
    let (peer, handle, dir) = hostile_server(
        r#"read req; printf '{"jsonrpc":"2.0","id":1.0,"result":{"n":1}}\n'
read req; printf '{"jsonrpc":"2.0","id":"2","result":{"n":2}}\n'
read req; printf '{"jsonrpc":"2.0","id":[3],"result":{}}\n{"jsonrpc":"2.0","id":{},"result":{}}\n'
printf '{"jsonrpc":"2.0","id":true,"error":{"code":-32603,"message":"no"}}\n{"jsonrpc":"2.0","id":3,"result":{"n":3}}\n'
cat > "$D/in""#,
    );
    for n in 1..=3 {
        let result = peer.request_raw("anything", None, short(20_000)).await.unwrap();
        assert_eq!(result.get(), format!(r#"{{"n":{n}}}"#));
    }
    peer.close();
    handle.shutdown().await;
    let written = lines_of(&dir.read("in"));
    assert!(written.iter().all(|l| l.get("error").is_none()), "the client answered an answer: {written:?}");
}

/// The same holds for a 2026 client, which writes nothing back to what it cannot read.
#[tokio::test]
async fn a_2026_answer_that_is_not_json_fails_its_call_at_once() {
    let script = r#"read req
id=$(printf '%s' "$req" | sed 's/.*"id":\([0-9]*\).*/\1/')
printf '{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","tools":[{"name":"x","inputSchema":{"type":"object"},"n":NaN}]}}\n' "$id"
cat > "$D/in""#;
    let options = ClientOptions { request_timeout: Duration::from_secs(20), ..Default::default() };
    let (client, dir) = client_2026(script, options).await;
    let error = client.list_tools(None).await.unwrap_err();
    let RequestError::Transport { reason } = &error else { panic!("{error:?}") };
    assert!(reason.contains("Parse error"), "{reason}");
    client.close().await;
    let seen = dir.read("in");
    assert!(!seen.contains("\"error\""), "the client answered the broken answer: {seen}");
}

/// A server that writes thousands of lines that are not JSON to its stdout before it
/// reads its stdin (start-up logs printed to the wrong stream) still gets its request
/// answered: the client's parse errors, which answer nothing anyone waits for, are
/// dropped once the server's stdin is full, rather than stop the client from reading the
/// stdout that the server is blocked writing (each side waiting for the other for ever).
#[tokio::test]
async fn a_server_logging_thousands_of_lines_to_stdout_before_it_reads_is_still_served() {
    let (peer, handle, _dir) = hostile_server(
        r#"i=0
while [ $i -lt 20000 ]; do echo "starting: step $i"; i=$((i+1)); done
read req; printf '{"jsonrpc":"2.0","id":1,"result":{}}\n'
cat > /dev/null"#,
    );
    let result = peer.request_raw("anything", None, short(10_000)).await.unwrap();
    assert_eq!(result.get(), "{}");
    peer.close();
    handle.shutdown().await;
}

/// This process's peak resident memory, in MiB (Linux; 0 elsewhere).
fn peak_rss_mib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib = status.lines().find_map(|l| l.strip_prefix("VmHWM:"));
    kib.and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok()).unwrap_or(0) / 1024
}

/// A server that writes to its stderr without ever ending a line (a progress bar redrawn
/// with `\r`, say) does not grow the client's memory with it: what is kept of the
/// captured stderr is its last few KiB, whatever the length of its lines, and that tail
/// holds the end of the unterminated line.
#[tokio::test]
async fn endless_stderr_without_a_newline_keeps_the_client_bounded() {
    let (peer, handle, _dir) = hostile_server(
        r#"read req
head -c 134217728 /dev/zero | tr '\0' 'x' >&2
printf 'the end' >&2
printf '{"jsonrpc":"2.0","id":1,"result":{}}\n'
sleep 5"#,
    );
    let before = peak_rss_mib();
    let result = peer.request_raw("anything", None, short(30_000)).await.unwrap();
    assert_eq!(result.get(), "{}");
    let grown = peak_rss_mib().saturating_sub(before);
    assert!(grown < 48, "peak memory grew by {grown} MiB for 128 MiB of stderr in one line");
    // The last bytes of stderr may still be in the pipe when the answer arrives.
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while !handle.stderr_tail().ends_with("the end") && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let tail = handle.stderr_tail();
    assert!(
        tail.ends_with("xxxthe end") && tail.len() <= 4096,
        "{} bytes: ...{}",
        tail.len(),
        &tail[tail.len().saturating_sub(40)..]
    );
    peer.close();
    handle.shutdown().await;
}

/// The lines the client wrote to the script's stdin, as JSON.
fn lines_of(seen: &str) -> Vec<Value> {
    seen.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect()
}

#[tokio::test]
async fn the_client_answers_broken_frames_from_the_server_and_still_gets_its_result() {
    // Invalid UTF-8, 100,000-deep nesting, JSON that is not JSON-RPC, a null-id request
    // and an object id, then the answer.
    let (peer, handle, dir) = hostile_server(
        r#"read req
printf '{"jsonrpc":"2.0","id":7,"method":"\377"}\n'
head -c 100000 /dev/zero | tr '\0' '['; head -c 100000 /dev/zero | tr '\0' ']'; printf '\n'
printf '{"hello":"world"}\n'
printf '{"jsonrpc":"2.0","id":null,"method":"ping"}\n'
printf '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}\n'
printf '{"jsonrpc":"2.0","id":1,"result":{"ok":true}}\n'
cat > "$D/in""#,
    );
    let result = peer.request_raw("anything", None, short(10_000)).await.unwrap();
    assert_eq!(result.get(), r#"{"ok":true}"#);
    // Still usable: the script answers nothing more, so the next call times out cleanly.
    let error = peer.request_raw("more", None, short(200)).await.unwrap_err();
    assert!(matches!(error, RequestError::Timeout { .. }), "{error:?}");
    tokio::time::sleep(Duration::from_millis(100)).await;
    peer.close();
    handle.shutdown().await;
    let seen = dir.read("in");
    // (The nesting is a batch of one item that is not a message: its error comes in an
    // array.)
    let errors: Vec<(Value, i64)> = lines_of(&seen)
        .into_iter()
        .flat_map(|l| match l {
            Value::Array(items) => items,
            other => vec![other],
        })
        .filter(|l| l.get("error").is_some())
        .map(|l| (l.get("id").cloned().unwrap_or(Value::Null), l["error"]["code"].as_i64().unwrap()))
        .collect();
    assert_eq!(
        errors,
        vec![
            (Value::Null, codes::PARSE_ERROR),
            (Value::Null, codes::INVALID_REQUEST),
            (Value::Null, codes::INVALID_REQUEST),
            (Value::Null, codes::INVALID_REQUEST),
            (Value::Null, codes::INVALID_REQUEST),
        ],
        "{seen}"
    );
}

#[tokio::test]
async fn an_unterminated_last_line_then_eof_is_still_read_by_the_client() {
    let (peer, handle, _dir) =
        hostile_server(r#"read req; printf '{"jsonrpc":"2.0","id":1,"result":{"last":1}}'"#);
    let result = peer.request_raw("anything", None, short(10_000)).await.unwrap();
    assert_eq!(result.get(), r#"{"last":1}"#);
    // Then the server is gone: the next call fails at once, it does not hang.
    let error = peer.request_raw("anything", None, short(10_000)).await.unwrap_err();
    assert!(matches!(error, RequestError::ConnectionClosed { .. }), "{error:?}");
    drop(handle);
}

#[tokio::test]
async fn a_broken_last_line_then_eof_fails_the_call_cleanly() {
    let (peer, handle, _dir) = hostile_server(r#"read req; printf '{"jsonrpc":"2.0","id":1,"res'"#);
    // Closed (not a timeout): the EOF ends the call without waiting out its 10 s.
    let error = peer.request_raw("anything", None, short(10_000)).await.unwrap_err();
    assert!(matches!(error, RequestError::ConnectionClosed { .. }), "{error:?}");
    drop(handle);
}

#[tokio::test]
async fn a_cancel_for_an_id_the_client_never_sent_is_ignored() {
    let (peer, handle, dir) = hostile_server(
        r#"read req
printf '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":999,"reason":"x"}}\n'
printf '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{"bad":1}}}\n'
printf '{"jsonrpc":"2.0","id":1,"result":{"ok":true}}\n'
cat > "$D/in""#,
    );
    let result = peer.request_raw("anything", None, short(10_000)).await.unwrap();
    assert_eq!(result.get(), r#"{"ok":true}"#);
    tokio::time::sleep(Duration::from_millis(100)).await;
    peer.close();
    handle.shutdown().await;
    // Notifications are never answered, not even malformed ones.
    let seen = dir.read("in");
    assert_eq!(lines_of(&seen), Vec::<Value>::new(), "{seen}");
}

/// A handler that takes a while: a request to the client stays in flight long enough for
/// the server to send a second one with the same id.
struct Slow;

impl mcpwire::jsonrpc::Handler for Slow {
    async fn on_request(
        &self,
        _request: mcpwire::protocol::Request,
        _ctx: mcpwire::jsonrpc::RequestContext,
    ) -> Result<mcpwire::protocol::RawJson, mcpwire::McpError> {
        tokio::time::sleep(Duration::from_millis(300)).await;
        Ok(serde_json::value::to_raw_value(&serde_json::json!({ "done": true })).unwrap())
    }
}

#[tokio::test]
async fn a_server_reusing_an_in_flight_id_gets_invalid_request_and_the_first_is_still_answered() {
    let script = r#"printf '{"jsonrpc":"2.0","id":7,"method":"roots/list"}\n{"jsonrpc":"2.0","id":7,"method":"roots/list"}\n'
timeout 2 cat > "$D/seen""#;
    let (peer, handle, dir) = hostile_server_with(script, Slow);
    // The script ends after 2 s: by then both answers were written.
    peer.closed().await;
    handle.shutdown().await;
    let seen = lines_of(&dir.read("seen"));
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!(seen[0]["id"], 7);
    assert_eq!(
        seen[0]["error"]["code"],
        codes::INVALID_REQUEST,
        "the duplicate is refused at once: {seen:?}"
    );
    assert_eq!(seen[1]["id"], 7);
    assert_eq!(
        seen[1]["result"],
        serde_json::json!({ "done": true }),
        "the original still answered: {seen:?}"
    );
}

/// A 2025 server that, once initialized, floods the client with requests (`ping`, and
/// `roots/list`) and never reads its stdin again: the client's answers fill the pipe, then
/// its queue, and its reader stops taking requests in (back-pressure: what it holds stays
/// bounded, and the server blocks writing). The client's own calls, which cannot go out,
/// end at their timeout, one after another (as `NotSent` when they found no room in the
/// queue, as `Timeout` when they were queued behind what the server no longer reads),
/// and closing the client ends the server.
#[tokio::test]
async fn a_server_flooding_requests_that_never_reads_its_stdin_leaves_the_client_usable() {
    let script = r#"read req
id=$(printf '%s' "$req" | sed 's/.*"id":\([0-9]*\).*/\1/')
printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}\n' "$id"
read note
yes '{"jsonrpc":"2.0","id":"p","method":"ping"}
{"jsonrpc":"2.0","id":"r","method":"roots/list"}'"#;
    let dir = tempdir::Dir::new();
    let client = Client::builder("t", "0")
        .protocol_version(mcpwire::protocol::ProtocolVersion::parse("2025-11-25"))
        .options(ClientOptions { request_timeout: Duration::from_millis(300), ..Default::default() })
        .on_roots(|| async {
            Ok(mcpwire::protocol::roots::ListRootsResult { roots: Vec::new(), meta: None })
        })
        .spawn(script_process(script, &dir))
        .await
        .unwrap();
    for _ in 0..2 {
        let called = tokio::time::timeout(Duration::from_secs(10), client.ping()).await;
        let error = called.expect("the call hung").unwrap_err();
        assert!(matches!(error, RequestError::Timeout { .. } | RequestError::NotSent { .. }), "{error:?}");
    }
    tokio::time::timeout(Duration::from_secs(10), client.close()).await.expect("close hung");
}
