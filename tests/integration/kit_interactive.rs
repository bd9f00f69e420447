//! The server kit's interactive features: progress notifications (stdio lines, an SSE
//! response over HTTP, plain JSON when the client sends no token or does not accept SSE) and
//! MRTR `input_required` results (requests, retries with `inputResponses`, HMAC-sealed
//! `requestState` refused when tampered or replayed on another tool, requests filtered by the
//! client's declared capabilities, prompts too), and the request rules a narrower contract
//! states as configuration.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use mcpvet::kit::http::{HttpOptions, HttpServer};
use mcpvet::kit::stdio::serve_tool_server;
use mcpvet::kit::{
    CallContext, InputRequired, Interaction, Prompt, RequestRules, Tool, ToolError, ToolOutput,
    ToolServer,
};
use serde_json::{Value, json};

const PV: &str = "io.modelcontextprotocol/protocolVersion";
const CC: &str = "io.modelcontextprotocol/clientCapabilities";

fn caps() -> Value {
    json!({"elicitation": {}, "sampling": {}, "roots": {}})
}

fn call(id: i64, name: &str, extra: Value) -> Value {
    let mut params =
        json!({"_meta": {PV: "2026-07-28", CC: caps()}, "name": name, "arguments": {}});
    if let Value::Object(extra) = extra {
        for (k, v) in extra {
            if k == "_meta" {
                for (mk, mv) in v.as_object().unwrap() {
                    params["_meta"][mk] = mv.clone();
                }
            } else {
                params[k] = v;
            }
        }
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

fn no_args() -> Value {
    json!({"type": "object"})
}

fn server() -> ToolServer {
    let mut server = ToolServer::new("interactive", "1");
    server
        .add_tool(Tool::with_context(
            "slow",
            "Reports progress 1, 2, 3 of 3",
            no_args(),
            |_, context: CallContext| async move {
                for step in 1..=3 {
                    tokio::task::yield_now().await;
                    context.progress(f64::from(step), Some(3.0), Some("working"));
                }
                Ok(ToolOutput::text("slow done"))
            },
        ))
        .unwrap();
    server
        .add_tool(Tool::interactive(
            "greet",
            "Asks for a name (carrying state), then greets",
            no_args(),
            |_, context| async move {
                let name = context
                    .input_responses()
                    .and_then(|r| r.get("who"))
                    .and_then(|r| r.pointer("/content/name"))
                    .and_then(Value::as_str)
                    .map(str::to_string);
                match (context.request_state(), name) {
                    (Some(state), Some(name)) => Ok(Interaction::Complete(ToolOutput::text(
                        format!("Hello, {name} ({})", state["asked"]),
                    ))),
                    _ => Ok(Interaction::InputRequired(
                        InputRequired::new()
                            .elicit("who", "Your name?", json!({"type": "object"}))
                            .sample("guess", json!([]), 10)
                            .state(json!({"asked": "who"})),
                    )),
                }
            },
        ))
        .unwrap();
    server
        .add_tool(Tool::interactive(
            "other",
            "Accepts any state",
            no_args(),
            |_, context| async move {
                match context.request_state() {
                    Some(_) => Ok(Interaction::Complete(ToolOutput::text("other done"))),
                    None => Err(ToolError::from("no state")),
                }
            },
        ))
        .unwrap();
    server
        .add_tool(Tool::interactive(
            "elicit_only",
            "Needs elicitation",
            no_args(),
            |_, _| async move {
                Ok(Interaction::InputRequired(InputRequired::new().elicit(
                    "x",
                    "?",
                    json!({"type": "object"}),
                )))
            },
        ))
        .unwrap();
    server
        .add_prompt(Prompt::interactive(
            "ask_first",
            "Asks for context",
            Vec::new(),
            |_, context| async move {
                match context.input_responses() {
                    Some(_) => Ok(Interaction::Complete(vec![
                        json!({"role": "user", "content": {"type": "text", "text": "ok"}}),
                    ])),
                    None => Ok(Interaction::InputRequired(
                        InputRequired::new().list_roots("roots"),
                    )),
                }
            },
        ))
        .unwrap();
    server
}

fn run<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(f)
}

fn handle(server: &ToolServer, message: &Value) -> Value {
    run(server.handle(message)).unwrap()
}

#[test]
fn stdio_writes_progress_lines_before_the_response() {
    let server = server();
    let with_token = call(1, "slow", json!({"_meta": {"progressToken": "p-1"}}));
    let without = call(2, "slow", json!({}));
    let input = format!("{with_token}\n{without}\n");
    let mut out = Vec::new();
    serve_tool_server(&server, input.as_bytes(), &mut out, &mut |_| {}).unwrap();
    let lines: Vec<Value> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 5, "{lines:#?}");
    for (i, line) in lines[..3].iter().enumerate() {
        assert_eq!(
            line,
            &json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {
                "progressToken": "p-1", "progress": i + 1, "total": 3, "message": "working"}})
        );
    }
    assert_eq!(lines[3]["id"], json!(1));
    assert_eq!(lines[3]["result"]["content"][0]["text"], json!("slow done"));
    // No token, no notifications.
    assert_eq!(lines[4]["id"], json!(2));
}

#[test]
fn progress_without_a_sink_or_token_sends_nothing() {
    let context = CallContext::new(Some(json!("t")), None);
    assert!(!context.progress(1.0, None, None));
    let sent = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = Arc::clone(&sent);
    let notify: mcpvet::kit::Notify = Arc::new(move |n| sink.lock().unwrap().push(n));
    assert!(!CallContext::new(None, Some(Arc::clone(&notify))).progress(1.0, None, None));
    assert!(CallContext::new(Some(json!(7)), Some(notify)).progress(0.5, None, None));
    assert_eq!(
        sent.lock().unwrap()[0]["params"],
        json!({"progressToken": 7, "progress": 0.5})
    );
}

async fn post(url: &str, body: &Value, accept: &str) -> (u16, String, String) {
    let method = body["method"].as_str().unwrap().to_string();
    let mut req = reqwest::Client::new()
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", accept)
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", method);
    if let Some(name) = body["params"]["name"].as_str() {
        req = req.header("Mcp-Name", name);
    }
    let res = req.body(body.to_string()).send().await.unwrap();
    let status = res.status().as_u16();
    let kind = res
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    (status, kind, res.text().await.unwrap())
}

#[tokio::test]
async fn http_streams_progress_as_sse_only_when_asked_and_accepted() {
    let http = HttpServer::bind(
        "127.0.0.1:0".parse().unwrap(),
        Arc::new(server()),
        HttpOptions::default(),
        "kit-test",
    )
    .await
    .unwrap();
    let url = http.endpoint_url();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(http.serve_until(async {
        let _ = stopped.await;
    }));
    let both = "application/json, text/event-stream";
    let with_token = call(1, "slow", json!({"_meta": {"progressToken": "p"}}));
    let (status, kind, body) = post(&url, &with_token, both).await;
    assert_eq!((status, kind.as_str()), (200, "text/event-stream"));
    let events: Vec<Value> = body
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|d| serde_json::from_str(d).unwrap())
        .collect();
    assert_eq!(events.len(), 4, "{body}");
    let progress: Vec<&Value> = events[..3]
        .iter()
        .map(|e| &e["params"]["progress"])
        .collect();
    assert_eq!(progress, [&json!(1), &json!(2), &json!(3)]);
    assert!(body.lines().filter(|l| *l == "event: message").count() == 4);
    assert_eq!(events[3]["id"], json!(1));
    assert_eq!(events[3]["result"]["isError"], json!(false));
    // JSON-only clients and requests without a token get one JSON body.
    let (status, kind, body) = post(&url, &with_token, "application/json").await;
    assert_eq!((status, kind.as_str()), (200, "application/json"));
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["id"],
        json!(1)
    );
    let (_, kind, _) = post(&url, &call(2, "slow", json!({})), both).await;
    assert_eq!(kind, "application/json");
    // A token on a request that sends no progress (or fails) is plain JSON with its status.
    let unknown = call(3, "nope", json!({"_meta": {"progressToken": "p"}}));
    let (status, kind, body) = post(&url, &unknown, both).await;
    assert_eq!((status, kind.as_str()), (400, "application/json"));
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["error"]["code"],
        json!(-32602)
    );
    let _ = stop.send(());
    task.await.unwrap().unwrap();
}

#[test]
fn input_required_then_retry_completes_with_verified_state() {
    let server = server();
    let first = handle(&server, &call(1, "greet", json!({})));
    let result = &first["result"];
    assert_eq!(result["resultType"], json!("input_required"));
    assert_eq!(
        result["inputRequests"],
        json!({
            "who": {"method": "elicitation/create",
                    "params": {"message": "Your name?", "requestedSchema": {"type": "object"}}},
            "guess": {"method": "sampling/createMessage",
                      "params": {"messages": [], "maxTokens": 10}}
        })
    );
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        json!("interactive")
    );
    let state = result["requestState"].as_str().unwrap().to_string();
    let answer = json!({"who": {"action": "accept", "content": {"name": "Ada"}}, "extra": 1});
    let retry = call(
        2,
        "greet",
        json!({"inputResponses": answer, "requestState": state}),
    );
    let done = handle(&server, &retry);
    assert_eq!(done["result"]["resultType"], json!("complete"));
    assert_eq!(
        done["result"]["content"][0]["text"],
        json!("Hello, Ada (\"who\")")
    );
    // Without the state the tool asks again (a new input_required, not an error).
    let again = handle(
        &server,
        &call(3, "greet", json!({"inputResponses": answer})),
    );
    assert_eq!(again["result"]["resultType"], json!("input_required"));
}

#[test]
fn tampered_forged_or_replayed_state_is_invalid_params() {
    let server = server();
    let first = handle(&server, &call(1, "greet", json!({})));
    let state = first["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_string();
    let mut flipped: Vec<char> = state.chars().collect();
    flipped[3] = if flipped[3] == 'A' { 'B' } else { 'A' };
    let flipped: String = flipped.into_iter().collect();
    for bad in [
        json!(format!("{state}-TAMPERED")),
        json!(flipped),
        json!("x.y"),
        json!(""),
        json!(42),
    ] {
        let got = handle(&server, &call(2, "greet", json!({"requestState": bad})));
        assert_eq!(got["error"]["code"], json!(-32602), "{bad}: {got}");
        assert_eq!(got["id"], json!(2));
    }
    // State sealed for greet is refused by another tool.
    let got = handle(&server, &call(3, "other", json!({"requestState": state})));
    assert_eq!(got["error"]["code"], json!(-32602), "{got}");
    // inputResponses must be an object.
    let got = handle(&server, &call(4, "greet", json!({"inputResponses": [1]})));
    assert_eq!(got["error"]["code"], json!(-32602));
}

/// A synchronous tool (called without a context or a future) refuses a malformed retry exactly
/// like an interactive one, and answers a well-formed call.
#[test]
fn a_synchronous_tool_refuses_a_malformed_retry_too() {
    let mut server = server();
    server
        .add_tool(Tool::sync(
            "plain",
            "Echoes its arguments",
            no_args(),
            |args| Ok(ToolOutput::value(&Value::Object(args.clone()))),
        ))
        .unwrap();
    for (id, extra) in [
        (1, json!({"requestState": "x.y"})),
        (2, json!({"requestState": 42})),
        (3, json!({"inputResponses": [1]})),
    ] {
        let got = handle(&server, &call(id, "plain", extra.clone()));
        assert_eq!(got["error"]["code"], json!(-32602), "{extra}: {got}");
        assert_eq!(got["id"], json!(id));
    }
    let got = handle(
        &server,
        &call(4, "plain", json!({"arguments": {"b": 2.0, "a": "x"}})),
    );
    assert_eq!(
        got["result"]["content"],
        json!([{"type": "text", "text": "{\"b\":2.0,\"a\":\"x\"}"}])
    );
    assert_eq!(got["result"]["isError"], json!(false));
}

#[test]
fn input_requests_follow_the_declared_client_capabilities() {
    let server = server();
    let only_sampling = call(1, "greet", json!({"_meta": {CC: {"sampling": {}}}}));
    let got = handle(&server, &only_sampling);
    let requests = got["result"]["inputRequests"].as_object().unwrap();
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["guess"]);
    // Nothing left to ask: -32021 naming the capability.
    let none = call(2, "elicit_only", json!({"_meta": {CC: {}}}));
    let got = handle(&server, &none);
    assert_eq!(got["error"]["code"], json!(-32021));
    assert_eq!(
        got["error"]["data"],
        json!({"requiredCapabilities": {"elicitation": {}}})
    );
}

#[test]
fn prompts_can_ask_for_input_too() {
    let server = server();
    let get = |id: i64, extra: Value| {
        let mut params = json!({"_meta": {PV: "2026-07-28", CC: caps()}, "name": "ask_first"});
        if let Value::Object(extra) = extra {
            for (k, v) in extra {
                params[k] = v;
            }
        }
        json!({"jsonrpc": "2.0", "id": id, "method": "prompts/get", "params": params})
    };
    let first = handle(&server, &get(1, json!({})));
    assert_eq!(first["result"]["resultType"], json!("input_required"));
    assert_eq!(
        first["result"]["inputRequests"]["roots"]["method"],
        json!("roots/list")
    );
    let done = handle(
        &server,
        &get(2, json!({"inputResponses": {"roots": {"roots": []}}})),
    );
    assert_eq!(done["result"]["resultType"], json!("complete"));
    assert_eq!(
        done["result"]["messages"][0]["content"]["text"],
        json!("ok")
    );
}

#[test]
fn request_rules_change_order_and_texts_only_where_configured() {
    let default = server();
    let strict = server().with_rules(RequestRules {
        strict_envelope: true,
        method_check: mcpvet::kit::MethodCheck::AfterVersion,
        meta_check: mcpvet::kit::MetaCheck::Whole {
            message: "Missing required _meta fields".into(),
        },
        call_params: mcpvet::kit::CallParams::Strict {
            message: "Invalid params".into(),
        },
        cursors: mcpvet::kit::Cursors::Ignore,
    });
    let h = |s: &ToolServer, m: Value| run(s.handle(&m));
    // A malformed message without an id: nothing by default, -32600 when strict.
    assert_eq!(h(&default, json!({"method": "x"})), None);
    assert_eq!(
        h(&strict, json!({"method": "x"})).unwrap()["error"]["code"],
        json!(-32600)
    );
    // Unknown method with an unsupported version: -32601 first by default, -32022 after.
    let unknown = json!({"jsonrpc": "2.0", "id": 1, "method": "nope",
        "params": {"_meta": {PV: "1999-01-01", CC: {}}}});
    assert_eq!(
        h(&default, unknown.clone()).unwrap()["error"]["code"],
        json!(-32601)
    );
    assert_eq!(h(&strict, unknown).unwrap()["error"]["code"], json!(-32022));
    // Missing capabilities: one message when whole.
    let no_caps = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list",
        "params": {"_meta": {PV: "2026-07-28"}}});
    assert_eq!(
        h(&strict, no_caps).unwrap()["error"]["message"],
        json!("Missing required _meta fields")
    );
    // arguments: null is {} by default, invalid when strict.
    let null_args = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"_meta": {PV: "2026-07-28", CC: {}}, "name": "slow", "arguments": null}});
    assert!(
        h(&default, null_args.clone())
            .unwrap()
            .get("result")
            .is_some()
    );
    assert_eq!(
        h(&strict, null_args).unwrap()["error"],
        json!({"code": -32602, "message": "Invalid params"})
    );
    // A foreign cursor: -32602 by default, ignored when configured.
    let cursor = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list",
        "params": {"_meta": {PV: "2026-07-28", CC: {}}, "cursor": "abc"}});
    assert_eq!(
        h(&default, cursor.clone()).unwrap()["error"]["code"],
        json!(-32602)
    );
    assert!(h(&strict, cursor).unwrap()["result"]["tools"].is_array());
}
