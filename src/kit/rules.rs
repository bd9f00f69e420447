//! How strictly, and in which order, a [`ToolServer`](super::ToolServer) checks a request, and
//! the texts of its protocol errors: [`RequestRules`].
//!
//! The default is the ToolServer seed's order (notification first, then the method, then
//! `_meta` step by step) with detailed messages. A server with a narrower contract states its
//! differences here instead of forking the handler: ci-insights (`crate::baseline`) states its
//! seed contract's rules (a malformed message is never a notification, `_meta` is checked whole
//! before the version and the method, one message per failure class, cursors ignored).

/// Where the unknown-method check (`-32601`) runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MethodCheck {
    /// Before `_meta` (the ToolServer seed): an unknown method is `-32601` whatever its `_meta`.
    #[default]
    BeforeMeta,
    /// After `_meta`, the transport's header checks and the version check: an unknown method
    /// with an unsupported version is `-32022`.
    AfterVersion,
}

/// How `params._meta` is checked.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum MetaCheck {
    /// Step by step with a message per problem: `params` an object, `_meta` an object, the
    /// version present; then the transport's header checks; then the version supported
    /// (`-32022`, a non-string version included); then the client capabilities an object.
    #[default]
    Stepwise,
    /// All at once, before the transport's checks and the version check: `params` an object
    /// whose `_meta` is an object holding a string version and object client capabilities,
    /// else `-32602` with this one message.
    Whole {
        /// The `-32602` message (the seed contract's is `Missing required _meta fields`).
        message: String,
    },
}

/// How `tools/call`'s `name` and `arguments` are checked (before the tool lookup).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum CallParams {
    /// `name` a string and `arguments` an object, absent or `null` (taken as `{}`), with a
    /// message naming the member.
    #[default]
    Lenient,
    /// `name` a string and `arguments` an object whenever the member is present (`null`
    /// included), else `-32602` with this one message.
    Strict {
        /// The `-32602` message (the seed contract's is `Invalid params`).
        message: String,
    },
}

/// What a list does with `params.cursor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Cursors {
    /// Cursors are the server's own opaque ones; any other is `-32602 "Invalid cursor"`.
    #[default]
    Validate,
    /// One page, whatever the cursor says (the seed contract's `tools/list`).
    Ignore,
}

/// The request checks of a [`ToolServer`](super::ToolServer) (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RequestRules {
    /// A message without `jsonrpc: "2.0"` or a non-empty method is `-32600` even without an
    /// `id` (JSON-RPC: a malformed message is not a notification). Off by default: the seed
    /// answers nothing to any message without an `id`.
    pub strict_envelope: bool,
    /// Where the unknown-method check runs.
    pub method_check: MethodCheck,
    /// How `_meta` is checked.
    pub meta_check: MetaCheck,
    /// How `tools/call` parameters are checked.
    pub call_params: CallParams,
    /// What lists do with cursors.
    pub cursors: Cursors,
}
