//! Elicitation: `elicitation/create`, a server asking the user for input through the
//! client. A request from server to client in the 2025 era (2025-06-18 and later); an input
//! request of a multi round-trip result in 2026.
//!
//! Form mode sends a flat object schema of primitive fields; URL mode (2025-11-25 and
//! later) sends a URL for the user to open. Revision differences modelled here:
//! - `mode` is absent before 2025-11-25 and optional for forms after (absent = form).
//! - URL mode's `elicitationId` is required in 2025-11-25 and gone in 2026 (which
//!   correlates through `requestState`), so it is optional.
//! - `notifications/elicitation/complete` and the `-32042` error exist only in 2025-11-25.

use std::collections::BTreeMap;
use std::fmt;

use indexmap::IndexMap;
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Number, Value};

use crate::common::{notification, number, open_enum, request, JsonObject};
use crate::jsonrpc::{MethodCall, Notification, Request, Response};
use crate::meta::Meta;
use crate::methods;
use crate::tags;
use crate::tasks::TaskMetadata;

/// `elicitation/create` params: a form or a URL.
///
/// Parsing dispatches on `mode`: `"url"` is URL mode; `"form"` or no mode is form mode.
#[derive(Clone, Debug, PartialEq)]
pub enum ElicitRequestParams {
    /// Form mode.
    Form(ElicitRequestFormParams),
    /// URL mode (2025-11-25 and later).
    Url(ElicitRequestURLParams),
}

/// Form-mode elicitation params.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitRequestFormParams {
    /// `"form"` (2025-11-25 and later; optional, and absent in older revisions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<tags::Form>,
    /// What to ask the user.
    pub message: String,
    /// The fields to collect: a flat object of primitive fields.
    pub requested_schema: ElicitationSchema,
    /// Run the request as a task (2025-11-25 core tasks only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// `_meta` (2025 era).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// URL-mode elicitation params (2025-11-25 and later).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitRequestURLParams {
    /// Always `"url"`.
    pub mode: tags::Url,
    /// Why the user should open the URL.
    pub message: String,
    /// The URL to open.
    pub url: String,
    /// The id that `notifications/elicitation/complete` will name (required in
    /// 2025-11-25; absent in 2026).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
    /// Run the request as a task (2025-11-25 core tasks only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// `_meta` (2025 era).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl Serialize for ElicitRequestParams {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            ElicitRequestParams::Form(p) => p.serialize(serializer),
            ElicitRequestParams::Url(p) => p.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for ElicitRequestParams {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let map = JsonObject::deserialize(deserializer)?;
        let url = match map.get("mode") {
            None => false,
            Some(Value::String(m)) if m == "form" => false,
            Some(Value::String(m)) if m == "url" => true,
            Some(other) => return Err(de::Error::custom(format!("unknown elicitation mode {other}"))),
        };
        let value = Value::Object(map);
        if url {
            ElicitRequestURLParams::deserialize(value).map(ElicitRequestParams::Url)
        } else {
            ElicitRequestFormParams::deserialize(value).map(ElicitRequestParams::Form)
        }
        .map_err(de::Error::custom)
    }
}

impl From<ElicitRequestFormParams> for ElicitRequestParams {
    fn from(p: ElicitRequestFormParams) -> Self {
        ElicitRequestParams::Form(p)
    }
}
impl From<ElicitRequestURLParams> for ElicitRequestParams {
    fn from(p: ElicitRequestURLParams) -> Self {
        ElicitRequestParams::Url(p)
    }
}

/// A form's fields by name, in the order they were written or inserted (independent of
/// serde_json's `preserve_order`).
pub type ElicitationProperties = IndexMap<String, PrimitiveSchemaDefinition>;

/// The `requestedSchema` of a form: an object schema whose properties are primitives.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ElicitationSchema {
    /// `$schema`: the dialect (2025-11-25 and later).
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Always `"object"`.
    #[serde(rename = "type")]
    pub kind: tags::Object,
    /// The fields, by name, in the order the server wrote them: a client asks them in
    /// that order (a sorted map would put a form's one required field anywhere).
    pub properties: ElicitationProperties,
    /// The names of the required fields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<Vec<String>>,
}

/// The schema of one form field (`PrimitiveSchemaDefinition`; the enum variants together
/// are the schema's `EnumSchema`).
#[derive(Clone, Debug, PartialEq)]
pub enum PrimitiveSchemaDefinition {
    /// A string.
    String(StringSchema),
    /// A number or integer.
    Number(NumberSchema),
    /// A boolean.
    Boolean(BooleanSchema),
    /// One of a list of strings (2025-11-25 and later in this form).
    UntitledSingleSelectEnum(UntitledSingleSelectEnumSchema),
    /// One of a list of titled strings (`oneOf` of `const`/`title`; 2025-11-25 and later).
    TitledSingleSelectEnum(TitledSingleSelectEnumSchema),
    /// Several of a list of strings (2025-11-25 and later).
    UntitledMultiSelectEnum(UntitledMultiSelectEnumSchema),
    /// Several of a list of titled strings (2025-11-25 and later).
    TitledMultiSelectEnum(TitledMultiSelectEnumSchema),
    /// One of a list of strings with display names in `enumNames` (the 2025-06-18
    /// `EnumSchema`; kept as `LegacyTitledEnumSchema` later).
    LegacyTitledEnum(LegacyTitledEnumSchema),
}

impl Serialize for PrimitiveSchemaDefinition {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            PrimitiveSchemaDefinition::String(s) => s.serialize(serializer),
            PrimitiveSchemaDefinition::Number(s) => s.serialize(serializer),
            PrimitiveSchemaDefinition::Boolean(s) => s.serialize(serializer),
            PrimitiveSchemaDefinition::UntitledSingleSelectEnum(s) => s.serialize(serializer),
            PrimitiveSchemaDefinition::TitledSingleSelectEnum(s) => s.serialize(serializer),
            PrimitiveSchemaDefinition::UntitledMultiSelectEnum(s) => s.serialize(serializer),
            PrimitiveSchemaDefinition::TitledMultiSelectEnum(s) => s.serialize(serializer),
            PrimitiveSchemaDefinition::LegacyTitledEnum(s) => s.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for PrimitiveSchemaDefinition {
    /// Dispatches on `type` and then on which enum keyword is present: `oneOf` (titled),
    /// `enum` with `enumNames` (legacy), `enum` (untitled), `items.anyOf` / `items.enum`.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use PrimitiveSchemaDefinition as P;
        let map = JsonObject::deserialize(deserializer)?;
        let kind = map.get("type").and_then(Value::as_str).map(str::to_owned);
        let has = |k: &str| map.contains_key(k);
        let items_has =
            |k: &str| map.get("items").and_then(Value::as_object).is_some_and(|items| items.contains_key(k));
        let titled_single = has("oneOf");
        let legacy = has("enumNames");
        let untitled_single = has("enum");
        let titled_multi = items_has("anyOf");
        let untitled_multi = items_has("enum");
        let value = Value::Object(map);
        let parsed = match kind.as_deref() {
            Some("string") if titled_single => {
                TitledSingleSelectEnumSchema::deserialize(value).map(P::TitledSingleSelectEnum)
            }
            Some("string") if legacy => LegacyTitledEnumSchema::deserialize(value).map(P::LegacyTitledEnum),
            Some("string") if untitled_single => {
                UntitledSingleSelectEnumSchema::deserialize(value).map(P::UntitledSingleSelectEnum)
            }
            Some("string") => StringSchema::deserialize(value).map(P::String),
            Some("number" | "integer") => NumberSchema::deserialize(value).map(P::Number),
            Some("boolean") => BooleanSchema::deserialize(value).map(P::Boolean),
            Some("array") if titled_multi => {
                TitledMultiSelectEnumSchema::deserialize(value).map(P::TitledMultiSelectEnum)
            }
            Some("array") if untitled_multi => {
                UntitledMultiSelectEnumSchema::deserialize(value).map(P::UntitledMultiSelectEnum)
            }
            Some("array") => {
                return Err(de::Error::custom("an array field needs `items.enum` or `items.anyOf`"))
            }
            Some(other) => {
                return Err(de::Error::custom(format!("unsupported elicitation field type {other:?}")))
            }
            None => return Err(de::Error::custom("an elicitation field needs a string `type`")),
        };
        parsed.map_err(de::Error::custom)
    }
}

open_enum!(
    /// The `format` of a string field.
    StringFormat {
        /// An email address.
        Email = "email",
        /// A URI.
        Uri = "uri",
        /// A date (`YYYY-MM-DD`).
        Date = "date",
        /// A date and time (RFC 3339).
        DateTime = "date-time",
    }
);

/// A string field.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StringSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: tags::String,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The least length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u64>,
    /// The greatest length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    /// The format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<StringFormat>,
    /// The default value (2025-11-25 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// Whether a number field accepts any number or only integers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NumberType {
    /// Any number.
    #[default]
    Number,
    /// Integers only.
    Integer,
}

/// A number field.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NumberSchema {
    /// `"number"` or `"integer"`.
    #[serde(rename = "type")]
    pub kind: NumberType,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The least value.
    #[serde(default, skip_serializing_if = "Option::is_none", serialize_with = "number::opt_f64")]
    pub minimum: Option<f64>,
    /// The greatest value.
    #[serde(default, skip_serializing_if = "Option::is_none", serialize_with = "number::opt_f64")]
    pub maximum: Option<f64>,
    /// The default value (2025-11-25 and later).
    #[serde(default, skip_serializing_if = "Option::is_none", serialize_with = "number::opt_f64")]
    pub default: Option<f64>,
}

/// A boolean field.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BooleanSchema {
    /// Always `"boolean"`.
    #[serde(rename = "type")]
    pub kind: tags::Boolean,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<bool>,
}

/// A choice with a display name: `{"const": value, "title": name}`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EnumOption {
    /// The value.
    #[serde(rename = "const")]
    pub value: String,
    /// The display name.
    pub title: String,
}

/// One of a list of strings, without display names.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UntitledSingleSelectEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: tags::String,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The choices.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// The default choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// One of a list of strings, each with a display name.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledSingleSelectEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: tags::String,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The choices.
    pub one_of: Vec<EnumOption>,
    /// The default choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// The `items` of an untitled multi-select: `{"type": "string", "enum": [...]}`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UntitledEnumItems {
    /// Always `"string"`: written out always, read as that when left out (as fastmcp
    /// leaves it out), since the choices are strings whatever the items say.
    #[serde(rename = "type", default)]
    pub kind: tags::String,
    /// The choices.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
}

/// The `items` of a titled multi-select: `{"anyOf": [{"const", "title"}, ...]}`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledEnumItems {
    /// The choices.
    pub any_of: Vec<EnumOption>,
}

/// Several of a list of strings, without display names.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UntitledMultiSelectEnumSchema {
    /// Always `"array"`.
    #[serde(rename = "type")]
    pub kind: tags::Array,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The fewest choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// The most choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The choices.
    pub items: UntitledEnumItems,
    /// The default choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
}

/// Several of a list of strings, each with a display name.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledMultiSelectEnumSchema {
    /// Always `"array"`.
    #[serde(rename = "type")]
    pub kind: tags::Array,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The fewest choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// The most choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The choices.
    pub items: TitledEnumItems,
    /// The default choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
}

/// One of a list of strings with display names in the non-standard `enumNames` (the
/// 2025-06-18 form; deprecated later).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LegacyTitledEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: tags::String,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The choices.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// Display names, one per choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enum_names: Option<Vec<String>>,
    /// The default choice (2025-11-25 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// What the user did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// Submitted the form, or (URL mode) agreed to open the URL.
    Accept,
    /// Explicitly declined.
    Decline,
    /// Dismissed without choosing.
    Cancel,
}

/// One submitted form value: a string, a number, a boolean, or (multi-select) a list of
/// strings. Numbers keep their JSON form (integer or not).
#[derive(Clone, Debug, PartialEq)]
pub enum ElicitValue {
    /// A string.
    String(String),
    /// A number.
    Number(Number),
    /// A boolean.
    Boolean(bool),
    /// Several strings (multi-select).
    StringArray(Vec<String>),
}

impl Serialize for ElicitValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            ElicitValue::String(s) => serializer.serialize_str(s),
            ElicitValue::Number(n) => n.serialize(serializer),
            ElicitValue::Boolean(b) => serializer.serialize_bool(*b),
            ElicitValue::StringArray(v) => v.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for ElicitValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ValueVisitor;
        impl<'de> Visitor<'de> for ValueVisitor {
            type Value = ElicitValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string, number, boolean or array of strings")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ElicitValue, E> {
                Ok(ElicitValue::String(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<ElicitValue, E> {
                Ok(ElicitValue::String(v))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<ElicitValue, E> {
                Ok(ElicitValue::Boolean(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<ElicitValue, E> {
                Ok(ElicitValue::Number(v.into()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<ElicitValue, E> {
                Ok(ElicitValue::Number(v.into()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<ElicitValue, E> {
                Number::from_f64(v).map(ElicitValue::Number).ok_or_else(|| E::custom("not a finite number"))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<ElicitValue, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
                while let Some(s) = seq.next_element::<String>()? {
                    out.push(s);
                }
                Ok(ElicitValue::StringArray(out))
            }
        }
        deserializer.deserialize_any(ValueVisitor)
    }
}

impl From<&str> for ElicitValue {
    fn from(s: &str) -> Self {
        ElicitValue::String(s.to_owned())
    }
}
impl From<String> for ElicitValue {
    fn from(s: String) -> Self {
        ElicitValue::String(s)
    }
}
impl From<bool> for ElicitValue {
    fn from(b: bool) -> Self {
        ElicitValue::Boolean(b)
    }
}
impl From<i64> for ElicitValue {
    fn from(n: i64) -> Self {
        ElicitValue::Number(n.into())
    }
}

/// The result of `elicitation/create`.
///
/// In 2026 this does not extend `Result` (it is an input response), so it has no
/// `resultType`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The submitted values: only for an accepted form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<BTreeMap<String, ElicitValue>>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ElicitResult {
    /// An accepted form with `content`.
    pub fn accept(content: BTreeMap<String, ElicitValue>) -> Self {
        ElicitResult { action: ElicitAction::Accept, content: Some(content), meta: None }
    }

    /// A result without content (`decline`, `cancel`, or an accepted URL).
    pub fn action(action: ElicitAction) -> Self {
        ElicitResult { action, content: None, meta: None }
    }
}

/// `notifications/elicitation/complete` params (2025-11-25 only): a URL-mode elicitation
/// finished.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitationCompleteNotificationParams {
    /// The `elicitationId` of the finished elicitation.
    pub elicitation_id: String,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The `data` of a `-32042` URL-elicitation-required error (2025-11-25 only).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UrlElicitationRequiredData {
    /// The elicitations the user must complete first (each with `elicitationId`).
    pub elicitations: Vec<ElicitRequestURLParams>,
}

request!(ElicitRequestParams => methods::ELICITATION_CREATE, ElicitResult);
notification!(ElicitationCompleteNotificationParams => methods::NOTIFICATION_ELICITATION_COMPLETE);

/// `elicitation/create` as a 2025-era JSON-RPC request (server to client).
pub type ElicitRequest = Request<ElicitRequestParams>;
/// `elicitation/create` as a 2026 input request: `{method, params}` only.
pub type ElicitInputRequest = MethodCall<ElicitRequestParams>;
/// The response to a 2025-era `elicitation/create`.
pub type ElicitResultResponse = Response<ElicitResult>;
/// `notifications/elicitation/complete`, as a whole message (2025-11-25).
pub type ElicitationCompleteNotification = Notification<ElicitationCompleteNotificationParams>;

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn form_fields_keep_the_servers_order() {
        // From text, not a Value: a Value's map is sorted unless serde_json's
        // preserve_order is on, which this crate must not need.
        let text = r#"{"type":"object","properties":{"zip":{"type":"string"},"age":{"type":"integer"},"name":{"type":"string"}},"required":["name"]}"#;
        let schema: ElicitationSchema = serde_json::from_str(text).unwrap();
        let names: Vec<&str> = schema.properties.keys().map(String::as_str).collect();
        assert_eq!(names, ["zip", "age", "name"]);
        assert_eq!(serde_json::to_string(&schema).unwrap(), text);
    }

    #[test]
    fn mode_dispatch() {
        let form: ElicitRequestParams = serde_json::from_value(json!({
            "message": "m", "requestedSchema": {"type": "object", "properties": {}}
        }))
        .unwrap();
        assert!(matches!(form, ElicitRequestParams::Form(ElicitRequestFormParams { mode: None, .. })));
        let url: ElicitRequestParams =
            serde_json::from_value(json!({"mode": "url", "message": "m", "url": "https://x"})).unwrap();
        assert!(matches!(url, ElicitRequestParams::Url(_)));
        assert!(
            serde_json::from_value::<ElicitRequestParams>(json!({"mode": "voice", "message": "m"})).is_err()
        );
    }

    #[test]
    fn field_schema_dispatch() {
        let cases = [
            (json!({"type": "string", "format": "email"}), "String"),
            (json!({"type": "integer", "minimum": 1}), "Number"),
            (json!({"type": "boolean", "default": true}), "Boolean"),
            (json!({"type": "string", "enum": ["a"]}), "UntitledSingle"),
            (json!({"type": "string", "enum": ["a"], "enumNames": ["A"]}), "Legacy"),
            (json!({"type": "string", "oneOf": [{"const": "a", "title": "A"}]}), "TitledSingle"),
            (json!({"type": "array", "items": {"type": "string", "enum": ["a"]}}), "UntitledMulti"),
            (json!({"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}}), "TitledMulti"),
        ];
        for (v, want) in cases {
            let p: PrimitiveSchemaDefinition = serde_json::from_value(v.clone()).unwrap();
            let got = match p {
                PrimitiveSchemaDefinition::String(_) => "String",
                PrimitiveSchemaDefinition::Number(_) => "Number",
                PrimitiveSchemaDefinition::Boolean(_) => "Boolean",
                PrimitiveSchemaDefinition::UntitledSingleSelectEnum(_) => "UntitledSingle",
                PrimitiveSchemaDefinition::TitledSingleSelectEnum(_) => "TitledSingle",
                PrimitiveSchemaDefinition::UntitledMultiSelectEnum(_) => "UntitledMulti",
                PrimitiveSchemaDefinition::TitledMultiSelectEnum(_) => "TitledMulti",
                PrimitiveSchemaDefinition::LegacyTitledEnum(_) => "Legacy",
            };
            assert_eq!(got, want, "{v}");
            assert_eq!(serde_json::to_value(&p).unwrap(), v);
        }
        for bad in [json!({"type": "object"}), json!({"type": "array"}), json!({}), json!({"type": 1})] {
            assert!(serde_json::from_value::<PrimitiveSchemaDefinition>(bad).is_err());
        }
    }

    #[test]
    fn a_multi_select_whose_items_leave_out_their_type_is_read_as_strings() {
        // fastmcp asks `list[Literal[...]]` questions with `items: {"enum": [...]}`: the
        // choices are strings whatever the items say, so the field is read, and written
        // back out in the schema's own form.
        let fastmcp = json!({"type": "array", "items": {"enum": ["red", "blue"]}});
        let p: PrimitiveSchemaDefinition = serde_json::from_value(fastmcp).unwrap();
        let PrimitiveSchemaDefinition::UntitledMultiSelectEnum(ref multi) = p else { panic!("{p:?}") };
        assert_eq!(multi.items.values, ["red", "blue"]);
        let written = json!({"type": "array", "items": {"type": "string", "enum": ["red", "blue"]}});
        assert_eq!(serde_json::to_value(&p).unwrap(), written);
        let numbers = json!({"type": "array", "items": {"type": "integer", "enum": ["1"]}});
        assert!(serde_json::from_value::<PrimitiveSchemaDefinition>(numbers).is_err());
    }

    #[test]
    fn values_keep_their_json_form() {
        let v = json!({"action": "accept", "content": {"a": 30, "b": 1.5, "c": ["x"], "d": false, "e": "s"}});
        let r: ElicitResult = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(serde_json::to_value(&r).unwrap(), v);
        assert!(serde_json::from_value::<ElicitResult>(json!({"action": "maybe"})).is_err());
        assert!(serde_json::from_value::<ElicitResult>(json!({"action": "accept", "content": {"a": null}}))
            .is_err());
    }
}
