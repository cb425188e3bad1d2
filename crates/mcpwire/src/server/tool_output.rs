//! How `#[tool]`'s generated code sends a function's return value, chosen by the traits
//! its type implements rather than by its name (so a type alias works), and how it runs a
//! sync function ([`run_blocking`]).
//!
//! The generated code calls `(&&&&&Probe::<T>::new()).kind()`. Method lookup takes the
//! first receiver type that has a `kind`, trying `&&&&&Probe<T>` (the `&self` of an impl
//! for `&&&&Probe<T>`), then `&&&&Probe<T>`, and so on ("autoref specialization"): a value
//! that already is a tool result goes as it is; else a `Result` whose `Ok` is serializable
//! and whose `Err` is a tool error sends that value as structured content; else a `Result`
//! whose `Err` is a tool error stops the build at its `Ok` type, which cannot be structured
//! content ([`StructuredOutput`]); else any other `Result` stops the build at its error
//! type, which must be a tool error (a serializable `Err` would otherwise be sent as a
//! successful `{"Err": ..}` value); else the value is sent as structured content, and a
//! type that cannot be stops the build there, saying what a tool returns. Each `kind()`
//! returns a tag whose `wrap` turns the value into a type that is a tool result ([`Json`]
//! for structured content), so the tool's output schema comes from that type like any
//! handler's. Not part of the public API.

use std::marker::PhantomData;

use schemars::JsonSchema;
use serde::Serialize;

pub use super::blocking::run_blocking;
use super::tool::{IntoToolError, IntoToolResult, Json};

/// Stands for a value of type `T` in method lookup.
pub struct Probe<T>(PhantomData<T>);

impl<T> Probe<T> {
    /// A probe for `T`.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        Probe(PhantomData)
    }
}

/// The value is a tool result already.
#[derive(Clone, Copy)]
pub struct AsIs;
/// The `Ok` value of a `Result` is sent as structured content.
#[derive(Clone, Copy)]
pub struct OkAsJson;
/// A `Result` whose `Err` is a tool error but whose `Ok` is neither a tool result nor
/// structured content: its `wrap` does not compile.
#[derive(Clone, Copy)]
pub struct OkNeedsOutput;
/// A `Result` whose `Err` is not a tool error: its `wrap` does not compile.
#[derive(Clone, Copy)]
pub struct NeedsToolError;
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
impl<T: IntoToolResult> PickAsIs for &&&&Probe<T> {}

/// Picks [`OkAsJson`].
pub trait PickOkAsJson {
    /// The tag.
    fn kind(&self) -> OkAsJson {
        OkAsJson
    }
}
impl<T: StructuredOutput, E: IntoToolError> PickOkAsJson for &&&Probe<Result<T, E>> {}

/// Picks [`OkNeedsOutput`].
pub trait PickOkNeedsOutput {
    /// The tag.
    fn kind(&self) -> OkNeedsOutput {
        OkNeedsOutput
    }
}
impl<T, E: IntoToolError> PickOkNeedsOutput for &&Probe<Result<T, E>> {}

/// Picks [`NeedsToolError`].
pub trait PickNeedsToolError {
    /// The tag.
    fn kind(&self) -> NeedsToolError {
        NeedsToolError
    }
}
impl<T, E> PickNeedsToolError for &Probe<Result<T, E>> {}

/// Picks [`AsJson`], for any type: its `wrap` does not compile for one that cannot be
/// structured content ([`StructuredOutput`]), and the error says what a tool returns.
pub trait PickAsJson {
    /// The tag.
    fn kind(&self) -> AsJson {
        AsJson
    }
}
impl<T> PickAsJson for Probe<T> {}

/// A type whose values a tool sends as structured content.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's result",
    note = "a tool returns text (`String`), content (`ContentBlock`, `Vec<ContentBlock>`), `Json<T>` or a `CallToolResult`, or a type that implements `Serialize + JsonSchema`, sent as structured content with an `outputSchema`; in a `Result`, that is its `Ok` type"
)]
pub trait StructuredOutput: Serialize + JsonSchema + Send + 'static {}
impl<T: Serialize + JsonSchema + Send + 'static> StructuredOutput for T {}

impl AsIs {
    /// The result.
    pub fn wrap<T: IntoToolResult>(self, value: T) -> T {
        value
    }
}

impl OkAsJson {
    /// The `Ok` value as structured content.
    pub fn wrap<T, E>(self, value: Result<T, E>) -> Result<Json<T>, E> {
        value.map(Json)
    }
}

impl OkNeedsOutput {
    /// Does not compile for the `T` it was picked for: the bound says what a tool returns.
    pub fn wrap<T: StructuredOutput, E: IntoToolError>(self, value: Result<T, E>) -> Result<Json<T>, E> {
        value.map(Json)
    }
}

impl NeedsToolError {
    /// Does not compile for the `E` it was picked for: the bound names what is missing.
    pub fn wrap<T, E: IntoToolError>(self, value: Result<T, E>) -> Result<T, E> {
        value
    }
}

impl AsJson {
    /// The value as structured content.
    pub fn wrap<T: StructuredOutput>(self, value: T) -> Json<T> {
        Json(value)
    }
}
