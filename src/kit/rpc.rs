//! JSON-RPC 2.0 and MCP 2026-07-28 wire constants and the small builders every kit server and
//! ci-insights share: error codes, `_meta` keys, [`error_response`], the id rule.

use serde_json::{Number, Value, json};

/// `_meta` key of the protocol version.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of the client capabilities.
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of the server identity added to results.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// JSON-RPC parse error (raised by transports, never by a handler).
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC invalid request.
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC method not found.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC invalid params.
pub const INVALID_PARAMS: i64 = -32602;
/// JSON-RPC internal error.
pub const INTERNAL_ERROR: i64 = -32603;
/// MCP header mismatch (Streamable HTTP only).
pub const HEADER_MISMATCH: i64 = -32020;
/// MCP missing required client capability.
pub const MISSING_CAPABILITY: i64 = -32021;
/// MCP unsupported protocol version.
pub const UNSUPPORTED_VERSION: i64 = -32022;

/// `{ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } }`.
pub fn error_response(id: &Value, code: i64, message: &str) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id.clone(),
        "error": { "code": code, "message": message }
    })
}

/// [`error_response`] with a `data` member.
pub fn error_response_with_data(id: &Value, code: i64, message: &str, data: Value) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id.clone(),
        "error": { "code": code, "message": message, "data": data }
    })
}

/// An id is a string or an integer (a number with no fractional part, so `1.0` is valid).
pub fn is_valid_id(id: &Value) -> bool {
    id.is_string() || is_integer(id)
}

/// An integer is a number with no fractional part (JSON Schema 2020-12): `2` and `2.0` are,
/// `412.5`, `true` and `"412"` are not.
pub fn is_integer(value: &Value) -> bool {
    match value {
        Value::Number(n) => number_is_integer(n),
        _ => false,
    }
}

/// [`is_integer`] for a number.
pub fn number_is_integer(n: &Number) -> bool {
    if n.is_i64() || n.is_u64() {
        return true;
    }
    n.as_f64()
        .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids() {
        assert!(is_valid_id(&json!("a")));
        assert!(is_valid_id(&json!(1)));
        assert!(is_valid_id(&json!(1.0)));
        assert!(!is_valid_id(&json!(1.5)));
        assert!(!is_valid_id(&json!(null)));
        assert!(!is_valid_id(&json!([1])));
    }

    #[test]
    fn error_with_data() {
        assert_eq!(
            error_response_with_data(&json!(1), -32022, "x", json!({"a": 1})),
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32022, "message": "x", "data": {"a": 1}}})
        );
    }
}
