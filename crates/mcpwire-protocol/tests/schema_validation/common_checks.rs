//! Checks shared by both revisions.

use mcpwire_protocol::jsonrpc::{ErrorResponse, MethodCall};
use mcpwire_protocol::*;
use serde_json::json;

use super::fixtures::*;
use super::Schema;

/// Checks shared by both revisions (with revision-appropriate values).
pub(crate) fn check_common(s: &mut Schema) {
    let m = s.stateless();
    let rmeta = request_meta(m);

    // Content.
    s.check("Annotations", &annotations());
    s.check("TextContent", &text());
    s.check("ImageContent", &image());
    s.check("AudioContent", &audio());
    s.check("ResourceLink", &resource_link());
    s.check("EmbeddedResource", &embedded());
    s.check("EmbeddedResource", &EmbeddedResource::new(blob_contents()));
    for b in content_blocks() {
        s.check("ContentBlock", &b);
    }
    s.check("TextResourceContents", &text_contents());
    s.check("BlobResourceContents", &blob_contents());
    s.check("ResourceContents", &text_contents());
    s.check("ToolUseContent", &tool_use());
    s.check("ToolResultContent", &tool_result(m));
    for c in sampling_contents(m) {
        s.check("SamplingMessageContentBlock", &c);
    }
    s.check("Icon", &icon());
    s.check("Icons", &resource());
    s.check("Role", &Role::Assistant);
    s.check("Implementation", &implementation());
    s.check("BaseMetadata", &prompt());

    // Capabilities.
    s.check("ClientCapabilities", &client_capabilities(m));
    s.check("ClientCapabilities", &ClientCapabilities::default());
    s.check("ServerCapabilities", &server_capabilities(m));

    // Basic shapes.
    s.check("RequestId", &RequestId::from(1));
    s.check("RequestId", &RequestId::from("a"));
    s.check("ProgressToken", &ProgressToken::from("p"));
    s.check("Cursor", &"eyJwYWdlIjogMn0=");
    let empty = EmptyResult { result_type: result_type(m), meta: result_meta(m), ..Default::default() };
    s.check("EmptyResult", &empty);
    s.check("Result", &empty);
    s.check("Error", &ErrorObject::new(codes::INVALID_PARAMS, "bad").with_data(json!({"why": "x"})));
    s.check("RequestParams", &PingRequestParams { meta: rmeta.clone() });
    s.check("NotificationParams", &ToolListChangedNotificationParams { meta: notification_meta(m) });
    s.check("Request", &MethodCall { method: "tools/list".into(), params: Some(json!({"_meta": rmeta})) });
    s.check("Notification", &MethodCall { method: "notifications/x".into(), params: Some(json!({})) });

    // Pagination and lists.
    let paginated = PaginatedRequestParams { meta: rmeta.clone(), cursor: Some(String::new()) };
    s.check("PaginatedRequestParams", &paginated);
    s.check("PaginatedRequest", &Request::new(3, "tools/list", Some(paginated.clone())));
    let list_tools = ListToolsResult {
        result_type: result_type(m),
        tools: vec![tool(m), Tool::new("noop", Tool::no_parameters_schema())],
        next_cursor: Some("next".into()),
        ttl_ms: m.then_some(300_000),
        cache_scope: m.then_some(CacheScope::Public),
        meta: result_meta(m),
    };
    s.check("Tool", &tool(m));
    s.check("ToolAnnotations", &tool(m).annotations.unwrap());
    s.check("ListToolsRequest", &req(1, ListToolsRequestParams::from(paginated.clone())));
    s.check("ListToolsResult", &list_tools);
    s.check("PaginatedResult", &list_tools);

    // Tools.
    let args = obj(json!({"city": "Paris", "days": 3}));
    let call = CallToolRequestParams {
        meta: rmeta.clone(),
        task: task_metadata(m),
        input_responses: m.then(input_responses),
        request_state: m.then(|| "opaque-state".into()),
        ..CallToolRequestParams::new("get_weather", args)
    };
    s.check("CallToolRequestParams", &call);
    s.check("CallToolRequest", &req(2, call.clone()));
    let result = CallToolResult {
        result_type: result_type(m),
        content: content_blocks(),
        structured_content: Some(structured(m)),
        is_error: Some(false),
        meta: result_meta(m),
    };
    s.check("CallToolResult", &result);
    s.check(
        "CallToolResult",
        &CallToolResult { result_type: result_type(m), ..CallToolResult::error("bad date") },
    );

    // Resources.
    s.check("Resource", &resource());
    s.check("ResourceTemplate", &resource_template());
    s.check("ListResourcesRequest", &req(4, ListResourcesRequestParams::from(paginated.clone())));
    s.check(
        "ListResourcesResult",
        &ListResourcesResult {
            result_type: result_type(m),
            resources: vec![resource()],
            next_cursor: Some("n".into()),
            ttl_ms: m.then_some(0),
            cache_scope: m.then_some(CacheScope::Private),
            meta: result_meta(m),
        },
    );
    s.check(
        "ListResourceTemplatesRequest",
        &req(5, ListResourceTemplatesRequestParams::from(paginated.clone())),
    );
    s.check(
        "ListResourceTemplatesResult",
        &ListResourceTemplatesResult {
            result_type: result_type(m),
            resource_templates: vec![resource_template()],
            next_cursor: None,
            ttl_ms: m.then_some(60_000),
            cache_scope: m.then_some(CacheScope::Public),
            meta: result_meta(m),
        },
    );
    let read = ReadResourceRequestParams {
        meta: rmeta.clone(),
        input_responses: m.then(input_responses),
        request_state: m.then(|| "s".into()),
        ..ReadResourceRequestParams::new("file:///README.md")
    };
    s.check("ReadResourceRequestParams", &read);
    s.check("ReadResourceRequest", &req(6, read));
    s.check(
        "ResourceRequestParams",
        &ReadResourceRequestParams { meta: rmeta.clone(), ..ReadResourceRequestParams::new("file:///x") },
    );
    s.check(
        "ReadResourceResult",
        &ReadResourceResult {
            result_type: result_type(m),
            contents: vec![text_contents().into(), blob_contents().into()],
            ttl_ms: m.then_some(60_000),
            cache_scope: m.then_some(CacheScope::Private),
            meta: result_meta(m),
        },
    );
    let updated =
        ResourceUpdatedNotificationParams { uri: "file:///README.md".into(), meta: notification_meta(m) };
    s.check("ResourceUpdatedNotificationParams", &updated);
    s.check("ResourceUpdatedNotification", &note(updated));
    s.check(
        "ResourceListChangedNotification",
        &note(ResourceListChangedNotificationParams { meta: notification_meta(m) }),
    );

    // Prompts.
    s.check("Prompt", &prompt());
    s.check("PromptArgument", &prompt().arguments.unwrap()[0]);
    s.check("ListPromptsRequest", &req(7, ListPromptsRequestParams::from(paginated.clone())));
    s.check(
        "ListPromptsResult",
        &ListPromptsResult {
            result_type: result_type(m),
            prompts: vec![prompt()],
            next_cursor: Some("c".into()),
            ttl_ms: m.then_some(1),
            cache_scope: m.then_some(CacheScope::Public),
            meta: result_meta(m),
        },
    );
    let get = GetPromptRequestParams {
        arguments: Some([("code".to_owned(), "print(1)".to_owned())].into_iter().collect()),
        meta: rmeta.clone(),
        input_responses: m.then(input_responses),
        request_state: m.then(|| "s".into()),
        ..GetPromptRequestParams::new("code_review")
    };
    s.check("GetPromptRequestParams", &get);
    s.check("GetPromptRequest", &req(8, get));
    let messages: Vec<PromptMessage> = content_blocks()
        .into_iter()
        .map(|content| PromptMessage { role: Role::User, content })
        .chain([PromptMessage::text(Role::Assistant, "ok")])
        .collect();
    for msg in &messages {
        s.check("PromptMessage", msg);
    }
    s.check(
        "GetPromptResult",
        &GetPromptResult {
            result_type: result_type(m),
            description: Some("Review".into()),
            messages,
            meta: result_meta(m),
        },
    );
    s.check(
        "PromptListChangedNotification",
        &note(PromptListChangedNotificationParams { meta: notification_meta(m) }),
    );
    s.check(
        "ToolListChangedNotification",
        &note(ToolListChangedNotificationParams { meta: notification_meta(m) }),
    );

    // Completion.
    let prompt_ref =
        PromptReference { name: "code_review".into(), title: Some("Review".into()), ..Default::default() };
    let resource_ref = ResourceTemplateReference { uri: "file:///{path}".into(), ..Default::default() };
    s.check("PromptReference", &prompt_ref);
    s.check("ResourceTemplateReference", &resource_ref);
    for reference in [CompletionReference::Prompt(prompt_ref), CompletionReference::Resource(resource_ref)] {
        let p = CompleteRequestParams {
            reference,
            argument: CompletionArgument { name: "language".into(), value: "py".into() },
            context: Some(CompletionContext {
                arguments: Some([("framework".to_owned(), "flask".to_owned())].into_iter().collect()),
            }),
            meta: rmeta.clone(),
        };
        s.check("CompleteRequestParams", &p);
        s.check("CompleteRequest", &req(9, p));
    }
    s.check(
        "CompleteResult",
        &CompleteResult {
            result_type: result_type(m),
            completion: Completion { values: vec!["python".into()], total: Some(10), has_more: Some(true) },
            meta: result_meta(m),
        },
    );

    // Logging.
    for level in LoggingLevel::ALL {
        s.check("LoggingLevel", &level);
    }
    let log = LoggingMessageNotificationParams {
        logger: Some("db".into()),
        meta: notification_meta(m),
        ..LoggingMessageNotificationParams::new(LoggingLevel::Error, json!({"error": "down", "port": 5432}))
    };
    s.check("LoggingMessageNotificationParams", &log);
    s.check("LoggingMessageNotification", &note(log));

    // Progress and cancellation.
    let progress = ProgressNotificationParams {
        message: Some("halfway".into()),
        meta: notification_meta(m),
        ..ProgressNotificationParams::new("tok-1", 50.0, Some(100.0))
    };
    s.check("ProgressNotificationParams", &progress);
    s.check("ProgressNotification", &note(progress.clone()));
    let cancelled = CancelledNotificationParams {
        meta: Some(obj(json!({"com.example/c": 1}))),
        ..CancelledNotificationParams::new(RequestId::from(3), Some("user".into()))
    };
    s.check("CancelledNotificationParams", &cancelled);
    s.check("CancelledNotification", &note(cancelled.clone()));

    // Sampling.
    s.check("ModelPreferences", &create_message_params(m).model_preferences.unwrap());
    s.check("ModelHint", &ModelHint { name: Some("sonnet".into()) });
    s.check("ToolChoice", &ToolChoice { mode: Some(ToolChoiceMode::Required) });
    s.check("SamplingMessage", &sampling_message_one(m));
    s.check("SamplingMessage", &sampling_message_many(m));
    s.check("CreateMessageRequestParams", &create_message_params(m));
    s.check("CreateMessageResult", &create_message_result(m));
    s.check(
        "CreateMessageResult",
        &CreateMessageResult {
            content: OneOrMany::One(SamplingContent::text("Paris")),
            stop_reason: Some(StopReason::EndTurn),
            ..create_message_result(m)
        },
    );

    // Elicitation.
    s.check("StringSchema", &string_schema());
    s.check("NumberSchema", &number_schema());
    s.check("BooleanSchema", &boolean_schema());
    s.check("UntitledSingleSelectEnumSchema", &untitled_single());
    s.check("TitledSingleSelectEnumSchema", &titled_single());
    s.check("UntitledMultiSelectEnumSchema", &untitled_multi());
    s.check("TitledMultiSelectEnumSchema", &titled_multi());
    s.check("LegacyTitledEnumSchema", &legacy_enum());
    s.check("SingleSelectEnumSchema", &untitled_single());
    s.check("SingleSelectEnumSchema", &titled_single());
    s.check("MultiSelectEnumSchema", &untitled_multi());
    s.check("MultiSelectEnumSchema", &titled_multi());
    for e in enum_schemas() {
        s.check("EnumSchema", &e);
    }
    for f in field_schemas() {
        s.check("PrimitiveSchemaDefinition", &f);
    }
    s.check("ElicitRequestFormParams", &form_params(m));
    s.check("ElicitRequestURLParams", &url_params(m));
    s.check("ElicitRequestParams", &ElicitRequestParams::from(form_params(m)));
    s.check("ElicitRequestParams", &ElicitRequestParams::from(url_params(m)));
    s.check("ElicitResult", &elicit_result());
    s.check("ElicitResult", &ElicitResult::action(ElicitAction::Decline));

    // Roots.
    s.check("Root", &roots_result().roots[0]);
    s.check("ListRootsResult", &roots_result());

    // Whole messages against the generic JSON-RPC definitions.
    let ping = Request::new(1, methods::PING, Some(PingRequestParams { meta: rmeta.clone() }));
    s.check("JSONRPCRequest", &ping);
    s.check("JSONRPCNotification", &note(progress));
    s.check("JSONRPCResultResponse", &resp("a", &list_tools));
    let err = ErrorResponse::new(Some(RequestId::from(1)), ErrorObject::new(codes::METHOD_NOT_FOUND, "nope"));
    s.check("JSONRPCErrorResponse", &err);
    s.check(
        "JSONRPCErrorResponse",
        &ErrorResponse::new(None, ErrorObject::new(codes::PARSE_ERROR, "Parse error")),
    );
    s.check("JSONRPCResponse", &err);
    s.check("JSONRPCResponse", &resp("b", &result));
    s.check("JSONRPCMessage", &req(10, call));
    s.check("JSONRPCMessage", &note(cancelled));
    s.check("JSONRPCMessage", &resp("c", &result));
    s.check("JSONRPCMessage", &err);
    // A decoded message re-serialized validates too.
    let decoded = decode_message(br#"{"jsonrpc":"2.0","id":"x","method":"tools/list","params":{}}"#).unwrap();
    s.check("JSONRPCMessage", &decoded);
}
