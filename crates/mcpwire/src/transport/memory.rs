//! An in-memory transport pair: two connected [`Connection`]s that pass messages without
//! serializing them. For tests and in-process clients.
//!
//! ```
//! use mcpwire::client::Client;
//! use mcpwire::server::{tool, Server};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let server = Server::builder("s", "1").tool(tool("ping").description("p").handler(|| "pong")).build().unwrap();
//! let (ours, theirs) = mcpwire::transport::memory::pair();
//! tokio::spawn(async move { server.serve(theirs).await });
//! let client = Client::builder("c", "1").connect(ours).await.unwrap();
//! assert_eq!(client.call_tool("ping", serde_json::json!({})).await.unwrap().content[0].as_text(), Some("pong"));
//! # }
//! ```

use tokio::sync::mpsc;

use super::{Connection, InboundMeta, Outgoing, TransportEvent, DEFAULT_CHANNEL_CAPACITY};

/// Two connected ends: what one sends, the other receives.
pub fn pair() -> (Connection, Connection) {
    pair_with_capacity(DEFAULT_CHANNEL_CAPACITY)
}

/// [`pair`] with a chosen channel capacity.
pub fn pair_with_capacity(capacity: usize) -> (Connection, Connection) {
    let (a_out, a_in) = half(capacity);
    let (b_out, b_in) = half(capacity);
    (Connection { incoming: b_in, outgoing: a_out }, Connection { incoming: a_in, outgoing: b_out })
}

/// One direction: a sender of [`Outgoing`] whose messages come out of the receiver as
/// [`TransportEvent`]s. A small forwarding task connects them and ends the stream when
/// the sender side is dropped.
fn half(capacity: usize) -> (mpsc::Sender<Outgoing>, mpsc::Receiver<TransportEvent>) {
    let (out_tx, mut out_rx) = mpsc::channel::<Outgoing>(capacity);
    let (in_tx, in_rx) = mpsc::channel::<TransportEvent>(capacity);
    tokio::spawn(async move {
        while let Some(out) = out_rx.recv().await {
            let (message, _) = out.into_parts();
            if in_tx.send(TransportEvent::message(message, InboundMeta::default())).await.is_err() {
                return;
            }
        }
        let _ = in_tx.send(TransportEvent::closed(None)).await;
    });
    (out_tx, in_rx)
}
