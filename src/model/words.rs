//! Words of identifiers: how every family splits `getBuildStatus`, `run-shell`, `X-Api-Key`.

/// Split an identifier into lowercase words (`getBuildStatus`, `run-shell`, `run_shell`).
pub fn name_words(name: &str) -> Vec<String> {
    if name.is_ascii() {
        return ascii_words(name);
    }
    unicode_words(name)
}

/// How many words [`name_words`] finds in `name`, without copying them (asked of every name
/// and property name, most of which have too few words to be read as a phrase).
pub fn name_word_count(name: &str) -> usize {
    if !name.is_ascii() {
        return unicode_words(name).len();
    }
    // (The same walk as `ascii_words`, counting where it pushes a word.)
    let mut count = 0;
    let mut in_word = false;
    let mut prev_lower = false;
    for c in name.bytes() {
        if !c.is_ascii_alphanumeric() {
            count += usize::from(in_word);
            in_word = false;
            prev_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower && in_word {
            count += 1;
        }
        in_word = true;
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
    }
    count + usize::from(in_word)
}

/// [`name_words`] of an ASCII identifier, the common case: the same words, found on bytes
/// and each copied once.
fn ascii_words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut start: Option<usize> = None;
    let mut prev_lower = false;
    for (i, c) in name.bytes().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if let Some(s) = start.take() {
                words.push(name[s..i].to_ascii_lowercase());
            }
            prev_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower {
            if let Some(s) = start.replace(i) {
                words.push(name[s..i].to_ascii_lowercase());
            }
        }
        start.get_or_insert(i);
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
    }
    if let Some(s) = start {
        words.push(name[s..].to_ascii_lowercase());
    }
    words
}

fn unicode_words(name: &str) -> Vec<String> {
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

    #[test]
    fn ascii_identifiers_split_as_any_other() {
        for name in [
            "",
            "a",
            "A",
            "_",
            "getBuildStatus",
            "X-Api-Key",
            "aB",
            "a1B2c",
            "9Lives",
            "ABCdefGHI",
            "__x__y",
            "run--shell__cmd",
            "a.b/c~d",
            "HTTPGet",
            "getHTTPResponseCode",
            "x1",
            " a b ",
            "readFILE_now2Go",
            "zZzZ",
            "1A",
            "a_B",
            "aB_",
            "Ab-",
            "-Ab",
        ] {
            assert_eq!(ascii_words(name), unicode_words(name), "{name:?}");
        }
        let alphabet = ['a', 'B', '1', '_', '-', 'z', 'Q', ' '];
        for n in 0..alphabet.len().pow(4) {
            let name: String = (0..4)
                .map(|d| alphabet[n / alphabet.len().pow(d) % alphabet.len()])
                .collect();
            assert_eq!(ascii_words(&name), unicode_words(&name), "{name:?}");
            assert_eq!(name_word_count(&name), name_words(&name).len(), "{name:?}");
        }
        for name in [
            "getBuildStatus",
            "X-Api-Key",
            "",
            "__",
            "ÄpfelUndBirnen",
            "récupérer_fichier",
        ] {
            assert_eq!(name_word_count(name), name_words(name).len(), "{name:?}");
        }
    }
}
