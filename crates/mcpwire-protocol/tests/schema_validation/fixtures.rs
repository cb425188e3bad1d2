//! Builders of well-filled values. `m` is true for 2026-07-28 (the stateless era), false for
//! 2025-11-25.

use std::collections::BTreeMap;

use mcpwire_protocol::*;
use serde_json::{json, Map, Value};

pub(crate) fn obj(v: Value) -> JsonObject {
    v.as_object().unwrap().clone()
}

pub(crate) fn request_meta(m: bool) -> Option<Meta> {
    if m {
        let caps = ClientCapabilities {
            elicitation: Some(ElicitationCapability { form: Some(Map::new()), ..Default::default() }),
            ..Default::default()
        };
        let mut meta = request_envelope(
            &ProtocolVersion::V2026_07_28,
            &caps,
            Some(&implementation()),
            Some(LoggingLevel::Info),
        );
        meta.insert("progressToken".into(), json!("tok-1"));
        Some(meta)
    } else {
        Some(obj(json!({"progressToken": 7, "com.example/trace": "abc"})))
    }
}

pub(crate) fn result_type(m: bool) -> Option<ResultType> {
    m.then_some(ResultType::Complete)
}

pub(crate) fn result_meta(m: bool) -> Option<Meta> {
    if m {
        Some(obj(json!({"io.modelcontextprotocol/serverInfo": {"name": "srv", "version": "1.0"}})))
    } else {
        Some(obj(json!({"com.example/x": 1})))
    }
}

pub(crate) fn notification_meta(m: bool) -> Option<Meta> {
    if m {
        Some(subscription_meta(&RequestId::from("listen-1")))
    } else {
        Some(obj(json!({"com.example/n": true})))
    }
}

pub(crate) fn icon() -> Icon {
    Icon {
        src: "https://example.com/icon.png".into(),
        mime_type: Some("image/png".into()),
        sizes: Some(vec!["48x48".into(), "any".into()]),
        theme: Some(IconTheme::Dark),
    }
}

pub(crate) fn implementation() -> Implementation {
    Implementation {
        name: "example".into(),
        version: "1.2.3".into(),
        title: Some("Example".into()),
        description: Some("An example implementation".into()),
        icons: Some(vec![icon()]),
        website_url: Some("https://example.com".into()),
    }
}

pub(crate) fn annotations() -> Annotations {
    Annotations {
        audience: Some(vec![Role::User, Role::Assistant]),
        priority: Some(0.5),
        last_modified: Some("2025-05-03T14:30:00Z".into()),
    }
}

pub(crate) fn item_meta() -> Option<Meta> {
    Some(obj(json!({"com.example/k": "v"})))
}

pub(crate) fn text() -> TextContent {
    TextContent {
        text: "hello".into(),
        annotations: Some(annotations()),
        meta: item_meta(),
        ..Default::default()
    }
}

pub(crate) fn image() -> ImageContent {
    ImageContent {
        annotations: Some(annotations()),
        meta: item_meta(),
        ..ImageContent::new("iVBORw0KGgo=", "image/png")
    }
}

pub(crate) fn audio() -> AudioContent {
    AudioContent {
        annotations: Some(annotations()),
        meta: item_meta(),
        ..AudioContent::new("UklGRiQ=", "audio/wav")
    }
}

pub(crate) fn resource_link() -> ResourceLink {
    ResourceLink {
        title: Some("Main".into()),
        description: Some("Entry point".into()),
        mime_type: Some("text/x-rust".into()),
        size: Some(1024),
        icons: Some(vec![icon()]),
        annotations: Some(annotations()),
        meta: item_meta(),
        ..ResourceLink::new("file:///src/main.rs", "main.rs")
    }
}

pub(crate) fn text_contents() -> TextResourceContents {
    TextResourceContents {
        uri: "file:///a.txt".into(),
        mime_type: Some("text/plain".into()),
        text: "contents".into(),
        meta: item_meta(),
    }
}

pub(crate) fn blob_contents() -> BlobResourceContents {
    BlobResourceContents {
        uri: "file:///a.png".into(),
        mime_type: Some("image/png".into()),
        blob: "iVBORw0KGgo=".into(),
        meta: item_meta(),
    }
}

pub(crate) fn embedded() -> EmbeddedResource {
    EmbeddedResource {
        annotations: Some(annotations()),
        meta: item_meta(),
        ..EmbeddedResource::new(text_contents())
    }
}

pub(crate) fn content_blocks() -> Vec<ContentBlock> {
    vec![
        text().into(),
        image().into(),
        audio().into(),
        resource_link().into(),
        embedded().into(),
        EmbeddedResource::new(blob_contents()).into(),
    ]
}

pub(crate) fn structured(m: bool) -> Value {
    if m {
        json!([{"id": 1, "score": 0.5}, "any JSON"])
    } else {
        json!({"temperature": 22.5, "conditions": "cloudy"})
    }
}

pub(crate) fn tool_use() -> ToolUseContent {
    ToolUseContent {
        id: "call_1".into(),
        name: "get_weather".into(),
        input: obj(json!({"city": "Paris"})),
        meta: item_meta(),
        ..Default::default()
    }
}

pub(crate) fn tool_result(m: bool) -> ToolResultContent {
    ToolResultContent {
        tool_use_id: "call_1".into(),
        content: vec![ContentBlock::text("18C")],
        structured_content: Some(structured(m)),
        is_error: Some(false),
        meta: item_meta(),
        ..Default::default()
    }
}

pub(crate) fn sampling_contents(m: bool) -> Vec<SamplingContent> {
    vec![
        SamplingContent::Text(text()),
        SamplingContent::Image(image()),
        SamplingContent::Audio(audio()),
        SamplingContent::ToolUse(tool_use()),
        SamplingContent::ToolResult(tool_result(m)),
    ]
}

pub(crate) fn tool(m: bool) -> Tool {
    let input_schema = obj(json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"city": {"type": "string", "x-mcp-header": "City"}, "days": {"type": "integer"}},
        "required": ["city"]
    }));
    let mut input_schema = input_schema;
    if m {
        // 2026 allows any 2020-12 keyword at the root.
        input_schema.insert("$defs".into(), json!({"d": {"$anchor": "d", "type": "integer"}}));
        input_schema.insert("additionalProperties".into(), json!(false));
    }
    let output_schema = if m {
        obj(json!({"type": "array", "items": {"type": "object"}}))
    } else {
        obj(
            json!({"type": "object", "properties": {"temperature": {"type": "number"}}, "required": ["temperature"]}),
        )
    };
    Tool {
        name: "get_weather".into(),
        title: Some("Weather".into()),
        description: Some("Get the weather".into()),
        input_schema,
        output_schema: Some(output_schema),
        annotations: Some(ToolAnnotations {
            title: Some("Weather".into()),
            read_only_hint: Some(true),
            destructive_hint: Some(false),
            idempotent_hint: Some(true),
            open_world_hint: Some(true),
        }),
        execution: (!m).then_some(ToolExecution { task_support: Some(TaskSupport::Optional) }),
        icons: Some(vec![icon()]),
        meta: item_meta(),
    }
}

pub(crate) fn client_capabilities(m: bool) -> ClientCapabilities {
    ClientCapabilities {
        experimental: Some(obj(json!({"com.example/feature": {"enabled": true}}))),
        roots: Some(RootsCapability { list_changed: (!m).then_some(true), ..Default::default() }),
        sampling: Some(SamplingCapability {
            context: Some(Map::new()),
            tools: Some(Map::new()),
            ..Default::default()
        }),
        elicitation: Some(ElicitationCapability {
            form: Some(Map::new()),
            url: Some(Map::new()),
            ..Default::default()
        }),
        tasks: (!m).then(|| ClientTasksCapability {
            list: Some(Map::new()),
            cancel: Some(Map::new()),
            requests: Some(ClientTaskRequests {
                sampling: Some(TaskSamplingRequests { create_message: Some(Map::new()), ..Default::default() }),
                elicitation: Some(TaskElicitationRequests { create: Some(Map::new()), ..Default::default() }),
                ..Default::default()
            }),
            ..Default::default()
        }),
        extensions: m.then(|| obj(json!({"io.modelcontextprotocol/tasks": {}, "io.modelcontextprotocol/ui": {"mimeTypes": ["text/html"]}}))),
        ..Default::default()
    }
}

pub(crate) fn server_capabilities(m: bool) -> ServerCapabilities {
    ServerCapabilities {
        experimental: Some(obj(json!({"com.example/feature": {}}))),
        logging: Some(Map::new()),
        completions: Some(Map::new()),
        prompts: Some(PromptsCapability { list_changed: Some(true), ..Default::default() }),
        resources: Some(ResourcesCapability {
            subscribe: Some(true),
            list_changed: Some(true),
            ..Default::default()
        }),
        tools: Some(ToolsCapability { list_changed: Some(true), ..Default::default() }),
        tasks: (!m).then(|| ServerTasksCapability {
            list: Some(Map::new()),
            cancel: Some(Map::new()),
            requests: Some(ServerTaskRequests {
                tools: Some(TaskToolsRequests { call: Some(Map::new()), ..Default::default() }),
                ..Default::default()
            }),
            ..Default::default()
        }),
        extensions: m.then(|| obj(json!({"io.modelcontextprotocol/tasks": {}}))),
        ..Default::default()
    }
}

pub(crate) fn string_schema() -> StringSchema {
    StringSchema {
        title: Some("Email".into()),
        description: Some("Your email".into()),
        min_length: Some(3),
        max_length: Some(50),
        format: Some(StringFormat::Email),
        default: Some("a@example.com".into()),
        ..Default::default()
    }
}

pub(crate) fn number_schema() -> NumberSchema {
    NumberSchema {
        kind: NumberType::Integer,
        title: Some("Age".into()),
        description: Some("Your age".into()),
        minimum: Some(0.0),
        maximum: Some(150.0),
        default: Some(30.0),
    }
}

pub(crate) fn boolean_schema() -> BooleanSchema {
    BooleanSchema {
        title: Some("Subscribe".into()),
        description: Some("Get mail".into()),
        default: Some(false),
        ..Default::default()
    }
}

pub(crate) fn options() -> Vec<EnumOption> {
    vec![
        EnumOption { value: "#FF0000".into(), title: "Red".into() },
        EnumOption { value: "#00FF00".into(), title: "Green".into() },
    ]
}

pub(crate) fn untitled_single() -> UntitledSingleSelectEnumSchema {
    UntitledSingleSelectEnumSchema {
        title: Some("Color".into()),
        description: Some("Pick one".into()),
        values: vec!["Red".into(), "Green".into()],
        default: Some("Red".into()),
        ..Default::default()
    }
}

pub(crate) fn titled_single() -> TitledSingleSelectEnumSchema {
    TitledSingleSelectEnumSchema {
        title: Some("Color".into()),
        description: Some("Pick one".into()),
        one_of: options(),
        default: Some("#FF0000".into()),
        ..Default::default()
    }
}

pub(crate) fn untitled_multi() -> UntitledMultiSelectEnumSchema {
    UntitledMultiSelectEnumSchema {
        title: Some("Colors".into()),
        description: Some("Pick some".into()),
        min_items: Some(1),
        max_items: Some(2),
        items: UntitledEnumItems { values: vec!["Red".into(), "Green".into()], ..Default::default() },
        default: Some(vec!["Red".into()]),
        ..Default::default()
    }
}

pub(crate) fn titled_multi() -> TitledMultiSelectEnumSchema {
    TitledMultiSelectEnumSchema {
        title: Some("Colors".into()),
        description: Some("Pick some".into()),
        min_items: Some(1),
        max_items: Some(2),
        items: TitledEnumItems { any_of: options() },
        default: Some(vec!["#FF0000".into()]),
        ..Default::default()
    }
}

pub(crate) fn legacy_enum() -> LegacyTitledEnumSchema {
    LegacyTitledEnumSchema {
        title: Some("Color".into()),
        description: Some("Pick one".into()),
        values: vec!["r".into(), "g".into()],
        enum_names: Some(vec!["Red".into(), "Green".into()]),
        default: Some("r".into()),
        ..Default::default()
    }
}

pub(crate) fn field_schemas() -> Vec<PrimitiveSchemaDefinition> {
    use PrimitiveSchemaDefinition as P;
    vec![
        P::String(string_schema()),
        P::Number(number_schema()),
        P::Boolean(boolean_schema()),
        P::UntitledSingleSelectEnum(untitled_single()),
        P::TitledSingleSelectEnum(titled_single()),
        P::UntitledMultiSelectEnum(untitled_multi()),
        P::TitledMultiSelectEnum(titled_multi()),
        P::LegacyTitledEnum(legacy_enum()),
    ]
}

pub(crate) fn enum_schemas() -> Vec<PrimitiveSchemaDefinition> {
    field_schemas().into_iter().skip(3).collect()
}

pub(crate) fn task_metadata(m: bool) -> Option<TaskMetadata> {
    (!m).then_some(TaskMetadata { ttl: Some(60_000) })
}

pub(crate) fn form_params(m: bool) -> ElicitRequestFormParams {
    let properties: ElicitationProperties =
        field_schemas().into_iter().enumerate().map(|(i, f)| (format!("field{i}"), f)).collect();
    ElicitRequestFormParams {
        mode: Some(tags::Form),
        message: "Please fill in".into(),
        requested_schema: ElicitationSchema {
            schema: Some("https://json-schema.org/draft/2020-12/schema".into()),
            kind: tags::Object,
            properties,
            required: Some(vec!["field0".into()]),
        },
        task: task_metadata(m),
        meta: (!m).then(|| obj(json!({"progressToken": "p"}))),
    }
}

pub(crate) fn url_params(m: bool) -> ElicitRequestURLParams {
    ElicitRequestURLParams {
        mode: tags::Url,
        message: "Open this".into(),
        url: "https://example.com/consent".into(),
        elicitation_id: (!m).then(|| "el-1".into()),
        task: task_metadata(m),
        meta: (!m).then(|| obj(json!({"progressToken": "p"}))),
    }
}

pub(crate) fn elicit_result() -> ElicitResult {
    let content: BTreeMap<String, ElicitValue> = [
        ("name".to_owned(), ElicitValue::from("octocat")),
        ("age".to_owned(), ElicitValue::from(30)),
        ("subscribe".to_owned(), ElicitValue::from(true)),
        ("colors".to_owned(), ElicitValue::StringArray(vec!["Red".into()])),
    ]
    .into_iter()
    .collect();
    ElicitResult { meta: item_meta(), ..ElicitResult::accept(content) }
}

pub(crate) fn sampling_message_one(m: bool) -> SamplingMessage {
    let _ = m;
    SamplingMessage {
        role: Role::User,
        content: OneOrMany::One(SamplingContent::Text(text())),
        meta: item_meta(),
    }
}

pub(crate) fn sampling_message_many(m: bool) -> SamplingMessage {
    SamplingMessage {
        role: Role::Assistant,
        content: OneOrMany::Many(sampling_contents(m)),
        meta: item_meta(),
    }
}

pub(crate) fn create_message_params(m: bool) -> CreateMessageRequestParams {
    CreateMessageRequestParams {
        messages: vec![sampling_message_one(m), sampling_message_many(m)],
        model_preferences: Some(ModelPreferences {
            hints: Some(vec![ModelHint { name: Some("claude".into()) }]),
            cost_priority: Some(0.3),
            speed_priority: Some(0.8),
            intelligence_priority: Some(0.5),
        }),
        system_prompt: Some("Be brief.".into()),
        include_context: Some(IncludeContext::ThisServer),
        temperature: Some(0.7),
        max_tokens: 100,
        stop_sequences: Some(vec!["\n\n".into()]),
        metadata: Some(obj(json!({"provider": {"beta": true}}))),
        tools: Some(vec![tool(m)]),
        tool_choice: Some(ToolChoice { mode: Some(ToolChoiceMode::Auto) }),
        task: task_metadata(m),
        meta: (!m).then(|| obj(json!({"progressToken": 1}))),
    }
}

pub(crate) fn create_message_result(m: bool) -> CreateMessageResult {
    CreateMessageResult {
        role: Role::Assistant,
        content: OneOrMany::Many(vec![SamplingContent::Text(text()), SamplingContent::ToolUse(tool_use())]),
        model: "claude-3-sonnet".into(),
        stop_reason: Some(if m { StopReason::ToolUse } else { StopReason::Other("refusal".into()) }),
        meta: item_meta(),
    }
}

pub(crate) fn roots_result() -> ListRootsResult {
    ListRootsResult {
        roots: vec![Root { uri: "file:///home/u/p".into(), name: Some("Project".into()), meta: item_meta() }],
        meta: item_meta(),
    }
}

pub(crate) fn resource() -> Resource {
    Resource {
        title: Some("README".into()),
        description: Some("Docs".into()),
        mime_type: Some("text/markdown".into()),
        size: Some(2048),
        icons: Some(vec![icon()]),
        annotations: Some(annotations()),
        meta: item_meta(),
        ..Resource::new("file:///README.md", "README.md")
    }
}

pub(crate) fn resource_template() -> ResourceTemplate {
    ResourceTemplate {
        uri_template: "file:///{path}".into(),
        name: "files".into(),
        title: Some("Files".into()),
        description: Some("Project files".into()),
        mime_type: Some("application/octet-stream".into()),
        icons: Some(vec![icon()]),
        annotations: Some(annotations()),
        meta: item_meta(),
    }
}

pub(crate) fn prompt() -> Prompt {
    Prompt {
        name: "code_review".into(),
        title: Some("Code review".into()),
        description: Some("Review code".into()),
        arguments: Some(vec![PromptArgument {
            name: "code".into(),
            title: Some("Code".into()),
            description: Some("The code".into()),
            required: Some(true),
        }]),
        icons: Some(vec![icon()]),
        meta: item_meta(),
    }
}

pub(crate) fn input_requests() -> InputRequests {
    [
        ("form".to_owned(), InputRequest::Elicit(form_params(true).into())),
        ("url".to_owned(), InputRequest::Elicit(url_params(true).into())),
        ("sample".to_owned(), InputRequest::CreateMessage(create_message_params(true))),
        ("roots".to_owned(), InputRequest::ListRoots(Some(ListRootsRequestParams { meta: item_meta() }))),
        ("roots-bare".to_owned(), InputRequest::ListRoots(None)),
    ]
    .into_iter()
    .collect()
}

pub(crate) fn input_responses() -> InputResponses {
    [
        ("form".to_owned(), InputResponse::Elicit(elicit_result())),
        ("url".to_owned(), InputResponse::Elicit(ElicitResult::action(ElicitAction::Accept))),
        ("sample".to_owned(), InputResponse::CreateMessage(create_message_result(true))),
        ("roots".to_owned(), InputResponse::ListRoots(roots_result())),
    ]
    .into_iter()
    .collect()
}

pub(crate) fn task(status: TaskStatus) -> Task {
    Task {
        task_id: "786512e2".into(),
        status,
        status_message: Some("working on it".into()),
        created_at: "2025-11-25T10:30:00Z".into(),
        last_updated_at: "2025-11-25T10:40:00Z".into(),
        ttl: Some(60_000),
        poll_interval: Some(5_000),
    }
}

pub(crate) fn req<P: RequestParams>(id: i64, params: P) -> Request<P> {
    Request::new(id, P::METHOD, Some(params))
}

pub(crate) fn note<P: NotificationParams>(params: P) -> Notification<P> {
    Notification::new(P::METHOD, Some(params))
}

pub(crate) fn resp<R>(id: &str, result: R) -> Response<R> {
    Response::new(RequestId::from(id), result)
}
