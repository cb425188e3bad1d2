//! The proxy's upstream connections, one set per kind of downstream client.
//!
//! A 2025 server over stdio sends `elicitation/create`, `sampling/createMessage` and
//! `roots/list` with nothing on the wire that names the request they belong to, and
//! decides what to offer (tools, start-up `roots/list`) from the capabilities the
//! connection declared at `initialize`. So the proxy connects upstream once per set of
//! client capabilities it has seen ([`Wants`]), declaring exactly that set, and a
//! request from a client that can be asked something holds a connection of its own
//! ([`Lease`]) while it runs: whatever the server asks on that connection belongs to
//! that request. Clients that can be asked nothing share one connection (the server may
//! not ask them anything), as do all requests to a 2026 server, whose questions come
//! back inside the result of the request that caused them.

use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use mcpwire::client::{Client, ClientOptions, RequestOptions, ServerChange};
use mcpwire::jsonrpc::{CallOptions, Peer};
use mcpwire::protocol::capabilities::ClientCapabilities;
use mcpwire::protocol::logging::LoggingMessageNotificationParams;
use mcpwire::protocol::mrtr::InputRequest;
use mcpwire::protocol::roots::ListRootsResult;
use mcpwire::protocol::{codes, methods, Era, ProtocolVersion};
use mcpwire::server::{Server, ServerEvent};
use mcpwire::McpError;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot, Notify};

use super::clients::Clients;
use crate::target::{self, Target};

/// Most upstream connections open at once (each a server process for a stdio target).
pub const MAX_CONNECTIONS: usize = 16;

/// Most questions a leased connection may have waiting for its request's handler.
pub const ASK_QUEUE: usize = 8;

/// The client capabilities that change what a server does, as one connection declares
/// them upstream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Wants {
    roots: bool,
    sampling: bool,
    sampling_tools: bool,
    elicit_form: bool,
    elicit_url: bool,
}

impl Wants {
    /// What a downstream client declared.
    pub fn of(caps: &ClientCapabilities) -> Wants {
        let elicitation = caps.elicitation.as_ref();
        Wants {
            roots: caps.roots.is_some(),
            sampling: caps.sampling.is_some(),
            sampling_tools: caps.sampling.as_ref().is_some_and(|s| s.tools.is_some()),
            elicit_form: elicitation.is_some_and(|e| e.supports_form()),
            elicit_url: elicitation.is_some_and(|e| e.supports_url()),
        }
    }

    /// Whether such a client offers roots.
    pub fn roots(&self) -> bool {
        self.roots
    }

    /// Whether a server may ask such a client anything.
    pub fn can_be_asked(&self) -> bool {
        self.roots || self.sampling || self.elicit_form || self.elicit_url
    }
}

/// A question the upstream server asked on a leased connection, for the request that
/// holds it; `reply` takes the client's answer (a JSON result) or an error.
pub struct Ask {
    /// The question.
    pub request: InputRequest,
    /// Where its answer goes.
    pub reply: oneshot::Sender<Result<Value, McpError>>,
}

/// Who a connection's questions and log messages go to while it is leased.
#[derive(Clone)]
pub struct Holder {
    /// The leasing request's handler reads questions here.
    pub asks: mpsc::Sender<Ask>,
    /// ... and log messages, which it forwards in order, before its answer.
    pub logs: LogSender,
}

/// Where an upstream log message goes: the handler of the downstream request it belongs
/// to, which forwards it in order with progress and before the answer (a task per
/// message could lose the race with the answer, after which nothing is sent).
pub type LogSender = mpsc::Sender<LoggingMessageNotificationParams>;

/// Log messages kept for a request whose handler is busy (more are dropped).
pub const LOG_QUEUE: usize = 256;

/// Queues a log message for its request's handler.
fn send_log(to: &LogSender, params: LoggingMessageNotificationParams) {
    if to.try_send(params).is_err() {
        tracing::debug!("a log message for a busy or finished request was dropped");
    }
}

type HolderSlot = Arc<Mutex<Option<Holder>>>;

/// The downstream 2025 client whose request last used a connection that declared roots
/// (or that last said its roots changed): a `roots/list` the server sends while no
/// request holds the connection (at start-up, after a change) is put to that client.
type RootsSlot = Arc<Mutex<Option<Peer>>>;

/// One upstream connection.
struct Conn {
    /// Its name in the pool (leases find it by this: the list changes as connections
    /// end and are replaced).
    id: u64,
    client: Client,
    wants: Wants,
    holder: HolderSlot,
    roots: RootsSlot,
    leased: bool,
    /// When it was last handed out ([`State::clock`]), for [`State::evict_idle`].
    used: u64,
    /// Requests using it as a shared connection now ([`SharedUse`]).
    users: usize,
    /// Those requests, for its log messages.
    active: Active,
}

impl Conn {
    /// From now on a `roots/list` outside a request goes to `client` (if given, and if
    /// this connection declared roots).
    fn roots_client(&self, client: Option<Peer>) {
        if let Some(client) = client.filter(|_| self.wants.roots) {
            *self.roots.lock().unwrap_or_else(|e| e.into_inner()) = Some(client);
        }
    }
}

/// The downstream requests in flight on one shared connection, for its log messages: a
/// 2025 server's messages name no request, so they reach the request in flight on that
/// connection when there is exactly one.
#[derive(Clone, Default)]
pub struct Active {
    requests: Arc<Mutex<Vec<(u64, LogSender)>>>,
    next: Arc<std::sync::atomic::AtomicU64>,
    /// Set once the upstream is known to be a 2026 server, whose log messages all belong
    /// to requests.
    stateless: Arc<std::sync::atomic::AtomicBool>,
}

/// Removes a request from [`Active`] when its handler ends (or is dropped).
pub struct ActiveGuard {
    active: Active,
    id: u64,
}

impl Drop for ActiveGuard {
    fn drop(&mut self) {
        self.active.requests.lock().unwrap_or_else(|e| e.into_inner()).retain(|(id, _)| *id != self.id);
    }
}

impl Active {
    /// Records a request as in flight until the guard drops; its log messages go to
    /// `logs`.
    pub fn enter(&self, logs: LogSender) -> ActiveGuard {
        let id = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.requests.lock().unwrap_or_else(|e| e.into_inner()).push((id, logs));
        ActiveGuard { active: self.clone(), id }
    }

    /// Whether the upstream is a 2026 server (see the field).
    fn stateless(&self) -> bool {
        self.stateless.load(std::sync::atomic::Ordering::Acquire)
    }

    fn single(&self) -> Option<LogSender> {
        match self.requests.lock().unwrap_or_else(|e| e.into_inner()).as_slice() {
            [(_, logs)] => Some(logs.clone()),
            _ => None,
        }
    }
}

/// How to open another upstream connection like the first.
pub struct Settings {
    /// The upstream server.
    pub target: Target,
    /// `--timeout` and the probe's.
    pub options: ClientOptions,
    /// `--protocol-version`, if given; later connections use the first one's version.
    pub version: Option<ProtocolVersion>,
    /// `--max-message-size`.
    pub max_message: usize,
    /// `--max-total-timeout`: progress starts a relayed request's timeout again.
    pub max_total_timeout: Option<Duration>,
}

struct State {
    conns: Vec<Conn>,
    /// Connections being opened, counted against [`MAX_CONNECTIONS`].
    opening: usize,
    next_id: u64,
    /// Counts hand-outs: a connection's `used` is this count when it was last handed out.
    clock: u64,
}

impl State {
    fn conn(&mut self, id: u64) -> Option<&mut Conn> {
        self.conns.iter_mut().find(|c| c.id == id)
    }

    /// Forgets the connections whose server is gone (a server process that died, a
    /// closed HTTP session): their slots are free for new ones. The first connection is
    /// kept: the proxy stops when it ends.
    fn drop_dead(&mut self) {
        self.conns.retain(|c| c.id == PRIMARY || !c.client.is_closed());
    }

    /// Makes room for one more connection by closing the idle connection of another kind
    /// that was used longest ago (never the first); `false` if every one is in use.
    fn evict_idle(&mut self, wants: Wants) -> bool {
        let idle = self
            .conns
            .iter()
            .enumerate()
            .filter(|(_, c)| c.id != PRIMARY && !c.leased && c.users == 0 && c.wants != wants)
            .min_by_key(|(_, c)| c.used)
            .map(|(i, _)| i);
        let Some(index) = idle else { return false };
        let conn = self.conns.remove(index);
        tokio::spawn(async move { conn.client.close().await });
        true
    }
}

/// The id of the first connection.
const PRIMARY: u64 = 0;

/// The upstream connections.
pub struct Pool {
    settings: Settings,
    state: Mutex<State>,
    freed: Notify,
    /// The bridge server, for list-change notifications (set once it is built).
    pub server: Arc<OnceLock<Server>>,
    /// Requests in flight on the first connection (the one a 2026 upstream has).
    pub active: Active,
    /// The downstream clients' connections.
    pub clients: Clients,
    primary: Client,
}

/// A shared connection in use by one request (see [`Pool::shared`]).
pub struct SharedUse {
    pool: Arc<Pool>,
    id: u64,
    /// The connection.
    pub client: Client,
    /// Its requests in flight.
    pub active: Active,
}

impl Drop for SharedUse {
    fn drop(&mut self) {
        if let Some(conn) = self.pool.lock().conn(self.id) {
            conn.users = conn.users.saturating_sub(1);
        }
    }
}

/// A connection held by one request; given back when dropped.
pub struct Lease {
    pool: Arc<Pool>,
    id: u64,
    /// The leased connection.
    pub client: Client,
}

impl Drop for Lease {
    fn drop(&mut self) {
        let mut state = self.pool.lock();
        if let Some(conn) = state.conn(self.id) {
            conn.leased = false;
            *conn.holder.lock().unwrap_or_else(|e| e.into_inner()) = None;
        }
        drop(state);
        self.pool.freed.notify_waiters();
    }
}

impl Pool {
    /// Opens the first connection, which declares no client capabilities: the bridge
    /// takes the server's identity and capabilities from it, and clients that can be
    /// asked nothing share it.
    pub async fn open(settings: Settings) -> anyhow::Result<Arc<Pool>> {
        let server = Arc::new(OnceLock::new());
        let active = Active::default();
        let (holder, roots) = (HolderSlot::default(), RootsSlot::default());
        let slots = (&holder, &roots);
        let builder = builder(Wants::default(), slots, &active, &server, &settings, settings.version.clone());
        let limit = settings.options.request_timeout;
        let primary = target::connect(&settings.target, builder, settings.max_message, limit, None).await?;
        active.stateless.store(primary.era() == Era::Stateless, std::sync::atomic::Ordering::Release);
        let conn = Conn {
            id: PRIMARY,
            client: primary.clone(),
            wants: Wants::default(),
            holder,
            roots,
            leased: false,
            used: 0,
            users: 0,
            active: active.clone(),
        };
        Ok(Arc::new(Pool {
            settings,
            state: Mutex::new(State { conns: vec![conn], opening: 0, next_id: PRIMARY + 1, clock: 0 }),
            freed: Notify::new(),
            server,
            active,
            clients: Clients::default(),
            primary,
        }))
    }

    /// The first connection.
    pub fn primary(&self) -> &Client {
        &self.primary
    }

    /// The options every relayed request starts from (`--max-total-timeout`).
    pub fn request_options(&self) -> RequestOptions {
        let options = RequestOptions::default();
        match self.settings.max_total_timeout {
            Some(max_total) => options.reset_timeout_on_progress(max_total),
            None => options,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A connection declaring `wants` that other requests may use at the same time: for
    /// listings, for clients that can be asked nothing, and for a 2026 server. `client`:
    /// the downstream client a `roots/list` outside a request goes to from now on. It is
    /// not closed to make room while the returned [`SharedUse`] lives.
    pub async fn shared(self: &Arc<Self>, wants: Wants, client: Option<Peer>) -> Result<SharedUse, McpError> {
        {
            let mut state = self.lock();
            state.drop_dead();
            state.clock += 1;
            let stamp = state.clock;
            if let Some(conn) = state.conns.iter_mut().find(|c| c.wants == wants) {
                conn.used = stamp;
                conn.users += 1;
                conn.roots_client(client);
                let (id, client, active) = (conn.id, conn.client.clone(), conn.active.clone());
                return Ok(SharedUse { pool: self.clone(), id, client, active });
            }
        }
        // A lease opens one; given back (when it drops here), it is left for sharing.
        let lease = self.lease(wants, None, client).await?;
        let active = self.lock().conn(lease.id).map_or_else(Active::default, |conn| {
            conn.users += 1;
            conn.active.clone()
        });
        Ok(SharedUse { pool: self.clone(), id: lease.id, client: lease.client.clone(), active })
    }

    /// A connection declaring `wants` for this request alone; `holder` (if any) gets what
    /// the server asks on it, from the moment it is opened, and `client` what it asks
    /// outside a request (see [`Pool::shared`]). Waits up to the request timeout for
    /// one to be free.
    pub async fn lease(
        self: &Arc<Self>,
        wants: Wants,
        holder: Option<Holder>,
        client: Option<Peer>,
    ) -> Result<Lease, McpError> {
        let deadline = tokio::time::Instant::now() + self.settings.options.request_timeout;
        loop {
            let freed = self.freed.notified();
            tokio::pin!(freed);
            freed.as_mut().enable();
            let open = {
                let mut state = self.lock();
                state.drop_dead();
                state.clock += 1;
                let stamp = state.clock;
                if let Some(conn) = state.conns.iter_mut().find(|c| c.wants == wants && !c.leased) {
                    conn.leased = true;
                    conn.used = stamp;
                    *conn.holder.lock().unwrap_or_else(|e| e.into_inner()) = holder;
                    conn.roots_client(client);
                    return Ok(Lease { pool: self.clone(), id: conn.id, client: conn.client.clone() });
                }
                let room = state.conns.len() + state.opening < MAX_CONNECTIONS || state.evict_idle(wants);
                if room {
                    state.opening += 1;
                }
                room
            };
            if open {
                return self.open_leased(wants, holder, client).await;
            }
            if tokio::time::timeout_at(deadline, freed).await.is_err() {
                return Err(McpError::new(
                    codes::INTERNAL_ERROR,
                    format!(
                        "mcpwire proxy: all {MAX_CONNECTIONS} upstream connections stayed busy; try again later"
                    ),
                ));
            }
        }
    }

    async fn open_leased(
        self: &Arc<Self>,
        wants: Wants,
        holder: Option<Holder>,
        client: Option<Peer>,
    ) -> Result<Lease, McpError> {
        let slot: HolderSlot = Arc::new(Mutex::new(holder));
        let roots: RootsSlot = Arc::new(Mutex::new(client.filter(|_| wants.roots)));
        let version = Some(self.primary.protocol_version().clone());
        let active = Active::default();
        let builder = builder(wants, (&slot, &roots), &active, &self.server, &self.settings, version);
        let (max, limit) = (self.settings.max_message, self.settings.options.request_timeout);
        let connected = target::connect(&self.settings.target, builder, max, limit, None).await;
        let opened = {
            let mut state = self.lock();
            state.opening -= 1;
            connected.map(|client| {
                let id = state.next_id;
                state.next_id += 1;
                state.clock += 1;
                let used = state.clock;
                state.conns.push(Conn {
                    id,
                    client: client.clone(),
                    wants,
                    holder: slot,
                    roots,
                    leased: true,
                    used,
                    users: 0,
                    active,
                });
                (id, client)
            })
        };
        let (id, client) = match opened {
            Ok(opened) => opened,
            Err(e) => {
                self.freed.notify_waiters();
                return Err(McpError::new(
                    codes::INTERNAL_ERROR,
                    format!("mcpwire proxy: cannot open another upstream connection: {e:#}"),
                ));
            }
        };
        self.shut_down_when_ended(id, &client);
        set_log_level(&client).await;
        Ok(Lease { pool: self.clone(), id, client })
    }

    /// Once connection `id` ends by itself (its server exited or hung up, its HTTP
    /// session closed), it leaves the pool, freeing its slot, and is shut down: a server
    /// that broke the connection but still runs is stopped then (stdin closed, then
    /// signals), not when a later request happens to look for a connection. One that was
    /// taken out of the pool first (evicted, or shutting down) is closed by whoever took
    /// it. (The first connection's end stops the proxy.)
    fn shut_down_when_ended(self: &Arc<Self>, id: u64, client: &Client) {
        let (pool, client) = (Arc::downgrade(self), client.clone());
        tokio::spawn(async move {
            client.peer().closed().await;
            let Some(pool) = pool.upgrade() else { return };
            let in_pool = {
                let mut state = pool.lock();
                let before = state.conns.len();
                state.conns.retain(|c| c.id != id);
                state.conns.len() < before
            };
            pool.freed.notify_waiters();
            if in_pool {
                client.close().await;
            }
        });
    }

    /// A downstream 2025 client's roots changed: every connection that declared roots
    /// to a 2025 server passes the notification on, and the server's `roots/list` that
    /// follows (outside a request) is put to that client. Connections are shared by
    /// clients of one kind, so the server's roots are those of the client that last
    /// told it about them.
    pub async fn roots_changed(&self, client: &Peer) {
        if self.primary.era() != Era::Stateful {
            return;
        }
        let told: Vec<Client> = {
            let state = self.lock();
            state
                .conns
                .iter()
                .filter(|c| c.wants.roots)
                .map(|c| {
                    *c.roots.lock().unwrap_or_else(|e| e.into_inner()) = Some(client.clone());
                    c.client.clone()
                })
                .collect()
        };
        for upstream in told {
            upstream.notify_roots_changed().await;
        }
    }

    /// Every connection, taken out of the pool for shutting them down.
    pub fn take_clients(&self) -> Vec<Client> {
        self.lock().conns.drain(..).map(|c| c.client).collect()
    }
}

/// Asks the server for every log message, on every connection (a 2025 server by
/// `logging/setLevel`, a 2026 one in each request's `_meta`): each downstream request
/// then gets what its own level asks for (the bridge's `ctx.log` filters).
pub async fn set_log_level(client: &Client) {
    let logs =
        client.era() == Era::Stateless || client.server_capabilities().is_some_and(|c| c.logging.is_some());
    if !logs {
        return;
    }
    if let Ok(debug) = serde_json::from_value(Value::String("debug".into())) {
        if let Err(e) = client.set_log_level(debug).await {
            tracing::debug!("setting the upstream log level failed: {e}");
        }
    }
}

fn no_request(what: &str) -> McpError {
    McpError::new(
        codes::INTERNAL_ERROR,
        format!("mcpwire proxy: no client request is in flight on this connection to carry {what} to"),
    )
}

/// Puts one question to the connection's holder and waits for the answer.
async fn ask<R: DeserializeOwned>(
    slot: &HolderSlot,
    what: &str,
    request: InputRequest,
) -> Result<R, McpError> {
    let holder = slot.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let Some(holder) = holder else { return Err(no_request(what)) };
    let (reply, answer) = oneshot::channel();
    holder.asks.send(Ask { request, reply }).await.map_err(|_| no_request(what))?;
    let value = answer.await.map_err(|_| no_request(what))??;
    serde_json::from_value(value).map_err(|e| McpError::new(codes::INTERNAL_ERROR, format!("{what}: {e}")))
}

/// The answer to a server's `roots/list`: from the request holding the connection, or
/// else from the client that last said its roots changed.
async fn roots(holder: &HolderSlot, rest: &RootsSlot, limit: Duration) -> Result<ListRootsResult, McpError> {
    let held = holder.lock().unwrap_or_else(|e| e.into_inner()).is_some();
    let client = rest.lock().unwrap_or_else(|e| e.into_inner()).clone();
    match client {
        Some(client) if !held => {
            let options = CallOptions::default().timeout(limit);
            let raw = client.request_raw(methods::ROOTS_LIST, None, options).await.map_err(|e| {
                McpError::new(codes::INTERNAL_ERROR, format!("mcpwire proxy: roots/list: {e}"))
            })?;
            serde_json::from_str(raw.get())
                .map_err(|e| McpError::new(codes::INTERNAL_ERROR, format!("mcpwire proxy: roots/list: {e}")))
        }
        _ => ask(holder, "roots/list", InputRequest::ListRoots(None)).await,
    }
}

/// A client builder declaring `wants`, whose questions go to the connection's holder
/// (`slots`: the holder, and the client asked for roots when there is none).
fn builder(
    wants: Wants,
    (holder, rest): (&HolderSlot, &RootsSlot),
    active: &Active,
    server: &Arc<OnceLock<Server>>,
    settings: &Settings,
    version: Option<ProtocolVersion>,
) -> mcpwire::client::ClientBuilder {
    // No tasks: a task result would reach clients that did not ask for one, and the
    // proxy does not relay `tasks/*` (see `advertised`).
    let mut b = Client::builder("mcpwire-proxy", env!("CARGO_PKG_VERSION"))
        .options(settings.options.clone())
        .without_tasks();
    if let Some(version) = version {
        b = b.protocol_version(version);
    }
    if wants.elicit_form || wants.elicit_url {
        let slot = holder.clone();
        b = b
            .on_elicitation(move |params| {
                let slot = slot.clone();
                async move { ask(&slot, "elicitation", InputRequest::Elicit(params)).await }
            })
            .elicitation_url(wants.elicit_url);
    }
    if wants.sampling {
        let slot = holder.clone();
        b = b
            .on_sampling(move |params| {
                let slot = slot.clone();
                async move { ask(&slot, "sampling", InputRequest::CreateMessage(params)).await }
            })
            .sampling_tools(wants.sampling_tools);
    }
    if wants.roots {
        let (slot, rest, limit) = (holder.clone(), rest.clone(), settings.options.request_timeout);
        b = b.on_roots(move || {
            let (slot, rest) = (slot.clone(), rest.clone());
            async move { roots(&slot, &rest, limit).await }
        });
    }
    let (slot, active, bridge) = (holder.clone(), active.clone(), server.clone());
    b = b.on_log(move |params| {
        let holder = slot.lock().unwrap_or_else(|e| e.into_inner()).as_ref().map(|h| h.logs.clone());
        match holder.or_else(|| active.single()) {
            Some(logs) => send_log(&logs, params),
            // A 2026 server logs only for a request (it sent the request's logLevel), and
            // nothing on the wire says which: with several in flight, one of their
            // clients' messages must not reach every other client.
            None if active.stateless() => {
                tracing::debug!("dropped a log message of one of several requests in flight upstream");
            }
            // Outside a request (a 2025 server may log at any time): to every 2025
            // client, each at its own level. 2026 clients take logs only with a request.
            None => {
                if let Some(bridge) = bridge.get() {
                    bridge.log(params.level, params.logger.as_deref(), &params.data);
                }
            }
        }
    });
    let server = server.clone();
    b.on_change(move |change| {
        let Some(server) = server.get() else { return };
        server.notify(match change {
            ServerChange::ToolsChanged => ServerEvent::ToolsChanged,
            ServerChange::PromptsChanged => ServerEvent::PromptsChanged,
            ServerChange::ResourcesChanged => ServerEvent::ResourcesChanged,
            ServerChange::ResourceUpdated(uri) => ServerEvent::ResourceUpdated(uri),
        });
    })
}

/// How long an unanswered question may wait for a 2026 client's retry.
pub fn park_time(options: &ClientOptions) -> Duration {
    options.request_timeout
}

impl Pool {
    /// The options every connection uses.
    pub fn options(&self) -> &ClientOptions {
        &self.settings.options
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn wants_follow_the_declared_capabilities() {
        let caps: ClientCapabilities = serde_json::from_value(serde_json::json!({
            "elicitation": {}, "sampling": { "tools": {} }, "experimental": { "x": {} }
        }))
        .unwrap();
        let w = Wants::of(&caps);
        assert!(w.elicit_form && !w.elicit_url && w.sampling && w.sampling_tools && !w.roots);
        assert!(w.can_be_asked());
        assert!(!Wants::of(&ClientCapabilities::default()).can_be_asked());
    }
}
