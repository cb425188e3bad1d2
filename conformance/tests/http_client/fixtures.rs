//! Starting the peer fixture servers and connecting a recording client to them.
//!
//! The Python and TypeScript fixtures take seconds to start (importing the SDK), so each
//! kind runs once per test process, shared by the tests (one MCP session, or none, per
//! test: they do not see each other's state). A test that changes server-wide state
//! (the Python fixture's log level) starts its own.

use std::future::Future;
use std::process::Command;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use mcpwire::client::Client;
use mcpwire::protocol::ProtocolVersion;
use mcpwire::transport::http_client::HttpClientTransport;

use crate::common::callbacks::{recording_client, Seen};
use crate::common::peers::{node, python, workspace_root, ListeningServer};
use crate::common::proxy::Proxy;

/// The most any one test may take, start to end.
pub const TEST_LIMIT: Duration = Duration::from_secs(120);
/// How long a fixture may take to print its port (the Python SDK imports slowly, more so
/// on a loaded machine).
const START_LIMIT: Duration = Duration::from_secs(60);

/// Which SDK serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Peer {
    /// The Python SDK.
    Python,
    /// The TypeScript SDK.
    TypeScript,
}

/// Which era the client asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Probe (2026-07-28 when the server speaks it).
    Auto,
    /// Pinned to 2025-11-25.
    Pinned2025,
}

/// The Python fixture in `mode` (`streamable` or `sse`), freshly started.
pub fn start_python(mode: &str) -> Option<ListeningServer> {
    let python = python()?;
    let mut command = Command::new(python);
    command
        .arg(workspace_root().join("conformance/tests/fixtures/python_http_server.py"))
        .arg(mode)
        .env("PYTHONUNBUFFERED", "1")
        .env("PYTHONDONTWRITEBYTECODE", "1");
    Some(ListeningServer::start(command, START_LIMIT))
}

/// The TypeScript fixture, freshly started.
pub fn start_typescript() -> Option<ListeningServer> {
    let (node, modules) = node()?;
    let mut command = Command::new(node);
    command
        .arg(workspace_root().join("conformance/tests/fixtures/ts_http_server.cjs"))
        .env("NODE_MODULES", modules);
    Some(ListeningServer::start(command, START_LIMIT))
}

/// The shared server of a peer (`Some` unless the peer is not installed). The Python
/// SDK serves Streamable HTTP and the legacy SSE transport from different apps, so it
/// has one server for each; the TypeScript fixture serves both.
pub fn shared(peer: Peer, legacy_sse: bool) -> Option<&'static ListeningServer> {
    static PYTHON: OnceLock<Option<ListeningServer>> = OnceLock::new();
    static PYTHON_SSE: OnceLock<Option<ListeningServer>> = OnceLock::new();
    static TYPESCRIPT: OnceLock<Option<ListeningServer>> = OnceLock::new();
    match (peer, legacy_sse) {
        (Peer::Python, false) => PYTHON.get_or_init(|| start_python("streamable")).as_ref(),
        (Peer::Python, true) => PYTHON_SSE.get_or_init(|| start_python("sse")).as_ref(),
        (Peer::TypeScript, _) => TYPESCRIPT.get_or_init(start_typescript).as_ref(),
    }
}

/// The endpoint path of `case`: `/mcp`, or `/sse` for the legacy transport.
pub fn endpoint_path(case: Case) -> &'static str {
    if case.legacy_sse {
        "/sse"
    } else {
        "/mcp"
    }
}

/// A client and what its callbacks saw.
pub struct Connected {
    /// The client.
    pub client: Client,
    /// What its callbacks saw.
    pub seen: Arc<Seen>,
    /// The recording proxy between them, when the test asked for one.
    pub proxy: Option<Proxy>,
}

/// Connects a recording client to `url` over HTTP.
pub async fn connect(url: &str, mode: Mode) -> Connected {
    let seen = Arc::new(Seen::default());
    let mut builder = recording_client(&seen);
    if mode == Mode::Pinned2025 {
        builder = builder.protocol_version(ProtocolVersion::V2025_11_25);
    }
    let transport = HttpClientTransport::new(url).unwrap();
    let client =
        builder.connect(transport).await.unwrap_or_else(|e| panic!("connecting to {url} failed: {e}"));
    Connected { client, seen, proxy: None }
}

/// Runs `test` with the overall time limit.
pub async fn limited(what: &str, test: impl Future<Output = ()>) {
    tokio::time::timeout(TEST_LIMIT, test).await.unwrap_or_else(|_| panic!("{what}: hung"));
}

/// One peer, era and transport under test.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    /// Which SDK serves.
    pub peer: Peer,
    /// Which era the client asks for.
    pub mode: Mode,
    /// Whether the client is pointed at the legacy HTTP+SSE endpoint.
    pub legacy_sse: bool,
}

/// A client connected to the shared server of `case` (through a recording proxy when
/// `via_proxy`), or `None` when the peer is not installed.
pub async fn open(case: Case, via_proxy: bool) -> Option<Connected> {
    Some(open_on(shared(case.peer, case.legacy_sse)?, case, via_proxy).await)
}

/// [`open`] on a given server rather than the peer's shared one.
pub async fn open_on(server: &ListeningServer, case: Case, via_proxy: bool) -> Connected {
    if !via_proxy {
        return connect(&server.url(endpoint_path(case)), case.mode).await;
    }
    let proxy = Proxy::start(server.addr()).await;
    let mut connected = connect(&proxy.url(endpoint_path(case)), case.mode).await;
    connected.proxy = Some(proxy);
    connected
}

/// Generates, for each check in `checks.rs`, a module with one test per era:
/// `<check>::auto` and `<check>::pinned_2025`, against the peer's shared server.
macro_rules! case_tests {
    ($peer:ident, legacy_sse = $sse:expr; $($check:ident),* $(,)?) => {
        $(crate::fixtures::case_tests!(@one []; $peer, $sse, $check);)*
    };
    (@one [$($attr:meta)?]; $peer:ident, $sse:expr, $check:ident) => {
        mod $check {
            use crate::fixtures::{limited, open, Case, Mode, Peer};
            async fn run(mode: Mode) {
                let case = Case { peer: Peer::$peer, mode, legacy_sse: $sse };
                limited(&format!("{} {case:?}", stringify!($check)), async {
                    // These read what went over the wire, or cut it.
                    let via_proxy = matches!(stringify!($check), "close" | "resumption" | "stale_session");
                    let Some(c) = open(case, via_proxy).await else { return };
                    crate::checks::$check(&c, case).await;
                    c.client.close().await;
                })
                .await;
            }
            #[tokio::test]
            $(#[$attr])?
            async fn auto() {
                run(Mode::Auto).await
            }
            #[tokio::test]
            $(#[$attr])?
            async fn pinned_2025() {
                run(Mode::Pinned2025).await
            }
        }
    };
}
pub(crate) use case_tests;
