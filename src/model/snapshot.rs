//! `ServerSnapshot`: everything a server shows the model, as one value.
//!
//! The probe produces it from a live server; `mcpvet snapshot -o FILE` saves it; the audit,
//! the lockfile and the reports read it. A saved snapshot file may also be a bare
//! `tools/list` result (`{"tools": [...]}`), optionally with `serverInfo`, `instructions`,
//! `prompts`, `resources` and `resourceTemplates`.
//!
//! Definitions are kept as raw JSON values so nothing the server sent is lost or reordered.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub mod stream;

/// Which generation of the protocol the server spoke.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Era {
    /// 2026-07-28 and later: stateless, `server/discover`, per-request `_meta`.
    Modern,
    /// 2025-11-25 and earlier: `initialize` handshake.
    Legacy,
}

impl std::fmt::Display for Era {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Era::Modern => "modern",
            Era::Legacy => "legacy",
        })
    }
}

/// Which answer decided a probed server's era.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum EraDecider {
    /// `server/discover` returned a DiscoverResult: modern.
    DiscoverResult,
    /// `initialize` returned an InitializeResult: legacy.
    InitializeResult,
}

impl std::fmt::Display for EraDecider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            EraDecider::DiscoverResult => "server/discover returned a DiscoverResult",
            EraDecider::InitializeResult => "initialize returned an InitializeResult",
        })
    }
}

/// How the probe decided the era: always from an answer, never from a clock. The texts are
/// mcpvet's own words (`result`, `error -32601`, `no answer`, `not sent`, `connection
/// closed`, …), never the server's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EraEvidence {
    /// The answer that decided the era.
    pub decided_by: EraDecider,
    /// What `server/discover` got before the era was decided.
    pub discover: String,
    /// What `initialize` got before the era was decided.
    pub initialize: String,
    /// The first process exited or wrote garbage before the era was decided, or refused both
    /// requests, so the era was decided on a fresh one (which got `initialize` alone).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fresh_process: bool,
}

impl std::fmt::Display for EraEvidence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} (server/discover: {}; initialize: {}{})",
            self.decided_by,
            self.discover,
            self.initialize,
            if self.fresh_process {
                "; on a fresh process"
            } else {
                ""
            }
        )
    }
}

/// How the snapshot was obtained, with timings and captured diagnostics.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProbeInfo {
    /// `stdio`, `http`, `sse` (the legacy HTTP+SSE transport of 2024-11-05) or `file`.
    #[serde(default)]
    pub transport: String,
    /// Wall time of the whole probe in milliseconds.
    #[serde(default)]
    pub elapsed_ms: u64,
    /// Time until the first answer in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_response_ms: Option<u64>,
    /// The last bytes the server wrote to stderr (bounded), lossily decoded.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stderr: String,
    /// Notes about the handshake (e.g. why legacy was chosen).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// When this server's time runs out (the probe's start plus `--timeout`): the audit of
    /// what it sent ends by then too. Set by a live probe; never saved.
    #[serde(skip)]
    pub deadline: Option<std::time::Instant>,
}

/// What one server shows the model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerSnapshot {
    /// The server's name as configured (the spec name), or `serverInfo.name`, or the file stem.
    #[serde(default)]
    pub server: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_info: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub era: Option<Era>,
    /// How the probe decided `era` (absent in snapshot files written before it was
    /// recorded, and in bare `tools/list` files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub era_evidence: Option<EraEvidence>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    #[serde(default, deserialize_with = "compact::list")]
    pub tools: Vec<Value>,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "compact::list"
    )]
    pub prompts: Vec<Value>,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "compact::list"
    )]
    pub resources: Vec<Value>,
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "compact::list"
    )]
    pub resource_templates: Vec<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<ProbeInfo>,
    /// Set when the definitions (`tools`, `prompts`, `resources`, `resourceTemplates`) were
    /// left in the snapshot file rather than read into the lists above, which are then empty:
    /// [`ServerSnapshot::load_deferred`], for an offline scan that reads them one by one
    /// ([`stream::each_definition`]) instead of holding them all. Never saved.
    #[serde(skip)]
    pub deferred: Option<Deferred>,
}

/// Where a snapshot's definitions are when they were not read into it, and how many of each
/// kind the file held when its shell was read (a second reading must find the same).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Deferred {
    pub path: std::path::PathBuf,
    /// Tools, prompts, resources, resource templates.
    pub counts: [usize; 4],
    /// The outline parts of the first definitions, when they were read while the file was
    /// skimmed ([`stream::Outlined`]; never compared).
    pub outlined: stream::Outlined,
}

/// Why a snapshot file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    #[error("cannot read snapshot {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("snapshot {path} is not valid JSON at line {line}, column {column}: {message}")]
    Json {
        path: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error(
        "snapshot {path} holds more than {cap} tools, prompts and resources, the limit per snapshot (raise it with --max-items N if this server really has that many)"
    )]
    TooManyItems { path: String, cap: usize },
    #[error(
        "snapshot {path} changed while it was read ({why}): its definitions were not all audited; scan it again once nothing writes to it"
    )]
    Changed { path: String, why: String },
    #[error(
        "snapshot {path}: field `{field}` {problem} (expected a tools/list result such as {{\"tools\": [...]}} or a file written by `mcpvet snapshot`)"
    )]
    Shape {
        path: String,
        field: String,
        problem: String,
    },
}

/// Telling a snapshot file and counting its definitions before building them: a million tools would take gigabytes
/// as values, so the count is taken on the text, without keeping anything.
pub mod items {
    use std::fmt;

    use serde::de::{DeserializeSeed, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor};

    /// Does the snapshot text hold more than `cap` tools, prompts, resources and resource
    /// templates (at the top, or in the `result` of a JSON-RPC response)? Text that is not
    /// JSON is left to the parse that follows.
    pub fn over(text: &str, cap: usize) -> bool {
        survey(text, cap).over
    }

    /// What one pass over a snapshot's text tells, without building any value: whether it
    /// holds more than `cap` definitions (as [`over`]), and — when the text is one valid JSON
    /// object — which of the keys that decide how it is read stand at its top.
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
    pub struct Survey {
        pub over: bool,
        /// The text is one JSON object, read to its end without error.
        pub object: bool,
        pub tools: bool,
        pub prompts: bool,
        pub resources: bool,
        pub jsonrpc: bool,
        pub result: bool,
    }

    /// One pass over `text`: see [`Survey`].
    pub fn survey(text: &str, cap: usize) -> Survey {
        let mut count = 0usize;
        let mut keys = Survey::default();
        let mut de = serde_json::Deserializer::from_str(text);
        let root = Root {
            count: &mut count,
            cap,
            keys: Some(&mut keys),
        };
        let read = root.deserialize(&mut de).is_ok() && de.end().is_ok();
        keys.object &= read;
        keys.over = count > cap;
        keys
    }

    /// Does `text` look like a snapshot (an object with a top-level `tools` array, or a
    /// JSON-RPC response with a `result`)? Read without building any value, so a huge file
    /// costs no memory to tell.
    pub fn looks_like_snapshot(text: &str) -> bool {
        let mut de = serde_json::Deserializer::from_str(text);
        serde::Deserializer::deserialize_any(&mut de, Shape)
            .is_ok_and(|(tools, jsonrpc, result)| tools || (jsonrpc && result))
    }

    /// [`looks_like_snapshot`] over a file, read through a buffer: a snapshot of any size is
    /// told without holding its text. `false` when the file cannot be opened or read as one.
    pub fn file_looks_like_snapshot(path: &std::path::Path) -> bool {
        use crate::model::fsio::{ReadKind, open_regular};
        use std::io::Read;
        // The fast way: the skeleton (definitions replaced by `0`, each checked as JSON) read
        // from memory, the same answer for a file that is one valid JSON object; anything
        // else is read through a buffer as before.
        if let Some(skimmed) = super::stream::skim(path, usize::MAX) {
            let mut de = serde_json::Deserializer::from_slice(&skimmed.skeleton);
            let told = serde::Deserializer::deserialize_any(&mut de, Shape)
                .ok()
                .filter(|_| de.end().is_ok());
            if let Some((tools, jsonrpc, result)) = told {
                let snapshot = tools || (jsonrpc && result);
                if snapshot {
                    // Its shell is read next: kept, so that the file is not skimmed again.
                    super::stream::remember(path, skimmed);
                }
                return snapshot;
            }
        }
        let Ok((file, _)) = open_regular(path, ReadKind::Snapshot) else {
            return false;
        };
        let reader = std::io::BufReader::with_capacity(
            1 << 16,
            file.take(ReadKind::Snapshot.cap().saturating_add(1)),
        );
        let mut de = serde_json::Deserializer::from_reader(reader);
        serde::Deserializer::deserialize_any(&mut de, Shape)
            .is_ok_and(|(tools, jsonrpc, result)| tools || (jsonrpc && result))
    }

    /// (has a `tools` array, has `jsonrpc`, has `result`) of a JSON object.
    struct Shape;

    impl<'de> Visitor<'de> for Shape {
        type Value = (bool, bool, bool);
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let (mut tools, mut jsonrpc, mut result) = (false, false, false);
            while let Some(key) = map.next_key::<String>()? {
                match key.as_str() {
                    "tools" => tools = map.next_value::<IsArray>()?.0,
                    other => {
                        jsonrpc |= other == "jsonrpc";
                        result |= other == "result";
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            Ok((tools, jsonrpc, result))
        }
    }

    /// Whether a value is an array (its content skipped).
    struct IsArray(bool);

    impl<'de> serde::Deserialize<'de> for IsArray {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = IsArray;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("any value")
                }
                fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<IsArray, A::Error> {
                    while seq.next_element::<IgnoredAny>()?.is_some() {}
                    Ok(IsArray(true))
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<IsArray, A::Error> {
                    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                    Ok(IsArray(false))
                }
                fn visit_str<E>(self, _: &str) -> Result<IsArray, E> {
                    Ok(IsArray(false))
                }
                fn visit_bool<E>(self, _: bool) -> Result<IsArray, E> {
                    Ok(IsArray(false))
                }
                fn visit_u64<E>(self, _: u64) -> Result<IsArray, E> {
                    Ok(IsArray(false))
                }
                fn visit_i64<E>(self, _: i64) -> Result<IsArray, E> {
                    Ok(IsArray(false))
                }
                fn visit_f64<E>(self, _: f64) -> Result<IsArray, E> {
                    Ok(IsArray(false))
                }
                fn visit_unit<E>(self) -> Result<IsArray, E> {
                    Ok(IsArray(false))
                }
            }
            d.deserialize_any(V)
        }
    }

    struct Root<'a> {
        count: &'a mut usize,
        cap: usize,
        /// Where to note the top-level keys (`None` below the top).
        keys: Option<&'a mut Survey>,
    }

    impl<'de> DeserializeSeed<'de> for Root<'_> {
        type Value = ();
        fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_any(self)
        }
    }

    impl<'de> Visitor<'de> for Root<'_> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a snapshot object")
        }
        fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<(), A::Error> {
            if let Some(k) = self.keys.as_deref_mut() {
                k.object = true;
            }
            while let Some(key) = map.next_key::<String>()? {
                if let Some(k) = self.keys.as_deref_mut() {
                    match key.as_str() {
                        "tools" => k.tools = true,
                        "prompts" => k.prompts = true,
                        "resources" => k.resources = true,
                        "jsonrpc" => k.jsonrpc = true,
                        "result" => k.result = true,
                        _ => {}
                    }
                }
                match key.as_str() {
                    "tools" | "prompts" | "resources" | "resourceTemplates" => {
                        map.next_value_seed(List {
                            count: &mut *self.count,
                            cap: self.cap,
                        })?;
                    }
                    "result" => map.next_value_seed(Root {
                        count: &mut *self.count,
                        cap: self.cap,
                        keys: None,
                    })?,
                    _ => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            Ok(())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<(), A::Error> {
            Ok(())
        }
        fn visit_str<E>(self, _: &str) -> Result<(), E> {
            Ok(())
        }
    }

    struct List<'a> {
        count: &'a mut usize,
        cap: usize,
    }

    impl<'de> DeserializeSeed<'de> for List<'_> {
        type Value = ();
        fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_any(self)
        }
    }

    impl<'de> Visitor<'de> for List<'_> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a list of definitions")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {
                *self.count += 1;
                if *self.count > self.cap {
                    return Err(A::Error::custom("too many items"));
                }
            }
            Ok(())
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(())
        }
        fn visit_str<E>(self, _: &str) -> Result<(), E> {
            Ok(())
        }
        fn visit_bool<E>(self, _: bool) -> Result<(), E> {
            Ok(())
        }
        fn visit_u64<E>(self, _: u64) -> Result<(), E> {
            Ok(())
        }
        fn visit_i64<E>(self, _: i64) -> Result<(), E> {
            Ok(())
        }
        fn visit_f64<E>(self, _: f64) -> Result<(), E> {
            Ok(())
        }
        fn visit_unit<E>(self) -> Result<(), E> {
            Ok(())
        }
    }
}

/// Definitions read into values whose objects and arrays hold no spare room: the same values
/// `serde_json` builds (same keys, same order, same numbers; a repeated key keeps its first
/// place and its last value), but each object's table and each array sized to what it holds
/// rather than grown by doubling. A saved snapshot of many tools is mostly such small objects,
/// so this is a good part of the memory a large offline scan needs.
mod compact {
    use std::fmt;

    use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
    use serde_json::{Map, Number, Value};

    /// A list of definitions (`tools`, `prompts`, …).
    pub fn list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Value>, D::Error> {
        d.deserialize_seq(List)
    }

    struct List;

    impl<'de> Visitor<'de> for List {
        type Value = Vec<Value>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a sequence")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Value>, A::Error> {
            let mut out = Vec::new();
            while let Some(v) = seq.next_element_seed(Compact)? {
                out.push(v);
            }
            out.shrink_to_fit();
            Ok(out)
        }
    }

    /// One value, compact all the way down.
    #[derive(Clone, Copy)]
    struct Compact;

    impl<'de> DeserializeSeed<'de> for Compact {
        type Value = Value;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
            d.deserialize_any(self)
        }
    }

    impl<'de> Visitor<'de> for Compact {
        type Value = Value;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("any valid JSON value")
        }
        fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
            Ok(Value::Bool(v))
        }
        fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
            Ok(Value::Number(v.into()))
        }
        fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
            Ok(Value::Number(v.into()))
        }
        fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
            Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
        }
        fn visit_str<E>(self, v: &str) -> Result<Value, E> {
            Ok(Value::String(v.to_owned()))
        }
        fn visit_string<E>(self, mut v: String) -> Result<Value, E> {
            v.shrink_to_fit();
            Ok(Value::String(v))
        }
        fn visit_none<E>(self) -> Result<Value, E> {
            Ok(Value::Null)
        }
        fn visit_unit<E>(self) -> Result<Value, E> {
            Ok(Value::Null)
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
            d.deserialize_any(self)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
            let mut out = Vec::new();
            while let Some(v) = seq.next_element_seed(self)? {
                out.push(v);
            }
            out.shrink_to_fit();
            Ok(Value::Array(out))
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
            let mut entries: Vec<(String, Value)> = Vec::new();
            while let Some(key) = map.next_key::<String>()? {
                let value = map.next_value_seed(self)?;
                entries.push((key, value));
            }
            let mut out = Map::with_capacity(entries.len());
            for (k, v) in entries {
                out.insert(k, v);
            }
            Ok(Value::Object(out))
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn compact_values_are_the_values_serde_json_builds() {
            for text in [
                r#"[{"name":"a","inputSchema":{"type":"object","properties":{"z":{"enum":["x",1,-2,1.5,null,true]},"a":{}}}}]"#,
                r#"[{"b":1,"a":2,"b":3}, [], {}, "s\u00e9\n", 12345678901234567890, -0, 1e300, 0.1]"#,
                r#"[{"k":[[[{"deep":[1,2,{"x":"y"}]}]]]}]"#,
            ] {
                let mut de = serde_json::Deserializer::from_str(text);
                let compact = list(&mut de).unwrap();
                let plain: Vec<Value> = serde_json::from_str(text).unwrap();
                assert_eq!(compact, plain, "{text}");
                // The same order of keys, too (equality of maps ignores it).
                assert_eq!(
                    serde_json::to_string(&compact).unwrap(),
                    serde_json::to_string(&plain).unwrap()
                );
                // And read back from a value (the checked path) the same way.
                let again = list(Value::Array(plain.clone())).unwrap();
                assert_eq!(
                    serde_json::to_string(&again).unwrap(),
                    serde_json::to_string(&plain).unwrap()
                );
            }
            let mut de = serde_json::Deserializer::from_str(r#"{"a":1}"#);
            assert!(list(&mut de).is_err());
        }
    }
}

impl ServerSnapshot {
    /// The name the server reports for itself, if any.
    pub fn reported_name(&self) -> Option<&str> {
        self.server_info
            .as_ref()
            .and_then(|i| i.get("name"))
            .and_then(Value::as_str)
    }

    /// Why this snapshot's era cannot be compared with a lock's, if it cannot: it records no
    /// era (a bare `tools/list` file, or a server whose era nothing decided). Era and protocol
    /// version drift are then not reported; the caller says so instead.
    pub fn undecided_era(&self) -> Option<&'static str> {
        if self.era.is_none() {
            Some("the snapshot records no era (nothing decided it)")
        } else {
            None
        }
    }

    /// The name of a tool, prompt or resource definition (`name`, else `uri`/`uriTemplate`).
    pub fn item_name(item: &Value) -> &str {
        item.get("name")
            .or_else(|| item.get("uri"))
            .or_else(|| item.get("uriTemplate"))
            .and_then(Value::as_str)
            .unwrap_or("")
    }

    /// Parse a snapshot from JSON text. `path` names the file in errors and supplies the
    /// fallback server name (its stem).
    pub fn from_json_str(text: &str, path: &Path) -> Result<Self, SnapshotError> {
        let shown = path.display().to_string();
        let cap = crate::model::fsio::max_items();
        let survey = items::survey(text, cap);
        if survey.over {
            return Err(SnapshotError::TooManyItems { path: shown, cap });
        }
        // The common case, a valid snapshot object, is read straight into the snapshot: no
        // intermediate tree of values rebuilt a second time (that doubled the time and the
        // peak memory of reading a large file). Anything else, and any text the typed read
        // refuses, takes the checked path below, which names the problem.
        if survey.object
            && !(survey.jsonrpc && survey.result)
            && (survey.tools || survey.prompts || survey.resources)
        {
            if let Ok(snap) = serde_json::from_str::<ServerSnapshot>(text) {
                return Ok(Self::named(snap, path));
            }
        }
        Self::checked(text, path)
    }

    /// [`ServerSnapshot::from_json_str`] by way of a tree of values, each shape checked:
    /// slower, and the one that says what is wrong.
    fn checked(text: &str, path: &Path) -> Result<Self, SnapshotError> {
        let shown = path.display().to_string();
        let value: Value = serde_json::from_str(text).map_err(|e| SnapshotError::Json {
            path: shown.clone(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
        let Value::Object(map) = &value else {
            return Err(SnapshotError::Shape {
                path: shown,
                field: "(root)".into(),
                problem: "is not an object".into(),
            });
        };
        // A raw JSON-RPC response holding a tools/list result is accepted too.
        if let Some(result) = map.get("result").filter(|_| map.contains_key("jsonrpc")) {
            let text = result.to_string();
            return Self::from_json_str(&text, path);
        }
        for (field, want_array) in [
            ("tools", true),
            ("prompts", true),
            ("resources", true),
            ("resourceTemplates", true),
            ("instructions", false),
        ] {
            if let Some(v) = map.get(field) {
                let ok = if want_array {
                    v.is_array()
                } else {
                    v.is_string() || v.is_null()
                };
                if !ok {
                    return Err(SnapshotError::Shape {
                        path: shown,
                        field: field.into(),
                        problem: if want_array {
                            "must be an array".into()
                        } else {
                            "must be a string".into()
                        },
                    });
                }
            }
        }
        if !map.contains_key("tools")
            && !map.contains_key("prompts")
            && !map.contains_key("resources")
        {
            return Err(SnapshotError::Shape {
                path: shown,
                field: "tools".into(),
                problem: "is missing".into(),
            });
        }
        let snap: ServerSnapshot =
            serde_json::from_value(value).map_err(|e| SnapshotError::Shape {
                path: shown.clone(),
                field: "(root)".into(),
                problem: e.to_string(),
            })?;
        Ok(Self::named(snap, path))
    }

    /// A snapshot read from `path`, named (its own `server`, else `serverInfo.name`, else
    /// the file stem) and marked as read from a file when it records no probe.
    fn named(mut snap: ServerSnapshot, path: &Path) -> Self {
        if snap.server.is_empty() {
            snap.server = snap
                .reported_name()
                .map(str::to_owned)
                .or_else(|| {
                    path.file_stem()
                        .map(|s| s.to_string_lossy().trim_end_matches(".snapshot").to_owned())
                })
                .unwrap_or_else(|| "unnamed".into());
        }
        if snap.probe.is_none() {
            snap.probe = Some(ProbeInfo {
                transport: "file".into(),
                ..ProbeInfo::default()
            });
        }
        snap
    }

    /// Read a snapshot file.
    pub fn load(path: &Path) -> Result<Self, SnapshotError> {
        // Read whole: what telling the file kept for reading it deferred is not needed.
        stream::forget(path);
        let text = crate::model::fsio::read_text(path, crate::model::fsio::ReadKind::Snapshot)
            .map_err(|source| SnapshotError::Io {
                path: path.display().to_string(),
                source,
            })?;
        Self::from_json_str(&text, path)
    }

    /// Read a snapshot file's shell only, its definitions left in the file (see [`stream`]):
    /// `deferred` says where they are and how many. A file of another shape is read whole, as
    /// [`ServerSnapshot::load`] reads it (same snapshot, same errors).
    pub fn load_deferred(path: &Path) -> Result<Self, SnapshotError> {
        match stream::shell(path)? {
            Some(shell) => Ok(shell),
            None => Self::load(path),
        }
    }

    /// This snapshot with its definitions read in, when they were deferred (the file read
    /// whole again, keeping this snapshot's `server` name); otherwise a copy.
    pub fn materialized(&self) -> Result<Self, SnapshotError> {
        match &self.deferred {
            Some(d) => {
                let mut full = Self::load(&d.path)?;
                full.server = self.server.clone();
                Ok(full)
            }
            None => Ok(self.clone()),
        }
    }

    /// How many tools, prompts and resources (with templates) the server shows, deferred or
    /// not.
    pub fn counts(&self) -> (usize, usize, usize) {
        match &self.deferred {
            Some(d) => (d.counts[0], d.counts[1], d.counts[2] + d.counts[3]),
            None => (
                self.tools.len(),
                self.prompts.len(),
                self.resources.len() + self.resource_templates.len(),
            ),
        }
    }

    /// Pretty JSON for saving with `mcpvet snapshot -o FILE`.
    pub fn to_pretty_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_else(|_| "{}".into());
        s.push('\n');
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_tools_list_takes_name_from_server_info_then_stem() {
        let s = ServerSnapshot::from_json_str(
            r#"{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}"#,
            Path::new("dir/tracker.json"),
        )
        .unwrap();
        assert_eq!(s.server, "tracker");
        assert_eq!(s.tools.len(), 1);
        let s = ServerSnapshot::from_json_str(
            r#"{"serverInfo":{"name":"x","version":"1"},"tools":[]}"#,
            Path::new("dir/tracker.json"),
        )
        .unwrap();
        assert_eq!(s.server, "x");
    }

    #[test]
    fn the_direct_read_gives_what_the_checked_read_gives() {
        let path = Path::new("dir/s.snapshot.json");
        for text in [
            r#"{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"z":{},"a":{}}}}]}"#,
            r#"{"server":"x","era":"modern","protocolVersion":"2026-07-28","instructions":null,"tools":[],"prompts":[{"name":"p"}],"extra":1}"#,
            r#"{"serverInfo":{"name":"n","version":"1"},"instructions":"Hi","resources":[{"uri":"file:///a"}],"probe":{"transport":"stdio","elapsedMs":3}}"#,
            r#"{"tools":[{"name":"a"}],"tools":[{"name":"b"}]}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"r"}]}}"#,
            r#"{"tools":{}}"#,
            r#"{"tools":[],"instructions":3}"#,
            r#"{"tools":[],"era":"future"}"#,
            r#"{"result":{"tools":[]}}"#,
            r#"{"tools":[1.5e300, 0.1, -0, 12345678901234567890]} "#,
            "{\"tools\": [,]}",
            "[]",
        ] {
            let direct = ServerSnapshot::from_json_str(text, path).map_err(|e| e.to_string());
            let checked = ServerSnapshot::checked(text, path).map_err(|e| e.to_string());
            assert_eq!(direct, checked, "{text}");
        }
    }

    #[test]
    fn bad_shapes_name_the_field() {
        let e = ServerSnapshot::from_json_str(r#"{"tools":{}}"#, Path::new("f.json"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("`tools` must be an array"), "{e}");
        let e = ServerSnapshot::from_json_str("{\n\"tools\": [,]}", Path::new("f.json"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 2"), "{e}");
        let e = ServerSnapshot::from_json_str("{}", Path::new("f.json"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("`tools` is missing"), "{e}");
    }

    #[test]
    fn snapshots_over_the_item_cap_are_refused_before_they_are_built() {
        let cap = crate::model::fsio::DEFAULT_MAX_ITEMS;
        let list = |n: usize| format!("[{}]", vec!["{\"name\":\"t\"}"; n].join(","));
        let at_cap = format!("{{\"tools\": {}}}", list(cap));
        assert!(!items::over(&at_cap, cap));
        let split = format!("{{\"tools\": {}, \"prompts\": {}}}", list(cap), list(1));
        assert!(items::over(&split, cap));
        let rpc = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"tools\":{}}}}}",
            list(cap + 1)
        );
        assert!(items::over(&rpc, cap));
        let e = ServerSnapshot::from_json_str(&rpc, Path::new("big.json"))
            .expect_err("over the cap")
            .to_string();
        assert!(
            e.contains("big.json") && e.contains("10000") && e.contains("--max-items"),
            "{e}"
        );
    }

    #[test]
    fn snapshot_shape_is_told_without_building_values() {
        assert!(items::looks_like_snapshot(
            r#"{"x": {"a": [1]}, "tools": []}"#
        ));
        assert!(items::looks_like_snapshot(
            r#"{"jsonrpc": "2.0", "id": 1, "result": {}}"#
        ));
        assert!(!items::looks_like_snapshot(r#"{"tools": {}}"#));
        assert!(!items::looks_like_snapshot(r#"{"mcpServers": {}}"#));
        assert!(!items::looks_like_snapshot(r#"{"result": {}}"#));
        assert!(!items::looks_like_snapshot("[1]"));
        assert!(!items::looks_like_snapshot("{nope"));
    }

    #[test]
    fn round_trips() {
        let s = ServerSnapshot {
            server: "ci".into(),
            era: Some(Era::Modern),
            protocol_version: Some("2026-07-28".into()),
            tools: vec![serde_json::json!({"name": "t"})],
            ..Default::default()
        };
        let back = ServerSnapshot::from_json_str(&s.to_pretty_json(), Path::new("x.json")).unwrap();
        assert_eq!(back.server, "ci");
        assert_eq!(back.era, Some(Era::Modern));
    }
}
