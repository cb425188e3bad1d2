//! The endpoint's side of a cluster: where a 2025 request is served (here, tunnelled
//! to the session's owner, or here after taking the session over), and what of a
//! session's state is written to Redis.

use std::sync::Arc;

use bytes::Bytes;
use http::{Response, StatusCode};
use mcpwire_protocol::{codes, decode_frame, methods, Frame, Message, ProtocolVersion, Request};

use super::tunnel::NotDelivered;
use super::{Cluster, SessionRecord};
use crate::http::session::Session;
use crate::http::{header_rules, status, McpBody, McpService};

/// Where a request whose effect on a session is journalled for a takeover goes in the
/// journal: its field, and whether it sets the field (an unsubscribe removes it). `None`
/// for any other request, and for a (un)subscribe without a URI, which changes nothing.
fn journal_field(request: &Request) -> Option<(String, bool)> {
    let uri = || {
        #[derive(serde::Deserialize)]
        struct Uri {
            uri: String,
        }
        let params = request.params.as_ref()?;
        serde_json::from_str::<Uri>(params.get()).ok().map(|p| format!("resource:{}", p.uri))
    };
    match request.method.as_str() {
        methods::LOGGING_SET_LEVEL => Some(("level".into(), true)),
        methods::RESOURCES_SUBSCRIBE => Some((uri()?, true)),
        methods::RESOURCES_UNSUBSCRIBE => Some((uri()?, false)),
        _ => None,
    }
}

fn owner_unreachable() -> Response<McpBody> {
    status::error(
        StatusCode::SERVICE_UNAVAILABLE,
        None,
        codes::INTERNAL_ERROR,
        "The instance serving this session is not reachable; try again",
    )
}

fn store_unavailable() -> Response<McpBody> {
    status::error(
        StatusCode::SERVICE_UNAVAILABLE,
        None,
        codes::INTERNAL_ERROR,
        "The session store is unavailable; try again later",
    )
}

impl McpService {
    fn cluster(&self) -> Option<&Cluster> {
        self.inner.settings.cluster.as_ref()
    }

    /// Serves a request for a 2025 session that this instance does not hold: tunnelled
    /// to its live owner, or `None` to serve it here (the session is here now, taken
    /// over from an owner that stopped, or unknown: the usual 404 follows). `route` is
    /// false for a request another instance tunnelled here.
    pub(crate) async fn clustered(
        &self,
        route: bool,
        parts: &http::request::Parts,
        body: Bytes,
    ) -> Option<Response<McpBody>> {
        let cluster = self.cluster()?;
        let id = header_rules::session_id(&parts.headers).ok()??;
        let now = std::time::Instant::now();
        if self.inner.sessions.get(id, now).is_some() {
            cluster.refresh_session(id, now);
            return None;
        }
        // Held here but idle past its timeout (not reaped yet): ended, as its 404 says,
        // rather than "taken over" from this instance by this instance.
        if !route || self.inner.sessions.holds(id) {
            return None;
        }
        // The owner this instance last reached for the session: no lookup. If the
        // request does not reach it, the lookup below finds where the session is now.
        if let Some(owner) = cluster.known_owner(id) {
            match cluster.forward(&owner, parts, body.clone()).await {
                Ok(response) => return Some(response),
                Err(_) => cluster.forget_owner(id),
            }
        }
        // Twice: a takeover lost to another instance is followed to the winner.
        for _ in 0..2 {
            let record = match cluster.lookup_session(id).await {
                Ok(Some(record)) => record,
                Ok(None) => return None,
                Err(e) => {
                    tracing::warn!("could not look a session up in redis: {e}");
                    return Some(store_unavailable());
                }
            };
            if record.owner != cluster.instance_id() {
                match cluster.is_alive(&record.owner).await {
                    Ok(true) => match cluster.forward(&record.owner, parts, body.clone()).await {
                        Ok(response) => {
                            cluster.remember_owner(id, &record.owner);
                            return Some(response);
                        }
                        // Leaving: take the session over (below).
                        Err(NotDelivered::Leaving) => {}
                        Err(NotDelivered::NotListening) => return Some(owner_unreachable()),
                    },
                    Ok(false) => {}
                    Err(_) => return Some(store_unavailable()),
                }
            }
            match cluster.claim_session(id, &record.owner).await {
                Ok(Some(generation)) => {
                    let journal = match cluster.session_journal(id).await {
                        Ok(journal) => journal,
                        Err(_) => return Some(store_unavailable()),
                    };
                    self.adopt(id, record, &journal, generation);
                    return None;
                }
                Ok(None) => continue,
                Err(_) => return Some(store_unavailable()),
            }
        }
        None
    }

    /// Starts session `id` here from its record, in the state its journal sets.
    fn adopt(&self, id: &str, record: SessionRecord, journal: &[Bytes], generation: u64) {
        let version = ProtocolVersion::parse(&record.version);
        // Stream names carry the generation, so they never repeat an earlier owner's.
        let first_stream = generation << 32;
        let Some(session) = self.inner.sessions.adopt(
            &self.inner.server,
            &self.inner.settings,
            id,
            record.principal,
            version,
            first_stream,
        ) else {
            tracing::warn!(session = id, "could not take a session over (the table is full)");
            return;
        };
        let journal: Vec<Request> = journal
            .iter()
            .filter_map(|raw| match decode_frame(raw) {
                Ok(Frame::Single(Message::Request(r))) => Some(r),
                _ => None,
            })
            .collect();
        session.restore(&journal);
        tracing::info!(session = id, previous = %record.owner, "took a session over");
    }

    /// Writes what a POST changes of a session's shared state: a new session's record
    /// (with its `initialize`), or a state-setting request in its journal. A response
    /// when Redis cannot take it (the session is then not usable cluster-wide).
    pub(crate) async fn share_session_state(
        &self,
        session: &Arc<Session>,
        messages: &[Message],
        initialize: bool,
    ) -> Option<Response<McpBody>> {
        let cluster = self.cluster()?;
        for message in messages {
            let Message::Request(request) = message else { continue };
            let written = if request.method == methods::INITIALIZE {
                if !initialize {
                    continue;
                }
                let version = session.version.lock().map(|v| v.as_str().to_owned()).unwrap_or_default();
                let raw = message.to_vec();
                cluster.register_session(&session.id, session.principal.as_deref(), &version, &raw).await
            } else if let Some((field, sets)) = journal_field(request) {
                let raw = message.to_vec();
                cluster.journal(&session.id, &field, sets.then_some(raw.as_slice())).await
            } else {
                continue;
            };
            if let Err(e) = written {
                tracing::warn!(session = %session.id, "could not write session state to redis: {e}");
                if initialize {
                    self.inner.sessions.remove(&session.id);
                    session.close();
                }
                return Some(store_unavailable());
            }
        }
        None
    }
}
