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
    wrap_with(text, width.max(8), false)
}

/// [`wrap`] without the 8-column floor (at least 2 columns, so a wide character always fits),
/// and a word longer than a line is broken after a `-`, `_`, `/`, `.`, `@` or `:` where one
/// fits and keeps at least half the line (`example-` / `tracker`): what a table cell uses.
pub fn wrap_exact(text: &str, width: usize) -> Vec<String> {
    wrap_with(text, width.max(2), true)
}

fn wrap_with(text: &str, width: usize, soft_breaks: bool) -> Vec<String> {
    use unicode_segmentation::UnicodeSegmentation;
    let mut out = Vec::new();
    for para in text.split('\n') {
        let mut line = String::new();
        let mut len = 0usize;
        for word in para.split(' ') {
            let ascii = word.is_ascii();
            let wlen = if ascii {
                word.len()
            } else {
                display_width(word)
            };
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
            // Hard-break a word longer than the line (one pass: linear in its length), after
            // the last break character on the line when there is one.
            if ascii && !soft_breaks {
                // One column a byte: cut in slices (a megabyte word stays cheap).
                let mut chunks = word.as_bytes().chunks(width).peekable();
                while let Some(c) = chunks.next() {
                    let piece = std::str::from_utf8(c).unwrap_or_default();
                    if chunks.peek().is_some() {
                        out.push(piece.to_owned());
                    } else {
                        line.push_str(piece);
                        len = piece.len();
                    }
                }
                continue;
            }
            let mut soft: Option<(usize, usize)> = None;
            let pieces: Box<dyn Iterator<Item = &str>> = if ascii {
                Box::new((0..word.len()).map(|i| &word[i..i + 1]))
            } else {
                Box::new(word.graphemes(true))
            };
            for g in pieces {
                let gw = if ascii { 1 } else { display_width(g) };
                if len > 0 && len + gw > width {
                    match soft.take() {
                        // Only a break that keeps at least half the line: `ci-` alone
                        // would read worse than a hard break.
                        Some((at, w)) if at < line.len() && 2 * w >= width => {
                            let rest = line.split_off(at);
                            out.push(std::mem::replace(&mut line, rest));
                            len -= w;
                        }
                        _ => {
                            out.push(std::mem::take(&mut line));
                            len = 0;
                        }
                    }
                    // What followed the break may still leave no room for this grapheme.
                    if len > 0 && len + gw > width {
                        out.push(std::mem::take(&mut line));
                        len = 0;
                    }
                }
                line.push_str(g);
                len += gw;
                if soft_breaks && matches!(g, "-" | "_" | "/" | "." | "@" | ":") {
                    soft = Some((line.len(), len));
                }
            }
        }
        out.push(line);
    }
    out
}

/// Shorten `text` to at most `max` characters, ending with `…` when cut; its secrets are
/// redacted before the cut (a cut through one would leave a piece shown in clear).
pub fn truncate(text: &str, max: usize) -> String {
    let text = crate::model::redact::redact_cow(text);
    if text.chars().count() <= max {
        return text.into_owned();
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
        // Cells break long words after punctuation where they can.
        assert_eq!(
            wrap_exact("example-tracker", 11),
            vec!["example-", "tracker"]
        );
        assert_eq!(
            wrap_exact("npx -y example-tracker-mcp@latest", 11),
            vec!["npx -y", "example-", "tracker-", "mcp@latest"]
        );
        assert_eq!(wrap_exact("TRACKER_TOKEN", 11), vec!["TRACKER_", "TOKEN"]);
        assert_eq!(wrap_exact("abcdefghijkl", 8), vec!["abcdefgh", "ijkl"]);
        assert_eq!(wrap("example-tracker", 11), vec!["example-tra", "cker"]);
        assert_eq!(wrap_exact("語-🔥語a語", 7), vec!["語-🔥語", "a語"]);
        assert_eq!(wrap_exact("a-語語語", 5), vec!["a-語", "語語"]);
        assert_eq!(
            wrap_exact("ci-insights-shell", 11),
            vec!["ci-insights", "-shell"]
        );
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
        // This thread's CPU time, not the wall clock: a busy machine (CI, other builds)
        // preempts long runs more often than short ones, which no ratio of wall times survives.
        let cpu = || {
            let t = nix::time::clock_gettime(nix::time::ClockId::CLOCK_THREAD_CPUTIME_ID)
                .expect("thread CPU clock");
            std::time::Duration::from(t)
        };
        let time = |n: usize| {
            let word = "x".repeat(n);
            (0..3)
                .map(|_| {
                    let t = cpu();
                    let lines = wrap(&word, 80);
                    assert_eq!(lines.len(), n.div_ceil(80));
                    cpu().saturating_sub(t)
                })
                .min()
                .unwrap_or_default()
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
        let token = format!("ghp_{}", "aB3dE5gH7jK9mN1pQ2sT4vW6yZ8cD0fG2hJ4");
        let text = format!("evidence: {token} sent");
        for max in 0..text.len() {
            let shown = truncate(&text, max);
            assert!(!shown.contains(&token[4..12]), "{max}: {shown}");
        }
    }
}
