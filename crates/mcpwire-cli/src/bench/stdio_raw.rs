//! The raw stdio driver: hand-built JSON-RPC lines on the child's pipes, with blocking
//! reads and writes on one thread (no runtime, one syscall per batch).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use super::config::{BenchConfig, Protocol, Workload};
use super::progress::CallCounter;
use super::report::{BenchError, Outcome, StartupResult};
use super::stats::Samples;
use super::sys;
use super::wire::{self, Answer, EchoCall};

/// A spawned server with a watchdog that kills it when the run takes too long.
pub(crate) struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    pid: u32,
    done: Arc<AtomicBool>,
    line: Vec<u8>,
}

impl Server {
    /// `stderr`: the server's stderr goes to this process's, else nowhere.
    pub(crate) fn spawn(command: &[String], timeout: Duration, stderr: bool) -> Result<Server, BenchError> {
        let (program, args) =
            command.split_first().ok_or_else(|| BenchError::Unsupported("empty stdio command".into()))?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if stderr { Stdio::inherit() } else { Stdio::null() })
            .spawn()?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().ok_or_else(|| BenchError::Protocol("no stdout pipe".into()))?;
        let pid = child.id();
        let done = Arc::new(AtomicBool::new(false));
        watchdog(pid, timeout, done.clone());
        Ok(Server {
            child,
            stdin,
            stdout: BufReader::with_capacity(64 * 1024, stdout),
            pid,
            done,
            line: Vec::with_capacity(4096),
        })
    }

    pub(crate) fn pid(&self) -> u32 {
        self.pid
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), BenchError> {
        let stdin = self.stdin.as_mut().ok_or_else(|| BenchError::Protocol("stdin closed".into()))?;
        stdin.write_all(bytes)?;
        Ok(())
    }

    /// Reads the next line; an error at end of stream.
    fn read_line(&mut self) -> Result<&[u8], BenchError> {
        self.line.clear();
        let n = self.stdout.read_until(b'\n', &mut self.line)?;
        if n == 0 {
            return Err(BenchError::Protocol("the server closed its stdout".into()));
        }
        Ok(&self.line)
    }

    /// Reads lines until a response arrives (skipping notifications and server requests).
    fn read_answer(&mut self) -> Result<Answer, BenchError> {
        loop {
            match wire::answer(self.read_line()?) {
                Answer::Other => continue,
                a => return Ok(a),
            }
        }
    }

    /// Whether a complete line is already buffered (so reading it needs no syscall).
    fn line_buffered(&self) -> bool {
        self.stdout.buffer().contains(&b'\n')
    }

    /// The 2025 handshake; nothing for 2026.
    pub(crate) fn handshake(&mut self, protocol: Protocol) -> Result<(), BenchError> {
        if protocol == Protocol::V2025 {
            let mut msg = wire::initialize().into_bytes();
            msg.push(b'\n');
            self.write(&msg)?;
            match self.read_answer()? {
                Answer::Ok(0) => {}
                other => return Err(BenchError::Protocol(format!("initialize failed: {other:?}"))),
            }
            self.write(format!("{}\n", wire::INITIALIZED).as_bytes())?;
        }
        Ok(())
    }

    /// One call, checked in full (the echo must come back); `Some` note when the answer is
    /// not of the call's era ([`EchoCall::era_note`]).
    fn checked_call(&mut self, call: &EchoCall, id: u64, text: &str) -> Result<Option<String>, BenchError> {
        let mut out = Vec::with_capacity(call.len(id) + 1);
        call.write(id, &mut out);
        out.push(b'\n');
        self.write(&out)?;
        loop {
            let line = self.read_line()?;
            if let Answer::Ok(got) = wire::answer(line) {
                if got == id {
                    if call.is_echo(id) {
                        call.check(line, text).map_err(BenchError::Protocol)?;
                    }
                    return Ok(call.era_note(line));
                }
            } else if let Answer::Err(_, e) = wire::answer(line) {
                return Err(BenchError::Protocol(format!("the {} call failed: {e}", call.method(id))));
            }
        }
    }

    /// `n` sequential calls from id `first`; each answered one is counted in `counter`.
    fn sequential(
        &mut self,
        call: &EchoCall,
        first: u64,
        n: u64,
        counter: &CallCounter,
    ) -> Result<(Samples, u64), BenchError> {
        let mut samples = Samples::counting(n as usize, counter);
        let mut errors = 0;
        let mut out = Vec::with_capacity(call.len(first + n) + 1);
        for id in first..first + n {
            out.clear();
            call.write(id, &mut out);
            out.push(b'\n');
            let t = Instant::now();
            self.write(&out)?;
            match self.read_answer()? {
                Answer::Ok(got) if got == id => samples.push(t.elapsed()),
                _ => errors += 1,
            }
        }
        Ok((samples, errors))
    }

    /// `n` calls from id `first` with `k` in flight: each answer releases one more request;
    /// requests are written in one batch per burst of buffered answers. When `k` requests
    /// could fill the pipe's buffer (large payloads), a writer thread writes the batches:
    /// a server blocked writing answers nobody reads stops reading requests, and a client
    /// blocked writing requests reads no answers. Each answered call is counted in `counter`.
    fn pipelined(
        &mut self,
        call: &EchoCall,
        first: u64,
        n: u64,
        k: usize,
        counter: &CallCounter,
    ) -> Result<(Samples, u64), BenchError> {
        let mut writer = if call.len(first + n) * k > PIPE_SAFE_BYTES {
            let stdin = self.stdin.take().ok_or_else(|| BenchError::Protocol("stdin closed".into()))?;
            Some(Writer::start(stdin))
        } else {
            None
        };
        let mut samples = Samples::counting(n as usize, counter);
        let mut sent_at: Vec<Instant> = Vec::with_capacity(n as usize);
        let mut errors = 0;
        let mut out = Vec::with_capacity(64 * 1024);
        let mut sent = 0u64;
        let mut done = 0u64;
        let mut flushed = 0u64;
        while sent < n.min(k as u64) {
            call.write(first + sent, &mut out);
            out.push(b'\n');
            sent += 1;
        }
        while done < n {
            if !out.is_empty() && !self.line_buffered() {
                let now = Instant::now();
                sent_at.extend((flushed..sent).map(|_| now));
                flushed = sent;
                match &mut writer {
                    Some(writer) => {
                        writer.send(std::mem::replace(&mut out, Vec::with_capacity(64 * 1024)))?
                    }
                    None => {
                        self.write(&out)?;
                        out.clear();
                    }
                }
            }
            match self.read_answer()? {
                Answer::Ok(id) if id >= first && id < first + flushed => {
                    samples.push(sent_at[(id - first) as usize].elapsed());
                }
                _ => errors += 1,
            }
            done += 1;
            if sent < n {
                call.write(first + sent, &mut out);
                out.push(b'\n');
                sent += 1;
            }
        }
        if let Some(writer) = writer {
            self.stdin = Some(writer.finish()?);
        }
        Ok((samples, errors))
    }

    /// Closes stdin, waits up to 2 s for the exit, then kills.
    pub(crate) fn close(mut self) {
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                self.done.store(true, Ordering::Relaxed);
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.done.store(true, Ordering::Relaxed);
    }
}

/// Requests in flight up to this many bytes are written from the reading thread: they fit
/// in a pipe's buffer (64 KiB on Linux) with room to spare, so that write never waits for
/// the server.
const PIPE_SAFE_BYTES: usize = 32 * 1024;

/// A thread that writes batches of requests to the server's stdin.
struct Writer {
    batches: Option<mpsc::Sender<Vec<u8>>>,
    thread: std::thread::JoinHandle<std::io::Result<ChildStdin>>,
}

impl Writer {
    fn start(mut stdin: ChildStdin) -> Writer {
        let (batches, receiver) = mpsc::channel::<Vec<u8>>();
        let thread = std::thread::spawn(move || {
            for batch in receiver {
                stdin.write_all(&batch)?;
            }
            Ok(stdin)
        });
        Writer { batches: Some(batches), thread }
    }

    fn send(&mut self, batch: Vec<u8>) -> Result<(), BenchError> {
        let sender = self.batches.as_ref().ok_or_else(|| BenchError::Protocol("stdin closed".into()))?;
        sender.send(batch).map_err(|_| BenchError::Protocol("the writer thread stopped".into()))
    }

    /// Waits for the last batch to be written and gives stdin back.
    fn finish(mut self) -> Result<ChildStdin, BenchError> {
        drop(self.batches.take());
        match self.thread.join() {
            Ok(result) => Ok(result?),
            Err(_) => Err(BenchError::Protocol("the writer thread panicked".into())),
        }
    }
}

/// Kills `pid` with SIGKILL if `done` is not set within `timeout`.
fn watchdog(pid: u32, timeout: Duration, done: Arc<AtomicBool>) {
    std::thread::spawn(move || {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if done.load(Ordering::Relaxed) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        if !done.load(Ordering::Relaxed) {
            say!("mcpwire-bench: the run exceeded {timeout:?}; killing the server (pid {pid})");
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid as i32),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    });
}

/// A sequential or pipelined workload on a fresh server process; its measured calls (not
/// the warm-up) are counted in `counter`.
pub(crate) fn measure(
    command: &[String],
    config: &BenchConfig,
    workload: &Workload,
    counter: &CallCounter,
) -> Result<Outcome, BenchError> {
    // The warm-up advances no bar: the bar's goal is the measured calls.
    let warmup = CallCounter::default();
    let mut server = Server::spawn(command, config.timeout, config.server_stderr)?;
    let call = EchoCall::for_config(config);
    let mut note = None;
    let result = (|| {
        server.handshake(config.protocol)?;
        note = server.checked_call(&call, 1, &config.text)?;
        let first = 2 + config.warmup_calls;
        match workload {
            Workload::Sequential { calls } => {
                server.sequential(&call, 2, config.warmup_calls, &warmup)?;
                let meter = sys::Meter::start(Some(server.pid()));
                let (samples, errors) = server.sequential(&call, first, *calls, counter)?;
                Ok(Outcome::new(workload, samples, errors, meter.stop(), sys::peak_rss_kib(server.pid())))
            }
            Workload::Pipelined { in_flight, calls } => {
                server.pipelined(&call, 2, config.warmup_calls, *in_flight, &warmup)?;
                let meter = sys::Meter::start(Some(server.pid()));
                let (samples, errors) = server.pipelined(&call, first, *calls, *in_flight, counter)?;
                Ok(Outcome::new(workload, samples, errors, meter.stop(), sys::peak_rss_kib(server.pid())))
            }
            other => Err(BenchError::Unsupported(format!("{other} over stdio"))),
        }
    })();
    server.close();
    result.map(|outcome| outcome.noting(note))
}

/// Spawns the server `runs` times; each time, the first request (2025: `initialize`,
/// 2026: the echo call) goes out at once and the first answer stops the clock.
pub(crate) fn startup(
    command: &[String],
    config: &BenchConfig,
    runs: u32,
) -> Result<StartupResult, BenchError> {
    let mut times = Vec::with_capacity(runs as usize);
    let call = EchoCall::for_config(config);
    for _ in 0..runs.max(1) {
        let mut first = Vec::new();
        match config.protocol {
            Protocol::V2025 => first.extend_from_slice(wire::initialize().as_bytes()),
            Protocol::V2026 => call.write(0, &mut first),
        }
        first.push(b'\n');
        let t = Instant::now();
        let mut server = Server::spawn(command, config.timeout, config.server_stderr)?;
        let answered = server.write(&first).and_then(|()| server.read_answer());
        let elapsed = t.elapsed();
        server.close();
        match answered? {
            Answer::Ok(0) => times.push(elapsed.as_secs_f64() * 1000.0),
            other => return Err(BenchError::Protocol(format!("the first answer was {other:?}"))),
        }
    }
    times.sort_by(f64::total_cmp);
    Ok(StartupResult {
        runs: times.len() as u32,
        median_ms: times[times.len() / 2],
        min_ms: times[0],
        max_ms: times[times.len() - 1],
    })
}
