//! What the `mcpwire` binary says when authorization is what stands in the way: `login`
//! against a server that asks for none, a server whose `401` no login can satisfy, a
//! token the server refuses, and a browser login nobody completes. The servers are raw
//! HTTP on loopback; each run has a configuration directory of its own.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use support::{expect_code, start_http, stderr, Scratch};

const UNAUTHORIZED: &[u8] =
    b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer\r\ncontent-length: 0\r\nconnection: close\r\n\r\n";
const NOT_FOUND: &[u8] = b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n";

/// A raw HTTP server on loopback answering each connection with `reply(request head)`;
/// its MCP endpoint's URL.
fn raw_server(reply: fn(&str) -> &'static [u8]) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut head = [0u8; 8192];
            let n = stream.read(&mut head).unwrap_or(0);
            let _ = stream.write_all(reply(&String::from_utf8_lossy(&head[..n])));
        }
    });
    url
}

/// A configuration directory of its own for one test (`name`), empty; removed when
/// dropped.
fn config_dir(name: &str) -> Scratch {
    Scratch::new(name)
}

/// Runs `mcpwire ARGS` with its configuration (saved logins) in `config`, stdin closed,
/// and no desktop URL opener to start.
fn mcpwire_in(config: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpwire"))
        .args(args)
        .env("XDG_CONFIG_HOME", config)
        .env("HOME", config)
        .env("PATH", "/nonexistent")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn login_needs_a_server_that_asks_for_authorization() {
    let server = start_http(&["serve", "--example", "everything", "--http", "127.0.0.1:0"]);
    let config = config_dir("login");
    let output = mcpwire_in(config.path(), &["login", &server.url, "--timeout", "5"]);
    expect_code(&output, 2);
    let err = stderr(&output);
    assert!(err.contains("login to") && err.contains("does not ask for authorization"), "{err}");
    assert!(err.contains("hint: this server needs no login: use it as it is"), "{err}");
    assert!(!config.join("mcpwire/auth.json").exists(), "nothing to save, nothing saved");
}

/// A server that answers everything with a bare `401` (no metadata, no registration): the
/// error says that authorization is what failed and how to give it, at once.
#[test]
fn a_server_that_wants_authorization_it_cannot_get_says_so() {
    let url = raw_server(|_| UNAUTHORIZED);
    let config = config_dir("401");
    let output = mcpwire_in(config.path(), &["tools", &url, "--timeout", "10"]);
    let err = stderr(&output);
    assert!(!output.status.success(), "{err}");
    assert!(err.contains("requires authorization, which failed"), "{err}");
    assert!(!err.contains("authorization failed: authorization failed"), "{err}");
    assert!(err.contains(&format!("mcpwire login {url}")) && err.contains("--bearer"), "{err}");
    // With a token of its own that the server refuses: said so, not blamed on the URL.
    let output =
        mcpwire_in(config.path(), &["tools", &url, "--timeout", "10", "--bearer", "not-a-good-token"]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.contains(&format!("{url} refused access: HTTP 401")), "{err}");
    assert!(err.contains("check the token given with --bearer"), "{err}");
}

/// A server whose `401` leads to a browser login (it registers clients at the default
/// endpoints of a server without metadata): a login nobody completes ends at --timeout
/// with an error that says the login is what did not finish, not the handshake.
#[test]
fn a_login_nobody_completes_is_named_when_the_time_runs_out() {
    let url = raw_server(|head| {
        if head.starts_with("POST /register") {
            b"HTTP/1.1 201 Created\r\ncontent-type: application/json\r\ncontent-length: 19\r\nconnection: close\r\n\r\n{\"client_id\":\"c-1\"}"
        } else if head.starts_with("POST /mcp") {
            UNAUTHORIZED
        } else {
            NOT_FOUND
        }
    });
    let config = config_dir("login-wait");
    let started = Instant::now();
    let output = mcpwire_in(config.path(), &["tools", &url, "--timeout", "2"]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(started.elapsed() < Duration::from_secs(30), "took {:?}", started.elapsed());
    assert!(err.contains("Open this URL in a browser"), "{err}");
    assert!(err.contains(&format!("the browser login for {url} did not finish within")), "{err}");
    assert!(err.contains("mcpwire login URL"), "{err}");
}

/// `login` given something that is not a URL, or a URL where nothing listens: each is
/// named as such in one line, not as the HTTP library's words.
#[test]
fn login_to_no_url_or_to_nothing_listening_is_named() {
    let config = config_dir("login-slips");
    let output = mcpwire_in(config.path(), &["login", "notaurl", "--timeout", "5"]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.contains("notaurl") && err.contains("http(s)://"), "{err}");
    assert!(!err.contains("UserAbsoluteUriRequired"), "{err}");
    // Port 9 (discard) on loopback: nothing listens there.
    let url = "http://127.0.0.1:9/mcp";
    let output = mcpwire_in(config.path(), &["login", url, "--timeout", "5"]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("login to {url} failed: cannot reach the server: connection refused")),
        "{err}"
    );
    assert!(err.contains("hint: is the server running and listening there?"), "{err}");
    assert!(!err.contains("os error"), "{err}");
}
