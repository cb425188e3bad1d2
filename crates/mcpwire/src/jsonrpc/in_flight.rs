//! The table of a connection's inbound requests in flight, by their exact ids (`7` and
//! `"7"` are two requests).

use std::collections::hash_map::Entry;
use std::sync::Arc;

use mcpwire_protocol::RequestId;

use super::context::InFlight;
use crate::id_map::IdMap;

/// The largest map capacity given back when it empties.
const SMALL: usize = 3;

/// A connection's inbound requests in flight, by id. Most of the time a connection has at
/// most one (a client that waits for each answer: the usual life of a 2025 HTTP session),
/// so that one is kept inline, found without hashing; a map holds the others and gives
/// its memory back when it empties, unless it grew large. An idle connection then holds
/// no table (a map that once held a request would keep one of ~150 bytes, per idle
/// session), while one that pipelines many requests does not reallocate and rehash its
/// map every time its requests all finish.
#[derive(Default)]
pub(crate) struct InFlightTable {
    first: Option<(RequestId, Arc<InFlight>)>,
    others: IdMap<RequestId, Arc<InFlight>>,
}

impl InFlightTable {
    /// Registers `entry` under `key`; `false`, changing nothing, if that id is in flight.
    /// One hash at most (a connection with many requests in flight does this per request).
    pub(crate) fn insert(&mut self, key: RequestId, entry: Arc<InFlight>) -> bool {
        match &self.first {
            Some((k, _)) if *k == key => false,
            None if !self.others.contains_key(&key) => {
                self.first = Some((key, entry));
                true
            }
            None => false,
            Some(_) => match self.others.entry(key) {
                Entry::Occupied(_) => false,
                Entry::Vacant(slot) => {
                    slot.insert(entry);
                    true
                }
            },
        }
    }

    /// The request in flight under `key`.
    pub(crate) fn get(&self, key: &RequestId) -> Option<&Arc<InFlight>> {
        match &self.first {
            Some((k, entry)) if k == key => Some(entry),
            _ => self.others.get(key),
        }
    }

    /// Forgets `entry`, registered under `key` (another request under that id stays).
    pub(crate) fn remove(&mut self, key: &RequestId, entry: &Arc<InFlight>) {
        if matches!(&self.first, Some((k, e)) if k == key && Arc::ptr_eq(e, entry)) {
            self.first = None;
        } else if self.others.len() == 1
            && self.others.get(key).is_some_and(|found| Arc::ptr_eq(found, entry))
        {
            // The map's last request. `remove` would leave a tombstone for each removal
            // next to a full group, and `capacity()` does not count tombstones: how much
            // a map reports would hang on where its ids hashed to. `clear` sweeps them
            // (on a map that is not yet empty), so the test below sees its real size.
            self.others.clear();
            if self.others.capacity() <= SMALL {
                // A small map is given back (an idle session keeps none); a large one
                // belongs to a connection that pipelines, which would only grow it again.
                self.others = IdMap::default();
            }
        } else if self.others.is_empty() {
            // Not registered (a one-shot request never is): nothing to hash the key for,
            // which `HashMap::remove` would do even on an empty map.
        } else if let Some(found) = self.others.remove(key) {
            if !Arc::ptr_eq(&found, entry) {
                // Not this request's entry (rare): put it back.
                self.others.insert(key.clone(), found);
            }
        }
    }

    /// Every request in flight.
    pub(crate) fn values(&self) -> impl Iterator<Item = &Arc<InFlight>> {
        self.first.iter().map(|(_, entry)| entry).chain(self.others.values())
    }
}

#[cfg(test)]
mod tests {
    use mcpwire_protocol::RequestId;

    use super::*;

    fn entry(n: i64) -> (RequestId, Arc<InFlight>) {
        let id = RequestId::Number(n);
        (id.clone(), Arc::new(InFlight::with_params(id, None)))
    }

    #[test]
    fn requests_are_found_by_id_until_removed_and_ids_are_unique() {
        let mut table = InFlightTable::default();
        let entries: Vec<_> = (1..=5).map(entry).collect();
        for (key, e) in &entries {
            assert!(table.insert(key.clone(), e.clone()));
        }
        let (key, _) = entry(3);
        assert!(!table.insert(key, entry(3).1), "a second request under an id in flight");
        assert_eq!(table.values().count(), 5);
        for (key, e) in &entries {
            assert!(table.get(key).is_some_and(|found| Arc::ptr_eq(found, e)));
        }
        // Removing another request under the same id leaves the registered one.
        let (key, stranger) = entry(1);
        table.remove(&key, &stranger);
        assert!(table.get(&key).is_some());
        for (key, e) in &entries {
            table.remove(key, e);
            assert!(table.get(key).is_none());
        }
        assert_eq!(table.values().count(), 0);
    }

    #[test]
    fn an_empty_table_holds_no_memory_unless_its_map_grew_large() {
        // Each table's map hashes with keys of its own, and where the ids land decides
        // how many tombstones their removal leaves: many tables, so that a verdict that
        // hangs on the tombstones would show.
        for round in 0..200 {
            let mut table = InFlightTable::default();
            let entries: Vec<_> = (1..=3).map(entry).collect();
            for (key, e) in &entries {
                table.insert(key.clone(), e.clone());
            }
            assert!(table.others.capacity() > 0);
            for (key, e) in entries.iter().rev() {
                table.remove(key, e);
            }
            assert!(table.first.is_none());
            assert_eq!(table.others.capacity(), 0, "round {round}: the small map is given back");

            let many: Vec<_> = (1..=40).map(entry).collect();
            for (key, e) in &many {
                table.insert(key.clone(), e.clone());
            }
            for (key, e) in &many {
                table.remove(key, e);
            }
            assert_eq!(table.values().count(), 0);
            assert!(
                table.others.capacity() >= 39,
                "round {round}: a large map is kept for the next burst, whole"
            );
        }
    }
}
