//! The SDK driver: the same workloads through mcpwire's own [`Client`], on a
//! current-thread runtime.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcpwire::client::Client;
use mcpwire::protocol::ProtocolVersion;
use mcpwire::transport::child::{ChildProcess, StderrMode};
use mcpwire::transport::http_client::HttpClientTransport;
use serde_json::{json, Value};

use super::config::{warmup_for, BenchConfig, Protocol, Workload};
use super::progress::CallCounter;
use super::report::{BenchError, Outcome};
use super::stats::Samples;
use super::sys;

fn version(protocol: Protocol) -> ProtocolVersion {
    match protocol {
        Protocol::V2025 => ProtocolVersion::V2025_11_25,
        Protocol::V2026 => ProtocolVersion::V2026_07_28,
    }
}

fn runtime() -> Result<tokio::runtime::Runtime, BenchError> {
    Ok(tokio::runtime::Builder::new_current_thread().enable_all().build()?)
}

fn connect_error(e: impl std::fmt::Display) -> BenchError {
    BenchError::Protocol(format!("the SDK client could not connect: {e}"))
}

/// The call a run repeats: `echo {text}`, or the configured tool with its arguments.
struct Call {
    name: String,
    arguments: Value,
    /// For `echo`: the text that must come back.
    echoed: Option<String>,
}

impl Call {
    fn of(config: &BenchConfig) -> Arc<Call> {
        Arc::new(match &config.tool {
            Some(tool) => Call {
                name: tool.name.clone(),
                arguments: Value::Object(tool.arguments.clone()),
                echoed: None,
            },
            None => Call {
                name: "echo".into(),
                arguments: json!({ "text": config.text }),
                echoed: Some(config.text.clone()),
            },
        })
    }

    /// The error of a first call that failed.
    fn failed(&self) -> BenchError {
        BenchError::Protocol(format!("the first call of the tool {:?} failed", self.name))
    }
}

/// One call through the client; `true` when the echo came back, or (a chosen tool) a
/// result that is not a tool error.
async fn call(client: &Client, call: &Call) -> bool {
    match client.call_tool(&call.name, &call.arguments).await {
        Ok(result) => match &call.echoed {
            Some(text) => serde_json::to_value(&result)
                .ok()
                .and_then(|v| v.pointer("/content/0/text").and_then(|t| t.as_str()).map(|t| t == text))
                .unwrap_or(false),
            None => !result.is_error(),
        },
        Err(_) => false,
    }
}

/// Sequential or pipelined calls over stdio, through `Client` on a spawned child; the
/// measured calls are counted in `counter`.
pub(crate) fn measure_stdio(
    command: &[String],
    config: &BenchConfig,
    workload: &Workload,
    counter: &CallCounter,
) -> Result<Outcome, BenchError> {
    let (program, args) =
        command.split_first().ok_or_else(|| BenchError::Unsupported("empty stdio command".into()))?;
    let rt = runtime()?;
    rt.block_on(async {
        let stderr = if config.server_stderr { StderrMode::Inherit } else { StderrMode::Null };
        let (connection, child) = ChildProcess::new(program).args(args).stderr(stderr).spawn()?;
        let pid = child.pid();
        let client = Client::builder("mcpwire-bench", env!("CARGO_PKG_VERSION"))
            .protocol_version(version(config.protocol))
            .connect(connection)
            .await
            .map_err(connect_error)?;
        let outcome =
            tokio::time::timeout(config.timeout, calls(&client, config, workload, pid, counter)).await;
        client.close().await;
        child.shutdown().await;
        match outcome {
            Ok(o) => o,
            Err(_) => Err(BenchError::Protocol(format!("the run exceeded {:?}", config.timeout))),
        }
    })
}

async fn calls(
    client: &Client,
    config: &BenchConfig,
    workload: &Workload,
    pid: Option<u32>,
    counter: &CallCounter,
) -> Result<Outcome, BenchError> {
    let one = Call::of(config);
    if !call(client, &one).await {
        return Err(one.failed());
    }
    let (in_flight, calls) = match workload {
        Workload::Sequential { calls } => (1, *calls),
        Workload::Pipelined { in_flight, calls } => ((*in_flight).max(1), *calls),
        other => return Err(BenchError::Unsupported(format!("{other} over stdio"))),
    };
    // The warm-up advances no bar: the bar's goal is the measured calls.
    run_parallel(client, &one, in_flight, config.warmup_calls, &CallCounter::default()).await;
    let meter = sys::Meter::start(pid);
    let (samples, errors) = run_parallel(client, &one, in_flight, calls, counter).await;
    let usage = meter.stop();
    Ok(Outcome::new(workload, samples, errors, usage, pid.and_then(sys::peak_rss_kib)))
}

/// `total` calls by `k` concurrent loops sharing one client, each answered one counted in
/// `counter`.
async fn run_parallel(
    client: &Client,
    one: &Arc<Call>,
    k: usize,
    total: u64,
    counter: &CallCounter,
) -> (Samples, u64) {
    let left = Arc::new(AtomicU64::new(total));
    let mut tasks = Vec::with_capacity(k);
    for _ in 0..k {
        let (client, one, left) = (client.clone(), one.clone(), left.clone());
        let mut samples = Samples::counting(0, counter);
        tasks.push(tokio::spawn(async move {
            let mut errors = 0u64;
            while left.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1)).is_ok() {
                let t = Instant::now();
                if call(&client, &one).await {
                    samples.push(t.elapsed());
                } else {
                    errors += 1;
                }
            }
            (samples, errors)
        }));
    }
    let mut samples = Samples::with_capacity(total as usize);
    let mut errors = 0;
    for task in tasks {
        if let Ok((s, e)) = task.await {
            samples.merge(s);
            errors += e;
        }
    }
    (samples, errors)
}

/// Sequential calls, or `clients` clients (each its own `Client`, connection and, in
/// 2025, session) calling for a while, over HTTP; the measured calls are counted in
/// `counter`.
pub(crate) fn measure_http(
    url: &str,
    config: &BenchConfig,
    workload: &Workload,
    counter: &CallCounter,
) -> Result<Outcome, BenchError> {
    let rt = runtime()?;
    rt.block_on(async {
        let connect = || async {
            let transport = HttpClientTransport::new(url).map_err(connect_error)?;
            Client::builder("mcpwire-bench", env!("CARGO_PKG_VERSION"))
                .protocol_version(version(config.protocol))
                .connect(transport)
                .await
                .map_err(connect_error)
        };
        match workload {
            Workload::Sequential { calls } => {
                let client = connect().await?;
                let one = Call::of(config);
                if !call(&client, &one).await {
                    return Err(one.failed());
                }
                run_parallel(&client, &one, 1, config.warmup_calls, &CallCounter::default()).await;
                let meter = sys::Meter::start(config.server_pid);
                let (samples, errors) = run_parallel(&client, &one, 1, *calls, counter).await;
                let usage = meter.stop();
                client.close().await;
                Ok(Outcome::new(workload, samples, errors, usage, None))
            }
            Workload::Concurrent { clients, seconds } => {
                let mut connected = Vec::with_capacity(*clients);
                for _ in 0..*clients {
                    connected.push(connect().await?);
                }
                let phase = Arc::new(AtomicU8::new(0));
                let mut tasks = Vec::new();
                let one = Call::of(config);
                for client in connected.clone() {
                    let (phase, one) = (phase.clone(), one.clone());
                    let mut samples = Samples::counting(0, counter);
                    tasks.push(tokio::spawn(async move {
                        let mut errors = 0u64;
                        loop {
                            let before = phase.load(Ordering::Acquire);
                            if before == 2 {
                                break;
                            }
                            let t = Instant::now();
                            let ok = call(&client, &one).await;
                            let counted = before == 1 && phase.load(Ordering::Acquire) == 1;
                            match (ok, counted) {
                                (true, true) => samples.push(t.elapsed()),
                                (false, true) => errors += 1,
                                _ => {}
                            }
                        }
                        (samples, errors)
                    }));
                }
                tokio::time::sleep(warmup_for(*seconds)).await;
                let meter = sys::Meter::start(config.server_pid);
                phase.store(1, Ordering::Release);
                tokio::time::sleep(Duration::from_secs_f64(*seconds)).await;
                phase.store(2, Ordering::Release);
                let usage = meter.stop();
                let mut samples = Samples::default();
                let mut errors = 0;
                for task in tasks {
                    if let Ok((s, e)) = task.await {
                        samples.merge(s);
                        errors += e;
                    }
                }
                for client in connected {
                    client.close().await;
                }
                Ok(Outcome::new(workload, samples, errors, usage, None))
            }
            other => Err(BenchError::Unsupported(format!("{other} over HTTP"))),
        }
    })
}
