//! Duplicate keys in a lockfile: JSON readers keep one of two equal keys silently (serde_json
//! the last), so a lock with two `tools` keys could show a reviewer one list and verify
//! another. Any duplicate, at any depth, makes the lock tampered.

use std::collections::HashSet;
use std::fmt;

use serde::de::{DeserializeSeed, Error as _, MapAccess, SeqAccess, Visitor};

/// The first key written twice in one object of `text`: its JSON Pointer and line. `None` when
/// there is none (or the text is not JSON; the main parse reports that).
pub fn first_duplicate_key(text: &str) -> Option<(String, usize)> {
    let mut path = Vec::new();
    let mut found = None;
    let mut de = serde_json::Deserializer::from_str(text);
    let walk = Walk {
        path: &mut path,
        found: &mut found,
    };
    match walk.deserialize(&mut de) {
        Err(e) => found.map(|pointer| (pointer, e.line())),
        Ok(()) => None,
    }
}

struct Walk<'a> {
    path: &'a mut Vec<String>,
    found: &'a mut Option<String>,
}

impl Walk<'_> {
    fn child(&mut self) -> Walk<'_> {
        Walk {
            path: self.path,
            found: self.found,
        }
    }
}

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0usize;
        loop {
            self.path.push(i.to_string());
            let more = seq.next_element_seed(self.child())?;
            self.path.pop();
            if more.is_none() {
                return Ok(());
            }
            i += 1;
        }
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<(), A::Error> {
        let mut seen = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            let token = crate::model::pointer::token(&key).into_owned();
            if !seen.insert(key) {
                let pointer: String = self
                    .path
                    .iter()
                    .chain(std::iter::once(&token))
                    .fold(String::new(), |acc, t| acc + "/" + t);
                *self.found = Some(pointer);
                return Err(A::Error::custom("duplicate key"));
            }
            self.path.push(token);
            map.next_value_seed(self.child())?;
            self.path.pop();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_are_found_at_any_depth_with_their_line() {
        assert_eq!(first_duplicate_key(r#"{"a": 1, "b": [{"c": 1}]}"#), None);
        assert_eq!(
            first_duplicate_key("{\"tools\": [],\n\"tools\": []}"),
            Some(("/tools".into(), 2))
        );
        assert_eq!(
            first_duplicate_key(r#"{"a": [{}, {"x/y": {"k": 1, "k": 2}}]}"#).map(|d| d.0),
            Some("/a/1/x~1y/k".into())
        );
        assert_eq!(first_duplicate_key("{not json"), None);
    }
}
