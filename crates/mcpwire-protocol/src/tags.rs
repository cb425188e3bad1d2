//! Zero-sized markers for constant discriminator members (`"type": "text"`,
//! `"mode": "url"`, ...). A struct that carries one writes and checks its discriminator when
//! it is serialized or parsed on its own; inside an enum that dispatches on the member the
//! marker is filled in by default.

use crate::common::tag;

tag!(
    /// `"type": "text"` ([`crate::TextContent`]).
    Text = "text"
);
tag!(
    /// `"type": "image"` ([`crate::ImageContent`]).
    Image = "image"
);
tag!(
    /// `"type": "audio"` ([`crate::AudioContent`]).
    Audio = "audio"
);
tag!(
    /// `"type": "resource_link"` ([`crate::ResourceLink`]).
    ResourceLink = "resource_link"
);
tag!(
    /// `"type": "resource"` ([`crate::EmbeddedResource`]).
    Resource = "resource"
);
tag!(
    /// `"type": "tool_use"` ([`crate::ToolUseContent`]).
    ToolUse = "tool_use"
);
tag!(
    /// `"type": "tool_result"` ([`crate::ToolResultContent`]).
    ToolResult = "tool_result"
);
tag!(
    /// `"type": "ref/prompt"` ([`crate::PromptReference`]).
    PromptRef = "ref/prompt"
);
tag!(
    /// `"type": "ref/resource"` ([`crate::ResourceTemplateReference`]).
    ResourceRef = "ref/resource"
);
tag!(
    /// `"type": "string"` (elicitation string and single-select enum schemas).
    String = "string"
);
tag!(
    /// `"type": "boolean"` ([`crate::BooleanSchema`]).
    Boolean = "boolean"
);
tag!(
    /// `"type": "array"` (elicitation multi-select enum schemas).
    Array = "array"
);
tag!(
    /// `"type": "object"` (the root of an elicitation `requestedSchema`).
    Object = "object"
);
tag!(
    /// `"mode": "form"` ([`crate::ElicitRequestFormParams`]).
    Form = "form"
);
tag!(
    /// `"mode": "url"` ([`crate::ElicitRequestURLParams`]).
    Url = "url"
);
