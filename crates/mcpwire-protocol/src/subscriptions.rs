//! `subscriptions/listen` (2026): a long-lived request whose stream carries the
//! notifications the client asked for. It replaces the 2025-era GET stream and
//! `resources/subscribe`.
//!
//! The first frame of a stream is `notifications/subscriptions/acknowledged` with the
//! subset of the filter the server honours; every frame carries
//! `_meta["io.modelcontextprotocol/subscriptionId"]` = the listen request's id; a
//! server-side end sends a [`SubscriptionsListenResult`].

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::common::{notification, request};
use crate::id::RequestId;
use crate::jsonrpc::{Notification, Request, Response};
use crate::meta::Meta;
use crate::methods;
use crate::notifications::{subscription_id, subscription_meta};
use crate::result::ResultType;

/// Which notifications a listen stream carries. Open: extensions add members (the tasks
/// extension adds `taskIds`), and unknown ones are kept in `extra`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionFilter {
    /// `notifications/tools/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_list_changed: Option<bool>,
    /// `notifications/prompts/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts_list_changed: Option<bool>,
    /// `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources_list_changed: Option<bool>,
    /// `notifications/resources/updated` for these URIs (needs `resources.subscribe`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_subscriptions: Option<Vec<String>>,
    /// Tasks extension: `notifications/tasks` for these task ids (needs the client to
    /// declare `io.modelcontextprotocol/tasks`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_ids: Option<Vec<String>>,
    /// Any other member, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `subscriptions/listen` params.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionsListenRequestParams {
    /// What to listen for.
    pub notifications: SubscriptionFilter,
    /// `_meta`: the required 2026 envelope.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The final result of a listen stream ended by the server: `resultType` and the
/// subscription id in `_meta` (required).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionsListenResult {
    /// `resultType` (`complete`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// `_meta`, with `io.modelcontextprotocol/subscriptionId`.
    #[serde(rename = "_meta")]
    pub meta: Meta,
}

impl SubscriptionsListenResult {
    /// The result that closes the stream of the listen request `id`.
    pub fn closed(id: &RequestId) -> Self {
        SubscriptionsListenResult { result_type: Some(ResultType::Complete), meta: subscription_meta(id) }
    }

    /// The subscription id in `_meta`.
    pub fn subscription_id(&self) -> Option<RequestId> {
        subscription_id(Some(&self.meta))
    }
}

/// `notifications/subscriptions/acknowledged` params: the first frame of a listen stream.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionsAcknowledgedNotificationParams {
    /// The part of the requested filter the server honours.
    pub notifications: SubscriptionFilter,
    /// `_meta`, with `io.modelcontextprotocol/subscriptionId`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

request!(SubscriptionsListenRequestParams => methods::SUBSCRIPTIONS_LISTEN, SubscriptionsListenResult);
notification!(SubscriptionsAcknowledgedNotificationParams => methods::NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED);

/// `subscriptions/listen`, as a whole message.
pub type SubscriptionsListenRequest = Request<SubscriptionsListenRequestParams>;
/// The final response of a listen stream.
pub type SubscriptionsListenResultResponse = Response<SubscriptionsListenResult>;
/// `notifications/subscriptions/acknowledged`, as a whole message.
pub type SubscriptionsAcknowledgedNotification = Notification<SubscriptionsAcknowledgedNotificationParams>;

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn filter_keeps_extension_members() {
        let v = json!({"toolsListChanged": true, "taskIds": ["t1"], "io.example/widgets": ["w"]});
        let f: SubscriptionFilter = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(f.task_ids.as_deref(), Some(&["t1".to_owned()][..]));
        assert_eq!(serde_json::to_value(&f).unwrap(), v);
    }

    #[test]
    fn closed_result() {
        let r = SubscriptionsListenResult::closed(&RequestId::from("listen-1"));
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"resultType": "complete", "_meta": {"io.modelcontextprotocol/subscriptionId": "listen-1"}})
        );
        assert_eq!(r.subscription_id(), Some(RequestId::from("listen-1")));
    }
}
