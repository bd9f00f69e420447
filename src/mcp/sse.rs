//! An incremental Server-Sent Events parser for Streamable HTTP answers: `data:` lines
//! joined with newlines, `:` comments (keep-alives) skipped, events with empty data
//! (priming events) dropped, `\n`, `\r\n` and `\r` line endings, and a cap on the size of
//! one event so a never-ending event cannot grow without bound.

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field (`message` when absent).
    pub event: String,
    /// The joined `data:` lines.
    pub data: String,
}

/// An event (or a single line) grew beyond the cap.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a server-sent event is longer than the cap of {cap} bytes")]
pub struct SseTooLarge {
    pub cap: usize,
}

/// Parser state between chunks.
#[derive(Debug)]
pub struct SseParser {
    cap: usize,
    line: Vec<u8>,
    data: Vec<u8>,
    has_data: bool,
    event: String,
    after_cr: bool,
}

impl SseParser {
    pub fn new(cap: usize) -> Self {
        Self {
            cap,
            line: Vec::new(),
            data: Vec::new(),
            has_data: false,
            event: String::new(),
            after_cr: false,
        }
    }

    /// Feed a chunk; returns the events it completed.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<Vec<SseEvent>, SseTooLarge> {
        let mut out = Vec::new();
        for &b in chunk {
            if self.after_cr {
                self.after_cr = false;
                if b == b'\n' {
                    continue;
                }
            }
            match b {
                b'\n' => self.end_line(&mut out),
                b'\r' => {
                    self.after_cr = true;
                    self.end_line(&mut out);
                }
                _ => {
                    if self.line.len() + self.data.len() >= self.cap {
                        return Err(SseTooLarge { cap: self.cap });
                    }
                    self.line.push(b);
                }
            }
        }
        Ok(out)
    }

    /// The stream ended: dispatch a pending event, if any.
    pub fn finish(&mut self) -> Option<SseEvent> {
        let mut out = Vec::new();
        if !self.line.is_empty() {
            self.end_line(&mut out);
        }
        self.end_line(&mut out);
        out.pop()
    }

    fn end_line(&mut self, out: &mut Vec<SseEvent>) {
        let line = std::mem::take(&mut self.line);
        if line.is_empty() {
            // Blank line: dispatch.
            if self.has_data && !self.data.is_empty() {
                let event = if self.event.is_empty() {
                    "message".to_owned()
                } else {
                    std::mem::take(&mut self.event)
                };
                out.push(SseEvent {
                    event,
                    data: String::from_utf8_lossy(&self.data).into_owned(),
                });
            }
            self.data.clear();
            self.has_data = false;
            self.event.clear();
            return;
        }
        if line[0] == b':' {
            return;
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(i) => {
                let v = &line[i + 1..];
                (&line[..i], v.strip_prefix(b" ").unwrap_or(v))
            }
            None => (&line[..], &[][..]),
        };
        match field {
            b"data" => {
                if self.has_data {
                    self.data.push(b'\n');
                }
                self.data.extend_from_slice(value);
                self.has_data = true;
            }
            b"event" => self.event = String::from_utf8_lossy(value).into_owned(),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn priming_comments_and_multiline_data() {
        let mut p = SseParser::new(1024);
        let stream =
            b"id: 1\ndata:\n\n: keep-alive\n\nevent: message\ndata: {\"a\":\r\ndata: 1}\r\n\r\n";
        let mut events = Vec::new();
        // Feed byte by byte to exercise chunk boundaries (including a split \r\n).
        for b in stream.iter() {
            events.extend(p.feed(std::slice::from_ref(b)).unwrap());
        }
        assert_eq!(
            events,
            vec![SseEvent {
                event: "message".into(),
                data: "{\"a\":\n1}".into()
            }]
        );
    }

    #[test]
    fn finish_dispatches_an_unterminated_event() {
        let mut p = SseParser::new(1024);
        assert!(p.feed(b"data: x").unwrap().is_empty());
        assert_eq!(p.finish().map(|e| e.data), Some("x".into()));
    }

    #[test]
    fn caps_event_size() {
        let mut p = SseParser::new(8);
        assert_eq!(p.feed(b"data: 0123456789"), Err(SseTooLarge { cap: 8 }));
        let mut p = SseParser::new(10);
        assert!(p.feed(b"data:12345\n").is_ok());
        assert!(p.feed(b"data:12345\n").is_err());
    }
}
