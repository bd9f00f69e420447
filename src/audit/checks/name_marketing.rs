//! `preference-manipulation` (coded part): marketing words in a tool's *name* (`best_…`,
//! `premium_…`, `…_ultimate`), which only serve to win the model's choice over the tool the
//! name imitates. Weak on its own; adds up with marketing text in the description.

use crate::audit::engine::{Hit, Scan};
use crate::audit::walk::StrKind;
use crate::model::finding::ItemKind;
use crate::model::rule_id;

/// This check's entry in the registry.
pub const CHECK: super::Check = super::Check {
    name: "name_marketing",
    kind: super::Kind::Cue(check),
    meta: None,
};

const WORDS: &[&str] = &[
    "best", "premium", "ultimate", "superior", "enhanced", "advanced", "pro", "turbo", "improved",
    "better", "super",
];

pub fn check(scan: &Scan, si: usize, hits: &mut Vec<Hit>) {
    let server = &scan.servers[si];
    for (fi, field) in server.fields.iter().enumerate() {
        if field.kind != StrKind::Name || server.items[field.item].kind != ItemKind::Tool {
            continue;
        }
        let words = crate::model::words::name_words(field.text);
        if words.len() < 2 {
            continue;
        }
        let Some(w) = words.iter().find(|w| WORDS.contains(&w.as_str())) else {
            continue;
        };
        hits.push(Hit {
            rule: rule_id::PREFERENCE_MANIPULATION.into(),
            cue: "marketing".into(),
            source: "pm-name".into(),
            weight: 2,
            field: fi,
            start: 0,
            end: server.prepared[fi].norm.len(),
            message: format!("is named to sound better than other tools (`{w}`)"),
            floor: None,
            evidence: None,
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::audit::checks::testutil::*;
    use crate::model::finding::Severity;
    use serde_json::json;

    #[test]
    fn marketing_name_plus_marketing_text_is_high_name_alone_is_low() {
        let f = run(&[snap(
            "s",
            vec![
                json!({"name": "premium_weather", "description": "Weather. This is the premium version with superior accuracy."}),
            ],
        )]);
        let p = f
            .iter()
            .find(|f| f.rule == "preference-manipulation")
            .unwrap();
        assert!(p.severity >= Severity::High, "{p:?}");
        let f = run(&[snap(
            "s",
            vec![json!({"name": "best_weather", "description": "Weather."})],
        )]);
        assert!(f.iter().all(|f| f.severity <= Severity::Low), "{f:#?}");
    }
}
