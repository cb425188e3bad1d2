//! Checks of one revision only.

use mcpwire_protocol::jsonrpc::{ErrorResponse, MethodCall};
use mcpwire_protocol::*;
use serde_json::{json, Map};

use super::fixtures::*;
use super::Schema;

/// 2025-11-25 only: the handshake, ping, subscribe, setLevel, the server-to-client
/// requests as JSON-RPC requests, URL elicitation errors and core tasks.
pub(crate) fn check_2025(s: &mut Schema) {
    let rmeta = request_meta(false);
    let init = InitializeRequestParams {
        protocol_version: ProtocolVersion::V2025_11_25,
        capabilities: client_capabilities(false),
        client_info: implementation(),
        meta: rmeta.clone(),
    };
    s.check("InitializeRequestParams", &init);
    s.check("InitializeRequest", &req(1, init.clone()));
    s.check("ClientRequest", &req(1, init));
    let init_result = InitializeResult {
        protocol_version: ProtocolVersion::V2025_11_25,
        capabilities: server_capabilities(false),
        server_info: implementation(),
        instructions: Some("Use get_weather.".into()),
        meta: result_meta(false),
    };
    s.check("InitializeResult", &init_result);
    s.check("ServerResult", &init_result);
    let initialized = note(InitializedNotificationParams { meta: Some(obj(json!({"k": 1}))) });
    s.check("InitializedNotification", &initialized);
    s.check("ClientNotification", &initialized);
    s.check(
        "InitializedNotification",
        &Notification::<InitializedNotificationParams>::new(methods::INITIALIZED, None),
    );
    s.check("PingRequest", &req(2, PingRequestParams::default()));
    s.check("PingRequest", &Request::<PingRequestParams>::new(2, methods::PING, None));

    let sub = SubscribeRequestParams { uri: "file:///a".into(), meta: rmeta.clone() };
    s.check("SubscribeRequestParams", &sub);
    s.check("SubscribeRequest", &req(3, sub));
    let unsub = UnsubscribeRequestParams { uri: "file:///a".into(), meta: rmeta.clone() };
    s.check("UnsubscribeRequestParams", &unsub);
    s.check("UnsubscribeRequest", &req(4, unsub));
    let level = SetLevelRequestParams { level: LoggingLevel::Warning, meta: rmeta.clone() };
    s.check("SetLevelRequestParams", &level);
    s.check("SetLevelRequest", &req(5, level));

    // Server-to-client requests.
    let sampling = req(6, create_message_params(false));
    s.check("CreateMessageRequest", &sampling);
    s.check("ServerRequest", &sampling);
    s.check("ClientResult", &create_message_result(false));
    s.check("ElicitRequest", &req(7, ElicitRequestParams::from(form_params(false))));
    s.check("ElicitRequest", &req(7, ElicitRequestParams::from(url_params(false))));
    s.check("ListRootsRequest", &req(8, ListRootsRequestParams { meta: rmeta.clone() }));
    s.check("ListRootsRequest", &Request::<ListRootsRequestParams>::new(8, methods::ROOTS_LIST, None));
    s.check("RootsListChangedNotification", &note(RootsListChangedNotificationParams::default()));
    let complete = ElicitationCompleteNotificationParams { elicitation_id: "el-1".into(), meta: None };
    s.check("ElicitationCompleteNotification", &note(complete));
    s.check("ServerNotification", &note(LoggingMessageNotificationParams::new(LoggingLevel::Info, "hi")));
    let url_required = UrlElicitationRequiredData { elicitations: vec![url_params(false)] };
    let err = ErrorObject::new(codes::URL_ELICITATION_REQUIRED, "Open the URL first")
        .with_data(serde_json::to_value(url_required).unwrap());
    s.check("URLElicitationRequiredError", &ErrorResponse::new(Some(RequestId::from(9)), err));

    // Core tasks.
    s.check("TaskMetadata", &TaskMetadata { ttl: Some(1000) });
    s.check("RelatedTaskMetadata", &RelatedTaskMetadata { task_id: "t".into() });
    s.check(
        "TaskAugmentedRequestParams",
        &CallToolRequestParams {
            task: task_metadata(false),
            meta: rmeta.clone(),
            ..CallToolRequestParams::without_arguments("x")
        },
    );
    s.check("ToolExecution", &ToolExecution { task_support: Some(TaskSupport::Required) });
    for status in [
        TaskStatus::Working,
        TaskStatus::InputRequired,
        TaskStatus::Completed,
        TaskStatus::Failed,
        TaskStatus::Cancelled,
    ] {
        s.check("TaskStatus", &status);
        s.check("Task", &task(status));
    }
    s.check(
        "Task",
        &Task { ttl: None, poll_interval: None, status_message: None, ..task(TaskStatus::Working) },
    );
    let mut immediate = Meta::new();
    immediate.insert(meta::MODEL_IMMEDIATE_RESPONSE.into(), json!("Started; check back soon."));
    s.check("CreateTaskResult", &CreateTaskResult { task: task(TaskStatus::Working), meta: Some(immediate) });
    let get = GetTaskRequestParams { task_id: "t".into(), meta: None };
    s.check("GetTaskRequest", &req(10, get));
    let got = GetTaskResult { task: task(TaskStatus::InputRequired), meta: result_meta(false) };
    s.check("GetTaskResult", &got);
    s.check("CancelTaskResult", &GetTaskResult { task: task(TaskStatus::Cancelled), meta: None });
    s.check("CancelTaskRequest", &req(11, CancelTaskRequestParams { task_id: "t".into(), meta: None }));
    s.check(
        "GetTaskPayloadRequest",
        &req(12, GetTaskPayloadRequestParams { task_id: "t".into(), meta: None }),
    );
    let payload: GetTaskPayloadResult = serde_json::from_value(json!({
        "content": [{"type": "text", "text": "done"}],
        "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "t"}}
    }))
    .unwrap();
    s.check("GetTaskPayloadResult", &payload);
    s.check("ListTasksRequest", &req(13, ListTasksRequestParams::with_cursor("c")));
    s.check(
        "ListTasksResult",
        &ListTasksResult {
            tasks: vec![task(TaskStatus::Completed)],
            next_cursor: Some("n".into()),
            meta: None,
        },
    );
    let status = TaskStatusNotificationParams { task: task(TaskStatus::Failed), meta: Some(Meta::new()) };
    s.check("TaskStatusNotificationParams", &status);
    s.check("TaskStatusNotification", &note(status));
}

/// 2026-07-28 only: discover, the response definitions, MRTR, listen, the new errors,
/// the `_meta` objects and the `{method, params}` input requests.
pub(crate) fn check_2026(s: &mut Schema) {
    let rmeta = request_meta(true);
    let discover = DiscoverRequestParams { meta: rmeta.clone() };
    s.check("DiscoverRequest", &req(1, discover));
    let discovered = DiscoverResult {
        result_type: Some(ResultType::Complete),
        supported_versions: vec![ProtocolVersion::V2026_07_28, ProtocolVersion::V2025_11_25],
        capabilities: server_capabilities(true),
        instructions: Some("Prefer get_weather.".into()),
        ttl_ms: Some(3_600_000),
        cache_scope: Some(CacheScope::Public),
        meta: result_meta(true),
    };
    s.check("DiscoverResult", &discovered);
    s.check("DiscoverResultResponse", &resp("d", &discovered));
    s.check("CacheableResult", &discovered);
    s.check("ServerResult", &discovered);
    s.check("ClientRequest", &req(1, DiscoverRequestParams { meta: rmeta.clone() }));
    s.check("ClientNotification", &note(CancelledNotificationParams::new(RequestId::from(1), None)));
    s.check("ClientResult", &EmptyResult::complete());

    // Response definitions.
    let call_result =
        CallToolResult { result_type: Some(ResultType::Complete), ..CallToolResult::text("ok") };
    s.check("CallToolResultResponse", &resp("1", &call_result));
    let input_required = InputRequiredResult {
        input_requests: Some(input_requests()),
        request_state: Some("eyJzIjoxfQ".into()),
        meta: result_meta(true),
        ..InputRequiredResult::new()
    };
    s.check("CallToolResultResponse", &resp("1", &input_required));
    s.check("CallToolResultResponse", &resp("1", &CallToolOutcome::InputRequired(input_required.clone())));
    let get_prompt = GetPromptResult {
        result_type: Some(ResultType::Complete),
        description: None,
        messages: vec![PromptMessage::text(Role::User, "hi")],
        meta: None,
    };
    s.check("GetPromptResultResponse", &resp("2", &get_prompt));
    s.check("GetPromptResultResponse", &resp("2", &input_required));
    let read = ReadResourceResult {
        result_type: Some(ResultType::Complete),
        contents: vec![text_contents().into()],
        ttl_ms: Some(0),
        cache_scope: Some(CacheScope::Private),
        meta: None,
    };
    s.check("ReadResourceResultResponse", &resp("3", &read));
    s.check("ReadResourceResultResponse", &resp("3", &InputRequiredResult::new().with_state("only-state")));
    let complete = CompleteResult {
        result_type: Some(ResultType::Complete),
        completion: Completion { values: vec![], total: None, has_more: None },
        meta: None,
    };
    s.check("CompleteResultResponse", &resp("4", &complete));
    let cacheable = |ttl| (Some(ttl), Some(CacheScope::Public));
    let (ttl_ms, cache_scope) = cacheable(10);
    s.check(
        "ListToolsResultResponse",
        &resp(
            "5",
            ListToolsResult {
                result_type: Some(ResultType::Complete),
                tools: vec![],
                next_cursor: None,
                ttl_ms,
                cache_scope,
                meta: None,
            },
        ),
    );
    s.check(
        "ListPromptsResultResponse",
        &resp(
            "6",
            ListPromptsResult {
                result_type: Some(ResultType::Complete),
                prompts: vec![],
                next_cursor: None,
                ttl_ms,
                cache_scope,
                meta: None,
            },
        ),
    );
    s.check(
        "ListResourcesResultResponse",
        &resp(
            "7",
            ListResourcesResult {
                result_type: Some(ResultType::Complete),
                resources: vec![],
                next_cursor: None,
                ttl_ms,
                cache_scope,
                meta: None,
            },
        ),
    );
    s.check(
        "ListResourceTemplatesResultResponse",
        &resp(
            "8",
            ListResourceTemplatesResult {
                result_type: Some(ResultType::Complete),
                resource_templates: vec![],
                next_cursor: None,
                ttl_ms,
                cache_scope,
                meta: None,
            },
        ),
    );

    // MRTR.
    s.check("InputRequiredResult", &input_required);
    s.check("InputRequiredResult", &InputRequiredResult::new().with_state("s"));
    s.check("ServerResult", &input_required);
    s.check("InputRequests", &input_requests());
    for r in input_requests().values() {
        s.check("InputRequest", r);
    }
    s.check("InputResponses", &input_responses());
    for r in input_responses().values() {
        s.check("InputResponse", r);
    }
    s.check(
        "InputResponseRequestParams",
        &InputResponseRequestParams {
            input_responses: Some(input_responses()),
            request_state: Some("s".into()),
            meta: rmeta.clone(),
        },
    );
    s.check("ResultType", &ResultType::InputRequired);
    s.check(
        "ElicitRequest",
        &MethodCall {
            method: methods::ELICITATION_CREATE.into(),
            params: Some(ElicitRequestParams::from(form_params(true))),
        },
    );
    s.check(
        "CreateMessageRequest",
        &MethodCall {
            method: methods::SAMPLING_CREATE_MESSAGE.into(),
            params: Some(create_message_params(true)),
        },
    );
    s.check(
        "ListRootsRequest",
        &MethodCall {
            method: methods::ROOTS_LIST.into(),
            params: Some(ListRootsRequestParams { meta: item_meta() }),
        },
    );
    s.check(
        "ListRootsRequest",
        &MethodCall::<ListRootsRequestParams> { method: methods::ROOTS_LIST.into(), params: None },
    );

    // Listen.
    let filter = SubscriptionFilter {
        tools_list_changed: Some(true),
        prompts_list_changed: Some(true),
        resources_list_changed: Some(false),
        resource_subscriptions: Some(vec!["file:///config.json".into()]),
        ..Default::default()
    };
    s.check("SubscriptionFilter", &filter);
    let listen = SubscriptionsListenRequestParams { notifications: filter.clone(), meta: rmeta.clone() };
    s.check("SubscriptionsListenRequestParams", &listen);
    s.check("SubscriptionsListenRequest", &req(20, listen));
    let ack =
        SubscriptionsAcknowledgedNotificationParams { notifications: filter, meta: notification_meta(true) };
    s.check("SubscriptionsAcknowledgedNotificationParams", &ack);
    s.check("SubscriptionsAcknowledgedNotification", &note(ack.clone()));
    s.check("ServerNotification", &note(ack));
    let closed = SubscriptionsListenResult::closed(&RequestId::from(20));
    s.check("SubscriptionsListenResult", &closed);
    s.check("SubscriptionsListenResultMetaObject", &closed.meta);
    s.check("SubscriptionsListenResultResponse", &Response::new(RequestId::from(20), &closed));

    // `_meta` objects.
    s.check("RequestMetaObject", &rmeta);
    s.check("ResultMetaObject", &result_meta(true));
    s.check("NotificationMetaObject", &notification_meta(true));
    s.check("MetaObject", &item_meta());

    // JSON values as the 2026 schema defines them (no floats or nulls in JSONValue).
    s.check_value("JSONValue", &json!({"a": [1, "b", true, {"c": []}]}));
    s.check_value("JSONObject", &json!({"a": {"b": 1}}));
    s.check_value("JSONArray", &json!([1, "two", [false]]));

    // Errors.
    let id = Some(RequestId::from(1));
    s.check("ParseError", &ErrorObject::new(codes::PARSE_ERROR, "Parse error"));
    s.check("InvalidRequestError", &ErrorObject::new(codes::INVALID_REQUEST, "Invalid request"));
    s.check("MethodNotFoundError", &ErrorObject::new(codes::METHOD_NOT_FOUND, "Method not found"));
    s.check("InvalidParamsError", &ErrorObject::new(codes::INVALID_PARAMS, "Unknown tool: x"));
    s.check("InternalError", &ErrorObject::new(codes::INTERNAL_ERROR, "Internal error"));
    s.check(
        "HeaderMismatchError",
        &ErrorResponse::new(id.clone(), ErrorObject::new(codes::HEADER_MISMATCH, "Mcp-Name mismatch")),
    );
    let missing = MissingRequiredClientCapabilityData {
        required_capabilities: ClientCapabilities::default()
            .with_extension(meta::TASKS_EXTENSION, Map::new()),
    };
    s.check(
        "MissingRequiredClientCapabilityError",
        &ErrorResponse::new(id.clone(), missing.into_error("Missing required client capability")),
    );
    let unsupported = UnsupportedProtocolVersionData {
        supported: vec!["2026-07-28".into(), "2025-11-25".into()],
        requested: "1900-01-01".into(),
    };
    s.check(
        "UnsupportedProtocolVersionError",
        &ErrorResponse::new(id, unsupported.into_error("Unsupported protocol version")),
    );
}
