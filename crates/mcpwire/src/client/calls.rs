//! The typed calls of a [`Client`].

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use mcpwire_protocol::capabilities::ClientCapabilities;
use mcpwire_protocol::completion::{CompleteRequestParams, CompleteResult};
use mcpwire_protocol::lifecycle::DiscoverResult;
use mcpwire_protocol::logging::LoggingLevel;
use mcpwire_protocol::prompts::{GetPromptResult, ListPromptsResult, Prompt};
use mcpwire_protocol::resources::{
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceResult, Resource, ResourceTemplate,
};
use mcpwire_protocol::tools::{CallToolResult, ListToolsResult, Tool};
use mcpwire_protocol::{codes, methods, Era, Meta, RawJson, RequestId};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};

use super::Client;
use crate::error::RequestError;
use crate::jsonrpc::{ProgressCallback, ProgressUpdate};

/// Options of one call.
#[derive(Clone, Default)]
pub struct RequestOptions {
    /// Give up after this long (and send `notifications/cancelled`).
    pub timeout: Option<Duration>,
    /// Receive progress notifications.
    pub on_progress: Option<ProgressCallback>,
    /// Extra `_meta` for the request.
    pub meta: Option<Meta>,
    /// Cancel to give up: the server is told (`notifications/cancelled`, or a closed
    /// stream on 2026 HTTP) and the call fails with `RequestError::Cancelled`.
    pub cancel: Option<tokio_util::sync::CancellationToken>,
    /// The capabilities this 2026 request declares, instead of the client's own: for a
    /// gateway or proxy that relays the requests of other clients, each with what its
    /// client can answer (the result is checked against them: a task needs their tasks
    /// extension). Ignored in the 2025 era, whose capabilities are the session's.
    pub capabilities: Option<ClientCapabilities>,
    /// With a limit here, each progress notification starts `timeout` again, and this
    /// bounds the whole call (a 2026 call's input rounds included) whatever progress
    /// comes: see [`RequestOptions::reset_timeout_on_progress`].
    pub max_total_timeout: Option<Duration>,
    /// Told the task a tool call became, once, before the call follows it: see
    /// [`RequestOptions::on_task`].
    pub on_task: Option<TaskCallback>,
    pub(crate) id: Option<RequestId>,
}

/// Receives the task a tool call became ([`RequestOptions::on_task`]).
pub type TaskCallback = Arc<dyn Fn(&mcpwire_protocol::tasks_ext::Task) + Send + Sync>;

impl RequestOptions {
    /// Sets the timeout.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Cancels the call when `token` fires.
    pub fn cancel_on(mut self, token: tokio_util::sync::CancellationToken) -> Self {
        self.cancel = Some(token);
        self
    }

    /// Declares `capabilities` for this 2026 request instead of the client's own (see the
    /// field).
    pub fn declaring(mut self, capabilities: ClientCapabilities) -> Self {
        self.capabilities = Some(capabilities);
        self
    }

    /// Sets a progress callback.
    pub fn on_progress(mut self, f: impl Fn(ProgressUpdate) + Send + Sync + 'static) -> Self {
        self.on_progress = Some(Arc::new(f));
        self
    }

    /// Calls `f` once with the task the server runs this tool call as (the created task of
    /// a 2025-11-25 call, the task result of a 2026 one), before the call follows it to
    /// its end: its id is the one `tasks/get` and `tasks/cancel` take. A call answered at
    /// once never calls it. The task comes from the server's task result, never from the
    /// text of a progress message (which a server writes as it likes).
    pub fn on_task(mut self, f: impl Fn(&mcpwire_protocol::tasks_ext::Task) + Send + Sync + 'static) -> Self {
        self.on_task = Some(Arc::new(f));
        self
    }

    /// Starts the timeout again on each progress notification from the server, so that a
    /// long job that reports progress is not given up on, while `max_total` bounds the
    /// call whatever progress comes (the spec lets a client reset its timeout on progress
    /// and asks it to keep a maximum all the same). The call asks for progress even
    /// without [`on_progress`](Self::on_progress).
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcpwire::client::RequestOptions;
    ///
    /// // Give up after 30 s without progress, and after 10 minutes in all.
    /// let options = RequestOptions::default()
    ///     .timeout(Duration::from_secs(30))
    ///     .reset_timeout_on_progress(Duration::from_secs(600));
    /// assert_eq!(options.max_total_timeout, Some(Duration::from_secs(600)));
    /// ```
    pub fn reset_timeout_on_progress(mut self, max_total: Duration) -> Self {
        self.max_total_timeout = Some(max_total);
        self
    }

    /// What bounds the call as a whole (its input rounds, a task followed to its end):
    /// the maximum when progress starts the timeout again, else the timeout.
    pub(crate) fn whole_call_limit(&self) -> Option<Duration> {
        self.max_total_timeout.or(self.timeout)
    }

    /// Adds `_meta`.
    pub fn meta(mut self, meta: Meta) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// Drops a result's `io.modelcontextprotocol/related-task` `_meta` (and the `_meta`,
/// when nothing else is left in it), keeping the order of the other members (`retain`:
/// `remove` moves the last member into the gap when the map keeps its order).
fn without_related_task(result: &mut Value) {
    let Some(result) = result.as_object_mut() else { return };
    if let Some(Value::Object(meta)) = result.get_mut("_meta") {
        meta.retain(|name, _| name != mcpwire_protocol::meta::RELATED_TASK);
        if meta.is_empty() {
            result.retain(|name, _| name != "_meta");
        }
    }
}

fn decode<T: DeserializeOwned>(raw: &RawJson) -> Result<T, RequestError> {
    serde_json::from_str(raw.get()).map_err(RequestError::InvalidResult)
}

fn object<T: Serialize>(value: &T) -> Result<Map<String, Value>, RequestError> {
    match serde_json::to_value(value).map_err(RequestError::Encode)? {
        Value::Object(o) => Ok(o),
        Value::Null => Ok(Map::new()),
        _ => Err(RequestError::Protocol("params must serialize to a JSON object".into())),
    }
}

fn cursor_params(cursor: Option<&str>) -> Map<String, Value> {
    let mut m = Map::new();
    if let Some(c) = cursor {
        m.insert("cursor".into(), Value::String(c.to_owned()));
    }
    m
}

/// Most pages a listing follows: past it the server is taken to page forever.
const MAX_PAGES: usize = 10_000;

/// Most items a listing gathers across its pages: far more than any real server lists,
/// and a bound on what a server sending large pages can make the client hold (pages
/// alone allow 10,000 of up to the message size each). A longer list can still be read
/// page by page (`list_tools(cursor)` and the like).
const MAX_ITEMS: usize = 100_000;

/// Most bytes of pages a listing reads, all pages together: far more than any real
/// server's list, and what bounds the memory a listing holds (its items, and the cursors
/// kept to see one come back), which [`MAX_ITEMS`] alone does not where items or cursors
/// are large.
const MAX_LIST_BYTES: usize = 64 * 1024 * 1024;

/// One page of a list: its items, its `nextCursor`, and its size in bytes as it came.
type Page<T> = (Vec<T>, Option<String>, usize);

/// Every item of a paginated list, from the first page (no cursor) through each
/// `nextCursor`. A cursor that comes back (pages that go round in a circle), more than
/// [`MAX_PAGES`] pages, more than [`MAX_ITEMS`] items or more than [`MAX_LIST_BYTES`] of
/// pages end it with an error, rather than a loop that never ends while its items fill
/// memory.
pub(super) async fn every_page<T, F, Fut>(mut page: F) -> Result<Vec<T>, RequestError>
where
    F: FnMut(Option<String>) -> Fut,
    Fut: std::future::Future<Output = Result<Page<T>, RequestError>>,
{
    let mut all = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut cursor: Option<String> = None;
    let mut bytes = 0usize;
    for _ in 0..MAX_PAGES {
        let (items, next, size) = page(cursor.take()).await?;
        all.extend(items);
        bytes = bytes.saturating_add(size);
        if all.len() > MAX_ITEMS {
            return Err(RequestError::Protocol(format!(
                "the server's list holds more than {MAX_ITEMS} items; read it page by page"
            )));
        }
        if bytes > MAX_LIST_BYTES {
            return Err(RequestError::Protocol(format!(
                "the server's list is more than {} MiB; read it page by page",
                MAX_LIST_BYTES >> 20
            )));
        }
        match next {
            None => return Ok(all),
            Some(next) if !seen.insert(next.clone()) => {
                return Err(RequestError::Protocol(format!(
                    "the server's pages go round in a circle: cursor {next:?} came back"
                )))
            }
            Some(next) => cursor = Some(next),
        }
    }
    Err(RequestError::Protocol(format!("the server's list goes on past {MAX_PAGES} pages")))
}

impl Client {
    /// A list method, from the 2026 cache while its `ttlMs` lasts.
    async fn list(&self, method: &'static str, cursor: Option<&str>) -> Result<RawJson, RequestError> {
        // The first page is "", a cursor's page "#" and the cursor: an empty cursor is a
        // cursor like any other, not the first page.
        let key = cursor.map_or_else(String::new, |c| format!("#{c}"));
        if let Some(hit) = self.inner.cache.get(method, &key) {
            return Ok(hit);
        }
        let (_, raw) = match self.send(method, cursor_params(cursor), &RequestOptions::default()).await {
            Ok(answer) => answer,
            // A cursor the server refuses: the pages it came from are no longer the
            // server's, so none of this list's pages are kept.
            Err(RequestError::Peer(e)) if cursor.is_some() && e.code == codes::INVALID_PARAMS => {
                self.inner.cache.drop_method(method);
                return Err(RequestError::Peer(e));
            }
            Err(e) => return Err(e),
        };
        self.remember(method, &key, &raw);
        Ok(raw)
    }

    /// Caches a 2026 result for its `ttlMs`.
    fn remember(&self, method: &'static str, key: &str, raw: &RawJson) {
        if self.era() != Era::Stateless {
            return;
        }
        #[derive(serde::Deserialize)]
        struct Ttl {
            #[serde(rename = "ttlMs")]
            ttl_ms: Option<u64>,
        }
        if let Ok(Ttl { ttl_ms: Some(ttl) }) = serde_json::from_str::<Ttl>(raw.get()) {
            self.inner.cache.put(method, key, raw, ttl);
        }
    }

    /// Empties the result cache.
    pub fn clear_cache(&self) {
        self.inner.cache.clear();
    }

    /// `server/discover` (2026 connections).
    pub async fn discover(&self) -> Result<DiscoverResult, RequestError> {
        if self.era() != Era::Stateless {
            return Err(RequestError::Protocol(
                "server/discover is a 2026-07-28 method; this is a 2025 session".into(),
            ));
        }
        let (_, raw) = self.send(methods::SERVER_DISCOVER, Map::new(), &RequestOptions::default()).await?;
        decode(&raw)
    }

    /// `ping` (2025 sessions; removed in 2026).
    pub async fn ping(&self) -> Result<(), RequestError> {
        if self.era() != Era::Stateful {
            return Err(RequestError::Protocol("ping does not exist in the 2026-07-28 revision".into()));
        }
        self.send(methods::PING, Map::new(), &RequestOptions::default()).await.map(|_| ())
    }

    /// One page of a list method, decoded, and its size in bytes as it came.
    async fn list_page<T: DeserializeOwned>(
        &self,
        method: &'static str,
        cursor: Option<&str>,
    ) -> Result<(T, usize), RequestError> {
        let raw = self.list(method, cursor).await?;
        Ok((decode(&raw)?, raw.get().len()))
    }

    /// One page of `tools/list`.
    pub async fn list_tools(&self, cursor: Option<&str>) -> Result<ListToolsResult, RequestError> {
        self.tools_page(cursor).await.map(|(page, _)| page)
    }

    /// One page of `tools/list` and its size; what it says of the tools is learned.
    async fn tools_page(&self, cursor: Option<&str>) -> Result<(ListToolsResult, usize), RequestError> {
        let (page, size) = self.list_page::<ListToolsResult>(methods::TOOLS_LIST, cursor).await?;
        self.inner.forget_tools_of_replaced_sessions();
        self.inner.output_schemas.learn(&page.tools, size);
        self.inner.task_tools.learn(&page.tools, size);
        Ok((page, size))
    }

    /// Every tool, following the cursors.
    pub async fn list_all_tools(&self) -> Result<Vec<Tool>, RequestError> {
        every_page(|cursor| async move {
            let (page, size) = self.tools_page(cursor.as_deref()).await?;
            Ok((page.tools, page.next_cursor, size))
        })
        .await
    }

    /// Calls a tool with arguments (anything that serializes to a JSON object).
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: impl Serialize,
    ) -> Result<CallToolResult, RequestError> {
        self.call_tool_with(name, arguments, RequestOptions::default()).await
    }

    /// [`Client::call_tool`] with options (timeout, progress, `_meta`).
    pub async fn call_tool_with(
        &self,
        name: &str,
        arguments: impl Serialize,
        options: RequestOptions,
    ) -> Result<CallToolResult, RequestError> {
        let mut params = Map::new();
        params.insert("name".into(), Value::String(name.to_owned()));
        params.insert("arguments".into(), Value::Object(object(&arguments)?));
        // A task (2025-11-25: when the tool requires one; 2026: when the server makes
        // one) is followed to its end, within what is left of the call's limit.
        let started = tokio::time::Instant::now();
        let raw = match self.start_core_task(&params, &options, false).await? {
            Some(task) => self.follow_task(&task, &options, started).await?,
            None => {
                let raw = self.send_with_input(methods::TOOLS_CALL, params, &options).await?;
                match super::is_task_result(&raw)? {
                    true => {
                        let created: mcpwire_protocol::tasks_ext::CreateTaskResult = decode(&raw)?;
                        self.follow_task(&created.task, &options, started).await?
                    }
                    false => raw,
                }
            }
        };
        let result: CallToolResult = decode(&raw)?;
        self.check_output(name, &result).await?;
        Ok(result)
    }

    /// One page of `resources/list`.
    pub async fn list_resources(&self, cursor: Option<&str>) -> Result<ListResourcesResult, RequestError> {
        self.list_page(methods::RESOURCES_LIST, cursor).await.map(|(page, _)| page)
    }

    /// Every resource, following the cursors.
    pub async fn list_all_resources(&self) -> Result<Vec<Resource>, RequestError> {
        every_page(|cursor| async move {
            let (page, size) =
                self.list_page::<ListResourcesResult>(methods::RESOURCES_LIST, cursor.as_deref()).await?;
            Ok((page.resources, page.next_cursor, size))
        })
        .await
    }

    /// One page of `resources/templates/list`.
    pub async fn list_resource_templates(
        &self,
        cursor: Option<&str>,
    ) -> Result<ListResourceTemplatesResult, RequestError> {
        self.list_page(methods::RESOURCES_TEMPLATES_LIST, cursor).await.map(|(page, _)| page)
    }

    /// Every resource template, following the cursors.
    pub async fn list_all_resource_templates(&self) -> Result<Vec<ResourceTemplate>, RequestError> {
        every_page(|cursor| async move {
            let (page, size) = self
                .list_page::<ListResourceTemplatesResult>(
                    methods::RESOURCES_TEMPLATES_LIST,
                    cursor.as_deref(),
                )
                .await?;
            Ok((page.resource_templates, page.next_cursor, size))
        })
        .await
    }

    /// `resources/read` (from the 2026 cache while its `ttlMs` lasts; a result that took
    /// `input_required` rounds is not cached).
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, RequestError> {
        if let Some(hit) = self.inner.cache.get(methods::RESOURCES_READ, uri) {
            return decode(&hit);
        }
        let mut params = Map::new();
        params.insert("uri".into(), Value::String(uri.to_owned()));
        let options = RequestOptions::default();
        let (raw, retried) = self.send_with_input_rounds(methods::RESOURCES_READ, params, &options).await?;
        // The result of a retry is never cached: it answered this exchange's questions.
        if !retried {
            self.remember(methods::RESOURCES_READ, uri, &raw);
        }
        decode(&raw)
    }

    /// Asks to hear of changes to the resource `uri` (as
    /// [`ServerChange::ResourceUpdated`](super::ServerChange::ResourceUpdated), through
    /// [`ClientBuilder::on_change`](super::ClientBuilder::on_change)): `resources/subscribe`
    /// on a 2025 session; in 2026, a `subscriptions/listen` stream for that resource, kept
    /// until [`Client::unsubscribe`] (for more control over 2026 streams, use
    /// [`Client::listen`]).
    pub async fn subscribe(&self, uri: &str) -> Result<(), RequestError> {
        match self.era() {
            Era::Stateful => self.uri_call(methods::RESOURCES_SUBSCRIBE, uri).await,
            Era::Stateless => self.listen_to_resource(uri).await,
        }
    }

    /// Stops hearing of changes to `uri`: `resources/unsubscribe` on a 2025 session; in
    /// 2026, the end of its listen stream.
    pub async fn unsubscribe(&self, uri: &str) -> Result<(), RequestError> {
        match self.era() {
            Era::Stateful => self.uri_call(methods::RESOURCES_UNSUBSCRIBE, uri).await,
            Era::Stateless => {
                self.stop_listening_to_resource(uri);
                Ok(())
            }
        }
    }

    async fn uri_call(&self, method: &str, uri: &str) -> Result<(), RequestError> {
        let mut params = Map::new();
        params.insert("uri".into(), Value::String(uri.to_owned()));
        self.send(method, params, &RequestOptions::default()).await.map(|_| ())
    }

    /// One page of `prompts/list`.
    pub async fn list_prompts(&self, cursor: Option<&str>) -> Result<ListPromptsResult, RequestError> {
        self.list_page(methods::PROMPTS_LIST, cursor).await.map(|(page, _)| page)
    }

    /// Every prompt, following the cursors.
    pub async fn list_all_prompts(&self) -> Result<Vec<Prompt>, RequestError> {
        every_page(|cursor| async move {
            let (page, size) =
                self.list_page::<ListPromptsResult>(methods::PROMPTS_LIST, cursor.as_deref()).await?;
            Ok((page.prompts, page.next_cursor, size))
        })
        .await
    }

    /// `prompts/get` with string arguments.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: BTreeMap<String, String>,
    ) -> Result<GetPromptResult, RequestError> {
        let mut params = Map::new();
        params.insert("name".into(), Value::String(name.to_owned()));
        params.insert("arguments".into(), serde_json::to_value(arguments).map_err(RequestError::Encode)?);
        decode(&self.send_with_input(methods::PROMPTS_GET, params, &RequestOptions::default()).await?)
    }

    /// `completion/complete`.
    pub async fn complete(&self, params: &CompleteRequestParams) -> Result<CompleteResult, RequestError> {
        let (_, raw) =
            self.send(methods::COMPLETION_COMPLETE, object(params)?, &RequestOptions::default()).await?;
        decode(&raw)
    }

    /// Asks for log messages at `level` and above: `logging/setLevel` on a 2025 session,
    /// the `logLevel` of every later request in 2026.
    pub async fn set_log_level(&self, level: LoggingLevel) -> Result<(), RequestError> {
        match self.era() {
            Era::Stateful => {
                let mut params = Map::new();
                params.insert("level".into(), serde_json::to_value(level).map_err(RequestError::Encode)?);
                self.send(methods::LOGGING_SET_LEVEL, params, &RequestOptions::default()).await.map(|_| ())
            }
            Era::Stateless => {
                *self.inner.log_level.lock().unwrap_or_else(|e| e.into_inner()) = Some(level);
                Ok(())
            }
        }
    }

    /// Sends any request (the era's `_meta` is added) and returns its raw result.
    pub async fn send_request(
        &self,
        method: &str,
        params: Value,
        options: RequestOptions,
    ) -> Result<Value, RequestError> {
        let params = params_object(params)?;
        let (_, raw) = self.send(method, params, &options).await?;
        decode(&raw)
    }

    /// `tools/call` with its params as given (`name`, `arguments`, `_meta`, ...), and its
    /// raw result, as [`Client::send_request`] sends it; except that a tool that requires
    /// a task (2025-11-25 `execution.taskSupport: "required"`) is run as one and followed
    /// to its end, as [`Client::call_tool_with`] does. For relays (`mcpwire proxy`) that
    /// offer no tasks of their own and serve such a tool as a plain call: the task's
    /// result comes back without its `related-task` `_meta`, which names a task of this
    /// connection that the relay's own client never made and cannot ask about.
    pub async fn call_tool_raw(&self, params: Value, options: RequestOptions) -> Result<Value, RequestError> {
        let params = params_object(params)?;
        let started = tokio::time::Instant::now();
        match self.start_core_task(&params, &options, false).await? {
            Some(task) => {
                let mut result: Value = decode(&self.follow_task(&task, &options, started).await?)?;
                without_related_task(&mut result);
                Ok(result)
            }
            None => decode(&self.send(methods::TOOLS_CALL, params, &options).await?.1),
        }
    }

    /// Sends a notification.
    pub async fn send_notification(&self, method: &str, params: Option<Value>) {
        let raw = params.and_then(|p| serde_json::value::to_raw_value(&p).ok());
        self.inner.peer.notify(method, raw).await;
    }

    /// Tells the server that the roots changed (`notifications/roots/list_changed`): a
    /// 2025 client with a roots callback ([`ClientBuilder::on_roots`](super::ClientBuilder::on_roots))
    /// declares `roots.listChanged` and should say so when what the callback answers
    /// changes, so that the server asks again. Nothing is sent in the 2026 era, which has
    /// no such notification (a server asks for the roots in the request that needs them,
    /// and gets the callback's answer of the moment), nor by a client without roots.
    pub async fn notify_roots_changed(&self) {
        let declared = self.capabilities().roots.as_ref().is_some_and(|r| r.list_changed == Some(true));
        if self.era() == Era::Stateful && declared {
            self.inner.peer.notify(methods::NOTIFICATION_ROOTS_LIST_CHANGED, None).await;
        }
    }
}

/// A raw request's params: an object, or `null` for none.
fn params_object(params: Value) -> Result<Map<String, Value>, RequestError> {
    match params {
        Value::Object(o) => Ok(o),
        Value::Null => Ok(Map::new()),
        _ => Err(RequestError::Protocol("params must be a JSON object".into())),
    }
}
