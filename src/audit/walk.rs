//! Every string of a snapshot the model may read, with its JSON Pointer (RFC 6901) and its
//! kind: tool/prompt/resource names, titles, descriptions, schema property names, enums,
//! defaults, examples, annotations, prompt arguments, server instructions — nested schemas
//! included.

use crate::model::pointer::Field as _;
use serde_json::Value;

use crate::model::finding::{ItemKind, ItemRef};
use crate::model::snapshot::ServerSnapshot;

/// What role a string plays in a definition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StrKind {
    /// The tool/prompt/resource name.
    Name,
    Title,
    Description,
    /// A key of a schema's `properties` (or a prompt argument name).
    PropertyName,
    Enum,
    Default,
    Example,
    /// A string inside `annotations`.
    Annotation,
    /// Server instructions.
    Instructions,
    /// A resource URI or URI template.
    Uri,
    /// Any other string (e.g. `pattern`, `const`, `_meta` values).
    Other,
}

impl StrKind {
    pub fn as_str(self) -> &'static str {
        match self {
            StrKind::Name => "name",
            StrKind::Title => "title",
            StrKind::Description => "description",
            StrKind::PropertyName => "property-name",
            StrKind::Enum => "enum",
            StrKind::Default => "default",
            StrKind::Example => "example",
            StrKind::Annotation => "annotation",
            StrKind::Instructions => "instructions",
            StrKind::Uri => "uri",
            StrKind::Other => "other",
        }
    }

    pub fn parse(s: &str) -> Option<StrKind> {
        Some(match s {
            "name" => StrKind::Name,
            "title" => StrKind::Title,
            "description" => StrKind::Description,
            "property-name" => StrKind::PropertyName,
            "enum" => StrKind::Enum,
            "default" => StrKind::Default,
            "example" => StrKind::Example,
            "annotation" => StrKind::Annotation,
            "instructions" => StrKind::Instructions,
            "uri" => StrKind::Uri,
            "other" => StrKind::Other,
            _ => return None,
        })
    }

    /// Prose the model reads as text (where instructions hide).
    pub fn is_prose(self) -> bool {
        !matches!(self, StrKind::Name | StrKind::PropertyName | StrKind::Uri)
    }
}

/// One tool, prompt, resource, resource template, or the server instructions.
#[derive(Debug, Clone)]
pub struct Item<'a> {
    pub kind: ItemKind,
    pub name: String,
    /// JSON Pointer of the item (`/tools/3`, `/instructions`).
    pub pointer: String,
    /// The raw definition (None for instructions).
    pub value: Option<&'a Value>,
}

impl Item<'_> {
    pub fn item_ref(&self) -> ItemRef {
        ItemRef {
            kind: self.kind,
            name: self.name.clone(),
        }
    }
}

/// One string of a definition.
#[derive(Debug, Clone)]
pub struct Field<'a> {
    /// Index into the items list.
    pub item: usize,
    pub pointer: String,
    pub kind: StrKind,
    pub text: &'a str,
}

/// Hard limit on nesting walked (hostile snapshots can be deep).
const MAX_DEPTH: usize = 64;

/// Every item and every string of a snapshot.
pub fn walk(snap: &ServerSnapshot) -> (Vec<Item<'_>>, Vec<Field<'_>>) {
    let items = items(snap);
    let mut fields = Vec::new();
    for (idx, item) in items.iter().enumerate() {
        fields_of(snap, item, idx, &mut fields);
    }
    (items, fields)
}

/// Every item of a snapshot, in audit order (the instructions, tools, prompts, resources,
/// resource templates), without walking their strings.
pub fn items(snap: &ServerSnapshot) -> Vec<Item<'_>> {
    let mut items = Vec::with_capacity(
        usize::from(snap.instructions.is_some())
            + snap.tools.len()
            + snap.prompts.len()
            + snap.resources.len()
            + snap.resource_templates.len(),
    );
    if snap.instructions.is_some() {
        items.push(Item {
            kind: ItemKind::Instructions,
            name: "instructions".into(),
            pointer: "/instructions".into(),
            value: None,
        });
    }
    for (list, key, kind) in [
        (&snap.tools, "tools", ItemKind::Tool),
        (&snap.prompts, "prompts", ItemKind::Prompt),
        (&snap.resources, "resources", ItemKind::Resource),
        (
            &snap.resource_templates,
            "resourceTemplates",
            ItemKind::ResourceTemplate,
        ),
    ] {
        for (i, v) in list.iter().enumerate() {
            items.push(Item {
                kind,
                name: ServerSnapshot::item_name(v).to_owned(),
                pointer: format!("/{key}/{i}"),
                value: Some(v),
            });
        }
    }
    items
}

/// Where the walk hands each string it finds: the item index, the string's pointer, its kind
/// and the string.
type Sink<'s, 'a> = dyn FnMut(usize, &str, StrKind, &'a str) + 's;

/// Append every string of one item of `snap` to `out`, as fields of item index `idx`.
pub fn fields_of<'a>(
    snap: &'a ServerSnapshot,
    item: &Item<'a>,
    idx: usize,
    out: &mut Vec<Field<'a>>,
) {
    match item.value {
        Some(v) => {
            let mut base = item.pointer.clone();
            walk_item(
                v,
                idx,
                &mut base,
                item.kind,
                &mut |item, pointer, kind, text| {
                    out.push(Field {
                        item,
                        pointer: pointer.to_owned(),
                        kind,
                        text,
                    })
                },
            );
        }
        None => {
            if let Some(text) = snap.instructions.as_deref() {
                out.push(Field {
                    item: idx,
                    pointer: item.pointer.clone(),
                    kind: StrKind::Instructions,
                    text,
                });
            }
        }
    }
}

/// The bytes of text [`fields_of`] finds in an item of kind `kind` whose definition is
/// `value` (`None`: the server instructions): the sum of its fields' lengths, without
/// building the fields.
pub fn text_len(snap: &ServerSnapshot, kind: ItemKind, value: Option<&Value>) -> usize {
    match value {
        Some(v) => {
            let mut total = 0;
            walk_item(v, 0, &mut String::new(), kind, &mut |_, _, _, text| {
                total += text.len()
            });
            total
        }
        None => snap.instructions.as_deref().map_or(0, str::len),
    }
}

/// `base` + `/` + the escaped `key`.
fn push_key(base: &mut String, key: &str) {
    base.push('/');
    base.push_str(&crate::model::pointer::token(key));
}

/// `base` + `/` + `index`.
fn push_index(base: &mut String, index: usize) {
    use std::fmt::Write;
    let _ = write!(base, "/{index}");
}

fn walk_item<'a>(
    v: &'a Value,
    item: usize,
    base: &mut String,
    kind: ItemKind,
    out: &mut Sink<'_, 'a>,
) {
    let Value::Object(map) = v else {
        if let Value::String(s) = v {
            out(item, base, StrKind::Other, s);
        }
        return;
    };
    for (k, val) in map {
        // Nothing below a number, a boolean, null or an ignored key is walked: no pointer to
        // build for it.
        if !holds_text(val) || matches!(k.as_str(), "icons" | "mimeType" | "size" | "execution") {
            continue;
        }
        let len = base.len();
        push_key(base, k);
        match (k.as_str(), val) {
            ("name", Value::String(s)) => out(item, base, StrKind::Name, s),
            ("title", Value::String(s)) => out(item, base, StrKind::Title, s),
            ("description", Value::String(s)) => out(item, base, StrKind::Description, s),
            ("uri" | "uriTemplate", Value::String(s)) => out(item, base, StrKind::Uri, s),
            ("inputSchema" | "outputSchema", schema) => walk_schema(schema, item, base, 0, out),
            ("annotations", a) => walk_any(a, item, base, StrKind::Annotation, 0, out),
            ("arguments", Value::Array(args)) if kind == ItemKind::Prompt => {
                for (j, a) in args.iter().enumerate() {
                    let at = base.len();
                    push_index(base, j);
                    if let Value::Object(am) = a {
                        for (ak, av) in am {
                            let here = base.len();
                            push_key(base, ak);
                            let fk = match ak.as_str() {
                                "name" => StrKind::PropertyName,
                                "description" => StrKind::Description,
                                "title" => StrKind::Title,
                                _ => StrKind::Other,
                            };
                            walk_any(av, item, base, fk, 1, out);
                            base.truncate(here);
                        }
                    }
                    base.truncate(at);
                }
            }
            ("icons" | "mimeType" | "size" | "execution", _) => {}
            (_, other) => walk_any(other, item, base, StrKind::Other, 0, out),
        }
        base.truncate(len);
    }
}

/// Walk a JSON Schema: property names, descriptions, enums, defaults, examples, nested schemas.
fn walk_schema<'a>(
    v: &'a Value,
    item: usize,
    base: &mut String,
    depth: usize,
    out: &mut Sink<'_, 'a>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let Value::Object(map) = v else {
        return;
    };
    for (k, val) in map {
        // Structural keywords (whose strings are not prose) and values without a string are
        // skipped before their pointer is built.
        if !holds_text(val)
            || matches!(
                k.as_str(),
                "type"
                    | "$schema"
                    | "required"
                    | "format"
                    | "$id"
                    | "$ref"
                    | "$anchor"
                    | "$dynamicRef"
                    | "$dynamicAnchor"
                    | "contentEncoding"
                    | "contentMediaType"
            )
        {
            continue;
        }
        let len = base.len();
        push_key(base, k);
        match k.as_str() {
            "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => {
                if let Value::Object(props) = val {
                    for (name, sub) in props {
                        let here = base.len();
                        push_key(base, name);
                        if k == "properties" {
                            out(item, base, StrKind::PropertyName, name);
                        }
                        walk_schema(sub, item, base, depth + 1, out);
                        base.truncate(here);
                    }
                }
            }
            "items"
            | "additionalProperties"
            | "not"
            | "if"
            | "then"
            | "else"
            | "contains"
            | "propertyNames"
            | "unevaluatedProperties"
            | "unevaluatedItems"
            | "additionalItems" => {
                if val.is_array() {
                    walk_schema_list(val, item, base, depth, out);
                } else {
                    walk_schema(val, item, base, depth + 1, out);
                }
            }
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => {
                walk_schema_list(val, item, base, depth, out)
            }
            "description" => walk_any(val, item, base, StrKind::Description, depth, out),
            "title" => walk_any(val, item, base, StrKind::Title, depth, out),
            "enum" => walk_any(val, item, base, StrKind::Enum, depth, out),
            "default" | "const" => walk_any(val, item, base, StrKind::Default, depth, out),
            "examples" | "example" => walk_any(val, item, base, StrKind::Example, depth, out),
            // Structural keywords whose strings are not prose.
            "type" | "$schema" | "required" | "format" | "$id" | "$ref" | "$anchor"
            | "$dynamicRef" | "$dynamicAnchor" | "contentEncoding" | "contentMediaType" => {}
            _ => walk_any(val, item, base, StrKind::Other, depth, out),
        }
        base.truncate(len);
    }
}

fn walk_schema_list<'a>(
    v: &'a Value,
    item: usize,
    base: &mut String,
    depth: usize,
    out: &mut Sink<'_, 'a>,
) {
    if let Value::Array(list) = v {
        for (i, s) in list.iter().enumerate() {
            let len = base.len();
            push_index(base, i);
            walk_schema(s, item, base, depth + 1, out);
            base.truncate(len);
        }
    }
}

/// Whether `v` is or holds a string (only those are walked further).
fn holds_text(v: &Value) -> bool {
    matches!(v, Value::String(_) | Value::Array(_) | Value::Object(_))
}

/// Every string under `v`, all with the same kind.
fn walk_any<'a>(
    v: &'a Value,
    item: usize,
    base: &mut String,
    kind: StrKind,
    depth: usize,
    out: &mut Sink<'_, 'a>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    match v {
        Value::String(s) => out(item, base, kind, s),
        Value::Array(list) => {
            for (i, x) in list.iter().enumerate().filter(|(_, x)| holds_text(x)) {
                let len = base.len();
                push_index(base, i);
                walk_any(x, item, base, kind, depth + 1, out);
                base.truncate(len);
            }
        }
        Value::Object(map) => {
            for (k, x) in map.iter().filter(|(_, x)| holds_text(x)) {
                let len = base.len();
                push_key(base, k);
                walk_any(x, item, base, kind, depth + 1, out);
                base.truncate(len);
            }
        }
        _ => {}
    }
}

/// The property names of a tool's input schema (top level), in order.
pub fn property_names(tool: &Value) -> Vec<&str> {
    tool.field("inputSchema")
        .and_then(|s| s.field("properties"))
        .and_then(Value::as_object)
        .map(|m| m.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

/// Every property name a tool's input and output schemas declare, at any depth (the fields
/// of an array's items, of a nested object, of `$defs` and of `anyOf` branches), each once.
/// Bounded: at most 32 levels deep and 4,096 names.
pub fn schema_property_names(tool: &Value) -> Vec<&str> {
    fn visit<'v>(v: &'v Value, depth: usize, out: &mut Vec<&'v str>) {
        if depth > 32 || out.len() >= 4096 {
            return;
        }
        match v {
            Value::Object(m) => {
                if let Some(props) = m.field("properties").and_then(Value::as_object) {
                    for k in props.keys() {
                        if !out.contains(&k.as_str()) && out.len() < 4096 {
                            out.push(k);
                        }
                    }
                }
                for x in m.values() {
                    visit(x, depth + 1, out);
                }
            }
            Value::Array(items) => {
                for x in items {
                    visit(x, depth + 1, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for key in ["inputSchema", "outputSchema"] {
        if let Some(schema) = tool.field(key) {
            visit(schema, 0, &mut out);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_text_length_is_the_sum_of_the_fields() {
        let snap = ServerSnapshot {
            server: "s".into(),
            instructions: Some("the instructions".into()),
            tools: vec![
                json!({"name": "t", "description": "dé", "icons": ["i"], "x": {"y": ["z", 1, {"w": "v"}]},
                    "inputSchema": {"type": "object", "$ref": "r", "properties": {"a/b~": {"enum": ["x", "yy"],
                    "anyOf": [{"description": "q"}, {"items": [{"title": "deep"}]}]}},
                    "$defs": {"d": {"default": "dd"}}},
                    "outputSchema": {"properties": {"o": {"examples": ["e"]}}},
                    "annotations": {"title": "at", "readOnlyHint": true}}),
                json!("a string"),
            ],
            prompts: vec![
                json!({"name": "p", "arguments": [{"name": "arg", "description": "ad", "x": ["y"]}, "s"]}),
            ],
            resources: vec![json!({"uri": "file:///r", "mimeType": "text/plain"})],
            ..Default::default()
        };
        let items = items(&snap);
        for (idx, item) in items.iter().enumerate() {
            let mut fields = Vec::new();
            fields_of(&snap, item, idx, &mut fields);
            let sum: usize = fields.iter().map(|f| f.text.len()).sum();
            assert!(sum > 0);
            assert_eq!(
                text_len(&snap, item.kind, item.value),
                sum,
                "{}",
                item.pointer
            );
        }
    }

    #[test]
    fn walks_every_string_with_pointers() {
        let snap = ServerSnapshot {
            server: "s".into(),
            instructions: Some("hi".into()),
            tools: vec![json!({
                "name": "t",
                "description": "d",
                "inputSchema": {"type": "object", "properties": {
                    "a/b": {"type": "string", "description": "pd", "enum": ["x"], "default": "y"},
                    "n": {"type": "object", "properties": {"deep~": {"examples": ["z"]}}}
                }},
                "annotations": {"title": "at", "readOnlyHint": true}
            })],
            prompts: vec![
                json!({"name": "p", "arguments": [{"name": "arg", "description": "ad"}]}),
            ],
            ..Default::default()
        };
        let (items, fields) = walk(&snap);
        assert_eq!(items.len(), 3);
        let got: Vec<(String, &str, &str)> = fields
            .iter()
            .map(|f| (f.pointer.clone(), f.kind.as_str(), f.text))
            .collect();
        for want in [
            ("/instructions", "instructions", "hi"),
            ("/tools/0/name", "name", "t"),
            ("/tools/0/description", "description", "d"),
            (
                "/tools/0/inputSchema/properties/a~1b",
                "property-name",
                "a/b",
            ),
            (
                "/tools/0/inputSchema/properties/a~1b/description",
                "description",
                "pd",
            ),
            ("/tools/0/inputSchema/properties/a~1b/enum/0", "enum", "x"),
            (
                "/tools/0/inputSchema/properties/a~1b/default",
                "default",
                "y",
            ),
            (
                "/tools/0/inputSchema/properties/n/properties/deep~0/examples/0",
                "example",
                "z",
            ),
            ("/tools/0/annotations/title", "annotation", "at"),
            ("/prompts/0/arguments/0/name", "property-name", "arg"),
            ("/prompts/0/arguments/0/description", "description", "ad"),
        ] {
            assert!(
                got.iter()
                    .any(|(p, k, t)| p == want.0 && *k == want.1 && *t == want.2),
                "missing {want:?} in {got:#?}"
            );
        }
        assert!(!got.iter().any(|(_, _, t)| *t == "string" || *t == "object"));
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let mut v = json!({"type": "string", "description": "leaf"});
        for _ in 0..200 {
            v = json!({"type": "object", "properties": {"x": v}});
        }
        let snap = ServerSnapshot {
            tools: vec![json!({"name": "t", "inputSchema": v})],
            ..Default::default()
        };
        let (_, fields) = walk(&snap);
        assert!(fields.len() < 200);
    }
}
