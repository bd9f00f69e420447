//! Terminal styling: ANSI colour decided once, at the edge, from `--color` and the
//! environment; renderers receive a [`Style`] and apply it after layout (see `report::grid`).
//!
//! Precedence, first match wins:
//! 1. `--color always` / `--color never`;
//! 2. `NO_COLOR` set to a non-empty value: no colour (<https://no-color.org>);
//! 3. `CLICOLOR_FORCE` or `FORCE_COLOR` set to a non-empty value other than `0` (or, for
//!    `FORCE_COLOR`, `false`): colour, even when the stream is not a terminal;
//! 4. `CLICOLOR=0` or `TERM=dumb`: no colour;
//! 5. otherwise colour exactly when the stream is a terminal.

use crate::model::finding::Severity;

/// `--color`: when to colour output for people.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorChoice {
    /// Colour on a terminal, unless the environment says otherwise (NO_COLOR, CLICOLOR_FORCE,
    /// FORCE_COLOR, CLICOLOR, TERM=dumb).
    #[default]
    Auto,
    /// Always colour, whatever the stream and the environment.
    Always,
    /// Never colour.
    Never,
}

/// What the environment says about colour (the variables [`decide_color`] reads).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ColorEnv {
    pub no_color: Option<String>,
    pub clicolor_force: Option<String>,
    pub force_color: Option<String>,
    pub clicolor: Option<String>,
    pub term: Option<String>,
}

impl ColorEnv {
    /// The variables of this process.
    pub fn from_process() -> Self {
        let var = |k: &str| std::env::var_os(k).map(|v| v.to_string_lossy().into_owned());
        ColorEnv {
            no_color: var("NO_COLOR"),
            clicolor_force: var("CLICOLOR_FORCE"),
            force_color: var("FORCE_COLOR"),
            clicolor: var("CLICOLOR"),
            term: var("TERM"),
        }
    }
}

/// Whether to colour output written to a stream (see the module doc for the precedence).
pub fn color_wanted(choice: ColorChoice, stream_is_terminal: bool) -> bool {
    decide_color(choice, stream_is_terminal, &ColorEnv::from_process())
}

/// The pure part of [`color_wanted`].
pub fn decide_color(choice: ColorChoice, stream_is_terminal: bool, env: &ColorEnv) -> bool {
    let set = |v: &Option<String>| v.as_deref().is_some_and(|v| !v.is_empty());
    let forced = |v: &Option<String>| {
        v.as_deref()
            .is_some_and(|v| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"))
    };
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto if set(&env.no_color) => false,
        ColorChoice::Auto if forced(&env.clicolor_force) || forced(&env.force_color) => true,
        ColorChoice::Auto => {
            let off = env.clicolor.as_deref() == Some("0") || env.term.as_deref() == Some("dumb");
            stream_is_terminal && !off
        }
    }
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

    /// `text` in `paint` (unchanged when colour is off or `paint` is plain).
    pub fn paint(self, paint: Paint, text: &str) -> String {
        match paint {
            Paint::Plain => text.to_owned(),
            Paint::Bold => self.bold(text),
            Paint::Dim => self.dim(text),
            Paint::Green => self.green(text),
            Paint::Red => self.red(text),
            Paint::Yellow => self.yellow(text),
            Paint::Severity(s) => self.severity(s, text),
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

/// A style named as data, applied by [`Style::paint`] once text is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Paint {
    #[default]
    Plain,
    Bold,
    Dim,
    Green,
    Red,
    Yellow,
    Severity(Severity),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_follows_the_documented_precedence() {
        let env = |pairs: &[(&str, &str)]| {
            let get = |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| (*v).to_owned())
            };
            ColorEnv {
                no_color: get("NO_COLOR"),
                clicolor_force: get("CLICOLOR_FORCE"),
                force_color: get("FORCE_COLOR"),
                clicolor: get("CLICOLOR"),
                term: get("TERM"),
            }
        };
        use ColorChoice::*;
        let none = env(&[]);
        // auto: a terminal only.
        assert!(decide_color(Auto, true, &none));
        assert!(!decide_color(Auto, false, &none));
        // The flag beats every variable.
        assert!(decide_color(Always, false, &env(&[("NO_COLOR", "1")])));
        assert!(!decide_color(Never, true, &env(&[("FORCE_COLOR", "1")])));
        // NO_COLOR beats the forcing variables; an empty NO_COLOR means nothing.
        assert!(!decide_color(
            Auto,
            true,
            &env(&[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")])
        ));
        assert!(decide_color(Auto, true, &env(&[("NO_COLOR", "")])));
        // Forcing colours a pipe; 0/false/empty do not force.
        assert!(decide_color(Auto, false, &env(&[("CLICOLOR_FORCE", "1")])));
        assert!(decide_color(Auto, false, &env(&[("FORCE_COLOR", "3")])));
        assert!(!decide_color(Auto, false, &env(&[("FORCE_COLOR", "0")])));
        assert!(!decide_color(
            Auto,
            false,
            &env(&[("FORCE_COLOR", "false")])
        ));
        assert!(!decide_color(Auto, false, &env(&[("CLICOLOR_FORCE", "")])));
        // Forcing beats TERM=dumb and CLICOLOR=0; without it they turn colour off.
        assert!(decide_color(
            Auto,
            true,
            &env(&[("TERM", "dumb"), ("FORCE_COLOR", "1")])
        ));
        assert!(!decide_color(Auto, true, &env(&[("TERM", "dumb")])));
        assert!(!decide_color(Auto, true, &env(&[("CLICOLOR", "0")])));
    }

    #[test]
    fn disabled_style_leaves_text_alone() {
        let s = Style::new(false);
        assert_eq!(s.severity(Severity::High, "high"), "high");
        assert_eq!(Style::new(true).red("x"), "\x1b[31mx\x1b[0m");
    }
}
