//! The structured difference between a lock and what a server shows now (or between two
//! listings), with a readable text diff for every changed field.
//!
//! Items are matched by identity (`name`, `uri`, `uriTemplate`), never by position, so a
//! reordered list is not drift. Each changed field is named by its JSON Pointer relative to
//! the item and carries a unified line diff (made with `similar`) in which changed words are
//! marked `[-old-]`/`{+new+}` and invisible characters are made visible; a change that only
//! touches whitespace is flagged and rendered with every space, tab and line end shown.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;
use similar::{ChangeTag, InlineChangeMode, InlineChangeOptions, TextDiff};

use super::canon::canonical_json;
use super::lockfile::{Content, LaunchSpec, LockedItem, Lockfile, item_key, kind_word, sort_keys};
use crate::model::escape::{line, md_code, visible};
use crate::model::finding::ItemKind;
use crate::model::snapshot::ServerSnapshot;
use crate::model::spec::ServerSpec;

/// One changed field: where, before, after, and a readable diff.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldChange {
    /// JSON Pointer relative to the item (`""` for the whole item), or the lock field name
    /// for server-level changes (`/serverInfo/version`, `/protocolVersion`, `/launch`).
    pub pointer: String,
    pub old: Option<Value>,
    pub new: Option<Value>,
    /// Only whitespace differs (the text diff then shows spaces as `·`, tabs as `⇥`,
    /// line ends as `⏎`).
    pub whitespace_only: bool,
    /// Unified line diff (`-`/`+`/` ` prefixed lines).
    pub text_diff: String,
}

/// How an item changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "type")]
pub enum ChangeKind {
    Added,
    Removed,
    /// `definition`: the definition without annotations changed; `annotations`: the
    /// annotations changed.
    Changed {
        definition: bool,
        annotations: bool,
    },
}

/// One added, removed or changed tool, prompt, resource or resource template.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemChange {
    pub kind: ItemKind,
    pub name: String,
    pub change: ChangeKind,
    pub old_sha256: Option<String>,
    pub new_sha256: Option<String>,
    pub old_annotations_sha256: Option<String>,
    pub new_annotations_sha256: Option<String>,
    /// Position of the new definition in the live listing (for JSON Pointers into the
    /// snapshot), when there is one.
    pub new_index: Option<usize>,
    /// The changed fields; for an added or removed item, one entry with pointer `""`
    /// holding the whole definition.
    pub fields: Vec<FieldChange>,
}

/// Everything that differs between a lock and a snapshot.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct LockDiff {
    pub server: String,
    /// The normalised launch spec differs from the locked one (only with a spec).
    pub launch: Option<FieldChange>,
    /// serverInfo, era and protocol version changes.
    pub identity: Vec<FieldChange>,
    /// Why era and protocol version were not compared, when they were not: the new snapshot
    /// could not decide its era, so a difference would say nothing about the server.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub era_not_compared: Option<String>,
    pub instructions: Option<FieldChange>,
    pub items: Vec<ItemChange>,
}

impl LockDiff {
    /// Nothing drifted.
    pub fn is_empty(&self) -> bool {
        self.launch.is_none()
            && self.identity.is_empty()
            && self.instructions.is_none()
            && self.items.is_empty()
    }

    /// Number of separate changes (launch, each identity field, instructions, each item).
    pub fn change_count(&self) -> usize {
        usize::from(self.launch.is_some())
            + self.identity.len()
            + usize::from(self.instructions.is_some())
            + self.items.len()
    }

    /// Human-readable report of the diff, for `mcpvet diff`.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let not_compared = self
            .era_not_compared
            .as_deref()
            .map(|why| format!("era and protocol version not compared: {}", line(why)));
        if self.is_empty() {
            let _ = match &not_compared {
                Some(n) => writeln!(out, "{}: matches its lock ({n})", line(&self.server)),
                None => writeln!(out, "{}: matches its lock", line(&self.server)),
            };
            return out;
        }
        let n = self.change_count();
        let _ = writeln!(
            out,
            "{}: drifted from its lock ({n} change{})",
            line(&self.server),
            if n == 1 { "" } else { "s" }
        );
        if let Some(n) = &not_compared {
            let _ = writeln!(out, "  ? {n}");
        }
        if let Some(l) = &self.launch {
            let _ = writeln!(out, "  ~ launch spec changed");
            write_field(&mut out, l, "      ");
        }
        for f in &self.identity {
            let _ = writeln!(
                out,
                "  ~ {} changed",
                line(f.pointer.trim_start_matches('/'))
            );
            write_field(&mut out, f, "      ");
        }
        if let Some(f) = &self.instructions {
            let _ = writeln!(out, "  ~ instructions changed");
            write_field(&mut out, f, "      ");
        }
        for item in &self.items {
            let word = kind_word(item.kind);
            match item.change {
                ChangeKind::Added => {
                    let _ = writeln!(out, "  + {word} {} added", md_code(&item.name));
                }
                ChangeKind::Removed => {
                    let _ = writeln!(out, "  - {word} {} removed", md_code(&item.name));
                }
                ChangeKind::Changed {
                    definition,
                    annotations,
                } => {
                    let what = match (definition, annotations) {
                        (true, true) => "definition and annotations changed",
                        (true, false) => "definition changed",
                        _ => "annotations changed",
                    };
                    let _ = writeln!(out, "  ~ {word} {}: {what}", md_code(&item.name));
                    if definition {
                        let _ = writeln!(
                            out,
                            "      sha256 {} → {}",
                            short(item.old_sha256.as_deref()),
                            short(item.new_sha256.as_deref())
                        );
                    }
                }
            }
            for f in &item.fields {
                if !f.pointer.is_empty() {
                    let _ = writeln!(
                        out,
                        "    {}{}{}",
                        line(&f.pointer),
                        match (&f.old, &f.new) {
                            (None, Some(_)) => " (added)",
                            (Some(_), None) => " (removed)",
                            _ => "",
                        },
                        if f.whitespace_only {
                            " (whitespace-only change: · space, ⇥ tab, ⏎ line end)"
                        } else {
                            ""
                        }
                    );
                }
                write_field(&mut out, f, "      ");
            }
        }
        out
    }
}

fn short(h: Option<&str>) -> String {
    match h {
        Some(h) if h.len() > 12 => format!("{}…", line(h.get(..12).unwrap_or(h))),
        Some(h) => line(h),
        None => "none".into(),
    }
}

fn write_field(out: &mut String, f: &FieldChange, indent: &str) {
    for line in f.text_diff.lines() {
        let _ = writeln!(out, "{indent}{line}");
    }
}

/// Compare a lock with a snapshot: what was approved against what the server shows now.
pub fn diff(lock: &Lockfile, snapshot: &ServerSnapshot) -> LockDiff {
    diff_with_spec(lock, None, snapshot)
}

/// [`diff`], plus the launch spec when the server's spec is known.
pub fn diff_with_spec(
    lock: &Lockfile,
    spec: Option<&ServerSpec>,
    snapshot: &ServerSnapshot,
) -> LockDiff {
    let mut d = diff_content(
        &lock.server,
        &lock.content(),
        &Content::from_snapshot(snapshot),
    );
    locate_in(&mut d, snapshot);
    if let Some(why) = snapshot.undecided_era() {
        d.identity
            .retain(|f| f.pointer != "/era" && f.pointer != "/protocolVersion");
        d.era_not_compared = Some(why.to_owned());
    }
    if let Some(spec) = spec {
        d.launch = launch_change(lock, spec);
    }
    d
}

/// The launch spec change between a lock and a spec, if the lock recorded one and it differs.
pub fn launch_change(lock: &Lockfile, spec: &ServerSpec) -> Option<FieldChange> {
    let locked = lock.launch.as_ref()?;
    let now = LaunchSpec::from_spec(spec);
    if *locked == now {
        return None;
    }
    let old = serde_json::to_value(locked).ok();
    let new = serde_json::to_value(&now).ok();
    Some(field_change("/launch".into(), old.as_ref(), new.as_ref()))
}

/// Fill `new_index` with each new definition's position in the snapshot's list.
pub fn locate_in(d: &mut LockDiff, snapshot: &ServerSnapshot) {
    for item in &mut d.items {
        let list = match item.kind {
            ItemKind::Tool => &snapshot.tools,
            ItemKind::Prompt => &snapshot.prompts,
            ItemKind::Resource => &snapshot.resources,
            ItemKind::ResourceTemplate => &snapshot.resource_templates,
            ItemKind::Instructions => continue,
        };
        let Some(sha) = &item.new_sha256 else {
            continue;
        };
        item.new_index = list.iter().position(|def| {
            item_key(item.kind, def) == item.name
                && LockedItem::from_definition(item.kind, def).sha256 == *sha
        });
    }
}

/// Compare two contents (a lock's and a listing's, or two listings).
pub fn diff_content(server: &str, old: &Content, new: &Content) -> LockDiff {
    let mut d = LockDiff {
        server: server.to_owned(),
        ..LockDiff::default()
    };
    // Identity.
    let mut identity = Vec::new();
    walk(
        "/serverInfo",
        old.server_info.as_ref(),
        new.server_info.as_ref(),
        &mut identity,
    );
    let era = |e: Option<crate::model::snapshot::Era>| e.map(|e| Value::String(e.to_string()));
    walk(
        "/era",
        era(old.era).as_ref(),
        era(new.era).as_ref(),
        &mut identity,
    );
    let pv = |p: &Option<String>| p.clone().map(Value::String);
    walk(
        "/protocolVersion",
        pv(&old.protocol_version).as_ref(),
        pv(&new.protocol_version).as_ref(),
        &mut identity,
    );
    d.identity = identity;
    if old.instructions != new.instructions {
        let o = pv(&old.instructions);
        let n = pv(&new.instructions);
        d.instructions = Some(field_change("/instructions".into(), o.as_ref(), n.as_ref()));
    }
    for ((kind, a), (_, b)) in old.lists().into_iter().zip(new.lists()) {
        diff_items(kind, a, b, &mut d.items);
    }
    d
}

fn diff_items(kind: ItemKind, old: &[LockedItem], new: &[LockedItem], out: &mut Vec<ItemChange>) {
    let mut by_name: BTreeMap<&str, (Vec<&LockedItem>, Vec<&LockedItem>)> = BTreeMap::new();
    for i in old {
        by_name.entry(&i.name).or_default().0.push(i);
    }
    for i in new {
        by_name.entry(&i.name).or_default().1.push(i);
    }
    let mut changes = Vec::new();
    for (name, (mut olds, mut news)) in by_name {
        // Drop exact matches (duplicates pair up by content).
        olds.retain(|o| {
            if let Some(p) = news
                .iter()
                .position(|n| n.sha256 == o.sha256 && n.annotations_sha256 == o.annotations_sha256)
            {
                news.remove(p);
                false
            } else {
                true
            }
        });
        let paired = olds.len().min(news.len());
        for (o, n) in olds.iter().zip(news.iter()) {
            changes.push(changed(kind, name, o, n));
        }
        for o in &olds[paired..] {
            changes.push(whole(kind, name, Some(o), None));
        }
        for n in &news[paired..] {
            changes.push(whole(kind, name, None, Some(n)));
        }
    }
    changes.sort_by(|a, b| super::canon::cmp_utf16(&a.name, &b.name));
    out.extend(changes);
}

fn changed(kind: ItemKind, name: &str, o: &LockedItem, n: &LockedItem) -> ItemChange {
    let definition = o.sha256 != n.sha256;
    let annotations = o.annotations_sha256 != n.annotations_sha256;
    let mut fields = Vec::new();
    if definition {
        walk("", Some(&o.definition), Some(&n.definition), &mut fields);
    }
    if annotations {
        walk(
            "/annotations",
            o.annotations.as_ref(),
            n.annotations.as_ref(),
            &mut fields,
        );
    }
    ItemChange {
        kind,
        name: name.to_owned(),
        change: ChangeKind::Changed {
            definition,
            annotations,
        },
        old_sha256: Some(o.sha256.clone()),
        new_sha256: Some(n.sha256.clone()),
        old_annotations_sha256: o.annotations_sha256.clone(),
        new_annotations_sha256: n.annotations_sha256.clone(),
        new_index: None,
        fields,
    }
}

fn whole(kind: ItemKind, name: &str, o: Option<&LockedItem>, n: Option<&LockedItem>) -> ItemChange {
    let od = o.map(LockedItem::full_definition);
    let nd = n.map(LockedItem::full_definition);
    ItemChange {
        kind,
        name: name.to_owned(),
        change: if o.is_some() {
            ChangeKind::Removed
        } else {
            ChangeKind::Added
        },
        old_sha256: o.map(|i| i.sha256.clone()),
        new_sha256: n.map(|i| i.sha256.clone()),
        old_annotations_sha256: o.and_then(|i| i.annotations_sha256.clone()),
        new_annotations_sha256: n.and_then(|i| i.annotations_sha256.clone()),
        new_index: None,
        fields: vec![field_change(String::new(), od.as_ref(), nd.as_ref())],
    }
}

fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(_), Value::Number(_)) => canonical_json(a) == canonical_json(b),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// Collect the changed leaves between two values: objects recurse by member; arrays of equal
/// length recurse by index; anything else is one change.
fn walk(pointer: &str, old: Option<&Value>, new: Option<&Value>, out: &mut Vec<FieldChange>) {
    match (old, new) {
        (None, None) => {}
        (Some(a), Some(b)) if same(a, b) => {}
        (Some(Value::Object(a)), Some(Value::Object(b))) => {
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            keys.sort_by(|x, y| super::canon::cmp_utf16(x, y));
            keys.dedup();
            for k in keys {
                walk(
                    &format!("{pointer}/{}", crate::model::pointer::token(k)),
                    a.get(k.as_str()),
                    b.get(k.as_str()),
                    out,
                );
            }
        }
        (Some(Value::Array(a)), Some(Value::Array(b)))
            if a.len() == b.len() && a.iter().all(|v| v.is_object() || v.is_array()) =>
        {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                walk(&format!("{pointer}/{i}"), Some(x), Some(y), out);
            }
        }
        _ => out.push(field_change(pointer.to_owned(), old, new)),
    }
}

/// Build a field change with its text diff.
pub fn field_change(pointer: String, old: Option<&Value>, new: Option<&Value>) -> FieldChange {
    let whitespace_only = match (old, new) {
        (Some(Value::String(a)), Some(Value::String(b))) => {
            a != b && a.split_whitespace().eq(b.split_whitespace())
        }
        _ => false,
    };
    let render = |v: Option<&Value>| -> String {
        match v {
            None => String::new(),
            Some(Value::String(s)) => visible(s, whitespace_only),
            Some(v) => {
                let pretty = serde_json::to_string_pretty(&sort_keys(v)).unwrap_or_default();
                visible(&pretty, false)
            }
        }
    };
    let text_diff = text_diff(&render(old), &render(new), whitespace_only);
    FieldChange {
        pointer,
        old: old.cloned(),
        new: new.cloned(),
        whitespace_only,
        text_diff,
    }
}

/// A unified line diff with word-level emphasis on changed lines (character-level when
/// only whitespace changed, so the added or removed space itself is marked).
fn text_diff(old: &str, new: &str, by_char: bool) -> String {
    // Bound the work on huge or hostile definitions: past the deadline `similar` falls back
    // to a coarser (still correct) diff.
    let diff = TextDiff::configure()
        .timeout(std::time::Duration::from_secs(1))
        .diff_lines(old, new);
    let mut options = InlineChangeOptions::new();
    if by_char {
        options.mode(InlineChangeMode::Chars);
    }
    let mut out = String::new();
    for (gi, group) in diff.grouped_ops(3).iter().enumerate() {
        if gi > 0 {
            out.push_str("  ⋮\n");
        }
        for op in group {
            for change in diff.iter_inline_changes_with_options(op, options) {
                let (sign, open, close) = match change.tag() {
                    ChangeTag::Equal => (' ', "", ""),
                    ChangeTag::Delete => ('-', "[-", "-]"),
                    ChangeTag::Insert => ('+', "{+", "+}"),
                };
                let parts: Vec<(bool, String)> = change
                    .iter_strings_lossy()
                    .map(|(e, s)| (e, s.trim_end_matches('\n').to_owned()))
                    .collect();
                let partial = parts.iter().any(|(e, s)| !e && !s.trim().is_empty())
                    && parts.iter().any(|(e, _)| *e);
                out.push(sign);
                out.push(' ');
                for (emph, s) in parts {
                    if emph && partial && !s.is_empty() {
                        out.push_str(open);
                        out.push_str(&s);
                        out.push_str(close);
                    } else {
                        out.push_str(&s);
                    }
                }
                out.push('\n');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn word_emphasis_on_long_lines() {
        let f = field_change(
            "/description".into(),
            Some(&json!("List the flakiest tests of a CI pipeline.")),
            Some(&json!("List the flakiest tests of every CI pipeline.")),
        );
        assert!(!f.whitespace_only);
        assert_eq!(
            f.text_diff,
            "- List the flakiest tests of [-a-] CI pipeline.\n+ List the flakiest tests of {+every+} CI pipeline.\n"
        );
    }

    #[test]
    fn whitespace_only_is_flagged_and_shown() {
        let f = field_change(
            "/description".into(),
            Some(&json!("Read-only.")),
            Some(&json!("Read-only. ")),
        );
        assert!(f.whitespace_only);
        assert!(
            f.text_diff.contains("+ Read-only.{+·+}") || f.text_diff.contains("+ Read-only.·"),
            "{}",
            f.text_diff
        );
    }

    fn arb_json() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (-3i64..3).prop_map(|i| json!(i)),
            prop_oneof![Just(1.0f64), Just(0.5), Just(-0.0)].prop_map(|f| json!(f)),
            "[ a\t]{0,3}".prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::btree_map("[ab]", inner, 0..3)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        /// The field walk finds a change exactly when the canonical forms (the hashes) differ.
        #[test]
        fn walk_agrees_with_hashing(a in arb_json(), b in arb_json()) {
            let mut out = Vec::new();
            walk("", Some(&a), Some(&b), &mut out);
            proptest::prop_assert_eq!(out.is_empty(), canonical_json(&a) == canonical_json(&b));
        }
    }

    #[test]
    fn walk_names_leaf_pointers() {
        let mut out = Vec::new();
        walk(
            "",
            Some(&json!({"a": {"b/c": 1, "x": [1, 2]}, "n": 1.0})),
            Some(&json!({"a": {"b/c": 2, "x": [1, 2, 3]}, "n": 1})),
            &mut out,
        );
        let ptrs: Vec<&str> = out.iter().map(|f| f.pointer.as_str()).collect();
        assert_eq!(ptrs, ["/a/b~1c", "/a/x"]);
    }
}
