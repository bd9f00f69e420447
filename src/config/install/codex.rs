//! Remote (HTTP) entries of Codex `config.toml` behind the guard.
//!
//! A `[mcp_servers.NAME]` table whose remote keys (`url`, `bearer_token_env_var`,
//! `env_http_headers`, `http_headers`) sit on consecutive lines, each written as one
//! `key = value` line in the form `toml_edit` writes it, has those lines replaced by
//! `command`, `args`, `env` and `env_vars` lines running
//! `PROGRAM guard --lock LOCK --url URL [--header …] --installed-from codex:KEYS`:
//!
//! - `bearer_token_env_var = "V"` → `--header Authorization=bearer-env:V`, `V` in `env_vars`
//!   (Codex passes it through from the user's environment);
//! - `env_http_headers = { H = "V" }` → `--header H=env:V`, `V` in `env_vars`;
//! - `http_headers = { H = "value" }` → `--header H=env:MCPVET_HEADER_H` and the value in
//!   `env`, unchanged (a literal credential is warned about by the caller, by name).
//!
//! No header value is ever in argv. `--installed-from codex:KEYS` records the keys in file
//! order, so uninstall writes the same lines back: the original bytes. Any other shape (a
//! `[mcp_servers.NAME.http_headers]` table, a comment on a remote line, a literal
//! `bearer_token`, a `command`/`args`/`env`/`env_vars`/`cwd` key beside `url`) is left alone
//! with the reason, never reformatted.

use toml_edit::{Array, InlineTable, Key, Value as TValue};

use super::super::tree::Node;
use super::{GUARD, INSTALLED_FROM, header_var};
use crate::model::spec::{ServerSpec, Transport};

/// The remote keys of a Codex entry, as `--installed-from codex:` lists them.
const REMOTE_KEYS: [&str; 4] = [
    "url",
    "bearer_token_env_var",
    "env_http_headers",
    "http_headers",
];

/// The prefix of the `--installed-from` value of a Codex remote entry.
const MARK: &str = "codex:";

/// A Codex remote entry as it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct CodexRemote {
    pub url: String,
    /// The remote keys in file order.
    pub keys: Vec<String>,
    pub bearer_var: Option<String>,
    /// `env_http_headers`: `(header, variable)` in file order.
    pub env_headers: Vec<(String, String)>,
    /// `http_headers`: `(header, variable it travels in, value)` in file order.
    pub literal_headers: Vec<(String, String, String)>,
}

fn render_str(s: &str) -> String {
    TValue::from(s).to_string()
}

fn render_table(pairs: &[(&str, &str)]) -> String {
    let mut t = InlineTable::new();
    for (k, v) in pairs {
        t.insert(*k, TValue::from(*v));
    }
    t.fmt();
    t.to_string()
}

fn render_array(items: &[String]) -> String {
    let mut a: Array = items.iter().map(|s| TValue::from(s.as_str())).collect();
    a.fmt();
    a.to_string()
}

fn line(key: &str, value: &str) -> String {
    format!("{} = {value}", Key::new(key))
}

impl CodexRemote {
    fn mark(&self) -> String {
        format!("{MARK}{}", self.keys.join(","))
    }

    /// The guard's arguments for this entry.
    pub fn args(&self, lock: &str) -> Vec<String> {
        let mut out = vec![
            GUARD.to_string(),
            "--lock".into(),
            lock.into(),
            "--url".into(),
            self.url.clone(),
        ];
        let mut header = |h: String| {
            out.push("--header".into());
            out.push(h);
        };
        for key in &self.keys {
            match key.as_str() {
                "bearer_token_env_var" => {
                    if let Some(v) = &self.bearer_var {
                        header(format!("Authorization=bearer-env:{v}"));
                    }
                }
                "env_http_headers" => {
                    for (h, v) in &self.env_headers {
                        header(format!("{h}=env:{v}"));
                    }
                }
                "http_headers" => {
                    for (h, v, _) in &self.literal_headers {
                        header(format!("{h}=env:{v}"));
                    }
                }
                _ => {}
            }
        }
        out.push(INSTALLED_FROM.into());
        out.push(self.mark());
        out
    }

    /// The variables Codex passes through to the guard (`env_vars`), in argument order.
    pub fn env_vars(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for key in &self.keys {
            let vars: Vec<&String> = match key.as_str() {
                "bearer_token_env_var" => self.bearer_var.iter().collect(),
                "env_http_headers" => self.env_headers.iter().map(|(_, v)| v).collect(),
                _ => Vec::new(),
            };
            for v in vars {
                if !out.contains(v) {
                    out.push(v.clone());
                }
            }
        }
        out
    }

    /// The entry's environment after install, as Codex's reader sees it.
    pub fn guard_env(&self) -> std::collections::BTreeMap<String, String> {
        let mut env: std::collections::BTreeMap<String, String> = self
            .literal_headers
            .iter()
            .map(|(_, v, x)| (v.clone(), x.clone()))
            .collect();
        for v in self.env_vars() {
            env.insert(v.clone(), format!("${{{v}}}"));
        }
        env
    }

    /// The headers the remote entry sends, as Codex's reader sees them.
    pub fn headers(&self) -> std::collections::BTreeMap<String, String> {
        let mut out = std::collections::BTreeMap::new();
        if let Some(v) = &self.bearer_var {
            out.insert("Authorization".to_string(), format!("Bearer ${{{v}}}"));
        }
        for (h, v) in &self.env_headers {
            out.insert(h.clone(), format!("${{{v}}}"));
        }
        for (h, _, x) in &self.literal_headers {
            out.insert(h.clone(), x.clone());
        }
        out
    }

    /// The remote lines as they were written.
    pub fn original_lines(&self) -> Vec<String> {
        self.keys
            .iter()
            .map(|key| match key.as_str() {
                "url" => line(key, &render_str(&self.url)),
                "bearer_token_env_var" => {
                    line(key, &render_str(self.bearer_var.as_deref().unwrap_or("")))
                }
                "env_http_headers" => {
                    let pairs: Vec<(&str, &str)> = self
                        .env_headers
                        .iter()
                        .map(|(h, v)| (h.as_str(), v.as_str()))
                        .collect();
                    line(key, &render_table(&pairs))
                }
                _ => {
                    let pairs: Vec<(&str, &str)> = self
                        .literal_headers
                        .iter()
                        .map(|(h, _, x)| (h.as_str(), x.as_str()))
                        .collect();
                    line(key, &render_table(&pairs))
                }
            })
            .collect()
    }

    /// The lines that run the guard instead.
    pub fn guard_lines(&self, program: &str, lock: &str) -> Vec<String> {
        let mut out = vec![
            line("command", &render_str(program)),
            line("args", &render_array(&self.args(lock))),
        ];
        if !self.literal_headers.is_empty() {
            let pairs: Vec<(&str, &str)> = self
                .literal_headers
                .iter()
                .map(|(_, v, x)| (v.as_str(), x.as_str()))
                .collect();
            out.push(line("env", &render_table(&pairs)));
        }
        let vars = self.env_vars();
        if !vars.is_empty() {
            out.push(line("env_vars", &render_array(&vars)));
        }
        out
    }
}

/// The entry table of `spec` in the tree.
fn entry<'n>(root: &'n Node, spec: &ServerSpec) -> Option<&'n Node> {
    root.get("mcp_servers")?.get(&spec.name)
}

/// The 1-based line numbers of `text` as strings (without their newline).
fn lines(text: &str) -> Vec<&str> {
    text.split('\n').collect()
}

/// The first line of the entry's keys `keys`, if they sit on consecutive lines at column 1
/// in this order and each line equals `want`.
fn block_at(
    text: &str,
    obj: &Node,
    keys: &[&str],
    want: &[String],
    name: &str,
) -> Result<usize, String> {
    let all = lines(text);
    let members = obj.members().unwrap_or_default();
    let mut first = None;
    for (i, (key, want)) in keys.iter().zip(want).enumerate() {
        let m = members
            .iter()
            .find(|m| m.key == *key)
            .ok_or_else(|| format!("server `{name}`: no `{key}` key"))?;
        let at = m.key_pos.line as usize;
        let start = *first.get_or_insert(at);
        if at != start + i || m.key_pos.column != 1 {
            return Err(format!(
                "server `{name}`: its {} keys are not on consecutive lines of their own",
                keys.join(", ")
            ));
        }
        let got = at
            .checked_sub(1)
            .and_then(|l| all.get(l))
            .copied()
            .unwrap_or("");
        if got != want {
            return Err(format!(
                "server `{name}`: `{key}` is not written as one line `{key} = …` in the form `--install` can give back byte for byte (no comment on the line, `{{ K = \"V\" }}` inline tables)"
            ));
        }
    }
    first.ok_or_else(|| format!("server `{name}`: nothing to rewrite"))
}

/// A Codex remote entry that can be rewritten and given back exactly, or why not.
pub(super) fn remote_entry(
    text: &str,
    root: &Node,
    spec: &ServerSpec,
) -> Result<(CodexRemote, usize), String> {
    let name = crate::model::escape::line(&spec.name);
    let by_hand =
        "; put it behind the guard by hand (`mcpvet guard --lock … --url … --header NAME=env:VAR`)";
    let obj = entry(root, spec).ok_or_else(|| format!("server `{name}`: cannot find its table"))?;
    let members = obj.members().unwrap_or_default();
    for key in ["command", "args", "env", "env_vars", "cwd", "bearer_token"] {
        if members.iter().any(|m| m.key == key) {
            return Err(format!(
                "server `{name}`: a remote entry with a `{key}` key{by_hand}"
            ));
        }
    }
    let keys: Vec<&str> = members
        .iter()
        .map(|m| m.key.as_str())
        .filter(|k| REMOTE_KEYS.contains(k))
        .collect();
    let str_of = |key: &str| {
        obj.get(key)
            .and_then(Node::as_str)
            .map(str::to_owned)
            .ok_or_else(|| format!("server `{name}`: `{key}` is not a string{by_hand}"))
    };
    let pairs_of = |key: &str| -> Result<Vec<(String, String)>, String> {
        let Some(t) = obj.get(key) else {
            return Ok(Vec::new());
        };
        let ms = t
            .members()
            .ok_or_else(|| format!("server `{name}`: `{key}` is not a table{by_hand}"))?;
        ms.iter()
            .map(|m| {
                if !super::is_header_name(&m.key) {
                    return Err(format!(
                        "server `{name}`: `{key}` holds `{}`, which is not a valid HTTP header name{by_hand}",
                        crate::model::escape::line(&m.key)
                    ));
                }
                let v = m.value.as_str().ok_or_else(|| {
                    format!("server `{name}`: a value of `{key}` is not a string{by_hand}")
                })?;
                Ok((m.key.clone(), v.to_owned()))
            })
            .collect()
    };
    let url = str_of("url")?;
    let bearer_var = if keys.contains(&"bearer_token_env_var") {
        Some(str_of("bearer_token_env_var")?)
    } else {
        None
    };
    let env_headers = pairs_of("env_http_headers")?;
    let mut taken: Vec<String> = Vec::new();
    let mut literal_headers = Vec::new();
    for (h, x) in pairs_of("http_headers")? {
        let var = header_var(&h, &taken);
        taken.push(var.clone());
        literal_headers.push((h, var, x));
    }
    let var_ok =
        |v: &str| !v.is_empty() && v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    for v in bearer_var.iter().chain(env_headers.iter().map(|(_, v)| v)) {
        if !var_ok(v) {
            return Err(format!(
                "server `{name}`: `{}` is not an environment variable name{by_hand}",
                crate::model::escape::line(v)
            ));
        }
    }
    let mut names: Vec<String> = env_headers
        .iter()
        .map(|(h, _)| h.to_ascii_lowercase())
        .chain(
            literal_headers
                .iter()
                .map(|(h, _, _)| h.to_ascii_lowercase()),
        )
        .chain(bearer_var.iter().map(|_| "authorization".to_string()))
        .collect();
    let n = names.len();
    names.sort();
    names.dedup();
    if names.len() != n {
        return Err(format!(
            "server `{name}`: a header is given twice (`bearer_token_env_var`, `env_http_headers`, `http_headers`){by_hand}"
        ));
    }
    let r = CodexRemote {
        url,
        keys: keys.iter().map(|k| k.to_string()).collect(),
        bearer_var,
        env_headers,
        literal_headers,
    };
    let at = block_at(text, obj, &keys, &r.original_lines(), &name)?;
    Ok((r, at))
}

/// The Codex remote entry a guard invocation written by `--install` stands for, and the first
/// line of the guard's block, when the entry is still exactly as `--install` wrote it.
pub(super) fn guarded_remote(
    text: &str,
    root: &Node,
    spec: &ServerSpec,
) -> Option<(CodexRemote, usize)> {
    let Transport::Stdio {
        command,
        args,
        env,
        cwd: None,
    } = &spec.transport
    else {
        return None;
    };
    let value_of = |flag: &str| {
        let i = args.iter().position(|a| a == flag)?;
        args.get(i + 1).cloned()
    };
    let lock = value_of("--lock")?;
    let url = value_of("--url")?;
    let mark = value_of(INSTALLED_FROM)?;
    let keys: Vec<String> = mark
        .strip_prefix(MARK)?
        .split(',')
        .map(str::to_owned)
        .collect();
    if keys.first().map(String::as_str) != Some("url")
        || !keys.iter().all(|k| REMOTE_KEYS.contains(&k.as_str()))
    {
        return None;
    }
    let mut bearer_var = None;
    let mut env_headers = Vec::new();
    let mut literal_headers = Vec::new();
    for pair in args.windows(2).filter(|w| w[0] == "--header") {
        let (h, rest) = pair[1].split_once('=')?;
        if let Some(v) = rest.strip_prefix("bearer-env:") {
            bearer_var = Some(v.to_string());
        } else {
            let v = rest.strip_prefix("env:")?;
            match env.get(v) {
                Some(x) if *x != format!("${{{v}}}") => {
                    literal_headers.push((h.to_string(), v.to_string(), x.clone()));
                }
                _ => env_headers.push((h.to_string(), v.to_string())),
            }
        }
    }
    let r = CodexRemote {
        url,
        keys,
        bearer_var,
        env_headers,
        literal_headers,
    };
    if r.args(&lock) != *args || r.guard_env() != *env {
        return None;
    }
    let obj = entry(root, spec)?;
    let want = r.guard_lines(command, &lock);
    let mut block_keys = vec!["command", "args"];
    if !r.literal_headers.is_empty() {
        block_keys.push("env");
    }
    if !r.env_vars().is_empty() {
        block_keys.push("env_vars");
    }
    let at = block_at(text, obj, &block_keys, &want, &spec.name).ok()?;
    Some((r, at))
}

/// Replace `count` lines from line `at` (1-based) with `new`.
pub(super) fn replace_lines(text: &str, at: usize, count: usize, new: &[String]) -> String {
    let mut all: Vec<&str> = lines(text);
    let start = at.saturating_sub(1).min(all.len());
    let end = (start + count).min(all.len());
    let joined = new.join("\n");
    all.splice(start..end, [joined.as_str()]);
    all.join("\n")
}
