//! Notifications shared by features: progress, cancellation, list changes, resource
//! updates.
//!
//! In 2026, list-change and resource-update notifications arrive only on a
//! `subscriptions/listen` stream, with `_meta["io.modelcontextprotocol/subscriptionId"]`.

use serde::{Deserialize, Serialize};

use crate::common::{meta_only_params, notification, number};
use crate::id::RequestId;
use crate::jsonrpc::Notification;
use crate::meta::{self, Meta};
use crate::methods;

/// A progress token: a string or an integer, unique among the sender's active requests.
/// It has the same shape as a request id.
pub type ProgressToken = RequestId;

/// `notifications/progress` params.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProgressNotificationParams {
    /// The token from the request's `_meta.progressToken`.
    pub progress_token: ProgressToken,
    /// Progress so far; must increase with each notification.
    #[serde(serialize_with = "number::as_f64")]
    pub progress: f64,
    /// The total, if known.
    #[serde(default, skip_serializing_if = "Option::is_none", serialize_with = "number::opt_f64")]
    pub total: Option<f64>,
    /// A description of the progress (2025-03-26 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ProgressNotificationParams {
    /// Progress for `token`.
    pub fn new(token: impl Into<ProgressToken>, progress: f64, total: Option<f64>) -> Self {
        ProgressNotificationParams {
            progress_token: token.into(),
            progress,
            total,
            message: None,
            meta: None,
        }
    }
}

/// `notifications/cancelled` params: the sender no longer wants the answer to a request.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelledNotificationParams {
    /// The id of the request to cancel. Required in every revision except 2025-11-25,
    /// where it may be absent (tasks are cancelled with `tasks/cancel`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<RequestId>,
    /// Why, for logs or display.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CancelledNotificationParams {
    /// Cancels the request `id`.
    pub fn new(id: RequestId, reason: Option<String>) -> Self {
        CancelledNotificationParams { request_id: Some(id), reason, meta: None }
    }
}

meta_only_params!(
    /// `notifications/tools/list_changed` params.
    ToolListChangedNotificationParams
);
meta_only_params!(
    /// `notifications/prompts/list_changed` params.
    PromptListChangedNotificationParams
);
meta_only_params!(
    /// `notifications/resources/list_changed` params.
    ResourceListChangedNotificationParams
);
meta_only_params!(
    /// `notifications/roots/list_changed` params (2025 era; removed in 2026).
    RootsListChangedNotificationParams
);

/// `notifications/resources/updated` params: a subscribed resource changed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceUpdatedNotificationParams {
    /// The URI of the resource (possibly a sub-resource of the subscribed one).
    pub uri: String,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// A `_meta` object holding only the 2026 listen-stream key
/// `io.modelcontextprotocol/subscriptionId`.
pub fn subscription_meta(subscription_id: &RequestId) -> Meta {
    let mut m = Meta::new();
    let id = match subscription_id {
        RequestId::Number(n) => serde_json::Value::from(*n),
        RequestId::String(s) => serde_json::Value::from(s.as_str()),
    };
    m.insert(meta::SUBSCRIPTION_ID.to_owned(), id);
    m
}

/// The `io.modelcontextprotocol/subscriptionId` of a `_meta` object, if present and
/// well-formed.
pub fn subscription_id(meta: Option<&Meta>) -> Option<RequestId> {
    meta?.get(meta::SUBSCRIPTION_ID).and_then(|v| RequestId::deserialize(v).ok())
}

notification!(ProgressNotificationParams => methods::NOTIFICATION_PROGRESS);
notification!(CancelledNotificationParams => methods::NOTIFICATION_CANCELLED);
notification!(ToolListChangedNotificationParams => methods::NOTIFICATION_TOOLS_LIST_CHANGED);
notification!(PromptListChangedNotificationParams => methods::NOTIFICATION_PROMPTS_LIST_CHANGED);
notification!(ResourceListChangedNotificationParams => methods::NOTIFICATION_RESOURCES_LIST_CHANGED);
notification!(RootsListChangedNotificationParams => methods::NOTIFICATION_ROOTS_LIST_CHANGED);
notification!(ResourceUpdatedNotificationParams => methods::NOTIFICATION_RESOURCES_UPDATED);

/// `notifications/progress`, as a whole message.
pub type ProgressNotification = Notification<ProgressNotificationParams>;
/// `notifications/cancelled`, as a whole message.
pub type CancelledNotification = Notification<CancelledNotificationParams>;
/// `notifications/tools/list_changed`, as a whole message.
pub type ToolListChangedNotification = Notification<ToolListChangedNotificationParams>;
/// `notifications/prompts/list_changed`, as a whole message.
pub type PromptListChangedNotification = Notification<PromptListChangedNotificationParams>;
/// `notifications/resources/list_changed`, as a whole message.
pub type ResourceListChangedNotification = Notification<ResourceListChangedNotificationParams>;
/// `notifications/roots/list_changed`, as a whole message (2025 era).
pub type RootsListChangedNotification = Notification<RootsListChangedNotificationParams>;
/// `notifications/resources/updated`, as a whole message.
pub type ResourceUpdatedNotification = Notification<ResourceUpdatedNotificationParams>;

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn subscription_ids_round_trip_through_meta() {
        for id in [RequestId::from("listen-1"), RequestId::from(7)] {
            let m = subscription_meta(&id);
            assert_eq!(subscription_id(Some(&m)), Some(id));
        }
        assert_eq!(subscription_id(None), None);
    }

    #[test]
    fn progress_keeps_integers_integral() {
        let p = ProgressNotificationParams::new("t", 50.0, Some(100.0));
        assert_eq!(serde_json::to_string(&p).unwrap(), r#"{"progressToken":"t","progress":50,"total":100}"#);
    }
}
