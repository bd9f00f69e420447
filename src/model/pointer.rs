//! JSON Pointers (RFC 6901): the one way every family names a place inside a definition or a
//! config entry (`/tools/3/inputSchema/properties/x/description`, `/env/GITHUB_TOKEN`).

/// Escape one reference token (`~` → `~0`, `/` → `~1`). Borrowed when nothing needs
/// escaping (almost every key), so building a pointer allocates only the pointer itself.
pub fn token(s: &str) -> std::borrow::Cow<'_, str> {
    // (Both are ASCII: a test of each byte, not of each character. Keys are short: a vector
    // search costs more to set up than the loop.)
    if s.bytes().any(|b| b == b'~' || b == b'/') {
        std::borrow::Cow::Owned(s.replace('~', "~0").replace('/', "~1"))
    } else {
        std::borrow::Cow::Borrowed(s)
    }
}

/// Unescape one reference token (`~1` → `/`, `~0` → `~`, in that order, as [`get`] reads a
/// token). Borrowed when it holds no `~` (almost every token).
pub fn unescape(token: &str) -> std::borrow::Cow<'_, str> {
    if token.contains('~') {
        std::borrow::Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
    } else {
        std::borrow::Cow::Borrowed(token)
    }
}

/// The member `key` of a JSON object: the same answer as `Map::get`, found by comparing the
/// keys of a small object one by one instead of hashing `key` (SipHash, with the order-keeping
/// map the crate uses: a definition's objects hold a handful of keys, and the audit asks each
/// of them for a few keys many times over).
pub fn member<'v>(
    map: &'v serde_json::Map<String, serde_json::Value>,
    key: &str,
) -> Option<&'v serde_json::Value> {
    /// Up to this many keys, a linear search costs less than hashing the key.
    const LINEAR: usize = 8;
    if map.len() <= LINEAR {
        map.iter().find(|(k, _)| k.as_str() == key).map(|(_, v)| v)
    } else {
        map.get(key)
    }
}

/// [`member`] as a method of a value (`None` unless it is an object), for chains:
/// `tool.field("inputSchema").and_then(|s| s.field("properties"))` answers as
/// `Value::get` does.
pub trait Field {
    fn field(&self, key: &str) -> Option<&serde_json::Value>;
}

impl Field for serde_json::Value {
    fn field(&self, key: &str) -> Option<&serde_json::Value> {
        match self {
            serde_json::Value::Object(map) => member(map, key),
            _ => None,
        }
    }
}

impl Field for serde_json::Map<String, serde_json::Value> {
    fn field(&self, key: &str) -> Option<&serde_json::Value> {
        member(self, key)
    }
}

/// The value `pointer` names inside `value`: the same answer as `Value::pointer`, without
/// an allocation per reference token (a token is unescaped only when it holds a `~`).
///
/// The tokens are cut by one pass over the bytes that also notes each one's `~` (a
/// definition's pointers are short: a search for the next `/` and another for a `~` in each
/// token cost more than reading its few bytes); [`get_by_split`] is the oracle.
pub fn get<'v>(value: &'v serde_json::Value, pointer: &str) -> Option<&'v serde_json::Value> {
    use serde_json::Value;
    if pointer.is_empty() {
        return Some(value);
    }
    let rest = pointer.strip_prefix('/')?;
    let bytes = rest.as_bytes();
    let mut target = value;
    let mut from = 0usize;
    loop {
        // One token: up to the next `/` or the end (a `/` is ASCII, so both ends are
        // character boundaries).
        let mut to = from;
        let mut tilde = false;
        while let Some(&b) = bytes.get(to) {
            if b == b'/' {
                break;
            }
            tilde |= b == b'~';
            to += 1;
        }
        let raw = rest.get(from..to)?;
        let unescaped;
        let token: &str = if tilde {
            unescaped = raw.replace("~1", "/").replace("~0", "~");
            &unescaped
        } else {
            raw
        };
        target = match target {
            Value::Object(map) => member(map, token)?,
            Value::Array(list) => {
                // (As `Value::pointer` reads an index: no sign, no leading zero.)
                if token.starts_with('+') || (token.starts_with('0') && token.len() != 1) {
                    return None;
                }
                list.get(token.parse::<usize>().ok()?)?
            }
            _ => return None,
        };
        if to >= bytes.len() {
            return Some(target);
        }
        from = to + 1;
    }
}

/// [`get`] as first written: the tokens cut by `split('/')`, each searched for a `~`.
#[cfg(test)]
fn get_by_split<'v>(value: &'v serde_json::Value, pointer: &str) -> Option<&'v serde_json::Value> {
    use serde_json::Value;
    if pointer.is_empty() {
        return Some(value);
    }
    let rest = pointer.strip_prefix('/')?;
    let mut target = value;
    for raw in rest.split('/') {
        let unescaped;
        let token: &str = if raw.contains('~') {
            unescaped = raw.replace("~1", "/").replace("~0", "~");
            &unescaped
        } else {
            raw
        };
        target = match target {
            Value::Object(map) => member(map, token)?,
            Value::Array(list) => {
                // (As `Value::pointer` reads an index: no sign, no leading zero.)
                if token.starts_with('+') || (token.starts_with('0') && token.len() != 1) {
                    return None;
                }
                list.get(token.parse::<usize>().ok()?)?
            }
            _ => return None,
        };
    }
    Some(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn get_reads_as_value_pointer_does() {
        let v = serde_json::json!({"a": {"b/c": [1, {"d~e": 2}], "": 3, "0": 4}, "x": [5, 6]});
        for p in [
            "",
            "/",
            "/a",
            "/a/b~1c",
            "/a/b~1c/0",
            "/a/b~1c/1/d~0e",
            "/a/",
            "/a/0",
            "/x/1",
            "/x/01",
            "/x/+1",
            "/x/2",
            "/x/-1",
            "a",
            "/a/b~1c/1/d~0e/z",
            "/x/1/y",
            "/q",
            "/a/b~01c",
            "/x/00",
            "/x/0",
        ] {
            assert_eq!(get(&v, p), v.pointer(p), "{p}");
        }
    }

    proptest::proptest! {
        /// `field` (a linear search in a small object, a hash look-up in a large one) answers
        /// as `Value::get`, the look-up it replaces, for objects of every size around the
        /// switch, keys present and absent.
        #[test]
        fn field_answers_as_value_get(
            keys in proptest::collection::vec("[a-c~/]{0,3}", 0..20),
            asked in proptest::collection::vec("[a-c~/]{0,3}", 1..8),
        ) {
            let mut map = serde_json::Map::new();
            for (i, k) in keys.iter().enumerate() {
                map.insert(k.clone(), serde_json::Value::from(i));
            }
            let v = serde_json::Value::Object(map.clone());
            for k in asked.iter().chain(&keys) {
                proptest::prop_assert_eq!(v.field(k), v.get(k.as_str()));
                proptest::prop_assert_eq!(map.field(k), map.get(k.as_str()));
            }
            let not_object = serde_json::json!([1, 2]);
            proptest::prop_assert_eq!(not_object.field("a"), None);
        }
    }

    proptest::proptest! {
        /// The one-pass tokens find what `split('/')` found, and what `Value::pointer` finds,
        /// for pointers of every shape over a nested value: empty tokens, escapes, indices.
        #[test]
        fn get_answers_as_split_and_value_pointer(
            pointer in "(/[ab01~/é+-]{0,3}){0,5}|[ab/]{0,4}",
        ) {
            let v = serde_json::json!({
                "a": {"b": [1, {"a": 2, "~": {"/": 3}}], "": {"0": 4, "b~1": 5}, "01": 6},
                "b": [[7, 8], {"é": 9, "": [10]}],
                "~1": {"a/b": 11},
                "+1": 12,
            });
            proptest::prop_assert_eq!(get(&v, &pointer), get_by_split(&v, &pointer));
            proptest::prop_assert_eq!(get(&v, &pointer), v.pointer(&pointer));
        }
    }

    #[test]
    fn tokens_escape_tilde_before_slash() {
        assert_eq!(token("a/b~c"), "a~1b~0c");
        assert_eq!(token("~1"), "~01");
        assert_eq!(token("plain"), "plain");
    }
}
