//! Many instances of one HTTP endpoint behind a load balancer, as one logical server,
//! sharing state through Redis (feature `redis`; `docs/DEPLOY.md` is the operator's view).
//!
//! - Each instance has a random id and a heartbeat key that expires a few beats after
//!   the instance stops.
//! - A 2025 session lives on the instance that created it, its *owner*. Its record in
//!   Redis names the owner and journals the requests that set session state
//!   (`initialize`, `logging/setLevel`, `resources/subscribe` and `unsubscribe`).
//! - A request for a session that another live instance owns is tunnelled to the owner
//!   over Redis pub/sub, the whole HTTP exchange, its response streamed back. So the
//!   answer to a server-to-client request, a cancellation, a GET stream or a DELETE
//!   reaches the session wherever the load balancer sent it.
//! - When the owner is gone, the first instance the session's client reaches takes the
//!   session over: it claims the record and replays the journal into a new local
//!   session with the same id. A stream resumed there (`Last-Event-ID`) replays its
//!   events from Redis, then answers each request that died with the old owner with a
//!   JSON-RPC error.
//! - Change notifications ([`ServerEvent`](crate::server::ServerEvent)) reach the 2025
//!   sessions and 2026 `subscriptions/listen` streams of every instance.
//! - Every instance seals and opens 2026 `requestState` with one shared key, so an MRTR
//!   retry may land anywhere.
//! - Task records live in Redis ([`RedisTaskStore`]): any instance answers `tasks/get`;
//!   an answer or a cancellation reaching another instance is carried to the one that
//!   runs the task's handler.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use mcpwire::http::cluster::Cluster;
//! use mcpwire::http::HttpSettings;
//!
//! let cluster = Cluster::connect("redis://127.0.0.1:6379").await?;
//! let builder = mcpwire::server::Server::builder("notes", "1.0.0");
//! let service = cluster.service(builder, HttpSettings::default())?;
//! mcpwire::http::serve(service, "0.0.0.0:8080", "/mcp").await?;
//! # Ok(()) }
//! ```

mod endpoint;
mod events;
mod records;
mod tasks;
mod tunnel;
mod wire;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{IntoConnectionInfo, PushInfo, PushKind, Value};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::server::request_state::StateSealer;
use crate::server::{BuildError, Server, ServerBuilder};

pub(crate) use events::ClusterEventStore;
pub(crate) use records::SessionRecord;
pub use tasks::RedisTaskStore;
use wire::Frame;

use super::{HttpSettings, McpService};

/// Settings of a [`Cluster`]. Every instance of one logical server must use the same
/// [`prefix`](Self::prefix).
#[derive(Clone, Debug)]
pub struct ClusterOptions {
    /// The prefix of every Redis key and channel (default `mcpwire`): servers sharing a
    /// Redis with different prefixes do not see each other. Keys are `PREFIX:KIND:ID`, so
    /// the prefix is one segment: it may not be empty or hold `:` (then `a:session` and
    /// `a` could name the same keys), and [`Cluster::connect_with`] refuses such a one.
    pub prefix: String,
    /// How often an instance renews its heartbeat (default 1 s). An instance whose
    /// heartbeat is five beats old counts as gone, and its sessions are taken over.
    pub heartbeat: Duration,
    /// How long one Redis command may take, connecting included, before the request that
    /// needs it fails (default 2 s).
    pub command_timeout: Duration,
    /// Events kept per SSE stream for resumption on another instance (default 1024).
    pub events_per_stream: usize,
    /// How long a stream's events stay in Redis after its last event (default 30 min).
    pub event_ttl: Duration,
    /// How long a session record lives after its last use (default 30 min, as
    /// [`HttpSettings::session_idle_timeout`]).
    pub session_ttl: Duration,
}

impl Default for ClusterOptions {
    fn default() -> Self {
        ClusterOptions {
            prefix: "mcpwire".into(),
            heartbeat: Duration::from_secs(1),
            command_timeout: Duration::from_secs(2),
            events_per_stream: 1024,
            event_ttl: Duration::from_secs(30 * 60),
            session_ttl: Duration::from_secs(30 * 60),
        }
    }
}

/// Why [`Cluster::connect`] failed.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// Redis refused, failed or did not answer in time.
    #[error("redis: {0}")]
    Redis(#[from] redis::RedisError),
    /// The shared `requestState` key in Redis is not one this library wrote.
    #[error("the shared requestState key in redis is malformed")]
    BadKey,
    /// [`ClusterOptions::prefix`] is empty or holds `:`, so its keys could overlap those
    /// of a server with another prefix.
    #[error("the cluster key prefix {0:?} is empty or holds ':' (its keys could overlap another prefix's)")]
    BadPrefix(String),
    /// The operating system gave no randomness for the instance id or the key.
    #[error("no system randomness")]
    Randomness,
}

/// One instance's membership in a cluster: its Redis connection (which reconnects by
/// itself), its id and heartbeat, and the exchanges in flight with other instances.
/// Cheap to clone. The background tasks stop once every clone is dropped.
#[derive(Clone)]
pub struct Cluster {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cluster")
            .field("instance", &self.shared.id)
            .field("options", &self.shared.options)
            .finish()
    }
}

pub(crate) struct Shared {
    /// This instance's id: 32 hex characters.
    id: String,
    options: ClusterOptions,
    redis: ConnectionManager,
    /// Exchanges this instance tunnelled to another, by number: where their frames go.
    tunnels: Mutex<HashMap<u64, mpsc::Sender<Frame>>>,
    next_tunnel: AtomicU64,
    /// The owner last reached for each session held elsewhere (a request for it goes
    /// straight there; a stale entry is dropped when a request does not reach it).
    owners: Mutex<HashMap<String, String>>,
    /// When each session's record was last kept alive ([`Cluster::refresh_session`]).
    refreshed: Mutex<HashMap<String, std::time::Instant>>,
    /// Exchanges other instances tunnelled here, by (sender, number): their cancellation.
    serving: Mutex<HashMap<(String, u64), CancellationToken>>,
    /// The endpoint that serves tunnelled requests and change events (set once, by
    /// [`Cluster::service`] or [`McpService::with_settings`]).
    endpoint: OnceLock<Weak<super::Inner>>,
    /// The shared `requestState` key.
    request_state_key: [u8; 32],
    /// Change events this instance publishes, on their way to Redis.
    outgoing_events: mpsc::Sender<Outgoing>,
    /// Fired when the instance leaves (its endpoint shuts down).
    leaving: CancellationToken,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// How many pub/sub messages may wait for the dispatcher before new ones are dropped.
const INBOX_CAPACITY: usize = 4096;
/// How many change events may wait to be published.
const EVENT_QUEUE: usize = 1024;

/// `N` random bytes in hex, for the instance id and the shared key.
fn random_hex<const N: usize>() -> Result<String, ClusterError> {
    crate::random_id::random_hex::<N>().ok_or(ClusterError::Randomness)
}

impl Cluster {
    /// Joins the cluster whose state lives in the Redis at `url` (`redis://HOST:PORT/DB`,
    /// `rediss://` for TLS is not built in), with default [`ClusterOptions`].
    pub async fn connect(url: &str) -> Result<Cluster, ClusterError> {
        Self::connect_with(url, ClusterOptions::default()).await
    }

    /// [`Cluster::connect`] with chosen options; [`ClusterError::BadPrefix`] before any
    /// connection for a prefix that could overlap another.
    pub async fn connect_with(url: &str, options: ClusterOptions) -> Result<Cluster, ClusterError> {
        if options.prefix.is_empty() || options.prefix.contains(':') {
            return Err(ClusterError::BadPrefix(options.prefix));
        }
        let info = url.into_connection_info()?;
        let redis_info = info.redis_settings().clone().set_protocol(redis::ProtocolVersion::RESP3);
        let client = redis::Client::open(info.set_redis_settings(redis_info))?;
        let (push_tx, push_rx) = mpsc::channel::<PushInfo>(INBOX_CAPACITY);
        let config = ConnectionManagerConfig::new()
            .set_push_sender(move |push: PushInfo| {
                if push_tx.try_send(push).is_err() {
                    tracing::warn!("the cluster inbox is full; a message from another instance was dropped");
                }
                Ok::<(), ()>(())
            })
            .set_automatic_resubscription()
            .set_connection_timeout(Some(options.command_timeout))
            .set_response_timeout(Some(options.command_timeout))
            .set_number_of_retries(2)
            .set_max_delay(Duration::from_secs(1));
        let mut redis = client.get_connection_manager_with_config(config).await?;
        let id = random_hex::<16>()?;
        let request_state_key = shared_key(&mut redis, &options.prefix).await?;
        let (event_tx, event_rx) = mpsc::channel(EVENT_QUEUE);
        let shared = Arc::new(Shared {
            id,
            options,
            redis,
            tunnels: Mutex::default(),
            next_tunnel: AtomicU64::new(1),
            serving: Mutex::default(),
            refreshed: Mutex::default(),
            owners: Mutex::default(),
            endpoint: OnceLock::new(),
            request_state_key,
            outgoing_events: event_tx,
            leaving: CancellationToken::new(),
        });
        let cluster = Cluster { shared };
        cluster.beat().await?;
        let mut redis = cluster.shared.redis.clone();
        redis.subscribe(&[cluster.inbox(&cluster.shared.id), cluster.events_channel()]).await?;
        tokio::spawn(dispatch(Arc::downgrade(&cluster.shared), push_rx));
        tokio::spawn(heartbeat(Arc::downgrade(&cluster.shared)));
        tokio::spawn(publish_events(Arc::downgrade(&cluster.shared), event_rx));
        tracing::info!(instance = %cluster.shared.id, "joined the cluster");
        Ok(cluster)
    }

    /// This instance's id in the cluster.
    pub fn instance_id(&self) -> &str {
        &self.shared.id
    }

    /// The `requestState` sealer every instance shares (its key lives in Redis, made by
    /// the first instance). [`Cluster::service`] installs it; a server built otherwise
    /// passes it to [`ServerBuilder::request_state_sealer`].
    pub fn request_state_sealer(&self) -> StateSealer {
        // A sealer from one 32-byte key cannot fail to build.
        StateSealer::with_keys(vec![self.shared.request_state_key])
            .unwrap_or_else(|_| unreachable!("one key is enough for a sealer"))
    }

    /// Builds `builder`'s server with the shared `requestState` key and task store, and
    /// serves it as one instance of this cluster: the one call a clustered endpoint needs.
    pub fn service(&self, builder: ServerBuilder, settings: HttpSettings) -> Result<McpService, BuildError> {
        let server = builder
            .request_state_sealer(self.request_state_sealer())
            .task_store(self.task_store())
            .build()?;
        Ok(McpService::with_settings(server, HttpSettings { cluster: Some(self.clone()), ..settings }))
    }

    /// Serves tunnelled requests and change events with `endpoint` (the first call wins)
    /// and relays `server`'s change events to the other instances.
    pub(super) fn attach(&self, endpoint: &Arc<super::Inner>, server: &Server) {
        if self.shared.endpoint.set(Arc::downgrade(endpoint)).is_err() {
            tracing::warn!("a cluster serves one endpoint; this one is not reachable from other instances");
            return;
        }
        let events = self.shared.outgoing_events.clone();
        server.relay_events(Box::new(move |event| {
            if events.try_send(Outgoing::Event(wire::WireEvent::from(event))).is_err() {
                tracing::warn!("too many change events waiting for redis; one was not shared");
            }
        }));
        let events = self.shared.outgoing_events.clone();
        server.inner.tasks.relay_changes(Box::new(move |task| {
            if events.try_send(Outgoing::TaskChanged(task.to_owned())).is_err() {
                tracing::warn!("too many change events waiting for redis; a task change was not shared");
            }
        }));
    }

    /// Leaves the cluster now (the endpoint is shutting down): the heartbeat stops and is
    /// deleted, so other instances take this one's sessions over at once.
    pub(crate) fn leave(&self) {
        self.shared.leaving.cancel();
        let mut redis = self.shared.redis.clone();
        let key = self.instance_key(&self.shared.id);
        tokio::spawn(async move {
            let _: Result<(), _> = redis::cmd("DEL").arg(key).query_async(&mut redis).await;
        });
    }

    /// `PREFIX:KIND:ID`. Neither the prefix (checked at connection) nor a kind holds `:`,
    /// so the first two `:` end them: keys of different prefixes or kinds never meet,
    /// whatever the id (which may hold `:`).
    fn key(&self, kind: &str, id: &str) -> String {
        format!("{}:{kind}:{id}", self.shared.options.prefix)
    }

    fn instance_key(&self, instance: &str) -> String {
        self.key("instance", instance)
    }

    fn inbox(&self, instance: &str) -> String {
        self.key("inbox", instance)
    }

    fn events_channel(&self) -> String {
        format!("{}:events", self.shared.options.prefix)
    }

    fn redis(&self) -> ConnectionManager {
        self.shared.redis.clone()
    }

    /// Renews this instance's heartbeat.
    async fn beat(&self) -> Result<(), redis::RedisError> {
        let ttl = self.shared.options.heartbeat * 5;
        redis::cmd("SET")
            .arg(self.instance_key(&self.shared.id))
            .arg(1)
            .arg("PX")
            .arg(ttl.as_millis() as u64)
            .query_async::<()>(&mut self.redis())
            .await
    }

    /// Whether `instance` has a live heartbeat.
    pub(crate) async fn is_alive(&self, instance: &str) -> Result<bool, redis::RedisError> {
        if instance == self.shared.id {
            return Ok(!self.shared.leaving.is_cancelled());
        }
        redis::cmd("EXISTS").arg(self.instance_key(instance)).query_async(&mut self.redis()).await
    }

    /// Sends one frame to `instance`'s inbox.
    async fn send(&self, instance: &str, frame: &Frame) -> Result<(), redis::RedisError> {
        redis::cmd("PUBLISH")
            .arg(self.inbox(instance))
            .arg(frame.to_bytes())
            .query_async(&mut self.redis())
            .await
    }

    fn endpoint(&self) -> Option<McpService> {
        self.shared.endpoint.get()?.upgrade().map(|inner| McpService { inner })
    }
}

/// The shared `requestState` key: the first instance stores a random one, every other
/// reads it.
async fn shared_key(redis: &mut ConnectionManager, prefix: &str) -> Result<[u8; 32], ClusterError> {
    let key = format!("{prefix}:request-state-key");
    let fresh = random_hex::<32>()?;
    let _: Value = redis::cmd("SET").arg(&key).arg(&fresh).arg("NX").query_async(redis).await?;
    let stored: String = redis::cmd("GET").arg(&key).query_async(redis).await?;
    let mut out = [0u8; 32];
    if stored.len() != 64 {
        return Err(ClusterError::BadKey);
    }
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(stored.get(2 * i..2 * i + 2).ok_or(ClusterError::BadKey)?, 16)
            .map_err(|_| ClusterError::BadKey)?;
    }
    Ok(out)
}

/// Renews the heartbeat until the cluster is dropped or leaves. A failed beat (Redis
/// away) is retried at the next one: the connection reconnects by itself.
async fn heartbeat(weak: Weak<Shared>) {
    loop {
        let Some(shared) = weak.upgrade() else { return };
        let period = shared.options.heartbeat;
        let leaving = shared.leaving.clone();
        let cluster = Cluster { shared };
        if let Err(e) = cluster.beat().await {
            tracing::warn!("cluster heartbeat failed: {e}");
        }
        drop(cluster);
        tokio::select! {
            _ = tokio::time::sleep(period) => {}
            _ = leaving.cancelled() => return,
        }
    }
}

/// A change this instance shares with the others.
enum Outgoing {
    /// A server event.
    Event(wire::WireEvent),
    /// A task changed.
    TaskChanged(String),
}

/// Publishes this instance's change events for the others.
async fn publish_events(weak: Weak<Shared>, mut events: mpsc::Receiver<Outgoing>) {
    while let Some(event) = events.recv().await {
        let Some(shared) = weak.upgrade() else { return };
        let cluster = Cluster { shared };
        let from = cluster.shared.id.clone();
        let frame = match event {
            Outgoing::Event(event) => Frame::Event { from, event },
            Outgoing::TaskChanged(task) => Frame::TaskChanged { from, task },
        };
        let sent: Result<(), _> = redis::cmd("PUBLISH")
            .arg(cluster.events_channel())
            .arg(frame.to_bytes())
            .query_async(&mut cluster.redis())
            .await;
        if let Err(e) = sent {
            tracing::warn!("a change event could not be shared with the other instances: {e}");
        }
    }
}

/// Takes the pub/sub messages off the connection and acts on each.
async fn dispatch(weak: Weak<Shared>, mut inbox: mpsc::Receiver<PushInfo>) {
    while let Some(push) = inbox.recv().await {
        let Some(shared) = weak.upgrade() else { return };
        let cluster = Cluster { shared };
        match push.kind {
            PushKind::Message => {}
            PushKind::Disconnection => {
                // Frames sent while the link is down are lost (pub/sub delivers at most
                // once): every exchange in flight through Redis ends now, rather than
                // waiting for what will never come.
                tracing::warn!("lost the connection to redis; reconnecting");
                lock(&cluster.shared.tunnels).clear();
                continue;
            }
            _ => continue,
        }
        let Some(Value::BulkString(payload)) = push.data.get(1) else { continue };
        let Some(frame) = Frame::parse(payload) else {
            tracing::debug!("ignored a malformed cluster message");
            continue;
        };
        cluster.receive(frame);
    }
}

impl Cluster {
    /// Acts on one frame from another instance.
    fn receive(&self, frame: Frame) {
        match frame {
            Frame::Request { tunnel, from, method, uri, headers, principal, body } => {
                // Known as served from now on, before its task runs: a probe or a
                // cancellation right behind it finds it.
                let serving = tunnel::Serving::start(self, (from.clone(), tunnel));
                let request = tunnel::Incoming { tunnel, from, method, uri, headers, principal, body };
                tokio::spawn(self.clone().serve_tunnel(request, serving));
            }
            Frame::Probe { tunnel, from } => {
                let known = lock(&self.shared.serving).contains_key(&(from.clone(), tunnel));
                let reply = match known {
                    true => Frame::Serving { tunnel },
                    false => Frame::Unknown { tunnel },
                };
                let cluster = self.clone();
                tokio::spawn(async move {
                    let _ = cluster.send(&from, &reply).await;
                });
            }
            Frame::Wanted { tunnel, from } => {
                if !lock(&self.shared.tunnels).contains_key(&tunnel) {
                    let (cluster, cancel) =
                        (self.clone(), Frame::Cancel { tunnel, from: self.shared.id.clone() });
                    tokio::spawn(async move {
                        let _ = cluster.send(&from, &cancel).await;
                    });
                }
            }
            Frame::Head { tunnel, .. }
            | Frame::Data { tunnel, .. }
            | Frame::End { tunnel }
            | Frame::Whole { tunnel, .. }
            | Frame::Gone { tunnel }
            | Frame::Serving { tunnel }
            | Frame::Unknown { tunnel } => {
                let mut tunnels = lock(&self.shared.tunnels);
                if let Some(sender) = tunnels.get(&tunnel) {
                    if sender.try_send(frame).is_err() {
                        // The client is not reading: its exchange is given up (the pump
                        // sees its channel closed and cancels the owner's side).
                        tunnels.remove(&tunnel);
                    }
                }
            }
            Frame::Cancel { tunnel, from } => {
                if let Some(token) = lock(&self.shared.serving).remove(&(from, tunnel)) {
                    token.cancel();
                }
            }
            Frame::TaskChanged { from, task } => {
                if from != self.shared.id {
                    if let Some(endpoint) = self.endpoint() {
                        endpoint.inner.server.inner.tasks.changed_elsewhere(&task);
                    }
                }
            }
            Frame::TaskSignal { task, signal } => match serde_json::from_value(signal) {
                Ok(signal) => self.receive_task_signal(task, signal),
                Err(e) => tracing::debug!("ignored a malformed task signal: {e}"),
            },
            Frame::Event { from, event } => {
                if from != self.shared.id {
                    if let Some(endpoint) = self.endpoint() {
                        endpoint.inner.server.publish_local(event.into());
                    }
                }
            }
        }
    }

    fn next_tunnel(&self) -> u64 {
        self.shared.next_tunnel.fetch_add(1, Ordering::Relaxed)
    }
}
