//! Overlapping Aho-Corasick search through a DFA built lazily over the automaton's NFA: the
//! lexicons' matcher and the pattern rules' literal gate report every term of a text, and
//! both are asked of every clause or string of a definition.
//!
//! The NFA (`aho_corasick`'s noncontiguous one) walks failure links and sparse transition
//! lists at each byte; a full DFA answers in one table look-up a byte but costs tens of
//! milliseconds to build for the lexicons and the gate, on every run. Here each DFA state
//! (an NFA state) gets its row of transitions when the search first reaches it, and each
//! transition is computed by the NFA the first time it is taken: text reaches a small part
//! of the automaton, and once a few definitions are read most bytes cost one look-up.
//!
//! Bytes that no pattern holds (in either case, for a case-insensitive automaton) lead
//! every state where no pattern byte does: they share one column. The rows are kept per
//! searching thread (a pool, as the lazy regex DFAs of [`crate::audit::pattern`] keep their
//! caches) and dropped all at once when they reach [`MAX_CELLS`], so a hostile text cannot
//! grow them without bound. Matches are reported exactly as
//! `AhoCorasick::find_overlapping_iter` reports them: in the order they end, and at one end
//! in the automaton's order ([`LazyOverlap::find_by_nfa`], the property tests' oracle).

use std::collections::HashMap;
use std::sync::Mutex;

use aho_corasick::automaton::{Automaton, StateID};
use aho_corasick::nfa::noncontiguous::{Builder, NFA};
use aho_corasick::{Anchored, MatchKind};

/// Most cells (transitions) a thread's rows hold before they are dropped and built again.
pub(crate) const MAX_CELLS: usize = 1 << 20;

/// A transition not computed yet (its [`MATCH`] bit set, so that one test a byte tells
/// both apart from an ordinary transition).
const UNKNOWN: u32 = u32::MAX;
/// Set on a transition into a state that completes a pattern.
const MATCH: u32 = 1 << 31;

/// An overlapping Aho-Corasick matcher (standard match semantics) with a lazily built DFA.
pub(crate) struct LazyOverlap {
    nfa: NFA,
    /// The column of each byte (0: a byte no pattern holds).
    classes: [u8; 256],
    /// Columns per row.
    stride: usize,
    start: StateID,
    /// The empty pattern is in the automaton: the start state matches.
    start_matches: bool,
    /// [`MAX_CELLS`] (smaller in tests).
    max_cells: usize,
    caches: Mutex<Vec<Rows>>,
}

impl std::fmt::Debug for LazyOverlap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LazyOverlap")
            .field("patterns", &self.nfa.patterns_len())
            .field("stride", &self.stride)
            .finish_non_exhaustive()
    }
}

/// One thread's rows of the DFA.
struct Rows {
    /// Row `r` starts at `r * stride`; each cell holds the next row's start (with
    /// [`MATCH`] set where that state completes a pattern), or [`UNKNOWN`].
    trans: Vec<u32>,
    /// The NFA state of each row.
    nfa_of: Vec<StateID>,
    /// The row of each NFA state that has one (its start offset).
    row_of: HashMap<StateID, u32>,
}

/// One match: the pattern, and where it starts and ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Found {
    pub pattern: usize,
    pub start: usize,
    pub end: usize,
}

impl LazyOverlap {
    /// The matcher of `patterns` (ASCII case-insensitive if asked).
    pub(crate) fn new<P: AsRef<[u8]>>(
        patterns: &[P],
        ascii_case_insensitive: bool,
    ) -> Result<LazyOverlap, String> {
        let nfa = Builder::new()
            .match_kind(MatchKind::Standard)
            .ascii_case_insensitive(ascii_case_insensitive)
            .build(patterns)
            .map_err(|e| e.to_string())?;
        let mut classes = [0u8; 256];
        let mut stride = 1usize;
        let mut mark = |b: u8, classes: &mut [u8; 256]| {
            if classes[usize::from(b)] == 0 {
                // (At most 256 distinct bytes: the last class is 255 at most, plus class 0.)
                classes[usize::from(b)] = u8::try_from(stride).unwrap_or(u8::MAX);
                stride += 1;
            }
        };
        for p in patterns {
            for &b in p.as_ref() {
                mark(b, &mut classes);
                if ascii_case_insensitive && b.is_ascii_alphabetic() {
                    mark(b.to_ascii_lowercase(), &mut classes);
                    mark(b.to_ascii_uppercase(), &mut classes);
                }
            }
        }
        // (Every byte of the text in a pattern: 256 columns, one of which, class 0, no byte
        // uses; a class index of 256 cannot be stored, so that case keeps one class a byte by
        // giving up the shared column.)
        if stride > 256 {
            for (i, c) in classes.iter_mut().enumerate() {
                *c = u8::try_from(i).unwrap_or(u8::MAX);
            }
            stride = 256;
        }
        let start = nfa.start_state(Anchored::No).map_err(|e| e.to_string())?;
        let start_matches = nfa.is_match(start);
        Ok(LazyOverlap {
            nfa,
            classes,
            stride,
            start,
            start_matches,
            max_cells: MAX_CELLS,
            caches: Mutex::new(Vec::new()),
        })
    }

    /// The same matcher, its rows dropped at `cells` cells (for tests).
    #[cfg(test)]
    fn with_max_cells(mut self, cells: usize) -> LazyOverlap {
        self.max_cells = cells;
        self
    }

    /// Every match in `text`, in the order [`LazyOverlap::find_by_nfa`] reports them, passed
    /// to `each`.
    pub(crate) fn for_each(&self, text: &[u8], mut each: impl FnMut(Found)) {
        if self.start_matches {
            self.report(self.start, 0, &mut each);
        }
        let mut rows = self
            .caches
            .lock()
            .ok()
            .and_then(|mut c| c.pop())
            .unwrap_or_else(|| self.fresh_rows());
        let mut cur = 0usize;
        for (at, &b) in text.iter().enumerate() {
            let cell = cur + usize::from(self.classes[usize::from(b)]);
            let mut next = rows.trans.get(cell).copied().unwrap_or(UNKNOWN);
            // (UNKNOWN has the MATCH bit set: one test a byte for both, most bytes pass.)
            if next & MATCH == 0 {
                cur = next as usize;
                continue;
            }
            if next == UNKNOWN {
                let Some(n) = self.compute(&mut rows, cur, b) else {
                    break;
                };
                next = n;
            }
            cur = (next & !MATCH) as usize;
            if next & MATCH != 0
                && let Some(&sid) = rows.nfa_of.get(cur / self.stride)
            {
                self.report(sid, at + 1, &mut each);
            }
        }
        if let Ok(mut c) = self.caches.lock() {
            c.push(rows);
        }
    }

    /// Every match in `text`, collected.
    #[cfg(test)]
    pub(crate) fn find_all(&self, text: &[u8]) -> Vec<Found> {
        let mut out = Vec::new();
        self.for_each(text, |f| out.push(f));
        out
    }

    /// Every match in `text` by the NFA's own overlapping search (the oracle of the property
    /// tests: what `AhoCorasick::find_overlapping_iter` reports).
    #[cfg(test)]
    pub(crate) fn find_by_nfa(&self, text: &[u8]) -> Vec<Found> {
        let input = aho_corasick::Input::new(text);
        let mut state = aho_corasick::automaton::OverlappingState::start();
        let mut out = Vec::new();
        loop {
            if self.nfa.try_find_overlapping(&input, &mut state).is_err() {
                break;
            }
            let Some(m) = state.get_match() else { break };
            out.push(Found {
                pattern: m.pattern().as_usize(),
                start: m.start(),
                end: m.end(),
            });
        }
        out
    }

    /// Report the matches of NFA state `sid`, ending at `end`.
    fn report(&self, sid: StateID, end: usize, each: &mut impl FnMut(Found)) {
        for i in 0..self.nfa.match_len(sid) {
            let pid = self.nfa.match_pattern(sid, i);
            let len = self.nfa.pattern_len(pid);
            each(Found {
                pattern: pid.as_usize(),
                start: end - len,
                end,
            });
        }
    }

    /// Rows holding the start state's only (row 0).
    fn fresh_rows(&self) -> Rows {
        let mut rows = Rows {
            trans: Vec::new(),
            nfa_of: Vec::new(),
            row_of: HashMap::new(),
        };
        self.add_row(&mut rows, self.start);
        rows
    }

    /// Add a row for NFA state `sid`; its start offset.
    fn add_row(&self, rows: &mut Rows, sid: StateID) -> u32 {
        let at = rows.trans.len();
        rows.trans.resize(at + self.stride, UNKNOWN);
        rows.nfa_of.push(sid);
        // (Offsets stay below MAX_CELLS + a row, far below MATCH.)
        let at = u32::try_from(at).unwrap_or(UNKNOWN & !MATCH);
        rows.row_of.insert(sid, at);
        at
    }

    /// The transition from the row at `cur` on byte `b`, computed by the NFA and stored;
    /// `None` where the search stops (a dead state).
    fn compute(&self, rows: &mut Rows, cur: usize, b: u8) -> Option<u32> {
        let from = *rows.nfa_of.get(cur / self.stride)?;
        let sid = self.nfa.next_state(Anchored::No, from, b);
        if self.nfa.is_dead(sid) {
            return None;
        }
        let flag = if self.nfa.is_match(sid) { MATCH } else { 0 };
        let to = match rows.row_of.get(&sid) {
            Some(&at) => at,
            None => {
                if rows.trans.len() + self.stride > self.max_cells {
                    // (Full: start again from the start state's row; the transition just
                    // computed goes to a row of its own, and is not stored in the old one.)
                    *rows = self.fresh_rows();
                    let to = if sid == self.start {
                        0
                    } else {
                        self.add_row(rows, sid)
                    };
                    return Some(to | flag);
                }
                self.add_row(rows, sid)
            }
        };
        let cell = cur + usize::from(self.classes[usize::from(b)]);
        if let Some(c) = rows.trans.get_mut(cell) {
            *c = to | flag;
        }
        Some(to | flag)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn words() -> impl Strategy<Value = Vec<String>> {
        prop::collection::vec("[abcAB é.-]{1,5}", 1..30)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// The lazy DFA reports what the NFA's own overlapping search reports, in its order.
        #[test]
        fn the_lazy_dfa_finds_what_the_nfa_finds(
            patterns in words(),
            texts in prop::collection::vec("[abcAB é.xyz-]{0,60}", 1..8),
            nocase in any::<bool>(),
        ) {
            let m = LazyOverlap::new(&patterns, nocase).map_err(TestCaseError::fail)?;
            // (Several texts through one matcher: later ones meet rows the earlier built.)
            for t in &texts {
                prop_assert_eq!(m.find_all(t.as_bytes()), m.find_by_nfa(t.as_bytes()));
            }
        }

        /// The same on arbitrary bytes, with the empty pattern among the patterns.
        #[test]
        fn any_bytes_and_the_empty_pattern(
            mut patterns in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..4), 1..20),
            text in prop::collection::vec(any::<u8>(), 0..80),
        ) {
            patterns.push(Vec::new());
            let m = LazyOverlap::new(&patterns, false).map_err(TestCaseError::fail)?;
            prop_assert_eq!(m.find_all(&text), m.find_by_nfa(&text));
        }
    }

    /// Rows dropped when full are built again, with the same matches.
    #[test]
    fn rows_dropped_when_full_give_the_same_matches() {
        // Many distinct states: every two-letter string over 40 letters.
        let letters: Vec<char> = ('a'..='z')
            .chain('0'..='9')
            .chain(['.', '-', '_', '/'])
            .collect();
        let mut patterns = Vec::new();
        for a in &letters {
            for b in &letters {
                patterns.push(format!("{a}{b}x"));
            }
        }
        let m = LazyOverlap::new(&patterns, false)
            .expect("builds")
            .with_max_cells(2_000);
        let text: String = (0..20_000)
            .map(|i| letters[(i * 7 + i / 40) % letters.len()])
            .collect();
        assert_eq!(m.find_all(text.as_bytes()), m.find_by_nfa(text.as_bytes()));
        assert_eq!(m.find_all(text.as_bytes()), m.find_by_nfa(text.as_bytes()));
    }
}
