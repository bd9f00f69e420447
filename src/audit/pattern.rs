//! Pattern rules as data: TOML files (one per family under `rules/`, embedded at build time,
//! extendable with `--rules DIR`), compiled once into one `RegexSet`.
//!
//! A file holds `[[rule]]` entries (documentation of a finding rule id: summary, why,
//! example, default severity and confidence, control) and `[[pattern]]` entries (one regex
//! each: `id`, the finding `rule` it reports under, the evidence `cue` it adds, its `weight`,
//! the string `kinds` it applies to, a `message`, `quoted_is_mention` (a match standing alone
//! between quotation marks weighs 1), and `must_match` / `must_not_match`
//! examples that are checked when the file is loaded). Pattern ids and rule ids are unique.
//!
//! Which patterns to run on a string: for ASCII text, a *literal gate* — the literals one of
//! which every match of a pattern starts (or ends) with, in one case-insensitive
//! Aho-Corasick pass — lets through the patterns that may match, and each is run on its own
//! in ASCII mode (most strings let none or few through); for other text a *widened*
//! automaton over all patterns, built on the first such string, which may name a few
//! patterns too many (each is then run on its own, and one that does not match adds nothing)
//! but never misses one. The ASCII-mode automaton over all patterns (exact for ASCII text)
//! stays as the gate's fallback and its reference in tests; the full Unicode-mode set,
//! costly to build, is left for rules the widened automaton cannot read.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::OnceLock;

use regex::{Regex, RegexSet, RegexSetBuilder};
use serde::Deserialize;

use crate::audit::AuditError;
use crate::audit::text::Prepared;
use crate::audit::walk::StrKind;
use crate::model::finding::{Confidence, Control, RuleMeta, Severity};

/// The built-in rule files, embedded at build time.
pub const BUILTIN_FILES: &[(&str, &str)] = &[
    (
        "rules/hidden-instructions.toml",
        include_str!("../../rules/hidden-instructions.toml"),
    ),
    (
        "rules/concealment.toml",
        include_str!("../../rules/concealment.toml"),
    ),
    (
        "rules/sensitive-files.toml",
        include_str!("../../rules/sensitive-files.toml"),
    ),
    (
        "rules/exfiltration.toml",
        include_str!("../../rules/exfiltration.toml"),
    ),
    (
        "rules/embedded-command.toml",
        include_str!("../../rules/embedded-command.toml"),
    ),
    (
        "rules/cross-tool.toml",
        include_str!("../../rules/cross-tool.toml"),
    ),
    (
        "rules/preference.toml",
        include_str!("../../rules/preference.toml"),
    ),
];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    rule: Vec<RawRule>,
    #[serde(default)]
    pattern: Vec<RawPattern>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    id: String,
    summary: String,
    why: String,
    example: String,
    severity: String,
    confidence: String,
    control: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPattern {
    id: String,
    rule: String,
    cue: String,
    weight: u8,
    regex: String,
    message: String,
    #[serde(default)]
    kinds: Vec<String>,
    #[serde(default)]
    must_match: Vec<String>,
    #[serde(default)]
    must_not_match: Vec<String>,
    /// A match standing alone between quotation marks ("patterns such as 'ignore previous
    /// instructions'") is named, not said: it weighs 1.
    #[serde(default)]
    quoted_is_mention: bool,
}

/// One compiled pattern.
#[derive(Debug, Clone)]
pub struct Pattern {
    pub id: String,
    /// The finding rule id this pattern reports under.
    pub rule: String,
    /// The evidence category it adds (e.g. `directive`, `concealment`, `sensitive-path`).
    pub cue: String,
    /// 1 (weak) … 4 (decisive alone).
    pub weight: u8,
    pub message: String,
    /// The regex source.
    pub source: String,
    /// Compiled on first use (most patterns never match a given scan).
    compiled: OnceLock<Option<Regex>>,
    /// The same regex in ASCII mode over bytes, for ASCII text (where it finds the same
    /// matches, and it builds without Unicode's word and case tables): compiled on first use.
    ascii: OnceLock<Option<regex::bytes::Regex>>,
    /// Whether the regex has a `tool` capture group.
    pub names_tool: bool,
    /// The kinds of string it applies to; empty = all prose (not names/property names/URIs).
    pub kinds: Vec<StrKind>,
    pub must_match: Vec<String>,
    pub must_not_match: Vec<String>,
    /// A quoted match is a mention (weight 1), see [`crate::audit::text::quoted_mention`].
    pub quoted_is_mention: bool,
    /// The file it came from.
    pub file: String,
}

impl Pattern {
    /// Every example of this pattern that does not hold: a `must_match` text the regex misses,
    /// a `must_not_match` text it matches, or a regex that does not compile. All of them, so
    /// one broken example never hides another.
    pub fn example_failures(&self) -> Vec<String> {
        let Some(regex) = self.regex() else {
            return vec![format!("{}: the regex does not compile", self.id)];
        };
        let mut out = Vec::new();
        for ex in &self.must_match {
            if !regex.is_match(&Prepared::new(ex).norm) {
                out.push(format!(
                    "{}: must_match example does not match: {ex:?}",
                    self.id
                ));
            }
        }
        for ex in &self.must_not_match {
            if regex.is_match(&Prepared::new(ex).norm) {
                out.push(format!(
                    "{}: must_not_match example matches: {ex:?}",
                    self.id
                ));
            }
        }
        out
    }

    /// The compiled regex (compiled on first use; `None` only if the source is invalid,
    /// which loading rules out for user files and tests rule out for the built-in ones).
    pub fn regex(&self) -> Option<&Regex> {
        self.compiled
            .get_or_init(|| {
                regex::RegexBuilder::new(&self.source)
                    .size_limit(4 << 20)
                    .build()
                    .ok()
            })
            .as_ref()
    }

    /// The regex in ASCII mode (see `ascii`), for ASCII text only.
    fn ascii_regex(&self) -> Option<&regex::bytes::Regex> {
        self.ascii
            .get_or_init(|| {
                regex::bytes::RegexBuilder::new(&self.source)
                    .unicode(false)
                    .size_limit(4 << 20)
                    .build()
                    .ok()
            })
            .as_ref()
    }

    pub fn applies_to(&self, kind: StrKind) -> bool {
        if self.kinds.is_empty() {
            kind.is_prose()
        } else {
            self.kinds.contains(&kind)
        }
    }
}

/// A pattern match in one prepared string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Match {
    pub pattern: usize,
    pub start: usize,
    pub end: usize,
}

/// All pattern rules and the documentation of the rules they report under.
#[derive(Debug, Clone)]
pub struct RuleSet {
    patterns: Vec<Pattern>,
    /// All patterns in ASCII mode over bytes: exact for ASCII text, fast to build (one
    /// forward lazy DFA answering which patterns match: no capture groups, no literal
    /// prefilter, and no reverse automaton, which only finding where a match starts would
    /// need). Its states multiply on diverse text (where each pattern's gaps stand, for
    /// every pattern at once), so ASCII text goes through the literal gate (`gate`) instead;
    /// this set answers only if the gate cannot be built. Built then (on first use) for the
    /// built-in rules, which a test shows fit ASCII mode; at once for rules from files, to
    /// learn whether they fit.
    set_ascii: OnceLock<Option<std::sync::Arc<AsciiSet>>>,
    /// Every pattern fits ASCII mode (the ASCII set builds): the gate may answer.
    ascii_ok: bool,
    /// In front of everything for ASCII text: the literals one of which every match of a
    /// pattern starts (or ends) with, in one automaton ([`Gate`]), built on the first ASCII
    /// string; only the patterns it names are run, each on its own.
    gate: OnceLock<Option<std::sync::Arc<Gate>>>,
    /// For text that is not ASCII: every pattern widened ([`widen`]) and read over the text
    /// with each non-ASCII character as one byte `0x80` ([`widened_text`]); built on the first
    /// non-ASCII string. It names every pattern that matches and maybe a few more.
    set_wide: OnceLock<Option<std::sync::Arc<AsciiSet>>>,
    /// All patterns in Unicode mode: built only where the sets above cannot answer (a rule
    /// that matches raw bytes, or the lazy DFA gave up).
    set_unicode: OnceLock<Option<RegexSet>>,
    docs: Vec<RuleMeta>,
    /// Whether any pattern applies to a kind of string (skip the set otherwise), by
    /// [`kind_slot`]; a kind not recorded counts as used.
    kind_used: [Option<bool>; KIND_SLOTS],
    /// Where each rule doc / pattern id came from (for duplicate errors).
    origin: HashMap<String, String>,
    /// The learned scorer run after the rules (`None`: rules alone).
    learned: Option<std::sync::Arc<crate::audit::score::Scorer>>,
}

impl RuleSet {
    /// The embedded rules, with the embedded learned scorer (`rules/scorer.toml`).
    pub fn builtin() -> Result<RuleSet, AuditError> {
        // The built-in examples are checked by tests; user files are checked when loaded.
        let mut rs = Self::builtin_parsed(cfg!(test))?;
        rs.rebuild_builtin();
        // The learned scorer runs after the rules unless turned off (`set_learned(None)`).
        rs.set_learned(Some(crate::audit::score::Scorer::builtin()?));
        Ok(rs)
    }

    /// The learned scorer the audit runs after the rules, if any.
    pub fn learned(&self) -> Option<&crate::audit::score::Scorer> {
        self.learned.as_deref()
    }

    /// Set (or, with `None`, turn off) the learned scorer.
    pub fn set_learned(&mut self, scorer: Option<crate::audit::score::Scorer>) {
        self.learned = scorer.map(std::sync::Arc::new);
    }

    /// The documentation of the embedded rules (`[[rule]]` entries), without building the
    /// pattern matchers: what the rule catalog needs, at the cost of parsing the TOML only.
    pub fn builtin_docs() -> Result<Vec<RuleMeta>, AuditError> {
        Ok(Self::builtin_parsed(false)?.docs)
    }

    /// The embedded rule files parsed and checked, the matchers not built yet (each pattern's
    /// regex compiled and its examples checked now with `check_examples`).
    fn builtin_parsed(check_examples: bool) -> Result<RuleSet, AuditError> {
        let mut rs = RuleSet {
            patterns: Vec::new(),
            set_ascii: OnceLock::new(),
            ascii_ok: false,
            gate: OnceLock::new(),
            set_wide: OnceLock::new(),
            set_unicode: OnceLock::new(),
            docs: Vec::new(),
            kind_used: [None; KIND_SLOTS],
            origin: HashMap::new(),
            learned: None,
        };
        for (name, text) in BUILTIN_FILES {
            rs.add_file(name, text, check_examples)?;
        }
        Ok(rs)
    }

    /// Add every `*.toml` file of `dir` (sorted by name). Errors name the file, the id and
    /// the field; a pattern or rule id that already exists is an error.
    pub fn extend_from_dir(&mut self, dir: &Path) -> Result<(), AuditError> {
        let entries = std::fs::read_dir(dir).map_err(|source| AuditError::Io {
            path: dir.display().to_string(),
            source,
        })?;
        let mut files: Vec<_> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "toml"))
            .collect();
        files.sort();
        if files.is_empty() {
            return Err(AuditError::Rule {
                file: dir.display().to_string(),
                id: "-".into(),
                field: "(directory)".into(),
                problem: "holds no *.toml rule files".into(),
            });
        }
        for path in files {
            let text = crate::model::fsio::read_text(&path, crate::model::fsio::ReadKind::Config)
                .map_err(|source| AuditError::Io {
                path: path.display().to_string(),
                source,
            })?;
            self.add_file(&path.display().to_string(), &text, true)?;
        }
        self.rebuild()
    }

    fn add_file(&mut self, file: &str, text: &str, check_examples: bool) -> Result<(), AuditError> {
        let raw: RawFile = toml::from_str(text).map_err(|e| AuditError::Toml {
            file: file.to_owned(),
            message: e.to_string(),
        })?;
        let err = |id: &str, field: &str, problem: String| AuditError::Rule {
            file: file.to_owned(),
            id: id.to_owned(),
            field: field.to_owned(),
            problem,
        };
        let coded = crate::audit::checks::coded_rule_ids();
        for r in raw.rule {
            check_id(&r.id).map_err(|p| err(&r.id, "id", p))?;
            let key = format!("rule:{}", r.id);
            if let Some(other) = self.origin.get(&key) {
                return Err(err(
                    &r.id,
                    "id",
                    format!("duplicate rule id (first in {other})"),
                ));
            }
            if coded.contains(&r.id) {
                return Err(err(
                    &r.id,
                    "id",
                    "is the id of a built-in coded check".into(),
                ));
            }
            let severity: Severity = r.severity.parse().map_err(|e| err(&r.id, "severity", e))?;
            let confidence = match r.confidence.as_str() {
                "low" => Confidence::Low,
                "medium" => Confidence::Medium,
                "high" => Confidence::High,
                other => {
                    return Err(err(
                        &r.id,
                        "confidence",
                        format!("unknown confidence `{other}` (expected low, medium or high)"),
                    ));
                }
            };
            let control: Control = serde_json::from_value(serde_json::Value::String(
                r.control.clone(),
            ))
            .map_err(|_| {
                err(
                    &r.id,
                    "control",
                    format!(
                        "unknown control `{}` (expected e.g. review-definitions, sandbox, reject, confirm-sensitive-calls)",
                        r.control
                    ),
                )
            })?;
            for (field, v) in [
                ("summary", &r.summary),
                ("why", &r.why),
                ("example", &r.example),
            ] {
                if v.trim().is_empty() {
                    return Err(err(&r.id, field, "must not be empty".into()));
                }
            }
            self.origin.insert(key, file.to_owned());
            self.docs.push(RuleMeta {
                id: r.id,
                family: "definition".into(),
                summary: r.summary,
                why: r.why,
                example: r.example,
                default_severity: severity,
                default_confidence: confidence,
                control,
            });
        }
        for p in raw.pattern {
            check_id(&p.id).map_err(|e| err(&p.id, "id", e))?;
            let key = format!("pattern:{}", p.id);
            if let Some(other) = self.origin.get(&key) {
                return Err(err(
                    &p.id,
                    "id",
                    format!("duplicate pattern id (first in {other})"),
                ));
            }
            if !(1..=4).contains(&p.weight) {
                return Err(err(
                    &p.id,
                    "weight",
                    format!("{} is not in 1..=4", p.weight),
                ));
            }
            if p.message.trim().is_empty() {
                return Err(err(&p.id, "message", "must not be empty".into()));
            }
            if p.cue.trim().is_empty() {
                return Err(err(&p.id, "cue", "must not be empty".into()));
            }
            // Built-in sources are compiled on first use (tests compile them all); user
            // files are compiled now so a bad regex is reported with its id.
            let compiled = OnceLock::new();
            if check_examples {
                let regex = regex::RegexBuilder::new(&p.regex)
                    .size_limit(4 << 20)
                    .build()
                    .map_err(|e| err(&p.id, "regex", e.to_string()))?;
                let _ = compiled.set(Some(regex));
            }
            let mut kinds = Vec::new();
            for k in &p.kinds {
                kinds.push(StrKind::parse(k).ok_or_else(|| {
                    err(
                        &p.id,
                        "kinds",
                        format!("unknown kind `{k}` (expected name, title, description, property-name, enum, default, example, annotation, instructions, uri, other)"),
                    )
                })?);
            }
            if p.must_match.is_empty() {
                return Err(err(
                    &p.id,
                    "must_match",
                    "needs at least one example".into(),
                ));
            }
            if p.must_not_match.is_empty() {
                return Err(err(
                    &p.id,
                    "must_not_match",
                    "needs at least one example".into(),
                ));
            }
            if let Some(Some(regex)) = compiled.get() {
                for ex in &p.must_match {
                    if !regex.is_match(&Prepared::new(ex).norm) {
                        return Err(err(
                            &p.id,
                            "must_match",
                            format!("example does not match: {ex:?}"),
                        ));
                    }
                }
                for ex in &p.must_not_match {
                    if regex.is_match(&Prepared::new(ex).norm) {
                        return Err(err(
                            &p.id,
                            "must_not_match",
                            format!("example matches: {ex:?}"),
                        ));
                    }
                }
            }
            self.origin.insert(key, file.to_owned());
            self.patterns.push(Pattern {
                id: p.id,
                rule: p.rule,
                cue: p.cue,
                weight: p.weight,
                message: p.message,
                names_tool: p.regex.contains("(?P<tool>"),
                source: p.regex,
                compiled,
                ascii: OnceLock::new(),
                kinds,
                must_match: p.must_match,
                must_not_match: p.must_not_match,
                quoted_is_mention: p.quoted_is_mention,
                file: file.to_owned(),
            });
        }
        // Every pattern must report under a documented rule.
        for p in &self.patterns {
            let known = self.docs.iter().any(|d| d.id == p.rule) || coded.contains(&p.rule);
            if !known {
                return Err(AuditError::Rule {
                    file: p.file.clone(),
                    id: p.id.clone(),
                    field: "rule".into(),
                    problem: format!(
                        "`{}` is not a known rule id (document it with a [[rule]] entry)",
                        p.rule
                    ),
                });
            }
        }
        Ok(())
    }

    /// The matchers of the built-in rules made ready to build: every pattern fits ASCII
    /// mode (`the_builtin_patterns_fit_ascii_mode`), so the ASCII set, which only answers
    /// where the gate cannot be built, is left until then (it took most of the rules' load).
    fn rebuild_builtin(&mut self) {
        self.reset_matchers();
        self.ascii_ok = true;
    }

    /// The matchers made ready to build, nothing built.
    fn reset_matchers(&mut self) {
        self.kind_used = [None; KIND_SLOTS];
        for k in ALL_KINDS {
            let used = self.patterns.iter().any(|p| p.applies_to(k));
            if let Some(slot) = self.kind_used.get_mut(kind_slot(k)) {
                *slot = Some(used);
            }
        }
        self.set_unicode = OnceLock::new();
        self.set_wide = OnceLock::new();
        self.gate = OnceLock::new();
        self.set_ascii = OnceLock::new();
    }

    /// The ASCII set (built on first use).
    fn ascii_set(&self) -> Option<&AsciiSet> {
        self.set_ascii
            .get_or_init(|| ascii_set(self.patterns.iter().map(|p| p.source.as_str())))
            .as_deref()
    }

    fn rebuild(&mut self) -> Result<(), AuditError> {
        self.reset_matchers();
        let set = ascii_set(self.patterns.iter().map(|p| p.source.as_str()));
        self.ascii_ok = set.is_some();
        let _ = self.set_ascii.set(set);
        if !self.ascii_ok {
            // Some pattern needs Unicode mode: build the Unicode set now (and report errors).
            let set = self.unicode_set_build().map_err(|e| AuditError::Rule {
                file: "(all rules)".into(),
                id: "-".into(),
                field: "regex".into(),
                problem: e,
            })?;
            let _ = self.set_unicode.set(Some(set));
        }
        Ok(())
    }

    fn unicode_set_build(&self) -> Result<RegexSet, String> {
        RegexSetBuilder::new(self.patterns.iter().map(|p| &p.source))
            .size_limit(64 << 20)
            .dfa_size_limit(64 << 20)
            .build()
            .map_err(|e| e.to_string())
    }

    /// For ASCII text: the patterns the literal gate lets through, in order — every pattern
    /// that matches and maybe others (each is run on its own, and one that does not match
    /// adds nothing); `None` for other text, or if the gate could not be built (the sets
    /// answer then).
    fn gated(&self, text: &str) -> Option<Vec<usize>> {
        if !text.is_ascii() || !self.ascii_ok {
            return None;
        }
        let gate = self
            .gate
            .get_or_init(|| Gate::build(&self.patterns).map(std::sync::Arc::new))
            .as_deref()?;
        Some(gate.candidates(text))
    }

    /// Indices of the patterns that may match `text`, in order: exactly those that match for
    /// ASCII text (the ASCII set); for other text every one that matches and maybe a few more
    /// (the widened set), which [`RuleSet::scan`] runs one by one. No match is ever missed.
    fn set_matches(&self, text: &str) -> Vec<usize> {
        // `None` only if the lazy DFA gave up: the Unicode set answers then.
        let which = if text.is_ascii() {
            self.ascii_set().and_then(|set| set.which(text.as_bytes()))
        } else {
            self.wide_set()
                .and_then(|set| set.which(&widened_text(text)))
        };
        if let Some(which) = which {
            return which;
        }
        match self
            .set_unicode
            .get_or_init(|| self.unicode_set_build().ok())
        {
            Some(set) => set.matches(text).into_iter().collect(),
            None => Vec::new(),
        }
    }

    /// The widened set, built on first use (`None` if some pattern cannot be widened).
    fn wide_set(&self) -> Option<&AsciiSet> {
        self.set_wide
            .get_or_init(|| wide_set(self.patterns.iter().map(|p| p.source.as_str())))
            .as_deref()
    }

    /// Build now what text that is not ASCII needs, if it is not built yet (otherwise it is
    /// built on the first such string): see [`crate::audit::warm_up_non_ascii`].
    pub fn build_non_ascii_set(&self) {
        if self.wide_set().is_none() {
            let _ = self
                .set_unicode
                .get_or_init(|| self.unicode_set_build().ok());
        }
    }

    /// What has been built so far: the pattern sets and how many patterns' own regexes. For
    /// tests and benchmarks (what a scan of some text builds), never for results.
    pub fn built(&self) -> Built {
        Built {
            ascii_set: matches!(self.set_ascii.get(), Some(Some(_))),
            wide_set: matches!(self.set_wide.get(), Some(Some(_))),
            unicode_set: matches!(self.set_unicode.get(), Some(Some(_))),
            pattern_regexes: self
                .patterns
                .iter()
                .filter(|p| p.compiled.get().is_some())
                .count(),
        }
    }

    pub fn patterns(&self) -> &[Pattern] {
        &self.patterns
    }

    /// Documentation of the pattern-based rules (from `[[rule]]` entries).
    pub fn docs(&self) -> &[RuleMeta] {
        &self.docs
    }

    /// Every match in one prepared string of the given kind (one pass with the set, then
    /// `find_iter` only for the patterns that matched). At most a few matches per pattern.
    pub fn scan(&self, p: &Prepared, kind: StrKind) -> Vec<Match> {
        let mut out = Vec::new();
        if p.norm.is_empty()
            || !self
                .kind_used
                .get(kind_slot(kind))
                .copied()
                .flatten()
                .unwrap_or(true)
        {
            return out;
        }
        if let Some(which) = self.gated(&p.norm) {
            // ASCII text: each pattern let through is run in ASCII mode.
            for i in which {
                let pat = &self.patterns[i];
                if !pat.applies_to(kind) {
                    continue;
                }
                let Some(regex) = pat.ascii_regex() else {
                    continue;
                };
                for m in regex.find_iter(p.norm.as_bytes()).take(4) {
                    out.push(Match {
                        pattern: i,
                        start: m.start(),
                        end: m.end(),
                    });
                }
            }
            return out;
        }
        for i in self.set_matches(&p.norm) {
            let pat = &self.patterns[i];
            if !pat.applies_to(kind) {
                continue;
            }
            let Some(regex) = pat.regex() else { continue };
            for m in regex.find_iter(&p.norm).take(4) {
                out.push(Match {
                    pattern: i,
                    start: m.start(),
                    end: m.end(),
                });
            }
        }
        out
    }

    /// Pattern ids per finding rule (for docs and tests).
    pub fn patterns_by_rule(&self) -> BTreeMap<&str, Vec<&str>> {
        let mut m: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for p in &self.patterns {
            m.entry(p.rule.as_str()).or_default().push(p.id.as_str());
        }
        m
    }
}

/// Room for every kind of string in [`RuleSet`]'s table of kinds a pattern applies to.
const KIND_SLOTS: usize = 16;

const _: () = assert!(ALL_KINDS.len() <= KIND_SLOTS);

/// A kind's place in that table (a look-up per string, where a hash map hashed the kind).
fn kind_slot(kind: StrKind) -> usize {
    kind as usize
}

/// What a rule set has built so far ([`RuleSet::built`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Built {
    /// The ASCII-mode set (built with rules from files; for the built-in ones only where the
    /// literal gate cannot answer).
    pub ascii_set: bool,
    /// The widened set, for text that is not ASCII.
    pub wide_set: bool,
    /// The Unicode-mode set (only where the widened set cannot answer).
    pub unicode_set: bool,
    /// Patterns whose own regex is compiled (to find where they match).
    pub pattern_regexes: usize,
}

/// A pattern set over bytes (the ASCII-mode set and the widened set): one forward lazy DFA over
/// every pattern, and the search caches it fills as it goes (one per thread searching at the
/// same time).
struct AsciiSet {
    dfa: regex_automata::hybrid::dfa::DFA,
    caches: std::sync::Mutex<Vec<regex_automata::hybrid::dfa::Cache>>,
}

impl std::fmt::Debug for AsciiSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AsciiSet")
            .field("patterns", &self.dfa.pattern_len())
            .finish_non_exhaustive()
    }
}

impl AsciiSet {
    /// Indices of the patterns that match somewhere in `text`, in order; `None` if the lazy
    /// DFA gave up (it is configured never to, but the caller has an exact fallback).
    fn which(&self, text: &[u8]) -> Option<Vec<usize>> {
        let mut cache = self
            .caches
            .lock()
            .ok()
            .and_then(|mut c| c.pop())
            .unwrap_or_else(|| self.dfa.create_cache());
        let mut which = regex_automata::PatternSet::new(self.dfa.pattern_len());
        let found = self.dfa.try_which_overlapping_matches(
            &mut cache,
            &regex_automata::Input::new(text),
            &mut which,
        );
        if let Ok(mut c) = self.caches.lock() {
            c.push(cache);
        }
        found
            .ok()
            .map(|()| which.iter().map(|p| p.as_usize()).collect())
    }
}

/// A literal gate for ASCII text: for each pattern, a finite set of literals such that every
/// match of the pattern starts with one of them (or every match ends with one of them),
/// found in the pattern with its letters lowered ([`lowered`]) and looked for in one
/// ASCII-case-insensitive automaton pass. A pattern without such a set (one that may start
/// and end anywhere) is always let through. So a pattern none of whose literals occurs in a
/// text cannot match it: most strings meet no literal of most patterns, and are read once by
/// the automaton instead of driving the lazy DFA of every pattern at once, whose states
/// (where each pattern's gaps stand) diverse text keeps multiplying.
///
/// A pattern may have several such sets (its prefixes, its suffixes, those of the runs of its
/// top-level sequence: [`gate_sets`]), each as sound as the others: every match holds a
/// literal of each. The gate waits for the most telling one and for up to two more
/// ([`MAX_SETS`] in all), and lets the pattern through only where the text holds a literal
/// of every one (`ignore … instructions` waits for both words, not for `ignore` alone), in
/// the same pass.
#[derive(Debug)]
struct Gate {
    /// The literals, ASCII case-insensitive, searched through a lazily built DFA (see
    /// [`crate::audit::overlap`]).
    ac: crate::audit::overlap::LazyOverlap,
    /// For each literal of the automaton: the literal sets (their ids) it belongs to.
    owners: Vec<Vec<u32>>,
    /// For each set id: the pattern whose set it is (ids left out to keep each pattern's sets
    /// in one 64-bit word: `u32::MAX`).
    set_pattern: Vec<u32>,
    /// For each pattern: the word of the set bits that holds its sets, and their bits in it
    /// (`0`: the pattern has none, it is in `always`).
    set_word: Vec<(u32, u64)>,
    /// Words of set bits.
    set_words: usize,
    /// Patterns let through whatever the text.
    always: Vec<usize>,
    patterns: usize,
}

/// The most literal sets the gate waits for in one pattern (see [`Gate`]).
const MAX_SETS: usize = 3;

impl Gate {
    fn build(patterns: &[Pattern]) -> Option<Gate> {
        let mut literals: Vec<Vec<u8>> = Vec::new();
        let mut index: HashMap<Vec<u8>, usize> = HashMap::new();
        let mut owners: Vec<Vec<u32>> = Vec::new();
        let mut always = Vec::new();
        let mut set_pattern: Vec<u32> = Vec::new();
        let mut set_word: Vec<(u32, u64)> = Vec::with_capacity(patterns.len());
        for (i, p) in patterns.iter().enumerate() {
            let Some(sets) = gate_sets(&p.source) else {
                always.push(i);
                set_word.push((0, 0));
                continue;
            };
            // (A pattern's sets share one word: the next one if they do not fit in this one.)
            if set_pattern.len() % 64 + sets.len() > 64 {
                set_pattern.resize(set_pattern.len().next_multiple_of(64), u32::MAX);
            }
            let word = u32::try_from(set_pattern.len() / 64).ok()?;
            let mut mask = 0u64;
            for set in sets {
                let id = u32::try_from(set_pattern.len()).ok()?;
                mask |= 1 << (id % 64);
                set_pattern.push(u32::try_from(i).ok()?);
                for lit in set {
                    let k = *index.entry(lit.clone()).or_insert_with(|| {
                        literals.push(lit);
                        owners.push(Vec::new());
                        literals.len() - 1
                    });
                    if owners[k].last() != Some(&id) {
                        owners[k].push(id);
                    }
                }
            }
            set_word.push((word, mask));
        }
        // (Not a full DFA: it searched a fifth faster in the audit benchmark, but building it
        // cost about 200 M instructions, some 50 ms, on the first string of every scan. The
        // lazy one builds the rows the text reaches.)
        let ac = crate::audit::overlap::LazyOverlap::new(&literals, true).ok()?;
        Some(Gate {
            ac,
            owners,
            set_words: set_pattern.len().div_ceil(64),
            set_pattern,
            set_word,
            always,
            patterns: patterns.len(),
        })
    }

    /// The patterns that may match `text` (ASCII), in order. (The patterns let through are
    /// marked in a bit set and read out a word at a time: a list of flags, one per pattern,
    /// cost as much to read back as the automaton pass over a short string.)
    ///
    /// (The sets met are marked in bits after the patterns', and a pattern is marked when the
    /// last of its sets is: one test of one word, where its sets are.)
    fn candidates(&self, text: &str) -> Vec<usize> {
        let words = self.patterns.div_ceil(64);
        let mut hit = vec![0u64; words + self.set_words];
        let (pattern_bits, set_bits) = hit.split_at_mut(words);
        for &i in &self.always {
            if let Some(w) = pattern_bits.get_mut(i / 64) {
                *w |= 1 << (i % 64);
            }
        }
        self.ac.for_each(text.as_bytes(), |m| {
            for &id in &self.owners[m.pattern] {
                let id = id as usize;
                let Some(w) = set_bits.get_mut(id / 64) else {
                    continue;
                };
                let bit = 1u64 << (id % 64);
                if *w & bit != 0 {
                    continue;
                }
                *w |= bit;
                let met = *w;
                let Some(&who) = self.set_pattern.get(id) else {
                    continue;
                };
                let who = who as usize;
                if let Some(&(_, mask)) = self.set_word.get(who)
                    && met & mask == mask
                    && let Some(pw) = pattern_bits.get_mut(who / 64)
                {
                    *pw |= 1 << (who % 64);
                }
            }
        });
        let mut out = Vec::new();
        for (k, &w) in pattern_bits.iter().enumerate() {
            let mut w = w;
            while w != 0 {
                out.push(k * 64 + w.trailing_zeros() as usize);
                w &= w - 1;
            }
        }
        out
    }

    /// [`Gate::candidates`] as it was written first, a flag per pattern: the property test's
    /// oracle.
    #[cfg(test)]
    fn candidates_by_flags(&self, text: &str) -> Vec<usize> {
        let mut met = vec![false; self.set_pattern.len()];
        for m in self.ac.find_by_nfa(text.as_bytes()) {
            for &id in &self.owners[m.pattern] {
                met[id as usize] = true;
            }
        }
        let mut hit = vec![false; self.patterns];
        for &i in &self.always {
            hit[i] = true;
        }
        for (i, &(word, mask)) in self.set_word.iter().enumerate() {
            let ids: Vec<usize> = (0..64)
                .filter(|b| mask & (1 << b) != 0)
                .map(|b| word as usize * 64 + b)
                .collect();
            if !ids.is_empty() && ids.iter().all(|&id| met[id]) {
                hit[i] = true;
            }
        }
        hit.iter()
            .enumerate()
            .filter_map(|(i, &h)| h.then_some(i))
            .collect()
    }
}

/// The gate literals of a pattern (see [`Gate`]), in lower case: its prefix or its suffix
/// literals, whichever set is finite and more telling (its shortest literal the longer);
/// failing both, the same of a run of its top-level sequence ([`inner_literals`]); `None`
/// when no set is finite without the empty literal.
fn gate_literals(hir: &regex_syntax::hir::Hir) -> Option<Vec<Vec<u8>>> {
    let mut best: Option<Vec<Vec<u8>>> = None;
    consider_literals(&mut best, hir, true);
    consider_literals(&mut best, hir, false);
    if best.is_none() {
        best = inner_literals(hir);
    }
    best
}

/// The literal sets the gate waits for in a pattern (see [`Gate`]): its gate literals
/// ([`gate_literals`]) first, then up to two more ([`MAX_SETS`] in all) of the pattern's
/// finite sets (its prefixes and suffixes, those of each run of its top-level sequence: each
/// as sound, as [`inner_literals`] says), the most telling first, each of literals of three
/// bytes or more and none a part of (or holding) a literal of a set taken before (it would
/// add little). `None` when the pattern has no gate literals.
fn gate_sets(source: &str) -> Option<Vec<Vec<Vec<u8>>>> {
    use regex_syntax::hir::{Hir, HirKind};
    let hir = regex_syntax::ParserBuilder::new()
        .unicode(false)
        .utf8(false)
        .build()
        .parse(source)
        .ok()?;
    let hir = lowered(hir);
    let first = gate_literals(&hir)?;
    let mut more: Vec<Vec<Vec<u8>>> = Vec::new();
    let mut add = |h: &Hir, prefix: bool| {
        let mut one = None;
        consider_literals(&mut one, h, prefix);
        more.extend(one);
    };
    add(&hir, true);
    add(&hir, false);
    let mut top = &hir;
    while let HirKind::Capture(cap) = top.kind() {
        top = &cap.sub;
    }
    if let HirKind::Concat(subs) = top.kind() {
        for k in 1..subs.len() {
            add(&Hir::concat(subs[k..].to_vec()), true);
            add(&Hir::concat(subs[..k].to_vec()), false);
        }
    }
    let shortest = |ls: &[Vec<u8>]| ls.iter().map(Vec::len).min().unwrap_or(0);
    more.retain(|set| shortest(set) >= 3);
    more.sort_by(|a, b| shortest(b).cmp(&shortest(a)).then(a.len().cmp(&b.len())));
    let mut sets = vec![first];
    for set in more {
        if sets.len() >= MAX_SETS {
            break;
        }
        let related = |a: &[u8], b: &[u8]| {
            let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
            long.windows(short.len()).any(|w| w == short)
        };
        let overlaps = set
            .iter()
            .any(|l| sets.iter().flatten().any(|t| related(l, t)));
        if !overlaps {
            sets.push(set);
        }
    }
    Some(sets)
}

/// The literals of a pattern that opens and closes with what may be any byte or none
/// (`(?:^|[^A-Za-z0-9])curl_…_(sh|bash)(?:$|[^A-Za-z0-9])`, `(^|[\s'"])\.env\b`): where the
/// pattern is a sequence, every match holds a match of each run of consecutive items of it,
/// which starts with one of that run's prefix literals when the run is the sequence's tail,
/// and ends with one of its suffix literals when it is the sequence's head. So each such set
/// that is finite, without the empty literal, is as sound a gate as the whole pattern's
/// prefixes: every match of the pattern holds one of its literals. The most telling one.
fn inner_literals(hir: &regex_syntax::hir::Hir) -> Option<Vec<Vec<u8>>> {
    use regex_syntax::hir::{Hir, HirKind};
    let mut top = hir;
    while let HirKind::Capture(cap) = top.kind() {
        top = &cap.sub;
    }
    let HirKind::Concat(subs) = top.kind() else {
        return None;
    };
    let mut best: Option<Vec<Vec<u8>>> = None;
    for k in 1..subs.len() {
        consider_literals(&mut best, &Hir::concat(subs[k..].to_vec()), true);
        consider_literals(&mut best, &Hir::concat(subs[..k].to_vec()), false);
    }
    best
}

/// Keep in `best` the prefix (or suffix) literals of `hir` if they are finite, hold no empty
/// literal, and tell more than `best` (the shortest literal longer, or as long and fewer).
fn consider_literals(best: &mut Option<Vec<Vec<u8>>>, hir: &regex_syntax::hir::Hir, prefix: bool) {
    use regex_syntax::hir::literal::{ExtractKind, Extractor};
    let kind = if prefix {
        ExtractKind::Prefix
    } else {
        ExtractKind::Suffix
    };
    let mut seq = Extractor::new().kind(kind).extract(hir);
    seq.dedup();
    let Some(lits) = seq.literals() else {
        return;
    };
    if lits.is_empty() || lits.iter().any(|l| l.as_bytes().is_empty()) {
        return;
    }
    let shortest = |ls: &[Vec<u8>]| ls.iter().map(Vec::len).min().unwrap_or(0);
    let lits: Vec<Vec<u8>> = lits.iter().map(|l| l.as_bytes().to_vec()).collect();
    if best.as_ref().is_none_or(|b| {
        shortest(&lits) > shortest(b) || (shortest(&lits) == shortest(b) && lits.len() < b.len())
    }) {
        *best = Some(lits);
    }
}

/// A pattern (parsed in ASCII mode) with every letter in lower case, so that it matches the
/// lower-cased text wherever the pattern matches the text: a literal's letters lowered, a
/// class given the lower case of each of its letters (its upper-case letters dropped once
/// their lower case is in: lower-cased text has none). Literals found in it are then lower
/// case and few (`(?i)ignore` is one, not sixty-four), and sound for a search that ignores
/// ASCII case.
fn lowered(hir: regex_syntax::hir::Hir) -> regex_syntax::hir::Hir {
    use regex_syntax::hir::{
        Capture, Class, ClassBytes, ClassBytesRange, ClassUnicode, ClassUnicodeRange, Hir, HirKind,
        Repetition,
    };
    match hir.into_kind() {
        HirKind::Literal(lit) => Hir::literal(lit.0.to_ascii_lowercase()),
        HirKind::Class(Class::Bytes(mut class)) => {
            // Most classes are one letter in both cases (`(?i)` makes `[Ii]` of `i`): a
            // small class is lowered byte by byte, and one that comes to one byte is a literal.
            let small: usize = class
                .iter()
                .map(|r| usize::from(r.end() - r.start()) + 1)
                .sum();
            if small <= 4 {
                let mut bytes: Vec<u8> = class
                    .iter()
                    .flat_map(|r| r.start()..=r.end())
                    .map(|b| b.to_ascii_lowercase())
                    .collect();
                bytes.sort_unstable();
                bytes.dedup();
                if let [b] = bytes[..] {
                    return Hir::literal([b]);
                }
                return Hir::class(Class::Bytes(ClassBytes::new(
                    bytes.into_iter().map(|b| ClassBytesRange::new(b, b)),
                )));
            }
            let upper = ClassBytes::new([ClassBytesRange::new(b'A', b'Z')]);
            let mut letters = class.clone();
            letters.intersect(&upper);
            let lower = ClassBytes::new(letters.iter().map(|r| {
                ClassBytesRange::new(r.start().to_ascii_lowercase(), r.end().to_ascii_lowercase())
            }));
            class.union(&lower);
            class.difference(&upper);
            Hir::class(Class::Bytes(class))
        }
        HirKind::Class(Class::Unicode(class)) => {
            // (Not met in ASCII mode, where classes are of bytes; kept sound all the same.)
            let mut folded = class.clone();
            folded.case_fold_simple();
            folded.difference(&ClassUnicode::new([ClassUnicodeRange::new('A', 'Z')]));
            Hir::class(Class::Unicode(folded))
        }
        HirKind::Repetition(rep) => Hir::repetition(Repetition {
            sub: Box::new(lowered(*rep.sub)),
            ..rep
        }),
        HirKind::Capture(cap) => Hir::capture(Capture {
            sub: Box::new(lowered(*cap.sub)),
            ..cap
        }),
        HirKind::Concat(subs) => Hir::concat(subs.into_iter().map(lowered).collect()),
        HirKind::Alternation(subs) => Hir::alternation(subs.into_iter().map(lowered).collect()),
        HirKind::Look(look) => Hir::look(look),
        HirKind::Empty => Hir::empty(),
    }
}

/// All patterns as one ASCII-mode automaton that reports which of them match (`None` if some
/// pattern needs Unicode mode). Only the forward NFA is compiled: telling which patterns match
/// never needs the reverse one a full regex engine builds beside it.
fn ascii_set<'a>(sources: impl Iterator<Item = &'a str>) -> Option<std::sync::Arc<AsciiSet>> {
    use regex_automata::util::syntax;
    let sources: Vec<&str> = sources.collect();
    let nfa = byte_nfa_compiler()
        .syntax(syntax::Config::new().unicode(false).utf8(false))
        .build_many(&sources)
        .ok()?;
    byte_set(nfa)
}

/// The compiler of the byte-level sets: forward only, no capture groups, over bytes.
fn byte_nfa_compiler() -> regex_automata::nfa::thompson::Compiler {
    use regex_automata::nfa::thompson::{self, WhichCaptures};
    let mut compiler = thompson::Compiler::new();
    compiler.configure(
        thompson::Config::new()
            .utf8(false)
            .shrink(false)
            .which_captures(WhichCaptures::None)
            .nfa_size_limit(Some(64 << 20)),
    );
    compiler
}

/// The lazy DFA that tells which patterns of `nfa` match.
fn byte_set(nfa: regex_automata::nfa::thompson::NFA) -> Option<std::sync::Arc<AsciiSet>> {
    use regex_automata::hybrid::dfa::DFA;
    let dfa = DFA::builder()
        .configure(
            DFA::config()
                .match_kind(regex_automata::MatchKind::All)
                .cache_capacity(64 << 20)
                .minimum_cache_clear_count(None),
        )
        .build_from_nfa(nfa)
        .ok()?;
    Some(std::sync::Arc::new(AsciiSet {
        dfa,
        caches: std::sync::Mutex::new(Vec::new()),
    }))
}

/// All patterns widened ([`widen`]) into one byte-level automaton (`None` if one cannot be).
/// Parsing in Unicode mode is most of its cost (about a quarter of the Unicode-mode set's).
fn wide_set<'a>(sources: impl Iterator<Item = &'a str>) -> Option<std::sync::Arc<AsciiSet>> {
    let mut hirs = Vec::new();
    for source in sources {
        let hir = regex_syntax::ParserBuilder::new()
            .build()
            .parse(source)
            .ok()?;
        hirs.push(widen(hir)?);
    }
    byte_set(byte_nfa_compiler().build_many_from_hir(&hirs).ok()?)
}

/// The byte a non-ASCII character that is not a word character stands as in the widened text
/// and patterns (a non-ASCII word character stands as `_`).
const WIDE: u8 = 0x80;

/// How `c` stands in the widened text: an ASCII character as itself, any other as one byte
/// that keeps whether it is a word character (`_`) or not ([`WIDE`]), so that a word boundary
/// falls where it fell in the text.
fn wide_byte(c: char) -> u8 {
    if c.is_ascii() {
        c as u8
    } else if regex_syntax::is_word_character(c) {
        b'_'
    } else {
        WIDE
    }
}

/// `text` with each character as its [`wide_byte`]: one byte per character, so a count such
/// as `.{0,16}` counts the same.
fn widened_text(text: &str) -> Vec<u8> {
    text.chars().map(wide_byte).collect()
}

/// Unicode's word characters (`\w`) beyond ASCII.
fn non_ascii_word() -> &'static regex_syntax::hir::ClassUnicode {
    static WORD: std::sync::LazyLock<regex_syntax::hir::ClassUnicode> =
        std::sync::LazyLock::new(|| {
            let mut word = regex_syntax::hir::ClassUnicode::empty();
            if let Ok(hir) = regex_syntax::Parser::new().parse(r"\w")
                && let regex_syntax::hir::HirKind::Class(regex_syntax::hir::Class::Unicode(c)) =
                    hir.kind()
            {
                word = c.clone();
            }
            word.difference(&regex_syntax::hir::ClassUnicode::new([
                regex_syntax::hir::ClassUnicodeRange::new('\0', '\x7F'),
            ]));
            word
        });
    &WORD
}

/// A pattern (parsed in Unicode mode) turned into one over [`widened_text`] that matches
/// wherever the pattern does, and maybe elsewhere: a class keeps its ASCII characters and
/// holds `_` if it held a non-ASCII word character, [`WIDE`] if it held any other non-ASCII
/// character (`\w`, `.`, `[^…]`, a case-folded `k` with the Kelvin sign); a non-ASCII literal
/// character becomes its [`wide_byte`]; a Unicode word boundary becomes an ASCII one, which
/// the widened text answers the same. Each step of a match in the text is a step over one
/// character, which the widened text keeps as one byte that every widened class holding the
/// character holds, so the widened pattern follows the same path. `None` for a class of raw
/// bytes ≥ 0x80 (`(?-u)`), where characters and bytes would not line up: the regex crate
/// refuses such a pattern in a rule (it could match invalid UTF-8), so this is only a guard.
fn widen(hir: regex_syntax::hir::Hir) -> Option<regex_syntax::hir::Hir> {
    use regex_syntax::hir::{Class, ClassBytes, ClassBytesRange, Hir, HirKind, Look};
    Some(match hir.into_kind() {
        HirKind::Empty => Hir::empty(),
        HirKind::Literal(lit) => {
            let text = std::str::from_utf8(&lit.0).ok()?;
            Hir::literal(widened_text(text))
        }
        HirKind::Class(Class::Unicode(class)) => {
            let mut ranges = Vec::new();
            let mut beyond = regex_syntax::hir::ClassUnicode::empty();
            for r in class.iter() {
                if r.start().is_ascii() {
                    let end = if r.end().is_ascii() { r.end() } else { '\x7F' };
                    ranges.push(ClassBytesRange::new(r.start() as u8, end as u8));
                }
                if !r.end().is_ascii() {
                    let start = if r.start().is_ascii() {
                        '\u{80}'
                    } else {
                        r.start()
                    };
                    beyond.push(regex_syntax::hir::ClassUnicodeRange::new(start, r.end()));
                }
            }
            let mut word = beyond.clone();
            word.intersect(non_ascii_word());
            if word.iter().next().is_some() {
                ranges.push(ClassBytesRange::new(b'_', b'_'));
            }
            beyond.difference(non_ascii_word());
            if beyond.iter().next().is_some() {
                ranges.push(ClassBytesRange::new(WIDE, WIDE));
            }
            Hir::class(Class::Bytes(ClassBytes::new(ranges)))
        }
        HirKind::Class(Class::Bytes(class)) => {
            if class.ranges().iter().any(|r| r.end() >= 0x80) {
                return None;
            }
            Hir::class(Class::Bytes(class))
        }
        HirKind::Look(look) => Hir::look(match look {
            Look::WordUnicode => Look::WordAscii,
            Look::WordUnicodeNegate => Look::WordAsciiNegate,
            Look::WordStartUnicode => Look::WordStartAscii,
            Look::WordEndUnicode => Look::WordEndAscii,
            Look::WordStartHalfUnicode => Look::WordStartHalfAscii,
            Look::WordEndHalfUnicode => Look::WordEndHalfAscii,
            // An ASCII word boundary (`(?-u:\b)`) saw a non-ASCII word character as no word
            // byte, which `_` is: it always holds (no rule has one yet).
            Look::WordAscii
            | Look::WordAsciiNegate
            | Look::WordStartAscii
            | Look::WordEndAscii
            | Look::WordStartHalfAscii
            | Look::WordEndHalfAscii => return Some(Hir::empty()),
            // Line and text anchors read ASCII bytes only, which the widened text keeps.
            other => other,
        }),
        HirKind::Repetition(mut rep) => {
            rep.sub = Box::new(widen(*rep.sub)?);
            Hir::repetition(rep)
        }
        HirKind::Capture(cap) => widen(*cap.sub)?,
        HirKind::Concat(subs) => Hir::concat(subs.into_iter().map(widen).collect::<Option<_>>()?),
        HirKind::Alternation(subs) => {
            Hir::alternation(subs.into_iter().map(widen).collect::<Option<_>>()?)
        }
    })
}

const ALL_KINDS: [StrKind; 11] = [
    StrKind::Name,
    StrKind::Title,
    StrKind::Description,
    StrKind::PropertyName,
    StrKind::Enum,
    StrKind::Default,
    StrKind::Example,
    StrKind::Annotation,
    StrKind::Instructions,
    StrKind::Uri,
    StrKind::Other,
];

fn check_id(id: &str) -> Result<(), String> {
    let ok = !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !id.starts_with('-')
        && !id.ends_with('-');
    if ok {
        Ok(())
    } else {
        Err(format!("`{id}` is not a kebab-case id (a-z, 0-9, -)"))
    }
}

#[cfg(test)]
mod tests;
