//! A 2025-11-25 client's answers to a server's task-related requests, frame by frame:
//! the questions a server's task asks through `tasks/result` carry the task's
//! `related-task` `_meta`, and so must the client's answers.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;

use common::*;
use mcpwire::client::Client;
use mcpwire::protocol::elicitation::{ElicitResult, ElicitValue};
use mcpwire::protocol::{Message, ProtocolVersion, Response};
use serde_json::json;

/// "All requests, notifications, and responses related to a task MUST include the
/// `io.modelcontextprotocol/related-task` key in their `_meta` field" (2025-11-25): the
/// spec's own flow shows the elicitation response with it.
#[tokio::test]
async fn an_answer_to_a_tasks_question_names_the_task() {
    let (conn, mut raw) = raw_connection();
    let connecting = tokio::spawn(async move {
        Client::builder("c", "1")
            .protocol_version(ProtocolVersion::V2025_11_25)
            .on_elicitation(|_| async {
                Ok(ElicitResult::accept(BTreeMap::from([(
                    "name".to_owned(),
                    ElicitValue::String("Ada".into()),
                )])))
            })
            .connect(conn)
            .await
            .unwrap()
    });
    let Message::Request(init) = raw.next().await else { panic!("expected initialize") };
    let result = json!({ "protocolVersion": "2025-11-25", "capabilities": {},
        "serverInfo": { "name": "s", "version": "1" } });
    raw.send(Response::new(init.id, to_raw(result).unwrap())).await;
    let client = connecting.await.unwrap();
    let related = json!({ "io.modelcontextprotocol/related-task": { "taskId": "t1" } });
    let params = json!({ "message": "Name?", "_meta": related,
        "requestedSchema": { "type": "object", "properties": { "name": { "type": "string" } } } });
    raw.request(7, "elicitation/create", params).await;
    let answer = loop {
        let m = json_of(&raw.next().await);
        if m["id"] == 7 {
            break m;
        }
    };
    assert_eq!(answer["result"]["content"]["name"], "Ada", "{answer}");
    assert_eq!(answer["result"]["_meta"], related, "{answer}");
    drop(client);
}
