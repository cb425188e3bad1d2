//! Both eras on one stream (stdio): the first request that opens an era decides, as the
//! Python SDK's first request does. `initialize` opens a 2025 session; a request whose
//! `_meta` carries `io.modelcontextprotocol/protocolVersion` makes it a 2026 connection
//! (other requests before either are served by 2025 rules and decide nothing). After that,
//! `initialize` on a 2026 connection answers `-32022` (naming the 2026 versions), and an
//! enveloped request on a 2025 session answers `-32600`.

use std::future::Future;
use std::sync::{Arc, LazyLock, OnceLock};

use futures_util::future::BoxFuture;
use mcpwire_protocol::meta::PROTOCOL_VERSION;
use mcpwire_protocol::{methods, skim, Era, Notification, RawJson, Request};

use super::middleware::Endpoint;
use super::stateful::StatefulSession;
use super::stateless::unsupported_version;
use super::Server;
use crate::error::McpError;
use crate::jsonrpc::{Handler, NotificationContext, RequestContext};

/// The handler of one stream in both eras.
pub(crate) struct DualEra(Arc<Stream>);

/// One stream: its era once its first request decided it, and its 2025 session. Past the
/// middleware, its requests are served here.
struct Stream {
    server: Server,
    era: OnceLock<Era>,
    stateful: Arc<StatefulSession>,
}

impl DualEra {
    pub(crate) fn new(server: Server) -> Self {
        DualEra(Arc::new(Stream {
            stateful: StatefulSession::new(server.clone()),
            server,
            era: OnceLock::new(),
        }))
    }
}

/// Whether a request carries the 2026 envelope (its `_meta` names a protocol version).
pub(crate) fn is_enveloped(request: &Request) -> bool {
    let Some(params) = request.params.as_deref() else { return false };
    // Most 2025 requests do not mention the key at all: no need to read them. The
    // searcher is built once (a constant): building one is most of a short search.
    static KEY: LazyLock<memchr::memmem::Finder<'static>> =
        LazyLock::new(|| memchr::memmem::Finder::new(PROTOCOL_VERSION));
    if KEY.find(params.get().as_bytes()).is_none() {
        return false;
    }
    // `_meta` and its version member, found without reading the rest of the params.
    let skimmed = skim::members_within(params.get(), [], "_meta", [PROTOCOL_VERSION])
        .map(|([], meta)| meta.is_some_and(|[version]| version.is_some()));
    // A repeated member, a key written with escapes, params that are not an object: the
    // tree decides.
    skimmed.unwrap_or_else(|| {
        request
            .parse_params::<serde_json::Value>()
            .ok()
            .and_then(|p| p.get("_meta").and_then(|m| m.get(PROTOCOL_VERSION)).map(|_| ()))
            .is_some()
    })
}

/// The version a request's `_meta` names, if it names one as a string: read as a tree,
/// for requests already refused, to say what to refuse them with.
#[cfg(feature = "http")]
pub(crate) fn enveloped_version(request: &Request) -> Option<String> {
    let params = request.parse_params::<serde_json::Value>().ok()?;
    params.get("_meta")?.get(PROTOCOL_VERSION)?.as_str().map(str::to_owned)
}

impl Stream {
    /// The stream's era: fixed by its first `initialize` or enveloped request
    /// ([`Handler::on_arrival`] calls this in arrival order, so a `server/discover`
    /// followed at once by `initialize` is decided by the discover, however their tasks are
    /// scheduled). A request that is neither before them (a `ping`, a stray request a 2025
    /// session refuses before `initialize`) is served by 2025 rules and fixes nothing: the
    /// spec opens the 2025 era with `initialize` alone.
    fn decide_era(&self, request: &Request, enveloped: bool) -> Era {
        let opens = match (request.method == methods::INITIALIZE, enveloped) {
            (true, _) => Era::Stateful,
            (false, true) => Era::Stateless,
            (false, false) => return self.era.get().copied().unwrap_or(Era::Stateful),
        };
        *self.era.get_or_init(|| opens)
    }

    /// Serves one request of this stream, past the middleware.
    async fn handle(self: Arc<Self>, request: Request, ctx: RequestContext) -> Result<RawJson, McpError> {
        let enveloped = is_enveloped(&request);
        let era = self.decide_era(&request, enveloped);
        if ctx.extensions().get::<crate::transport::Batched>().is_some() && !self.takes_batches(era) {
            return Err(McpError::invalid_request(
                "Invalid request: batches are only accepted at protocol version 2025-03-26",
            ));
        }
        match era {
            Era::Stateful if !enveloped => self.stateful.clone().handle(request, ctx).await,
            era => Box::pin(self.handle_other(request, ctx, era)).await,
        }
    }

    /// Whether a request that came in a batch is served: only on a 2025-03-26 session
    /// (batches came in that revision and left in the next; 2026 has one message a line).
    fn takes_batches(&self, era: Era) -> bool {
        era == Era::Stateful && self.stateful.session().is_some_and(|s| s.version.accepts_batches())
    }

    /// [`Stream::handle`] for the 2026 era and for a request in the wrong era (boxed
    /// there: the 2025 era's future need not carry this one's size).
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
            Era::Stateless => self.server.clone().handle_stateless(request, ctx).await,
            // `handle` serves the 2025 era's own requests: here they are enveloped.
            Era::Stateful => Err(McpError::invalid_request(
                "Invalid request: a 2026-07-28 request on a connection that began with initialize",
            )),
        }
    }
}

impl Endpoint for Stream {
    fn serve(
        self: Arc<Self>,
        request: Request,
        ctx: RequestContext,
    ) -> BoxFuture<'static, Result<RawJson, McpError>> {
        Box::pin(self.handle(request, ctx))
    }
}

impl Handler for DualEra {
    fn on_arrival(&self, request: &Request) {
        if self.0.era.get().is_none() {
            self.0.decide_era(request, is_enveloped(request));
        }
    }

    fn in_stateless_era(&self) -> bool {
        self.0.era.get() == Some(&Era::Stateless)
    }

    fn on_request(
        &self,
        request: Request,
        ctx: RequestContext,
    ) -> impl Future<Output = Result<RawJson, McpError>> + Send {
        self.0.server.layered(request, ctx, self.0.clone())
    }

    fn on_notification_arrival(&self, notification: Notification) -> Option<Notification> {
        if self.0.era.get() != Some(&Era::Stateless) {
            self.0.stateful.on_arrival(&notification);
        }
        Some(notification)
    }

    async fn on_notification(&self, notification: Notification, ctx: NotificationContext) {
        if self.0.era.get() != Some(&Era::Stateless) {
            self.0.stateful.on_notification(notification, ctx).await;
        }
    }
}
