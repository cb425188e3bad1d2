//! What a 2025 session knows about its client: the version and capabilities agreed at
//! `initialize`, its log level, the resources it follows, and the connection its change
//! notifications go to. Every request of the session reaches it through its context.

use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::{Arc, Mutex, OnceLock};

use mcpwire_protocol::capabilities::ClientCapabilities;
use mcpwire_protocol::lifecycle::Implementation;
use mcpwire_protocol::logging::LoggingLevel;
use mcpwire_protocol::ProtocolVersion;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::jsonrpc::Peer;

/// What a 2025 session knows about its client after `initialize`. One lives as long as
/// its session, idle or not, so it is kept small: the client's capabilities and identity
/// are kept as their JSON text and read back only when a handler asks (rarely, and once
/// per session), and a client that never subscribes has no subscription set.
#[derive(Debug)]
pub(crate) struct SessionInfo {
    pub(crate) version: ProtocolVersion,
    capabilities: Compact<ClientCapabilities>,
    client_info: Compact<Implementation>,
    /// `logging/setLevel`; `None` sends every level.
    pub(crate) log_level: Mutex<Option<LoggingLevel>>,
    /// URIs the client subscribed to with `resources/subscribe` (`None` until the first).
    subscriptions: Mutex<Subscriptions>,
    /// The session's connection, for the change notifications pushed to it.
    pub(crate) peer: Peer,
    /// A random id that marks the tasks this session created (only it sees them), drawn
    /// when first needed: drawing it is a system call, and most sessions (every
    /// session-less 2025 request has one) never create a task.
    task_owner: OnceLock<u64>,
    /// Whether the session offers 2025-11-25 core tasks: not a session-less request's,
    /// which keeps nothing for the next request to poll.
    pub(crate) offers_tasks: bool,
    /// Set when the client's `notifications/initialized` arrives: until then the server
    /// sends it only pings and log messages (no requests, no change notifications).
    initialized: tokio::sync::SetOnce<()>,
}

/// How long a server-to-client request waits for a client's `notifications/initialized`
/// before it is sent anyway (a client that never sends it still gets its questions).
const INITIALIZED_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// The most resources one 2025 session follows at once (and one 2026 listen stream, which
/// follows as many tasks at most too): a client cannot grow a session's or a stream's
/// memory without bound by subscribing to ever new URIs.
pub(crate) const MAX_SUBSCRIPTIONS: usize = 4096;

/// The most bytes of URI text one 2025 session follows at once: with
/// [`MAX_SUBSCRIPTIONS`], a session's subscriptions stay bounded however long the URIs a
/// client names (a request may be megabytes long).
pub(crate) const MAX_SUBSCRIPTION_BYTES: usize = 1 << 20;

/// A session's resource subscriptions. Boxed: a set is 48 bytes inline even when empty,
/// a pointer is 8, and most sessions never subscribe.
type Subscriptions = Option<Box<Followed>>;

/// The resources a 2025 session follows, and who to tell when it stops following them.
/// Made at the session's first subscribe and kept (its set's memory goes back once it is
/// empty), so that its turn is the same for every subscribe of the session.
struct Followed {
    uris: HashSet<String>,
    /// The bytes of `uris`' text.
    bytes: usize,
    on_end: Option<super::UnsubscribeHook>,
    /// Held while a `resources/subscribe` or `unsubscribe` is served, so two for one URI
    /// at once tell the subscribe hook once, and each takes effect in turn. Here, not in
    /// every session: most never subscribe.
    turn: Arc<tokio::sync::Mutex<()>>,
}

impl std::fmt::Debug for Followed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Followed").field("uris", &self.uris).finish_non_exhaustive()
    }
}

/// The capabilities of a client that declared none.
pub(crate) static NO_CAPABILITIES: std::sync::LazyLock<ClientCapabilities> =
    std::sync::LazyLock::new(ClientCapabilities::default);

/// A value kept as its compact JSON text (empty for the type's default), parsed back on
/// first use: a typed `ClientCapabilities` or `Implementation` is several hundred bytes
/// of mostly empty fields and separate allocations, its JSON a few dozen bytes.
/// The text is borrowed when it is the same for every session (made once).
#[derive(Debug)]
struct Compact<T> {
    json: Cow<'static, str>,
    value: OnceLock<Option<Box<T>>>,
}

impl<T: Serialize + DeserializeOwned> Compact<T> {
    fn new(value: &T) -> Self {
        let json = serde_json::to_string(value).unwrap_or_default();
        Compact { json: Cow::Owned(json), value: OnceLock::new() }
    }

    /// A value's text made once, for values many sessions share.
    fn shared(json: &'static str) -> Self {
        Compact { json: Cow::Borrowed(json), value: OnceLock::new() }
    }

    /// Like [`Compact::new`], with nothing stored for the default (no allocation).
    fn unless_default(value: &T) -> Self
    where
        T: Default + PartialEq,
    {
        if *value == T::default() {
            return Compact::shared("");
        }
        Self::new(value)
    }

    /// The value; `None` for a default kept as nothing (or, defensively, for text that
    /// does not parse back).
    fn get(&self) -> Option<&T> {
        let parsed = || (!self.json.is_empty()).then(|| serde_json::from_str(&self.json).ok().map(Box::new));
        self.value.get_or_init(|| parsed().flatten()).as_deref()
    }
}

/// The end of a session ends what it followed: the unsubscribe hook hears of each.
impl Drop for SessionInfo {
    fn drop(&mut self) {
        let followed = self.subscriptions.get_mut().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(Followed { uris, on_end: Some(hook), .. }) = followed.map(|f| *f) {
            for uri in &uris {
                hook(uri);
            }
        }
    }
}

impl SessionInfo {
    /// A session at `version` with what the client sent in `initialize`.
    pub(crate) fn new(
        version: ProtocolVersion,
        capabilities: &ClientCapabilities,
        client_info: &Implementation,
        peer: Peer,
    ) -> Self {
        Self::of(version, Compact::unless_default(capabilities), Compact::new(client_info), peer)
    }

    /// The session a session-less 2025 request runs in: at `version`, initialized, for a
    /// client that declared no capabilities and whose identity is `client_info`, text made
    /// once (every such request has a session of its own).
    #[cfg(feature = "http")]
    pub(crate) fn assumed(version: ProtocolVersion, client_info: &'static str, peer: Peer) -> Self {
        let mut session = Self::of(version, Compact::shared(""), Compact::shared(client_info), peer);
        session.offers_tasks = false;
        session.mark_initialized();
        session
    }

    /// A new session, its client's capabilities and identity kept as given.
    fn of(
        version: ProtocolVersion,
        capabilities: Compact<ClientCapabilities>,
        client_info: Compact<Implementation>,
        peer: Peer,
    ) -> Self {
        SessionInfo {
            version,
            capabilities,
            client_info,
            log_level: Mutex::new(None),
            subscriptions: Mutex::new(None),
            peer,
            task_owner: OnceLock::new(),
            offers_tasks: true,
            initialized: tokio::sync::SetOnce::new(),
        }
    }

    /// The client sent `notifications/initialized` (or the session is set up without one:
    /// a session-less request's, or one taken over in a cluster).
    pub(crate) fn mark_initialized(&self) {
        let _ = self.initialized.set(());
    }

    /// Whether the client has finished initializing.
    pub(crate) fn is_initialized(&self) -> bool {
        self.initialized.initialized()
    }

    /// Waits for `notifications/initialized`, at most [`INITIALIZED_WAIT`].
    pub(crate) async fn until_initialized(&self) {
        if !self.is_initialized()
            && tokio::time::timeout(INITIALIZED_WAIT, self.initialized.wait()).await.is_err()
        {
            tracing::warn!("the client has not sent notifications/initialized; sending a request anyway");
        }
    }

    /// The id that marks this session's tasks (see the field).
    pub(crate) fn task_owner(&self) -> u64 {
        *self.task_owner.get_or_init(random_u64)
    }

    /// The capabilities the client declared at `initialize`.
    pub(crate) fn capabilities(&self) -> &ClientCapabilities {
        self.capabilities.get().unwrap_or(&NO_CAPABILITIES)
    }

    /// The client's name and version.
    pub(crate) fn client_info(&self) -> Option<&Implementation> {
        self.client_info.get()
    }

    fn subscriptions(&self) -> std::sync::MutexGuard<'_, Subscriptions> {
        self.subscriptions.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The session's turn to change what it follows (see [`Followed::turn`]); `on_end` is
    /// the hook told of each URI the session stops following.
    pub(crate) fn subscription_turn(
        &self,
        on_end: Option<&super::UnsubscribeHook>,
    ) -> Arc<tokio::sync::Mutex<()>> {
        let mut subscriptions = self.subscriptions();
        let followed = subscriptions.get_or_insert_with(|| {
            Box::new(Followed {
                uris: HashSet::new(),
                bytes: 0,
                on_end: on_end.cloned(),
                turn: Default::default(),
            })
        });
        followed.turn.clone()
    }

    /// `resources/subscribe`, in the session's turn.
    pub(crate) fn subscribe(&self, uri: String) {
        if let Some(followed) = self.subscriptions().as_mut() {
            let len = uri.len();
            if followed.uris.insert(uri) {
                followed.bytes += len;
            }
        }
    }

    /// `resources/unsubscribe` (the hook is told), in the session's turn; the set's
    /// memory goes back once it is empty.
    pub(crate) fn unsubscribe(&self, uri: &str) {
        let on_end = {
            let mut subscriptions = self.subscriptions();
            let Some(followed) = subscriptions.as_mut() else { return };
            if !followed.uris.remove(uri) {
                return;
            }
            followed.bytes -= uri.len();
            if followed.uris.is_empty() {
                followed.uris = HashSet::new();
            }
            followed.on_end.clone()
        };
        if let Some(hook) = on_end {
            hook(uri);
        }
    }

    /// Whether the client subscribed to `uri`.
    pub(crate) fn is_subscribed(&self, uri: &str) -> bool {
        self.subscriptions().as_ref().is_some_and(|followed| followed.uris.contains(uri))
    }

    /// Whether the session may follow `uri` as well: at most [`MAX_SUBSCRIPTIONS`] URIs
    /// of [`MAX_SUBSCRIPTION_BYTES`] in all.
    pub(crate) fn has_room_for(&self, uri: &str) -> bool {
        self.subscriptions().as_ref().is_none_or(|followed| {
            followed.uris.len() < MAX_SUBSCRIPTIONS && followed.bytes + uri.len() <= MAX_SUBSCRIPTION_BYTES
        })
    }

    /// Sends a notification to the client without waiting, so that a client that does not
    /// read never holds up the other sessions: a stdio session whose queue is full misses
    /// it, with a warning; a 2025 HTTP session routes it at once to its GET stream, whose
    /// own bounded queue drops a connection that does not read.
    pub(crate) fn push(&self, method: &str, params: Option<mcpwire_protocol::RawJson>) {
        let message =
            mcpwire_protocol::Message::Notification(mcpwire_protocol::Notification::new(method, params));
        if self.peer.try_send(crate::transport::Outgoing::new(message, None)).is_err()
            && !self.peer.is_closed()
        {
            tracing::warn!(method, "a session missed a change notification: its queue is full");
        }
    }
}

/// A random number (0 if the system has no randomness: the session's tasks are then
/// told apart from other sessions' by their unguessable ids alone).
fn random_u64() -> u64 {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_or(0, |()| u64::from_le_bytes(bytes))
}
