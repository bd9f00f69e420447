//! ci-insights as a kit configuration: [`tool_server`] turns a [`ServerConfig`] into a
//! [`ToolServer`] (its tools, data and contract quirks as registry and options; no dispatch of
//! its own), and [`handle_mcp_request`] is the seed contract's pure function over it.
//!
//! The contract's differences from the kit's defaults, each a kit option:
//!
//! | contract | kit option |
//! |---|---|
//! | a malformed message is not a notification (step 1 before 2) | `RequestRules::strict_envelope` |
//! | `_meta` whole, `Missing required _meta fields` (step 4) | `MetaCheck::Whole` |
//! | version (step 5) before the method (step 6) | `MethodCheck::AfterVersion` |
//! | `Invalid params` for a bad name or arguments, `null` included (step 7) | `CallParams::Strict` |
//! | one page, a cursor ignored | `Cursors::Ignore` |
//! | the contract's validator and texts (step 9) | `ToolServer::with_argument_check` ([`super::validate`]) |
//! | `ttlMs`/`cacheScope` of discovery and listing from the configuration | `CacheHints` |
//! | `_meta` serverInfo only when configured | `ToolServer::with_server_info_meta` |
//! | tool definitions listed exactly as configured | `Tool::from_definition` |
//!
//! The tools' handlers read the arguments borrowed and normalise whole floats (`2.0` → `2`) on
//! a copy only when there is one to normalise; nothing here mutates the request or the
//! configuration.
//!
//! [`handle_mcp_request`] keeps the kit server it built for a configuration (one per thread)
//! and builds a new one only when it is handed a configuration that differs from that one in
//! any byte it could answer with ([`same_config`]); a caller that holds its configuration for
//! a whole session can equally build the server once with [`tool_server`].

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::config::{Build, FlakyTest, ServerConfig};
use super::validate::{display_value, has_whole_float, normalize_owned, validate_arguments};
use crate::kit::rules::{CallParams, Cursors, MetaCheck, MethodCheck, RequestRules};
use crate::kit::{
    CacheHint, CacheHints, KitError, Tool, ToolError, ToolOutput, ToolServer,
    server::CacheScope as KitScope,
};

pub use crate::kit::rpc::{
    HEADER_MISMATCH, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, META_CLIENT_CAPABILITIES,
    META_PROTOCOL_VERSION, META_SERVER_INFO, METHOD_NOT_FOUND, PARSE_ERROR, UNSUPPORTED_VERSION,
    error_response, is_valid_id,
};

/// The seed contract's request rules (see the module docs).
pub fn contract_rules() -> RequestRules {
    RequestRules {
        strict_envelope: true,
        method_check: MethodCheck::AfterVersion,
        meta_check: MetaCheck::Whole {
            message: "Missing required _meta fields".into(),
        },
        call_params: CallParams::Strict {
            message: "Invalid params".into(),
        },
        cursors: Cursors::Ignore,
    }
}

/// Build ci-insights on the kit from `config`. Fails only when a tool definition cannot be
/// registered (two tools with one name, an input schema that is not `"type": "object"`, an
/// unusable `x-mcp-header`).
pub fn tool_server(config: &ServerConfig) -> Result<ToolServer, KitError> {
    let hint = CacheHint::new(
        config.cache_ttl_ms,
        match config.cache_scope {
            super::config::CacheScope::Public => KitScope::Public,
            super::config::CacheScope::Private => KitScope::Private,
        },
    );
    let name = config
        .server_info
        .as_ref()
        .and_then(|info| info.get("name"))
        .and_then(Value::as_str)
        .unwrap_or(super::config::SERVER_NAME);
    let version = config
        .server_info
        .as_ref()
        .and_then(|info| info.get("version"))
        .and_then(Value::as_str)
        .unwrap_or(env!("CARGO_PKG_VERSION"));
    let mut server = ToolServer::new(name, version)
        .with_supported_versions(config.supported_versions.clone())
        .with_cache_hints(CacheHints {
            discover: hint,
            tools_list: hint,
            ..CacheHints::default()
        })
        .with_rules(contract_rules())
        .with_server_info_meta(config.server_info.clone())
        .with_argument_check(validate_arguments);
    let builds = Arc::new(config.builds.clone());
    let flaky = Arc::new(config.flaky_tests.clone());
    for definition in &config.tools {
        let definition = definition.as_object().cloned().unwrap_or_default();
        let tool_name = definition
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let builds = Arc::clone(&builds);
        let flaky = Arc::clone(&flaky);
        server.add_tool(Tool::from_definition_sync(definition, move |arguments| {
            let normalized;
            let arguments = if arguments.values().any(has_whole_float) {
                normalized = normalize_owned(arguments.clone());
                &normalized
            } else {
                arguments
            };
            run_tool(&tool_name, arguments, &builds, &flaky)
                .map(ToolOutput::structured)
                .map_err(ToolError)
        }))?;
    }
    Ok(server)
}

/// Handle one already-parsed message: `None` for a notification, otherwise the response.
///
/// A pure function of `message` and `server` (neither is mutated; the same input gives the
/// same output). The kit server is built from `server` on the first call and kept (one per
/// thread) for the following calls with an identical configuration ([`same_config`]); a
/// configuration that differs in anything builds a fresh server. A configuration the kit
/// refuses answers `-32603` naming the problem.
pub fn handle_mcp_request(message: &Value, server: &ServerConfig) -> Option<Value> {
    let built = built_for(server);
    match built.as_ref() {
        Ok(kit) => kit.handle_blocking(message),
        Err(why) => {
            let id = message.get("id")?;
            let id = if is_valid_id(id) { id } else { &Value::Null };
            Some(error_response(
                id,
                INTERNAL_ERROR,
                &format!("ci-insights configuration is unusable: {why}"),
            ))
        }
    }
}

type Built = Rc<Result<ToolServer, KitError>>;

thread_local! {
    /// The last configuration [`handle_mcp_request`] was given on this thread (a copy) and
    /// the server built from it.
    static BUILT: RefCell<Option<(ServerConfig, Built)>> = const { RefCell::new(None) };
}

/// The kit server for `config`: the kept one when `config` is the same as the one it was built
/// from, else a new one (kept in its place).
fn built_for(config: &ServerConfig) -> Built {
    let kept = BUILT.try_with(|cell| {
        let mut slot = cell.try_borrow_mut().ok()?;
        if let Some((cached, built)) = slot.as_ref() {
            if same_config(cached, config) {
                return Some(Rc::clone(built));
            }
        }
        let built = Rc::new(tool_server(config));
        *slot = Some((config.clone(), Rc::clone(&built)));
        Some(built)
    });
    // Only a thread being torn down (or a re-entrant call) finds the slot unusable.
    match kept {
        Ok(Some(built)) => built,
        _ => Rc::new(tool_server(config)),
    }
}

/// Would a server built from `a` answer every message exactly as one built from `b`? Field by
/// field, with JSON compared as it serialises: object members in their order (the tools are
/// listed as configured), numbers by representation (`2` is not `2.0`, `0.0` is not `-0.0`).
/// `ServerConfig`'s `==` is not enough: JSON objects compare equal in any member order.
pub fn same_config(a: &ServerConfig, b: &ServerConfig) -> bool {
    let ServerConfig {
        supported_versions,
        cache_ttl_ms,
        cache_scope,
        tools,
        builds,
        flaky_tests,
        server_info,
    } = a;
    *supported_versions == b.supported_versions
        && *cache_ttl_ms == b.cache_ttl_ms
        && *cache_scope == b.cache_scope
        && *builds == b.builds
        && *flaky_tests == b.flaky_tests
        && tools.len() == b.tools.len()
        && tools.iter().zip(&b.tools).all(|(x, y)| identical(x, y))
        && match (server_info, &b.server_info) {
            (None, None) => true,
            (Some(x), Some(y)) => identical(x, y),
            _ => false,
        }
}

/// Do `a` and `b` serialise to the same bytes?
fn identical(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((kx, vx), (ky, vy))| kx == ky && identical(vx, vy))
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| identical(p, q))
        }
        (Value::Number(x), Value::Number(y)) => match (x.is_f64(), y.is_f64()) {
            (true, true) => x.as_f64().map(f64::to_bits) == y.as_f64().map(f64::to_bits),
            (false, false) => x == y,
            _ => false,
        },
        _ => a == b,
    }
}

fn run_tool(
    name: &str,
    arguments: &Map<String, Value>,
    builds: &[Build],
    flaky: &[FlakyTest],
) -> Result<Value, String> {
    match name {
        "get_build_status" => get_build_status(arguments, builds),
        "list_flaky_tests" => Ok(list_flaky_tests(arguments, flaky)),
        other => Err(format!(
            "Tool {other} is declared but ci-insights has no implementation for it"
        )),
    }
}

fn get_build_status(args: &Map<String, Value>, builds: &[Build]) -> Result<Value, String> {
    let pipeline = args.get("pipeline").unwrap_or(&Value::Null);
    let build = args.get("build").unwrap_or(&Value::Null);
    let found = builds.iter().find(|row| {
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

fn list_flaky_tests(args: &Map<String, Value>, flaky: &[FlakyTest]) -> Value {
    let pipeline = args.get("pipeline").cloned().unwrap_or(Value::Null);
    let limit = match args.get("limit") {
        None => 3,
        Some(v) => v
            .as_u64()
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
            .or_else(|| v.as_i64().map(|_| 0))
            .unwrap_or(3),
    };
    let tests: Vec<Value> = flaky
        .iter()
        .filter(|row| pipeline.as_str() == Some(row.pipeline.as_str()))
        .take(limit)
        .map(|row| json!({ "test": row.test, "failures": row.failures }))
        .collect();
    json!({ "pipeline": pipeline, "tests": tests })
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
    fn notification_and_rejections() {
        let server = ServerConfig::contract();
        assert_eq!(
            handle_mcp_request(&json!({"jsonrpc": "2.0", "method": "x"}), &server),
            None
        );
        // A malformed message is not a notification, even without an id.
        assert_eq!(
            handle_mcp_request(&json!({"method": "x"}), &server),
            Some(error_response(
                &Value::Null,
                INVALID_REQUEST,
                "Invalid Request"
            ))
        );
        assert_eq!(
            handle_mcp_request(&json!([]), &server),
            Some(error_response(
                &Value::Null,
                INVALID_REQUEST,
                "Invalid Request"
            ))
        );
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

    fn list(id: i64) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": {"_meta": meta()}})
    }

    /// The kept server never answers for a configuration it was not built from: a change of
    /// data, of a tool definition's member order, or of a number's representation is served
    /// from a fresh server, and going back serves the first configuration again.
    #[test]
    fn the_kept_server_follows_every_change_of_configuration() {
        let first = ServerConfig::contract();
        let found = call(
            json!(1),
            "get_build_status",
            json!({"pipeline": "api", "build": 412}),
        );
        let before = handle_mcp_request(&found, &first).unwrap();
        assert_eq!(
            before["result"]["structuredContent"]["status"],
            json!("failed")
        );
        let mut changed = first.clone();
        changed.builds[0].status = "passed".into();
        let after = handle_mcp_request(&found, &changed).unwrap();
        assert_eq!(
            after["result"]["structuredContent"]["status"],
            json!("passed")
        );
        assert_eq!(handle_mcp_request(&found, &first).unwrap(), before);

        // Same members in another order: `==` holds, the listing differs.
        let mut reordered = first.clone();
        let tool = reordered.tools[0].as_object().unwrap();
        let mut members: Vec<(String, Value)> =
            tool.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        members.reverse();
        reordered.tools[0] = Value::Object(members.into_iter().collect());
        assert_eq!(reordered, first);
        assert!(!same_config(&reordered, &first));
        let listed = |config: &ServerConfig| {
            serde_json::to_string(&handle_mcp_request(&list(2), config).unwrap()).unwrap()
        };
        let (a, b) = (listed(&first), listed(&reordered));
        assert_ne!(a, b);
        assert_eq!(
            b,
            serde_json::to_string(&json!({"jsonrpc": "2.0", "id": 2, "result": {
                "resultType": "complete", "tools": reordered.tools,
                "ttlMs": 300_000, "cacheScope": "public"}}))
            .unwrap()
        );
        assert_eq!(listed(&first), a);
    }

    #[test]
    fn same_config_compares_json_as_it_serialises() {
        let base = ServerConfig::contract();
        assert!(same_config(&base, &base.clone()));
        let with_limit = |max: Value| {
            let mut c = base.clone();
            c.tools[1]["inputSchema"]["properties"]["limit"]["maximum"] = max;
            c
        };
        assert!(!same_config(
            &with_limit(json!(20)),
            &with_limit(json!(20.0))
        ));
        assert!(!same_config(
            &with_limit(json!(0.0)),
            &with_limit(json!(-0.0))
        ));
        assert!(same_config(
            &with_limit(json!(2.5)),
            &with_limit(json!(2.5))
        ));
        let mut info = base.clone();
        info.server_info = Some(json!({"name": "a", "version": "1"}));
        assert!(!same_config(&base, &info));
        let mut versions = base.clone();
        versions.supported_versions.push("2025-11-25".into());
        assert!(!same_config(&base, &versions));
    }

    #[test]
    fn a_configuration_the_kit_refuses_answers_internal_error() {
        let mut server = ServerConfig::contract();
        server.tools.push(server.tools[0].clone());
        let got = handle_mcp_request(&call(json!(9), "x", json!({})), &server).unwrap();
        assert_eq!(got["error"]["code"], json!(INTERNAL_ERROR));
        assert_eq!(got["id"], json!(9));
        assert!(
            got["error"]["message"]
                .as_str()
                .unwrap()
                .contains("registered twice")
        );
        assert_eq!(
            handle_mcp_request(&json!({"jsonrpc": "2.0", "method": "x"}), &server),
            None
        );
    }
}
