//! A typed reply, and how each era stamps and serializes it: 2026 results carry
//! `resultType`, the server's identity in `_meta`, and cache hints on the six cacheable
//! results; 2025 results carry none of these.

use mcpwire_protocol::common::EmptyResult;
use mcpwire_protocol::completion::CompleteResult;
use mcpwire_protocol::lifecycle::{DiscoverResult, InitializeResult};
use mcpwire_protocol::mrtr::InputRequiredResult;
use mcpwire_protocol::prompts::{GetPromptResult, ListPromptsResult};
use mcpwire_protocol::resources::{ListResourceTemplatesResult, ListResourcesResult, ReadResourceResult};
use mcpwire_protocol::tools::{CallToolResult, ListToolsResult};
use mcpwire_protocol::{meta, methods, CacheHint, CacheScope, Meta, RawJson, ResultType};
use serde_json::Value;

use crate::error::McpError;

/// A result, before era stamping.
#[derive(Debug)]
pub(crate) enum Reply {
    Empty,
    Initialize(InitializeResult),
    Discover(DiscoverResult),
    ListTools(ListToolsResult),
    CallTool(CallToolResult),
    ListResources(ListResourcesResult),
    ListResourceTemplates(ListResourceTemplatesResult),
    ReadResource(ReadResourceResult),
    ListPrompts(ListPromptsResult),
    GetPrompt(GetPromptResult),
    Complete(CompleteResult),
    InputRequired(InputRequiredResult),
    Custom(Value),
}

/// What a 2026 result is stamped with.
pub(crate) struct Stamp<'a> {
    /// `{"name": .., "version": ..}` of the server.
    pub(crate) server_info: &'a Value,
    /// The cache hint of this method, if it is cacheable.
    pub(crate) cache: Option<CacheHint>,
}

/// Access to the common result members of each result type.
trait ResultFields {
    fn fields(&mut self) -> (&mut Option<ResultType>, &mut Option<Meta>);
    fn cache_fields(&mut self) -> Option<(&mut Option<u64>, &mut Option<CacheScope>)> {
        None
    }
}

macro_rules! result_fields {
    ($($t:ty),*) => {$(
        impl ResultFields for $t {
            fn fields(&mut self) -> (&mut Option<ResultType>, &mut Option<Meta>) {
                (&mut self.result_type, &mut self.meta)
            }
        }
    )*};
}

macro_rules! cacheable_fields {
    ($($t:ty),*) => {$(
        impl ResultFields for $t {
            fn fields(&mut self) -> (&mut Option<ResultType>, &mut Option<Meta>) {
                (&mut self.result_type, &mut self.meta)
            }
            fn cache_fields(&mut self) -> Option<(&mut Option<u64>, &mut Option<CacheScope>)> {
                Some((&mut self.ttl_ms, &mut self.cache_scope))
            }
        }
    )*};
}

result_fields!(EmptyResult, CallToolResult, GetPromptResult, CompleteResult, InputRequiredResult);
cacheable_fields!(
    DiscoverResult,
    ListToolsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ReadResourceResult,
    ListPromptsResult
);

fn stamp(result: &mut impl ResultFields, kind: ResultType, stamp: Option<&Stamp>) {
    match stamp {
        Some(s) => {
            if let Some((ttl, scope)) = result.cache_fields() {
                let hint = s.cache.unwrap_or_default();
                ttl.get_or_insert(hint.ttl_ms);
                scope.get_or_insert(hint.scope);
            }
            let (result_type, meta) = result.fields();
            *result_type = Some(kind);
            meta.get_or_insert_with(Meta::new)
                .entry(meta::SERVER_INFO)
                .or_insert_with(|| s.server_info.clone());
        }
        None => {
            if let Some((ttl, scope)) = result.cache_fields() {
                *ttl = None;
                *scope = None;
            }
            *result.fields().0 = None;
        }
    }
}

impl Reply {
    /// The cacheable method this reply answers, if any.
    pub(crate) fn cache_method(&self) -> Option<&'static str> {
        Some(match self {
            Reply::Discover(_) => methods::SERVER_DISCOVER,
            Reply::ListTools(_) => methods::TOOLS_LIST,
            Reply::ListResources(_) => methods::RESOURCES_LIST,
            Reply::ListResourceTemplates(_) => methods::RESOURCES_TEMPLATES_LIST,
            Reply::ReadResource(_) => methods::RESOURCES_READ,
            Reply::ListPrompts(_) => methods::PROMPTS_LIST,
            _ => return None,
        })
    }

    /// Stamps the reply for its era (`Some` for 2026, `None` for 2025) and serializes it.
    pub(crate) fn into_raw(self, s: Option<&Stamp>) -> Result<RawJson, McpError> {
        let complete = ResultType::Complete;
        let raw = match self {
            Reply::Empty => match s {
                Some(_) => {
                    let mut r = EmptyResult::default();
                    stamp(&mut r, complete, s);
                    serde_json::value::to_raw_value(&r)
                }
                None => serde_json::value::to_raw_value(&serde_json::Map::new()),
            },
            Reply::Initialize(r) => serde_json::value::to_raw_value(&r),
            Reply::Discover(mut r) => with(&mut r, complete, s),
            Reply::ListTools(mut r) => with(&mut r, complete, s),
            Reply::CallTool(mut r) => with(&mut r, complete, s),
            Reply::ListResources(mut r) => with(&mut r, complete, s),
            Reply::ListResourceTemplates(mut r) => with(&mut r, complete, s),
            Reply::ReadResource(mut r) => with(&mut r, complete, s),
            Reply::ListPrompts(mut r) => with(&mut r, complete, s),
            Reply::GetPrompt(mut r) => with(&mut r, complete, s),
            Reply::Complete(mut r) => with(&mut r, complete, s),
            Reply::InputRequired(mut r) => with(&mut r, ResultType::InputRequired, s),
            Reply::Custom(mut v) => {
                if let (Some(s), Value::Object(o)) = (s, &mut v) {
                    o.entry("resultType").or_insert_with(|| Value::String("complete".into()));
                    if let Value::Object(m) = o.entry("_meta").or_insert_with(|| Value::Object(Meta::new())) {
                        m.entry(meta::SERVER_INFO).or_insert_with(|| s.server_info.clone());
                    }
                }
                serde_json::value::to_raw_value(&v)
            }
        };
        Ok(raw?)
    }
}

fn with<T: ResultFields + serde::Serialize>(
    r: &mut T,
    kind: ResultType,
    s: Option<&Stamp>,
) -> Result<RawJson, serde_json::Error> {
    stamp(r, kind, s);
    serde_json::value::to_raw_value(r)
}
