//! Resources: fixed URIs, and RFC 6570 templates that match many. A read handler takes
//! extractors ([`super::extract`]): [`Uri`](super::Uri), the template's variables typed
//! as [`Args<T>`](super::Args) (each field a variable of the template), [`ResourceRequest`],
//! [`Ctx`], [`State<T>`](super::State).
//!
//! ```
//! use mcpwire::server::{resource_template, Args};
//! # use schemars::JsonSchema; use serde::Deserialize;
//! #[derive(Deserialize, JsonSchema)]
//! struct Note {
//!     id: String,
//! }
//!
//! let notes = resource_template("notes://{id}", "note")
//!     .mime_type("text/plain")
//!     .handler(|Args(note): Args<Note>| async move { format!("the text of note {}", note.id) });
//! # let _ = notes;
//! ```

use std::collections::HashMap;
use std::sync::Arc;

use base64::Engine;
use futures_util::future::BoxFuture;
use mcpwire_protocol::common::JsonObject;
use mcpwire_protocol::content::{
    Annotations, BlobResourceContents, Icon, ResourceContents, TextResourceContents,
};
use mcpwire_protocol::resources::{ReadResourceResult, Resource, ResourceTemplate};
use mcpwire_protocol::Meta;

use super::arguments::decode_arguments;
use super::context::Ctx;
use super::extract::{rejection_error, FromRequest, Handler, Rejection, RequestParts};
use super::uri_template::UriTemplate;
use crate::error::McpError;

/// What a resource handler is asked to read; an extractor, for a handler that takes the
/// template's variables untyped.
#[derive(Clone, Debug)]
pub struct ResourceRequest {
    /// The URI asked for.
    pub uri: String,
    /// For a template, the values of its variables.
    pub variables: HashMap<String, String>,
}

impl ResourceRequest {
    /// The value of a template variable.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.variables.get(name).map(String::as_str)
    }
}

impl FromRequest for ResourceRequest {
    fn from_request(parts: &RequestParts<'_>) -> Result<Self, Rejection> {
        let uri = parts.uri().unwrap_or_default().to_owned();
        let variables = decode_arguments(parts.arguments()).map_err(Rejection::InvalidArguments)?;
        Ok(ResourceRequest { uri, variables })
    }
}

/// Binary content, sent base64-encoded as a `blob`.
#[derive(Clone, Debug)]
pub struct Blob(pub Vec<u8>);

/// What a resource handler returns: text, a [`Blob`], a value as JSON
/// ([`Json`](super::Json)), contents or a whole result. Text, blobs and JSON take the
/// requested URI and the resource's MIME type.
pub trait IntoReadResult: Send + 'static {
    /// The result for `uri`.
    fn into_read_result(self, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceResult, McpError>;
}

fn contents(contents: Vec<ResourceContents>) -> ReadResourceResult {
    ReadResourceResult { contents, ..Default::default() }
}

impl IntoReadResult for ReadResourceResult {
    fn into_read_result(self, _: &str, _: Option<&str>) -> Result<ReadResourceResult, McpError> {
        Ok(self)
    }
}

impl IntoReadResult for ResourceContents {
    fn into_read_result(self, _: &str, _: Option<&str>) -> Result<ReadResourceResult, McpError> {
        Ok(contents(vec![self]))
    }
}

impl IntoReadResult for Vec<ResourceContents> {
    fn into_read_result(self, _: &str, _: Option<&str>) -> Result<ReadResourceResult, McpError> {
        Ok(contents(self))
    }
}

impl IntoReadResult for String {
    fn into_read_result(self, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceResult, McpError> {
        let text = TextResourceContents {
            uri: uri.to_owned(),
            mime_type: mime_type.map(str::to_owned),
            text: self,
            ..Default::default()
        };
        Ok(contents(vec![ResourceContents::Text(text)]))
    }
}

impl IntoReadResult for &'static str {
    fn into_read_result(self, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceResult, McpError> {
        self.to_owned().into_read_result(uri, mime_type)
    }
}

impl IntoReadResult for Blob {
    fn into_read_result(self, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceResult, McpError> {
        let blob = BlobResourceContents {
            uri: uri.to_owned(),
            mime_type: mime_type.map(str::to_owned),
            blob: base64::engine::general_purpose::STANDARD.encode(self.0),
            ..Default::default()
        };
        Ok(contents(vec![ResourceContents::Blob(blob)]))
    }
}

/// A value serialized as JSON text, with the resource's MIME type or else
/// `application/json`.
impl<T: serde::Serialize + Send + 'static> IntoReadResult for super::Json<T> {
    fn into_read_result(self, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceResult, McpError> {
        let text = serde_json::to_string(&self.0)?;
        text.into_read_result(uri, Some(mime_type.unwrap_or("application/json")))
    }
}

impl<T: IntoReadResult> IntoReadResult for Result<T, McpError> {
    fn into_read_result(self, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceResult, McpError> {
        self.and_then(|v| v.into_read_result(uri, mime_type))
    }
}

pub(crate) type ReadHandler = Arc<
    dyn Fn(Ctx, ResourceRequest) -> BoxFuture<'static, Result<ReadResourceResult, McpError>> + Send + Sync,
>;

/// The handler behind the router's one signature: the request's variables become the
/// arguments extractors read, the URI the one [`Uri`](super::Uri) reads.
fn erase<M, H>(handler: H, mime_type: Option<String>) -> ReadHandler
where
    H: Handler<M>,
    H::Output: IntoReadResult,
{
    let handler = Arc::new(handler);
    Arc::new(move |ctx, request: ResourceRequest| {
        let variables = match serde_json::value::to_raw_value(&request.variables) {
            Ok(raw) => raw,
            Err(e) => return Box::pin(std::future::ready(Err(McpError::from(e)))),
        };
        match handler.call(&RequestParts::of_strings(&ctx, &variables, Some(&request.uri))) {
            Ok(fut) => {
                let mime_type = mime_type.clone();
                Box::pin(async move { fut.await.into_read_result(&request.uri, mime_type.as_deref()) })
            }
            // The URI has the template's shape, but a variable is not a value of its type
            // (`users://abc` where the id is a number): no such resource.
            Err(Rejection::InvalidArguments(reason)) if !request.variables.is_empty() => {
                let error = McpError::resource_not_found(&request.uri)
                    .with_data(serde_json::json!({ "uri": request.uri, "reason": reason }));
                Box::pin(std::future::ready(Err(error)))
            }
            Err(rejection) => {
                let error = rejection_error(rejection, &format!("resource {}", request.uri));
                Box::pin(std::future::ready(Err(error)))
            }
        }
    })
}

/// A registered resource with a fixed URI.
#[derive(Clone)]
pub struct ResourceDef {
    pub(crate) resource: Resource,
    pub(crate) handler: ReadHandler,
}

/// A registered resource template.
#[derive(Clone)]
pub struct TemplateDef {
    pub(crate) template: ResourceTemplate,
    pub(crate) parsed: Result<UriTemplate, String>,
    pub(crate) handler: ReadHandler,
}

impl std::fmt::Debug for ResourceDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceDef").field("resource", &self.resource).finish()
    }
}

impl std::fmt::Debug for TemplateDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TemplateDef").field("template", &self.template).finish()
    }
}

/// Starts describing a resource with a fixed URI.
pub fn resource(uri: impl Into<String>, name: impl Into<String>) -> ResourceBuilder {
    ResourceBuilder { resource: Resource::new(uri, name) }
}

/// Starts describing a resource template (RFC 6570), such as `file:///{+path}`.
pub fn resource_template(uri_template: impl Into<String>, name: impl Into<String>) -> TemplateBuilder {
    TemplateBuilder {
        template: ResourceTemplate {
            uri_template: uri_template.into(),
            name: name.into(),
            ..Default::default()
        },
    }
}

macro_rules! descriptive_setters {
    ($field:ident) => {
        /// A human-readable title.
        pub fn title(mut self, title: impl Into<String>) -> Self {
            self.$field.title = Some(title.into());
            self
        }
        /// A description.
        pub fn description(mut self, description: impl Into<String>) -> Self {
            self.$field.description = Some(description.into());
            self
        }
        /// The MIME type of its content.
        pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
            self.$field.mime_type = Some(mime_type.into());
            self
        }
        /// Annotations (audience, priority, last modified).
        pub fn annotations(mut self, annotations: Annotations) -> Self {
            self.$field.annotations = Some(annotations);
            self
        }
        /// Icons.
        pub fn icons(mut self, icons: Vec<Icon>) -> Self {
            self.$field.icons = Some(icons);
            self
        }
        /// `_meta`.
        pub fn meta(mut self, meta: Meta) -> Self {
            self.$field.meta = Some(meta);
            self
        }
    };
}

/// Describes a resource with a fixed URI.
#[derive(Debug)]
pub struct ResourceBuilder {
    resource: Resource,
}

impl ResourceBuilder {
    descriptive_setters!(resource);

    /// The size in bytes, if known.
    pub fn size(mut self, size: u64) -> Self {
        self.resource.size = Some(size);
        self
    }

    /// Serves fixed text.
    pub fn text(self, text: impl Into<String>) -> ResourceDef {
        let text: String = text.into();
        self.handler(move || std::future::ready(text.clone()))
    }

    /// Sets the async read handler (its parameters are extractors) and finishes the
    /// resource.
    pub fn handler<M, H>(self, handler: H) -> ResourceDef
    where
        H: Handler<M>,
        H::Output: IntoReadResult,
    {
        let mime = self.resource.mime_type.clone();
        ResourceDef { resource: self.resource, handler: erase(handler, mime) }
    }
}

/// Describes a resource template.
#[derive(Debug)]
pub struct TemplateBuilder {
    template: ResourceTemplate,
}

impl TemplateBuilder {
    descriptive_setters!(template);

    /// Sets the async read handler and finishes. Its parameters are extractors; with
    /// [`Args<T>`](super::Args) the template's variables decode into `T`, and a required
    /// field of `T` that the template does not have is an error when the server is built.
    pub fn handler<M, H>(self, handler: H) -> TemplateDef
    where
        H: Handler<M>,
        H::Output: IntoReadResult,
    {
        let parsed = UriTemplate::parse(&self.template.uri_template)
            .map_err(|e| e.to_string())
            .and_then(|parsed| check_variables(parsed, H::arguments_schema()));
        let mime = self.template.mime_type.clone();
        TemplateDef { template: self.template, parsed, handler: erase(handler, mime) }
    }
}

/// Refuses a template whose handler requires a field that is none of its variables (the
/// handler could never be called), so the two cannot drift apart unnoticed.
fn check_variables(parsed: UriTemplate, schema: Option<JsonObject>) -> Result<UriTemplate, String> {
    let required = schema.as_ref().and_then(|s| s.get("required")).and_then(serde_json::Value::as_array);
    for name in required.into_iter().flatten().filter_map(serde_json::Value::as_str) {
        if !parsed.variables().any(|v| v == name) {
            return Err(format!("the handler needs a variable {name:?} that the template does not have"));
        }
    }
    Ok(parsed)
}
