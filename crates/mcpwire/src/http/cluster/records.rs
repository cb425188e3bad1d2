//! Session records in Redis: who owns each 2025 session, and the journal of the
//! requests that set its state, so that another instance can take it over.

use std::collections::HashMap;

use bytes::Bytes;
use redis::Value;

use super::Cluster;

/// A 2025 session as Redis knows it.
#[derive(Debug)]
pub(crate) struct SessionRecord {
    /// The instance that serves it.
    pub(crate) owner: String,
    /// The principal that created it.
    pub(crate) principal: Option<String>,
    /// The negotiated protocol version.
    pub(crate) version: String,
}

/// Sessions a per-session memory (last refresh, last owner reached) holds before it
/// drops old entries (one per session at most; the table holds fewer by default).
const SESSION_MEMORY: usize = 16_384;

/// Sets (or, with an empty `ARGV[2]`, deletes) field `ARGV[1]` of session journal
/// `KEYS[2]`, then keeps the session alive `ARGV[3]` ms. A new field is added only while
/// the journal has fewer than `ARGV[4]`.
const JOURNAL: &str = r"
if ARGV[2] == '' then
  redis.call('HDEL', KEYS[2], ARGV[1])
elseif redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 or redis.call('HLEN', KEYS[2]) < tonumber(ARGV[4]) then
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 0
";

/// The journal field of a session's `initialize`, replayed first.
const INITIALIZE_FIELD: &str = "initialize";

/// Most fields of a session journal: its `initialize`, its log level and each resource it
/// follows (no more than a session may follow).
const MOST_JOURNAL_FIELDS: usize = crate::server::MAX_SUBSCRIPTIONS + 2;

/// Deletes the record if `ARGV[1]` owns it.
const FORGET: &str = r"
if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] then
  return redis.call('DEL', KEYS[1], KEYS[2])
end
return 0
";

/// Hands the session to `ARGV[2]` if `ARGV[1]` still owns it; answers the new
/// generation, or -1 when someone else took it first (or the record is gone).
const CLAIM: &str = r"
if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] then
  redis.call('HSET', KEYS[1], 'owner', ARGV[2])
  return redis.call('HINCRBY', KEYS[1], 'generation', 1)
end
return -1
";

impl Cluster {
    fn session_key(&self, id: &str) -> String {
        self.key("session", id)
    }

    fn journal_key(&self, id: &str) -> String {
        self.key("journal", id)
    }

    fn session_ttl_ms(&self) -> u64 {
        self.shared.options.session_ttl.as_millis().max(1) as u64
    }

    /// Records a new session owned by this instance, with its `initialize` request.
    pub(crate) async fn register_session(
        &self,
        id: &str,
        principal: Option<&str>,
        version: &str,
        initialize: &[u8],
    ) -> Result<(), redis::RedisError> {
        let (key, journal) = (self.session_key(id), self.journal_key(id));
        let mut pipe = redis::pipe();
        pipe.atomic()
            .cmd("HSET")
            .arg(&key)
            .arg("owner")
            .arg(&self.shared.id)
            .arg("version")
            .arg(version)
            .arg("generation")
            .arg(0)
            .ignore();
        if let Some(principal) = principal {
            pipe.cmd("HSET").arg(&key).arg("principal").arg(principal).ignore();
        }
        pipe.cmd("DEL").arg(&journal).ignore();
        pipe.cmd("HSET").arg(&journal).arg(INITIALIZE_FIELD).arg(initialize).ignore();
        pipe.cmd("PEXPIRE").arg(&key).arg(self.session_ttl_ms()).ignore();
        pipe.cmd("PEXPIRE").arg(&journal).arg(self.session_ttl_ms()).ignore();
        pipe.query_async(&mut self.redis()).await
    }

    /// Records a state-setting request in a session's journal and keeps the record alive.
    /// The journal holds the latest request per `field` (the log level, each resource
    /// followed): `None` removes the field (an unsubscribe). So a client repeating such
    /// requests does not grow it.
    pub(crate) async fn journal(
        &self,
        id: &str,
        field: &str,
        request: Option<&[u8]>,
    ) -> Result<(), redis::RedisError> {
        redis::Script::new(JOURNAL)
            .key(self.session_key(id))
            .key(self.journal_key(id))
            .arg(field)
            .arg(request.unwrap_or_default())
            .arg(self.session_ttl_ms())
            .arg(MOST_JOURNAL_FIELDS)
            .invoke_async::<i64>(&mut self.redis())
            .await
            .map(drop)
    }

    /// Keeps a used session's record alive: at most once per eighth of its lifetime
    /// per session, in the background (the request goes on).
    pub(crate) fn refresh_session(&self, id: &str, now: std::time::Instant) {
        let every = self.shared.options.session_ttl / 8;
        {
            let mut refreshed = super::lock(&self.shared.refreshed);
            if refreshed.get(id).is_some_and(|at| now.duration_since(*at) < every) {
                return;
            }
            if refreshed.len() >= SESSION_MEMORY {
                refreshed.retain(|_, at| now.duration_since(*at) < every);
            }
            refreshed.insert(id.to_owned(), now);
        }
        let (key, journal, ttl) = (self.session_key(id), self.journal_key(id), self.session_ttl_ms());
        let mut redis = self.redis();
        tokio::spawn(async move {
            let refreshed: Result<(), _> = redis::pipe()
                .cmd("PEXPIRE")
                .arg(&key)
                .arg(ttl)
                .ignore()
                .cmd("PEXPIRE")
                .arg(&journal)
                .arg(ttl)
                .ignore()
                .query_async(&mut redis)
                .await;
            if let Err(e) = refreshed {
                tracing::debug!("could not refresh a session record: {e}");
            }
        });
    }

    /// The record of session `id`, if Redis has one.
    pub(crate) async fn lookup_session(&self, id: &str) -> Result<Option<SessionRecord>, redis::RedisError> {
        let fields: HashMap<String, Value> =
            redis::cmd("HGETALL").arg(self.session_key(id)).query_async(&mut self.redis()).await?;
        let text = |name: &str| match fields.get(name) {
            Some(Value::BulkString(b)) => String::from_utf8(b.clone()).ok(),
            Some(Value::SimpleString(s)) => Some(s.clone()),
            _ => None,
        };
        let Some(owner) = text("owner") else { return Ok(None) };
        Ok(Some(SessionRecord {
            owner,
            principal: text("principal"),
            version: text("version").unwrap_or_default(),
        }))
    }

    /// The requests that set session `id`'s state (JSON), its `initialize` first.
    pub(crate) async fn session_journal(&self, id: &str) -> Result<Vec<Bytes>, redis::RedisError> {
        let journal: HashMap<String, Vec<u8>> =
            redis::cmd("HGETALL").arg(self.journal_key(id)).query_async(&mut self.redis()).await?;
        let mut out = Vec::with_capacity(journal.len());
        let mut rest = Vec::with_capacity(journal.len());
        for (field, request) in journal {
            match field == INITIALIZE_FIELD {
                true => out.push(Bytes::from(request)),
                false => rest.push(Bytes::from(request)),
            }
        }
        out.extend(rest);
        Ok(out)
    }

    /// Takes session `id` over from `previous` (gone): the new generation, or `None`
    /// if another instance took it first.
    pub(crate) async fn claim_session(
        &self,
        id: &str,
        previous: &str,
    ) -> Result<Option<u64>, redis::RedisError> {
        let generation: i64 = redis::Script::new(CLAIM)
            .key(self.session_key(id))
            .arg(previous)
            .arg(&self.shared.id)
            .invoke_async(&mut self.redis())
            .await?;
        Ok(u64::try_from(generation).ok())
    }

    /// Deletes session `id`'s record if this instance owns it (the session ended here:
    /// DELETE or idle expiry).
    pub(crate) fn forget_session(&self, id: &str) {
        let (key, journal, me) = (self.session_key(id), self.journal_key(id), self.shared.id.clone());
        let mut redis = self.redis();
        tokio::spawn(async move {
            let deleted = redis::Script::new(FORGET)
                .key(key)
                .key(journal)
                .arg(me)
                .invoke_async::<i64>(&mut redis)
                .await;
            if let Err(e) = deleted {
                tracing::warn!("could not delete an ended session's record: {e}");
            }
        });
    }

    /// The owner this instance last reached for session `id`, if it remembers one.
    pub(crate) fn known_owner(&self, id: &str) -> Option<String> {
        super::lock(&self.shared.owners).get(id).cloned()
    }

    /// Remembers that session `id` was served by `owner`.
    pub(crate) fn remember_owner(&self, id: &str, owner: &str) {
        let mut owners = super::lock(&self.shared.owners);
        if owners.len() >= SESSION_MEMORY {
            owners.clear();
        }
        owners.insert(id.to_owned(), owner.to_owned());
    }

    /// Forgets where session `id` was served.
    pub(crate) fn forget_owner(&self, id: &str) {
        super::lock(&self.shared.owners).remove(id);
    }
}
