//! What `mcpvet guard --install` / `--uninstall` prints: the unified diff of the config, one
//! line per server entry, and what to do next. Pure: returns text; `cli` writes it through
//! [`super::write_stdout`], which redacts secrets and escapes anything hidden on the way out.

use similar::TextDiff;

use crate::config::install::{Mode, Plan, Status};
use crate::model::escape;

/// What was done with the plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Applied {
    /// Dry run: nothing written.
    DryRun,
    /// The new file is written, the original saved at this backup path.
    Written { backup: String },
}

/// The diff between the config before and after, with `config` (shown) as the file name.
/// The file's literal secrets (an env value or a header the diff shows as context) are
/// redacted here; the rest of the redaction module's rules apply when it is written.
pub fn diff(plan: &Plan, config: &str) -> String {
    let name = escape::line(config);
    let mut text = TextDiff::from_lines(&plan.before, &plan.after)
        .unified_diff()
        .context_radius(3)
        .header(&name, &name)
        .to_string();
    for secret in plan.secrets.iter().filter(|s| s.chars().count() >= 4) {
        text = text.replace(
            secret.as_str(),
            &crate::model::redact::redact_generic(secret),
        );
    }
    text
}

/// The whole output: diff, one line per entry, and the next step.
pub fn render(plan: &Plan, config: &str, mode: Mode, applied: &Applied) -> String {
    let shown = escape::line(config);
    let mut out = String::new();
    if plan.changed() {
        out.push_str(&diff(plan, config));
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push('\n');
    }
    for o in &plan.outcomes {
        let server = escape::line(&o.server);
        let what = match &o.status {
            Status::Guarded { lock } => {
                format!("runs behind the guard (lock {})", escape::line(lock))
            }
            Status::AlreadyGuarded => "already behind the guard; left alone".into(),
            Status::NotLocked => {
                format!("not locked: run `mcpvet lock {shown}` to approve it, then install again")
            }
            Status::Restored => "original command restored".into(),
            Status::NotGuarded => "not behind the guard; left alone".into(),
            Status::Skipped(why) => format!("left alone: {}", escape::line(why)),
        };
        out.push_str(&format!("server `{server}` (line {}): {what}\n", o.line));
        for w in &o.warnings {
            out.push_str(&format!("warning: {}\n", escape::line(w)));
        }
    }
    if plan.outcomes.is_empty() {
        out.push_str(&format!("{shown}: no server entries\n"));
    }
    let flag = match mode {
        Mode::Install => "--install",
        Mode::Uninstall => "--uninstall",
    };
    match (plan.changed(), applied) {
        (false, _) => out.push_str(&format!("{shown}: nothing to change\n")),
        (true, Applied::DryRun) => out.push_str(&format!(
            "dry run: {shown} is unchanged; to write it (with a backup), run: mcpvet guard {flag} {shown} --apply\n"
        )),
        (true, Applied::Written { backup }) => out.push_str(&format!(
            "wrote {shown} (the original is saved as {})\n",
            escape::line(backup)
        )),
    }
    out
}
