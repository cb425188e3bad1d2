//! The table of 2025 sessions: bounded, with idle expiry.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use mcpwire_protocol::ProtocolVersion;

use super::session::Session;
use super::HttpSettings;
use crate::server::Server;

pub(crate) struct SessionTable {
    map: Mutex<HashMap<String, Arc<Session>>>,
    max: usize,
    idle: Duration,
    reaper_started: AtomicBool,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A session id: 128 random bits, as 32 hex characters (visible ASCII).
fn new_session_id() -> Option<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).ok()?;
    Some(bytes.iter().fold(String::with_capacity(32), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    }))
}

impl SessionTable {
    pub(crate) fn new(max: usize, idle: Duration) -> Self {
        SessionTable {
            map: Mutex::new(HashMap::new()),
            max: max.max(1),
            idle,
            reaper_started: AtomicBool::new(false),
        }
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
        let id = new_session_id().ok_or(())?;
        let mut map = lock(&self.map);
        if map.len() >= self.max {
            return Err(());
        }
        let session = Session::start(server, settings.clone(), id.clone(), principal, version);
        map.insert(id, session.clone());
        Ok(session)
    }

    pub(crate) fn get(&self, id: &str) -> Option<Arc<Session>> {
        lock(&self.map).get(id).cloned()
    }

    pub(crate) fn remove(&self, id: &str) -> Option<Arc<Session>> {
        lock(&self.map).remove(id)
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
            let ids: Vec<String> =
                map.iter().filter(|(_, s)| s.is_expired(now)).map(|(id, _)| id.clone()).collect();
            ids.iter().filter_map(|id| map.remove(id)).collect()
        };
        for s in expired {
            tracing::debug!(session = %s.id, "session expired");
            s.close();
        }
    }

    /// Checks for expired sessions periodically, while the table exists.
    fn start_reaper(self: &Arc<Self>) {
        if self.reaper_started.swap(true, Ordering::AcqRel) {
            return;
        }
        let weak: Weak<SessionTable> = Arc::downgrade(self);
        let period = (self.idle / 4).clamp(Duration::from_millis(50), Duration::from_secs(30));
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(period).await;
                let Some(table) = weak.upgrade() else { return };
                table.reap();
            }
        });
    }
}
