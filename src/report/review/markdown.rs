//! Markdown building blocks for the review: a line writer, code spans, table cells, block
//! quotes, numbers, and the words each control and status is shown with.

use serde_json::Value;

use super::decision::ControlStatus;
use crate::model::escape;
use crate::model::finding::Control;

/// The review being written, one line at a time.
#[derive(Debug, Default)]
pub(super) struct Md(String);

impl Md {
    /// Append `line` and a newline. Whatever it quotes, it stays one line: hidden characters
    /// and newlines are shown as escapes (`\n`, `\e`), so no name or description can start
    /// a heading, a list item or a decision of its own.
    pub(super) fn line(&mut self, line: &str) {
        self.0.push_str(&escape::line(line));
        self.0.push('\n');
    }

    /// Append a block whose lines mcpvet laid out (each already prefixed, e.g. a block
    /// quote): every line is written as by [`Md::line`].
    pub(super) fn block(&mut self, block: &str) {
        for l in block.split('\n') {
            self.line(l);
        }
    }

    /// Append an empty line.
    pub(super) fn blank(&mut self) {
        self.0.push('\n');
    }

    /// Everything written so far.
    pub(super) fn into_string(self) -> String {
        self.0
    }
}

/// How a control's status reads in the controls table.
pub(super) fn status_label(status: ControlStatus) -> &'static str {
    match status {
        ControlStatus::Blocking => "**required first**",
        ControlStatus::Standard => "required (standard)",
        ControlStatus::InPlace => "in place",
    }
}

/// A control's name in the controls table.
pub(super) fn control_title(c: Control) -> &'static str {
    match c {
        Control::ReviewDefinitions => "Review the source and the complete definitions",
        Control::PinVersion => "Pin an exact version and verify it",
        Control::LockAndReapprove => "Lock the definitions; re-approve on change",
        Control::LeastPrivilegeCredential => "Dedicated, least-privilege credential",
        Control::SecretReference => "No secrets in config files",
        Control::Sandbox => "Sandbox (limited file and network access)",
        Control::ConfirmSensitiveCalls => "Confirmation for sensitive calls",
        Control::Allowlist => "Team allowlist",
        Control::AuditLog => "Audit logs",
        Control::SecureTransport => "Secure transport",
        Control::StreamableHttp => "Streamable HTTP",
        Control::TreatAsUntrusted => "Treat output and annotations as untrusted",
        Control::Reject => "Remove the offending definition",
    }
}

/// Total characters of every string (keys included) in a JSON value: what the model reads.
pub(super) fn text_chars(v: &Value) -> usize {
    match v {
        Value::String(s) => s.chars().count(),
        Value::Array(a) => a.iter().map(text_chars).sum(),
        Value::Object(m) => m
            .iter()
            .map(|(k, v)| k.chars().count() + text_chars(v))
            .sum(),
        _ => 0,
    }
}

/// `s` as an inline code span on one line that nothing inside can close (see
/// [`escape::md_code`]).
pub(super) fn md_code(s: &str) -> String {
    escape::md_code(s)
}

/// A name as written in prose: plain when it is only letters, digits and `._-@/:+`, else a
/// code span (markdown in a name stays inert).
pub(super) fn md_name(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_alphanumeric() || "._-@/:+".contains(c))
    {
        s.to_owned()
    } else {
        md_code(s)
    }
}

/// A finding's item for the review: its kind and its name in a code span (`tool `x``).
pub(super) fn item_code(f: &crate::model::finding::Finding) -> Option<String> {
    let label = crate::report::table::item_label(f)?;
    Some(match f.item.as_ref() {
        Some(i) if !i.name.is_empty() && label.ends_with(i.name.as_str()) => {
            let kind = &label[..label.len() - i.name.len()];
            format!("{kind}{}", md_code(&i.name))
        }
        _ => label,
    })
}

/// `s` safe inside a table cell: one line, pipes escaped.
pub(super) fn md_cell(s: &str) -> String {
    escape::line(s).replace('|', "\\|")
}

/// `items` as code spans, comma-separated.
pub(super) fn code_list(items: &[String]) -> String {
    items
        .iter()
        .map(|c| md_code(c))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `s` as a block quote (HTML tags and headings made inert: a quoted `## Decision` stays
/// text).
pub(super) fn quote(s: &str) -> String {
    s.lines()
        .map(|l| {
            if l.is_empty() {
                ">".to_owned()
            } else if l.trim_start().starts_with('#') {
                format!("> \\{}", l.trim_start().replace('<', "&lt;"))
            } else {
                format!("> {}", l.replace('<', "&lt;"))
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `n` with thousands separators (`12,345`).
pub(super) fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_get_thousands_separators() {
        assert_eq!(thousands(7), "7");
        assert_eq!(thousands(1234), "1,234");
        assert_eq!(thousands(1234567), "1,234,567");
    }

    #[test]
    fn code_spans_survive_backticks_and_newlines() {
        assert_eq!(md_code("a\nb"), "`a\\nb`");
        assert_eq!(md_code("a`b"), "`` a`b ``");
        assert_eq!(md_code("```"), "```` ``` ````");
        assert_eq!(md_name("ci-insights"), "ci-insights");
        assert_eq!(md_name("x <b>"), "`x <b>`");
    }
}
