//! JSON-RPC 2.0 message shapes the probe sends and receives, and how incoming messages are
//! classified (answer, server→client request, notification) and answered.

use crate::model::escape::{clip_shown, line};
use serde_json::{Map, Value, json};

use crate::model::snapshot::Era;

/// The modern protocol revision this client speaks.
pub const MODERN_VERSION: &str = "2026-07-28";
/// The legacy revision offered in `initialize`.
pub const LEGACY_VERSION: &str = "2025-11-25";

/// A JSON-RPC error object received from the server.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorObject {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl std::fmt::Display for ErrorObject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "error {} \"{}\"", self.code, line(&self.message))
    }
}

/// One message from the server, classified.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// An answer to one of our requests.
    Response {
        id: Value,
        outcome: Result<Value, ErrorObject>,
    },
    /// A request from the server to the client (ping, roots/list, sampling, elicitation…).
    Request { id: Value, method: String },
    /// A notification (log message, list_changed, progress…): ignored.
    Notification { method: String },
}

/// Why a message could not be classified.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MessageError {
    #[error("not JSON: {0}")]
    NotJson(String),
    #[error("JSON nesting is deeper than the parser's limit of 128 levels")]
    TooDeep,
    #[error("not a JSON-RPC 2.0 message: {0}")]
    NotJsonRpc(String),
}

/// Parse one HTTP body or SSE event as the HTTP transports do: invalid UTF-8 is noted once,
/// nesting too deep is a limit error, anything else that is not JSON-RPC a protocol error.
pub(super) fn decode_payload(
    bytes: &[u8],
    session: &mut super::Session,
) -> Result<Vec<Incoming>, super::CallError> {
    match parse_message(bytes) {
        Ok((m, lossy)) => {
            if lossy {
                session.note_once("the server sent invalid UTF-8; it was replaced with U+FFFD");
            }
            Ok(m)
        }
        Err(MessageError::TooDeep) => Err(super::CallError::Limit(
            "a message nests JSON deeper than 128 levels (the nesting limit)".into(),
        )),
        Err(e) => Err(super::CallError::Protocol(e.to_string())),
    }
}

/// What one HTTP body or SSE event holds for request `id`: the answers the server's own
/// requests get (each one noted), in order, up to the answer to `id`, and that answer if it
/// came. Answers with ids mcpvet never sent are noted and dropped; notifications are ignored.
pub(super) struct Triage {
    /// `(answer, method)` for every server request before the answer to `id`.
    pub to_answer: Vec<(Value, String)>,
    /// The answer to `id`, if this payload held it.
    pub outcome: Option<Result<Value, super::CallError>>,
}

/// Decode a payload ([`decode_payload`]) and sort it for request `id` ([`Triage`]).
pub(super) fn triage_payload(
    bytes: &[u8],
    id: u64,
    session: &mut super::Session,
) -> Result<Triage, super::CallError> {
    let mut triage = Triage {
        to_answer: Vec::new(),
        outcome: None,
    };
    for msg in decode_payload(bytes, session)? {
        match msg {
            Incoming::Response { id: rid, outcome } => {
                if id_matches(&rid, id) {
                    session.answered();
                    triage.outcome = Some(outcome.map_err(super::CallError::Rpc));
                    break;
                }
                session.note_once(&format!(
                    "ignored an answer with an id mcpvet never sent ({rid})"
                ));
            }
            Incoming::Request { id: rid, method } => {
                session.note_once(&format!(
                    "the server sent a {method} request; mcpvet answered it without serving it"
                ));
                triage
                    .to_answer
                    .push((answer_server_request(&rid, &method), method));
            }
            Incoming::Notification { .. } => {}
        }
    }
    Ok(triage)
}

/// Parse bytes into a classified message. Invalid UTF-8 is replaced with U+FFFD (as most
/// MCP clients do) and reported through the returned flag.
pub fn parse_message(bytes: &[u8]) -> Result<(Vec<Incoming>, bool), MessageError> {
    let (text, lossy) = match std::str::from_utf8(bytes) {
        Ok(s) => (std::borrow::Cow::Borrowed(s), false),
        Err(_) => (String::from_utf8_lossy(bytes), true),
    };
    let value: Value = serde_json::from_str(text.trim()).map_err(|e| {
        if e.to_string().contains("recursion limit") {
            MessageError::TooDeep
        } else {
            MessageError::NotJson(e.to_string())
        }
    })?;
    let out = match value {
        // A batch (allowed by legacy revisions); classify each element.
        Value::Array(items) => items
            .into_iter()
            .map(classify)
            .collect::<Result<Vec<_>, _>>()?,
        other => vec![classify(other)?],
    };
    Ok((out, lossy))
}

fn classify(value: Value) -> Result<Incoming, MessageError> {
    let Value::Object(mut map) = value else {
        return Err(MessageError::NotJsonRpc("not an object".into()));
    };
    if map.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(MessageError::NotJsonRpc(
            "`jsonrpc` is not \"2.0\"".to_owned(),
        ));
    }
    if let Some(method) = map.get("method").and_then(Value::as_str).map(str::to_owned) {
        return Ok(match map.remove("id") {
            Some(id) if !id.is_null() => Incoming::Request { id, method },
            _ => Incoming::Notification { method },
        });
    }
    let id = map.remove("id").unwrap_or(Value::Null);
    if let Some(result) = map.remove("result") {
        return Ok(Incoming::Response {
            id,
            outcome: Ok(result),
        });
    }
    if let Some(err) = map.remove("error") {
        let code = err.get("code").and_then(Value::as_i64).unwrap_or(0);
        // The server's text is cut to a bounded size here, before anything lays it out.
        let message = clip_shown(err.get("message").and_then(Value::as_str).unwrap_or(""));
        let data = err.get("data").cloned();
        return Ok(Incoming::Response {
            id,
            outcome: Err(ErrorObject {
                code,
                message,
                data,
            }),
        });
    }
    Err(MessageError::NotJsonRpc(
        "neither a request, a notification nor a response".into(),
    ))
}

/// The `_meta` every modern request carries, naming the client as `client`.
pub fn modern_meta(client: &Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": client,
    })
}

/// `{name: "mcpvet", version}`.
pub fn client_info() -> Value {
    json!({"name": "mcpvet", "version": env!("CARGO_PKG_VERSION")})
}

/// A request object.
pub fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A notification object.
pub fn notification(method: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": method})
}

/// Params for a request of the given era: modern requests always carry `_meta`.
pub fn params(era: Era, cursor: Option<&str>, client: &Value) -> Value {
    let mut m = Map::new();
    if era == Era::Modern {
        m.insert("_meta".into(), modern_meta(client));
    }
    if let Some(c) = cursor {
        m.insert("cursor".into(), Value::String(c.to_owned()));
    }
    Value::Object(m)
}

/// The answer the client gives to a server→client request: `ping` gets an empty result,
/// `roots/list` an empty list, everything else (sampling, elicitation, …) is refused.
pub fn answer_server_request(id: &Value, method: &str) -> Value {
    match method {
        "ping" => json!({"jsonrpc": "2.0", "id": id, "result": {}}),
        "roots/list" => json!({"jsonrpc": "2.0", "id": id, "result": {"roots": []}}),
        _ => json!({"jsonrpc": "2.0", "id": id, "error": {
            "code": -32601,
            "message": format!("Method not found: mcpvet does not serve {method} (a scan serves no client features, and `mcpvet guard --url` does not relay requests a legacy HTTP server sends inside its answers)"),
        }}),
    }
}

/// Whether a response id equals the numeric id we sent (servers may echo it as a string).
pub fn id_matches(id: &Value, want: u64) -> bool {
    match id {
        Value::Number(n) => n.as_u64() == Some(want),
        Value::String(s) => s == &want.to_string(),
        _ => false,
    }
}

/// The request number an answer's id names, when it is one mcpvet could have sent (a
/// number, or its decimal string).
pub fn id_number(id: &Value) -> Option<u64> {
    match id {
        Value::Number(n) => n.as_u64(),
        Value::String(s) if s.bytes().all(|b| b.is_ascii_digit()) && !s.starts_with('0') => {
            s.parse().ok()
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_messages() {
        let (m, lossy) = parse_message(br#"{"jsonrpc":"2.0","id":1,"result":{"a":1}}"#).unwrap();
        assert!(!lossy);
        assert_eq!(
            m,
            vec![Incoming::Response {
                id: json!(1),
                outcome: Ok(json!({"a":1}))
            }]
        );
        let (m, _) =
            parse_message(br#"{"jsonrpc":"2.0","id":"x","method":"sampling/createMessage"}"#)
                .unwrap();
        assert!(
            matches!(&m[0], Incoming::Request { method, .. } if method == "sampling/createMessage")
        );
        let (m, _) =
            parse_message(br#"{"jsonrpc":"2.0","method":"notifications/message"}"#).unwrap();
        assert!(matches!(&m[0], Incoming::Notification { .. }));
        let (m, _) = parse_message(
            br#"{"jsonrpc":"2.0","id":2,"error":{"code":-32022,"message":"x","data":{"supported":["2026-07-28"]}}}"#,
        )
        .unwrap();
        let Incoming::Response {
            outcome: Err(e), ..
        } = &m[0]
        else {
            panic!("{m:?}")
        };
        assert_eq!(e.code, -32022);
        assert!(e.data.is_some());
    }

    #[test]
    fn rejects_garbage_and_deep_nesting() {
        assert!(matches!(
            parse_message(b"hello"),
            Err(MessageError::NotJson(_))
        ));
        assert!(matches!(
            parse_message(b"[1]"),
            Err(MessageError::NotJsonRpc(_))
        ));
        assert!(matches!(
            parse_message(br#"{"jsonrpc":"1.0","id":1,"result":{}}"#),
            Err(MessageError::NotJsonRpc(_))
        ));
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        assert_eq!(parse_message(deep.as_bytes()), Err(MessageError::TooDeep));
    }

    #[test]
    fn invalid_utf8_is_replaced_and_flagged() {
        let mut line = br#"{"jsonrpc":"2.0","id":1,"result":{"s":""#.to_vec();
        line.extend_from_slice(&[0xff, 0xfe]);
        line.extend_from_slice(br#""}}"#);
        let (m, lossy) = parse_message(&line).unwrap();
        assert!(lossy);
        let Incoming::Response { outcome: Ok(v), .. } = &m[0] else {
            panic!()
        };
        assert_eq!(v["s"], "\u{fffd}\u{fffd}");
    }

    #[test]
    fn answers_server_requests() {
        assert_eq!(
            answer_server_request(&json!(1), "ping")["result"],
            json!({})
        );
        assert_eq!(
            answer_server_request(&json!(1), "roots/list")["result"]["roots"],
            json!([])
        );
        assert_eq!(
            answer_server_request(&json!(1), "sampling/createMessage")["error"]["code"],
            -32601
        );
        assert!(id_matches(&json!("7"), 7));
        assert!(!id_matches(&json!(8), 7));
    }

    #[test]
    fn modern_params_carry_meta() {
        let p = params(Era::Modern, Some(""), &client_info());
        assert_eq!(p["cursor"], "");
        assert_eq!(
            p["_meta"]["io.modelcontextprotocol/protocolVersion"],
            MODERN_VERSION
        );
        assert!(
            params(Era::Legacy, None, &client_info())
                .get("_meta")
                .is_none()
        );
    }
}
