//! JSON Schema for the kit: tool `inputSchema`/`outputSchema` compiled once at registration
//! with the `jsonschema` crate (2020-12 unless the schema names another dialect), and the
//! `x-mcp-header` declarations read from an input schema.
//!
//! The crate is built without its HTTP and file retrievers, so a `$ref` to anything outside
//! the schema itself fails at registration ([`SchemaError`]) instead of being fetched or
//! treated as permissive.

use std::fmt;
use std::sync::Arc;

use serde_json::Value;

/// Why a schema or an `x-mcp-header` declaration was refused at registration.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SchemaError(pub String);

/// A compiled schema (cheap to clone).
#[derive(Clone)]
pub struct CompiledSchema {
    validator: Arc<jsonschema::Validator>,
}

impl fmt::Debug for CompiledSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CompiledSchema")
    }
}

/// How many validation failures a message lists before `…`.
const LISTED_ERRORS: usize = 5;

impl CompiledSchema {
    /// Compile `schema`; an unresolvable (e.g. network) `$ref` or an invalid schema is an error.
    pub fn compile(schema: &Value) -> Result<Self, SchemaError> {
        let validator = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .build(schema)
            .map_err(|e| SchemaError(e.to_string()))?;
        Ok(CompiledSchema {
            validator: Arc::new(validator),
        })
    }

    /// `Ok` when `instance` is valid; otherwise the failures, `at /path: message; …`.
    pub fn check(&self, instance: &Value) -> Result<(), String> {
        if self.validator.is_valid(instance) {
            return Ok(());
        }
        let mut parts = Vec::new();
        let mut more = false;
        for (i, error) in self.validator.iter_errors(instance).enumerate() {
            if i == LISTED_ERRORS {
                more = true;
                break;
            }
            let path = error.instance_path().to_string();
            let path = if path.is_empty() { "/".into() } else { path };
            parts.push(format!("at {path}: {error}"));
        }
        let mut text = parts.join("; ");
        if more {
            text.push_str("; …");
        }
        Err(text)
    }
}

/// One top-level argument mirrored into an `Mcp-Param-<header>` HTTP header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MirroredParam {
    /// The argument (property) name.
    pub argument: String,
    /// The header suffix (`Region` for `Mcp-Param-Region`).
    pub header: String,
}

impl MirroredParam {
    /// The full header name, `Mcp-Param-<header>`.
    pub fn header_name(&self) -> String {
        format!("Mcp-Param-{}", self.header)
    }
}

/// Argument names a client must never copy into a header.
const SECRET_WORDS: &[&str] = &["password", "secret", "token", "authorization"];

/// The `x-mcp-header` declarations of an input schema's top-level properties, checked: the
/// value is a non-empty HTTP token, unique (case-insensitively), on a `string`, `integer` or
/// `boolean` property whose name and header do not look like a credential.
pub fn mirrored_params(input_schema: &Value) -> Result<Vec<MirroredParam>, SchemaError> {
    let mut out: Vec<MirroredParam> = Vec::new();
    let Some(properties) = input_schema.get("properties").and_then(Value::as_object) else {
        return Ok(out);
    };
    for (argument, property) in properties {
        let Some(declared) = property.get("x-mcp-header") else {
            continue;
        };
        let where_ = format!("inputSchema.properties.{argument}.x-mcp-header");
        let Some(header) = declared.as_str() else {
            return Err(SchemaError(format!("{where_} must be a string")));
        };
        if header.is_empty() || !header.bytes().all(is_token_byte) {
            return Err(SchemaError(format!(
                "{where_} {header:?} is not a valid HTTP header name part"
            )));
        }
        let kind = property.get("type").and_then(Value::as_str);
        if !matches!(kind, Some("string" | "integer" | "boolean")) {
            return Err(SchemaError(format!(
                "{where_}: only string, integer or boolean arguments may be mirrored into a header"
            )));
        }
        let lower = format!("{} {}", argument.to_lowercase(), header.to_lowercase());
        if let Some(word) = SECRET_WORDS.iter().find(|w| lower.contains(*w)) {
            return Err(SchemaError(format!(
                "{where_}: argument {argument:?} looks like a credential ({word}); it must not be copied into a header"
            )));
        }
        if out.iter().any(|p| p.header.eq_ignore_ascii_case(header)) {
            return Err(SchemaError(format!(
                "{where_}: header {header:?} is declared twice"
            )));
        }
        out.push(MirroredParam {
            argument: argument.clone(),
            header: header.to_string(),
        });
    }
    Ok(out)
}

fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// The text a mirrored argument's value is sent as (before any `=?base64?…?=` encoding):
/// strings as they are, integers in decimal, booleans as `true`/`false`; `None` otherwise.
pub fn header_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) if n.is_i64() || n.is_u64() => Some(n.to_string()),
        Value::Number(n) => super::rpc::number_is_integer(n)
            .then(|| n.as_f64().map(|f| format!("{f:.0}")))
            .flatten(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn validates_2020_12_and_lists_failures() {
        let schema = CompiledSchema::compile(&json!({
            "type": "object",
            "properties": {"a": {"type": "number"}, "t": {"prefixItems": [{"const": 1}]}},
            "required": ["a"],
            "additionalProperties": false
        }))
        .unwrap();
        assert_eq!(schema.check(&json!({"a": 1})), Ok(()));
        let err = schema.check(&json!({"a": "x"})).unwrap_err();
        assert!(err.contains("at /a:"), "{err}");
        assert!(schema.check(&json!({"a": 1, "t": [2]})).is_err());
        assert!(schema.check(&json!({})).unwrap_err().contains("\"a\""));
    }

    #[test]
    fn a_network_ref_is_refused_at_compile_time() {
        let err =
            CompiledSchema::compile(&json!({"$ref": "https://127.0.0.1:9/s.json"})).unwrap_err();
        assert!(!err.0.is_empty());
        let local = json!({"$defs": {"n": {"type": "integer"}}, "$ref": "#/$defs/n"});
        assert!(
            CompiledSchema::compile(&local)
                .unwrap()
                .check(&json!(2))
                .is_ok()
        );
    }

    #[test]
    fn mirrored_params_are_checked() {
        let ok = json!({"properties": {"region": {"type": "string", "x-mcp-header": "Region"}}});
        assert_eq!(
            mirrored_params(&ok).unwrap(),
            vec![MirroredParam {
                argument: "region".into(),
                header: "Region".into()
            }]
        );
        for bad in [
            json!({"properties": {"r": {"type": "string", "x-mcp-header": ""}}}),
            json!({"properties": {"r": {"type": "string", "x-mcp-header": "a b"}}}),
            json!({"properties": {"r": {"type": "object", "x-mcp-header": "R"}}}),
            json!({"properties": {"api_token": {"type": "string", "x-mcp-header": "T"}}}),
            json!({"properties": {"r": {"type": "string", "x-mcp-header": 3}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "R"},
                                  "b": {"type": "string", "x-mcp-header": "r"}}}),
        ] {
            assert!(mirrored_params(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn header_texts() {
        assert_eq!(header_text(&json!("a")).as_deref(), Some("a"));
        assert_eq!(header_text(&json!(3)).as_deref(), Some("3"));
        assert_eq!(header_text(&json!(3.0)).as_deref(), Some("3"));
        assert_eq!(header_text(&json!(false)).as_deref(), Some("false"));
        assert_eq!(header_text(&json!(1.5)), None);
        assert_eq!(header_text(&json!(null)), None);
    }
}
