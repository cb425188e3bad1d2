//! Traits that tie a params type to its method name and result type, so that typed calls
//! (`peer.request::<CallToolRequestParams>(..)`) need no strings.

use serde::de::DeserializeOwned;
use serde::Serialize;

/// The params of a request method.
pub trait RequestParams: Serialize + DeserializeOwned + Send + 'static {
    /// The method name.
    const METHOD: &'static str;
    /// The result a successful response carries.
    type Result: Serialize + DeserializeOwned + Send + 'static;
}

/// The params of a notification method.
pub trait NotificationParams: Serialize + DeserializeOwned + Send + 'static {
    /// The method name.
    const METHOD: &'static str;
}
