//! What a program remembers of the servers it connected to: the era each one speaks, so
//! that later connections to a 2025-era server skip the `server/discover` probe.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use mcpwire_protocol::Era;

/// How many servers one cache remembers; past that it starts afresh.
const CAPACITY: usize = 1024;

/// The eras of servers already connected to, by the transport's key (for HTTP, the
/// endpoint URL).
///
/// A client keeps no such memory by default: a program that connects to the same servers
/// again and again makes one cache and hands a clone of it to every
/// [`ClientBuilder`](super::ClientBuilder) through
/// [`era_cache`](super::ClientBuilder::era_cache). Clones share their entries. Only a
/// probe records an era (a pinned version says what the caller wanted, not what the
/// server speaks), and only a 2025 answer is acted on: the next connection goes straight
/// to `initialize`, and probes again if that fails (the server may have changed), unless
/// it went unanswered over HTTP (an unresponsive server: the connection fails).
///
/// ```
/// use mcpwire::client::{Client, EraCache};
///
/// let eras = EraCache::new();
/// let first = Client::builder("my-client", "1.0.0").era_cache(eras.clone());
/// let second = Client::builder("my-client", "1.0.0").era_cache(eras.clone());
/// # drop((first, second));
/// assert!(eras.is_empty());
/// ```
#[derive(Clone, Debug, Default)]
pub struct EraCache {
    eras: Arc<Mutex<HashMap<String, Era>>>,
}

impl EraCache {
    /// An empty cache.
    pub fn new() -> Self {
        EraCache::default()
    }

    /// The era last seen at `key`.
    pub fn get(&self, key: &str) -> Option<Era> {
        self.lock().get(key).copied()
    }

    /// Whether nothing is remembered yet.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// Remembers the era of the server at `key` (bounded: a full cache starts afresh).
    pub(crate) fn remember(&self, key: String, era: Era) {
        let mut eras = self.lock();
        if eras.len() >= CAPACITY && !eras.contains_key(&key) {
            eras.clear();
        }
        eras.insert(key, era);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Era>> {
        self.eras.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_entries_and_a_full_cache_starts_afresh() {
        let cache = EraCache::new();
        let clone = cache.clone();
        clone.remember("http://a/mcp".into(), Era::Stateful);
        assert_eq!(cache.get("http://a/mcp"), Some(Era::Stateful));
        for i in 1..CAPACITY {
            cache.remember(format!("http://{i}/mcp"), Era::Stateless);
        }
        // Overwriting a known key keeps the rest.
        cache.remember("http://a/mcp".into(), Era::Stateless);
        assert_eq!(cache.get("http://1/mcp"), Some(Era::Stateless));
        cache.remember("http://new/mcp".into(), Era::Stateful);
        assert_eq!(cache.get("http://a/mcp"), None);
        assert_eq!(cache.get("http://new/mcp"), Some(Era::Stateful));
    }
}
