//! A position-tracking JSONC reader: JSON plus `//` and `/* */` comments and trailing commas,
//! as VS Code, Zed, Claude and most hosts accept. Every node keeps its line and column.
//!
//! Depth is bounded so hostile files cannot exhaust the stack.
//!
//! A key written twice in one object is read as `JSON.parse` and VS Code's JSONC parser read
//! it: the last value wins (keeping the first key's place in the order). Every such key is
//! recorded as a [`Duplicate`] so the caller can report it: a reviewer reading the first `args`
//! must not approve what the host never runs.

use std::collections::HashMap;

use super::tree::{Duplicate, Member, Node, Pos, Value};

/// Deepest nesting accepted.
const MAX_DEPTH: usize = 128;

/// Duplicate keys recorded per document (all are resolved; only these many are reported).
const MAX_DUPLICATES: usize = 1000;

/// A syntax error at a 1-based position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub pos: Pos,
    pub message: String,
}

/// Parse a JSONC document (duplicate keys resolved, last wins).
pub fn parse(text: &str) -> Result<Node, SyntaxError> {
    parse_with_duplicates(text).map(|(node, _)| node)
}

/// Parse a JSONC document and list every key written twice in one object (the last value is
/// the one kept in the tree, as `JSON.parse` keeps it).
pub fn parse_with_duplicates(text: &str) -> Result<(Node, Vec<Duplicate>), SyntaxError> {
    let mut p = Parser {
        chars: text.trim_start_matches('\u{feff}').chars().collect(),
        i: 0,
        line: 1,
        column: 1,
        path: Vec::new(),
        enclosing: Vec::new(),
        duplicates: Vec::new(),
    };
    p.skip_trivia()?;
    let node = p.value(0)?;
    p.skip_trivia()?;
    if p.i < p.chars.len() {
        return Err(p.error("unexpected text after the end of the document"));
    }
    Ok((node, p.duplicates))
}

struct Parser {
    chars: Vec<char>,
    i: usize,
    line: u32,
    column: u32,
    /// The keys and indices from the root to the value being read (JSON Pointer tokens).
    path: Vec<String>,
    /// Positions of the enclosing keys and values, outermost first.
    enclosing: Vec<Pos>,
    duplicates: Vec<Duplicate>,
}

impl Parser {
    fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            column: self.column,
        }
    }

    fn error(&self, message: &str) -> SyntaxError {
        SyntaxError {
            pos: self.pos(),
            message: message.to_string(),
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.i).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.i += 1;
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    fn skip_trivia(&mut self) -> Result<(), SyntaxError> {
        loop {
            match self.peek() {
                Some(c) if c.is_whitespace() => {
                    self.bump();
                }
                Some('/') => match self.chars.get(self.i + 1) {
                    Some('/') => {
                        while let Some(c) = self.peek() {
                            if c == '\n' {
                                break;
                            }
                            self.bump();
                        }
                    }
                    Some('*') => {
                        let start = self.pos();
                        self.bump();
                        self.bump();
                        loop {
                            match self.bump() {
                                None => {
                                    return Err(SyntaxError {
                                        pos: start,
                                        message: "unterminated block comment".into(),
                                    });
                                }
                                Some('*') if self.peek() == Some('/') => {
                                    self.bump();
                                    break;
                                }
                                Some(_) => {}
                            }
                        }
                    }
                    _ => return Err(self.error("unexpected `/`")),
                },
                _ => return Ok(()),
            }
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node, SyntaxError> {
        if depth > MAX_DEPTH {
            return Err(self.error("document is nested too deeply"));
        }
        let pos = self.pos();
        match self.peek() {
            None => Err(self.error("unexpected end of file, expected a value")),
            Some('{') => self.object(depth),
            Some('[') => self.array(depth),
            Some('"') => Ok(Node::new(Value::Str(self.string()?), pos)),
            Some(c) if c == '-' || c.is_ascii_digit() => self.number(),
            Some(c) if c.is_ascii_alphabetic() => {
                let mut word = String::new();
                while let Some(c) = self.peek().filter(char::is_ascii_alphanumeric) {
                    word.push(c);
                    self.bump();
                }
                let value = match word.as_str() {
                    "true" => Value::Bool(true),
                    "false" => Value::Bool(false),
                    "null" => Value::Null,
                    _ => {
                        return Err(SyntaxError {
                            pos,
                            message: format!("unexpected word `{word}`, expected a value"),
                        });
                    }
                };
                Ok(Node::new(value, pos))
            }
            Some(c) => Err(self.error(&format!("unexpected `{c}`, expected a value"))),
        }
    }

    fn object(&mut self, depth: usize) -> Result<Node, SyntaxError> {
        let pos = self.pos();
        self.bump();
        let mut members: Vec<Member> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        loop {
            self.skip_trivia()?;
            match self.peek() {
                Some('}') => {
                    self.bump();
                    return Ok(Node::new(Value::Obj(members), pos));
                }
                Some('"') => {}
                None => {
                    return Err(SyntaxError {
                        pos,
                        message: "unterminated object (missing `}`)".into(),
                    });
                }
                Some(c) => return Err(self.error(&format!("expected a quoted key, found `{c}`"))),
            }
            let key_pos = self.pos();
            let key = self.string()?;
            self.skip_trivia()?;
            if self.peek() != Some(':') {
                return Err(self.error(&format!("expected `:` after key \"{key}\"")));
            }
            self.bump();
            self.skip_trivia()?;
            let value_pos = self.pos();
            self.path
                .push(crate::model::pointer::token(&key).into_owned());
            self.enclosing.push(key_pos);
            self.enclosing.push(value_pos);
            let value = self.value(depth + 1);
            self.enclosing
                .truncate(self.enclosing.len().saturating_sub(2));
            self.path.pop();
            let value = value?;
            let member = Member {
                key,
                key_pos,
                value,
            };
            match index.get(&member.key).and_then(|&i| members.get_mut(i)) {
                Some(earlier) => {
                    if self.duplicates.len() < MAX_DUPLICATES {
                        self.duplicates.push(Duplicate {
                            pointer: self
                                .path
                                .iter()
                                .chain(std::iter::once(
                                    &crate::model::pointer::token(&member.key).into_owned(),
                                ))
                                .fold(String::new(), |acc, t| acc + "/" + t),
                            first: earlier.key_pos,
                            last: member.key_pos,
                            enclosing: self.enclosing.clone(),
                            value_start: member.value.pos,
                            value_end: self.pos(),
                        });
                    }
                    // JSON.parse: the key keeps its first place, the value is the last one.
                    earlier.key_pos = member.key_pos;
                    earlier.value = member.value;
                }
                None => {
                    index.insert(member.key.clone(), members.len());
                    members.push(member);
                }
            }
            self.skip_trivia()?;
            match self.peek() {
                Some(',') => {
                    self.bump();
                }
                Some('}') => {}
                None => {
                    return Err(SyntaxError {
                        pos,
                        message: "unterminated object (missing `}`)".into(),
                    });
                }
                Some(c) => {
                    return Err(self.error(&format!("expected `,` or `}}`, found `{c}`")));
                }
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Node, SyntaxError> {
        let pos = self.pos();
        self.bump();
        let mut items = Vec::new();
        loop {
            self.skip_trivia()?;
            match self.peek() {
                Some(']') => {
                    self.bump();
                    return Ok(Node::new(Value::Arr(items), pos));
                }
                None => {
                    return Err(SyntaxError {
                        pos,
                        message: "unterminated array (missing `]`)".into(),
                    });
                }
                _ => {}
            }
            let item_pos = self.pos();
            self.path.push(items.len().to_string());
            self.enclosing.push(item_pos);
            let item = self.value(depth + 1);
            self.enclosing.pop();
            self.path.pop();
            items.push(item?);
            self.skip_trivia()?;
            match self.peek() {
                Some(',') => {
                    self.bump();
                }
                Some(']') => {}
                None => {
                    return Err(SyntaxError {
                        pos,
                        message: "unterminated array (missing `]`)".into(),
                    });
                }
                Some(c) => {
                    return Err(self.error(&format!("expected `,` or `]`, found `{c}`")));
                }
            }
        }
    }

    fn number(&mut self) -> Result<Node, SyntaxError> {
        let pos = self.pos();
        let mut text = String::new();
        while let Some(c) = self
            .peek()
            .filter(|c| c.is_ascii_digit() || matches!(c, '-' | '+' | '.' | 'e' | 'E'))
        {
            text.push(c);
            self.bump();
        }
        if text.parse::<f64>().is_err() {
            return Err(SyntaxError {
                pos,
                message: format!("invalid number `{text}`"),
            });
        }
        Ok(Node::new(Value::Num(text), pos))
    }

    fn string(&mut self) -> Result<String, SyntaxError> {
        let start = self.pos();
        self.bump();
        let mut out = String::new();
        loop {
            let Some(c) = self.bump() else {
                return Err(SyntaxError {
                    pos: start,
                    message: "unterminated string".into(),
                });
            };
            match c {
                '"' => return Ok(out),
                '\n' => {
                    return Err(SyntaxError {
                        pos: start,
                        message: "unterminated string (line break inside)".into(),
                    });
                }
                '\\' => {
                    let esc = self
                        .bump()
                        .ok_or_else(|| self.error("unterminated escape"))?;
                    match esc {
                        '"' => out.push('"'),
                        '\\' => out.push('\\'),
                        '/' => out.push('/'),
                        'b' => out.push('\u{8}'),
                        'f' => out.push('\u{c}'),
                        'n' => out.push('\n'),
                        'r' => out.push('\r'),
                        't' => out.push('\t'),
                        'u' => {
                            let hi = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&hi)
                                && self.peek() == Some('\\')
                                && self.chars.get(self.i + 1) == Some(&'u')
                            {
                                self.bump();
                                self.bump();
                                let lo = self.hex4()?;
                                0x10000 + ((hi - 0xD800) << 10) + (lo.wrapping_sub(0xDC00) & 0x3FF)
                            } else {
                                hi
                            };
                            out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                        }
                        other => {
                            return Err(self.error(&format!("invalid escape `\\{other}`")));
                        }
                    }
                }
                c => out.push(c),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, SyntaxError> {
        let mut v = 0u32;
        for _ in 0..4 {
            let c = self
                .bump()
                .ok_or_else(|| self.error("unterminated \\u escape"))?;
            let d = c
                .to_digit(16)
                .ok_or_else(|| self.error("invalid \\u escape"))?;
            v = v * 16 + d;
        }
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_trailing_commas_are_accepted() {
        let text =
            "// top\n{\n  /* block */ \"a\": [1, 2,],\n  \"b\": {\"c\": \"x\\u00e9\",},\n}\n";
        let node = parse(text).expect("parses");
        let a = node.member("a").expect("a");
        assert_eq!(
            a.key_pos,
            Pos {
                line: 3,
                column: 15
            }
        );
        assert_eq!(
            node.get("a").and_then(Node::items).map(<[Node]>::len),
            Some(2)
        );
        assert_eq!(node.path(&["b", "c"]).and_then(Node::as_str), Some("xé"));
    }

    #[test]
    fn errors_point_at_the_problem() {
        let err = parse("{\n  \"a\": 1\n  \"b\": 2\n}").expect_err("missing comma");
        assert_eq!(err.pos, Pos { line: 3, column: 3 });
        assert!(err.message.contains("expected `,`"), "{}", err.message);
        let err = parse("{\"a\": tru}").expect_err("bad word");
        assert_eq!(err.pos, Pos { line: 1, column: 7 });
    }

    #[test]
    fn deep_nesting_is_refused() {
        let text = "[".repeat(1000);
        assert!(
            parse(&text)
                .expect_err("too deep")
                .message
                .contains("nested")
        );
    }

    use proptest::prelude::*;

    fn json_value() -> impl Strategy<Value = serde_json::Value> {
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::Bool),
            any::<i64>().prop_map(serde_json::Value::from),
            ".{0,12}".prop_map(serde_json::Value::String),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::Array),
                prop::collection::vec(("[a-z\\/\"é]{0,6}", inner), 0..6)
                    .prop_map(|kv| { serde_json::Value::Object(kv.into_iter().collect()) }),
            ]
        })
    }

    proptest! {
        #[test]
        fn agrees_with_serde_json_on_valid_json(v in json_value(), pretty in any::<bool>()) {
            let text = if pretty {
                serde_json::to_string_pretty(&v).unwrap_or_default()
            } else {
                serde_json::to_string(&v).unwrap_or_default()
            };
            let node = parse(&text).map_err(|e| TestCaseError::fail(format!("{e:?} in {text}")))?;
            prop_assert_eq!(node.to_json(), v);
        }

        #[test]
        fn never_panics_on_arbitrary_text(text in ".{0,200}") {
            let _ = parse(&text);
        }
    }
}
