//! Section 2 of the review: what the model reads — every definition with its size and
//! findings, then each flagged field whole, as the model reads it.

use serde_json::Value;

use super::markdown::{Md, md_cell, md_code, quote, text_chars, thousands};
use super::render::Review;
use crate::model::finding::{Finding, ItemKind};
use crate::model::snapshot::ServerSnapshot;
use crate::report::text::plural;

/// The size of what the model reads, the item table and the flagged text; or a note that the
/// definitions are unknown.
pub(super) fn what_the_model_reads(r: &Review, md: &mut Md) {
    md.line("## 2. What the model reads");
    md.blank();
    let Some(snap) = &r.server.snapshot else {
        md.line(
            "The server's definitions are not available, so what the model reads is unknown. \
             Review a snapshot (`mcpvet snapshot`) before deciding.",
        );
        md.blank();
        return;
    };
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
    md.line(&format!(
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
    ));
    md.blank();
    if !items.is_empty() {
        item_table(r.findings, &items, md);
    }
    flagged_text(r.findings, snap, md);
}

/// One row per definition: name, kind, characters, the findings about it.
fn item_table(findings: &[&Finding], items: &[(ItemKind, &Value)], md: &mut Md) {
    md.line("| item | kind | characters | flagged |");
    md.line("|---|---|---:|---|");
    for (kind, v) in items {
        let name = ServerSnapshot::item_name(v);
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
        md.line(&format!(
            "| {} | {kind_s} | {} | {} |",
            md_cell(&md_code(name)),
            thousands(text_chars(v)),
            if flagged.is_empty() {
                "—".into()
            } else {
                format!("**{}**", flagged.join(", "))
            }
        ));
    }
    md.blank();
}

/// Each flagged field once, whole (up to a limit), in the form the model reads it with hidden
/// characters made visible; the evidence excerpt when the field is not in the snapshot.
fn flagged_text(findings: &[&Finding], snap: &ServerSnapshot, md: &mut Md) {
    let flagged: Vec<&&Finding> = findings
        .iter()
        .filter(|f| f.item.is_some() && f.evidence.is_some())
        .collect();
    if flagged.is_empty() {
        return;
    }
    md.line("Flagged text, as the model reads it (hidden characters made visible):");
    md.blank();
    let snap_json = serde_json::to_value(snap).ok();
    let mut shown: Vec<(String, String)> = Vec::new();
    for f in flagged {
        let label = super::markdown::item_code(f).unwrap_or_default();
        let pointer = f.location.pointer.clone().unwrap_or_default();
        let whole = snap_json
            .as_ref()
            .and_then(|v| v.pointer(&pointer))
            .and_then(Value::as_str)
            .map(|t| {
                crate::audit::text::clip(crate::audit::text::Prepared::new(t).display(), 1200)
            });
        let ev = whole.unwrap_or_else(|| f.evidence.clone().unwrap_or_default());
        if shown.iter().any(|(l, e)| {
            (*l == label && e.contains(ev.as_str())) || (!pointer.is_empty() && *e == pointer)
        }) {
            continue;
        }
        let at = f
            .location
            .pointer
            .as_deref()
            .map(|p| format!(" at {}", md_code(p)))
            .unwrap_or_default();
        md.line(&format!("- {label}{at}:"));
        md.blank();
        md.block(
            &quote(&ev)
                .lines()
                .map(|l| format!("  {l}"))
                .collect::<Vec<_>>()
                .join("\n"),
        );
        md.blank();
        shown.push((label.clone(), ev));
        if !pointer.is_empty() {
            shown.push((label, pointer));
        }
    }
}
