//! Finding fingerprints: the one identity of a finding that SARIF (`partialFingerprints`), JSON
//! v1 (`fingerprint`), policy `[[ignore]]` entries and baseline files share.
//!
//! A fingerprint is SHA-256 (first 16 bytes, as 32 hex digits) over what the finding is about,
//! never where it happens to sit today:
//!
//! - the rule and the server's configured name;
//! - the tool, prompt or resource (kind and name) — and the JSON Pointer into it with the
//!   item's position in the server's list left out (`/tools/2/description` is hashed as
//!   `/tools/-/description`), so a server that adds or reorders tools does not change the
//!   fingerprints of the others;
//! - for a finding about a config field, the config file (relative to the report's root,
//!   `/`-separated, `.` segments dropped) and the field's pointer in the server entry
//!   (`/env/TOKEN`, `/args/1`), never its line or column.
//!
//! So fingerprints are the same from run to run and machine to machine, survive line moves and
//! unrelated servers or tools being added, and still tell two findings of one rule apart.

use std::path::{Component, Path};

use sha2::{Digest, Sha256};

use crate::model::finding::{Finding, ItemKind};
use crate::model::spec::{Origin, ServerSpec};

/// Length of a fingerprint in hex digits.
pub const LEN: usize = 32;

/// Whether `text` has the shape of a fingerprint (32 lowercase hex digits).
pub fn is_fingerprint(text: &str) -> bool {
    text.len() == LEN && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Computes fingerprints for the findings of one run: knows the specs (to name the config
/// field a finding points at) and the root that config paths are made relative to.
#[derive(Debug, Clone, Default)]
pub struct Fingerprinter<'a> {
    specs: Vec<&'a ServerSpec>,
    root: Option<&'a Path>,
}

impl<'a> Fingerprinter<'a> {
    pub fn new(specs: impl IntoIterator<Item = &'a ServerSpec>, root: Option<&'a Path>) -> Self {
        Fingerprinter {
            specs: specs.into_iter().collect(),
            root,
        }
    }

    /// The fingerprint of one finding.
    pub fn of(&self, f: &Finding) -> String {
        let mut h = Sha256::new();
        let item = f
            .item
            .as_ref()
            .map(|i| format!("{:?}:{}", i.kind, i.name))
            .unwrap_or_default();
        let pointer = f
            .location
            .pointer
            .as_deref()
            .map(|p| positionless(p, f.item.as_ref().map(|i| i.kind)))
            .unwrap_or_default();
        let config = f
            .location
            .config
            .as_ref()
            .map(|o| {
                format!(
                    "{}#{}",
                    self.config_path(&o.file),
                    self.config_field(&f.server, o).unwrap_or("")
                )
            })
            .unwrap_or_default();
        for part in [f.rule.as_str(), f.server.as_str(), &item, &pointer, &config] {
            h.update(part.as_bytes());
            h.update([0u8]);
        }
        hex::encode(&h.finalize()[..LEN / 2])
    }

    /// A config file as fingerprints and `[[ignore]] path` see it: relative to the root when
    /// under it, `/`-separated, without `.` segments.
    pub fn config_path(&self, file: &Path) -> String {
        let rel = self
            .root
            .and_then(|r| file.strip_prefix(r).ok())
            .unwrap_or(file);
        let mut parts: Vec<String> = Vec::new();
        for c in rel.components() {
            match c {
                Component::CurDir => {}
                Component::RootDir => parts.push(String::new()),
                other => parts.push(other.as_os_str().to_string_lossy().replace('\\', "/")),
            }
        }
        match parts.as_slice() {
            [only] if only.is_empty() => "/".into(),
            _ => parts.join("/"),
        }
    }

    /// The field of the server entry a config origin points at (`/env/TOKEN`), or `""` for
    /// the entry itself; `None` when no spec of that server records the position.
    fn config_field(&self, server: &str, at: &Origin) -> Option<&str> {
        self.specs
            .iter()
            .filter(|s| s.name == server)
            .find_map(|s| {
                s.locations
                    .iter()
                    .find(|(_, o)| *o == at)
                    .map(|(p, _)| p.as_str())
                    .or_else(|| (s.origin.as_ref() == Some(at)).then_some(""))
            })
    }
}

/// `/tools/3/inputSchema/...` → `/tools/-/inputSchema/...` when the finding names its item
/// (the name identifies it; the position does not).
fn positionless(pointer: &str, kind: Option<ItemKind>) -> String {
    let Some(kind) = kind else {
        return pointer.to_owned();
    };
    let list = match kind {
        ItemKind::Tool => "tools",
        ItemKind::Prompt => "prompts",
        ItemKind::Resource => "resources",
        ItemKind::ResourceTemplate => "resourceTemplates",
        ItemKind::Instructions => return pointer.to_owned(),
    };
    let Some(rest) = pointer
        .strip_prefix('/')
        .and_then(|p| p.strip_prefix(list))
        .and_then(|p| p.strip_prefix('/'))
    else {
        return pointer.to_owned();
    };
    let end = rest.find('/').unwrap_or(rest.len());
    if end > 0 && rest[..end].bytes().all(|b| b.is_ascii_digit()) {
        format!("/{list}/-{}", &rest[end..])
    } else {
        pointer.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    use super::*;
    use crate::model::finding::{Confidence, Control, ItemRef, Location, Severity};
    use crate::model::spec::Transport;

    fn origin(file: &str, line: u32, column: u32) -> Origin {
        Origin {
            file: PathBuf::from(file),
            line,
            column,
        }
    }

    fn spec(name: &str, file: &str, line: u32) -> ServerSpec {
        ServerSpec {
            name: name.into(),
            host: crate::model::host::Host::CommandLine,
            origin: Some(origin(file, line, 5)),
            locations: BTreeMap::from([
                ("/command".into(), origin(file, line + 1, 18)),
                ("/env/A".into(), origin(file, line + 3, 12)),
                ("/env/B".into(), origin(file, line + 4, 12)),
            ]),
            transport: Transport::Stdio {
                command: "x".into(),
                args: Vec::new(),
                env: BTreeMap::new(),
                cwd: None,
            },
            settings: BTreeMap::new(),
            duplicate_keys: Vec::new(),
        }
    }

    fn finding(server: &str, at: Option<Origin>, item: Option<&str>, ptr: Option<&str>) -> Finding {
        Finding {
            rule: "literal-secret".into(),
            severity: Severity::High,
            confidence: Confidence::High,
            server: server.into(),
            item: item.map(|n| ItemRef {
                kind: ItemKind::Tool,
                name: n.into(),
            }),
            location: Location {
                config: at,
                pointer: ptr.map(str::to_owned),
            },
            message: "m".into(),
            evidence: None,
            control: Control::SecretReference,
        }
    }

    #[test]
    fn two_fields_of_one_entry_are_two_fingerprints_and_lines_do_not_count() {
        let a = spec("s", ".mcp.json", 3);
        let fp = Fingerprinter::new([&a], None);
        let on_a = finding("s", Some(origin(".mcp.json", 6, 12)), None, None);
        let on_b = finding("s", Some(origin(".mcp.json", 7, 12)), None, None);
        assert_ne!(fp.of(&on_a), fp.of(&on_b));
        // The same entry 40 lines further down (a server was added above it).
        let moved = spec("s", ".mcp.json", 43);
        let fp_moved = Fingerprinter::new([&moved], None);
        let on_a_moved = finding("s", Some(origin(".mcp.json", 46, 12)), None, None);
        assert_eq!(fp.of(&on_a), fp_moved.of(&on_a_moved));
        assert!(is_fingerprint(&fp.of(&on_a)), "{}", fp.of(&on_a));
    }

    #[test]
    fn paths_are_relative_to_the_root_and_lexically_normal() {
        let root = Path::new("/home/alice/repo");
        let fp = Fingerprinter::new([], Some(root));
        assert_eq!(
            fp.config_path(Path::new("/home/alice/repo/.mcp.json")),
            ".mcp.json"
        );
        assert_eq!(fp.config_path(Path::new("./a/./b.json")), "a/b.json");
        assert_eq!(fp.config_path(Path::new("/etc/mcp.json")), "/etc/mcp.json");
        let there = Fingerprinter::new([], Some(Path::new("/ci/work/repo")));
        let f = |file: &str| finding("s", Some(origin(file, 1, 1)), None, None);
        assert_eq!(
            fp.of(&f("/home/alice/repo/.vscode/mcp.json")),
            there.of(&f("/ci/work/repo/.vscode/mcp.json"))
        );
        assert_eq!(
            fp.of(&f("./.vscode/mcp.json")),
            fp.of(&f(".vscode/mcp.json"))
        );
    }

    #[test]
    fn an_items_position_in_its_list_does_not_count_but_its_name_does() {
        let fp = Fingerprinter::default();
        let at = |n: &str, p: &str| finding("s", None, Some(n), Some(p));
        assert_eq!(
            fp.of(&at("t", "/tools/2/description")),
            fp.of(&at("t", "/tools/0/description"))
        );
        assert_ne!(
            fp.of(&at("t", "/tools/2/description")),
            fp.of(&at("u", "/tools/2/description"))
        );
        assert_ne!(
            fp.of(&at("t", "/tools/2/description")),
            fp.of(&at("t", "/tools/2/title"))
        );
        assert_eq!(
            positionless("/tools/12/a/0", Some(ItemKind::Tool)),
            "/tools/-/a/0"
        );
        assert_eq!(
            positionless("/tools/x/a", Some(ItemKind::Tool)),
            "/tools/x/a"
        );
        assert_eq!(
            positionless("/prompts/1", Some(ItemKind::Prompt)),
            "/prompts/-"
        );
        assert_eq!(positionless("/tools/1", None), "/tools/1");
        assert_eq!(
            positionless("/instructions", Some(ItemKind::Instructions)),
            "/instructions"
        );
    }

    #[test]
    fn fingerprints_are_pinned() {
        // A change to the recipe changes every alert's identity in code scanning and every
        // baseline entry: it must be deliberate.
        let a = spec("s", ".mcp.json", 3);
        let fp = Fingerprinter::new([&a], None);
        let f = finding("s", Some(origin(".mcp.json", 6, 12)), None, None);
        let tool = finding("s", None, Some("t"), Some("/tools/1/description"));
        assert_eq!(fp.of(&f), "d2817886af6a8656a37f380d6087f11c");
        assert_eq!(fp.of(&tool), "6d54857f17a82f69269c3bda102ce0b5");
    }
}
