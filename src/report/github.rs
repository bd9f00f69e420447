//! GitHub Actions workflow commands (`--format github`): one `::error`/`::warning`/`::notice`
//! annotation per finding, on the config line that launches the server, then the verdict.

use super::model::ScanReport;
use super::table::item_label;
use super::{RenderOptions, Renderer};
use crate::model::escape::{line, workflow_data, workflow_property};
use crate::model::finding::{Finding, Severity};

/// `--format github`: GitHub Actions annotations.
#[derive(Debug, Clone, Copy)]
pub struct GithubFormat;

impl Renderer for GithubFormat {
    fn render(&self, report: &ScanReport, _opts: &RenderOptions) -> String {
        render(report)
    }
}

/// Render one annotation line per finding (worst first), a line per server that could not be
/// probed, and the verdict as a plain log line.
pub fn render(report: &ScanReport) -> String {
    let mut out = String::new();
    if let Some(n) = super::unsandboxed_notice(&report.unsandboxed) {
        out.push_str(&format!(
            "::warning title={}::{}\n",
            workflow_property("mcpvet: servers ran without the sandbox"),
            workflow_data(&n)
        ));
    }
    for f in report.sorted_findings() {
        out.push_str(&annotation(report, f));
        out.push('\n');
    }
    for s in report.servers.iter().filter(|s| s.error.is_some()) {
        let mut props = Vec::new();
        if let Some(o) = s.spec.as_ref().and_then(|x| x.origin.as_ref()) {
            props.push(format!("file={}", workflow_property(&path_str(&o.file))));
            props.push(format!("line={}", o.line));
            props.push(format!("col={}", o.column));
        }
        props.push(format!(
            "title={}",
            workflow_property(&format!("mcpvet: {} could not be probed", line(&s.name)))
        ));
        out.push_str(&format!(
            "::error {}::{}\n",
            props.join(","),
            workflow_data(s.error.as_deref().unwrap_or_default())
        ));
    }
    out.push_str(&report.verdict());
    out.push('\n');
    out
}

fn command(s: Severity) -> &'static str {
    match s {
        Severity::Critical | Severity::High => "error",
        Severity::Medium => "warning",
        Severity::Low | Severity::Info => "notice",
    }
}

fn path_str(p: &std::path::Path) -> String {
    p.to_string_lossy().replace('\\', "/")
}

fn annotation(report: &ScanReport, f: &Finding) -> String {
    let origin = f.location.config.as_ref().or_else(|| {
        report
            .server(&f.server)
            .and_then(|s| s.spec.as_ref())
            .and_then(|s| s.origin.as_ref())
    });
    let mut props = Vec::new();
    if let Some(o) = origin {
        props.push(format!("file={}", workflow_property(&path_str(&o.file))));
        props.push(format!("line={}", o.line));
        props.push(format!("col={}", o.column));
    } else if let Some(p) = report
        .server(&f.server)
        .and_then(|s| s.snapshot_path.as_ref())
    {
        props.push(format!("file={}", workflow_property(&path_str(p))));
    }
    props.push(format!(
        "title={}",
        workflow_property(&format!(
            "mcpvet {} ({}): {}",
            f.rule,
            f.severity,
            line(&f.server)
        ))
    ));
    // Server- and repo-controlled parts stay on their line (`\n` shown); only mcpvet's own
    // line breaks become `%0A`.
    let mut msg = line(&f.message);
    if let Some(item) = item_label(f) {
        msg.push_str(&format!("\n{}", line(&item)));
        if let Some(p) = &f.location.pointer {
            msg.push_str(&format!(" at {}", line(p)));
        }
    } else if let Some(p) = &f.location.pointer {
        msg.push_str(&format!("\nat {}", line(p)));
    }
    if let Some(ev) = &f.evidence {
        msg.push_str(&format!(
            "\nevidence: {}",
            line(&super::text::truncate(ev, 400))
        ));
    }
    msg.push_str(&format!("\nfix: {}", f.control.advice()));
    format!(
        "::{} {}::{}",
        command(f.severity),
        props.join(","),
        workflow_data(&msg)
    )
}
