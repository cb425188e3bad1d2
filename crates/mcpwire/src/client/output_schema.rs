//! Checks a tool's structured content against its `outputSchema`, as clients should:
//! a tool that declares an output schema must return structured content that conforms.
//! Schemas are compiled once per tool, when its first result is checked, and kept until
//! the server says its tool list changed; an unknown tool's schema is learned from
//! `tools/list` once. A schema that cannot be used (an unknown `$schema` dialect, a `$ref`
//! outside it, or one that does not compile) fails the tool's calls with the reason,
//! rather than letting its results through unchecked.
//!
//! How much is checked depends on the `jsonschema` feature: with it, the whole schema
//! (`full.rs`); without it, the top level only (`shallow.rs`: the value's type, required
//! members, the JSON types of declared members), which keeps a schema compiler and its
//! Unicode and regex tables out of the build.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use mcpwire_protocol::tools::{CallToolResult, Tool};

use super::Client;
use crate::error::RequestError;

mod cost;
#[cfg(feature = "jsonschema")]
mod full;
// Compiled (and unit-tested) in every build; used when `jsonschema` is off.
#[cfg_attr(feature = "jsonschema", allow(dead_code))]
mod shallow;

#[cfg(feature = "jsonschema")]
type Validator = full::FullSchema;
#[cfg(not(feature = "jsonschema"))]
type Validator = shallow::ShallowSchema;

/// Compiles one tool's schema the way this build checks them.
#[cfg(feature = "jsonschema")]
fn compile(schema: &mcpwire_protocol::JsonObject) -> Result<Validator, String> {
    full::FullSchema::compile(schema)
}

/// Compiles one tool's schema the way this build checks them.
#[cfg(not(feature = "jsonschema"))]
fn compile(schema: &mcpwire_protocol::JsonObject) -> Result<Validator, String> {
    Ok(shallow::ShallowSchema::compile(schema))
}

/// The JSON Schema dialects a `$schema` may name (the checker knows them all; without
/// `$schema` a schema is 2020-12).
const KNOWN_DIALECTS: &[&str] = &[
    "https://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2019-09/schema",
    "http://json-schema.org/draft-07/schema",
    "http://json-schema.org/draft-06/schema",
    "http://json-schema.org/draft-04/schema",
];

/// Why a schema cannot be used, whatever the build checks: a `$schema` naming a dialect
/// this client does not know (an error, as the spec asks), a `$ref` outside the schema
/// (never fetched, and so unresolved: rejected), or a check whose cost the server could
/// make unbounded (`cost.rs`: a `$ref` loop that never steps into the value, composition
/// that multiplies per level).
fn unusable(schema: &mcpwire_protocol::JsonObject) -> Option<String> {
    if let Some(dialect) = schema.get("$schema") {
        let known = dialect.as_str().is_some_and(|d| KNOWN_DIALECTS.contains(&d.trim_end_matches('#')));
        if !known {
            return Some(format!("its $schema {dialect} is not a dialect this client supports"));
        }
    }
    /// The first `$ref` in `object` or below it that does not start with `#`.
    fn external_ref(object: &mcpwire_protocol::JsonObject) -> Option<&str> {
        let own = object.get("$ref").and_then(|r| r.as_str()).filter(|r| !r.starts_with('#'));
        own.or_else(|| object.values().find_map(in_value))
    }
    fn in_value(value: &serde_json::Value) -> Option<&str> {
        match value {
            serde_json::Value::Object(o) => external_ref(o),
            serde_json::Value::Array(a) => a.iter().find_map(in_value),
            _ => None,
        }
    }
    if let Some(r) = external_ref(schema) {
        return Some(format!("its $ref {r:?} points outside the schema, which this client does not fetch"));
    }
    cost::unbounded(&serde_json::Value::Object(schema.clone()))
}

/// What is known of one tool's output schema.
#[derive(Clone)]
enum Known {
    /// It declares none.
    None,
    /// Listed, not yet compiled: a schema is compiled when a result of its tool is first
    /// checked, not when the tools are listed, so that a listing of many tools (each
    /// schema may compile to far more memory than its text takes) costs what it weighs.
    Listed(Arc<mcpwire_protocol::JsonObject>),
    /// Compiled.
    Checked(Arc<Validator>),
    /// It declares one this client cannot use, and why: its results are refused rather
    /// than passed unchecked.
    Unusable(Arc<str>),
}

/// Bytes of `tools/list` pages whose schemas are kept at most (as much as one listing
/// reads): past it, what was learned before is forgotten (and learned again, when needed,
/// from a new listing). A server that lists other tools at every listing cannot make the
/// client keep ever more schemas.
const MAX_LEARNED_BYTES: usize = 64 * 1024 * 1024;

/// Output schemas by tool name, and the bytes of the pages they were learned from.
#[derive(Default)]
struct Learned {
    by_name: HashMap<String, Known>,
    page_bytes: usize,
}

/// Output schemas by tool name.
#[derive(Default)]
pub(crate) struct OutputSchemas {
    validators: Mutex<Learned>,
}

impl OutputSchemas {
    fn lock(&self) -> std::sync::MutexGuard<'_, Learned> {
        self.validators.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Learns the schemas of a page of listed tools, `page_bytes` long as it came
    /// (compiled when first used: [`Known::Listed`]).
    pub(crate) fn learn(&self, tools: &[Tool], page_bytes: usize) {
        let learned: Vec<(String, Known)> = tools
            .iter()
            .map(|tool| {
                let known = match &tool.output_schema {
                    None => Known::None,
                    Some(schema) => Known::Listed(Arc::new(schema.clone())),
                };
                (tool.name.clone(), known)
            })
            .collect();
        let mut learned_so_far = self.lock();
        if learned_so_far.page_bytes.saturating_add(page_bytes) > MAX_LEARNED_BYTES {
            *learned_so_far = Learned::default();
        }
        learned_so_far.page_bytes = learned_so_far.page_bytes.saturating_add(page_bytes);
        learned_so_far.by_name.extend(learned);
    }

    /// Forgets every schema (the tool list changed): each tool's is learned again from
    /// `tools/list` before its next result is checked.
    pub(crate) fn forget(&self) {
        *self.lock() = Learned::default();
    }

    /// What is known of `name`'s schema, compiled if it was only listed (compiled
    /// outside the lock, so that checks of other tools' results do not wait for it).
    fn known(&self, name: &str) -> Option<Known> {
        let listed = match self.lock().by_name.get(name)? {
            Known::Listed(schema) => schema.clone(),
            known => return Some(known.clone()),
        };
        let known = match unusable(&listed).map_or_else(|| compile(&listed), Err) {
            Ok(v) => Known::Checked(Arc::new(v)),
            Err(e) => {
                tracing::warn!(tool = %name, "an output schema this client cannot use: {e}");
                Known::Unusable(e.into())
            }
        };
        // Kept unless the tool was listed again (or forgotten) meanwhile.
        if let Some(entry) = self.lock().by_name.get_mut(name) {
            if matches!(entry, Known::Listed(current) if Arc::ptr_eq(current, &listed)) {
                *entry = known.clone();
            }
        }
        Some(known)
    }
}

impl Client {
    /// Checks a successful result of `name` against its output schema.
    pub(crate) async fn check_output(&self, name: &str, result: &CallToolResult) -> Result<(), RequestError> {
        if result.is_error() {
            return Ok(());
        }
        self.inner.forget_tools_of_replaced_sessions();
        let schemas = &self.inner.output_schemas;
        let known = match schemas.known(name) {
            Some(known) => known,
            None => {
                // Learn the tool list once (each page is learned as it comes); a server
                // that cannot list is not checked.
                let _ = self.list_all_tools().await;
                schemas.known(name).unwrap_or(Known::None)
            }
        };
        let validator = match known {
            // (`known` never gives back a schema it has not compiled.)
            Known::None | Known::Listed(_) => return Ok(()),
            Known::Checked(validator) => validator,
            Known::Unusable(why) => {
                return Err(RequestError::Protocol(format!(
                    "tool {name:?} declares an outputSchema that cannot be checked: {why}"
                )))
            }
        };
        let Some(structured) = &result.structured_content else {
            return Err(RequestError::Protocol(format!(
                "tool {name:?} declares an outputSchema but returned no structuredContent"
            )));
        };
        validator.validate(structured).map_err(|e| {
            RequestError::Protocol(format!(
                "tool {name:?} returned structuredContent that does not match its outputSchema: {e}"
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use serde_json::json;

    use super::*;

    fn object(value: serde_json::Value) -> mcpwire_protocol::JsonObject {
        value.as_object().unwrap().clone()
    }

    /// A server that lists other tools (with their schemas) at every listing does not
    /// make the client keep ever more: past the bytes of one listing, what was learned
    /// before is forgotten.
    #[test]
    fn schemas_learned_over_many_listings_are_bounded() {
        let schemas = OutputSchemas::default();
        let megabyte = 1024 * 1024;
        for n in 0..200 {
            let tool: Tool = serde_json::from_value(json!({
                "name": format!("t{n}"), "inputSchema": { "type": "object" },
                "outputSchema": { "type": "object" } }))
            .unwrap();
            schemas.learn(&[tool], megabyte);
        }
        let learned = schemas.lock();
        // 64 MiB of pages: the last 64 listings at most.
        assert!(learned.by_name.len() <= 64, "{} schemas kept", learned.by_name.len());
        assert!(learned.by_name.contains_key("t199"), "the latest listing is kept");
    }

    #[test]
    fn unknown_dialects_and_outside_refs_are_unusable() {
        for usable in [
            json!({ "type": "object" }),
            json!({ "$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object" }),
            json!({ "$schema": "http://json-schema.org/draft-07/schema#" }),
            json!({ "$defs": { "a": { "type": "string" } }, "properties": { "x": { "$ref": "#/$defs/a" } } }),
        ] {
            assert_eq!(unusable(&object(usable.clone())), None, "{usable}");
        }
        for (schema, why) in [
            (json!({ "$schema": "https://example.com/my-dialect" }), "not a dialect"),
            (json!({ "$schema": 7 }), "not a dialect"),
            (json!({ "$ref": "https://example.com/s.json" }), "points outside"),
            (json!({ "properties": { "x": { "items": [{ "$ref": "other.json#/a" }] } } }), "points outside"),
            // A validator would recurse until its stack overflowed and took the process.
            (json!({ "anyOf": [{ "$ref": "#" }, { "type": "string" }] }), "back to itself"),
        ] {
            let reason = unusable(&object(schema.clone())).unwrap_or_default();
            assert!(reason.contains(why), "{schema}: {reason}");
        }
    }
}
