//! The one place that decides how a secret is shown: redacted, never in full.
//!
//! Every output (table, JSON, SARIF, GitHub annotations, the markdown review, snapshot, lock
//! and diff text, error messages) and the lockfile call into this module; nothing else
//! redacts. Recognising secret *values* by their shape is [`super::secrets`], recognising
//! secret *names* is [`super::credential`]; this module finds where secrets sit in a text, an
//! argument vector, a URL or a JSON document and turns them into what may be shown or stored:
//!
//! - known token shapes anywhere (PEM private-key blocks, JWTs, GitHub, GitLab, Slack, Stripe,
//!   AWS, Google, OpenAI, Anthropic, npm, PyPI, Twilio, SendGrid, Hugging Face, DigitalOcean,
//!   Azure storage keys, `Bearer` values);
//! - URL user info, and every query value whose name (`token`, `api_key`, `sig`, …) or shape
//!   says it is a secret;
//! - values after secret-named flags (`--token V`, `--api-key=V`, `--password V`, …), `-p`/`-a`
//!   for the known clients that take a password that way (mysql family, sshpass, mongo,
//!   redis-cli), `NAME=V` / `export NAME=V` assignments (inside `sh -c` strings too),
//!   `Name: V` header or JSON-key pairs, whenever the name says "secret" and the value is a
//!   literal one (see [`super::credential::is_literal_secret_for`]);
//! - in JSON documents (definitions, snapshots), string values under secret-named keys.
//!
//! Two styles: [`Style::Show`] for people (a 4-character marker, `…`, the last 4; short ones
//! as `…[N chars]`; a PEM block as `-----BEGIN … PRIVATE KEY-----`) and [`Style::Lock`] for
//! files meant to be committed (`REDACTED`, so a rotated secret does not read as drift).
//!
//! What is *not* redacted, on purpose (over-redaction that hides what runs is also a bug):
//! variable references (`${TOKEN}`), placeholders (`<YOUR_TOKEN>`), paths, version numbers,
//! package integrity hashes (`sha512-…`), commit hashes and UUIDs outside secret-named places,
//! ordinary words after a secret-named flag (shorter than 8 characters or an identifier made
//! of lowercase words).
//!
//! **Lockfile URL form.** Two URL forms exist and are kept apart on purpose, because one of
//! them is hashed into committed lockfiles: [`url_for_lock`] (user info dropped, `REDACTED`
//! values, bytes otherwise exactly as written) and [`url_for_report`] (user info and values
//! shown as `***`). The lock form redacts by the historic name list (`key`, `token`,
//! `secret`, `password`, `passwd`, `auth`, `sig`, `credential`) *and*, since the one
//! redaction module, by credential names and secret shapes; a URL without secrets keeps its
//! bytes, so existing locks of secret-free servers do not change. Unifying the two forms
//! changes lockfile bytes and is a deliberate format change, not a refactor.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::credential::{credential_name, is_literal_secret_for};
use super::secrets::{find_secrets, has_reference, is_placeholder};
use super::snapshot::ServerSnapshot;
use super::spec::{ServerSpec, Transport};

/// How a redacted secret is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// For people: marker, `…`, last 4 characters.
    Show,
    /// For committed files: `REDACTED`.
    Lock,
}

/// What the lock style writes in place of a secret.
pub const LOCK_MARK: &str = "REDACTED";

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

/// One secret found in a text: its byte range and the marker that may be shown.
#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
    marker: &'static str,
    pem: bool,
}

fn render_span(secret: &str, span: &Span, style: Style) -> String {
    match style {
        Style::Lock => LOCK_MARK.to_string(),
        Style::Show if span.pem => "-----BEGIN … PRIVATE KEY-----".to_string(),
        Style::Show => redact(secret, span.marker),
    }
}

/// `text` with every secret this module recognises redacted, for people.
pub fn redact_text(text: &str) -> String {
    redact_text_as(text, Style::Show)
}

/// [`redact_text`] without a copy when there is nothing to redact (a whole report of
/// hundreds of megabytes is usually such a text).
pub fn redact_cow(text: &str) -> std::borrow::Cow<'_, str> {
    let spans = text_spans(text);
    if spans.is_empty() {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(apply(text, spans, Style::Show))
}

/// [`redact_text`] of an owned text, which is given back as it is when there is nothing to
/// redact.
pub fn redact_owned(text: String) -> String {
    match redact_cow(&text) {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(redacted) => redacted,
    }
}

/// [`redact_text`] in place: `text` is replaced only when something in it is redacted.
pub fn redact_in_place(text: &mut String) {
    if let std::borrow::Cow::Owned(redacted) = redact_cow(text) {
        *text = redacted;
    }
}

/// `text` with every secret redacted as `REDACTED`, for committed files.
pub fn lock_text(text: &str) -> String {
    redact_text_as(text, Style::Lock)
}

/// `text` with every secret this module recognises redacted in `style`.
pub fn redact_text_as(text: &str, style: Style) -> String {
    apply(text, text_spans(text), style)
}

/// Kept for the callers that name it: the same as [`redact_text`].
pub fn redact_secrets(text: &str) -> String {
    redact_text(text)
}

/// Kept for the callers that name it: the same as [`redact_text`].
pub fn redact_query(value: &str) -> String {
    redact_text(value)
}

/// Where the secrets of a text sit, so that a part of it can be shown without cutting one:
/// a cut inside a secret would leave a piece that no longer has the secret's shape (half a
/// `ghp_` token, a value without the `password:` before it) and so would be shown in clear.
/// Every excerpt and clip of a text that may hold a secret goes through here.
#[derive(Debug, Default)]
pub struct SecretMap {
    /// Merged, sorted, non-overlapping.
    spans: Vec<Span>,
}

impl SecretMap {
    /// The secrets of `text`, found in the whole text (so a value is known by the name before
    /// it even when the part shown starts after the name).
    pub fn of(text: &str) -> Self {
        SecretMap {
            spans: merge(text_spans(text)),
        }
    }

    /// A cut at byte `i` moved out of the secret it falls in: to the secret's start when
    /// `outward_end` is false (a left edge takes the whole secret in), else to its end.
    pub fn widen(&self, i: usize, outward_end: bool) -> usize {
        match self.spans.iter().find(|s| s.start < i && i < s.end) {
            Some(s) if outward_end => s.end,
            Some(s) => s.start,
            None => i,
        }
    }

    /// `text[a..b]` with every secret in it shown redacted (a secret the range cuts is
    /// redacted in the part shown, without its marker).
    pub fn show(&self, text: &str, a: usize, b: usize) -> String {
        self.render(text, a, b, Style::Show)
    }

    /// [`SecretMap::show`] in any style.
    fn render(&self, text: &str, a: usize, b: usize, style: Style) -> String {
        let (a, b) = (a.min(text.len()), b.min(text.len()));
        let mut out = String::with_capacity(b.saturating_sub(a));
        let mut last = a;
        for s in self.spans.iter().filter(|s| s.start < b && s.end > a) {
            let (from, to) = (s.start.max(a), s.end.min(b));
            let (Some(before), Some(secret)) = (text.get(last..from), text.get(from..to)) else {
                continue;
            };
            out.push_str(before);
            let whole = Span {
                marker: if from == s.start { s.marker } else { "" },
                ..*s
            };
            out.push_str(&render_span(secret, &whole, style));
            last = to;
        }
        out.push_str(text.get(last..b).unwrap_or_default());
        out
    }
}

/// Sorted spans with overlapping ones unioned; the first (outermost) keeps its marker.
fn merge(mut spans: Vec<Span>) -> Vec<Span> {
    spans.sort_by_key(|s| (s.start, std::cmp::Reverse(s.end)));
    let mut merged: Vec<Span> = Vec::with_capacity(spans.len());
    for s in spans {
        match merged.last_mut() {
            Some(last) if s.start < last.end => {
                last.end = last.end.max(s.end);
                last.pem |= s.pem;
            }
            _ => merged.push(s),
        }
    }
    merged
}

fn apply(text: &str, spans: Vec<Span>, style: Style) -> String {
    if spans.is_empty() {
        return text.to_string();
    }
    SecretMap {
        spans: merge(spans),
    }
    .render(text, 0, text.len(), style)
}

/// Every secret in a free text: shapes, URLs, and secret-named words.
fn text_spans(text: &str) -> Vec<Span> {
    let mut spans: Vec<Span> = find_secrets(text)
        .into_iter()
        .map(|m| Span {
            start: m.start,
            end: m.end,
            marker: m.kind.marker,
            pem: m.kind.id == "private-key",
        })
        .collect();
    if text.contains("://") {
        spans.extend(url_spans(text));
    }
    spans.extend(word_spans(text));
    spans
}

fn plain(start: usize, end: usize) -> Span {
    Span {
        start,
        end,
        marker: "",
        pem: false,
    }
}

static URL: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r#"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s"'<>`\\]+"#).ok());

/// The user info and secret query values of every URL in `text`.
fn url_spans(text: &str) -> Vec<Span> {
    let Some(re) = URL.as_ref() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for m in re.find_iter(text) {
        let url = m.as_str();
        let base = m.start();
        let Some(after_scheme) = url.find("://").map(|i| i + 3) else {
            continue;
        };
        let rest = &url[after_scheme..];
        let authority_len = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        if let Some(at) = rest[..authority_len].rfind('@') {
            let info = &rest[..at];
            // `user:password` shows the user; a lone user part may be a token.
            let from = info.find(':').map_or(0, |c| c + 1);
            let secret = &info[from..];
            if !secret.is_empty() && !has_reference(secret) && !is_placeholder(secret) {
                out.push(plain(base + after_scheme + from, base + after_scheme + at));
            }
        }
        if let Some(q) = url.find('?') {
            let query_end = url[q..].find('#').map_or(url.len(), |i| q + i);
            let mut pos = q + 1;
            for pair in url[q + 1..query_end].split('&') {
                if let Some((k, v)) = pair.split_once('=') {
                    let v_start = pos + k.len() + 1;
                    if secret_query_value(k, v) {
                        out.push(plain(base + v_start, base + v_start + v.len()));
                    }
                }
                pos += pair.len() + 1;
            }
        }
    }
    out
}

/// The historic lock list of query parameter names whose values are always `REDACTED` in
/// the lock form, matched as substrings (kept so existing locks keep their bytes).
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

/// Query parameter names that carry a secret whatever the value looks like: the credential
/// names (by words, so `design` or `author` are not), and signatures (`sig`, `X-Amz-Signature`).
fn is_secret_query_name(name: &str) -> bool {
    let strong = credential_name(name) == Some(super::credential::CredentialName::Strong);
    let words = super::words::split_words(name);
    strong
        || words
            .last()
            .is_some_and(|w| matches!(w.as_str(), "SIG" | "SIGNATURE"))
}

/// Whether a query value is a secret, by its name or its shape.
fn secret_query_value(name: &str, value: &str) -> bool {
    if value.is_empty() || has_reference(value) || is_placeholder(value) {
        return false;
    }
    is_secret_query_name(name)
        || is_literal_secret_for(name, value)
        || !find_secrets(value).is_empty()
        || high_entropy(value)
}

/// A long random-looking value (mixed case and digits, high Shannon entropy) that is not a
/// hex hash, a UUID or an identifier made of words.
pub fn high_entropy(value: &str) -> bool {
    let v = value.trim();
    if v.len() < 24 || v.chars().any(char::is_whitespace) || has_reference(v) || v.contains("://") {
        return false;
    }
    let upper = v.chars().any(|c| c.is_ascii_uppercase());
    let lower = v.chars().any(|c| c.is_ascii_lowercase());
    let digit = v.chars().any(|c| c.is_ascii_digit());
    if !(upper && lower && digit) {
        return false;
    }
    let mut counts = std::collections::HashMap::new();
    for c in v.chars() {
        *counts.entry(c).or_insert(0usize) += 1;
    }
    let n = v.chars().count() as f64;
    let entropy: f64 = counts
        .values()
        .map(|&c| {
            let p = c as f64 / n;
            -p * p.log2()
        })
        .sum();
    entropy >= 3.5
}

/// Clients that take a password as `-pVALUE` (attached) — the mysql family.
const ATTACHED_P: &[&str] = &[
    "mysql",
    "mysqldump",
    "mysqladmin",
    "mysqlimport",
    "mysqlshow",
    "mysqlcheck",
    "mariadb",
    "mariadb-dump",
    "mariadb-admin",
];
/// Clients that take a password as `-p VALUE`.
const SEPARATE_P: &[&str] = &[
    "sshpass",
    "mongo",
    "mongosh",
    "mongodump",
    "mongorestore",
    "mongoexport",
    "mongoimport",
];
/// Clients that take a password as `-a VALUE`.
const SEPARATE_A: &[&str] = &["redis-cli", "keydb-cli"];

static TOOLS: LazyLock<std::collections::HashMap<&'static str, &'static str>> =
    LazyLock::new(|| {
        ATTACHED_P
            .iter()
            .chain(SEPARATE_P)
            .chain(SEPARATE_A)
            .map(|t| (*t, *t))
            .collect()
    });

fn tool_of(word: &str) -> Option<&'static str> {
    let base = word.rsplit('/').next().unwrap_or(word);
    let base = base.strip_suffix(".exe").unwrap_or(base);
    // (Every client's name is 5 to 13 bytes long and starts with one of four letters: the
    // words of a description are told apart by those before any is hashed.)
    if !(TOOL_SHORTEST..=TOOL_LONGEST).contains(&base.len())
        || !matches!(base.as_bytes().first(), Some(b'm' | b's' | b'r' | b'k'))
    {
        return None;
    }
    TOOLS.get(base).copied()
}

/// The shortest and the longest name of a client in [`TOOLS`] (a test checks them).
const TOOL_SHORTEST: usize = 5;
const TOOL_LONGEST: usize = 13;

/// Whether the literal `value` of something called `name` (an env key, a flag without its
/// dashes, a header, a JSON key) is a secret.
pub fn secret_for_name(name: &str, value: &str) -> bool {
    let name = name.trim_start_matches('-');
    if !might_name_a_credential(name) {
        return false;
    }
    let value = unquote(value);
    !value.is_empty()
        && !is_placeholder(value)
        && (is_literal_secret_for(name, value)
            || (credential_name(name).is_some() && high_entropy(value)))
}

/// A cheap first look before splitting a name into words: every credential name contains
/// one of these.
fn might_name_a_credential(name: &str) -> bool {
    const PARTS: &[&str] = &[
        "token",
        "secret",
        "pass",
        "pwd",
        "key",
        "auth",
        "credential",
        "cookie",
        "bearer",
        "pat",
    ];
    let lower = name.to_ascii_lowercase();
    PARTS.iter().any(|p| lower.contains(p))
}

fn unquote(v: &str) -> &str {
    v.trim_matches(|c| matches!(c, '"' | '\'' | '`'))
}

fn is_flag(word: &str) -> bool {
    let name = word.trim_start_matches('-');
    word.starts_with('-')
        && word.len() - name.len() <= 2
        && name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
}

fn is_identifier(word: &str) -> bool {
    let name = word.trim_start_matches('-');
    word.len() - name.len() <= 2
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
}

const OPENERS: &[char] = &['"', '\'', '`', '(', '[', '{', '<'];
const CLOSERS: &[char] = &['"', '\'', '`', ',', ';', ')', ']', '}', '>', '.', ':'];
/// Characters that end a value inside a word (so a span never crosses a JSON string edge).
const VALUE_END: &[char] = &['"', '\'', '`', '\\', ',', ';', ')', ']', '}', '<', '>', '|'];

/// One whitespace-separated word: its core (without surrounding quotes and punctuation) and
/// the core's byte range.
#[derive(Debug, Clone, Copy)]
struct Word<'a> {
    /// The word as written.
    raw: &'a str,
    core: &'a str,
    start: usize,
    /// The word as written ends with `:` (a header or JSON key).
    colon: bool,
}

/// The whitespace-separated words of `text`, in order, found lazily: the whole text of a
/// report (hundreds of megabytes for a million findings) is read without a list of its words.
fn words(text: &str) -> impl Iterator<Item = Word<'_>> {
    let word = |s: usize, e: usize| {
        let raw = &text[s..e];
        let trimmed = raw.trim_start_matches(OPENERS);
        let lead = raw.len() - trimmed.len();
        let colon = trimmed.trim_end_matches(['"', '\'', '`']).ends_with(':');
        let core = trimmed.trim_end_matches(CLOSERS);
        Word {
            raw,
            core,
            start: s + lead,
            colon,
        }
    };
    let mut chars = text.char_indices();
    std::iter::from_fn(move || {
        let mut start = None;
        for (i, c) in chars.by_ref() {
            if c.is_whitespace() {
                if let Some(s) = start {
                    return Some(word(s, i));
                }
            } else if start.is_none() {
                start = Some(i);
            }
        }
        start.map(|s| word(s, text.len()))
    })
}

/// The value part of `word` from byte `from`: up to the first character that ends a value.
fn value_at(word: &Word<'_>, from: usize) -> Option<(usize, usize)> {
    let rest = word.core.get(from..)?;
    let lead = rest.len() - rest.trim_start_matches(['"', '\'', '`']).len();
    let body = &rest[lead..];
    let len = body.find(VALUE_END).unwrap_or(body.len());
    (len > 0).then_some((word.start + from + lead, word.start + from + lead + len))
}

/// Secrets that the words around them name: flags, assignments, `Name: value`, schemes, and
/// the password options of known clients.
fn word_spans(text: &str) -> Vec<Span> {
    let mut out = Vec::new();
    let mut tool: Option<&'static str> = None;
    // The two words before the current one (the rules below look back that far), moved on
    // at the top of each turn since a turn may end early.
    let mut two_back: Option<Word<'_>> = None;
    let mut prev: Option<Word<'_>> = None;
    let mut last: Option<Word<'_>> = None;
    for word in words(text) {
        if let Some(l) = last.replace(word) {
            two_back = prev.replace(l);
        }
        let w = &word;
        let core = w.core;
        if let Some(t) = tool_of(core) {
            tool = Some(t);
        }
        let value_span = |from: usize| value_at(w, from);
        // NAME=value, --flag=value, export NAME=value.
        let assigned = core
            .find('=')
            .filter(|_| !has_reference(w.raw))
            .and_then(|eq| {
                let name = &core[..eq];
                let (s, e) = value_span(eq + 1)?;
                (is_identifier(name) && secret_for_name(name, &text[s..e])).then_some((s, e))
            });
        if let Some((s, e)) = assigned {
            out.push(plain(s, e));
            continue;
        }
        let Some(prev) = prev.as_ref() else { continue };
        let Some((s, e)) = value_span(0) else {
            continue;
        };
        let v = &text[s..e];
        if has_reference(w.raw) {
            continue;
        }
        // Where prose may put an ordinary word (`--password carefully`, `secret: password`),
        // a value of letters only is taken for a word, not a secret.
        let prose_word = v.chars().all(|c| c.is_ascii_alphabetic());
        // --flag value
        let after_flag = is_flag(prev.core) && !prev.core.contains('=') && !core.starts_with('-');
        // Name: value (headers, JSON keys, YAML).
        let after_colon = prev.colon && is_identifier(prev.core);
        // NAME = value
        let assigned_name = (prev.core == "=")
            .then_some(two_back.as_ref())
            .flatten()
            .filter(|n| is_identifier(n.core));
        let named = !prose_word
            && (((after_flag || after_colon) && secret_for_name(prev.core, v))
                || assigned_name.is_some_and(|n| secret_for_name(n.core, v)));
        // Authorization schemes.
        let schemed = matches!(
            prev.core,
            "Bearer" | "bearer" | "BEARER" | "Basic" | "basic"
        ) && v.len() >= 8
            && !has_reference(v)
            && !is_placeholder(v);
        // Known clients' password options.
        let client = tool.is_some_and(|t| {
            let opt = if SEPARATE_A.contains(&t) { "-a" } else { "-p" };
            (SEPARATE_P.contains(&t) || SEPARATE_A.contains(&t))
                && prev.core == opt
                && !core.starts_with('-')
                && !has_reference(v)
                && !is_placeholder(v)
        });
        if named || schemed || client {
            out.push(plain(s, e));
            continue;
        }
        let attached = tool.is_some_and(|t| ATTACHED_P.contains(&t) || t == "sshpass")
            && core.len() > 2
            && core.starts_with("-p")
            && !core[2..].starts_with('-');
        if attached {
            push_if(
                value_span(2),
                |v| !has_reference(&text[v.0..v.1]) && !is_placeholder(&text[v.0..v.1]),
                &mut out,
            );
        }
    }
    out
}

/// Push `span` when it exists and passes `ok`.
fn push_if(span: Option<(usize, usize)>, ok: impl Fn((usize, usize)) -> bool, out: &mut Vec<Span>) {
    if let Some(v) = span.filter(|v| ok(*v)) {
        out.push(plain(v.0, v.1));
    }
}

/// A field value that is safe to show: the whole value redacted when `name` says it is a
/// credential and the value is a literal one; otherwise every recognised secret in it.
pub fn redact_field(name: Option<&str>, value: &str) -> String {
    redact_field_as(name, value, Style::Show)
}

/// [`redact_field`] in `style`.
pub fn redact_field_as(name: Option<&str>, value: &str, style: Style) -> String {
    if name.is_some_and(|n| secret_for_name(n, value)) {
        return match style {
            // A known shape keeps its marker (`ghp_…`); a PEM block its header.
            Style::Show if !find_secrets(value).is_empty() => redact_text_as(value, style),
            Style::Show => redact_generic(value),
            Style::Lock => LOCK_MARK.to_string(),
        };
    }
    redact_text_as(value, style)
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

/// Each argument of `command args…` with any secret it carries redacted in `style`: the
/// value after a secret-named flag, `-p`/`-a` of known clients, and everything
/// [`redact_text`] recognises inside each argument (so `sh -c "X_TOKEN=… cmd"` too).
pub fn redact_argv(command: &str, args: &[String], style: Style) -> Vec<String> {
    let passwords = password_options(command, args);
    let mut out = Vec::with_capacity(args.len());
    for (i, a) in args.iter().enumerate() {
        let prev = i.checked_sub(1).and_then(|j| args.get(j));
        let mark = |v: &str| match style {
            Style::Show => redact_generic(v),
            Style::Lock => LOCK_MARK.to_string(),
        };
        let shown = match (prev, passwords.iter().find(|p| p.index == i)) {
            (_, Some(p)) if p.attached => format!("-p{}", mark(&p.value)),
            (_, Some(p)) => mark(&p.value),
            (Some(p), None) if is_flag(p) && !a.starts_with('-') && secret_for_name(p, a) => {
                mark(a)
            }
            _ => redact_text_as(a, style),
        };
        out.push(shown);
    }
    out
}

/// A password given to a known client on its command line: `mysql -pSECRET`,
/// `sshpass -p SECRET`, `redis-cli -a SECRET`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PasswordOption {
    /// The argument that holds it.
    pub index: usize,
    /// The password itself.
    pub value: String,
    /// Written as `-pSECRET` (one argument) rather than `-p SECRET`.
    pub attached: bool,
}

/// Every literal password of a known client in `command args…` (references and placeholders
/// are not passwords). The client may come later in the line (`sh -c`, `env`, `npx`).
pub fn password_options(command: &str, args: &[String]) -> Vec<PasswordOption> {
    let mut tool = tool_of(command);
    let mut out = Vec::new();
    for (i, a) in args.iter().enumerate() {
        let prev = i.checked_sub(1).and_then(|j| args.get(j));
        let literal = |v: &str| !v.is_empty() && !has_reference(v) && !is_placeholder(v);
        let separate = prev.is_some_and(|p| {
            tool.is_some_and(|t| {
                (SEPARATE_P.contains(&t) && p == "-p") || (SEPARATE_A.contains(&t) && p == "-a")
            })
        });
        if separate && literal(a) && !a.starts_with('-') {
            out.push(PasswordOption {
                index: i,
                value: a.clone(),
                attached: false,
            });
        } else if let (Some(t), Some(v)) = (tool, a.strip_prefix("-p"))
            && (ATTACHED_P.contains(&t) || t == "sshpass")
            && !v.starts_with('-')
            && literal(v)
        {
            out.push(PasswordOption {
                index: i,
                value: v.to_string(),
                attached: true,
            });
        }
        if let Some(t) = tool_of(a) {
            tool = Some(t);
        }
    }
    out
}

/// Each argument with any secret it carries redacted (for people).
pub fn redacted_args(args: &[String]) -> Vec<String> {
    redact_argv("", args, Style::Show)
}

/// The command line as one redacted string, for evidence.
pub fn argv_evidence(spec: &ServerSpec) -> String {
    match &spec.transport {
        Transport::Stdio { command, args, .. } => {
            let mut s = redact_text(command);
            for shown in redact_argv(command, args, Style::Show) {
                s.push(' ');
                if shown.is_empty() || shown.contains(char::is_whitespace) {
                    s.push_str(&format!("{shown:?}"));
                } else {
                    s.push_str(&shown);
                }
            }
            s
        }
        Transport::Http { url, .. } => redact_text(&url_for_report(url)),
    }
}

/// A spec fit to show: env and header values by name and shape, arguments, command, cwd and
/// URL redacted; host settings as JSON.
pub fn redact_spec(spec: &ServerSpec) -> ServerSpec {
    let mut s = spec.clone();
    match &mut s.transport {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            *args = redact_argv(command, args, Style::Show);
            *command = redact_text(command);
            for (k, v) in env.iter_mut() {
                *v = redact_field(Some(k), v);
            }
            if let Some(c) = cwd {
                let shown = redact_text(&c.to_string_lossy());
                *c = shown.into();
            }
        }
        Transport::Http { url, headers } => {
            *url = redact_text(&url_for_report(url));
            for (k, v) in headers.iter_mut() {
                *v = redact_field(Some(k), v);
            }
        }
    }
    for v in s.settings.values_mut() {
        *v = redact_json(v, Style::Show);
    }
    s
}

/// A JSON document with every string redacted: values under secret-named keys whole (also a
/// schema's `default`, `const`, `enum` and `examples` under a secret-named property), every
/// other string by [`redact_text_as`]. Object keys are kept.
pub fn redact_json(value: &Value, style: Style) -> Value {
    redact_json_named(value, None, style)
}

/// Keys whose value is an example of the enclosing property, named by it.
const VALUE_KEYS: &[&str] = &["default", "const", "enum", "example", "examples", "value"];

fn redact_json_named(value: &Value, name: Option<&str>, style: Style) -> Value {
    match value {
        Value::String(s) => Value::String(redact_field_as(name, s, style)),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| redact_json_named(v, name, style))
                .collect(),
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let inner = if VALUE_KEYS.contains(&k.as_str()) {
                        name
                    } else {
                        Some(k.as_str())
                    };
                    // A key is server text too: a property named after a token.
                    (redact_text_as(k, style), redact_json_named(v, inner, style))
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// A JSON Pointer with every secret in its segments redacted in `style`: each segment is
/// redacted as the key it names is by [`redact_json`], so a redacted pointer still finds its
/// value in a redacted snapshot. A segment is unescaped first (`~1` is a `/` of the key), so a
/// secret holding a `/` is found whole.
pub fn redact_pointer(pointer: &str, style: Style) -> std::borrow::Cow<'_, str> {
    if text_spans(pointer).is_empty() && !pointer.contains('~') {
        return std::borrow::Cow::Borrowed(pointer);
    }
    let mut changed = false;
    let segments: Vec<String> = pointer
        .split('/')
        .map(|seg| {
            let key = seg.replace("~1", "/").replace("~0", "~");
            let shown = redact_text_as(&key, style);
            if shown == key {
                seg.to_string()
            } else {
                changed = true;
                shown.replace('~', "~0").replace('/', "~1")
            }
        })
        .collect();
    if changed {
        std::borrow::Cow::Owned(segments.join("/"))
    } else {
        std::borrow::Cow::Borrowed(pointer)
    }
}

/// A finding as it may be shown: its message, evidence, item name and JSON Pointer redacted
/// for people, each replaced only where something in it is redacted (the item name and the
/// pointer are the server's text: a tool or a property may be named after a token).
pub fn redact_finding(f: &mut super::finding::Finding) {
    redact_in_place(&mut f.message);
    if let Some(e) = &mut f.evidence {
        redact_in_place(e);
    }
    if let Some(item) = &mut f.item
        && could_hold_token(&item.name)
    {
        redact_in_place(&mut item.name);
    }
    if let Some(p) = &mut f.location.pointer
        && could_hold_token(p)
        && let std::borrow::Cow::Owned(shown) = redact_pointer(p, Style::Show)
    {
        *p = shown;
    }
}

/// Whether a name or a pointer may hold a token: every token format [`super::secrets`] knows
/// is 15 or more characters without a space or a `/` (`xoxb-` and ten more is the shortest),
/// so a name or pointer with no such run holds none and is not searched here (most are
/// `/tools/3/inputSchema/properties/query/description`). Every rendered text is still
/// redacted whole on its way out ([`crate::report::render`]).
fn could_hold_token(text: &str) -> bool {
    let mut run = 0;
    for c in text.chars() {
        if c.is_whitespace() || c == '/' {
            run = 0;
        } else {
            run += 1;
            if run >= 15 {
                return true;
            }
        }
    }
    false
}

/// A snapshot with every string it holds redacted in `style` (definitions, instructions,
/// server info, probe notes and captured stderr).
pub fn redact_snapshot(s: &ServerSnapshot, style: Style) -> ServerSnapshot {
    let json = |items: &[Value]| items.iter().map(|v| redact_json(v, style)).collect();
    let mut out = s.clone();
    out.server_info = s.server_info.as_ref().map(|v| redact_json(v, style));
    out.capabilities = s.capabilities.as_ref().map(|v| redact_json(v, style));
    out.instructions = s.instructions.as_deref().map(|t| redact_text_as(t, style));
    out.tools = json(&s.tools);
    out.prompts = json(&s.prompts);
    out.resources = json(&s.resources);
    out.resource_templates = json(&s.resource_templates);
    let probe = s
        .probe
        .as_ref()
        .and_then(|p| serde_json::to_value(p).ok())
        .and_then(|v| serde_json::from_value(redact_json(&v, style)).ok());
    if probe.is_some() {
        out.probe = probe;
    }
    out
}

/// Remove user-info and redact secret query values (by name or shape), so a lock never
/// records secrets. This form is hashed into committed lockfiles (see the module docs).
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
    let mut out = format!("{scheme}{authority}{}", lock_text(path));
    if let Some(qf) = query_and_fragment {
        let (query, fragment) = match qf.split_once('#') {
            Some((q, f)) => (q, Some(f)),
            None => (qf, None),
        };
        let parts: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((k, v))
                    if SECRET_QUERY_WORDS
                        .iter()
                        .any(|w| k.to_ascii_lowercase().contains(w))
                        || secret_query_value(k, v) =>
                {
                    format!("{k}={LOCK_MARK}")
                }
                _ => lock_text(pair),
            })
            .collect();
        out.push('?');
        out.push_str(&parts.join("&"));
        if let Some(f) = fragment {
            out.push('#');
            out.push_str(&lock_text(f));
        }
    }
    out
}

/// A URL fit to show: user info and the values of secret query parameters (by name or by
/// shape) are replaced by `***`; any other recognised secret is redacted.
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
                Some((k, v))
                    if !v.is_empty() && (is_secret_query_name(k) || secret_query_value(k, v)) =>
                {
                    format!("{k}=***")
                }
                _ => kv.to_owned(),
            })
            .collect();
        out.push('?');
        out.push_str(&parts.join("&"));
    }
    redact_text(&out)
}

/// Build this module's expressions now (see [`crate::audit::warm_up`]).
pub(crate) fn warm_up() {
    LazyLock::force(&URL);
    LazyLock::force(&TOOLS);
}

#[cfg(test)]
mod tests;
