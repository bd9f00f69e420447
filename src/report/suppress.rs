//! What `mcpvet baseline` says after writing a baseline file (on stderr): how many entries it
//! added, kept and dropped, and what is left for the reviewer to do.

use std::path::Path;

use crate::model::escape;
use crate::policy::suppress::UpdateStats;

/// The lines `mcpvet baseline` prints for a file it wrote.
pub fn baseline_summary(path: &Path, stats: &UpdateStats, unprobed: &[&str]) -> Vec<String> {
    let file = escape::line(&path.display().to_string());
    let total = stats.added + stats.kept + stats.unchecked;
    let mut lines = vec![format!(
        "wrote {file}: {total} {} ({} new, {} kept with their reasons, {} dropped as no longer found{})",
        if total == 1 { "entry" } else { "entries" },
        stats.added,
        stats.kept,
        stats.dropped,
        if stats.unchecked > 0 {
            format!(
                ", {} kept unchecked (their servers were not judged)",
                stats.unchecked
            )
        } else {
            String::new()
        }
    )];
    if !unprobed.is_empty() {
        lines.push(format!(
            "warning: {} could not be probed; {} definition findings are not in the baseline",
            unprobed
                .iter()
                .map(|n| escape::line(n))
                .collect::<Vec<_>>()
                .join(", "),
            if unprobed.len() == 1 { "its" } else { "their" }
        ));
    }
    if stats.without_reason > 0 {
        lines.push(format!(
            "{} without a reason: fill in each `reason` in {file} (or re-run with --reason TEXT) — \
             `--baseline {file}` refuses the file until then",
            if stats.without_reason == 1 {
                "1 entry is".to_owned()
            } else {
                format!("{} entries are", stats.without_reason)
            }
        ));
    }
    lines
}

/// Print [`baseline_summary`] on stderr (with `--quiet`, only the warnings and what is left
/// to do).
pub fn baseline_written(path: &Path, stats: &UpdateStats, unprobed: &[&str], quiet: bool) {
    for (i, line) in baseline_summary(path, stats, unprobed).iter().enumerate() {
        if i > 0 || !quiet {
            super::eprint_line(line);
        }
    }
}
