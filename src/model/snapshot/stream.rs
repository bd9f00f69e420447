//! Reading a snapshot file without holding its definitions: its *shell* (everything but the
//! `tools`, `prompts`, `resources` and `resourceTemplates` lists, with their counts) in one
//! pass that builds no definition ([`skim`]: the file split into definitions, each checked as
//! JSON, and the rest, its *skeleton*, read from memory; the parts of each definition the
//! audit's outline reads are kept on the way, [`Outlined`]), then the definitions one at a time,
//! each handed to the caller and dropped before the next is read ([`each_definition`]). Both
//! passes read the file through a buffer, so memory does not grow with the file.
//!
//! Only the plain shape is read this way: one JSON object whose definition lists are arrays,
//! each present once and in the order the audit reads them (tools, prompts, resources,
//! resource templates), every other key once. Anything else (a JSON-RPC response, a repeated
//! key, a list that is not an array, text that is not valid JSON, a file over the item cap's
//! count) is left to the whole-file reading ([`ServerSnapshot::load`]), which gives the same
//! snapshot or names the problem.

use std::fmt;
use std::io::{BufReader, Read};
use std::path::Path;

use serde::Deserialize as _;
use serde::de::{DeserializeSeed, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::{Deferred, ServerSnapshot, SnapshotError};
use crate::model::finding::ItemKind;
use crate::model::fsio::{self, ReadKind};

/// The definition lists, in the order the audit reads them.
const LISTS: [(&str, ItemKind); 4] = [
    ("tools", ItemKind::Tool),
    ("prompts", ItemKind::Prompt),
    ("resources", ItemKind::Resource),
    ("resourceTemplates", ItemKind::ResourceTemplate),
];

/// How much of the file is buffered at a time.
const BUFFER: usize = 1 << 20;

fn list_index(key: &str) -> Option<usize> {
    LISTS.iter().position(|(k, _)| *k == key)
}

/// A buffered reader of the file, stopping one byte past the size cap (a file that grows
/// past it while read fails to parse, and the whole-file reading names the cap).
fn reader(path: &Path) -> std::io::Result<BufReader<std::io::Take<std::fs::File>>> {
    let (file, _) = fsio::open_regular(path, ReadKind::Snapshot)?;
    Ok(BufReader::with_capacity(
        BUFFER,
        file.take(ReadKind::Snapshot.cap().saturating_add(1)),
    ))
}

/// The snapshot at `path` without its definitions (their lists empty, `deferred` set), or
/// `None` when the file is not of the plain shape this reader takes (see the module docs).
/// The only error is a file holding more definitions than the item cap.
pub(super) fn shell(path: &Path) -> Result<Option<ServerSnapshot>, SnapshotError> {
    let cap = fsio::max_items();
    // The fast way: the file's skeleton (see [`skim`]) read from memory. Anything unusual
    // (invalid text, more definitions than the cap) is read the slow way below, which decides
    // and names it exactly as before.
    if let Some(skimmed) = recall(path).or_else(|| skim(path, cap)) {
        let mut state = Shell::new(cap);
        let mut de = serde_json::Deserializer::from_slice(&skimmed.skeleton);
        let read =
            serde::Deserializer::deserialize_map(&mut de, &mut state).is_ok() && de.end().is_ok();
        if read && state.total <= cap {
            let mut snap = state.into_shell(path);
            if let Some(d) = snap.as_mut().and_then(|s| s.deferred.as_mut()) {
                d.outlined = skimmed.outlined;
            }
            return Ok(snap);
        }
    }
    shell_through_reader(path, cap)
}

/// [`shell`] the slow way: the whole text parsed through a buffered reader.
fn shell_through_reader(path: &Path, cap: usize) -> Result<Option<ServerSnapshot>, SnapshotError> {
    let Ok(reader) = reader(path) else {
        return Ok(None);
    };
    let mut state = Shell::new(cap);
    let mut de = serde_json::Deserializer::from_reader(reader);
    let read =
        serde::Deserializer::deserialize_map(&mut de, &mut state).is_ok() && de.end().is_ok();
    if state.total > cap {
        return Err(SnapshotError::TooManyItems {
            path: path.display().to_string(),
            cap,
        });
    }
    if !read {
        return Ok(None);
    }
    Ok(state.into_shell(path))
}

/// A skim kept from telling a file (see [`remember`]), with what the file was then.
struct Told {
    path: std::path::PathBuf,
    identity: (u64, Option<std::time::SystemTime>),
    skimmed: Skimmed,
}

/// Skeletons of files told to be snapshots and not read since (see [`remember`]).
static TOLD: std::sync::Mutex<Vec<Told>> = std::sync::Mutex::new(Vec::new());

/// Most skeletons kept at a time (the oldest goes first).
const TOLD_MAX: usize = 1024;

/// A file's length and modification time, to tell that it is still what it was.
fn identity(path: &Path) -> Option<(u64, Option<std::time::SystemTime>)> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.len(), meta.modified().ok()))
}

/// Keep the skeleton of a file just told to be a snapshot ([`super::items::file_looks_like_snapshot`]),
/// so that reading its shell next ([`shell`], the offline `scan`) does not read the whole file
/// again. Taken back by [`recall`] while the file's length and modification time are unchanged.
pub(super) fn remember(path: &Path, skimmed: Skimmed) {
    let Some(identity) = identity(path) else {
        return;
    };
    if let Ok(mut told) = TOLD.lock() {
        told.retain(|t| t.path != path);
        if told.len() >= TOLD_MAX {
            told.remove(0);
        }
        told.push(Told {
            path: path.to_path_buf(),
            identity,
            skimmed,
        });
    }
}

/// The skim [`remember`] kept of `path`, if the file still has the length and modification
/// time it had (taken: a second reading skims the file again).
fn recall(path: &Path) -> Option<Skimmed> {
    let mut told = TOLD.lock().ok()?;
    let at = told.iter().position(|t| t.path == path)?;
    let kept = told.remove(at);
    drop(told);
    (identity(path) == Some(kept.identity)).then_some(kept.skimmed)
}

/// Drop what [`remember`] kept of `path` (its file is read whole instead).
pub(super) fn forget(path: &Path) {
    if let Ok(mut told) = TOLD.lock() {
        told.retain(|t| t.path != path);
    }
}

/// What one [`skim`] of a file gives: its skeleton, and the outline parts of its first
/// definitions.
#[derive(Debug)]
pub(super) struct Skimmed {
    pub(super) skeleton: Vec<u8>,
    pub(super) outlined: Outlined,
}

/// The parts of a definition an audit's first reading of a deferred snapshot (its outline,
/// see [`crate::audit::engine`]) reads, and so all that reading builds of it (the rest is
/// checked as JSON and skipped): its name, URI or URI template
/// ([`ServerSnapshot::item_name`]), its description, the property names of the input and
/// output schemas at any depth ([`SCHEMA_OUTLINE`]) and their `enum` strings, a prompt's
/// argument names. A test of the engine checks that an outline is the same whether read from
/// these parts or from the whole definition.
pub static OUTLINE: Keep = {
    use Keep::{Each, Keys, Like, Str};
    Keys(&[
        ("name", Str),
        ("uri", Str),
        ("uriTemplate", Str),
        ("description", Str),
        ("inputSchema", Like(&SCHEMA_OUTLINE)),
        ("outputSchema", Like(&SCHEMA_OUTLINE)),
        ("arguments", Each(&Keys(&[("name", Str)]))),
    ])
};

/// A schema's shape as far as its property names go: the keys of `properties` at every depth
/// (under `items`, `$defs`, `definitions`, `additionalProperties` and the `anyOf`/`oneOf`/
/// `allOf` branches) and each property's `enum` strings.
static SCHEMA_OUTLINE: Keep = {
    use Keep::{Each, Keys, Like, Str, Values};
    Keys(&[
        ("properties", Values(&SCHEMA_OUTLINE)),
        ("enum", Each(&Str)),
        ("items", Like(&SCHEMA_OUTLINE)),
        ("additionalProperties", Like(&SCHEMA_OUTLINE)),
        ("$defs", Values(&SCHEMA_OUTLINE)),
        ("definitions", Values(&SCHEMA_OUTLINE)),
        ("anyOf", Each(&SCHEMA_OUTLINE)),
        ("oneOf", Each(&SCHEMA_OUTLINE)),
        ("allOf", Each(&SCHEMA_OUTLINE)),
    ])
};

/// Most bytes of definition text whose outline parts are held at a time, over every file
/// skimmed and not yet outlined ([`Outlined`]): the parts of a definition take about as much
/// memory as its text, so a scan of many large files keeps the outline parts of their first
/// definitions only, and reads the rest again.
const OUTLINE_BUDGET: usize = 32 << 20;

/// Bytes of definition text whose outline parts are held now (see [`OUTLINE_BUDGET`]).
static OUTLINED_BYTES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The outline parts ([`OUTLINE`]) of the first definitions of a deferred snapshot, read
/// while its file was skimmed (where each definition is parsed anyway), so that the audit's
/// first reading neither splits the file nor parses them again ([`Outlined::take`], then
/// [`each_definition`] from the first one not held). In audit order, with each one's kind and
/// index in its list; taken once. A cache of what the file held: it takes no part in comparing
/// two snapshots, and a clone shares it.
#[derive(Clone, Default)]
pub struct Outlined(std::sync::Arc<std::sync::Mutex<Option<OutlinedParts>>>);

/// The parts [`Outlined`] holds, and the bytes of text they count against [`OUTLINE_BUDGET`]
/// (given back when they are dropped).
#[derive(Default)]
struct OutlinedParts {
    parts: Vec<(ItemKind, usize, Value)>,
    bytes: usize,
}

impl Drop for OutlinedParts {
    fn drop(&mut self) {
        OUTLINED_BYTES.fetch_sub(self.bytes, std::sync::atomic::Ordering::Relaxed);
    }
}

impl OutlinedParts {
    /// Count `len` more bytes against the budget; `false` (nothing counted) when they do not
    /// fit.
    fn reserve(&mut self, len: usize) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        let before = OUTLINED_BYTES.fetch_add(len, Relaxed);
        if before.saturating_add(len) > OUTLINE_BUDGET {
            OUTLINED_BYTES.fetch_sub(len, Relaxed);
            return false;
        }
        self.bytes += len;
        true
    }
}

impl Outlined {
    fn new(parts: Option<OutlinedParts>) -> Self {
        Outlined(std::sync::Arc::new(std::sync::Mutex::new(parts)))
    }

    /// The outline parts held (of the first definitions, in audit order; empty when none
    /// are), handed out once.
    pub fn take(&self) -> Vec<(ItemKind, usize, Value)> {
        let held = self.0.lock().ok().and_then(|mut h| h.take());
        held.map(|mut h| std::mem::take(&mut h.parts))
            .unwrap_or_default()
    }
}

impl PartialEq for Outlined {
    fn eq(&self, _: &Outlined) -> bool {
        true
    }
}

impl Eq for Outlined {}

impl fmt::Debug for Outlined {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let held = self
            .0
            .lock()
            .ok()
            .and_then(|h| h.as_ref().map(|h| h.parts.len()));
        write!(f, "Outlined({held:?})")
    }
}

/// One streamed pass over a file that is one JSON object: its *skeleton*, the text with each
/// element of its top-level definition lists replaced by `0` (`{"tools": [0,0], …}`), each
/// element checked as JSON on its own on the way. The skeleton is small (the definitions are
/// most of a snapshot) and is read from memory, the fast way `serde_json` reads, so telling
/// and reading a snapshot's shell costs one quick pass instead of a parse through a reader.
///
/// The text is valid JSON exactly when the skeleton is and every element is (the elements
/// are found by [`Splitter`], which tracks strings and nesting; an element that parses on its
/// own is balanced, so the splitter's view of what follows it is right), and a reading of
/// the skeleton sees the same keys and values as a reading of the text, with each list as
/// long. `None`: the file cannot be read, an element is not valid JSON, or the lists hold
/// more than `cap` elements; the caller then reads the text itself, as it did before.
///
/// Each element is parsed for its outline parts ([`OUTLINE`]; as strict a check as skipping
/// it) while they fit in [`OUTLINE_BUDGET`], and those parts kept ([`Skimmed::outlined`]);
/// past the budget, or from an element whose parts do not parse (its check falls back to
/// skipping it), the rest are only checked.
pub(super) fn skim(path: &Path, cap: usize) -> Option<Skimmed> {
    let (file, _) = fsio::open_regular(path, ReadKind::Snapshot).ok()?;
    let mut file = file.take(ReadKind::Snapshot.cap().saturating_add(1));
    let mut split = Splitter {
        skeleton: Some(Vec::new()),
        ..Splitter::default()
    };
    let mut buf = vec![0u8; BUFFER];
    let mut total = 0usize;
    let mut counts = [0usize; 4];
    let mut held = OutlinedParts::default();
    let mut holding = true;
    let ok = std::cell::Cell::new(true);
    let mut on_element = |list: usize, text: &[u8]| {
        if !ok.get() {
            return;
        }
        total += 1;
        if total > cap {
            ok.set(false);
            return;
        }
        let index = counts[list];
        counts[list] += 1;
        if holding && held.reserve(text.len()) {
            let mut de = serde_json::Deserializer::from_slice(text);
            if let Ok(v) = OUTLINE
                .deserialize(&mut de)
                .and_then(|v| de.end().map(|()| v))
            {
                held.parts.push((LISTS[list].1, index, v));
                return;
            }
        }
        holding = false;
        let mut de = serde_json::Deserializer::from_slice(text);
        ok.set(IgnoredAny::deserialize(&mut de).is_ok() && de.end().is_ok());
    };
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return None,
        };
        split.feed(&buf[..n], &mut on_element);
        if !ok.get() {
            return None;
        }
    }
    if split.in_element {
        // Text that ends inside an element: not JSON (the skeleton alone would not say so).
        return None;
    }
    Some(Skimmed {
        skeleton: split.skeleton?,
        outlined: Outlined::new(Some(held)),
    })
}

/// Read the definitions of a snapshot whose shell was read by [`shell`], in audit order,
/// handing each to `each` (its kind and index in its list) and dropping it before the next.
/// The file must still hold what it held when the shell was read.
///
/// The shell's reading has checked the whole text, so this one only finds where each
/// definition's text starts and ends ([`Splitter`]) and builds the value from that slice, the
/// fast way `serde_json` reads text in memory; whatever it finds that does not parse, or counts
/// that differ from the shell's, means the file changed.
///
/// With `keep`, each definition is read as a whole (checked as JSON) but only the parts
/// `keep` names are built ([`Keep`]): a reading that needs a few fields of each definition
/// skips building the rest.
///
/// The first `from` definitions (in audit order) are only counted, neither parsed nor handed
/// out (their outline parts were read while the file was skimmed, [`Outlined`]).
pub fn each_definition(
    deferred: &Deferred,
    keep: Option<Keep>,
    from: usize,
    each: &mut dyn FnMut(ItemKind, usize, Value),
) -> Result<(), SnapshotError> {
    let changed = |why: String| SnapshotError::Changed {
        path: deferred.path.display().to_string(),
        why,
    };
    let (file, _) = fsio::open_regular(&deferred.path, ReadKind::Snapshot)
        .map_err(|e| changed(e.to_string()))?;
    let mut file = file.take(ReadKind::Snapshot.cap().saturating_add(1));
    let mut counts = [0usize; 4];
    let mut failed: Option<String> = None;
    let mut split = Splitter::default();
    let mut buf = vec![0u8; BUFFER];
    let mut seen = 0usize;
    let mut on_element = |list: usize, text: &[u8]| {
        if failed.is_some() {
            return;
        }
        seen += 1;
        if seen <= from {
            counts[list] += 1;
            return;
        }
        let mut de = serde_json::Deserializer::from_slice(text);
        let read = match keep {
            Some(keep) => keep.deserialize(&mut de),
            // Built the plain way, not compact: each lives only while its window is audited
            // (the compact reading's spare-room trimming is a reallocation per list).
            None => Value::deserialize(&mut de),
        };
        match read.and_then(|v| de.end().map(|()| v)) {
            Ok(v) => {
                each(LISTS[list].1, counts[list], v);
                counts[list] += 1;
            }
            Err(e) => {
                failed = Some(format!(
                    "definition {} of `{}`: {e}",
                    counts[list], LISTS[list].0
                ))
            }
        }
    };
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(changed(e.to_string())),
        };
        split.feed(&buf[..n], &mut on_element);
    }
    if let Some(why) = failed {
        return Err(changed(why));
    }
    if !split.finished() {
        return Err(changed("its text ends early".into()));
    }
    if counts != deferred.counts {
        return Err(changed(format!(
            "it now holds {:?} tools, prompts, resources and templates, not {:?}",
            counts, deferred.counts
        )));
    }
    Ok(())
}

/// Which parts of a definition a reading keeps ([`each_definition`] with `Some(keep)`): the
/// value is read whole (its text checked as JSON the same way) but only the parts named here
/// are built, everything else skipped without building it. A part that is present but not of
/// the shape named is kept as `null` (so `get` still finds the key), as is a skipped array or
/// object; a repeated key keeps its last value, as the whole reading does.
#[derive(Debug, Clone, Copy)]
pub enum Keep {
    /// A string.
    Str,
    /// An object with only these keys.
    Keys(&'static [(&'static str, Keep)]),
    /// An object with every key, each value kept as said.
    Values(&'static Keep),
    /// An array, each element kept as said.
    Each(&'static Keep),
    /// Kept as the one referred to, so that a shape may hold itself (a schema's `items` is a
    /// schema).
    Like(&'static Keep),
}

impl<'de> DeserializeSeed<'de> for Keep {
    type Value = Value;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        match self {
            Keep::Like(keep) => d.deserialize_any(*keep),
            _ => d.deserialize_any(self),
        }
    }
}

impl<'de> Visitor<'de> for Keep {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(match self {
            Keep::Str => Value::String(v.to_owned()),
            _ => Value::Null,
        })
    }
    fn visit_bool<E>(self, _: bool) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let Keep::Each(each) = self else {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            return Ok(Value::Null);
        };
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(*each)? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        match self {
            Keep::Keys(keys) => {
                while let Some(k) = map.next_key_seed(KeyOf(keys))? {
                    match k {
                        Some(i) => {
                            let (name, keep) = keys[i];
                            let v = map.next_value_seed(keep)?;
                            out.insert(name.to_owned(), v);
                        }
                        None => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
            }
            Keep::Values(keep) => {
                while let Some(k) = map.next_key::<String>()? {
                    let v = map.next_value_seed(*keep)?;
                    out.insert(k, v);
                }
            }
            _ => {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                return Ok(Value::Null);
            }
        }
        Ok(Value::Object(out))
    }
}

/// A key of an object read with [`Keep::Keys`]: its index among the keys kept, if kept.
struct KeyOf(&'static [(&'static str, Keep)]);

impl<'de> DeserializeSeed<'de> for KeyOf {
    type Value = Option<usize>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Option<usize>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeyOf {
    type Value = Option<usize>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E>(self, v: &str) -> Result<Option<usize>, E> {
        Ok(self.0.iter().position(|(k, _)| *k == v))
    }
}

/// Where the first quote or backslash of `chunk` at or after `from` stands (`chunk.len()` if
/// none): the first 16 bytes read as two words of eight (a byte equal to one of the two is
/// found by the zero-byte test of each word xor the byte repeated), the rest by `memchr`.
fn string_stop(chunk: &[u8], from: usize) -> usize {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGH: u64 = u64::from_le_bytes([0x80; 8]);
    const QUOTES: u64 = u64::from_le_bytes([b'"'; 8]);
    const SLASHES: u64 = u64::from_le_bytes([b'\\'; 8]);
    // (The lowest byte this marks is the first zero byte; a borrow can only mark bytes above
    // it.)
    let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    let mut i = from;
    for _ in 0..2 {
        let Some(word) = chunk
            .get(i..i + 8)
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
        else {
            break;
        };
        let v = u64::from_le_bytes(word);
        let found = zero(v ^ QUOTES) | zero(v ^ SLASHES);
        if found != 0 {
            return i + (found.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    let rest = chunk.get(i..).unwrap_or_default();
    i + memchr::memchr2(b'"', b'\\', rest).unwrap_or(rest.len())
}

/// What a byte outside a string does below the second level ([`Splitter::skip_deep`]).
const DEEP_QUOTE: u8 = 1;
const DEEP_OPEN: u8 = 2;
const DEEP_CLOSE: u8 = 3;
const DEEP_SPACE: u8 = 4;
const EIGHT_SPACES: u64 = u64::from_le_bytes(*b"        ");
static DEEP_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b' ' as usize] = DEEP_SPACE;
    t[b'"' as usize] = DEEP_QUOTE;
    t[b'{' as usize] = DEEP_OPEN;
    t[b'[' as usize] = DEEP_OPEN;
    t[b'}' as usize] = DEEP_CLOSE;
    t[b']' as usize] = DEEP_CLOSE;
    t
};

/// Finds, in the text of one JSON object fed in pieces, where each element of its
/// definition lists starts and ends, without building anything: it tracks strings (with their
/// escapes), nesting, and the keys of the top object. Meant for text already checked to be
/// valid JSON; on other text it finds nonsense, which the caller's parsing of each element and
/// its counts catch.
#[derive(Default)]
struct Splitter {
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// At the top object's level, the next string is a key.
    expect_key: bool,
    /// A key of the top object being read (raw, escapes included).
    key: Vec<u8>,
    reading_key: bool,
    /// The list the key just read names, until its value starts.
    pending: Option<usize>,
    /// The definition list being read.
    list: Option<usize>,
    /// The text of the element being read, so far.
    element: Vec<u8>,
    in_element: bool,
    /// The top object was opened and closed.
    closed: bool,
    /// With `Some`, every byte outside the elements is copied here, each element replaced by
    /// `0` (see [`skim`]).
    skeleton: Option<Vec<u8>>,
}

impl Splitter {
    fn finished(&self) -> bool {
        self.closed && !self.in_string && self.depth == 0
    }

    fn key_list(&self) -> Option<usize> {
        if self.key.contains(&b'\\') {
            let mut quoted = Vec::with_capacity(self.key.len() + 2);
            quoted.push(b'"');
            quoted.extend_from_slice(&self.key);
            quoted.push(b'"');
            let key: String = serde_json::from_slice(&quoted).ok()?;
            list_index(&key)
        } else {
            std::str::from_utf8(&self.key).ok().and_then(list_index)
        }
    }

    fn feed(&mut self, chunk: &[u8], on_element: &mut dyn FnMut(usize, &[u8])) {
        self.feed_with::<true>(chunk, on_element);
    }

    /// [`Splitter::feed`]; with `DEEP`, text below the second level is read by
    /// [`Splitter::skip_deep`] (the same state after it, in fewer steps), without it byte by
    /// byte as first written (the property tests' oracle).
    fn feed_with<const DEEP: bool>(
        &mut self,
        chunk: &[u8],
        on_element: &mut dyn FnMut(usize, &[u8]),
    ) {
        let mut start = 0;
        // Where the skeleton's next copy starts (outside an element).
        let mut copy = 0;
        let mut i = 0;
        while i < chunk.len() {
            if DEEP && self.depth > 2 {
                i = self.skip_deep(chunk, i);
                continue;
            }
            let b = chunk[i];
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                    if self.reading_key {
                        self.reading_key = false;
                        self.pending = self.key_list();
                    }
                    i += 1;
                    continue;
                } else {
                    // Skip to the next quote or backslash.
                    let rest = &chunk[i..];
                    let skip = memchr::memchr2(b'"', b'\\', rest).unwrap_or(rest.len());
                    if self.reading_key {
                        self.key.extend_from_slice(&rest[..skip]);
                    }
                    i += skip;
                    continue;
                }
                if self.reading_key {
                    self.key.push(b);
                }
                i += 1;
                continue;
            }
            if b.is_ascii_whitespace() {
                // Indentation comes in runs.
                i += 1;
                while i < chunk.len() && chunk[i].is_ascii_whitespace() {
                    i += 1;
                }
                continue;
            }
            let in_list = self.depth == 2 && self.list.is_some();
            match b {
                b',' | b']' if in_list => {
                    if self.in_element {
                        // An element that lies whole in this piece is read from it, uncopied.
                        let text = if self.element.is_empty() {
                            &chunk[start..i]
                        } else {
                            self.element.extend_from_slice(&chunk[start..i]);
                            &self.element[..]
                        };
                        if let Some(list) = self.list {
                            on_element(list, text);
                        }
                        self.element.clear();
                        self.in_element = false;
                        copy = i;
                    }
                    if b == b']' {
                        self.list = None;
                        self.depth -= 1;
                    }
                }
                _ if in_list && !self.in_element => {
                    self.in_element = true;
                    start = i;
                    if let Some(skeleton) = &mut self.skeleton {
                        skeleton.extend_from_slice(&chunk[copy..i]);
                        skeleton.push(b'0');
                    }
                    self.step(b);
                }
                _ => self.step(b),
            }
            i += 1;
        }
        if self.in_element {
            self.element.extend_from_slice(&chunk[start..]);
        } else if let Some(skeleton) = &mut self.skeleton {
            skeleton.extend_from_slice(&chunk[copy..]);
        }
    }

    /// Read `chunk` from `i` while the text is below the second level (inside a definition, or
    /// inside an object or array that is a value of the top object's values), up to the byte
    /// after the bracket that brings it back to the second level, or to the chunk's end.
    /// There only strings and brackets change what [`Splitter::step`] and the string reading
    /// of [`Splitter::feed`] keep (a key of the top object is read at the first level, a comma
    /// or a colon counts at the first, an element ends at the second), so this reads the bytes
    /// in between in runs: indentation eight spaces at a time, a string's text by `memchr` after its
    /// first bytes, every other byte by one look-up in [`DEEP_CLASS`]. Any bytes,
    /// JSON or not: the state after it is the one the byte-by-byte reading leaves.
    fn skip_deep(&mut self, chunk: &[u8], mut i: usize) -> usize {
        let mut depth = self.depth;
        let mut in_string = self.in_string;
        let mut escaped = self.escaped;
        while i < chunk.len() {
            if in_string {
                if escaped {
                    escaped = false;
                    i += 1;
                    continue;
                }
                // (Keys and short values end within a few bytes: looked at eight at a time
                // before a `memchr` is set up.)
                i = string_stop(chunk, i);
                if let Some(&b) = chunk.get(i) {
                    if b == b'"' {
                        in_string = false;
                    } else {
                        escaped = true;
                    }
                    i += 1;
                }
                continue;
            }
            match DEEP_CLASS[usize::from(chunk[i])] {
                DEEP_SPACE => {
                    // Indentation: eight spaces at a time, then one by one.
                    i += 1;
                    while chunk
                        .get(i..i + 8)
                        .and_then(|w| <[u8; 8]>::try_from(w).ok())
                        .is_some_and(|w| u64::from_le_bytes(w) == EIGHT_SPACES)
                    {
                        i += 8;
                    }
                    while chunk.get(i) == Some(&b' ') {
                        i += 1;
                    }
                    continue;
                }
                DEEP_QUOTE => in_string = true,
                DEEP_OPEN => depth += 1,
                DEEP_CLOSE => {
                    depth -= 1;
                    if depth <= 2 {
                        i += 1;
                        break;
                    }
                }
                _ => {}
            }
            i += 1;
        }
        self.depth = depth;
        self.in_string = in_string;
        self.escaped = escaped;
        i
    }

    /// One byte outside a string, other than an element's end.
    fn step(&mut self, b: u8) {
        match b {
            b'"' => {
                self.in_string = true;
                if self.depth == 1 && self.expect_key {
                    self.reading_key = true;
                    self.key.clear();
                }
            }
            b'{' | b'[' => {
                if self.depth == 1 {
                    self.list = if b == b'[' { self.pending.take() } else { None };
                }
                self.depth += 1;
                if self.depth == 1 {
                    self.expect_key = b == b'{';
                }
            }
            b'}' | b']' => {
                self.depth = self.depth.saturating_sub(1);
                if self.depth == 0 {
                    self.closed = true;
                }
            }
            b',' if self.depth == 1 => self.expect_key = true,
            b':' if self.depth == 1 => self.expect_key = false,
            _ => {}
        }
        if self.depth == 1 && !matches!(b, b'[' | b':' | b'"') {
            self.pending = None;
        }
    }
}

impl Shell {
    fn new(cap: usize) -> Shell {
        Shell {
            cap,
            total: 0,
            counts: [0; 4],
            seen: [false; 4],
            last: None,
            others: Map::new(),
            plain: true,
            jsonrpc: false,
            result: false,
        }
    }

    /// The snapshot without its definitions, if the text read was of the plain shape.
    fn into_shell(self, path: &Path) -> Option<ServerSnapshot> {
        if !self.plain || (self.jsonrpc && self.result) || !self.seen[..3].contains(&true) {
            return None;
        }
        let mut map = self.others;
        for (i, (key, _)) in LISTS.iter().enumerate() {
            if self.seen[i] {
                map.insert((*key).to_owned(), Value::Array(Vec::new()));
            }
        }
        let snap = serde_json::from_value::<ServerSnapshot>(Value::Object(map)).ok()?;
        let mut snap = ServerSnapshot::named(snap, path);
        snap.deferred = Some(Deferred {
            path: path.to_path_buf(),
            counts: self.counts,
            outlined: Outlined::default(),
        });
        Some(snap)
    }
}

/// The first pass: counts the definitions, keeps every other key's value.
struct Shell {
    cap: usize,
    total: usize,
    counts: [usize; 4],
    seen: [bool; 4],
    /// The last definition list read (lists must come in [`LISTS`] order).
    last: Option<usize>,
    others: Map<String, Value>,
    /// Nothing seen so far sends the file to the whole-file reading.
    plain: bool,
    jsonrpc: bool,
    result: bool,
}

impl<'de> Visitor<'de> for &mut Shell {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a snapshot object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            if let Some(i) = list_index(&key) {
                if self.seen[i] || self.last.is_some_and(|l| l > i) {
                    self.plain = false;
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
                self.seen[i] = true;
                self.last = Some(i);
                let array = map.next_value_seed(Count {
                    total: &mut self.total,
                    cap: self.cap,
                    count: &mut self.counts[i],
                })?;
                self.plain &= array;
            } else if key == "result" {
                // Left to the whole-file reading with `jsonrpc`; ignored without it (as the
                // typed reading ignores it).
                self.result = true;
                map.next_value::<IgnoredAny>()?;
            } else {
                self.jsonrpc |= key == "jsonrpc";
                let value = map.next_value::<Value>()?;
                if self.others.insert(key, value).is_some() {
                    self.plain = false;
                }
            }
        }
        Ok(())
    }
}

/// Counts the elements of a definition list (`true`: it is an array), failing past the cap.
struct Count<'a> {
    total: &'a mut usize,
    cap: usize,
    count: &'a mut usize,
}

impl<'de> DeserializeSeed<'de> for Count<'_> {
    type Value = bool;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Count<'_> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {
            *self.count += 1;
            *self.total += 1;
            if *self.total > self.cap {
                return Err(A::Error::custom("too many items"));
            }
        }
        Ok(true)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(false)
    }
    fn visit_str<E>(self, _: &str) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_bool<E>(self, _: bool) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_u64<E>(self, _: u64) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_i64<E>(self, _: i64) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_f64<E>(self, _: f64) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_unit<E>(self) -> Result<bool, E> {
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    fn definitions(d: &Deferred) -> Result<Vec<(ItemKind, usize, Value)>, SnapshotError> {
        let mut out = Vec::new();
        each_definition(d, None, 0, &mut |k, i, v| out.push((k, i, v)))?;
        Ok(out)
    }

    #[test]
    fn the_shell_and_the_definitions_are_what_the_whole_file_reading_gives() {
        let dir = tempfile::tempdir().unwrap();
        for text in [
            r#"{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"z":{},"a":{}}}}]}"#,
            r#"{"server":"x","era":"modern","protocolVersion":"2026-07-28","instructions":null,"tools":[],"prompts":[{"name":"p"}],"extra":1}"#,
            r#"{"serverInfo":{"name":"n","version":"1"},"instructions":"Hi","resources":[{"uri":"file:///a"}],"resourceTemplates":[{"uriTemplate":"x://{a}"}],"probe":{"transport":"stdio","elapsedMs":3}}"#,
            r#"{"tools":[1.5e300, 0.1, -0, 12345678901234567890, "s", null, [{"b":1,"a":2,"b":3}]]} "#,
            r#"{"result":{"tools":[{"name":"x"}]},"tools":[{"name":"y"}]}"#,
        ] {
            let path = write(dir.path(), "s.json", text);
            let whole = ServerSnapshot::load(&path).unwrap();
            let shell = shell(&path).unwrap().expect("plain shape");
            let d = shell.deferred.clone().unwrap();
            let defs = definitions(&d).unwrap();
            let mut rebuilt = shell.clone();
            rebuilt.deferred = None;
            for (kind, i, v) in defs {
                let list = match kind {
                    ItemKind::Tool => &mut rebuilt.tools,
                    ItemKind::Prompt => &mut rebuilt.prompts,
                    ItemKind::Resource => &mut rebuilt.resources,
                    _ => &mut rebuilt.resource_templates,
                };
                assert_eq!(list.len(), i);
                list.push(v);
            }
            assert_eq!(rebuilt, whole, "{text}");
            assert_eq!(
                serde_json::to_string(&rebuilt).unwrap(),
                serde_json::to_string(&whole).unwrap()
            );
            assert_eq!(shell.counts(), whole.counts(), "{text}");
        }
    }

    #[test]
    fn the_skeleton_gives_the_shell_and_the_shape_the_whole_text_gives() {
        let dir = tempfile::tempdir().unwrap();
        let texts = [
            r#"{"tools":[{"name":"a","inputSchema":{"type":"object"}}, {"name":"b"} ]}"#,
            r#" { "server" : "x", "tool\u0073" : [ {"a":"],\"[{"}, -1.5e3 ,null,[ ]], "prompts":[], "resources":[{"uri":"u"}], "resourceTemplates":[ {"k":"\u005d"} ], "x": {"tools":[1]} } "#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"r"}]}}"#,
            r#"{"tools":[{"name":"a"}],"tools":[{"name":"b"}]}"#,
            r#"{"prompts":[],"tools":[]}"#,
            r#"{"tools":{}}"#,
            r#"{"tools":[],"instructions":3}"#,
            r#"{"tools":[1,]}"#,
            r#"{"tools":[,1]}"#,
            r#"{"tools":[1 2]}"#,
            r#"{"tools":[{"a":1}}]}"#,
            r#"{"tools":[{"a":1}]"#,
            r#"{"tools":[{"a":1}"#,
            r#"{"tools":[{"a":"#,
            r#"{"tools":[{"a":1}]} x"#,
            r#"{"tools":[{"a":1}]}{"tools":[]}"#,
            "{\"tools\":[\"\u{1}\"]}",
            "{\"tools\":[\u{c}1]}",
            "{\"tools\" [1]}",
            "[{\"tools\":[1]}]",
            "\u{feff}{\"tools\": []}",
            "tools: []",
            "",
        ];
        for (i, text) in texts.into_iter().enumerate() {
            // One file each: a skeleton kept from telling one is never taken for another.
            let path = write(dir.path(), &format!("s{i}.json"), text);
            let slow = shell_through_reader(&path, fsio::max_items()).map_err(|e| e.to_string());
            let fast = shell(&path).map_err(|e| e.to_string());
            assert_eq!(
                fast.as_ref()
                    .map(|s| s.as_ref().map(|s| (s, s.deferred.clone()))),
                slow.as_ref()
                    .map(|s| s.as_ref().map(|s| (s, s.deferred.clone()))),
                "{text}"
            );
            assert_eq!(
                crate::model::snapshot::items::file_looks_like_snapshot(&path),
                crate::model::snapshot::items::looks_like_snapshot(text),
                "{text}"
            );
        }
        // Invalid text inside a definition is left to the slow reading.
        let path = write(dir.path(), "s.json", r#"{"tools":[{"a":tru}]}"#);
        assert!(skim(&path, 10).is_none());
        // So is a file over the item cap (the slow reading names the cap).
        let path = write(dir.path(), "s.json", r#"{"tools":[1,2,3,4]}"#);
        assert!(skim(&path, 3).is_none());
        assert!(shell_through_reader(&path, 3).is_err());
        let skimmed = skim(&path, 4).unwrap();
        assert_eq!(
            String::from_utf8(skimmed.skeleton).unwrap(),
            r#"{"tools":[0,0,0,0]}"#
        );
    }

    #[test]
    fn a_skeleton_kept_from_telling_is_used_only_while_the_file_is_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            "told.json",
            r#"{"server":"a","tools":[{"name":"x"}]}"#,
        );
        assert!(crate::model::snapshot::items::file_looks_like_snapshot(
            &path
        ));
        // The kept skeleton is what a new skim gives, and it is taken once.
        assert_eq!(
            recall(&path).map(|s| s.skeleton),
            skim(&path, 10).map(|s| s.skeleton)
        );
        assert!(recall(&path).is_none());
        // A file changed after it was told is read again, not from the kept skeleton.
        assert!(crate::model::snapshot::items::file_looks_like_snapshot(
            &path
        ));
        write(
            dir.path(),
            "told.json",
            r#"{"server":"bb","tools":[{"name":"x"},{"name":"y"}]}"#,
        );
        let snap = ServerSnapshot::load_deferred(&path).unwrap();
        assert_eq!(snap.server, "bb");
        assert_eq!(snap.counts(), (2, 0, 0));
        assert!(recall(&path).is_none());
    }

    #[test]
    fn the_outline_parts_kept_from_skimming_are_what_reading_them_gives() {
        let dir = tempfile::tempdir().unwrap();
        let text = r#"{"server":"s","tools":[{"name":"a","description":"d","x":[1,{"y":2}],
            "inputSchema":{"properties":{"p":{"enum":["A",2]}}}},{"name":"b"},"t",[1]],
            "prompts":[{"name":"p","arguments":[{"name":"q","description":"e"}]}],
            "resources":[{"uri":"u:1","name":"r"}],"resourceTemplates":[{"uriTemplate":"t://{x}"}]}"#;
        let path = write(dir.path(), "o.json", text);
        let read = |from: usize| {
            let snap = ServerSnapshot::load_deferred(&path).unwrap();
            let d = snap.deferred.unwrap();
            let mut out = Vec::new();
            each_definition(&d, Some(OUTLINE), from, &mut |k, i, v| out.push((k, i, v))).unwrap();
            (d.outlined.take(), out)
        };
        let (held, all) = read(0);
        assert_eq!(held.len(), 7);
        assert_eq!(held, all);
        // From any definition on, the rest are what a reading from the first gives.
        for from in 0..=all.len() {
            assert_eq!(read(from).1, all[from..].to_vec(), "{from}");
        }
        // Taken once.
        let snap = ServerSnapshot::load_deferred(&path).unwrap();
        let d = snap.deferred.unwrap();
        assert_eq!(d.outlined.take().len(), 7);
        assert!(d.outlined.take().is_empty());
        // A definition whose parts do not parse (here: nested deeper than the parser goes)
        // but that is valid JSON is only checked, and so is every one after it.
        let deep = format!(
            r#"{{"tools":[{{"name":"a"}},{{"inputSchema":{}1{}}},{{"name":"c"}}]}}"#,
            r#"{"items":"#.repeat(200),
            "}".repeat(200)
        );
        let path = write(dir.path(), "deep.json", &deep);
        let skimmed = skim(&path, 10).expect("valid JSON");
        assert_eq!(skimmed.outlined.take().len(), 1);
    }

    /// Pieces of text for `the_deep_runs_read_as_byte_by_byte`: brackets, quotes, escapes,
    /// separators, indentation, keys of the definition lists, long and short strings.
    const PIECES: &[&[u8]] = &[
        b"{",
        b"}",
        b"[",
        b"]",
        b"\"",
        b"\\",
        b"\\\"",
        b",",
        b":",
        b" ",
        b"        ",
        b"\n",
        b"\t",
        b"a",
        b"0",
        b"\"tools\":[",
        b"\"prompts\": [",
        b"{\"tools\":[{\"a\":[",
        b"\"name\": \"x\\\"y\"",
        b"\"a string value longer than sixteen bytes, with ] and { in it\"",
    ];

    proptest::proptest! {
        /// The word-at-a-time search for a string's end finds the first quote or backslash.
        #[test]
        fn the_string_stop_is_the_first_quote_or_backslash(
            bytes in proptest::collection::vec(
                proptest::sample::select(&[b'a', b'"', b'\\', 0, 0x80, 0xff, 0x21, 0x23, 0x5b, 0x5d, 0x01][..]),
                0..40,
            ),
            from in 0usize..40,
        ) {
            let from = from.min(bytes.len());
            let want = bytes[from..]
                .iter()
                .position(|b| *b == b'"' || *b == b'\\')
                .map_or(bytes.len(), |k| from + k);
            proptest::prop_assert_eq!(string_stop(&bytes, from), want);
        }

        /// Text below the second level read in runs ([`Splitter::skip_deep`]) gives what the
        /// byte-by-byte reading gives: the same elements, skeleton and state after each piece,
        /// for any text (JSON or not) cut anywhere.
        #[test]
        fn the_deep_runs_read_as_byte_by_byte(
            parts in proptest::collection::vec(proptest::sample::select(PIECES), 0..160),
            size in 1usize..48,
        ) {
            let text: Vec<u8> = parts.concat();
            let run = |deep: bool| {
                let mut split = Splitter {
                    skeleton: Some(Vec::new()),
                    ..Splitter::default()
                };
                let mut got = Vec::new();
                let mut states = Vec::new();
                for piece in text.chunks(size) {
                    let mut each = |l: usize, t: &[u8]| got.push((l, t.to_vec()));
                    if deep {
                        split.feed_with::<true>(piece, &mut each);
                    } else {
                        split.feed_with::<false>(piece, &mut each);
                    }
                    states.push((
                        split.depth,
                        split.in_string,
                        split.escaped,
                        split.expect_key,
                        split.key.clone(),
                        split.reading_key,
                        split.pending,
                        split.list,
                        split.element.clone(),
                        split.in_element,
                        split.closed,
                    ));
                }
                (got, states, split.skeleton)
            };
            proptest::prop_assert_eq!(run(true), run(false));
        }
    }

    #[test]
    fn the_splitter_finds_every_element_whatever_the_pieces() {
        let text = r#" { "x" : {"tools": [1]}, "tool\u0073" : [ {"a":"],\"[{","b":[[],{}]}, "s\\" , -1.5e3,null ,[ ]],
            "prompts":[],"resources":[{"uri":"u"}], "resourceTemplates" : [ {"k":"\u005d"} ] } "#;
        let whole: Value = serde_json::from_str(text).unwrap();
        let want: Vec<(usize, Value)> = LISTS
            .iter()
            .enumerate()
            .flat_map(|(i, (k, _))| {
                whole[*k]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(move |v| (i, v.clone()))
            })
            .collect();
        assert_eq!(want.len(), 7);
        for size in [1, 2, 3, 7, 64, text.len()] {
            let mut split = Splitter::default();
            let mut got = Vec::new();
            for piece in text.as_bytes().chunks(size) {
                split.feed(piece, &mut |list, t| {
                    got.push((list, serde_json::from_slice::<Value>(t).unwrap()));
                });
            }
            assert!(split.finished(), "{size}");
            assert_eq!(got, want, "pieces of {size}");
        }
        let mut split = Splitter::default();
        split.feed(br#"{"tools":[{"a":1}"#, &mut |_, _| {});
        assert!(!split.finished());
    }

    #[test]
    fn other_shapes_are_left_to_the_whole_file_reading() {
        let dir = tempfile::tempdir().unwrap();
        for text in [
            r#"{"tools":[{"name":"a"}],"tools":[{"name":"b"}]}"#,
            r#"{"prompts":[],"tools":[]}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"r"}]}}"#,
            r#"{"tools":{}}"#,
            r#"{"tools":[],"instructions":3}"#,
            r#"{"tools":[],"era":"future"}"#,
            r#"{"tools":[],"x":1,"x":2}"#,
            r#"{"resourceTemplates":[]}"#,
            "{\"tools\": [,]}",
            "{\"tools\": []} x",
            "[]",
            "\u{feff}{\"tools\": []}",
        ] {
            let path = write(dir.path(), "s.json", text);
            assert!(shell(&path).unwrap().is_none(), "{text}");
            // And the public reading gives what the whole-file reading gives.
            assert_eq!(
                ServerSnapshot::load_deferred(&path).map_err(|e| e.to_string()),
                ServerSnapshot::load(&path).map_err(|e| e.to_string()),
                "{text}"
            );
        }
    }

    #[test]
    fn a_file_changed_between_the_passes_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            "moving.json",
            r#"{"tools":[{"name":"a"},{"name":"b"}]}"#,
        );
        let snap = ServerSnapshot::load_deferred(&path).unwrap();
        let d = snap.deferred.clone().unwrap();
        assert_eq!(definitions(&d).unwrap().len(), 2);
        write(dir.path(), "moving.json", r#"{"tools":[{"name":"a"}]}"#);
        let e = definitions(&d).unwrap_err().to_string();
        assert!(e.contains("moving.json") && e.contains("changed"), "{e}");
        write(dir.path(), "moving.json", r#"{"tools":[{"name":"a"},"#);
        let e = definitions(&d).unwrap_err().to_string();
        assert!(e.contains("moving.json") && e.contains("changed"), "{e}");
        std::fs::remove_file(&path).unwrap();
        let e = definitions(&d).unwrap_err().to_string();
        assert!(e.contains("moving.json"), "{e}");
    }

    #[test]
    fn the_item_cap_is_kept_without_reading_the_whole_file() {
        let dir = tempfile::tempdir().unwrap();
        let cap = crate::model::fsio::DEFAULT_MAX_ITEMS;
        let list = |n: usize| format!("[{}]", vec!["{\"name\":\"t\"}"; n].join(","));
        let over = write(
            dir.path(),
            "big.json",
            &format!("{{\"tools\": {}, \"prompts\": {}}}", list(cap), list(1)),
        );
        let e = ServerSnapshot::load_deferred(&over)
            .unwrap_err()
            .to_string();
        assert!(e.contains("big.json") && e.contains("--max-items"), "{e}");
    }
}
