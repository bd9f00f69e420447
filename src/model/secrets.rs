//! Secret detection and redaction shared by the launch rules (and usable by any renderer).
//!
//! Patterns cover the well-known token formats (GitHub, GitLab, Slack, AWS, OpenAI, Anthropic,
//! Stripe, Google, npm, Hugging Face, JWTs, private keys, URLs with passwords). Variable
//! references (`${VAR}`, `${env:VAR}`, `${input:id}`, `${{ secrets.X }}`, `$VAR`, `%VAR%`)
//! are never secrets. Redaction keeps at most a 4-character prefix marker and the last 4.

use std::sync::{LazyLock, OnceLock};

use regex::Regex;

pub use super::credential::{
    CredentialName, credential_name, credentials, env_reference, is_credential_name,
    is_literal_secret_for,
};

/// One known secret format.
#[derive(Debug)]
pub struct SecretKind {
    /// Short id, e.g. `github-classic-pat`.
    pub id: &'static str,
    /// Human name, e.g. `GitHub classic personal access token`.
    pub name: &'static str,
    /// The non-secret marker at the start that may be shown (at most 4 characters are shown).
    pub marker: &'static str,
    /// Why the token is broader than a server should get, when its format says so.
    pub broad: Option<&'static str>,
    regex: &'static str,
}

/// The known formats, most specific first (an earlier kind wins an overlap). When a pattern
/// has a capture group, only the group is the secret (the password of a URL, the value after
/// `AccountKey=` or `Bearer `). A format whose prefix no word starts with by chance may also
/// follow an `_`: a token glued into an identifier (`run_xoxb-…`, a tool or property name) is
/// still a token.
const KINDS: &[SecretKind] = &[
    SecretKind {
        id: "private-key",
        name: "private key",
        marker: "",
        broad: None,
        regex: r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|(?:[A-Za-z0-9+/=\s:,.\-]|\\[nr])*)",
    },
    SecretKind {
        id: "github-fine-grained-pat",
        name: "GitHub fine-grained personal access token",
        marker: "gith",
        broad: None,
        regex: r"(?:\b|_)(github_pat_[A-Za-z0-9_]{60,})",
    },
    SecretKind {
        id: "github-classic-pat",
        name: "GitHub classic personal access token",
        marker: "ghp_",
        broad: Some(
            "a classic GitHub personal access token carries account-wide scopes over every repository and organisation the user can reach",
        ),
        regex: r"(?:\b|_)(ghp_[A-Za-z0-9]{36,})",
    },
    SecretKind {
        id: "github-token",
        name: "GitHub OAuth/app token",
        marker: "gh",
        broad: None,
        regex: r"(?:\b|_)(gh[ousr]_[A-Za-z0-9]{36,})",
    },
    SecretKind {
        id: "gitlab-pat",
        name: "GitLab token",
        marker: "gl",
        broad: None,
        regex: r"(?:\b|_)(gl(?:pat|dt|rt|ptt|cbt|oas|ft|imt|soat|agent)-[A-Za-z0-9_\-]{20,})",
    },
    SecretKind {
        id: "slack-user-token",
        name: "Slack user token",
        marker: "xoxp",
        broad: Some(
            "a Slack user token acts as the user in every channel and workspace they can reach",
        ),
        regex: r"(?:\b|_)(xoxp-[A-Za-z0-9-]{10,})",
    },
    SecretKind {
        id: "slack-token",
        name: "Slack token",
        marker: "xox",
        broad: None,
        regex: r"(?:\b|_)((?:xox[abosre]|xapp)-[A-Za-z0-9-]{10,})",
    },
    SecretKind {
        id: "slack-webhook",
        name: "Slack incoming webhook",
        marker: "",
        broad: None,
        regex: r"https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]+",
    },
    SecretKind {
        id: "aws-access-key",
        name: "AWS access key id",
        marker: "AKIA",
        broad: None,
        regex: r"(?:\b|_)((?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|A3T[A-Z0-9])[A-Z0-9]{16}\b)",
    },
    SecretKind {
        id: "anthropic-admin-key",
        name: "Anthropic admin API key",
        marker: "sk-a",
        broad: Some(
            "an Anthropic admin key manages the whole organisation (members, keys, workspaces)",
        ),
        regex: r"(?:\b|_)(sk-ant-admin01-[A-Za-z0-9_\-]{20,})",
    },
    SecretKind {
        id: "anthropic-api-key",
        name: "Anthropic API key",
        marker: "sk-a",
        broad: None,
        regex: r"(?:\b|_)(sk-ant-(?:api03|oat01)-[A-Za-z0-9_\-]{20,})",
    },
    SecretKind {
        id: "openai-admin-key",
        name: "OpenAI admin API key",
        marker: "sk-a",
        broad: Some("an OpenAI admin key manages the whole organisation"),
        regex: r"(?:\b|_)(sk-admin-[A-Za-z0-9_\-]{20,})",
    },
    SecretKind {
        id: "openai-api-key",
        name: "OpenAI API key",
        marker: "sk-",
        broad: None,
        regex: r"\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_\-]{32,}",
    },
    SecretKind {
        id: "stripe-secret-key",
        name: "Stripe secret key",
        marker: "sk_",
        broad: Some(
            "a Stripe secret key has full API access; use a restricted key (rk_) scoped to what the server needs",
        ),
        regex: r"(?:\b|_)(sk_live_[A-Za-z0-9]{20,})",
    },
    SecretKind {
        id: "stripe-key",
        name: "Stripe key",
        marker: "rk_",
        broad: None,
        regex: r"(?:\b|_)((?:rk_live|sk_test|rk_test|whsec)_[A-Za-z0-9]{20,})",
    },
    SecretKind {
        id: "google-api-key",
        name: "Google API key",
        marker: "AIza",
        broad: None,
        regex: r"(?:\b|_)(AIza[0-9A-Za-z_\-]{35})",
    },
    SecretKind {
        id: "npm-token",
        name: "npm access token",
        marker: "npm_",
        broad: None,
        regex: r"(?:\b|_)(npm_[A-Za-z0-9]{36,})",
    },
    SecretKind {
        id: "pypi-token",
        name: "PyPI upload token",
        marker: "pypi",
        broad: None,
        regex: r"(?:\b|_)(pypi-AgE[A-Za-z0-9_\-]{50,})",
    },
    SecretKind {
        id: "twilio-api-key",
        name: "Twilio API key",
        marker: "SK",
        broad: None,
        regex: r"\bSK[0-9a-fA-F]{32}\b",
    },
    SecretKind {
        id: "sendgrid-api-key",
        name: "SendGrid API key",
        marker: "SG.",
        broad: None,
        regex: r"(?:\b|_)(SG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,})",
    },
    SecretKind {
        id: "huggingface-token",
        name: "Hugging Face token",
        marker: "hf_",
        broad: None,
        regex: r"(?:\b|_)((?:hf_|api_org_)[A-Za-z0-9]{30,})",
    },
    SecretKind {
        id: "digitalocean-token",
        name: "DigitalOcean token",
        marker: "do",
        broad: None,
        regex: r"(?:\b|_)(do[por]_v1_[a-f0-9]{64}\b)",
    },
    SecretKind {
        id: "azure-storage-key",
        name: "Azure storage account key",
        marker: "",
        broad: None,
        regex: r"AccountKey=([A-Za-z0-9+/]{40,}={0,2})",
    },
    SecretKind {
        id: "jwt",
        name: "JSON Web Token",
        marker: "eyJ",
        broad: None,
        regex: r"(?:\b|_)(eyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,})",
    },
    SecretKind {
        id: "bearer-token",
        name: "bearer token",
        marker: "",
        broad: None,
        regex: r"\b[Bb]earer\s+([A-Za-z0-9\-._~+/]{16,}=*)",
    },
    SecretKind {
        id: "url-password",
        name: "password in a URL",
        marker: "",
        broad: None,
        regex: r#"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^/\s:@"'\\<>]+:([^/\s@"'\\<>]+)@[^\s/"'\\<>]+"#,
    },
];

/// Each kind's own regex, compiled on first use: only a kind the set ([`ANY`]) says may match
/// is ever compiled, so a run that meets no secret of a format never pays for its regex (a
/// Unicode-mode regex each, the costliest part of a short live scan's set-up).
static COMPILED: LazyLock<Vec<OnceLock<Option<Regex>>>> =
    LazyLock::new(|| KINDS.iter().map(|_| OnceLock::new()).collect());

/// The regex of kind `i` of [`KINDS`] (compiled now if it is not yet).
fn compiled(i: usize) -> Option<&'static Regex> {
    let kind = KINDS.get(i)?;
    COMPILED
        .get(i)?
        .get_or_init(|| Regex::new(kind.regex).ok())
        .as_ref()
}

/// All kinds in one automaton: which of them may match, in one pass over the text. A
/// prefilter: each kind's own regex still decides. Its word boundaries are ASCII ones
/// ([`ascii_boundaries`]), so the set runs on the fast lazy DFA for any text rather than
/// falling back to the slowest engine on the first non-ASCII letter.
static ANY: LazyLock<Option<regex::RegexSet>> =
    LazyLock::new(|| regex::RegexSet::new(KINDS.iter().map(|k| ascii_boundaries(k.regex))).ok());

/// `pattern` with every `\b` made an ASCII word boundary. Every `\b` of [`KINDS`] stands next
/// to an ASCII word character of the pattern, and there a Unicode boundary is always an ASCII
/// one too (an ASCII word character is a Unicode one): the rewritten pattern matches wherever
/// the original does, and perhaps more, which is what a prefilter may do.
fn ascii_boundaries(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('b') => out.push_str("(?-u:\\b)"),
            Some(next) => {
                out.push(c);
                out.push(next);
            }
            None => out.push(c),
        }
    }
    out
}

static REFERENCE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"\$\{\{[^}]*\}\}|\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|%[A-Za-z_][A-Za-z0-9_]*%|\{\{[^}]*\}\}",
    )
    .ok()
});

/// A secret found in a string: its kind and byte range.
#[derive(Debug, Clone, Copy)]
pub struct SecretMatch {
    pub kind: &'static SecretKind,
    pub start: usize,
    pub end: usize,
}

/// Whether `value` contains a variable reference.
pub fn has_reference(value: &str) -> bool {
    // Every form of reference holds `$`, `%` or `{`: text without them needs no regex.
    value.contains(['$', '%', '{']) && REFERENCE.as_ref().is_some_and(|r| r.is_match(value))
}

/// The variable names referenced in `value` (`TOKEN` for `${TOKEN}`, `${env:TOKEN}`, `$TOKEN`,
/// `%TOKEN%`; `id` for `${input:id}`; `X` for `${{ secrets.X }}`).
pub fn referenced_names(value: &str) -> Vec<String> {
    let Some(re) = REFERENCE.as_ref() else {
        return Vec::new();
    };
    re.find_iter(value)
        .map(|m| {
            let inner = m
                .as_str()
                .trim_start_matches(['$', '%', '{'])
                .trim_end_matches(['}', '%'])
                .trim();
            let inner = inner.rsplit([':', '.']).next().unwrap_or(inner);
            inner.trim().to_string()
        })
        .filter(|s| !s.is_empty())
        .collect()
}

/// `value` with its variable references removed (what is left is literal text).
pub fn without_references(value: &str) -> String {
    match REFERENCE.as_ref() {
        Some(r) => r.replace_all(value, "").into_owned(),
        None => value.to_string(),
    }
}

/// Every known-format secret in `text`, in order, without overlaps.
pub fn find_secrets(text: &str) -> Vec<SecretMatch> {
    let mut found: Vec<SecretMatch> = Vec::new();
    let candidates = ANY.as_ref().map(|set| set.matches(text));
    for (i, kind) in KINDS.iter().enumerate() {
        if candidates.as_ref().is_some_and(|c| !c.matched(i)) {
            continue;
        }
        let Some(re) = compiled(i) else { continue };
        for caps in re.captures_iter(text) {
            // With a capture group only the group is the secret (a URL's password).
            let Some(m) = caps.get(1).or_else(|| caps.get(0)) else {
                continue;
            };
            let (start, end) = (m.start(), m.end());
            let secret = m.as_str();
            if secret.is_empty()
                || (kind.id != "private-key" && (has_reference(secret) || is_placeholder(secret)))
                || found.iter().any(|f| start < f.end && f.start < end)
            {
                continue;
            }
            found.push(SecretMatch { kind, start, end });
        }
    }
    found.sort_by_key(|m| m.start);
    found
}

/// Placeholder text people leave in example configs (`<YOUR_TOKEN>`, `your-api-key`, `xxxx`…).
pub fn is_placeholder(value: &str) -> bool {
    let v = value.trim().to_ascii_lowercase();
    v.is_empty()
        || v.starts_with('<')
        || mostly_masked(&v)
        || v.contains("...")
        || v.contains('…')
        || v.chars().all(|c| c == v.chars().next().unwrap_or(c))
        // The vendors' documentation keys (`AKIAIOSFODNN7EXAMPLE`, `…/bPxRfiCYEXAMPLEKEY`).
        || v.ends_with("example")
        || v.ends_with("examplekey")
        || v.split(|c: char| !c.is_ascii_alphanumeric())
            .any(placeholder_word)
}

/// One word of a value (split at every non-alphanumeric) that marks it a placeholder:
/// `your_token_here`, `REPLACE-ME`, `sk-example`, `changeme`, `yourapikey`. Letters only, so a
/// random token that happens to contain `your` or `todo` among digits is still a secret.
fn placeholder_word(word: &str) -> bool {
    const WORDS: [&str; 8] = [
        "your",
        "replace",
        "example",
        "placeholder",
        "changeme",
        "change",
        "todo",
        "insert",
    ];
    !word.is_empty()
        && word.chars().all(|c| c.is_ascii_alphabetic())
        && WORDS.iter().any(|w| {
            word == *w
                || (word.starts_with(w)
                    && [
                        "me", "here", "key", "token", "secret", "apikey", "api", "password",
                    ]
                    .iter()
                    .any(|tail| word.ends_with(tail)))
        })
}

/// At least half the value is a mask run (`xxxx`, `****`): `sk-xxxxxxxxxxxx` is a placeholder,
/// a random token that happens to contain `XXXX` is not.
fn mostly_masked(v: &str) -> bool {
    let total = v.chars().count();
    let masked = v.chars().filter(|c| matches!(c, 'x' | '*')).count();
    (v.contains("xxxx") || v.contains("****")) && masked * 2 >= total
}

/// The value without a leading auth scheme word (`Bearer `, `Basic `, `token `).
fn without_scheme(value: &str) -> &str {
    let v = value.trim();
    ["Bearer ", "bearer ", "Basic ", "basic ", "token ", "Token "]
        .iter()
        .find_map(|p| v.strip_prefix(p))
        .unwrap_or(v)
}

/// Values that cannot be a secret whatever the name says: too short, spaced, placeholders,
/// references, paths, URLs, numbers and booleans.
fn plainly_not_secret(v: &str) -> bool {
    v.len() < 8
        || v.chars().any(char::is_whitespace)
        || is_placeholder(v)
        || has_reference(v)
        || v.starts_with('/')
        || v.starts_with("./")
        || v.starts_with('~')
        || v.contains('\\')
        || v.contains("://")
        || v.chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == '-')
        || matches!(
            v.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "enabled" | "disabled"
        )
}

/// An identifier made of plain words (`created_at_desc`, `read:packages`, `prod/db/creds`).
fn identifier_like(v: &str) -> bool {
    v.split(['_', '-', '.', ':', '/']).all(|seg| {
        seg.chars().all(|c| c.is_ascii_lowercase()) || seg.chars().all(|c| c.is_ascii_digit())
    })
}

/// Whether a literal value looks like a random secret (long, no spaces, letters and digits,
/// not an identifier made of words).
pub fn looks_like_secret(value: &str) -> bool {
    let v = without_scheme(value);
    if v.len() < 12 || plainly_not_secret(v) || identifier_like(v) {
        return false;
    }
    let digits = v.chars().filter(char::is_ascii_digit).count();
    let letters = v.chars().filter(char::is_ascii_alphabetic).count();
    digits >= 2 && letters >= 4
}

/// Whether a literal value of a field whose name says "secret" (`DB_PASSWORD`, `API_TOKEN`)
/// is one: anything but the plainly-not-secret values and word identifiers.
pub fn is_literal_credential(value: &str) -> bool {
    let v = without_scheme(value);
    let word_identifier = identifier_like(v) && v.contains(['_', '-', '.', ':']);
    !(plainly_not_secret(v) || word_identifier)
}

/// Credential-named query parameters with literal secret-looking values in a URL.
pub fn query_credentials(value: &str) -> Vec<(String, String)> {
    let Some((_, query)) = value
        .split_once("://")
        .and_then(|(_, rest)| rest.split_once('?'))
    else {
        return Vec::new();
    };
    query
        .split('#')
        .next()
        .unwrap_or_default()
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .filter(|(k, v)| is_credential_name(k) && !has_reference(v) && looks_like_secret(v))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Build the secrets' pattern set and the reference expression now (see [`crate::audit::warm_up`]).
pub(crate) fn warm_up() {
    LazyLock::force(&ANY);
    LazyLock::force(&REFERENCE);
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_prefilter_compiles_and_lets_every_real_match_through() {
        let set = super::ANY.as_ref().expect("the prefilter set compiles");
        assert_eq!(set.len(), super::KINDS.len());
        assert_eq!(super::ascii_boundaries(r"\bab\\b\d"), r"(?-u:\b)ab\\b\d");
        let token = "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0";
        for text in [
            format!("token ghp_{token} here"),
            format!("é ghp_{token}"),
            format!("éghp_{token}"),
            format!("ключ: sk_live_{token}…"),
            format!("AKIA{}é", &token[..16].to_uppercase()),
            format!("Bearer {token}ü"),
            "db: postgres://app:s3cretPassw0rd@db.internal/ü".to_owned(),
            format!("SK{}", "a".repeat(32)),
            format!("SK{}ß", "a".repeat(32)),
        ] {
            let maybe = set.matches(&text);
            for i in 0..super::KINDS.len() {
                let re = super::compiled(i).expect("every kind compiles");
                if re.is_match(&text) {
                    assert!(maybe.matched(i), "{}: {text}", super::KINDS[i].id);
                }
            }
        }
    }

    #[test]
    fn a_token_glued_into_an_identifier_is_found_and_only_the_token_is_the_secret() {
        let body = "Aa1bCdEfGhIjKlMnOpQrStUvWxYz0123456789";
        for (text, token) in [
            (format!("run_xoxb-{body}"), format!("xoxb-{body}")),
            (format!("cfg_ghp_{body}"), format!("ghp_{body}")),
            (format!("x__sk_live_{body}"), format!("sk_live_{body}")),
            (format!("ghp_{body}"), format!("ghp_{body}")),
        ] {
            let found = find_secrets(&text);
            assert_eq!(found.len(), 1, "{text}");
            assert_eq!(&text[found[0].start..found[0].end], token);
        }
        // The generic `sk-` form still needs a word start: `risk-…` is no key.
        assert!(find_secrets("risk-assessment-report-generator-for-teams-v2").is_empty());
        assert!(find_secrets(&format!("task_sk-{body}")).is_empty());
    }

    #[test]
    fn a_random_token_containing_xxxx_is_not_a_placeholder() {
        assert!(!is_placeholder("Aa1BxXXXF6aJqzDdxbW4jr2O"));
        assert!(is_placeholder("sk-xxxxxxxxxxxxxxxx"));
        assert!(is_placeholder("****************"));
    }

    #[test]
    fn a_random_token_containing_a_placeholder_word_is_not_a_placeholder() {
        for real in [
            "q8YOURf2kLm9Tz4Wx7Rb",
            "ghp_TODO7f2kLm9Tz4Wx7Rb1c3D5e",
            "Xexample9Lm2Tz4Wx7Rb",
            "a1replaceB2c3D4e5F6g7",
            "zZchangeme42AbCdEfGh",
        ] {
            assert!(!is_placeholder(real), "{real}");
        }
        for placeholder in [
            "your_token_here",
            "YOUR-API-KEY",
            "sk-your-key",
            "replace_me",
            "REPLACEME",
            "example",
            "changeme",
            "change-me",
            "<token>",
            "TODO",
            "yourapikey",
            "insert-key-here",
            "sk-...",
            "xxxx-xxxx-xxxx",
        ] {
            assert!(is_placeholder(placeholder), "{placeholder}");
        }
    }

    use super::super::redact::{redact, redact_secrets};
    use super::*;

    fn fake(prefix: &str, n: usize) -> String {
        let body: String = "aB3dE5gH7jK9mN1pQ2sT4vW6yZ8"
            .chars()
            .cycle()
            .take(n)
            .collect();
        format!("{prefix}{body}")
    }

    #[test]
    fn known_formats_are_found_and_redacted() {
        let pat = fake("ghp_", 36);
        let text = format!("token {pat} end");
        let found = find_secrets(&text);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].kind.id, "github-classic-pat");
        let red = redact_secrets(&text);
        assert!(!red.contains(&pat));
        assert!(red.starts_with("token ghp_…"), "{red}");
        assert!(
            red.ends_with(&format!("{} end", &pat[pat.len() - 4..])),
            "{red}"
        );
        for (prefix, n, id) in [
            ("glpat-", 20, "gitlab-pat"),
            ("xoxb-", 24, "slack-token"),
            ("xoxp-", 24, "slack-user-token"),
            ("AKIA", 16, "aws-access-key"),
            ("sk-ant-api03-", 40, "anthropic-api-key"),
            ("sk_live_", 24, "stripe-secret-key"),
            ("npm_", 36, "npm-token"),
            ("hf_", 34, "huggingface-token"),
            ("sk-proj-", 40, "openai-api-key"),
        ] {
            let s = fake(prefix, n).to_uppercase();
            let s = if prefix.chars().any(|c| c.is_ascii_lowercase()) {
                fake(prefix, n)
            } else {
                s
            };
            let f = find_secrets(&s);
            assert_eq!(f.first().map(|m| m.kind.id), Some(id), "{s}");
        }
    }

    #[test]
    fn documentation_examples_are_not_secrets() {
        assert!(find_secrets("xoxb-your-bot-token-here").is_empty());
        assert!(find_secrets("AKIAIOSFODNN7EXAMPLE").is_empty());
    }

    #[test]
    fn url_passwords_but_not_references() {
        let f = find_secrets("postgres://app:s3cretPassw0rd@db.internal:5432/x");
        assert_eq!(f.len(), 1);
        assert_eq!(
            redact_secrets("postgres://app:s3cretPassw0rd@db.internal:5432/x"),
            "postgres://app:…[14 chars]@db.internal:5432/x"
        );
        assert!(find_secrets("postgres://app:${DB_PASSWORD}@db/x").is_empty());
    }

    #[test]
    fn references_are_recognised() {
        for r in [
            "${GITHUB_TOKEN}",
            "${env:TOKEN}",
            "${input:api-key}",
            "${{ secrets.X }}",
            "$TOKEN",
            "%TOKEN%",
        ] {
            assert!(has_reference(r), "{r}");
            assert!(!looks_like_secret(r), "{r}");
        }
        assert_eq!(
            referenced_names("Bearer ${env:ADMIN_TOKEN}"),
            vec!["ADMIN_TOKEN"]
        );
        assert_eq!(referenced_names("${{ secrets.TRACKER }}"), vec!["TRACKER"]);
        assert_eq!(referenced_names("${input:gh}"), vec!["gh"]);
    }

    #[test]
    fn placeholders_and_plain_values_are_not_secrets() {
        for v in [
            "<YOUR_TOKEN>",
            "your-api-key-here",
            "xxxxxxxxxxxxxxxx",
            "stdio",
            "4000",
            "/home/me/data/file1.txt",
        ] {
            assert!(!looks_like_secret(v), "{v}");
        }
        assert!(looks_like_secret("q8Zt3LmV0pRw9Xy2"));
    }

    #[test]
    fn every_pattern_compiles() {
        assert!((0..KINDS.len()).all(|i| compiled(i).is_some()));
        assert!(ANY.is_some());
        assert!(REFERENCE.is_some());
    }

    #[test]
    fn short_secrets_are_fully_hidden() {
        assert_eq!(redact("abc123", "ab"), "…[6 chars]");
    }
}
