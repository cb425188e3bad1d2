//! [`HttpSettings`]: the endpoint's bounds, timeouts and modes, each with a default.

use std::sync::Arc;
use std::time::Duration;

#[cfg(feature = "redis")]
use super::cluster;
#[cfg(doc)]
use super::{serve, McpService};
use super::{stateless, EventStore, HostPolicy, MemoryEventStore};

/// Settings of the endpoint, given to [`McpService::with_settings`]. Every bound has a
/// default: set the ones to change and take the rest from `HttpSettings::default()`
/// (`HttpSettings { max_body_bytes: 1 << 20, ..HttpSettings::default() }`).
#[derive(Clone)]
pub struct HttpSettings {
    /// Largest accepted request body (default 4 MiB; larger answers 413).
    pub max_body_bytes: usize,
    /// Most 2025 sessions at once (default 10,000; beyond it, 503).
    pub max_sessions: usize,
    /// A 2025 session idle this long expires (default 30 minutes).
    pub session_idle_timeout: Duration,
    /// A 2025 session whose client has not sent `notifications/initialized` expires once
    /// idle this long (default 10 s, at most `session_idle_timeout`): a client sends it as
    /// soon as its `initialize` is answered, and half-opened sessions must not hold the
    /// places of `max_sessions` for the whole idle timeout.
    pub uninitialized_session_timeout: Duration,
    /// 2025: answer every POST with one JSON body, with no back channel for what a
    /// handler sends before its answer. Without it, a single request answered before
    /// anything else was sent for it (a handler that answers at its first poll) gets
    /// JSON, and any other gets an SSE stream (resumable, with its priming event).
    pub json_response: bool,
    /// 2025: serve without sessions: no `Mcp-Session-Id` is minted or required, GET and
    /// DELETE answer 405, and each POST runs in a throwaway session (no resumption, no
    /// client capabilities unless the POST is `initialize` itself, so no requests to the
    /// client; no `notifications/cancelled` across POSTs: closing the response cancels
    /// instead; a `logging/setLevel` is answered but lasts only for its own POST; no
    /// 2025-11-25 core tasks, which no later POST could poll: `params.task` is ignored).
    ///
    /// This is what other SDKs call the 2025 "stateless mode" (the Python SDK's
    /// `stateless_http`, the TypeScript SDK's transport without a session id generator).
    /// Here "stateless" names the 2026 era alone, which needs no setting: 2026 requests
    /// are always served without sessions, whatever this says.
    pub sessionless: bool,
    /// Where 2025 SSE events are kept for resumption (default: in memory, bounded);
    /// `None` disables resumption.
    pub event_store: Option<Arc<dyn EventStore>>,
    /// The `retry` sent in priming events, in milliseconds (default 1000).
    pub sse_retry_ms: u64,
    /// Messages queued per response stream before a slow reader's connection is dropped
    /// (default 256).
    pub stream_queue: usize,
    /// No longer used: a session's messages are taken in by the POSTs that bring them,
    /// with no queue in between (a POST waits instead when the session already runs
    /// [`DispatcherConfig::max_in_flight`](crate::jsonrpc::DispatcherConfig::max_in_flight)
    /// requests). Kept so that settings written for earlier versions still compile.
    pub session_queue: usize,
    /// How long a 2026 response may stay uncommitted, and the SSE keep-alive interval of
    /// both eras' streams: a comment after this long without an event (default 15 s;
    /// zero turns the comments off on 2025 session streams).
    pub keep_alive: Duration,
    /// Accepted `Host` and `Origin` values.
    pub hosts: HostPolicy,
    /// Most TCP connections [`serve`] keeps open at once (default 1024). One more is
    /// answered `503` with `Retry-After` and closed. (A service mounted in another server
    /// is bounded by that server.)
    pub max_connections: usize,
    /// Most requests served at once without a session: 2026-era POSTs and
    /// [`sessionless`](Self::sessionless) POSTs, streams included (default 1024).
    /// One more is answered `503` with `Retry-After` and a JSON-RPC error.
    pub max_concurrent_requests: usize,
    /// Most requests of 2025 sessions in flight at once, all sessions together (default
    /// 16384: the largest batch, 10,000 requests, fits). Each session may run up to
    /// [`DispatcherConfig::max_in_flight`](crate::jsonrpc::DispatcherConfig::max_in_flight);
    /// this bounds them together, so that many sessions each with thousands of requests
    /// waiting (on a client that never answers a server's question, for one) cannot hold
    /// the process's memory. A POST whose requests do not all fit is answered `503` with
    /// `Retry-After`, none of them delivered.
    pub max_session_requests: usize,
    /// How long [`serve`] gives a connection to send a request head, the idle time
    /// between keep-alive requests included (default 30 s). A connection past it is
    /// closed, so slow or idle clients cannot hold every connection slot. Zero turns the
    /// limit off.
    pub head_timeout: Duration,
    /// How long a POST's body may take to arrive, from when the endpoint first waits for
    /// it (default 60 s). Past it the request is answered `408` and its connection
    /// closed, so a client cannot hold a connection by trickling a body. Zero turns the
    /// limit off.
    pub body_timeout: Duration,
    /// How long [`serve`] lets a response write wait without progress, the client
    /// reading nothing, before it closes the connection (default 60 s). It runs only
    /// while a write waits, so idle connections and quiet streams are not affected, and
    /// a slow reader that keeps reading keeps its connection. Zero turns the limit off.
    pub write_timeout: Duration,
    /// Serve as one instance of a cluster sharing state through Redis (default `None`:
    /// this process alone). [`cluster::Cluster::service`] sets it.
    #[cfg(feature = "redis")]
    pub cluster: Option<cluster::Cluster>,
}

impl Default for HttpSettings {
    fn default() -> Self {
        HttpSettings {
            max_body_bytes: 4 * 1024 * 1024,
            max_sessions: 10_000,
            session_idle_timeout: Duration::from_secs(30 * 60),
            uninitialized_session_timeout: Duration::from_secs(10),
            json_response: false,
            sessionless: false,
            event_store: Some(Arc::new(MemoryEventStore::default())),
            sse_retry_ms: 1000,
            stream_queue: 256,
            session_queue: 256,
            keep_alive: stateless::DEFAULT_KEEP_ALIVE,
            hosts: HostPolicy::default(),
            max_connections: 1024,
            max_concurrent_requests: 1024,
            max_session_requests: 16384,
            head_timeout: Duration::from_secs(30),
            body_timeout: Duration::from_secs(60),
            write_timeout: Duration::from_secs(60),
            #[cfg(feature = "redis")]
            cluster: None,
        }
    }
}

impl std::fmt::Debug for HttpSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpSettings")
            .field("max_body_bytes", &self.max_body_bytes)
            .field("max_sessions", &self.max_sessions)
            .field("session_idle_timeout", &self.session_idle_timeout)
            .field("uninitialized_session_timeout", &self.uninitialized_session_timeout)
            .field("json_response", &self.json_response)
            .field("sessionless", &self.sessionless)
            .field("resumable", &self.event_store.is_some())
            .field("max_connections", &self.max_connections)
            .field("max_concurrent_requests", &self.max_concurrent_requests)
            .field("max_session_requests", &self.max_session_requests)
            .field("head_timeout", &self.head_timeout)
            .field("body_timeout", &self.body_timeout)
            .field("write_timeout", &self.write_timeout)
            .finish()
    }
}
