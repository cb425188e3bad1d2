//! A tool call's result written without serde ([`crate::json_text`]): every answer to
//! `tools/call` of either era goes through here, so its cost is on the path of every
//! call a client waits for.

use mcpwire_protocol::content::ContentBlock;
use mcpwire_protocol::tools::CallToolResult;
use mcpwire_protocol::RawJson;
use serde_json::value::RawValue;

use crate::json_text::JsonText;

const OPEN_2026: &str = "{\"resultType\":\"complete\",\"content\":[";
const OPEN_2025: &str = "{\"content\":[";
const TEXT_OPEN: &str = "{\"type\":\"text\",\"text\":";
const META_OPEN: &str = ",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":";
const IS_ERROR_TRUE: &str = ",\"isError\":true";
const IS_ERROR_FALSE: &str = ",\"isError\":false";
/// Room for a block or a structured result written by serde, a guess.
const SERDE_GUESS: usize = 64;

/// The text serde writes for `result` stamped for its era (see `reply::with`): for
/// 2026 (`server_info` given) `resultType` `complete` first and the server's identity as
/// `_meta` last, for 2025 neither. `None` for a result with a `_meta` of its own (serde
/// merges the identity into it), or if serde fails on a member (serde reports it again).
pub(super) fn call_tool_result(result: &CallToolResult, server_info: Option<&RawValue>) -> Option<RawJson> {
    if result.meta.is_some() {
        return None;
    }
    let mut text = JsonText::with_capacity(length(result, server_info));
    text.token(open(server_info));
    for (i, block) in result.content.iter().enumerate() {
        if i > 0 {
            text.token(",");
        }
        match plain_text(block) {
            Some(s) => {
                text.token(TEXT_OPEN);
                text.string(s);
                text.token("}");
            }
            None => text.value(block).ok()?,
        }
    }
    text.token("]");
    if let Some(value) = &result.structured_content {
        text.token(",\"structuredContent\":");
        text.value(value).ok()?;
    }
    if let Some(member) = is_error(result) {
        text.token(member);
    }
    if let Some(info) = server_info {
        text.token(META_OPEN);
        text.raw(info);
        text.token("}");
    }
    text.token("}");
    Some(text.finish())
}

/// The text's opening: `resultType` first for 2026 (`server_info` given).
fn open(server_info: Option<&RawValue>) -> &'static str {
    if server_info.is_some() {
        OPEN_2026
    } else {
        OPEN_2025
    }
}

/// The `isError` member, if the result has one.
fn is_error(result: &CallToolResult) -> Option<&'static str> {
    result.is_error.map(|e| if e { IS_ERROR_TRUE } else { IS_ERROR_FALSE })
}

/// A text block's text, if the block has nothing else (no annotations, no `_meta`).
fn plain_text(block: &ContentBlock) -> Option<&str> {
    match block {
        ContentBlock::Text(t) if t.annotations.is_none() && t.meta.is_none() => Some(&t.text),
        _ => None,
    }
}

/// The text's length when its strings need no escapes and serde writes nothing (the
/// common case: then the text is written into an allocation of exactly its size, which
/// becomes the result as it is); a guess otherwise.
fn length(result: &CallToolResult, server_info: Option<&RawValue>) -> usize {
    let blocks: usize = result
        .content
        .iter()
        .map(|block| plain_text(block).map_or(SERDE_GUESS, |s| TEXT_OPEN.len() + s.len() + 3))
        .sum();
    let commas = result.content.len().saturating_sub(1);
    let structured = result.structured_content.as_ref().map_or(0, |_| SERDE_GUESS);
    let is_error = is_error(result).map_or(0, str::len);
    let meta = server_info.map_or(0, |info| META_OPEN.len() + info.get().len() + 1);
    open(server_info).len() + blocks + commas + 1 + structured + is_error + meta + 1
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// Text that needs no escapes is written into an allocation of exactly its length
    /// (then made the result without a reallocation); the bytes themselves are checked
    /// against serde's in `reply`'s tests.
    #[test]
    fn plain_results_are_sized_exactly() {
        let info =
            serde_json::value::to_raw_value(&serde_json::json!({"name": "s", "version": "1"})).unwrap();
        let mut results = vec![CallToolResult::text("hello"), CallToolResult::success(vec![])];
        results.push(CallToolResult::success(vec![ContentBlock::text("a"), ContentBlock::text("bc")]));
        results.push(CallToolResult::error("failed"));
        let mut ok = CallToolResult::text("ok");
        ok.is_error = Some(false);
        results.push(ok);
        for r in results {
            for server_info in [Some(&*info), None] {
                let text = call_tool_result(&r, server_info).unwrap();
                assert_eq!(length(&r, server_info), text.get().len(), "{}", text.get());
            }
        }
    }
}
