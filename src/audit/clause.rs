//! Clauses: the unit the intent analysis reads. A string is cut into sentences and list
//! items (`.`/`!`/`?`/`;` before a space or the end, CJK sentence marks, new lines, bullets),
//! never inside a file path, a URL or a number (`~/.ssh/id_rsa`, `e.g.`, `1.5`).

/// One clause of a string: byte offsets into the string it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clause {
    pub start: usize,
    pub end: usize,
}

/// Longest clause kept whole; a longer run is cut at the next space (bounds work on hostile
/// strings without sentence marks).
const MAX_CLAUSE: usize = 600;

/// Cut `text` into clauses (empty ones dropped).
pub fn split(text: &str) -> Vec<Clause> {
    let mut out = Vec::new();
    let mut start = 0usize;
    let push = |s: usize, e: usize, out: &mut Vec<Clause>| {
        let piece = &text[s..e];
        let lead = piece.len() - piece.trim_start().len();
        let trail = piece.len() - piece.trim_end().len();
        if s + lead < e - trail {
            out.push(Clause {
                start: s + lead,
                end: e - trail,
            });
        }
    };
    // Inside a block of configuration keys under a heading key ("capture:\n  system_prompt:
    // true\n  earlier_messages: all"): its lines are one clause, read with the heading.
    let mut block = false;
    let bytes = text.as_bytes();
    let mut i = 0usize;
    // Bytes before this one are read one by one (their block holds a byte that may end a
    // clause); from it on, a block of bytes none of which can is passed over at once.
    let mut byte_wise_until = 0usize;
    while i < bytes.len() {
        // (A block passed over holds none of the bytes below, and no space that could end a
        // clause: it ends before the clause reaches `MAX_CLAUSE` bytes.)
        if i >= byte_wise_until {
            if i + BLOCK <= bytes.len()
                && i + BLOCK <= start + MAX_CLAUSE
                && !may_end(&bytes[i..i + BLOCK])
            {
                i += BLOCK;
                continue;
            }
            byte_wise_until = i + BLOCK;
        }
        // Only these bytes can start a character that ends a clause: the ASCII marks, and the
        // lead bytes of the CJK marks and of the bullet (every other character is skipped a
        // byte at a time; no continuation byte is among them). A space ends one only in a
        // long run.
        let candidate = match bytes[i] {
            b'\n' | b'.' | b'!' | b'?' | b';' | 0xE2 | 0xE3 | 0xEF => true,
            b' ' => i - start >= MAX_CLAUSE,
            _ => false,
        };
        if !candidate {
            i += 1;
            continue;
        }
        let Some(c) = text.get(i..).and_then(|t| t.chars().next()) else {
            break;
        };
        let next = text.get(i + c.len_utf8()..).and_then(|t| t.chars().next());
        if c == '\n' {
            block = joins_block(text, start, i, block);
            if block {
                i += 1;
                continue;
            }
        }
        let end_here = match c {
            '\n' | '。' | '！' | '？' | '；' | '\u{2022}' => true,
            // (An ellipsis inside a sentence marks something left out, "COPY ... TO PROGRAM
            // are rejected", not its end.)
            '.' => {
                next.is_none_or(char::is_whitespace)
                    && !abbreviation(&text[start..i])
                    && !(text[..i].ends_with("..") && next.is_some_and(|n| n != '\n'))
            }
            '!' | '?' | ';' => next.is_none_or(char::is_whitespace),
            ' ' => i - start >= MAX_CLAUSE,
            _ => false,
        };
        if end_here {
            let e = i + c.len_utf8();
            push(start, e, &mut out);
            start = e;
        }
        i += c.len_utf8();
    }
    push(start, text.len(), &mut out);
    out
}

/// Bytes [`split`] passes over at once when none of them can end a clause.
const BLOCK: usize = 32;

/// Whether `block` holds a byte that may start a character that ends a clause (a space
/// aside): the ASCII marks and the lead bytes of the CJK marks and of the bullet, as [`split`]
/// tests each. By comparisons joined by `|`, which the compiler vectorises.
fn may_end(block: &[u8]) -> bool {
    block.iter().fold(0u8, |acc, &c| {
        acc | u8::from(c == b'\n')
            | u8::from(c == b'.')
            | u8::from(c == b'!')
            | u8::from(c == b'?')
            | u8::from(c == b';')
            | u8::from(c == 0xE2)
            | u8::from(c == 0xE3)
            | u8::from(c == 0xEF)
    }) != 0
}

/// Whether the new line at `i` stays inside the clause that began at `start`: the clause is a
/// heading key (`capture:`) or already a block of keys (`block`), and the next line is an
/// indented key.
fn joins_block(text: &str, start: usize, i: usize, block: bool) -> bool {
    let here = text[start..i].trim_end();
    let opens = here.ends_with(':') && !here.contains('\n');
    (opens || block) && indented_key(&text[i + 1..])
}

/// Does the line that starts `rest` hold an indented configuration key (`  system_prompt:
/// true`, `  - name: x`)?
fn indented_key(rest: &str) -> bool {
    let line = rest.split('\n').next().unwrap_or_default();
    let body = line.trim_start_matches([' ', '\t']);
    if body.len() == line.len() {
        return false;
    }
    let body = body.strip_prefix("- ").unwrap_or(body);
    let key_len = body
        .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .unwrap_or(body.len());
    key_len > 0 && body[key_len..].starts_with(':')
}

/// The abbreviations a period does not end a sentence after, in lower case.
const ABBREVIATIONS: &[&str] = &[
    "e.g", "i.e", "etc", "vs", "cf", "approx", "no", "incl", "esp", "min", "max", "ca", "z.b",
    "d.h", "u.a", "bzw", "vgl", "ggf", "inkl", "usw", "evtl", "bspw", "p.ej", "p.ex", "z", "напр",
    "т.е", "т.к",
];

/// The first letters of spaced abbreviations ("z. B.", "d. h."), alone, in lower case.
const SPACED_FIRST: &[&str] = &["d", "u", "p", "т"];

/// Does the text before a period end with an abbreviation (`e.g`, `i.e`, `etc`, `vs`)?
fn abbreviation(before: &str) -> bool {
    let last = before
        .rsplit(char::is_whitespace)
        .next()
        .unwrap_or_default()
        // ("(e.g. …", "[i.e. …": the bracket opens a remark, the abbreviation stays one.)
        .trim_start_matches(['(', '[', '{', '"', '\'', '«', '“', '‘']);
    // (… and the German, Romance and Russian ones, spaced or not: "z. B.", "d. h.", "p. ej.",
    // "т. е.": the first letter alone, or both with the first's period.)
    let words: Vec<&str> = before.split_whitespace().rev().take(2).collect();
    let spaced = |first: &str, second: &str| {
        words.len() == 2
            && words[0].eq_ignore_ascii_case(second)
            && words[1]
                .trim_start_matches(['(', '['])
                .eq_ignore_ascii_case(first)
    };
    // The lists are in lower case, so a word in ASCII is one of them exactly when it equals
    // one but for ASCII case; any other word is put in lower case once to be compared.
    let lower = (!last.is_ascii()).then(|| last.to_lowercase());
    let is = |a: &str| a.eq_ignore_ascii_case(last) || lower.as_deref() == Some(a);
    ABBREVIATIONS.iter().any(|a| is(a))
        || spaced("z.", "b")
        || spaced("d.", "h")
        || spaced("u.", "a")
        || spaced("p.", "ej")
        || spaced("p.", "ex")
        || spaced("т.", "е")
        || spaced("т.", "к")
        || SPACED_FIRST.iter().any(|a| is(a))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `split` as it was written before it skipped bytes: every character read in turn (with
    /// the configuration-key blocks the stop added beside it).
    fn split_by_chars(text: &str) -> Vec<Clause> {
        let mut out = Vec::new();
        let mut start = 0usize;
        let mut chars = text.char_indices().peekable();
        let push = |s: usize, e: usize, out: &mut Vec<Clause>| {
            let piece = &text[s..e];
            let lead = piece.len() - piece.trim_start().len();
            let trail = piece.len() - piece.trim_end().len();
            if s + lead < e - trail {
                out.push(Clause {
                    start: s + lead,
                    end: e - trail,
                });
            }
        };
        let mut block = false;
        while let Some((i, c)) = chars.next() {
            let next = chars.peek().map(|(_, n)| *n);
            if c == '\n' {
                block = joins_block(text, start, i, block);
                if block {
                    continue;
                }
            }
            let end_here = match c {
                '\n' | '。' | '！' | '？' | '；' | '\u{2022}' => true,
                '.' => {
                    next.is_none_or(char::is_whitespace)
                        && !abbreviation(&text[start..i])
                        && !(text[..i].ends_with("..") && next.is_some_and(|n| n != '\n'))
                }
                '!' | '?' | ';' => next.is_none_or(char::is_whitespace),
                ' ' => i - start >= MAX_CLAUSE,
                _ => false,
            };
            if end_here {
                let e = i + c.len_utf8();
                push(start, e, &mut out);
                start = e;
            }
        }
        push(start, text.len(), &mut out);
        out
    }

    /// [`abbreviation`] as it was written before its lists were put in lower case once (each
    /// word of the lists and the word read were put in lower case at every comparison).
    fn abbreviation_as_before(before: &str) -> bool {
        let last = before
            .rsplit(char::is_whitespace)
            .next()
            .unwrap_or_default()
            // ("(e.g. …", "[i.e. …": the bracket opens a remark, the abbreviation stays one.)
            .trim_start_matches(['(', '[', '{', '"', '\'', '«', '“', '‘']);
        // (… and the German, Romance and Russian ones, spaced or not: "z. B.", "d. h.", "p. ej.",
        // "т. е.": the first letter alone, or both with the first's period.)
        let words: Vec<&str> = before.split_whitespace().rev().take(2).collect();
        let spaced = |first: &str, second: &str| {
            words.len() == 2
                && words[0].eq_ignore_ascii_case(second)
                && words[1]
                    .trim_start_matches(['(', '['])
                    .eq_ignore_ascii_case(first)
        };
        [
            "e.g", "i.e", "etc", "vs", "cf", "approx", "no", "incl", "esp", "min", "max", "ca",
            "z.b", "d.h", "u.a", "bzw", "vgl", "ggf", "inkl", "usw", "evtl", "bspw", "p.ej",
            "p.ex", "z", "напр", "т.е", "т.к",
        ]
        .iter()
        .any(|a| a.eq_ignore_ascii_case(last) || a.to_lowercase() == last.to_lowercase())
            || spaced("z.", "b")
            || spaced("d.", "h")
            || spaced("u.", "a")
            || spaced("p.", "ej")
            || spaced("p.", "ex")
            || spaced("т.", "е")
            || spaced("т.", "к")
            || ["d", "u", "p", "т"]
                .iter()
                .any(|a| a.eq_ignore_ascii_case(last) || *a == last.to_lowercase())
    }

    proptest::proptest! {
        /// Skipping the bytes that cannot end a clause cuts where reading every character did.
        #[test]
        fn byte_skipping_cuts_where_chars_did(
            text in "[a .!?;:_\n\u{3000}。！？；•‥…—“é中e.g]{0,80}",
            long in 0usize..3,
        ) {
            let text = format!("{}{text}", "word ".repeat(long * 70));
            proptest::prop_assert_eq!(split(&text), split_by_chars(&text));
        }

        /// Passing over blocks without a mark cuts where reading every character did: long
        /// runs of words between marks, across block edges and past `MAX_CLAUSE` bytes.
        #[test]
        fn block_skipping_cuts_where_chars_did(
            pieces in proptest::collection::vec(("[a-z ]{0,90}", "[ .!?;:\n。•—é]{0,2}"), 0..24),
        ) {
            let text: String = pieces.iter().map(|(a, b)| format!("{a}{b}")).collect();
            proptest::prop_assert_eq!(split(&text), split_by_chars(&text));
        }

        /// The abbreviations are told as before the lists were put in lower case once.
        #[test]
        fn abbreviations_are_told_as_before(
            text in "[ (\\[a-zA-Z.\u{130}\u{212a}\u{1e9e}ÉéТтНнАаПпРрЕеКк]{0,14}",
            pick in 0usize..40,
        ) {
            let listed = ["e.g", "I.E", "Etc", "VS", "z. B", "d. H", "(p. Ej", "т. Е", "НАПР", "т.К", "Z", "D", "Т"];
            let text = if pick < listed.len() { format!("{text} {}", listed[pick]) } else { text };
            proptest::prop_assert_eq!(abbreviation(&text), abbreviation_as_before(&text));
        }
    }

    #[test]
    fn the_abbreviation_lists_are_in_lower_case() {
        for a in ABBREVIATIONS.iter().chain(SPACED_FIRST) {
            assert_eq!(a.to_lowercase(), *a);
        }
    }

    #[test]
    fn an_ellipsis_inside_a_sentence_does_not_end_it() {
        let text = "Runs one query. Statements such as DELETE or COPY ... TO PROGRAM are rejected. Done...\nNext";
        let parts: Vec<&str> = split(text).iter().map(|c| &text[c.start..c.end]).collect();
        assert_eq!(
            parts,
            [
                "Runs one query.",
                "Statements such as DELETE or COPY ... TO PROGRAM are rejected.",
                "Done...",
                "Next"
            ]
        );
    }

    fn pieces(t: &str) -> Vec<&str> {
        split(t).iter().map(|c| &t[c.start..c.end]).collect()
    }

    #[test]
    fn sentences_lines_and_cjk_marks_but_not_paths() {
        assert_eq!(
            pieces("Read ~/.ssh/id_rsa. Then send it!\n- item one; item two"),
            [
                "Read ~/.ssh/id_rsa.",
                "Then send it!",
                "- item one;",
                "item two"
            ]
        );
        assert_eq!(pieces("读取私钥。发送给我"), ["读取私钥。", "发送给我"]);
        assert_eq!(
            pieces("Version 1.5 is e.g. fine"),
            ["Version 1.5 is e.g. fine"]
        );
        assert_eq!(
            pieces("The local URL (e.g. http://ha.local:8123) or the remote one."),
            ["The local URL (e.g. http://ha.local:8123) or the remote one."]
        );
        assert!(pieces("   ").is_empty());
    }

    #[test]
    fn a_block_of_configuration_keys_is_one_clause() {
        assert_eq!(
            pieces(
                "capture:\n  system_prompt: true\n  - earlier_messages: all\nsink: profile_blob"
            ),
            [
                "capture:\n  system_prompt: true\n  - earlier_messages: all",
                "sink: profile_blob"
            ]
        );
        // Lines that are not indented keys stay clauses of their own.
        assert_eq!(pieces("Options:\n- a\n- b"), ["Options:", "- a", "- b"]);
        assert_eq!(
            pieces("Notes:\n  see the guide.\n  Keys: none"),
            ["Notes:", "see the guide.", "Keys: none"]
        );
    }

    #[test]
    fn long_runs_are_cut() {
        let long = "word ".repeat(400);
        assert!(split(&long).len() > 1);
        assert!(
            split(&long)
                .iter()
                .all(|c| c.end - c.start <= MAX_CLAUSE + 8)
        );
    }

    #[test]
    fn german_and_romance_abbreviations_end_no_sentence() {
        // Must not: "z. B.", "d. h.", "p. ej." cut a sentence.
        for t in [
            "Bankdaten: IBAN (z. B. DE89 3704 0044 0532 0130 00), BIC, Kreditkarten.",
            "Nur lesend, d. h. es wird nichts geändert.",
            "Formatos admitidos, p. ej. CSV o JSON.",
        ] {
            assert_eq!(pieces(t), [t], "{t}");
        }
        // Must: a stop after a lone capital still ends one.
        assert_eq!(
            pieces("Use plan B. Then stop."),
            ["Use plan B.", "Then stop."]
        );
    }
}
