//! Bounds on everything the probe reads from a server: time, bytes, pages and items.
//!
//! Every breach becomes a [`super::ProbeFailure`] naming the server and the limit, so a
//! hostile server can neither hang the reviewer nor make it buffer unbounded data.

use std::time::Duration;

/// Limits applied to one probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Largest single JSON-RPC message (one stdio line, one HTTP body or one SSE event).
    pub max_message_bytes: usize,
    /// Largest total number of bytes read from the server's stdout or HTTP bodies.
    pub max_total_bytes: usize,
    /// Most pages followed for one list method.
    pub max_pages: usize,
    /// Most items (tools + prompts + resources + templates) accepted in total.
    pub max_items: usize,
    /// How much of the server's stderr is kept (the last bytes).
    pub max_stderr_bytes: usize,
    /// Most stdout lines that are not JSON-RPC messages before the server is rejected.
    pub max_garbage_lines: usize,
    /// Most messages (notifications, server requests, stray answers) accepted while
    /// waiting for one answer.
    pub max_messages_per_request: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_message_bytes: 8 * 1024 * 1024,
            max_total_bytes: 64 * 1024 * 1024,
            max_pages: 100,
            max_items: 10_000,
            max_stderr_bytes: 16 * 1024,
            max_garbage_lines: 100,
            max_messages_per_request: 10_000,
        }
    }
}

/// Human-readable byte count for error messages.
pub fn human_bytes(n: usize) -> String {
    if n >= 1024 * 1024 && n % (1024 * 1024) == 0 {
        format!("{} MiB", n / (1024 * 1024))
    } else if n >= 1024 && n % 1024 == 0 {
        format!("{} KiB", n / 1024)
    } else {
        format!("{n} bytes")
    }
}

/// Human-readable duration for error messages.
pub fn human_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms % 1000 == 0 {
        format!("{} s", ms / 1000)
    } else {
        format!("{ms} ms")
    }
}

/// A fixed-capacity byte buffer that keeps only the most recent bytes (captured stderr).
#[derive(Debug, Clone)]
pub struct RingBuffer {
    cap: usize,
    buf: std::collections::VecDeque<u8>,
    dropped: usize,
}

impl RingBuffer {
    pub fn new(cap: usize) -> Self {
        Self {
            cap,
            buf: std::collections::VecDeque::with_capacity(cap.min(64 * 1024)),
            dropped: 0,
        }
    }

    /// Append bytes, discarding the oldest ones beyond the capacity.
    pub fn push(&mut self, bytes: &[u8]) {
        if self.cap == 0 {
            self.dropped += bytes.len();
            return;
        }
        let bytes = if bytes.len() > self.cap {
            self.dropped += bytes.len() - self.cap;
            &bytes[bytes.len() - self.cap..]
        } else {
            bytes
        };
        let overflow = (self.buf.len() + bytes.len()).saturating_sub(self.cap);
        if overflow > 0 {
            self.buf.drain(..overflow);
            self.dropped += overflow;
        }
        self.buf.extend(bytes);
    }

    /// The kept bytes, lossily decoded, with a marker when older output was dropped.
    pub fn to_string_lossy(&self) -> String {
        let (a, b) = self.buf.as_slices();
        let mut v = Vec::with_capacity(a.len() + b.len());
        v.extend_from_slice(a);
        v.extend_from_slice(b);
        let text = String::from_utf8_lossy(&v).into_owned();
        if self.dropped > 0 {
            format!("[… {} earlier bytes dropped …]\n{text}", self.dropped)
        } else {
            text
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_buffer_keeps_the_tail() {
        let mut r = RingBuffer::new(4);
        r.push(b"ab");
        r.push(b"cdef");
        assert_eq!(r.to_string_lossy(), "[… 2 earlier bytes dropped …]\ncdef");
        r.push(b"0123456789");
        assert!(r.to_string_lossy().ends_with("6789"));
        let mut r = RingBuffer::new(10);
        r.push(b"xy");
        assert_eq!(r.to_string_lossy(), "xy");
    }

    #[test]
    fn human_units() {
        assert_eq!(human_bytes(8 * 1024 * 1024), "8 MiB");
        assert_eq!(human_bytes(2048), "2 KiB");
        assert_eq!(human_bytes(100), "100 bytes");
        assert_eq!(human_duration(Duration::from_secs(3)), "3 s");
        assert_eq!(human_duration(Duration::from_millis(1500)), "1500 ms");
    }
}
