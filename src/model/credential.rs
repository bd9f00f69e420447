//! Names that carry credentials: environment variables, headers and flags whose name says
//! "secret" (`GITHUB_TOKEN`, `X-Api-Key`, `--password`), how surely, and which of a spec's
//! entries hand the server one. Recognising secret *values* is [`super::secrets`].

use super::secrets::{find_secrets, has_reference, is_literal_credential, looks_like_secret};
use super::spec::{ServerSpec, Transport};
use super::words::split_words;

/// Is this literal value a credential, given what its field name says?
pub fn is_literal_secret_for(name: &str, value: &str) -> bool {
    if has_reference(value) {
        return false;
    }
    match credential_name(name) {
        Some(CredentialName::Strong) => is_literal_credential(value),
        Some(CredentialName::Weak) => looks_like_secret(value),
        None => false,
    }
}

/// How surely a variable or header name says it holds a credential.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum CredentialName {
    /// `KEY` or `AUTH` alone: a credential only if the value looks random.
    Weak,
    /// `TOKEN`, `SECRET`, `PASSWORD`, `API_KEY`, `Authorization`, …: any literal value is one.
    Strong,
}

/// Whether (and how surely) a name says it carries a credential. Names that describe
/// something about a credential (`TOKEN_URL`, `CLIENT_ID`, `MAX_TOKENS`, `SECRET_NAME`) do not.
pub fn credential_name(name: &str) -> Option<CredentialName> {
    const STRONG: &[&str] = &[
        "TOKEN",
        "SECRET",
        "SECRETS",
        "PASSWORD",
        "PASSWD",
        "PWD",
        "PASS",
        "PASSPHRASE",
        "APIKEY",
        "CREDENTIAL",
        "CREDENTIALS",
        "AUTHORIZATION",
        "PAT",
        "COOKIE",
        "BEARER",
    ];
    const KEY_KINDS: &[&str] = &[
        "API",
        "ACCESS",
        "PRIVATE",
        "SECRET",
        "AUTH",
        "MASTER",
        "ENCRYPTION",
        "SIGNING",
        "LICENSE",
        "SERVICE",
        "SUBSCRIPTION",
        "APP",
        "CLIENT",
        "X",
    ];
    const NOT_THE_SECRET: &[&str] = &[
        "ID", "IDS", "URL", "URI", "ENDPOINT", "FILE", "PATH", "DIR", "NAME", "TYPE", "SCOPE",
        "SCOPES", "LIMIT", "MODE", "PROVIDER", "AUDIENCE", "HEADER", "EXPIRY", "EXPIRES", "TTL",
        "LENGTH", "COUNT", "MAX", "MIN", "SIZE", "ENV", "VAR", "REGION", "HOST", "PORT", "USER",
        "USERNAME", "EMAIL", "ENABLED", "DISABLED", "TOKENS", "METHOD", "ISSUER", "PREFIX",
    ];
    let words = split_words(name);
    let last = words.last()?;
    if NOT_THE_SECRET.contains(&last.as_str()) {
        return None;
    }
    if words.iter().any(|w| STRONG.contains(&w.as_str())) {
        return Some(CredentialName::Strong);
    }
    for (i, w) in words.iter().enumerate() {
        if w == "KEY" || w == "KEYS" {
            let strong = i > 0 && KEY_KINDS.contains(&words[i - 1].as_str());
            return Some(if strong {
                CredentialName::Strong
            } else {
                CredentialName::Weak
            });
        }
    }
    words
        .iter()
        .any(|w| w == "AUTH")
        .then_some(CredentialName::Weak)
}

/// Is an environment variable or header name one that carries a credential?
pub fn is_credential_name(name: &str) -> bool {
    credential_name(name).is_some()
}

/// Every credential a spec hands the server: (JSON Pointer, name, value) for env entries and
/// headers whose name says they carry a credential, plus any value holding a known secret.
pub fn credentials(spec: &ServerSpec) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let (map, kind) = match &spec.transport {
        Transport::Stdio { env, .. } => (env, "env"),
        Transport::Http { headers, .. } => (headers, "headers"),
    };
    for (k, v) in map {
        if is_credential_name(k) || !find_secrets(v).is_empty() {
            out.push((
                format!("/{kind}/{}", super::pointer::token(k)),
                k.clone(),
                v.clone(),
            ));
        }
    }
    out
}

/// The variable a config value references (`${VAR}`, `${env:VAR}`, `$VAR`), if it is one.
pub fn env_reference(v: &str) -> Option<&str> {
    let v = v.trim();
    if let Some(inner) = v.strip_prefix("${").and_then(|r| r.strip_suffix('}')) {
        let inner = inner.strip_prefix("env:").unwrap_or(inner);
        let ok = !inner.is_empty()
            && inner
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':' || c == '.');
        return ok.then_some(inner);
    }
    let inner = v.strip_prefix('$')?;
    (!inner.is_empty() && inner.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .then_some(inner)
}
