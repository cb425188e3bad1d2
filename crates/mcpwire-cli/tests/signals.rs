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
