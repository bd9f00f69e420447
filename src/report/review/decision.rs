//! The markdown trust review (`mcpvet review`) and the decision logic behind it.
//!
//! The review follows the trust model a careful reviewer applies to a proposed MCP server:
//! what runs and with whose permissions; what the model reads; annotations are claims; output
//! is data; each risk; a decision (accept, accept with conditions, reject) with the concrete
//! controls required; and the team's pre-install checklist. [`decide`] is pure and separate so
//! `scan`/`check` can reuse it.

use serde_json::Value;

use super::model::{LockState, Pinning, ScanReport, ServerReport};
use super::table::item_label;
use super::text::plural;
use crate::model::finding::{Control, Finding, ItemKind, Severity};
use crate::model::rule_id;
use crate::model::spec::Transport;

/// The reviewer's decision about a server as proposed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Decision {
    /// Acceptable as proposed; the team's standard controls apply.
    Accept,
    /// Acceptable only once the blocking controls are in place.
    AcceptWithConditions,
    /// Must not be installed as proposed.
    Reject,
}

impl Decision {
    pub fn label(self) -> &'static str {
        match self {
            Decision::Accept => "Accept",
            Decision::AcceptWithConditions => "Accept with conditions",
            Decision::Reject => "Reject",
        }
    }
}

/// How a control stands for this server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ControlStatus {
    /// Must be in place before the server may be installed (it is what changes the decision).
    Blocking,
    /// Applies to every server the team installs; do it as part of the install.
    Standard,
    /// mcpvet verified it is already in place.
    InPlace,
}

impl ControlStatus {
    fn label(self) -> &'static str {
        match self {
            ControlStatus::Blocking => "**required first**",
            ControlStatus::Standard => "required (standard)",
            ControlStatus::InPlace => "in place",
        }
    }
}

/// One control the decision requires, with the server-specific reason.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RequiredControl {
    pub control: Control,
    pub status: ControlStatus,
    /// Why, for this server, in one or two sentences.
    pub detail: String,
}

/// The decision with its reasons and controls.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Assessment {
    pub decision: Decision,
    /// Why the decision is what it is (one line each).
    pub reasons: Vec<String>,
    /// For a rejection or conditions: the changes that would make the server acceptable.
    pub would_change: Vec<String>,
    /// Every control, in the trust model's order.
    pub controls: Vec<RequiredControl>,
}

/// The change that resolves a rule's finding, where a rule needs more than its control's advice.
fn remedy(rule: &str) -> Option<&'static str> {
    Some(match rule {
        rule_id::READONLY_CLAIM_MISMATCH => {
            "Drop the false `readOnlyHint: true` (declare `readOnlyHint: false`, \
             `destructiveHint: true`) so every host asks before each call."
        }
        rule_id::SHELL_EXECUTION_TOOL => {
            "Replace the free-form command with a narrow tool whose arguments are validated \
             (e.g. rerun one named test of one pipeline); if a shell is truly needed, confirm \
             every call and run it in a sandbox."
        }
        rule_id::CROSS_TOOL_INSTRUCTION | rule_id::HIDDEN_INSTRUCTIONS => {
            "The definition must be fixed upstream — a tool describes what it does and gives \
             the model no orders — and the fixed version re-reviewed from its snapshot."
        }
        rule_id::SENSITIVE_FILE_REFERENCE => {
            "No definition may point the model at local secret files; run the server in a \
             sandbox that cannot read the home folder."
        }
        rule_id::UNPINNED_PACKAGE => {
            "Pin an exact version (`package@x.y.z`, `pkg==x.y.z` or an image digest) and verify \
             its integrity before every upgrade."
        }
        rule_id::BROAD_CREDENTIAL => {
            "Issue a dedicated token for this server with the narrowest scope its tools need \
             (read-only, only the projects in use) instead of a personal or admin token."
        }
        rule_id::AUTO_TRUST => {
            "Remove the trust / auto-approve setting and keep the server's output untrusted. \
             Stripping instruction-like text does not make output safe: output is data that \
             other people write, and no filter recognises every instruction."
        }
        rule_id::LITERAL_SECRET => {
            "Rotate the secret, remove it from the config, and reference it from the environment \
             or a secret store."
        }
        _ => return None,
    })
}

fn has(findings: &[&Finding], rules: &[&str]) -> bool {
    findings.iter().any(|f| rules.contains(&f.rule.as_str()))
}

fn first<'a>(findings: &[&'a Finding], rules: &[&str]) -> Option<&'a Finding> {
    findings
        .iter()
        .copied()
        .find(|f| rules.contains(&f.rule.as_str()))
}

/// Decide about one server from its facts and its findings (after policy).
///
/// Reject when the server could not be probed or any finding reaches `fail_on`; accept with
/// conditions when findings below the gate (or an unpinned launch) need a control first;
/// accept otherwise. Controls come in the trust model's order, each marked blocking, standard
/// or in place.
pub fn decide(server: &ServerReport, findings: &[&Finding], fail_on: Severity) -> Assessment {
    let mut reasons = Vec::new();
    let mut would_change: Vec<String> = Vec::new();
    let gated: Vec<&Finding> = findings
        .iter()
        .copied()
        .filter(|f| f.severity >= fail_on)
        .collect();
    let below: Vec<&Finding> = findings
        .iter()
        .copied()
        .filter(|f| f.severity < fail_on && f.severity > Severity::Info)
        .collect();
    let unpinned = matches!(server.pinning, Pinning::Unpinned { .. });
    let decision = if let Some(e) = &server.error {
        reasons.push(format!(
            "The server could not be probed ({e}), so what it shows the model is unknown."
        ));
        would_change
            .push("Probe it successfully (or review a saved snapshot) before deciding.".to_owned());
        Decision::Reject
    } else if !gated.is_empty() {
        for f in &gated {
            reasons.push(format!("{} ({}): {}", f.rule, f.severity, f.message));
        }
        Decision::Reject
    } else if !below.is_empty() || unpinned || server.lock == LockState::Drifted {
        for f in &below {
            reasons.push(format!("{} ({}): {}", f.rule, f.severity, f.message));
        }
        if unpinned && !has(findings, &[rule_id::UNPINNED_PACKAGE]) {
            reasons.push(format!(
                "What runs is not pinned: {}.",
                server.pinning.label()
            ));
        }
        if server.lock == LockState::Drifted {
            reasons.push(
                "The definitions changed since they were approved (lockfile drift).".to_owned(),
            );
        }
        Decision::AcceptWithConditions
    } else {
        reasons.push(format!(
            "No finding at or above the gate ({fail_on}) and nothing that needs a control first."
        ));
        Decision::Accept
    };
    if decision != Decision::Accept {
        let mut seen = Vec::new();
        for f in gated.iter().chain(below.iter()) {
            if seen.contains(&f.rule) {
                continue;
            }
            seen.push(f.rule.clone());
            let text = remedy(&f.rule).unwrap_or_else(|| f.control.advice());
            if !would_change.iter().any(|w| w == text) {
                would_change.push(text.to_owned());
            }
        }
        if unpinned && !seen.iter().any(|r| r == rule_id::UNPINNED_PACKAGE) {
            if let Some(r) = remedy(rule_id::UNPINNED_PACKAGE) {
                would_change.push(r.to_owned());
            }
        }
        if server.lock == LockState::Drifted {
            would_change.push(
                "Review the changes (`mcpvet diff`) and re-approve with `mcpvet lock`.".to_owned(),
            );
        }
    }
    Assessment {
        decision,
        reasons,
        would_change,
        controls: controls(server, findings),
    }
}

/// [`decide`] for a server of the report by name (findings and gate from the report).
pub fn assess(report: &ScanReport, server: &str) -> Option<Assessment> {
    let s = report.server(server)?;
    Some(decide(s, &report.findings_for(server), report.fail_on))
}

fn controls(server: &ServerReport, findings: &[&Finding]) -> Vec<RequiredControl> {
    let mut out = Vec::new();
    let mut push = |control: Control, status: ControlStatus, detail: String| {
        out.push(RequiredControl {
            control,
            status,
            detail,
        });
    };
    let runs = server.what_runs();
    let stdio = matches!(
        server.spec.as_ref().map(|s| &s.transport),
        Some(Transport::Stdio { .. }) | None
    );

    // Review the definitions.
    if let Some(f) = first(
        findings,
        &[
            rule_id::HIDDEN_INSTRUCTIONS,
            rule_id::CROSS_TOOL_INSTRUCTION,
        ],
    ) {
        push(
            Control::ReviewDefinitions,
            ControlStatus::Blocking,
            format!(
                "{} Definitions that give the model orders are rejected, not worked around.",
                item_sentence(f)
            ),
        );
    } else {
        push(
            Control::ReviewDefinitions,
            ControlStatus::Standard,
            "Read the source and every definition in this review before approving.".into(),
        );
    }

    // Pin and verify.
    match &server.pinning {
        Pinning::Unpinned { reference } => push(
            Control::PinVersion,
            ControlStatus::Blocking,
            format!(
                "`{reference}` resolves to whatever is newest at each launch; pin an exact \
                 version and verify its integrity."
            ),
        ),
        Pinning::Pinned { reference } => push(
            Control::PinVersion,
            ControlStatus::InPlace,
            format!("Pinned to `{reference}`; verify integrity on every upgrade."),
        ),
        Pinning::LocalCommand => push(
            Control::PinVersion,
            ControlStatus::Standard,
            format!(
                "`{runs}` is a program already on the machine: install it from a reviewed, \
                 versioned release."
            ),
        ),
        Pinning::Remote => push(
            Control::PinVersion,
            ControlStatus::Standard,
            "A remote server cannot be pinned; rely on the lockfile to notice changes.".into(),
        ),
        Pinning::Unknown => push(
            Control::PinVersion,
            ControlStatus::Standard,
            "The launch command is not known here; pin it where the server is configured.".into(),
        ),
    }

    // Credential.
    let creds = server.credential_sources();
    if let Some(f) = first(
        findings,
        &[rule_id::BROAD_CREDENTIAL, rule_id::LITERAL_SECRET],
    ) {
        push(
            Control::LeastPrivilegeCredential,
            ControlStatus::Blocking,
            format!(
                "{} Replace it with a dedicated, least-privilege credential.",
                sentence(&f.message)
            ),
        );
    } else if creds.is_empty() {
        push(
            Control::LeastPrivilegeCredential,
            ControlStatus::InPlace,
            "The config passes no credentials.".into(),
        );
    } else {
        push(
            Control::LeastPrivilegeCredential,
            ControlStatus::Standard,
            format!(
                "{}: use a token issued for this server alone, with the narrowest scope its \
                 tools need.",
                creds.join(", ")
            ),
        );
    }

    // Sandbox.
    if let Some(f) = first(
        findings,
        &[
            rule_id::SENSITIVE_FILE_REFERENCE,
            rule_id::SHELL_EXECUTION_TOOL,
        ],
    ) {
        push(
            Control::Sandbox,
            ControlStatus::Blocking,
            format!(
                "{} Run it with no access to the home folder and no network beyond what it needs.",
                item_sentence(f)
            ),
        );
    } else if stdio {
        push(
            Control::Sandbox,
            ControlStatus::Standard,
            "It runs as a local process with the developer's privileges; limit its file and \
             network access."
                .into(),
        );
    } else {
        push(
            Control::Sandbox,
            ControlStatus::Standard,
            "A remote server runs elsewhere; limit what the token it receives can reach.".into(),
        );
    }

    // Lock and re-approve.
    match server.lock {
        LockState::Locked => push(
            Control::LockAndReapprove,
            ControlStatus::InPlace,
            "The definitions match the approved lockfile; `mcpvet diff` in CI catches changes."
                .into(),
        ),
        LockState::Drifted => push(
            Control::LockAndReapprove,
            ControlStatus::Blocking,
            "The definitions differ from the approved lockfile: review `mcpvet diff` and \
             re-approve."
                .into(),
        ),
        LockState::Unlocked | LockState::NotApplicable => push(
            Control::LockAndReapprove,
            ControlStatus::Standard,
            format!(
                "Record the approved definitions with `mcpvet lock {}`, commit the lockfile and \
                 run `mcpvet diff` in CI.",
                server.name
            ),
        ),
    }

    // Confirmation for sensitive calls.
    if let Some(f) = first(
        findings,
        &[
            rule_id::READONLY_CLAIM_MISMATCH,
            rule_id::SHELL_EXECUTION_TOOL,
            rule_id::AUTO_TRUST,
        ],
    ) {
        push(
            Control::ConfirmSensitiveCalls,
            ControlStatus::Blocking,
            format!(
                "{} Hosts must ask before each such call; no auto-approval.",
                item_sentence(f)
            ),
        );
    } else {
        push(
            Control::ConfirmSensitiveCalls,
            ControlStatus::Standard,
            "Keep the host's confirmation prompt on; annotations do not justify auto-approval."
                .into(),
        );
    }

    // Treat output and annotations as untrusted.
    if let Some(f) = first(
        findings,
        &[rule_id::AUTO_TRUST, rule_id::READONLY_CLAIM_MISMATCH],
    ) {
        push(
            Control::TreatAsUntrusted,
            ControlStatus::Blocking,
            format!(
                "{} Output and annotations are data, never instructions.",
                item_sentence(f)
            ),
        );
    } else {
        push(
            Control::TreatAsUntrusted,
            ControlStatus::Standard,
            "Tool output can carry text other people wrote; the host treats it as data.".into(),
        );
    }

    // Allowlist and audit log.
    push(
        Control::Allowlist,
        ControlStatus::Standard,
        format!(
            "Add `{}` to the team allowlist (`mcpvet.toml`) with the reason it was approved.",
            server.name
        ),
    );
    push(
        Control::AuditLog,
        ControlStatus::Standard,
        "Log the tool calls it receives so unnoticed actions can be traced.".into(),
    );

    // Anything else a finding asks for (e.g. secure transport).
    for f in findings {
        if !out.iter().any(|c| c.control == f.control) && f.control != Control::Reject {
            out.push(RequiredControl {
                control: f.control,
                status: ControlStatus::Blocking,
                detail: sentence(&f.message),
            });
        }
    }
    out
}

fn sentence(s: &str) -> String {
    let t = s.trim();
    if t.ends_with(['.', '!', '?']) {
        t.to_owned()
    } else {
        format!("{t}.")
    }
}

fn item_sentence(f: &Finding) -> String {
    sentence(&f.message)
}

fn control_title(c: Control) -> &'static str {
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
        Control::TreatAsUntrusted => "Treat output and annotations as untrusted",
        Control::Reject => "Remove the offending definition",
    }
}

/// Total characters of every string (keys included) in a JSON value: what the model reads.
fn text_chars(v: &Value) -> usize {
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

fn md_code(s: &str) -> String {
    let s = s.replace('\n', " ");
    if s.contains('`') {
        format!("`` {s} ``")
    } else {
        format!("`{s}`")
    }
}

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn quote(s: &str) -> String {
    s.lines()
        .map(|l| {
            if l.is_empty() {
                ">".to_owned()
            } else {
                format!("> {}", l.replace('<', "&lt;"))
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn thousands(n: usize) -> String {
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

/// Render the markdown trust review of one server in the report, or `None` if the report has
/// no server (and no finding) by that name.
pub fn render_review(report: &ScanReport, server: &str) -> Option<String> {
    let fallback;
    let s = match report.server(server) {
        Some(s) => s,
        None if report.findings.iter().any(|f| f.server == server) => {
            fallback = ServerReport::new(server, None, None);
            &fallback
        }
        None => return None,
    };
    let findings = report.findings_for(server);
    let a = decide(s, &findings, report.fail_on);
    let mut md = String::new();
    let push = |md: &mut String, line: &str| {
        md.push_str(line);
        md.push('\n');
    };

    push(&mut md, &format!("# Trust review: {}", s.name));
    push(&mut md, "");
    push(
        &mut md,
        &format!(
            "**Decision: {}.** {}",
            a.decision.label(),
            match a.decision {
                Decision::Accept =>
                    "The server may be installed with the team's standard controls.",
                Decision::AcceptWithConditions =>
                    "The server may be installed once the controls marked *required first* are in place.",
                Decision::Reject => "The server must not be installed as proposed.",
            }
        ),
    );
    push(&mut md, "");
    push(
        &mut md,
        &format!(
            "*Written by {} {} from the server's configuration and the definitions it shows the \
             model. Findings are judged at `--fail-on {}`. Re-run `mcpvet review` after any change.*",
            report.tool.name, report.tool.version, report.fail_on
        ),
    );
    push(&mut md, "");

    // Summary table.
    push(&mut md, "| | |");
    push(&mut md, "|---|---|");
    push(
        &mut md,
        &format!("| Runs | {} |", md_cell(&md_code(&s.what_runs()))),
    );
    if let Some(spec) = &s.spec {
        let at = spec
            .origin
            .as_ref()
            .map(|o| format!(" at {}", md_code(&o.to_string())))
            .unwrap_or_default();
        push(&mut md, &format!("| Configured in | {}{at} |", spec.host));
    }
    push(
        &mut md,
        &format!("| Pinned | {} |", md_cell(&s.pinning.label())),
    );
    let creds = s.credential_sources();
    push(
        &mut md,
        &format!(
            "| Credentials | {} |",
            if creds.is_empty() {
                "none".to_owned()
            } else {
                md_cell(
                    &creds
                        .iter()
                        .map(|c| md_code(c))
                        .collect::<Vec<_>>()
                        .join(", "),
                )
            }
        ),
    );
    if let Some(snap) = &s.snapshot {
        let info = snap
            .server_info
            .as_ref()
            .map(|i| {
                format!(
                    "{} {}",
                    i.get("name").and_then(Value::as_str).unwrap_or("?"),
                    i.get("version").and_then(Value::as_str).unwrap_or("")
                )
                .trim()
                .to_owned()
            })
            .unwrap_or_else(|| "(no serverInfo)".into());
        push(
            &mut md,
            &format!("| Server | {} — {} |", md_cell(&info), s.era_label()),
        );
    }
    if let Some(e) = &s.error {
        push(&mut md, &format!("| Probe | failed: {} |", md_cell(e)));
    }
    let c = report.counts(Some(server));
    let counts: Vec<String> = Severity::ALL
        .iter()
        .rev()
        .filter(|x| c[**x as usize] > 0)
        .map(|x| format!("{} {}", c[*x as usize], x))
        .collect();
    push(
        &mut md,
        &format!(
            "| Findings | {} |",
            if counts.is_empty() {
                "none".into()
            } else {
                counts.join(", ")
            }
        ),
    );
    push(&mut md, &format!("| Lock | {} |", s.lock.as_str()));
    push(&mut md, "");

    // 1. What runs.
    push(&mut md, "## 1. What runs, and with whose permissions");
    push(&mut md, "");
    match s.spec.as_ref().map(|x| &x.transport) {
        Some(Transport::Stdio { .. }) => {
            push(
                &mut md,
                &format!(
                    "- The assistant starts {} as a local process. It runs with the developer's \
                     own privileges: it can read every file they can (SSH keys, `~/.npmrc`, \
                     cloud credentials, other repositories) and open network connections.",
                    md_code(&s.what_runs())
                ),
            );
        }
        Some(Transport::Http { url, .. }) => {
            push(
                &mut md,
                &format!(
                    "- A remote server at {}: its code runs elsewhere and can change at any \
                     time; what it can do is bounded by the credentials sent to it.",
                    md_code(url)
                ),
            );
        }
        None => push(
            &mut md,
            "- The launch configuration is not part of this review (definitions only).",
        ),
    }
    match &s.pinning {
        Pinning::Unpinned { reference } => push(
            &mut md,
            &format!(
                "- {} is not pinned: each launch may download and run different code than the \
                 code reviewed here.",
                md_code(reference)
            ),
        ),
        Pinning::Pinned { reference } => {
            push(&mut md, &format!("- Pinned to {}.", md_code(reference)))
        }
        Pinning::LocalCommand => push(
            &mut md,
            "- A program already installed on the machine: it is whatever version was installed.",
        ),
        _ => {}
    }
    if creds.is_empty() {
        push(&mut md, "- No credentials are passed to it.");
    } else {
        push(
            &mut md,
            &format!(
                "- It receives {}; it can do whatever those credentials allow, and so can \
                 anything that steers the model.",
                creds
                    .iter()
                    .map(|c| md_code(c))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        );
    }
    if let Some(spec) = &s.spec {
        for (k, v) in &spec.settings {
            push(
                &mut md,
                &format!(
                    "- Host setting {} is {} ({}).",
                    md_code(k),
                    md_code(&v.to_string()),
                    spec.host
                ),
            );
        }
    }
    for f in findings.iter().filter(|f| {
        !matches!(
            f.item.as_ref().map(|i| i.kind),
            Some(
                ItemKind::Tool
                    | ItemKind::Prompt
                    | ItemKind::Resource
                    | ItemKind::ResourceTemplate
                    | ItemKind::Instructions
            )
        )
    }) {
        push(
            &mut md,
            &format!(
                "- **{}** ({}): {}",
                f.rule,
                f.severity,
                sentence(&f.message)
            ),
        );
    }
    push(&mut md, "");

    // 2. What the model reads.
    push(&mut md, "## 2. What the model reads");
    push(&mut md, "");
    if let Some(snap) = &s.snapshot {
        let items: Vec<(ItemKind, &Value)> = snap
            .tools
            .iter()
            .map(|t| (ItemKind::Tool, t))
            .chain(snap.prompts.iter().map(|t| (ItemKind::Prompt, t)))
            .chain(snap.resources.iter().map(|t| (ItemKind::Resource, t)))
            .chain(
                snap.resource_templates
                    .iter()
                    .map(|t| (ItemKind::ResourceTemplate, t)),
            )
            .collect();
        let instr = snap.instructions.as_deref().unwrap_or("");
        let total: usize =
            items.iter().map(|(_, v)| text_chars(v)).sum::<usize>() + instr.chars().count();
        push(
            &mut md,
            &format!(
                "Every string below reaches the model on every session: {}, {}, {}, {} of \
                 server instructions — {} characters in all. The user typically sees only \
                 names and short descriptions.",
                plural(snap.tools.len(), "tool", "tools"),
                plural(snap.prompts.len(), "prompt", "prompts"),
                plural(
                    snap.resources.len() + snap.resource_templates.len(),
                    "resource",
                    "resources"
                ),
                plural(instr.chars().count(), "character", "characters"),
                thousands(total)
            ),
        );
        push(&mut md, "");
        if !items.is_empty() {
            push(&mut md, "| item | kind | characters | flagged |");
            push(&mut md, "|---|---|---:|---|");
            for (kind, v) in &items {
                let name = crate::model::snapshot::ServerSnapshot::item_name(v);
                let flagged: Vec<String> = findings
                    .iter()
                    .filter(|f| {
                        f.item
                            .as_ref()
                            .is_some_and(|i| i.kind == *kind && i.name == name)
                    })
                    .map(|f| format!("{} ({})", f.rule, f.severity))
                    .collect();
                let kind_s = match kind {
                    ItemKind::Tool => "tool",
                    ItemKind::Prompt => "prompt",
                    ItemKind::Resource => "resource",
                    ItemKind::ResourceTemplate => "resource template",
                    ItemKind::Instructions => "instructions",
                };
                push(
                    &mut md,
                    &format!(
                        "| {} | {kind_s} | {} | {} |",
                        md_cell(&md_code(name)),
                        thousands(text_chars(v)),
                        if flagged.is_empty() {
                            "—".into()
                        } else {
                            format!("**{}**", flagged.join(", "))
                        }
                    ),
                );
            }
            push(&mut md, "");
        }
        let flagged: Vec<&&Finding> = findings
            .iter()
            .filter(|f| f.item.is_some() && f.evidence.is_some())
            .collect();
        if !flagged.is_empty() {
            push(
                &mut md,
                "Flagged text, as the model reads it (hidden characters made visible):",
            );
            push(&mut md, "");
            // Each flagged field once, whole (up to a limit), in the form the model reads it
            // with hidden characters made visible; the evidence excerpt when the field is
            // not in the snapshot.
            let snap_json = serde_json::to_value(snap).ok();
            let mut shown: Vec<(String, String)> = Vec::new();
            for f in flagged {
                let label = item_label(f).unwrap_or_default();
                let pointer = f.location.pointer.clone().unwrap_or_default();
                let whole = snap_json
                    .as_ref()
                    .and_then(|v| v.pointer(&pointer))
                    .and_then(serde_json::Value::as_str)
                    .map(|t| {
                        crate::audit::text::clip(
                            &crate::audit::text::Prepared::new(t).display,
                            1200,
                        )
                    });
                let ev = whole.unwrap_or_else(|| f.evidence.clone().unwrap_or_default());
                if shown.iter().any(|(l, e)| {
                    (*l == label && e.contains(ev.as_str()))
                        || (!pointer.is_empty() && *e == pointer)
                }) {
                    continue;
                }
                let at = f
                    .location
                    .pointer
                    .as_deref()
                    .map(|p| format!(" at {}", md_code(p)))
                    .unwrap_or_default();
                push(&mut md, &format!("- {label}{at}:"));
                push(&mut md, "");
                push(
                    &mut md,
                    &quote(&ev)
                        .lines()
                        .map(|l| format!("  {l}"))
                        .collect::<Vec<_>>()
                        .join("\n"),
                );
                push(&mut md, "");
                shown.push((label.clone(), ev));
                if !pointer.is_empty() {
                    shown.push((label, pointer));
                }
            }
        }
    } else {
        push(
            &mut md,
            "The server's definitions are not available, so what the model reads is unknown. \
             Review a snapshot (`mcpvet snapshot`) before deciding.",
        );
        push(&mut md, "");
    }

    // 3. Annotations are claims.
    push(&mut md, "## 3. Annotations are claims, not guarantees");
    push(&mut md, "");
    push(
        &mut md,
        "Hints such as `readOnlyHint` are what the server says about its own tools. Hosts use \
         them to decide whether to ask before a call, but no hint limits what the code can do, \
         so they count only as far as the code was reviewed.",
    );
    push(&mut md, "");
    let annotated: Vec<(&str, &Value)> = s
        .snapshot
        .iter()
        .flat_map(|x| x.tools.iter())
        .filter_map(|t| {
            t.get("annotations")
                .filter(|a| a.as_object().is_some_and(|m| !m.is_empty()))
                .map(|a| (crate::model::snapshot::ServerSnapshot::item_name(t), a))
        })
        .collect();
    if annotated.is_empty() {
        push(
            &mut md,
            "No tool carries annotations: hosts assume every tool may write, delete and reach the outside world.",
        );
    } else {
        push(&mut md, "| tool | claims | contradicted by |");
        push(&mut md, "|---|---|---|");
        for (name, ann) in annotated {
            let claims: Vec<String> = ann
                .as_object()
                .into_iter()
                .flat_map(|m| m.iter())
                .filter(|(k, _)| k.as_str() != "title")
                .map(|(k, v)| format!("`{k}: {v}`"))
                .collect();
            let against: Vec<String> = findings
                .iter()
                .filter(|f| {
                    f.item
                        .as_ref()
                        .is_some_and(|i| i.kind == ItemKind::Tool && i.name == name)
                        && matches!(
                            f.rule.as_str(),
                            rule_id::READONLY_CLAIM_MISMATCH | rule_id::SHELL_EXECUTION_TOOL
                        )
                })
                .map(|f| f.rule.clone())
                .collect();
            push(
                &mut md,
                &format!(
                    "| {} | {} | {} |",
                    md_code(name),
                    claims.join(", "),
                    if against.is_empty() {
                        "nothing found".into()
                    } else {
                        format!("**{}**", against.join(", "))
                    }
                ),
            );
        }
    }
    push(&mut md, "");

    // 4. Output is data.
    push(&mut md, "## 4. Output is data");
    push(&mut md, "");
    push(
        &mut md,
        "Even a trustworthy server returns text that other people wrote — issue bodies, log \
         lines, test names — and that text can carry instructions. The host must treat every \
         tool result as data; filtering out text that looks like an instruction cannot make it \
         trusted, because no filter recognises every way to phrase one.",
    );
    push(&mut md, "");
    for sample in &s.output_samples {
        let from = sample
            .source
            .as_ref()
            .map(|p| format!(" (saved in {})", md_code(&p.display().to_string())))
            .unwrap_or_default();
        push(
            &mut md,
            &format!(
                "Output of {}{from} as the model receives it:",
                md_code(&sample.tool)
            ),
        );
        push(&mut md, "");
        push(&mut md, &quote(&sample.text));
        push(&mut md, "");
    }
    if let Some(f) = first(&findings, &[rule_id::AUTO_TRUST]) {
        push(
            &mut md,
            &format!(
                "**This proposal marks the server's output as trusted.** {} Trust removes the \
                 confirmation that stops an instruction planted in the output from becoming a \
                 tool call.",
                sentence(&f.message)
            ),
        );
        push(&mut md, "");
        push(
            &mut md,
            "Stripping text that looks like an instruction does not earn that trust: a filter \
             knows the phrasings it was written for, while the people who write the data (test \
             names, issue titles, log lines) can phrase an instruction any way they like, in any \
             language or encoding. Instead:",
        );
        push(&mut md, "");
        for line in [
            "- keep the output untrusted: the host passes it to the model as data and never \
             auto-approves the calls it suggests;",
            "- keep confirmation on every sensitive tool of every server (deploys, writes, \
             shells), so an instruction in the output cannot act on its own;",
            "- return the free text as structured data (`structuredContent` fields) so hosts and \
             people can see where data starts and ends;",
            "- where the source system allows it, restrict who can set the text and what it may \
             contain (e.g. test names matching a pattern).",
        ] {
            push(&mut md, line);
        }
        push(&mut md, "");
    }

    // 5. Risks.
    push(&mut md, "## 5. Risks");
    push(&mut md, "");
    if findings.is_empty() {
        push(
            &mut md,
            "mcpvet found no risk in the configuration or the definitions.",
        );
        push(&mut md, "");
    }
    for f in &findings {
        push(
            &mut md,
            &format!(
                "### {} — `{}`{}",
                f.severity.as_str().to_uppercase(),
                f.rule,
                item_label(f).map(|l| format!(" ({l})")).unwrap_or_default()
            ),
        );
        push(&mut md, "");
        push(&mut md, &sentence(&f.message));
        push(&mut md, "");
        let mut wher = Vec::new();
        if let Some(o) = &f.location.config {
            wher.push(md_code(&o.to_string()));
        }
        if let Some(p) = &f.location.pointer {
            wher.push(md_code(p));
        }
        if !wher.is_empty() {
            push(&mut md, &format!("- Where: {}", wher.join(", ")));
        }
        push(&mut md, &format!("- Confidence: {}", f.confidence));
        if let Some(meta) = report.rule(&f.rule) {
            push(&mut md, &format!("- Why it matters: {}", meta.why));
        }
        push(
            &mut md,
            &format!(
                "- Control: {}",
                remedy(&f.rule).unwrap_or_else(|| f.control.advice())
            ),
        );
        push(&mut md, "");
    }

    // 6. Decision.
    push(&mut md, &format!("## 6. Decision: {}", a.decision.label()));
    push(&mut md, "");
    for r in &a.reasons {
        push(&mut md, &format!("- {}", sentence(r)));
    }
    push(&mut md, "");
    if !a.would_change.is_empty() {
        push(
            &mut md,
            match a.decision {
                Decision::Reject => "What would change the decision:",
                _ => "Conditions:",
            },
        );
        push(&mut md, "");
        for w in &a.would_change {
            push(&mut md, &format!("- {w}"));
        }
        push(&mut md, "");
    }

    // 7. Controls.
    push(&mut md, "## 7. Controls required");
    push(&mut md, "");
    push(&mut md, "| control | status | for this server |");
    push(&mut md, "|---|---|---|");
    for c in &a.controls {
        push(
            &mut md,
            &format!(
                "| {} | {} | {} |",
                control_title(c.control),
                c.status.label(),
                md_cell(&c.detail)
            ),
        );
    }
    push(&mut md, "");

    // 8. Checklist.
    push(&mut md, "## 8. Pre-install checklist");
    push(&mut md, "");
    push(
        &mut md,
        "The team applies this before anyone installs a third-party MCP server. Boxes mcpvet \
         could verify are ticked; the rest need a person.",
    );
    push(&mut md, "");
    let gated = findings.iter().any(|f| f.severity >= report.fail_on);
    let pinned = matches!(s.pinning, Pinning::Pinned { .. });
    let check = |b: bool| if b { "[x]" } else { "[ ]" };
    let items = [
        (
            false,
            "Read the source and every definition the server shows the model (`mcpvet snapshot`, this review).".to_owned(),
        ),
        (
            pinned,
            "The launch command pins an exact version or digest, and its integrity was verified.".to_owned(),
        ),
        (
            !gated && s.error.is_none() && s.snapshot.is_some(),
            format!("`mcpvet scan` reports nothing at or above `--fail-on {}`.", report.fail_on),
        ),
        (
            false,
            "It gets a dedicated credential with the narrowest scope its tools need — never a personal or admin token.".to_owned(),
        ),
        (
            false,
            "It runs sandboxed: no access to the home folder or other repositories, network limited to what it needs.".to_owned(),
        ),
        (
            false,
            "Sensitive calls need confirmation; no `trust`, `alwaysAllow` or auto-approve for it, whatever its annotations say.".to_owned(),
        ),
        (
            s.lock == LockState::Locked,
            "Its definitions are locked (`mcpvet lock`), the lockfile is committed, and CI runs `mcpvet diff`.".to_owned(),
        ),
        (
            false,
            "It is on the team allowlist (`mcpvet.toml`) with the reason it was approved.".to_owned(),
        ),
        (
            false,
            "Tool calls are logged, and someone owns re-reviewing it on every upgrade.".to_owned(),
        ),
    ];
    for (ok, text) in items {
        push(&mut md, &format!("- {} {text}", check(ok)));
    }
    Some(crate::model::escape::sanitize(&md))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::finding::{Confidence, Location};

    fn finding(rule: &str, sev: Severity, control: Control) -> Finding {
        Finding {
            rule: rule.into(),
            severity: sev,
            confidence: Confidence::High,
            server: "s".into(),
            item: None,
            location: Location::default(),
            message: format!("{rule} found"),
            evidence: None,
            control,
        }
    }

    #[test]
    fn gate_decides_reject_below_gate_needs_conditions_clean_accepts() {
        let s = ServerReport::new("s", None, None);
        let high = finding("auto-trust", Severity::High, Control::TreatAsUntrusted);
        let med = finding(
            "shell-execution-tool",
            Severity::Medium,
            Control::ConfirmSensitiveCalls,
        );
        let info = finding("x", Severity::Info, Control::AuditLog);
        assert_eq!(
            decide(&s, &[&high, &med], Severity::High).decision,
            Decision::Reject
        );
        assert_eq!(
            decide(&s, &[&med], Severity::High).decision,
            Decision::AcceptWithConditions
        );
        // The gate is configurable: at --fail-on critical a high finding is a condition.
        assert_eq!(
            decide(&s, &[&high], Severity::Critical).decision,
            Decision::AcceptWithConditions
        );
        assert_eq!(
            decide(&s, &[&info], Severity::High).decision,
            Decision::Accept
        );
        assert_eq!(decide(&s, &[], Severity::High).decision, Decision::Accept);
    }

    #[test]
    fn rejection_names_what_would_change_it_and_blocks_the_controls() {
        let s = ServerReport::new("s", None, None);
        let high = finding(
            "readonly-claim-mismatch",
            Severity::High,
            Control::TreatAsUntrusted,
        );
        let a = decide(&s, &[&high], Severity::High);
        assert!(a.would_change.iter().any(|w| w.contains("readOnlyHint")));
        let blocking: Vec<Control> = a
            .controls
            .iter()
            .filter(|c| c.status == ControlStatus::Blocking)
            .map(|c| c.control)
            .collect();
        assert!(blocking.contains(&Control::ConfirmSensitiveCalls));
        assert!(blocking.contains(&Control::TreatAsUntrusted));
    }

    #[test]
    fn unprobed_server_is_rejected_and_unpinned_needs_a_pin() {
        let mut s = ServerReport::new("s", None, None);
        s.error = Some("timed out".into());
        assert_eq!(decide(&s, &[], Severity::High).decision, Decision::Reject);
        let mut s = ServerReport::new("s", None, None);
        s.pinning = Pinning::Unpinned {
            reference: "x@latest".into(),
        };
        let a = decide(&s, &[], Severity::High);
        assert_eq!(a.decision, Decision::AcceptWithConditions);
        assert!(
            a.controls
                .iter()
                .any(|c| c.control == Control::PinVersion && c.status == ControlStatus::Blocking)
        );
    }

    #[test]
    fn unknown_server_has_no_review() {
        let r = ScanReport::new(vec![], vec![], Severity::High);
        assert!(render_review(&r, "nope").is_none());
    }
}
