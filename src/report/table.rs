//! The terminal report: a summary table per server, then findings grouped by server (worst
//! first) with location, evidence and the fix, then warnings and a one-line verdict.

use super::model::{LockState, Pinning, ScanReport, ServerOutcome, ServerReport};
use super::grid::{Grid, GridCell};
use super::style::{Paint, Style};
use super::text::{plural, wrap};
use super::{RenderOptions, Renderer};
use crate::model::escape::{MAX_SHOWN_BYTES, clip, line, sanitize};
use crate::model::finding::{Finding, ItemKind, Severity};

/// The most bytes of a name, command or credential shown in a summary-table cell.
const CELL_BYTES: usize = 256;

/// Evidence longer than this many wrapped lines is cut unless `--verbose`.
const EVIDENCE_LINES: usize = 8;

/// `--format table`: the report for people, in the terminal.
#[derive(Debug, Clone, Copy)]
pub struct TableFormat;

impl Renderer for TableFormat {
    fn render(&self, report: &ScanReport, opts: &RenderOptions) -> String {
        render(report, opts)
    }

    fn for_people(&self) -> bool {
        true
    }
}

/// Render the terminal report.
pub fn render(report: &ScanReport, opts: &RenderOptions) -> String {
    let st = Style::new(opts.color);
    let width = usize::from(opts.width.max(40));
    let mut out = String::new();

    // Shown first and even with --quiet: the reader must know the servers were not confined.
    if let Some(n) = super::unsandboxed_notice(&report.unsandboxed) {
        for l in wrap(&n, width) {
            out.push_str(&st.red(&l));
            out.push('\n');
        }
    }
    if !opts.quiet {
        out.push_str(&st.bold(&format!(
            "{} {} — {}, gate: --fail-on {}",
            report.tool.name,
            report.tool.version,
            plural(report.servers.len(), "server", "servers"),
            report.fail_on
        )));
        out.push('\n');
        for src in &report.sources {
            out.push_str(&format!("  read {}\n", line(src)));
        }
        if !report.servers.is_empty() {
            out.push_str(&summary_table(report, opts));
            out.push('\n');
        }
    }

    let mut any = false;
    for server in server_order(report) {
        let findings = report.findings_for(&server);
        let error = report.server(&server).and_then(|s| s.error.as_deref());
        if findings.is_empty() && error.is_none() {
            continue;
        }
        any = true;
        out.push('\n');
        let c = report.counts(Some(&server));
        let shown = line(&clip(&server, CELL_BYTES));
        let heading = if findings.is_empty() {
            shown
        } else {
            format!(
                "{shown} — {} ({})",
                plural(findings.len(), "finding", "findings"),
                count_words(&c)
            )
        };
        out.push_str(&st.bold(&heading));
        out.push('\n');
        if let Some(e) = error {
            for (i, l) in wrap(
                &sanitize(&format!("could not be probed: {}", clip(e, 4 * MAX_SHOWN_BYTES))),
                width - 4,
            )
                .iter()
                .enumerate()
            {
                let l = if i == 0 { st.red(l) } else { l.clone() };
                out.push_str(&format!("  {l}\n"));
            }
        }
        if opts.verbose {
            if let Some(s) = report.server(&server) {
                out.push_str(&probe_notes(s, width));
            }
        }
        for f in findings {
            out.push_str(&finding_block(report, f, opts, st, width));
        }
    }
    if !any && !opts.quiet {
        out.push('\n');
        out.push_str(&st.green("No findings."));
        out.push('\n');
    }

    if !opts.quiet {
        if !report.suppressed.is_empty() {
            out.push('\n');
            let n: usize = report.suppressed.iter().map(|s| s.count).sum();
            out.push_str(&format!(
                "{} suppressed (policy ignores, baseline, approvals):\n",
                plural(n, "finding", "findings")
            ));
            for s in &report.suppressed {
                let scope = s
                    .server
                    .as_deref()
                    .map(|n| format!(" on {n}"))
                    .unwrap_or_default();
                out.push_str(&line(&format!(
                    "  {}{scope} ×{}: {}",
                    s.rule, s.count, s.reason
                )));
                out.push('\n');
            }
        }
        if !report.warnings.is_empty() {
            out.push('\n');
            for w in &report.warnings {
                for (i, l) in wrap(&line(&clip(w, MAX_SHOWN_BYTES)), width - 9).iter().enumerate() {
                    let prefix = if i == 0 {
                        st.yellow("warning:")
                    } else {
                        "        ".into()
                    };
                    out.push_str(&format!("{prefix} {l}\n"));
                }
            }
        }
        out.push('\n');
        let verdict = report.verdict();
        let gated = report.gated().next().is_some();
        let probe_failed = report.servers.iter().any(|s| s.error.is_some());
        let line = if gated {
            st.red(&verdict)
        } else if probe_failed {
            st.yellow(&verdict)
        } else {
            st.green(&verdict)
        };
        out.push_str(&st.bold(&line));
        out.push('\n');
    }
    out
}

/// Servers in report order, then any server only findings name.
fn server_order(report: &ScanReport) -> Vec<String> {
    let mut names: Vec<String> = report.servers.iter().map(|s| s.name.clone()).collect();
    for f in &report.findings {
        if !names.contains(&f.server) {
            names.push(f.server.clone());
        }
    }
    // Worst servers first; ties keep report order.
    let worst = |n: &String| {
        report
            .findings
            .iter()
            .filter(|f| &f.server == n)
            .map(|f| f.severity)
            .max()
    };
    let mut indexed: Vec<(usize, String)> = names.into_iter().enumerate().collect();
    indexed.sort_by_key(|(i, n)| (std::cmp::Reverse(worst(n)), *i));
    indexed.into_iter().map(|(_, n)| n).collect()
}

fn count_words(c: &[usize; 5]) -> String {
    let parts: Vec<String> = Severity::ALL
        .iter()
        .rev()
        .filter(|s| c[**s as usize] > 0)
        .map(|s| format!("{} {}", c[*s as usize], s))
        .collect();
    if parts.is_empty() {
        "none".into()
    } else {
        parts.join(", ")
    }
}

fn summary_table(report: &ScanReport, opts: &RenderOptions) -> String {
    let mut t = Grid::new(&[
        "server",
        "runs",
        "credentials",
        "protocol",
        "findings",
        "lock",
    ]);
    for s in &report.servers {
        let c = report.counts(Some(&s.name));
        let creds = s.credential_names();
        let items = match s.item_counts() {
            Some((t, 0, 0)) => plural(t, "tool", "tools"),
            Some((t, p, r)) => format!(
                "{}, {}, {}",
                plural(t, "tool", "tools"),
                plural(p, "prompt", "prompts"),
                plural(r, "resource", "resources")
            ),
            None => String::new(),
        };
        let outcome = match report.outcome(s) {
            ServerOutcome::Passes => ("pass", Paint::Green),
            ServerOutcome::Fails => ("FAIL", Paint::Red),
            ServerOutcome::NotProbed => ("not probed", Paint::Yellow),
        };
        let pinned = match &s.pinning {
            Pinning::Unpinned { .. } => ("NOT pinned".to_owned(), Paint::Yellow),
            Pinning::Pinned { .. } => ("pinned".to_owned(), Paint::Plain),
            other => (other.label(), Paint::Plain),
        };
        let lock = match s.lock {
            LockState::Drifted => GridCell::default().line("drifted", Paint::Red),
            other => GridCell::plain(other.as_str()),
        };
        let era = if s.error.is_some() {
            GridCell::default().line("probe failed", Paint::Yellow)
        } else {
            GridCell::plain(&line(&clip(&s.era_label(), CELL_BYTES))).line(&items, Paint::Plain)
        };
        let counts = Severity::ALL
            .iter()
            .rev()
            .filter(|x| c[**x as usize] > 0)
            .fold(GridCell::default(), |cell, x| {
                cell.line(
                    &format!("{} {}", c[*x as usize], x),
                    Paint::Severity(*x),
                )
            });
        let creds = if creds.is_empty() {
            "-".to_owned()
        } else {
            creds
                .iter()
                .map(|c| line(&clip(c, CELL_BYTES)))
                .collect::<Vec<_>>()
                .join("\n")
        };
        t.row([
            GridCell::plain(&line(&clip(&s.name, CELL_BYTES))).line(outcome.0, outcome.1),
            GridCell::plain(&line(&clip(&s.what_runs(), CELL_BYTES))).line(&pinned.0, pinned.1),
            GridCell::plain(&creds),
            era,
            if counts == GridCell::default() {
                GridCell::plain("none")
            } else {
                counts
            },
            lock,
        ]);
    }
    t.render(opts.width, Style::new(opts.color))
}

fn probe_notes(s: &ServerReport, width: usize) -> String {
    let mut out = String::new();
    let Some(p) = s.snapshot.as_ref().and_then(|x| x.probe.as_ref()) else {
        return out;
    };
    let mut text = format!("  probe: {}", p.transport);
    if p.elapsed_ms > 0 {
        text.push_str(&format!(", {} ms", p.elapsed_ms));
    }
    if let Some(first) = p.first_response_ms {
        text.push_str(&format!(" (first answer after {first} ms)"));
    }
    if let Some(path) = &s.snapshot_path {
        text.push_str(&format!(", from {}", path.display()));
    }
    out.push_str(&line(&text));
    out.push('\n');
    for n in &p.notes {
        for l in wrap(
            &line(&format!("note: {}", clip(n, MAX_SHOWN_BYTES))),
            width - 4,
        ) {
            out.push_str(&format!("  {l}\n"));
        }
    }
    if !p.stderr.is_empty() {
        out.push_str("  server stderr:\n");
        for l in sanitize(&clip(&p.stderr, MAX_SHOWN_BYTES * 4)).lines() {
            out.push_str(&format!("  │ {l}\n"));
        }
    }
    out
}

/// `tool search_issues`, `instructions`, …
pub(crate) fn item_label(f: &Finding) -> Option<String> {
    f.item.as_ref().map(|i| {
        let kind = match i.kind {
            ItemKind::Tool => "tool",
            ItemKind::Prompt => "prompt",
            ItemKind::Resource => "resource",
            ItemKind::ResourceTemplate => "resource template",
            ItemKind::Instructions => "instructions",
        };
        if i.name.is_empty() || i.kind == ItemKind::Instructions {
            kind.to_owned()
        } else {
            format!("{kind} {}", i.name)
        }
    })
}

fn finding_block(
    report: &ScanReport,
    f: &Finding,
    opts: &RenderOptions,
    st: Style,
    width: usize,
) -> String {
    let mut out = String::new();
    let sev = f.severity.as_str().to_uppercase();
    out.push_str(&format!(
        "\n  {} {}  {}\n",
        st.severity(f.severity, &format!("{sev:<8}")),
        st.bold(&f.rule),
        st.dim(&format!("confidence {}", f.confidence))
    ));
    let mut wher = Vec::new();
    if let Some(item) = item_label(f) {
        wher.push(item);
    }
    if let Some(o) = &f.location.config {
        wher.push(o.to_string());
    }
    if let Some(p) = &f.location.pointer {
        wher.push(p.clone());
    }
    let indent = "           ";
    if !wher.is_empty() {
        for l in wrap(&line(&clip(&wher.join(" · "), MAX_SHOWN_BYTES)), width - indent.len()) {
            out.push_str(&format!("{indent}{}\n", st.dim(&l)));
        }
    }
    for l in wrap(&line(&clip(&f.message, MAX_SHOWN_BYTES)), width - indent.len()) {
        out.push_str(&format!("{indent}{l}\n"));
    }
    if let Some(ev) = &f.evidence {
        let lines = wrap(&sanitize(&clip(ev, MAX_SHOWN_BYTES)), width - indent.len() - 12);
        let shown = if opts.verbose {
            lines.len()
        } else {
            lines.len().min(EVIDENCE_LINES)
        };
        for (i, l) in lines.iter().take(shown).enumerate() {
            let label = if i == 0 { "evidence: " } else { "          " };
            out.push_str(&format!("{indent}{label}│ {l}\n"));
        }
        if shown < lines.len() {
            out.push_str(&format!(
                "{indent}          │ … {} more (use -v to see all)\n",
                plural(lines.len() - shown, "line", "lines")
            ));
        }
    }
    let fix = f.control.advice();
    for (i, l) in wrap(fix, width - indent.len() - 10).iter().enumerate() {
        let label = if i == 0 {
            st.green("fix:")
        } else {
            "    ".into()
        };
        out.push_str(&format!("{indent}{label}      {l}\n"));
    }
    if opts.verbose {
        if let Some(meta) = report.rule(&f.rule) {
            out.push_str(&format!(
                "{indent}{}\n",
                st.dim(&format!(
                    "why: mcpvet rules explain {} ({})",
                    meta.id, meta.family
                ))
            ));
        }
    }
    out
}
