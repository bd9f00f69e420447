//! Baseline files (`mcpvet-baseline.toml`): findings a reviewer accepted as they are, by
//! fingerprint, each with the reviewer's reason.
//!
//! `mcpvet baseline` writes one from the current findings; `scan`/`check --baseline FILE`
//! then report only findings it does not list. The file is meant to be committed and read in
//! review, so every entry carries, beside its [fingerprint](crate::model::fingerprint), the
//! rule, severity, server, tool/prompt/resource, config file and JSON Pointer it stood for
//! (escaped and redacted: a server's name cannot hide text in a pull request's diff), and a
//! `reason`.
//!
//! Rules a reviewer can rely on:
//!
//! - An entry suppresses a finding only when the fingerprint matches **and** the rule, server
//!   and item it names are the finding's; an entry whose words disagree with its fingerprint
//!   suppresses nothing and is reported.
//! - An empty `reason` is an error (naming file and line) when the file is used: a freshly
//!   written baseline must be reviewed before it hides anything (`mcpvet baseline --reason`
//!   records one reason for every new entry at once).
//! - Entries that matched nothing although their server was judged (and, for definition
//!   findings, its definitions read) are stale and reported as warnings; `mcpvet baseline`
//!   drops them when it rewrites the file and keeps the reasons of the entries still found.
//! - The file is read like every other input: bounded ([`ReadKind::Baseline`]), typed
//!   (unknown keys and bad values are errors at `file:line:column`).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use super::PolicyWarning;
use crate::config::tree::Pos;
use crate::model::escape;
use crate::model::finding::{Finding, ItemKind, ItemRef, Severity};
use crate::model::fingerprint::{Fingerprinter, is_fingerprint};
use crate::model::fsio::{self, ReadKind};
use crate::model::spec::Origin;

/// The file `mcpvet baseline` writes unless told otherwise.
pub const DEFAULT_FILE: &str = "mcpvet-baseline.toml";

/// The format version this build reads and writes.
pub const VERSION: i64 = 1;

/// Longest server, tool or path text a baseline entry records (bytes, before escaping).
const MAX_NAME_BYTES: usize = 256;

/// Why a baseline file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    #[error("cannot read baseline {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}:{column}: {message}")]
    Invalid {
        path: String,
        line: usize,
        column: usize,
        message: String,
    },
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBaseline {
    version: Spanned<i64>,
    #[serde(default)]
    finding: Vec<Spanned<RawEntry>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawEntry {
    fingerprint: Spanned<String>,
    rule: String,
    severity: Option<Spanned<String>>,
    server: String,
    tool: Option<String>,
    prompt: Option<String>,
    resource: Option<String>,
    resource_template: Option<String>,
    file: Option<String>,
    pointer: Option<String>,
    reason: Spanned<String>,
}

/// One accepted finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaselineEntry {
    pub fingerprint: String,
    pub rule: String,
    /// The severity when the entry was written (informational: policy remaps may change it).
    pub severity: Option<Severity>,
    /// The server, as [`shown`].
    pub server: String,
    /// The tool, prompt or resource, its name as [`shown`].
    pub item: Option<ItemRef>,
    /// The config file, relative to the repository root (informational).
    pub file: Option<String>,
    /// JSON Pointer into the server's definitions (informational).
    pub pointer: Option<String>,
    pub reason: String,
    /// Line of the entry in its file (0 for an entry not read from a file).
    pub line: usize,
}

impl BaselineEntry {
    /// An entry for a finding of this run.
    pub fn for_finding(f: &Finding, prints: &Fingerprinter<'_>, reason: &str) -> BaselineEntry {
        BaselineEntry {
            fingerprint: prints.of(f),
            rule: shown(&f.rule),
            severity: Some(f.severity),
            server: shown(&f.server),
            item: f.item.as_ref().map(|i| ItemRef {
                kind: i.kind,
                name: shown(&i.name),
            }),
            file: f
                .location
                .config
                .as_ref()
                .map(|o| shown(&prints.config_path(&o.file))),
            pointer: f.location.pointer.as_deref().map(shown),
            reason: reason.trim().to_owned(),
            line: 0,
        }
    }

    /// Whether only a run that read the server's definitions (a live probe or a snapshot)
    /// could have produced the finding.
    pub fn needs_definitions(&self) -> bool {
        self.item.is_some() || self.pointer.is_some()
    }

    /// Whether the entry is about the server of this configured name.
    pub fn is_about(&self, server: &str) -> bool {
        self.server == shown(server)
    }

    /// Whether the rule, server and item the entry names are the finding's.
    fn names(&self, f: &Finding) -> bool {
        self.rule == shown(&f.rule)
            && self.server == shown(&f.server)
            && match (&self.item, &f.item) {
                (None, None) => true,
                (Some(a), Some(b)) => a.kind == b.kind && a.name == shown(&b.name),
                _ => false,
            }
    }

    fn what(&self) -> String {
        let item = self
            .item
            .as_ref()
            .map(|i| format!(" ({} `{}`)", kind_key(i.kind), i.name))
            .unwrap_or_default();
        format!("`{}` on `{}`{item}", self.rule, self.server)
    }
}

/// How a baseline shows a name a server or a repository controls: clipped, secrets redacted,
/// hidden characters escaped. Entries are compared with findings in this form.
pub fn shown(text: &str) -> String {
    escape::line(&crate::model::redact::redact_text(&escape::clip(
        text,
        MAX_NAME_BYTES,
    )))
}

/// A loaded baseline.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Baseline {
    pub path: PathBuf,
    pub entries: Vec<BaselineEntry>,
}

/// Findings one group of baseline entries suppressed (same rule, server and reason).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuppressedGroup {
    pub rule: String,
    pub server: String,
    pub reason: String,
    pub count: usize,
}

/// What applying a baseline made of a run's findings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// The findings the baseline does not list: the new ones.
    pub findings: Vec<Finding>,
    pub suppressed: Vec<SuppressedGroup>,
    /// Stale entries and entries whose words disagree with their fingerprint.
    pub warnings: Vec<PolicyWarning>,
}

/// What rewriting a baseline did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UpdateStats {
    /// Entries for findings the previous file did not list.
    pub added: usize,
    /// Entries still found, their reasons kept.
    pub kept: usize,
    /// Entries of the previous file whose finding is gone (their server was judged).
    pub dropped: usize,
    /// Entries of the previous file this run could not check (server not judged), kept.
    pub unchecked: usize,
    /// Entries whose `reason` is still empty.
    pub without_reason: usize,
}

impl Baseline {
    /// Read a baseline to apply it: every entry must have a reason.
    pub fn load(path: &Path) -> Result<Baseline, BaselineError> {
        Self::read(path, true)
    }

    /// Read a baseline to rewrite it: entries may still lack a reason.
    pub fn load_draft(path: &Path) -> Result<Baseline, BaselineError> {
        Self::read(path, false)
    }

    fn read(path: &Path, require_reasons: bool) -> Result<Baseline, BaselineError> {
        let text =
            fsio::read_text(path, ReadKind::Baseline).map_err(|source| BaselineError::Io {
                path: path.display().to_string(),
                source,
            })?;
        Self::parse(path, &text, require_reasons)
    }

    /// Validate baseline text as if read from `path`.
    pub fn parse(
        path: &Path,
        text: &str,
        require_reasons: bool,
    ) -> Result<Baseline, BaselineError> {
        let err = |span: Range<usize>, message: String| {
            let pos = Pos::of_offset(text, span.start);
            BaselineError::Invalid {
                path: path.display().to_string(),
                line: pos.line as usize,
                column: pos.column as usize,
                message,
            }
        };
        let raw: RawBaseline = toml::from_str(text)
            .map_err(|e| err(e.span().unwrap_or(0..0), e.message().trim().to_string()))?;
        if *raw.version.get_ref() != VERSION {
            return Err(err(
                raw.version.span(),
                format!(
                    "baseline version {} is not supported (this mcpvet reads version {VERSION})",
                    raw.version.get_ref()
                ),
            ));
        }
        let mut entries = Vec::with_capacity(raw.finding.len());
        let mut seen: HashMap<String, usize> = HashMap::new();
        for e in &raw.finding {
            let line = Pos::of_offset(text, e.span().start).line as usize;
            let r = e.get_ref();
            let fp = r.fingerprint.get_ref();
            if !is_fingerprint(fp) {
                return Err(err(
                    r.fingerprint.span(),
                    format!(
                        "`fingerprint` must be 32 lowercase hex digits, not \"{}\"",
                        shown(fp)
                    ),
                ));
            }
            if let Some(first) = seen.insert(fp.clone(), line) {
                return Err(err(
                    r.fingerprint.span(),
                    format!("fingerprint {fp} is listed twice (first at line {first})"),
                ));
            }
            let severity = r
                .severity
                .as_ref()
                .map(|s| {
                    s.get_ref()
                        .parse::<Severity>()
                        .map_err(|m| err(s.span(), m))
                })
                .transpose()?;
            let items = [
                (ItemKind::Tool, &r.tool),
                (ItemKind::Prompt, &r.prompt),
                (ItemKind::Resource, &r.resource),
                (ItemKind::ResourceTemplate, &r.resource_template),
            ];
            let mut given = items
                .iter()
                .filter_map(|(kind, name)| name.as_ref().map(|n| (*kind, n)));
            let item = given.next().map(|(kind, name)| ItemRef {
                kind,
                name: name.clone(),
            });
            if given.next().is_some() {
                return Err(err(
                    e.span(),
                    "an entry names at most one of `tool`, `prompt`, `resource`, `resource-template`".into(),
                ));
            }
            let item = item.or_else(|| {
                (r.pointer.as_deref() == Some("/instructions")).then(|| ItemRef {
                    kind: ItemKind::Instructions,
                    name: String::new(),
                })
            });
            let reason = r.reason.get_ref().trim().to_owned();
            if reason.is_empty() && require_reasons {
                return Err(err(
                    r.reason.span(),
                    format!(
                        "baseline entry for `{}` on `{}`: `reason` is empty; say why the finding is accepted (or remove the entry)",
                        shown(&r.rule),
                        shown(&r.server)
                    ),
                ));
            }
            entries.push(BaselineEntry {
                fingerprint: fp.clone(),
                rule: r.rule.clone(),
                severity,
                server: r.server.clone(),
                item,
                file: r.file.clone(),
                pointer: r.pointer.clone(),
                reason,
                line,
            });
        }
        Ok(Baseline {
            path: path.to_path_buf(),
            entries,
        })
    }

    fn origin(&self, e: &BaselineEntry) -> Origin {
        Origin {
            file: self.path.clone(),
            line: u32::try_from(e.line).unwrap_or(u32::MAX),
            column: 1,
        }
    }

    /// Suppress the findings the baseline lists. `judged` says whether this run could have
    /// produced an entry's finding (its server was judged, and its definitions read when the
    /// entry is about them); entries it could have produced but did not are stale.
    pub fn apply(
        &self,
        findings: Vec<Finding>,
        prints: &Fingerprinter<'_>,
        judged: &dyn Fn(&BaselineEntry) -> bool,
    ) -> Applied {
        let by_print: HashMap<&str, usize> = self
            .entries
            .iter()
            .enumerate()
            .map(|(i, e)| (e.fingerprint.as_str(), i))
            .collect();
        let mut used = vec![false; self.entries.len()];
        let mut disagree: BTreeMap<usize, String> = BTreeMap::new();
        let mut groups: Vec<SuppressedGroup> = Vec::new();
        let mut kept = Vec::with_capacity(findings.len());
        for f in findings {
            let Some(&i) = by_print.get(prints.of(&f).as_str()) else {
                kept.push(f);
                continue;
            };
            let e = &self.entries[i];
            if !e.names(&f) {
                disagree.entry(i).or_insert_with(|| {
                    format!(
                        "baseline entry says {} but its fingerprint is that of `{}` on `{}`; it suppresses nothing until it is corrected",
                        e.what(),
                        shown(&f.rule),
                        shown(&f.server)
                    )
                });
                kept.push(f);
                continue;
            }
            used[i] = true;
            match groups
                .iter_mut()
                .find(|g| g.rule == e.rule && g.server == e.server && g.reason == e.reason)
            {
                Some(g) => g.count += 1,
                None => groups.push(SuppressedGroup {
                    rule: e.rule.clone(),
                    server: e.server.clone(),
                    reason: e.reason.clone(),
                    count: 1,
                }),
            }
        }
        let mut warnings: Vec<PolicyWarning> = disagree
            .into_iter()
            .map(|(i, message)| PolicyWarning {
                origin: self.origin(&self.entries[i]),
                message,
            })
            .collect();
        for (e, _) in self
            .entries
            .iter()
            .zip(&used)
            .filter(|(e, used)| !**used && judged(e))
        {
            if warnings.iter().any(|w| w.origin == self.origin(e)) {
                continue;
            }
            warnings.push(PolicyWarning {
                origin: self.origin(e),
                message: format!(
                    "baseline entry {} ({}) matched no finding; remove it (or rewrite the file with `mcpvet baseline`)",
                    e.what(),
                    e.fingerprint
                ),
            });
        }
        Applied {
            findings: kept,
            suppressed: groups,
            warnings,
        }
    }

    /// The baseline for this run's findings: entries still found keep their reasons, new
    /// ones (and kept ones without a reason) get `reason` (or an empty one for the reviewer
    /// to fill), entries whose finding is
    /// gone are dropped when `judged` says the run could have produced them, kept otherwise.
    pub fn updated(
        &self,
        path: &Path,
        findings: &[Finding],
        prints: &Fingerprinter<'_>,
        reason: Option<&str>,
        judged: &dyn Fn(&BaselineEntry) -> bool,
    ) -> (Baseline, UpdateStats) {
        let previous: HashMap<&str, &BaselineEntry> = self
            .entries
            .iter()
            .map(|e| (e.fingerprint.as_str(), e))
            .collect();
        let mut stats = UpdateStats::default();
        let mut entries: Vec<BaselineEntry> = Vec::new();
        let mut written: HashSet<String> = HashSet::new();
        for f in findings {
            let mut entry = BaselineEntry::for_finding(f, prints, reason.unwrap_or(""));
            if !written.insert(entry.fingerprint.clone()) {
                continue;
            }
            match previous.get(entry.fingerprint.as_str()) {
                Some(old) => {
                    if !old.reason.is_empty() || reason.is_none() {
                        entry.reason = old.reason.clone();
                    }
                    stats.kept += 1;
                }
                None => stats.added += 1,
            }
            entries.push(entry);
        }
        for old in &self.entries {
            if written.contains(&old.fingerprint) {
                continue;
            }
            if judged(old) {
                stats.dropped += 1;
            } else {
                stats.unchecked += 1;
                entries.push(BaselineEntry {
                    line: 0,
                    ..old.clone()
                });
            }
        }
        entries.sort_by(|a, b| {
            (
                &a.server,
                &a.file,
                &a.item,
                &a.pointer,
                &a.rule,
                &a.fingerprint,
            )
                .cmp(&(
                    &b.server,
                    &b.file,
                    &b.item,
                    &b.pointer,
                    &b.rule,
                    &b.fingerprint,
                ))
        });
        stats.without_reason = entries.iter().filter(|e| e.reason.is_empty()).count();
        (
            Baseline {
                path: path.to_path_buf(),
                entries,
            },
            stats,
        )
    }

    /// The file's text: a header that says how it is used, then one `[[finding]]` per entry.
    pub fn to_toml(&self) -> String {
        let mut out = String::from(HEADER);
        out.push_str(&format!("version = {VERSION}\n"));
        for e in &self.entries {
            out.push_str("\n[[finding]]\n");
            let mut field = |k: &str, v: &str| out.push_str(&format!("{k} = {}\n", quote(v)));
            field("fingerprint", &e.fingerprint);
            field("rule", &e.rule);
            if let Some(s) = e.severity {
                field("severity", s.as_str());
            }
            field("server", &e.server);
            if let Some(i) = e.item.as_ref().filter(|i| i.kind != ItemKind::Instructions) {
                field(kind_key(i.kind), &i.name);
            }
            if let Some(file) = &e.file {
                field("file", file);
            }
            if let Some(p) = &e.pointer {
                field("pointer", p);
            }
            field("reason", &e.reason);
        }
        out
    }
}

const HEADER: &str = "\
# mcpvet baseline: findings a reviewer accepted as they are.
#
# `mcpvet scan --baseline FILE` and `mcpvet check --baseline FILE` report only findings this
# file does not list, and say how many it suppressed. An entry matches by `fingerprint` (as in
# `--format json` and SARIF) and only when its `rule`, `server` and tool/prompt/resource are
# the finding's; `severity`, `file` and `pointer` are there for the reader.
#
# Every entry needs a `reason`: a file with an empty one is refused until a reviewer says
# why the finding is accepted. Entries that no longer match are reported as warnings.
# `mcpvet baseline` rewrites this file: reasons of entries still found are kept, new findings
# get an empty reason (or `--reason TEXT`), entries whose finding is gone are dropped.
";

/// The key that names an item of this kind in a baseline entry.
fn kind_key(kind: ItemKind) -> &'static str {
    match kind {
        ItemKind::Tool => "tool",
        ItemKind::Prompt => "prompt",
        ItemKind::Resource => "resource",
        ItemKind::ResourceTemplate => "resource-template",
        ItemKind::Instructions => "instructions",
    }
}

/// A TOML basic string.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
