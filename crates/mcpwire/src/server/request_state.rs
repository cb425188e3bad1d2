//! TEMPORARY stand-in (replaced by the real module).
#![allow(missing_docs)]
use std::time::{Duration, SystemTime};
#[derive(Debug)]
pub struct StateError;
pub struct StateSealer {
    _ttl: Duration,
}
pub struct Binding<'a> {
    pub method: &'a str,
    pub target: &'a str,
    pub args_digest: [u8; 32],
    pub principal: Option<&'a str>,
}
pub fn digest_json(_value: &serde_json::Value) -> [u8; 32] {
    [0; 32]
}
impl StateSealer {
    pub fn random() -> Self {
        StateSealer { _ttl: Duration::from_secs(600) }
    }
    pub fn seal(&self, _b: &Binding, s: Option<&str>, _now: SystemTime) -> String {
        s.unwrap_or("").to_owned()
    }
    pub fn open(&self, t: &str, _b: &Binding, _now: SystemTime) -> Result<Option<String>, StateError> {
        Ok(Some(t.to_owned()))
    }
}
