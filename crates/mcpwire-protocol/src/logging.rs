//! Logging: the eight RFC 5424 levels, `logging/setLevel` (2025 era) and
//! `notifications/message`. Deprecated in 2026, where a request opts in with
//! `_meta["io.modelcontextprotocol/logLevel"]` instead of `logging/setLevel`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::common::{notification, request, EmptyResult};
use crate::jsonrpc::{Notification, Request, Response};
use crate::meta::Meta;
use crate::methods;

/// A log severity (RFC 5424), ordered from the least severe ([`LoggingLevel::Debug`]) to
/// the most ([`LoggingLevel::Emergency`]), so `level >= threshold` selects what to send.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LoggingLevel {
    /// Detailed debugging information.
    Debug,
    /// Informational messages.
    Info,
    /// Normal but significant events.
    Notice,
    /// Warning conditions.
    Warning,
    /// Error conditions.
    Error,
    /// Critical conditions.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LoggingLevel {
    /// Every level, least severe first.
    pub const ALL: [LoggingLevel; 8] = [
        LoggingLevel::Debug,
        LoggingLevel::Info,
        LoggingLevel::Notice,
        LoggingLevel::Warning,
        LoggingLevel::Error,
        LoggingLevel::Critical,
        LoggingLevel::Alert,
        LoggingLevel::Emergency,
    ];

    /// The wire string.
    pub fn as_str(self) -> &'static str {
        match self {
            LoggingLevel::Debug => "debug",
            LoggingLevel::Info => "info",
            LoggingLevel::Notice => "notice",
            LoggingLevel::Warning => "warning",
            LoggingLevel::Error => "error",
            LoggingLevel::Critical => "critical",
            LoggingLevel::Alert => "alert",
            LoggingLevel::Emergency => "emergency",
        }
    }

    /// Parses a wire string.
    pub fn parse(s: &str) -> Option<LoggingLevel> {
        LoggingLevel::ALL.into_iter().find(|l| l.as_str() == s)
    }
}

impl std::fmt::Display for LoggingLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `logging/setLevel` params (2025 era): send log messages at `level` and above.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetLevelRequestParams {
    /// The minimum level to send.
    pub level: LoggingLevel,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// `notifications/message` params: one log message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoggingMessageNotificationParams {
    /// The severity.
    pub level: LoggingLevel,
    /// The name of the logger.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// The message: any JSON value.
    pub data: Value,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl LoggingMessageNotificationParams {
    /// A message at `level` carrying `data`.
    pub fn new(level: LoggingLevel, data: impl Into<Value>) -> Self {
        LoggingMessageNotificationParams { level, logger: None, data: data.into(), meta: None }
    }
}

request!(SetLevelRequestParams => methods::LOGGING_SET_LEVEL, EmptyResult);
notification!(LoggingMessageNotificationParams => methods::NOTIFICATION_MESSAGE);

/// `logging/setLevel`, as a whole message.
pub type SetLevelRequest = Request<SetLevelRequestParams>;
/// The response to `logging/setLevel`.
pub type SetLevelResultResponse = Response<EmptyResult>;
/// `notifications/message`, as a whole message.
pub type LoggingMessageNotification = Notification<LoggingMessageNotificationParams>;

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn levels_order_by_severity_and_round_trip() {
        assert!(LoggingLevel::Debug < LoggingLevel::Info);
        assert!(LoggingLevel::Warning < LoggingLevel::Error);
        assert!(LoggingLevel::Alert < LoggingLevel::Emergency);
        for l in LoggingLevel::ALL {
            let s = serde_json::to_string(&l).unwrap();
            assert_eq!(s, format!("\"{}\"", l.as_str()));
            assert_eq!(serde_json::from_str::<LoggingLevel>(&s).unwrap(), l);
            assert_eq!(LoggingLevel::parse(l.as_str()), Some(l));
        }
        assert!(serde_json::from_str::<LoggingLevel>("\"verbose\"").is_err());
    }
}
