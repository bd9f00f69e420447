//! The lexicons (`rules/lexicon/*.toml`): every `[[example]]` shows the concepts it lists and
//! every `[[counter]]` lacks the ones it lists, matched against all lexicons merged (as the
//! audit reads them) — one test per language, every failure of a file listed at once.

use mcpvet::audit::lexicon::Lexicon;

fn failures(file: &str) -> Vec<String> {
    let lex = Lexicon::builtin().expect("built-in lexicons load");
    let mut out = Vec::new();
    let examples = lex.examples().expect("every lexicon compiles");
    let mine: Vec<_> = examples.iter().filter(|e| e.file.ends_with(file)).collect();
    if mine.is_empty() {
        out.push(format!("{file}: no examples (is it in BUILTIN_LEXICONS?)"));
    }
    for e in mine {
        let found = lex.concepts_in(&e.text);
        for c in &e.concepts {
            match (e.present, found.contains(c)) {
                (true, false) => {
                    out.push(format!("{file}: example misses {}: {:?}", c.id(), e.text))
                }
                (false, true) => {
                    out.push(format!("{file}: counter shows {}: {:?}", c.id(), e.text))
                }
                _ => {}
            }
        }
    }
    out
}

macro_rules! lexicon_examples {
    ($($test:ident => $file:literal),* $(,)?) => {
        $(
            #[test]
            fn $test() {
                let f = failures($file);
                assert!(f.is_empty(), "{}", f.join("\n"));
            }
        )*

        #[test]
        fn every_built_in_lexicon_has_its_own_test() {
            let listed = [$($file),*];
            for (name, _) in mcpvet::audit::lexicon::BUILTIN_LEXICONS {
                assert!(listed.iter().any(|f| name.ends_with(f)), "add a test for {name}");
            }
        }
    };
}

lexicon_examples! {
    english_lexicon_examples_hold => "en.toml",
    spanish_lexicon_examples_hold => "es.toml",
    portuguese_lexicon_examples_hold => "pt.toml",
    french_lexicon_examples_hold => "fr.toml",
    german_lexicon_examples_hold => "de.toml",
    chinese_lexicon_examples_hold => "zh.toml",
    japanese_lexicon_examples_hold => "ja.toml",
    korean_lexicon_examples_hold => "ko.toml",
    russian_lexicon_examples_hold => "ru.toml",
}

#[test]
fn every_concept_has_terms_in_english() {
    let lex = Lexicon::builtin().expect("lexicons");
    let examples = lex.examples().expect("every lexicon compiles");
    for c in mcpvet::audit::lexicon::Concept::ALL {
        let shown = examples.iter().any(|e| e.present && e.concepts.contains(c));
        assert!(shown, "concept {} has no example", c.id());
    }
}

/// The files of a `SHA256SUMS` list (paths relative to `tests/corpus`) whose bytes match it.
fn pinned_files(list: &str, what: &str) -> usize {
    use sha2::{Digest, Sha256};
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let sums = std::fs::read_to_string(dir.join(list)).expect("SHA256SUMS");
    let mut checked = 0;
    for line in sums.lines().filter(|l| !l.trim().is_empty()) {
        let (want, file) = line.split_once("  ").expect("sha256sum format");
        let bytes = std::fs::read(dir.join(file)).expect("split file");
        let got = hex::encode(Sha256::digest(&bytes));
        assert_eq!(got, want, "{file} changed: {what} must not be edited");
        checked += 1;
    }
    checked
}

/// The frozen test split is measured, never edited: its bytes match `test/SHA256SUMS`.
#[test]
fn frozen_test_split_is_unchanged() {
    let checked = pinned_files("test/SHA256SUMS", "the frozen test split");
    assert_eq!(checked, 3, "malicious, benign and paraphrases are pinned");
}

/// The unseen batch is measured as it was written: its bytes match `unseen/SHA256SUMS`.
#[test]
fn unseen_batch_is_unchanged() {
    let checked = pinned_files("unseen/SHA256SUMS", "an unseen batch");
    assert!(
        checked >= 2,
        "the unseen batch's malicious and benign files are pinned"
    );
}
