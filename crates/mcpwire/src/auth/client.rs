//! The OAuth 2.1 client of a protected MCP server. On a `401` it discovers the
//! authorization server ([`discovery`](super::discovery)), gets client credentials
//! (pre-registered, stored, a Client ID Metadata Document, or Dynamic Client
//! Registration; a registration the server answers `invalid_client` to is made again,
//! once), and obtains a token: first from the [`TokenStore`] when another client sharing
//! it saved a newer one, or by refreshing, else through the configured
//! [`Grant`] (the authorization code flow by default). Tokens are DPoP-bound (RFC 9449)
//! when the authorization server supports it, and kept in a [`TokenStore`]. On a
//! `403 insufficient_scope` it steps up with the union of scopes, a bounded number of
//! times.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, PoisonError};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::Mutex;

use super::authorizer::{AuthorizationHandler, FetchRedirect};
use super::challenge::Challenge;
use super::code_flow::CodeFlow;
use super::credentials::ClientCredentials;
use super::discovery::{canonical_resource, discover, require_pkce_s256, Discovered};
use super::dpop::Dpop;
use super::fetch::Fetcher;
use super::grant::{grant_fields, Grant};
use super::jose::now_secs;
use super::store::{BoundedStore, MemoryTokenStore, TokenStore, Tokens};
use super::token_endpoint::{self, parse_tokens, Refused};
use super::AuthError;

/// The longest scope the client asks for (its scopes joined by spaces). Each step-up
/// asks for the scopes granted before and the new ones a `403` names: a resource that
/// names a new one every time would make the request, and the consent shown to the user,
/// grow without end.
const MAX_SCOPE_BYTES: usize = 2048;

/// The most authorization servers whose credentials a client keeps in memory (a resource
/// has one; the token store keeps them all for the next run).
const MAX_ISSUERS: usize = 16;

/// When tokens are sender-constrained with DPoP (RFC 9449).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DpopPolicy {
    /// Never: plain bearer tokens.
    Never,
    /// When the authorization server lists `ES256` in `dpop_signing_alg_values_supported`
    /// (the default).
    #[default]
    IfSupported,
    /// Always send proofs to the token endpoint (a server that ignores them issues a
    /// bearer token, which is then used as such).
    Always,
}

/// How the client identifies itself and completes authorization.
#[derive(Clone)]
pub struct OAuthConfig {
    /// Where the authorization server redirects (default `http://localhost:3000/callback`;
    /// the [`AuthorizationHandler`] may choose its own).
    pub redirect_uri: String,
    /// The name sent in Dynamic Client Registration.
    pub client_name: String,
    /// An HTTPS URL of this client's Client ID Metadata Document, used as `client_id`
    /// when the authorization server supports it.
    pub client_metadata_url: Option<String>,
    /// Pre-registered credentials (used first, at the authorization server they name or
    /// at any if `issuer` is `None`). The non-interactive grants need them. They are
    /// never forgotten: a server that answers `invalid_client` to them is reported.
    pub pre_registered: Option<(Option<String>, ClientCredentials)>,
    /// Completes the user's part.
    pub authorizer: Arc<dyn AuthorizationHandler>,
    /// Most step-ups in a row that bring no scope not granted before (re-authorizations
    /// for a server that keeps refusing), before giving up (default 2). A request is also
    /// authorized at most 3 times, and the scope asked for is at most 2048 bytes (a
    /// server that names a new scope at every step-up is given up on there).
    pub max_step_ups: usize,
    /// How tokens are obtained (default: the authorization code flow).
    pub grant: Grant,
    /// When to use DPoP.
    pub dpop: DpopPolicy,
    /// Where tokens and registered credentials are kept (default: in memory). Clients
    /// sharing one store (processes over one file) take up the tokens each other saved
    /// before refreshing, so a rotated refresh token is not presented twice.
    pub store: Arc<dyn TokenStore>,
    /// How long before a known expiry a refresh starts in the background (default 60 s,
    /// and never before half the token's lifetime; the request at hand still goes out
    /// with the current token).
    pub refresh_ahead_secs: u64,
    /// The longest discovery may take as a whole: resource metadata, then authorization
    /// server metadata, up to six fetches (default 60 s). Each fetch has a 30 s limit of
    /// its own; a server that answers each just in time would otherwise hold a login for
    /// minutes.
    pub discovery_timeout: Duration,
    /// The longest one call of the [`store`](Self::store) may take (default 15 s, above
    /// the 5 s a [`FileTokenStore`](super::FileTokenStore) waits for another process's
    /// lock). A call that takes longer is abandoned (its blocking thread cannot be
    /// stopped), the store is not called again by this client, and authorizing fails
    /// saying so: a store that never returns must not hold requests forever.
    pub store_timeout: Duration,
}

impl Default for OAuthConfig {
    fn default() -> Self {
        OAuthConfig {
            redirect_uri: "http://localhost:3000/callback".into(),
            client_name: "mcpwire".into(),
            client_metadata_url: None,
            pre_registered: None,
            authorizer: Arc::new(FetchRedirect),
            max_step_ups: 2,
            grant: Grant::AuthorizationCode,
            dpop: DpopPolicy::IfSupported,
            store: Arc::new(MemoryTokenStore::new()),
            refresh_ahead_secs: 60,
            discovery_timeout: Duration::from_secs(60),
            store_timeout: Duration::from_secs(15),
        }
    }
}

/// What a refresh needs to know about the last authorization.
#[derive(Clone)]
struct Session {
    /// The key the resource's tokens are stored under (its canonical URL).
    key: String,
    discovered: Arc<Discovered>,
    credentials: ClientCredentials,
    dpop: bool,
}

/// The flows' state, behind the async lock that serializes them.
#[derive(Default)]
struct State {
    scopes: BTreeSet<String>,
    /// Credentials by authorization-server issuer: never reused at another server.
    credentials: HashMap<String, ClientCredentials>,
    step_ups: usize,
    /// A `jwt-bearer` assertion the authorization server refused: never sent again.
    refused_assertion: Option<String>,
}

impl State {
    /// Keeps the credentials used at `issuer` for the next authorization there: those of
    /// [`MAX_ISSUERS`] issuers at most (past that, the others are forgotten, to be read
    /// from the token store again).
    fn remember_credentials(&mut self, issuer: &str, credentials: &ClientCredentials) {
        if self.credentials.len() >= MAX_ISSUERS && !self.credentials.contains_key(issuer) {
            self.credentials.clear();
        }
        self.credentials.insert(issuer.to_owned(), credentials.clone());
    }
}

/// What building a request needs, behind a plain lock (no await).
#[derive(Default)]
struct Current {
    tokens: Option<Tokens>,
    /// The resource whose stored tokens were loaded (once).
    loaded: bool,
    session: Option<Session>,
    /// A background refresh was started for the current tokens (one try per token: a
    /// refused refresh waits for the server's 401).
    refreshed_ahead: bool,
    /// When the current tokens were received or loaded (seconds since the Unix epoch).
    received_at: u64,
}

/// The OAuth client of one MCP server. Cheap to clone (clones share tokens).
#[derive(Clone)]
pub struct OAuthClient {
    config: OAuthConfig,
    fetch: Fetcher,
    /// The configured store, each call bounded by
    /// [`store_timeout`](OAuthConfig::store_timeout).
    store: BoundedStore,
    /// The DPoP key (`None` when DPoP is off or no key could be made), set before the
    /// first tokens: by [`load_stored`](Self::load_stored) (which [`request_headers`](Self::request_headers)
    /// runs on its first call) or [`authorize`](Self::authorize).
    dpop: Arc<tokio::sync::OnceCell<Option<Dpop>>>,
    state: Arc<Mutex<State>>,
    current: Arc<std::sync::Mutex<Current>>,
}

impl std::fmt::Debug for OAuthClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthClient")
            .field("redirect_uri", &self.redirect_uri())
            .field("grant", &self.config.grant)
            .finish_non_exhaustive()
    }
}

fn header_value(value: &str) -> Option<http::HeaderValue> {
    http::HeaderValue::from_str(value).ok()
}

impl OAuthClient {
    /// A client with a configuration. Its DPoP key (unless DPoP is off) is the one its
    /// token store keeps, or a new one, stored with the first tokens bound to it (a store
    /// that keeps none: a key for as long as the client lives); the store is first read
    /// (off the async runtime) by [`load_stored`](Self::load_stored) or
    /// [`authorize`](Self::authorize), not here.
    pub fn new(config: OAuthConfig) -> Self {
        OAuthClient {
            store: BoundedStore::new(Arc::clone(&config.store), config.store_timeout),
            config,
            fetch: Fetcher::default(),
            dpop: Arc::default(),
            state: Arc::default(),
            current: Arc::default(),
        }
    }

    /// The DPoP key, once [`ready_dpop`](Self::ready_dpop) got it.
    fn dpop(&self) -> Option<&Dpop> {
        self.dpop.get().and_then(Option::as_ref)
    }

    /// Gets the DPoP key (once): the one the store keeps, read off the async runtime, or
    /// a fresh one; none when DPoP is off.
    async fn ready_dpop(&self) -> Option<&Dpop> {
        let dpop = self.dpop.get_or_init(|| async {
            if self.config.dpop == DpopPolicy::Never {
                return None;
            }
            let stored = self.store.call("load_dpop_key", |s| s.load_dpop_key()).await;
            let stored = stored.unwrap_or_else(|e| {
                tracing::warn!("no stored DPoP key read, using a new one: {e}");
                None
            });
            Dpop::stored_or_new(stored)
                .map_err(|e| tracing::debug!("no DPoP key, tokens will be bearer tokens: {e}"))
                .ok()
        });
        dpop.await.as_ref()
    }

    fn current(&self) -> std::sync::MutexGuard<'_, Current> {
        self.current.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn redirect_uri(&self) -> String {
        self.config.authorizer.redirect_uri().unwrap_or_else(|| self.config.redirect_uri.clone())
    }

    /// The scopes the current token was granted, as its issuer said.
    fn granted_scopes(&self) -> BTreeSet<String> {
        let scope = self.tokens().and_then(|t| t.scope).unwrap_or_default();
        scope.split_whitespace().map(str::to_owned).collect()
    }

    /// The current access token, if any.
    pub async fn access_token(&self) -> Option<String> {
        self.tokens().map(|t| t.access_token)
    }

    /// The current tokens, if any.
    pub fn tokens(&self) -> Option<Tokens> {
        self.current().tokens.clone()
    }

    /// The headers that carry the current access token on a request to the resource
    /// server (`method` to `uri`): `Authorization: DPoP …` and a fresh `DPoP` proof for
    /// a DPoP-bound token (nothing for one this client has no DPoP key for: it is never
    /// sent as a bearer token), `Authorization: Bearer …` otherwise, nothing before the first
    /// authorization. The first call loads the tokens the store keeps for the resource at
    /// `uri` (as [`load_stored`](Self::load_stored) does, off the async runtime), so that
    /// code building its own requests needs no other step; a call near a known expiry
    /// starts a refresh in the background.
    pub async fn request_headers(&self, method: &http::Method, uri: &http::Uri) -> http::HeaderMap {
        if !self.current().loaded {
            self.load_stored(&uri.to_string()).await;
        }
        self.loaded_headers(method, uri)
    }

    /// [`request_headers`](Self::request_headers) without waiting: from the tokens loaded
    /// so far. The transport's [`AuthHook`](crate::transport::http_client::AuthHook) path,
    /// whose `prepare` runs [`load_stored`](Self::load_stored) before its first request.
    pub(super) fn loaded_headers(&self, method: &http::Method, uri: &http::Uri) -> http::HeaderMap {
        let mut headers = http::HeaderMap::new();
        let url = uri.to_string();
        let tokens = {
            let mut current = self.current();
            self.maybe_refresh_ahead(&mut current);
            current.tokens.clone()
        };
        let Some(tokens) = tokens else { return headers };
        let token = &tokens.access_token;
        match (self.dpop(), tokens.is_dpop()) {
            (Some(dpop), true) => {
                match dpop.proof(method.as_str(), &url, Some(token)).ok().and_then(|p| header_value(&p)) {
                    Some(proof) => {
                        headers.insert("dpop", proof);
                    }
                    None => tracing::warn!("could not sign a DPoP proof"),
                }
                if let Some(value) = header_value(&format!("DPoP {token}")) {
                    headers.insert(http::header::AUTHORIZATION, value);
                }
            }
            // A DPoP-bound token (kept from when DPoP was on) without the key to prove it:
            // RFC 9449 forbids sending it as a bearer token. Nothing is sent, and the
            // resource's 401 starts a new authorization.
            (None, true) => tracing::debug!("a DPoP-bound token and no DPoP key: the token is not sent"),
            (_, false) => {
                if let Some(value) = header_value(&format!("Bearer {token}")) {
                    headers.insert(http::header::AUTHORIZATION, value);
                }
            }
        }
        headers
    }

    /// Loads the tokens the store keeps for the resource at `url`, once (later calls, and
    /// calls after tokens were received, change nothing). The store is called on tokio's
    /// blocking pool: its I/O never stalls the runtime's other tasks. The transport runs
    /// it before its first request, and [`request_headers`](Self::request_headers) on its
    /// first call; calling it first is never needed.
    pub async fn load_stored(&self, url: &str) {
        // A stored DPoP-bound token is sent with the stored key: that first.
        self.ready_dpop().await;
        if self.current().loaded {
            return;
        }
        let key = canonical_resource(url);
        // A store that does not answer leaves no tokens: the first request goes without,
        // and authorizing after its 401 fails saying why.
        let tokens = self.store.call("load_tokens", move |s| s.load_tokens(&key)).await;
        let tokens = tokens.unwrap_or_else(|e| {
            tracing::warn!("stored tokens not read: {e}");
            None
        });
        let mut current = self.current();
        if !current.loaded {
            current.loaded = true;
            current.tokens = tokens;
            current.received_at = now_secs();
        }
    }

    /// Starts a background refresh when the token is due ([`refresh_due`]: within
    /// [`refresh_ahead_secs`](OAuthConfig::refresh_ahead_secs) of its expiry, past half its
    /// lifetime) and it can be refreshed.
    fn maybe_refresh_ahead(&self, current: &mut Current) {
        let Some(tokens) = &current.tokens else { return };
        let due = tokens.expires_at.is_some_and(|at| {
            refresh_due(current.received_at, at, now_secs(), self.config.refresh_ahead_secs)
        });
        if !due || tokens.refresh_token.is_none() || current.session.is_none() || current.refreshed_ahead {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        current.refreshed_ahead = true;
        let client = self.clone();
        let stale = tokens.access_token.clone();
        runtime.spawn(async move {
            let _state = client.state.lock().await;
            let session = client.current().session.clone();
            // Someone else may have renewed the token while this task waited.
            if let (Some(session), true) = (session, client.tokens().is_some_and(|t| t.access_token == stale))
            {
                if let Err(e) = client.renew(&session, Some(&stale)).await {
                    tracing::debug!("background token refresh failed: {}", e.error);
                }
            }
        });
    }

    /// Handles a `401` (or a `403 insufficient_scope`, a step-up) from `server_url`, given
    /// that response's headers (`WWW-Authenticate`, `DPoP-Nonce`): takes a new DPoP nonce,
    /// else takes up newer tokens another client saved in the store, or refreshes, else
    /// runs the flow; after which [`request_headers`](Self::request_headers) carries the
    /// fresh token.
    pub async fn authorize(
        &self,
        server_url: &str,
        response_headers: &http::HeaderMap,
        forbidden: bool,
    ) -> Result<(), AuthError> {
        self.authorize_with(server_url, response_headers, forbidden, true).await
    }

    /// [`authorize`](Self::authorize) after a `401`, through the flow whatever tokens the
    /// store or this client hold: a login the user asked for is a new one. The stored
    /// tokens stay until the new ones replace them (a login that fails keeps them).
    pub(super) async fn authorize_anew(
        &self,
        server_url: &str,
        response_headers: &http::HeaderMap,
    ) -> Result<(), AuthError> {
        self.authorize_with(server_url, response_headers, false, false).await
    }

    /// [`authorize`](Self::authorize), taking up stored tokens or refreshing first, and
    /// dropping the refused tokens before the flow, only when `renew`.
    async fn authorize_with(
        &self,
        server_url: &str,
        response_headers: &http::HeaderMap,
        forbidden: bool,
        renew: bool,
    ) -> Result<(), AuthError> {
        let challenge = Challenge::from_headers(response_headers).unwrap_or_default();
        // RFC 9449 §9: the resource server wants a nonce in the proof; retry with it.
        if let Some(dpop) = self.ready_dpop().await {
            let fresh_nonce = dpop.take_nonce_header(server_url, response_headers);
            if challenge.error.as_deref() == Some("use_dpop_nonce") {
                return match fresh_nonce {
                    true => Ok(()),
                    false => Err(AuthError::Denied("the server refused the DPoP nonce it asked for".into())),
                };
            }
        }
        let failed_token = self.tokens().map(|t| t.access_token);
        let mut state = self.state.lock().await;
        // A store that stopped answering would hold this authorization too, or lose it.
        self.store.usable()?;
        // Another request renewed the token while this one waited: retry with it.
        if self.tokens().map(|t| t.access_token) != failed_token {
            return Ok(());
        }
        if forbidden {
            // Granted so far: this process's last grant, else what the stored token says.
            if state.scopes.is_empty() {
                state.scopes = self.granted_scopes();
            }
            // The bound is on step-ups that bring nothing new (a server that keeps
            // refusing what it was given); asking for a scope not yet granted is a new
            // need, which a long-lived client meets once per tool that needs it.
            let mut asked = challenge.scope.as_deref().unwrap_or_default().split_whitespace();
            if asked.any(|s| !state.scopes.contains(s)) {
                state.step_ups = 0;
            } else if state.step_ups >= self.config.max_step_ups {
                return Err(AuthError::Denied(format!("still forbidden after {} step-ups", state.step_ups)));
            } else {
                state.step_ups += 1;
            }
        }
        let discovered = Arc::new(self.discover(server_url, &challenge).await?);
        if self.config.grant.is_interactive() {
            require_pkce_s256(&discovered.metadata)?;
        }
        let credentials = self.credentials(&mut state, &discovered).await?;
        let key = canonical_resource(server_url);
        let resource_dpop = challenge.dpop || discovered.resource_dpop;
        let mut session = Session {
            key: key.clone(),
            dpop: self.use_dpop(&discovered.metadata, resource_dpop),
            discovered,
            credentials,
        };
        // One new registration per authorization, when the server no longer knows ours.
        let mut registered_again = false;

        // Tokens another client sharing the store saved since, or a refresh (with a
        // refresh token of this server), unless more scope is wanted.
        if !forbidden && renew {
            match self.renew(&session, failed_token.as_deref()).await {
                Ok(()) => return Ok(()),
                // The refresh token belongs to the client the server forgot: a new
                // registration authorizes through the user.
                Err(refused) if refused.invalid_client => {
                    let (discovered, used) = (&session.discovered, &session.credentials);
                    let again =
                        self.after_refusal(&mut state, discovered, used, refused, &mut registered_again);
                    session.credentials = again.await?;
                }
                Err(refused) => tracing::debug!("refresh refused, authorizing again: {}", refused.error),
            }
        }
        let scopes = self.scopes(&state, &challenge, &session.discovered, forbidden)?;
        // A token the resource refused is dropped (in the store too). One that lacks a
        // scope is still good for those it was granted: a step-up that fails (the user
        // declines, the server refuses) leaves it in use, with its refresh token. A login
        // asked for refused no token: the stored ones stay until new ones replace them,
        // so a login that does not finish leaves the one saved before.
        if !forbidden && renew {
            self.set_tokens(&key, None, None).await;
        }
        // At most twice: `after_refusal` registers again once, then returns the error.
        let tokens = loop {
            let refused = match self.obtain(&mut state, &session, &scopes).await {
                Ok(tokens) => break tokens,
                Err(refused) => refused,
            };
            let (discovered, used) = (&session.discovered, &session.credentials);
            let again = self.after_refusal(&mut state, discovered, used, refused, &mut registered_again);
            session.credentials = again.await?;
        };
        state.scopes =
            tokens.scope.as_deref().map_or(scopes, |s| s.split_whitespace().map(str::to_owned).collect());
        self.set_tokens(&key, Some(tokens), Some(session)).await;
        Ok(())
    }

    /// One run of the configured grant with the session's credentials: through the user
    /// (the authorization code flow), or the grant's own fields; then the token request.
    async fn obtain(
        &self,
        state: &mut State,
        session: &Session,
        scopes: &BTreeSet<String>,
    ) -> Result<Tokens, Refused> {
        let issuer = &session.discovered.issuer;
        let mut fields = match &self.config.grant {
            Grant::AuthorizationCode => {
                let flow = CodeFlow {
                    issuer,
                    metadata: &session.discovered.metadata,
                    credentials: &session.credentials,
                    redirect_uri: &self.redirect_uri(),
                    resource: &session.discovered.resource,
                    scopes,
                };
                flow.run(self.config.authorizer.as_ref()).await?
            }
            grant => {
                let fetch = self.fetch.clone();
                let resource = &session.discovered.resource;
                let fields = grant_fields(grant, issuer, resource, |url, form, headers| async move {
                    token_endpoint::post_form_for_json(&fetch, &url, &form, &headers).await
                })
                .await?;
                let assertion = fields.iter().find(|(k, _)| *k == "assertion").map(|(_, v)| v.clone());
                if assertion.is_some() && assertion == state.refused_assertion {
                    return Err(AuthError::Denied(
                        "the authorization server already refused this assertion".into(),
                    )
                    .into());
                }
                state.refused_assertion = None;
                if !scopes.is_empty() {
                    let mut fields = fields;
                    fields.push(("scope", scopes.iter().cloned().collect::<Vec<_>>().join(" ")));
                    fields
                } else {
                    fields
                }
            }
        };
        fields.push(("resource", session.discovered.resource.clone()));
        match token_endpoint::request(
            &self.fetch,
            self.session_dpop(session),
            &session.discovered,
            &session.credentials,
            fields.clone(),
        )
        .await
        {
            Ok(answer) => {
                Ok(parse_tokens(&answer, issuer, scopes, None, self.session_dpop(session).is_some())?)
            }
            Err(e) => {
                state.refused_assertion = fields.into_iter().find(|(k, _)| *k == "assertion").map(|(_, v)| v);
                Err(e)
            }
        }
    }

    /// Discovery for `server_url`, within [`discovery_timeout`](OAuthConfig::discovery_timeout).
    async fn discover(&self, server_url: &str, challenge: &Challenge) -> Result<Discovered, AuthError> {
        let limit = self.config.discovery_timeout;
        let discovery = discover(&self.fetch, server_url, challenge.resource_metadata.as_deref());
        tokio::time::timeout(limit, discovery).await.map_err(|_| {
            AuthError::Http(format!(
                "discovery of the authorization server of {server_url} did not finish within {limit:?}"
            ))
        })?
    }

    /// Scope selection: the challenge's, else the resource's `scopes_supported`, merged
    /// with those granted on a step-up; `offline_access` added exactly when the
    /// authorization server supports it (and a user is there to consent). Refused past
    /// [`MAX_SCOPE_BYTES`].
    fn scopes(
        &self,
        state: &State,
        challenge: &Challenge,
        discovered: &Discovered,
        forbidden: bool,
    ) -> Result<BTreeSet<String>, AuthError> {
        let mut scopes: BTreeSet<String> = match (&challenge.scope, &discovered.scopes_supported) {
            (Some(s), _) => s.split_whitespace().map(str::to_owned).collect(),
            (None, Some(supported)) => supported.iter().cloned().collect(),
            (None, None) => BTreeSet::new(),
        };
        if forbidden {
            scopes.extend(state.scopes.iter().cloned());
        }
        let offline = discovered
            .metadata
            .get("scopes_supported")
            .and_then(Value::as_array)
            .is_some_and(|a| a.iter().any(|s| s == "offline_access"));
        if offline && self.config.grant.is_interactive() {
            scopes.insert("offline_access".into());
        } else {
            scopes.remove("offline_access");
        }
        let bytes = scopes.iter().map(|s| s.len() + 1).sum::<usize>().saturating_sub(1);
        if bytes > MAX_SCOPE_BYTES {
            return Err(AuthError::Protocol(format!(
                "the scope to ask for would be {bytes} bytes, over the limit of {MAX_SCOPE_BYTES} (the server keeps asking for more)"
            )));
        }
        Ok(scopes)
    }

    /// The DPoP key, when this session's tokens are DPoP-bound.
    fn session_dpop(&self, session: &Session) -> Option<&Dpop> {
        self.dpop().filter(|_| session.dpop)
    }

    /// Whether this session's tokens are DPoP-bound: always, if so configured; else when
    /// the authorization server signs ES256 proofs and the resource takes DPoP tokens (its
    /// challenge offers the `DPoP` scheme, or its metadata lists DPoP algorithms). A
    /// resource that takes bearer tokens only cannot use a DPoP-bound one.
    fn use_dpop(&self, metadata: &Value, resource_dpop: bool) -> bool {
        let es256 = metadata
            .get("dpop_signing_alg_values_supported")
            .and_then(Value::as_array)
            .is_some_and(|a| a.iter().any(|v| v == "ES256"));
        self.dpop().is_some() && (self.config.dpop == DpopPolicy::Always || (es256 && resource_dpop))
    }

    /// Replaces the tokens of the resource `key`, then the store's copy (and a fresh DPoP
    /// key they are bound to), saved off the async runtime: the save finishes even if the
    /// caller is cancelled meanwhile, and the tokens in use are already the new ones.
    async fn set_tokens(&self, key: &str, tokens: Option<Tokens>, session: Option<Session>) {
        let dpop_key =
            tokens.as_ref().and(session.as_ref()).and_then(|s| self.session_dpop(s)?.take_unsaved());
        let saved = tokens.clone();
        {
            let mut current = self.current();
            current.tokens = tokens;
            current.loaded = true;
            current.refreshed_ahead = false;
            current.received_at = now_secs();
            if session.is_some() {
                current.session = session;
            }
        }
        let key = key.to_owned();
        let outcome = self.store.call("save_tokens", move |s| {
            if let Some(Err(e)) = dpop_key.map(|der| s.save_dpop_key(&der)) {
                tracing::debug!(
                    "the DPoP key could not be stored (tokens bound to it end with this process): {e}"
                );
            }
            s.save_tokens(&key, saved.as_ref())
        });
        if let Err(e) = outcome.await.and_then(|saved| saved) {
            tracing::warn!("could not save tokens: {e}");
        }
    }
}

/// Whether tokens received at `received_at` and expiring at `expires_at` (seconds since
/// the Unix epoch) are due for a refresh ahead of their expiry at `now`: within `ahead`
/// seconds of it, and never before half their lifetime. Tokens that live less than
/// twice `ahead` would otherwise be due on arrival, and every request would refresh
/// them; tokens that arrive expired wait for the server's `401`.
fn refresh_due(received_at: u64, expires_at: u64, now: u64, ahead: u64) -> bool {
    let window = ahead.min(expires_at.saturating_sub(received_at) / 2);
    window > 0 && now.saturating_add(window) >= expires_at
}

#[cfg(test)]
mod state_tests {
    use super::{ClientCredentials, State};

    /// A resource that names another authorization server at every authorization
    /// cannot grow the credentials kept in memory without end; the current server's stay.
    #[test]
    fn credentials_are_kept_for_a_bounded_number_of_issuers() {
        let mut state = State::default();
        for n in 0..1000 {
            let issuer = format!("https://as{n}.example");
            let credentials =
                ClientCredentials { client_id: format!("c{n}"), ..ClientCredentials::default() };
            state.remember_credentials(&issuer, &credentials);
            assert_eq!(state.credentials[&issuer].client_id, format!("c{n}"));
            assert!(
                state.credentials.len() <= super::MAX_ISSUERS,
                "{} issuers kept",
                state.credentials.len()
            );
        }
    }
}

#[cfg(test)]
mod refresh_tests {
    use super::refresh_due;

    /// A token is refreshed ahead within the configured window of its expiry, but never
    /// before half its lifetime: one that lives less than twice the window would
    /// otherwise be due the moment it arrives, and every request would refresh it.
    #[test]
    fn a_refresh_ahead_waits_for_half_the_tokens_lifetime() {
        let t = 1_000_000;
        // An hour's token: due in the last 60 s.
        assert!(!refresh_due(t, t + 3600, t + 3539, 60));
        assert!(refresh_due(t, t + 3600, t + 3540, 60));
        // A 10 s token: not due on arrival, due halfway.
        assert!(!refresh_due(t, t + 10, t, 60), "a short-lived token is not refreshed on arrival");
        assert!(!refresh_due(t, t + 10, t + 4, 60));
        assert!(refresh_due(t, t + 10, t + 5, 60));
        // A token that arrives expired (or within a second of it) waits for the 401.
        assert!(!refresh_due(t, t, t, 60));
        assert!(!refresh_due(t, t + 1, t + 1, 60));
        assert!(!refresh_due(t, t - 5, t, 60));
        // Windows and times at the end of the clock do not overflow.
        assert!(refresh_due(0, u64::MAX, u64::MAX, u64::MAX));
        assert!(!refresh_due(0, u64::MAX, 0, u64::MAX));
    }
}

#[cfg(test)]
#[path = "offload_tests.rs"]
mod offload_tests;

#[path = "registration.rs"]
mod registration;

#[path = "shared_refresh.rs"]
mod shared_refresh;
