//! A small position-carrying document tree shared by the JSONC, TOML and YAML readers.
//!
//! Every node and every object key remembers its 1-based line and column, so host-format
//! parsers can give each `ServerSpec` field the exact position it came from.

use std::path::Path;

use crate::model::spec::Origin;

/// A 1-based line and column in a source text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Pos {
    pub line: u32,
    pub column: u32,
}

impl Pos {
    /// The position of a byte offset in `text` (column counted in characters).
    pub fn of_offset(text: &str, offset: usize) -> Pos {
        let offset = offset.min(text.len());
        let before = text.get(..offset).unwrap_or(text);
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = before.get(line_start..).map_or(0, |s| s.chars().count()) + 1;
        Pos {
            line: u32::try_from(line).unwrap_or(u32::MAX),
            column: u32::try_from(column).unwrap_or(u32::MAX),
        }
    }

    /// This position as an `Origin` in `file`.
    pub fn origin(self, file: &Path) -> Origin {
        Origin {
            file: file.to_path_buf(),
            line: self.line,
            column: self.column,
        }
    }
}

/// A key written twice in one object of a JSON document. The tree keeps the last value (as
/// `JSON.parse` does); this records both places so the duplicate can be reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duplicate {
    /// JSON Pointer of the key from the document root (e.g. `/mcpServers/docs/args`).
    pub pointer: String,
    /// Where the key is first written (the value the host ignores).
    pub first: Pos,
    /// Where it is last written (the value the host uses).
    pub last: Pos,
    /// Positions of every enclosing key, object value and array item, outermost first.
    pub enclosing: Vec<Pos>,
    /// Where the value that is used starts and ends.
    pub value_start: Pos,
    pub value_end: Pos,
}

impl Duplicate {
    /// Does this duplicate change the entry that starts at `origin` (its name key, or its
    /// array item)? True when the key is inside the entry, is the entry's own name, or holds
    /// the entry (a second `mcpServers`).
    pub fn concerns(&self, origin: Pos) -> bool {
        origin == self.last
            || self.enclosing.contains(&origin)
            || (self.value_start <= origin && origin < self.value_end)
    }
}

/// A value in a parsed document.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    /// Numbers (and TOML dates) keep their source text.
    Num(String),
    Str(String),
    Arr(Vec<Node>),
    Obj(Vec<Member>),
}

/// A value with the position where it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub value: Value,
    pub pos: Pos,
}

/// One key of an object with the key's own position.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    pub key: String,
    pub key_pos: Pos,
    pub value: Node,
}

impl Node {
    pub fn new(value: Value, pos: Pos) -> Node {
        Node { value, pos }
    }

    /// The member `key` of an object (the last one, as JSON parsers do for duplicates).
    pub fn member(&self, key: &str) -> Option<&Member> {
        match &self.value {
            Value::Obj(members) => members.iter().rev().find(|m| m.key == key),
            _ => None,
        }
    }

    /// The value of member `key`.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.member(key).map(|m| &m.value)
    }

    /// The value at a dotted path of keys.
    pub fn path(&self, keys: &[&str]) -> Option<&Node> {
        keys.iter().try_fold(self, |node, key| node.get(key))
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match &self.value {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn members(&self) -> Option<&[Member]> {
        match &self.value {
            Value::Obj(m) => Some(m),
            _ => None,
        }
    }

    pub fn items(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Arr(a) => Some(a),
            _ => None,
        }
    }

    /// Scalars as text (strings, numbers, booleans); `None` for null, arrays and objects.
    pub fn scalar_text(&self) -> Option<String> {
        match &self.value {
            Value::Str(s) | Value::Num(s) => Some(s.clone()),
            Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }

    /// A plain JSON copy (positions dropped), for host settings kept as found.
    pub fn to_json(&self) -> serde_json::Value {
        match &self.value {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(*b),
            Value::Num(n) => {
                serde_json::from_str(n).unwrap_or_else(|_| serde_json::Value::String(n.clone()))
            }
            Value::Str(s) => serde_json::Value::String(s.clone()),
            Value::Arr(a) => serde_json::Value::Array(a.iter().map(Node::to_json).collect()),
            Value::Obj(m) => serde_json::Value::Object(
                m.iter()
                    .map(|m| (m.key.clone(), m.value.to_json()))
                    .collect(),
            ),
        }
    }

    /// A short name for the node's type, for error messages.
    pub fn kind(&self) -> &'static str {
        match &self.value {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Num(_) => "a number",
            Value::Str(_) => "a string",
            Value::Arr(_) => "an array",
            Value::Obj(_) => "an object",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_become_line_and_column() {
        let text = "ab\ncdé\nf";
        assert_eq!(Pos::of_offset(text, 0), Pos { line: 1, column: 1 });
        assert_eq!(Pos::of_offset(text, 3), Pos { line: 2, column: 1 });
        assert_eq!(Pos::of_offset(text, 8), Pos { line: 3, column: 1 });
        assert_eq!(Pos::of_offset(text, 7), Pos { line: 2, column: 4 });
    }
}
