//! The report layer: the only code that writes to stdout or stderr.
//!
//! Renderers (table, json v1, sarif, github, markdown review) are pure functions over a
//! [`model::ScanReport`] that return strings; the `write_*`/`print_*` helpers here do the
//! actual I/O (a broken pipe is success). The `--format` values of `scan`/`check` map to their
//! renderers in one place, [`Format::renderer`].

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::io::Write;

use crate::error::Exit;
use crate::model::escape::{self, Stream};
use crate::model::redact::{redact_cow, redact_owned, redact_text};

pub mod grid;
pub mod guard_install;
pub mod progress;
pub mod review;
pub mod rules;
pub mod style;
pub mod suppress;
pub mod text;

/// The report model lives with the pipeline that builds it (floor 4); renderers read it.
pub use crate::pipeline::model;
pub use model::{LockState, OutputSample, Pinning, ScanReport, ServerReport, Suppressed, ToolInfo};

/// The registry of output formats, one line each: `Variant = module::Renderer;` with its doc
/// comment (the `--help` text of the value). The module (one file, declared here) holds a
/// unit struct implementing [`Renderer`]. Nothing else dispatches on the format.
macro_rules! output_formats {
    ($($(#[doc = $doc:literal])* $variant:ident = $module:ident :: $renderer:ident;)*) => {
        $(pub mod $module;)*

        /// The output formats of `scan`/`check`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
        pub enum Format {
            #[default]
            $($(#[doc = $doc])* $variant,)*
        }

        impl Format {
            /// The renderer each format maps to.
            pub fn renderer(self) -> &'static dyn Renderer {
                match self {
                    $(Format::$variant => &$module::$renderer,)*
                }
            }
        }
    };
}

output_formats! {
    /// Summary table and findings for people.
    Table = table::TableFormat;
    /// JSON v1 (see docs/json-v1.md).
    Json = json::JsonFormat;
    /// SARIF 2.1.0 for code scanning.
    Sarif = sarif::SarifFormat;
    /// GitHub Actions annotations.
    Github = github::GithubFormat;
}

impl Format {
    /// Whether the output is written for people (see [`Renderer::for_people`]).
    pub fn for_people(self) -> bool {
        self.renderer().for_people()
    }
}

/// What one `--format` value writes: a whole report as text.
pub trait Renderer {
    /// Render `report` (pure: no I/O). Only formats for people use `opts`.
    fn render(&self, report: &ScanReport, opts: &RenderOptions) -> String;

    /// Whether the output is written for people and shows the report's warnings in its text;
    /// for a machine format, a caller writing to a terminal repeats the warnings on stderr.
    fn for_people(&self) -> bool {
        false
    }
}

/// How to render for people.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RenderOptions {
    /// ANSI colour (`--color`, the environment and whether stdout is a terminal decide: see
    /// [`style::color_wanted`]).
    pub color: bool,
    /// Probe notes, timings, captured stderr, all evidence lines.
    pub verbose: bool,
    /// Findings only: no summary table, warnings or verdict.
    pub quiet: bool,
    /// Width to lay tables and wrap text to.
    pub width: u16,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            color: false,
            verbose: false,
            quiet: false,
            width: 100,
        }
    }
}

impl RenderOptions {
    /// Options for stdout: colour as `--color` and the environment decide (see
    /// [`style::color_wanted`]); the terminal's width (or `COLUMNS`), else 100.
    pub fn for_stdout(verbose: bool, quiet: bool, color: style::ColorChoice) -> Self {
        let tty = style::stdout_is_terminal();
        let width = std::env::var("COLUMNS")
            .ok()
            .and_then(|c| c.parse::<u16>().ok())
            .or_else(|| if tty { crossterm_width() } else { None })
            .unwrap_or(100)
            .clamp(60, 200);
        RenderOptions {
            color: style::color_wanted(color, tty),
            verbose,
            quiet,
            width,
        }
    }
}

/// The terminal's width as comfy-table detects it (stdout must be a terminal).
fn crossterm_width() -> Option<u16> {
    comfy_table::Table::new().width()
}

/// Render a report in one of the machine or people formats.
/// Every renderer sees the report with its secrets redacted, and the text it returns is
/// passed through the redaction module once more (a secret a renderer quoted from elsewhere).
pub fn render(format: Format, report: &ScanReport, opts: &RenderOptions) -> String {
    redact_owned(format.renderer().render(&report.redacted_outline(), opts))
}

/// [`render`] without copying the findings: they are redacted in the report itself (left
/// so afterwards), and the text is not copied again when the last redaction finds nothing.
/// What `scan` and `check` call: for a million findings, the copies were most of the peak.
pub fn render_in_place(format: Format, report: &mut ScanReport, opts: &RenderOptions) -> String {
    let outline = report.redacted_outline_taking_findings();
    let text = format.renderer().render(&outline, opts);
    report.give_back_findings(outline);
    redact_owned(text)
}

/// What to reserve for a report's text: about what its findings take (an over-estimate,
/// which costs nothing: the pages of a large buffer are only taken from the system once
/// written). Without it the text grows by doubling, holding the old and the new buffer at
/// the moment it grows — a transient half again its size, the peak of a large scan.
pub(crate) fn text_capacity(report: &ScanReport) -> usize {
    let strings: usize = report
        .findings
        .iter()
        .map(|f| {
            f.rule.len()
                + f.server.len()
                + f.message.len()
                + f.evidence.as_ref().map_or(0, String::len)
                + f.location.pointer.as_ref().map_or(0, String::len)
                + f.item.as_ref().map_or(0, |i| i.name.len())
        })
        .sum();
    // Escaping seldom more than doubles a string (when it does, the text grows as before);
    // the rest of a finding's record is under 1 KiB.
    (64 << 10) + 2 * strings + 1024 * report.findings.len()
}

/// Render `report` for stdout (colour and width from the terminal for the table) and write
/// it; returns the exit code the report calls for. The one call `scan`/`check` need. The
/// report's findings are left redacted ([`render_in_place`]).
pub fn emit(
    format: Format,
    report: &mut ScanReport,
    verbose: bool,
    quiet: bool,
    color: style::ColorChoice,
) -> std::io::Result<Exit> {
    let opts = RenderOptions::for_stdout(verbose, quiet, color);
    let kind = if format == Format::Github {
        Stream::Annotations
    } else {
        Stream::Text
    };
    write_guarded(&render_in_place(format, report, &opts), kind)?;
    Ok(exit_for(report))
}

/// The exit code a report calls for: 1 when a finding reaches the gate, else 3 when a server
/// could not be probed, else 0. (Usage and config errors, 2, never produce a report.)
pub fn exit_for(report: &ScanReport) -> Exit {
    if report.gated().next().is_some() {
        Exit::Findings
    } else if report.servers.iter().any(|s| s.error.is_some()) {
        Exit::ProbeFailed
    } else {
        Exit::Clean
    }
}

/// Write bytes to stdout; a closed pipe (`mcpvet … | head`) is not an error. Text passes
/// the last guard ([`escape::stream`]): nothing hidden a renderer let through is written raw,
/// and no line starts a GitHub workflow command.
pub fn write_stdout(bytes: &[u8]) -> std::io::Result<()> {
    match std::str::from_utf8(bytes) {
        Ok(text) => write_guarded(text, Stream::Text),
        Err(_) => write_guarded(&String::from_utf8_lossy(bytes), Stream::Text),
    }
}

/// Write `text` to stdout through the last guard for its kind of stream.
fn write_guarded(text: &str, kind: Stream) -> std::io::Result<()> {
    let redacted = redact_cow(text);
    let text = escape::stream(&redacted, kind);
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// `text` for stderr: through the last guard, and every line after the first indented, so
/// a message (an error that quotes a server or a config) cannot start a line of its own.
fn for_stderr(text: &str) -> String {
    let guarded = escape::stream(text, Stream::Text);
    let mut out = String::with_capacity(guarded.len());
    for (i, l) in guarded.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
            if !l.is_empty() && !l.starts_with(' ') {
                out.push_str("  ");
            }
        }
        out.push_str(l);
    }
    out
}

/// The notice every report carries when stdio servers ran without the sandbox
/// (`--no-sandbox`), with the server names made safe to show; `None` when all were sandboxed.
pub fn unsandboxed_notice(names: &[String]) -> Option<String> {
    if names.is_empty() {
        return None;
    }
    Some(crate::model::escape::sanitize(&format!(
        "NOT SANDBOXED (--no-sandbox): {} ran with your user's full access to your files, \
         network and processes. Use --no-sandbox only for servers you already trust.",
        names.join(", ")
    )))
}

/// Print the `--no-sandbox` notice on stderr (for commands whose output is a file: `lock`,
/// `diff`, `snapshot`), even with `--quiet`.
pub fn warn_unsandboxed(names: &[String]) {
    if let Some(n) = unsandboxed_notice(names) {
        eprint_line(&format!("warning: {n}"));
    }
}

/// Write a line to stderr (diagnostics, progress, warnings).
/// Text is passed through the redaction module on the way out.
pub fn eprint_line(line: &str) {
    let _ = writeln!(
        std::io::stderr().lock(),
        "{}",
        for_stderr(&redact_text(line))
    );
}

/// Stderr for `-v` tracing events: each write passes through the redaction module (a
/// server's stderr or an error quoted in an event never shows a secret in full).
pub struct RedactedStderr;

impl Write for RedactedStderr {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let redacted = redact_text(&String::from_utf8_lossy(buf));
        let shown = escape::stream(&redacted, Stream::Text);
        std::io::stderr().lock().write_all(shown.as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().lock().flush()
    }
}

/// The writer `-v` tracing uses.
pub fn redacted_stderr() -> RedactedStderr {
    RedactedStderr
}

/// Print an error with its chain of causes.
pub fn print_error(e: &anyhow::Error) {
    eprint_line(&error_text(e));
}

/// An error and its causes, one per line; a cause the lines above already say (an error
/// whose message includes its source) is not repeated.
pub fn error_text(e: &anyhow::Error) -> String {
    let mut s = format!("error: {e}");
    for cause in e.chain().skip(1) {
        let cause = cause.to_string();
        if cause.trim().is_empty() || s.contains(&cause) {
            continue;
        }
        s.push_str(&format!("\n  caused by: {cause}"));
    }
    s
}

/// Print a clap parse error (or help/version) where clap wants it.
pub fn print_clap(e: &clap::Error) {
    let _ = e.print();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::finding::{
        Confidence, Control, Finding, ItemKind, ItemRef, Location, Severity,
    };
    use crate::model::spec::Origin;

    fn f(sev: Severity, line: u32) -> Finding {
        Finding {
            rule: "r".into(),
            severity: sev,
            confidence: Confidence::High,
            server: "s".into(),
            item: Some(ItemRef {
                kind: ItemKind::Tool,
                name: "t".into(),
            }),
            location: Location {
                config: Some(Origin {
                    file: "a.json".into(),
                    line,
                    column: 3,
                }),
                pointer: Some("/tools/0/description".into()),
            },
            message: "m".into(),
            evidence: None,
            control: Control::Reject,
        }
    }

    #[test]
    fn every_format_has_a_renderer_and_only_the_table_is_for_people() {
        use clap::ValueEnum;
        let people: Vec<Format> = Format::value_variants()
            .iter()
            .copied()
            .filter(|f| f.for_people())
            .collect();
        assert_eq!(people, [Format::Table]);
        let r = ScanReport::new(vec![], vec![], Severity::High);
        for f in Format::value_variants() {
            assert!(
                !render(*f, &r, &RenderOptions::default()).is_empty(),
                "{f:?}"
            );
        }
    }

    #[test]
    fn rendering_in_place_writes_what_rendering_a_copy_writes() {
        // Secrets in a message, in evidence, and named two words back (`NAME = value`, the
        // farthest the lazy word walk looks back); hidden text; several servers.
        let mut a = f(Severity::High, 1);
        a.message = "calls it then API_TOKEN = q8Zr2LmX9vT4wKp7Yc3N".into();
        a.evidence = Some("password=Sup3rS3cretValue Bearer abcdefghijklmnopqrstuvwxyz".into());
        let mut b = f(Severity::Low, 2);
        b.server = "other".into();
        b.message = "plain words\u{200b} only".into();
        let mut c = f(Severity::Critical, 3);
        c.evidence = None;
        let report = ScanReport::new(vec![], vec![a, b, c], Severity::High);
        for format in [Format::Table, Format::Json, Format::Sarif, Format::Github] {
            let copy = render(format, &report, &RenderOptions::default());
            let mut owned = report.clone();
            let in_place = render_in_place(format, &mut owned, &RenderOptions::default());
            assert_eq!(copy, in_place, "{format:?}");
            assert!(
                !in_place.contains("hunter2hunter2"),
                "{format:?}: {in_place}"
            );
            assert!(
                !in_place.contains("Sup3rS3cretValue"),
                "{format:?}: {in_place}"
            );
            assert_eq!(exit_for(&owned), exit_for(&report));
        }
    }

    #[test]
    fn a_megabyte_word_is_clipped_before_the_table_lays_it_out() {
        let mut finding = f(Severity::High, 1);
        finding.message = "m".repeat(1_000_000);
        finding.evidence = Some("e".repeat(1_000_000));
        let mut r = ScanReport::new(vec![], vec![finding], Severity::High);
        r.servers.push(ServerReport {
            name: "s".into(),
            error: Some("E".repeat(7 * 1024 * 1024)),
            ..ServerReport::default()
        });
        let opts = RenderOptions {
            verbose: true,
            ..RenderOptions::default()
        };
        // Clipped before layout: the output is bounded whatever the input (the time this takes
        // is measured by the hostile-output integration tests and the report benchmark).
        let out = render(Format::Table, &r, &opts);
        assert!(out.len() < 64 * 1024, "{} bytes", out.len());
        assert!(out.contains("[truncated, 1000000 bytes]"), "{out}");
        assert!(out.contains("[truncated, 7340032 bytes]"), "{out}");
    }

    #[test]
    fn each_cause_is_printed_once() {
        #[derive(Debug, thiserror::Error)]
        #[error("cannot read a.json: {source}")]
        struct Read {
            source: std::io::Error,
        }
        let io = || std::io::Error::new(std::io::ErrorKind::NotFound, "No such file");
        // The source is part of the message: not repeated as a cause.
        let e = anyhow::Error::new(Read { source: io() });
        assert_eq!(error_text(&e), "error: cannot read a.json: No such file");
        // A context over it adds one line per new cause.
        let e = anyhow::Error::new(io()).context("cannot read b.json");
        assert_eq!(
            error_text(&e),
            "error: cannot read b.json\n  caused by: No such file"
        );
        let e = anyhow::Error::new(Read { source: io() }).context("cannot scan");
        assert_eq!(
            error_text(&e),
            "error: cannot scan\n  caused by: cannot read a.json: No such file"
        );
    }

    #[test]
    fn exit_code_follows_the_gate_then_probe_failures() {
        let mut r = ScanReport::new(vec![], vec![f(Severity::Medium, 1)], Severity::High);
        assert_eq!(exit_for(&r), Exit::Clean);
        r.servers.push(ServerReport {
            name: "down".into(),
            error: Some("exited".into()),
            ..ServerReport::default()
        });
        assert_eq!(exit_for(&r), Exit::ProbeFailed);
        r.findings.push(f(Severity::High, 1));
        assert_eq!(exit_for(&r), Exit::Findings);
        r.fail_on = Severity::Critical;
        assert_eq!(exit_for(&r), Exit::ProbeFailed);
    }
}
