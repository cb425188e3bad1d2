//! Where a value has a number JSON cannot carry. JSON has no NaN nor infinity, and
//! serde_json writes them as `null`: in a tool's structured content that `null` stands
//! where its output schema says a number, and a client that checks the content against
//! the schema (as the spec asks it to) refuses the whole result. An integer of 128 bits
//! beyond the 64-bit range serde_json refuses to write at all ([`first_wide_integer`]
//! says where it is, once that has happened).

use std::fmt::Display;

use serde::ser::{self, Serialize};

/// Where the first NaN or infinite number of `value` is (`stats.mean`, `points[2].x`, or
/// `` for the value itself), if it has one. A map's entries are named by their key when
/// it is a string or a number, and `*` otherwise.
///
/// The value is walked once without keeping a path, and only when it has such a number a
/// second time to say where.
pub(crate) fn first_non_finite<T: Serialize + ?Sized>(value: &T) -> Option<String> {
    first(value, Look::NonFinite)
}

/// Where the first 128-bit integer of `value` outside `i64::MIN..=u64::MAX` (the numbers
/// serde_json's values hold) is, named as [`first_non_finite`] names it.
pub(crate) fn first_wide_integer<T: Serialize + ?Sized>(value: &T) -> Option<String> {
    first(value, Look::Wide)
}

fn first<T: Serialize + ?Sized>(value: &T, look: Look) -> Option<String> {
    match value.serialize(Finder { path: Vec::new(), track: false, look }) {
        Err(Found::At(_)) => match value.serialize(Finder { path: Vec::new(), track: true, look }) {
            Err(Found::At(path)) => Some(path),
            _ => Some(String::new()),
        },
        Ok(()) => None,
        // The value does not serialize at all: serde_json says why when it writes it.
        Err(Found::Other) => None,
    }
}

/// The numbers a walk looks for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Look {
    /// NaN and the infinities.
    NonFinite,
    /// 128-bit integers outside `i64::MIN..=u64::MAX`.
    Wide,
}

#[derive(Debug)]
enum Found {
    At(String),
    Other,
}

impl Display for Found {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Found::At(path) => write!(f, "a non-finite number at {path:?}"),
            Found::Other => f.write_str("not serializable"),
        }
    }
}

impl std::error::Error for Found {}

impl ser::Error for Found {
    fn custom<M: Display>(_: M) -> Self {
        Found::Other
    }
}

/// Walks a value looking for `look`, its path so far in `path` when `track`.
struct Finder {
    path: Vec<String>,
    track: bool,
    look: Look,
}

impl Finder {
    /// Found here if `unfit` is what the walk looks for.
    fn check(&self, look: Look, unfit: bool) -> Result<(), Found> {
        if self.look == look && unfit {
            Err(Found::At(self.path.concat()))
        } else {
            Ok(())
        }
    }
}

/// A sequence, map or struct being walked: its own path, and each child's name from it.
struct Compound {
    path: Vec<String>,
    track: bool,
    look: Look,
    index: usize,
    key: Option<String>,
}

impl Compound {
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Found> {
        if !self.track {
            return value.serialize(Finder { path: Vec::new(), track: false, look: self.look });
        }
        let segment = format!("[{}]", self.index);
        self.index += 1;
        self.walk(segment, value)
    }

    fn field<T: Serialize + ?Sized>(&mut self, name: &str, value: &T) -> Result<(), Found> {
        if !self.track {
            return value.serialize(Finder { path: Vec::new(), track: false, look: self.look });
        }
        let segment = member(&self.path, name);
        self.walk(segment, value)
    }

    fn walk<T: Serialize + ?Sized>(&mut self, segment: String, value: &T) -> Result<(), Found> {
        let mut path = self.path.clone();
        path.push(segment);
        value.serialize(Finder { path, track: true, look: self.look })
    }
}

/// The path segment of the member `name` below `path`: `name` at the top, `.name` below.
fn member(path: &[String], name: &str) -> String {
    if path.is_empty() {
        name.to_owned()
    } else {
        format!(".{name}")
    }
}

macro_rules! plain {
    ($($method:ident($t:ty)),*) => {$(
        fn $method(self, _: $t) -> Result<(), Found> {
            Ok(())
        }
    )*};
}

impl ser::Serializer for Finder {
    type Ok = ();
    type Error = Found;
    type SerializeSeq = Compound;
    type SerializeTuple = Compound;
    type SerializeTupleStruct = Compound;
    type SerializeTupleVariant = Compound;
    type SerializeMap = Compound;
    type SerializeStruct = Compound;
    type SerializeStructVariant = Compound;

    plain!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8]),
        serialize_unit_struct(&'static str)
    );

    fn serialize_i128(self, v: i128) -> Result<(), Found> {
        self.check(Look::Wide, i64::try_from(v).is_err() && u64::try_from(v).is_err())
    }

    fn serialize_u128(self, v: u128) -> Result<(), Found> {
        self.check(Look::Wide, u64::try_from(v).is_err())
    }

    fn serialize_f32(self, v: f32) -> Result<(), Found> {
        self.check(Look::NonFinite, !v.is_finite())
    }

    fn serialize_f64(self, v: f64) -> Result<(), Found> {
        self.check(Look::NonFinite, !v.is_finite())
    }

    fn serialize_none(self) -> Result<(), Found> {
        Ok(())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Found> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<(), Found> {
        Ok(())
    }

    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<(), Found> {
        Ok(())
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Found> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Found> {
        let mut path = self.path;
        if self.track {
            path.push(member(&path, variant));
        }
        value.serialize(Finder { path, track: self.track, look: self.look })
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Compound, Found> {
        Ok(Compound { path: self.path, track: self.track, look: self.look, index: 0, key: None })
    }

    fn serialize_tuple(self, _: usize) -> Result<Compound, Found> {
        self.serialize_seq(None)
    }

    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Compound, Found> {
        self.serialize_seq(None)
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound, Found> {
        let mut path = self.path;
        if self.track {
            path.push(member(&path, variant));
        }
        Ok(Compound { path, track: self.track, look: self.look, index: 0, key: None })
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Compound, Found> {
        self.serialize_seq(None)
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Compound, Found> {
        self.serialize_seq(None)
    }

    fn serialize_struct_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Compound, Found> {
        self.serialize_tuple_variant(name, index, variant, len)
    }
}

/// The compound kinds whose members are elements, each walked as [`Compound::element`].
macro_rules! walk_elements {
    ($($kind:ident :: $method:ident),*) => {$(
        impl ser::$kind for Compound {
            type Ok = ();
            type Error = Found;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Found> {
                self.element(value)
            }
            fn end(self) -> Result<(), Found> {
                Ok(())
            }
        }
    )*};
}

walk_elements!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for Compound {
    type Ok = ();
    type Error = Found;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Found> {
        if !self.track {
            return Ok(());
        }
        self.key = Some(match serde_json::to_value(key) {
            Ok(serde_json::Value::String(s)) => s,
            Ok(serde_json::Value::Number(n)) => n.to_string(),
            _ => "*".to_owned(),
        });
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Found> {
        let key = self.key.take().unwrap_or_else(|| "*".to_owned());
        self.field(&key, value)
    }
    fn end(self) -> Result<(), Found> {
        Ok(())
    }
}

/// The compound kinds whose members are named fields, each walked as [`Compound::field`].
macro_rules! walk_fields {
    ($($kind:ident),*) => {$(
        impl ser::$kind for Compound {
            type Ok = ();
            type Error = Found;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                name: &'static str,
                value: &T,
            ) -> Result<(), Found> {
                self.field(name, value)
            }
            fn end(self) -> Result<(), Found> {
                Ok(())
            }
        }
    )*};
}

walk_fields!(SerializeStruct, SerializeStructVariant);

#[cfg(test)]
mod tests {
    use super::{first_non_finite, first_wide_integer};
    use std::collections::BTreeMap;

    #[derive(serde::Serialize)]
    struct Stats {
        count: u32,
        mean: f64,
        points: Vec<(f32, f32)>,
    }

    #[test]
    fn finds_the_first_nan_or_infinity_and_names_where_it_is() {
        let ok = Stats { count: 1, mean: 0.5, points: vec![(1.0, 2.0)] };
        assert_eq!(first_non_finite(&ok), None);
        let nan = Stats { count: 0, mean: f64::NAN, points: vec![] };
        assert_eq!(first_non_finite(&nan).as_deref(), Some("mean"));
        let far = Stats { count: 2, mean: 1.0, points: vec![(1.0, 2.0), (3.0, f32::INFINITY)] };
        assert_eq!(first_non_finite(&far).as_deref(), Some("points[1][1]"));
        assert_eq!(first_non_finite(&f64::NEG_INFINITY).as_deref(), Some(""));
        let map = BTreeMap::from([("a", Some(1.0)), ("b", Some(f64::NAN))]);
        assert_eq!(first_non_finite(&map).as_deref(), Some("b"));
    }

    #[test]
    fn finds_the_first_integer_beyond_64_bits_and_names_where_it_is() {
        let fits = (i128::from(i64::MIN), u128::from(u64::MAX), i128::from(u64::MAX), f64::NAN);
        assert_eq!(first_wide_integer(&fits), None);
        let map = BTreeMap::from([("a", vec![0_i128]), ("b", vec![1, i128::from(i64::MIN) - 1])]);
        assert_eq!(first_wide_integer(&map).as_deref(), Some("b[1]"));
        assert_eq!(first_wide_integer(&(u128::from(u64::MAX) + 1)).as_deref(), Some(""));
        assert_eq!(first_non_finite(&i128::MAX), None);
    }
}
