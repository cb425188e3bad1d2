//! The server's answers as they came on the wire, for `--json`.
//!
//! The client hands the commands typed results; printing those re-serialized would put
//! the top-level keys (and those of every typed part: capabilities, content blocks,
//! annotations) in the order of mcpwire's structs, not the server's. A [`Tap`] sits
//! between the client and its transport and keeps the raw result of every response;
//! [`Recorder::as_sent`] then prints the raw result that decodes to the typed one the
//! command got, so what is printed is exactly what the server sent, in its order. When
//! no raw answer matches (a result assembled from several exchanges), the typed one is
//! printed.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use mcpwire::protocol::{Message, RawJson, RequestId};
use mcpwire::transport::{Connection, Outgoing, Transport, TransportEvent, DEFAULT_CHANNEL_CAPACITY};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use tokio::sync::mpsc;

/// How many requests may await their answer in the log (more are not recorded).
const MAX_ASKED: usize = 1024;
/// How many answers the log keeps (the oldest go first).
const MAX_ANSWERS: usize = 256;

#[derive(Default)]
struct Log {
    /// Requests sent and not yet answered: their method by id.
    asked: HashMap<RequestId, String>,
    /// Answers in arrival order: the request's method and the raw result.
    answers: VecDeque<(String, RawJson)>,
}

/// Takes the part of a raw answer that holds a result (the whole answer, one field).
pub type Pick = fn(&Value) -> Option<&Value>;

/// The whole answer.
pub fn whole(answer: &Value) -> Option<&Value> {
    Some(answer)
}

/// The raw results of one connection's responses. Cheap to clone.
#[derive(Clone, Default)]
pub struct Recorder(Arc<Mutex<Log>>);

impl Recorder {
    fn lock(&self) -> std::sync::MutexGuard<'_, Log> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn sent(&self, message: &Message) {
        if let Message::Request(request) = message {
            let mut log = self.lock();
            if log.asked.len() < MAX_ASKED {
                log.asked.insert(request.id.clone(), request.method.clone());
            }
        }
    }

    fn received(&self, message: &Message) {
        let mut log = self.lock();
        match message {
            Message::Response(response) => {
                if let Some(method) = log.asked.remove(&response.id) {
                    if log.answers.len() == MAX_ANSWERS {
                        log.answers.pop_front();
                    }
                    log.answers.push_back((method, response.result.clone()));
                }
            }
            Message::Error(error) => {
                if let Some(id) = &error.id {
                    log.asked.remove(id);
                }
            }
            _ => {}
        }
    }

    /// The raw results of `methods`' answers, newest first, with their method.
    fn answers(&self, methods: &[&str]) -> Vec<(String, RawJson)> {
        let log = self.lock();
        log.answers.iter().rev().filter(|(m, _)| methods.contains(&m.as_str())).cloned().collect()
    }

    /// `typed` as the server sent it: the part that a source's `pick` takes from the
    /// newest answer to the source's method that decodes to `typed`; else `typed`
    /// re-serialized.
    pub fn as_sent<T>(&self, sources: &[(&str, Pick)], typed: &T) -> serde_json::Result<Value>
    where
        T: Serialize + DeserializeOwned,
    {
        let want = serde_json::to_value(typed)?;
        let methods: Vec<&str> = sources.iter().map(|(m, _)| *m).collect();
        for (method, raw) in self.answers(&methods) {
            let Ok(answer) = serde_json::from_str::<Value>(raw.get()) else { continue };
            let picks = sources.iter().filter(|(m, _)| *m == method).map(|(_, pick)| pick);
            for part in picks.filter_map(|pick| pick(&answer)) {
                if decodes_to::<T>(part, &want) {
                    return Ok(part.clone());
                }
            }
        }
        Ok(want)
    }

    /// The items of a paged list (`method`'s answers, each with its items under `key`) as
    /// the server sent them, when together they decode to `typed`; else `typed`
    /// re-serialized.
    pub fn list_as_sent<T>(&self, method: &str, key: &str, typed: &[T]) -> serde_json::Result<Vec<Value>>
    where
        T: Serialize + DeserializeOwned,
    {
        let want: Vec<Value> = typed.iter().map(serde_json::to_value).collect::<Result<_, _>>()?;
        let mut pages = self.answers(&[method]);
        pages.reverse();
        let mut items = Vec::new();
        for (_, raw) in pages {
            let Ok(mut page) = serde_json::from_str::<Value>(raw.get()) else { return Ok(want) };
            match page.get_mut(key).map(Value::take) {
                Some(Value::Array(more)) => items.extend(more),
                _ => return Ok(want),
            }
        }
        let same =
            items.len() == want.len() && items.iter().zip(&want).all(|(item, w)| decodes_to::<T>(item, w));
        Ok(if same { items } else { want })
    }
}

/// Whether `raw` decodes as a `T` that serializes to `want`.
fn decodes_to<T: Serialize + DeserializeOwned>(raw: &Value, want: &Value) -> bool {
    serde_json::from_value::<T>(raw.clone()).ok().and_then(|t| serde_json::to_value(t).ok()).as_ref()
        == Some(want)
}

/// A transport whose traffic a [`Recorder`] sees on its way through.
pub struct Tap<T> {
    inner: T,
    recorder: Recorder,
}

impl<T: Transport> Tap<T> {
    /// `inner`, recorded by `recorder`.
    pub fn new(inner: T, recorder: Recorder) -> Self {
        Tap { inner, recorder }
    }
}

impl<T: Transport> Transport for Tap<T> {
    fn connect(self) -> Connection {
        let Connection { incoming: mut from_peer, outgoing: to_peer } = self.inner.connect();
        let (incoming_tx, incoming) = mpsc::channel(DEFAULT_CHANNEL_CAPACITY);
        let (outgoing, mut from_client) = mpsc::channel::<Outgoing>(DEFAULT_CHANNEL_CAPACITY);
        let recorder = self.recorder.clone();
        // Each direction ends when its source closes or its destination is gone, which
        // closes the next channel in turn: the client and the transport see the same
        // ends as without the tap.
        tokio::spawn(async move {
            while let Some(event) = from_peer.recv().await {
                if let TransportEvent::Message(inbound) = &event {
                    recorder.received(&inbound.message);
                }
                if incoming_tx.send(event).await.is_err() {
                    break;
                }
            }
        });
        let recorder = self.recorder;
        tokio::spawn(async move {
            while let Some(out) = from_client.recv().await {
                recorder.sent(out.message());
                if to_peer.send(out).await.is_err() {
                    break;
                }
            }
        });
        Connection { incoming, outgoing }
    }

    fn era_cache_key(&self) -> Option<String> {
        self.inner.era_cache_key()
    }

    fn answers_every_request(&self) -> bool {
        self.inner.answers_every_request()
    }

    fn finished_signal(&self) -> Option<mcpwire::CancellationToken> {
        self.inner.finished_signal()
    }

    fn renewed_session(&self) -> Option<mcpwire::transport::RenewedSession> {
        self.inner.renewed_session()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use mcpwire::protocol::tools::Tool;

    fn message(text: &str) -> Message {
        serde_json::from_str(text).unwrap()
    }

    fn recorded(method: &str, result: &str) -> Recorder {
        let recorder = Recorder::default();
        recorder.sent(&message(&format!(r#"{{"jsonrpc":"2.0","id":7,"method":"{method}","params":{{}}}}"#)));
        recorder.received(&message(&format!(r#"{{"jsonrpc":"2.0","id":7,"result":{result}}}"#)));
        recorder
    }

    fn keys(v: &Value) -> Vec<&str> {
        v.as_object().unwrap().keys().map(String::as_str).collect()
    }

    #[test]
    fn prints_the_matching_answer_in_its_own_order() {
        let raw = r#"{"tools":[{"inputSchema":{"type":"object"},"description":"d","name":"t"}]}"#;
        let recorder = recorded("tools/list", raw);
        let typed: Vec<Tool> = serde_json::from_str::<Value>(raw).unwrap()["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| serde_json::from_value(t.clone()).unwrap())
            .collect();
        let items = recorder.list_as_sent("tools/list", "tools", &typed).unwrap();
        assert_eq!(keys(&items[0]), ["inputSchema", "description", "name"]);
        let one = recorder.as_sent(&[("tools/list", |v| v["tools"].get(0))], &typed[0]).unwrap();
        assert_eq!(keys(&one), ["inputSchema", "description", "name"]);
    }

    #[test]
    fn falls_back_to_the_typed_value_when_no_answer_matches() {
        let recorder =
            recorded("tools/list", r#"{"tools":[{"name":"other","inputSchema":{"type":"object"}}]}"#);
        let typed: Tool = serde_json::from_str(r#"{"name":"t","inputSchema":{"type":"object"}}"#).unwrap();
        let items = recorder.list_as_sent("tools/list", "tools", std::slice::from_ref(&typed)).unwrap();
        assert_eq!(items[0]["name"], "t");
        let one = recorder.as_sent(&[("tools/list", whole)], &typed).unwrap();
        assert_eq!(one["name"], "t");
    }
}
