//! A kit server with the official MCP conformance suite's fixture tools, resources and prompts,
//! for `scripts/conformance-kit.sh` (and a readable example of the kit's API).
//!
//! ```text
//! cargo run --example conformance_server                      # HTTP on 127.0.0.1, free port
//! cargo run --example conformance_server -- --http 127.0.0.1:8080
//! cargo run --example conformance_server -- --stdio
//! ```
//!
//! Over HTTP it prints `conformance_server listening on <url>` on stderr once bound.

use std::io::Write as _;
use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::{Context as _, bail};
use mcpvet::kit::http::{HttpOptions, serve_http};
use mcpvet::kit::{
    CallContext, InputRequired, Interaction, Prompt, PromptArgument, Resource, ResourceTemplate,
    Tool, ToolError, ToolOutput, ToolServer,
};
use serde_json::{Value, json};

/// A 1×1 red PNG.
const PNG_1X1: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A 44-byte WAV header with no samples.
const WAV_EMPTY: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=";

fn no_args() -> Value {
    json!({"type": "object", "properties": {}})
}

fn text_tool(name: &str, description: &str, text: &'static str) -> Tool {
    Tool::sync(name, description, no_args(), move |_| {
        Ok(ToolOutput::text(text))
    })
}

/// The `content` of an accepted elicitation answer under `key`, if the retry carries one.
fn accepted<'a>(context: &'a CallContext, key: &str) -> Option<&'a serde_json::Map<String, Value>> {
    let answer = context.input_responses()?.get(key)?;
    if answer.get("action").and_then(Value::as_str) != Some("accept") {
        return None;
    }
    answer.get("content")?.as_object()
}

/// A string field of an accepted elicitation answer.
fn answered(context: &CallContext, key: &str, field: &str) -> Option<String> {
    accepted(context, key)?
        .get(field)?
        .as_str()
        .map(str::to_string)
}

fn string_schema(field: &str) -> Value {
    json!({"type": "object", "properties": {field: {"type": "string"}}, "required": [field]})
}

fn ask_name() -> InputRequired {
    InputRequired::new().elicit("user_name", "What is your name?", string_schema("name"))
}

fn done(text: String) -> Result<Interaction<ToolOutput>, ToolError> {
    Ok(Interaction::Complete(ToolOutput::text(text)))
}

fn ask(input: InputRequired) -> Result<Interaction<ToolOutput>, ToolError> {
    Ok(Interaction::InputRequired(input))
}

/// The suite's MRTR (`input_required`) fixture tools.
fn mrtr_tools() -> Vec<Tool> {
    vec![
        Tool::interactive(
            "test_input_required_result_elicitation",
            "Asks for the user's name, then greets them",
            no_args(),
            |_, context| async move {
                match answered(&context, "user_name", "name") {
                    Some(name) => done(format!("Hello, {name}!")),
                    None => ask(ask_name()),
                }
            },
        ),
        Tool::interactive(
            "test_input_required_result_sampling",
            "Asks the client's model a question, then returns its answer",
            no_args(),
            |_, context| async move {
                let answer = context
                    .input_responses()
                    .and_then(|r| r.get("capital_question"))
                    .and_then(|r| r.pointer("/content/text"))
                    .and_then(Value::as_str)
                    .map(str::to_string);
                match answer {
                    Some(text) => done(format!("The model answered: {text}")),
                    None => ask(InputRequired::new().sample(
                        "capital_question",
                        json!([{"role": "user", "content": {"type": "text",
                            "text": "What is the capital of France?"}}]),
                        100,
                    )),
                }
            },
        ),
        Tool::interactive(
            "test_input_required_result_list_roots",
            "Asks for the client's roots, then lists them",
            no_args(),
            |_, context| async move {
                let roots = context
                    .input_responses()
                    .and_then(|r| r.get("client_roots"))
                    .and_then(|r| r.get("roots"))
                    .and_then(Value::as_array);
                match roots {
                    Some(roots) => {
                        let uris: Vec<&str> = roots
                            .iter()
                            .filter_map(|r| r.get("uri").and_then(Value::as_str))
                            .collect();
                        done(format!("Client roots: {}", uris.join(", ")))
                    }
                    None => ask(InputRequired::new().list_roots("client_roots")),
                }
            },
        ),
        Tool::interactive(
            "test_input_required_result_request_state",
            "Asks for a confirmation and checks its own state on the retry",
            no_args(),
            |_, context| async move {
                let state_ok = context.request_state() == Some(&json!({"awaiting": "confirm"}));
                let confirmed = accepted(&context, "confirm")
                    .and_then(|c| c.get("ok"))
                    .and_then(Value::as_bool);
                match (state_ok, confirmed) {
                    (true, Some(ok)) => done(format!("state-ok: confirmed={ok}")),
                    _ => ask(InputRequired::new()
                        .elicit(
                            "confirm",
                            "Please confirm",
                            json!({"type": "object",
                            "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}),
                        )
                        .state(json!({"awaiting": "confirm"}))),
                }
            },
        ),
        Tool::interactive(
            "test_input_required_result_multiple_inputs",
            "Asks for a name, a generated greeting and the roots at once",
            no_args(),
            |_, context| async move {
                let responses = context.input_responses();
                let has = |key: &str| responses.is_some_and(|r| r.contains_key(key));
                let state_ok = context.request_state() == Some(&json!({"awaiting": "all"}));
                if state_ok && has("user_name") && has("greeting") && has("client_roots") {
                    let name = answered(&context, "user_name", "name").unwrap_or_default();
                    return done(format!("All three inputs received (name: {name})"));
                }
                ask(ask_name()
                    .sample(
                        "greeting",
                        json!([{"role": "user", "content": {"type": "text",
                            "text": "Generate a greeting"}}]),
                        50,
                    )
                    .list_roots("client_roots")
                    .state(json!({"awaiting": "all"})))
            },
        ),
        Tool::interactive(
            "test_input_required_result_multi_round",
            "Asks for a name, then a colour, carrying the name in its state",
            no_args(),
            |_, context| async move {
                let round = context
                    .request_state()
                    .and_then(|s| s.get("round"))
                    .and_then(Value::as_u64);
                match round {
                    Some(1) => match answered(&context, "step1", "name") {
                        Some(name) => ask(InputRequired::new()
                            .elicit(
                                "step2",
                                "Step 2: What is your favorite color?",
                                string_schema("color"),
                            )
                            .state(json!({"round": 2, "name": name}))),
                        None => ask(InputRequired::new()
                            .elicit("step1", "Step 1: What is your name?", string_schema("name"))
                            .state(json!({"round": 1}))),
                    },
                    Some(2) => {
                        let name = context
                            .request_state()
                            .and_then(|s| s.get("name"))
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_string();
                        match answered(&context, "step2", "color") {
                            Some(color) => done(format!("{name} likes {color}")),
                            None => ask(InputRequired::new()
                                .elicit(
                                    "step2",
                                    "Step 2: What is your favorite color?",
                                    string_schema("color"),
                                )
                                .state(json!({"round": 2, "name": name}))),
                        }
                    }
                    _ => ask(InputRequired::new()
                        .elicit("step1", "Step 1: What is your name?", string_schema("name"))
                        .state(json!({"round": 1}))),
                }
            },
        ),
        Tool::interactive(
            "test_input_required_result_tampered_state",
            "Carries HMAC-sealed state; a tampered one is refused with -32602",
            no_args(),
            |_, context| async move {
                match (context.request_state(), accepted(&context, "confirm")) {
                    (Some(_), Some(_)) => done("state verified".to_string()),
                    _ => ask(InputRequired::new()
                        .elicit(
                            "confirm",
                            "Please confirm",
                            json!({"type": "object",
                            "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}),
                        )
                        .state(json!({"issued": "round-1"}))),
                }
            },
        ),
        Tool::interactive(
            "test_input_required_result_capabilities",
            "Asks by elicitation and by sampling; the kit keeps what the client declared",
            no_args(),
            |_, context| async move {
                if context.input_responses().is_some_and(|r| !r.is_empty()) {
                    return done("inputs received".to_string());
                }
                ask(ask_name().sample(
                    "capital_question",
                    json!([{"role": "user", "content": {"type": "text",
                        "text": "What is the capital of France?"}}]),
                    100,
                ))
            },
        ),
    ]
}

fn fixture_server() -> anyhow::Result<ToolServer> {
    let mut server = ToolServer::new("mcpvet-kit-conformance", env!("CARGO_PKG_VERSION"))
        .with_instructions("Fixture server for the MCP conformance suite, built on the mcpvet kit.")
        .with_completions(|_reference, _argument, partial| {
            ["paris", "park", "party"]
                .iter()
                .filter(|w| w.starts_with(partial))
                .map(|w| (*w).to_string())
                .collect()
        });
    let tools = [
        text_tool(
            "test_simple_text",
            "Returns simple text",
            "This is a simple text response for testing.",
        ),
        Tool::sync("test_image_content", "Returns an image", no_args(), |_| {
            Ok(ToolOutput::content(vec![
                json!({"type": "image", "data": PNG_1X1, "mimeType": "image/png"}),
            ]))
        }),
        Tool::sync("test_audio_content", "Returns audio", no_args(), |_| {
            Ok(ToolOutput::content(vec![
                json!({"type": "audio", "data": WAV_EMPTY, "mimeType": "audio/wav"}),
            ]))
        }),
        Tool::sync(
            "test_embedded_resource",
            "Returns an embedded resource",
            no_args(),
            |_| {
                Ok(ToolOutput::content(vec![
                    json!({"type": "resource", "resource": {
                    "uri": "test://embedded-resource", "mimeType": "text/plain",
                    "text": "This is an embedded resource content."}}),
                ]))
            },
        ),
        Tool::sync(
            "test_multiple_content_types",
            "Returns text, an image and a resource",
            no_args(),
            |_| {
                Ok(ToolOutput::content(vec![
                    json!({"type": "text", "text": "Multiple content types test:"}),
                    json!({"type": "image", "data": PNG_1X1, "mimeType": "image/png"}),
                    json!({"type": "resource", "resource": {
                        "uri": "test://mixed-content-resource", "mimeType": "application/json",
                        "text": "{\"test\":\"data\",\"value\":123}"}}),
                ]))
            },
        ),
        Tool::sync("test_error_handling", "Always fails", no_args(), |_| {
            Err(ToolError::from(
                "This tool intentionally returns an error for testing",
            ))
        }),
        Tool::sync(
            "json_schema_2020_12_tool",
            "Tool with JSON Schema 2020-12 features",
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": {"address": {"$anchor": "addressDef", "type": "object",
                    "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
                "properties": {
                    "name": {"type": "string"},
                    "address": {"$ref": "#/$defs/address"},
                    "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                    "phone": {"type": "string"},
                    "email": {"type": "string"}
                },
                "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
                "if": {"properties": {"contactMethod": {"const": "phone"}},
                       "required": ["contactMethod"]},
                "then": {"required": ["phone"]},
                "else": {"required": ["email"]},
                "additionalProperties": false
            }),
            |args| Ok(ToolOutput::value(&Value::Object(args.clone()))),
        ),
        Tool::sync(
            "test_region_echo",
            "Echoes its region, which clients mirror into the Mcp-Param-Region header",
            json!({"type": "object",
                   "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
                   "required": ["region"]}),
            |args| Ok(ToolOutput::value(&args["region"])),
        ),
        text_tool(
            "test_missing_capability",
            "Needs the client's sampling capability",
            "sampling is declared",
        )
        .requires_client_capability("sampling"),
        text_tool(
            "test_logging_tool",
            "Would log; sends no log notification unless asked for a log level",
            "logging test complete",
        ),
        Tool::with_context(
            "test_tool_with_progress",
            "Reports progress 0, 50 and 100 of 100 (when asked with a progress token)",
            no_args(),
            |_, context| async move {
                for (step, progress) in [0.0, 50.0, 100.0].into_iter().enumerate() {
                    if step > 0 {
                        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    }
                    context.progress(progress, Some(100.0), None);
                }
                Ok(ToolOutput::text("Progress test complete"))
            },
        ),
        text_tool(
            "test_streaming_elicitation",
            "Answers with one result and never sends requests on the response stream",
            "streaming test complete",
        ),
    ];
    for tool in tools.into_iter().chain(mrtr_tools()) {
        server.add_tool(tool)?;
    }
    server.add_prompt(Prompt::interactive(
        "test_input_required_result_prompt",
        "A prompt that asks for its context first (MRTR on prompts/get)",
        Vec::new(),
        |_, context| async move {
            match answered(&context, "user_context", "context") {
                Some(text) => Ok(Interaction::Complete(vec![json!({"role": "user",
                    "content": {"type": "text", "text": format!("Use this context: {text}")}})])),
                None => Ok(Interaction::InputRequired(InputRequired::new().elicit(
                    "user_context",
                    "What context should the prompt use?",
                    string_schema("context"),
                ))),
            }
        },
    ))?;

    server.add_resource(
        Resource::text(
            "test://static-text",
            "static-text",
            "text/plain",
            "This is the content of the static text resource.",
        )
        .description("A static text resource"),
    )?;
    let png = base64_decode(PNG_1X1)?;
    server.add_resource(
        Resource::blob("test://static-binary", "static-binary", "image/png", png)
            .description("A static binary resource (a 1x1 PNG)"),
    )?;
    server.add_resource_template(
        ResourceTemplate::new(
            "test://template/{id}/data",
            "template-data",
            |uri| async move {
                let id = uri
                    .strip_prefix("test://template/")
                    .and_then(|rest| rest.strip_suffix("/data"))
                    .unwrap_or("")
                    .to_string();
                let text =
                    json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
                Ok(vec![json!({"uri": uri, "mimeType": "application/json",
                           "text": text.to_string()})])
            },
        )
        .description("Data for any id")
        .field("mimeType", json!("application/json")),
    )?;

    server.add_prompt(Prompt::new(
        "test_simple_prompt",
        "A simple prompt without arguments",
        Vec::new(),
        |_| async {
            Ok(vec![json!({"role": "user", "content": {"type": "text",
                "text": "This is a simple prompt for testing."}})])
        },
    ))?;
    let arg = |name: &str, description: &str| PromptArgument {
        name: name.into(),
        description: Some(description.into()),
        required: true,
    };
    server.add_prompt(Prompt::new(
        "test_prompt_with_arguments",
        "A prompt with two arguments",
        vec![
            arg("arg1", "First test argument"),
            arg("arg2", "Second test argument"),
        ],
        |args| async move {
            let get = |k: &str| {
                args.get(k)
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string()
            };
            let text = format!(
                "Prompt with arguments: arg1='{}', arg2='{}'",
                get("arg1"),
                get("arg2")
            );
            Ok(vec![
                json!({"role": "user", "content": {"type": "text", "text": text}}),
            ])
        },
    ))?;
    server.add_prompt(Prompt::new(
        "test_prompt_with_embedded_resource",
        "A prompt embedding a resource",
        vec![arg("resourceUri", "URI of the resource to embed")],
        |args| async move {
            let uri = args.get("resourceUri").cloned().unwrap_or(Value::Null);
            Ok(vec![
                json!({"role": "user", "content": {"type": "resource", "resource": {
                    "uri": uri, "mimeType": "text/plain",
                    "text": "Embedded resource content for testing."}}}),
                json!({"role": "user", "content": {"type": "text",
                    "text": "Please process the embedded resource above."}}),
            ])
        },
    ))?;
    server.add_prompt(Prompt::new(
        "test_prompt_with_image",
        "A prompt with an image",
        Vec::new(),
        |_| async {
            Ok(vec![
                json!({"role": "user", "content": {"type": "image", "data": PNG_1X1,
                    "mimeType": "image/png"}}),
                json!({"role": "user", "content": {"type": "text",
                    "text": "Please analyze the image above."}}),
            ])
        },
    ))?;
    Ok(server)
}

fn base64_decode(text: &str) -> anyhow::Result<Vec<u8>> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .context("fixture base64")
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let server = fixture_server()?;
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["--stdio"] => {
            let stdin = std::io::stdin().lock();
            let stdout = std::io::stdout().lock();
            mcpvet::kit::stdio::serve_tool_server(&server, stdin, stdout, &mut |d| {
                let _ = writeln!(std::io::stderr(), "{d}");
            })?;
            Ok(())
        }
        [] | ["--http"] => serve("127.0.0.1:0".parse()?, server),
        ["--http", addr] => serve(addr.parse().context("--http takes HOST:PORT")?, server),
        other => bail!("usage: conformance_server [--stdio | --http HOST:PORT], got {other:?}"),
    }
}

fn serve(addr: SocketAddr, server: ToolServer) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(serve_http(
        addr,
        Arc::new(server),
        HttpOptions::default(),
        "conformance_server",
        |url| {
            let _ = writeln!(std::io::stderr(), "conformance_server listening on {url}");
        },
    ))?;
    Ok(())
}
