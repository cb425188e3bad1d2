//! `mcpwire info` on a 2025 HTTP server tells one that keeps sessions from one that keeps
//! none (it answers `initialize` without an `Mcp-Session-Id`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::time::Duration;

use mcpwire::http::HttpSettings;
use support::*;

/// The everything example served over HTTP by this process with `settings`; its URL. The
/// runtime serves it until dropped.
fn serve_everything_here(settings: HttpSettings) -> (tokio::runtime::Runtime, String) {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let service = mcpwire::http::McpService::with_settings(mcpwire_examples::everything::server(), settings);
    let bound = runtime.block_on(mcpwire::http::serve_with_shutdown(service, "127.0.0.1:0", "/mcp")).unwrap();
    (runtime, format!("http://{}/mcp", bound.local_addr))
}

/// The `Era:` line of `mcpwire info` on `target` in the 2025 era.
fn era_line(target: &str) -> String {
    let info = mcpwire(&["info", "--protocol-version", "2025-11-25", target], Duration::from_secs(60));
    expect_code(&info, 0);
    let out = stdout(&info);
    out.lines().find(|l| l.starts_with("Era:")).unwrap_or_else(|| panic!("no Era line in:\n{out}")).to_owned()
}

#[test]
fn info_says_whether_a_2025_http_server_keeps_sessions() {
    let (_runtime, sessionless) =
        serve_everything_here(HttpSettings { sessionless: true, ..Default::default() });
    let line = era_line(&sessionless);
    assert!(line.ends_with("2025 (stateful: initialize handshake, without sessions)"), "{line}");

    let (_runtime, sessions) = serve_everything_here(HttpSettings::default());
    let line = era_line(&sessions);
    assert!(line.ends_with("2025 (stateful: initialize handshake, sessions)"), "{line}");

    // Over stdio the connection is the session: no header to miss.
    let line = era_line(&everything());
    assert!(line.ends_with("2025 (stateful: initialize handshake, sessions)"), "{line}");
}

/// `mcpwire info --json` on `target` in the 2025 era.
fn info_json(target: &str) -> serde_json::Value {
    let info =
        mcpwire(&["info", "--json", "--protocol-version", "2025-11-25", target], Duration::from_secs(60));
    expect_code(&info, 0);
    serde_json::from_str(&stdout(&info)).unwrap_or_else(|e| panic!("{e}: {}", stdout(&info)))
}

/// The JSON says what the text says: a 2025 HTTP server that issued no `Mcp-Session-Id`
/// is in the stateful era (the handshake) but keeps no sessions.
#[test]
fn info_json_says_whether_a_2025_http_server_keeps_sessions() {
    let (_runtime, sessionless) =
        serve_everything_here(HttpSettings { sessionless: true, ..Default::default() });
    let v = info_json(&sessionless);
    assert_eq!(v["era"], "stateful", "{v}");
    assert_eq!(v["sessions"], false, "{v}");

    let (_runtime, sessions) = serve_everything_here(HttpSettings::default());
    let v = info_json(&sessions);
    assert_eq!(v["era"], "stateful", "{v}");
    assert_eq!(v["sessions"], true, "{v}");

    let v = info_json(&everything());
    assert_eq!(v["sessions"], true, "{v}");
}
