//! The one place that decides how text a server or a repository controls is shown: names,
//! descriptions, stderr, error messages, config keys and URLs never reach a terminal, a log,
//! a markdown review or a GitHub workflow command raw.
//!
//! The rule: control characters (C0, C1, DEL), escape sequences, bidirectional controls,
//! zero-width and other invisible format characters are *shown* (`\e`, `\u{202E}`), never
//! emitted; in text that must stay on one line (a name, a key, a URL, a path) newlines are
//! shown too (`\n`). Server text is clipped to a bounded size, with the original length
//! noted, before it is laid out.
//!
//! - [`line`]: one line of terminal or log text (newlines shown as `\n`);
//! - [`sanitize`]: a block of text whose line breaks are kept (every line escaped as by
//!   [`line`]; the caller prefixes each line);
//! - [`clip`]: bound server text before any renderer lays it out;
//! - [`stream`]: the last guard on everything written to stdout or stderr;
//! - [`json_text`]: serialized JSON with hidden characters written as `\uXXXX` escapes;
//! - [`md_code`]: a markdown code span no content can close;
//! - [`visible`]: the diff view, where every invisible character and meaningful whitespace is
//!   drawn (`<U+200B>`, `⇥`, `·`);
//! - [`workflow_data`] / [`workflow_property`]: GitHub Actions workflow-command escaping.

use std::borrow::Cow;
use std::fmt::Write as _;

/// How much server text a renderer receives at most (bytes of one field: an error message,
/// a description, captured stderr); longer text is cut by [`clip`].
pub const MAX_SHOWN_BYTES: usize = 4096;

/// Whether `c` is a character that must never be emitted raw: C0 and C1 controls, DEL,
/// bidirectional controls, zero-width and other invisible format characters, line and
/// paragraph separators, and Unicode tag characters. Newline is hidden too (callers that keep
/// line breaks split on them first).
pub fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(c as u32,
            0x00AD | 0x034F | 0x061C | 0x115F | 0x1160 | 0x17B4 | 0x17B5 | 0x180B..=0x180F
            | 0x200B..=0x200F | 0x2028..=0x202E | 0x2060..=0x206F | 0x3164 | 0xFE00..=0xFE0F
            | 0xFEFF | 0xFFA0 | 0xFFF0..=0xFFFB | 0x1D173..=0x1D17A | 0xE0000..=0xE0FFF)
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\u{1b}' => out.push_str("\\e"),
        '\0' => out.push_str("\\0"),
        c => {
            let _ = write!(out, "\\u{{{:X}}}", c as u32);
        }
    }
}

/// One line of text from a server or a repository, safe on a terminal or in a log: every
/// hidden character (see [`is_hidden`]), newlines and tabs included, is shown as an escape
/// (`\n`, `\e`, `\u{202E}`), so hostile text can neither move the cursor, recolour or
/// retitle the terminal, reorder or hide a line, nor start a line of its own.
pub fn line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if is_hidden(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    out
}

/// A block of text whose line breaks are kept (captured stderr, an error with its causes):
/// each line is escaped as by [`line`] (a carriage return is shown, never obeyed). The caller
/// decides what each line starts with.
pub fn sanitize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, l) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&line(l));
    }
    out
}

/// `text` cut to at most `max` bytes (on a character boundary), with the original length
/// noted: `… [truncated, 7340032 bytes]`. Short text is returned as is.
pub fn clip(text: &str, max: usize) -> Cow<'_, str> {
    if text.len() <= max {
        return Cow::Borrowed(text);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    // A cut inside a secret would leave a piece that no longer looks like one, and so would
    // be shown in clear by whatever redacts the clipped text: the secret is left out whole.
    let end = super::redact::SecretMap::of(text).widen(end, false);
    Cow::Owned(format!(
        "{}… [truncated, {} bytes]",
        &text[..end],
        text.len()
    ))
}

/// [`clip`] to [`MAX_SHOWN_BYTES`], owned: what the probe keeps of a server's error message.
pub fn clip_shown(text: &str) -> String {
    clip(text, MAX_SHOWN_BYTES).into_owned()
}

/// The SGR sequences mcpvet's own styling writes (bold, dim, reset, red, green, yellow,
/// cyan, bold red); [`stream`] lets exactly these through.
const OWN_SGR: &[&str] = &["0", "1", "2", "31", "32", "33", "36", "1;31"];

/// The length of an SGR sequence mcpvet writes itself at the start of `rest`, if it is one.
fn own_sgr(rest: &str) -> Option<usize> {
    let body = rest.strip_prefix("\u{1b}[")?;
    let end = body.find('m')?;
    OWN_SGR.contains(&&body[..end]).then_some(2 + end + 1)
}

/// Which stream [`stream`] guards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// Text for people (table, diff, review, messages): no line starts with `::`.
    Text,
    /// GitHub workflow commands: lines start with `::` by design (their data is escaped by
    /// [`workflow_data`]).
    Annotations,
}

/// The last guard on everything mcpvet writes to stdout or stderr: any hidden character a
/// renderer let through is written as a `\uXXXX` escape (valid inside JSON strings, where
/// raw C1 or bidi characters could otherwise sit, and visible elsewhere), except newlines,
/// tabs and mcpvet's own colour codes; and, in text for people, a line that starts with `::`
/// (a GitHub workflow command) gets its first colon escaped.
pub fn stream(text: &str, kind: Stream) -> Cow<'_, str> {
    // The runner trims leading whitespace before it looks for a workflow command.
    let starts_command = |l: &str| kind == Stream::Text && l.trim_start().starts_with("::");
    let clean = text
        .chars()
        .all(|c| c == '\n' || c == '\t' || !is_hidden(c))
        && !text.split('\n').any(starts_command);
    if clean {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for (n, l) in text.split('\n').enumerate() {
        if n > 0 {
            out.push('\n');
        }
        let mut rest = l;
        if starts_command(l) {
            let indent = l.len() - l.trim_start().len();
            out.push_str(&l[..indent]);
            out.push_str("\\u{3A}");
            rest = &l[indent + 1..];
        }
        let mut iter = rest.char_indices();
        while let Some((i, c)) = iter.next() {
            let sgr = if c == '\u{1b}' {
                own_sgr(&rest[i..])
            } else {
                None
            };
            match sgr {
                Some(n) => {
                    out.push_str(&rest[i..i + n]);
                    for _ in 1..n {
                        iter.next();
                    }
                }
                None if c == '\t' || !is_hidden(c) => out.push(c),
                None => json_escape(&mut out, c),
            }
        }
    }
    Cow::Owned(out)
}

fn json_escape(out: &mut String, c: char) {
    let mut units = [0u16; 2];
    for u in c.encode_utf16(&mut units) {
        let _ = write!(out, "\\u{:04x}", u);
    }
}

/// Serialized JSON with every hidden character that is not already escaped (C1 controls,
/// bidi controls, zero-width and tag characters: serde escapes only C0) written as a `\uXXXX`
/// escape. Outside strings JSON is ASCII, so this never changes the value, only how a viewer
/// or a terminal shows it.
pub fn json_text(json: String) -> String {
    if !json.chars().any(is_hidden_in_json) {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if is_hidden_in_json(c) {
            json_escape(&mut out, c);
        } else {
            out.push(c);
        }
    }
    out
}

fn is_hidden_in_json(c: char) -> bool {
    !c.is_ascii() && is_hidden(c)
}

/// `text` as a markdown code span on one line that nothing inside can close: hidden
/// characters and newlines escaped as by [`line`], fenced by more backticks than the longest
/// run inside, padded with spaces when it starts or ends with a backtick.
pub fn md_code(text: &str) -> String {
    let s = line(text);
    let mut longest = 0;
    let mut run = 0;
    for c in s.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let fence = "`".repeat(longest + 1);
    if longest > 0 || s.starts_with(' ') || s.ends_with(' ') || s.is_empty() {
        format!("{fence} {s} {fence}")
    } else {
        format!("{fence}{s}{fence}")
    }
}

/// Make invisible characters visible: format characters (zero-width, bidi controls, tags,
/// variation selectors, soft hyphen) as `<U+XXXX>`, tabs as `⇥`, carriage returns as `␍`,
/// trailing spaces as `·`; with `all_whitespace`, every space is `·` and every line end `⏎`.
pub fn visible(s: &str, all_whitespace: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for line in s.split_inclusive('\n') {
        let (body, nl) = match line.strip_suffix('\n') {
            Some(b) => (b, true),
            None => (line, false),
        };
        let trail_from = body.trim_end_matches(' ').len();
        for (i, c) in body.char_indices() {
            match c {
                ' ' if all_whitespace || i >= trail_from => out.push('·'),
                '\t' => out.push('⇥'),
                '\r' => out.push('␍'),
                c if is_invisible(c) => {
                    let _ = write!(out, "<U+{:04X}>", c as u32);
                }
                c => out.push(c),
            }
        }
        if nl {
            if all_whitespace {
                out.push('⏎');
            }
            out.push('\n');
        }
    }
    out
}

fn is_invisible(c: char) -> bool {
    matches!(c as u32,
        0x00..=0x08 | 0x0B..=0x0C | 0x0E..=0x1F | 0x7F..=0x9F | 0xAD | 0x034F | 0x061C
        | 0x115F | 0x1160 | 0x17B4 | 0x17B5 | 0x180B..=0x180F | 0x200B..=0x200F
        | 0x202A..=0x202E | 0x2060..=0x206F | 0x3164 | 0xFE00..=0xFE0F | 0xFEFF | 0xFFA0
        | 0xFFF0..=0xFFFB | 0x1D173..=0x1D17A | 0xE0000..=0xE0FFF)
        || c == '\u{00A0}'
        || ('\u{2000}'..='\u{200A}').contains(&c)
        || c == '\u{2028}'
        || c == '\u{2029}'
        || c == '\u{3000}'
}

/// Escape a workflow-command message: `%`, CR and LF (other control characters are made
/// visible first, so hostile text cannot start a new command or restyle the log).
pub fn workflow_data(s: &str) -> String {
    let s = s.replace("\r\n", "\n").replace('\r', "\n");
    sanitize(&s)
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escape a workflow-command property value: as data, plus `:` and `,`.
pub fn workflow_property(s: &str) -> String {
    workflow_data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_follow_the_workflow_command_rules() {
        assert_eq!(workflow_data("50% a\r\nb"), "50%25 a%0Ab");
        assert_eq!(workflow_data("a\rb\x1b[2K"), "a%0Ab\\e[2K");
        assert_eq!(workflow_property("a:b,c%"), "a%3Ab%2Cc%25");
        assert_eq!(workflow_data("::error::x"), "::error::x");
    }

    #[test]
    fn sanitize_makes_terminal_tricks_visible() {
        assert_eq!(sanitize("a\x1b[31mb"), "a\\e[31mb");
        assert_eq!(sanitize("x\u{202E}y\u{E0041}"), "x\\u{202E}y\\u{E0041}");
        assert_eq!(sanitize("line\nnext\ttab"), "line\nnext\\ttab");
        assert_eq!(sanitize("cr\r\nover"), "cr\\r\nover");
        assert_eq!(sanitize("héllo — ok"), "héllo — ok");
    }

    #[test]
    fn line_shows_every_hidden_character_and_newline() {
        assert_eq!(line("a\n::error::x"), "a\\n::error::x");
        assert_eq!(
            line("\x07\x7f\u{9b}\u{200b}\0"),
            "\\u{7}\\u{7F}\\u{9B}\\u{200B}\\0"
        );
        assert_eq!(
            line("\u{61c}\u{200e}\u{2066}"),
            "\\u{61C}\\u{200E}\\u{2066}"
        );
        assert!(
            line("\x1b]8;;http://x\x1b\\l")
                .chars()
                .all(|c| !is_hidden(c))
        );
    }

    #[test]
    fn a_clip_leaves_out_a_secret_it_would_cut() {
        let token = format!("ghp_{}", "aB3dE5gH7jK9mN1pQ2sT4vW6yZ8cD0fG2hJ4");
        let text = format!("error: bad credentials {token} for this request");
        for max in 0..text.len() {
            let shown = super::super::redact::redact_text(&clip(&text, max));
            assert!(!shown.contains(&token[4..12]), "{max}: {shown}");
            assert!(!shown.contains(&token[20..28]), "{max}: {shown}");
        }
    }

    #[test]
    fn clip_notes_the_original_length() {
        assert_eq!(clip("abc", 3), "abc");
        assert_eq!(clip("abcdef", 3), "abc… [truncated, 6 bytes]");
        // Never splits a character.
        assert_eq!(clip("éé", 3), "é… [truncated, 4 bytes]");
    }

    #[test]
    fn stream_guard_keeps_own_colours_and_escapes_the_rest() {
        assert_eq!(
            stream("\x1b[1mok\x1b[0m\n", Stream::Text),
            "\x1b[1mok\x1b[0m\n"
        );
        assert_eq!(stream("\x1b[8mhid", Stream::Text), "\\u001b[8mhid");
        assert_eq!(stream("a\n::error::x", Stream::Text), "a\n\\u{3A}:error::x");
        assert_eq!(
            stream("::error x::y\n", Stream::Annotations),
            "::error x::y\n"
        );
        assert_eq!(
            stream("a\n  ::warning::x", Stream::Text),
            "a\n  \\u{3A}:warning::x"
        );
        assert_eq!(stream("\u{E0041}", Stream::Text), "\\udb40\\udc41");
    }

    #[test]
    fn json_text_escapes_hidden_characters_without_changing_the_value() {
        let raw = serde_json::to_string(&"a\u{9b}b\u{202e}c\u{E0041}").unwrap_or_default();
        let shown = json_text(raw);
        assert!(shown.is_ascii(), "{shown}");
        let back: String = serde_json::from_str(&shown).unwrap_or_default();
        assert_eq!(back, "a\u{9b}b\u{202e}c\u{E0041}");
    }

    #[test]
    fn code_spans_cannot_be_closed_from_inside() {
        assert_eq!(md_code("a"), "`a`");
        assert_eq!(md_code("a``b"), "``` a``b ```");
        assert_eq!(md_code("x\n## y"), "`x\\n## y`");
    }

    #[test]
    fn visible_marks_trailing_and_hidden() {
        assert_eq!(visible("a b  ", false), "a b··");
        assert_eq!(visible("a\tb\u{200B}", false), "a⇥b<U+200B>");
        assert_eq!(visible("a b\n", true), "a·b⏎\n");
    }
}
