//! A connection made from a saved discover result ([`ClientBuilder::prior_discover`]):
//! nothing checks the saved result at connect, so the first answers do. Until one
//! confirms it (a result, or an error that says nothing about the era), a request
//! refused in a way that shows the result stale (the server no longer speaks its version,
//! or answers as a 2025-era server answers an enveloped request before its handshake)
//! makes the client forget the saved result and probe again, once per connection, and
//! the request is then sent once more if the probe found another version. Never in a
//! loop: one new probe per connection, one retry per request. A `subscriptions/listen`
//! stream is watched the same way up to its acknowledgement, which confirms the result.
//! Requests sent through the raw [`Client::peer`] are not watched: they carry no
//! envelope, so their answers say nothing about the saved result.
//!
//! [`ClientBuilder::prior_discover`]: super::ClientBuilder::prior_discover
//! [`Client::peer`]: super::Client::peer

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use mcpwire_protocol::capabilities::ClientCapabilities;
use mcpwire_protocol::{codes, methods, Era, ProtocolVersion, RawJson, ResultType};
use serde_json::{Map, Value};

use super::handshake::probe;
use super::{Client, ClientOptions, EraCache, RequestOptions, Session};
use crate::error::RequestError;

/// What a new probe needs, kept from the connection.
pub(crate) struct ProbeInputs {
    /// The version the saved result chose.
    pub(crate) version: ProtocolVersion,
    /// The capabilities declared at `initialize`, should the server now be 2025-era.
    pub(crate) stateful_capabilities: ClientCapabilities,
    /// The probe's options (its timeout as the transport wants it).
    pub(crate) options: ClientOptions,
    pub(crate) answers_every_request: bool,
    /// The era the router and the handler see, unset until settled.
    pub(crate) era: Arc<OnceLock<Era>>,
    /// Where the era the new probe finds is remembered, if anywhere.
    pub(crate) era_cache: Option<(String, EraCache)>,
}

/// A saved result's state on one connection.
pub(crate) struct Saved {
    inputs: ProbeInputs,
    /// Until an answer confirms the saved result, or a new probe replaces it.
    unconfirmed: AtomicBool,
    /// Held while the one new probe runs: requests refused together wait for it.
    reprobing: tokio::sync::Mutex<()>,
    /// What the new probe found, replacing the saved session.
    pub(crate) replaced: OnceLock<Replacement>,
}

/// The session a new probe found, with the capabilities its era declares.
pub(crate) struct Replacement {
    pub(crate) session: Session,
    pub(crate) capabilities: ClientCapabilities,
    /// Whether it differs from the saved one (so that a refused request is worth sending
    /// again).
    changed: bool,
}

impl Saved {
    pub(crate) fn new(inputs: ProbeInputs) -> Self {
        Saved {
            inputs,
            unconfirmed: AtomicBool::new(true),
            reprobing: tokio::sync::Mutex::new(()),
            replaced: OnceLock::new(),
        }
    }

    fn unconfirmed(&self) -> bool {
        self.unconfirmed.load(Ordering::Acquire)
    }

    /// An answer that fits the saved result: it stands, in the 2026 era.
    fn confirm(&self) {
        if self.unconfirmed.swap(false, Ordering::AcqRel) {
            let _ = self.inputs.era.set(Era::Stateless);
        }
    }
}

/// Whether `error`, the answer to a request sent under a saved discover result, shows
/// that result stale: `-32022` (the version is no longer served); `-32600` or an
/// implementation-defined `-32000…-32019`, which a 2025-era server gives an enveloped
/// request before its handshake (the 2026 revision asks servers not to use that range);
/// or an HTTP 4xx without a JSON-RPC body (a 2025-era server refusing a POST without a
/// session). Errors a 2026 server gives in normal use (`-32602`, `-32601`, ...) are
/// answers, not signs.
fn shows_stale(error: &RequestError) -> bool {
    match error {
        RequestError::Peer(e) => {
            matches!(e.code, codes::UNSUPPORTED_PROTOCOL_VERSION | codes::INVALID_REQUEST)
                || (-32019..=-32000).contains(&e.code)
        }
        RequestError::Transport { reason } => reason.starts_with("HTTP 4"),
        _ => false,
    }
}

/// Whether an answer confirms the saved result: a result (for a listen stream, its
/// acknowledgement), or the server's error.
fn confirms<T>(answer: &Result<T, RequestError>) -> bool {
    matches!(answer, Ok(_) | Err(RequestError::Peer(_)))
}

impl Client {
    /// [`Client::send_once`], watching the first answers of a connection made from a
    /// saved discover result (see the module's documentation).
    pub(crate) async fn send(
        &self,
        method: &str,
        params: Map<String, Value>,
        options: &RequestOptions,
    ) -> Result<(ResultType, RawJson), RequestError> {
        if !self.inner.saved.as_ref().is_some_and(Saved::unconfirmed) {
            return self.send_once(method, params, options).await;
        }
        self.watched(method, || self.send_once(method, params.clone(), options)).await
    }

    /// Sends an enveloped request with `attempt` (a request to `method`, or a listen
    /// stream up to its acknowledgement) and, while the saved discover result is
    /// unconfirmed, watches its answer: one that shows the result stale makes the client
    /// probe again (once per connection), and `attempt` is made once more if the probe
    /// found another session (a 2026-only method, not in a 2025 one); any other answer
    /// confirms the result, or leaves it unconfirmed if it says nothing (a timeout).
    pub(crate) async fn watched<T, F, Fut>(&self, method: &str, attempt: F) -> Result<T, RequestError>
    where
        F: Fn() -> Fut,
        Fut: std::future::Future<Output = Result<T, RequestError>>,
    {
        let Some(saved) = self.inner.saved.as_ref().filter(|s| s.unconfirmed()) else {
            return attempt().await;
        };
        let answer = attempt().await;
        let stale = match &answer {
            Err(e) if shows_stale(e) => e,
            _ => {
                if confirms(&answer) {
                    saved.confirm();
                }
                return answer;
            }
        };
        tracing::debug!(
            method,
            "a request under a saved discover result was refused ({stale}); probing again"
        );
        // A 2026-only method is not sent again to a server found to be 2025-era.
        let only_2026 = matches!(
            method,
            methods::SERVER_DISCOVER | methods::SUBSCRIPTIONS_LISTEN | methods::TASKS_UPDATE
        );
        match self.probe_again(saved).await {
            true if !(only_2026 && self.era() == Era::Stateful) => attempt().await,
            _ => answer,
        }
    }

    /// Probes the server again (once per connection: later callers wait for that probe
    /// and take its outcome); whether it found another session than the saved one.
    async fn probe_again(&self, saved: &Saved) -> bool {
        let _probing = saved.reprobing.lock().await;
        if let Some(replaced) = saved.replaced.get() {
            return replaced.changed;
        }
        if !saved.unconfirmed.swap(false, Ordering::AcqRel) {
            return false; // another answer confirmed the saved result meanwhile
        }
        let inputs = &saved.inputs;
        let declared = [&self.inner.capabilities, &inputs.stateful_capabilities];
        let found = probe(
            &self.inner.peer,
            declared,
            &self.inner.info,
            &inputs.options,
            inputs.answers_every_request,
            &inputs.era,
        )
        .await;
        let session = match found {
            Ok(session) => session,
            Err(e) => {
                // The saved result stands (nothing better is known); the request's own
                // answer is the caller's.
                tracing::debug!("probing again after a stale saved discover result failed: {e}");
                let _ = inputs.era.set(Era::Stateless);
                return false;
            }
        };
        let (era, capabilities, changed) = match &session {
            Session::Stateless { version, .. } => {
                (Era::Stateless, self.inner.capabilities.clone(), *version != inputs.version)
            }
            Session::Stateful(_) => (Era::Stateful, inputs.stateful_capabilities.clone(), true),
        };
        let _ = inputs.era.set(era);
        if era == Era::Stateful {
            let child = self.inner.child.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(child) = child.as_ref() {
                child.forbid_restarts();
            }
        }
        if let Some((key, cache)) = &inputs.era_cache {
            cache.remember(key.clone(), era);
        }
        let _ = saved.replaced.set(Replacement { session, capabilities, changed });
        changed
    }
}
