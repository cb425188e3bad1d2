//! The default [`TaskStore`]: records in memory, bounded in number (in all, and for each
//! owner), dropped when their TTL runs out, so a client that never polls cannot
//! make the server grow, and never before it, so a finished task's result stays readable
//! for as long as the server said it would.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::time::SystemTime;

use super::store::{StoreFuture, TaskChange, TaskRecord, TaskStore, TaskStoreError};

/// In-memory task records (the default store). When it is full, expired records are
/// swept; a store full of records still within their TTL refuses new tasks (finished
/// ones too: their results were promised for the TTL). So that one client cannot take
/// every place, each owner (a 2025 session, a 2026 principal) holds at most its share
/// ([`MemoryTaskStore::with_owner_limit`]).
#[derive(Debug)]
pub struct MemoryTaskStore {
    capacity: usize,
    per_owner: usize,
    inner: Mutex<Records>,
}

#[derive(Debug, Default)]
struct Records {
    by_id: HashMap<String, (u64, TaskRecord)>,
    /// Creation sequence number to id: the listing order and the eviction order.
    order: BTreeMap<u64, String>,
    next: u64,
    /// How many records each owner holds (owners with none are absent).
    owned: HashMap<String, usize>,
}

impl Records {
    fn remove(&mut self, id: &str) {
        if let Some((seq, record)) = self.by_id.remove(id) {
            self.order.remove(&seq);
            if let Some(owner) = &record.owner {
                if let Some(n) = self.owned.get_mut(owner) {
                    *n -= 1;
                    if *n == 0 {
                        self.owned.remove(owner);
                    }
                }
            }
        }
    }

    /// Drops the expired records.
    fn sweep(&mut self, now: SystemTime) {
        let expired: Vec<String> =
            self.by_id.iter().filter(|(_, (_, r))| r.is_expired(now)).map(|(id, _)| id.clone()).collect();
        for id in expired {
            self.remove(&id);
        }
    }

    /// The records `owner` holds (`None`: those of no owner are not counted).
    fn held_by(&self, owner: Option<&str>) -> usize {
        owner.and_then(|o| self.owned.get(o)).copied().unwrap_or(0)
    }
}

impl MemoryTaskStore {
    /// A store of at most `capacity` records (at least 1), any number of them one
    /// owner's.
    pub fn new(capacity: usize) -> Self {
        let capacity = capacity.max(1);
        MemoryTaskStore { capacity, per_owner: capacity, inner: Mutex::new(Records::default()) }
    }

    /// At most `limit` records (at least 1) of one owner: a 2025 session, or the principal
    /// of authenticated 2026 requests, whose tasks only it can see. (Anonymous 2026 tasks
    /// have no owner, as a 2026 request names no requestor but its principal: only the
    /// store's capacity bounds them, together, so one anonymous client can fill it for
    /// the others; see `docs/LIMITS.md`.)
    pub fn with_owner_limit(mut self, limit: usize) -> Self {
        self.per_owner = limit.max(1);
        self
    }

    fn records(&self) -> std::sync::MutexGuard<'_, Records> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// How many records are held (expired ones included until they are swept).
    pub fn len(&self) -> usize {
        self.records().by_id.len()
    }

    /// Whether no record is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Default for MemoryTaskStore {
    /// 10 000 records, 1 000 of them at most one owner's.
    fn default() -> Self {
        MemoryTaskStore::new(10_000).with_owner_limit(1_000)
    }
}

impl TaskStore for MemoryTaskStore {
    fn create(&self, record: TaskRecord) -> StoreFuture<'_, Result<(), TaskStoreError>> {
        let result = (|| {
            let mut records = self.records();
            if records.by_id.contains_key(&record.task_id) {
                return Err(TaskStoreError::Duplicate(record.task_id));
            }
            let owner = record.owner.as_deref();
            let full = |r: &Records| r.by_id.len() >= self.capacity || r.held_by(owner) >= self.per_owner;
            if full(&records) {
                records.sweep(SystemTime::now());
                if records.by_id.len() >= self.capacity {
                    return Err(TaskStoreError::Full);
                }
                if records.held_by(owner) >= self.per_owner {
                    return Err(TaskStoreError::OwnerFull(self.per_owner));
                }
            }
            if let Some(owner) = owner {
                *records.owned.entry(owner.to_owned()).or_default() += 1;
            }
            let seq = records.next;
            records.next += 1;
            records.order.insert(seq, record.task_id.clone());
            records.by_id.insert(record.task_id.clone(), (seq, record));
            Ok(())
        })();
        Box::pin(std::future::ready(result))
    }

    fn get<'a>(&'a self, task_id: &'a str) -> StoreFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        let mut records = self.records();
        let found = match records.by_id.get(task_id) {
            Some((_, r)) if r.is_expired(SystemTime::now()) => {
                records.remove(task_id);
                None
            }
            Some((_, r)) => Some(r.clone()),
            None => None,
        };
        Box::pin(std::future::ready(Ok(found)))
    }

    fn update<'a>(
        &'a self,
        task_id: &'a str,
        change: TaskChange<'a>,
    ) -> StoreFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        let mut records = self.records();
        let now = SystemTime::now();
        let found = match records.by_id.get_mut(task_id) {
            Some((_, r)) if !r.is_expired(now) => {
                change(r);
                Some(r.clone())
            }
            Some(_) => {
                records.remove(task_id);
                None
            }
            None => None,
        };
        Box::pin(std::future::ready(Ok(found)))
    }

    fn remove<'a>(&'a self, task_id: &'a str) -> StoreFuture<'a, Result<(), TaskStoreError>> {
        self.records().remove(task_id);
        Box::pin(std::future::ready(Ok(())))
    }

    fn list<'a>(
        &'a self,
        owner: Option<&'a str>,
        after: Option<&'a str>,
        limit: usize,
    ) -> StoreFuture<'a, Result<Vec<TaskRecord>, TaskStoreError>> {
        let records = self.records();
        let now = SystemTime::now();
        let start = after.and_then(|id| records.by_id.get(id)).map_or(0, |(seq, _)| seq + 1);
        let page = records
            .order
            .range(start..)
            .filter_map(|(_, id)| records.by_id.get(id).map(|(_, r)| r))
            .filter(|r| !r.is_expired(now) && r.owner.as_deref() == owner)
            .take(limit)
            .cloned()
            .collect();
        Box::pin(std::future::ready(Ok(page)))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use mcpwire_protocol::tasks_ext::TaskState;
    use std::time::Duration;

    fn record(id: &str, ttl: Option<Duration>, state: TaskState) -> TaskRecord {
        let now = SystemTime::now();
        TaskRecord {
            task_id: id.into(),
            status_message: None,
            created_at: now,
            last_updated_at: now,
            ttl,
            poll_interval: None,
            state,
            owner: None,
        }
    }

    #[tokio::test]
    async fn bounded_evicting_only_expired_records() {
        let store = MemoryTaskStore::new(2);
        store.create(record("a", Some(Duration::ZERO), TaskState::Working)).await.unwrap();
        store.create(record("b", None, TaskState::Cancelled)).await.unwrap();
        // Full: the expired one goes.
        store.create(record("c", None, TaskState::Working)).await.unwrap();
        assert!(store.get("a").await.unwrap().is_none());
        // Full again, of a finished task within its TTL and a running one: refused, and
        // the finished task's record stays.
        assert!(matches!(
            store.create(record("e", None, TaskState::Working)).await,
            Err(TaskStoreError::Full)
        ));
        assert_eq!(store.get("b").await.unwrap().unwrap().state, TaskState::Cancelled);
        assert_eq!(store.len(), 2);
        assert!(matches!(
            store.create(record("c", None, TaskState::Working)).await,
            Err(TaskStoreError::Duplicate(_))
        ));
    }

    #[tokio::test]
    async fn one_owner_holds_at_most_its_share() {
        let store = MemoryTaskStore::new(10).with_owner_limit(2);
        let owned = |id: &str, owner: &str, ttl| TaskRecord {
            owner: Some(owner.into()),
            ..record(id, ttl, TaskState::Working)
        };
        store.create(owned("a", "s1", Some(Duration::ZERO))).await.unwrap();
        store.create(owned("b", "s1", None)).await.unwrap();
        // The expired one is swept to make its owner room.
        store.create(owned("c", "s1", None)).await.unwrap();
        assert!(matches!(store.create(owned("d", "s1", None)).await, Err(TaskStoreError::OwnerFull(2))));
        // Another owner, and tasks of no owner, still have room.
        store.create(owned("e", "s2", None)).await.unwrap();
        store.create(record("f", None, TaskState::Working)).await.unwrap();
        store.create(record("g", None, TaskState::Working)).await.unwrap();
        assert_eq!(store.len(), 5);
    }

    #[tokio::test]
    async fn update_and_list_skip_expired_and_page_in_order() {
        let store = MemoryTaskStore::new(10);
        for id in ["a", "b", "c"] {
            store.create(record(id, None, TaskState::Working)).await.unwrap();
        }
        store.create(record("x", Some(Duration::ZERO), TaskState::Working)).await.unwrap();
        let changed = store.update("b", Box::new(|r| r.state = TaskState::Cancelled)).await.unwrap();
        assert_eq!(changed.unwrap().state, TaskState::Cancelled);
        assert!(store.update("x", Box::new(|_| {})).await.unwrap().is_none());
        let ids = |v: Vec<TaskRecord>| v.into_iter().map(|r| r.task_id).collect::<Vec<_>>();
        assert_eq!(ids(store.list(None, None, 2).await.unwrap()), ["a", "b"]);
        assert_eq!(ids(store.list(None, Some("b"), 2).await.unwrap()), ["c"]);
        assert!(store.list(Some("s1"), None, 10).await.unwrap().is_empty());
    }
}
