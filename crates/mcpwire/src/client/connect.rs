//! Connecting: the builder's `spawn` and `connect`, which choose the era (a pinned
//! version, a saved discover result, the era cache, or the probe) and build the
//! [`Client`].

use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, OnceLock};

use mcpwire_protocol::capabilities::ClientCapabilities;
use mcpwire_protocol::{Era, ProtocolVersion};
use tokio_util::sync::CancellationToken;

use super::cache::Cache;
use super::handler::ClientHandler;
use super::handshake::{initialize, probe, shared_stateless};
use super::router::{Listeners, Router};
use super::{
    callback_tasks, close_and_wait, output_schema, restart, saved, tasks, Client, ClientBuilder, ClientInner,
    ClientOptions, ConnectError, Mode, Session,
};
use crate::error::RequestError;
use crate::jsonrpc::{Dispatcher, DispatcherConfig, Peer};
use crate::transport::child::ChildProcess;
use crate::transport::{Connection, Transport};

/// Closes a connection whose handshake did not complete: it failed (a version this
/// client does not speak, an answer it cannot read, no answer), or the caller stopped
/// waiting for it. A client that cannot use the server's answer disconnects, and an
/// abandoned connection leaves nothing running (for HTTP, its session is deleted).
struct CloseUnlessConnected(Option<Peer>);

impl CloseUnlessConnected {
    /// The handshake completed: the connection stays open.
    fn connected(mut self) {
        self.0 = None;
    }

    /// Closes the connection as [`Client::close`] does; gives back `error`.
    async fn close(mut self, finished: Option<&CancellationToken>, error: ConnectError) -> ConnectError {
        if let Some(peer) = self.0.take() {
            close_and_wait(&peer, finished).await;
        }
        error
    }
}

impl Drop for CloseUnlessConnected {
    fn drop(&mut self) {
        if let Some(peer) = self.0.take() {
            peer.close();
        }
    }
}

impl ClientBuilder {
    /// Spawns a server process and connects to it over its stdio.
    pub async fn spawn(self, process: ChildProcess) -> Result<Client, ConnectError> {
        self.spawn_through(process, |connection| connection).await
    }

    /// [`spawn`](Self::spawn), with the server's connection passed through `layer`: a
    /// transport that wraps it, to record or log what goes by, say. A 2026 server that is
    /// restarted stays behind the same layer (the layer sees one connection throughout).
    pub async fn spawn_through<T: Transport>(
        self,
        process: ChildProcess,
        layer: impl FnOnce(Connection) -> T,
    ) -> Result<Client, ConnectError> {
        self.check_pinned_version()?;
        let max_restarts = self.options.max_restarts;
        let (connection, child) =
            restart::Supervised::start(process, max_restarts).map_err(ConnectError::Spawn)?;
        let client = self.connect(layer(connection)).await;
        match client {
            Ok(client) => {
                if client.era() == Era::Stateless {
                    child.allow_restarts();
                }
                *client.inner.child.lock().unwrap_or_else(|e| e.into_inner()) = Some(child);
                Ok(client)
            }
            Err(e) => {
                child.shutdown().await;
                Err(e)
            }
        }
    }

    /// Refuses a pinned version this client does not know, before anything is started.
    fn check_pinned_version(&self) -> Result<(), ConnectError> {
        match &self.mode {
            Mode::Pinned(v) if !ProtocolVersion::ALL.contains(v) => Err(ConnectError::UnknownVersion {
                requested: v.to_string(),
                known: ProtocolVersion::ALL
                    .iter()
                    .map(ProtocolVersion::as_str)
                    .collect::<Vec<_>>()
                    .join(", "),
            }),
            _ => Ok(()),
        }
    }

    /// Connects over any transport.
    pub async fn connect(self, transport: impl Transport) -> Result<Client, ConnectError> {
        self.check_pinned_version()?;
        let config =
            DispatcherConfig { request_timeout: Some(self.options.request_timeout), ..Default::default() };
        let cache = Arc::new(Cache::default());
        let listeners: Listeners = Default::default();
        let era_key = self.era_cache.as_ref().and_then(|_| transport.era_cache_key());
        let transport_finished = transport.finished_signal();
        let renewed = transport.renewed_session();
        let answers_every_request = transport.answers_every_request();
        let probe_options = ClientOptions {
            probe_timeout: match answers_every_request {
                true => self.options.request_timeout.max(self.options.probe_timeout),
                false => self.options.probe_timeout,
            },
            ..self.options.clone()
        };
        let era = Arc::new(OnceLock::new());
        let output_schemas: Arc<output_schema::OutputSchemas> = Default::default();
        let task_tools: Arc<tasks::TaskTools> = Default::default();
        let router = Router {
            callbacks: self.callbacks.clone(),
            cache: cache.clone(),
            output_schemas: output_schemas.clone(),
            task_tools: task_tools.clone(),
            listeners: listeners.clone(),
            era: era.clone(),
        };
        let dispatcher = Dispatcher::with_config(router.connect(transport), config);
        let peer = dispatcher.peer();
        // A 2026 client follows tasks (`Client::call_tool`), so it declares the tasks
        // extension on every request, the probe included (unless built `without_tasks`).
        let capabilities = match self.tasks {
            true => self
                .callbacks
                .capabilities()
                .with_extension(mcpwire_protocol::meta::TASKS_EXTENSION, Default::default()),
            false => self.callbacks.capabilities(),
        };
        // At `initialize` (2025-11-25) the client also offers to run the server's
        // sampling and elicitation requests as tasks (unless built `without_tasks`).
        let core_tasks = callback_tasks::capability(&self.callbacks).filter(|_| self.tasks);
        let tasks = core_tasks.is_some().then(|| Arc::new(callback_tasks::CallbackTasks::new()));
        let stateful_capabilities =
            ClientCapabilities { tasks: core_tasks, ..self.callbacks.stateful_capabilities() };
        dispatcher.spawn(ClientHandler { callbacks: self.callbacks.clone(), tasks, era: era.clone() });
        // Only a probe (or a handshake the cache chose) tells what the server speaks; a
        // pinned version or a saved discover result says what this caller wanted.
        let probed = matches!((&self.mode, &self.prior_discover), (Mode::Auto, None));
        // A saved discover result is checked by the first answers, and probed again if
        // they show it stale (see `saved`).
        let from_saved = matches!((&self.mode, &self.prior_discover), (Mode::Auto, Some(_)));
        // A handshake that fails, or is given up on, leaves no connection behind.
        let unfinished = CloseUnlessConnected(Some(peer.clone()));
        let session = async {
            Ok(match (&self.mode, self.prior_discover) {
                (Mode::Pinned(v), _) if v.era() == Some(Era::Stateful) => Session::Stateful(
                    initialize(&peer, v, &stateful_capabilities, &self.info, &self.options, &era).await?,
                ),
                (Mode::Pinned(v), discover) => Session::Stateless { version: v.clone(), discover },
                (Mode::Auto, Some(discover)) => {
                    let version = shared_stateless(&discover.supported_versions).ok_or_else(|| {
                        ConnectError::NoSharedVersion {
                            supported: discover.supported_versions.iter().map(|v| v.to_string()).collect(),
                        }
                    })?;
                    Session::Stateless { version, discover: Some(discover) }
                }
                (Mode::Auto, None) => {
                    // A server known to be 2025-era: go straight to the handshake, and re-probe
                    // if that fails (it may have changed), unless it went unanswered over
                    // HTTP (an unresponsive server, as for the probe).
                    let known_stateful = era_key
                        .as_deref()
                        .zip(self.era_cache.as_ref())
                        .and_then(|(key, cache)| cache.get(key))
                        == Some(Era::Stateful);
                    let direct = match known_stateful {
                        true => Some(
                            initialize(
                                &peer,
                                &ProtocolVersion::LATEST_STATEFUL,
                                &stateful_capabilities,
                                &self.info,
                                &self.options,
                                &era,
                            )
                            .await,
                        ),
                        false => None,
                    };
                    let direct = match direct {
                        Some(Err(ConnectError::Handshake(e @ RequestError::Timeout { .. })))
                            if answers_every_request =>
                        {
                            return Err(ConnectError::Handshake(e))
                        }
                        other => other.and_then(Result::ok),
                    };
                    match direct {
                        Some(init) => Session::Stateful(init),
                        None => {
                            let declared = [&capabilities, &stateful_capabilities];
                            probe(&peer, declared, &self.info, &probe_options, answers_every_request, &era)
                                .await?
                        }
                    }
                }
            })
        }
        .await;
        let session = match session {
            Ok(session) => session,
            Err(e) => return Err(unfinished.close(transport_finished.as_ref(), e).await),
        };
        unfinished.connected();
        let capabilities = match &session {
            Session::Stateless { .. } => capabilities,
            Session::Stateful(_) => stateful_capabilities.clone(),
        };
        let chosen = match &session {
            Session::Stateful(_) => Era::Stateful,
            Session::Stateless { .. } => Era::Stateless,
        };
        let saved = match (from_saved, &session) {
            (true, Session::Stateless { version, .. }) => Some(saved::Saved::new(saved::ProbeInputs {
                version: version.clone(),
                stateful_capabilities: stateful_capabilities.clone(),
                options: probe_options,
                answers_every_request,
                era: era.clone(),
                era_cache: era_key.clone().zip(self.era_cache.clone()),
            })),
            // The era is set at once, except for a saved result's, which its first answer
            // (or a new probe) settles.
            _ => {
                let _ = era.set(chosen);
                None
            }
        };
        if let (Some(key), Some(cache)) = (era_key.filter(|_| probed), &self.era_cache) {
            cache.remember(key, chosen);
        }
        Ok(Client {
            inner: Arc::new(ClientInner {
                peer,
                session,
                info: self.info,
                capabilities,
                callbacks: self.callbacks,
                cache,
                listeners,
                options: self.options,
                log_level: Mutex::new(None),
                next_listen: AtomicU64::new(1),
                output_schemas,
                task_tools,
                child: Mutex::new(None),
                transport_finished,
                renewed,
                tools_learned_under: Default::default(),
                resource_streams: Default::default(),
                saved,
            }),
        })
    }
}
