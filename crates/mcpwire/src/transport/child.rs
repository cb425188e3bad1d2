//! The client side of stdio: spawn a server as a child process and talk to it over its
//! stdin and stdout.
//!
//! Shutdown follows the spec: close the child's stdin, wait, send `SIGTERM`, wait, send
//! `SIGKILL` (both waits configurable). On Unix the child runs in its own process group,
//! so the signals reach whatever it spawned, and a terminal's Ctrl-C reaches only us.
//! Other platforms have no `SIGTERM`: there shutdown closes stdin, waits, and kills the
//! child (the `portable-stdio` feature selects that sequence on Unix too, to test it).
//! The child is always reaped (no zombies). When it exits or crashes, the connection closes with a
//! reason naming its exit status and the tail of its stderr, so waiting requests fail with
//! a clear error instead of hanging (a client connected in the 2026 era first starts the
//! server again: see [`ClientOptions::max_restarts`](crate::client::ClientOptions::max_restarts)).
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use std::time::Duration;
//!
//! use mcpwire::client::Client;
//! use mcpwire::transport::child::ChildProcess;
//!
//! let server = ChildProcess::new("npx")
//!     .args(["-y", "@modelcontextprotocol/server-everything"])
//!     .shutdown_timeouts(Duration::from_secs(2), Duration::from_secs(2));
//! let client = Client::builder("my-client", "1.0.0").spawn(server).await?;
//! // Closes the child's stdin, waits, then signals it: no zombie is left behind.
//! client.close().await;
//! # Ok(()) }
//! ```

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::io;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::Command;
use tokio::sync::{mpsc, oneshot, watch};
use tokio_util::sync::CancellationToken;

use super::lines::{read_loop, write_loop, Arrivals, DEFAULT_MAX_LINE_BYTES};
use super::{Connection, TransportEvent, DEFAULT_CHANNEL_CAPACITY};

/// How much of the child's stderr is kept for error messages.
const STDERR_TAIL_BYTES: usize = 4096;

/// The longest piece of one stderr line logged at once.
const STDERR_LINE_BYTES: usize = 8192;

/// How long the child's stdout is still read after the child exited, if another process
/// keeps it open, or after writing to its stdin failed (it closed it, but lives on).
const EXIT_DRAIN: Duration = Duration::from_millis(500);

/// What happens to the child's stderr.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StderrMode {
    /// The child writes to our stderr (the default).
    Inherit,
    /// Kept in memory (the last few KiB) for error messages, and logged at debug level.
    Capture,
    /// Discarded.
    Null,
}

/// A server to spawn, and how. A clone spawns the same command again (a client restarts a
/// 2026 server that crashed with it).
#[derive(Clone, Debug)]
pub struct ChildProcess {
    program: OsString,
    args: Vec<OsString>,
    /// Variables set for the child, on top of what it inherits (nothing, with `env_clear`).
    env: Vec<(OsString, OsString)>,
    env_clear: bool,
    current_dir: Option<PathBuf>,
    stderr: StderrMode,
    close_grace: Duration,
    term_grace: Duration,
    max_line_bytes: usize,
}

impl ChildProcess {
    /// A child running `program` (looked up on `PATH`).
    pub fn new(program: impl AsRef<OsStr>) -> Self {
        ChildProcess {
            program: program.as_ref().to_owned(),
            args: Vec::new(),
            env: Vec::new(),
            env_clear: false,
            current_dir: None,
            stderr: StderrMode::Inherit,
            close_grace: Duration::from_secs(2),
            term_grace: Duration::from_secs(2),
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
        }
    }

    /// Adds an argument.
    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.args.push(arg.as_ref().to_owned());
        self
    }

    /// Adds arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args.extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    /// Sets an environment variable.
    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        self.env.push((key.as_ref().to_owned(), value.as_ref().to_owned()));
        self
    }

    /// Clears the environment the child inherits.
    pub fn env_clear(mut self) -> Self {
        // As `Command::env_clear`: what was set before is cleared too.
        self.env.clear();
        self.env_clear = true;
        self
    }

    /// Sets the working directory.
    pub fn current_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.current_dir = Some(dir.as_ref().to_owned());
        self
    }

    /// What to do with the child's stderr (default: inherit).
    pub fn stderr(mut self, mode: StderrMode) -> Self {
        self.stderr = mode;
        self
    }

    /// How long shutdown waits after closing stdin before `SIGTERM`, and after `SIGTERM`
    /// before `SIGKILL` (defaults: 2 s each). Where there is no `SIGTERM` (not Unix, or
    /// the `portable-stdio` feature), the child is killed after the first wait and the
    /// second is unused.
    pub fn shutdown_timeouts(mut self, after_close: Duration, after_term: Duration) -> Self {
        self.close_grace = after_close;
        self.term_grace = after_term;
        self
    }

    /// The longest line accepted from the child (default 16 MiB).
    pub fn max_line_bytes(mut self, bytes: usize) -> Self {
        self.max_line_bytes = bytes.max(1);
        self
    }

    /// Spawns the child and starts its transport tasks. Must be called in a tokio runtime.
    pub fn spawn(self) -> io::Result<(Connection, ChildHandle)> {
        self.start()
    }

    /// The command this describes.
    fn command(&self) -> Command {
        let mut command = Command::new(&self.program);
        command.args(&self.args);
        if self.env_clear {
            command.env_clear();
        }
        command.envs(self.env.iter().map(|(k, v)| (k, v)));
        if let Some(dir) = &self.current_dir {
            command.current_dir(dir);
        }
        command
    }

    /// [`ChildProcess::spawn`], leaving this description to spawn again.
    pub(crate) fn start(&self) -> io::Result<(Connection, ChildHandle)> {
        let mut command = self.command();
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(match self.stderr {
                StderrMode::Inherit => Stdio::inherit(),
                StderrMode::Capture => Stdio::piped(),
                StderrMode::Null => Stdio::null(),
            })
            .kill_on_drop(true);
        #[cfg(all(unix, not(feature = "portable-stdio")))]
        command.process_group(0);
        let mut child =
            command.spawn().map_err(|e| spawn_error(&self.program, self.current_dir.as_deref(), e))?;
        let pid = child.id();
        let (stdin, stdout) = match (child.stdin.take(), child.stdout.take()) {
            (Some(i), Some(o)) => (i, o),
            _ => return Err(io::Error::other("child stdio was not captured")),
        };
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        // Cancelled once the captured stderr has ended (at once when it is not captured).
        let stderr_done = CancellationToken::new();
        match child.stderr.take() {
            Some(stderr) => {
                let (tail, done) = (stderr_tail.clone(), stderr_done.clone());
                tokio::spawn(async move {
                    capture_stderr(stderr, tail).await;
                    done.cancel();
                });
            }
            None => stderr_done.cancel(),
        }

        // The monitor owns the child: it reaps it whatever else happens, and kills it
        // when shutdown asks (`wait` is cancel-safe). Once it has reaped the child, it
        // ends what the child left in its group, and then says so.
        let (status_tx, status_rx) = watch::channel(None);
        let kill = CancellationToken::new();
        let monitor_kill = kill.clone();
        let group_ended = CancellationToken::new();
        let monitor_group_ended = group_ended.clone();
        #[cfg_attr(any(not(unix), feature = "portable-stdio"), allow(unused_variables))]
        let term_grace = self.term_grace;
        tokio::spawn(async move {
            let _group_ended = monitor_group_ended.drop_guard();
            let mut unreaped = Unreaped(pid);
            let status = tokio::select! {
                status = child.wait() => status,
                () = monitor_kill.cancelled() => {
                    if let Err(e) = child.start_kill() {
                        tracing::debug!("killing the server process failed: {e}");
                    }
                    child.wait().await
                }
            };
            let status = status.ok();
            if status.is_some() {
                unreaped.0 = None;
            }
            let _ = status_tx.send(status);
            // Right after the reaping, while whatever the child left in its group still
            // holds the group's id: later, once they are gone, the id may name another
            // process's group.
            #[cfg(all(unix, not(feature = "portable-stdio")))]
            if let (Some(group), Some(_)) = (pid, status) {
                end_leftovers(group, term_grace).await;
            }
        });

        let (in_tx, in_rx) = mpsc::channel(DEFAULT_CHANNEL_CAPACITY);
        // Held by the writer until it is done (see `IoTransport`): the dispatcher waits for it.
        let writing = in_tx.clone();
        let (out_tx, mut out_rx) = mpsc::channel(DEFAULT_CHANNEL_CAPACITY);
        let max = self.max_line_bytes;
        let reader_status = status_rx.clone();
        let reader_tail = stderr_tail.clone();
        let arrivals = Arrivals::new();
        let read_arrivals = arrivals.clone();
        // Told why, if writing to the child fails: it closed its stdin and nothing more
        // can reach it, so the connection ends (its calls failing with the reason at once,
        // not at their timeouts) once what it already wrote is read.
        let (write_failed, write_failure) = oneshot::channel::<String>();
        tokio::spawn(async move {
            let stdout = BufReader::with_capacity(64 * 1024, stdout);
            // The child's exit ends the connection even while its stdout stays open (a
            // process it started holds it): what the child wrote before exiting is read
            // within the drain time, and nothing after it can be an answer.
            let mut exit = reader_status.clone();
            let exited = async move {
                if exit.wait_for(Option::is_some).await.is_err() {
                    std::future::pending::<()>().await;
                }
                tokio::time::sleep(EXIT_DRAIN).await;
            };
            let unwritable = async move {
                let Ok(failure) = write_failure.await else {
                    // The writer finished without failing: reading goes on to the end.
                    return std::future::pending().await;
                };
                tokio::time::sleep(EXIT_DRAIN).await;
                failure
            };
            let failure = tokio::select! {
                read = read_loop(stdout, max, &in_tx, &read_arrivals) => {
                    read.err().map(|e| format!("reading from the server process failed: {e}"))
                }
                () = exited => None,
                failure = unwritable => Some(failure),
            };
            let reason = exit_reason(failure, reader_status, &reader_tail, stderr_done).await;
            let _ = in_tx.send(TransportEvent::closed(Some(reason))).await;
        });
        let close_stdin = CancellationToken::new();
        let writer_close = close_stdin.clone();
        let write_grace = self.close_grace;
        tokio::spawn(async move {
            let _writing = writing;
            let mut stdin = stdin;
            // Shutdown does not drop the writer, which could lose messages it has taken:
            // it writes what is already queued (the last answers, a cancel) and then
            // stdin closes. A child that has stopped reading gets the close grace for
            // that; then its stdin is closed anyway.
            let write = write_loop(&mut stdin, &mut out_rx, &arrivals, writer_close.cancelled());
            let deadline = async {
                writer_close.cancelled().await;
                tokio::time::sleep(write_grace).await;
            };
            tokio::select! {
                result = write => {
                    if let Err(e) = result {
                        tracing::debug!("writing to the child failed: {e}");
                        let _ = write_failed.send(format!("writing to the server process failed: {e}"));
                    }
                }
                () = deadline => tracing::debug!("the child did not read what was left to write before its stdin closed"),
            }
            let _ = stdin.shutdown().await;
        });

        let handle = ChildHandle {
            pid,
            status: status_rx,
            close_stdin,
            kill,
            group_ended,
            close_grace: self.close_grace,
            term_grace: self.term_grace,
            stderr_tail,
            on_drop: OnDrop::ShutDown,
        };
        Ok((Connection { incoming: in_rx, outgoing: out_tx }, handle))
    }
}

/// Says what a failed spawn of `program` (in `dir`, if given) means. The OS error alone
/// ("No such file or directory") names neither the program nor `PATH`, and says the same
/// of a working directory that is not there and of a script whose interpreter is missing.
fn spawn_error(program: &OsStr, dir: Option<&Path>, e: io::Error) -> io::Error {
    let why = match e.kind() {
        io::ErrorKind::NotFound => match dir {
            Some(dir) if !dir.is_dir() => {
                format!("cannot run {program:?}: its working directory {dir:?} does not exist")
            }
            // A path to a file that is there (a relative one is not looked for, since where
            // the child resolves it, with a working directory of its own, varies by platform).
            _ if Path::new(program).components().nth(1).is_some()
                && (dir.is_none() || Path::new(program).is_absolute())
                && Path::new(program).is_file() =>
            {
                format!(
                    "cannot run {program:?}: the file is there, but what runs it (the interpreter on its \
                     #! line, or its dynamic loader) was not found"
                )
            }
            _ => format!("{program:?} not found (give its path, or put it on PATH)"),
        },
        _ => format!("cannot run {program:?}: {e}"),
    };
    io::Error::new(e.kind(), why)
}

/// The pid of a child that its monitor has not reaped yet: if the monitor is dropped so
/// (its runtime shut down by a program that exits without waiting for the server's
/// shutdown: a second Ctrl-C, a connect given up), the child's whole process group is
/// killed, so that nothing it started outlives the program either (tokio's
/// `kill_on_drop` reaches the child alone). An unreaped child's id, which leads its
/// group, cannot belong to another process.
#[cfg_attr(any(not(unix), feature = "portable-stdio"), allow(dead_code))]
struct Unreaped(Option<u32>);

impl Drop for Unreaped {
    fn drop(&mut self) {
        #[cfg(all(unix, not(feature = "portable-stdio")))]
        if let Some(pid) = self.0.and_then(|p| i32::try_from(p).ok()) {
            let group = nix::unistd::Pid::from_raw(pid);
            let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
        }
    }
}

/// Ends what is left of the process group `group` after its leader, the child, was
/// reaped just now: `SIGTERM`, and `SIGKILL` if anything is still there after
/// `term_grace`. The group's id cannot be reused while any process is in it, and it is
/// given up once empty, so only its own members are signalled.
#[cfg(all(unix, not(feature = "portable-stdio")))]
async fn end_leftovers(group: u32, term_grace: Duration) {
    use nix::sys::signal::{killpg, Signal};
    let Ok(group) = i32::try_from(group).map(nix::unistd::Pid::from_raw) else { return };
    let alive = || killpg(group, None).is_ok();
    if !alive() {
        return;
    }
    let _ = killpg(group, Signal::SIGTERM);
    let deadline = tokio::time::Instant::now() + term_grace;
    while alive() && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    if alive() {
        tracing::debug!("processes of the server's group outlived its SIGTERM: killing them");
        let _ = killpg(group, Signal::SIGKILL);
    }
}

/// Waits briefly for the exit status after the child's stdout ended, and describes it
/// (`failure`: why reading ended, if not at the end of stdout or the child's exit).
/// A child that exited also gets a moment for the last of its stderr to be read, so that
/// the tail holds what it said before it died (its error, usually).
async fn exit_reason(
    failure: Option<String>,
    mut status: watch::Receiver<Option<ExitStatus>>,
    tail: &Mutex<VecDeque<u8>>,
    stderr_done: CancellationToken,
) -> String {
    let exited = tokio::time::timeout(Duration::from_millis(500), status.wait_for(Option::is_some)).await;
    let exited = exited.ok().and_then(|s| s.ok().and_then(|s| *s));
    if exited.is_some() {
        let _ = tokio::time::timeout(Duration::from_millis(200), stderr_done.cancelled()).await;
    }
    let mut reason = match (exited, failure) {
        (Some(status), _) => format!("the server process exited ({status})"),
        (None, Some(failure)) => failure,
        (None, None) => "the server process closed its stdout".to_owned(),
    };
    let tail = stderr_tail_string(tail);
    if !tail.is_empty() {
        reason.push_str("; its stderr ended with: ");
        reason.push_str(&tail);
    }
    reason
}

/// Reads the child's stderr to its end: each line is logged at debug level, and the last
/// [`STDERR_TAIL_BYTES`] are kept for error messages. Memory stays bounded whatever the
/// child writes: a line that never ends (a progress bar redrawn with `\r`, say) is
/// logged in pieces of [`STDERR_LINE_BYTES`] rather than held whole.
async fn capture_stderr(stderr: tokio::process::ChildStderr, tail: Arc<Mutex<VecDeque<u8>>>) {
    read_stderr(stderr, &tail, log_stderr_line).await;
}

/// [`capture_stderr`]'s loop, each line (or piece of one) handed to `log`.
async fn read_stderr(
    stderr: impl tokio::io::AsyncRead + Unpin,
    tail: &Mutex<VecDeque<u8>>,
    mut log: impl FnMut(&[u8]),
) {
    let mut reader = BufReader::new(stderr);
    let mut line = Vec::new();
    loop {
        let chunk = match reader.fill_buf().await {
            Ok([]) | Err(_) => break,
            Ok(chunk) => chunk,
        };
        // Up to the end of the line, or as much as the piece has room for: what is left
        // is read into the next piece.
        let line_end = memchr::memchr(b'\n', chunk).map_or(chunk.len(), |i| i + 1);
        let part = &chunk[..line_end.min(STDERR_LINE_BYTES - line.len())];
        let ends_line = part.last() == Some(&b'\n');
        if let Ok(mut t) = tail.lock() {
            t.extend(&part[part.len().saturating_sub(STDERR_TAIL_BYTES)..]);
            let excess = t.len().saturating_sub(STDERR_TAIL_BYTES);
            t.drain(..excess);
        }
        line.extend_from_slice(part);
        let read = part.len();
        reader.consume(read);
        if ends_line || line.len() == STDERR_LINE_BYTES {
            log(&line);
            line.clear();
        }
    }
    if !line.is_empty() {
        log(&line);
    }
}

/// Logs one line (or one piece of a long line) of the child's stderr.
fn log_stderr_line(line: &[u8]) {
    tracing::debug!(target: "mcpwire::child_stderr", "{}", String::from_utf8_lossy(line).trim_end());
}

fn stderr_tail_string(tail: &Mutex<VecDeque<u8>>) -> String {
    let bytes: Vec<u8> = tail.lock().map(|t| t.iter().copied().collect()).unwrap_or_default();
    String::from_utf8_lossy(&bytes).trim().to_owned()
}

/// Controls a spawned child: shut it down, or learn how it ended.
///
/// The handle owns the child's life: keep it for as long as the connection is used.
/// Dropped without [`ChildHandle::shutdown`], it does not leave the child running (one
/// that ignores its stdin closing would otherwise run on for ever, with nobody to stop
/// it): in a tokio runtime, the same shutdown runs in the background (stdin closed, then
/// `SIGTERM`, then `SIGKILL`, with the configured waits); outside one, the child's
/// process group is killed at once (the child alone, where there is no `SIGKILL`). Either
/// way the connection then ends. A child that has already exited by itself is left as it
/// is: what it started in its group was ended when it exited.
pub struct ChildHandle {
    pid: Option<u32>,
    status: watch::Receiver<Option<ExitStatus>>,
    close_stdin: CancellationToken,
    /// Tells the monitor to kill the child (the process alone, not its group).
    kill: CancellationToken,
    /// Cancelled once the monitor has ended what the child left in its process group
    /// (or has stopped without reaping it).
    group_ended: CancellationToken,
    close_grace: Duration,
    /// Unused where there is no `SIGTERM`.
    #[cfg_attr(any(not(unix), feature = "portable-stdio"), allow(dead_code))]
    term_grace: Duration,
    stderr_tail: Arc<Mutex<VecDeque<u8>>>,
    on_drop: OnDrop,
}

/// What dropping a [`ChildHandle`] does to its child.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OnDrop {
    /// Shut it down (not done yet).
    ShutDown,
    /// Kill it: a shutdown was under way, and whoever waited for it gave up (or its
    /// runtime went away).
    Kill,
    /// Nothing: the shutdown is done.
    Nothing,
}

impl ChildHandle {
    /// The child's process id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// The exit status, if the child has exited.
    pub fn try_status(&self) -> Option<ExitStatus> {
        *self.status.borrow()
    }

    /// The last few KiB of the child's stderr (with [`StderrMode::Capture`]).
    pub fn stderr_tail(&self) -> String {
        stderr_tail_string(&self.stderr_tail)
    }

    /// Waits for the child to exit by itself.
    pub async fn wait(&mut self) -> Option<ExitStatus> {
        self.status.wait_for(Option::is_some).await.ok().and_then(|s| *s)
    }

    /// Shuts the child down the way the spec describes: close its stdin (once what is
    /// already queued for it is written, for at most the first wait) and wait; then, on
    /// Unix, `SIGTERM` its process group and wait, then `SIGKILL` it; elsewhere, kill the
    /// child. Returns the exit status.
    ///
    /// Processes the child started in its group that are still there once it has exited
    /// (they ignored its stdin closing, or held on after it) get the same end, as soon as
    /// the child is reaped: `SIGTERM`, then `SIGKILL` after the same wait, so none
    /// outlives the client; this returns once that is done. A child that had exited
    /// before is signalled nothing: its group was ended at its exit, and its id may name
    /// another process's group by now.
    pub async fn shutdown(mut self) -> Option<ExitStatus> {
        self.on_drop = OnDrop::Kill;
        let status = self.stop().await;
        self.group_ended.cancelled().await;
        self.on_drop = OnDrop::Nothing;
        status
    }

    /// Kills the child at once, without waiting: its process group where there is
    /// `SIGKILL`, and the child itself through its monitor.
    fn kill_now(&self) {
        self.close_stdin.cancel();
        #[cfg(all(unix, not(feature = "portable-stdio")))]
        self.signal(nix::sys::signal::Signal::SIGKILL);
        self.kill.cancel();
    }

    /// Closes stdin, then signals the child until it has exited.
    async fn stop(&mut self) -> Option<ExitStatus> {
        self.close_stdin.cancel();
        if let Ok(status) = tokio::time::timeout(self.close_grace, self.wait()).await {
            return status;
        }
        #[cfg(all(unix, not(feature = "portable-stdio")))]
        {
            self.signal(nix::sys::signal::Signal::SIGTERM);
            if let Ok(status) = tokio::time::timeout(self.term_grace, self.wait()).await {
                return status;
            }
            self.signal(nix::sys::signal::Signal::SIGKILL);
        }
        // The child itself, should signalling its group have failed.
        self.kill.cancel();
        self.wait().await
    }

    /// Sends `signal` to the child's process group (the child leads it), unless the child
    /// is already reaped (its pid may then belong to someone else).
    #[cfg(all(unix, not(feature = "portable-stdio")))]
    fn signal(&self, signal: nix::sys::signal::Signal) {
        let Some(pid) = self.pid.and_then(|p| i32::try_from(p).ok()) else { return };
        if self.try_status().is_some() {
            return;
        }
        if let Err(e) = nix::sys::signal::killpg(nix::unistd::Pid::from_raw(pid), signal) {
            tracing::debug!("signalling the server process group failed: {e}");
        }
    }
}

/// A child whose handle is dropped without [`ChildHandle::shutdown`] is shut down in the
/// background, or killed where that cannot be (see [`ChildHandle`]).
impl Drop for ChildHandle {
    fn drop(&mut self) {
        match self.on_drop {
            OnDrop::Nothing => {}
            OnDrop::Kill => self.kill_now(),
            // A child that exited by itself, maybe long ago, is left alone: its group's
            // id may since name another process's group.
            OnDrop::ShutDown if self.try_status().is_some() => {}
            OnDrop::ShutDown => match tokio::runtime::Handle::try_current() {
                Ok(runtime) => {
                    // A handle of its own for the background shutdown: dropped before it
                    // is done (its runtime shutting down), that one kills the child.
                    let handle = ChildHandle {
                        pid: self.pid,
                        status: self.status.clone(),
                        close_stdin: self.close_stdin.clone(),
                        kill: self.kill.clone(),
                        group_ended: self.group_ended.clone(),
                        close_grace: self.close_grace,
                        term_grace: self.term_grace,
                        stderr_tail: self.stderr_tail.clone(),
                        on_drop: OnDrop::Kill,
                    };
                    drop(runtime.spawn(handle.shutdown()));
                }
                Err(_) => self.kill_now(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// A line longer than a piece is logged in pieces, every byte of it, whatever the
    /// size of the reads it arrives in; the tail keeps its last bytes.
    #[tokio::test]
    async fn a_long_stderr_line_is_logged_in_pieces_without_a_byte_lost() {
        let line: Vec<u8> = (0..3 * STDERR_LINE_BYTES + 100).map(|i| b'a' + (i % 26) as u8).collect();
        let mut input = b"short\n".to_vec();
        input.extend_from_slice(&line);
        input.extend_from_slice(b"\nlast");
        let tail = Mutex::new(VecDeque::new());
        let mut pieces: Vec<Vec<u8>> = Vec::new();
        read_stderr(&input[..], &tail, |piece| pieces.push(piece.to_vec())).await;
        assert!(pieces.iter().all(|p| p.len() <= STDERR_LINE_BYTES));
        let logged = pieces.concat();
        assert!(logged == input, "{} of {} bytes logged, in order", logged.len(), input.len());
        assert_eq!(pieces.first().map(Vec::as_slice), Some(&b"short\n"[..]));
        assert_eq!(pieces.last().map(Vec::as_slice), Some(&b"last"[..]));
        let kept: Vec<u8> = tail.lock().unwrap().iter().copied().collect();
        assert!(kept == input[input.len() - STDERR_TAIL_BYTES..], "the tail is not the last bytes");
    }
}
