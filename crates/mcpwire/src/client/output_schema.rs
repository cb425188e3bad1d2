//! Checks a tool's structured content against its `outputSchema`, as clients should:
//! a tool that declares an output schema must return structured content that conforms.
//! Schemas are compiled once per tool and kept; an unknown tool's schema is learned from
//! `tools/list` once.
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

/// Compiled output schemas by tool name (`None`: the tool declares none).
#[derive(Default)]
pub(crate) struct OutputSchemas {
    validators: Mutex<HashMap<String, Option<Arc<Validator>>>>,
}

impl OutputSchemas {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Option<Arc<Validator>>>> {
        self.validators.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Learns the schemas of listed tools (a schema that does not compile is skipped,
    /// with a warning, rather than failing every call).
    pub(crate) fn learn(&self, tools: &[Tool]) {
        let mut validators = self.lock();
        for tool in tools {
            let validator = tool.output_schema.as_ref().and_then(|schema| match compile(schema) {
                Ok(v) => Some(Arc::new(v)),
                Err(e) => {
                    tracing::warn!(tool = %tool.name, "ignoring an output schema that does not compile: {e}");
                    None
                }
            });
            validators.insert(tool.name.clone(), validator);
        }
    }

    fn known(&self, name: &str) -> Option<Option<Arc<Validator>>> {
        self.lock().get(name).cloned()
    }
}

impl Client {
    /// Checks a successful result of `name` against its output schema.
    pub(crate) async fn check_output(&self, name: &str, result: &CallToolResult) -> Result<(), RequestError> {
        if result.is_error() {
            return Ok(());
        }
        let schemas = &self.inner.output_schemas;
        let validator = match schemas.known(name) {
            Some(v) => v,
            None => {
                // Learn the tool list once; a server that cannot list is not checked.
                if let Ok(tools) = self.list_all_tools().await {
                    schemas.learn(&tools);
                }
                schemas.known(name).flatten()
            }
        };
        let Some(validator) = validator else { return Ok(()) };
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
