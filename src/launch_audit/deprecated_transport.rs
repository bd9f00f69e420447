//! `deprecated-transport`: a remote server configured for the HTTP+SSE transport of protocol
//! revision 2024-11-05 (`"type": "sse"`, or Gemini CLI's `url` without `httpUrl`), which
//! Streamable HTTP replaced in 2025-03-26.

use super::{finding, meta as m};
use crate::model::finding::{Confidence, Control, Finding, RuleMeta, Severity};
use crate::model::rule_id;
use crate::model::spec::ServerSpec;

pub fn meta() -> RuleMeta {
    m(
        rule_id::DEPRECATED_TRANSPORT,
        "A remote server is configured for the deprecated HTTP+SSE transport (2024-11-05) instead of Streamable HTTP.",
        "The HTTP+SSE transport was replaced by Streamable HTTP in protocol revision 2025-03-26: it keeps a long-lived event stream open, has no protocol-version header or resumable streams, and servers and hosts are dropping it. A server that still speaks only this transport is likely unmaintained; one that speaks both should be configured for Streamable HTTP.",
        r#"{"mcpServers": {"x": {"type": "sse", "url": "https://mcp.example.com/sse"}}}"#,
        Severity::Low,
        Confidence::High,
        Control::StreamableHttp,
    )
}

pub fn check(spec: &ServerSpec) -> Vec<Finding> {
    let meta = meta();
    let Some(pointer) = spec.sse_declared_at() else {
        return Vec::new();
    };
    let how = if pointer == "/url" {
        "Gemini CLI's `url` (not `httpUrl`)"
    } else {
        "`type: sse`"
    };
    vec![finding(
        spec,
        &meta,
        meta.default_severity,
        meta.default_confidence,
        pointer,
        format!(
            "{how} selects the deprecated HTTP+SSE transport of 2024-11-05; configure the server's Streamable HTTP endpoint if it has one, or ask its maintainers for one"
        ),
        None,
    )]
}

#[cfg(test)]
mod tests {
    use super::super::testutil::http;
    use super::*;
    use crate::model::host::{Host, HostFormat};

    #[test]
    fn type_sse_is_reported_at_its_key_and_streamable_http_is_not() {
        let mut spec = http("https://mcp.example.test/sse", &[]);
        assert!(check(&spec).is_empty());
        spec.settings.insert("type".into(), "sse".into());
        let f = check(&spec);
        assert_eq!((f.len(), f[0].severity), (1, Severity::Low));
        assert!(f[0].message.contains("HTTP+SSE"), "{}", f[0].message);
        spec.settings.insert("type".into(), "http".into());
        assert!(check(&spec).is_empty());
    }

    #[test]
    fn gemini_url_without_http_url_is_sse() {
        let mut spec = http("https://mcp.example.test/sse", &[]);
        spec.host = Host::Format(HostFormat::Gemini);
        assert_eq!(spec.sse_declared_at(), Some("/url"));
        let at = crate::model::spec::Origin {
            file: "/r/.gemini/settings.json".into(),
            line: 3,
            column: 5,
        };
        spec.locations.insert("/httpUrl".into(), at);
        assert_eq!(spec.sse_declared_at(), None);
    }
}
