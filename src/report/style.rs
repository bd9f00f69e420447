//! Terminal styling: ANSI colour only when the output is a terminal and `NO_COLOR` is unset.
//!
//! Renderers receive a [`Style`] built from `RenderOptions::color`; the decision whether colour
//! is wanted is made once, at the edge, by [`color_wanted`].

use crate::model::finding::Severity;

/// Whether to colour output written to a stream: only on a terminal, never with `NO_COLOR`
/// set to a non-empty value (<https://no-color.org>), never with `TERM=dumb`.
pub fn color_wanted(stream_is_terminal: bool) -> bool {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let dumb = std::env::var_os("TERM").is_some_and(|v| v == "dumb");
    decide_color(stream_is_terminal, no_color, dumb)
}

/// The pure part of [`color_wanted`].
pub fn decide_color(stream_is_terminal: bool, no_color: bool, term_dumb: bool) -> bool {
    stream_is_terminal && !no_color && !term_dumb
}

/// Whether stdout is a terminal.
pub fn stdout_is_terminal() -> bool {
    use std::io::IsTerminal;
    std::io::stdout().is_terminal()
}

/// Whether stderr is a terminal.
pub fn stderr_is_terminal() -> bool {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal()
}

/// Applies ANSI styles when enabled; a no-op otherwise.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    pub enabled: bool,
}

impl Style {
    pub fn new(enabled: bool) -> Self {
        Style { enabled }
    }

    fn wrap(self, code: &str, text: &str) -> String {
        if self.enabled && !text.is_empty() {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    pub fn bold(self, text: &str) -> String {
        self.wrap("1", text)
    }
    pub fn dim(self, text: &str) -> String {
        self.wrap("2", text)
    }
    pub fn green(self, text: &str) -> String {
        self.wrap("32", text)
    }
    pub fn red(self, text: &str) -> String {
        self.wrap("31", text)
    }
    pub fn yellow(self, text: &str) -> String {
        self.wrap("33", text)
    }

    /// The severity's colour: critical bold red, high red, medium yellow, low cyan, info dim.
    pub fn severity(self, sev: Severity, text: &str) -> String {
        let code = match sev {
            Severity::Critical => "1;31",
            Severity::High => "31",
            Severity::Medium => "33",
            Severity::Low => "36",
            Severity::Info => "2",
        };
        self.wrap(code, text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_only_on_a_terminal_without_no_color() {
        assert!(decide_color(true, false, false));
        assert!(!decide_color(false, false, false));
        assert!(!decide_color(true, true, false));
        assert!(!decide_color(true, false, true));
    }

    #[test]
    fn disabled_style_leaves_text_alone() {
        let s = Style::new(false);
        assert_eq!(s.severity(Severity::High, "high"), "high");
        assert_eq!(Style::new(true).red("x"), "\x1b[31mx\x1b[0m");
    }
}
