//! Integration tests: baseline (ci-insights).
//!
//! The seed contract's fixture rows 1–10 and worked responses W1–W3 (from
//! `tests/fixtures/baseline/contract-cases.json`), every case of the contract's "What the tests
//! check" paragraph, property tests over arbitrary JSON, the stdio binary, and the Streamable
//! HTTP transport on loopback. Whole responses are compared.

// Test helpers outside #[test] functions may unwrap too (clippy only exempts test fns).
#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use mcpvet::baseline::http::HttpServer;
use mcpvet::baseline::{CacheScope, HttpOptions, ServerConfig, handle_mcp_request};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

const PV: &str = "io.modelcontextprotocol/protocolVersion";
const CC: &str = "io.modelcontextprotocol/clientCapabilities";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/baseline")
        .join(name)
}

fn meta() -> Value {
    json!({ PV: "2026-07-28", CC: {} })
}

fn request(id: Value, method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
}

fn call(id: Value, name: &str, arguments: Value) -> Value {
    request(
        id,
        "tools/call",
        json!({ "_meta": meta(), "name": name, "arguments": arguments }),
    )
}

fn handle(message: &Value) -> Option<Value> {
    handle_mcp_request(message, &ServerConfig::contract())
}

fn error(id: Value, code: i64, message: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
}

fn invalid_request(id: Value) -> Value {
    error(id, -32600, "Invalid Request")
}

fn tool_failure(id: Value, text: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": {
        "resultType": "complete",
        "content": [{ "type": "text", "text": text }],
        "isError": true
    }})
}

fn tool_success(id: Value, structured: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": {
        "resultType": "complete",
        "content": [{ "type": "text", "text": serde_json::to_string(&structured).unwrap() }],
        "structuredContent": structured,
        "isError": false
    }})
}

fn contract_tools() -> Value {
    Value::Array(ServerConfig::contract().tools)
}

// ---------------------------------------------------------------- fixture rows and W1–W3

#[test]
fn fixture_rows_and_worked_responses() {
    let text = std::fs::read_to_string(fixture("contract-cases.json")).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    let cases = doc["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 13, "rows 1-10 and W1-W3");
    let server = ServerConfig::contract();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let expected = match &case["response"] {
            Value::Null => None,
            v => Some(v.clone()),
        };
        assert_eq!(
            handle_mcp_request(&case["request"], &server),
            expected,
            "{name}"
        );
    }
}

#[test]
fn worked_response_texts_are_byte_exact() {
    // W2's response exactly as the contract prints it (key order included).
    let w2 = call(
        json!("w-2"),
        "get_build_status",
        json!({"pipeline": "staging", "build": 3}),
    );
    assert_eq!(
        serde_json::to_string(&handle(&w2).unwrap()).unwrap(),
        r#"{"jsonrpc":"2.0","id":"w-2","result":{"resultType":"complete","content":[{"type":"text","text":"Argument pipeline must be one of: web, api, mobile"}],"isError":true}}"#
    );
    let w3 = request(json!("w-3"), "prompts/list", json!({"_meta": meta()}));
    assert_eq!(
        serde_json::to_string(&handle(&w3).unwrap()).unwrap(),
        r#"{"jsonrpc":"2.0","id":"w-3","error":{"code":-32601,"message":"Method not found"}}"#
    );
    let row1 = call(
        json!(1),
        "get_build_status",
        json!({"pipeline": "api", "build": 412}),
    );
    assert_eq!(
        serde_json::to_string(&handle(&row1).unwrap()).unwrap(),
        r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"{\"pipeline\":\"api\",\"build\":412,\"status\":\"failed\",\"minutes\":14}"}],"structuredContent":{"pipeline":"api","build":412,"status":"failed","minutes":14},"isError":false}}"#
    );
}

// ---------------------------------------------------------------- listings

#[test]
fn discover_and_list_results() {
    let discover = request(json!(1), "server/discover", json!({"_meta": meta()}));
    assert_eq!(
        handle(&discover),
        Some(json!({"jsonrpc": "2.0", "id": 1, "result": {
            "resultType": "complete",
            "supportedVersions": ["2026-07-28"],
            "capabilities": {"tools": {}},
            "ttlMs": 300000,
            "cacheScope": "public"
        }}))
    );
    let list = request(
        json!(2),
        "tools/list",
        json!({"_meta": meta(), "cursor": "abc"}),
    );
    assert_eq!(
        handle(&list),
        Some(json!({"jsonrpc": "2.0", "id": 2, "result": {
            "resultType": "complete",
            "tools": contract_tools(),
            "ttlMs": 300000,
            "cacheScope": "public"
        }}))
    );
}

#[test]
fn listings_read_order_ttl_scope_and_versions_from_the_configuration() {
    let mut server = ServerConfig::contract();
    server.tools.reverse();
    server.cache_ttl_ms = 0;
    server.cache_scope = CacheScope::Private;
    server.supported_versions = vec!["2026-07-28".into(), "2027-01-01".into()];
    let list = request(json!(1), "tools/list", json!({"_meta": meta()}));
    let got = handle_mcp_request(&list, &server).unwrap();
    assert_eq!(
        got["result"],
        json!({
            "resultType": "complete",
            "tools": [contract_tools()[1].clone(), contract_tools()[0].clone()],
            "ttlMs": 0,
            "cacheScope": "private"
        })
    );
    let discover = request(json!(2), "server/discover", json!({"_meta": meta()}));
    let got = handle_mcp_request(&discover, &server).unwrap();
    assert_eq!(
        got["result"],
        json!({
            "resultType": "complete",
            "supportedVersions": ["2026-07-28", "2027-01-01"],
            "capabilities": {"tools": {}},
            "ttlMs": 0,
            "cacheScope": "private"
        })
    );
    // A second supported version is accepted too.
    let other = request(
        json!(3),
        "tools/list",
        json!({"_meta": {PV: "2027-01-01", CC: {}}}),
    );
    assert!(
        handle_mcp_request(&other, &server)
            .unwrap()
            .get("result")
            .is_some()
    );
}

#[test]
fn listing_is_a_deep_copy_of_every_declared_tool() {
    let mut server = ServerConfig::contract();
    server
        .tools
        .push(json!({"name": "extra", "inputSchema": {"type": "object"}, "x": [1, {"y": 2}]}));
    let before = server.clone();
    let list = request(json!(1), "tools/list", json!({"_meta": meta()}));
    let mut got = handle_mcp_request(&list, &server).unwrap();
    assert_eq!(got["result"]["tools"], Value::Array(server.tools.clone()));
    // Changing the response changes nothing in the server.
    got["result"]["tools"][2]["x"][1]["y"] = json!(99);
    got["result"]["tools"][0]["inputSchema"]["required"] = json!([]);
    assert_eq!(server, before);
    let again = handle_mcp_request(&list, &server).unwrap();
    assert_eq!(again["result"]["tools"], Value::Array(before.tools));
}

// ---------------------------------------------------------------- ids and notifications

#[test]
fn ids_are_echoed() {
    for id in [
        json!(0),
        json!("0"),
        json!(""),
        json!(-5),
        json!("w-1"),
        json!(9007199254740993u64),
    ] {
        let got = handle(&request(id.clone(), "tools/list", json!({"_meta": meta()}))).unwrap();
        assert_eq!(got["id"], id, "{id}");
        assert!(got.get("result").is_some(), "{id}");
    }
    // 1.0 is an integer: accepted and echoed as given.
    let got = handle(&request(json!(1.0), "tools/list", json!({"_meta": meta()}))).unwrap();
    assert_eq!(got["id"], json!(1.0));
    assert!(got.get("result").is_some());
}

#[test]
fn invalid_ids_are_rejected_with_id_null() {
    for id in [
        json!(null),
        json!(1.5),
        json!(true),
        json!({}),
        json!({"a": 1}),
        json!([1]),
    ] {
        let got = handle(&request(id.clone(), "tools/list", json!({"_meta": meta()})));
        assert_eq!(got, Some(invalid_request(json!(null))), "{id}");
    }
}

#[test]
fn notifications_get_no_response() {
    let good = json!({"jsonrpc": "2.0", "method": "tools/list", "params": {"_meta": meta()}});
    assert_eq!(handle(&good), None);
    // Even one that would fail later checks: no _meta, unknown method, bad version.
    for message in [
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled"}),
        json!({"jsonrpc": "2.0", "method": "x", "params": []}),
        json!({"jsonrpc": "2.0", "method": "tools/call", "params": {"_meta": {PV: "1999", CC: {}}}}),
    ] {
        assert_eq!(handle(&message), None, "{message}");
    }
    // A malformed message is not a notification.
    assert_eq!(
        handle(&json!({"jsonrpc": "2.0", "method": ""})),
        Some(invalid_request(json!(null)))
    );
}

// ---------------------------------------------------------------- envelope (step 1)

#[test]
fn envelope_failures() {
    let base = request(json!(7), "tools/list", json!({"_meta": meta()}));
    let with = |key: &str, value: Value| {
        let mut m = base.clone();
        m[key] = value;
        m
    };
    let without = |key: &str| {
        let mut m = base.clone();
        m.as_object_mut().unwrap().remove(key);
        m
    };
    // The id is echoed when it is valid.
    for message in [
        with("jsonrpc", json!("1.0")),
        with("jsonrpc", json!(2.0)),
        with("jsonrpc", json!(null)),
        without("jsonrpc"),
        with("method", json!("")),
        with("method", json!(5)),
        with("method", json!(null)),
        without("method"),
    ] {
        assert_eq!(
            handle(&message),
            Some(invalid_request(json!(7))),
            "{message}"
        );
    }
    // ... and null when it is not.
    let mut m = with("jsonrpc", json!("1.0"));
    m["id"] = json!(1.5);
    assert_eq!(handle(&m), Some(invalid_request(json!(null))));
    let mut m = with("method", json!(""));
    m["id"] = json!(true);
    assert_eq!(handle(&m), Some(invalid_request(json!(null))));
    // Not an object at all.
    for message in [
        json!([base.clone()]),
        json!([]),
        json!(null),
        json!("x"),
        json!(3),
        json!(true),
    ] {
        assert_eq!(
            handle(&message),
            Some(invalid_request(json!(null))),
            "{message}"
        );
    }
}

// ---------------------------------------------------------------- _meta (step 4)

#[test]
fn missing_meta_fields() {
    let missing = |id: i64| error(json!(id), -32602, "Missing required _meta fields");
    let cases = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": null}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": []}),
        request(json!(1), "tools/list", json!({})),
        request(json!(1), "tools/list", json!({"_meta": null})),
        request(json!(1), "tools/list", json!({"_meta": []})),
        request(json!(1), "tools/list", json!({"_meta": {CC: {}}})),
        request(json!(1), "tools/list", json!({"_meta": {PV: "2026-07-28"}})),
        request(
            json!(1),
            "tools/list",
            json!({"_meta": {PV: 20260728, CC: {}}}),
        ),
        request(json!(1), "tools/list", json!({"_meta": {PV: null, CC: {}}})),
        request(
            json!(1),
            "tools/list",
            json!({"_meta": {PV: "2026-07-28", CC: []}}),
        ),
        request(
            json!(1),
            "tools/list",
            json!({"_meta": {PV: "2026-07-28", CC: null}}),
        ),
        request(
            json!(1),
            "tools/list",
            json!({"_meta": {PV: "2026-07-28", CC: true}}),
        ),
        // Fields at the wrong level do not count.
        request(json!(1), "tools/list", json!({PV: "2026-07-28", CC: {}})),
    ];
    for message in cases {
        assert_eq!(handle(&message), Some(missing(1)), "{message}");
    }
    // Missing _meta wins over an unknown method (step 4 before step 6).
    let m = request(json!(1), "nope", json!({}));
    assert_eq!(handle(&m), Some(missing(1)));
}

// ---------------------------------------------------------------- version (step 5)

#[test]
fn unsupported_version_on_every_method() {
    for method in [
        "server/discover",
        "tools/list",
        "tools/call",
        "prompts/list",
        "initialize",
        "x/y",
    ] {
        let m = request(
            json!("v"),
            method,
            json!({"_meta": {PV: "2025-11-25", CC: {}}, "name": "nope", "arguments": []}),
        );
        assert_eq!(
            handle(&m),
            Some(json!({"jsonrpc": "2.0", "id": "v", "error": {
                "code": -32022,
                "message": "Unsupported protocol version",
                "data": {"supported": ["2026-07-28"], "requested": "2025-11-25"}
            }})),
            "{method}"
        );
    }
}

#[test]
fn unsupported_version_data_is_a_copy_of_the_configuration() {
    let mut server = ServerConfig::contract();
    server.supported_versions = vec!["a".into(), "b".into()];
    let m = request(json!(1), "tools/list", json!({"_meta": {PV: "", CC: {}}}));
    let got = handle_mcp_request(&m, &server).unwrap();
    assert_eq!(
        got["error"]["data"],
        json!({"supported": ["a", "b"], "requested": ""})
    );
}

// ---------------------------------------------------------------- methods and call params

#[test]
fn unknown_methods() {
    for method in [
        "prompts/list",
        "resources/list",
        "initialize",
        "ping",
        "Tools/List",
        "tools/list ",
        "tools",
    ] {
        let m = request(json!(3), method, json!({"_meta": meta()}));
        assert_eq!(
            handle(&m),
            Some(error(json!(3), -32601, "Method not found")),
            "{method}"
        );
    }
}

#[test]
fn call_param_failures() {
    let invalid = error(json!(4), -32602, "Invalid params");
    let params = |extra: Value| {
        let mut p = json!({"_meta": meta()});
        p.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        request(json!(4), "tools/call", p)
    };
    for message in [
        params(json!({"name": "get_build_status", "arguments": null})),
        params(json!({"name": "get_build_status", "arguments": ["api", 412]})),
        params(json!({"name": "get_build_status", "arguments": "api"})),
        params(json!({"arguments": {"pipeline": "api", "build": 412}})),
        params(json!({"name": 42, "arguments": {}})),
        params(json!({"name": null})),
        params(json!({"name": ["get_build_status"]})),
        // A bad name is reported before an unknown tool, and a bad arguments member before
        // an unknown tool too (step 7 before step 8).
        params(json!({"name": "deploy_service", "arguments": null})),
    ] {
        assert_eq!(handle(&message), Some(invalid.clone()), "{message}");
    }
}

#[test]
fn tool_names_are_exact_and_case_sensitive() {
    for name in [
        "Get_Build_Status",
        "GET_BUILD_STATUS",
        "get_build_status ",
        "",
        "list_flaky_test",
    ] {
        let m = call(json!(5), name, json!({"pipeline": "api", "build": 412}));
        assert_eq!(
            handle(&m),
            Some(error(json!(5), -32602, &format!("Unknown tool: {name}"))),
            "{name}"
        );
    }
}

// ---------------------------------------------------------------- validation (step 9)

#[test]
fn validation_failures_in_the_stated_order() {
    let cases: Vec<(&str, Value, &str)> = vec![
        // Unexpected keys first, in argument order, even when required ones are missing.
        (
            "get_build_status",
            json!({"zeta": 1, "alpha": 2}),
            "Unexpected argument: zeta",
        ),
        (
            "get_build_status",
            json!({"pipeline": "api", "build": 412, "verbose": true}),
            "Unexpected argument: verbose",
        ),
        (
            "list_flaky_tests",
            json!({"limit": 0, "extra": 1}),
            "Unexpected argument: extra",
        ),
        // Then required, in `required` order.
        (
            "get_build_status",
            json!({}),
            "Missing required argument: pipeline",
        ),
        (
            "get_build_status",
            json!({"build": "x"}),
            "Missing required argument: pipeline",
        ),
        (
            "get_build_status",
            json!({"pipeline": 3}),
            "Missing required argument: build",
        ),
        (
            "list_flaky_tests",
            json!({"limit": 3}),
            "Missing required argument: pipeline",
        ),
        // Then per property in `properties` order: type, enum, minimum, maximum.
        (
            "get_build_status",
            json!({"build": 0, "pipeline": 3}),
            "Argument pipeline must be a string",
        ),
        (
            "get_build_status",
            json!({"build": "412", "pipeline": "API"}),
            "Argument pipeline must be one of: web, api, mobile",
        ),
        (
            "get_build_status",
            json!({"pipeline": "api", "build": "412"}),
            "Argument build must be an integer",
        ),
        (
            "get_build_status",
            json!({"pipeline": "api", "build": true}),
            "Argument build must be an integer",
        ),
        (
            "get_build_status",
            json!({"pipeline": "api", "build": 412.5}),
            "Argument build must be an integer",
        ),
        (
            "get_build_status",
            json!({"pipeline": "api", "build": null}),
            "Argument build must be an integer",
        ),
        (
            "get_build_status",
            json!({"pipeline": "api", "build": [412]}),
            "Argument build must be an integer",
        ),
        (
            "get_build_status",
            json!({"pipeline": "api", "build": 0}),
            "Argument build must be at least 1",
        ),
        (
            "get_build_status",
            json!({"pipeline": "api", "build": -3}),
            "Argument build must be at least 1",
        ),
        (
            "list_flaky_tests",
            json!({"pipeline": "api", "limit": 0}),
            "Argument limit must be at least 1",
        ),
        (
            "list_flaky_tests",
            json!({"pipeline": "api", "limit": 21}),
            "Argument limit must be at most 20",
        ),
        (
            "list_flaky_tests",
            json!({"pipeline": "api", "limit": 20.5}),
            "Argument limit must be an integer",
        ),
        (
            "list_flaky_tests",
            json!({"pipeline": "api", "limit": true}),
            "Argument limit must be an integer",
        ),
        (
            "list_flaky_tests",
            json!({"pipeline": "api", "limit": "3"}),
            "Argument limit must be an integer",
        ),
        (
            "list_flaky_tests",
            json!({"pipeline": true}),
            "Argument pipeline must be a string",
        ),
    ];
    for (tool, args, text) in cases {
        let m = call(json!(6), tool, args.clone());
        assert_eq!(
            handle(&m),
            Some(tool_failure(json!(6), text)),
            "{tool} {args}"
        );
    }
}

#[test]
fn absent_arguments_member_is_an_empty_object() {
    let m = request(
        json!(1),
        "tools/call",
        json!({"_meta": meta(), "name": "get_build_status"}),
    );
    assert_eq!(
        handle(&m),
        Some(tool_failure(
            json!(1),
            "Missing required argument: pipeline"
        ))
    );
}

#[test]
fn validation_reads_the_declared_schema() {
    // Allow "staging" and drop the minimum: the server's schema, not a hard-coded one, decides.
    let mut server = ServerConfig::contract();
    let props = &mut server.tools[0]["inputSchema"]["properties"];
    props["pipeline"]["enum"] = json!(["staging"]);
    props["build"].as_object_mut().unwrap().remove("minimum");
    let m = call(
        json!(1),
        "get_build_status",
        json!({"pipeline": "staging", "build": 0}),
    );
    assert_eq!(
        handle_mcp_request(&m, &server),
        Some(tool_failure(
            json!(1),
            "No build 0 found for pipeline staging"
        ))
    );
    let m = call(
        json!(2),
        "get_build_status",
        json!({"pipeline": "api", "build": 412}),
    );
    assert_eq!(
        handle_mcp_request(&m, &server),
        Some(tool_failure(
            json!(2),
            "Argument pipeline must be one of: staging"
        ))
    );
    // Without additionalProperties: false, extra keys are allowed.
    let mut server = ServerConfig::contract();
    server.tools[0]["inputSchema"]
        .as_object_mut()
        .unwrap()
        .remove("additionalProperties");
    let m = call(
        json!(3),
        "get_build_status",
        json!({"pipeline": "api", "build": 413, "verbose": true}),
    );
    assert_eq!(
        handle_mcp_request(&m, &server),
        Some(tool_success(
            json!(3),
            json!({"pipeline": "api", "build": 413, "status": "passed", "minutes": 11})
        ))
    );
}

// ---------------------------------------------------------------- execution (step 10)

#[test]
fn limits_and_default() {
    let api = |n: usize| {
        let all = [
            ("checkout-timeout", 7),
            ("refund-webhook-retry", 4),
            ("rate-card-cache", 2),
            ("invoice-pdf-render", 2),
        ];
        json!({"pipeline": "api", "tests": all[..n].iter().map(|(t, f)| json!({"test": t, "failures": f})).collect::<Vec<_>>()})
    };
    let cases = [
        (json!({"pipeline": "api"}), api(3)),
        (json!({"pipeline": "api", "limit": 1}), api(1)),
        (json!({"pipeline": "api", "limit": 2.0}), api(2)),
        (json!({"pipeline": "api", "limit": 20}), api(4)),
        (json!({"pipeline": "api", "limit": 4}), api(4)),
    ];
    for (args, structured) in cases {
        let m = call(json!(1), "list_flaky_tests", args.clone());
        assert_eq!(
            handle(&m),
            Some(tool_success(json!(1), structured)),
            "{args}"
        );
    }
}

#[test]
fn float_integers_run_as_integers() {
    let m = call(
        json!(1),
        "get_build_status",
        json!({"pipeline": "api", "build": 412.0}),
    );
    let got = handle(&m).unwrap();
    assert_eq!(
        got,
        tool_success(
            json!(1),
            json!({"pipeline": "api", "build": 412, "status": "failed", "minutes": 14})
        )
    );
    assert_eq!(
        got["result"]["content"][0]["text"],
        json!(r#"{"pipeline":"api","build":412,"status":"failed","minutes":14}"#)
    );
    let m = call(
        json!(2),
        "get_build_status",
        json!({"pipeline": "web", "build": 88.0}),
    );
    assert_eq!(
        handle(&m),
        Some(tool_failure(json!(2), "No build 88 found for pipeline web"))
    );
}

#[test]
fn every_build_and_pipeline() {
    let server = ServerConfig::contract();
    for b in &server.builds {
        let m = call(
            json!(b.build),
            "get_build_status",
            json!({"pipeline": b.pipeline, "build": b.build}),
        );
        assert_eq!(
            handle(&m),
            Some(tool_success(
                json!(b.build),
                json!({"pipeline": b.pipeline, "build": b.build, "status": b.status, "minutes": b.minutes})
            ))
        );
    }
    // A build that exists on another pipeline is not found on this one.
    let m = call(
        json!(1),
        "get_build_status",
        json!({"pipeline": "web", "build": 412}),
    );
    assert_eq!(
        handle(&m),
        Some(tool_failure(
            json!(1),
            "No build 412 found for pipeline web"
        ))
    );
}

#[test]
fn data_tables_come_from_the_configuration() {
    let mut server = ServerConfig::contract();
    server.builds.clear();
    server.flaky_tests.reverse();
    let m = call(
        json!(1),
        "get_build_status",
        json!({"pipeline": "api", "build": 412}),
    );
    assert_eq!(
        handle_mcp_request(&m, &server),
        Some(tool_failure(
            json!(1),
            "No build 412 found for pipeline api"
        ))
    );
    let m = call(
        json!(2),
        "list_flaky_tests",
        json!({"pipeline": "api", "limit": 2}),
    );
    assert_eq!(
        handle_mcp_request(&m, &server).unwrap()["result"]["structuredContent"],
        json!({"pipeline": "api", "tests": [
            {"test": "invoice-pdf-render", "failures": 2},
            {"test": "rate-card-cache", "failures": 2}
        ]})
    );
}

#[test]
fn no_mutation_of_the_request_or_the_server() {
    let server = ServerConfig::contract();
    let server_before = server.clone();
    let messages = [
        call(
            json!(1),
            "get_build_status",
            json!({"pipeline": "api", "build": 412.0}),
        ),
        call(
            json!(2),
            "list_flaky_tests",
            json!({"pipeline": "api", "limit": 2.0}),
        ),
        call(
            json!(3),
            "get_build_status",
            json!({"pipeline": "x", "build": 1}),
        ),
        request(json!(4), "tools/list", json!({"_meta": meta()})),
        request(json!(5), "server/discover", json!({"_meta": meta()})),
    ];
    for message in messages {
        let before = message.clone();
        let mut got = handle_mcp_request(&message, &server).unwrap();
        assert_eq!(message, before);
        // The 2.0 stays a float in the request although the tool saw an integer.
        if before["id"] == json!(1) {
            assert!(message["params"]["arguments"]["build"].is_f64());
            assert!(got["result"]["structuredContent"]["build"].is_i64());
        }
        // Changing the response does not reach the server.
        if let Some(result) = got.get_mut("result").and_then(Value::as_object_mut) {
            result.insert("poison".into(), json!(true));
            if let Some(sc) = result.get_mut("structuredContent") {
                sc["status"] = json!("passed");
            }
        }
    }
    assert_eq!(server, server_before);
    let again = handle(&call(
        json!(1),
        "get_build_status",
        json!({"pipeline": "api", "build": 412}),
    ));
    assert_eq!(
        again.unwrap()["result"]["structuredContent"]["status"],
        json!("failed")
    );
}

// ---------------------------------------------------------------- server identity

#[test]
fn shipped_server_identifies_itself_in_every_result_but_not_errors() {
    let server = ServerConfig::shipped();
    let info = json!({"name": "ci-insights", "version": env!("CARGO_PKG_VERSION")});
    for message in [
        request(json!(1), "server/discover", json!({"_meta": meta()})),
        request(json!(2), "tools/list", json!({"_meta": meta()})),
        call(
            json!(3),
            "get_build_status",
            json!({"pipeline": "api", "build": 412}),
        ),
        call(
            json!(4),
            "get_build_status",
            json!({"pipeline": "api", "build": 999}),
        ),
        call(json!(5), "get_build_status", json!({"pipeline": "x"})),
    ] {
        let got = handle_mcp_request(&message, &server).unwrap();
        assert_eq!(
            got["result"]["_meta"],
            json!({"io.modelcontextprotocol/serverInfo": info}),
            "{message}"
        );
        // Without the identity the response is the contract's.
        let mut stripped = got.clone();
        stripped["result"].as_object_mut().unwrap().remove("_meta");
        assert_eq!(Some(stripped), handle(&message));
    }
    for message in [
        request(json!(6), "prompts/list", json!({"_meta": meta()})),
        call(json!(7), "nope", json!({})),
    ] {
        let got = handle_mcp_request(&message, &server).unwrap();
        assert_eq!(Some(got), handle(&message));
    }
}

#[test]
fn contract_listing_snapshots() {
    // What the model is shown: the listing and discovery exactly as served (contract config;
    // the shipped one only adds the serverInfo _meta checked above).
    let list = handle(&request(json!(1), "tools/list", json!({"_meta": meta()})));
    let discover = handle(&request(
        json!(2),
        "server/discover",
        json!({"_meta": meta()}),
    ));
    insta::assert_json_snapshot!("ci_insights_tools_list", list);
    insta::assert_json_snapshot!("ci_insights_server_discover", discover);
}

// ---------------------------------------------------------------- property tests

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        (-3i64..30).prop_map(|n| json!(n as f64)),
        "[a-z_/0-9.-]{0,12}".prop_map(Value::String),
        prop_oneof![
            Just("2.0"),
            Just("2026-07-28"),
            Just("tools/call"),
            Just("tools/list"),
            Just("server/discover"),
            Just("get_build_status"),
            Just("list_flaky_tests"),
            Just("api"),
            Just("web"),
            Just("mobile"),
            Just("pipeline"),
            Just("build"),
            Just("limit"),
        ]
        .prop_map(|s| json!(s)),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop_oneof![
                        "[a-z_]{1,8}".prop_map(String::from),
                        Just("jsonrpc".to_string()),
                        Just("id".to_string()),
                        Just("method".to_string()),
                        Just("params".to_string()),
                        Just("_meta".to_string()),
                        Just("name".to_string()),
                        Just("arguments".to_string()),
                        Just(PV.to_string()),
                        Just(CC.to_string()),
                        Just("pipeline".to_string()),
                        Just("build".to_string()),
                        Just("limit".to_string()),
                    ],
                    inner
                ),
                0..6
            )
            .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Messages that get past the envelope more often: a valid frame with arbitrary parts.
fn arb_near_request() -> impl Strategy<Value = Value> {
    let id = prop_oneof![
        Just(None),
        any::<i64>().prop_map(|n| Some(json!(n))),
        "[a-z0-9]{0,4}".prop_map(|s| Some(json!(s))),
        arb_json().prop_map(Some),
    ];
    let method = prop_oneof![
        Just(json!("tools/call")),
        Just(json!("tools/list")),
        Just(json!("server/discover")),
        Just(json!("prompts/list")),
        arb_json(),
    ];
    let version = prop_oneof![
        Just(json!("2026-07-28")),
        Just(json!("2025-11-25")),
        arb_json()
    ];
    let caps = prop_oneof![Just(json!({})), arb_json()];
    let name = prop_oneof![
        Just(json!("get_build_status")),
        Just(json!("list_flaky_tests")),
        arb_json(),
    ];
    let args = prop_oneof![
        (
            prop_oneof![Just(json!("api")), Just(json!("web")), arb_json()],
            arb_json(),
            arb_json()
        )
            .prop_map(|(p, b, l)| json!({"pipeline": p, "build": b, "limit": l})),
        (prop_oneof![Just(json!("api")), arb_json()], -2i64..25)
            .prop_map(|(p, b)| json!({"pipeline": p, "build": b})),
        arb_json(),
    ];
    (id, method, version, caps, name, args).prop_map(|(id, method, version, caps, name, args)| {
        let mut m = json!({"jsonrpc": "2.0", "method": method,
            "params": {"_meta": {PV: version, CC: caps}, "name": name, "arguments": args}});
        if let Some(id) = id {
            m["id"] = id;
        }
        m
    })
}

fn is_valid_id(id: &Value) -> bool {
    id.is_string() || id.as_f64().is_some_and(|f| f.fract() == 0.0)
}

fn check_response(message: &Value, response: Option<Value>) -> Result<(), TestCaseError> {
    let is_notification = message.as_object().is_some_and(|o| {
        !o.contains_key("id")
            && o.get("jsonrpc") == Some(&json!("2.0"))
            && o.get("method")
                .and_then(Value::as_str)
                .is_some_and(|m| !m.is_empty())
    });
    if is_notification {
        prop_assert!(response.is_none(), "notification answered: {message}");
        return Ok(());
    }
    let Some(response) = response else {
        return Err(TestCaseError::fail(format!("no response to {message}")));
    };
    let obj = response.as_object().expect("response object");
    prop_assert_eq!(obj.get("jsonrpc"), Some(&json!("2.0")));
    let request_id = message.get("id").filter(|id| is_valid_id(id));
    let id = obj.get("id").expect("id member");
    prop_assert!(
        id.is_null() || Some(id) == request_id,
        "id {} for {}",
        id,
        message
    );
    let has_result = obj.contains_key("result");
    let has_error = obj.contains_key("error");
    prop_assert!(
        has_result != has_error,
        "exactly one of result/error: {}",
        response
    );
    prop_assert_eq!(obj.len(), 3);
    if has_error {
        let e = obj["error"].as_object().expect("error object");
        prop_assert!(e["code"].is_i64());
        prop_assert!(e["message"].is_string());
        prop_assert!(e.len() == 2 || (e.len() == 3 && e["code"] == json!(-32022)));
    } else {
        prop_assert!(id.is_string() || id.is_number(), "result with id {}", id);
        prop_assert_eq!(&obj["result"]["resultType"], &json!("complete"));
        if let Some(is_error) = obj["result"].get("isError") {
            let sc = obj["result"].get("structuredContent");
            prop_assert_eq!(is_error.as_bool() == Some(false), sc.is_some());
            if let Some(sc) = sc {
                prop_assert_eq!(
                    &obj["result"]["content"][0]["text"],
                    &json!(serde_json::to_string(sc).unwrap())
                );
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_json_never_panics_and_answers_validly(message in arb_json()) {
        let server = ServerConfig::contract();
        let before = message.clone();
        let response = handle_mcp_request(&message, &server);
        prop_assert_eq!(&message, &before);
        check_response(&message, response)?;
    }

    #[test]
    fn near_requests_never_panic_and_answer_validly(message in arb_near_request()) {
        let server = ServerConfig::shipped();
        let response = handle_mcp_request(&message, &server);
        check_response(&message, response)?;
    }
}

// ---------------------------------------------------------------- stdio binary

fn ci_insights() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ci-insights"))
}

#[test]
fn stdio_binary_serves_lines_survives_bad_ones_and_exits_zero_on_eof() {
    let mut child = ci_insights()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let lines = [
        serde_json::to_string(&call(
            json!("w-1"),
            "list_flaky_tests",
            json!({"pipeline": "web"}),
        ))
        .unwrap(),
        "{\"jsonrpc\": \"2.0\", \"id\": 1,".to_string(),
        serde_json::to_string(
            &json!({"jsonrpc": "2.0", "method": "tools/list", "params": {"_meta": meta()}}),
        )
        .unwrap(),
        String::new(),
        serde_json::to_string(&request(json!(2), "prompts/list", json!({"_meta": meta()})))
            .unwrap(),
    ];
    let mut stdin = child.stdin.take().unwrap();
    for line in &lines {
        writeln!(stdin, "{line}").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let responses: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let info = json!({"io.modelcontextprotocol/serverInfo": {"name": "ci-insights", "version": env!("CARGO_PKG_VERSION")}});
    let mut w1 = tool_success(
        json!("w-1"),
        json!({"pipeline": "web", "tests": [{"test": "login-redirect", "failures": 5}]}),
    );
    w1["result"]["_meta"] = info;
    assert_eq!(
        responses,
        vec![
            w1,
            error(json!(null), -32700, "Parse error"),
            error(json!(2), -32601, "Method not found"),
        ]
    );
    // Each response is one compact line.
    assert!(stdout.lines().all(|l| !l.contains(": ")));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("line 2: parse error"), "{stderr}");
}

#[test]
fn stdio_binary_answers_interactively_line_by_line() {
    let mut child = ci_insights()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    for id in 0..3 {
        let m = request(json!(id), "server/discover", json!({"_meta": meta()}));
        writeln!(stdin, "{}", serde_json::to_string(&m).unwrap()).unwrap();
        stdin.flush().unwrap();
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["id"], json!(id));
        assert_eq!(v["result"]["supportedVersions"], json!(["2026-07-28"]));
    }
    drop(stdin);
    assert_eq!(child.wait().unwrap().code(), Some(0));
}

#[test]
fn data_file_replaces_the_tables() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data.json");
    std::fs::write(
        &data,
        r#"{"builds": [{"pipeline": "web", "build": 1, "status": "passed", "minutes": 2}]}"#,
    )
    .unwrap();
    let mut child = ci_insights()
        .arg("--data")
        .arg(&data)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for m in [
        call(
            json!(1),
            "get_build_status",
            json!({"pipeline": "web", "build": 1}),
        ),
        call(
            json!(2),
            "get_build_status",
            json!({"pipeline": "api", "build": 412}),
        ),
        call(json!(3), "list_flaky_tests", json!({"pipeline": "web"})),
    ] {
        writeln!(stdin, "{}", serde_json::to_string(&m).unwrap()).unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let v: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        v[0]["result"]["structuredContent"],
        json!({"pipeline": "web", "build": 1, "status": "passed", "minutes": 2})
    );
    assert_eq!(
        v[1]["result"]["content"][0]["text"],
        json!("No build 412 found for pipeline api")
    );
    // flakyTests was not given: the seed table stays.
    assert_eq!(
        v[2]["result"]["structuredContent"]["tests"][0]["test"],
        json!("login-redirect")
    );
}

#[test]
fn bad_data_file_names_the_field_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("bad.json");
    std::fs::write(
        &data,
        "{\"builds\": [\n {\"pipeline\": \"web\", \"build\": 1, \"status\": \"passed\", \"minutes\": 2},\n {\"pipeline\": \"api\", \"build\": \"7\", \"status\": \"failed\", \"minutes\": 1}\n]}",
    )
    .unwrap();
    let out = ci_insights()
        .arg("--data")
        .arg(&data)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("bad.json"), "{stderr}");
    assert!(stderr.contains("builds[1].build"), "{stderr}");
    assert!(stderr.contains("line 3"), "{stderr}");

    let out = ci_insights()
        .arg("--data")
        .arg(dir.path().join("missing.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("missing.json")
    );
}

#[test]
fn config_file_replaces_the_whole_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("server.json");
    let mut config = ServerConfig::contract();
    config.tools.truncate(1);
    config.cache_scope = CacheScope::Private;
    std::fs::write(&path, serde_json::to_string(&config).unwrap()).unwrap();
    let mut child = ci_insights()
        .arg("--config")
        .arg(&path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let m = request(json!(1), "tools/list", json!({"_meta": meta()}));
    writeln!(stdin, "{}", serde_json::to_string(&m).unwrap()).unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v, handle_mcp_request(&m, &config).unwrap());
    assert!(v["result"].get("_meta").is_none());
}

// ---------------------------------------------------------------- Streamable HTTP

struct Served {
    url: String,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<()>,
}

impl Served {
    async fn start(server: ServerConfig, options: HttpOptions) -> Served {
        let http = HttpServer::bind("127.0.0.1:0".parse().unwrap(), server, options)
            .await
            .unwrap();
        let url = http.endpoint_url();
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            http.serve_until(async {
                let _ = rx.await;
            })
            .await
            .unwrap();
        });
        Served {
            url,
            shutdown: Some(tx),
            task,
        }
    }

    async fn stop(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        tokio::time::timeout(Duration::from_secs(5), &mut self.task)
            .await
            .unwrap()
            .unwrap();
    }
}

/// Header edits applied after the mirrored ones (`None` removes the header).
type HeaderEdits<'a> = Vec<(&'a str, Option<&'a str>)>;

fn client() -> reqwest::Client {
    reqwest::Client::builder().no_proxy().build().unwrap()
}

/// POST `body` with the headers a conforming client mirrors from it, then `extra` (a `None`
/// value removes the header).
async fn post(
    url: &str,
    body: &Value,
    extra: &[(&str, Option<&str>)],
) -> (u16, Option<Value>, reqwest::header::HeaderMap) {
    let mut headers: Vec<(String, String)> = vec![
        ("Content-Type".into(), "application/json".into()),
        (
            "Accept".into(),
            "application/json, text/event-stream".into(),
        ),
    ];
    if let Some(v) = body
        .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
        .and_then(Value::as_str)
    {
        headers.push(("MCP-Protocol-Version".into(), v.into()));
    }
    if let Some(m) = body.get("method").and_then(Value::as_str) {
        headers.push(("Mcp-Method".into(), m.into()));
    }
    if let Some(n) = body.pointer("/params/name").and_then(Value::as_str) {
        headers.push(("Mcp-Name".into(), n.into()));
    }
    for (name, value) in extra {
        headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        if let Some(v) = value {
            headers.push((name.to_string(), v.to_string()));
        }
    }
    let mut req = client().post(url).body(serde_json::to_vec(body).unwrap());
    for (n, v) in headers {
        req = req.header(n, v);
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let bytes = resp.bytes().await.unwrap();
    let json = if bytes.is_empty() {
        None
    } else {
        serde_json::from_slice(&bytes).ok()
    };
    (status, json, headers)
}

#[tokio::test]
async fn http_answers_like_the_handler_with_mapped_statuses() {
    let served = Served::start(ServerConfig::shipped(), HttpOptions::default()).await;
    let server = ServerConfig::shipped();
    let cases: Vec<(Value, u16)> = vec![
        (
            call(
                json!(1),
                "get_build_status",
                json!({"pipeline": "api", "build": 412}),
            ),
            200,
        ),
        (
            call(
                json!(2),
                "get_build_status",
                json!({"pipeline": "api", "build": 999}),
            ),
            200,
        ),
        (
            call(
                json!(3),
                "get_build_status",
                json!({"pipeline": "api", "build": "412"}),
            ),
            200,
        ),
        (
            call(json!(6), "deploy_service", json!({"service": "api"})),
            400,
        ),
        (call(json!(7), "get_build_status", json!(["api", 412])), 400),
        (
            request(
                json!(8),
                "tools/list",
                json!({"_meta": {PV: "2025-11-25", CC: {}}}),
            ),
            400,
        ),
        (
            request(json!("w-3"), "prompts/list", json!({"_meta": meta()})),
            404,
        ),
        (
            request(json!(11), "server/discover", json!({"_meta": meta()})),
            200,
        ),
        (
            request(json!(12), "tools/list", json!({"_meta": meta()})),
            200,
        ),
        (
            request(json!(null), "tools/list", json!({"_meta": meta()})),
            400,
        ),
    ];
    for (body, status) in cases {
        let (got_status, got, headers) = post(&served.url, &body, &[]).await;
        assert_eq!(got_status, status, "{body}");
        assert_eq!(got, handle_mcp_request(&body, &server), "{body}");
        assert_eq!(headers["content-type"], "application/json");
    }
    // Row 9: a legacy initialize without _meta (its MCP-Protocol-Version header is the old
    // one) is -32602 with 400.
    let init = request(
        json!(9),
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "old-editor", "version": "1.4.0"}}),
    );
    let (status, got, _) = post(
        &served.url,
        &init,
        &[("MCP-Protocol-Version", Some("2025-11-25"))],
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(
        got,
        Some(error(json!(9), -32602, "Missing required _meta fields"))
    );
    served.stop().await;
}

#[tokio::test]
async fn http_notifications_get_202_and_no_body() {
    let served = Served::start(ServerConfig::contract(), HttpOptions::default()).await;
    let note = json!({"jsonrpc": "2.0", "method": "tools/call", "params": {"_meta": meta(), "name": "get_build_status", "arguments": {"pipeline": "api", "build": 413}}});
    let (status, body, _) = post(&served.url, &note, &[]).await;
    assert_eq!((status, body), (202, None));
    // Header rules are not defined for notifications: a bare one is accepted too.
    let (status, body, _) = post(
        &served.url,
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled"}),
        &[],
    )
    .await;
    assert_eq!((status, body), (202, None));
    served.stop().await;
}

#[tokio::test]
async fn http_header_validation() {
    let served = Served::start(ServerConfig::contract(), HttpOptions::default()).await;
    let url = &served.url;
    let list = request(json!(21), "tools/list", json!({"_meta": meta()}));
    let call412 = call(
        json!(22),
        "get_build_status",
        json!({"pipeline": "api", "build": 412}),
    );
    let mismatch = |id: i64| {
        move |v: &Option<Value>| {
            let v = v.as_ref().unwrap();
            v["id"] == json!(id)
                && v["error"]["code"] == json!(-32020)
                && v["error"]["message"]
                    .as_str()
                    .unwrap()
                    .starts_with("Header mismatch")
        }
    };
    let bad: Vec<(&Value, HeaderEdits, i64)> = vec![
        (&list, vec![("MCP-Protocol-Version", None)], 21),
        (
            &list,
            vec![("MCP-Protocol-Version", Some("2025-11-25"))],
            21,
        ),
        (&list, vec![("Mcp-Method", None)], 21),
        (&list, vec![("Mcp-Method", Some("prompts/list"))], 21),
        (&list, vec![("Mcp-Method", Some("TOOLS/LIST"))], 21),
        (&call412, vec![("Mcp-Name", None)], 22),
        (&call412, vec![("Mcp-Name", Some("wrong_tool_name"))], 22),
        (&call412, vec![("Mcp-Name", Some("Get_Build_Status"))], 22),
        (
            &call412,
            vec![("Mcp-Name", Some("=?base64?Z2V0X2J1aWxk?="))],
            22,
        ),
        (
            &call412,
            vec![("Mcp-Name", Some("=?base64?not base64!?="))],
            22,
        ),
    ];
    for (body, extra, id) in bad {
        let (status, got, _) = post(url, body, &extra).await;
        assert_eq!(status, 400, "{extra:?}");
        assert!(mismatch(id)(&got), "{extra:?}: {got:?}");
    }
    let expected_list = handle(&list);
    let good: Vec<(&Value, HeaderEdits)> = vec![
        (&list, vec![("mcp-method", Some("tools/list"))]),
        (&list, vec![("MCP-METHOD", Some("tools/list"))]),
        (&list, vec![("Mcp-Method", Some("  tools/list  "))]),
        (&call412, vec![("Mcp-Name", Some("  get_build_status "))]),
        (
            &call412,
            vec![("Mcp-Name", Some("=?base64?Z2V0X2J1aWxkX3N0YXR1cw==?="))],
        ),
    ];
    for (body, extra) in good {
        let (status, got, _) = post(url, body, &extra).await;
        assert_eq!(status, 200, "{extra:?}: {got:?}");
        assert_eq!(got, handle(body), "{extra:?}");
    }
    assert!(expected_list.is_some());
    // A header/body version mismatch is -32020; a matching unsupported version is -32022.
    let old = request(
        json!(23),
        "server/discover",
        json!({"_meta": {PV: "v999.0.0", CC: {}}}),
    );
    let (status, got, _) = post(url, &old, &[("MCP-Protocol-Version", Some("2026-07-28"))]).await;
    assert_eq!(status, 400);
    assert_eq!(got.unwrap()["error"]["code"], json!(-32020));
    let (status, got, _) = post(url, &old, &[]).await;
    assert_eq!(status, 400);
    assert_eq!(got.unwrap()["error"]["code"], json!(-32022));
    // Envelope and _meta failures come first: they need no headers to be judged.
    let (status, got, _) = post(url, &json!([1]), &[]).await;
    assert_eq!((status, got), (400, Some(invalid_request(json!(null)))));
    let no_meta = request(json!(24), "server/discover", json!({}));
    let (status, got, _) = post(
        url,
        &no_meta,
        &[("MCP-Protocol-Version", None), ("Mcp-Method", None)],
    )
    .await;
    assert_eq!(
        (status, got),
        (
            400,
            Some(error(json!(24), -32602, "Missing required _meta fields"))
        )
    );
    // A call whose name is not a string has no Mcp-Name to compare: the handler decides.
    let no_name = request(json!(25), "tools/call", json!({"_meta": meta(), "name": 5}));
    let (status, got, _) = post(url, &no_name, &[]).await;
    assert_eq!(
        (status, got),
        (400, Some(error(json!(25), -32602, "Invalid params")))
    );
    served.stop().await;
}

#[tokio::test]
async fn http_transport_gates() {
    let options = HttpOptions {
        max_body_bytes: 4096,
        ..HttpOptions::default()
    };
    let served = Served::start(ServerConfig::contract(), options).await;
    let url = served.url.clone();
    let root = url.trim_end_matches("mcp").to_string();
    let list = request(json!(1), "tools/list", json!({"_meta": meta()}));
    // `/` is accepted as the endpoint too; other paths are 404.
    let (status, got, _) = post(&root, &list, &[]).await;
    assert_eq!((status, got), (200, handle(&list)));
    let (status, _, _) = post(&format!("{root}other"), &list, &[]).await;
    assert_eq!(status, 404);
    // GET and DELETE: 405 with Allow: POST.
    for method in [
        reqwest::Method::GET,
        reqwest::Method::DELETE,
        reqwest::Method::PUT,
    ] {
        let resp = client().request(method.clone(), &url).send().await.unwrap();
        assert_eq!(resp.status().as_u16(), 405, "{method}");
        assert_eq!(resp.headers()["allow"], "POST");
    }
    // Body cap.
    let big = call(
        json!(2),
        "get_build_status",
        json!({"pipeline": "x".repeat(5000), "build": 1}),
    );
    let (status, _, _) = post(&url, &big, &[]).await;
    assert_eq!(status, 413);
    // Unparsable body: -32700, id null.
    let resp = client()
        .post(&url)
        .header("Content-Type", "application/json")
        .body("{\"jsonrpc\":")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 400);
    let v: Value = resp.json().await.unwrap();
    assert_eq!(v, error(json!(null), -32700, "Parse error"));
    // Wrong media type.
    let (status, _, _) = post(&url, &list, &[("Content-Type", Some("text/plain"))]).await;
    assert_eq!(status, 415);
    let (status, _, _) = post(
        &url,
        &list,
        &[("Content-Type", Some("application/json; charset=utf-8"))],
    )
    .await;
    assert_eq!(status, 200);
    // Origin: absent and loopback are fine, foreign ones are 403.
    for origin in [
        "http://localhost:3000",
        "http://127.0.0.1",
        "https://[::1]:8443",
    ] {
        let (status, _, _) = post(&url, &list, &[("Origin", Some(origin))]).await;
        assert_eq!(status, 200, "{origin}");
    }
    for origin in [
        "http://evil.example.com",
        "null",
        "http://localhost.evil.com",
        "http://127.0.0.1.nip.io",
    ] {
        let (status, body, _) = post(&url, &list, &[("Origin", Some(origin))]).await;
        assert_eq!(status, 403, "{origin}");
        assert_eq!(body.unwrap()["error"]["code"], json!(-32600));
    }
    // Host: a rebinding name pointed at 127.0.0.1 is refused.
    let (status, _, _) = post(&url, &list, &[("Host", Some("evil.example.com"))]).await;
    assert_eq!(status, 403);
    served.stop().await;
}

#[tokio::test]
async fn http_allowed_origins_are_exact() {
    let options = HttpOptions {
        allowed_origins: vec!["https://tools.example.com".into()],
        ..HttpOptions::default()
    };
    let served = Served::start(ServerConfig::contract(), options).await;
    let list = request(json!(1), "tools/list", json!({"_meta": meta()}));
    let (status, _, _) = post(
        &served.url,
        &list,
        &[("Origin", Some("https://tools.example.com"))],
    )
    .await;
    assert_eq!(status, 200);
    let (status, _, _) = post(
        &served.url,
        &list,
        &[("Origin", Some("https://tools.example.com:444"))],
    )
    .await;
    assert_eq!(status, 403);
    served.stop().await;
}

#[tokio::test]
async fn http_refuses_non_loopback_bind_without_allow_remote() {
    let err = HttpServer::bind(
        "0.0.0.0:0".parse().unwrap(),
        ServerConfig::contract(),
        HttpOptions::default(),
    )
    .await
    .err()
    .unwrap();
    assert!(err.to_string().contains("--allow-remote"), "{err}");
}

/// Kills the child on drop so a failing test leaves no server behind.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn http_binary_prints_its_address_and_serves() {
    let mut child = Killed(
        ci_insights()
            .args(["--http", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let stderr = child.0.stderr.take().unwrap();
    let line = tokio::task::spawn_blocking(move || {
        let mut line = String::new();
        BufReader::new(stderr).read_line(&mut line).unwrap();
        line
    })
    .await
    .unwrap();
    let url = line
        .trim()
        .strip_prefix("ci-insights listening on ")
        .unwrap_or_else(|| panic!("unexpected first stderr line: {line:?}"))
        .to_string();
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
        "{url}"
    );
    let body = request(json!(1), "server/discover", json!({"_meta": meta()}));
    let (status, got, _) = post(&url, &body, &[]).await;
    assert_eq!(status, 200);
    assert_eq!(got, handle_mcp_request(&body, &ServerConfig::shipped()));
    // SIGTERM stops it cleanly.
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.0.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    let status = tokio::task::spawn_blocking(move || child.0.wait().unwrap())
        .await
        .unwrap();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn http_binary_refuses_a_public_bind() {
    let out = ci_insights()
        .args(["--http", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("--allow-remote"), "{stderr}");
    assert!(out.stdout.is_empty());
}

#[test]
fn example_data_file_loads() {
    let data = mcpvet::baseline::DataFile::load(&fixture("data-example.json")).unwrap();
    let server = ServerConfig::contract().with_data(data);
    let m = call(
        json!(1),
        "get_build_status",
        json!({"pipeline": "api", "build": 414}),
    );
    assert_eq!(
        handle_mcp_request(&m, &server),
        Some(tool_success(
            json!(1),
            json!({"pipeline": "api", "build": 414, "status": "failed", "minutes": 17})
        ))
    );
    let m = call(json!(2), "list_flaky_tests", json!({"pipeline": "api"}));
    assert_eq!(
        handle_mcp_request(&m, &server),
        Some(tool_success(
            json!(2),
            json!({"pipeline": "api", "tests": []})
        ))
    );
}
