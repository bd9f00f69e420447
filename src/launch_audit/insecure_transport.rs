//! `insecure-transport`: a remote server reached over plain `http://` off loopback (as the
//! spec's URL, or a URL handed to a local bridge such as `mcp-remote`).

use super::{finding, meta as m};
use crate::model::finding::{Confidence, Control, Finding, RuleMeta, Severity};
use crate::model::rule_id;
use crate::model::secrets::credentials;
use crate::model::spec::{ServerSpec, Transport};

pub fn meta() -> RuleMeta {
    m(
        rule_id::INSECURE_TRANSPORT,
        "A remote MCP server is reached over plain http:// on a non-loopback address.",
        "Anyone on the path can read the tokens and tool traffic, and can rewrite the tool definitions the model reads.",
        r#"{"url": "http://mcp.example.com/mcp"}"#,
        Severity::Medium,
        Confidence::High,
        Control::SecureTransport,
    )
}

/// The host of an `http://` URL, if the URL is plain http.
fn http_host(url: &str) -> Option<String> {
    let lower = url.trim().to_ascii_lowercase();
    let rest = lower.strip_prefix("http://")?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let hostport = authority.rsplit('@').next().unwrap_or(authority);
    let host = if let Some(v6) = hostport.strip_prefix('[') {
        v6.split(']').next().unwrap_or_default().to_string()
    } else {
        hostport.split(':').next().unwrap_or_default().to_string()
    };
    Some(host)
}

/// Loopback (and the unspecified address, which connects locally).
pub fn is_loopback(host: &str) -> bool {
    host == "localhost"
        || host.ends_with(".localhost")
        || host == "::1"
        || host == "0.0.0.0"
        || host.starts_with("127.")
        || host.contains('$')
}

pub fn check(spec: &ServerSpec) -> Vec<Finding> {
    let meta = meta();
    let mut out = Vec::new();
    match &spec.transport {
        Transport::Http { url, .. } => {
            if let Some(host) = http_host(url).filter(|h| !is_loopback(h)) {
                let mut creds: Vec<String> = credentials(spec).into_iter().map(|c| c.1).collect();
                let query = url.split_once('?').map_or("", |(_, q)| q);
                creds.extend(
                    query
                        .split('&')
                        .filter_map(|kv| kv.split_once('=').map(|(k, _)| k))
                        .filter(|k| crate::model::secrets::is_credential_name(k))
                        .map(str::to_string),
                );
                let (sev, extra) = if creds.is_empty() {
                    (Severity::Medium, String::new())
                } else {
                    (
                        Severity::High,
                        format!(", and it sends credentials ({})", creds.join(", ")),
                    )
                };
                out.push(finding(
                    spec,
                    &meta,
                    sev,
                    Confidence::High,
                    "/url",
                    format!("the server at `{host}` is reached over plain http{extra}"),
                    Some(crate::model::redact::redact_field(None, url)),
                ));
            }
        }
        Transport::Stdio { args, .. } => {
            for (i, a) in args.iter().enumerate() {
                let v = a
                    .split_once('=')
                    .filter(|(f, _)| f.starts_with('-'))
                    .map_or(a.as_str(), |(_, v)| v);
                if let Some(host) = http_host(v).filter(|h| !h.is_empty() && !is_loopback(h)) {
                    out.push(finding(
                        spec,
                        &meta,
                        Severity::Medium,
                        Confidence::Medium,
                        &format!("/args/{i}"),
                        format!("the launch line connects to `{host}` over plain http"),
                        Some(crate::model::redact::redact_field(None, v)),
                    ));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{http, stdio};
    use super::*;

    #[test]
    fn plain_http_off_loopback() {
        assert_eq!(
            check(&http("http://mcp.example.test/mcp", &[]))[0].severity,
            Severity::Medium
        );
        assert_eq!(
            check(&http(
                "http://mcp.example.test/mcp",
                &[("Authorization", "Bearer ${T}")]
            ))[0]
                .severity,
            Severity::High
        );
        for ok in [
            "https://mcp.example.test/mcp",
            "http://localhost:8080/mcp",
            "http://127.0.0.1:9/x",
            "http://[::1]:8/x",
        ] {
            assert!(check(&http(ok, &[])).is_empty(), "{ok}");
        }
        assert_eq!(
            check(&stdio(
                "npx",
                &["mcp-remote@1.0.0", "http://10.0.0.5/mcp"],
                &[]
            ))
            .len(),
            1
        );
    }
}
