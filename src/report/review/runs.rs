//! Section 1 of the review: what runs, and with whose permissions.

use super::markdown::{Md, code_list, md_code};
use super::render::Review;
use crate::model::finding::ItemKind;
use crate::model::spec::Transport;
use crate::report::model::Pinning;
use crate::report::text::sentence;

/// How the server runs, whether it is pinned, what credentials and host settings it gets, and
/// every finding not about a definition.
pub(super) fn what_runs(r: &Review, md: &mut Md) {
    let s = r.server;
    md.line("## 1. What runs, and with whose permissions");
    md.blank();
    match s.spec.as_ref().map(|x| &x.transport) {
        Some(Transport::Stdio { .. }) => md.line(&format!(
            "- The assistant starts {} as a local process. It runs with the developer's \
             own privileges: it can read every file they can (SSH keys, `~/.npmrc`, \
             cloud credentials, other repositories) and open network connections.",
            md_code(&s.what_runs())
        )),
        Some(Transport::Http { url, .. }) => md.line(&format!(
            "- A remote server at {}: its code runs elsewhere and can change at any \
             time; what it can do is bounded by the credentials sent to it.",
            md_code(url)
        )),
        None => {
            md.line("- The launch configuration is not part of this review (definitions only).")
        }
    }
    match &s.pinning {
        Pinning::Unpinned { reference } => md.line(&format!(
            "- {} is not pinned: each launch may download and run different code than the \
             code reviewed here.",
            md_code(reference)
        )),
        Pinning::Pinned { reference } => md.line(&format!("- Pinned to {}.", md_code(reference))),
        Pinning::LocalCommand => md.line(
            "- A program already installed on the machine: it is whatever version was installed.",
        ),
        _ => {}
    }
    let creds = s.credential_sources();
    if creds.is_empty() {
        md.line("- No credentials are passed to it.");
    } else {
        md.line(&format!(
            "- It receives {}; it can do whatever those credentials allow, and so can \
             anything that steers the model.",
            code_list(&creds)
        ));
    }
    if let Some(spec) = &s.spec {
        for (k, v) in &spec.settings {
            md.line(&format!(
                "- Host setting {} is {} ({}).",
                md_code(k),
                md_code(&v.to_string()),
                spec.host
            ));
        }
    }
    for f in r.findings.iter().filter(|f| {
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
        md.line(&format!(
            "- **{}** ({}): {}",
            f.rule,
            f.severity,
            sentence(&f.message)
        ));
    }
    md.blank();
}
