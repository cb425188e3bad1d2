//! Content blocks (text, image, audio, resource links, embedded resources), sampling's
//! tool-use and tool-result blocks, annotations, icons and resource contents.
//!
//! Each block struct carries its `type` marker (see [`crate::tags`]), so it serializes
//! and validates on its own; the enums dispatch on `type` when parsing and let each block
//! write its own `type` when serializing.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::common::{number, open_enum, JsonObject};
use crate::meta::Meta;
use crate::tags;

/// The sender or recipient of a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user.
    User,
    /// The model.
    Assistant,
}

/// Hints to the client on how to use or display an object.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    /// Who the object is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// Importance from 0 (least) to 1 (most).
    #[serde(default, skip_serializing_if = "Option::is_none", serialize_with = "number::opt_f64")]
    pub priority: Option<f64>,
    /// ISO 8601 time of the last modification (2025-06-18 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

open_enum!(
    /// The theme an icon is designed for (2025-11-25 and later).
    IconTheme {
        /// For a light background.
        Light = "light",
        /// For a dark background.
        Dark = "dark",
    }
);

/// An icon for display in a user interface (2025-11-25 and later).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Icon {
    /// An `https:` or `data:` URI of the image.
    pub src: String,
    /// The MIME type, when `src` does not make it clear.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes such as `"48x48"` or `"any"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// The theme the icon is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<IconTheme>,
}

/// Text content.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextContent {
    /// Always `"text"`.
    #[serde(rename = "type", default)]
    pub kind: tags::Text,
    /// The text.
    pub text: String,
    /// Annotations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta` (2025-06-18 and later).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl TextContent {
    /// A text block.
    pub fn new(text: impl Into<String>) -> Self {
        TextContent { text: text.into(), ..Default::default() }
    }
}

/// An image, base64-encoded.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageContent {
    /// Always `"image"`.
    #[serde(rename = "type", default)]
    pub kind: tags::Image,
    /// The base64-encoded image data.
    pub data: String,
    /// The MIME type of the image.
    pub mime_type: String,
    /// Annotations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta` (2025-06-18 and later).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ImageContent {
    /// An image block from base64 data.
    pub fn new(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ImageContent { data: data.into(), mime_type: mime_type.into(), ..Default::default() }
    }
}

/// Audio, base64-encoded (2025-03-26 and later).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AudioContent {
    /// Always `"audio"`.
    #[serde(rename = "type", default)]
    pub kind: tags::Audio,
    /// The base64-encoded audio data.
    pub data: String,
    /// The MIME type of the audio.
    pub mime_type: String,
    /// Annotations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta` (2025-06-18 and later).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl AudioContent {
    /// An audio block from base64 data.
    pub fn new(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        AudioContent { data: data.into(), mime_type: mime_type.into(), ..Default::default() }
    }
}

/// A link to a resource the client may read (2025-06-18 and later). Not necessarily
/// listed by `resources/list`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceLink {
    /// Always `"resource_link"`.
    #[serde(rename = "type", default)]
    pub kind: tags::ResourceLink,
    /// The resource URI.
    pub uri: String,
    /// A programmatic name.
    pub name: String,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The size in bytes of the raw content, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Icons (2025-11-25 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Annotations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ResourceLink {
    /// A link to `uri` named `name`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceLink { uri: uri.into(), name: name.into(), ..Default::default() }
    }
}

/// The contents of a resource, embedded in a message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EmbeddedResource {
    /// Always `"resource"`.
    #[serde(rename = "type", default)]
    pub kind: tags::Resource,
    /// The contents.
    pub resource: ResourceContents,
    /// Annotations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta` (2025-06-18 and later).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl EmbeddedResource {
    /// Embeds `resource`.
    pub fn new(resource: impl Into<ResourceContents>) -> Self {
        EmbeddedResource { kind: tags::Resource, resource: resource.into(), annotations: None, meta: None }
    }
}

/// A block of content in a tool result, prompt message or embedded resource list.
///
/// Parsing dispatches on `type`; an unknown `type` is an error.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "type")]
pub enum ContentBlock {
    /// `"text"`.
    #[serde(rename = "text")]
    Text(TextContent),
    /// `"image"`.
    #[serde(rename = "image")]
    Image(ImageContent),
    /// `"audio"` (2025-03-26 and later).
    #[serde(rename = "audio")]
    Audio(AudioContent),
    /// `"resource_link"` (2025-06-18 and later).
    #[serde(rename = "resource_link")]
    ResourceLink(ResourceLink),
    /// `"resource"`.
    #[serde(rename = "resource")]
    Resource(EmbeddedResource),
}

impl Serialize for ContentBlock {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            ContentBlock::Text(c) => c.serialize(serializer),
            ContentBlock::Image(c) => c.serialize(serializer),
            ContentBlock::Audio(c) => c.serialize(serializer),
            ContentBlock::ResourceLink(c) => c.serialize(serializer),
            ContentBlock::Resource(c) => c.serialize(serializer),
        }
    }
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text(TextContent::new(text))
    }

    /// The text, when this is a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text(t) => Some(&t.text),
            _ => None,
        }
    }

    /// This block as revision `version` can carry it. Audio blocks came in 2025-03-26 and
    /// resource links in 2025-06-18: an older revision's content is text, image or
    /// embedded resource only, so either becomes a text block that says what it was (a
    /// link keeps its name and URI). Other blocks, and every block of a newer or unknown
    /// revision, are returned as they are.
    pub fn for_revision(self, version: &crate::ProtocolVersion) -> Self {
        use crate::ProtocolVersion as V;
        let known_before = |since: &V| version.is_known() && !version.is_at_least(since);
        match self {
            ContentBlock::Audio(a) if known_before(&V::V2025_03_26) => ContentBlock::Text(TextContent {
                text: format!(
                    "[audio ({}) not shown: protocol revision {version} has no audio content]",
                    a.mime_type
                ),
                annotations: a.annotations,
                meta: a.meta,
                ..Default::default()
            }),
            ContentBlock::ResourceLink(l) if known_before(&V::V2025_06_18) => {
                let title = l.title.as_deref().unwrap_or(&l.name);
                let mut text = format!("Resource link: {title} <{}>", l.uri);
                if let Some(d) = &l.description {
                    text.push_str(": ");
                    text.push_str(d);
                }
                ContentBlock::Text(TextContent {
                    text,
                    annotations: l.annotations,
                    meta: l.meta,
                    ..Default::default()
                })
            }
            other => other,
        }
    }
}

impl From<TextContent> for ContentBlock {
    fn from(c: TextContent) -> Self {
        ContentBlock::Text(c)
    }
}
impl From<ImageContent> for ContentBlock {
    fn from(c: ImageContent) -> Self {
        ContentBlock::Image(c)
    }
}
impl From<AudioContent> for ContentBlock {
    fn from(c: AudioContent) -> Self {
        ContentBlock::Audio(c)
    }
}
impl From<ResourceLink> for ContentBlock {
    fn from(c: ResourceLink) -> Self {
        ContentBlock::ResourceLink(c)
    }
}
impl From<EmbeddedResource> for ContentBlock {
    fn from(c: EmbeddedResource) -> Self {
        ContentBlock::Resource(c)
    }
}

/// A request from the model to call a tool (sampling, 2025-11-25 and later).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolUseContent {
    /// Always `"tool_use"`.
    #[serde(rename = "type", default)]
    pub kind: tags::ToolUse,
    /// The id of this tool use, matched by a later `tool_result`.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments, conforming to the tool's input schema.
    pub input: JsonObject,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The result of a tool use, sent back to the model (sampling, 2025-11-25 and later).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultContent {
    /// Always `"tool_result"`.
    #[serde(rename = "type", default)]
    pub kind: tags::ToolResult,
    /// The `id` of the `tool_use` this answers.
    pub tool_use_id: String,
    /// The unstructured result.
    pub content: Vec<ContentBlock>,
    /// The structured result: an object in 2025-11-25, any JSON value in 2026 (`null`
    /// too, read as `Some(Value::Null)`; only an absent member is `None`).
    #[serde(
        default,
        deserialize_with = "crate::common::present_value",
        skip_serializing_if = "Option::is_none"
    )]
    pub structured_content: Option<Value>,
    /// Whether the tool use failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// A block of content in a sampling message (`SamplingMessageContentBlock`): text, image,
/// audio, and (2025-11-25 and later) tool use and tool result.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "type")]
pub enum SamplingContent {
    /// `"text"`.
    #[serde(rename = "text")]
    Text(TextContent),
    /// `"image"`.
    #[serde(rename = "image")]
    Image(ImageContent),
    /// `"audio"`.
    #[serde(rename = "audio")]
    Audio(AudioContent),
    /// `"tool_use"`.
    #[serde(rename = "tool_use")]
    ToolUse(ToolUseContent),
    /// `"tool_result"`.
    #[serde(rename = "tool_result")]
    ToolResult(ToolResultContent),
}

/// The schema's name for [`SamplingContent`].
pub type SamplingMessageContentBlock = SamplingContent;

impl Serialize for SamplingContent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            SamplingContent::Text(c) => c.serialize(serializer),
            SamplingContent::Image(c) => c.serialize(serializer),
            SamplingContent::Audio(c) => c.serialize(serializer),
            SamplingContent::ToolUse(c) => c.serialize(serializer),
            SamplingContent::ToolResult(c) => c.serialize(serializer),
        }
    }
}

impl SamplingContent {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        SamplingContent::Text(TextContent::new(text))
    }
}

/// The text contents of a resource.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextResourceContents {
    /// The resource URI.
    pub uri: String,
    /// The MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The text.
    pub text: String,
    /// `_meta` (2025-06-18 and later).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The binary contents of a resource, base64-encoded.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BlobResourceContents {
    /// The resource URI.
    pub uri: String,
    /// The MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The base64-encoded data.
    pub blob: String,
    /// `_meta` (2025-06-18 and later).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The contents of a resource: text or a blob, told apart by which member is present.
#[derive(Clone, Debug, PartialEq)]
pub enum ResourceContents {
    /// Has `text`.
    Text(TextResourceContents),
    /// Has `blob`.
    Blob(BlobResourceContents),
}

impl ResourceContents {
    /// The resource URI.
    pub fn uri(&self) -> &str {
        match self {
            ResourceContents::Text(c) => &c.uri,
            ResourceContents::Blob(c) => &c.uri,
        }
    }

    /// Text contents.
    pub fn text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        ResourceContents::Text(TextResourceContents {
            uri: uri.into(),
            text: text.into(),
            ..Default::default()
        })
    }
}

impl From<TextResourceContents> for ResourceContents {
    fn from(c: TextResourceContents) -> Self {
        ResourceContents::Text(c)
    }
}
impl From<BlobResourceContents> for ResourceContents {
    fn from(c: BlobResourceContents) -> Self {
        ResourceContents::Blob(c)
    }
}

impl Serialize for ResourceContents {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            ResourceContents::Text(c) => c.serialize(serializer),
            ResourceContents::Blob(c) => c.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for ResourceContents {
    /// One pass over the members; exactly one of `text` and `blob` must be present.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Either {
            uri: String,
            #[serde(default)]
            mime_type: Option<String>,
            #[serde(default)]
            text: Option<String>,
            #[serde(default)]
            blob: Option<String>,
            #[serde(rename = "_meta", default)]
            meta: Option<Meta>,
        }
        let e = Either::deserialize(deserializer)?;
        match (e.text, e.blob) {
            (Some(text), None) => Ok(ResourceContents::Text(TextResourceContents {
                uri: e.uri,
                mime_type: e.mime_type,
                text,
                meta: e.meta,
            })),
            (None, Some(blob)) => Ok(ResourceContents::Blob(BlobResourceContents {
                uri: e.uri,
                mime_type: e.mime_type,
                blob,
                meta: e.meta,
            })),
            (Some(_), Some(_)) => {
                Err(serde::de::Error::custom("resource contents have both `text` and `blob`"))
            }
            (None, None) => Err(serde::de::Error::custom("resource contents need `text` or `blob`")),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn blocks_write_their_type_once() {
        let b = ContentBlock::text("hi");
        assert_eq!(serde_json::to_string(&b).unwrap(), r#"{"type":"text","text":"hi"}"#);
        let back: ContentBlock = serde_json::from_str(r#"{"text":"hi","type":"text"}"#).unwrap();
        assert_eq!(back, b);
    }

    #[test]
    fn a_standalone_block_checks_its_type() {
        assert!(serde_json::from_value::<TextContent>(json!({"type": "image", "text": "x"})).is_err());
        assert!(serde_json::from_value::<TextContent>(json!({"type": "text", "text": "x"})).is_ok());
    }

    #[test]
    fn unknown_block_types_are_errors() {
        assert!(serde_json::from_value::<ContentBlock>(json!({"type": "video", "data": ""})).is_err());
        assert!(serde_json::from_value::<ContentBlock>(json!({"text": "no type"})).is_err());
    }

    #[test]
    fn resource_contents_need_exactly_one_body() {
        let text: ResourceContents = serde_json::from_value(json!({"uri": "a:b", "text": "t"})).unwrap();
        assert!(matches!(text, ResourceContents::Text(_)));
        let blob: ResourceContents = serde_json::from_value(json!({"uri": "a:b", "blob": "AA=="})).unwrap();
        assert!(matches!(blob, ResourceContents::Blob(_)));
        assert!(serde_json::from_value::<ResourceContents>(json!({"uri": "a:b"})).is_err());
        assert!(serde_json::from_value::<ResourceContents>(json!({"uri": "a:b", "text": "", "blob": ""}))
            .is_err());
    }

    #[test]
    fn unknown_icon_themes_are_kept() {
        let icon: Icon = serde_json::from_value(json!({"src": "https://x/i.png", "theme": "sepia"})).unwrap();
        assert_eq!(icon.theme, Some(IconTheme::Other("sepia".into())));
        assert_eq!(serde_json::to_value(&icon).unwrap()["theme"], "sepia");
    }
}
