//! Resources: fixed URIs, and RFC 6570 templates that match many.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use base64::Engine;
use mcpwire_protocol::content::{
    Annotations, BlobResourceContents, Icon, ResourceContents, TextResourceContents,
};
use mcpwire_protocol::resources::{ReadResourceResult, Resource, ResourceTemplate};
use mcpwire_protocol::Meta;

use super::context::Ctx;
use super::tool::BoxFuture;
use super::uri_template::UriTemplate;
use crate::error::McpError;

/// What a resource handler is asked to read.
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

/// Binary content, sent base64-encoded as a `blob`.
#[derive(Clone, Debug)]
pub struct Blob(pub Vec<u8>);

/// What a resource handler returns. Text and blobs take the requested URI and the
/// resource's MIME type.
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

impl<T: IntoReadResult> IntoReadResult for Result<T, McpError> {
    fn into_read_result(self, uri: &str, mime_type: Option<&str>) -> Result<ReadResourceResult, McpError> {
        self.and_then(|v| v.into_read_result(uri, mime_type))
    }
}

pub(crate) type ReadHandler =
    Arc<dyn Fn(Ctx, ResourceRequest) -> BoxFuture<Result<ReadResourceResult, McpError>> + Send + Sync>;

fn erase<F, Fut, R>(handler: F, mime_type: Option<String>) -> ReadHandler
where
    F: Fn(Ctx, ResourceRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = R> + Send + 'static,
    R: IntoReadResult,
{
    let handler = Arc::new(handler);
    Arc::new(move |ctx, request| {
        let handler = handler.clone();
        let mime_type = mime_type.clone();
        Box::pin(async move {
            let uri = request.uri.clone();
            handler(ctx, request).await.into_read_result(&uri, mime_type.as_deref())
        })
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
        self.handler(move |_, _| std::future::ready(text.clone()))
    }

    /// Sets the async read handler and finishes the resource.
    pub fn handler<F, Fut, R>(self, handler: F) -> ResourceDef
    where
        F: Fn(Ctx, ResourceRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoReadResult,
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

    /// Sets the async read handler (it gets the matched variables) and finishes.
    pub fn handler<F, Fut, R>(self, handler: F) -> TemplateDef
    where
        F: Fn(Ctx, ResourceRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoReadResult,
    {
        let parsed = UriTemplate::parse(&self.template.uri_template).map_err(|e| e.to_string());
        let mime = self.template.mime_type.clone();
        TemplateDef { template: self.template, parsed, handler: erase(handler, mime) }
    }
}
