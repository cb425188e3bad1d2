//! Task records in Redis, so that `tasks/get`, `tasks/list`, `tasks/update` and
//! `tasks/cancel` work on any instance. A record names the instance that runs the
//! task's handler; answers and cancellations that reach another instance are carried to
//! it over pub/sub ([`TaskStore::signal`]).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use mcpwire_protocol::tasks_ext::TaskState;
use mcpwire_protocol::{codes, ErrorObject};
use serde::{Deserialize, Serialize};

use super::wire::Frame;
use super::Cluster;
use crate::server::tasks::{StoreFuture, TaskChange, TaskRecord, TaskSignal, TaskStore, TaskStoreError};

/// A record as Redis keeps it (JSON), with the instance that runs its handler.
#[derive(Serialize, Deserialize)]
struct Stored {
    runner: String,
    task_id: String,
    status_message: Option<String>,
    created_ms: u64,
    updated_ms: u64,
    ttl_ms: Option<u64>,
    poll_ms: Option<u64>,
    state: TaskState,
    owner: Option<String>,
}

fn ms(at: SystemTime) -> u64 {
    at.duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

fn at(ms: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(ms)
}

impl Stored {
    fn new(runner: String, r: TaskRecord) -> Self {
        Stored {
            runner,
            task_id: r.task_id,
            status_message: r.status_message,
            created_ms: ms(r.created_at),
            updated_ms: ms(r.last_updated_at),
            ttl_ms: r.ttl.map(|d| d.as_millis() as u64),
            poll_ms: r.poll_interval.map(|d| d.as_millis() as u64),
            state: r.state,
            owner: r.owner,
        }
    }

    fn record(&self) -> TaskRecord {
        TaskRecord {
            task_id: self.task_id.clone(),
            status_message: self.status_message.clone(),
            created_at: at(self.created_ms),
            last_updated_at: at(self.updated_ms),
            ttl: self.ttl_ms.map(Duration::from_millis),
            poll_interval: self.poll_ms.map(Duration::from_millis),
            state: self.state.clone(),
            owner: self.owner.clone(),
        }
    }
}

/// Sets `KEYS[1]` to `ARGV[2]` (keeping its TTL) if it still holds `ARGV[1]`.
const COMPARE_AND_SET: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
  return 1
end
return 0
";

/// Lists task `ARGV[1]` in its owner's list `KEYS[1]` (by creation, `ARGV[2]` ms) and in
/// `KEYS[2]`, the same tasks by expiry (`ARGV[3]` ms). First drops up to 256 tasks that
/// expired by `ARGV[4]` (now) from both, so the lists hold the live tasks and a few more,
/// however many tasks come and go. Then makes both live at least `ARGV[5]` ms more (never
/// shorter; `PTTL` is -1 for a key without expiry): an owner's list outlives each of its
/// tasks, whatever order their TTLs come in.
const LIST_TASK: &str = r"
local gone = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[4], 'LIMIT', 0, 256)
for _, id in ipairs(gone) do
  redis.call('ZREM', KEYS[1], id)
  redis.call('ZREM', KEYS[2], id)
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
for _, key in ipairs(KEYS) do
  if redis.call('PTTL', key) < tonumber(ARGV[5]) then
    redis.call('PEXPIRE', key, ARGV[5])
  end
end
return 0
";

/// How many times an update retries when another instance changed the record meanwhile.
const UPDATE_ATTEMPTS: usize = 16;

/// A [`TaskStore`] in the cluster's Redis ([`Cluster::task_store`]).
#[derive(Clone, Debug)]
pub struct RedisTaskStore {
    cluster: Cluster,
}

fn backend(e: redis::RedisError) -> TaskStoreError {
    TaskStoreError::Backend(e.to_string())
}

impl Cluster {
    /// The task store every instance of this cluster shares ([`Cluster::service`]
    /// installs it).
    pub fn task_store(&self) -> RedisTaskStore {
        RedisTaskStore { cluster: self.clone() }
    }

    fn task_key(&self, id: &str) -> String {
        self.key("task", id)
    }

    fn tasks_of_key(&self, owner: Option<&str>) -> String {
        // A 2026 task has no owner; its list is never asked for, but is kept alike.
        self.key("tasks-of", owner.unwrap_or("-"))
    }

    /// The tasks of [`Self::tasks_of_key`] by expiry, to drop them from it once expired.
    fn tasks_expiring_key(&self, owner: Option<&str>) -> String {
        self.key("tasks-expiring", owner.unwrap_or("-"))
    }

    /// Acts on a signal another instance sent for a task that may run here.
    pub(super) fn receive_task_signal(&self, task: String, signal: TaskSignal) {
        if let Some(endpoint) = self.endpoint() {
            let tasks = endpoint.inner.server.inner.tasks.clone();
            tokio::spawn(async move { tasks.receive_signal(&task, signal).await });
        }
    }
}

/// The error of a task whose instance stopped before the task finished.
const RUNNER_GONE: &str = "The server instance running this task stopped before the task finished";

impl RedisTaskStore {
    /// The record of task `id` (its JSON as stored, and the record), `None` when there is
    /// none or it has expired. A task still running on an instance that has left the
    /// cluster (or died: its heartbeat expired) can never finish, so it is failed here,
    /// on whichever instance reads it first, instead of staying `working` until its TTL.
    async fn load(&self, id: &str) -> Result<Option<(String, Stored)>, TaskStoreError> {
        let Some((raw, stored)) = self.read(id).await? else { return Ok(None) };
        // The runner itself records how its tasks end, leaving or not.
        let ours = stored.runner == self.cluster.shared.id;
        if ours
            || stored.state.status().is_terminal()
            || self.cluster.is_alive(&stored.runner).await.map_err(backend)?
        {
            return Ok(Some((raw, stored)));
        }
        let mut record = stored.record();
        record.state = TaskState::Failed { error: ErrorObject::new(codes::INTERNAL_ERROR, RUNNER_GONE) };
        record.status_message = Some(RUNNER_GONE.to_owned());
        record.last_updated_at = SystemTime::now();
        let failed = Stored::new(stored.runner, record);
        match self.replace(id, &raw, &failed).await? {
            Some(json) => Ok(Some((json, failed))),
            // Changed meanwhile (failed by another reader, say): what is stored now.
            None => self.read(id).await,
        }
    }

    /// Stores `stored` as task `id`'s record if it is still `raw` (its JSON as read):
    /// the JSON written, or `None` when another write came first.
    async fn replace(&self, id: &str, raw: &str, stored: &Stored) -> Result<Option<String>, TaskStoreError> {
        let json = serde_json::to_string(stored).map_err(|e| TaskStoreError::Backend(e.to_string()))?;
        let set: i64 = redis::Script::new(COMPARE_AND_SET)
            .key(self.cluster.task_key(id))
            .arg(raw)
            .arg(&json)
            .invoke_async(&mut self.cluster.redis())
            .await
            .map_err(backend)?;
        Ok((set == 1).then_some(json))
    }

    /// The record of task `id` as stored, `None` when there is none or it has expired.
    async fn read(&self, id: &str) -> Result<Option<(String, Stored)>, TaskStoreError> {
        let raw: Option<String> = redis::cmd("GET")
            .arg(self.cluster.task_key(id))
            .query_async(&mut self.cluster.redis())
            .await
            .map_err(backend)?;
        Ok(raw.and_then(|raw| {
            let stored: Stored = serde_json::from_str(&raw).ok()?;
            let expired = stored.record().is_expired(SystemTime::now());
            (!expired).then_some((raw, stored))
        }))
    }
}

impl TaskStore for RedisTaskStore {
    fn create(&self, record: TaskRecord) -> StoreFuture<'_, Result<(), TaskStoreError>> {
        Box::pin(async move {
            let id = record.task_id.clone();
            let created = ms(record.created_at) as f64;
            let ttl = record.ttl.map(|d| d.as_millis().max(1) as u64);
            let owner = record.owner.clone();
            let json = serde_json::to_string(&Stored::new(self.cluster.shared.id.clone(), record))
                .map_err(|e| TaskStoreError::Backend(e.to_string()))?;
            let mut set = redis::cmd("SET");
            set.arg(self.cluster.task_key(&id)).arg(json).arg("NX");
            if let Some(ttl) = ttl {
                set.arg("PX").arg(ttl);
            }
            let now = ms(SystemTime::now());
            let keep = ttl.unwrap_or(24 * 3600 * 1000);
            let (stored,): (redis::Value,) = redis::pipe()
                .add_command(set)
                .cmd("EVAL")
                .arg(LIST_TASK)
                .arg(2)
                .arg(self.cluster.tasks_of_key(owner.as_deref()))
                .arg(self.cluster.tasks_expiring_key(owner.as_deref()))
                .arg(&id)
                .arg(created)
                .arg(ttl.map_or("+inf".to_owned(), |ttl| (created as u64 + ttl).to_string()))
                .arg(now)
                .arg(keep)
                .ignore()
                .query_async(&mut self.cluster.redis())
                .await
                .map_err(backend)?;
            match stored {
                redis::Value::Nil => Err(TaskStoreError::Duplicate(id)),
                _ => Ok(()),
            }
        })
    }

    fn get<'a>(&'a self, task_id: &'a str) -> StoreFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        Box::pin(async move { Ok(self.load(task_id).await?.map(|(_, stored)| stored.record())) })
    }

    fn update<'a>(
        &'a self,
        task_id: &'a str,
        change: TaskChange<'a>,
    ) -> StoreFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        Box::pin(async move {
            // The change (run once) is applied to the record as first read. If another
            // instance wrote meanwhile, the changed record still replaces its write,
            // unless that write finished the task: a terminal state stays.
            let Some((mut raw, stored)) = self.load(task_id).await? else { return Ok(None) };
            let mut record = stored.record();
            change(&mut record);
            let runner = stored.runner;
            for _ in 0..UPDATE_ATTEMPTS {
                if self.replace(task_id, &raw, &Stored::new(runner.clone(), record.clone())).await?.is_some()
                {
                    return Ok(Some(record));
                }
                let Some((newer, stored)) = self.load(task_id).await? else { return Ok(None) };
                if stored.record().status().is_terminal() {
                    // Finished meanwhile: a terminal state stays.
                    return Ok(Some(stored.record()));
                }
                raw = newer;
            }
            Err(TaskStoreError::Backend("the task record kept changing under this update".into()))
        })
    }

    fn list<'a>(
        &'a self,
        owner: Option<&'a str>,
        after: Option<&'a str>,
        limit: usize,
    ) -> StoreFuture<'a, Result<Vec<TaskRecord>, TaskStoreError>> {
        Box::pin(async move {
            let ids: Vec<String> = redis::cmd("ZRANGE")
                .arg(self.cluster.tasks_of_key(owner))
                .arg(0)
                .arg(-1)
                .query_async(&mut self.cluster.redis())
                .await
                .map_err(backend)?;
            let start = after.and_then(|a| ids.iter().position(|id| id == a)).map_or(0, |i| i + 1);
            let mut out = Vec::new();
            for id in &ids[start.min(ids.len())..] {
                if out.len() >= limit {
                    break;
                }
                if let Some((_, stored)) = self.load(id).await? {
                    if stored.owner.as_deref() == owner {
                        out.push(stored.record());
                    }
                }
            }
            Ok(out)
        })
    }

    fn signal<'a>(
        &'a self,
        task_id: &'a str,
        signal: TaskSignal,
    ) -> StoreFuture<'a, Result<bool, TaskStoreError>> {
        Box::pin(async move {
            let Some((_, stored)) = self.load(task_id).await? else { return Ok(false) };
            if stored.runner == self.cluster.shared.id {
                return Ok(false);
            }
            let signal = serde_json::to_value(&signal).map_err(|e| TaskStoreError::Backend(e.to_string()))?;
            let frame = Frame::TaskSignal { task: task_id.to_owned(), signal };
            // Pub/sub keeps nothing for an instance that does not listen (its Redis
            // subscription is down for a moment): a signal no one received is an error,
            // not one carried, so that a `tasks/update` fails and may be sent again.
            let receivers: u64 = redis::cmd("PUBLISH")
                .arg(self.cluster.inbox(&stored.runner))
                .arg(frame.to_bytes())
                .query_async(&mut self.cluster.redis())
                .await
                .map_err(backend)?;
            if receivers == 0 {
                return Err(TaskStoreError::Backend(
                    "the instance running this task is not reachable; try again".into(),
                ));
            }
            Ok(true)
        })
    }
}
