#!/usr/bin/env python3
"""Check rules/lexicon/*.toml: format, and that every [[example]] shows its concepts and every
[[counter]] lacks its absent ones, with the same matching rules as src/audit/intent
(NFKC + casefold, whole words or stem* for latin/cyrillic, substrings for cjk/hangul).

    python3 scripts/lexicon-check.py [FILE.toml ...]   (default: every file)
"""
import glob, os, re, sys, tomllib, unicodedata

CONCEPTS = {"directive", "addressee", "trigger", "override", "conceal", "skip-confirm", "prefer",
            "other-tools", "act-call", "act-modify", "act-read", "act-send", "act-delete",
            "act-run", "data-secret", "data-conversation", "data-personal", "contents",
            "arg-sensitive", "against-user", "sink", "ask-user", "effect", "disparage", "unfit"}

def norm(s):
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", s).casefold())

def word_re(term):
    stem = term.endswith("*")
    t = term[:-1] if stem else term
    # "sende … mit": parts in order, at most 48 characters apart
    body = r".{0,48}?".join(r"\s+".join(re.escape(w) for w in part.split()) for part in t.split("…") if part.strip())
    word = lambda ch: ch.isalnum() or ch == "_"
    end = r"\w*" if stem else (r"(?!\w)" if word(t[-1:]) else "")
    start = r"(?<!\w)" if word(t[:1]) else ""
    return re.compile(start + body + end)

def matcher(script, terms):
    if script in ("cjk", "hangul"):
        res = [re.compile(".{0,48}?".join(re.escape(norm(p.strip())) for p in t.split("…") if p.strip())) for t in terms]
        return lambda text: any(r.search(text) for r in res)
    # Split on "…" before normalising: NFKC turns "…" into "...".
    res = [word_re(" … ".join(norm(p.strip()) for p in t.split("…"))) for t in terms]
    return lambda text: any(r.search(text) for r in res)

def owns(script, ch):
    """Whether `ch` is a letter of the file's script (as `ScriptKind::owns` in
    src/audit/lexicon.rs): a lexicon of another script than Latin is read only in text of its
    script, so a term without one of its letters is never read (and the Rust side refuses the
    whole group, which would leave every term of that script unread)."""
    o = ord(ch)
    if script == "cyrillic":
        return 0x0400 <= o <= 0x052F or 0x1C80 <= o <= 0x1C8F or 0x2DE0 <= o <= 0x2DFF or 0xA640 <= o <= 0xA69F
    if script == "cjk":
        return (0x3040 <= o <= 0x30FF or 0x31F0 <= o <= 0x31FF or 0x3400 <= o <= 0x4DBF
                or 0x4E00 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF or 0xFF66 <= o <= 0xFF9F
                or 0x20000 <= o <= 0x3134F or o == 0x3005 or o == 0x3007)
    if script == "hangul":
        return (0x1100 <= o <= 0x11FF or 0x3130 <= o <= 0x318F or 0xA960 <= o <= 0xA97F
                or 0xAC00 <= o <= 0xD7FF or 0xFFA0 <= o <= 0xFFDC)
    return True

def check(path, merged):
    errs = []
    d = tomllib.load(open(path, "rb"))
    lang, script = d.get("language"), d.get("script")
    if script not in ("latin", "cyrillic", "cjk", "hangul"):
        errs.append(f"{path}: script must be latin|cyrillic|cjk|hangul")
        return errs
    concepts = d.get("concepts", {})
    for c, terms in concepts.items():
        if c not in CONCEPTS:
            errs.append(f"{path}: unknown concept {c}")
        for t in terms:
            if t != t.lower() and t != norm(t):
                errs.append(f"{path}: {c}: term not lower case: {t!r}")
            if not any(owns(script, ch) for ch in norm(t)):
                errs.append(f"{path}: {c}: term {t!r} has no letter of the file's script ({script}); "
                            "it is never read, and the audit refuses the whole group: put it in en.toml")
            if script in ("cjk", "hangul") and len(t.rstrip('*')) < 2:
                errs.append(f"{path}: {c}: term too short for substring matching: {t!r}")
    for c in concepts:
        n_ex = sum(1 for e in d.get("example", []) if c in e.get("concepts", []))
        n_co = sum(1 for e in d.get("counter", []) if c in e.get("absent", []))
        if n_ex < 2 or n_co < 2:
            errs.append(f"{path}: concept {c} needs >= 2 examples and >= 2 counters (has {n_ex}, {n_co})")
    # An example without concepts, or a counter without absent ones, checks nothing; a concept
    # they name that no file defines is a typo.
    for kind, key in (("example", "concepts"), ("counter", "absent")):
        for e in d.get(kind, []):
            if not isinstance(e.get("text"), str) or not e["text"].strip():
                errs.append(f"{path}: [[{kind}]] without a text: {e!r}")
            if not e.get(key):
                errs.append(f"{path}: [[{kind}]] without {key} (it checks nothing): {e.get('text')!r}")
            for c in e.get(key, []):
                if c not in CONCEPTS:
                    errs.append(f"{path}: [[{kind}]] names unknown concept {c}: {e.get('text')!r}")
    for e in d.get("example", []):
        if not isinstance(e.get("text"), str):
            continue
        text = norm(e["text"])
        for c in e.get("concepts", []):
            if not any(m(text) for m in merged.get(c, [])):
                errs.append(f"{path}: example misses {c}: {e['text']!r}")
    for e in d.get("counter", []):
        if not isinstance(e.get("text"), str):
            continue
        text = norm(e["text"])
        for c in e.get("absent", []):
            if any(m(text) for m in merged.get(c, [])):
                errs.append(f"{path}: counter shows {c}: {e['text']!r}")
    return errs

# English negations are read both ways, as the Rust loader does ("don't ask" beside "do not ask").
CONTRACTIONS = [("do not", "don't"), ("does not", "doesn't"), ("did not", "didn't"), ("is not", "isn't"),
                ("are not", "aren't"), ("was not", "wasn't"), ("were not", "weren't"), ("will not", "won't"),
                ("would not", "wouldn't"), ("should not", "shouldn't"), ("must not", "mustn't"),
                ("need not", "needn't"), ("has not", "hasn't"), ("have not", "haven't"),
                ("cannot", "can't"), ("can not", "can't")]

def with_contractions(terms):
    out = list(terms)
    for t in terms:
        for a, b in CONTRACTIONS:
            for f, r in ((a, b), (b, a)):
                v = re.sub(r"(?<![\w'])" + re.escape(f) + r"(?![\w'])", r, t)
                if v != t and v not in out:
                    out.append(v)
    return out

def main():
    root = os.path.join(os.path.dirname(__file__), "..", "rules", "lexicon")
    every = sorted(glob.glob(os.path.join(root, "*.toml")))
    files = sys.argv[1:] or every
    merged = {}
    for p in every:
        d = tomllib.load(open(p, "rb"))
        for c, terms in d.get("concepts", {}).items():
            if p.endswith("en.toml"):
                terms = with_contractions(terms)
            merged.setdefault(c, []).append(matcher(d.get("script"), terms))
    errs = []
    for p in files:
        errs += check(p, merged)
    for e in errs:
        print(e)
    print(f"{len(files)} file(s), {len(errs)} problem(s)")
    sys.exit(1 if errs else 0)

main()
