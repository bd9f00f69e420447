//! Words of identifiers: how every family splits `getBuildStatus`, `run-shell`, `X-Api-Key`.

/// Split an identifier into lowercase words (`getBuildStatus`, `run-shell`, `run_shell`).
pub fn name_words(name: &str) -> Vec<String> {
    if name.is_ascii() {
        return ascii_words(name);
    }
    unicode_words(name)
}

/// [`name_words`], shared: the words of a name asked before on this thread are not split again.
///
/// A tool's name is split by a dozen checks (its verbs, its nouns, its marketing words, its
/// phrase), its property names by several more: each check would copy every word again. The
/// words are kept per thread in [`SHARED_SLOTS`] slots, a name's slot picked by a hash of its
/// bytes and the name kept beside its words (compared by content, never by address); a name
/// that lands in a taken slot takes it over. So at most that many names are kept.
pub fn name_words_shared(name: &str) -> std::rc::Rc<[String]> {
    use std::cell::RefCell;
    use std::rc::Rc;
    type Slot = Option<(Box<str>, Rc<[String]>)>;
    thread_local! {
        static KEPT: RefCell<Vec<Slot>> = RefCell::new(vec![None; SHARED_SLOTS]);
    }
    // (A name too long to be an identifier is split each time: a hostile definition's huge
    // string is not kept.)
    if name.len() > MAX_SHARED_NAME {
        return name_words(name).into();
    }
    KEPT.with(|kept| {
        let Ok(mut kept) = kept.try_borrow_mut() else {
            return name_words(name).into();
        };
        let Some(slot) = kept.get_mut(slot_of(name)) else {
            return name_words(name).into();
        };
        if let Some((kept_name, words)) = slot.as_ref()
            && **kept_name == *name
        {
            return Rc::clone(words);
        }
        let words: Rc<[String]> = name_words(name).into();
        *slot = Some((name.into(), Rc::clone(&words)));
        words
    })
}

/// Slots [`name_words_shared`] keeps per thread (a power of two).
pub const SHARED_SLOTS: usize = 1024;
/// Longest name [`name_words_shared`] keeps.
const MAX_SHARED_NAME: usize = 256;

/// The slot of a name: [`hash_of`] its bytes, reduced to [`SHARED_SLOTS`].
fn slot_of(name: &str) -> usize {
    // (The high bits are the best mixed.)
    (hash_of(name) >> 40) as usize % SHARED_SLOTS
}

/// A multiplicative hash of a text's bytes, eight at a time (FxHash's mixing), its high bits
/// the best mixed: picks the slot of a text kept per thread ([`name_words_shared`], the
/// audit's clause readings).
pub fn hash_of(text: &str) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h: u64 = text.len() as u64;
    let mut chunks = text.as_bytes().chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
    }
    let mut w = [0u8; 8];
    let rest = chunks.remainder();
    w[..rest.len()].copy_from_slice(rest);
    (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K)
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

    proptest::proptest! {
        /// The shared words are [`name_words`]' own, whatever was asked before (names asked
        /// again, names past the keeping limit, long names).
        #[test]
        fn shared_words_are_the_names_own(
            names in proptest::collection::vec("[aB1_ -zQé]{0,12}|[a-z_]{250,260}", 1..40),
        ) {
            for name in names.iter().chain(names.iter()) {
                proptest::prop_assert_eq!(&name_words_shared(name)[..], &name_words(name)[..]);
            }
        }
    }

    #[test]
    fn shared_words_survive_forgetting() {
        for n in 0..SHARED_SLOTS * 4 {
            let name = format!("getItem{n}_now");
            assert_eq!(&name_words_shared(&name)[..], &name_words(&name)[..]);
        }
        assert_eq!(
            &name_words_shared("getItem0_now")[..],
            ["get", "item0", "now"]
        );
    }

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
