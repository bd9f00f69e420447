//! Rendering of `mcpvet rules` (the list) and `mcpvet rules explain ID` (one rule's doc).

use super::RenderOptions;
use super::grid::Grid;
use super::style::Style;
use super::text::wrap;
use crate::model::finding::RuleMeta;

/// A table of every rule: id, family, default severity and confidence, what it flags.
pub fn render_list(rules: &[RuleMeta], opts: &RenderOptions) -> String {
    let mut t = Grid::new(&["rule", "family", "severity", "confidence", "what it checks"]);
    for r in rules {
        t.row([
            r.id.clone(),
            r.family.clone(),
            r.default_severity.to_string(),
            r.default_confidence.to_string(),
            super::text::headline(&r.summary).to_owned(),
        ]);
    }
    let mut out = t.render(opts.width, Style::new(opts.color));
    out.push_str(&format!(
        "\n{} rules. `mcpvet rules explain ID` shows what a rule checks, why it matters, an \
         example and the control.\n",
        rules.len()
    ));
    out
}

/// One rule's documentation, wrapped for the terminal.
pub fn render_explain(r: &RuleMeta, opts: &RenderOptions) -> String {
    let st = Style::new(opts.color);
    let width = usize::from(opts.width.max(40)) - 2;
    let mut out = String::new();
    out.push_str(&st.bold(&r.id));
    out.push_str(&format!(
        "  ({} rule, default severity {}, confidence {})\n",
        r.family, r.default_severity, r.default_confidence
    ));
    let section = |out: &mut String, title: &str, body: &str| {
        out.push('\n');
        out.push_str(&st.bold(title));
        out.push('\n');
        for l in wrap(body, width) {
            out.push_str(&format!("  {l}\n"));
        }
    };
    section(&mut out, "What it checks", &r.summary);
    section(&mut out, "Why it matters", &r.why);
    section(&mut out, "Example", &r.example);
    section(
        &mut out,
        &format!("Control ({})", r.control.id()),
        r.control.advice(),
    );
    out.push_str(
        "\nSilence it for a reviewed case in mcpvet.toml with a reason; change its severity the \
         same way.\n",
    );
    out
}

/// The closest known rule ids to a mistyped one (for the error message).
pub fn suggest<'a>(rules: &'a [RuleMeta], id: &str) -> Vec<&'a str> {
    let mut scored: Vec<(usize, &str)> = rules
        .iter()
        .map(|r| (distance(&r.id, id), r.id.as_str()))
        .filter(|(d, rid)| *d <= 3.max(id.len() / 3) || rid.contains(id))
        .collect();
    scored.sort();
    scored.into_iter().take(3).map(|(_, r)| r).collect()
}

fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The intent analysis and its lexicons: what each concept means and how many terms each
/// language gives it (`mcpvet rules explain lexicon`).
pub fn render_lexicon(lex: &crate::audit::lexicon::Lexicon, opts: &RenderOptions) -> String {
    use crate::audit::lexicon::Concept;
    let counts = lex.term_counts();
    // Concepts and counts in the table (it fits 80 columns); what each concept means below it.
    let mut header = vec!["concept".to_owned()];
    header.extend(lex.languages.iter().cloned());
    let mut t = Grid::new(&header);
    for c in Concept::ALL {
        let mut row = vec![c.id().to_owned()];
        for lang in &lex.languages {
            let n = counts.get(&(*c, lang.as_str())).copied().unwrap_or(0);
            row.push(n.to_string());
        }
        t.row(row);
    }
    let width = usize::from(opts.width.saturating_sub(2).max(40));
    let mut out = String::new();
    let para = |out: &mut String, text: &str, indent: &str| {
        for (i, l) in wrap(text, width.saturating_sub(indent.len()))
            .iter()
            .enumerate()
        {
            if i > 0 {
                out.push_str(indent);
            }
            out.push_str(l);
            out.push('\n');
        }
    };
    para(
        &mut out,
        "The intent analysis reads every string of a definition clause by clause and asks who \
         is told to do what, to which target, with which data, sent where, hidden how. It \
         recognises these concepts with the lexicons in rules/lexicon/ (one file per \
         language, merged; the numbers are terms per language):",
        "",
    );
    out.push_str(&t.render(opts.width, Style::new(opts.color)));
    out.push_str("\n\n");
    for c in Concept::ALL {
        para(&mut out, &format!("{}: {}", c.id(), c.doc()), "    ");
    }
    out.push('\n');
    para(
        &mut out,
        "Scoring (evidence adds up per item; more evidence never lowers the severity): an order \
         about another tool's calls or arguments, replacing the model's instructions, or \
         reading credentials or the conversation for the model is high on its own \
         (cross-tool-instruction, hidden-instructions, sensitive-file-reference, \
         exfiltration-channel); a sink or concealment on top makes it critical; an order about \
         the tool's own use is nothing. Another tool, named or \"the other tools\", said to be \
         unsafe, tampered with or forbidden (unfit), or a call to it forbidden, is high \
         (preference-manipulation); a literal value for a sensitive argument of a named other \
         tool is high (cross-tool-instruction). Secrets also count by their shape: key and \
         vault files by extension, wallet key files, and variables named for a secret whose \
         value is asked for. Findings quote the clause and name the order, action, data, sink \
         and target seen.",
        "",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_near_misses() {
        let rules = crate::catalog::catalog();
        assert_eq!(suggest(&rules, "auto-trsut").first(), Some(&"auto-trust"));
        assert!(suggest(&rules, "zzzzzzzzzzzzzzzzzz").is_empty());
    }
}
