//! `confusable-name`: tool and prompt names that mix scripts or use look-alike characters
//! (Cyrillic `а` for Latin `a`, full-width letters). A homoglyph copy of another tool's name
//! is an impersonation.

use crate::audit::engine::Scan;
use crate::audit::walk::StrKind;
use crate::model::finding::{Confidence, Control, Finding, RuleMeta, Severity};
use crate::model::rule_id;

pub fn meta() -> RuleMeta {
    super::meta(
        rule_id::CONFUSABLE_NAME,
        "A tool, prompt or parameter name mixes scripts or uses characters that look like other letters; worst when it imitates another tool's name.",
        "Homoglyph names look identical to reviewers and in host UIs while being different tools, which lets a server impersonate a trusted tool.",
        "rеad_file (with a Cyrillic е) next to read_file",
        Severity::High,
        Confidence::High,
        Control::Reject,
    )
}

/// Map look-alike characters to the ASCII they imitate: NFKC first (full-width `ｒｅａｄ`),
/// then each remaining character's UTS #39 confusable skeleton when that is one ASCII
/// character (Cyrillic `а`, Greek `ο`, `ℓ`, dashes). Other characters stay as they are.
pub fn skeleton(s: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    s.nfkc()
        .map(|c| {
            if c.is_ascii() {
                return c;
            }
            let sk: String = unicode_security::skeleton(&c.to_string()).collect();
            let mut it = sk.chars();
            match (it.next(), it.next()) {
                (Some(a), None) if a.is_ascii_graphic() => a,
                _ => c,
            }
        })
        .collect()
}

#[derive(Debug, PartialEq, Eq, Clone, Copy)]
enum Script {
    Latin,
    Cyrillic,
    Greek,
    Other,
}

/// This check's entry in the registry.
pub const CHECK: super::Check = super::Check {
    name: "confusable_name",
    kind: super::Kind::Item(check),
    meta: Some(meta),
};

fn script(c: char) -> Option<Script> {
    use unicode_script::UnicodeScript;
    if !c.is_alphabetic() {
        return None;
    }
    Some(match c.script() {
        unicode_script::Script::Latin => Script::Latin,
        unicode_script::Script::Cyrillic => Script::Cyrillic,
        unicode_script::Script::Greek => Script::Greek,
        _ => Script::Other,
    })
}

/// The scripts of a name's letters, each once.
fn scripts_of(name: &str) -> Vec<Script> {
    let mut scripts: Vec<Script> = name.chars().filter_map(script).collect();
    scripts.sort_by_key(|s| *s as u8);
    scripts.dedup();
    scripts
}

/// A name with its non-ASCII characters shown as code points (`r<U+0435>ad_file`).
fn shown(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii() {
                c.to_string()
            } else {
                format!("<U+{:04X}>", c as u32)
            }
        })
        .collect()
}

/// How many of Latin, Cyrillic and Greek a text's letters are drawn from.
fn alike_scripts(text: &str) -> usize {
    scripts_of(text)
        .iter()
        .filter(|s| matches!(s, Script::Latin | Script::Cyrillic | Script::Greek))
        .count()
}

/// Whether the item's own descriptions are written mostly in Cyrillic or Greek: then a
/// Cyrillic or Greek word in a parameter name is the page's language, not a disguise.
fn written_in_cyrillic_or_greek(scan: &Scan, si: usize, item: usize) -> bool {
    let (mut latin, mut other) = (0usize, 0usize);
    for f in &scan.servers[si].fields {
        if f.item != item || f.kind != StrKind::Description {
            continue;
        }
        for c in f.text.chars() {
            match script(c) {
                Some(Script::Latin) => latin += 1,
                Some(Script::Cyrillic | Script::Greek) => other += 1,
                _ => {}
            }
        }
    }
    other > latin
}

/// A parameter name written with letters of two of the scripts that look alike (Latin,
/// Cyrillic, Greek) inside one word (`соnfіg` with Cyrillic `с`, `о`, `і`), a word in one of
/// them beside words in another (`сору_file`) on a page not written in Cyrillic or Greek, or
/// a name wholly in look-alike letters: the description can then point the model at a field
/// that a reviewer reads as another word, and text matching the plain spelling misses it. A
/// name in one other script (`сумма`, `金额`, or `user_名前` beside Latin) is ordinary and
/// passes, and so is a Russian or Greek word beside a Latin one (`курс_id`) on a page written
/// in Russian or Greek.
fn property_name(scan: &Scan, si: usize, field: &crate::audit::walk::Field, out: &mut Vec<Finding>) {
    let name = field.text;
    let alike = alike_scripts(name);
    // (Words split as every check splits a name: at marks and where a lower-case letter meets an
    // upper-case one, `курсId` → `курс`, `id`.)
    let mixed_word = crate::model::words::name_words(name).iter().any(|w| alike_scripts(w) > 1);
    if alike > 1 && !mixed_word && written_in_cyrillic_or_greek(scan, si, field.item) {
        return;
    }
    let skel = skeleton(name);
    let (severity, what) = if alike > 1 {
        (
            Severity::High,
            format!("mixes Latin, Cyrillic or Greek letters; it reads as `{skel}`"),
        )
    } else if skel != name && skel.is_ascii() {
        (
            Severity::Medium,
            format!("is written wholly in letters that look like ASCII; it reads as `{skel}`"),
        )
    } else {
        return;
    };
    push(scan, si, field, severity, "a parameter of ", &what, out);
}

/// One finding on a name: "{lead}{item} {what}" ("a parameter of tool `x` mixes …"), the
/// name with its non-ASCII characters as code points for evidence.
fn push(
    scan: &Scan,
    si: usize,
    field: &crate::audit::walk::Field,
    severity: Severity,
    lead: &str,
    what: &str,
    out: &mut Vec<Finding>,
) {
    let item = &scan.servers[si].items[field.item];
    out.push(super::item_finding(scan, si, field.item, super::Emit {
        rule: rule_id::CONFUSABLE_NAME,
        severity,
        confidence: Confidence::High,
        pointer: field.pointer.clone(),
        message: format!("{lead}{} {what}", crate::audit::engine::kind_label(item.kind, &item.name)),
        evidence: Some(shown(field.text)),
        control: Control::Reject,
    }));
}

pub fn check(scan: &Scan, si: usize, out: &mut Vec<Finding>) {
    let server = &scan.servers[si];
    for field in &server.fields {
        if field.text.is_ascii() {
            continue;
        }
        if field.kind == StrKind::PropertyName {
            property_name(scan, si, field, out);
            continue;
        }
        if field.kind != StrKind::Name {
            continue;
        }
        let name = field.text;
        let scripts = scripts_of(name);
        let skel = skeleton(name);
        let imitated =
            skel != name && skel.is_ascii() && scan.tool_index.contains_key(skel.as_str());
        let fullwidth = name.chars().any(|c| ('\u{FF01}'..='\u{FF5E}').contains(&c));
        let (severity, what) = if imitated {
            (
                Severity::Critical,
                format!("imitates the tool name `{skel}` with look-alike characters"),
            )
        } else if scripts.len() > 1 || fullwidth {
            (
                Severity::High,
                "mixes scripts or uses full-width letters".to_owned(),
            )
        } else if skel != name {
            (
                Severity::Medium,
                "uses characters that look like ASCII letters".to_owned(),
            )
        } else {
            (Severity::Low, "is not plain ASCII".to_owned())
        };
        push(scan, si, field, severity, "", &what, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::checks::testutil::*;
    use serde_json::json;

    #[test]
    fn homoglyph_copy_is_critical() {
        let a = snap("a", vec![json!({"name": "read_file"})]);
        let b = snap("b", vec![json!({"name": "rеad_file"})]);
        let f = run(&[a, b]);
        let c = f.iter().find(|f| f.rule == "confusable-name").unwrap();
        assert_eq!(c.severity, Severity::Critical);
        assert_eq!(c.evidence.as_deref(), Some("r<U+0435>ad_file"));
    }

    #[test]
    fn parameter_names_in_look_alike_letters_are_flagged_and_other_scripts_pass() {
        let tool = |param: &str| {
            json!({"name": "check_spelling", "description": "Checks spelling.",
                "inputSchema": {"type": "object", "properties": {param: {"type": "string"}}}})
        };
        let worst = |param: &str| {
            run(&[snap("a", vec![tool(param)])])
                .into_iter()
                .filter(|f| f.rule == "confusable-name")
                .map(|f| (f.severity, f.message, f.evidence))
                .max_by_key(|(s, ..)| *s)
        };
        // Must: Latin and Cyrillic mixed (`соnfіg`), and a name wholly in look-alikes.
        let (sev, msg, ev) = worst("соnfіg").expect("a finding");
        assert_eq!(sev, Severity::High);
        assert!(msg.contains("reads as `config`"), "{msg}");
        assert_eq!(ev.as_deref(), Some("<U+0441><U+043E>nf<U+0456>g"));
        assert_eq!(worst("реrfіl").map(|w| w.0), Some(Severity::High));
        assert_eq!(worst("сор").map(|w| w.0), Some(Severity::Medium));
        // Must not: a word of another script, alone or beside Latin.
        for ok in ["сумма", "金额", "user_名前", "전화번호", "path"] {
            assert_eq!(worst(ok), None, "{ok}");
        }
        // A Cyrillic word beside a Latin one on an English page is still a disguise.
        assert_eq!(worst("сору_file").map(|w| w.0), Some(Severity::High));
    }

    #[test]
    fn a_russian_word_beside_a_latin_one_passes_on_a_russian_page() {
        let tool = |desc: &str, param: &str| {
            json!({"name": "записать_на_курс", "description": desc,
                "inputSchema": {"type": "object", "properties": {param: {"type": "string"}}}})
        };
        let worst = |desc: &str, param: &str| {
            run(&[snap("a", vec![tool(desc, param)])])
                .into_iter()
                .filter(|f| f.rule == "confusable-name" && f.location.pointer.as_deref().is_some_and(|p| p.contains("properties")))
                .map(|f| f.severity)
                .max()
        };
        let ru = "Записывает студента на курс. Платные курсы без оплаты возвращают 402.";
        // Must not: whole Russian words beside `id`, split by `_` or by case.
        for ok in ["курс_id", "задание_id", "курсId", "id_курса"] {
            assert_eq!(worst(ru, ok), None, "{ok}");
        }
        // Must: a word mixing scripts stays high on a Russian page too, and the same
        // name on an English page is high.
        assert_eq!(worst(ru, "соnfіg_id"), Some(Severity::High));
        assert_eq!(worst(ru, "раsswоrd"), Some(Severity::High));
        assert_eq!(worst("Enrols a student on a course.", "курс_id"), Some(Severity::High));
    }

    #[test]
    fn words_split_at_marks_digits_and_case() {
        let words = crate::model::words::name_words;
        assert_eq!(words("курсId"), ["курс", "id"]);
        assert_eq!(words("user_2fa-code"), ["user", "2fa", "code"]);
        assert_eq!(words("соnfіg"), ["соnfіg"]);
    }

    #[test]
    fn ascii_names_pass_and_mixed_scripts_are_high() {
        assert!(run(&[snap("a", vec![json!({"name": "read_file"})])]).is_empty());
        let f = run(&[snap("a", vec![json!({"name": "gеt_data"})])]);
        assert_eq!(f[0].severity, Severity::High);
        assert_eq!(skeleton("gеt"), "get");
    }
}
