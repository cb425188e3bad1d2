//! The typed model of every Model Context Protocol message, for every protocol revision
//! from 2024-11-05 to 2026-07-28.
//!
//! Pure data: serde and serde_json, no IO, no async runtime. Where revisions differ, one
//! type carries the union of their fields as options; where they conflict the difference
//! is modelled explicitly. Open objects (`_meta`, capabilities) keep every unknown member.
//!
//! Every feature has its module ([`tools`], [`resources`], [`prompts`], [`completion`],
//! [`logging`], [`sampling`], [`elicitation`], [`roots`], [`notifications`],
//! [`subscriptions`], [`mrtr`], [`tasks`], ...), and their types are re-exported here.
//! Modules import one way: a tool's definition ([`tool_definition`]) sits below sampling,
//! which offers tools to the model; multi round-trip input ([`mrtr`]) below the requests
//! that carry it; and [`outcome`], which tells their results apart, above them all. The
//! 2026 tasks extension's types share their names with the 2025-11-25 core tasks and are
//! used through [`tasks_ext`].
//!
//! Every params type implements [`RequestParams`] or [`NotificationParams`], which name
//! its method and result, and the whole messages have aliases such as
//! [`CallToolRequest`] = `Request<CallToolRequestParams>`.

#![forbid(unsafe_code)]

pub mod error;
pub mod id;
pub mod jsonrpc;
pub mod meta;
pub mod methods;
pub mod result;
pub mod rpc;
pub mod skim;
pub mod version;

pub mod capabilities;
pub mod common;
pub mod completion;
pub mod content;
pub mod elicitation;
pub mod error_data;
pub mod lifecycle;
pub mod logging;
pub mod mrtr;
pub mod notifications;
pub mod outcome;
pub mod pagination;
pub mod prompts;
pub mod resources;
pub mod roots;
pub mod sampling;
pub mod subscriptions;
pub mod tags;
pub mod tasks;
pub mod tasks_ext;
pub mod tool_definition;
pub mod tools;

pub use error::{codes, ErrorObject};
pub use id::{IdKey, RequestId};
pub use jsonrpc::{
    decode_frame, decode_message, DecodeError, ErrorResponse, Frame, JsonRpcVersion, Message, MethodCall,
    Notification, RawJson, Request, Response, MAX_BATCH_MESSAGES,
};
pub use meta::Meta;
pub use result::{CacheHint, CacheScope, Cacheable, ResultType};
pub use rpc::{NotificationParams, RequestParams};
pub use version::{Era, ProtocolVersion};

pub use capabilities::*;
pub use common::{Cursor, EmptyResult, JsonObject, OneOrMany};
pub use completion::*;
pub use content::*;
pub use elicitation::*;
pub use error_data::*;
pub use lifecycle::*;
pub use logging::*;
pub use mrtr::*;
pub use notifications::*;
pub use outcome::*;
pub use pagination::*;
pub use prompts::*;
pub use resources::*;
pub use roots::*;
pub use sampling::*;
pub use subscriptions::*;
pub use tasks::*;
pub use tools::*;

#[cfg(test)]
mod tests {
    use super::*;

    /// Every method constant is named by exactly the params types that implement it; only
    /// `tasks/get` and `tasks/cancel` have two (2025-11-25 core tasks and the 2026 tasks
    /// extension).
    #[test]
    fn every_method_has_a_params_type() {
        fn r<P: RequestParams>() -> &'static str {
            P::METHOD
        }
        fn n<P: NotificationParams>() -> &'static str {
            P::METHOD
        }
        let mut names = vec![
            r::<InitializeRequestParams>(),
            r::<PingRequestParams>(),
            r::<DiscoverRequestParams>(),
            r::<ListToolsRequestParams>(),
            r::<CallToolRequestParams>(),
            r::<ListResourcesRequestParams>(),
            r::<ListResourceTemplatesRequestParams>(),
            r::<ReadResourceRequestParams>(),
            r::<SubscribeRequestParams>(),
            r::<UnsubscribeRequestParams>(),
            r::<ListPromptsRequestParams>(),
            r::<GetPromptRequestParams>(),
            r::<CompleteRequestParams>(),
            r::<SetLevelRequestParams>(),
            r::<CreateMessageRequestParams>(),
            r::<ElicitRequestParams>(),
            r::<ListRootsRequestParams>(),
            r::<SubscriptionsListenRequestParams>(),
            r::<GetTaskRequestParams>(),
            r::<GetTaskPayloadRequestParams>(),
            r::<ListTasksRequestParams>(),
            r::<CancelTaskRequestParams>(),
            r::<tasks_ext::UpdateTaskRequestParams>(),
            n::<InitializedNotificationParams>(),
            n::<CancelledNotificationParams>(),
            n::<ProgressNotificationParams>(),
            n::<LoggingMessageNotificationParams>(),
            n::<ToolListChangedNotificationParams>(),
            n::<PromptListChangedNotificationParams>(),
            n::<ResourceListChangedNotificationParams>(),
            n::<ResourceUpdatedNotificationParams>(),
            n::<RootsListChangedNotificationParams>(),
            n::<ElicitationCompleteNotificationParams>(),
            n::<SubscriptionsAcknowledgedNotificationParams>(),
            n::<TaskStatusNotificationParams>(),
            n::<tasks_ext::TaskNotificationParams>(),
        ];
        assert_eq!(r::<tasks_ext::GetTaskRequestParams>(), methods::TASKS_GET);
        assert_eq!(r::<tasks_ext::CancelTaskRequestParams>(), methods::TASKS_CANCEL);
        let total = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), total, "two params types claim one method");
        let all = [
            methods::INITIALIZE,
            methods::INITIALIZED,
            methods::PING,
            methods::SERVER_DISCOVER,
            methods::TOOLS_LIST,
            methods::TOOLS_CALL,
            methods::RESOURCES_LIST,
            methods::RESOURCES_TEMPLATES_LIST,
            methods::RESOURCES_READ,
            methods::RESOURCES_SUBSCRIBE,
            methods::RESOURCES_UNSUBSCRIBE,
            methods::PROMPTS_LIST,
            methods::PROMPTS_GET,
            methods::COMPLETION_COMPLETE,
            methods::LOGGING_SET_LEVEL,
            methods::SAMPLING_CREATE_MESSAGE,
            methods::ELICITATION_CREATE,
            methods::ROOTS_LIST,
            methods::SUBSCRIPTIONS_LISTEN,
            methods::TASKS_GET,
            methods::TASKS_RESULT,
            methods::TASKS_LIST,
            methods::TASKS_CANCEL,
            methods::TASKS_UPDATE,
            methods::NOTIFICATION_CANCELLED,
            methods::NOTIFICATION_PROGRESS,
            methods::NOTIFICATION_MESSAGE,
            methods::NOTIFICATION_TOOLS_LIST_CHANGED,
            methods::NOTIFICATION_PROMPTS_LIST_CHANGED,
            methods::NOTIFICATION_RESOURCES_LIST_CHANGED,
            methods::NOTIFICATION_RESOURCES_UPDATED,
            methods::NOTIFICATION_ROOTS_LIST_CHANGED,
            methods::NOTIFICATION_ELICITATION_COMPLETE,
            methods::NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED,
            methods::NOTIFICATION_TASKS_STATUS,
            methods::NOTIFICATION_TASKS,
        ];
        let mut all = all.to_vec();
        all.sort_unstable();
        assert_eq!(names, all);
    }
}
