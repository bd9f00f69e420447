//! The pure request handler: one parsed JSON-RPC message plus the server configuration in,
//! at most one response out, exactly per the seed contract's ten ordered checks.
//!
//! [`classify`] runs the structural checks 1–4 (envelope, notification, id, `_meta`) and
//! [`respond`] runs checks 5–10 on a request that passed them; [`handle_mcp_request`] is the
//! two in sequence. The split lets the HTTP transport validate its mirrored headers against a
//! body that is known to be well formed, before the version check (see `http.rs`). Nothing here
//! mutates the request or the server: results are built from fresh values.

use serde_json::{Map, Value, json};

use super::config::ServerConfig;
use super::validate::{display_value, normalize_integers, validate_arguments};

pub use crate::kit::rpc::{
    HEADER_MISMATCH, INVALID_PARAMS, INVALID_REQUEST, META_CLIENT_CAPABILITIES,
    META_PROTOCOL_VERSION, META_SERVER_INFO, METHOD_NOT_FOUND, PARSE_ERROR, UNSUPPORTED_VERSION,
    error_response, is_valid_id,
};

/// A request that passed checks 1–4: a valid id, a non-empty method and well-formed `_meta`.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// The request id, exactly as sent (a string or an integer).
    pub id: &'a Value,
    /// The method name.
    pub method: &'a str,
    /// `params` (an object).
    pub params: &'a Map<String, Value>,
    /// `params._meta[io.modelcontextprotocol/protocolVersion]`.
    pub protocol_version: &'a str,
}

/// The outcome of checks 1–4.
#[derive(Debug, Clone)]
pub enum Classified<'a> {
    /// A well-formed notification (no `id` member): nothing may be sent.
    Notification,
    /// The message failed check 1, 3 or 4; this is the complete error response.
    Rejected(Value),
    /// A request that passed checks 1–4.
    Request(Request<'a>),
}

/// Handle one already-parsed message: `None` for a notification, otherwise the response.
pub fn handle_mcp_request(message: &Value, server: &ServerConfig) -> Option<Value> {
    match classify(message) {
        Classified::Notification => None,
        Classified::Rejected(response) => Some(response),
        Classified::Request(request) => Some(respond(&request, server)),
    }
}

/// Checks 1–4 of the contract, in order.
pub fn classify(message: &Value) -> Classified<'_> {
    // Step 1: an object with jsonrpc "2.0" and a non-empty string method.
    let Some(obj) = message.as_object() else {
        return Classified::Rejected(error_response(
            &Value::Null,
            INVALID_REQUEST,
            "Invalid Request",
        ));
    };
    let method = obj.get("method").and_then(Value::as_str).unwrap_or("");
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") || method.is_empty() {
        let id = obj
            .get("id")
            .filter(|id| is_valid_id(id))
            .unwrap_or(&Value::Null);
        return Classified::Rejected(error_response(id, INVALID_REQUEST, "Invalid Request"));
    }
    // Step 2: no id member means a notification.
    let Some(id) = obj.get("id") else {
        return Classified::Notification;
    };
    // Step 3: the id is a string or an integer.
    if !is_valid_id(id) {
        return Classified::Rejected(error_response(
            &Value::Null,
            INVALID_REQUEST,
            "Invalid Request",
        ));
    }
    // Step 4: params._meta holds a string protocol version and object client capabilities.
    let meta = obj
        .get("params")
        .and_then(Value::as_object)
        .and_then(|params| Some((params, params.get("_meta")?.as_object()?)));
    let fields = meta.and_then(|(params, meta)| {
        let version = meta.get(META_PROTOCOL_VERSION)?.as_str()?;
        meta.get(META_CLIENT_CAPABILITIES)?.as_object()?;
        Some((params, version))
    });
    let Some((params, protocol_version)) = fields else {
        return Classified::Rejected(error_response(
            id,
            INVALID_PARAMS,
            "Missing required _meta fields",
        ));
    };
    Classified::Request(Request {
        id,
        method,
        params,
        protocol_version,
    })
}

/// Checks 5–10 for a request that passed [`classify`]; always a response.
pub fn respond(request: &Request<'_>, server: &ServerConfig) -> Value {
    let id = request.id;
    // Step 5: a supported protocol version.
    if !server
        .supported_versions
        .iter()
        .any(|v| v == request.protocol_version)
    {
        return json!({
            "jsonrpc": "2.0",
            "id": id.clone(),
            "error": {
                "code": UNSUPPORTED_VERSION,
                "message": "Unsupported protocol version",
                "data": {
                    "supported": server.supported_versions.clone(),
                    "requested": request.protocol_version,
                }
            }
        });
    }
    // Step 6: a known method; discover and list answer here.
    match request.method {
        "server/discover" => result_response(id, discover_result(server), server),
        "tools/list" => result_response(id, list_result(server), server),
        "tools/call" => call_tool(request, server),
        _ => error_response(id, METHOD_NOT_FOUND, "Method not found"),
    }
}

fn discover_result(server: &ServerConfig) -> Map<String, Value> {
    let mut result = Map::new();
    result.insert("resultType".into(), json!("complete"));
    result.insert(
        "supportedVersions".into(),
        json!(server.supported_versions.clone()),
    );
    result.insert("capabilities".into(), json!({ "tools": {} }));
    result.insert("ttlMs".into(), json!(server.cache_ttl_ms));
    result.insert("cacheScope".into(), json!(server.cache_scope.as_str()));
    result
}

fn list_result(server: &ServerConfig) -> Map<String, Value> {
    let mut result = Map::new();
    result.insert("resultType".into(), json!("complete"));
    result.insert("tools".into(), Value::Array(server.tools.clone()));
    result.insert("ttlMs".into(), json!(server.cache_ttl_ms));
    result.insert("cacheScope".into(), json!(server.cache_scope.as_str()));
    result
}

fn call_tool(request: &Request<'_>, server: &ServerConfig) -> Value {
    let id = request.id;
    let params = request.params;
    // Step 7: a string name, and object arguments whenever the member is present.
    let name = params.get("name").and_then(Value::as_str);
    let arguments = match params.get("arguments") {
        None => Some(None),
        Some(Value::Object(args)) => Some(Some(args)),
        Some(_) => None,
    };
    let (Some(name), Some(arguments)) = (name, arguments) else {
        return error_response(id, INVALID_PARAMS, "Invalid params");
    };
    // Step 8: a tool declared with exactly that name.
    let Some(tool) = server
        .tools
        .iter()
        .find(|t| t.get("name").and_then(Value::as_str) == Some(name))
    else {
        return error_response(id, INVALID_PARAMS, &format!("Unknown tool: {name}"));
    };
    // Step 9: the arguments pass the tool's inputSchema.
    let empty = Map::new();
    let arguments = arguments.unwrap_or(&empty);
    let schema = tool.get("inputSchema").unwrap_or(&Value::Null);
    if let Err(message) = validate_arguments(schema, arguments) {
        return result_response(id, tool_failure(&message), server);
    }
    // Step 10: the tool runs on a normalized copy (2.0 → 2).
    let arguments = normalize_integers(arguments);
    let outcome = match name {
        "get_build_status" => get_build_status(&arguments, server),
        "list_flaky_tests" => list_flaky_tests(&arguments, server),
        other => Err(format!(
            "Tool {other} is declared but ci-insights has no implementation for it"
        )),
    };
    let result = match outcome {
        Ok(structured) => tool_success(structured),
        Err(message) => tool_failure(&message),
    };
    result_response(id, result, server)
}

fn get_build_status(args: &Map<String, Value>, server: &ServerConfig) -> Result<Value, String> {
    let pipeline = args.get("pipeline").unwrap_or(&Value::Null);
    let build = args.get("build").unwrap_or(&Value::Null);
    let found = server.builds.iter().find(|row| {
        pipeline.as_str() == Some(row.pipeline.as_str()) && build.as_i64() == Some(row.build)
    });
    match found {
        Some(row) => Ok(json!({
            "pipeline": row.pipeline,
            "build": row.build,
            "status": row.status,
            "minutes": row.minutes,
        })),
        None => Err(format!(
            "No build {} found for pipeline {}",
            display_value(build),
            display_value(pipeline)
        )),
    }
}

fn list_flaky_tests(args: &Map<String, Value>, server: &ServerConfig) -> Result<Value, String> {
    let pipeline = args.get("pipeline").cloned().unwrap_or(Value::Null);
    let limit = match args.get("limit") {
        None => 3,
        Some(v) => v
            .as_u64()
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
            .or_else(|| v.as_i64().map(|_| 0))
            .unwrap_or(3),
    };
    let tests: Vec<Value> = server
        .flaky_tests
        .iter()
        .filter(|row| pipeline.as_str() == Some(row.pipeline.as_str()))
        .take(limit)
        .map(|row| json!({ "test": row.test, "failures": row.failures }))
        .collect();
    Ok(json!({ "pipeline": pipeline, "tests": tests }))
}

fn tool_success(structured: Value) -> Map<String, Value> {
    let text = serde_json::to_string(&structured).unwrap_or_default();
    let mut result = Map::new();
    result.insert("resultType".into(), json!("complete"));
    result.insert("content".into(), json!([{ "type": "text", "text": text }]));
    result.insert("structuredContent".into(), structured);
    result.insert("isError".into(), json!(false));
    result
}

fn tool_failure(message: &str) -> Map<String, Value> {
    let mut result = Map::new();
    result.insert("resultType".into(), json!("complete"));
    result.insert(
        "content".into(),
        json!([{ "type": "text", "text": message }]),
    );
    result.insert("isError".into(), json!(true));
    result
}

fn result_response(id: &Value, mut result: Map<String, Value>, server: &ServerConfig) -> Value {
    if let Some(info) = &server.server_info {
        result.insert("_meta".into(), json!({ META_SERVER_INFO: info.clone() }));
    }
    json!({ "jsonrpc": "2.0", "id": id.clone(), "result": Value::Object(result) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta() -> Value {
        json!({
            META_PROTOCOL_VERSION: "2026-07-28",
            META_CLIENT_CAPABILITIES: {}
        })
    }

    fn call(id: Value, name: &str, args: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"_meta": meta(), "name": name, "arguments": args}})
    }

    #[test]
    fn w1_success_with_default_limit() {
        let server = ServerConfig::contract();
        let got = handle_mcp_request(
            &call(json!("w-1"), "list_flaky_tests", json!({"pipeline": "web"})),
            &server,
        );
        let text = got.as_ref().unwrap()["result"]["content"][0]["text"]
            .as_str()
            .unwrap();
        assert_eq!(
            text,
            r#"{"pipeline":"web","tests":[{"test":"login-redirect","failures":5}]}"#
        );
    }

    #[test]
    fn classify_reports_notification_and_rejections() {
        assert!(matches!(
            classify(&json!({"jsonrpc": "2.0", "method": "x"})),
            Classified::Notification
        ));
        assert!(matches!(classify(&json!([])), Classified::Rejected(_)));
        assert!(matches!(
            classify(
                &json!({"jsonrpc": "2.0", "id": 1, "method": "x", "params": {"_meta": meta()}})
            ),
            Classified::Request(Request {
                method: "x",
                protocol_version: "2026-07-28",
                ..
            })
        ));
    }

    #[test]
    fn undeclared_implementation_is_a_tool_failure() {
        let mut server = ServerConfig::contract();
        server
            .tools
            .push(json!({"name": "other", "inputSchema": {"type": "object"}}));
        let got = handle_mcp_request(&call(json!(1), "other", json!({})), &server).unwrap();
        assert_eq!(got["result"]["isError"], json!(true));
        assert!(got["result"].get("structuredContent").is_none());
    }

    #[test]
    fn negative_limit_without_minimum_lists_nothing() {
        let mut server = ServerConfig::contract();
        server.tools[1]["inputSchema"]["properties"]["limit"]
            .as_object_mut()
            .unwrap()
            .remove("minimum");
        let got = handle_mcp_request(
            &call(
                json!(1),
                "list_flaky_tests",
                json!({"pipeline": "api", "limit": -1}),
            ),
            &server,
        )
        .unwrap();
        assert_eq!(got["result"]["structuredContent"]["tests"], json!([]));
    }
}
