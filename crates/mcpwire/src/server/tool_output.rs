//! How `#[tool]`'s generated code sends a function's return value, chosen by the traits
//! its type implements rather than by its name (so a type alias works).
//!
//! The generated code calls `(&&&Probe::<T>::new()).kind()`. Method lookup takes the
//! first receiver type that has a `kind`, trying `&&&Probe<T>` (the `&self` of an impl for
//! `&&Probe<T>`), then `&&Probe<T>`, then `&Probe<T>` ("autoref specialization"): a value
//! that already is a tool result goes as it is; else a `Result` whose `Ok` is serializable
//! sends that value as structured content; else a serializable value does. Each `kind()`
//! returns a tag whose `schema` and `wrap` do the work. Not part of the public API.

use std::marker::PhantomData;

use mcpwire_protocol::tools::CallToolResult;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use super::tool::{IntoToolError, IntoToolResult, Json};
use crate::error::McpError;

/// Stands for a value of type `T` in method lookup.
pub struct Probe<T>(PhantomData<T>);

impl<T> Probe<T> {
    /// A probe for `T`.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        Probe(PhantomData)
    }
}

fn schema_value(schema: Option<mcpwire_protocol::common::JsonObject>) -> Value {
    schema.map_or(Value::Null, Value::Object)
}

/// The value is a tool result already.
#[derive(Clone, Copy)]
pub struct AsIs;
/// The `Ok` value of a `Result` is sent as structured content.
#[derive(Clone, Copy)]
pub struct OkAsJson;
/// The value is sent as structured content.
#[derive(Clone, Copy)]
pub struct AsJson;

/// Picks [`AsIs`].
pub trait PickAsIs {
    /// The tag.
    fn kind(&self) -> AsIs {
        AsIs
    }
}
impl<T: IntoToolResult> PickAsIs for &&Probe<T> {}

/// Picks [`OkAsJson`].
pub trait PickOkAsJson {
    /// The tag.
    fn kind(&self) -> OkAsJson {
        OkAsJson
    }
}
impl<T: Serialize + JsonSchema + Send + 'static, E: IntoToolError> PickOkAsJson for &Probe<Result<T, E>> {}

/// Picks [`AsJson`].
pub trait PickAsJson {
    /// The tag.
    fn kind(&self) -> AsJson {
        AsJson
    }
}
impl<T: Serialize + JsonSchema + Send + 'static> PickAsJson for Probe<T> {}

impl AsIs {
    /// The output schema (`null`: none).
    pub fn schema<T: IntoToolResult>(self, _: Probe<T>) -> Value {
        schema_value(T::output_schema())
    }
    /// The result.
    pub fn wrap<T: IntoToolResult>(self, value: T) -> Result<CallToolResult, McpError> {
        value.into_tool_result()
    }
}

impl OkAsJson {
    /// The output schema of the `Ok` value.
    pub fn schema<T: Serialize + JsonSchema + Send + 'static, E>(self, _: Probe<Result<T, E>>) -> Value {
        schema_value(Json::<T>::output_schema())
    }
    /// The result.
    pub fn wrap<T: Serialize + JsonSchema + Send + 'static, E: IntoToolError>(
        self,
        value: Result<T, E>,
    ) -> Result<CallToolResult, McpError> {
        value.map(Json).into_tool_result()
    }
}

impl AsJson {
    /// The output schema of the value.
    pub fn schema<T: Serialize + JsonSchema + Send + 'static>(self, _: Probe<T>) -> Value {
        schema_value(Json::<T>::output_schema())
    }
    /// The result.
    pub fn wrap<T: Serialize + JsonSchema + Send + 'static>(
        self,
        value: T,
    ) -> Result<CallToolResult, McpError> {
        Json(value).into_tool_result()
    }
}
