//! A cache for 2026 cacheable results (the lists and `resources/read`) that honours the
//! server's `ttlMs`, and is emptied by the matching change notifications. Keyed by method
//! and the params that change the result (cursor, URI); bounded in entries and in bytes.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use mcpwire_protocol::{methods, RawJson};

use super::callbacks::ServerChange;

/// Entries kept at most; beyond it the soonest-expiring entries go first.
const CAPACITY: usize = 1024;

/// Bytes of results kept at most, all entries together (each result may be as large as
/// a message): beyond it the soonest-expiring entries go first, and a result larger than
/// this is not kept.
const MAX_BYTES: usize = 64 * 1024 * 1024;

/// The longest a result is kept (30 days), whatever `ttlMs` the server gave: adding
/// `u64::MAX` milliseconds to an `Instant` overflows (and panics) on platforms whose
/// clock counts nanoseconds in 64 bits.
const MAX_TTL_MS: u64 = 30 * 24 * 3600 * 1000;

/// Method and key (cursor or URI) to expiry and result.
type Map = HashMap<(&'static str, String), (Instant, RawJson)>;

/// The entries, and the bytes of their results.
#[derive(Default)]
struct Entries {
    map: Map,
    bytes: usize,
}

impl Entries {
    fn remove(&mut self, key: &(&'static str, String)) {
        if let Some((_, value)) = self.map.remove(key) {
            self.bytes -= value.get().len();
        }
    }

    /// Keeps the entries `keep` says to keep.
    fn retain(&mut self, mut keep: impl FnMut(&(&'static str, String), &Instant) -> bool) {
        let mut freed = 0;
        self.map.retain(|key, (expires, value)| {
            let kept = keep(key, expires);
            if !kept {
                freed += value.get().len();
            }
            kept
        });
        self.bytes -= freed;
    }
}

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
        match entries.map.get(&k) {
            Some((expires, value)) if *expires > Instant::now() => Some(value.clone()),
            Some(_) => {
                entries.remove(&k);
                None
            }
            None => None,
        }
    }

    /// Keeps a result for `ttl_ms`, at most [`MAX_TTL_MS`] (0 keeps nothing, nor does a
    /// result larger than [`MAX_BYTES`]).
    pub(crate) fn put(&self, method: &'static str, key: &str, value: &RawJson, ttl_ms: u64) {
        let size = value.get().len();
        if ttl_ms == 0 || size > MAX_BYTES {
            return;
        }
        let mut entries = self.lock();
        let key = (method, key.to_owned());
        entries.remove(&key);
        let full = |e: &Entries| e.map.len() >= CAPACITY || e.bytes + size > MAX_BYTES;
        if full(&entries) {
            let now = Instant::now();
            entries.retain(|_, expires| *expires > now);
        }
        while full(&entries) {
            match entries.map.iter().min_by_key(|(_, (e, _))| *e).map(|(k, _)| k.clone()) {
                Some(oldest) => entries.remove(&oldest),
                None => break,
            }
        }
        entries.bytes += size;
        let ttl = Duration::from_millis(ttl_ms.min(MAX_TTL_MS));
        entries.map.insert(key, (Instant::now() + ttl, value.clone()));
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
        *self.lock() = Entries::default();
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn raw(bytes: usize) -> RawJson {
        serde_json::value::to_raw_value(&"x".repeat(bytes)).unwrap()
    }

    fn held(cache: &Cache) -> usize {
        let entries = cache.lock();
        let sum = entries.map.values().map(|(_, v)| v.get().len()).sum();
        assert_eq!(entries.bytes, sum);
        sum
    }

    /// Large results with long TTLs (a server's every answer can be up to the message
    /// size) are kept within a byte budget, not only an entry count: the newest stay.
    #[test]
    fn large_results_are_kept_within_a_byte_budget() {
        let cache = Cache::default();
        let megabyte = raw(1024 * 1024);
        for n in 0..200 {
            cache.put(methods::RESOURCES_READ, &format!("file:///{n}"), &megabyte, 3_600_000 + n);
        }
        assert!(held(&cache) <= MAX_BYTES, "{} bytes held", held(&cache));
        assert!(cache.get(methods::RESOURCES_READ, "file:///199").is_some());
        // One result larger than the budget is not kept, and evicts nothing.
        cache.put(methods::RESOURCES_READ, "file:///huge", &raw(MAX_BYTES + 1), 3_600_000);
        assert!(cache.get(methods::RESOURCES_READ, "file:///huge").is_none());
        assert!(cache.get(methods::RESOURCES_READ, "file:///199").is_some());
    }

    /// A server's `ttlMs` may be any u64: the largest is kept (for the longest time the
    /// cache allows) rather than overflowing the platform's clock.
    #[test]
    fn the_largest_ttl_is_kept_within_the_cache_limit() {
        let cache = Cache::default();
        cache.put(methods::TOOLS_LIST, "", &raw(10), u64::MAX);
        assert!(cache.get(methods::TOOLS_LIST, "").is_some());
        let expires = cache.lock().map.values().next().map(|(e, _)| *e).unwrap();
        assert!(expires <= Instant::now() + Duration::from_millis(MAX_TTL_MS));
    }
}
