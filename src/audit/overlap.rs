//! Overlapping Aho-Corasick search through a DFA built lazily over a trie that is itself
//! built lazily: the lexicons' matcher, the pattern rules' literal gate and the phrase lists
//! report every term of a text, and are asked of every clause or string of a definition.
//!
//! Building an Aho-Corasick automaton up front (`aho_corasick`'s noncontiguous NFA: the
//! trie, then a failure link for every state) costs about as much as reading the lexicon
//! files, on every run, though text reaches a small part of it. Here nothing is built up
//! front: a trie state is the range of patterns sharing its prefix in an order sorted only as
//! far as the search has gone (a radix sort done lazily: a state's range is put in order by
//! the next byte when the state is made), made with its failure state when the search first
//! reaches it; each DFA state gets its row of transitions then,
//! and each transition is worked out the first time it is taken (the trie's edge by binary
//! search, else the failure state's transition): once a few definitions are read most bytes
//! cost one look-up.
//!
//! Bytes that no pattern holds (in either case, for a case-insensitive automaton) lead
//! every state where no pattern byte does: they share one column. The rows are kept per
//! searching thread (a pool, as the lazy regex DFAs of [`crate::audit::pattern`] keep their
//! caches) and dropped all at once when they reach [`MAX_CELLS`], so a hostile text cannot
//! grow them without bound. Matches are reported exactly as
//! `AhoCorasick::find_overlapping_iter` reports them: in the order they end, and at one end
//! in the automaton's order (a state's own patterns in their order, then its failure
//! state's; [`LazyOverlap::find_by_nfa`], the property tests' oracle, asks `aho_corasick`).

use std::collections::HashMap;
use std::sync::Mutex;

/// Most cells (transitions) a thread's rows hold before they are dropped and built again.
pub(crate) const MAX_CELLS: usize = 1 << 20;

/// A transition not computed yet (its [`MATCH`] bit set, so that one test a byte tells
/// both apart from an ordinary transition).
const UNKNOWN: u32 = u32::MAX;
/// Set on a transition into a state that completes a pattern.
const MATCH: u32 = 1 << 31;

/// An overlapping Aho-Corasick matcher (standard match semantics) with a lazily built DFA.
///
/// No automaton is built up front. A state of the trie is a range of [`Rows::order`] (the
/// patterns' indices) that share its prefix; its depth and the range's first index name it.
/// A state is made when the search first reaches it: its range is put in order by the byte
/// after the prefix (the patterns that end there first, each group in index order), and it
/// gets its failure state (the state the search reaches on its prefix less the first byte)
/// and the patterns it completes (its own, then its failure state's). Each transition is
/// worked out the first time it is taken (the trie's edge, found by binary search in the
/// range, or else the failure state's transition) and stored in the state's row.
pub(crate) struct LazyOverlap {
    /// Every pattern's bytes, one after another (in ASCII lower case when case-insensitive).
    bytes: Vec<u8>,
    /// Pattern `i` is `bytes[starts[i]..starts[i + 1]]`.
    starts: Vec<u32>,
    /// How many patterns.
    count: u32,
    /// ASCII case-insensitive: patterns and text read in lower case.
    nocase: bool,
    /// The column of each byte (0: a byte no pattern holds).
    classes: [u8; 256],
    /// Columns per row.
    stride: usize,
    /// The empty pattern is among the patterns: the start state matches.
    start_matches: bool,
    /// With the empty pattern among them (no caller has it), the patterns' NFA, which is
    /// searched instead: it reports the empty pattern once or twice at a position depending
    /// on the order it linked its states in, which the lazy trie does not reproduce.
    with_empty: Option<aho_corasick::nfa::noncontiguous::NFA>,
    /// [`MAX_CELLS`] (smaller in tests).
    max_cells: usize,
    /// Each searching thread's rows, boxed: a search takes them and gives them back by
    /// pointer (moving the struct itself costs two copies a search).
    #[allow(clippy::vec_box)]
    caches: Mutex<Vec<Box<Rows>>>,
    /// The patterns as given, for the NFA the property tests compare with.
    #[cfg(test)]
    given: Vec<Vec<u8>>,
    /// That NFA, built on first use.
    #[cfg(test)]
    oracle: std::sync::OnceLock<Option<aho_corasick::nfa::noncontiguous::NFA>>,
}

impl std::fmt::Debug for LazyOverlap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LazyOverlap")
            .field("patterns", &self.count)
            .field("stride", &self.stride)
            .finish_non_exhaustive()
    }
}

/// A state of the trie reached so far: its prefix is `depth` bytes of each pattern of
/// `order[lo..hi]`.
struct State {
    depth: u32,
    lo: u32,
    hi: u32,
    /// The row of the failure state (the start state's own row for the start state).
    fail: u32,
    /// The patterns it completes: `Rows::outs[out_lo..out_hi]`.
    out_lo: u32,
    out_hi: u32,
}

/// One thread's rows of the DFA.
struct Rows {
    /// Row `r` starts at `r * stride`; each cell holds the next row's start (with
    /// [`MATCH`] set where that state completes a pattern), or [`UNKNOWN`].
    trans: Vec<u32>,
    /// The state of each row.
    states: Vec<State>,
    /// The row of each state made so far, by (depth, first sorted index).
    row_of: HashMap<u64, u32>,
    /// The patterns each state completes, in the order they are reported.
    outs: Vec<u32>,
    /// The patterns' indices, each state's range in order by the byte after its prefix (kept
    /// when the rows are dropped: putting a range in order again leaves it as it is).
    order: Vec<u32>,
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
        let total: usize = patterns.iter().map(|p| p.as_ref().len()).sum();
        let too_big = || "too many patterns or pattern bytes".to_owned();
        if total >= (MATCH as usize) || patterns.len() >= (MATCH as usize) {
            return Err(too_big());
        }
        let mut bytes = Vec::with_capacity(total);
        let mut starts = Vec::with_capacity(patterns.len() + 1);
        starts.push(0u32);
        let mut classes = [0u8; 256];
        let mut stride = 1usize;
        let mut mark = |b: u8, classes: &mut [u8; 256]| {
            if classes[usize::from(b)] == 0 {
                // (At most 256 distinct bytes: the last class is 255 at most, plus class 0.)
                classes[usize::from(b)] = u8::try_from(stride).unwrap_or(u8::MAX);
                stride += 1;
            }
        };
        let mut start_matches = false;
        for p in patterns {
            let p = p.as_ref();
            start_matches |= p.is_empty();
            for &b in p {
                mark(b, &mut classes);
                if ascii_case_insensitive && b.is_ascii_alphabetic() {
                    mark(b.to_ascii_lowercase(), &mut classes);
                    mark(b.to_ascii_uppercase(), &mut classes);
                }
            }
            if ascii_case_insensitive {
                bytes.extend(p.iter().map(u8::to_ascii_lowercase));
            } else {
                bytes.extend_from_slice(p);
            }
            starts.push(u32::try_from(bytes.len()).map_err(|_| too_big())?);
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
        let count = u32::try_from(patterns.len()).map_err(|_| too_big())?;
        let with_empty = if start_matches {
            Some(
                aho_corasick::nfa::noncontiguous::Builder::new()
                    .match_kind(aho_corasick::MatchKind::Standard)
                    .ascii_case_insensitive(ascii_case_insensitive)
                    .build(patterns)
                    .map_err(|e| e.to_string())?,
            )
        } else {
            None
        };
        Ok(LazyOverlap {
            bytes,
            starts,
            count,
            nocase: ascii_case_insensitive,
            classes,
            stride,
            start_matches,
            with_empty,
            max_cells: MAX_CELLS,
            caches: Mutex::new(Vec::new()),
            #[cfg(test)]
            given: patterns.iter().map(|p| p.as_ref().to_vec()).collect(),
            #[cfg(test)]
            oracle: std::sync::OnceLock::new(),
        })
    }

    /// The same matcher, its rows dropped at `cells` cells (for tests).
    #[cfg(test)]
    fn with_max_cells(mut self, cells: usize) -> LazyOverlap {
        self.max_cells = cells;
        self
    }

    /// Pattern `i`'s bytes.
    fn pattern(&self, i: u32) -> &[u8] {
        let i = i as usize;
        match (self.starts.get(i), self.starts.get(i + 1)) {
            (Some(&s), Some(&e)) => self.bytes.get(s as usize..e as usize).unwrap_or_default(),
            _ => &[],
        }
    }

    /// Every match in `text`, in the order [`LazyOverlap::find_by_nfa`] reports them, passed
    /// to `each`.
    pub(crate) fn for_each(&self, text: &[u8], mut each: impl FnMut(Found)) {
        if let Some(nfa) = &self.with_empty {
            overlapping(nfa, text, each);
            return;
        }
        let mut rows = self
            .caches
            .lock()
            .ok()
            .and_then(|mut c| c.pop())
            .unwrap_or_else(|| Box::new(self.fresh_rows((0..self.count).collect())));
        if self.start_matches {
            self.report(&rows, 0, 0, &mut each);
        }
        let mut cur = 0usize;
        let mut at = 0usize;
        while at < text.len() {
            // The bytes whose transition is known and completes nothing, in a loop of their
            // own over the table (most bytes of a text): it stops at the first other one.
            let mut next = UNKNOWN;
            {
                let trans = rows.trans.as_slice();
                while let Some(&b) = text.get(at) {
                    let cell = cur + usize::from(self.classes[usize::from(b)]);
                    let t = trans.get(cell).copied().unwrap_or(UNKNOWN);
                    // (UNKNOWN has the MATCH bit set: one test a byte for both.)
                    if t & MATCH != 0 {
                        next = t;
                        break;
                    }
                    cur = t as usize;
                    at += 1;
                }
            }
            let Some(&b) = text.get(at) else {
                break;
            };
            if next == UNKNOWN {
                let mut row = cur / self.stride;
                if rows.trans.len() + self.stride > self.max_cells {
                    // (Full: start again with the current state's row alone.)
                    let Some(st) = rows.states.get(row) else {
                        break;
                    };
                    let (depth, lo, hi) = (st.depth, st.lo, st.hi);
                    *rows = self.fresh_rows(std::mem::take(&mut rows.order));
                    row = self.state_row(&mut rows, depth, lo, hi) as usize;
                }
                next = self.delta(&mut rows, row, b);
            }
            cur = (next & !MATCH) as usize;
            at += 1;
            if next & MATCH != 0 {
                self.report(&rows, cur / self.stride, at, &mut each);
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

    /// Every match in `text` by `aho_corasick`'s own NFA and overlapping search (the oracle
    /// of the property tests: what `AhoCorasick::find_overlapping_iter` reports).
    #[cfg(test)]
    pub(crate) fn find_by_nfa(&self, text: &[u8]) -> Vec<Found> {
        let nfa = self.oracle.get_or_init(|| {
            aho_corasick::nfa::noncontiguous::Builder::new()
                .match_kind(aho_corasick::MatchKind::Standard)
                .ascii_case_insensitive(self.nocase)
                .build(&self.given)
                .ok()
        });
        let Some(nfa) = nfa else {
            return Vec::new();
        };
        let mut out = Vec::new();
        overlapping(nfa, text, |f| out.push(f));
        out
    }

    /// Report the matches of the state of `row`, ending at `end`.
    fn report(&self, rows: &Rows, row: usize, end: usize, each: &mut impl FnMut(Found)) {
        let Some(st) = rows.states.get(row) else {
            return;
        };
        let outs = rows
            .outs
            .get(st.out_lo as usize..st.out_hi as usize)
            .unwrap_or_default();
        for &p in outs {
            let len = self.pattern(p).len();
            each(Found {
                pattern: p as usize,
                start: end - len,
                end,
            });
        }
    }

    /// Rows holding the start state's only (row 0), over `order`.
    fn fresh_rows(&self, order: Vec<u32>) -> Rows {
        let mut rows = Rows {
            trans: Vec::new(),
            states: Vec::new(),
            row_of: HashMap::new(),
            outs: Vec::new(),
            order,
        };
        self.state_row(&mut rows, 0, 0, self.count);
        rows
    }

    /// Put `range` (patterns sharing their first `depth` bytes) in order by the byte after
    /// them, the patterns that end there first; a stable sort, so each group keeps its order
    /// (index order, as every range starts in it).
    fn order_by_next_byte(&self, range: &mut [u32], depth: usize) {
        let key = |p: u32| {
            self.pattern(p)
                .get(depth)
                .map_or(0usize, |&b| usize::from(b) + 1)
        };
        if range.len() <= 24 {
            // (Insertion sort: small ranges, most of them in order already.)
            for i in 1..range.len() {
                let mut j = i;
                while j > 0 && key(range[j - 1]) > key(range[j]) {
                    range.swap(j - 1, j);
                    j -= 1;
                }
            }
            return;
        }
        let mut at = [0usize; 258];
        for &p in range.iter() {
            at[key(p) + 1] += 1;
        }
        for k in 1..at.len() {
            at[k] += at[k - 1];
        }
        let mut out = vec![0u32; range.len()];
        for &p in range.iter() {
            let k = key(p);
            if let Some(slot) = out.get_mut(at[k]) {
                *slot = p;
            }
            at[k] += 1;
        }
        range.copy_from_slice(&out);
    }

    /// The row of the state whose prefix is `depth` bytes of `order[lo..hi]`, made (its range
    /// put in order, its failure state and the patterns it completes) if it has none yet.
    fn state_row(&self, rows: &mut Rows, depth: u32, lo: u32, hi: u32) -> u32 {
        let key = (u64::from(depth) << 32) | u64::from(lo);
        if let Some(&row) = rows.row_of.get(&key) {
            return row;
        }
        if let Some(range) = rows.order.get_mut(lo as usize..hi as usize) {
            self.order_by_next_byte(range, depth as usize);
        }
        let first = rows.order.get(lo as usize).copied().unwrap_or(0);
        // Its failure state: where the search is after its prefix less the first byte.
        let fail = if depth <= 1 {
            0
        } else {
            let prefix = self
                .pattern(first)
                .get(1..depth as usize)
                .unwrap_or_default();
            let mut q = 0usize;
            for &b in prefix {
                q = (self.delta(rows, q, b) & !MATCH) as usize / self.stride;
            }
            u32::try_from(q).unwrap_or(0)
        };
        // The patterns it completes: those equal to its prefix (first in its range), then
        // its failure state's.
        let out_lo = u32::try_from(rows.outs.len()).unwrap_or(u32::MAX);
        let own = rows
            .order
            .get(lo as usize..hi as usize)
            .unwrap_or_default()
            .iter()
            .take_while(|&&p| self.pattern(p).len() == depth as usize)
            .count();
        rows.outs.extend_from_slice(
            rows.order
                .get(lo as usize..lo as usize + own)
                .unwrap_or_default(),
        );
        if depth > 0
            && let Some(f) = rows.states.get(fail as usize)
        {
            let (a, b) = (f.out_lo as usize, f.out_hi as usize);
            rows.outs.extend_from_within(a..b);
        }
        let out_hi = u32::try_from(rows.outs.len()).unwrap_or(u32::MAX);
        let row = u32::try_from(rows.states.len()).unwrap_or(u32::MAX);
        rows.states.push(State {
            depth,
            lo,
            hi,
            fail,
            out_lo,
            out_hi,
        });
        rows.trans.resize(rows.trans.len() + self.stride, UNKNOWN);
        rows.row_of.insert(key, row);
        row
    }

    /// The transition from the state of `row` on byte `b` (the next row's start, with
    /// [`MATCH`] set where that state completes a pattern), worked out and stored if new.
    fn delta(&self, rows: &mut Rows, row: usize, b: u8) -> u32 {
        let cell = row * self.stride + usize::from(self.classes[usize::from(b)]);
        if let Some(&t) = rows.trans.get(cell)
            && t != UNKNOWN
        {
            return t;
        }
        let Some(st) = rows.states.get(row) else {
            return 0;
        };
        let (depth, lo, hi, fail) = (st.depth, st.lo, st.hi, st.fail);
        let t = match self.edge(&rows.order, depth, lo, hi, b) {
            Some((a, z)) => {
                let to = self.state_row(rows, depth + 1, a, z) as usize;
                let matches = rows.states.get(to).is_some_and(|s| s.out_hi > s.out_lo);
                // (Offsets stay below MAX_CELLS and a few rows, far below MATCH.)
                let at = u32::try_from(to * self.stride).unwrap_or(UNKNOWN & !MATCH);
                if matches { at | MATCH } else { at }
            }
            None if row == 0 => {
                if self.start_matches {
                    MATCH
                } else {
                    0
                }
            }
            None => self.delta(rows, fail as usize, b),
        };
        if let Some(c) = rows.trans.get_mut(cell) {
            *c = t;
        }
        t
    }

    /// The trie's edge on byte `b` from the state whose prefix is `depth` bytes of
    /// `order[lo..hi]` (in order by the next byte): the range of the patterns that go on
    /// with `b`.
    fn edge(&self, order: &[u32], depth: u32, lo: u32, hi: u32, b: u8) -> Option<(u32, u32)> {
        let b = if self.nocase {
            b.to_ascii_lowercase()
        } else {
            b
        };
        let d = depth as usize;
        let range = order.get(lo as usize..hi as usize)?;
        // (Patterns that end here sort first; the others are sorted by their byte at `d`.)
        let longer = range.partition_point(|&p| self.pattern(p).len() <= d);
        let rest = range.get(longer..)?;
        let at = |p: u32| self.pattern(p).get(d).copied().unwrap_or(0);
        let a = rest.partition_point(|&p| at(p) < b);
        let z = a + rest.get(a..)?.partition_point(|&p| at(p) == b);
        if a == z {
            return None;
        }
        let base = lo as usize + longer;
        Some((u32::try_from(base + a).ok()?, u32::try_from(base + z).ok()?))
    }
}

/// Every match of `nfa` in `text` by its own overlapping search.
fn overlapping(
    nfa: &aho_corasick::nfa::noncontiguous::NFA,
    text: &[u8],
    mut each: impl FnMut(Found),
) {
    use aho_corasick::automaton::Automaton;
    let input = aho_corasick::Input::new(text);
    let mut state = aho_corasick::automaton::OverlappingState::start();
    loop {
        if nfa.try_find_overlapping(&input, &mut state).is_err() {
            break;
        }
        let Some(m) = state.get_match() else { break };
        each(Found {
            pattern: m.pattern().as_usize(),
            start: m.start(),
            end: m.end(),
        });
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

        /// The same on arbitrary bytes, without and with the empty pattern among the
        /// patterns (searched by the NFA then).
        #[test]
        fn any_bytes_and_the_empty_pattern(
            mut patterns in prop::collection::vec(prop::collection::vec(any::<u8>(), 1..4), 1..20),
            text in prop::collection::vec(any::<u8>(), 0..80),
            nocase in any::<bool>(),
        ) {
            let m = LazyOverlap::new(&patterns, nocase).map_err(TestCaseError::fail)?;
            prop_assert!(m.with_empty.is_none());
            prop_assert_eq!(m.find_all(&text), m.find_by_nfa(&text));
            patterns.push(Vec::new());
            let m = LazyOverlap::new(&patterns, nocase).map_err(TestCaseError::fail)?;
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
