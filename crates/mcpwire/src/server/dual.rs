//! Both eras on one stream (stdio): the first request decides, as the Python SDK does.
//! `initialize` opens a 2025 session; a request whose `_meta` carries
//! `io.modelcontextprotocol/protocolVersion` makes it a 2026 connection. After that,
//! `initialize` on a 2026 connection answers `-32022` (naming the 2026 versions), and an
//! enveloped request on a 2025 session answers `-32600`.

use std::future::Future;
use std::sync::{Arc, LazyLock, OnceLock};

use futures_util::future::{BoxFuture, Either};

use mcpwire_protocol::{methods, Era, Notification, RawJson, Request};

use super::stateful::StatefulSession;
use super::stateless::unsupported_version;
use super::Server;
use crate::error::McpError;
use crate::jsonrpc::{Handler, NotificationContext, RequestContext};

/// Cheap to clone: clones share the stream's era and session.
#[derive(Clone)]
pub(crate) struct DualEra {
    server: Server,
    era: Arc<OnceLock<Era>>,
    stateful: StatefulSession,
}

impl DualEra {
    pub(crate) fn new(server: Server) -> Self {
        DualEra { stateful: StatefulSession::new(server.clone()), server, era: Arc::new(OnceLock::new()) }
    }
}

/// Whether a request carries the 2026 envelope (its `_meta` names a protocol version).
/// A cheap text check first: most 2025 requests have no such key at all.
pub(crate) fn is_enveloped(request: &Request) -> bool {
    let Some(params) = request.params.as_deref() else { return false };
    // A prebuilt searcher: `str::contains` builds a two-way searcher per call, which was
    // most of this function's cost on every 2025 request.
    static KEY: LazyLock<memchr::memmem::Finder<'static>> =
        LazyLock::new(|| memchr::memmem::Finder::new(mcpwire_protocol::meta::PROTOCOL_VERSION));
    if KEY.find(params.get().as_bytes()).is_none() {
        return false;
    }
    #[derive(serde::Deserialize)]
    struct Probe {
        #[serde(rename = "_meta")]
        meta: Option<mcpwire_protocol::Meta>,
    }
    serde_json::from_str::<Probe>(params.get())
        .ok()
        .and_then(|p| p.meta)
        .is_some_and(|m| m.contains_key(mcpwire_protocol::meta::PROTOCOL_VERSION))
}

impl DualEra {
    /// The stream's era: fixed by its first request ([`Handler::on_arrival`] calls this in
    /// arrival order, so a `server/discover` followed at once by `initialize` is decided
    /// by the discover, however their tasks are scheduled).
    fn decide_era(&self, request: &Request, enveloped: bool) -> Era {
        *self.era.get_or_init(|| {
            if request.method != methods::INITIALIZE && enveloped {
                Era::Stateless
            } else {
                Era::Stateful
            }
        })
    }

    /// Serves one request of this stream (no middleware: [`Handler::on_request`] runs it
    /// once around this).
    ///
    /// Not an `async fn`, nor is `on_request`: the arguments of one stay in its future
    /// for its whole life, and this future is boxed once per request (past about a
    /// kilobyte an allocation leaves the allocator's fast per-thread cache). A 2025
    /// request's future is returned as it is; the rest run boxed.
    fn handle(
        &self,
        request: Request,
        ctx: RequestContext,
    ) -> Either<
        impl Future<Output = Result<RawJson, McpError>> + Send + '_,
        BoxFuture<'_, Result<RawJson, McpError>>,
    > {
        let enveloped = is_enveloped(&request);
        let era = self.decide_era(&request, enveloped);
        match era {
            Era::Stateful if !enveloped => Either::Left(self.stateful.handle(request, ctx)),
            era => Either::Right(Box::pin(self.handle_other(request, ctx, era))),
        }
    }

    /// [`DualEra::handle`] for the 2026 era and for a request in the wrong era.
    async fn handle_other(
        &self,
        request: Request,
        ctx: RequestContext,
        era: Era,
    ) -> Result<RawJson, McpError> {
        match era {
            Era::Stateless if request.method == methods::INITIALIZE => {
                let requested = request
                    .parse_params::<serde_json::Value>()
                    .ok()
                    .and_then(|p| p.get("protocolVersion").and_then(|v| v.as_str().map(str::to_owned)))
                    .unwrap_or_default();
                Err(unsupported_version(&requested))
            }
            Era::Stateless => self.server.handle_stateless(request, ctx).await,
            // `handle` serves the 2025 era's own requests: here they are enveloped.
            Era::Stateful => Err(McpError::invalid_request(
                "Invalid request: a 2026-07-28 request on a connection that began with initialize",
            )),
        }
    }
}

impl Handler for DualEra {
    fn on_arrival(&self, request: &Request) {
        if self.era.get().is_none() {
            self.decide_era(request, is_enveloped(request));
        }
    }

    fn on_request(
        &self,
        request: Request,
        ctx: RequestContext,
    ) -> impl Future<Output = Result<RawJson, McpError>> + Send {
        if !self.server.has_middleware() {
            return Either::Left(self.handle(request, ctx));
        }
        let this = self.clone();
        let endpoint: super::middleware::Endpoint = std::sync::Arc::new(move |request, ctx| {
            let this = this.clone();
            Box::pin(async move { this.handle(request, ctx).await })
        });
        Either::Right(self.server.layered(request, ctx, endpoint))
    }

    async fn on_notification(&self, notification: Notification, ctx: NotificationContext) {
        if self.era.get() != Some(&Era::Stateless) {
            self.stateful.on_notification(notification, ctx).await;
        }
    }
}
