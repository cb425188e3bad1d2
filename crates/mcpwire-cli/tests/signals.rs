//! Stop signals and the servers the CLI spawns: however `mcpwire` is stopped, no server
//! process it started (nor anything in that server's process group) outlives it. The
//! servers here outlive their stdin and ignore `SIGTERM` (a shell that goes on after
//! the server it ran), so only the last step of the spec's stdio shutdown, `SIGKILL`,
//! ends them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;
use std::thread;
use std::time::{Duration, Instant};

mod support;

use support::{children_of, group_members, interrupt, spawn, stderr_lines, wait_for_line, wait_status, BIN};

/// A stdio target that runs `command` in a shell that ignores `SIGTERM` and goes on for
/// a minute after it.
fn stubborn(command: &str) -> String {
    format!("stdio:sh -c \"trap '' TERM; {command}; sleep 60\"")
}

/// Waits for `parent`'s one child to lead a process group of at least `members`; its pid.
fn server_group(parent: u32, members: usize) -> u32 {
    let end = Instant::now() + Duration::from_secs(30);
    loop {
        if let [child] = children_of(parent)[..] {
            if group_members(child).len() >= members {
                return child;
            }
        }
        assert!(Instant::now() < end, "the server process group of {parent} never formed");
        thread::sleep(Duration::from_millis(20));
    }
}

/// Waits until process group `group` is empty; if it never is, kills what is left (the
/// group's processes were started by this test) and fails.
fn expect_group_ended(group: u32) {
    let end = Instant::now() + Duration::from_secs(15);
    while !group_members(group).is_empty() {
        if Instant::now() > end {
            let left = group_members(group);
            Command::new("kill").args(["-KILL", "--", &format!("-{group}")]).status().unwrap();
            panic!("processes of the server's group outlived mcpwire: {left:?}");
        }
        thread::sleep(Duration::from_millis(50));
    }
}

/// Ctrl-C while the proxy is still connecting to its server (which never answers): the
/// server is stopped before the proxy exits, not left to a background task that the
/// exit cuts off.
#[test]
fn ctrl_c_while_the_proxy_connects_leaves_no_server() {
    let mut proxy = spawn(&["proxy", "--listen", "127.0.0.1:0", &stubborn("sleep 60")]);
    let group = server_group(proxy.id(), 2);
    interrupt(&proxy);
    assert_eq!(wait_status(&mut proxy, Duration::from_secs(20)), Some(130));
    expect_group_ended(group);
}

/// A second Ctrl-C while `mcpwire call` shuts its server down (after the first cancelled
/// the call) cuts the waits short: the server is killed, not left running.
#[test]
fn a_second_ctrl_c_during_shutdown_leaves_no_server() {
    let target = stubborn(&format!("'{BIN}' serve --example everything"));
    let mut call = spawn(&["call", &target, "slow_compute", "seconds=30"]);
    let lines = stderr_lines(&mut call);
    let mut seen = Vec::new();
    wait_for_line(&lines, "progress", &mut seen);
    let group = server_group(call.id(), 2);
    interrupt(&call);
    // Then the shutdown waits (2 s for the server to exit, 2 s after SIGTERM, both in
    // vain here): the second Ctrl-C lands within them.
    wait_for_line(&lines, "interrupted; cancelled the request", &mut seen);
    interrupt(&call);
    assert_eq!(wait_status(&mut call, Duration::from_secs(20)), Some(130));
    expect_group_ended(group);
}

/// The proxy shuts its upstream connections down all at once, not one after another:
/// each may take the spec's waits (here every one does: its server outlives its stdin
/// and ignores SIGTERM), which one after another grew with the number of connections.
/// Seen from the servers: the second is told to stop (its stdin closes) while the first
/// still runs, not after the first was killed.
#[test]
fn the_proxy_stops_its_servers_all_at_once() {
    let dir = support::Scratch::new("signals");
    // Each server's shell notes, in a file named by its pid, that the server's stdin
    // closed (the server exited on it).
    let target = format!(
        "stdio:sh -c \"trap '' TERM; '{BIN}' serve --example notes; touch '{}'/eof.\\$\\$; sleep 60\"",
        dir.path().display()
    );
    let server = support::start_http(&[
        "proxy",
        "--listen",
        "127.0.0.1:0",
        "--protocol-version",
        "2025-11-25",
        &target,
    ]);
    // A 2025 client that can be asked things calls on a connection of its own.
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"raw","version":"1"}}}"#;
    let session = support::session_id(&support::post(&server.url, &[], init, Some("serverInfo")));
    let headers = [("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    support::post(&server.url, &headers, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, None);
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add_note","arguments":{"title":"a","text":"b"}}}"#;
    assert!(support::post(&server.url, &headers, call, Some(r#""id":2"#)).contains("Added note"));
    let shells = children_of(server.child.id());
    assert_eq!(shells.len(), 2, "two upstream connections: {shells:?}");
    Command::new("kill").args(["-TERM", &server.child.id().to_string()]).status().unwrap();
    let end = Instant::now() + Duration::from_secs(30);
    let eof = |pid: u32| dir.join(format!("eof.{pid}")).exists();
    while !shells.iter().all(|&pid| eof(pid)) {
        assert!(Instant::now() < end, "the servers' stdin never closed");
        thread::sleep(Duration::from_millis(10));
    }
    let running: Vec<bool> = shells.iter().map(|&pid| !support::ended(pid)).collect();
    assert_eq!(running, [true, true], "one server was stopped only after the other had been killed");
    for group in shells {
        expect_group_ended(group);
    }
}
