//! Words of identifiers: how every family splits `getBuildStatus`, `run-shell`, `X-Api-Key`.

/// Split an identifier into lowercase words (`getBuildStatus`, `run-shell`, `run_shell`).
pub fn name_words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            words.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

/// Upper-case words of an identifier (`X-Api-Key` → `X`,`API`,`KEY`; `githubToken` → `GITHUB`,`TOKEN`).
pub fn split_words(name: &str) -> Vec<String> {
    name_words(name)
        .into_iter()
        .map(|w| w.to_uppercase())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split() {
        assert_eq!(name_words("getBuildStatus"), ["get", "build", "status"]);
        assert_eq!(name_words("run-shell_cmd"), ["run", "shell", "cmd"]);
        assert_eq!(name_words("HTTPGet"), ["httpget"]);
    }
}
