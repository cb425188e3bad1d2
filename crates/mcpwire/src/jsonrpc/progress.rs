//! Progress reports for outbound requests.

use std::sync::Arc;

use serde::Deserialize;

/// One `notifications/progress` update.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct ProgressUpdate {
    /// Work done so far; increases with every update.
    pub progress: f64,
    /// The total, when known.
    #[serde(default)]
    pub total: Option<f64>,
    /// A human-readable message.
    #[serde(default)]
    pub message: Option<String>,
}

/// Receives the progress of one outbound request. Called on the dispatcher's read loop,
/// in arrival order: keep it short (hand work to a task or channel).
pub type ProgressCallback = Arc<dyn Fn(ProgressUpdate) + Send + Sync>;
