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
            other => Self::text(other.to_string()),
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
/// An asynchronous resource reader: the URI in, the `contents` array's items out.
pub type ReadFn =
    Arc<dyn Fn(String) -> BoxFuture<'static, Result<Vec<Value>, ToolError>> + Send + Sync>;
/// An asynchronous prompt renderer: the arguments in, the `messages` out.
pub type PromptFn = Arc<
    dyn Fn(Map<String, Value>) -> BoxFuture<'static, Result<Vec<Value>, ToolError>> + Send + Sync,
>;

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
    handler: ToolFn,
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
            handler: Arc::new(move |args| Box::pin(handler(args))),
        }
    }

    /// A tool with a synchronous handler.
    pub fn sync<F>(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
        handler: F,
    ) -> Self
    where
        F: Fn(&Map<String, Value>) -> Result<ToolOutput, ToolError> + Send + Sync + 'static,
    {
        let handler = Arc::new(handler);
        Tool::new(name, description, input_schema, move |args| {
            let handler = Arc::clone(&handler);
            async move { handler(&args) }
        })
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
    input: CompiledSchema,
    output: Option<CompiledSchema>,
    mirrored: Vec<MirroredParam>,
    required_capabilities: Map<String, Value>,
    handler: ToolFn,
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
    render: PromptFn,
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
            render: Arc::new(move |args| Box::pin(render(args))),
        }
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

fn envelope(message: &Value) -> Envelope<'_> {
    let Some(obj) = message.as_object() else {
        return Envelope::Rejected(error_response(
            &Value::Null,
            INVALID_REQUEST,
            "Invalid Request",
        ));
    };
    let Some(id) = obj.get("id") else {
        return Envelope::Notification;
    };
    if !is_valid_id(id) {
        return Envelope::Rejected(error_response(
            &Value::Null,
            INVALID_REQUEST,
            "Invalid Request",
        ));
    }
    let method = obj.get("method").and_then(Value::as_str).unwrap_or("");
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") || method.is_empty() {
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
        ToolServer {
            info: ServerInfo {
                name: name.into(),
                version: version.into(),
            },
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
        }
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
        let input =
            CompiledSchema::compile(input_schema).map_err(|e| schema_err("inputSchema", e))?;
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
        let (id, method, params) = match envelope(message) {
            Envelope::Notification => return None,
            Envelope::Rejected(response) => return Some(response),
            Envelope::Request { id, method, params } => (id, method, params),
        };
        if !self.serves(method) {
            return Some(error_response(id, METHOD_NOT_FOUND, "Method not found"));
        }
        let request = match self.check_meta(id, method, params, transport) {
            Ok(request) => request,
            Err(response) => return Some(response),
        };
        Some(self.dispatch(&request, transport).await)
    }

    fn check_meta<'a>(
        &self,
        id: &'a Value,
        method: &'a str,
        params: Option<&'a Value>,
        transport: Option<&dyn TransportCheck>,
    ) -> Result<Checked<'a>, Value> {
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

    async fn dispatch(
        &self,
        request: &Checked<'_>,
        transport: Option<&dyn TransportCheck>,
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
            "tools/call" => self.call_tool(request, transport).await,
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

    fn result_response(&self, id: &Value, payload: Map<String, Value>) -> Value {
        let mut result = Map::with_capacity(payload.len() + 2);
        result.insert("resultType".into(), json!("complete"));
        result.extend(payload);
        result.insert(
            "_meta".into(),
            json!({ META_SERVER_INFO: {"name": self.info.name, "version": self.info.version} }),
        );
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
        let start = match params.get("cursor") {
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
    ) -> Result<Map<String, Value>, Value> {
        let params = request.params;
        let invalid = |m: &str| error_response(&Value::Null, INVALID_PARAMS, m);
        let Some(name) = params.get("name").and_then(Value::as_str) else {
            return Err(invalid("Invalid params: name must be a string"));
        };
        let empty = Map::new();
        let arguments = match params.get("arguments") {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(args)) => args,
            Some(_) => return Err(invalid("Invalid params: arguments must be an object")),
        };
        let Some(tool) = self.tools.iter().find(|t| t.name == name) else {
            return Err(invalid(&format!("Unknown tool: {name}")));
        };
        let missing: Map<String, Value> = tool
            .required_capabilities
            .iter()
            .filter(|(k, _)| !request.capabilities.contains_key(*k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if !missing.is_empty() {
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
        let digest = arguments_digest(arguments);
        let audit = |decision, outcome| {
            if let Some(sink) = &self.audit {
                sink.record(AuditEntry::new(name, arguments, &digest, decision, outcome));
            }
        };
        let args_value = Value::Object(arguments.clone());
        if let Err(why) = tool.input.check(&args_value) {
            audit(AuditDecision::NotAsked, AuditOutcome::InvalidArguments);
            return Ok(tool_result(
                vec![text_block(format!(
                    "Invalid arguments for tool {name}: {why}"
                ))],
                None,
                true,
            ));
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
        let outcome = (tool.handler)(arguments.clone()).await;
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
                            content.push(text_block(value.to_string()));
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
        match (prompt.render)(arguments.clone()).await {
            Ok(messages) => {
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
