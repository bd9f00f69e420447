//! The contract's argument validator: a deliberate subset of JSON Schema 2020-12.
//!
//! It reads only `additionalProperties: false`, `required`, and per property `type` (`string`
//! or `integer`), `enum`, `minimum` and `maximum`; every other keyword (such as `default`) is
//! ignored, and no `$ref` is ever followed. Only the first failure is reported, in the
//! contract's order: unexpected keys (in argument order), missing required names (in
//! `required` order), then per declared property (in `properties` order) type, enum, minimum,
//! maximum.

use serde_json::{Map, Number, Value};

pub use crate::kit::rpc::{is_integer, number_is_integer};

/// Validate `arguments` against `schema`; `Err` holds the first failure's message.
pub fn validate_arguments(schema: &Value, arguments: &Map<String, Value>) -> Result<(), String> {
    let empty = Map::new();
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);

    if schema.get("additionalProperties") == Some(&Value::Bool(false)) {
        if let Some(key) = arguments.keys().find(|k| !properties.contains_key(*k)) {
            return Err(format!("Unexpected argument: {key}"));
        }
    }

    if let Some(required) = schema.get("required").and_then(Value::as_array) {
        for name in required.iter().filter_map(Value::as_str) {
            if !arguments.contains_key(name) {
                return Err(format!("Missing required argument: {name}"));
            }
        }
    }

    for (name, property) in properties {
        let Some(value) = arguments.get(name) else {
            continue;
        };
        check_property(name, property, value)?;
    }
    Ok(())
}

fn check_property(name: &str, property: &Value, value: &Value) -> Result<(), String> {
    match property.get("type").and_then(Value::as_str) {
        Some("string") if !value.is_string() => {
            return Err(format!("Argument {name} must be a string"));
        }
        Some("integer") if !is_integer(value) => {
            return Err(format!("Argument {name} must be an integer"));
        }
        _ => {}
    }
    if let Some(options) = property.get("enum").and_then(Value::as_array) {
        if !options.iter().any(|option| json_equal(option, value)) {
            let listed: Vec<String> = options.iter().map(display_value).collect();
            return Err(format!(
                "Argument {name} must be one of: {}",
                listed.join(", ")
            ));
        }
    }
    if let Value::Number(actual) = value {
        let actual = actual.as_f64();
        if let Some(Value::Number(min)) = property.get("minimum") {
            if below(actual, min) {
                return Err(format!(
                    "Argument {name} must be at least {}",
                    format_number(min)
                ));
            }
        }
        if let Some(Value::Number(max)) = property.get("maximum") {
            if above(actual, max) {
                return Err(format!(
                    "Argument {name} must be at most {}",
                    format_number(max)
                ));
            }
        }
    }
    Ok(())
}

fn below(actual: Option<f64>, min: &Number) -> bool {
    matches!((actual, min.as_f64()), (Some(a), Some(m)) if a < m)
}

fn above(actual: Option<f64>, max: &Number) -> bool {
    matches!((actual, max.as_f64()), (Some(a), Some(m)) if a > m)
}

/// JSON equality as JSON Schema defines it: numbers compare by value (`2` equals `2.0`).
pub fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => numbers_equal(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_equal(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

fn numbers_equal(x: &Number, y: &Number) -> bool {
    if let (Some(a), Some(b)) = (x.as_i64(), y.as_i64()) {
        return a == b;
    }
    if let (Some(a), Some(b)) = (x.as_u64(), y.as_u64()) {
        return a == b;
    }
    match (x.as_f64(), y.as_f64()) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// A number as the contract's messages show it: integers without a fraction (`1`, not `1.0`),
/// other numbers in their shortest form (`412.5`).
pub fn format_number(n: &Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    match n.as_f64() {
        Some(f) if f.fract() == 0.0 && f.abs() < 1e21 => format!("{f:.0}"),
        Some(f) => f.to_string(),
        None => n.to_string(),
    }
}

/// A value as it appears inside a message: strings bare, numbers per [`format_number`],
/// `null` as nothing, anything else as compact JSON.
pub fn display_value(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Number(n) => format_number(n),
        Value::Null => String::new(),
        Value::Bool(b) => b.to_string(),
        other => other.to_string(),
    }
}

/// A copy of `arguments` with every whole-valued float converted to an integer (`2.0` → `2`),
/// at any depth; the input is not changed.
pub fn normalize_integers(arguments: &Map<String, Value>) -> Map<String, Value> {
    normalize_owned(arguments.clone())
}

/// [`normalize_integers`] on arguments the caller owns (a handler's own copy): converted in
/// place, without a second copy.
pub fn normalize_owned(mut arguments: Map<String, Value>) -> Map<String, Value> {
    arguments.values_mut().for_each(normalize_value);
    arguments
}

/// Does `value` hold (at any depth) a whole number written as a float (`2.0`), which
/// [`normalize_owned`] would rewrite?
pub fn has_whole_float(value: &Value) -> bool {
    match value {
        Value::Number(n) => !n.is_i64() && !n.is_u64() && number_is_integer(n),
        Value::Array(items) => items.iter().any(has_whole_float),
        Value::Object(map) => map.values().any(has_whole_float),
        _ => false,
    }
}

fn normalize_value(value: &mut Value) {
    match value {
        Value::Number(n) if !n.is_i64() && !n.is_u64() && number_is_integer(n) => {
            match n.as_f64() {
                Some(f) if f >= i64::MIN as f64 && f < i64::MAX as f64 => {
                    *value = Value::from(f as i64);
                }
                Some(f) if f >= 0.0 && f < u64::MAX as f64 => *value = Value::from(f as u64),
                _ => {}
            }
        }
        Value::Array(items) => items.iter_mut().for_each(normalize_value),
        Value::Object(map) => map.values_mut().for_each(normalize_value),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "pipeline": { "type": "string", "enum": ["web", "api", "mobile"] },
                "limit": { "type": "integer", "minimum": 1, "maximum": 20, "default": 3 }
            },
            "required": ["pipeline"],
            "additionalProperties": false
        })
    }

    #[test]
    fn integer_rule() {
        assert!(is_integer(&json!(2)));
        assert!(is_integer(&json!(-7)));
        assert!(is_integer(&json!(2.0)));
        assert!(is_integer(&json!(u64::MAX)));
        assert!(!is_integer(&json!(412.5)));
        assert!(!is_integer(&json!(true)));
        assert!(!is_integer(&json!("412")));
        assert!(!is_integer(&json!(null)));
    }

    #[test]
    fn order_unexpected_before_missing() {
        let r = validate_arguments(&schema(), &obj(json!({"zzz": 1, "aaa": 2})));
        assert_eq!(r, Err("Unexpected argument: zzz".into()));
    }

    #[test]
    fn missing_required() {
        let r = validate_arguments(&schema(), &obj(json!({"limit": 2})));
        assert_eq!(r, Err("Missing required argument: pipeline".into()));
    }

    #[test]
    fn extra_keys_allowed_without_additional_properties_false() {
        let mut s = schema();
        s.as_object_mut().unwrap().remove("additionalProperties");
        assert_eq!(
            validate_arguments(&s, &obj(json!({"pipeline": "web", "x": 1}))),
            Ok(())
        );
        s["additionalProperties"] = json!(true);
        assert_eq!(
            validate_arguments(&s, &obj(json!({"pipeline": "web", "x": 1}))),
            Ok(())
        );
    }

    #[test]
    fn type_then_enum_then_bounds_in_property_order() {
        let s = schema();
        let check = |args: Value| validate_arguments(&s, &obj(args));
        assert_eq!(
            check(json!({"pipeline": 3, "limit": 0})),
            Err("Argument pipeline must be a string".into())
        );
        assert_eq!(
            check(json!({"limit": 0, "pipeline": "x"})),
            Err("Argument pipeline must be one of: web, api, mobile".into())
        );
        assert_eq!(
            check(json!({"pipeline": "web", "limit": 0})),
            Err("Argument limit must be at least 1".into())
        );
        assert_eq!(
            check(json!({"pipeline": "web", "limit": 21})),
            Err("Argument limit must be at most 20".into())
        );
        assert_eq!(check(json!({"pipeline": "web", "limit": 20})), Ok(()));
        assert_eq!(check(json!({"pipeline": "web", "limit": 20.0})), Ok(()));
        assert_eq!(
            check(json!({"pipeline": "web", "limit": true})),
            Err("Argument limit must be an integer".into())
        );
        assert_eq!(
            check(json!({"pipeline": "web", "limit": 2.5})),
            Err("Argument limit must be an integer".into())
        );
    }

    #[test]
    fn enum_compares_numbers_by_value_and_lists_non_strings() {
        let s = json!({"properties": {"n": {"enum": [1, "two", null, true, 2.5]}}});
        assert_eq!(validate_arguments(&s, &obj(json!({"n": 1.0}))), Ok(()));
        assert_eq!(
            validate_arguments(&s, &obj(json!({"n": 3}))),
            Err("Argument n must be one of: 1, two, , true, 2.5".into())
        );
    }

    #[test]
    fn bounds_ignore_non_numbers_and_format_fractions() {
        let s = json!({"properties": {"n": {"minimum": 1.5, "maximum": 2e3}}});
        assert_eq!(validate_arguments(&s, &obj(json!({"n": "0"}))), Ok(()));
        assert_eq!(
            validate_arguments(&s, &obj(json!({"n": 1}))),
            Err("Argument n must be at least 1.5".into())
        );
        assert_eq!(
            validate_arguments(&s, &obj(json!({"n": 2001}))),
            Err("Argument n must be at most 2000".into())
        );
    }

    #[test]
    fn normalizes_whole_floats_in_a_copy() {
        let args = obj(json!({"build": 412.0, "x": [1.0, {"y": 2.0}], "z": 1.5}));
        let out = normalize_integers(&args);
        assert_eq!(out["build"], json!(412));
        assert!(out["build"].is_i64());
        assert!(out["x"][0].is_i64());
        assert!(out["x"][1]["y"].is_i64());
        assert_eq!(out["z"], json!(1.5));
        assert!(args["build"].is_f64());
    }
}
