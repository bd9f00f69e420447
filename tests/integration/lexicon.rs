//! The lexicons (`rules/lexicon/*.toml`): every `[[example]]` shows the concepts it lists and
//! every `[[counter]]` lacks the ones it lists, matched against all lexicons merged (as the
//! audit reads them) — one test per language, every failure of a file listed at once.

use mcpvet::audit::lexicon::Lexicon;

fn failures(file: &str) -> Vec<String> {
    let lex = Lexicon::builtin().expect("built-in lexicons load");
    let mut out = Vec::new();
    let mine: Vec<_> = lex
        .examples
        .iter()
        .filter(|e| e.file.ends_with(file))
        .collect();
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
}

#[test]
fn every_concept_has_terms_in_english() {
    let lex = Lexicon::builtin().expect("lexicons");
    for c in mcpvet::audit::lexicon::Concept::ALL {
        let shown = lex
            .examples
            .iter()
            .any(|e| e.present && e.concepts.contains(c));
        assert!(shown, "concept {} has no example", c.id());
    }
}
