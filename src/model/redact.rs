//! The one place that decides how a secret is shown: redacted, never in full.
//!
//! Every output (table, JSON, SARIF, GitHub annotations, the markdown review, error messages)
//! and the lockfile call into this module. Secret *recognition* (known token shapes,
//! credential-named fields, variable references) lives in [`super::secrets`]; this module turns
//! what it recognises into the text that may be shown or stored.
//!
//! Two URL forms exist today and are kept apart on purpose, because one of them is hashed into
//! committed lockfiles: [`url_for_lock`] (user info dropped, `REDACTED` values) and
//! [`url_for_report`] (user info and values shown as `***`). Unifying them changes lockfile
//! bytes and is a deliberate format change, not a refactor.

use super::secrets::{self, find_secrets, is_literal_secret_for, query_credentials};
use super::spec::{ServerSpec, Transport};

/// The redacted form of one secret: at most a 4-character marker, `…`, and the last 4.
pub fn redact(secret: &str, marker: &str) -> String {
    let chars: Vec<char> = secret.chars().collect();
    if chars.len() < 16 {
        return format!("…[{} chars]", chars.len());
    }
    let marker: String = marker.chars().take(4).collect();
    let marker = if secret.starts_with(&marker) {
        marker
    } else {
        String::new()
    };
    let tail: String = chars[chars.len() - 4..].iter().collect();
    format!("{marker}…{tail}")
}

/// Redact an unknown-format secret whole, keeping a `Bearer `/`Basic ` scheme word.
pub fn redact_generic(value: &str) -> String {
    for scheme in ["Bearer ", "bearer ", "Basic ", "basic ", "token ", "Token "] {
        if let Some(rest) = value.strip_prefix(scheme) {
            return format!("{scheme}{}", redact(rest, ""));
        }
    }
    redact(value, "")
}

/// `value` with the credential query parameters of any URL in it redacted.
pub fn redact_query(value: &str) -> String {
    let mut out = value.to_string();
    for (_, v) in query_credentials(value) {
        out = out.replace(&v, &redact(&v, ""));
    }
    out
}

/// `text` with every known-format secret redacted.
pub fn redact_secrets(text: &str) -> String {
    let matches = find_secrets(text);
    if matches.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for m in matches {
        out.push_str(text.get(last..m.start).unwrap_or_default());
        let secret = text.get(m.start..m.end).unwrap_or_default();
        if m.kind.id == "private-key" {
            out.push_str("-----BEGIN … PRIVATE KEY-----");
        } else {
            out.push_str(&redact(secret, m.kind.marker));
        }
        last = m.end;
    }
    out.push_str(text.get(last..).unwrap_or_default());
    out
}

/// A field value that is safe to show: known-format secrets redacted; the whole value
/// redacted when `name` says it is a credential and the value is a literal one; credential
/// query parameters of URLs redacted.
pub fn redact_field(name: Option<&str>, value: &str) -> String {
    if !secrets::find_secrets(value).is_empty() {
        return redact_secrets(value);
    }
    if name.is_some_and(|n| is_literal_secret_for(n, value)) {
        return redact_generic(value);
    }
    redact_query(value)
}

/// How argument `i` names its value: `--token=V`, `--token V`, or `KEY=V` (as in docker
/// `-e KEY=V` or `env KEY=V`). Returns (name, text before the value, value).
pub fn arg_field(args: &[String], i: usize) -> (Option<String>, String, String) {
    let a = args.get(i).cloned().unwrap_or_default();
    if let Some((k, v)) = a.split_once('=') {
        let is_key = k.starts_with('-')
            || (!k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
        if is_key && !k.contains("://") {
            return (Some(k.to_string()), format!("{k}="), v.to_string());
        }
    }
    if i > 0 && args[i - 1].starts_with('-') && !args[i - 1].contains('=') {
        return (Some(args[i - 1].clone()), String::new(), a);
    }
    (None, String::new(), a)
}

/// Each argument with any secret it carries redacted (`--token V`, `--token=V`, `KEY=V`,
/// known token formats, credential query parameters).
pub fn redacted_args(args: &[String]) -> Vec<String> {
    (0..args.len())
        .map(|i| {
            let (name, prefix, value) = arg_field(args, i);
            format!("{prefix}{}", redact_field(name.as_deref(), &value))
        })
        .collect()
}

/// The command line as one redacted string, for evidence.
pub fn argv_evidence(spec: &ServerSpec) -> String {
    match &spec.transport {
        Transport::Stdio { command, args, .. } => {
            let mut s = redact_field(None, command);
            for shown in redacted_args(args) {
                s.push(' ');
                if shown.is_empty() || shown.contains(char::is_whitespace) {
                    s.push_str(&format!("{shown:?}"));
                } else {
                    s.push_str(&shown);
                }
            }
            s
        }
        Transport::Http { url, .. } => redact_field(None, url),
    }
}

const SECRET_QUERY_WORDS: [&str; 8] = [
    "key",
    "token",
    "secret",
    "password",
    "passwd",
    "auth",
    "sig",
    "credential",
];

/// Remove user-info and redact secret-looking query values, so a lock never records secrets.
/// This form is hashed into committed lockfiles.
///
/// Split by hand on purpose, not with the `url` crate: that crate normalises (lower-cases the
/// host, drops a default port, adds a `/` path, percent-encodes spaces, refuses a URL without
/// a scheme), so every such URL would hash differently and every lock holding one would drift.
pub fn url_for_lock(url: &str) -> String {
    let (scheme, rest) = match url.split_once("://") {
        Some((s, r)) => (format!("{s}://"), r),
        None => (String::new(), url),
    };
    let (authority, tail) = match rest.find(['/', '?', '#']) {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let authority = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let (path, query_and_fragment) = match tail.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (tail, None),
    };
    let mut out = format!("{scheme}{authority}{path}");
    if let Some(qf) = query_and_fragment {
        let (query, fragment) = match qf.split_once('#') {
            Some((q, f)) => (q, Some(f)),
            None => (qf, None),
        };
        let parts: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((k, _)) if is_secret_name(k) => format!("{k}=REDACTED"),
                _ => pair.to_owned(),
            })
            .collect();
        out.push('?');
        out.push_str(&parts.join("&"));
        if let Some(f) = fragment {
            out.push('#');
            out.push_str(f);
        }
    }
    out
}

fn is_secret_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    SECRET_QUERY_WORDS.iter().any(|w| lower.contains(w))
}

/// A URL fit to show: user info and the values of secret-looking query parameters
/// (`token`, `key`, `secret`, `password`, `auth`, `sig`) are replaced by `***`.
pub fn url_for_report(url: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (url, None),
    };
    let mut out = match base.split_once("://") {
        Some((scheme, rest)) => {
            let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
            match host.rsplit_once('@') {
                Some((_, h)) => format!("{scheme}://***@{h}{path}"),
                None => base.to_owned(),
            }
        }
        None => base.to_owned(),
    };
    if let Some(q) = query {
        let parts: Vec<String> = q
            .split('&')
            .map(|kv| match kv.split_once('=') {
                Some((k, _))
                    if ["token", "key", "secret", "password", "auth", "sig"]
                        .iter()
                        .any(|w| k.to_ascii_lowercase().contains(w)) =>
                {
                    format!("{k}=***")
                }
                _ => kv.to_owned(),
            })
            .collect();
        out.push('?');
        out.push_str(&parts.join("&"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_forms_keep_the_bytes_they_were_given() {
        // What a normalising URL parser would change stays as written: the lock form is hashed.
        for (url, lock) in [
            ("https://acme.example.test", "https://acme.example.test"),
            (
                "HTTPS://API.Example.test:443/mcp",
                "HTTPS://API.Example.test:443/mcp",
            ),
            ("http://[::1]:8443", "http://[::1]:8443"),
            ("https://example.test/a b", "https://example.test/a b"),
            (
                "mcp.example.test/mcp?token=t",
                "mcp.example.test/mcp?token=REDACTED",
            ),
            (
                "https://user:pw@example.test/mcp?api_key=abc&v=2#x",
                "https://example.test/mcp?api_key=REDACTED&v=2#x",
            ),
        ] {
            assert_eq!(url_for_lock(url), lock, "{url}");
        }
        assert_eq!(
            url_for_report("https://u:p@Mcp.Example.com?Api_Key=abc&team=x"),
            "https://***@Mcp.Example.com?Api_Key=***&team=x"
        );
        assert_eq!(
            url_for_report("http://localhost:3000"),
            "http://localhost:3000"
        );
    }
}
