//! A client whose callbacks record what they were asked and told, with known answers
//! (a sampling reply "Paris", form answers "Ada"/"blue", two roots), so tests over any
//! transport can assert exact values.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcpwire::client::{Client, ClientBuilder, ServerChange};
use mcpwire::protocol::elicitation::{ElicitRequestParams, ElicitResult};
use mcpwire::protocol::logging::{LoggingLevel, LoggingMessageNotificationParams};
use mcpwire::protocol::roots::{ListRootsResult, Root};
use mcpwire::protocol::sampling::CreateMessageResult;
use mcpwire::protocol::tools::CallToolResult;
use serde_json::{json, Value};

/// What the client's callbacks were asked and told.
#[derive(Default)]
pub struct Seen {
    /// Every log message, in order.
    pub logs: Mutex<Vec<LoggingMessageNotificationParams>>,
    /// Every list change or resource update.
    pub changes: Mutex<Vec<ServerChange>>,
    /// The message of every elicitation, in order.
    pub elicitations: Mutex<Vec<String>>,
    /// How many sampling requests were answered.
    pub samplings: AtomicUsize,
    /// How many roots requests were answered.
    pub roots: AtomicUsize,
    /// When set, the elicitation callback never answers.
    pub hang: AtomicBool,
    /// Set when a hanging elicitation callback has started.
    pub hang_started: AtomicBool,
    /// Set when a hanging elicitation callback's future was dropped (the server
    /// cancelled its request, or the client gave up on the call).
    pub hang_dropped: AtomicBool,
}

impl Seen {
    /// The log messages as `(level, logger, data)`.
    pub fn log_entries(&self) -> Vec<(LoggingLevel, Option<String>, Value)> {
        self.logs.lock().unwrap().iter().map(|l| (l.level, l.logger.clone(), l.data.clone())).collect()
    }

    /// The elicitation messages so far.
    pub fn elicitation_messages(&self) -> Vec<String> {
        self.elicitations.lock().unwrap().clone()
    }

    /// Whether `change` was seen.
    pub fn saw_change(&self, change: &ServerChange) -> bool {
        self.changes.lock().unwrap().contains(change)
    }
}

/// Sets [`Seen::hang_dropped`] when dropped.
struct DropFlag(Arc<Seen>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.hang_dropped.store(true, Ordering::SeqCst);
    }
}

/// A form answer: a known value for each property the form asks for.
pub fn answer_form(params: &ElicitRequestParams) -> ElicitResult {
    let request = serde_json::to_value(params).unwrap();
    let mut content = serde_json::Map::new();
    let empty = serde_json::Map::new();
    let properties = request["requestedSchema"]["properties"].as_object().unwrap_or(&empty);
    for name in properties.keys() {
        let value = match name.as_str() {
            "name" => json!("Ada"),
            "colour" | "color" => json!("blue"),
            "response" => json!("yes"),
            "ok" => json!(true),
            "context" => json!("ctx"),
            _ => continue,
        };
        content.insert(name.clone(), value);
    }
    serde_json::from_value(json!({ "action": "accept", "content": content })).unwrap()
}

/// A client builder (`interop-client` 0.0.1) with every callback recording into `seen`.
pub fn recording_client(seen: &Arc<Seen>) -> ClientBuilder {
    let (s1, s2, s3, s4, s5) = (seen.clone(), seen.clone(), seen.clone(), seen.clone(), seen.clone());
    Client::builder("interop-client", "0.0.1")
        .on_sampling(move |_| {
            s1.samplings.fetch_add(1, Ordering::SeqCst);
            async {
                Ok(serde_json::from_value::<CreateMessageResult>(json!({
                    "role": "assistant", "content": { "type": "text", "text": "Paris" }, "model": "test-model"
                }))
                .unwrap())
            }
        })
        .on_elicitation(move |params| {
            let seen = s2.clone();
            async move {
                let message = serde_json::to_value(&params).unwrap()["message"].as_str().unwrap().to_owned();
                seen.elicitations.lock().unwrap().push(message);
                if seen.hang.load(Ordering::SeqCst) {
                    let _flag = DropFlag(seen.clone());
                    seen.hang_started.store(true, Ordering::SeqCst);
                    std::future::pending::<()>().await;
                }
                Ok(answer_form(&params))
            }
        })
        .on_roots(move || {
            s3.roots.fetch_add(1, Ordering::SeqCst);
            async {
                Ok(ListRootsResult {
                    roots: vec![Root::new("file:///tmp/a"), Root::new("file:///tmp/b")],
                    meta: None,
                })
            }
        })
        .on_log(move |log| s4.logs.lock().unwrap().push(log))
        .on_change(move |change| s5.changes.lock().unwrap().push(change))
}

/// The first text of a tool result ("" when there is none).
pub fn first_text(result: &CallToolResult) -> String {
    result.content.first().and_then(|c| c.as_text()).unwrap_or_default().to_owned()
}

/// Waits until `done` holds (or a few seconds pass); returns whether it held.
pub async fn eventually(mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if done() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    done()
}
