//! Coded checks: what regexes cannot do, one check per file, each with its documentation.
//!
//! Three kinds ([`Kind`]), run by the engine:
//! - *cue* checks add evidence to an item that the engine combines with the pattern hits;
//! - *item* checks judge one definition on its own;
//! - *scan* checks compare the servers of one scan.
//!
//! Adding a check is one file (its `check` function, its `meta`, and `pub const CHECK`) plus
//! one line in [`register_checks!`]; its documentation, the rule table in `docs/audit.md` and
//! the catalogue follow from the registry.

use crate::audit::engine::{Hit, Scan};
use crate::model::finding::{Confidence, Control, Finding, RuleMeta, Severity};

/// How a coded check runs.
#[derive(Clone, Copy)]
pub enum Kind {
    /// Adds evidence (hits) to the items of one server; the engine combines it with the
    /// pattern hits into one finding per rule and item.
    Cue(fn(&Scan, usize, &mut Vec<Hit>)),
    /// Judges each definition of one server on its own.
    Item(fn(&Scan, usize, &mut Vec<Finding>)),
    /// Compares the servers of one scan.
    Scan(fn(&Scan, &mut Vec<Finding>)),
}

/// One coded check: how it runs, and the documentation of the rule it owns (cue checks that
/// only add evidence to pattern rules own none).
#[derive(Clone, Copy)]
pub struct Check {
    pub name: &'static str,
    pub kind: Kind,
    pub meta: Option<fn() -> RuleMeta>,
}

/// The registry: each check is one file that declares `pub const CHECK: Check`, plus one
/// line here. The order is the order in which checks of a kind run.
macro_rules! register_checks {
    ($($module:ident),* $(,)?) => {
        $(pub mod $module;)*
        /// Every coded check, in running order.
        pub const CHECKS: &[Check] = &[$($module::CHECK),*];
    };
}

register_checks![
    cross_tool,
    intent,
    invisible_unicode,
    encoded_payload,
    exfil_params,
    name_marketing,
    readonly_mismatch,
    shell_execution,
    side_effect_command,
    network_schema_ref,
    secret_parameter,
    open_input_schema,
    oversized,
    confusable_name,
    name_collision,
    duplicate_definition,
];

/// Rule ids owned by coded checks (pattern files may not define them).
pub fn coded_rule_ids() -> Vec<String> {
    coded_rule_docs().into_iter().map(|m| m.id).collect()
}

/// Shorthand for a definition rule's documentation.
pub(crate) fn meta(
    id: &str,
    summary: &str,
    why: &str,
    example: &str,
    severity: Severity,
    confidence: Confidence,
    control: Control,
) -> RuleMeta {
    RuleMeta::new(
        id,
        "definition",
        [summary, why, example],
        severity,
        confidence,
        control,
    )
}

/// Documentation of the coded rules.
pub fn coded_rule_docs() -> Vec<RuleMeta> {
    CHECKS.iter().filter_map(|c| c.meta).map(|m| m()).collect()
}

/// Checks that add evidence to items.
pub fn cue_checks(scan: &Scan, si: usize, hits: &mut Vec<Hit>) {
    for c in CHECKS {
        if let Kind::Cue(run) = c.kind {
            run(scan, si, hits);
        }
    }
}

/// Checks that judge one definition on its own.
pub fn item_checks(scan: &Scan, si: usize, out: &mut Vec<Finding>) {
    for c in CHECKS {
        if let Kind::Item(run) = c.kind {
            run(scan, si, out);
        }
    }
}

/// Checks across the servers of a scan.
pub fn scan_checks(scan: &Scan, out: &mut Vec<Finding>) {
    for c in CHECKS {
        if let Kind::Scan(run) = c.kind {
            run(scan, out);
        }
    }
}

/// What a coded check found about one item: everything but where the item is.
/// One string's clauses, each with its folded form and the lexicon terms found in it.
pub(crate) type ClauseTerms = Vec<(
    crate::audit::clause::Clause,
    String,
    Vec<crate::audit::lexicon::ConceptHit>,
)>;

/// The clause terms of the strings read in the current window, by the address and length of
/// the string (a definition's strings stay put while its server is audited).
type ClauseTermCache =
    std::cell::RefCell<std::collections::HashMap<(usize, usize), std::rc::Rc<ClauseTerms>>>;

fn clause_term_cache(scan: &Scan, si: usize) -> std::rc::Rc<ClauseTermCache> {
    scan.servers[si].memo("checks::clause_terms", ClauseTermCache::default)
}

/// Forget the clause terms of the previous window (the intent analysis, the first check of a
/// window to read clauses, calls it).
pub(crate) fn new_clause_window(scan: &Scan, si: usize) {
    clause_term_cache(scan, si).borrow_mut().clear();
}

/// The clauses of `text` (a string of a definition of server `si`, as sent), folded, with
/// the lexicon terms of each: found once per window, then shared — the intent analysis reads
/// every tool description, and `readonly_mismatch` reads the same sentences to tell what the
/// tool does.
pub(crate) fn share_clause_terms(
    scan: &Scan,
    si: usize,
    lex: &crate::audit::lexicon::Lexicon,
    text: &str,
) -> std::rc::Rc<ClauseTerms> {
    let cache = clause_term_cache(scan, si);
    let key = (text.as_ptr() as usize, text.len());
    if let Some(found) = cache.borrow().get(&key) {
        return std::rc::Rc::clone(found);
    }
    let terms: ClauseTerms = crate::audit::clause::split(text)
        .into_iter()
        .map(|c| {
            let folded = crate::audit::lexicon::fold(&text[c.start..c.end]);
            let found = lex.find(&folded);
            (c, folded, found)
        })
        .collect();
    let terms = std::rc::Rc::new(terms);
    cache.borrow_mut().insert(key, std::rc::Rc::clone(&terms));
    terms
}

/// The clause terms of `text` if a check of this window has found them already.
pub(crate) fn shared_clause_terms(
    scan: &Scan,
    si: usize,
    text: &str,
) -> Option<std::rc::Rc<ClauseTerms>> {
    let cache = clause_term_cache(scan, si);
    let key = (text.as_ptr() as usize, text.len());
    cache.borrow().get(&key).cloned()
}

pub(crate) struct Emit {
    pub rule: &'static str,
    pub severity: Severity,
    pub confidence: Confidence,
    /// JSON Pointer into the snapshot.
    pub pointer: String,
    pub message: String,
    pub evidence: Option<String>,
    pub control: Control,
}

/// A finding about item `item` of server `si` of the scan.
pub(crate) fn item_finding(scan: &Scan, si: usize, item: usize, e: Emit) -> Finding {
    let server = &scan.servers[si];
    let it = &server.items[item];
    Finding {
        rule: e.rule.into(),
        severity: e.severity,
        confidence: e.confidence,
        server: server.snap.server.clone(),
        item: Some(it.item_ref()),
        location: crate::model::finding::Location {
            config: None,
            pointer: Some(e.pointer),
        },
        message: e.message,
        evidence: e.evidence,
        control: e.control,
    }
}

/// The innermost `/properties/NAME` the string of `item` at `pointer` belongs to: the
/// property's schema as a pointer relative to the item, and its name as a reference token
/// (still escaped: `~1` for `/`, `~0` for `~`).
pub(crate) fn property_of<'p>(
    item: &crate::audit::walk::Item,
    pointer: &'p str,
) -> Option<(&'p str, &'p str)> {
    let rel = pointer.strip_prefix(item.pointer.as_str())?;
    // (The last `/properties/`, as `rfind` finds it: every occurrence starts at a `/`, so the
    // slashes from the end are tried in turn, without setting up a substring searcher.)
    const KEY: &[u8] = b"/properties/";
    let bytes = rel.as_bytes();
    let name_start =
        memchr::memrchr_iter(b'/', bytes).find(|&i| bytes[i..].starts_with(KEY))? + KEY.len();
    let name_end = rel[name_start..]
        .find('/')
        .map_or(rel.len(), |j| name_start + j);
    Some((&rel[..name_end], &rel[name_start..name_end]))
}

/// A value listed for a parameter that holds what the tool refuses (`blocked_commands`,
/// `comandos_bloqueados`, `denylist`, "commands that are never run"): a default, enum value or
/// example there names a command or path the tool blocks, not one it runs.
pub(crate) fn deny_list_value(
    item: &crate::audit::walk::Item,
    pointer: &str,
    kind: crate::audit::walk::StrKind,
) -> bool {
    if !matches!(
        kind,
        crate::audit::walk::StrKind::Default
            | crate::audit::walk::StrKind::Enum
            | crate::audit::walk::StrKind::Example
    ) {
        return false;
    }
    let Some((schema_at, name)) = property_of(item, pointer) else {
        return false;
    };
    let name = crate::model::pointer::unescape(name).to_lowercase();
    // (Each list in one automaton pass.)
    static DENY: crate::audit::text::AnyOf = crate::audit::text::AnyOf::new(&[
        "block",
        "deny",
        "denied",
        "forbid",
        "disallow",
        "blacklist",
        "reject",
        "refuse",
        "prohibit",
        "bloque",
        "prohib",
        "interdit",
        "proib",
        "bloqueia",
        "gesperrt",
        "verboten",
        "sperr",
        "запрещ",
        "заблок",
        "禁止",
        "阻止",
        "拒否",
        "ブロック",
        "차단",
        "금지",
    ]);
    static DESCRIBED: crate::audit::text::AnyOf = crate::audit::text::AnyOf::new(&[
        "blocked",
        "denied",
        "forbidden",
        "never run",
        "refused",
        "rejected",
        "not allowed",
        "disallowed",
    ]);
    let described = || {
        item.value.is_some_and(|v| {
            crate::model::pointer::get(v, &format!("{schema_at}/description"))
                .and_then(serde_json::Value::as_str)
                .is_some_and(|d| DESCRIBED.in_text(&d.to_lowercase()))
        })
    };
    DENY.in_text(&name) || described()
}

#[cfg(test)]
pub(crate) mod testutil {
    use crate::audit::{RuleSet, audit_snapshots};
    use crate::model::finding::Finding;
    use crate::model::snapshot::ServerSnapshot;
    use serde_json::Value;

    /// A snapshot; tools without an `inputSchema` get a closed empty one.
    pub fn snap(server: &str, tools: Vec<Value>) -> ServerSnapshot {
        let tools = tools
            .into_iter()
            .map(|mut t| {
                if let Some(m) = t.as_object_mut() {
                    m.entry("inputSchema").or_insert_with(
                        || serde_json::json!({"type": "object", "additionalProperties": false}),
                    );
                }
                t
            })
            .collect();
        ServerSnapshot {
            server: server.into(),
            tools,
            ..Default::default()
        }
    }

    pub fn run(snaps: &[ServerSnapshot]) -> Vec<Finding> {
        audit_snapshots(snaps, &RuleSet::builtin().unwrap())
    }

    pub fn rules_of(f: &[Finding]) -> Vec<&str> {
        f.iter().map(|f| f.rule.as_str()).collect()
    }

    /// The worst severity of the findings about one tool audited alone (of `rule` only, when
    /// given).
    pub fn worst_of(tool: Value, rule: Option<&str>) -> Option<crate::model::finding::Severity> {
        run(&[snap("s", vec![tool])])
            .iter()
            .filter(|f| rule.is_none_or(|r| f.rule == r))
            .map(|f| f.severity)
            .max()
    }
}
