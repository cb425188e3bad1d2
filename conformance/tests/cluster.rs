//! The cluster (feature `redis`, `docs/DEPLOY.md`): three `everything-server --redis`
//! instances sharing a real `redis-server` behind a round-robin load balancer with no
//! stickiness (`common/cluster.rs`), so consecutive requests of one session land on
//! different instances. Each test starts its own Redis, instances and balancer:
//!
//! - a 2025 session spread over all three (our client, and the Python SDK's);
//! - an elicitation answered through another instance;
//! - a list change on one instance seen by a 2025 GET stream and a 2026
//!   `subscriptions/listen` stream held on the others;
//! - an instance killed mid-stream, the stream resumed on another (replayed events, a
//!   JSON-RPC error for the request that died), the session taken over;
//! - Redis restarted under load (clear errors while it is away, recovery after);
//! - 10,000 stateless calls and 1,000 session calls spread evenly, none lost.
//!
//! `redis-server` must be on `PATH` (`.ci/run` installs it); without it the tests fail,
//! unless `MCPWIRE_SKIP_REDIS=1`. The `#[ignore]`d `cluster_throughput` measures calls
//! per second for `docs/DEPLOY.md` (run it on a release build, see its doc).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::future::Future;
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcpwire::client::{Client, ServerChange};
use mcpwire::protocol::subscriptions::SubscriptionFilter;
use mcpwire::protocol::ProtocolVersion;
use mcpwire::transport::http_client::HttpClientTransport;
use serde_json::{json, Value};

use common::callbacks::{eventually, first_text, recording_client, Seen};
use common::cluster::{call_text, Cluster, Raw};
use common::peers::{python, run_script, workspace_root};
use common::proxy::Proxy;

const SIMPLE: &str = "This is a simple text response for testing.";

/// Runs `test` with an overall time limit.
async fn limited(what: &str, test: impl Future<Output = ()>) {
    tokio::time::timeout(Duration::from_secs(120), test).await.unwrap_or_else(|_| panic!("{what}: hung"));
}

/// Our client on `url`, pinned to 2025-11-25 or probing (2026), with recording callbacks.
async fn client(url: &str, pinned_2025: bool) -> (Client, Arc<Seen>) {
    let seen = Arc::new(Seen::default());
    let mut builder = recording_client(&seen);
    if pinned_2025 {
        builder = builder.protocol_version(ProtocolVersion::V2025_11_25);
    }
    let transport = HttpClientTransport::new(url).unwrap();
    let client =
        builder.connect(transport).await.unwrap_or_else(|e| panic!("connecting to {url} failed: {e}"));
    (client, seen)
}

/// 1. A 2025 session through the balancer: every request goes to the next instance, and
/// every one of them succeeds (the instances that do not own the session tunnel to the
/// one that does).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_session_spread_over_three_instances() {
    let Some(cluster) = Cluster::start(3).await else { return };
    limited("spread session", async {
        let (c, _seen) = client(&cluster.url(), true).await;
        assert_eq!(c.protocol_version(), &ProtocolVersion::V2025_11_25);
        let tools = c.list_all_tools().await.unwrap();
        assert!(tools.iter().any(|t| t.name == "test_elicitation"), "{} tools", tools.len());
        for _ in 0..4 {
            assert_eq!(first_text(&c.call_tool("test_simple_text", json!({})).await.unwrap()), SIMPLE);
        }
        let sampled = c.call_tool("test_sampling", json!({ "prompt": "Capital?" })).await.unwrap();
        assert_eq!(first_text(&sampled), "LLM response: Paris");
        let read = c.read_resource("test://static-text").await.unwrap();
        let text = serde_json::to_value(&read).unwrap()["contents"][0]["text"].clone();
        assert_eq!(text, "This is the content of the static text resource.");
        let prompt = c.get_prompt("test_simple_prompt", Default::default()).await.unwrap();
        assert_eq!(prompt.messages[0].content.as_text(), Some("This is a simple prompt for testing."));
        c.close().await;
        let log = cluster.balancer.log();
        let served = cluster.balancer.served();
        assert!(served.iter().all(|n| *n > 0), "every instance served part of the session: {served:?}");
        let posts: Vec<_> = log.iter().filter(|r| r.method == "POST").collect();
        assert!(posts.len() >= 10, "{posts:#?}");
        for r in &posts {
            assert!(r.status == 200 || r.status == 202, "{r:#?}\n{}", cluster.logs());
        }
        // The POSTs alone visited every instance (not just the GET stream).
        for backend in 0..3 {
            assert!(
                posts.iter().any(|r| r.backend == backend),
                "no POST reached instance {backend}: {posts:#?}"
            );
        }
    })
    .await;
}

/// 1b. The official Python SDK client's 2025 run (sessions, SSE, server-to-client
/// requests, resumption, cancellation, DELETE) through the balancer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_session_through_the_balancer() {
    let Some(python) = python() else { return };
    let Some(cluster) = Cluster::start(3).await else { return };
    let mut command = Command::new(&python);
    command
        .arg(workspace_root().join("tests/peers/python/http_client_everything.py"))
        .arg("legacy")
        .arg(cluster.url())
        .env("PYTHONUNBUFFERED", "1")
        .env("PYTHONDONTWRITEBYTECODE", "1");
    tokio::task::spawn_blocking(move || {
        run_script("the Python client through the balancer (legacy)", command, "== mode=")
    })
    .await
    .unwrap_or_else(|e| panic!("{e}\n{}", cluster.logs()));
    let served = cluster.balancer.served();
    assert!(served.iter().all(|n| *n > 0), "every instance served the Python session: {served:?}");
}

/// 2. `test_elicitation` through the balancer: the server's question goes out on the
/// call's stream, and the client's answer (a new POST) lands on another instance, which
/// passes it to the one running the tool.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_elicitation_answered_through_another_instance() {
    let Some(cluster) = Cluster::start(3).await else { return };
    limited("elicitation", async {
        let (c, seen) = client(&cluster.url(), true).await;
        for round in 0..3 {
            let message = format!("Round {round}?");
            let result = c.call_tool("test_elicitation", json!({ "message": message })).await.unwrap();
            assert_eq!(first_text(&result), r#"User response: action=accept, content={"response":"yes"}"#);
        }
        assert_eq!(seen.elicitation_messages(), ["Round 0?", "Round 1?", "Round 2?"]);
        c.close().await;
        let log = cluster.balancer.log();
        let call_on = |round: usize| {
            log.iter()
                .find(|r| r.body.contains(&format!("Round {round}?")) && r.body.contains("tools/call"))
                .unwrap()
                .backend
        };
        let answers: Vec<_> = log.iter().filter(|r| r.body.contains(r#""action":"accept""#)).collect();
        assert_eq!(answers.len(), 3, "{log:#?}");
        assert!(answers.iter().all(|a| a.status == 202), "{answers:#?}\n{}", cluster.logs());
        let moved = (0..3).filter(|round| answers[*round].backend != call_on(*round)).count();
        assert!(moved >= 1, "no answer landed on another instance than its call: {log:#?}");
    })
    .await;
}

/// 3. `test_trigger_tool_change` called on instance A reaches a 2025 session's GET stream
/// held on B and a 2026 `subscriptions/listen` stream held on C.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_change_reaches_streams_on_other_instances() {
    let Some(cluster) = Cluster::start(3).await else { return };
    limited("list change", async {
        let [a, c] = [0, 2].map(|i| cluster.instances[i].url());
        // B behind a recording proxy, to see its GET stream open.
        let b = Proxy::start(cluster.instances[1].addr()).await;
        let (on_b, seen_b) = client(&b.url("/mcp"), true).await;
        assert_eq!(on_b.protocol_version(), &ProtocolVersion::V2025_11_25);
        let (on_c, _) = client(&c, false).await;
        assert_eq!(on_c.protocol_version(), &ProtocolVersion::V2026_07_28);
        let filter = SubscriptionFilter { tools_list_changed: Some(true), ..Default::default() };
        let mut listen = on_c.listen(filter).await.unwrap();
        // The 2025 client opens its GET stream once initialized: wait until B holds it.
        let get_open = || b.requests().iter().any(|r| r.method == "GET" && r.status == 200);
        assert!(eventually(get_open).await, "no GET stream on B: {:#?}", b.requests());
        let (on_a, _) = client(&a, false).await;
        let result = on_a.call_tool("test_trigger_tool_change", json!({})).await.unwrap();
        assert_eq!(first_text(&result), "Tool list change notification sent");
        let next = tokio::time::timeout(Duration::from_secs(10), listen.next()).await;
        let next = next.unwrap_or_else(|_| panic!("no change on C's listen stream\n{}", cluster.logs()));
        assert_eq!(next.unwrap().method, "notifications/tools/list_changed");
        assert!(
            eventually(|| seen_b.saw_change(&ServerChange::ToolsChanged)).await,
            "the 2025 session on B saw no tools/list_changed\n{}",
            cluster.logs()
        );
        drop(listen);
        for c in [on_a, on_b, on_c] {
            c.close().await;
        }
    })
    .await;
}

/// 4. The owner of a session is killed (SIGKILL) while a `test_elicitation` call waits on
/// its POST stream; the client resumes the stream with `Last-Event-ID` through the
/// balancer: the events after that id come back from Redis, the dead call gets a
/// JSON-RPC error, and the session goes on on the instance that took it over.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_instance_stream_resumed_on_another() {
    let Some(mut cluster) = Cluster::start(3).await else { return };
    limited("killed owner", async {
        let raw = Raw::default();
        let owner_url = cluster.instances[0].url();
        let session = raw.session(&owner_url).await.unwrap();
        let call = json!({
            "jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": { "name": "test_elicitation", "arguments": { "message": "Still there?" } }
        });
        let (status, mut stream) = session.open(&owner_url, Some(&call), None).await.unwrap();
        assert_eq!(status, 200);
        // The priming event (an id, no data), then the elicitation request.
        let priming = stream.next(Duration::from_secs(5)).await.expect("a priming event");
        let last_event_id = priming.id.clone().expect("the priming event has an id");
        assert!(priming.data.trim().is_empty(), "{priming:?}");
        let question = stream.next(Duration::from_secs(5)).await.expect("the elicitation request");
        let question = question.json();
        assert_eq!(question["method"], "elicitation/create", "{question}");
        assert_eq!(question["params"]["message"], "Still there?");
        // Let the write-behind reach Redis, then kill the owner.
        tokio::time::sleep(Duration::from_millis(300)).await;
        cluster.instances[0].kill();
        drop(stream);
        let killed = Instant::now();
        // Until the owner's heartbeat expires (5 s) the others may still route to it and
        // answer 503 (try again); the client retries.
        let mut statuses = Vec::new();
        let mut resumed = loop {
            let (status, reader) = session.open(&cluster.url(), None, Some(&last_event_id)).await.unwrap();
            statuses.push(status);
            if status == 200 {
                break reader;
            }
            assert_eq!(status, 503, "a resumption before the takeover: {statuses:?}");
            assert!(
                killed.elapsed() < Duration::from_secs(15),
                "no takeover within 15 s\n{}",
                cluster.logs()
            );
            tokio::time::sleep(Duration::from_millis(250)).await;
        };
        let took = killed.elapsed();
        let mut events = Vec::new();
        while let Some(event) = resumed.next(Duration::from_secs(5)).await {
            let done = event.json()["id"] == 7;
            events.push(event);
            if done {
                break;
            }
        }
        let replayed: Vec<Value> = events.iter().map(|e| e.json()).collect();
        assert!(
            replayed
                .iter()
                .any(|m| m["method"] == "elicitation/create" && m["params"]["message"] == "Still there?"),
            "the elicitation request was not replayed: {events:#?}\n{}",
            cluster.logs()
        );
        let died = replayed
            .iter()
            .find(|m| m["id"] == 7)
            .unwrap_or_else(|| panic!("no answer for the dead call: {events:#?}"));
        assert!(died["error"]["code"].is_i64(), "the dead call gets a JSON-RPC error: {died}");
        assert!(died.get("result").is_none(), "{died}");
        // The session goes on: later calls through the balancer (any instance) work.
        let on = session.at(&cluster.url());
        for id in 10..14 {
            let answer = on.call(id, "test_simple_text", json!({})).await.unwrap();
            assert_eq!(
                call_text(answer.response(&json!(id))),
                Ok(SIMPLE.to_owned()),
                "{answer:?}\n{}",
                cluster.logs()
            );
        }
        assert!(cluster.balancer.refused() > 0, "the balancer never met the dead instance");
        println!("resumed {took:?} after the kill; statuses before: {statuses:?}");
    })
    .await;
}

/// Outcome counts of one caller of [`redis_restarted_under_load`].
#[derive(Default)]
struct Tally {
    ok: AtomicU64,
    failed: AtomicU64,
    /// The slowest exchange, in ms.
    slowest: AtomicU64,
    /// Set when an answer was neither a success nor a clear error.
    unclear: std::sync::Mutex<Vec<String>>,
}

impl Tally {
    fn reset(&self) {
        self.ok.store(0, Ordering::SeqCst);
        self.failed.store(0, Ordering::SeqCst);
        self.slowest.store(0, Ordering::SeqCst);
    }

    fn counts(&self) -> (u64, u64, u64) {
        (
            self.ok.load(Ordering::SeqCst),
            self.failed.load(Ordering::SeqCst),
            self.slowest.load(Ordering::SeqCst),
        )
    }
}

/// Records one exchange: a right answer, or a failure that must be a clear one (HTTP
/// 503 with a JSON-RPC error, or a 200 carrying a JSON-RPC error), never a hang.
fn tally(t: &Tally, started: Instant, id: u64, answer: Result<common::cluster::Answer, String>) {
    t.slowest.fetch_max(started.elapsed().as_millis() as u64, Ordering::SeqCst);
    match answer {
        Ok(answer) => match call_text(answer.response(&json!(id))) {
            Ok(text) if text == SIMPLE => {
                t.ok.fetch_add(1, Ordering::SeqCst);
            }
            _ => {
                t.failed.fetch_add(1, Ordering::SeqCst);
                let clear = answer.messages.iter().any(|m| m["error"]["code"].is_i64())
                    && (answer.status == 503 || answer.status == 200);
                if !clear {
                    t.unclear.lock().unwrap().push(format!("{} {}", answer.status, answer.body));
                }
            }
        },
        Err(e) => {
            t.failed.fetch_add(1, Ordering::SeqCst);
            t.unclear.lock().unwrap().push(e);
        }
    }
}

/// 5. Redis stopped and restarted while 2026 stateless calls and a 2025 session's calls
/// run through the balancer: while it is away, stateless calls keep working and session
/// calls either work (on the owner) or fail fast with a 503 and a JSON-RPC error; once
/// it is back, everything works again within seconds, no instance restarted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_restarted_under_load() {
    let Some(mut cluster) = Cluster::start(3).await else { return };
    limited("redis restart", async {
        let raw = Raw::default();
        let url = cluster.url();
        let session = raw.session(&url).await.unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let stateless = Arc::new(Tally::default());
        let stateful = Arc::new(Tally::default());
        let mut tasks = Vec::new();
        for worker in 0..2u64 {
            let (raw, url, halt, t) = (raw.clone(), url.clone(), stop.clone(), stateless.clone());
            tasks.push(tokio::spawn(async move {
                let mut id = worker << 32;
                while !halt.load(Ordering::SeqCst) {
                    id += 1;
                    let started = Instant::now();
                    tally(&t, started, id, raw.call_2026(&url, id, "test_simple_text", json!({})).await);
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            }));
            let (session, halt, t) = (session.clone(), stop.clone(), stateful.clone());
            tasks.push(tokio::spawn(async move {
                let mut id = worker << 32;
                while !halt.load(Ordering::SeqCst) {
                    id += 1;
                    let started = Instant::now();
                    tally(&t, started, id, session.call(id, "test_simple_text", json!({})).await);
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            }));
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
        let before = (stateless.counts(), stateful.counts());
        assert!(before.0 .0 > 0 && before.0 .1 == 0, "stateless before: {before:?}");
        assert!(before.1 .0 > 0 && before.1 .1 == 0, "session before: {before:?}\n{}", cluster.logs());

        cluster.redis.stop();
        // Calls in flight when Redis went may end either way; count from a moment later.
        tokio::time::sleep(Duration::from_millis(500)).await;
        stateless.reset();
        stateful.reset();
        tokio::time::sleep(Duration::from_secs(3)).await;
        let away = (stateless.counts(), stateful.counts());
        println!("redis away (ok, failed, slowest ms): stateless {:?}, session {:?}", away.0, away.1);
        assert!(away.0 .0 > 0 && away.0 .1 == 0, "2026 stateless calls need no redis: {away:?}");
        assert!(away.1 .1 > 0, "session calls on non-owners need redis and must fail: {away:?}");
        assert!(
            away.1 .2 < 5_000 && away.0 .2 < 5_000,
            "an exchange took over 5 s with redis away: {away:?}"
        );
        let unclear = stateful.unclear.lock().unwrap().clone();
        assert!(unclear.is_empty(), "unclear failures with redis away: {unclear:#?}");

        cluster.redis.restart();
        let back = Instant::now();
        // Everything works again: a run of session calls that visits every instance
        // several times all succeed.
        let mut streak = 0;
        let mut id = 1 << 40;
        while streak < 12 {
            assert!(back.elapsed() < Duration::from_secs(15), "no recovery within 15 s\n{}", cluster.logs());
            id += 1;
            let answer = session.call(id, "test_simple_text", json!({})).await;
            match answer.as_ref().map(|a| call_text(a.response(&json!(id)))) {
                Ok(Ok(text)) if text == SIMPLE => streak += 1,
                _ => {
                    streak = 0;
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        }
        let recovered = back.elapsed();
        stateless.reset();
        stateful.reset();
        tokio::time::sleep(Duration::from_secs(1)).await;
        stop.store(true, Ordering::SeqCst);
        for task in tasks {
            task.await.unwrap();
        }
        let after = (stateless.counts(), stateful.counts());
        println!("recovered {recovered:?} after the restart; after (ok, failed, slowest ms): {after:?}");
        // Whatever was in flight when Redis went or came back ended clearly too.
        for t in [&stateless, &stateful] {
            let unclear = t.unclear.lock().unwrap().clone();
            assert!(unclear.is_empty(), "unclear failures or hangs: {unclear:#?}\n{}", cluster.logs());
        }
        assert!(after.0 .0 > 0 && after.0 .1 == 0, "stateless after: {after:?}");
        assert!(after.1 .0 > 0 && after.1 .1 == 0, "session after: {after:?}\n{}", cluster.logs());
        for instance in &mut cluster.instances {
            assert!(instance.running(), "an instance stopped");
        }
    })
    .await;
}

/// Runs `total` calls over `tasks` concurrent workers; `call(id)` answers whether call
/// `id` got its right answer. Returns the ids that did not.
async fn spread<F, Fut>(total: u64, tasks: u64, call: F) -> Vec<u64>
where
    F: Fn(u64) -> Fut + Clone + Send + 'static,
    Fut: Future<Output = bool> + Send,
{
    let next = Arc::new(AtomicU64::new(0));
    let mut handles = Vec::new();
    for _ in 0..tasks {
        let (next, call) = (next.clone(), call.clone());
        handles.push(tokio::spawn(async move {
            let mut lost = Vec::new();
            loop {
                let id = next.fetch_add(1, Ordering::SeqCst);
                if id >= total {
                    return lost;
                }
                if !call(id).await {
                    lost.push(id);
                }
            }
        }));
    }
    let mut lost = Vec::new();
    for handle in handles {
        lost.extend(handle.await.unwrap());
    }
    lost
}

/// Whether `answer` is a 200 with the right text for call `id`.
fn right(answer: Result<common::cluster::Answer, String>, id: u64) -> bool {
    answer.is_ok_and(|a| a.status == 200 && call_text(a.response(&json!(id))).as_deref() == Ok(SIMPLE))
}

/// Fails when any of the `what` calls was `lost`.
fn none_lost(lost: &[u64], what: &str, cluster: &Cluster) {
    let first = &lost[..lost.len().min(10)];
    assert!(
        lost.is_empty(),
        "{} of {what} calls lost or wrong, first {first:?}\n{}",
        lost.len(),
        cluster.logs()
    );
}

/// 6. 10,000 stateless calls from 16 workers through the balancer, each answered with
/// its own id and the right text, a third of them (±10%) on each instance; then 1,000
/// calls of one 2025 session from 8 workers, all answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_calls_spread_evenly_none_lost() {
    let Some(cluster) = Cluster::start(3).await else { return };
    limited("10,000 calls", async {
        let raw = Raw::default();
        let url = cluster.url();
        let started = Instant::now();
        let (r, u) = (raw.clone(), url.clone());
        let lost = spread(10_000, 16, move |id| {
            let (r, u) = (r.clone(), u.clone());
            async move { right(r.call_2026(&u, id, "test_simple_text", json!({})).await, id) }
        })
        .await;
        let stateless_time = started.elapsed();
        none_lost(&lost, "10,000 stateless", &cluster);
        let served = cluster.balancer.served();
        assert_eq!(served.iter().sum::<u64>(), 10_000);
        for n in &served {
            assert!((3_000..=3_667).contains(n), "not a third (±10%) each: {served:?}");
        }

        let session = raw.session(&url).await.unwrap();
        let before = cluster.balancer.served();
        let started = Instant::now();
        let s = session.clone();
        let lost = spread(1_000, 8, move |id| {
            let s = s.clone();
            async move { right(s.call(id, "test_simple_text", json!({})).await, id) }
        })
        .await;
        let session_time = started.elapsed();
        none_lost(&lost, "1,000 session", &cluster);
        let served: Vec<u64> = cluster.balancer.served().iter().zip(&before).map(|(a, b)| a - b).collect();
        for n in &served {
            assert!((300..=367).contains(n), "session calls not a third (±10%) each: {served:?}");
        }
        println!("10,000 stateless calls in {stateless_time:?}; 1,000 session calls in {session_time:?}");
    })
    .await;
}

/// Calls per second of `test_simple_text` for `secs` seconds from `workers` workers:
/// 2026 stateless calls, or one 2025 session's calls.
async fn rate(url: &str, stateless: bool, workers: u64, secs: u64) -> f64 {
    let raw = Raw::default();
    let session = if stateless { None } else { Some(raw.session(url).await.unwrap()) };
    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicU64::new(0));
    let mut handles = Vec::new();
    for worker in 0..workers {
        let (raw, url, session, stop, done) =
            (raw.clone(), url.to_owned(), session.clone(), stop.clone(), done.clone());
        handles.push(tokio::spawn(async move {
            let mut id = worker << 32;
            while !stop.load(Ordering::Relaxed) {
                id += 1;
                let answer = match &session {
                    None => raw.call_2026(&url, id, "test_simple_text", json!({})).await,
                    Some(s) => s.call(id, "test_simple_text", json!({})).await,
                };
                let answer = answer.unwrap();
                assert_eq!(call_text(answer.response(&json!(id))).as_deref(), Ok(SIMPLE), "{answer:?}");
                done.fetch_add(1, Ordering::Relaxed);
            }
        }));
    }
    let started = Instant::now();
    tokio::time::sleep(Duration::from_secs(secs)).await;
    stop.store(true, Ordering::SeqCst);
    for handle in handles {
        handle.await.unwrap();
    }
    done.load(Ordering::SeqCst) as f64 / started.elapsed().as_secs_f64()
}

/// Throughput for `docs/DEPLOY.md`: 2026 and 2025-session `tools/call` per second from
/// 16 concurrent workers, and the time of one call from a single sequential worker, with
/// one instance without Redis (alone, and behind a balancer of one, to show the
/// balancer's own cost), one with Redis, and three behind the balancer. Run on a release
/// build: `cargo test --release -p mcpwire-conformance --test cluster cluster_throughput
/// -- --ignored --nocapture`.
#[tokio::test(flavor = "multi_thread")]
#[ignore]
async fn cluster_throughput() {
    let Some(cluster) = Cluster::start(3).await else { return };
    let plain = common::peers::EverythingHttp::start();
    let plain_balanced = common::cluster::Balancer::start(vec![plain.addr()]).await;
    let secs = 3;
    let mut rows = Vec::new();
    for (label, url) in [
        ("1 instance, in memory", plain.url()),
        ("1 in memory + balancer", plain_balanced.url()),
        ("1 instance, redis", cluster.instances[0].url()),
        ("3 redis + balancer", cluster.url()),
    ] {
        let stateless = rate(&url, true, 16, secs).await;
        let session = rate(&url, false, 16, secs).await;
        let stateless_one = 1e6 / rate(&url, true, 1, secs).await;
        let session_one = 1e6 / rate(&url, false, 1, secs).await;
        rows.push(format!(
            "{label:<24} 2026: {stateless:>7.0}/s, {stateless_one:>5.0} us/call   2025 session: {session:>7.0}/s, {session_one:>5.0} us/call"
        ));
    }
    println!("16 workers (calls/s) and 1 sequential worker (us per call), {secs} s each:");
    for row in rows {
        println!("{row}");
    }
}
