//! TOML → the position-carrying tree, using the `toml` crate's spanned parser.

use toml::de::{DeTable, DeValue};

use super::jsonc::SyntaxError;
use super::tree::{Member, Node, Pos, Value};

/// Parse a TOML document into a tree whose nodes carry line:column positions.
pub fn parse(text: &str) -> Result<Node, SyntaxError> {
    let table = DeTable::parse(text).map_err(|e| SyntaxError {
        pos: e.span().map_or(Pos { line: 1, column: 1 }, |s| {
            Pos::of_offset(text, s.start)
        }),
        message: e.message().trim().to_string(),
    })?;
    let pos = Pos::of_offset(text, table.span().start);
    Ok(Node::new(convert_table(text, table.get_ref()), pos))
}

fn convert_table(text: &str, table: &DeTable<'_>) -> Value {
    let mut members: Vec<(usize, Member)> = table
        .iter()
        .map(|(k, v)| {
            let start = k.span().start;
            (
                start,
                Member {
                    key: k.get_ref().to_string(),
                    key_pos: Pos::of_offset(text, start),
                    value: Node::new(
                        convert(text, v.get_ref()),
                        Pos::of_offset(text, v.span().start),
                    ),
                },
            )
        })
        .collect();
    members.sort_by_key(|(start, _)| *start);
    Value::Obj(members.into_iter().map(|(_, m)| m).collect())
}

fn convert(text: &str, value: &DeValue<'_>) -> Value {
    match value {
        DeValue::String(s) => Value::Str(s.to_string()),
        DeValue::Integer(i) => Value::Num(i.to_string()),
        DeValue::Float(f) => Value::Num(f.to_string()),
        DeValue::Boolean(b) => Value::Bool(*b),
        DeValue::Datetime(d) => Value::Str(d.to_string()),
        DeValue::Array(items) => Value::Arr(
            items
                .iter()
                .map(|v| {
                    Node::new(
                        convert(text, v.get_ref()),
                        Pos::of_offset(text, v.span().start),
                    )
                })
                .collect(),
        ),
        DeValue::Table(t) => convert_table(text, t),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_values_keep_positions() {
        let text = "[mcp_servers.docs]\ncommand = \"npx\"\nargs = [\"-y\", \"pkg@1.0.0\"]\n";
        let node = parse(text).expect("parses");
        let docs = node.path(&["mcp_servers", "docs"]).expect("docs");
        let cmd = docs.member("command").expect("command");
        assert_eq!(cmd.key_pos, Pos { line: 2, column: 1 });
        let args = docs.get("args").and_then(Node::items).expect("args");
        assert_eq!(
            args[1].pos,
            Pos {
                line: 3,
                column: 15
            }
        );
    }

    #[test]
    fn syntax_errors_have_positions() {
        let err = parse("[a]\nb = \n").expect_err("bad");
        assert_eq!(err.pos.line, 2);
    }
}
