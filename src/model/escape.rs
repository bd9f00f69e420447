//! The one place that decides how text a server or a repository controls is shown: names,
//! descriptions, stderr, error messages, config keys and URLs never reach a terminal, a log or
//! a GitHub workflow command raw.
//!
//! - [`sanitize`]: terminal and log text (control characters, bidi and zero-width characters
//!   and tag characters become visible `\u{…}` escapes);
//! - [`visible`]: the diff view, where every invisible character and meaningful whitespace is
//!   drawn (`<U+200B>`, `⇥`, `·`);
//! - [`workflow_data`] / [`workflow_property`]: GitHub Actions workflow-command escaping.

use std::fmt::Write as _;

/// Make text from a server or a config safe to show on a terminal or in a log: control
/// characters (except newline), bidirectional overrides, zero-width characters and Unicode
/// tag characters become visible `\u{…}` escapes, so hostile text cannot move the cursor,
/// recolour the terminal, reorder a line or hide a message. Tabs become spaces.
pub fn sanitize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let cp = c as u32;
        let hidden = (c.is_control() && c != '\n' && c != '\t')
            || (0x200B..=0x200F).contains(&cp)
            || (0x202A..=0x202E).contains(&cp)
            || (0x2060..=0x2069).contains(&cp)
            || cp == 0xFEFF
            || cp == 0x00AD
            || (0xE0000..=0xE007F).contains(&cp);
        if c == '\t' {
            out.push(' ');
        } else if hidden {
            out.push_str(&format!("\\u{{{cp:X}}}"));
        } else {
            out.push(c);
        }
    }
    out
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
        assert_eq!(workflow_data("a\rb\x1b[2K"), "a%0Ab\\u{1B}[2K");
        assert_eq!(workflow_property("a:b,c%"), "a%3Ab%2Cc%25");
        assert_eq!(workflow_data("::error::x"), "::error::x");
    }

    #[test]
    fn sanitize_makes_terminal_tricks_visible() {
        assert_eq!(sanitize("a\x1b[31mb"), "a\\u{1B}[31mb");
        assert_eq!(sanitize("x\u{202E}y\u{E0041}"), "x\\u{202E}y\\u{E0041}");
        assert_eq!(sanitize("line\nnext\ttab"), "line\nnext tab");
        assert_eq!(sanitize("héllo — ok"), "héllo — ok");
    }

    #[test]
    fn visible_marks_trailing_and_hidden() {
        assert_eq!(visible("a b  ", false), "a b··");
        assert_eq!(visible("a\tb\u{200B}", false), "a⇥b<U+200B>");
        assert_eq!(visible("a b\n", true), "a·b⏎\n");
    }
}
