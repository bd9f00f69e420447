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
    Prompt, PromptArgument, Resource, ResourceTemplate, Tool, ToolError, ToolOutput, ToolServer,
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
        text_tool(
            "test_streaming_elicitation",
            "Answers with one result and never sends requests on the response stream",
            "streaming test complete",
        ),
    ];
    for tool in tools {
        server.add_tool(tool)?;
    }

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
