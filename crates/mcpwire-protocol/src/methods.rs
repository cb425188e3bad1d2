//! Method names of every request and notification, in both eras.

/// `initialize` (2025 era): opens a session.
pub const INITIALIZE: &str = "initialize";
/// `notifications/initialized` (2025 era): the client finished initializing.
pub const INITIALIZED: &str = "notifications/initialized";
/// `ping` (2025 era; removed in 2026).
pub const PING: &str = "ping";
/// `server/discover` (2026): the server's versions, capabilities and identity.
pub const SERVER_DISCOVER: &str = "server/discover";
/// `tools/list`.
pub const TOOLS_LIST: &str = "tools/list";
/// `tools/call`.
pub const TOOLS_CALL: &str = "tools/call";
/// `resources/list`.
pub const RESOURCES_LIST: &str = "resources/list";
/// `resources/templates/list`.
pub const RESOURCES_TEMPLATES_LIST: &str = "resources/templates/list";
/// `resources/read`.
pub const RESOURCES_READ: &str = "resources/read";
/// `resources/subscribe` (2025 era).
pub const RESOURCES_SUBSCRIBE: &str = "resources/subscribe";
/// `resources/unsubscribe` (2025 era).
pub const RESOURCES_UNSUBSCRIBE: &str = "resources/unsubscribe";
/// `prompts/list`.
pub const PROMPTS_LIST: &str = "prompts/list";
/// `prompts/get`.
pub const PROMPTS_GET: &str = "prompts/get";
/// `completion/complete`.
pub const COMPLETION_COMPLETE: &str = "completion/complete";
/// `logging/setLevel` (2025 era).
pub const LOGGING_SET_LEVEL: &str = "logging/setLevel";
/// `sampling/createMessage`: a server asks the client's model (a request in 2025, an
/// input request in 2026).
pub const SAMPLING_CREATE_MESSAGE: &str = "sampling/createMessage";
/// `elicitation/create`: a server asks the user.
pub const ELICITATION_CREATE: &str = "elicitation/create";
/// `roots/list`: a server asks for the client's roots.
pub const ROOTS_LIST: &str = "roots/list";
/// `subscriptions/listen` (2026): a long-lived stream of notifications.
pub const SUBSCRIPTIONS_LISTEN: &str = "subscriptions/listen";
/// `tasks/get` (2025-11-25 core tasks and the 2026 tasks extension).
pub const TASKS_GET: &str = "tasks/get";
/// `tasks/result` (2025-11-25 core tasks).
pub const TASKS_RESULT: &str = "tasks/result";
/// `tasks/list` (2025-11-25 core tasks).
pub const TASKS_LIST: &str = "tasks/list";
/// `tasks/cancel` (2025-11-25 core tasks and the 2026 tasks extension).
pub const TASKS_CANCEL: &str = "tasks/cancel";
/// `tasks/update` (2026 tasks extension): answers a task's input requests.
pub const TASKS_UPDATE: &str = "tasks/update";

/// `notifications/cancelled`.
pub const NOTIFICATION_CANCELLED: &str = "notifications/cancelled";
/// `notifications/progress`.
pub const NOTIFICATION_PROGRESS: &str = "notifications/progress";
/// `notifications/message`: a log message.
pub const NOTIFICATION_MESSAGE: &str = "notifications/message";
/// `notifications/tools/list_changed`.
pub const NOTIFICATION_TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
/// `notifications/prompts/list_changed`.
pub const NOTIFICATION_PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";
/// `notifications/resources/list_changed`.
pub const NOTIFICATION_RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
/// `notifications/resources/updated`.
pub const NOTIFICATION_RESOURCES_UPDATED: &str = "notifications/resources/updated";
/// `notifications/roots/list_changed` (2025 era).
pub const NOTIFICATION_ROOTS_LIST_CHANGED: &str = "notifications/roots/list_changed";
/// `notifications/elicitation/complete` (2025-11-25).
pub const NOTIFICATION_ELICITATION_COMPLETE: &str = "notifications/elicitation/complete";
/// `notifications/subscriptions/acknowledged` (2026): the first frame of a listen stream.
pub const NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
/// `notifications/tasks/status` (2025-11-25 core tasks).
pub const NOTIFICATION_TASKS_STATUS: &str = "notifications/tasks/status";
/// `notifications/tasks` (2026 tasks extension, over listen).
pub const NOTIFICATION_TASKS: &str = "notifications/tasks";

/// The methods whose 2026 results are cacheable and carry `ttlMs` and `cacheScope`.
pub const CACHEABLE: [&str; 6] =
    [SERVER_DISCOVER, TOOLS_LIST, PROMPTS_LIST, RESOURCES_LIST, RESOURCES_TEMPLATES_LIST, RESOURCES_READ];

/// The methods that may answer with an `input_required` result (2026).
pub const INPUT_REQUIRED_ALLOWED: [&str; 3] = [TOOLS_CALL, PROMPTS_GET, RESOURCES_READ];

/// The methods a stateful-era peer may send that the 2026 revision removed.
pub const REMOVED_IN_2026: [&str; 6] =
    [INITIALIZE, PING, LOGGING_SET_LEVEL, RESOURCES_SUBSCRIBE, RESOURCES_UNSUBSCRIBE, TASKS_RESULT];
