//! The `mcpwire` binary against hostile servers: what a server sends must not reach the
//! user's terminal as control characters (escape sequences could retitle the terminal,
//! clear it or hide what it shows), whichever path prints it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

mod support;

use support::{expect_code, stderr, stdout};

/// The target of `tests/fixtures/fake_server.py` in `mode`.
fn fake_server(mode: &str) -> String {
    format!("stdio:python3 {}/tests/fixtures/fake_server.py {mode}", env!("CARGO_MANIFEST_DIR"))
}

/// Asserts that `bytes` hold no control character other than newline and tab (C0, DEL,
/// and C1 as UTF-8).
fn assert_no_controls(what: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let found: Vec<char> = text.chars().filter(|c| c.is_control() && *c != '\n' && *c != '\t').collect();
    assert!(found.is_empty(), "{what} holds control characters {found:?}:\n{text}");
}

/// What the SDK logs about a server (at the default `warn` level, on stderr) quotes it:
/// a 2025 server's error without an id, a 2026 server's request (dropped) whose method
/// holds escape sequences. The log shows them as text.
#[test]
fn the_sdks_log_lines_show_a_servers_escape_sequences_as_text() {
    for (mode, quoted) in [("escapes", "error without an id"), ("escapes-2026", "dropped a request")] {
        let o = support::mcpwire(&["tools", &fake_server(mode)], Duration::from_secs(60));
        expect_code(&o, 0);
        let err = stderr(&o);
        assert!(err.contains(quoted) && err.contains("\\u{1b}]0;PWNED\\u{7}"), "{mode}: {err}");
        assert_no_controls(mode, &o.stderr);
        assert!(stdout(&o).contains('t'), "{mode}: {}", stdout(&o));
    }
}

/// A failure that quotes the server (here a 1 MB cursor its pages keep coming back to) is
/// one bounded line on stderr, saying how much was left out, not megabytes.
#[test]
fn a_failure_quoting_the_server_is_cut_to_a_bounded_line() {
    let o = support::mcpwire(&["tools", &fake_server("huge-cursor")], Duration::from_secs(60));
    expect_code(&o, 2);
    let err = stderr(&o);
    assert!(
        err.contains("go round in a circle") && err.contains("more characters"),
        "{}",
        &err[..err.len().min(500)]
    );
    assert!(o.stderr.len() < 10_000, "{} bytes on stderr", o.stderr.len());
}

/// A plain call whose progress message reads "task forged: working" does not make
/// `call` say that the server runs it as a task: that note comes from a task result
/// only. The message itself is shown as the progress it is.
#[test]
fn a_progress_message_naming_a_task_does_not_fake_a_task() {
    let o =
        support::mcpwire(&["call", &fake_server("hostile"), "t", "how=fake-task"], Duration::from_secs(60));
    expect_code(&o, 0);
    let err = stderr(&o);
    assert!(err.contains("task forged: working"), "the progress was shown: {err}");
    assert!(!err.contains("runs this call as task"), "a progress message faked a task: {err}");
    assert_eq!(stdout(&o).trim(), "done");
}

/// Listing tools compiles none of their output schemas: a schema is compiled when a
/// result of its tool is first checked. 200 tools whose 8 KB schemas each compile to
/// some 19,000 subschemas (a validator copies each `$ref`'s subschema where it is used)
/// made `mcpwire tools` take 2.4 GB for a 1.6 MB answer; their listing now takes what it
/// weighs. (The peak memory of the children this test process waited for: the other
/// tests here run servers and listings of a few megabytes.)
#[test]
fn a_listing_of_heavy_output_schemas_compiles_none_of_them() {
    let o = support::mcpwire(&["tools", &fake_server("heavy-schemas")], Duration::from_secs(120));
    expect_code(&o, 0);
    assert!(stdout(&o).contains("t199"), "{}", stdout(&o));
    let usage = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN).unwrap();
    let peak_mib = usage.max_rss() / 1024;
    assert!(peak_mib < 400, "a child of this test took {peak_mib} MiB");
}
