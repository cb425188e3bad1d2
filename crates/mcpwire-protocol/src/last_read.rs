//! A per-thread memory of the last value read from a JSON text.
//!
//! A 2026 client sends its capabilities and its identity on every request, nearly always
//! the same text (most often the same whole `_meta`), and a server reads both on every
//! request: reading them is most of the cost of reading the envelope. Each thread keeps the last text it read for each such
//! member and the value it made, shared; the same text again gives the same value,
//! without reading it. The value is a function of the text alone, so a remembered one is
//! exactly what reading would make.

use std::cell::RefCell;
use std::sync::Arc;
use std::thread::LocalKey;

use serde::de::DeserializeOwned;

/// Texts longer than this are read every time, not remembered: a client's capabilities
/// and identity are far shorter, and a thread should not keep a large text alive.
pub(crate) const MAX_REMEMBERED: usize = 1024;

/// The last text a thread read for one member, and its value.
pub(crate) struct LastRead<T> {
    /// Shared: a caller may keep the text with the value ([`read_with_text`]).
    text: Arc<str>,
    value: Arc<T>,
}

/// One thread's memory of one member.
pub(crate) type Slot<T> = RefCell<Option<LastRead<T>>>;

/// The value of `text` as `T`: the one remembered in `slot` when the thread's last text
/// there was the same, else read now (and remembered, if it reads and is short).
pub(crate) fn read<T: DeserializeOwned + 'static>(
    slot: &'static LocalKey<Slot<T>>,
    text: &str,
) -> Result<Arc<T>, serde_json::Error> {
    read_with_text(slot, text, |text| serde_json::from_str::<T>(text)).map(|(value, _)| value)
}

/// [`read`] with `make` as the reading (it must be a function of the text alone: its
/// value is handed out again for the same text), and the text as a shared copy: the
/// remembered one when the value was, so a caller that keeps the text (to read more of it
/// later) copies nothing then.
pub(crate) fn read_with_text<T: 'static, E>(
    slot: &'static LocalKey<Slot<T>>,
    text: &str,
    make: impl FnOnce(&str) -> Result<T, E>,
) -> Result<(Arc<T>, Arc<str>), E> {
    if let Some(found) = remembered(slot, text) {
        return Ok(found);
    }
    let value = Arc::new(make(text)?);
    let copy: Arc<str> = text.into();
    if text.len() <= MAX_REMEMBERED {
        let last = LastRead { text: copy.clone(), value: value.clone() };
        slot.with(|s| *s.borrow_mut() = Some(last));
    }
    Ok((value, copy))
}

/// The value and text remembered in `slot`, when its text is `text`.
/// The value remembered for a whole JSON object that `text` starts with, and that
/// object's text. An object ends at its closing brace, so a text that starts with a
/// remembered object (whose reading checked it) holds exactly that object there, whatever
/// follows: a scanner can take it without reading it again.
pub(crate) fn remembered_object_at_start<T: 'static>(
    slot: &'static LocalKey<Slot<T>>,
    text: &str,
) -> Option<(Arc<T>, Arc<str>)> {
    slot.with(|s| match &*s.borrow() {
        Some(last)
            if last.text.starts_with('{') && last.text.ends_with('}') && text.starts_with(&*last.text) =>
        {
            Some((last.value.clone(), last.text.clone()))
        }
        _ => None,
    })
}

fn remembered<T: 'static>(slot: &'static LocalKey<Slot<T>>, text: &str) -> Option<(Arc<T>, Arc<str>)> {
    slot.with(|s| match &*s.borrow() {
        Some(last) if *last.text == *text => Some((last.value.clone(), last.text.clone())),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::Value;

    thread_local! {
        static SLOT: Slot<Value> = const { RefCell::new(None) };
    }

    #[test]
    fn the_same_text_gives_the_same_value_and_another_is_read() {
        let a = read(&SLOT, r#"{"a":1}"#).unwrap();
        let again = read(&SLOT, r#"{"a":1}"#).unwrap();
        assert!(Arc::ptr_eq(&a, &again), "remembered");
        let b = read(&SLOT, r#"{"a": 1}"#).unwrap();
        assert!(!Arc::ptr_eq(&a, &b), "another text is read");
        assert_eq!(*a, *b);
        assert!(read(&SLOT, "{").is_err());
        // An error leaves the last value remembered.
        assert!(Arc::ptr_eq(&b, &read(&SLOT, r#"{"a": 1}"#).unwrap()));
        let long = format!(r#"{{"a":"{}"}}"#, "x".repeat(MAX_REMEMBERED));
        let first = read(&SLOT, &long).unwrap();
        assert!(!Arc::ptr_eq(&first, &read(&SLOT, &long).unwrap()), "a long text is not kept");
    }

    #[test]
    fn a_remembered_object_is_found_at_the_start_of_a_longer_text() {
        let (a, text) = read_with_text(&SLOT, r#"{"c":[3]}"#, |t| serde_json::from_str::<Value>(t)).unwrap();
        let (found, found_text) = remembered_object_at_start(&SLOT, r#"{"c":[3]},"more":1}"#).unwrap();
        assert!(Arc::ptr_eq(&a, &found) && Arc::ptr_eq(&text, &found_text));
        assert!(remembered_object_at_start(&SLOT, r#"{"c":[3"#).is_none(), "cut short");
        assert!(remembered_object_at_start(&SLOT, r#" {"c":[3]}"#).is_none(), "not at the start");
        // A remembered text with whitespace around its object is never taken as a prefix.
        read_with_text(&SLOT, r#" {"d":1} "#, |t| serde_json::from_str::<Value>(t)).unwrap();
        assert!(remembered_object_at_start(&SLOT, r#" {"d":1} ,"#).is_none());
        read_with_text(&SLOT, "5", |t| serde_json::from_str::<Value>(t)).unwrap();
        assert!(remembered_object_at_start(&SLOT, "56").is_none(), "not an object");
    }

    #[test]
    fn the_text_comes_back_shared_with_the_memory_of_it() {
        let read = |text: &str| read_with_text(&SLOT, text, |t| serde_json::from_str::<Value>(t)).unwrap();
        let (a, text) = read(r#"{"b":2}"#);
        assert_eq!(&*text, r#"{"b":2}"#);
        let (again, same) = read(r#"{"b":2}"#);
        assert!(Arc::ptr_eq(&a, &again) && Arc::ptr_eq(&text, &same), "both remembered");
        // A long text is read, and copied, every time.
        let long = format!(r#"{{"b":"{}"}}"#, "x".repeat(MAX_REMEMBERED));
        let (first, first_text) = read(&long);
        let (second, second_text) = read(&long);
        assert_eq!(*first_text, *long);
        assert!(!Arc::ptr_eq(&first, &second) && !Arc::ptr_eq(&first_text, &second_text));
        assert!(read_with_text(&SLOT, "{", |t| serde_json::from_str::<Value>(t)).is_err());
    }
}
