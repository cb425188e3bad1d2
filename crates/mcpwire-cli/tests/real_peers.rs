//! The CLI and the proxy against the real third-party peers that `scripts/install-peers.sh`
//! installs (npm server-everything, server-filesystem, server-memory; PyPI
//! mcp-server-time, mcp-server-git, fastmcp; the Python SDK as a client), as users meet
//! them: server-initiated requests through the proxy, piped output, oversized messages.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;
use support::*;

/// Runs a Python SDK client script (`script`, from the workspace root) with `args`, stdin
/// closed, within `deadline`.
fn python_client(script: &str, args: &[&str], deadline: Duration) -> std::process::Output {
    let child = Command::new(peer("PYTHON"))
        .arg(workspace().join(script))
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait(child, deadline)
}

/// Runs the Python SDK relay client (`tests/peers/python/proxy_relay_client.py`): `count`
/// clients at once, each answering elicitation and sampling with its own name.
fn relay_clients(mode: &str, url: &str, count: usize) -> std::process::Output {
    let count = count.to_string();
    python_client("tests/peers/python/proxy_relay_client.py", &[mode, url, &count], Duration::from_secs(180))
}

/// `mcpwire proxy` on a free port in front of a server-everything of its own (stdio).
fn proxy_to_everything() -> Running {
    start_http(&["proxy", "--listen", "127.0.0.1:0", &node_server("SERVER_EVERYTHING_JS", "stdio")])
}

#[test]
fn the_proxy_carries_server_requests_to_the_client_that_caused_them() {
    let proxy = proxy_to_everything();
    // 2025 sessions and 2026 stateless clients, four of each at once: every client gets
    // back the answer it gave, never another's.
    for mode in ["legacy", "auto"] {
        let o = relay_clients(mode, &proxy.url, 4);
        assert!(o.status.success(), "{mode}:\n{}\n{}", stdout(&o), stderr(&o));
        assert_eq!(stdout(&o).matches("ok client-").count(), 4, "{}", stdout(&o));
    }
    // mcpwire's own client, both eras: it declines (stdin is not a terminal), and the
    // decline reaches the server, which says so.
    for version in ["2026-07-28", "2025-11-25"] {
        let o = mcpwire(
            &["call", &proxy.url, "trigger-elicitation-request", "--protocol-version", version],
            Duration::from_secs(60),
        );
        expect_code(&o, 0);
        assert!(stdout(&o).contains("decline"), "{}", stdout(&o));
    }
}

/// Runs the Python SDK client `script` (from the workspace root) once per era, as a 2025
/// session (`legacy`) and as a 2026 client (`auto`), each time through a fresh proxy in
/// front of a fresh server-everything (stdio), so that no upstream state carries over from
/// one era to the other; each run must succeed and print `ok MODE`.
fn python_client_in_both_eras_through_fresh_proxies(script: &str) {
    for mode in ["legacy", "auto"] {
        let proxy = proxy_to_everything();
        let o = python_client(script, &[mode, proxy.url.as_str()], Duration::from_secs(120));
        assert!(o.status.success(), "{mode}:\n{}\n{}", stdout(&o), stderr(&o));
        assert!(stdout(&o).contains(&format!("ok {mode}")), "{}", stdout(&o));
    }
}

#[test]
fn resource_updates_reach_subscribers_through_the_proxy_in_both_eras() {
    // server-everything (2025-era, stdio) sends `notifications/resources/updated` for what
    // its connection subscribed to once its `toggle-subscriber-updates` tool is called. A
    // fresh proxy for each era: the toggle is the upstream process's state.
    python_client_in_both_eras_through_fresh_proxies("tests/peers/python/proxy_subscriptions_client.py");
}

#[test]
fn a_url_elicitation_required_error_reaches_a_2026_client_as_a_question() {
    // server-everything's `trigger-url-elicitation` with `errorPath` answers -32042 (a
    // 2025-only error) once, then goes through when called again. A 2025 session gets
    // the error as it is; a 2026 client, whose revision has no -32042, gets the URL as
    // an `input_required` round and its retry goes through.
    python_client_in_both_eras_through_fresh_proxies("tests/peers/python/proxy_url_elicitation_client.py");
}

#[test]
fn the_proxy_declares_only_what_the_upstream_and_its_clients_have() {
    // server-memory has no logging: neither does the proxy in front of it.
    let proxy = start_http(&["proxy", "--listen", "127.0.0.1:0", &node_server("SERVER_MEMORY_JS", "")]);
    for version in ["2026-07-28", "2025-11-25"] {
        let o =
            mcpwire(&["info", "--json", &proxy.url, "--protocol-version", version], Duration::from_secs(60));
        expect_code(&o, 0);
        let info: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert!(info["capabilities"]["tools"].is_object(), "{info}");
        assert!(info["capabilities"].get("logging").is_none(), "{info}");
    }
    // A client that declares no elicitation does not see server-everything's
    // elicitation tool (the upstream connection it uses declared none); mcpwire's
    // client declares it and does.
    let proxy = proxy_to_everything();
    let o = mcpwire(&["tools", &proxy.url], Duration::from_secs(60));
    expect_code(&o, 0);
    assert!(stdout(&o).contains("trigger-elicitation-request"), "{}", stdout(&o));
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let o = Command::new("curl")
        .args(["-s", "-X", "POST", &proxy.url, "-H", "Content-Type: application/json"])
        .args(["-H", "Accept: application/json, text/event-stream", "-H", "MCP-Protocol-Version: 2026-07-28"])
        .args(["-H", "Mcp-Method: tools/list", "--data", body])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("\"echo\"") && !text.contains("trigger-elicitation-request"), "{text}");
}

/// A scratch directory (removed when dropped) with one file of `bytes` random-ish bytes,
/// for server-filesystem; the directory and the file, canonical.
fn big_file(name: &str, bytes: usize) -> (Scratch, PathBuf, PathBuf) {
    let scratch = Scratch::new(&format!("cli-{name}"));
    let file = scratch.join("big.bin");
    let data: Vec<u8> = (0..bytes).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    std::fs::write(&file, data).unwrap();
    let dir = scratch.path().canonicalize().unwrap();
    (scratch, dir, file.canonicalize().unwrap())
}

#[test]
fn an_oversized_answer_fails_its_request_at_once_and_the_limit_can_be_raised() {
    // 14 MB of file comes back as a base64 blob well over 16 MiB.
    let (_scratch, dir, file) = big_file("oversized", 14_000_000);
    let target = node_server("SERVER_FILESYSTEM_JS", &format!("'{}'", dir.display()));
    let path = format!("path={}", file.display());
    let started = Instant::now();
    let o = mcpwire(&["--json", "call", &target, "read_media_file", &path], Duration::from_secs(60));
    expect_code(&o, 2);
    assert!(started.elapsed() < Duration::from_secs(20), "took {:?}", started.elapsed());
    let err = stderr(&o);
    assert!(err.contains("exceeds the 16777216-byte message size limit"), "{err}");
    assert!(err.contains("--max-message-size"), "{err}");
    assert!(o.stdout.is_empty(), "{}", stdout(&o));
    // Raised, the same call succeeds.
    let o = mcpwire(
        &["--max-message-size", "64M", "--json", "call", &target, "read_media_file", &path],
        Duration::from_secs(60),
    );
    expect_code(&o, 0);
    let result: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(result["content"][0].to_string().len() > 16 << 20, "a short result");
}

/// Runs `mcpwire ARGS` with its stdout closed before it writes (as `| head -c 0` would).
fn with_closed_stdout(args: &[&str]) -> std::process::Output {
    let mut child = spawn(args);
    drop(child.stdout.take());
    wait_stderr_only(child, Duration::from_secs(120))
}

/// [`wait`] for a child whose stdout is already gone.
fn wait_stderr_only(mut child: std::process::Child, deadline: Duration) -> std::process::Output {
    child.stdout = None;
    let pid = child.id();
    let end = Instant::now() + deadline;
    loop {
        if let Some(_status) = child.try_wait().unwrap() {
            return child.wait_with_output().unwrap();
        }
        if Instant::now() > end {
            let _ = Command::new("kill").args(["-KILL", &pid.to_string()]).status();
            panic!("pid {pid} ran past {deadline:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn bench_measures_a_named_tool_with_typed_arguments() {
    let target = node_server("SERVER_EVERYTHING_JS", "stdio");
    let quick = ["--calls", "40", "--pipelined-calls", "200", "--startup-runs", "1", "--warmup", "5"];
    // By default bench calls `echo {text}`: server-everything's echo takes `message`.
    let o = mcpwire(&[&["bench"], &quick[..], &[&target]].concat(), Duration::from_secs(120));
    expect_code(&o, 2);
    let err = stderr(&o);
    assert!(err.contains("takes no `text`") && err.contains("--tool echo --arg message="), "{err}");
    // Named, with its argument.
    let args =
        [&["--json", "bench", "--tool", "echo", "--arg", "message=hi"], &quick[..], &[&target]].concat();
    let o = mcpwire(&args, Duration::from_secs(120));
    expect_code(&o, 0);
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let results = report["results"].as_array().unwrap();
    assert!(!results.is_empty(), "{report}");
    for result in results.iter().filter(|r| r.get("errors").is_some()) {
        assert_eq!(result["errors"], 0, "{result}");
    }
    // The server's start-up message on stderr is not let through (only with -v).
    assert!(!stderr(&o).contains("Starting"), "{}", stderr(&o));
    // A tool that does not exist is named, with a suggestion.
    let args = [&["bench", "--tool", "ecko"], &quick[..], &[&target]].concat();
    let o = mcpwire(&args, Duration::from_secs(120));
    expect_code(&o, 2);
    assert!(stderr(&o).contains("did you mean \"echo\""), "{}", stderr(&o));
}

#[test]
fn a_closed_stdout_is_no_panic() {
    let target = node_server("SERVER_EVERYTHING_JS", "stdio");
    let bench = ["--json", "bench", "--tool", "echo", "--arg", "message=hi", "--calls", "20"];
    let bench =
        [&bench[..], &["--pipelined-calls", "0", "--startup-runs", "0", "--warmup", "2", &target]].concat();
    let tools = ["tools", &target];
    let json_tools = ["--json", "tools", &target];
    for args in [&bench[..], &tools[..], &json_tools[..]] {
        let o = with_closed_stdout(args);
        expect_code(&o, 0);
    }
}

#[test]
fn piped_output_keeps_identifiers_whole_and_the_servers_key_order() {
    // server-everything's resource URIs are longer than a terminal column.
    let o = mcpwire(&["resources", &node_server("SERVER_EVERYTHING_JS", "stdio")], Duration::from_secs(60));
    expect_code(&o, 0);
    assert!(stdout(&o).contains("demo://resource/static/document/architecture.md "), "{}", stdout(&o));
    assert!(!stdout(&o).contains('…'), "{}", stdout(&o));
    // server-filesystem declares write_file's `path` before `content`.
    let dir = std::env::temp_dir();
    let target = node_server("SERVER_FILESYSTEM_JS", &format!("'{}'", dir.display()));
    let o = mcpwire(&["tools", &target], Duration::from_secs(60));
    expect_code(&o, 0);
    let line = stdout(&o).lines().find(|l| l.starts_with("write_file ")).unwrap_or_default().to_owned();
    assert!(line.contains("<path: string> <content: string>"), "{line}");
    let o = mcpwire(&["--json", "tools", &target], Duration::from_secs(60));
    expect_code(&o, 0);
    let text = stdout(&o);
    let write_file = &text[text.find("\"write_file\"").unwrap()..];
    let (path, content) = (write_file.find("\"path\"").unwrap(), write_file.find("\"content\"").unwrap());
    assert!(path < content, "{write_file}");
}

#[test]
fn a_missing_client_capability_gets_each_eras_own_code() {
    // mcpwire's client declares no sampling; the example's test_sampling asks for it.
    let target = format!("stdio:'{BIN}' serve --example everything");
    for (version, code) in [("2025-11-25", "(code -32601)"), ("2026-07-28", "(code -32021)")] {
        let o = mcpwire(
            &["call", &target, "test_sampling", "prompt=hi", "--protocol-version", version],
            Duration::from_secs(60),
        );
        expect_code(&o, 2);
        let err = stderr(&o);
        assert!(err.contains(code), "{version}: {err}");
        assert!(err.contains("needs a client capability"), "{version}: {err}");
    }
}

#[test]
fn the_notes_example_is_a_server_to_try_the_cli_on() {
    let target = format!("stdio:'{BIN}' serve --example notes");
    let run = |args: &[&str]| {
        let o = mcpwire(args, Duration::from_secs(60));
        expect_code(&o, 0);
        stdout(&o)
    };
    let tools = run(&["tools", &target]);
    assert!(tools.contains("add_note      <title: string> <text: string> [tags: array]"), "{tools}");
    assert!(run(&["call", &target, "search_notes", "query=mcp"]).contains("[1] Welcome (notes://note/1)"));
    assert!(run(&["read", &target, "notes://note/2"]).contains("# Shopping"));
    assert!(run(&["prompt", &target, "summarize", "tag=errands"]).contains("Coffee beans"));
    // Each process has its own notes: a note added is there for the rest of that session.
    let added =
        run(&["call", &target, "add_note", "title=Plan", "text=ship it", "--protocol-version", "2025-11-25"]);
    assert!(added.contains("Added note 3 (notes://note/3)"), "{added}");
    let o = mcpwire(&["call", &target, "delete_note", "id=42"], Duration::from_secs(60));
    expect_code(&o, 1);
    assert!(stderr(&o).contains("there is no note 42"), "{}", stderr(&o));
}

/// server-everything over Streamable HTTP (a 2025-only server), or over the legacy
/// HTTP+SSE transport, on a free port; killed (its own pid) when dropped.
struct EverythingHttp {
    child: std::process::Child,
    url: String,
}

impl EverythingHttp {
    fn start() -> EverythingHttp {
        Self::start_as("streamableHttp", "/mcp")
    }

    /// In `mode` (`streamableHttp` or `sse`), its URL ending in `path`.
    fn start_as(mode: &str, path: &str) -> EverythingHttp {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new(peer("NODE22"))
            .args([peer("SERVER_EVERYTHING_JS").as_str(), mode])
            .env("PORT", port.to_string())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        wait_for_port(port, "server-everything");
        EverythingHttp { child, url: format!("http://127.0.0.1:{port}{path}") }
    }
}

impl Drop for EverythingHttp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A server of the legacy HTTP+SSE transport (2024-11-05): the client falls back to it
/// and posts to the endpoint the server names, a path on its own origin.
#[test]
fn the_legacy_http_sse_transport_is_spoken() {
    let server = EverythingHttp::start_as("sse", "/sse");
    let o = mcpwire(&["tools", &server.url], Duration::from_secs(60));
    expect_code(&o, 0);
    assert!(stdout(&o).contains("echo"), "{}", stdout(&o));
    let o =
        mcpwire(&["call", &server.url, "echo", "message=over the old transport"], Duration::from_secs(60));
    expect_code(&o, 0);
    assert!(stdout(&o).contains("over the old transport"), "{}", stdout(&o));
    // Its one stream is the session (as a stdio connection is): `info` says so, not
    // "without sessions" for want of an `Mcp-Session-Id` this transport never has.
    let o = mcpwire(&["info", &server.url], Duration::from_secs(60));
    expect_code(&o, 0);
    let era = stdout(&o).lines().find(|l| l.starts_with("Era:")).unwrap_or_default().to_owned();
    assert!(era.ends_with("2025 (stateful: initialize handshake, legacy HTTP+SSE transport)"), "{era}");
    let o = mcpwire(&["info", "--json", &server.url], Duration::from_secs(60));
    expect_code(&o, 0);
    let info: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(info["sessions"], true, "{info}");
}

#[test]
fn the_stdio_proxy_carries_a_stdio_clients_answers_to_an_http_server() {
    // `proxy --stdio URL` in front of server-everything over Streamable HTTP (sessions)
    // and over the legacy HTTP+SSE transport; the Python SDK client on the pipe, in both
    // eras, answers its sampling, elicitation and roots questions, sees progress, and
    // cancels a call.
    let script = "tests/peers/python/reverse_proxy_client.py";
    for (mode, path) in [("streamableHttp", "/mcp"), ("sse", "/sse")] {
        let server = EverythingHttp::start_as(mode, path);
        for era in ["legacy", "auto"] {
            let o = python_client(script, &[era, BIN, server.url.as_str()], Duration::from_secs(120));
            let out = format!("{mode} {era}:\n{}\n{}", stdout(&o), stderr(&o));
            assert!(o.status.success() && stdout(&o).contains(&format!("ok {era}")), "{out}");
        }
    }
}

#[test]
fn failures_say_what_happened() {
    // A server that never answers: the era probe's wait (at most --timeout) and then
    // --timeout bound the whole handshake.
    let started = Instant::now();
    let o = mcpwire(&["tools", "stdio:sleep 60", "--timeout", "2"], Duration::from_secs(60));
    expect_code(&o, 2);
    assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
    assert!(stderr(&o).contains("did not answer the handshake within 2 s"), "{}", stderr(&o));
    // Nothing listening, pinned to 2026 (no handshake: the first request finds it out):
    // said as unpinned, not in the HTTP library's words.
    let o = mcpwire(
        &["tools", "http://127.0.0.1:9/mcp", "--protocol-version", "2026-07-28"],
        Duration::from_secs(60),
    );
    expect_code(&o, 2);
    let err = stderr(&o);
    assert!(err.contains("tools/list failed: cannot reach the server: connection refused"), "{err}");
    assert!(err.contains("listening there") && !err.contains("os error"), "{err}");
    // A 2025-only server refuses 2026 requests (HTTP 400 with a JSON-RPC error whose id
    // is null: it needs a session first): said so, with the way out; --protocol-version
    // is global, before the command as after it.
    let server = EverythingHttp::start();
    let o = mcpwire(&["--protocol-version", "2026-07-28", "tools", &server.url], Duration::from_secs(60));
    expect_code(&o, 2);
    let err = stderr(&o);
    assert!(err.contains("Server not initialized"), "{err}");
    assert!(err.contains("--protocol-version 2025-11-25") && !err.contains("never got"), "{err}");
    let o = mcpwire(
        &["--protocol-version", "2025-11-25", "call", &server.url, "echo", "message=hi"],
        Duration::from_secs(60),
    );
    expect_code(&o, 0);
    assert!(stdout(&o).contains("Echo: hi"), "{}", stdout(&o));
    // An HTTP server that is not MCP: its status, not its HTML page.
    let (_scratch, stdout_dir, _) = big_file("plain-http", 10); // a directory to serve, nothing more
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let plain = Command::new(peer("PYTHON"))
        .args(["-m", "http.server", &port.to_string(), "--bind", "127.0.0.1"])
        .current_dir(&stdout_dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let plain = Reaped(plain);
    wait_for_port(port, "python's http.server");
    let o = mcpwire(&["tools", &format!("http://127.0.0.1:{port}/mcp")], Duration::from_secs(60));
    drop(plain);
    expect_code(&o, 2);
    let err = stderr(&o);
    assert!(err.contains("answered HTTP 50") && !err.contains('<'), "{err}");
}

#[test]
fn piped_stderr_gets_plain_progress_and_task_only_tools_are_marked() {
    let server = EverythingHttp::start();
    let o = mcpwire(
        &["call", &server.url, "trigger-long-running-operation", "duration=1", "steps=3"],
        Duration::from_secs(60),
    );
    expect_code(&o, 0);
    let err = stderr(&o);
    assert!(err.contains("progress: 1/3 (33%)") && err.contains("progress: 3/3 (100%)"), "{err}");
    assert!(!err.contains('\r') && !err.contains('\x1b'), "{err:?}");
    let o = mcpwire(&["tools", &server.url], Duration::from_secs(60));
    expect_code(&o, 0);
    let line =
        stdout(&o).lines().find(|l| l.starts_with("simulate-research-query")).unwrap_or_default().to_owned();
    assert!(line.contains("[task required]"), "{line}");
}

#[test]
fn progress_starts_the_timeout_again_with_a_maximum_in_the_cli_and_the_proxy() {
    // server-everything's long operation: 4 s, a progress notification every 0.5 s (the
    // 2.5 s timeout leaves 2 s for each one to arrive on a loaded machine).
    let target = node_server("SERVER_EVERYTHING_JS", "stdio");
    let long = ["trigger-long-running-operation", "duration=4", "steps=8"];
    // `mcpwire ARGS` and the long operation's name and arguments after them.
    let call = |args: &[&str]| mcpwire(&[args, &long[..]].concat(), Duration::from_secs(60));
    // --timeout alone counts from the request.
    let o = call(&["call", "--timeout", "2.5", &target]);
    expect_code(&o, 2);
    assert!(stderr(&o).contains("no answer within 2.5 s"), "{}", stderr(&o));
    // Progress restarts it: the call ends as the tool does.
    let o = call(&["call", "--timeout", "2.5", "--max-total-timeout", "30", &target]);
    expect_code(&o, 0);
    assert!(stdout(&o).contains("Long running operation completed"), "{}", stdout(&o));
    // The maximum bounds it whatever progress comes, and the hint names it.
    let o = call(&["call", "--timeout", "2.5", "--max-total-timeout", "3", &target]);
    expect_code(&o, 2);
    let err = stderr(&o);
    assert!(err.contains("no answer within 3 s") && err.contains("--max-total-timeout SECONDS"), "{err}");

    // The proxy's own limit on the request it relays, in both eras downstream: its
    // --timeout alone ends the call (the client waits longer); with --max-total-timeout,
    // progress keeps it going, as it does the client's own restarting timeout over HTTP
    // (2026: progress on the request's SSE stream).
    let restarting: &[&str] = &["--timeout", "2.5", "--max-total-timeout", "30"];
    let fixed: &[&str] = &["--timeout", "2.5"];
    for (proxy_limits, client_limits, finishes) in [(fixed, &[][..], false), (restarting, restarting, true)] {
        let proxy_args = [&["proxy", "--listen", "127.0.0.1:0"][..], proxy_limits].concat();
        let proxy = start_http(&[proxy_args.as_slice(), &[target.as_str()]].concat());
        for version in ["2025-11-25", "2026-07-28"] {
            let o =
                call(&[&["--protocol-version", version, "call"][..], client_limits, &[&proxy.url]].concat());
            let out = format!("{proxy_limits:?} {version}:\n{}\n{}", stdout(&o), stderr(&o));
            match finishes {
                true => assert!(stdout(&o).contains("Long running operation completed"), "{out}"),
                false => assert!(stderr(&o).contains("timed out after 2.5s"), "{out}"),
            }
        }
    }
}

#[test]
fn a_tool_that_runs_only_as_a_task_is_a_plain_call_through_the_proxy() {
    // server-everything's `simulate-research-query` requires a task (2025-11-25); the
    // proxy offers none, so it runs the task upstream itself and answers with its result.
    let proxy = proxy_to_everything();
    let o = mcpwire(&["tools", &proxy.url], Duration::from_secs(60));
    expect_code(&o, 0);
    let line =
        stdout(&o).lines().find(|l| l.starts_with("simulate-research-query")).unwrap_or_default().to_owned();
    assert!(!line.is_empty() && !line.contains("[task"), "{}", stdout(&o));
    for version in ["2025-11-25", "2026-07-28"] {
        // Ambiguous: the task asks a question, which reaches this client (declined: stdin
        // is not a terminal) and the task goes on with its default.
        let o = mcpwire(
            &[
                "--json",
                "call",
                &proxy.url,
                "simulate-research-query",
                "topic=python",
                "ambiguous=true",
                "--protocol-version",
                version,
            ],
            Duration::from_secs(90),
        );
        expect_code(&o, 0);
        let (out, err) = (stdout(&o), stderr(&o));
        let result: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{version}: {e}:\n{out}"));
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        assert!(text.starts_with("# Research Report: python (User declined"), "{version}:\n{out}\n{err}");
        // A plain result: the upstream task the proxy followed is not this client's (it
        // could not ask about it), and 2026 has no `related-task` at all.
        assert!(result["_meta"].get("io.modelcontextprotocol/related-task").is_none(), "{version}:\n{out}");
        assert!(err.contains("declined the server's request for input"), "{version}:\n{err}");
        // The task's status as progress: the proxy reports each status it polls, so which
        // stages show depends on timing, but a working one always does.
        let working = err.lines().any(|l| l.starts_with("progress:") && l.contains(": working ("));
        assert!(working, "{version}: progress:\n{err}");
    }
}

/// The fastmcp fixture server (`tests/peers/python/fastmcp_server.py`) as a stdio target.
fn fastmcp_server() -> String {
    let script = workspace().join("tests/peers/python/fastmcp_server.py");
    format!("stdio:'{}' '{}'", peer("PYTHON"), script.display())
}

#[test]
fn pypi_servers_through_the_cli_and_the_proxy() {
    // mcp-server-time and mcp-server-git, as published.
    let time = python_script("mcp-server-time", "");
    let o = mcpwire(&["call", &time, "get_current_time", "timezone=UTC"], Duration::from_secs(60));
    expect_code(&o, 0);
    assert!(stdout(&o).contains("\"timezone\": \"UTC\""), "{}", stdout(&o));
    let repo = workspace();
    let git = python_script("mcp-server-git", &format!("--repository '{}'", repo.display()));
    let o = mcpwire(
        &["call", &git, "git_status", &format!("repo_path={}", repo.display())],
        Duration::from_secs(60),
    );
    expect_code(&o, 0);
    assert!(stdout(&o).contains("Repository status:"), "{}", stdout(&o));
    // fastmcp: the declared argument order; an elicitation put to a 2025 client (mcpwire
    // declines without a terminal).
    let fast = fastmcp_server();
    let o = mcpwire(&["tools", &fast], Duration::from_secs(60));
    expect_code(&o, 0);
    assert!(
        stdout(&o).contains("<restaurant: string> <party_size: integer> <date: string>"),
        "{}",
        stdout(&o)
    );
    let o = mcpwire(&["--protocol-version", "2025-11-25", "call", &fast, "greet"], Duration::from_secs(60));
    expect_code(&o, 0);
    assert!(stdout(&o).contains("No name (decline)"), "{}", stdout(&o));
    // The proxy in front of fastmcp spoken to in 2025: the question reaches the client
    // whose call caused it, a 2025 session or a 2026 client (as an input_required round).
    let proxy = start_http(&["--protocol-version", "2025-11-25", "proxy", "--listen", "127.0.0.1:0", &fast]);
    for version in ["2025-11-25", "2026-07-28"] {
        let o =
            mcpwire(&["--protocol-version", version, "call", &proxy.url, "greet"], Duration::from_secs(60));
        expect_code(&o, 0);
        assert!(stdout(&o).contains("No name (decline)"), "{version}: {}", stdout(&o));
        let o = mcpwire(&["call", &proxy.url, "get_current_time"], Duration::from_secs(60));
        assert!(
            stderr(&o).contains("did you mean") || stderr(&o).contains("no tool named"),
            "{}",
            stderr(&o)
        );
    }
    // And in front of mcp-server-time, both eras.
    let proxy = start_http(&["proxy", "--listen", "127.0.0.1:0", &time]);
    for version in ["2025-11-25", "2026-07-28"] {
        let o = mcpwire(
            &["--protocol-version", version, "call", &proxy.url, "get_current_time", "timezone=UTC"],
            Duration::from_secs(60),
        );
        expect_code(&o, 0);
        assert!(stdout(&o).contains("\"timezone\": \"UTC\""), "{version}: {}", stdout(&o));
    }
}

#[test]
fn json_output_is_the_servers_json_in_its_own_key_order() {
    // server-everything orders its keys unlike mcpwire's types (capabilities start with
    // tools, serverInfo puts title before version, ...): what `--json` prints must be
    // what came on the wire, key for key, in that order.
    let (node, js) = (peer("NODE22"), peer("SERVER_EVERYTHING_JS"));
    let target = node_server("SERVER_EVERYTHING_JS", "stdio");
    let call = serde_json::json!({"name": "get-annotated-message",
        "arguments": {"messageType": "error", "includeImage": true}});
    let uri = "demo://resource/static/document/architecture.md";
    let requests = [
        ("tools/list", serde_json::json!({})),
        ("resources/list", serde_json::json!({})),
        ("resources/templates/list", serde_json::json!({})),
        ("prompts/list", serde_json::json!({})),
        ("tools/call", call),
        ("resources/read", serde_json::json!({"uri": uri})),
        ("prompts/get", serde_json::json!({"name": "args-prompt", "arguments": {"city": "Oslo"}})),
    ];
    let raw = raw_answers(&node, &[&js, "stdio"], &requests);
    let json = |args: &[&str]| -> Value {
        let o = mcpwire(
            &[&["--json", "--protocol-version", "2025-11-25"], args].concat(),
            Duration::from_secs(60),
        );
        expect_code(&o, 0);
        serde_json::from_slice(&o.stdout).unwrap()
    };
    // serde_json keeps insertion order in this build (preserve_order): the text of two
    // values is equal only when their keys come in the same order.
    let same = |what: &str, printed: &Value, sent: &Value| {
        assert_eq!(printed.to_string(), sent.to_string(), "{what}: printed, then sent");
    };
    let info = json(&["info", &target]);
    same("capabilities", &info["capabilities"], &raw[0]["capabilities"]);
    same("serverInfo", &info["serverInfo"], &raw[0]["serverInfo"]);
    let lists = [
        ("tools", "tools"),
        ("resources", "resources"),
        ("templates", "resourceTemplates"),
        ("prompts", "prompts"),
    ];
    for (i, (command, key)) in lists.into_iter().enumerate() {
        same(command, &json(&[command, &target])[key], &raw[i + 1][key]);
    }
    same(
        "call",
        &json(&["call", &target, "get-annotated-message", "messageType=error", "includeImage:=true"]),
        &raw[5],
    );
    same("read", &json(&["read", &target, uri]), &raw[6]);
    same("prompt", &json(&["prompt", &target, "args-prompt", "city=Oslo"]), &raw[7]);
}

/// Runs `mcpwire ARGS` on a pseudo-terminal (util-linux `script`), typing `input`: the
/// elicitation form asks only on a terminal. Its terminal output comes back as text.
fn on_a_terminal(args: &[&str], input: &str) -> String {
    use std::io::Write;
    let quoted: Vec<String> = args.iter().map(|a| format!("'{}'", a.replace('\'', r"'\''"))).collect();
    let command = format!("'{BIN}' {}", quoted.join(" "));
    let mut child = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .env_remove("RUST_LOG")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("util-linux script runs");
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let o = wait(child, Duration::from_secs(60));
    assert!(o.status.success(), "{}\n{}", stdout(&o), stderr(&o));
    stdout(&o)
}

#[test]
fn the_elicitation_form_asks_in_the_servers_order() {
    // server-everything's form: 13 fields, `name` (the only required one) first. Answer
    // it, leave the rest empty (defaults), then decline to send.
    let target = node_server("SERVER_EVERYTHING_JS", "stdio");
    let input = format!("Ada\n{}n\n", "\n".repeat(12));
    let shown = on_a_terminal(&["call", &target, "trigger-elicitation-request"], &input);
    let asked = [
        "Your full, legal name",
        "Agree to the terms and conditions",
        "Favorite first line of a story",
        "Your email address",
        "Portfolio / personal website",
        "Your date of birth",
    ];
    let positions: Vec<usize> = asked
        .iter()
        .map(|a| shown.find(a).unwrap_or_else(|| panic!("{a:?} never asked:\n{shown}")))
        .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "asked out of the server's order:\n{shown}");
    assert!(shown.contains("decline"), "{shown}");
}

#[test]
fn a_fastmcp_multi_select_question_is_asked_and_answered() {
    // fastmcp writes a multi-select's items as `{"enum": [...]}`, without their `type`:
    // the form still offers the choices, and the picked ones reach the tool.
    let args = ["--protocol-version", "2025-11-25", "call", &fastmcp_server(), "paint"];
    let shown = on_a_terminal(&args, "1,3\n\n");
    assert!(shown.contains("Which colours?") && shown.contains("3) blue"), "{shown}");
    assert!(shown.contains("Painted red, blue"), "{shown}");
}

#[test]
fn the_proxy_carries_roots_at_start_up_and_after_a_change() {
    // server-everything asks for roots 350 ms after `initialized` (no request holds the
    // connection by then) and again when told they changed; the Python SDK client (a
    // 2025 session) gets the first question and, after telling it of a change through
    // the proxy, sees its new roots.
    let proxy = proxy_to_everything();
    let script = "crates/mcpwire-cli/tests/python/proxy_roots_client.py";
    let o = python_client(script, &[proxy.url.as_str()], Duration::from_secs(120));
    assert!(o.status.success() && stdout(&o).contains("ok"), "{}\n{}", stdout(&o), stderr(&o));
}

#[test]
fn fastmcp_log_messages_read_as_it_wrote_them() {
    // fastmcp sends every log message as `{"msg": TEXT, "extra": null | {FIELDS}}`: its
    // lines show the text and the extra fields, not an `extra=null` on each line.
    for version in ["2026-07-28", "2025-11-25"] {
        let o = mcpwire(
            &["--protocol-version", version, "call", &fastmcp_server(), "tidy"],
            Duration::from_secs(60),
        );
        expect_code(&o, 0);
        let err = stderr(&o);
        assert!(err.lines().any(|l| l == "[info] tidying up"), "{version}:\n{err}");
        assert!(err.lines().any(|l| l == "[warning] found crumbs count=3 room=kitchen"), "{version}:\n{err}");
    }
}

#[test]
fn a_wrongly_typed_argument_is_shown_an_example_of_its_schema() {
    // server-memory's `entities` is an array of objects with three required members: the
    // hint shows one, not an array of strings that the server would refuse.
    let target = node_server("SERVER_MEMORY_JS", "");
    let o =
        mcpwire(&["call", &target, "create_entities", r#"entities={"name":"Ada"}"#], Duration::from_secs(60));
    expect_code(&o, 2);
    let example = r#"entities='[{"name":"text","entityType":"text","observations":["text"]}]'"#;
    assert!(stderr(&o).contains(example), "{}", stderr(&o));
    // A value outside an argument's `enum` is the CLI's usage error naming the choices,
    // not a call the server refuses (server-everything's refusal reads as the tool's own
    // error, exit 1).
    let target = node_server("SERVER_EVERYTHING_JS", "stdio");
    let o = mcpwire(&["call", &target, "get-annotated-message", "messageType=eror"], Duration::from_secs(60));
    expect_code(&o, 2);
    let err = stderr(&o);
    assert!(err.contains(r#"must be one of "error", "success", "debug", got "eror""#), "{err}");
    assert!(err.contains(r#"did you mean messageType=error?"#), "{err}");
}

#[test]
fn an_optional_argument_is_checked_against_its_types() {
    // fastmcp (pydantic) writes an optional argument as `anyOf: [{type: array, ...},
    // {type: null}]`: a value of neither type is the CLI's usage error, with an example,
    // not a string sent for the server to refuse.
    let fast = fastmcp_server();
    let o = mcpwire(&["call", &fast, "tidy", "rooms=kitchen"], Duration::from_secs(60));
    expect_code(&o, 2);
    let err = stderr(&o);
    assert!(err.contains(r#"argument "rooms" of tool "tidy" must be array or null, got "kitchen""#), "{err}");
    assert!(err.contains(r#"for example rooms='["text"]'"#), "{err}");
    let o = mcpwire(&["call", &fast, "tidy", r#"rooms=["hall","attic"]"#], Duration::from_secs(60));
    expect_code(&o, 0);
    assert!(stdout(&o).contains("tidy: hall, attic"), "{}", stdout(&o));
}

#[test]
fn server_filesystem_works_within_the_roots_of_root_options() {
    // Started without directories, server-filesystem asks its client for roots after the
    // handshake, in the background, and serves what they hold. A call made at once came
    // before it had taken them up ("not in" no directory) every time; the CLI now waits
    // for the server to ask (commands.rs `await_roots_taken_up`). Every call here is a new
    // process: one on a machine loaded past that wait is tried again, twice at most.
    let dir = Scratch::new("roots");
    std::fs::write(dir.join("note.txt"), "from a root\n").unwrap();
    let target = node_server("SERVER_FILESYSTEM_JS", "");
    let root = dir.path().display().to_string();
    let call_once_roots_arrived = |args: &[&str], arrived: &dyn Fn(&str) -> bool| {
        let args = [&["call", "--root", &root, &target], args].concat();
        let mut last = mcpwire(&args, Duration::from_secs(60));
        for _ in 0..2 {
            if arrived(&stdout(&last)) {
                break;
            }
            last = mcpwire(&args, Duration::from_secs(60));
        }
        last
    };
    let o = call_once_roots_arrived(&["list_allowed_directories"], &|out| out.contains(&root));
    assert!(stdout(&o).contains(&root), "{root} never listed: {}", stderr(&o));
    let o = call_once_roots_arrived(&["read_text_file", &format!("path={root}/note.txt")], &|out| {
        out.contains("from a root")
    });
    expect_code(&o, 0);
    assert!(stdout(&o).contains("from a root"), "{}\n{}", stdout(&o), stderr(&o));
}

#[test]
fn a_media_file_from_server_filesystem_is_summarized_not_dumped() {
    // read_media_file answers an image block and, as its structured content, the same
    // blocks again (`{"content": [..]}`): shown once, as the summary, not as base64.
    let dir = Scratch::new("media");
    let image = dir.join("picture.png");
    std::fs::write(&image, [&b"\x89PNG\r\n\x1a\n"[..], &[7u8; 30_000]].concat()).unwrap();
    let target = node_server("SERVER_FILESYSTEM_JS", &format!("'{}'", dir.path().display()));
    let o = mcpwire(
        &["call", &target, "read_media_file", &format!("path={}", image.display())],
        Duration::from_secs(60),
    );
    expect_code(&o, 0);
    assert_eq!(stdout(&o), "[image: image/png, 30008 bytes]\n", "{}", stderr(&o));
}
