//! One server (the Python SDK fixture or our everything-server, over stdio) and a
//! recording client connected to it, in one era; and the `matrix!` macro that runs a
//! check against all four combinations.

use std::ffi::OsString;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcpwire::client::{Client, ClientOptions};
use mcpwire::protocol::logging::LoggingLevel;
use mcpwire::protocol::ProtocolVersion;
use mcpwire::transport::child::ChildProcess;
use serde_json::Value;

use crate::common::callbacks::{first_text, recording_client, Seen};
use crate::common::peers::{python, workspace_root};

/// The most any one test may take, start to end.
pub const TEST_LIMIT: Duration = Duration::from_secs(90);

/// Which server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Server {
    /// The Python SDK fixture (`tests/peers/python/server_fixture.py`).
    Python,
    /// Our `everything-server --stdio`.
    Rust,
}

/// Which era: probed (2026-07-28) or pinned to 2025-11-25.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Probed: lands in 2026-07-28.
    Auto,
    /// Pinned to 2025-11-25.
    Legacy,
}

/// A fresh scratch directory for one server.
fn scratch_dir() -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("mcpwire-client-interop-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("creating a scratch directory");
    dir
}

// ---- one server and its client -------------------------------------------------------

/// A connected client and its server process.
pub struct Fixture {
    /// Which server.
    pub server: Server,
    /// Which era.
    pub mode: Mode,
    /// The client.
    pub client: Client,
    /// What its callbacks saw.
    pub seen: Arc<Seen>,
    /// The server's process id.
    pub pid: u32,
    /// The scratch directory with the server's pid and stderr.
    pub dir: PathBuf,
}

impl Fixture {
    /// Starts the server and connects; `None` when the Python half is skipped.
    pub async fn start(server: Server, mode: Mode) -> Option<Fixture> {
        Fixture::start_with(server, mode, ClientOptions::default()).await
    }

    /// Starts the server and connects with these client options.
    pub async fn start_with(server: Server, mode: Mode, options: ClientOptions) -> Option<Fixture> {
        let program: Vec<OsString> = match server {
            Server::Python => {
                vec![python()?.into(), workspace_root().join("tests/peers/python/server_fixture.py").into()]
            }
            Server::Rust => vec![env!("CARGO_BIN_EXE_everything-server").into(), "--stdio".into()],
        };
        let dir = scratch_dir();
        let process = ChildProcess::new("sh")
            .arg("-c")
            .arg(r#"echo $$ > "$1/pid"; dir=$1; shift; exec "$@" 2>"$dir/stderr""#)
            .arg("sh")
            .arg(&dir)
            .args(program)
            .env("RUST_LOG", "mcpwire=debug")
            .env("PYTHONDONTWRITEBYTECODE", "1");
        let seen = Arc::new(Seen::default());
        let mut builder = recording_client(&seen).options(options);
        if mode == Mode::Legacy {
            builder = builder.protocol_version(ProtocolVersion::V2025_11_25);
        }
        let client = builder.spawn(process).await.unwrap_or_else(|e| {
            let stderr = std::fs::read_to_string(dir.join("stderr")).unwrap_or_default();
            panic!("connecting to the {server:?} server failed: {e}\n--- its stderr:\n{stderr}")
        });
        let pid = std::fs::read_to_string(dir.join("pid")).unwrap().trim().parse().unwrap();
        Some(Fixture { server, mode, client, seen, pid, dir })
    }

    /// The id of the server process running now: the one started last writes it (a
    /// client restarts a 2026 server that crashed); 0 while it is being written.
    pub fn current_pid(&self) -> u32 {
        std::fs::read_to_string(self.dir.join("pid")).ok().and_then(|p| p.trim().parse().ok()).unwrap_or(0)
    }

    /// What the server wrote to stderr.
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(self.dir.join("stderr")).unwrap_or_default()
    }

    /// Whether the client probed (2026).
    pub fn stateless(&self) -> bool {
        self.mode == Mode::Auto
    }

    /// Calls a tool that must succeed, and returns its first text.
    pub async fn text(&self, tool: &str, args: Value) -> String {
        let result = self.client.call_tool(tool, args).await.unwrap_or_else(|e| panic!("{tool}: {e}"));
        assert_ne!(result.is_error, Some(true), "{tool} failed: {result:?}");
        first_text(&result)
    }

    /// The log messages as `(level, logger, data)`.
    pub fn logs(&self) -> Vec<(LoggingLevel, Option<String>, Value)> {
        self.seen.log_entries()
    }

    /// The elicitation messages so far.
    pub fn elicitations(&self) -> Vec<String> {
        self.seen.elicitation_messages()
    }

    /// Closes the client and checks that the server process is gone.
    pub async fn close(self) {
        let started = Instant::now();
        self.client.close().await;
        assert!(started.elapsed() < Duration::from_secs(6), "close took {:?}", started.elapsed());
        assert!(self.client.is_closed());
        for pid in [self.pid, self.current_pid()] {
            assert!(!process_exists(pid), "the server process {pid} outlived close()");
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Whether a process with this id exists.
pub fn process_exists(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// Runs `check` against a fresh server and client, with the overall time limit.
pub async fn run<F, Fut>(server: Server, mode: Mode, check: F)
where
    F: FnOnce(Fixture) -> Fut,
    Fut: Future<Output = ()>,
{
    let test = async {
        let Some(fixture) = Fixture::start(server, mode).await else { return };
        check(fixture).await;
    };
    tokio::time::timeout(TEST_LIMIT, test).await.unwrap_or_else(|_| panic!("{server:?}/{mode:?}: hung"));
}

/// Generates `<check>::{python,rust}_{auto,2025}` tests.
macro_rules! matrix {
    ($($check:ident),* $(,)?) => {$(
        mod $check {
            use crate::fixture::{run, Mode, Server};
            #[tokio::test]
            async fn python_auto() { run(Server::Python, Mode::Auto, super::$check).await }
            #[tokio::test]
            async fn python_2025() { run(Server::Python, Mode::Legacy, super::$check).await }
            #[tokio::test]
            async fn rust_auto() { run(Server::Rust, Mode::Auto, super::$check).await }
            #[tokio::test]
            async fn rust_2025() { run(Server::Rust, Mode::Legacy, super::$check).await }
        }
    )*};
}
pub(crate) use matrix;
