//! Change notifications from handlers to every connected client: a bounded broadcast.
//! 2025 sessions forward them as `notifications/*/list_changed` and (to subscribers)
//! `notifications/resources/updated`; 2026 `subscriptions/listen` streams filter them.

use tokio::sync::broadcast;

/// How many events a slow subscriber may fall behind before it misses some.
const BUS_CAPACITY: usize = 256;

/// Something about the server's lists or resources changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerEvent {
    /// The tool list changed.
    ToolsChanged,
    /// The prompt list changed.
    PromptsChanged,
    /// The resource list changed.
    ResourcesChanged,
    /// One resource's content changed.
    ResourceUpdated(String),
}

/// The broadcast of [`ServerEvent`]s.
#[derive(Debug)]
pub(crate) struct Bus {
    sender: broadcast::Sender<ServerEvent>,
}

impl Default for Bus {
    fn default() -> Self {
        Bus { sender: broadcast::channel(BUS_CAPACITY).0 }
    }
}

impl Bus {
    pub(crate) fn publish(&self, event: ServerEvent) {
        // No subscriber is not an error: nobody is listening right now.
        let _ = self.sender.send(event);
    }

    pub(crate) fn subscribe(&self) -> broadcast::Receiver<ServerEvent> {
        self.sender.subscribe()
    }
}
