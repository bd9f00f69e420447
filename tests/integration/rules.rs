//! Every rule is registered, documented and exemplified, one test per rule:
//!
//! - each built-in pattern rule's examples (`must_match`, `must_not_match` of every pattern
//!   reporting under it) hold — one test per rule, all failures listed at once;
//! - every built-in rule id (`model::rule_id`) has a `rules explain` entry and every entry's id
//!   is a registered constant;
//! - the rule table in `docs/audit.md` is generated from the catalogue and up to date
//!   (`MCPVET_UPDATE_DOCS=1 cargo test --locked --test integration rules` rewrites it).

use mcpvet::audit::RuleSet;
use mcpvet::model::rule_id;

fn pattern_failures(rule: &str) -> Vec<String> {
    let rules = RuleSet::builtin().expect("built-in rules load");
    let patterns: Vec<_> = rules.patterns().iter().filter(|p| p.rule == rule).collect();
    let mut out = Vec::new();
    if patterns.is_empty() {
        out.push(format!("{rule}: no pattern reports under this rule"));
    }
    for p in patterns {
        if p.must_match.is_empty() || p.must_not_match.is_empty() {
            out.push(format!("{}: needs positive and negative examples", p.id));
        }
        out.extend(p.example_failures());
    }
    out
}

macro_rules! pattern_rule_examples {
    ($($test:ident => $rule:expr),* $(,)?) => {
        $(
            #[test]
            fn $test() {
                let failures = pattern_failures($rule);
                assert!(failures.is_empty(), "{}", failures.join("\n"));
            }
        )*

        /// The list above covers every rule that built-in patterns report under.
        #[test]
        fn every_pattern_rule_has_its_own_example_test() {
            let listed = [$($rule),*];
            let rules = RuleSet::builtin().expect("built-in rules load");
            let mut missing: Vec<&str> = rules
                .patterns()
                .iter()
                .map(|p| p.rule.as_str())
                .filter(|r| !listed.contains(r))
                .collect();
            missing.dedup();
            assert!(missing.is_empty(), "add an example test for: {missing:?}");
        }
    };
}

pattern_rule_examples! {
    examples_of_hidden_instructions => rule_id::HIDDEN_INSTRUCTIONS,
    examples_of_concealment => rule_id::CONCEALMENT,
    examples_of_sensitive_file_reference => rule_id::SENSITIVE_FILE_REFERENCE,
    examples_of_cross_tool_instruction => rule_id::CROSS_TOOL_INSTRUCTION,
    examples_of_exfiltration_channel => rule_id::EXFILTRATION_CHANNEL,
    examples_of_embedded_command => rule_id::EMBEDDED_COMMAND,
    examples_of_preference_manipulation => rule_id::PREFERENCE_MANIPULATION,
}

#[test]
fn every_registered_rule_id_is_documented_and_every_documented_rule_registered() {
    let catalog = mcpvet::catalog::catalog();
    let mut problems = Vec::new();
    for (id, family) in rule_id::ALL {
        match catalog.iter().find(|m| m.id == *id) {
            None => problems.push(format!("{id}: no `rules explain` entry")),
            Some(m) if m.family != *family => problems.push(format!(
                "{id}: family {} in the catalogue, {family} registered",
                m.family
            )),
            Some(m) if m.summary.is_empty() || m.why.is_empty() || m.example.is_empty() => problems
                .push(format!(
                    "{id}: summary, why and example must all be written"
                )),
            Some(_) => {}
        }
    }
    for m in &catalog {
        if !rule_id::ALL.iter().any(|(id, _)| *id == m.id) {
            problems.push(format!(
                "{}: documented but not a constant in model::rule_id",
                m.id
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

const BEGIN: &str =
    "<!-- rule table: generated from the catalogue by tests/integration/rules.rs -->";
const END: &str = "<!-- end of rule table -->";

fn rule_table() -> String {
    let mut out = String::from(
        "| id | family | default severity | confidence | control | what it flags |\n|---|---|---|---|---|---|\n",
    );
    for m in mcpvet::catalog::catalog() {
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} |\n",
            m.id,
            m.family,
            m.default_severity,
            m.default_confidence,
            m.control,
            m.summary.replace('|', "\\|").replace('\n', " ")
        ));
    }
    out
}

#[test]
fn docs_rule_table_is_generated_and_current() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/audit.md");
    let text = std::fs::read_to_string(&path).expect("docs/audit.md");
    let (Some(b), Some(e)) = (text.find(BEGIN), text.find(END)) else {
        panic!("docs/audit.md lacks the generated rule table markers:\n{BEGIN}\n{END}");
    };
    let want = format!("{}{BEGIN}\n{}{}", &text[..b], rule_table(), &text[e..]);
    if std::env::var_os("MCPVET_UPDATE_DOCS").is_some() {
        std::fs::write(&path, &want).expect("write docs/audit.md");
        return;
    }
    assert!(
        want == text,
        "docs/audit.md's rule table is out of date: run `MCPVET_UPDATE_DOCS=1 cargo test --locked --test integration rules`"
    );
}
