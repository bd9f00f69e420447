//! Minimal glob matching for policy patterns: `*` matches any run of characters, `?` one.

/// Does `text` match `pattern` (whole string, case-sensitive)?
pub fn matches(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn globs() {
        assert!(matches("ci-*", "ci-insights"));
        assert!(matches("npm:@s/p@*", "npm:@s/p@1.2.3"));
        assert!(matches("*", ""));
        assert!(matches("a?c", "abc"));
        assert!(!matches("ci-*", "xci-insights"));
        assert!(!matches("abc", "abcd"));
        assert!(matches("*b*d", "aabxxd"));
    }
}
