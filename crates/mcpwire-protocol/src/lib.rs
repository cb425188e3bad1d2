//! The typed model of every Model Context Protocol message, for every protocol revision
//! from 2024-11-05 to 2026-07-28.
//!
//! Pure data: serde and serde_json, no IO, no async runtime. Where revisions differ, one
//! type carries the union of their fields as options; where they conflict the difference
//! is modelled explicitly. Open objects (`_meta`, capabilities) keep every unknown member.
//!
//! Every feature has its module ([`tools`], [`resources`], [`prompts`], [`completion`],
//! [`logging`], [`sampling`], [`elicitation`], [`roots`], [`notifications`],
//! [`subscriptions`], [`mrtr`], [`tasks`], ...), and their types are re-exported here. The
//! 2026 tasks extension's types share their names with the 2025-11-25 core tasks and are
//! used through [`tasks_ext`].
//!
//! Every params type implements [`RequestParams`] or [`NotificationParams`], which name
//! its method and result, and the whole messages have aliases such as
//! [`CallToolRequest`] = `Request<CallToolRequestParams>`.

#![forbid(unsafe_code)]

pub mod error;
pub mod id;
pub mod jsonrpc;
pub mod meta;
pub mod methods;
pub mod result;
pub mod rpc;
pub mod version;

pub mod capabilities;
pub mod common;
pub mod completion;
pub mod content;
pub mod elicitation;
pub mod error_data;
pub mod lifecycle;
pub mod logging;
pub mod mrtr;
pub mod notifications;
pub mod pagination;
pub mod prompts;
pub mod resources;
pub mod roots;
pub mod sampling;
pub mod subscriptions;
pub mod tags;
pub mod tasks;
pub mod tasks_ext;
pub mod tools;

pub use error::{codes, ErrorObject};
pub use id::{IdKey, RequestId};
pub use jsonrpc::{
    decode_frame, decode_message, DecodeError, ErrorResponse, Frame, JsonRpcVersion, Message, MethodCall,
    Notification, RawJson, Request, Response,
};
pub use meta::Meta;
pub use result::{CacheHint, CacheScope, Cacheable, ResultType};
pub use rpc::{NotificationParams, RequestParams};
pub use version::{Era, ProtocolVersion};

pub use capabilities::*;
pub use common::{Cursor, EmptyResult, JsonObject, OneOrMany};
pub use completion::*;
pub use content::*;
pub use elicitation::*;
pub use error_data::*;
pub use lifecycle::*;
pub use logging::*;
pub use mrtr::*;
pub use notifications::*;
pub use pagination::*;
pub use prompts::*;
pub use resources::*;
pub use roots::*;
pub use sampling::*;
pub use subscriptions::*;
pub use tasks::*;
pub use tools::*;
