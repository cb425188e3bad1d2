//! What a handler's question to the client may hold in the revision its session
//! negotiated. A client may declare a capability that its negotiated revision lacks (one
//! that always declares elicitation, then settles on an older revision): sending it the
//! request anyway would be a method, or a form field, that the client does not know.
//! Likewise what a server says of itself at `initialize` is fitted to the revision.

use mcpwire_protocol::capabilities::ServerCapabilities;
use mcpwire_protocol::common::OneOrMany;
use mcpwire_protocol::content::SamplingContent;
use mcpwire_protocol::elicitation::{ElicitRequestParams, PrimitiveSchemaDefinition};
use mcpwire_protocol::lifecycle::Implementation;
use mcpwire_protocol::sampling::CreateMessageRequestParams;
use mcpwire_protocol::{codes, Era, ProtocolVersion};
use serde_json::json;

use crate::error::McpError;
use crate::random_id::random_id;

/// Refuses an elicitation that `version` cannot carry: `elicitation/create` came in
/// 2025-06-18 and URL mode in 2025-11-25 (`-32601`, naming the capability as an
/// undeclared one is named), and multi-select fields (SEP-1330) in 2025-11-25 (a
/// 2025-06-18 form's fields are string, number, boolean or single-select enum:
/// `-32603`, naming the field). Unknown revisions are not judged. A URL question to a
/// 2025 session gets an `elicitationId` if it has none: that revision requires one, and
/// 2026 has none (a handler written for both eras, or a proxy relaying a 2026 server's
/// question, leaves it out).
pub(crate) fn elicitation(
    version: &ProtocolVersion,
    mut params: ElicitRequestParams,
) -> Result<ElicitRequestParams, McpError> {
    if !version.is_known() {
        return Ok(params);
    }
    let (mode, since) = match &params {
        ElicitRequestParams::Url(_) => ("url", ProtocolVersion::V2025_11_25),
        ElicitRequestParams::Form(_) => ("form", ProtocolVersion::V2025_06_18),
    };
    if !version.is_at_least(&since) {
        return Err(McpError::new(
            codes::METHOD_NOT_FOUND,
            format!("Method not found: {mode} elicitation came in protocol revision {since}; this session uses {version}"),
        )
        .with_data(json!({ "requiredCapabilities": { "elicitation": { mode: {} } } })));
    }
    if let ElicitRequestParams::Url(url) = &mut params {
        if url.elicitation_id.is_none() && version.era() == Some(Era::Stateful) {
            url.elicitation_id = Some(random_id()?);
        }
    }
    let multi_select = ProtocolVersion::V2025_11_25;
    if let ElicitRequestParams::Form(form) = &params {
        let is_multi = |p: &PrimitiveSchemaDefinition| {
            matches!(
                p,
                PrimitiveSchemaDefinition::UntitledMultiSelectEnum(_)
                    | PrimitiveSchemaDefinition::TitledMultiSelectEnum(_)
            )
        };
        if !version.is_at_least(&multi_select) {
            if let Some((name, _)) = form.requested_schema.properties.iter().find(|(_, p)| is_multi(p)) {
                return Err(McpError::new(
                    codes::INTERNAL_ERROR,
                    format!("Internal error: the form's multi-select field {name:?} needs protocol revision {multi_select}; this session uses {version}"),
                ));
            }
        }
    }
    Ok(params)
}

/// A sampling request as `version` can carry it, or why it cannot. Tools in sampling
/// (`tools`, `toolChoice`, tool-use and tool-result blocks) came in 2025-11-25: `-32601`
/// naming `sampling.tools`, the answer a client that lacks that capability gets. Content
/// as an array came in 2025-11-25 too (an array of one is sent as its one block), and
/// audio in 2025-03-26: `-32603`, naming the message. Unknown revisions are not judged.
pub(crate) fn sampling(
    version: &ProtocolVersion,
    mut params: CreateMessageRequestParams,
) -> Result<CreateMessageRequestParams, McpError> {
    let since_tools = ProtocolVersion::V2025_11_25;
    if !version.is_known() || version.is_at_least(&since_tools) {
        return Ok(params);
    }
    let is_tool_block =
        |b: &SamplingContent| matches!(b, SamplingContent::ToolUse(_) | SamplingContent::ToolResult(_));
    let tool_blocks = params.messages.iter().any(|m| m.content.iter().any(is_tool_block));
    if params.tools.is_some() || params.tool_choice.is_some() || tool_blocks {
        return Err(McpError::new(
            codes::METHOD_NOT_FOUND,
            format!("Method not found: tools in sampling came in protocol revision {since_tools}; this session uses {version}"),
        )
        .with_data(json!({ "requiredCapabilities": { "sampling": { "tools": {} } } })));
    }
    let since_audio = ProtocolVersion::V2025_03_26;
    for (i, message) in params.messages.iter_mut().enumerate() {
        if let OneOrMany::Many(blocks) = &mut message.content {
            if blocks.len() == 1 {
                message.content = OneOrMany::One(blocks.remove(0));
            }
        }
        let problem = match &message.content {
            OneOrMany::Many(blocks) => Some(format!(
                "holds {} content blocks; a message of several needs protocol revision {since_tools}",
                blocks.len()
            )),
            content
                if !version.is_at_least(&since_audio)
                    && content.iter().any(|b| matches!(b, SamplingContent::Audio(_))) =>
            {
                Some(format!("holds audio, which needs protocol revision {since_audio}"))
            }
            _ => None,
        };
        if let Some(problem) = problem {
            return Err(McpError::new(
                codes::INTERNAL_ERROR,
                format!("Internal error: sampling message {i} {problem}; this session uses {version}"),
            ));
        }
    }
    Ok(params)
}

/// Fits an `initialize` result's capabilities and server identity to the revision
/// `version` negotiated: no 2025 revision has the 2026 `extensions` capability (a server
/// that relays a 2026 one, or declares extensions by hand, would pass it on),
/// `completions` came in 2025-03-26, an implementation's `title` in 2025-06-18 and its
/// `description`, `icons` and `websiteUrl` in 2025-11-25. Unknown revisions are not
/// judged.
pub(crate) fn initialize(
    version: &ProtocolVersion,
    capabilities: &mut ServerCapabilities,
    info: &mut Implementation,
) {
    if !version.is_known() || version.is_at_least(&ProtocolVersion::V2026_07_28) {
        return;
    }
    capabilities.extensions = None;
    if !version.is_at_least(&ProtocolVersion::V2025_03_26) {
        capabilities.completions = None;
    }
    if !version.is_at_least(&ProtocolVersion::V2025_06_18) {
        info.title = None;
    }
    if !version.is_at_least(&ProtocolVersion::V2025_11_25) {
        (info.description, info.icons, info.website_url) = (None, None, None);
    }
}
