//! A cache for 2026 cacheable results (the lists and `resources/read`) that honours the
//! server's `ttlMs`, and is emptied by the matching change notifications. Keyed by method
//! and the params that change the result (cursor, URI); bounded.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use mcpwire_protocol::{methods, RawJson};

use super::callbacks::ServerChange;

/// Entries kept at most; beyond it the soonest-expiring entries go first.
const CAPACITY: usize = 1024;

/// Method and key (cursor or URI) to expiry and result.
type Entries = HashMap<(&'static str, String), (Instant, RawJson)>;

#[derive(Default)]
pub(crate) struct Cache {
    entries: Mutex<Entries>,
}

impl Cache {
    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A fresh cached result.
    pub(crate) fn get(&self, method: &'static str, key: &str) -> Option<RawJson> {
        let mut entries = self.lock();
        let k = (method, key.to_owned());
        match entries.get(&k) {
            Some((expires, value)) if *expires > Instant::now() => Some(value.clone()),
            Some(_) => {
                entries.remove(&k);
                None
            }
            None => None,
        }
    }

    /// Keeps a result for `ttl_ms` (0 keeps nothing).
    pub(crate) fn put(&self, method: &'static str, key: &str, value: &RawJson, ttl_ms: u64) {
        if ttl_ms == 0 {
            return;
        }
        let mut entries = self.lock();
        if entries.len() >= CAPACITY {
            let now = Instant::now();
            entries.retain(|_, (expires, _)| *expires > now);
            if entries.len() >= CAPACITY {
                if let Some(oldest) = entries.iter().min_by_key(|(_, (e, _))| *e).map(|(k, _)| k.clone()) {
                    entries.remove(&oldest);
                }
            }
        }
        entries.insert(
            (method, key.to_owned()),
            (Instant::now() + Duration::from_millis(ttl_ms), value.clone()),
        );
    }

    /// Drops what a change notification makes stale.
    pub(crate) fn invalidate(&self, change: &ServerChange) {
        let mut entries = self.lock();
        match change {
            ServerChange::ToolsChanged => entries.retain(|(m, _), _| *m != methods::TOOLS_LIST),
            ServerChange::PromptsChanged => entries.retain(|(m, _), _| *m != methods::PROMPTS_LIST),
            ServerChange::ResourcesChanged => entries
                .retain(|(m, _), _| *m != methods::RESOURCES_LIST && *m != methods::RESOURCES_TEMPLATES_LIST),
            ServerChange::ResourceUpdated(uri) => {
                entries.retain(|(m, k), _| !(*m == methods::RESOURCES_READ && k == uri))
            }
        }
    }

    /// Drops every cached page of a list method.
    pub(crate) fn drop_method(&self, method: &'static str) {
        self.lock().retain(|(m, _), _| *m != method);
    }

    /// Drops everything.
    pub(crate) fn clear(&self) {
        self.lock().clear();
    }
}
