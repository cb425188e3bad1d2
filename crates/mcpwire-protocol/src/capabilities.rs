//! Client and server capabilities.
//!
//! Capabilities are open objects in every revision: each struct here keeps unknown members
//! in `extra`, so a capability this crate does not know survives a round trip. `{}` and a
//! present-but-empty sub-capability are different from an absent one: `Some(Default)`
//! declares support.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::common::JsonObject;
use crate::elicitation::ElicitRequestParams;

/// What a client supports. At 2025-era revisions it is sent once in `initialize`; at 2026
/// it travels on every request in `_meta["io.modelcontextprotocol/clientCapabilities"]`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientCapabilities {
    /// Non-standard experimental capabilities, by name (values are objects).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<Map<String, Value>>,
    /// The client can list its roots.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<RootsCapability>,
    /// The client can sample from a model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingCapability>,
    /// The client can elicit input from the user (2025-06-18 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationCapability>,
    /// Core tasks (2025-11-25 only; 2026 moved tasks to an extension).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<ClientTasksCapability>,
    /// Extensions, by identifier such as `io.modelcontextprotocol/tasks` (2026). Each
    /// value is the extension's settings object; reading refuses any other value, so an
    /// extension is declared only as the schema declares one.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "extension_settings")]
    pub extensions: Option<Map<String, Value>>,
    /// Any other member, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Reads a client's `extensions`: a map whose values are all objects (a server must not
/// take `null` or `5` for an extension's settings, and so for a declaration).
fn extension_settings<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Map<String, Value>>, D::Error> {
    let extensions = Option::<Map<String, Value>>::deserialize(d)?;
    if let Some((id, _)) = extensions.iter().flatten().find(|(_, settings)| !settings.is_object()) {
        return Err(serde::de::Error::custom(format!("the settings of extension {id:?} are not an object")));
    }
    Ok(extensions)
}

/// What a server supports: in `InitializeResult` (2025 era) or `DiscoverResult` (2026).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerCapabilities {
    /// Non-standard experimental capabilities, by name (values are objects).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<Map<String, Value>>,
    /// The server can send log messages (deprecated in 2026).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logging: Option<JsonObject>,
    /// The server supports argument completion (2025-03-26 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<JsonObject>,
    /// The server offers prompts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<PromptsCapability>,
    /// The server offers resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesCapability>,
    /// The server offers tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ToolsCapability>,
    /// Core tasks (2025-11-25 only; 2026 moved tasks to an extension).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<ServerTasksCapability>,
    /// Extensions, by identifier such as `io.modelcontextprotocol/tasks` (2026).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Map<String, Value>>,
    /// Any other member, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `roots`: the client can list its roots.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RootsCapability {
    /// The client notifies when its roots change (2025 era; 2026 removed the notification).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Any other member, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `sampling`: the client can sample from a model.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SamplingCapability {
    /// The client honours `includeContext` values other than `none` (2025-11-25 and
    /// later; deprecated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<JsonObject>,
    /// The client accepts `tools` and `toolChoice` (2025-11-25 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<JsonObject>,
    /// Any other member, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `elicitation`: the client can ask its user for input. `{}` means form mode only.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitationCapability {
    /// Form mode (2025-11-25 and later; implied when neither mode is present).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<JsonObject>,
    /// URL mode (2025-11-25 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<JsonObject>,
    /// Any other member, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ElicitationCapability {
    /// Whether form mode is declared (explicitly, or implied by declaring no mode).
    pub fn supports_form(&self) -> bool {
        self.form.is_some() || self.url.is_none()
    }

    /// Whether URL mode is declared.
    pub fn supports_url(&self) -> bool {
        self.url.is_some()
    }
}

/// `prompts`: the server offers prompts.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptsCapability {
    /// The server notifies when its prompt list changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Any other member, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `resources`: the server offers resources.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourcesCapability {
    /// Clients may subscribe to updates of single resources (`resources/subscribe` in the
    /// 2025 era, `resourceSubscriptions` of `subscriptions/listen` in 2026).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscribe: Option<bool>,
    /// The server notifies when its resource list changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Any other member, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `tools`: the server offers tools.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolsCapability {
    /// The server notifies when its tool list changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Any other member, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `tasks` on the client (2025-11-25 core tasks).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientTasksCapability {
    /// The client supports `tasks/list`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list: Option<JsonObject>,
    /// The client supports `tasks/cancel`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel: Option<JsonObject>,
    /// Which of the server's requests may be task-augmented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<ClientTaskRequests>,
    /// Any other member, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `tasks.requests` on the client (2025-11-25).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientTaskRequests {
    /// `sampling.createMessage`: sampling requests may be task-augmented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<TaskSamplingRequests>,
    /// `elicitation.create`: elicitation requests may be task-augmented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<TaskElicitationRequests>,
    /// Any other member, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `tasks.requests.sampling` on the client (2025-11-25).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskSamplingRequests {
    /// `sampling/createMessage` may be task-augmented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub create_message: Option<JsonObject>,
    /// Any other member, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `tasks.requests.elicitation` on the client (2025-11-25).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskElicitationRequests {
    /// `elicitation/create` may be task-augmented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub create: Option<JsonObject>,
    /// Any other member, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `tasks` on the server (2025-11-25 core tasks).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerTasksCapability {
    /// The server supports `tasks/list`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list: Option<JsonObject>,
    /// The server supports `tasks/cancel`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel: Option<JsonObject>,
    /// Which of the client's requests may be task-augmented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<ServerTaskRequests>,
    /// Any other member, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `tasks.requests` on the server (2025-11-25).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerTaskRequests {
    /// `tools.call`: `tools/call` may be task-augmented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<TaskToolsRequests>,
    /// Any other member, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `tasks.requests.tools` on the server (2025-11-25).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskToolsRequests {
    /// `tools/call` may be task-augmented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<JsonObject>,
    /// Any other member, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn has_extension(extensions: &Option<Map<String, Value>>, id: &str) -> bool {
    extensions.as_ref().is_some_and(|e| e.contains_key(id))
}

fn add_extension(extensions: &mut Option<Map<String, Value>>, id: &str, settings: JsonObject) {
    extensions.get_or_insert_with(Map::new).insert(id.to_owned(), Value::Object(settings));
}

impl ClientCapabilities {
    /// Whether the client declares the extension `id` (2026).
    pub fn has_extension(&self, id: &str) -> bool {
        has_extension(&self.extensions, id)
    }

    /// Declares the extension `id` with `settings` (`{}` for none).
    pub fn with_extension(mut self, id: &str, settings: JsonObject) -> Self {
        add_extension(&mut self.extensions, id, settings);
        self
    }

    /// Whether the 2026 tasks extension (`io.modelcontextprotocol/tasks`) is declared.
    pub fn supports_tasks_extension(&self) -> bool {
        self.has_extension(crate::meta::TASKS_EXTENSION)
    }

    /// Whether the elicitation mode of `params` is declared: `elicitation.url` for a URL
    /// request, `elicitation.form` (or an `elicitation` that names no mode) for a form.
    /// Both sides ask it: a server before it asks, a client before it answers.
    pub fn declares_elicitation_of(&self, params: &ElicitRequestParams) -> bool {
        let modes = self.elicitation.as_ref();
        match params {
            ElicitRequestParams::Url(_) => modes.is_some_and(|e| e.supports_url()),
            ElicitRequestParams::Form(_) => modes.is_some_and(|e| e.supports_form()),
        }
    }
}

impl ServerCapabilities {
    /// Whether the server advertises the extension `id` (2026).
    pub fn has_extension(&self, id: &str) -> bool {
        has_extension(&self.extensions, id)
    }

    /// Advertises the extension `id` with `settings` (`{}` for none).
    pub fn with_extension(mut self, id: &str, settings: JsonObject) -> Self {
        add_extension(&mut self.extensions, id, settings);
        self
    }

    /// Whether the 2026 tasks extension (`io.modelcontextprotocol/tasks`) is advertised.
    pub fn supports_tasks_extension(&self) -> bool {
        self.has_extension(crate::meta::TASKS_EXTENSION)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_members_survive_at_every_level() {
        let v = json!({
            "roots": {"listChanged": true, "future": 1},
            "sampling": {"tools": {}, "x": {"y": [1, 2]}},
            "elicitation": {"form": {"a": true}, "other": "z"},
            "tasks": {"requests": {"sampling": {"createMessage": {}, "q": 1}, "r": 2}},
            "extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html"]}},
            "brandNew": {"deep": {"deeper": null}}
        });
        let caps: ClientCapabilities = serde_json::from_value(v.clone()).unwrap();
        assert!(caps.extra.contains_key("brandNew"));
        assert_eq!(serde_json::to_value(&caps).unwrap(), v);

        let s = json!({
            "tools": {"listChanged": false, "paging": true},
            "tasks": {"requests": {"tools": {"call": {}, "z": 0}}},
            "logging": {"k": "v"},
            "newCapability": {}
        });
        let caps: ServerCapabilities = serde_json::from_value(s.clone()).unwrap();
        assert_eq!(serde_json::to_value(&caps).unwrap(), s);
    }

    #[test]
    fn extensions() {
        let caps = ClientCapabilities::default().with_extension(crate::meta::TASKS_EXTENSION, Map::new());
        assert!(caps.supports_tasks_extension());
        assert_eq!(
            serde_json::to_value(&caps).unwrap(),
            json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
        );
        assert!(!ServerCapabilities::default().supports_tasks_extension());
    }

    #[test]
    fn elicitation_modes() {
        assert!(ElicitationCapability::default().supports_form());
        let url_only = ElicitationCapability { url: Some(Map::new()), ..Default::default() };
        assert!(!url_only.supports_form() && url_only.supports_url());
    }
}
