//! The table of 2025 sessions: bounded, with idle expiry.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use mcpwire_protocol::ProtocolVersion;

use super::session::Session;
use super::HttpSettings;
use crate::server::Server;

/// Sessions by id. The key is the id's 128 bits rather than its text: no second copy of
/// every id (the session has one), and a smaller table.
pub(crate) struct SessionTable {
    /// Keyed by the session id's 128 random bits, which the server drew itself.
    map: Mutex<HashMap<u128, Arc<Session>, foldhash::fast::FixedState>>,
    max: usize,
    /// The shortest time a session may idle: the reaper looks a quarter of it apart (each
    /// session's own expiry is its settings', `Session::is_expired`).
    shortest_idle: Duration,
    reaper_started: AtomicBool,
    /// The cluster whose records of expired sessions this table deletes.
    #[cfg(feature = "redis")]
    cluster: Option<super::cluster::Cluster>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A session id: 128 random bits, as 32 lowercase hex characters (visible ASCII).
fn new_session_id() -> Option<(u128, String)> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).ok()?;
    let key = u128::from_be_bytes(bytes);
    Some((key, format!("{key:032x}")))
}

/// The table key of a session id as clients send it back: exactly the 32 lowercase hex
/// characters this server minted, anything else names no session.
fn key_of(id: &str) -> Option<u128> {
    // One pass, a nibble per character.
    if id.len() != 32 {
        return None;
    }
    id.bytes().try_fold(0u128, |key, b| {
        let nibble = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            _ => return None,
        };
        Some(key << 4 | u128::from(nibble))
    })
}

impl SessionTable {
    /// A table of at most `max` sessions, the shortest of whose idle timeouts is
    /// `shortest_idle`.
    pub(crate) fn new(max: usize, shortest_idle: Duration) -> Self {
        SessionTable {
            map: Mutex::new(HashMap::default()),
            max: max.max(1),
            shortest_idle,
            reaper_started: AtomicBool::new(false),
            #[cfg(feature = "redis")]
            cluster: None,
        }
    }

    /// The table of one instance of `cluster`: an expired session's record goes too.
    #[cfg(feature = "redis")]
    pub(crate) fn in_cluster(mut self, cluster: Option<super::cluster::Cluster>) -> Self {
        self.cluster = cluster;
        self
    }

    pub(crate) fn len(&self) -> usize {
        lock(&self.map).len()
    }

    /// Starts a session, unless the table is full (after dropping expired ones). The
    /// check and the insertion happen under one lock, so concurrent `initialize`s never
    /// take the table past its bound.
    pub(crate) fn create(
        self: &Arc<Self>,
        server: &Server,
        settings: &Arc<HttpSettings>,
        principal: Option<String>,
        version: ProtocolVersion,
    ) -> Result<Arc<Session>, ()> {
        self.start_reaper();
        if self.len() >= self.max {
            self.reap();
        }
        let (key, id) = new_session_id().ok_or(())?;
        let mut map = lock(&self.map);
        if map.len() >= self.max {
            return Err(());
        }
        let session = Session::start(server, settings.clone(), id, principal, version, 1);
        map.insert(key, session.clone());
        Ok(session)
    }

    /// Starts a session under an id another instance of a cluster minted (a takeover),
    /// numbering its streams from `first_stream` so that their names differ from the
    /// previous owner's; `None` if the id is malformed, taken here, or the table is full.
    #[cfg(feature = "redis")]
    pub(crate) fn adopt(
        self: &Arc<Self>,
        server: &Server,
        settings: &Arc<HttpSettings>,
        id: &str,
        principal: Option<String>,
        version: ProtocolVersion,
        first_stream: u64,
    ) -> Option<Arc<Session>> {
        self.start_reaper();
        let key = key_of(id)?;
        let mut map = lock(&self.map);
        if map.len() >= self.max || map.contains_key(&key) {
            return None;
        }
        let session =
            Session::start(server, settings.clone(), id.to_owned(), principal, version, first_stream);
        map.insert(key, session.clone());
        Some(session)
    }

    /// The session `id` names, unless at `now` it has been idle past its timeout: such a
    /// session is as good as reaped (the reaper, which looks only now and then, ends it).
    pub(crate) fn get(&self, id: &str, now: Instant) -> Option<Arc<Session>> {
        let session = lock(&self.map).get(&key_of(id)?).cloned()?;
        session.is_live_at(now).then_some(session)
    }

    /// Whether the table holds session `id`, expired or not.
    #[cfg(feature = "redis")]
    pub(crate) fn holds(&self, id: &str) -> bool {
        key_of(id).is_some_and(|key| lock(&self.map).contains_key(&key))
    }

    pub(crate) fn remove(&self, id: &str) -> Option<Arc<Session>> {
        lock(&self.map).remove(&key_of(id)?)
    }

    pub(crate) fn close_all(&self) {
        let sessions: Vec<_> = lock(&self.map).drain().map(|(_, s)| s).collect();
        for s in sessions {
            s.close();
        }
    }

    /// Ends expired sessions.
    fn reap(&self) {
        let now = Instant::now();
        let expired: Vec<Arc<Session>> = {
            let mut map = lock(&self.map);
            let ids: Vec<u128> = map.iter().filter(|(_, s)| s.is_expired(now)).map(|(id, _)| *id).collect();
            ids.iter().filter_map(|id| map.remove(id)).collect()
        };
        for s in expired {
            tracing::debug!(session = %s.id, "session expired");
            #[cfg(feature = "redis")]
            if let Some(cluster) = &self.cluster {
                cluster.forget_session(&s.id);
            }
            s.close();
        }
    }

    /// Checks for expired sessions periodically, while the table exists.
    fn start_reaper(self: &Arc<Self>) {
        if self.reaper_started.swap(true, Ordering::AcqRel) {
            return;
        }
        let weak: Weak<SessionTable> = Arc::downgrade(self);
        let period = (self.shortest_idle / 4).clamp(Duration::from_millis(50), Duration::from_secs(30));
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(period).await;
                let Some(table) = weak.upgrade() else { return };
                table.reap();
            }
        });
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// A session past its idle timeout is not served, though the reaper (which looks a
    /// quarter of the shortest timeout apart, here 30 s) has not ended it yet.
    #[tokio::test]
    async fn an_expired_session_is_not_found_before_the_reaper_ends_it() {
        let server = crate::server::Server::builder("t", "1").build().unwrap();
        let idle = Duration::from_millis(50);
        let settings = Arc::new(HttpSettings {
            session_idle_timeout: idle,
            uninitialized_session_timeout: idle,
            ..HttpSettings::default()
        });
        let table = Arc::new(SessionTable::new(4, Duration::from_secs(3600)));
        let session = table.create(&server, &settings, None, ProtocolVersion::LATEST_STATEFUL).unwrap();
        assert!(table.get(&session.id, Instant::now()).is_some());
        tokio::time::sleep(idle * 3).await;
        assert!(table.get(&session.id, Instant::now()).is_none(), "an expired session was served");
        assert_eq!(table.len(), 1, "the reaper has not run");
    }

    #[test]
    fn a_minted_id_is_its_key_in_hex() {
        for _ in 0..100 {
            let Some((key, id)) = new_session_id() else { continue };
            assert_eq!(id.len(), 32);
            assert_eq!(key_of(&id), Some(key));
        }
    }

    #[test]
    fn only_ids_this_server_could_mint_have_a_key() {
        let id = "0123456789abcdef0123456789abcdef";
        assert_eq!(key_of(id), Some(0x0123_4567_89ab_cdef_0123_4567_89ab_cdef));
        assert_eq!(key_of(&"f".repeat(32)), Some(u128::MAX));
        assert_eq!(key_of(&"0".repeat(32)), Some(0));
        for other in [
            "",
            "0123456789ABCDEF0123456789ABCDEF",
            "+123456789abcdef0123456789abcdef",
            "0123456789abcdef0123456789abcde",
            "0123456789abcdef0123456789abcdef0",
            "0123456789abcdeg0123456789abcdef",
            "é123456789abcdef0123456789abcde",
        ] {
            assert_eq!(key_of(other), None, "{other:?}");
        }
    }
}
