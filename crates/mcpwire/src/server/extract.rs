//! Extractors: the typed pieces a handler asks for, in the style of axum.
//!
//! Tools, prompts and resources share them. A handler's parameters are any of [`Ctx`],
//! [`State<T>`], [`Args<T>`] (a tool's arguments, a prompt's arguments or a resource
//! template's variables, decoded into `T`, whose JSON Schema describes them) and, for
//! resources, [`Uri`] or [`ResourceRequest`](super::ResourceRequest). Each implements
//! [`FromRequest`]; write your own the same way.
//!
//! ```
//! use mcpwire::server::{prompt, Args};
//! # use schemars::JsonSchema; use serde::Deserialize;
//! /// The arguments of the `review` prompt: its fields are the prompt's arguments.
//! #[derive(Deserialize, JsonSchema)]
//! struct Review {
//!     /// The code to review.
//!     code: String,
//!     /// What to focus on.
//!     focus: Option<String>,
//! }
//!
//! let review = prompt("review").handler(|Args(r): Args<Review>| async move {
//!     format!("Review this code for {}:\n{}", r.focus.as_deref().unwrap_or("bugs"), r.code)
//! });
//! # let _ = review;
//! ```

use std::future::Future;

use mcpwire_protocol::common::JsonObject;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use super::arguments::{decode_arguments, decode_string_arguments};
use super::context::Ctx;
use super::schema;
use crate::error::McpError;

/// What an extractor reads from: the request's context, its arguments as one JSON object
/// (a tool's `arguments`, a prompt's `arguments`, a template's matched variables), and
/// the URI a resource read asks for.
#[derive(Clone, Copy)]
pub struct RequestParts<'a> {
    ctx: &'a Ctx,
    arguments: Option<&'a RawValue>,
    uri: Option<&'a str>,
    /// The arguments are a map of strings (a prompt's arguments, a template's
    /// variables): typed fields are parsed from them.
    strings: bool,
}

impl std::fmt::Debug for RequestParts<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestParts").field("arguments", &self.arguments).field("uri", &self.uri).finish()
    }
}

impl<'a> RequestParts<'a> {
    pub(crate) fn new(ctx: &'a Ctx, arguments: Option<&'a RawValue>, uri: Option<&'a str>) -> Self {
        RequestParts { ctx, arguments, uri, strings: false }
    }

    /// Parts whose arguments are a JSON object of strings (a prompt's arguments, a
    /// template's variables), which [`Args`] parses into typed fields.
    pub(crate) fn of_strings(ctx: &'a Ctx, arguments: &'a RawValue, uri: Option<&'a str>) -> Self {
        RequestParts { ctx, arguments: Some(arguments), uri, strings: true }
    }

    /// The request's context.
    pub fn ctx(&self) -> &'a Ctx {
        self.ctx
    }

    /// The arguments as sent (absent when the request had none).
    pub fn arguments(&self) -> Option<&'a RawValue> {
        self.arguments
    }

    /// The URI of a `resources/read`; `None` for tools and prompts.
    pub fn uri(&self) -> Option<&'a str> {
        self.uri
    }
}

/// Why an extractor refused a request.
#[derive(Debug)]
pub enum Rejection {
    /// The arguments do not fit the handler's input type; the message names the field.
    InvalidArguments(String),
    /// A protocol error (for example missing shared state).
    Protocol(McpError),
}

/// Turns part of a request into a handler parameter.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not something a handler can take from a request",
    label = "not an extractor",
    note = "handlers take `Ctx`, `State<T>` (T: Clone, given to `ServerBuilder::state`), `Args<T>`, \
            and types that implement `FromRequest`; with `#[mcpwire::tool]`, other parameters are \
            the tool's arguments, and `#[arg(extractor)]` marks one of your own extractors"
)]
pub trait FromRequest: Sized + Send + 'static {
    /// Extracts the value.
    fn from_request(parts: &RequestParts<'_>) -> Result<Self, Rejection>;

    /// The JSON Schema of the arguments this extractor reads (only [`Args`] has one): a
    /// tool's `inputSchema`, a prompt's argument list, a template's variables.
    fn arguments_schema() -> Option<JsonObject> {
        None
    }
}

impl FromRequest for Ctx {
    fn from_request(parts: &RequestParts<'_>) -> Result<Self, Rejection> {
        Ok(parts.ctx.clone())
    }
}

/// Shared state registered with [`ServerBuilder::state`](super::ServerBuilder::state),
/// cloned into the handler (register an `Arc` for large state).
#[derive(Clone, Debug)]
pub struct State<T>(pub T);

impl<T: Clone + Send + Sync + 'static> FromRequest for State<T> {
    fn from_request(parts: &RequestParts<'_>) -> Result<Self, Rejection> {
        parts.ctx.state::<T>().cloned().map(State).ok_or_else(|| {
            Rejection::Protocol(McpError::internal(format!(
                "no shared state of type {} was registered",
                std::any::type_name::<T>()
            )))
        })
    }
}

/// The request's arguments decoded into `T`; `T`'s JSON Schema describes them (a tool's
/// `inputSchema`, a prompt's arguments, a template's variables). A prompt's arguments and
/// a template's variables are strings on the wire: a field of another type (`u32`,
/// `bool`, a unit enum) is parsed from its string.
#[derive(Clone, Debug)]
pub struct Args<T>(pub T);

impl<T: DeserializeOwned + JsonSchema + Send + 'static> FromRequest for Args<T> {
    fn from_request(parts: &RequestParts<'_>) -> Result<Self, Rejection> {
        let decoded = match parts.strings {
            true => decode_string_arguments(parts.arguments),
            false => decode_arguments(parts.arguments),
        };
        decoded.map(Args).map_err(Rejection::InvalidArguments)
    }

    fn arguments_schema() -> Option<JsonObject> {
        Some(schema::input_schema_for::<T>())
    }
}

/// The URI a resource handler is asked to read.
#[derive(Clone, Debug)]
pub struct Uri(pub String);

impl FromRequest for Uri {
    fn from_request(parts: &RequestParts<'_>) -> Result<Self, Rejection> {
        parts.uri.map(|uri| Uri(uri.to_owned())).ok_or_else(|| {
            Rejection::Protocol(McpError::internal("`Uri` is an extractor for resource handlers only"))
        })
    }
}

/// An async function of extractors: the handler of a prompt or a resource (tools also
/// take sync functions, see [`ToolHandler`](super::ToolHandler)). Implemented for
/// functions and closures of up to six [`FromRequest`] parameters returning a future.
pub trait Handler<M>: Send + Sync + 'static {
    /// What the future yields.
    type Output: Send + 'static;
    /// The handler's future (boxed once, by whoever turns its output into a result).
    type Future: Future<Output = Self::Output> + Send + 'static;

    /// The schema of the arguments, from the first extractor that has one.
    fn arguments_schema() -> Option<JsonObject>;

    /// Extracts the parameters (the arguments are lent, not given: they are read before
    /// the future starts) and starts the handler.
    fn call(&self, parts: &RequestParts<'_>) -> Result<Self::Future, Rejection>;
}

macro_rules! impl_handler {
    ($($e:ident),*) => {
        #[allow(non_snake_case, unused_variables)]
        impl<F, Fut, $($e,)*> Handler<($($e,)*)> for F
        where
            F: Fn($($e),*) -> Fut + Send + Sync + 'static,
            Fut: Future + Send + 'static,
            Fut::Output: Send + 'static,
            $($e: FromRequest,)*
        {
            type Output = Fut::Output;
            type Future = Fut;

            fn arguments_schema() -> Option<JsonObject> {
                None$(.or_else($e::arguments_schema))*
            }

            fn call(&self, parts: &RequestParts<'_>) -> Result<Fut, Rejection> {
                $(let $e = $e::from_request(parts)?;)*
                Ok((self)($($e),*))
            }
        }
    };
}

/// Invokes `$m!` for handlers of zero to six extractors.
macro_rules! for_each_arity {
    ($m:ident) => {
        $m!();
        $m!(E1);
        $m!(E1, E2);
        $m!(E1, E2, E3);
        $m!(E1, E2, E3, E4);
        $m!(E1, E2, E3, E4, E5);
        $m!(E1, E2, E3, E4, E5, E6);
    };
}
pub(crate) use for_each_arity;

for_each_arity!(impl_handler);

/// A rejection as the protocol error a prompt or resource request gets: arguments that
/// do not fit are `-32602`, naming what was asked for.
pub(crate) fn rejection_error(rejection: Rejection, what: &str) -> McpError {
    match rejection {
        Rejection::InvalidArguments(detail) => {
            McpError::invalid_params(format!("Invalid arguments for {what}: {detail}"))
        }
        Rejection::Protocol(error) => error,
    }
}
