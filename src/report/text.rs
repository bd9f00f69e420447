//! Small text helpers shared by the renderers: word wrapping, truncation, plurals and
//! sentences.

/// How many terminal columns `text` takes: wide (CJK, emoji) characters count two, combining
/// marks none. Text must already be free of control characters (see `model::escape`).
pub fn display_width(text: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(text)
}

/// Wrap `text` to lines of at most `width` terminal columns (at least 8), breaking at spaces
/// where possible and hard-breaking words that are longer than a line between grapheme
/// clusters. Existing newlines are kept.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    wrap_exact(text, width.max(8))
}

/// [`wrap`] without the 8-column floor (at least 2 columns, so a wide character always fits):
/// what a table cell uses.
pub fn wrap_exact(text: &str, width: usize) -> Vec<String> {
    use unicode_segmentation::UnicodeSegmentation;
    let width = width.max(2);
    let mut out = Vec::new();
    for para in text.split('\n') {
        let mut line = String::new();
        let mut len = 0usize;
        for word in para.split(' ') {
            let wlen = display_width(word);
            if len > 0 && len + 1 + wlen <= width {
                line.push(' ');
                line.push_str(word);
                len += 1 + wlen;
                continue;
            }
            if len > 0 {
                out.push(std::mem::take(&mut line));
            }
            line = String::new();
            len = 0;
            if wlen <= width {
                line.push_str(word);
                len = wlen;
                continue;
            }
            // Hard-break a word longer than the line (one pass: linear in its length).
            for g in word.graphemes(true) {
                let gw = display_width(g);
                if len > 0 && len + gw > width {
                    out.push(std::mem::take(&mut line));
                    len = 0;
                }
                line.push_str(g);
                len += gw;
            }
        }
        out.push(line);
    }
    out
}

/// Shorten `text` to at most `max` characters, ending with `…` when cut.
pub fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut s: String = text.chars().take(max.saturating_sub(1)).collect();
    s.push('…');
    s
}

/// The headline of a rule summary: the text before the first `: ` that is outside backticks
/// (when that leaves a reasonable phrase), else the whole summary.
pub fn headline(s: &str) -> &str {
    let mut in_code = false;
    for (i, c) in s.char_indices() {
        match c {
            '`' => in_code = !in_code,
            ':' if !in_code && i > 20 && s[i + 1..].starts_with(' ') => return &s[..i],
            _ => {}
        }
    }
    s
}

/// `1 finding` / `3 findings`.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `text` trimmed, ending with a full stop unless it already ends a sentence.
pub fn sentence(text: &str) -> String {
    let t = text.trim();
    if t.ends_with(['.', '!', '?']) {
        t.to_owned()
    } else {
        format!("{t}.")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_at_spaces_and_hard_breaks_long_words() {
        assert_eq!(wrap("aaa bbb ccc", 8), vec!["aaa bbb", "ccc"]);
        assert_eq!(wrap("abcdefghijkl", 8), vec!["abcdefgh", "ijkl"]);
        assert_eq!(wrap("a\nb", 8), vec!["a", "b"]);
        assert_eq!(wrap("", 8), vec![""]);
        assert_eq!(
            wrap("ab abcdefghijklmnopq", 8),
            vec!["ab", "abcdefgh", "ijklmnop", "q"]
        );
    }

    #[test]
    fn wraps_by_display_width() {
        // Wide characters take two columns: four of them fill a line of 8.
        assert_eq!(wrap("漢字漢字漢字", 8), vec!["漢字漢字", "漢字"]);
        assert_eq!(wrap("ab 漢字漢字", 8), vec!["ab", "漢字漢字"]);
        assert_eq!(wrap_exact("🔥🔥🔥", 5), vec!["🔥🔥", "🔥"]);
        // A combining mark stays with its letter and takes no column.
        assert_eq!(
            wrap_exact("e\u{301}e\u{301}e\u{301}", 2),
            vec!["e\u{301}e\u{301}", "e\u{301}"]
        );
        for l in wrap("名前 の ない ツール 説明 です とても 長い 文章", 10) {
            assert!(display_width(&l) <= 10, "{l}");
        }
    }

    #[test]
    fn wrapping_one_long_word_is_linear() {
        let time = |n: usize| {
            let word = "x".repeat(n);
            let t = std::time::Instant::now();
            let lines = wrap(&word, 80);
            assert_eq!(lines.len(), n.div_ceil(80));
            t.elapsed()
        };
        let small = time(100_000);
        let big = time(1_000_000);
        // Ten times the text: linear is ~10x; the old split_off loop was ~100x.
        assert!(
            big < small * 40 + std::time::Duration::from_millis(20),
            "100 KB took {small:?}, 1 MB took {big:?}"
        );
    }

    #[test]
    fn headline_skips_colons_in_code() {
        assert_eq!(
            headline("A tool annotated `readOnlyHint: true` whose name shows: writes"),
            "A tool annotated `readOnlyHint: true` whose name shows"
        );
        assert_eq!(headline("short: x"), "short: x");
    }

    #[test]
    fn truncates_with_an_ellipsis() {
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("abc", 4), "abc");
    }
}
