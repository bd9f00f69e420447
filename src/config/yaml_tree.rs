//! YAML → the position-carrying tree, built from `yaml-rust2`'s marked event stream.
//!
//! Only the first document is read. Aliases resolve to null (host configs do not use them)
//! and nesting depth is bounded.
//!
//! A key written twice in one mapping is an error naming both lines: Continue reads its YAML
//! with the `yaml` package, whose default (`uniqueKeys`) refuses such a file, and YAML 1.2
//! requires unique keys. (`yaml-rust2`'s own loader would silently keep the last value.)

use yaml_rust2::parser::{Event, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

use super::jsonc::SyntaxError;
use super::tree::{Member, Node, Pos, Value};

const MAX_DEPTH: usize = 128;

/// Parse the first YAML document of `text`.
pub fn parse(text: &str) -> Result<Node, SyntaxError> {
    let mut parser = Parser::new_from_str(text);
    let mut next = || -> Result<(Event, Marker), SyntaxError> {
        parser.next_token().map_err(|e| SyntaxError {
            pos: pos(e.marker()),
            message: e.info().to_string(),
        })
    };
    loop {
        let (ev, mark) = next()?;
        match ev {
            Event::StreamStart | Event::DocumentStart | Event::Nothing => continue,
            Event::StreamEnd | Event::DocumentEnd => {
                return Ok(Node::new(Value::Null, pos(&mark)));
            }
            other => return build(other, mark, &mut next, 0),
        }
    }
}

fn pos(mark: &Marker) -> Pos {
    Pos {
        line: u32::try_from(mark.line()).unwrap_or(u32::MAX),
        column: u32::try_from(mark.col() + 1).unwrap_or(u32::MAX),
    }
}

fn scalar(text: String, style: TScalarStyle) -> Value {
    if style != TScalarStyle::Plain {
        return Value::Str(text);
    }
    match text.as_str() {
        "" | "~" | "null" | "Null" | "NULL" => Value::Null,
        "true" | "True" | "TRUE" => Value::Bool(true),
        "false" | "False" | "FALSE" => Value::Bool(false),
        t if t.parse::<f64>().is_ok() && !t.starts_with('+') => Value::Num(text),
        _ => Value::Str(text),
    }
}

fn build(
    ev: Event,
    mark: Marker,
    next: &mut dyn FnMut() -> Result<(Event, Marker), SyntaxError>,
    depth: usize,
) -> Result<Node, SyntaxError> {
    if depth > MAX_DEPTH {
        return Err(SyntaxError {
            pos: pos(&mark),
            message: "document is nested too deeply".into(),
        });
    }
    match ev {
        Event::Scalar(text, style, _, _) => Ok(Node::new(scalar(text, style), pos(&mark))),
        Event::SequenceStart(..) => {
            let mut items = Vec::new();
            loop {
                let (ev, m) = next()?;
                if matches!(ev, Event::SequenceEnd) {
                    return Ok(Node::new(Value::Arr(items), pos(&mark)));
                }
                items.push(build(ev, m, next, depth + 1)?);
            }
        }
        Event::MappingStart(..) => {
            let mut members = Vec::new();
            let mut seen = std::collections::HashMap::new();
            loop {
                let (ev, m) = next()?;
                if matches!(ev, Event::MappingEnd) {
                    // The parser marks a block mapping after its first key; start at the key.
                    let start = members
                        .first()
                        .map_or(pos(&mark), |m: &Member| m.key_pos.min(pos(&mark)));
                    return Ok(Node::new(Value::Obj(members), start));
                }
                let key_node = build(ev, m, next, depth + 1)?;
                let key = key_node.scalar_text().unwrap_or_default();
                if let Some(first) = seen.get(&key) {
                    return Err(SyntaxError {
                        pos: key_node.pos,
                        message: format!(
                            "duplicate key `{}` (first written at line {}); YAML requires unique keys and Continue refuses this file, so remove one of them",
                            crate::model::escape::visible(&key, true),
                            first
                        ),
                    });
                }
                seen.insert(key.clone(), key_node.pos.line);
                let (ev, m) = next()?;
                let value = build(ev, m, next, depth + 1)?;
                members.push(Member {
                    key,
                    key_pos: key_node.pos,
                    value,
                });
            }
        }
        Event::Alias(_) => Ok(Node::new(Value::Null, pos(&mark))),
        _ => Err(SyntaxError {
            pos: pos(&mark),
            message: "unexpected YAML structure".into(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_entries_keep_positions() {
        let text = "name: x\nmcpServers:\n  - name: docs\n    command: npx\n    args:\n      - -y\n      - \"pkg@1.0.0\"\n";
        let node = parse(text).expect("parses");
        let list = node.get("mcpServers").and_then(Node::items).expect("list");
        let entry = &list[0];
        assert_eq!(
            entry.member("name").expect("name").key_pos,
            Pos { line: 3, column: 5 }
        );
        let args = entry.get("args").and_then(Node::items).expect("args");
        assert_eq!(args[1].pos, Pos { line: 7, column: 9 });
        assert_eq!(args[1].as_str(), Some("pkg@1.0.0"));
    }

    #[test]
    fn bad_yaml_is_an_error_with_a_line() {
        let err = parse("a: [1, 2\nb: c\n").expect_err("bad");
        assert!(err.pos.line >= 1);
    }
}
