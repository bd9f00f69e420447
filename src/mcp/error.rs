//! Why the handshake or a listing failed, as data: callers match on the kind (a
//! "method not found" for an unadvertised list is accepted) instead of searching messages.
//! The `Display` text is what the user reads in the probe failure.

use serde_json::Value;
use tokio::time::Instant;

use super::CallError;
use super::jsonrpc::ErrorObject;
use crate::model::escape::{MAX_SHOWN_BYTES, clip, line};

/// JSON-RPC's "method not found" error code.
pub const METHOD_NOT_FOUND: i64 = -32601;

/// A failed exchange with the server (or a failed start of it).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RpcError {
    /// The server process could not be started or the connection could not be opened.
    #[error("{0}")]
    Launch(String),
    /// The server answered `method` with -32601.
    #[error("{method}: the server answered {error}")]
    MethodNotFound { method: String, error: ErrorObject },
    /// The server names only protocol versions this client cannot speak.
    #[error(
        "the server only supports protocol versions {}; mcpvet speaks {requested} and the legacy revisions",
        line(&clip(&supported.join(", "), MAX_SHOWN_BYTES))
    )]
    UnsupportedVersion {
        supported: Vec<String>,
        requested: String,
    },
    /// Any other JSON-RPC error the server answered `method` with.
    #[error("{method}: the server answered error {code} \"{}\"", line(message))]
    Server {
        method: String,
        code: i64,
        message: String,
        data: Option<Value>,
    },
    /// No answer to `method`; `overall` when the whole probe's deadline passed.
    #[error(
        "{method}: no answer{}",
        if *overall { " before the --timeout limit" } else { "" }
    )]
    Timeout { method: String, overall: bool },
    /// The process exited, the connection failed, a cap was exceeded or the server broke
    /// the protocol while answering `method`.
    #[error("{method}: {error}")]
    Transport { method: String, error: CallError },
    /// A list kept returning a `nextCursor` beyond the page cap.
    #[error(
        "{method}: more than {max} pages (the page cap); the server keeps returning a nextCursor"
    )]
    PageCap { method: String, max: usize },
    /// The lists held more items in total than the item cap.
    #[error("{method}: more than {max} items in total (the item cap)")]
    ItemCap { method: String, max: usize },
    /// A list repeated a cursor.
    #[error(
        "{method}: the server repeated cursor \"{}\" on page {page} (it would loop forever)",
        line(&clip(cursor, 200))
    )]
    RepeatedCursor {
        method: String,
        cursor: String,
        page: usize,
    },
    /// A result of the wrong shape (the message says which).
    #[error("{0}")]
    Malformed(String),
}

impl RpcError {
    /// Classify a failed call to `method`; `deadline` is the whole probe's.
    pub fn from_call(method: &str, e: CallError, deadline: Instant) -> Self {
        let method = method.to_owned();
        match e {
            CallError::Rpc(error) if error.code == METHOD_NOT_FOUND => {
                RpcError::MethodNotFound { method, error }
            }
            CallError::Rpc(ErrorObject {
                code,
                message,
                data,
            }) => RpcError::Server {
                method,
                code,
                message,
                data,
            },
            CallError::Silent => RpcError::Timeout {
                method,
                overall: Instant::now() >= deadline,
            },
            error => RpcError::Transport { method, error },
        }
    }

    /// Whether the server said it does not implement the method (-32601).
    pub fn is_method_not_found(&self) -> bool {
        matches!(self, RpcError::MethodNotFound { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_read_as_before() {
        let later = Instant::now() + std::time::Duration::from_secs(60);
        let nf = RpcError::from_call(
            "tools/list",
            CallError::Rpc(ErrorObject {
                code: -32601,
                message: "Method not found".into(),
                data: None,
            }),
            later,
        );
        assert!(nf.is_method_not_found());
        assert_eq!(
            nf.to_string(),
            "tools/list: the server answered error -32601 \"Method not found\""
        );
        let other = RpcError::from_call(
            "x",
            CallError::Rpc(ErrorObject {
                code: -32000,
                message: "m".into(),
                data: None,
            }),
            later,
        );
        assert!(!other.is_method_not_found());
        assert_eq!(
            other.to_string(),
            "x: the server answered error -32000 \"m\""
        );
        let silent = RpcError::from_call("x", CallError::Silent, later);
        assert_eq!(silent.to_string(), "x: no answer");
        let past = RpcError::from_call("x", CallError::Silent, Instant::now());
        assert_eq!(past.to_string(), "x: no answer before the --timeout limit");
        let closed = RpcError::from_call("x", CallError::Closed("gone".into()), later);
        assert_eq!(closed.to_string(), "x: gone");
        let v = RpcError::UnsupportedVersion {
            supported: vec!["a".into(), "b".into()],
            requested: "2026-07-28".into(),
        };
        assert_eq!(
            v.to_string(),
            "the server only supports protocol versions a, b; mcpvet speaks 2026-07-28 and the legacy revisions"
        );
    }
}
