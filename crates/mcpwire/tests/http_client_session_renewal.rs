//! A 2025 session the server forgot (404) is replaced by a new `initialize` exchange; the
//! requests after it carry the new session's id and the version negotiated for it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod raw_http_server;

use std::sync::{Arc, Mutex};

use mcpwire::client::Client;
use mcpwire::protocol::ProtocolVersion;
use mcpwire::transport::http_client::HttpClientTransport;
use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;

/// The value of header `name` in a request head.
fn header(head: &str, name: &str) -> Option<String> {
    head.split("\r\n").find_map(|line| {
        let (n, v) = line.split_once(':')?;
        n.trim().eq_ignore_ascii_case(name).then(|| v.trim().to_owned())
    })
}

/// How the forgetful server answers the `initialize` of the session that replaces the
/// first.
#[derive(Clone, Copy)]
enum Renewal {
    /// A JSON body, with session id `s1`.
    Json,
    /// An SSE stream left open after the answer.
    OpenStream,
    /// A JSON body, with a session id of 5,001 characters.
    LongId,
}

/// A server whose first session (`s0`, 2025-11-25, with tools and prompts, version 1 and
/// instructions; its tool `t` has an output schema) is forgotten after one `tools/list`,
/// as if it restarted: its
/// `initialize` then negotiates 2025-06-18 for session `s1`, as version 2 offering tools
/// only, without instructions. Records the session id and
/// `MCP-Protocol-Version` of each `tools/list` it answers. `renewal` says how the second
/// `initialize` is answered.
async fn forgetful_server(seen: Arc<Mutex<Vec<(String, String)>>>, renewal: Renewal) -> String {
    let sessions = Arc::new(Mutex::new(0));
    raw_http_server::accept_each(move |mut stream| {
        let (seen, sessions) = (seen.clone(), sessions.clone());
        async move {
                while let Some((head, body)) = raw_http_server::read(&mut stream).await {
                    let session = header(&head, "mcp-session-id").unwrap_or_default();
                    let version = header(&head, "mcp-protocol-version").unwrap_or_default();
                    let json = |value: Value, sid: Option<&str>| {
                        let value = value.to_string();
                        let sid = sid.map(|s| format!("mcp-session-id: {s}\r\n")).unwrap_or_default();
                        format!(
                            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n{sid}content-length: {}\r\n\r\n{value}",
                            value.len()
                        )
                    };
                    let reply = match body.get("method").and_then(Value::as_str) {
                        _ if head.starts_with("GET") || head.starts_with("DELETE") => {
                            "HTTP/1.1 405 Method Not Allowed\r\ncontent-length: 0\r\n\r\n".to_owned()
                        }
                        Some("initialize") => {
                            let n = std::mem::replace(&mut *sessions.lock().unwrap(), 1);
                            let answers = [
                                json!({
                                    "protocolVersion": "2025-11-25",
                                    "capabilities": { "tools": {}, "prompts": {} },
                                    "serverInfo": { "name": "forgetful", "version": "1" },
                                    "instructions": "the first session",
                                }),
                                json!({
                                    "protocolVersion": "2025-06-18",
                                    "capabilities": { "tools": {} },
                                    "serverInfo": { "name": "forgetful", "version": "2" },
                                }),
                            ];
                            let result = json!({ "jsonrpc": "2.0", "id": body["id"], "result": answers[n] });
                            match (renewal, n) {
                                (Renewal::OpenStream, 1) => format!(
                                    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nmcp-session-id: s1\r\n\r\nevent: message\ndata: {result}\n\n"
                                ),
                                (Renewal::LongId, 1) => json(result, Some(&format!("s{}", "1".repeat(5000)))),
                                _ => json(result, Some(&format!("s{n}"))),
                            }
                        }
                        Some("tools/list") => {
                            let mut seen = seen.lock().unwrap();
                            let forgotten = session == "s0" && !seen.is_empty();
                            if forgotten {
                                "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n".to_owned()
                            } else {
                                // The first session's `t` has a structured result with `a`.
                                let tools = match session.as_str() {
                                    "s0" => json!([{ "name": "t", "inputSchema": { "type": "object" },
                                        "outputSchema": { "type": "object", "required": ["a"] } }]),
                                    _ => json!([]),
                                };
                                seen.push((session, version));
                                json(json!({ "jsonrpc": "2.0", "id": body["id"], "result": { "tools": tools } }), None)
                            }
                        }
                        // Forgotten in the first session; in the new one `t` answers `b`.
                        Some("tools/call") if session == "s0" => {
                            "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n".to_owned()
                        }
                        Some("tools/call") => {
                            let result = json!({ "content": [], "structuredContent": { "b": "x" } });
                            json(json!({ "jsonrpc": "2.0", "id": body["id"], "result": result }), None)
                        }
                        _ => "HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n".to_owned(),
                    };
                    if stream.get_mut().write_all(reply.as_bytes()).await.is_err() {
                        return;
                    }
                }
        }
    })
    .await
}

/// A client of the server at `url`, asking for 2025-11-25.
async fn connect(url: &str) -> Client {
    Client::builder("c", "1")
        .protocol_version(ProtocolVersion::V2025_11_25)
        .connect(HttpClientTransport::new(url).unwrap())
        .await
        .unwrap()
}

/// Rules 4.1.19 and 1.11: after a 404 the client initializes a new session and retries;
/// the retry carries the new session's id and `MCP-Protocol-Version` with the version
/// negotiated for that session, not the old one's, and the client names that version and
/// session id too (`Client::protocol_version`, `Client::session_id`).
#[tokio::test]
async fn a_renewed_session_is_named_with_its_own_version() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let client = connect(&forgetful_server(seen.clone(), Renewal::Json).await).await;
    assert_eq!(client.session_id().as_deref(), Some("s0"), "the handshake's session id");
    assert!(!client.legacy_http_sse(), "Streamable HTTP");
    client.list_tools(None).await.unwrap();
    assert_eq!(client.protocol_version(), &ProtocolVersion::V2025_11_25);
    client.list_tools(None).await.expect("the call after the 404 failed");
    assert_eq!(client.session_id().as_deref(), Some("s1"), "the new session's id");
    let seen = seen.lock().unwrap().clone();
    let expected = [("s0", "2025-11-25"), ("s1", "2025-06-18")].map(|(s, v)| (s.to_owned(), v.to_owned()));
    assert_eq!(seen, expected);
    assert_eq!(client.protocol_version(), &ProtocolVersion::V2025_06_18, "the new session's version");
    client.close().await;
}

/// A renewed session is described as the server now answers `initialize`: after the
/// renewal, the client's view of the server (its version, identity, capabilities and
/// instructions) is the new session's, not the first one's.
#[tokio::test]
async fn a_renewed_session_is_described_by_its_own_initialize_answer() {
    let client = connect(&forgetful_server(Arc::new(Mutex::new(Vec::new())), Renewal::Json).await).await;
    client.list_tools(None).await.unwrap();
    assert!(client.server_capabilities().unwrap().prompts.is_some());
    assert_eq!(client.server_info().unwrap().version, "1");
    assert_eq!(client.instructions().as_deref(), Some("the first session"));

    client.list_tools(None).await.expect("the call after the 404 failed");
    assert_eq!(client.protocol_version(), &ProtocolVersion::V2025_06_18);
    let capabilities = client.server_capabilities().expect("the new session's capabilities");
    assert!(capabilities.prompts.is_none(), "the new session offers no prompts: {capabilities:?}");
    assert!(capabilities.tools.is_some());
    assert_eq!(client.server_info().unwrap().version, "2");
    assert_eq!(client.instructions(), None, "the new session gave no instructions");
    client.close().await;
}

/// What the client learned of the first session's tools (here `t`'s output schema, which
/// the answers of the new session need not follow) is forgotten with that session: a call
/// answered by the new session is not checked against it.
#[tokio::test]
async fn a_renewed_session_is_not_held_to_the_first_sessions_tool_list() {
    let client = connect(&forgetful_server(Arc::new(Mutex::new(Vec::new())), Renewal::Json).await).await;
    client.list_tools(None).await.unwrap();
    let result = client.call_tool("t", json!({})).await.expect("the new session's answer was refused");
    assert_eq!(result.structured_content, Some(json!({ "b": "x" })));
    client.close().await;
}

/// The new session's `initialize` answered on an SSE stream that the server leaves open
/// (the spec has it close the stream after the answer, but only as a SHOULD): the answer
/// is taken as soon as it arrives, as the first handshake takes it, and the request that
/// met the 404 goes on in the new session, rather than waiting for the stream's end.
#[tokio::test]
async fn a_renewal_answered_on_a_stream_left_open_goes_on_at_once() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let client = connect(&forgetful_server(seen.clone(), Renewal::OpenStream).await).await;
    client.list_tools(None).await.unwrap();
    let renewed = tokio::time::timeout(std::time::Duration::from_secs(4), client.list_tools(None)).await;
    renewed.expect("the renewal waited for the end of its stream").expect("the call after the 404 failed");
    assert_eq!(seen.lock().unwrap().last().unwrap().0, "s1");
    client.close().await;
}

/// The new session's `Mcp-Session-Id` is held to what the first one's is (1 to 4,096
/// visible ASCII characters): one of 5,001 characters is refused, not sent on every later
/// request; the request that met the 404 fails.
#[tokio::test]
async fn a_renewed_session_id_past_the_bound_is_refused() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let client = connect(&forgetful_server(seen.clone(), Renewal::LongId).await).await;
    client.list_tools(None).await.unwrap();
    client.list_tools(None).await.expect_err("taken a session id of 5,001 characters");
    assert!(seen.lock().unwrap().iter().all(|(session, _)| session.len() <= 4096));
    client.close().await;
}
