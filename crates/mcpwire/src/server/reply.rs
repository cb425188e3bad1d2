//! A typed reply, and how each era stamps and serializes it: 2026 results carry
//! `resultType`, the server's identity in `_meta`, and cache hints on the six cacheable
//! results; 2025 results carry none of these.

use mcpwire_protocol::common::EmptyResult;
use mcpwire_protocol::completion::CompleteResult;
use mcpwire_protocol::content::ContentBlock;
use mcpwire_protocol::lifecycle::{DiscoverResult, Implementation, InitializeResult};
use mcpwire_protocol::mrtr::InputRequiredResult;
use mcpwire_protocol::prompts::{GetPromptResult, ListPromptsResult};
use mcpwire_protocol::resources::{ListResourceTemplatesResult, ListResourcesResult, ReadResourceResult};
use mcpwire_protocol::tools::{CallToolResult, ListToolsResult};
use mcpwire_protocol::{meta, methods, CacheHint, CacheScope, Meta, ProtocolVersion, RawJson, ResultType};
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::error::McpError;

/// A result, before era stamping.
#[derive(Debug)]
pub(crate) enum Reply {
    Empty,
    // Boxed: the two largest results, one per connection or rarely asked for, would
    // otherwise set the size of every reply (a tool call's included), which is moved
    // several times on its way out.
    Initialize(Box<InitializeResult>),
    Discover(Box<DiscoverResult>),
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
    /// A result serialized once and shared by many requests (a finished task's outcome,
    /// which all its 2025 `tasks/result` calls answer with): each answer copies the text
    /// only as it is written out.
    Shared(std::sync::Arc<RawValue>),
}

/// The server's identity as 2026 results carry it, made once when the server is built
/// (it was serialized into a fresh tree for every request).
#[derive(Debug)]
pub(crate) struct ServerInfo {
    /// `{"name": .., "version": ..}` as a tree, for results whose `_meta` is a map.
    value: Value,
    /// `{"io.modelcontextprotocol/serverInfo":{..}}`, serialized: written as is as the
    /// `_meta` of a result without one of its own.
    meta: Box<RawValue>,
}

impl ServerInfo {
    /// Serializes `info` (strings only: this cannot fail; `null` if it did).
    pub(crate) fn new(info: &Implementation) -> Self {
        let value = serde_json::to_value(info).unwrap_or(Value::Null);
        // From the tree, not the struct, so the text is byte for byte what serializing
        // the tree inside a `_meta` map writes.
        let raw = crate::json_write::to_raw_value(&value).unwrap_or_else(|_| RawValue::NULL.to_owned());
        let meta = serde_json::value::to_raw_value(&ServerInfoMeta { server_info: &raw })
            .unwrap_or_else(|_| RawValue::NULL.to_owned());
        ServerInfo { value, meta }
    }
}

/// What a 2026 result is stamped with.
pub(crate) struct Stamp<'a> {
    /// The server's identity.
    pub(crate) server_info: &'a ServerInfo,
    /// The cache hint of this method (the configured one, else the default), if it is
    /// cacheable.
    pub(crate) cache: Option<CacheHint>,
}

/// `{"io.modelcontextprotocol/serverInfo": ..}`.
#[derive(Serialize)]
struct ServerInfoMeta<'a> {
    #[serde(rename = "io.modelcontextprotocol/serverInfo")]
    server_info: &'a RawValue,
}

/// Access to the common result members of each result type.
trait ResultFields {
    /// Whether `_meta` is the type's last member (see [`with`]).
    const META_LAST: bool = true;

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

result_fields!(CallToolResult, GetPromptResult, CompleteResult, InputRequiredResult);

impl ResultFields for EmptyResult {
    // Its open members (`extra`) come after `_meta`.
    const META_LAST: bool = false;
    fn fields(&mut self) -> (&mut Option<ResultType>, &mut Option<Meta>) {
        (&mut self.result_type, &mut self.meta)
    }
}
cacheable_fields!(
    DiscoverResult,
    ListToolsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ReadResourceResult,
    ListPromptsResult
);

/// The 2026 stamp but the identity: `resultType`, and the cache hints unless the
/// handler set its own.
fn stamp_fields(result: &mut impl ResultFields, kind: ResultType, s: &Stamp) {
    if let Some((ttl, scope)) = result.cache_fields() {
        let hint = s.cache.unwrap_or_default();
        ttl.get_or_insert(hint.ttl_ms);
        scope.get_or_insert(hint.scope);
    }
    *result.fields().0 = Some(kind);
}

fn stamp(result: &mut impl ResultFields, kind: ResultType, stamp: Option<&Stamp>) {
    match stamp {
        Some(s) => {
            stamp_fields(result, kind, s);
            let (_, meta) = result.fields();
            meta.get_or_insert_with(Meta::new)
                .entry(meta::SERVER_INFO)
                .or_insert_with(|| s.server_info.value.clone());
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
    /// The reply with its content blocks as an older 2025 revision can carry them (see
    /// [`ContentBlock::for_revision`]): a tool result's content and a prompt's messages.
    ///
    /// [`ContentBlock::for_revision`]: mcpwire_protocol::content::ContentBlock::for_revision
    pub(crate) fn for_revision(self, version: &ProtocolVersion) -> Reply {
        match self {
            Reply::CallTool(mut r) => {
                r.content = r.content.into_iter().map(|c| c.for_revision(version)).collect();
                Reply::CallTool(r)
            }
            Reply::GetPrompt(mut r) => {
                for m in &mut r.messages {
                    m.content =
                        std::mem::replace(&mut m.content, ContentBlock::text("")).for_revision(version);
                }
                Reply::GetPrompt(r)
            }
            other => other,
        }
    }

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
                    crate::json_write::into_raw_value(r)
                }
                None => crate::json_write::into_raw_value(serde_json::Map::new()),
            },
            Reply::Initialize(r) => crate::json_write::into_raw_value(r),
            Reply::Discover(r) => with(*r, complete, s),
            Reply::ListTools(r) => with(r, complete, s),
            Reply::CallTool(r) => with(r, complete, s),
            Reply::ListResources(r) => with(r, complete, s),
            Reply::ListResourceTemplates(r) => with(r, complete, s),
            Reply::ReadResource(r) => with(r, complete, s),
            Reply::ListPrompts(r) => with(r, complete, s),
            Reply::GetPrompt(r) => with(r, complete, s),
            Reply::Complete(r) => with(r, complete, s),
            Reply::InputRequired(r) => with(r, ResultType::InputRequired, s),
            Reply::Custom(mut v) => {
                if let (Some(s), Value::Object(o)) = (s, &mut v) {
                    let kind = o.entry("resultType").or_insert_with(|| Value::String("complete".into()));
                    // A cacheable method served by hand: its `complete` result carries the
                    // cache hints, as the typed ones do.
                    if let (Some(hint), true) = (s.cache, kind == "complete") {
                        o.entry("ttlMs").or_insert_with(|| Value::from(hint.ttl_ms));
                        o.entry("cacheScope")
                            .or_insert_with(|| serde_json::to_value(hint.scope).unwrap_or(Value::Null));
                    }
                    if let Value::Object(m) = o.entry("_meta").or_insert_with(|| Value::Object(Meta::new())) {
                        m.entry(meta::SERVER_INFO).or_insert_with(|| s.server_info.value.clone());
                    }
                }
                crate::json_write::into_raw_value(v)
            }
            Reply::Shared(raw) => match s {
                None => serde_json::value::to_raw_value(&*raw),
                // Stamped as any result built by hand.
                Some(_) => return Reply::Custom(serde_json::from_str(raw.get())?).into_raw(s),
            },
        };
        Ok(raw?)
    }
}

/// Stamps and serializes a result whose `_meta` is its last member (taken by value: see
/// `json_write::into_raw_value`).
fn with<T: ResultFields + Serialize>(
    mut r: T,
    kind: ResultType,
    s: Option<&Stamp>,
) -> Result<RawJson, serde_json::Error> {
    if let Some(st) = s {
        if T::META_LAST && r.fields().1.is_none() {
            // Everything but the identity, then the identity as already serialized: the
            // same text as inserting it into a new `_meta` map and serializing the result,
            // since `_meta` is the last member of every type stamped this way.
            stamp_fields(&mut r, kind, st);
            return crate::json_write::into_raw_object_with(r, ("_meta", &st.server_info.meta));
        }
    }
    stamp(&mut r, kind, s);
    crate::json_write::into_raw_value(r)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use mcpwire_protocol::content::Icon;
    use mcpwire_protocol::tools::Tool;
    use serde_json::json;

    /// The stamp as it was before the identity was serialized once: inserted as a tree
    /// into `_meta`, then the whole result serialized.
    fn reference<T: ResultFields + Serialize>(mut r: T, kind: ResultType, s: &Stamp) -> String {
        stamp(&mut r, kind, Some(s));
        serde_json::to_string(&r).unwrap()
    }

    fn identities() -> Vec<Implementation> {
        let mut rich = Implementation::new("srv \"q\" é", "1.2.3");
        rich.title = Some("A title".into());
        rich.description = Some("line\nbreak".into());
        rich.website_url = Some("https://example.com".into());
        rich.icons = Some(vec![Icon { src: "data:x".into(), ..Default::default() }]);
        vec![Implementation::new("s", "0.1.0"), rich]
    }

    fn metas() -> Vec<Option<Meta>> {
        let mut other = Meta::new();
        other.insert("a.b/x".into(), json!([1, {"z": null}]));
        let mut own = Meta::new();
        own.insert(meta::SERVER_INFO.into(), json!("the handler's own"));
        vec![None, Some(Meta::new()), Some(other), Some(own)]
    }

    fn check<T: ResultFields + Serialize + Clone>(r: T, kind: ResultType) {
        for info in identities() {
            let server_info = ServerInfo::new(&info);
            let hints = [None, Some(CacheHint { ttl_ms: 5, scope: CacheScope::Public })];
            for cache in hints {
                let s = Stamp { server_info: &server_info, cache };
                let expected = reference(r.clone(), kind.clone(), &s);
                let got = with(r.clone(), kind.clone(), Some(&s)).unwrap();
                assert_eq!(got.get(), expected);
            }
        }
    }

    /// Tool results of many shapes: text blocks whose strings need every kind of escape,
    /// blocks serde writes (annotated text, an image), structured content, `isError`.
    fn call_results() -> Vec<CallToolResult> {
        use mcpwire_protocol::content::{Annotations, ContentBlock, ImageContent, TextContent};
        let every_ascii: String = (0u8..0x80).map(char::from).collect();
        let texts = [
            "",
            "hello",
            "\"quoted\" \\ back",
            "line\nbreak\ttab\r\u{8}\u{c}",
            "é 漢字 🎉 \u{7f}",
            &every_ascii,
        ];
        let mut results: Vec<CallToolResult> = texts.iter().map(|t| CallToolResult::text(*t)).collect();
        results.push(CallToolResult::success(vec![]));
        results.push(CallToolResult::success(texts.iter().map(|t| ContentBlock::text(*t)).collect()));
        let annotated = ContentBlock::Text(TextContent {
            annotations: Some(Annotations { priority: Some(0.5), ..Default::default() }),
            ..TextContent::new("a")
        });
        let mut with_meta = TextContent::new("m");
        with_meta.meta = Some(Meta::new());
        let image = ContentBlock::Image(ImageContent {
            data: "aGk=".into(),
            mime_type: "image/png".into(),
            ..Default::default()
        });
        results.push(CallToolResult::success(vec![
            ContentBlock::text("x"),
            annotated,
            ContentBlock::Text(with_meta),
            image,
        ]));
        results.push(CallToolResult::error("boom \"x\""));
        let mut ok = CallToolResult::text("fine");
        ok.is_error = Some(false);
        results.push(ok);
        results.push(CallToolResult::structured(json!({"b": [1, 2.5, null], "a": "\u{1}"})));
        let mut set = CallToolResult::text("handler set its own resultType");
        set.result_type = Some(ResultType::InputRequired);
        results.push(set);
        results
    }

    /// Tool results of every shape are stamped as the tree stamp writes them.
    #[test]
    fn tool_results_are_stamped_as_the_tree_stamp_writes_them() {
        for r in call_results() {
            check(r, ResultType::Complete);
        }
    }

    #[test]
    fn a_tool_result_with_its_own_meta_gets_the_identity_merged() {
        let info = Implementation::new("s", "0.1.0");
        let server_info = ServerInfo::new(&info);
        let mut r = CallToolResult::text("t");
        r.meta = Some(Meta::new());
        let s = Stamp { server_info: &server_info, cache: None };
        let raw = Reply::CallTool(r).into_raw(Some(&s)).unwrap();
        let value: Value = serde_json::from_str(raw.get()).unwrap();
        assert_eq!(value["_meta"][meta::SERVER_INFO]["name"], "s");
        assert_eq!(value["resultType"], "complete");
    }

    #[test]
    fn stamped_results_are_byte_identical_to_the_tree_stamp() {
        for meta in metas() {
            let mut call = CallToolResult::text("hello \"world\"");
            call.meta = meta.clone();
            check(call.clone(), ResultType::Complete);
            call.structured_content = Some(json!({"b": 1, "a": [true]}));
            call.is_error = Some(true);
            check(call, ResultType::Complete);

            let mut list = ListToolsResult {
                tools: vec![Tool::new("t", Tool::no_parameters_schema())],
                next_cursor: Some("c".into()),
                meta: meta.clone(),
                ..Default::default()
            };
            check(list.clone(), ResultType::Complete);
            // A handler's own cache hint is kept.
            list.ttl_ms = Some(99);
            check(list, ResultType::Complete);

            let discover = DiscoverResult { meta: meta.clone(), ..Default::default() };
            check(discover, ResultType::Complete);
            let read = ReadResourceResult { meta: meta.clone(), ..Default::default() };
            check(read, ResultType::Complete);
            let prompt = GetPromptResult { meta: meta.clone(), ..Default::default() };
            check(prompt, ResultType::Complete);
            let mut input = InputRequiredResult::new();
            input.request_state = Some("s".into());
            input.meta = meta.clone();
            check(input, ResultType::InputRequired);
            let mut empty = EmptyResult { meta: meta.clone(), ..Default::default() };
            empty.extra.insert("zz".into(), json!(1));
            check(empty, ResultType::Complete);
        }
    }
}
#[cfg(test)]
mod size {
    /// A reply is moved several times per request: it stays the size of its common
    /// results (the boxed variants would make it ~640 bytes). Measured against them rather
    /// than a fixed number, so that it holds whichever map serde_json uses (a build that
    /// enables its `preserve_order`, as the CLI does, has larger maps).
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn a_reply_is_no_larger_than_its_common_results() {
        use mcpwire_protocol::prompts::{GetPromptResult, ListPromptsResult};
        use mcpwire_protocol::resources::{ListResourcesResult, ReadResourceResult};
        use mcpwire_protocol::tools::{CallToolResult, ListToolsResult};
        use std::mem::size_of;
        let common = [
            size_of::<ListToolsResult>(),
            size_of::<CallToolResult>(),
            size_of::<ListResourcesResult>(),
            size_of::<ReadResourceResult>(),
            size_of::<ListPromptsResult>(),
            size_of::<GetPromptResult>(),
        ];
        let largest = common.into_iter().max().unwrap_or(0);
        let reply = size_of::<super::Reply>();
        assert!(reply <= largest + 8, "a reply is {reply} bytes, its largest common result {largest}");
    }
}
