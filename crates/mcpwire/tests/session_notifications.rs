//! Change notifications reach 2025 sessions without a task per session: the server keeps
//! its live sessions and queues each `Server::notify` on every one of them. These tests
//! hold that to what clients see: every initialized session gets each list change once,
//! a resource update goes only to its subscribers, a session that has not initialized
//! gets nothing, and a closed session is skipped while the others go on.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use mcpwire::protocol::{Message, Notification, Request, RequestId};
use mcpwire::server::{resource, tool, Server, ServerEvent};
use mcpwire::transport::{memory, Connection, Outgoing, TransportEvent};
use serde_json::{json, Value};

fn server() -> Server {
    Server::builder("notify", "0")
        .tool(tool("t").handler(|| "t"))
        .resource(resource("file:///a", "a").handler(|| async { "a" }))
        .build()
        .unwrap()
}

/// The client end of one stdio-like connection to `server`.
struct Client {
    conn: Connection,
    next: i64,
}

impl Client {
    fn connect(server: &Server) -> Client {
        let (a, b) = memory::pair();
        let server = server.clone();
        tokio::spawn(async move { server.serve(b).await });
        Client { conn: a, next: 1 }
    }

    async fn send(&self, message: Message) {
        self.conn.outgoing.send(Outgoing::new(message, None)).await.unwrap();
    }

    /// Sends a request and returns its result, skipping notifications on the way.
    async fn call(&mut self, method: &str, params: Value) -> Value {
        let id = RequestId::Number(self.next);
        self.next += 1;
        let raw = serde_json::value::to_raw_value(&params).unwrap();
        self.send(Message::Request(Request::new(id.clone(), method, Some(raw)))).await;
        loop {
            match self.message().await.expect("an answer") {
                Message::Response(r) if r.id == id => return serde_json::from_str(r.result.get()).unwrap(),
                Message::Error(e) => panic!("{method}: {e:?}"),
                _ => {}
            }
        }
    }

    async fn initialize(&mut self) {
        let params = json!({
            "protocolVersion": "2025-11-25",
            "capabilities": { "roots": { "listChanged": true } },
            "clientInfo": { "name": "c", "version": "1" },
        });
        self.call("initialize", params).await;
        self.send(Message::Notification(Notification::new("notifications/initialized", None))).await;
        // Once a later request is answered, the server has read `initialized`.
        self.call("ping", json!({})).await;
    }

    /// The next message, or `None` if nothing comes within a short while.
    async fn message(&mut self) -> Option<Message> {
        match tokio::time::timeout(Duration::from_millis(300), self.conn.incoming.recv()).await {
            Ok(Some(TransportEvent::Message(inbound))) => Some(inbound.message),
            _ => None,
        }
    }

    /// The methods of the notifications that arrive before a quiet period.
    async fn notifications(&mut self) -> Vec<String> {
        let mut methods = Vec::new();
        while let Some(message) = self.message().await {
            if let Message::Notification(n) = message {
                methods.push(n.method);
            }
        }
        methods
    }
}

/// `n` clients connected to `server`, each through `initialize`.
async fn initialized(server: &Server, n: usize) -> Vec<Client> {
    let mut clients = Vec::new();
    for _ in 0..n {
        let mut client = Client::connect(server);
        client.initialize().await;
        clients.push(client);
    }
    clients
}

#[tokio::test]
async fn every_initialized_session_gets_each_list_change_once() {
    let server = server();
    let mut clients = initialized(&server, 5).await;
    let mut fresh = Client::connect(&server);
    server.notify(ServerEvent::ToolsChanged);
    server.notify(ServerEvent::ResourcesChanged);
    server.notify(ServerEvent::PromptsChanged);
    for client in &mut clients {
        assert_eq!(
            client.notifications().await,
            ["notifications/tools/list_changed", "notifications/resources/list_changed"],
            "prompts are not announced by a server without prompts"
        );
    }
    assert_eq!(fresh.notifications().await, Vec::<String>::new(), "not initialized: nothing");
    fresh.initialize().await;
    server.notify(ServerEvent::ToolsChanged);
    assert_eq!(fresh.notifications().await, ["notifications/tools/list_changed"]);
}

#[tokio::test]
async fn a_resource_update_goes_to_its_subscribers_only() {
    let server = server();
    let [mut subscriber, mut other] = <[Client; 2]>::try_from(initialized(&server, 2).await).ok().unwrap();
    subscriber.call("resources/subscribe", json!({ "uri": "file:///a" })).await;
    server.notify(ServerEvent::ResourceUpdated("file:///a".into()));
    server.notify(ServerEvent::ResourceUpdated("file:///b".into()));
    assert_eq!(subscriber.notifications().await, ["notifications/resources/updated"]);
    assert_eq!(other.notifications().await, Vec::<String>::new());
    subscriber.call("resources/unsubscribe", json!({ "uri": "file:///a" })).await;
    server.notify(ServerEvent::ResourceUpdated("file:///a".into()));
    assert_eq!(subscriber.notifications().await, Vec::<String>::new());
}

/// The params of the log messages that arrive before a quiet period (anything else
/// fails the test).
async fn log_messages(client: &mut Client) -> Vec<Value> {
    let mut received = Vec::new();
    while let Some(message) = client.message().await {
        let Message::Notification(n) = message else { panic!("not a notification: {message:?}") };
        assert_eq!(n.method, "notifications/message");
        received.push(serde_json::from_str::<Value>(n.params.unwrap().get()).unwrap());
    }
    received
}

/// `Server::log` reaches every 2025 session outside any request, each at its own
/// `logging/setLevel` (a session that set none gets every level).
#[tokio::test]
async fn a_log_message_outside_a_request_goes_to_each_session_at_its_level() {
    use mcpwire::protocol::logging::LoggingLevel;
    let server = server();
    let [mut errors_only, mut everything] =
        <[Client; 2]>::try_from(initialized(&server, 2).await).ok().unwrap();
    errors_only.call("logging/setLevel", json!({ "level": "error" })).await;
    server.log(LoggingLevel::Info, Some("job"), json!({ "step": 1 }));
    server.log(LoggingLevel::Error, None, "failed");
    assert_eq!(log_messages(&mut errors_only).await, [json!({ "level": "error", "data": "failed" })]);
    assert_eq!(
        log_messages(&mut everything).await,
        [
            json!({ "level": "info", "logger": "job", "data": { "step": 1 } }),
            json!({ "level": "error", "data": "failed" }),
        ]
    );
    // A server that offers no logging sends none.
    let quiet =
        Server::builder("quiet", "0").tool(tool("t").handler(|| "t")).without_logging().build().unwrap();
    let [mut client] = <[Client; 1]>::try_from(initialized(&quiet, 1).await).ok().unwrap();
    quiet.log(LoggingLevel::Emergency, None, "x");
    assert_eq!(client.notifications().await, Vec::<String>::new());
}

#[tokio::test]
async fn a_closed_session_is_skipped_and_the_others_go_on() {
    let server = server();
    let [gone, mut staying] = <[Client; 2]>::try_from(initialized(&server, 2).await).ok().unwrap();
    drop(gone);
    tokio::time::sleep(Duration::from_millis(50)).await;
    for _ in 0..3 {
        server.notify(ServerEvent::ToolsChanged);
    }
    assert_eq!(staying.notifications().await.len(), 3);
}

#[tokio::test]
async fn the_client_capabilities_and_identity_read_back_as_sent() {
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Value::Null));
    let record = seen.clone();
    let server = Server::builder("caps", "0")
        .tool(tool("who").handler(move |ctx: mcpwire::server::Ctx| {
            *record.lock().unwrap() = json!({
                "capabilities": serde_json::to_value(ctx.client_capabilities()).unwrap(),
                "clientInfo": serde_json::to_value(ctx.client_info()).unwrap(),
            });
            "ok"
        }))
        .build()
        .unwrap();
    for capabilities in [json!({}), json!({ "roots": { "listChanged": true }, "sampling": {}, "x-extra": 1 })]
    {
        let mut client = Client::connect(&server);
        let info = json!({ "name": "c", "version": "1", "title": "A client" });
        let params =
            json!({ "protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": info });
        client.call("initialize", params).await;
        client.call("tools/call", json!({ "name": "who", "arguments": {} })).await;
        let seen = seen.lock().unwrap().clone();
        assert_eq!(seen, json!({ "capabilities": capabilities, "clientInfo": info }));
    }
}

/// A server built without logging declares no `logging` capability, so it sends no log
/// messages at all: not from a handler's `Ctx::log` on a 2025 session (which asked for
/// no level, so would otherwise get every one) nor on a 2026 request that sets a
/// `logLevel`; and `logging/setLevel`, a request for a capability it lacks, is refused.
#[tokio::test]
async fn a_server_without_logging_logs_nothing_from_its_handlers() {
    use mcpwire::protocol::logging::LoggingLevel;
    let quiet = Server::builder("quiet", "0")
        .tool(tool("loud").handler(|ctx: mcpwire::server::Ctx| async move {
            ctx.log(LoggingLevel::Emergency, "x").await;
            "done"
        }))
        .without_logging()
        .build()
        .unwrap();
    // Every message up to the answer to request `id`, and the answer (result or error).
    async fn until_answer(
        client: &mut Client,
        id: i64,
        method: &str,
        params: Value,
    ) -> (Vec<String>, Message) {
        let raw = serde_json::value::to_raw_value(&params).unwrap();
        client.send(Message::Request(Request::new(RequestId::Number(id), method, Some(raw)))).await;
        let mut notifications = Vec::new();
        loop {
            match client.message().await.expect("an answer") {
                Message::Notification(n) => notifications.push(n.method),
                answer @ (Message::Response(_) | Message::Error(_)) => return (notifications, answer),
                _ => {}
            }
        }
    }
    let [mut session] = <[Client; 1]>::try_from(initialized(&quiet, 1).await).ok().unwrap();
    let (sent, _) = until_answer(&mut session, 100, "tools/call", json!({ "name": "loud" })).await;
    assert_eq!(sent, Vec::<String>::new());
    let (_, answer) = until_answer(&mut session, 101, "logging/setLevel", json!({ "level": "debug" })).await;
    let Message::Error(e) = answer else { panic!("setLevel accepted: {answer:?}") };
    assert_eq!(e.error.code, -32601);
    let mut modern = Client::connect(&quiet);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/logLevel": "debug",
    });
    let (sent, _) =
        until_answer(&mut modern, 1, "tools/call", json!({ "name": "loud", "_meta": meta })).await;
    assert_eq!(sent, Vec::<String>::new());
}
