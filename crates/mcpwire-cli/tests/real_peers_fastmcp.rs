//! The CLI and the proxy against the fastmcp fixture server
//! (`tests/peers/python/fastmcp_server.py`, installed by `scripts/install-peers.sh`),
//! whose lists come in pages of two: every page listed, completion of a prompt's and a
//! resource template's arguments, a template read, a prompt's arguments, progress and
//! log levels, in both eras, directly and through the proxy.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::time::Duration;

use support::*;

/// The fixture as a stdio target.
fn fastmcp_server() -> String {
    let script = workspace().join("tests/peers/python/fastmcp_server.py");
    format!("stdio:'{}' '{}'", peer("PYTHON"), script.display())
}

/// `mcpwire --protocol-version VERSION ARGS`, which must succeed: its stdout and stderr.
fn run(version: &str, args: &[&str]) -> (String, String) {
    let o = mcpwire(&[&["--protocol-version", version], args].concat(), Duration::from_secs(90));
    expect_code(&o, 0);
    (stdout(&o), stderr(&o))
}

/// The names in the first column of a listing, after its header.
fn first_column(listing: &str) -> Vec<String> {
    listing.lines().skip(1).filter_map(|l| l.split_whitespace().next()).map(str::to_owned).collect()
}

/// A resource template of the fixture, with a completable variable.
const TEMPLATE: &str = "fixture://city/{name}";

// One test per era and one through the proxy, so the harness runs them side by side
// (each starts fastmcp a dozen times, and its start-up is slow).

#[test]
fn fastmcp_pages_completion_prompts_progress_and_levels_in_the_2025_era() {
    pages_completion_prompts_progress_and_levels("2025-11-25");
}

#[test]
fn fastmcp_pages_completion_prompts_progress_and_levels_in_the_2026_era() {
    pages_completion_prompts_progress_and_levels("2026-07-28");
}

/// The CLI pinned to `version` against the fixture: every page listed, completion, a
/// template read, a prompt's arguments, progress and log levels.
fn pages_completion_prompts_progress_and_levels(version: &str) {
    let fast = fastmcp_server();
    let template = TEMPLATE;
    let tools = first_column(&run(version, &["tools", &fast]).0);
    assert_eq!(tools, ["book_table", "greet", "paint", "tidy", "levels", "count"], "{version}");
    let resources = first_column(&run(version, &["resources", &fast]).0);
    assert_eq!(resources, ["fixture://static/0", "fixture://static/1", "fixture://static/2"], "{version}");
    assert_eq!(first_column(&run(version, &["templates", &fast]).0), [template], "{version}");
    assert_eq!(run(version, &["read", &fast, "fixture://city/Bergen"]).0, "city Bergen\n", "{version}");
    assert_eq!(run(version, &["complete", &fast, template, "name=Os"]).0, "Oslo\nOsaka\n", "{version}");
    assert_eq!(run(version, &["complete", &fast, "prompt:plan", "city=Ot"]).0, "Ottawa\n", "{version}");
    let (prompt, _) = run(version, &["prompt", &fast, "plan", "city=Oslo", "days=2"]);
    assert!(prompt.contains("Plan 2 days in Oslo"), "{version}: {prompt}");
    let (out, err) = run(version, &["call", &fast, "count", "steps=2"]);
    assert_eq!(out, "counted 2\n", "{version}");
    assert!(err.contains("progress: 1/2 (50%) step 1") && err.contains("progress: 2/2 (100%)"), "{err}");
    // The least severe level shown is the one asked for, whatever the era carries it in.
    let (_, err) = run(version, &["call", &fast, "levels", "--log-level", "warning"]);
    let logged: Vec<&str> = err.lines().filter(|l| l.starts_with('[')).collect();
    assert_eq!(logged, ["[warning] at warning", "[error] at error"], "{version}");
    let (_, err) = run(version, &["call", &fast, "levels", "--log-level", "debug"]);
    assert!(err.lines().any(|l| l == "[debug] at debug"), "{version}: {err}");
}

/// Through the proxy, in front of fastmcp spoken to in either era, to clients of either:
/// the pages are followed and completion relayed.
#[test]
fn fastmcp_pages_and_completion_through_the_proxy_in_both_eras() {
    let fast = fastmcp_server();
    let template = TEMPLATE;
    for upstream in ["2025-11-25", "2026-07-28"] {
        let proxy = start_http(&["--protocol-version", upstream, "proxy", "--listen", "127.0.0.1:0", &fast]);
        for version in ["2025-11-25", "2026-07-28"] {
            let tools = first_column(&run(version, &["tools", &proxy.url]).0);
            assert_eq!(tools.len(), 6, "{upstream} upstream, {version}: {tools:?}");
            let completed = run(version, &["complete", &proxy.url, template, "name=Os"]).0;
            assert_eq!(completed, "Oslo\nOsaka\n", "{upstream} upstream, {version}");
        }
    }
}
