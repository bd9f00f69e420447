//! Accepting HTTP connections without letting idle ones starve real requests.
//!
//! A peer can open thousands of connections and send nothing (or half a header). Each holds a
//! file descriptor; under a low descriptor limit, `accept` then fails and real requests wait.
//! Three bounds keep a kit server (and ci-insights) answering:
//!
//! - at most [`connection_limit`] connections are served at once (256, or half the soft
//!   descriptor limit when that is lower);
//! - a request's headers must arrive within [`HEADER_READ_TIMEOUT`], else the connection is
//!   closed;
//! - when every slot is taken, the oldest connection that has not sent a byte yet is closed to
//!   make room, so a new peer is served at once instead of queueing behind idle sockets.

use std::collections::BTreeMap;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, watch};
use tokio::task::AbortHandle;

/// How long a connection may take to send a request's headers.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(5);
/// The most connections served at once when the descriptor limit allows it.
pub const MAX_CONNECTIONS: usize = 256;
/// How long in-flight requests may take to finish after shutdown is asked for.
const DRAIN: Duration = Duration::from_secs(5);

/// Connections served at once: [`MAX_CONNECTIONS`], or half the soft descriptor limit (at
/// least 8) when that is lower, so accepting never runs out of descriptors.
pub fn connection_limit() -> usize {
    let soft = nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE)
        .map_or(u64::MAX, |(soft, _)| soft);
    usize::try_from(soft / 2)
        .unwrap_or(usize::MAX)
        .clamp(8, MAX_CONNECTIONS)
}

/// A TCP stream that notes when its peer first sent a byte.
struct Watched {
    inner: TcpStream,
    spoke: Arc<AtomicBool>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.spoke.store(true, Ordering::Relaxed);
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, data)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// The connections being served, oldest first: whether each has spoken, and how to close it.
type Open = Arc<Mutex<BTreeMap<u64, (Arc<AtomicBool>, AbortHandle)>>>;

/// Close the oldest connection that has not sent a byte. True when one was closed.
fn evict_idle(open: &Open) -> bool {
    let Ok(mut open) = open.lock() else {
        return false;
    };
    let idle = open
        .iter()
        .find(|(_, (spoke, _))| !spoke.load(Ordering::Relaxed))
        .map(|(id, _)| *id);
    match idle.and_then(|id| open.remove(&id)) {
        Some((_, handle)) => {
            handle.abort();
            true
        }
        None => false,
    }
}

/// Serve `app` on `listener` until `shutdown` completes, then let in-flight requests finish
/// (for at most a few seconds) and return.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let limit = connection_limit();
    let slots = Arc::new(Semaphore::new(limit));
    let open: Open = Arc::new(Mutex::new(BTreeMap::new()));
    let (closing, closing_rx) = watch::channel(false);
    let mut shutdown = std::pin::pin!(shutdown);
    let mut next_id: u64 = 0;
    loop {
        let accepted = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => accepted,
        };
        let Ok((stream, _)) = accepted else {
            // Out of descriptors or a connection reset before it was accepted: make room
            // if an idle connection holds one, then try again shortly.
            evict_idle(&open);
            tokio::time::sleep(Duration::from_millis(20)).await;
            continue;
        };
        let permit = match Arc::clone(&slots).try_acquire_owned() {
            Ok(p) => p,
            Err(_) => {
                evict_idle(&open);
                tokio::select! {
                    () = &mut shutdown => break,
                    p = Arc::clone(&slots).acquire_owned() => match p {
                        Ok(p) => p,
                        Err(_) => break,
                    },
                }
            }
        };
        let spoke = Arc::new(AtomicBool::new(false));
        let io = TokioIo::new(Watched {
            inner: stream,
            spoke: Arc::clone(&spoke),
        });
        let service = TowerToHyperService::new(app.clone());
        let mut closing_rx = closing_rx.clone();
        let id = next_id;
        next_id += 1;
        let forget = Arc::clone(&open);
        // The map is locked until the new connection is in it, so its task cannot try to
        // remove itself first.
        let Ok(mut map) = open.lock() else {
            break;
        };
        let task = tokio::spawn(async move {
            let _permit = permit;
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_READ_TIMEOUT);
            let conn = builder.serve_connection(io, service);
            let mut conn = std::pin::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => {}
                _ = closing_rx.changed() => {
                    conn.as_mut().graceful_shutdown();
                    let _ = conn.as_mut().await;
                }
            }
            if let Ok(mut open) = forget.lock() {
                open.remove(&id);
            }
        });
        map.insert(id, (spoke, task.abort_handle()));
    }
    let _ = closing.send(true);
    // Connections that never spoke are closed at once; the others finish their request.
    while evict_idle(&open) {}
    let all = u32::try_from(limit).unwrap_or(u32::MAX);
    let _ = tokio::time::timeout(DRAIN, slots.acquire_many(all)).await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_stays_below_the_descriptor_limit() {
        let limit = connection_limit();
        assert!((8..=MAX_CONNECTIONS).contains(&limit), "{limit}");
    }
}
