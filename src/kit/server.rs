//! [`ToolServer`]: the registry (tools, resources, resource templates, prompts, cache hints,
//! policy, audit) and the handler, `handle(message) -> Option<response>`.
//!
//! The handler is a function of the request and the registry only (the audit sink is the one
//! thing it writes to). Its order, per the seed:
//!
//! 1. a message that is not an object, or has an `id` that is not a string or integer, is
//!    `-32600` with id `null`; an object without an `id` is a notification: no response;
//!    a request without `jsonrpc: "2.0"` or a method string is `-32600`;
//! 2. a method this registry does not serve is `-32601 "Method not found"`
//!    (`resources/*` only when resources or templates are registered, `prompts/*` only with
//!    prompts);
//! 3. `params._meta` must be an object holding the protocol version (`-32602`); over HTTP the
//!    transport's header checks run here (`-32020`); the version must be supported (`-32022`,
//!    `data: {supported, requested}`); the client capabilities must be an object (`-32602`);
//! 4. dispatch; every result carries `resultType: "complete"` and the server's identity under
//!    `_meta["io.modelcontextprotocol/serverInfo"]`; discovery, lists and reads carry `ttlMs`
//!    and `cacheScope` ([`CacheHints`]).
//!
//! `tools/call`: a non-string name or non-object arguments is `-32602`; an unknown tool is
//! `-32602 "Unknown tool: NAME"`; a tool that needs a client capability the request lacks is
//! `-32021`; over HTTP, `x-mcp-header` arguments must match their `Mcp-Param-*` headers
//! (`-32020`); then, as tool results (`isError: true`): arguments failing the input schema,
//! a policy denial or a missing approval, a handler error, or `structuredContent` missing or
//! failing a declared `outputSchema`. Structured content is mirrored as a text block when the
//! tool gives no content of its own.

use std::collections::BTreeSet;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use base64::Engine;
use serde_json::{Map, Value, json};

use super::policy::{
    Approval, AuditDecision, AuditEntry, AuditOutcome, AuditSink, CallInfo, Decision, Policy,
    arguments_digest,
};
use super::rpc::{
    INVALID_PARAMS, INVALID_REQUEST, META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION,
    META_SERVER_INFO, METHOD_NOT_FOUND, MISSING_CAPABILITY, UNSUPPORTED_VERSION, error_response,
    error_response_with_data, is_valid_id,
};
use super::rules::{CallParams, Cursors, MetaCheck, MethodCheck, RequestRules};
use super::schema::{CompiledSchema, MirroredParam, SchemaError, header_text, mirrored_params};

/// The protocol revision kit servers speak by default.
pub const PROTOCOL_VERSION: &str = "2026-07-28";

/// A boxed, sendable future (what handlers return).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What a tool handler returns on success.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// Content blocks (`text`, `image`, `audio`, `resource_link`, `resource`), as JSON.
    pub content: Vec<Value>,
    /// `structuredContent`, if any.
    pub structured: Option<Value>,
}

impl ToolOutput {
    /// One text block.
    pub fn text(text: impl Into<String>) -> Self {
        ToolOutput {
            content: vec![json!({"type": "text", "text": text.into()})],
            structured: None,
        }
    }

    /// A value shown as text, as the seed's `str(value)`: a string as it is, anything else as
    /// compact JSON (`5`, `true`, `{"a":1}`).
    pub fn value(value: &Value) -> Self {
        match value {
            Value::String(s) => Self::text(s.clone()),
            other => Self::text(serde_json::to_string(other).unwrap_or_else(|_| other.to_string())),
        }
    }

    /// Structured content; the response mirrors it as a JSON text block.
    pub fn structured(value: Value) -> Self {
        ToolOutput {
            content: Vec::new(),
            structured: Some(value),
        }
    }

    /// These content blocks.
    pub fn content(blocks: Vec<Value>) -> Self {
        ToolOutput {
            content: blocks,
            structured: None,
        }
    }

    /// Add structured content to these blocks.
    pub fn with_structured(mut self, value: Value) -> Self {
        self.structured = Some(value);
        self
    }
}

/// A handler that always completes, as a [`ContextToolFn`].
fn complete_only<F, Fut>(handler: F) -> ContextToolFn
where
    F: Fn(Map<String, Value>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<ToolOutput, ToolError>> + Send + 'static,
{
    Arc::new(move |args, _| {
        let done = handler(args);
        Box::pin(async move { done.await.map(Interaction::Complete) })
    })
}

/// A synchronous tool handler: the validated arguments (borrowed) in, the output or an error
/// out. The kit calls it directly, without a future or a copy of the arguments.
pub type SyncToolFn =
    Arc<dyn Fn(&Map<String, Value>) -> Result<ToolOutput, ToolError> + Send + Sync>;

/// How a registered tool runs.
#[derive(Clone)]
enum ToolHandler {
    /// Finishes on the calling thread (`Tool::sync`, `Tool::from_definition_sync`).
    Sync(SyncToolFn),
    /// A future over owned arguments and the call's [`CallContext`].
    Context(ContextToolFn),
}

/// A tool (or resource or prompt) handler's failure: its text goes to the model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ToolError(pub String);

impl From<String> for ToolError {
    fn from(s: String) -> Self {
        ToolError(s)
    }
}

impl From<&str> for ToolError {
    fn from(s: &str) -> Self {
        ToolError(s.to_string())
    }
}

/// An asynchronous tool handler: the validated arguments in, the output or an error out.
pub type ToolFn = Arc<
    dyn Fn(Map<String, Value>) -> BoxFuture<'static, Result<ToolOutput, ToolError>> + Send + Sync,
>;
/// An asynchronous tool handler that also receives the call's [`CallContext`] and may ask
/// for more input ([`Interaction::InputRequired`]).
pub type ContextToolFn = Arc<
    dyn Fn(
            Map<String, Value>,
            CallContext,
        ) -> BoxFuture<'static, Result<Interaction<ToolOutput>, ToolError>>
        + Send
        + Sync,
>;

/// An interactive prompt renderer: the arguments and the [`CallContext`] in, the messages or a
/// request for more input out.
pub type ContextPromptFn = Arc<
    dyn Fn(
            Map<String, Value>,
            CallContext,
        ) -> BoxFuture<'static, Result<Interaction<Vec<Value>>, ToolError>>
        + Send
        + Sync,
>;

/// What an interactive handler gives: its result, or a request for input the client must
/// gather first (an `input_required` result, MRTR).
#[derive(Debug, Clone, PartialEq)]
pub enum Interaction<T> {
    /// The final result.
    Complete(T),
    /// Ask the client for input; it retries the request with `inputResponses` (and the
    /// sealed `requestState`).
    InputRequired(InputRequired),
}

/// An `input_required` result: the input requests by key, and state for the retry.
///
/// The kit seals the state (HMAC-SHA256 with a per-process key, bound to the tool or prompt)
/// into the opaque `requestState` string and gives it back, verified, through
/// [`CallContext::request_state`] on the retry; a `requestState` that fails the check is
/// `-32602`. Requests for a client capability the request did not declare (`elicitation`,
/// `sampling`, `roots`) are left out; when none is left the answer is `-32021`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct InputRequired {
    requests: Map<String, Value>,
    state: Option<Value>,
}

impl InputRequired {
    /// No requests yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Ask with any server-to-client `method` and `params` under `key`.
    pub fn request(mut self, key: impl Into<String>, method: &str, params: Value) -> Self {
        self.requests
            .insert(key.into(), json!({"method": method, "params": params}));
        self
    }

    /// `elicitation/create`: ask the user `message`, answered per `requested_schema`.
    pub fn elicit(self, key: impl Into<String>, message: &str, requested_schema: Value) -> Self {
        self.request(
            key,
            "elicitation/create",
            json!({"message": message, "requestedSchema": requested_schema}),
        )
    }

    /// `sampling/createMessage`: ask the client's model.
    pub fn sample(self, key: impl Into<String>, messages: Value, max_tokens: u64) -> Self {
        self.request(
            key,
            "sampling/createMessage",
            json!({"messages": messages, "maxTokens": max_tokens}),
        )
    }

    /// `roots/list`: ask for the client's roots.
    pub fn list_roots(self, key: impl Into<String>) -> Self {
        self.request(key, "roots/list", json!({}))
    }

    /// Carry `state` to the retry (sealed; see the type docs).
    pub fn state(mut self, state: Value) -> Self {
        self.state = Some(state);
        self
    }
}

/// Where a transport sends the notifications a request causes (`notifications/progress`),
/// each a whole JSON-RPC notification, before the response.
pub type Notify = Arc<dyn Fn(Value) + Send + Sync>;

/// What a handler knows of its call besides the arguments, and how it reports progress.
#[derive(Clone, Default)]
pub struct CallContext {
    progress_token: Option<Value>,
    notify: Option<Notify>,
    input_responses: Option<Map<String, Value>>,
    request_state: Option<Value>,
    client_capabilities: Map<String, Value>,
}

impl CallContext {
    /// A context with this progress token (from the request's `_meta.progressToken`) and
    /// notification sink; for tests of handlers.
    pub fn new(progress_token: Option<Value>, notify: Option<Notify>) -> Self {
        CallContext {
            progress_token,
            notify,
            ..CallContext::default()
        }
    }

    /// The retry's `inputResponses` (by the keys of the earlier input requests), if any.
    pub fn input_responses(&self) -> Option<&Map<String, Value>> {
        self.input_responses.as_ref()
    }

    /// The state an earlier [`InputRequired::state`] carried, verified, if the retry echoed
    /// one.
    pub fn request_state(&self) -> Option<&Value> {
        self.request_state.as_ref()
    }

    /// The request's client capabilities.
    pub fn client_capabilities(&self) -> &Map<String, Value> {
        &self.client_capabilities
    }

    /// The request's `_meta.progressToken` (a string or an integer), if it sent one.
    pub fn progress_token(&self) -> Option<&Value> {
        self.progress_token.as_ref()
    }

    /// Send `notifications/progress` (`progress` should grow from call to call; `total` and
    /// `message` when known). Nothing is sent, and `false` is returned, when the request
    /// carried no progress token or its transport cannot stream (a JSON-only HTTP answer).
    pub fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) -> bool {
        let (Some(token), Some(notify)) = (&self.progress_token, &self.notify) else {
            return false;
        };
        let mut params = Map::new();
        params.insert("progressToken".into(), token.clone());
        params.insert("progress".into(), number(progress));
        if let Some(total) = total {
            params.insert("total".into(), number(total));
        }
        if let Some(message) = message {
            params.insert("message".into(), Value::String(message.to_string()));
        }
        notify(json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": params}));
        true
    }
}

/// A whole `f64` as a JSON integer (`50`, not `50.0`), others as they are; non-finite as 0.
fn number(value: f64) -> Value {
    if value.fract() == 0.0 && value.abs() < 9.0e15 {
        json!(value as i64)
    } else {
        serde_json::Number::from_f64(value).map_or(json!(0), Value::Number)
    }
}

/// An asynchronous resource reader: the URI in, the `contents` array's items out.
pub type ReadFn =
    Arc<dyn Fn(String) -> BoxFuture<'static, Result<Vec<Value>, ToolError>> + Send + Sync>;
/// An asynchronous prompt renderer: the arguments in, the `messages` out.
pub type PromptFn = Arc<
    dyn Fn(Map<String, Value>) -> BoxFuture<'static, Result<Vec<Value>, ToolError>> + Send + Sync,
>;

/// A server-wide argument check replacing the compiled input schemas: the tool's `inputSchema`
/// and the arguments in, `Err(text)` out, where `text` is the whole text of the failed tool
/// result (see [`ToolServer::with_argument_check`]).
pub type ArgumentCheckFn =
    Arc<dyn Fn(&Value, &Map<String, Value>) -> Result<(), String> + Send + Sync>;

/// A completion source: the `ref` (`{"type": "ref/prompt", "name"}` or
/// `{"type": "ref/resource", "uri"}`), the argument name and its partial value in, suggestions
/// out (at most 100 are sent; `hasMore` says when there were more).
pub type CompleteFn = Arc<dyn Fn(&Map<String, Value>, &str, &str) -> Vec<String> + Send + Sync>;

/// The most completion values one answer carries (the spec's cap).
pub const MAX_COMPLETIONS: usize = 100;

/// Why a registration was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KitError {
    /// A tool's schema or `x-mcp-header` declaration is unusable.
    #[error("tool {tool}: {which}: {source}")]
    Schema {
        /// The tool.
        tool: String,
        /// `inputSchema` or `outputSchema`.
        which: &'static str,
        /// Why.
        #[source]
        source: SchemaError,
    },
    /// Two registrations share a name (or URI).
    #[error("{kind} {name:?} is registered twice")]
    Duplicate {
        /// `tool`, `resource`, `resource template` or `prompt`.
        kind: &'static str,
        /// The name or URI.
        name: String,
    },
    /// A tool's input schema is not a JSON object schema.
    #[error("tool {0}: inputSchema must be an object with \"type\": \"object\"")]
    NotObjectSchema(String),
}

/// A tool to register: its definition and its handler.
#[derive(Clone)]
pub struct Tool {
    name: String,
    definition: Map<String, Value>,
    required_capabilities: Map<String, Value>,
    handler: ToolHandler,
}

impl Tool {
    /// A tool with an asynchronous handler.
    pub fn new<F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
        handler: F,
    ) -> Self
    where
        F: Fn(Map<String, Value>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolOutput, ToolError>> + Send + 'static,
    {
        let name = name.into();
        let mut definition = Map::new();
        definition.insert("name".into(), Value::String(name.clone()));
        definition.insert("description".into(), Value::String(description.into()));
        definition.insert("inputSchema".into(), input_schema);
        Tool {
            name,
            definition,
            required_capabilities: Map::new(),
            handler: ToolHandler::Context(complete_only(handler)),
        }
    }

    /// A tool whose handler also receives the call's [`CallContext`] (to report progress).
    pub fn with_context<F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
        handler: F,
    ) -> Self
    where
        F: Fn(Map<String, Value>, CallContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolOutput, ToolError>> + Send + 'static,
    {
        let handler = Arc::new(handler);
        Tool::interactive(name, description, input_schema, move |args, context| {
            let done = handler(args, context);
            async move { done.await.map(Interaction::Complete) }
        })
    }

    /// A tool whose handler may ask for input first ([`Interaction::InputRequired`]) and reads
    /// the answers from its [`CallContext`] on the retry.
    pub fn interactive<F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
        handler: F,
    ) -> Self
    where
        F: Fn(Map<String, Value>, CallContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Interaction<ToolOutput>, ToolError>> + Send + 'static,
    {
        let name = name.into();
        let mut definition = Map::new();
        definition.insert("name".into(), Value::String(name.clone()));
        definition.insert("description".into(), Value::String(description.into()));
        definition.insert("inputSchema".into(), input_schema);
        Tool {
            name,
            definition,
            required_capabilities: Map::new(),
            handler: ToolHandler::Context(Arc::new(move |args, context| {
                Box::pin(handler(args, context))
            })),
        }
    }

    /// A tool from a whole definition (`name`, `inputSchema` and any other members, kept in
    /// their order and listed as given) with an asynchronous handler. A definition without a
    /// string `name` registers as the tool `""`, which [`ToolServer::add_tool`] refuses for its
    /// input schema unless that is an object schema.
    pub fn from_definition<F, Fut>(definition: Map<String, Value>, handler: F) -> Self
    where
        F: Fn(Map<String, Value>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolOutput, ToolError>> + Send + 'static,
    {
        let name = definition
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        Tool {
            name,
            definition,
            required_capabilities: Map::new(),
            handler: ToolHandler::Context(complete_only(handler)),
        }
    }

    /// [`Tool::from_definition`] with a synchronous handler, called with the arguments
    /// borrowed (no future, no copy of the arguments per call).
    pub fn from_definition_sync<F>(definition: Map<String, Value>, handler: F) -> Self
    where
        F: Fn(&Map<String, Value>) -> Result<ToolOutput, ToolError> + Send + Sync + 'static,
    {
        let name = definition
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        Tool {
            name,
            definition,
            required_capabilities: Map::new(),
            handler: ToolHandler::Sync(Arc::new(handler)),
        }
    }

    /// A tool with a synchronous handler (called with the arguments borrowed, on the thread
    /// that handles the request).
    pub fn sync<F>(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
        handler: F,
    ) -> Self
    where
        F: Fn(&Map<String, Value>) -> Result<ToolOutput, ToolError> + Send + Sync + 'static,
    {
        let name = name.into();
        let mut definition = Map::new();
        definition.insert("name".into(), Value::String(name.clone()));
        definition.insert("description".into(), Value::String(description.into()));
        definition.insert("inputSchema".into(), input_schema);
        Tool {
            name,
            definition,
            required_capabilities: Map::new(),
            handler: ToolHandler::Sync(Arc::new(handler)),
        }
    }

    /// Set `title`.
    pub fn title(self, title: impl Into<String>) -> Self {
        self.field("title", Value::String(title.into()))
    }

    /// Declare an `outputSchema`: every successful result must then carry conforming
    /// `structuredContent`.
    pub fn output_schema(self, schema: Value) -> Self {
        self.field("outputSchema", schema)
    }

    /// Set `annotations` (hints such as `readOnlyHint`; never trusted for authorization).
    pub fn annotations(self, annotations: Value) -> Self {
        self.field("annotations", annotations)
    }

    /// Require a client capability (e.g. `"elicitation"`): a request whose
    /// `clientCapabilities` lacks it gets `-32021`.
    pub fn requires_client_capability(mut self, name: impl Into<String>) -> Self {
        self.required_capabilities.insert(name.into(), json!({}));
        self
    }

    /// Set any other definition member (`icons`, `_meta`, `execution`, …).
    pub fn field(mut self, key: &str, value: Value) -> Self {
        self.definition.insert(key.to_string(), value);
        self
    }
}

struct RegisteredTool {
    name: String,
    definition: Value,
    /// `None` when the server checks arguments with its [`ArgumentCheckFn`].
    input: Option<CompiledSchema>,
    output: Option<CompiledSchema>,
    mirrored: Vec<MirroredParam>,
    required_capabilities: Map<String, Value>,
    handler: ToolHandler,
}

/// A resource at a fixed URI.
#[derive(Clone)]
pub struct Resource {
    definition: Map<String, Value>,
    reader: ReadFn,
}

impl Resource {
    /// A resource read by `reader`.
    pub fn new<F, Fut>(uri: impl Into<String>, name: impl Into<String>, reader: F) -> Self
    where
        F: Fn(String) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<Value>, ToolError>> + Send + 'static,
    {
        let mut definition = Map::new();
        definition.insert("uri".into(), Value::String(uri.into()));
        definition.insert("name".into(), Value::String(name.into()));
        Resource {
            definition,
            reader: Arc::new(move |uri| Box::pin(reader(uri))),
        }
    }

    /// A resource whose content is this fixed text.
    pub fn text(
        uri: impl Into<String>,
        name: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        let mime: String = mime_type.into();
        let text: String = text.into();
        let m = mime.clone();
        Resource::new(uri, name, move |uri| {
            let block = json!({"uri": uri, "mimeType": m.clone(), "text": text.clone()});
            async move { Ok(vec![block]) }
        })
        .field("mimeType", Value::String(mime))
    }

    /// A resource whose content is these bytes (sent as base64 `blob`).
    pub fn blob(
        uri: impl Into<String>,
        name: impl Into<String>,
        mime_type: impl Into<String>,
        bytes: Vec<u8>,
    ) -> Self {
        let mime: String = mime_type.into();
        let blob = base64::engine::general_purpose::STANDARD.encode(bytes);
        let m = mime.clone();
        Resource::new(uri, name, move |uri| {
            let block = json!({"uri": uri, "mimeType": m.clone(), "blob": blob.clone()});
            async move { Ok(vec![block]) }
        })
        .field("mimeType", Value::String(mime))
    }

    /// Set `description`.
    pub fn description(self, text: impl Into<String>) -> Self {
        self.field("description", Value::String(text.into()))
    }

    /// Set any other definition member (`title`, `mimeType`, `size`, `annotations`, …).
    pub fn field(mut self, key: &str, value: Value) -> Self {
        self.definition.insert(key.to_string(), value);
        self
    }

    fn uri(&self) -> &str {
        self.definition
            .get("uri")
            .and_then(Value::as_str)
            .unwrap_or("")
    }
}

/// A family of resources whose URIs match an RFC 6570 level-1 template (`{var}` matches one
/// or more characters other than `/`).
#[derive(Clone)]
pub struct ResourceTemplate {
    definition: Map<String, Value>,
    reader: ReadFn,
}

impl ResourceTemplate {
    /// A template read by `reader` (which receives the full URI).
    pub fn new<F, Fut>(uri_template: impl Into<String>, name: impl Into<String>, reader: F) -> Self
    where
        F: Fn(String) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<Value>, ToolError>> + Send + 'static,
    {
        let mut definition = Map::new();
        definition.insert("uriTemplate".into(), Value::String(uri_template.into()));
        definition.insert("name".into(), Value::String(name.into()));
        ResourceTemplate {
            definition,
            reader: Arc::new(move |uri| Box::pin(reader(uri))),
        }
    }

    /// Set `description`.
    pub fn description(self, text: impl Into<String>) -> Self {
        self.field("description", Value::String(text.into()))
    }

    /// Set any other definition member (`title`, `mimeType`, …).
    pub fn field(mut self, key: &str, value: Value) -> Self {
        self.definition.insert(key.to_string(), value);
        self
    }

    fn template(&self) -> &str {
        self.definition
            .get("uriTemplate")
            .and_then(Value::as_str)
            .unwrap_or("")
    }
}

/// Does `uri` match the level-1 `template`?
pub fn template_matches(template: &str, uri: &str) -> bool {
    let mut rest = uri;
    let mut parts = template.split('{');
    let Some(head) = parts.next() else {
        return false;
    };
    let Some(after) = rest.strip_prefix(head) else {
        return false;
    };
    rest = after;
    for part in parts {
        let Some((_, literal)) = part.split_once('}') else {
            return false;
        };
        // The variable takes the shortest non-empty run of non-`/` characters before
        // `literal` (the rest of the URI when the literal is empty and this is the end).
        let var_end = if literal.is_empty() {
            rest.find('/').unwrap_or(rest.len())
        } else {
            match rest.find(literal) {
                Some(i) => i,
                None => return false,
            }
        };
        let value = &rest[..var_end];
        if value.is_empty() || value.contains('/') {
            return false;
        }
        rest = &rest[var_end + literal.len()..];
    }
    rest.is_empty()
}

/// A prompt argument.
#[derive(Debug, Clone)]
pub struct PromptArgument {
    /// Its name.
    pub name: String,
    /// Its description.
    pub description: Option<String>,
    /// Whether `prompts/get` must carry it.
    pub required: bool,
}

/// A prompt.
#[derive(Clone)]
pub struct Prompt {
    name: String,
    definition: Map<String, Value>,
    arguments: Vec<PromptArgument>,
    render: ContextPromptFn,
}

impl Prompt {
    /// A prompt rendered by `render`.
    pub fn new<F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        arguments: Vec<PromptArgument>,
        render: F,
    ) -> Self
    where
        F: Fn(Map<String, Value>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<Value>, ToolError>> + Send + 'static,
    {
        let name = name.into();
        let mut definition = Map::new();
        definition.insert("name".into(), Value::String(name.clone()));
        definition.insert("description".into(), Value::String(description.into()));
        if !arguments.is_empty() {
            let listed: Vec<Value> = arguments
                .iter()
                .map(|a| {
                    let mut m = Map::new();
                    m.insert("name".into(), Value::String(a.name.clone()));
                    if let Some(d) = &a.description {
                        m.insert("description".into(), Value::String(d.clone()));
                    }
                    m.insert("required".into(), Value::Bool(a.required));
                    Value::Object(m)
                })
                .collect();
            definition.insert("arguments".into(), Value::Array(listed));
        }
        Prompt {
            name,
            definition,
            arguments,
            render: Arc::new(move |args, _| {
                let done = render(args);
                Box::pin(async move { done.await.map(Interaction::Complete) })
            }),
        }
    }

    /// A prompt whose renderer may ask for input first ([`Interaction::InputRequired`]).
    pub fn interactive<F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        arguments: Vec<PromptArgument>,
        render: F,
    ) -> Self
    where
        F: Fn(Map<String, Value>, CallContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Interaction<Vec<Value>>, ToolError>> + Send + 'static,
    {
        let mut prompt = Prompt::new(name, description, arguments, |_| async { Ok(Vec::new()) });
        prompt.render = Arc::new(move |args, context| Box::pin(render(args, context)));
        prompt
    }

    /// Set any other definition member (`title`, `icons`, …).
    pub fn field(mut self, key: &str, value: Value) -> Self {
        self.definition.insert(key.to_string(), value);
        self
    }
}

/// `cacheScope` of a cache hint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheScope {
    /// Any client or shared cache may reuse the result.
    Public,
    /// Only this user's client may reuse it.
    Private,
}

impl CacheScope {
    /// `"public"` or `"private"`.
    pub fn as_str(self) -> &'static str {
        match self {
            CacheScope::Public => "public",
            CacheScope::Private => "private",
        }
    }
}

/// One `ttlMs`/`cacheScope` pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheHint {
    /// `ttlMs`.
    pub ttl_ms: u64,
    /// `cacheScope`.
    pub scope: CacheScope,
}

impl CacheHint {
    /// A hint.
    pub const fn new(ttl_ms: u64, scope: CacheScope) -> Self {
        CacheHint { ttl_ms, scope }
    }
}

/// The cache hints of each cacheable result. The defaults are the seeds': discovery 1 h public,
/// `tools/list` 300 000 ms public (the ToolServer seed), `resources/list` and
/// `resources/templates/list` 10 s private, `resources/read` 5 s private, `prompts/list` 600 s
/// public.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheHints {
    /// `server/discover`.
    pub discover: CacheHint,
    /// `tools/list`.
    pub tools_list: CacheHint,
    /// `resources/list`.
    pub resources_list: CacheHint,
    /// `resources/templates/list`.
    pub templates_list: CacheHint,
    /// `resources/read`.
    pub resources_read: CacheHint,
    /// `prompts/list`.
    pub prompts_list: CacheHint,
}

impl Default for CacheHints {
    fn default() -> Self {
        CacheHints {
            discover: CacheHint::new(3_600_000, CacheScope::Public),
            tools_list: CacheHint::new(300_000, CacheScope::Public),
            resources_list: CacheHint::new(10_000, CacheScope::Private),
            templates_list: CacheHint::new(10_000, CacheScope::Private),
            resources_read: CacheHint::new(5_000, CacheScope::Private),
            prompts_list: CacheHint::new(600_000, CacheScope::Public),
        }
    }
}

/// The server's identity (`serverInfo`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerInfo {
    /// `name`.
    pub name: String,
    /// `version`.
    pub version: String,
}

/// How a transport checks the request against its own metadata (HTTP headers) at step 3.
pub trait TransportCheck: Sync {
    /// Check the envelope's mirrored headers (`MCP-Protocol-Version`, `Mcp-Method`,
    /// `Mcp-Name`); `Err` is the `-32020` message.
    fn check_request(
        &self,
        method: &str,
        params: &Map<String, Value>,
        version: &str,
    ) -> Result<(), String>;
    /// The value of header `name` (case-insensitive) when present exactly once; `Err` when it
    /// appears more than once or is not valid text.
    fn header(&self, name: &str) -> Result<Option<String>, String>;
}

/// A minimal MCP 2026-07-28 server: a registry and a handler. See the module docs for the
/// handler's order.
pub struct ToolServer {
    info: ServerInfo,
    supported: Vec<String>,
    instructions: Option<String>,
    tools: Vec<RegisteredTool>,
    resources: Vec<Resource>,
    templates: Vec<ResourceTemplate>,
    prompts: Vec<Prompt>,
    cache: CacheHints,
    page_size: Option<usize>,
    policy: Option<Arc<dyn Policy>>,
    approvals: BTreeSet<Approval>,
    audit: Option<Arc<dyn AuditSink>>,
    completer: Option<CompleteFn>,
    rules: RequestRules,
    /// The `_meta` every result carries (`None`: no `_meta`).
    result_meta: Option<Value>,
    argument_check: Option<ArgumentCheckFn>,
}

/// A request that passed steps 1–3.
struct Checked<'a> {
    id: &'a Value,
    method: &'a str,
    params: &'a Map<String, Value>,
    capabilities: &'a Map<String, Value>,
}

/// What step 1 found.
enum Envelope<'a> {
    Notification,
    Rejected(Value),
    Request {
        id: &'a Value,
        method: &'a str,
        params: Option<&'a Value>,
    },
}

fn envelope(message: &Value, strict: bool) -> Envelope<'_> {
    let Some(obj) = message.as_object() else {
        return Envelope::Rejected(error_response(
            &Value::Null,
            INVALID_REQUEST,
            "Invalid Request",
        ));
    };
    let method = obj.get("method").and_then(Value::as_str).unwrap_or("");
    let well_formed =
        obj.get("jsonrpc").and_then(Value::as_str) == Some("2.0") && !method.is_empty();
    let id = obj.get("id");
    if strict && !well_formed {
        let id = id.filter(|id| is_valid_id(id)).unwrap_or(&Value::Null);
        return Envelope::Rejected(error_response(id, INVALID_REQUEST, "Invalid Request"));
    }
    let Some(id) = id else {
        return Envelope::Notification;
    };
    if !is_valid_id(id) {
        return Envelope::Rejected(error_response(
            &Value::Null,
            INVALID_REQUEST,
            "Invalid Request",
        ));
    }
    if !well_formed {
        return Envelope::Rejected(error_response(id, INVALID_REQUEST, "Invalid Request"));
    }
    Envelope::Request {
        id,
        method,
        params: obj.get("params"),
    }
}

impl ToolServer {
    /// A server named `name` at `version`, speaking 2026-07-28, with no registrations and the
    /// default [`CacheHints`].
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        let info = ServerInfo {
            name: name.into(),
            version: version.into(),
        };
        let result_meta = json!({ META_SERVER_INFO: {"name": info.name.clone(), "version": info.version.clone()} });
        ToolServer {
            info,
            supported: vec![PROTOCOL_VERSION.to_string()],
            instructions: None,
            tools: Vec::new(),
            resources: Vec::new(),
            templates: Vec::new(),
            prompts: Vec::new(),
            cache: CacheHints::default(),
            page_size: None,
            policy: None,
            approvals: BTreeSet::new(),
            audit: None,
            completer: None,
            rules: RequestRules::default(),
            result_meta: Some(result_meta),
            argument_check: None,
        }
    }

    /// Check requests by `rules` instead of the seed's defaults (see [`RequestRules`]).
    pub fn with_rules(mut self, rules: RequestRules) -> Self {
        self.rules = rules;
        self
    }

    /// Put `server_info` (any JSON value) under `_meta["io.modelcontextprotocol/serverInfo"]`
    /// of every result instead of `{name, version}`; `None` sends results without `_meta`.
    pub fn with_server_info_meta(mut self, server_info: Option<Value>) -> Self {
        self.result_meta = server_info.map(|info| json!({ META_SERVER_INFO: info }));
        self
    }

    /// Check every tool's arguments with `check` instead of compiling its input schema (for a
    /// contract that fixes its own validation texts); `Err(text)` becomes the failed tool
    /// result's whole text. Set it before registering tools: tools registered earlier keep
    /// their compiled schemas unused.
    pub fn with_argument_check<F>(mut self, check: F) -> Self
    where
        F: Fn(&Value, &Map<String, Value>) -> Result<(), String> + Send + Sync + 'static,
    {
        self.argument_check = Some(Arc::new(check));
        self
    }

    /// Serve `completion/complete` (and declare the `completions` capability) with `complete`.
    pub fn with_completions<F>(mut self, complete: F) -> Self
    where
        F: Fn(&Map<String, Value>, &str, &str) -> Vec<String> + Send + Sync + 'static,
    {
        self.completer = Some(Arc::new(complete));
        self
    }

    /// The server's identity.
    pub fn info(&self) -> &ServerInfo {
        &self.info
    }

    /// Replace the supported protocol versions (the seed's `supported`).
    pub fn with_supported_versions(mut self, versions: Vec<String>) -> Self {
        self.supported = versions;
        self
    }

    /// Set the `instructions` of discovery.
    pub fn with_instructions(mut self, text: impl Into<String>) -> Self {
        self.instructions = Some(text.into());
        self
    }

    /// Replace the cache hints.
    pub fn with_cache_hints(mut self, hints: CacheHints) -> Self {
        self.cache = hints;
        self
    }

    /// Page every list by `size` items (at least 1), with opaque `nextCursor`s.
    pub fn with_page_size(mut self, size: usize) -> Self {
        self.page_size = Some(size.max(1));
        self
    }

    /// Gate every call with `policy`.
    pub fn with_policy(mut self, policy: Arc<dyn Policy>) -> Self {
        self.policy = Some(policy);
        self
    }

    /// Record every call in `sink`.
    pub fn with_audit(mut self, sink: Arc<dyn AuditSink>) -> Self {
        self.audit = Some(sink);
        self
    }

    /// Put an approval on record.
    pub fn approve(&mut self, approval: Approval) {
        self.approvals.insert(approval);
    }

    /// Register a tool (listed in registration order). Its schemas are compiled now.
    pub fn add_tool(&mut self, tool: Tool) -> Result<&mut Self, KitError> {
        if self.tools.iter().any(|t| t.name == tool.name) {
            return Err(KitError::Duplicate {
                kind: "tool",
                name: tool.name,
            });
        }
        let input_schema = tool.definition.get("inputSchema").unwrap_or(&Value::Null);
        if input_schema.get("type").and_then(Value::as_str) != Some("object") {
            return Err(KitError::NotObjectSchema(tool.name));
        }
        let schema_err = |which, source| KitError::Schema {
            tool: tool.name.clone(),
            which,
            source,
        };
        let input = match self.argument_check {
            Some(_) => None,
            None => Some(
                CompiledSchema::compile(input_schema).map_err(|e| schema_err("inputSchema", e))?,
            ),
        };
        let mirrored = mirrored_params(input_schema).map_err(|e| schema_err("inputSchema", e))?;
        let output = match tool.definition.get("outputSchema") {
            Some(schema) => {
                Some(CompiledSchema::compile(schema).map_err(|e| schema_err("outputSchema", e))?)
            }
            None => None,
        };
        self.tools.push(RegisteredTool {
            name: tool.name,
            definition: Value::Object(tool.definition),
            input,
            output,
            mirrored,
            required_capabilities: tool.required_capabilities,
            handler: tool.handler,
        });
        Ok(self)
    }

    /// Register a resource.
    pub fn add_resource(&mut self, resource: Resource) -> Result<&mut Self, KitError> {
        if self.resources.iter().any(|r| r.uri() == resource.uri()) {
            return Err(KitError::Duplicate {
                kind: "resource",
                name: resource.uri().to_string(),
            });
        }
        self.resources.push(resource);
        Ok(self)
    }

    /// Register a resource template.
    pub fn add_resource_template(
        &mut self,
        template: ResourceTemplate,
    ) -> Result<&mut Self, KitError> {
        if self
            .templates
            .iter()
            .any(|t| t.template() == template.template())
        {
            return Err(KitError::Duplicate {
                kind: "resource template",
                name: template.template().to_string(),
            });
        }
        self.templates.push(template);
        Ok(self)
    }

    /// Register a prompt.
    pub fn add_prompt(&mut self, prompt: Prompt) -> Result<&mut Self, KitError> {
        if self.prompts.iter().any(|p| p.name == prompt.name) {
            return Err(KitError::Duplicate {
                kind: "prompt",
                name: prompt.name,
            });
        }
        self.prompts.push(prompt);
        Ok(self)
    }

    /// The registered tool definitions, in registration order.
    pub fn tool_definitions(&self) -> Vec<Value> {
        self.tools.iter().map(|t| t.definition.clone()).collect()
    }

    /// The mirrored (`x-mcp-header`) arguments of a tool, if it exists.
    pub fn mirrored_params(&self, tool: &str) -> Option<&[MirroredParam]> {
        self.tools
            .iter()
            .find(|t| t.name == tool)
            .map(|t| t.mirrored.as_slice())
    }

    fn has_resources(&self) -> bool {
        !self.resources.is_empty() || !self.templates.is_empty()
    }

    fn serves(&self, method: &str) -> bool {
        match method {
            "server/discover" | "tools/list" | "tools/call" => true,
            "resources/list" | "resources/read" | "resources/templates/list" => {
                self.has_resources()
            }
            "prompts/list" | "prompts/get" => !self.prompts.is_empty(),
            "completion/complete" => self.completer.is_some(),
            _ => false,
        }
    }

    /// Handle one parsed JSON-RPC message: `None` for a notification, else the response.
    pub async fn handle(&self, message: &Value) -> Option<Value> {
        self.handle_with(message, None).await
    }

    /// [`ToolServer::handle`] with a transport's checks (HTTP headers) at step 3 and on
    /// mirrored tool arguments.
    pub async fn handle_with(
        &self,
        message: &Value,
        transport: Option<&dyn TransportCheck>,
    ) -> Option<Value> {
        self.handle_streaming(message, transport, None).await
    }

    /// [`ToolServer::handle_with`] with a sink for the notifications the request causes
    /// (`notifications/progress` from a handler's [`CallContext::progress`]), each sent
    /// before the response is returned.
    pub async fn handle_streaming(
        &self,
        message: &Value,
        transport: Option<&dyn TransportCheck>,
        notify: Option<Notify>,
    ) -> Option<Value> {
        let (id, method, params) = match envelope(message, self.rules.strict_envelope) {
            Envelope::Notification => return None,
            Envelope::Rejected(response) => return Some(response),
            Envelope::Request { id, method, params } => (id, method, params),
        };
        let method_first = self.rules.method_check == MethodCheck::BeforeMeta;
        if method_first && !self.serves(method) {
            return Some(error_response(id, METHOD_NOT_FOUND, "Method not found"));
        }
        let request = match self.check_meta(id, method, params, transport) {
            Ok(request) => request,
            Err(response) => return Some(response),
        };
        if !method_first && !self.serves(method) {
            return Some(error_response(id, METHOD_NOT_FOUND, "Method not found"));
        }
        Some(self.dispatch(&request, transport, notify).await)
    }

    /// [`ToolServer::handle`] driven to completion on this thread, without a runtime: for
    /// servers whose handlers need no tokio reactor or timer (they may still await each
    /// other). A handler that needs tokio panics here; use `handle` inside a runtime instead.
    pub fn handle_blocking(&self, message: &Value) -> Option<Value> {
        block_on(self.handle(message))
    }

    fn check_meta<'a>(
        &self,
        id: &'a Value,
        method: &'a str,
        params: Option<&'a Value>,
        transport: Option<&dyn TransportCheck>,
    ) -> Result<Checked<'a>, Value> {
        if let MetaCheck::Whole { message } = &self.rules.meta_check {
            return self.check_meta_whole(id, method, params, transport, message);
        }
        let invalid = |message: &str| error_response(id, INVALID_PARAMS, message);
        let params = match params {
            Some(Value::Object(p)) => p,
            Some(_) => return Err(invalid("Invalid params: params must be an object")),
            None => return Err(invalid("Missing required params._meta")),
        };
        let Some(meta) = params.get("_meta").and_then(Value::as_object) else {
            return Err(invalid("Missing required params._meta"));
        };
        let Some(requested) = meta.get(META_PROTOCOL_VERSION) else {
            return Err(invalid(&format!("{META_PROTOCOL_VERSION} is required")));
        };
        if let (Some(transport), Some(version)) = (transport, requested.as_str()) {
            if let Err(why) = transport.check_request(method, params, version) {
                return Err(error_response(id, super::rpc::HEADER_MISMATCH, &why));
            }
        }
        if !requested
            .as_str()
            .is_some_and(|v| self.supported.iter().any(|s| s == v))
        {
            return Err(error_response_with_data(
                id,
                UNSUPPORTED_VERSION,
                "Unsupported protocol version",
                json!({"supported": self.supported.clone(), "requested": requested.clone()}),
            ));
        }
        let Some(capabilities) = meta
            .get(META_CLIENT_CAPABILITIES)
            .and_then(Value::as_object)
        else {
            return Err(invalid(&format!("{META_CLIENT_CAPABILITIES} is required")));
        };
        Ok(Checked {
            id,
            method,
            params,
            capabilities,
        })
    }

    /// [`MetaCheck::Whole`]: every required `_meta` field at once, then the transport, then the
    /// version.
    fn check_meta_whole<'a>(
        &self,
        id: &'a Value,
        method: &'a str,
        params: Option<&'a Value>,
        transport: Option<&dyn TransportCheck>,
        message: &str,
    ) -> Result<Checked<'a>, Value> {
        let fields = params.and_then(Value::as_object).and_then(|params| {
            let meta = params.get("_meta")?.as_object()?;
            let version = meta.get(META_PROTOCOL_VERSION)?.as_str()?;
            let capabilities = meta.get(META_CLIENT_CAPABILITIES)?.as_object()?;
            Some((params, version, capabilities))
        });
        let Some((params, version, capabilities)) = fields else {
            return Err(error_response(id, INVALID_PARAMS, message));
        };
        if let Some(transport) = transport {
            if let Err(why) = transport.check_request(method, params, version) {
                return Err(error_response(id, super::rpc::HEADER_MISMATCH, &why));
            }
        }
        if !self.supported.iter().any(|s| s == version) {
            return Err(error_response_with_data(
                id,
                UNSUPPORTED_VERSION,
                "Unsupported protocol version",
                json!({"supported": self.supported.clone(), "requested": version}),
            ));
        }
        Ok(Checked {
            id,
            method,
            params,
            capabilities,
        })
    }

    async fn dispatch(
        &self,
        request: &Checked<'_>,
        transport: Option<&dyn TransportCheck>,
        notify: Option<Notify>,
    ) -> Value {
        let id = request.id;
        let outcome = match request.method {
            "server/discover" => Ok(self.discover()),
            "tools/list" => self.list(
                request.params,
                "tools",
                self.tools.iter().map(|t| t.definition.clone()).collect(),
                self.cache.tools_list,
            ),
            "tools/call" => self.call_tool(request, transport, notify).await,
            "resources/list" => self.list(
                request.params,
                "resources",
                self.resources
                    .iter()
                    .map(|r| Value::Object(r.definition.clone()))
                    .collect(),
                self.cache.resources_list,
            ),
            "resources/templates/list" => self.list(
                request.params,
                "resourceTemplates",
                self.templates
                    .iter()
                    .map(|t| Value::Object(t.definition.clone()))
                    .collect(),
                self.cache.templates_list,
            ),
            "resources/read" => self.read_resource(request).await,
            "prompts/list" => self.list(
                request.params,
                "prompts",
                self.prompts
                    .iter()
                    .map(|p| Value::Object(p.definition.clone()))
                    .collect(),
                self.cache.prompts_list,
            ),
            "prompts/get" => self.get_prompt(request).await,
            "completion/complete" => self.complete(request.params),
            _ => Err(error_response(id, METHOD_NOT_FOUND, "Method not found")),
        };
        match outcome {
            Ok(result) => self.result_response(id, result),
            Err(error) => with_id(error, id),
        }
    }

    fn result_response(&self, id: &Value, mut result: Map<String, Value>) -> Value {
        // `resultType` first: `"complete"` unless the payload set its own (input_required).
        if !result.contains_key("resultType") {
            result.shift_insert(0, "resultType".into(), Value::String("complete".into()));
        }
        if let Some(meta) = &self.result_meta {
            result.insert("_meta".into(), meta.clone());
        }
        json!({"jsonrpc": "2.0", "id": id.clone(), "result": Value::Object(result)})
    }

    fn discover(&self) -> Map<String, Value> {
        let mut capabilities = Map::new();
        capabilities.insert("tools".into(), json!({}));
        if self.has_resources() {
            capabilities.insert("resources".into(), json!({}));
        }
        if !self.prompts.is_empty() {
            capabilities.insert("prompts".into(), json!({}));
        }
        if self.completer.is_some() {
            capabilities.insert("completions".into(), json!({}));
        }
        let mut result = Map::new();
        result.insert("supportedVersions".into(), json!(self.supported.clone()));
        result.insert("capabilities".into(), Value::Object(capabilities));
        if let Some(text) = &self.instructions {
            result.insert("instructions".into(), Value::String(text.clone()));
        }
        insert_hint(&mut result, self.cache.discover);
        result
    }

    fn list(
        &self,
        params: &Map<String, Value>,
        key: &str,
        items: Vec<Value>,
        hint: CacheHint,
    ) -> Result<Map<String, Value>, Value> {
        let cursor = match self.rules.cursors {
            Cursors::Validate => params.get("cursor"),
            Cursors::Ignore => None,
        };
        let start = match cursor {
            None | Some(Value::Null) => 0,
            Some(Value::String(cursor)) => decode_cursor(key, cursor, items.len())
                .ok_or_else(|| error_response(&Value::Null, INVALID_PARAMS, "Invalid cursor"))?,
            Some(_) => {
                return Err(error_response(
                    &Value::Null,
                    INVALID_PARAMS,
                    "Invalid cursor",
                ));
            }
        };
        let end = match self.page_size {
            Some(size) => start.saturating_add(size).min(items.len()),
            None => items.len(),
        };
        let mut result = Map::new();
        let total = items.len();
        let page: Vec<Value> = items.into_iter().skip(start).take(end - start).collect();
        result.insert(key.to_string(), Value::Array(page));
        if end < total {
            result.insert("nextCursor".into(), Value::String(encode_cursor(key, end)));
        }
        insert_hint(&mut result, hint);
        Ok(result)
    }

    fn complete(&self, params: &Map<String, Value>) -> Result<Map<String, Value>, Value> {
        let invalid = |m: &str| error_response(&Value::Null, INVALID_PARAMS, m);
        let Some(complete) = &self.completer else {
            return Err(error_response(
                &Value::Null,
                METHOD_NOT_FOUND,
                "Method not found",
            ));
        };
        let reference = params.get("ref").and_then(Value::as_object);
        let Some(reference) = reference.filter(|r| {
            matches!(
                r.get("type").and_then(Value::as_str),
                Some("ref/prompt" | "ref/resource")
            )
        }) else {
            return Err(invalid(
                "Invalid params: ref must be a ref/prompt or ref/resource object",
            ));
        };
        let argument = params.get("argument").and_then(Value::as_object);
        let (Some(name), Some(value)) = (
            argument.and_then(|a| a.get("name")).and_then(Value::as_str),
            argument
                .and_then(|a| a.get("value"))
                .and_then(Value::as_str),
        ) else {
            return Err(invalid(
                "Invalid params: argument must have a string name and value",
            ));
        };
        let values = complete(reference, name, value);
        let total = values.len();
        let shown: Vec<Value> = values
            .into_iter()
            .take(MAX_COMPLETIONS)
            .map(Value::String)
            .collect();
        let mut result = Map::new();
        result.insert(
            "completion".into(),
            json!({"values": shown, "total": total, "hasMore": total > MAX_COMPLETIONS}),
        );
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: &Checked<'_>,
        transport: Option<&dyn TransportCheck>,
        notify: Option<Notify>,
    ) -> Result<Map<String, Value>, Value> {
        let params = request.params;
        let invalid = |m: &str| error_response(&Value::Null, INVALID_PARAMS, m);
        let empty = Map::new();
        let (name, arguments) = match &self.rules.call_params {
            CallParams::Lenient => {
                let Some(name) = params.get("name").and_then(Value::as_str) else {
                    return Err(invalid("Invalid params: name must be a string"));
                };
                let arguments = match params.get("arguments") {
                    None | Some(Value::Null) => &empty,
                    Some(Value::Object(args)) => args,
                    Some(_) => return Err(invalid("Invalid params: arguments must be an object")),
                };
                (name, arguments)
            }
            CallParams::Strict { message } => {
                let name = params.get("name").and_then(Value::as_str);
                let arguments = match params.get("arguments") {
                    None => Some(&empty),
                    Some(Value::Object(args)) => Some(args),
                    Some(_) => None,
                };
                let (Some(name), Some(arguments)) = (name, arguments) else {
                    return Err(invalid(message));
                };
                (name, arguments)
            }
        };
        let Some(tool) = self.tools.iter().find(|t| t.name == name) else {
            return Err(invalid(&format!("Unknown tool: {name}")));
        };
        let lacks = |k: &String| !request.capabilities.contains_key(k);
        if tool.required_capabilities.keys().any(lacks) {
            let missing: Map<String, Value> = tool
                .required_capabilities
                .iter()
                .filter(|(k, _)| lacks(k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            let names: Vec<&str> = missing.keys().map(String::as_str).collect();
            return Err(error_response_with_data(
                &Value::Null,
                MISSING_CAPABILITY,
                &format!("Missing required client capability: {}", names.join(", ")),
                json!({"requiredCapabilities": Value::Object(missing)}),
            ));
        }
        if let Some(transport) = transport {
            check_mirrored(tool, arguments, transport)
                .map_err(|why| error_response(&Value::Null, super::rpc::HEADER_MISMATCH, &why))?;
        }
        // The digest is only worth its hashing when a policy or an audit sink reads it.
        let digest = if self.policy.is_some() || self.audit.is_some() {
            arguments_digest(arguments)
        } else {
            String::new()
        };
        let audit = |decision, outcome| {
            if let Some(sink) = &self.audit {
                sink.record(AuditEntry::new(name, arguments, &digest, decision, outcome));
            }
        };
        let invalid_arguments = match (&self.argument_check, &tool.input) {
            (Some(check), _) => {
                let schema = tool.definition.get("inputSchema").unwrap_or(&Value::Null);
                check(schema, arguments).err()
            }
            (None, Some(input)) => input
                .check(&Value::Object(arguments.clone()))
                .err()
                .map(|why| format!("Invalid arguments for tool {name}: {why}")),
            (None, None) => None,
        };
        if let Some(text) = invalid_arguments {
            audit(AuditDecision::NotAsked, AuditOutcome::InvalidArguments);
            return Ok(tool_result(vec![text_block(text)], None, true));
        }
        let decision = match &self.policy {
            None => AuditDecision::Allow,
            Some(policy) => {
                let call = CallInfo {
                    tool: name,
                    arguments,
                    arguments_sha256: &digest,
                    annotations: tool.definition.get("annotations"),
                };
                match policy.decide(&call) {
                    Decision::Allow => AuditDecision::Allow,
                    Decision::Deny(reason) => {
                        audit(AuditDecision::Deny, AuditOutcome::Blocked);
                        return Ok(tool_result(
                            vec![text_block(format!(
                                "Call to {name} denied by policy: {reason}"
                            ))],
                            None,
                            true,
                        ));
                    }
                    Decision::RequireApproval => {
                        let approval = Approval {
                            tool: name.to_string(),
                            arguments_sha256: digest.clone(),
                        };
                        if self.approvals.contains(&approval) {
                            AuditDecision::Approved
                        } else {
                            audit(AuditDecision::ApprovalRequired, AuditOutcome::Blocked);
                            return Ok(tool_result(
                                vec![text_block(format!(
                                    "Call to {name} needs approval: no approval is on record for arguments sha256 {digest}"
                                ))],
                                None,
                                true,
                            ));
                        }
                    }
                }
            }
        };
        let handled = match &tool.handler {
            ToolHandler::Sync(handler) => {
                // A synchronous handler reads no context, but a malformed retry is still
                // refused, exactly as for any other tool.
                retry_params(params, || format!("tool:{name}"))?;
                handler(arguments).map(Interaction::Complete)
            }
            ToolHandler::Context(handler) => {
                let progress_token = params
                    .get("_meta")
                    .and_then(|meta| meta.get("progressToken"))
                    .filter(|token| is_valid_id(token))
                    .cloned();
                let (input_responses, request_state) =
                    retry_params(params, || format!("tool:{name}"))?;
                let context = CallContext {
                    notify: notify.filter(|_| progress_token.is_some()),
                    progress_token,
                    input_responses,
                    request_state,
                    client_capabilities: request.capabilities.clone(),
                };
                handler(arguments.clone(), context).await
            }
        };
        let outcome = match handled {
            Ok(Interaction::Complete(output)) => Ok(output),
            Ok(Interaction::InputRequired(input)) => {
                audit(decision, AuditOutcome::Ok);
                return input_required(input, &format!("tool:{name}"), request.capabilities);
            }
            Err(e) => Err(e),
        };
        let (result, audit_outcome) = match outcome {
            Err(error) => (
                tool_result(vec![text_block(error.0)], None, true),
                AuditOutcome::ToolError,
            ),
            Ok(output) => match check_output(name, tool.output.as_ref(), &output) {
                Err(why) => (
                    tool_result(vec![text_block(why)], None, true),
                    AuditOutcome::ToolError,
                ),
                Ok(()) => {
                    let ToolOutput {
                        mut content,
                        structured,
                    } = output;
                    if content.is_empty() {
                        if let Some(value) = &structured {
                            // Straight into a string buffer: `Value`'s `Display` writes the
                            // same compact JSON through a formatter, several times slower.
                            let text =
                                serde_json::to_string(value).unwrap_or_else(|_| value.to_string());
                            content.push(text_block(text));
                        }
                    }
                    (tool_result(content, structured, false), AuditOutcome::Ok)
                }
            },
        };
        audit(decision, audit_outcome);
        Ok(result)
    }

    async fn read_resource(&self, request: &Checked<'_>) -> Result<Map<String, Value>, Value> {
        let Some(uri) = request.params.get("uri").and_then(Value::as_str) else {
            return Err(error_response(
                &Value::Null,
                INVALID_PARAMS,
                "Invalid params: uri must be a string",
            ));
        };
        let reader = self
            .resources
            .iter()
            .find(|r| r.uri() == uri)
            .map(|r| &r.reader)
            .or_else(|| {
                self.templates
                    .iter()
                    .find(|t| template_matches(t.template(), uri))
                    .map(|t| &t.reader)
            });
        let not_found = || {
            error_response_with_data(
                &Value::Null,
                INVALID_PARAMS,
                "Resource not found",
                json!({"uri": uri}),
            )
        };
        let Some(reader) = reader else {
            return Err(not_found());
        };
        match reader(uri.to_string()).await {
            Ok(contents) if !contents.is_empty() => {
                let mut result = Map::new();
                result.insert("contents".into(), Value::Array(contents));
                insert_hint(&mut result, self.cache.resources_read);
                Ok(result)
            }
            // Never an empty read: a reader with nothing to give is "not found".
            Ok(_) | Err(_) => Err(not_found()),
        }
    }

    async fn get_prompt(&self, request: &Checked<'_>) -> Result<Map<String, Value>, Value> {
        let invalid = |m: &str| error_response(&Value::Null, INVALID_PARAMS, m);
        let Some(name) = request.params.get("name").and_then(Value::as_str) else {
            return Err(invalid("Invalid params: name must be a string"));
        };
        let Some(prompt) = self.prompts.iter().find(|p| p.name == name) else {
            return Err(invalid(&format!("Unknown prompt: {name}")));
        };
        let empty = Map::new();
        let arguments = match request.params.get("arguments") {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(args)) => args,
            Some(_) => return Err(invalid("Invalid params: arguments must be an object")),
        };
        for arg in &prompt.arguments {
            match arguments.get(&arg.name) {
                None if arg.required => {
                    return Err(invalid(&format!("Missing required argument: {}", arg.name)));
                }
                Some(v) if !v.is_string() => {
                    return Err(invalid(&format!("Argument {} must be a string", arg.name)));
                }
                _ => {}
            }
        }
        let target = format!("prompt:{name}");
        let (input_responses, request_state) = retry_params(request.params, || target.clone())?;
        let context = CallContext {
            input_responses,
            request_state,
            client_capabilities: request.capabilities.clone(),
            ..CallContext::default()
        };
        match (prompt.render)(arguments.clone(), context).await {
            Ok(Interaction::InputRequired(input)) => {
                input_required(input, &target, request.capabilities)
            }
            Ok(Interaction::Complete(messages)) => {
                let mut result = Map::new();
                if let Some(d) = prompt.definition.get("description") {
                    result.insert("description".into(), d.clone());
                }
                result.insert("messages".into(), Value::Array(messages));
                Ok(result)
            }
            Err(e) => Err(error_response(
                &Value::Null,
                super::rpc::INTERNAL_ERROR,
                &format!("Prompt {name} failed: {e}"),
            )),
        }
    }
}

fn check_mirrored(
    tool: &RegisteredTool,
    arguments: &Map<String, Value>,
    transport: &dyn TransportCheck,
) -> Result<(), String> {
    for param in &tool.mirrored {
        let header_name = param.header_name();
        let header = transport.header(&header_name)?;
        let body = arguments.get(&param.argument).and_then(header_text);
        match (header, body) {
            (None, None) => {}
            (Some(_), None) => {
                return Err(format!(
                    "Header mismatch: {header_name} header is present but argument {} is not",
                    param.argument
                ));
            }
            (None, Some(_)) => {
                return Err(format!(
                    "Header mismatch: missing required header {header_name}"
                ));
            }
            (Some(h), Some(b)) => {
                let decoded = decode_sentinel(&h).ok_or_else(|| {
                    format!("Header mismatch: {header_name} header has an invalid Base64 value")
                })?;
                if decoded != b {
                    return Err(format!(
                        "Header mismatch: {header_name} header value '{decoded}' does not match body value '{b}'"
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Decode an `=?base64?…?=` header value; other values are literal. `None` for bad Base64 or
/// UTF-8.
pub fn decode_sentinel(value: &str) -> Option<String> {
    let Some(inner) = value
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    else {
        return Some(value.to_string());
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(inner)
        .ok()?;
    String::from_utf8(bytes).ok()
}

fn check_output(
    name: &str,
    schema: Option<&CompiledSchema>,
    output: &ToolOutput,
) -> Result<(), String> {
    let Some(schema) = schema else {
        return Ok(());
    };
    let Some(structured) = &output.structured else {
        return Err(format!(
            "Tool {name} declares an outputSchema but returned no structuredContent"
        ));
    };
    schema.check(structured).map_err(|why| {
        format!(
            "Tool {name} returned structuredContent that does not match its outputSchema: {why}"
        )
    })
}

fn text_block(text: String) -> Value {
    json!({"type": "text", "text": text})
}

fn tool_result(
    content: Vec<Value>,
    structured: Option<Value>,
    is_error: bool,
) -> Map<String, Value> {
    let mut result = Map::new();
    result.insert("content".into(), Value::Array(content));
    if let Some(s) = structured {
        result.insert("structuredContent".into(), s);
    }
    result.insert("isError".into(), Value::Bool(is_error));
    result
}

fn insert_hint(result: &mut Map<String, Value>, hint: CacheHint) {
    result.insert("ttlMs".into(), json!(hint.ttl_ms));
    result.insert("cacheScope".into(), json!(hint.scope.as_str()));
}

fn with_id(mut error: Value, id: &Value) -> Value {
    if let Some(obj) = error.as_object_mut() {
        obj.insert("id".into(), id.clone());
    }
    error
}

fn encode_cursor(key: &str, offset: usize) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("{key}:{offset}"))
}

fn decode_cursor(key: &str, cursor: &str, len: usize) -> Option<usize> {
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(cursor)
        .ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let (k, offset) = text.split_once(':')?;
    if k != key || offset.starts_with('+') {
        return None;
    }
    let offset: usize = offset.parse().ok()?;
    (offset > 0 && offset < len).then_some(offset)
}

/// Drive `future` to completion on this thread, parking it while the future waits.
///
/// Most handlers complete on their first poll: that poll uses a no-op waker, and the parking
/// waker (an allocation and a thread handle) is built only for a future that is still pending.
/// A pending future is polled again with the parking waker before the thread parks, so any
/// wake it registers reaches this thread.
fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut first = std::task::Context::from_waker(std::task::Waker::noop());
    if let std::task::Poll::Ready(output) = future.as_mut().poll(&mut first) {
        return output;
    }
    struct Unpark(std::thread::Thread);
    impl std::task::Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
        fn wake_by_ref(self: &Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = std::task::Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut context = std::task::Context::from_waker(&waker);
    loop {
        match future.as_mut().poll(&mut context) {
            std::task::Poll::Ready(output) => return output,
            std::task::Poll::Pending => std::thread::park(),
        }
    }
}

/// The capability a server-to-client request method needs from the client.
fn capability_for(method: &str) -> Option<&'static str> {
    match method {
        "elicitation/create" => Some("elicitation"),
        "sampling/createMessage" => Some("sampling"),
        "roots/list" => Some("roots"),
        _ => None,
    }
}

/// A retry's `inputResponses` (an object when present) and verified `requestState` (a string
/// sealed for `target` when present); `-32602` otherwise.
#[allow(clippy::type_complexity)]
fn retry_params(
    params: &Map<String, Value>,
    target: impl FnOnce() -> String,
) -> Result<(Option<Map<String, Value>>, Option<Value>), Value> {
    let invalid = |m: &str| error_response(&Value::Null, INVALID_PARAMS, m);
    let responses = match params.get("inputResponses") {
        None | Some(Value::Null) => None,
        Some(Value::Object(map)) => Some(map.clone()),
        Some(_) => return Err(invalid("Invalid params: inputResponses must be an object")),
    };
    let state = match params.get("requestState") {
        None | Some(Value::Null) => None,
        Some(Value::String(sealed)) => Some(super::state::open(sealed, &target()).ok_or_else(|| {
            invalid("Invalid requestState: it fails its integrity check (tampered, or from another server process or request)")
        })?),
        Some(_) => return Err(invalid("Invalid params: requestState must be a string")),
    };
    Ok((responses, state))
}

/// The `input_required` result for `input`: requests the client can serve, the sealed state.
fn input_required(
    input: InputRequired,
    target: &str,
    capabilities: &Map<String, Value>,
) -> Result<Map<String, Value>, Value> {
    let mut missing = Map::new();
    let mut requests = Map::new();
    for (key, request) in input.requests {
        let needs = request
            .get("method")
            .and_then(Value::as_str)
            .and_then(capability_for);
        match needs {
            Some(cap) if !capabilities.contains_key(cap) => {
                missing.insert(cap.to_string(), json!({}));
            }
            _ => {
                requests.insert(key, request);
            }
        }
    }
    if requests.is_empty() && !missing.is_empty() {
        let names: Vec<&str> = missing.keys().map(String::as_str).collect();
        return Err(error_response_with_data(
            &Value::Null,
            MISSING_CAPABILITY,
            &format!("Missing required client capability: {}", names.join(", ")),
            json!({"requiredCapabilities": Value::Object(missing)}),
        ));
    }
    let mut result = Map::new();
    result.insert("resultType".into(), json!("input_required"));
    result.insert("inputRequests".into(), Value::Object(requests));
    if let Some(state) = input.state {
        let Some(sealed) = super::state::seal(&state, target) else {
            return Err(error_response(
                &Value::Null,
                super::rpc::INTERNAL_ERROR,
                "Internal error: the request state could not be sealed",
            ));
        };
        result.insert("requestState".into(), Value::String(sealed));
    }
    Ok(result)
}
