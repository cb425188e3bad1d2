//! The typed model of every Model Context Protocol message, for every protocol revision
//! from 2024-11-05 to 2026-07-28.
//!
//! Pure data: serde and serde_json, no IO, no async runtime. Where revisions differ, one
//! type carries the union of their fields as options; where they conflict the difference
//! is modelled explicitly. Open objects (`_meta`, capabilities) keep every unknown member.

#![forbid(unsafe_code)]

pub mod error;
pub mod id;
pub mod jsonrpc;
pub mod meta;
pub mod methods;
pub mod result;
pub mod rpc;
pub mod version;

pub use error::{codes, ErrorObject};
pub use id::{IdKey, RequestId};
pub use jsonrpc::{
    decode_frame, decode_message, DecodeError, ErrorResponse, Frame, JsonRpcVersion, Message, MethodCall,
    Notification, RawJson, Request, Response,
};
pub use meta::Meta;
pub use result::{CacheHint, CacheScope, ResultType};
pub use rpc::{NotificationParams, RequestParams};
pub use version::{Era, ProtocolVersion};
