//! The server kit: the seed's `demo` ToolServer with whole responses, the tool contracts
//! (validation, output schemas, cursors, `x-mcp-header`), resources and prompts, the policy
//! gate and audit sink, stdio and HTTP transports, and property tests of `handle`.

// Fixture builders outside #[test] functions unwrap too: a failure there is a test failure.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use mcpvet::kit::http::HttpServer;
use mcpvet::kit::stdio::serve_tool_server;
use mcpvet::kit::{
    Approval, AuditDecision, AuditOutcome, CacheHint, CacheHints, CacheScope, Decision,
    MemoryAudit, Prompt, PromptArgument, Resource, ResourceTemplate, Tool, ToolError, ToolOutput,
    ToolPolicy, ToolServer,
};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

fn request(id: Value, method: &str, mut params: Value) -> Value {
    params["_meta"] = meta();
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn run<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(f)
}

fn handle(server: &ToolServer, message: &Value) -> Option<Value> {
    run(server.handle(message))
}

fn number_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
        "required": ["a", "b"]
    })
}

/// The seed's example: `ToolServer("demo", "0.1")` with `add` and `boom`.
fn demo() -> ToolServer {
    let mut server = ToolServer::new("demo", "0.1");
    server
        .add_tool(Tool::sync("add", "Add a and b", number_schema(), |args| {
            let a = &args["a"];
            let b = &args["b"];
            let sum = match (a.as_i64(), b.as_i64()) {
                (Some(x), Some(y)) => json!(x + y),
                _ => json!(a.as_f64().unwrap_or(0.0) + b.as_f64().unwrap_or(0.0)),
            };
            Ok(ToolOutput::value(&sum))
        }))
        .unwrap();
    server
        .add_tool(Tool::sync(
            "boom",
            "Always raises",
            json!({"type": "object"}),
            |_| Err(ToolError::from("city not found")),
        ))
        .unwrap();
    server
}

const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

#[test]
fn seed_demo_whole_responses() {
    let server = demo();
    let server_meta = json!({SERVER_INFO: {"name": "demo", "version": "0.1"}});
    assert_eq!(
        handle(&server, &request(json!(1), "server/discover", json!({}))),
        Some(json!({"jsonrpc": "2.0", "id": 1, "result": {
            "resultType": "complete",
            "supportedVersions": ["2026-07-28"],
            "capabilities": {"tools": {}},
            "ttlMs": 3_600_000,
            "cacheScope": "public",
            "_meta": server_meta,
        }}))
    );
    assert_eq!(
        handle(&server, &request(json!(2), "tools/list", json!({}))),
        Some(json!({"jsonrpc": "2.0", "id": 2, "result": {
            "resultType": "complete",
            "tools": [
                {"name": "add", "description": "Add a and b", "inputSchema": number_schema()},
                {"name": "boom", "description": "Always raises", "inputSchema": {"type": "object"}},
            ],
            "ttlMs": 300_000,
            "cacheScope": "public",
            "_meta": server_meta,
        }}))
    );
    assert_eq!(
        handle(
            &server,
            &request(
                json!(3),
                "tools/call",
                json!({"name": "add", "arguments": {"a": 2, "b": 3}})
            )
        ),
        Some(json!({"jsonrpc": "2.0", "id": 3, "result": {
            "resultType": "complete",
            "content": [{"type": "text", "text": "5"}],
            "isError": false,
            "_meta": server_meta,
        }}))
    );
    assert_eq!(
        handle(
            &server,
            &request(json!("b"), "tools/call", json!({"name": "boom"}))
        ),
        Some(json!({"jsonrpc": "2.0", "id": "b", "result": {
            "resultType": "complete",
            "content": [{"type": "text", "text": "city not found"}],
            "isError": true,
            "_meta": server_meta,
        }}))
    );
    assert_eq!(
        handle(
            &server,
            &request(json!(5), "tools/call", json!({"name": "nope"}))
        ),
        Some(json!({"jsonrpc": "2.0", "id": 5,
                    "error": {"code": -32602, "message": "Unknown tool: nope"}}))
    );
    assert_eq!(
        handle(&server, &request(json!(6), "resources/list", json!({}))),
        Some(json!({"jsonrpc": "2.0", "id": 6,
                    "error": {"code": -32601, "message": "Method not found"}}))
    );
    assert_eq!(
        handle(
            &server,
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
        ),
        None
    );
    assert_eq!(
        handle(&server, &json!({"jsonrpc": "2.0", "method": "tools/call"})),
        None
    );
}

#[test]
fn handler_order_and_meta_errors() {
    let server = demo();
    // Unknown method wins over a missing _meta (seed order: method, then _meta).
    let got = handle(
        &server,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "x/y"}),
    )
    .unwrap();
    assert_eq!(got["error"]["code"], json!(-32601));
    let got = handle(
        &server,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    )
    .unwrap();
    assert_eq!(
        got,
        json!({"jsonrpc": "2.0", "id": 1,
               "error": {"code": -32602, "message": "Missing required params._meta"}})
    );
    let mut old = request(json!(2), "tools/list", json!({}));
    old["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2025-11-25");
    assert_eq!(
        handle(&server, &old).unwrap(),
        json!({"jsonrpc": "2.0", "id": 2, "error": {
            "code": -32022, "message": "Unsupported protocol version",
            "data": {"supported": ["2026-07-28"], "requested": "2025-11-25"}}})
    );
    let mut no_caps = request(json!(3), "tools/list", json!({}));
    no_caps["params"]["_meta"]
        .as_object_mut()
        .unwrap()
        .remove("io.modelcontextprotocol/clientCapabilities");
    let got = handle(&server, &no_caps).unwrap();
    assert_eq!(got["error"]["code"], json!(-32602));
    assert!(
        got["error"]["message"]
            .as_str()
            .unwrap()
            .contains("clientCapabilities")
    );
    for bad in [
        json!([1]),
        json!({"jsonrpc": "2.0", "id": 1.5, "method": "tools/list"}),
        json!({"jsonrpc": "1.0", "id": 1, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 1}),
    ] {
        assert_eq!(
            handle(&server, &bad).unwrap()["error"]["code"],
            json!(-32600),
            "{bad}"
        );
    }
    let got = handle(
        &server,
        &request(
            json!(4),
            "tools/call",
            json!({"name": "add", "arguments": [1]}),
        ),
    )
    .unwrap();
    assert_eq!(got["error"]["code"], json!(-32602));
}

#[test]
fn arguments_are_validated_with_json_schema_2020_12_as_tool_results() {
    let server = demo();
    let got = handle(
        &server,
        &request(
            json!(1),
            "tools/call",
            json!({"name": "add", "arguments": {"a": "two", "b": 3}}),
        ),
    )
    .unwrap();
    assert_eq!(got["result"]["isError"], json!(true));
    let text = got["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("Invalid arguments for tool add: at /a:"),
        "{text}"
    );
    let got = handle(
        &server,
        &request(
            json!(2),
            "tools/call",
            json!({"name": "add", "arguments": {"a": 1}}),
        ),
    )
    .unwrap();
    assert_eq!(got["result"]["isError"], json!(true));
    assert!(
        got["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("\"b\"")
    );
}

#[test]
fn a_network_ref_or_bad_schema_is_refused_at_registration() {
    let mut server = ToolServer::new("s", "1");
    let err = server
        .add_tool(Tool::sync(
            "t",
            "d",
            json!({"type": "object", "properties": {"x": {"$ref": "https://127.0.0.1:9/x.json"}}}),
            |_| Ok(ToolOutput::text("")),
        ))
        .err()
        .unwrap();
    assert!(err.to_string().starts_with("tool t: inputSchema:"), "{err}");
    assert!(
        server
            .add_tool(Tool::sync("u", "d", json!({"type": "string"}), |_| Ok(
                ToolOutput::text("")
            )))
            .is_err()
    );
    server
        .add_tool(Tool::sync("v", "d", json!({"type": "object"}), |_| {
            Ok(ToolOutput::text(""))
        }))
        .unwrap();
    let dup = server.add_tool(Tool::sync("v", "d", json!({"type": "object"}), |_| {
        Ok(ToolOutput::text(""))
    }));
    assert!(dup.err().unwrap().to_string().contains("twice"));
}

fn weather_server() -> ToolServer {
    let mut server = ToolServer::new("w", "1");
    let output = json!({"type": "object", "properties": {"temp": {"type": "number"}},
                        "required": ["temp"]});
    server
        .add_tool(
            Tool::sync(
                "weather",
                "Weather in a city",
                json!({"type": "object", "properties": {
                    "city": {"type": "string", "x-mcp-header": "City"},
                    "lie": {"type": "boolean"}}}),
                |args| {
                    if args.get("lie") == Some(&json!(true)) {
                        return Ok(ToolOutput::structured(json!({"temp": "hot"})));
                    }
                    if args.get("lie") == Some(&json!(false)) {
                        return Ok(ToolOutput::text("no structure"));
                    }
                    Ok(ToolOutput::structured(json!({"temp": 21.5})))
                },
            )
            .output_schema(output)
            .annotations(json!({"readOnlyHint": true})),
        )
        .unwrap();
    server
}

#[test]
fn structured_content_is_checked_against_the_output_schema_and_mirrored_as_text() {
    let server = weather_server();
    let call = |id, args| {
        handle(
            &server,
            &request(
                json!(id),
                "tools/call",
                json!({"name": "weather", "arguments": args}),
            ),
        )
        .unwrap()
    };
    let ok = call(1, json!({"city": "Oslo"}));
    assert_eq!(
        ok["result"]["content"],
        json!([{"type": "text", "text": "{\"temp\":21.5}"}])
    );
    assert_eq!(ok["result"]["structuredContent"], json!({"temp": 21.5}));
    assert_eq!(ok["result"]["isError"], json!(false));
    let bad = call(2, json!({"lie": true}));
    assert_eq!(bad["result"]["isError"], json!(true));
    assert!(bad["result"].get("structuredContent").is_none());
    assert!(
        bad["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("does not match its outputSchema")
    );
    let none = call(3, json!({"lie": false}));
    assert_eq!(none["result"]["isError"], json!(true));
    assert!(
        none["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("no structuredContent")
    );
}

fn many_tools(n: usize, page: usize) -> ToolServer {
    let mut server = ToolServer::new("many", "1").with_page_size(page);
    for i in 0..n {
        server
            .add_tool(Tool::sync(
                format!("t{i}"),
                "d",
                json!({"type": "object"}),
                |_| Ok(ToolOutput::text("")),
            ))
            .unwrap();
    }
    server
}

#[test]
fn lists_page_with_opaque_cursors_and_bad_cursors_are_invalid_params() {
    let server = many_tools(5, 2);
    let mut names = Vec::new();
    let mut cursor: Option<Value> = None;
    let mut pages = 0;
    loop {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let got = handle(&server, &request(json!(pages), "tools/list", params)).unwrap();
        let result = &got["result"];
        for t in result["tools"].as_array().unwrap() {
            names.push(t["name"].as_str().unwrap().to_string());
        }
        pages += 1;
        match result.get("nextCursor") {
            Some(c) => {
                assert!(
                    !c.as_str().unwrap().contains("t"),
                    "cursor {c} looks opaque"
                );
                cursor = Some(c.clone());
            }
            None => break,
        }
    }
    assert_eq!(pages, 3);
    assert_eq!(names, ["t0", "t1", "t2", "t3", "t4"]);
    for bad in [json!(""), json!("nonsense"), json!(7), json!("dG9vbHM6OTk")] {
        let got = handle(
            &server,
            &request(json!(9), "tools/list", json!({"cursor": bad})),
        )
        .unwrap();
        assert_eq!(
            got["error"],
            json!({"code": -32602, "message": "Invalid cursor"}),
            "{bad}"
        );
    }
    // Without a page size, a list is one page and has no nextCursor.
    let server = many_tools(5, usize::MAX);
    let got = handle(&server, &request(json!(1), "tools/list", json!({}))).unwrap();
    assert_eq!(got["result"]["tools"].as_array().unwrap().len(), 5);
    assert!(got["result"].get("nextCursor").is_none());
}

fn library() -> ToolServer {
    let mut server = ToolServer::new("lib", "2").with_cache_hints(CacheHints {
        prompts_list: CacheHint::new(0, CacheScope::Private),
        ..CacheHints::default()
    });
    server
        .add_resource(Resource::text(
            "notes://1",
            "note one",
            "text/plain",
            "hello",
        ))
        .unwrap();
    server
        .add_resource_template(ResourceTemplate::new(
            "notes://{id}/raw",
            "raw note",
            |uri| async move {
                Ok(vec![
                    json!({"uri": uri, "mimeType": "text/plain", "text": "raw"}),
                ])
            },
        ))
        .unwrap();
    server
        .add_prompt(Prompt::new(
            "greet",
            "Greet someone",
            vec![PromptArgument {
                name: "who".into(),
                description: None,
                required: true,
            }],
            |args| async move {
                let who = args["who"].as_str().unwrap_or("").to_string();
                Ok(vec![json!({"role": "user",
                               "content": {"type": "text", "text": format!("Hello {who}")}})])
            },
        ))
        .unwrap();
    server
}

#[test]
fn resources_templates_and_prompts() {
    let server = library();
    let discover = handle(&server, &request(json!(1), "server/discover", json!({}))).unwrap();
    assert_eq!(
        discover["result"]["capabilities"],
        json!({"tools": {}, "resources": {}, "prompts": {}})
    );
    let list = handle(&server, &request(json!(2), "resources/list", json!({}))).unwrap();
    assert_eq!(
        list["result"],
        json!({"resultType": "complete",
               "resources": [{"uri": "notes://1", "name": "note one", "mimeType": "text/plain"}],
               "ttlMs": 10_000, "cacheScope": "private",
               "_meta": {SERVER_INFO: {"name": "lib", "version": "2"}}})
    );
    let templates = handle(
        &server,
        &request(json!(3), "resources/templates/list", json!({})),
    )
    .unwrap();
    assert_eq!(
        templates["result"]["resourceTemplates"],
        json!([{"uriTemplate": "notes://{id}/raw", "name": "raw note"}])
    );
    let read = |id, uri: &str| {
        handle(
            &server,
            &request(json!(id), "resources/read", json!({"uri": uri})),
        )
        .unwrap()
    };
    assert_eq!(
        read(4, "notes://1")["result"]["contents"],
        json!([{"uri": "notes://1", "mimeType": "text/plain", "text": "hello"}])
    );
    assert_eq!(read(4, "notes://1")["result"]["ttlMs"], json!(5_000));
    assert_eq!(
        read(5, "notes://7/raw")["result"]["contents"][0]["uri"],
        json!("notes://7/raw")
    );
    assert_eq!(
        read(6, "notes://7/8/raw")["error"],
        json!({"code": -32602, "message": "Resource not found", "data": {"uri": "notes://7/8/raw"}})
    );
    let prompts = handle(&server, &request(json!(7), "prompts/list", json!({}))).unwrap();
    assert_eq!(prompts["result"]["ttlMs"], json!(0));
    assert_eq!(prompts["result"]["cacheScope"], json!("private"));
    assert_eq!(
        prompts["result"]["prompts"],
        json!([{"name": "greet", "description": "Greet someone",
                "arguments": [{"name": "who", "required": true}]}])
    );
    let get = |id, args: Value| {
        handle(
            &server,
            &request(
                json!(id),
                "prompts/get",
                json!({"name": "greet", "arguments": args}),
            ),
        )
        .unwrap()
    };
    assert_eq!(
        get(8, json!({"who": "Ada"}))["result"]["messages"][0]["content"]["text"],
        json!("Hello Ada")
    );
    assert_eq!(get(9, json!({}))["error"]["code"], json!(-32602));
    let unknown = handle(
        &server,
        &request(json!(10), "prompts/get", json!({"name": "nope"})),
    )
    .unwrap();
    assert_eq!(
        unknown["error"],
        json!({"code": -32602, "message": "Unknown prompt: nope"})
    );
}

#[test]
fn completions_are_served_only_when_configured() {
    let server = demo().with_completions(|reference, argument, partial| {
        assert_eq!(reference["type"], json!("ref/prompt"));
        (0..150)
            .map(|i| format!("{argument}-{partial}-{i}"))
            .collect()
    });
    let ask = request(
        json!(1),
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "p"},
               "argument": {"name": "city", "value": "pa"}}),
    );
    let got = handle(&server, &ask).unwrap();
    let completion = &got["result"]["completion"];
    assert_eq!(completion["values"].as_array().unwrap().len(), 100);
    assert_eq!(completion["values"][0], json!("city-pa-0"));
    assert_eq!(completion["total"], json!(150));
    assert_eq!(completion["hasMore"], json!(true));
    let discover = handle(&server, &request(json!(2), "server/discover", json!({}))).unwrap();
    assert_eq!(
        discover["result"]["capabilities"],
        json!({"tools": {}, "completions": {}})
    );
    let bad = request(
        json!(3),
        "completion/complete",
        json!({"ref": {"type": "ref/x"}, "argument": {"name": "a", "value": "b"}}),
    );
    assert_eq!(
        handle(&server, &bad).unwrap()["error"]["code"],
        json!(-32602)
    );
    assert_eq!(
        handle(&demo(), &ask).unwrap()["error"]["code"],
        json!(-32601)
    );
}

#[test]
fn a_tool_needing_a_client_capability_answers_32021() {
    let mut server = ToolServer::new("s", "1");
    server
        .add_tool(
            Tool::sync("ask", "d", json!({"type": "object"}), |_| {
                Ok(ToolOutput::text("ok"))
            })
            .requires_client_capability("elicitation"),
        )
        .unwrap();
    let mut call = request(json!(1), "tools/call", json!({"name": "ask"}));
    assert_eq!(
        handle(&server, &call).unwrap()["error"],
        json!({"code": -32021, "message": "Missing required client capability: elicitation",
               "data": {"requiredCapabilities": {"elicitation": {}}}})
    );
    call["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] =
        json!({"elicitation": {}});
    assert_eq!(
        handle(&server, &call).unwrap()["result"]["isError"],
        json!(false)
    );
}

fn args(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

#[test]
fn policy_allows_denies_and_binds_approvals_to_the_exact_arguments() {
    let audit = Arc::new(MemoryAudit::new());
    let policy = ToolPolicy::new(Decision::Allow)
        .tool("boom", Decision::Deny("boom is disabled here".into()))
        .tool("add", Decision::RequireApproval);
    let mut server = demo()
        .with_policy(Arc::new(policy))
        .with_audit(audit.clone());
    server.approve(Approval::for_arguments(
        "add",
        &args(json!({"b": 3, "a": 2})),
    ));
    let call = |id, name: &str, a: Value| {
        handle(
            &server,
            &request(
                json!(id),
                "tools/call",
                json!({"name": name, "arguments": a}),
            ),
        )
        .unwrap()
    };
    // Approved: same arguments, other member order and 2.0 for 2 (canonical JSON).
    let ok = call(1, "add", json!({"a": 2.0, "b": 3}));
    assert_eq!(ok["result"]["isError"], json!(false), "{ok}");
    let other = call(2, "add", json!({"a": 2, "b": 4}));
    assert_eq!(other["result"]["isError"], json!(true));
    let text = other["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("Call to add needs approval"), "{text}");
    assert!(text.contains(&mcpvet::kit::arguments_digest(&args(
        json!({"a": 2, "b": 4})
    ))));
    let denied = call(
        3,
        "boom",
        json!({"token": "ghp_abcdefghijklmnopqrstuvwxyz0123456789"}),
    );
    assert_eq!(
        denied["result"]["content"][0]["text"],
        json!("Call to boom denied by policy: boom is disabled here")
    );
    let invalid = call(4, "add", json!({"a": "x"}));
    assert_eq!(invalid["result"]["isError"], json!(true));
    let entries = audit.entries();
    let summary: Vec<(&str, AuditDecision, AuditOutcome)> = entries
        .iter()
        .map(|e| (e.tool.as_str(), e.decision, e.outcome))
        .collect();
    assert_eq!(
        summary,
        [
            ("add", AuditDecision::Approved, AuditOutcome::Ok),
            (
                "add",
                AuditDecision::ApprovalRequired,
                AuditOutcome::Blocked
            ),
            ("boom", AuditDecision::Deny, AuditOutcome::Blocked),
            (
                "add",
                AuditDecision::NotAsked,
                AuditOutcome::InvalidArguments
            ),
        ]
    );
    let logged = serde_json::to_string(&entries).unwrap();
    assert!(
        !logged.contains("ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
        "{logged}"
    );
    // Unknown tools are protocol errors and leave no entry.
    call(5, "nope", json!({}));
    assert_eq!(audit.entries().len(), 4);
}

#[test]
fn stdio_serves_a_kit_server_line_by_line() {
    let server = demo();
    let mut input = Vec::new();
    for line in [
        serde_json::to_string(&request(
            json!(1),
            "tools/call",
            json!({"name": "add", "arguments": {"a": 1, "b": 1}}),
        ))
        .unwrap(),
        "{oops".to_string(),
        String::new(),
        r#"{"jsonrpc":"2.0","method":"notifications/x"}"#.to_string(),
        serde_json::to_string(&request(json!(2), "tools/call", json!({"name": "boom"}))).unwrap(),
    ] {
        input.extend_from_slice(line.as_bytes());
        input.push(b'\n');
    }
    let mut out = Vec::new();
    let mut diags = Vec::new();
    let stats = serve_tool_server(&server, &input[..], &mut out, &mut |d| {
        diags.push(d.to_string())
    })
    .unwrap();
    let lines: Vec<Value> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["result"]["content"][0]["text"], json!("2"));
    assert_eq!(
        lines[1],
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}})
    );
    assert_eq!(lines[2]["result"]["isError"], json!(true));
    assert_eq!(stats.parse_errors, 1);
    assert_eq!(diags.len(), 1);
    assert!(
        diags[0].starts_with("demo: stdin line 2: parse error"),
        "{diags:?}"
    );
}

// ---------------------------------------------------------------- HTTP

struct Served {
    url: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<()>,
}

impl Served {
    async fn start(server: ToolServer) -> Served {
        let http = HttpServer::bind(
            "127.0.0.1:0".parse().unwrap(),
            Arc::new(server),
            mcpvet::kit::http::HttpOptions::default(),
            "kit-test",
        )
        .await
        .unwrap();
        let url = http.endpoint_url();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            http.serve_until(async {
                let _ = stopped.await;
            })
            .await
            .unwrap();
        });
        Served {
            url,
            stop: Some(stop),
            task,
        }
    }

    async fn post(&self, body: &Value, headers: &[(&str, &str)]) -> (u16, Option<Value>) {
        let client = reqwest::Client::new();
        let mut req = client
            .post(&self.url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .body(body.to_string());
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let res = req.send().await.unwrap();
        let status = res.status().as_u16();
        let text = res.text().await.unwrap();
        (status, serde_json::from_str(&text).ok())
    }

    async fn stop(mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        let _ = self.task.await;
    }
}

fn weather_call(city: Value) -> Value {
    request(
        json!(1),
        "tools/call",
        json!({"name": "weather", "arguments": {"city": city}}),
    )
}

#[tokio::test]
async fn http_checks_standard_and_mirrored_headers() {
    let served = Served::start(weather_server()).await;
    let std = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "weather"),
    ];
    let with = |extra: &[(&'static str, &'static str)]| {
        let mut h: Vec<(&str, &str)> = std.to_vec();
        h.extend_from_slice(extra);
        h
    };
    let (status, body) = served
        .post(
            &weather_call(json!("Oslo")),
            &with(&[("Mcp-Param-City", "Oslo")]),
        )
        .await;
    assert_eq!(status, 200, "{body:?}");
    assert_eq!(body.unwrap()["result"]["isError"], json!(false));
    let (status, body) = served
        .post(
            &weather_call(json!("Oslo")),
            &with(&[("Mcp-Param-City", "Bergen")]),
        )
        .await;
    assert_eq!(status, 400);
    let body = body.unwrap();
    assert_eq!(body["error"]["code"], json!(-32020));
    assert_eq!(body["id"], json!(1));
    let (status, body) = served.post(&weather_call(json!("Oslo")), &with(&[])).await;
    assert_eq!(status, 400);
    assert_eq!(body.unwrap()["error"]["code"], json!(-32020));
    // Base64 sentinel for a non-ASCII value.
    let (status, _) = served
        .post(
            &weather_call(json!("Tromsø")),
            &with(&[("Mcp-Param-City", "=?base64?VHJvbXPDuA==?=")]),
        )
        .await;
    assert_eq!(status, 200);
    // Standard header mismatch, notification 202, unknown method 404.
    let (status, body) = served
        .post(
            &weather_call(json!("Oslo")),
            &[
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", "tools/list"),
                ("Mcp-Name", "weather"),
            ],
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(body.unwrap()["error"]["code"], json!(-32020));
    let (status, body) = served
        .post(&json!({"jsonrpc": "2.0", "method": "notifications/x"}), &[])
        .await;
    assert_eq!((status, body), (202, None));
    let (status, body) = served
        .post(
            &request(json!(2), "nope/nope", json!({})),
            &[
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", "nope/nope"),
            ],
        )
        .await;
    assert_eq!(status, 404);
    assert_eq!(body.unwrap()["error"]["code"], json!(-32601));
    served.stop().await;
}

// ---------------------------------------------------------------- properties

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        "[a-z_/0-9.:-]{0,12}".prop_map(Value::String),
        prop_oneof![
            Just("2.0"),
            Just("2026-07-28"),
            Just("tools/call"),
            Just("tools/list"),
            Just("server/discover"),
            Just("resources/read"),
            Just("prompts/get"),
            Just("add"),
            Just("boom"),
            Just("greet"),
            Just("notes://1"),
            Just("a"),
            Just("b"),
        ]
        .prop_map(|s| json!(s)),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop_oneof![
                        "[a-z_]{0,6}".prop_map(String::from),
                        Just("jsonrpc".to_string()),
                        Just("id".to_string()),
                        Just("method".to_string()),
                        Just("params".to_string()),
                        Just("_meta".to_string()),
                        Just("name".to_string()),
                        Just("arguments".to_string()),
                        Just("cursor".to_string()),
                        Just("uri".to_string()),
                    ],
                    inner
                ),
                0..5
            )
            .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

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
        Just(json!("resources/read")),
        Just(json!("resources/list")),
        Just(json!("prompts/get")),
        arb_json(),
    ];
    let version = prop_oneof![Just(json!("2026-07-28")), arb_json()];
    let caps = prop_oneof![Just(json!({})), arb_json()];
    let name = prop_oneof![
        Just(json!("add")),
        Just(json!("boom")),
        Just(json!("greet")),
        arb_json()
    ];
    let arguments = prop_oneof![
        (arb_json(), arb_json()).prop_map(|(a, b)| json!({"a": a, "b": b})),
        arb_json()
    ];
    let cursor = prop_oneof![Just(None), arb_json().prop_map(Some)];
    (id, method, version, caps, name, arguments, cursor).prop_map(
        |(id, method, version, caps, name, arguments, cursor)| {
            let mut params = json!({
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": version,
                    "io.modelcontextprotocol/clientCapabilities": caps
                },
                "name": name,
                "arguments": arguments,
                "uri": "notes://1",
            });
            if let Some(c) = cursor {
                params["cursor"] = c;
            }
            let mut m = json!({"jsonrpc": "2.0", "method": method, "params": params});
            if let Some(id) = id {
                m["id"] = id;
            }
            m
        },
    )
}

fn full_server() -> ToolServer {
    let mut server = demo().with_page_size(1);
    server
        .add_resource(Resource::text("notes://1", "n", "text/plain", "x"))
        .unwrap();
    server
        .add_prompt(Prompt::new("greet", "g", vec![], |_| async {
            Ok(vec![
                json!({"role": "user", "content": {"type": "text", "text": "hi"}}),
            ])
        }))
        .unwrap();
    server
}

/// A request (an object with a valid `id`) gets exactly one response with that id; anything
/// else gets none or an error with id null. Results and errors are well formed.
fn check_response(message: &Value, response: Option<Value>) -> Result<(), TestCaseError> {
    let id = message.as_object().and_then(|o| o.get("id"));
    let Some(response) = response else {
        prop_assert!(
            message.is_object() && id.is_none(),
            "no response to {}",
            message
        );
        return Ok(());
    };
    let obj = response.as_object().expect("response object");
    prop_assert_eq!(&obj["jsonrpc"], &json!("2.0"));
    let valid_id = id.filter(|i| {
        i.is_string()
            || i.as_i64().is_some()
            || i.as_u64().is_some()
            || i.as_f64().is_some_and(|f| f.fract() == 0.0)
    });
    match valid_id {
        Some(id) => prop_assert_eq!(&obj["id"], id),
        None => prop_assert!(obj["id"].is_null()),
    }
    prop_assert!(obj.contains_key("result") != obj.contains_key("error"));
    prop_assert_eq!(obj.len(), 3);
    if let Some(result) = obj.get("result") {
        prop_assert_eq!(&result["resultType"], &json!("complete"));
        prop_assert_eq!(
            &result["_meta"][SERVER_INFO],
            &json!({"name": "demo", "version": "0.1"})
        );
    } else {
        prop_assert!(obj["error"]["code"].is_i64());
        prop_assert!(obj["error"]["message"].is_string());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn handle_never_panics_never_mutates_and_answers_each_request_once(message in arb_json()) {
        let server = full_server();
        let before = message.clone();
        let response = handle(&server, &message);
        prop_assert_eq!(&message, &before);
        check_response(&message, response)?;
    }

    #[test]
    fn near_requests_are_answered_once_and_well_formed(message in arb_near_request()) {
        let server = full_server();
        let before = message.clone();
        let response = handle(&server, &message);
        prop_assert_eq!(&message, &before);
        check_response(&message, response)?;
    }
}
