//! TEMPORARY stand-in (replaced by the real module).
#![allow(missing_docs)]
#[derive(Debug)]
pub struct CursorError;
pub fn encode_offset(offset: usize) -> String {
    format!("o{offset}")
}
pub fn decode_offset(cursor: &str) -> Result<usize, CursorError> {
    cursor.strip_prefix('o').and_then(|s| s.parse().ok()).ok_or(CursorError)
}
