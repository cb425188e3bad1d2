//! Every example of the 2026-07-28 schema (`tests/spec/2026-07-28/examples/<TypeName>/`)
//! parses into the Rust type of that name and serializes back to equal JSON.
//!
//! Every folder must have a mapping in `check`: an unmapped folder fails the test, so no
//! example is skipped silently.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::{Path, PathBuf};

use mcpwire_protocol::jsonrpc::{ErrorResponse, MethodCall};
use mcpwire_protocol::*;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

/// Parses `v` (from its text, the way a peer's bytes arrive, and from a `Value`) and
/// serializes the text-parsed value back.
fn round_trip<T: Serialize + DeserializeOwned>(v: &Value) -> Result<Value, String> {
    let text = serde_json::to_string(v).map_err(|e| e.to_string())?;
    let from_text: T = serde_json::from_str(&text).map_err(|e| format!("parse from text: {e}"))?;
    let from_value: T = serde_json::from_value(v.clone()).map_err(|e| format!("parse from Value: {e}"))?;
    let a = serde_json::to_value(&from_text).map_err(|e| format!("serialize: {e}"))?;
    let b = serde_json::to_value(&from_value).map_err(|e| format!("serialize: {e}"))?;
    if a != b {
        return Err(format!("text and Value parses differ:\n{a}\n{b}"));
    }
    Ok(a)
}

type Check = fn(&Value) -> Result<Value, String>;

/// Declares the table: `check(folder)` gives the round trip through the folder's type, and
/// `MAPPED` lists every folder the table names.
macro_rules! table {
    ($($name:literal => $ty:ty,)*) => {
        const MAPPED: &[&str] = &[$($name),*];

        /// The Rust type of each example folder.
        fn check(folder: &str) -> Option<Check> {
            match folder {
                $($name => Some(round_trip::<$ty> as Check),)*
                _ => None,
            }
        }
    };
}

table! {
        "AudioContent" => AudioContent,
        "BlobResourceContents" => BlobResourceContents,
        "BooleanSchema" => BooleanSchema,
        "CallToolRequest" => CallToolRequest,
        "CallToolRequestParams" => CallToolRequestParams,
        "CallToolResult" => CallToolResult,
        "CallToolResultResponse" => CallToolResultResponse,
        "CancelledNotification" => CancelledNotification,
        "CancelledNotificationParams" => CancelledNotificationParams,
        "ClientCapabilities" => ClientCapabilities,
        "CompleteRequest" => CompleteRequest,
        "CompleteRequestParams" => CompleteRequestParams,
        "CompleteResult" => CompleteResult,
        "CompleteResultResponse" => CompleteResultResponse,
        // 2026: the server-to-client request shapes are `{method, params}` only.
        "CreateMessageRequest" => MethodCall<CreateMessageRequestParams>,
        "CreateMessageRequestParams" => CreateMessageRequestParams,
        "CreateMessageResult" => CreateMessageResult,
        "DiscoverRequest" => DiscoverRequest,
        "DiscoverResult" => DiscoverResult,
        "DiscoverResultResponse" => DiscoverResultResponse,
        "ElicitRequest" => MethodCall<ElicitRequestParams>,
        "ElicitRequestFormParams" => ElicitRequestFormParams,
        "ElicitRequestURLParams" => ElicitRequestURLParams,
        "ElicitResult" => ElicitResult,
        "EmbeddedResource" => EmbeddedResource,
        "GetPromptRequest" => GetPromptRequest,
        "GetPromptRequestParams" => GetPromptRequestParams,
        "GetPromptResult" => GetPromptResult,
        "GetPromptResultResponse" => GetPromptResultResponse,
        "HeaderMismatchError" => ErrorResponse,
        "ImageContent" => ImageContent,
        "InputRequests" => InputRequests,
        "InputRequiredResult" => InputRequiredResult,
        "InputResponses" => InputResponses,
        // Bare error objects.
        "InternalError" => ErrorObject,
        "InvalidParamsError" => ErrorObject,
        "ListPromptsRequest" => ListPromptsRequest,
        "ListPromptsResult" => ListPromptsResult,
        "ListPromptsResultResponse" => ListPromptsResultResponse,
        "ListResourceTemplatesRequest" => ListResourceTemplatesRequest,
        "ListResourceTemplatesResult" => ListResourceTemplatesResult,
        "ListResourceTemplatesResultResponse" => ListResourceTemplatesResultResponse,
        "ListResourcesRequest" => ListResourcesRequest,
        "ListResourcesResult" => ListResourcesResult,
        "ListResourcesResultResponse" => ListResourcesResultResponse,
        "ListRootsRequest" => MethodCall<ListRootsRequestParams>,
        "ListRootsResult" => ListRootsResult,
        "ListToolsRequest" => ListToolsRequest,
        "ListToolsResult" => ListToolsResult,
        "ListToolsResultResponse" => ListToolsResultResponse,
        "LoggingMessageNotification" => LoggingMessageNotification,
        "LoggingMessageNotificationParams" => LoggingMessageNotificationParams,
        "MethodNotFoundError" => ErrorObject,
        "MissingRequiredClientCapabilityError" => ErrorResponse,
        "ModelPreferences" => ModelPreferences,
        "NumberSchema" => NumberSchema,
        "PaginatedRequestParams" => PaginatedRequestParams,
        "ParseError" => ErrorObject,
        "ProgressNotification" => ProgressNotification,
        "ProgressNotificationParams" => ProgressNotificationParams,
        "PromptListChangedNotification" => PromptListChangedNotification,
        "ReadResourceRequest" => ReadResourceRequest,
        "ReadResourceResult" => ReadResourceResult,
        "ReadResourceResultResponse" => ReadResourceResultResponse,
        "Resource" => Resource,
        "ResourceLink" => ResourceLink,
        "ResourceListChangedNotification" => ResourceListChangedNotification,
        "ResourceUpdatedNotification" => ResourceUpdatedNotification,
        "ResourceUpdatedNotificationParams" => ResourceUpdatedNotificationParams,
        "Root" => Root,
        "SamplingMessage" => SamplingMessage,
        "ServerCapabilities" => ServerCapabilities,
        "StringSchema" => StringSchema,
        "SubscriptionsAcknowledgedNotification" => SubscriptionsAcknowledgedNotification,
        "SubscriptionsListenRequest" => SubscriptionsListenRequest,
        "SubscriptionsListenResult" => SubscriptionsListenResult,
        "SubscriptionsListenResultResponse" => SubscriptionsListenResultResponse,
        "TextContent" => TextContent,
        "TextResourceContents" => TextResourceContents,
        "TitledMultiSelectEnumSchema" => TitledMultiSelectEnumSchema,
        "TitledSingleSelectEnumSchema" => TitledSingleSelectEnumSchema,
        "Tool" => Tool,
        "ToolListChangedNotification" => ToolListChangedNotification,
        "ToolResultContent" => ToolResultContent,
        "ToolUseContent" => ToolUseContent,
        "UnsupportedProtocolVersionError" => ErrorResponse,
        "UntitledMultiSelectEnumSchema" => UntitledMultiSelectEnumSchema,
        "UntitledSingleSelectEnumSchema" => UntitledSingleSelectEnumSchema,
}

/// Members of an example that are not part of its type and are dropped on purpose, with
/// the reason. The test checks the member is really there, so a fixed example makes the
/// entry fail rather than linger.
const NOT_IN_TYPE: &[(&str, &str, &str)] = &[(
    "ListRootsRequest/list-roots-request.json",
    "id",
    "the 2026 ListRootsRequest is an input request, `{method, params}` only; the example \
     carries a leftover JSON-RPC `id` (and no `jsonrpc`)",
)];

fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/spec/2026-07-28/examples")
}

fn folders() -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(examples_dir())
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_dir())
        .map(|e| e.file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[test]
fn every_example_round_trips_through_its_type() {
    let mut failures = Vec::new();
    let mut files = 0;
    for folder in folders() {
        let Some(check) = check(&folder) else {
            failures.push(format!("{folder}: no Rust type is mapped to this folder"));
            continue;
        };
        let mut paths: Vec<PathBuf> =
            fs::read_dir(examples_dir().join(&folder)).unwrap().map(|e| e.unwrap().path()).collect();
        paths.sort();
        assert!(!paths.is_empty(), "{folder} has no examples");
        for path in paths {
            files += 1;
            let rel = format!("{folder}/{}", path.file_name().unwrap().to_string_lossy());
            let mut input: Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
            for (file, member, _why) in NOT_IN_TYPE {
                if *file == rel {
                    let removed = input.as_object_mut().and_then(|o| o.remove(*member));
                    assert!(removed.is_some(), "{rel}: listed as carrying `{member}`, but it does not");
                }
            }
            match check(&input) {
                Ok(output) if output == input => {}
                Ok(output) => {
                    failures.push(format!("{rel}: round trip differs\n  in:  {input}\n  out: {output}"))
                }
                Err(e) => failures.push(format!("{rel}: {e}")),
            }
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    assert_eq!(files, 129, "the number of example files changed; review the table");
}

#[test]
fn every_mapping_names_an_existing_folder() {
    let existing = folders();
    let stale: Vec<&&str> = MAPPED.iter().filter(|m| !existing.iter().any(|f| f == *m)).collect();
    assert!(stale.is_empty(), "mapped folders that do not exist: {stale:?}");
    assert_eq!(MAPPED.len(), existing.len());
}

fn read(rel: &str) -> Value {
    serde_json::from_slice(&fs::read(examples_dir().join(rel)).unwrap()).unwrap()
}

/// The responses that may carry an `input_required` result also parse through
/// [`Outcome`], landing on the complete variant.
#[test]
fn result_responses_parse_as_outcomes() {
    let r: Response<CallToolOutcome> =
        serde_json::from_value(read("CallToolResultResponse/call-tool-result-response.json")).unwrap();
    assert!(matches!(r.result, Outcome::Complete(_)));
    let r: Response<GetPromptOutcome> =
        serde_json::from_value(read("GetPromptResultResponse/get-prompt-result-response.json")).unwrap();
    assert!(matches!(r.result, Outcome::Complete(_)));
    let r: Response<ReadResourceOutcome> = serde_json::from_value(read(
        "ReadResourceResultResponse/read-resource-result-response-with-ttl.json",
    ))
    .unwrap();
    let Outcome::Complete(result) = r.result else { panic!("not complete") };
    assert_eq!(result.cache_hint(), Some(CacheHint { ttl_ms: 60000, scope: CacheScope::Private }));
    let input: CallToolOutcome = serde_json::from_value(read(
        "InputRequiredResult/input-required-result-with-elicitation-and-sampling-and-request-state.json",
    ))
    .unwrap();
    let Outcome::InputRequired(input) = input else { panic!("not input_required") };
    let requests = input.input_requests.unwrap();
    assert!(matches!(requests["github_login"], InputRequest::Elicit(ElicitRequestParams::Form(_))));
    assert!(matches!(requests["capital_of_france"], InputRequest::CreateMessage(_)));
}

/// Typed views of the examples whose meaning a caller needs.
#[test]
fn typed_details() {
    let e: ErrorResponse = serde_json::from_value(read(
        "MissingRequiredClientCapabilityError/missing-elicitation-capability.json",
    ))
    .unwrap();
    assert_eq!(e.error.code, codes::MISSING_REQUIRED_CLIENT_CAPABILITY);
    let data: MissingRequiredClientCapabilityData = error_data(&e.error).unwrap();
    assert!(data.required_capabilities.elicitation.is_some());

    let e: ErrorResponse =
        serde_json::from_value(read("UnsupportedProtocolVersionError/unsupported-version.json")).unwrap();
    let data: UnsupportedProtocolVersionData = error_data(&e.error).unwrap();
    assert_eq!(data.requested, "1900-01-01");

    let r: CallToolRequest = serde_json::from_value(read("CallToolRequest/call-tool-request.json")).unwrap();
    let params = r.params.unwrap();
    let env = RequestEnvelope::from_meta(params.meta.as_ref()).unwrap();
    assert_eq!(env.protocol_version, ProtocolVersion::V2026_07_28);
    assert_eq!(env.client_info.unwrap().name, "ExampleClient");
    let args: JsonObject = params.arguments().unwrap();
    assert_eq!(args["location"], "New York");

    let ack: SubscriptionsAcknowledgedNotification =
        serde_json::from_value(read("SubscriptionsAcknowledgedNotification/listen-acknowledged.json"))
            .unwrap();
    let params = ack.params.unwrap();
    assert_eq!(subscription_id(params.meta.as_ref()), Some(RequestId::from("listen-1")));
    assert_eq!(params.notifications.tools_list_changed, Some(true));

    let caps: ServerCapabilities =
        serde_json::from_value(read("ServerCapabilities/extensions-tasks.json")).unwrap();
    assert!(caps.supports_tasks_extension());

    let d: DiscoverResult =
        serde_json::from_value(read("DiscoverResult/server-capabilities-discovery.json")).unwrap();
    assert_eq!(d.supported_versions, vec![ProtocolVersion::V2026_07_28]);
    assert_eq!(d.cache_hint(), Some(CacheHint { ttl_ms: 3_600_000, scope: CacheScope::Public }));
}
