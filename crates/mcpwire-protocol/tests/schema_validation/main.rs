//! Well-filled values of every type, serialized and validated against `#/$defs/<TypeName>`
//! of the 2025-11-25 and 2026-07-28 `schema.json`, plus whole JSON-RPC messages against
//! `JSONRPCMessage`. The 2026 tasks extension is not in `schema.json`; its types are
//! checked by round trip instead.
//!
//! Coverage is enforced: every definition of each schema must be checked at least once or
//! be listed in `NOT_CHECKED` with a reason.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use mcpwire_protocol::{tasks_ext, *};
use serde::Serialize;
use serde_json::{json, Map, Value};

/// One revision's schema, with compiled validators cached per definition.
struct Schema {
    rev: &'static str,
    defs: Map<String, Value>,
    validators: HashMap<String, jsonschema::Validator>,
    covered: BTreeSet<String>,
    failures: Vec<String>,
    checks: usize,
}

impl Schema {
    fn load(rev: &'static str) -> Schema {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/spec/{rev}/schema.json"));
        let schema: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        let defs = schema["$defs"].as_object().unwrap().clone();
        Schema {
            rev,
            defs,
            validators: HashMap::new(),
            covered: BTreeSet::new(),
            failures: Vec::new(),
            checks: 0,
        }
    }

    fn stateless(&self) -> bool {
        self.rev == "2026-07-28"
    }

    /// Validates `value` against `#/$defs/<def>`.
    fn check<T: Serialize>(&mut self, def: &str, value: &T) {
        let instance = serde_json::to_value(value).unwrap();
        self.check_value(def, &instance);
    }

    fn check_value(&mut self, def: &str, instance: &Value) {
        self.checks += 1;
        if !self.defs.contains_key(def) {
            self.failures.push(format!("{}: no definition {def}", self.rev));
            return;
        }
        self.covered.insert(def.to_owned());
        if !self.validators.contains_key(def) {
            let wrapper = json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "$ref": format!("#/$defs/{def}"),
                "$defs": self.defs,
            });
            let v = jsonschema::validator_for(&wrapper).unwrap();
            self.validators.insert(def.to_owned(), v);
        }
        let validator = &self.validators[def];
        let errors: Vec<String> =
            validator.iter_errors(instance).take(4).map(|e| format!("at {}: {e}", e.instance_path)).collect();
        if !errors.is_empty() {
            self.failures.push(format!(
                "{} {def}: {}\n    instance: {instance}",
                self.rev,
                errors.join("; ")
            ));
        }
    }
}

/// Definitions not checked on their own, with the reason.
const NOT_CHECKED: &[(&str, &str)] = &[];

mod common_checks;
mod era_checks;
mod fixtures;

use common_checks::check_common;
use era_checks::{check_2025, check_2026};
use fixtures::*;

fn finish(s: &Schema) {
    let not_checked: BTreeSet<&str> = NOT_CHECKED.iter().map(|(d, _)| *d).collect();
    let missing: Vec<&String> =
        s.defs.keys().filter(|d| !s.covered.contains(*d) && !not_checked.contains(d.as_str())).collect();
    let mut problems = s.failures.clone();
    if !missing.is_empty() {
        problems.push(format!("{}: definitions never checked: {missing:?}", s.rev));
    }
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
    eprintln!("{}: {} checks over {} definitions", s.rev, s.checks, s.covered.len());
}

#[test]
fn values_validate_against_2025_11_25() {
    let mut s = Schema::load("2025-11-25");
    check_common(&mut s);
    check_2025(&mut s);
    finish(&s);
}

#[test]
fn values_validate_against_2026_07_28() {
    let mut s = Schema::load("2026-07-28");
    check_common(&mut s);
    check_2026(&mut s);
    finish(&s);
}

/// A negative control: the validators do reject what the schema forbids, so a passing
/// check means something.
#[test]
fn the_validator_rejects_invalid_values() {
    let mut s = Schema::load("2026-07-28");
    s.check_value("CallToolResult", &json!({"content": []}));
    s.check_value("ListToolsResult", &json!({"resultType": "complete", "tools": []}));
    s.check_value("TextContent", &json!({"type": "image", "text": "x"}));
    s.check_value("CallToolRequestParams", &json!({"name": "x"}));
    assert_eq!(s.failures.len(), 4, "{:#?}", s.failures);
    let mut s = Schema::load("2025-11-25");
    s.check_value("CallToolResult", &json!({"content": [], "structuredContent": [1]}));
    s.check_value("ElicitRequestURLParams", &json!({"mode": "url", "message": "m", "url": "https://x"}));
    assert_eq!(s.failures.len(), 2, "{:#?}", s.failures);
}

/// The 2026 tasks extension is not in `schema.json`: its types are checked by round trip
/// against the shapes of SEP-2663.
#[test]
fn tasks_extension_types_round_trip() {
    fn round_trip<T: Serialize + serde::de::DeserializeOwned>(v: Value) {
        let t: T = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(serde_json::to_value(&t).unwrap(), v);
    }
    let base = json!({
        "taskId": "786512e2-9e0d-44bd-8f29-789f320fe840",
        "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:40:00Z",
        "ttlMs": 60000, "pollIntervalMs": 5000
    });
    let with = |extra: Value| {
        let mut v = base.clone();
        v.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        v
    };
    round_trip::<tasks_ext::CreateTaskResult>(with(
        json!({"resultType": "task", "status": "working", "statusMessage": "The operation is now in progress."}),
    ));
    round_trip::<tasks_ext::Task>(with(json!({"status": "working", "ttlMs": null})));
    round_trip::<tasks_ext::GetTaskResult>(with(
        json!({"resultType": "complete", "status": "input_required",
        "inputRequests": {"name": {"method": "elicitation/create", "params": {"mode": "form",
            "message": "Please enter your name.", "requestedSchema": {"type": "object",
            "properties": {"name": {"type": "string"}}, "required": ["name"]}}}}}),
    ));
    round_trip::<tasks_ext::TaskNotification>(json!({
        "jsonrpc": "2.0", "method": "notifications/tasks",
        "params": with(json!({"status": "completed", "_meta": {"io.modelcontextprotocol/subscriptionId": "listen-1"},
            "result": {"content": [{"type": "text", "text": "Operation completed successfully."}], "isError": false}}))
    }));
    round_trip::<tasks_ext::GetTaskRequest>(json!({
        "jsonrpc": "2.0", "id": 3, "method": "tasks/get", "params": {"taskId": "786512e2"}
    }));
    round_trip::<tasks_ext::UpdateTaskRequest>(json!({
        "jsonrpc": "2.0", "id": 6, "method": "tasks/update",
        "params": {"taskId": "786512e2", "inputResponses": {"name": {"action": "accept", "content": {"input": "Luca"}}}}
    }));
    round_trip::<tasks_ext::CancelTaskRequest>(json!({
        "jsonrpc": "2.0", "id": 8, "method": "tasks/cancel", "params": {"taskId": "786512e2"}
    }));
    round_trip::<Response<tasks_ext::UpdateTaskResult>>(
        json!({"jsonrpc": "2.0", "id": 6, "result": {"resultType": "complete"}}),
    );
    round_trip::<SubscriptionsListenRequestParams>(json!({"notifications": {"taskIds": ["786512e2"]}}));
    // A tools/call answered with a task.
    let outcome: CallToolOutcome =
        serde_json::from_value(with(json!({"resultType": "task", "status": "working"}))).unwrap();
    assert!(matches!(outcome, Outcome::Task(_)));
    assert_eq!(<tasks_ext::GetTaskRequestParams as RequestParams>::METHOD, "tasks/get");
    assert_eq!(<tasks_ext::DetailedTask as NotificationParams>::METHOD, "notifications/tasks");
}

/// The same types serve the three older revisions: values using only the members those
/// revisions know validate against their (draft-07) schemas.
#[test]
fn older_revisions_accept_the_same_types() {
    for rev in ["2024-11-05", "2025-03-26", "2025-06-18"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/spec/{rev}/schema.json"));
        let schema: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        let defs = schema["definitions"].clone();
        let mut failures = Vec::new();
        let mut check = |def: &str, value: Value| {
            let wrapper = json!({
                "$schema": "http://json-schema.org/draft-07/schema#",
                "allOf": [{"$ref": format!("#/definitions/{def}")}],
                "definitions": defs,
            });
            let validator = jsonschema::validator_for(&wrapper).unwrap();
            let errors: Vec<String> = validator.iter_errors(&value).take(3).map(|e| e.to_string()).collect();
            if !errors.is_empty() {
                failures.push(format!("{rev} {def}: {errors:?}\n    {value}"));
            }
        };
        let v = |x: &dyn erased::Ser| x.value();
        let caps = ClientCapabilities {
            roots: Some(RootsCapability { list_changed: Some(true), ..Default::default() }),
            sampling: Some(SamplingCapability::default()),
            ..Default::default()
        };
        let init = InitializeRequestParams {
            protocol_version: ProtocolVersion::parse(rev),
            capabilities: caps,
            client_info: Implementation::new("c", "1"),
            meta: None,
        };
        check("InitializeRequest", v(&req(1, init)));
        let server_caps = ServerCapabilities {
            logging: Some(Map::new()),
            tools: Some(ToolsCapability { list_changed: Some(true), ..Default::default() }),
            resources: Some(ResourcesCapability { subscribe: Some(true), ..Default::default() }),
            ..Default::default()
        };
        let init_result = InitializeResult {
            protocol_version: ProtocolVersion::parse(rev),
            capabilities: server_caps,
            server_info: Implementation::new("s", "1"),
            instructions: Some("hi".into()),
            meta: None,
        };
        check("InitializeResult", v(&init_result));
        let tool = Tool {
            description: Some("adds".into()),
            ..Tool::new("add", obj(json!({"type": "object", "properties": {"a": {"type": "number"}}})))
        };
        check("ListToolsResult", v(&ListToolsResult { tools: vec![tool], ..Default::default() }));
        let call = CallToolRequestParams::new("add", obj(json!({"a": 1})));
        check("CallToolRequest", v(&req(2, call)));
        let image = ImageContent {
            annotations: Some(Annotations { priority: Some(1.0), ..Default::default() }),
            ..ImageContent::new("AA==", "image/png")
        };
        let result = CallToolResult::success(vec![
            ContentBlock::text("3"),
            image.into(),
            EmbeddedResource::new(text_contents()).into(),
        ]);
        check("CallToolResult", v(&CallToolResult { meta: None, ..result }));
        check(
            "ReadResourceResult",
            v(&ReadResourceResult {
                contents: vec![ResourceContents::text("file:///a", "x")],
                ..Default::default()
            }),
        );
        check(
            "GetPromptResult",
            v(&GetPromptResult {
                messages: vec![PromptMessage::text(Role::User, "hi")],
                ..Default::default()
            }),
        );
        let sampling = CreateMessageRequestParams {
            messages: vec![SamplingMessage { meta: None, ..SamplingMessage::text(Role::User, "hi") }],
            max_tokens: 10,
            include_context: Some(IncludeContext::None),
            ..Default::default()
        };
        check("CreateMessageRequest", v(&req(3, sampling)));
        check(
            "CreateMessageResult",
            v(&CreateMessageResult {
                role: Role::Assistant,
                content: OneOrMany::One(SamplingContent::text("Paris")),
                model: "m".into(),
                stop_reason: Some(StopReason::EndTurn),
                meta: None,
            }),
        );
        let complete = CompleteRequestParams {
            reference: CompletionReference::Resource(ResourceTemplateReference {
                uri: "file:///{p}".into(),
                ..Default::default()
            }),
            argument: CompletionArgument { name: "p".into(), value: "a".into() },
            context: None,
            meta: None,
        };
        check("CompleteRequest", v(&req(4, complete)));
        check("ProgressNotification", v(&note(ProgressNotificationParams::new(1, 0.5, None))));
        check(
            "LoggingMessageNotification",
            v(&note(LoggingMessageNotificationParams::new(LoggingLevel::Debug, "x"))),
        );
        check("CancelledNotification", v(&note(CancelledNotificationParams::new(RequestId::from(1), None))));
        check("ListRootsResult", v(&ListRootsResult { roots: vec![Root::new("file:///r")], meta: None }));
        check("PingRequest", v(&Request::<PingRequestParams>::new(5, methods::PING, None)));
        if rev == "2025-06-18" {
            let form = ElicitRequestFormParams {
                message: "m".into(),
                requested_schema: ElicitationSchema {
                    properties: [(
                        "c".to_owned(),
                        PrimitiveSchemaDefinition::LegacyTitledEnum(LegacyTitledEnumSchema {
                            values: vec!["a".into()],
                            enum_names: Some(vec!["A".into()]),
                            ..Default::default()
                        }),
                    )]
                    .into_iter()
                    .collect(),
                    ..Default::default()
                },
                ..Default::default()
            };
            check("ElicitRequest", v(&req(6, ElicitRequestParams::from(form))));
            // No multi-select (string array) values before 2025-11-25.
            let content =
                [("name".to_owned(), ElicitValue::from("octocat")), ("age".to_owned(), ElicitValue::from(3))];
            check("ElicitResult", v(&ElicitResult::accept(content.into_iter().collect())));
            check("ResourceLink", v(&ResourceLink::new("file:///a", "a")));
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}

/// Object-safe serialization to a `Value`, so one closure can take any value.
mod erased {
    pub trait Ser {
        fn value(&self) -> serde_json::Value;
    }
    impl<T: serde::Serialize> Ser for T {
        fn value(&self) -> serde_json::Value {
            serde_json::to_value(self).unwrap()
        }
    }
}
