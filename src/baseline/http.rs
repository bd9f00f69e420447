//! ci-insights over Streamable HTTP: the kit's transport ([`crate::kit::http`], every gate
//! documented there) with ci-insights' kit server ([`super::handler::tool_server`]) behind it.
//!
//! After the transport's gates, a POST goes through the contract's structural checks 1–4 (an
//! invalid envelope, invalid id or missing `_meta` fields answer 400 with `-32600`/`-32602`; a
//! notification answers 202), then the mirrored headers
//! ([`crate::kit::http::check_headers`], `-32020` with the request's id), then checks 5–10,
//! so a header/body version mismatch is `-32020` while a matching but unsupported version is
//! `-32022` (400): the kit's `MetaCheck::Whole` order.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use super::config::ServerConfig;
use super::handler::tool_server;
use crate::kit::http::HttpServer as KitHttpServer;

pub use crate::kit::http::{ENDPOINT_PATH, HttpOptions, ServeError, status_for};

/// The name the transport's refusal messages use.
const LABEL: &str = "ci-insights";

fn service(server: &ServerConfig) -> Result<Arc<crate::kit::ToolServer>, ServeError> {
    tool_server(server)
        .map(Arc::new)
        .map_err(|why| ServeError::Unusable(why.to_string()))
}

/// A bound (not yet serving) ci-insights HTTP server.
pub struct HttpServer(KitHttpServer);

impl HttpServer {
    /// Bind `addr` (port 0 picks a free port). Refuses non-loopback addresses unless
    /// `options.allow_remote` is set, and a configuration the kit cannot register.
    pub async fn bind(
        addr: SocketAddr,
        server: ServerConfig,
        options: HttpOptions,
    ) -> Result<Self, ServeError> {
        KitHttpServer::bind(addr, service(&server)?, options, LABEL)
            .await
            .map(HttpServer)
    }

    /// The bound address (with the real port when 0 was asked for).
    pub fn local_addr(&self) -> SocketAddr {
        self.0.local_addr()
    }

    /// The endpoint URL, e.g. `http://127.0.0.1:41234/mcp`.
    pub fn endpoint_url(&self) -> String {
        self.0.endpoint_url()
    }

    /// Serve until `shutdown` completes, then finish in-flight requests and return.
    pub async fn serve_until<F>(self, shutdown: F) -> Result<(), ServeError>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        self.0.serve_until(shutdown).await
    }
}

/// Bind `addr`, report the endpoint URL through `on_bound`, then serve until Ctrl-C or
/// SIGTERM.
pub async fn serve_http(
    addr: SocketAddr,
    server: ServerConfig,
    options: HttpOptions,
    on_bound: impl FnOnce(&str),
) -> Result<(), ServeError> {
    crate::kit::http::serve_http(addr, service(&server)?, options, LABEL, on_bound).await
}
