//! Rewriting a host config so its locked servers run behind `mcpvet guard` (and back).
//!
//! [`plan`] reads a config's text and returns the rewritten text with one outcome per server;
//! it never touches disk (the caller shows the diff, writes the backup and the new file). For
//! every stdio entry whose server has a lock, the entry's command becomes
//! `PROGRAM guard --lock LOCK -- COMMAND ARGS…`: the program is written where the command
//! was, and `guard`, `--lock`, the lock path, `--` and the original command (its source text,
//! byte for byte) are inserted in front of the existing `args` items, which stay exactly as
//! written. `env`, `cwd` and every other key are not touched. [`Mode::Uninstall`] removes what
//! was inserted: the original command is read back from the guard invocation after `--`.
//!
//! Formatting is kept: JSON/JSONC files are edited as text at the positions the reader
//! recorded (comments, trailing commas, indentation and key order stay); Codex TOML goes
//! through `toml_edit`, which keeps comments and layout; YAML is edited line by line, and a
//! construct the editor cannot rewrite exactly (a block scalar, a multi-line flow sequence, a
//! flow mapping) is refused, never reformatted. Every result is read back with mcpvet's own
//! reader before it is returned: if any server would not run exactly the expected command, or
//! any other server changed, the plan is an error and nothing is written.
//!
//! A remote (HTTP) entry of a JSON host config becomes a stdio entry running
//! `PROGRAM guard --lock LOCK --url URL [--header NAME=env:VAR …] --installed-from KEY[;type=T]`:
//! the member holding the URL is replaced by `command` and `args` (the URL copied as its source
//! text), the `headers` object becomes the `env` block (each header's key renamed to its
//! variable, each value kept byte for byte, so a host reference such as `${TOKEN}` is still
//! expanded by the host and no header value is ever in argv), and a `type` value becomes
//! `"stdio"`. `--installed-from` records the URL's key and the old `type`, so uninstall gives
//! the original bytes back. A literal header value is moved as it is, with a warning naming
//! the server and header (never the value). Continue YAML remote entries get the same change
//! line by line ([`yaml_remote_edits`]), and a remote entry of Codex `config.toml` is rewritten
//! line by line in its `codex` submodule. Remote entries of hosts whose remote entries have
//! another shape are listed and left alone.

use std::path::Path;

mod codex;

use super::tree::{Member, Node, Pos, Value};
use super::{ConfigError, HostFormat};
use crate::model::spec::{ServerSpec, Transport};

/// The first argument of every guard invocation.
pub const GUARD: &str = "guard";

/// The guard option recording a remote entry's URL key and `type` (see the module doc).
pub const INSTALLED_FROM: &str = "--installed-from";

/// The keys a JSON host entry holds its URL in.
const URL_KEYS: [&str; 3] = ["url", "httpUrl", "serverUrl"];

/// What [`plan`] does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Put every locked stdio server behind the guard.
    Install,
    /// Restore every guarded server's original command.
    Uninstall,
}

/// What [`plan`] needs besides the text.
pub struct Options<'a> {
    /// The `mcpvet` the host will launch (an absolute path, or `mcpvet` to look it up on `PATH`).
    pub program: String,
    /// The lock path to write for a server, or `None` when the server is not locked.
    pub lock_for: &'a dyn Fn(&str) -> Option<String>,
}

/// What happened to one server entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// Install: the entry now runs behind the guard with this lock.
    Guarded { lock: String },
    /// Install: the entry already runs behind the guard; left alone.
    AlreadyGuarded,
    /// Install: no lockfile for this server; left alone.
    NotLocked,
    /// Uninstall: the original command is restored.
    Restored,
    /// Uninstall: the entry does not run behind the guard; left alone.
    NotGuarded,
    /// Left alone, for the reason given.
    Skipped(String),
}

/// One server entry and what happened to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub server: String,
    /// The line of the entry in the config.
    pub line: u32,
    pub status: Status,
    /// Warnings for the user (never a secret's value).
    pub warnings: Vec<String>,
}

/// The rewritten config: the text before and after, and one outcome per server entry.
#[derive(Debug, Clone)]
pub struct Plan {
    pub format: HostFormat,
    pub before: String,
    pub after: String,
    pub outcomes: Vec<Outcome>,
    /// Literal secrets of the file (env values and headers whose name and value say so):
    /// whoever shows the text redacts them.
    pub secrets: Vec<String>,
}

impl Plan {
    /// Whether the rewrite changes the file.
    pub fn changed(&self) -> bool {
        self.before != self.after
    }
}

/// Why a config cannot be rewritten.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("{path}: {message}")]
    Unsupported { path: String, message: String },
    #[error(
        "{path}: the rewritten file would not mean what it should ({message}); nothing was changed — please report this with the file"
    )]
    Verify { path: String, message: String },
}

/// A guard invocation read from a spec: the lock and the original argv (after `--`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuardedCommand {
    /// Index in `args` of the original command (just after `--`).
    pub command_at: usize,
    pub command: String,
    pub args: Vec<String>,
}

/// Is `command` mcpvet itself (by file name: `mcpvet`, `/usr/bin/mcpvet`, `mcpvet.exe`)?
fn is_mcpvet(command: &str) -> bool {
    let base = command.rsplit(['/', '\\']).next().unwrap_or(command);
    base == "mcpvet" || base.eq_ignore_ascii_case("mcpvet.exe")
}

/// Whether a stdio spec already runs behind the guard (`mcpvet guard …`).
pub fn is_guarded(spec: &ServerSpec) -> bool {
    match &spec.transport {
        Transport::Stdio { command, args, .. } => {
            is_mcpvet(command) && args.first().map(String::as_str) == Some(GUARD)
        }
        Transport::Http { .. } => false,
    }
}

/// The original command of a guarded stdio spec (`mcpvet guard … -- CMD ARGS…`), if it has one.
pub fn guarded_command(spec: &ServerSpec) -> Option<GuardedCommand> {
    if !is_guarded(spec) {
        return None;
    }
    let Transport::Stdio { args, .. } = &spec.transport else {
        return None;
    };
    let dashes = args.iter().position(|a| a == "--")?;
    let command = args.get(dashes + 1)?.clone();
    Some(GuardedCommand {
        command_at: dashes + 1,
        command,
        args: args.get(dashes + 2..).unwrap_or_default().to_vec(),
    })
}

/// The syntax a config file is written in, from its extension (as the reader decides).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Syntax {
    Json,
    Toml,
    Yaml,
}

fn syntax(path: &Path) -> Syntax {
    match super::extension(path).as_str() {
        "toml" => Syntax::Toml,
        "yaml" | "yml" => Syntax::Yaml,
        _ => Syntax::Json,
    }
}

/// One entry to rewrite: its spec and what its command and args must be afterwards.
struct Change<'s> {
    spec: &'s ServerSpec,
    /// Install: the lock path; uninstall: `None`.
    lock: Option<String>,
    /// A remote entry put behind the guard (install) or given back (uninstall).
    remote: Option<Remote>,
    /// A Codex remote entry put behind the guard or given back, and the first line of the
    /// block of lines that changes.
    codex: Option<(codex::CodexRemote, usize)>,
}

/// A remote entry as it was written: what a guard invocation for it carries.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Remote {
    /// The key that holds the URL (`url`, `httpUrl`, `serverUrl`).
    key: String,
    /// The entry's `type` value, if it had one.
    kind: Option<String>,
    url: String,
    /// `(header name, environment variable, value)`, in file order.
    headers: Vec<(String, String, String)>,
}

impl Remote {
    /// The `--installed-from` value: `KEY` or `KEY;type=TYPE`.
    fn mark(&self) -> String {
        match &self.kind {
            Some(t) => format!("{};type={t}", self.key),
            None => self.key.clone(),
        }
    }

    /// The guard's arguments for this entry.
    fn args(&self, lock: &str) -> Vec<String> {
        let mut out = vec![
            GUARD.to_string(),
            "--lock".into(),
            lock.into(),
            "--url".into(),
            self.url.clone(),
        ];
        for (name, var, _) in &self.headers {
            out.push("--header".into());
            out.push(format!("{name}=env:{var}"));
        }
        out.push(INSTALLED_FROM.into());
        out.push(self.mark());
        out
    }
}

/// The environment variable a header's value travels in: `MCPVET_HEADER_` and the name in
/// upper case, anything but `A-Z0-9` as `_`, with `_2`, `_3`… when two names collide.
fn header_var(name: &str, taken: &[String]) -> String {
    let base: String = std::iter::once("MCPVET_HEADER_".to_string())
        .chain(name.chars().map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase().to_string()
            } else {
                "_".to_string()
            }
        }))
        .collect();
    let mut var = base.clone();
    let mut n = 2;
    while taken.contains(&var) {
        var = format!("{base}_{n}");
        n += 1;
    }
    var
}

/// Whether a header value is written as a literal credential (no host reference in it).
pub fn literal_credential(name: &str, value: &str) -> bool {
    if value.is_empty() || crate::model::secrets::has_reference(value) {
        return false;
    }
    let lower = name.to_ascii_lowercase();
    ["auth", "token", "key", "secret", "cookie", "pass"]
        .iter()
        .any(|w| lower.contains(w))
        || crate::model::redact::secret_for_name(name, value)
        || crate::model::redact::high_entropy(value)
}

/// Rewrite `text` (the content of `path`) for `mode`. Pure: nothing is read or written.
pub fn plan(path: &Path, text: &str, mode: Mode, opts: &Options<'_>) -> Result<Plan, InstallError> {
    let doc = super::parse_text(path, text)?;
    let format = super::detect(path, &doc.root).ok_or_else(|| ConfigError::UnknownFormat {
        path: path.display().to_string(),
        known: HostFormat::known_ids(),
    })?;
    let shown = path.display().to_string();
    if format == HostFormat::Registry {
        return Err(InstallError::Unsupported {
            path: shown,
            message: "a registry `server.json` describes a package, it is not a host config; install the server in a host, then run this on the host's config".into(),
        });
    }
    let specs = super::parse_as(path, &doc, format)?;
    let remote_syntax = match syntax(path) {
        Syntax::Json if remote_shape(format) => RemoteSyntax::Json,
        Syntax::Yaml if format == HostFormat::Continue => RemoteSyntax::Yaml(text),
        Syntax::Toml if format == HostFormat::Codex => RemoteSyntax::Codex(text),
        _ => RemoteSyntax::No,
    };
    let mut outcomes = Vec::new();
    let mut changes = Vec::new();
    let mut secrets = literal_secrets(&specs);
    for spec in &specs {
        let line = spec.origin.as_ref().map_or(0, |o| o.line);
        let mut warnings = Vec::new();
        let status = match mode {
            Mode::Install => install_status(spec, &doc.root, remote_syntax, opts, &mut changes),
            Mode::Uninstall => uninstall_status(spec, text, &doc.root, remote_syntax, &mut changes),
        };
        let install = mode == Mode::Install;
        let last = changes.last().filter(|c| std::ptr::eq(c.spec, spec));
        if let Some(r) = last.and_then(|c| c.remote.as_ref()) {
            let reference = match remote_syntax {
                RemoteSyntax::Yaml(_) => "${{ secrets.NAME }}",
                _ => "${VAR}",
            };
            remote_warnings(
                &spec.name,
                install,
                (
                    &r.url,
                    "a header from the environment (`--header NAME=env:VAR`) if the server accepts one",
                ),
                &r.headers,
                &|var| {
                    format!(
                        "the entry's `env` block as {var}: replace it there with a reference in the host's syntax (such as `{reference}`) so the secret does not sit in the file"
                    )
                },
                &mut secrets,
                &mut warnings,
            );
        }
        if let Some((r, _)) = last.and_then(|c| c.codex.as_ref()) {
            remote_warnings(
                &spec.name,
                install,
                (&r.url, "`env_http_headers` if the server accepts a header"),
                &r.literal_headers,
                &|var| {
                    format!(
                        "the entry's `env` table as {var}: move the secret out of the file (set it in your environment and name it in `env_http_headers` before installing)"
                    )
                },
                &mut secrets,
                &mut warnings,
            );
        }
        outcomes.push(Outcome {
            server: spec.name.clone(),
            line,
            status,
            warnings,
        });
    }
    secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    secrets.dedup();
    let after = if changes.is_empty() {
        text.to_string()
    } else {
        let edited = match syntax(path) {
            Syntax::Json => json_edit(text, &doc.root, &changes, opts),
            Syntax::Yaml => yaml_edit(text, &doc.root, &changes, opts),
            Syntax::Toml => {
                codex_edit(text, &changes, opts).and_then(|t| toml_edit_doc(&t, &changes, opts))
            }
        };
        edited.map_err(|message| InstallError::Unsupported {
            path: shown.clone(),
            message,
        })?
    };
    verify(path, format, &specs, &after, &changes, opts).map_err(|message| {
        InstallError::Verify {
            path: shown,
            message,
        }
    })?;
    Ok(Plan {
        format,
        before: text.to_string(),
        after,
        outcomes,
        secrets,
    })
}

/// The warnings of a remote entry being guarded: a URL that carries a credential (`url.1` says
/// where to move it), and each literal credential header (`moved(var)` says where it went and
/// what to do); the literal values join `secrets`, to be redacted from every output.
fn remote_warnings(
    name: &str,
    install: bool,
    url: (&str, &str),
    headers: &[(String, String, String)],
    moved: &dyn Fn(&str) -> String,
    secrets: &mut Vec<String>,
    warnings: &mut Vec<String>,
) {
    if install && crate::model::redact::url_for_report(url.0) != url.0 {
        warnings.push(format!(
            "server `{name}`: its URL carries a credential (user info or a secret query parameter), which is now on the guard's command line, where other users of this machine can read it; move it into {}",
            url.1
        ));
    }
    for (header, var, value) in headers {
        if literal_credential(header, value) {
            secrets.push(value.clone());
            if install {
                warnings.push(format!(
                    "server `{name}`: the header `{header}` is a literal value in this file; it is moved unchanged into {}",
                    moved(var)
                ));
            }
        }
    }
}

/// Every literal secret of `specs`' environments and headers (a `Bearer`/`Basic` value also
/// by its token alone, as Codex's `bearer_token` writes it), longest first.
fn literal_secrets(specs: &[ServerSpec]) -> Vec<String> {
    use crate::model::redact::secret_for_name;
    let mut out = Vec::new();
    for spec in specs {
        let pairs: Vec<(&String, &String)> = match &spec.transport {
            Transport::Stdio { env, .. } => env.iter().collect(),
            Transport::Http { headers, .. } => headers.iter().collect(),
        };
        for (name, value) in pairs {
            if secret_for_name(name, value) {
                out.push(value.clone());
                for scheme in ["Bearer ", "bearer ", "Basic ", "basic ", "Token ", "token "] {
                    if let Some(token) = value.strip_prefix(scheme) {
                        out.push(token.to_string());
                    }
                }
            }
        }
    }
    out.sort_by_key(|s| std::cmp::Reverse(s.len()));
    out.dedup();
    out
}

/// How remote (HTTP) entries of a config can be rewritten.
#[derive(Debug, Clone, Copy)]
enum RemoteSyntax<'t> {
    /// Not at all: listed and left alone.
    No,
    /// As JSON text edits ([`json_remote_edits`]).
    Json,
    /// As Continue YAML line edits of this text ([`yaml_remote_edits`]).
    Yaml(&'t str),
    /// As Codex `config.toml` line edits of this text (the `codex` submodule).
    Codex(&'t str),
}

/// Host formats whose remote entries are `{url|httpUrl|serverUrl, headers, type}` objects
/// beside stdio entries of the shared shape, so one can become the other in place.
fn remote_shape(format: HostFormat) -> bool {
    matches!(
        format,
        HostFormat::ClaudeDesktop
            | HostFormat::ClaudeCode
            | HostFormat::VsCode
            | HostFormat::Cursor
            | HostFormat::Windsurf
            | HostFormat::Gemini
            | HostFormat::Cline
            | HostFormat::Junie
            | HostFormat::Generic
            | HostFormat::Continue
            | HostFormat::Zed
    )
}

fn install_status<'s>(
    spec: &'s ServerSpec,
    root: &Node,
    remote_syntax: RemoteSyntax<'_>,
    opts: &Options<'_>,
    changes: &mut Vec<Change<'s>>,
) -> Status {
    if is_guarded(spec) {
        return Status::AlreadyGuarded;
    }
    let Some(lock) = (opts.lock_for)(&spec.name) else {
        return Status::NotLocked;
    };
    let mut codex_remote = None;
    let remote = if let (Transport::Http { .. }, RemoteSyntax::Codex(text)) =
        (&spec.transport, remote_syntax)
    {
        match codex::remote_entry(text, root, spec) {
            Ok(found) => codex_remote = Some(found),
            Err(why) => return Status::Skipped(why),
        }
        None
    } else if matches!(spec.transport, Transport::Http { .. }) {
        let found = match remote_syntax {
            RemoteSyntax::No | RemoteSyntax::Codex(_) => {
                return Status::Skipped(
                    "remote (HTTP) entry: `--install` rewrites remote entries of JSON host configs, Continue YAML and Codex `config.toml` only so far; run `mcpvet guard --lock … --url … --header NAME=env:VAR` by hand".into(),
                );
            }
            RemoteSyntax::Json => remote_entry(root, spec),
            RemoteSyntax::Yaml(text) => yaml_remote_entry(text, root, spec, &lock, opts),
        };
        match found {
            Ok(r) => Some(r),
            Err(why) => return Status::Skipped(why),
        }
    } else {
        if let Err(why) = command_member(root, spec) {
            return Status::Skipped(why);
        }
        None
    };
    changes.push(Change {
        spec,
        lock: Some(lock.clone()),
        remote,
        codex: codex_remote,
    });
    Status::Guarded { lock }
}

/// A remote entry of a JSON config as [`Remote`], or why it cannot be rewritten in place.
fn remote_entry(root: &Node, spec: &ServerSpec) -> Result<Remote, String> {
    let name = crate::model::escape::line(&spec.name);
    let (obj, m) = url_member(root, spec)?;
    let by_hand =
        "; put it behind the guard by hand (`mcpvet guard --lock … --url … --header NAME=env:VAR`)";
    let members = obj.members().unwrap_or_default();
    if members
        .iter()
        .filter(|x| URL_KEYS.contains(&x.key.as_str()))
        .count()
        != 1
    {
        return Err(format!(
            "server `{name}`: more than one URL key (`url`, `httpUrl`, `serverUrl`){by_hand}"
        ));
    }
    for key in [
        "command",
        "args",
        "env",
        "cwd",
        "transport",
        "requestOptions",
    ] {
        if obj.member(key).is_some() {
            return Err(format!(
                "server `{name}`: a remote entry with a `{key}` key{by_hand}"
            ));
        }
    }
    let (url, kind) = url_and_type(&name, m, obj, by_hand)?;
    let headers = match obj.member("headers") {
        Some(h) => remote_headers(&name, h.value.members().unwrap_or_default(), by_hand)?,
        None => Vec::new(),
    };
    Ok(Remote {
        key: m.key.clone(),
        kind,
        url,
        headers,
    })
}

/// A remote entry's URL (`m`) and `type` (in `obj`) as strings, or why not.
fn url_and_type(
    name: &str,
    m: &Member,
    obj: &Node,
    by_hand: &str,
) -> Result<(String, Option<String>), String> {
    let url = m
        .value
        .as_str()
        .ok_or_else(|| format!("server `{name}`: its URL is not a string{by_hand}"))?
        .to_string();
    let kind = match obj.member("type") {
        Some(t) => Some(
            t.value
                .as_str()
                .ok_or_else(|| format!("server `{name}`: its `type` is not a string{by_hand}"))?
                .to_string(),
        ),
        None => None,
    };
    Ok((url, kind))
}

/// Whether `name` is an HTTP header name (an RFC 9110 token).
pub(crate) fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// A remote entry's headers as `(name, variable, value)`, or why they cannot be carried.
fn remote_headers(
    name: &str,
    members: &[Member],
    by_hand: &str,
) -> Result<Vec<(String, String, String)>, String> {
    let mut headers: Vec<(String, String, String)> = Vec::new();
    {
        for hm in members {
            if !is_header_name(&hm.key) {
                return Err(format!(
                    "server `{name}`: the header name `{}` is not a valid HTTP header name{by_hand}",
                    crate::model::escape::line(&hm.key)
                ));
            }
            let value = hm.value.as_str().ok_or_else(|| {
                format!(
                    "server `{name}`: the header `{}` is not a string{by_hand}",
                    hm.key
                )
            })?;
            if headers.iter().any(|(n, _, _)| *n == hm.key) {
                return Err(format!(
                    "server `{name}`: the header `{}` is written twice{by_hand}",
                    hm.key
                ));
            }
            let taken: Vec<String> = headers.iter().map(|(_, v, _)| v.clone()).collect();
            let var = header_var(&hm.key, &taken);
            headers.push((hm.key.clone(), var, value.to_string()));
        }
    }
    Ok(headers)
}

/// The member holding a remote entry's URL, and the entry object.
fn url_member<'n>(root: &'n Node, spec: &ServerSpec) -> Result<(&'n Node, &'n Member), String> {
    let name = crate::model::escape::line(&spec.name);
    let at = spec
        .locations
        .get("/url")
        .ok_or_else(|| format!("server `{name}`: no URL position"))?;
    let pos = Pos {
        line: at.line,
        column: at.column,
    };
    let (obj, m) = member_at(root, pos)
        .ok_or_else(|| format!("server `{name}`: cannot find its URL in the file"))?;
    if !URL_KEYS.contains(&m.key.as_str()) {
        return Err(format!(
            "server `{name}`: its URL is not under `url`, `httpUrl` or `serverUrl`"
        ));
    }
    Ok((obj, m))
}

/// The remote entry a guard invocation written by `--install` stands for: the arguments must
/// be exactly what install writes, every header's variable must be in `env` and `env` must
/// hold nothing else.
fn guarded_remote(spec: &ServerSpec) -> Option<(Remote, String)> {
    if !is_guarded(spec) {
        return None;
    }
    let Transport::Stdio { args, env, cwd, .. } = &spec.transport else {
        return None;
    };
    if cwd.is_some() {
        return None;
    }
    let value_of = |flag: &str| {
        let i = args.iter().position(|a| a == flag)?;
        args.get(i + 1).cloned()
    };
    let lock = value_of("--lock")?;
    let url = value_of("--url")?;
    let mark = value_of(INSTALLED_FROM)?;
    let (key, kind) = match mark.split_once(";type=") {
        Some((k, t)) => (k.to_string(), Some(t.to_string())),
        None => (mark.clone(), None),
    };
    if !URL_KEYS.contains(&key.as_str()) {
        return None;
    }
    let mut headers = Vec::new();
    for pair in args.windows(2).filter(|w| w[0] == "--header") {
        let (name, var) = pair[1].split_once("=env:")?;
        headers.push((name.to_string(), var.to_string(), env.get(var)?.clone()));
    }
    let remote = Remote {
        key,
        kind,
        url,
        headers,
    };
    let vars: std::collections::BTreeSet<&String> =
        remote.headers.iter().map(|(_, v, _)| v).collect();
    let type_now = spec.settings.get("type").and_then(|t| t.as_str());
    let type_ok = match &remote.kind {
        Some(_) => type_now == Some("stdio"),
        None => !spec.settings.contains_key("type"),
    };
    (remote.args(&lock) == *args
        && vars.len() == env.len()
        && env.keys().all(|k| vars.contains(k))
        && type_ok)
        .then_some((remote, lock))
}

/// Whether a remote guard entry is still written as `--install` wrote it: `command` and
/// `args` side by side (`, ` between them), no URL key and no `headers` beside them.
fn remote_restorable(text: &str, root: &Node, spec: &ServerSpec, r: &Remote) -> bool {
    let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let body = &text[bom..];
    let starts = line_starts(body);
    let Ok((obj, cmd)) = command_member(root, spec) else {
        return false;
    };
    let Some(args) = obj.member("args") else {
        return false;
    };
    if obj.member("headers").is_some() || obj.member(&r.key).is_some() {
        return false;
    }
    let (Some(c), Some(a)) = (
        offset(body, &starts, cmd.value.pos),
        offset(body, &starts, args.key_pos),
    ) else {
        return false;
    };
    json_end(body, c).is_ok_and(|end| body.get(end..a) == Some(", "))
}

fn uninstall_status<'s>(
    spec: &'s ServerSpec,
    text: &str,
    root: &Node,
    remote_syntax: RemoteSyntax<'_>,
    changes: &mut Vec<Change<'s>>,
) -> Status {
    if !is_guarded(spec) {
        return Status::NotGuarded;
    }
    if guarded_command(spec).is_some() {
        changes.push(Change {
            spec,
            lock: None,
            remote: None,
            codex: None,
        });
        return Status::Restored;
    }
    if let RemoteSyntax::Codex(text) = remote_syntax {
        if let Some(found) = codex::guarded_remote(text, root, spec) {
            changes.push(Change {
                spec,
                lock: None,
                remote: None,
                codex: Some(found),
            });
            return Status::Restored;
        }
    }
    match guarded_remote(spec) {
        Some((remote, _))
            if match remote_syntax {
                RemoteSyntax::No | RemoteSyntax::Codex(_) => false,
                RemoteSyntax::Json => remote_restorable(text, root, spec, &remote),
                RemoteSyntax::Yaml(_) => {
                    yaml_remote_edits(text, root, spec, &remote, None, "", &mut Vec::new())
                        .is_ok()
                }
            } =>
        {
            changes.push(Change {
                spec,
                lock: None,
                remote: Some(remote),
                codex: None,
            });
            Status::Restored
        }
        _ => Status::Skipped(
            "a `--url` guard that `--install` did not write (or that was edited since); restore the remote entry by hand".into(),
        ),
    }
}

/// The command and args an entry must have after the change.
fn expected(change: &Change<'_>, opts: &Options<'_>) -> Option<(String, Vec<String>)> {
    let Transport::Stdio { command, args, .. } = &change.spec.transport else {
        return None;
    };
    match &change.lock {
        Some(lock) => {
            let mut new_args = guard_prefix(lock);
            new_args.push(command.clone());
            new_args.extend(args.iter().cloned());
            Some((opts.program.clone(), new_args))
        }
        None => {
            let g = guarded_command(change.spec)?;
            Some((g.command, g.args))
        }
    }
}

/// `guard --lock LOCK --`: what goes in front of the original command.
fn guard_prefix(lock: &str) -> Vec<String> {
    vec![GUARD.into(), "--lock".into(), lock.into(), "--".into()]
}

/// Read `after` back and check it: every changed server runs exactly the expected argv, and
/// every server keeps its name, order, environment, working folder and (unless changed) its
/// transport.
fn verify(
    path: &Path,
    format: HostFormat,
    before: &[ServerSpec],
    after: &str,
    changes: &[Change<'_>],
    opts: &Options<'_>,
) -> Result<(), String> {
    let doc = super::parse_text(path, after).map_err(|e| e.to_string())?;
    let specs = super::parse_as(path, &doc, format).map_err(|e| e.to_string())?;
    if specs.len() != before.len() {
        return Err(format!(
            "{} servers before, {} after",
            before.len(),
            specs.len()
        ));
    }
    for (old, new) in before.iter().zip(&specs) {
        let name = crate::model::escape::line(&old.name);
        if old.name != new.name {
            return Err(format!("server `{name}` was renamed"));
        }
        let found = changes.iter().find(|c| std::ptr::eq(c.spec, old));
        if let Some((c, (r, _))) = found.and_then(|c| c.codex.as_ref().map(|r| (c, r))) {
            let transport = match &c.lock {
                Some(lock) => Transport::Stdio {
                    command: opts.program.clone(),
                    args: r.args(lock),
                    env: r.guard_env(),
                    cwd: None,
                },
                None => Transport::Http {
                    url: r.url.clone(),
                    headers: r.headers(),
                },
            };
            if new.transport != transport {
                return Err(format!(
                    "server `{name}` would not run the expected command"
                ));
            }
            if new.settings != old.settings {
                return Err(format!("server `{name}`: its settings changed"));
            }
            continue;
        }
        if let Some((c, r)) = found.and_then(|c| c.remote.as_ref().map(|r| (c, r))) {
            let mut settings = old.settings.clone();
            let (transport, kind) = match &c.lock {
                Some(lock) => (
                    Transport::Stdio {
                        command: opts.program.clone(),
                        args: r.args(lock),
                        env: r
                            .headers
                            .iter()
                            .map(|(_, v, x)| (v.clone(), x.clone()))
                            .collect(),
                        cwd: None,
                    },
                    r.kind.as_ref().map(|_| "stdio".to_string()),
                ),
                None => (
                    Transport::Http {
                        url: r.url.clone(),
                        headers: r
                            .headers
                            .iter()
                            .map(|(n, _, x)| (n.clone(), x.clone()))
                            .collect(),
                    },
                    r.kind.clone(),
                ),
            };
            if let Some(k) = kind {
                settings.insert("type".into(), serde_json::Value::String(k));
            }
            if new.transport != transport {
                return Err(format!(
                    "server `{name}` would not run the expected command"
                ));
            }
            if new.settings != settings {
                return Err(format!("server `{name}`: its settings changed"));
            }
            continue;
        }
        let change = found.and_then(|c| expected(c, opts));
        match (&old.transport, &new.transport, change) {
            (
                Transport::Stdio {
                    env: e1, cwd: c1, ..
                },
                Transport::Stdio {
                    command,
                    args,
                    env: e2,
                    cwd: c2,
                },
                Some((want_command, want_args)),
            ) => {
                if *command != want_command || *args != want_args {
                    return Err(format!(
                        "server `{name}` would not run the expected command"
                    ));
                }
                if e1 != e2 || c1 != c2 {
                    return Err(format!(
                        "server `{name}`: its environment or working folder changed"
                    ));
                }
            }
            (a, b, None) if a == b => {}
            _ => return Err(format!("server `{name}` changed")),
        }
        if old.settings != new.settings {
            return Err(format!("server `{name}`: its settings changed"));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Positions and text

/// Byte offsets of the start of every line of `text`.
fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect()
}

/// The byte offset of a 1-based line and character column.
fn offset(text: &str, starts: &[usize], pos: Pos) -> Option<usize> {
    let start = *starts.get((pos.line as usize).checked_sub(1)?)?;
    let rest = text.get(start..)?;
    let col = (pos.column as usize).checked_sub(1)?;
    match rest.char_indices().nth(col) {
        Some((i, _)) => Some(start + i),
        None if rest.chars().count() == col => Some(text.len()),
        None => None,
    }
}

/// One text edit: replace `start..end` with `with`.
struct Edit {
    start: usize,
    end: usize,
    with: String,
}

fn apply(text: &str, mut edits: Vec<Edit>) -> Result<String, String> {
    // One pass, in file order: linear in the size of the file whatever the number of edits.
    edits.sort_by_key(|e| (e.start, e.end));
    let mut out =
        String::with_capacity(text.len() + edits.iter().map(|e| e.with.len()).sum::<usize>());
    let mut at = 0;
    for e in edits {
        if e.start < at || e.start > e.end || e.end > text.len() {
            return Err("overlapping edits (a key written twice?)".into());
        }
        out.push_str(text.get(at..e.start).ok_or("an edit splits a character")?);
        out.push_str(&e.with);
        at = e.end;
    }
    out.push_str(text.get(at..).ok_or("an edit splits a character")?);
    Ok(out)
}

/// The object member whose value starts at `pos`, with the object holding it.
fn member_at(node: &Node, pos: Pos) -> Option<(&Node, &Member)> {
    match &node.value {
        Value::Obj(members) => {
            for m in members {
                if m.value.pos == pos {
                    return Some((node, m));
                }
                if let Some(found) = member_at(&m.value, pos) {
                    return Some(found);
                }
            }
            None
        }
        Value::Arr(items) => items.iter().find_map(|i| member_at(i, pos)),
        _ => None,
    }
}

/// The command member of an entry and the object it sits in.
fn command_member<'n>(root: &'n Node, spec: &ServerSpec) -> Result<(&'n Node, &'n Member), String> {
    let name = crate::model::escape::line(&spec.name);
    let at = spec
        .locations
        .get("/command")
        .ok_or_else(|| format!("server `{name}`: no command position"))?;
    let pos = Pos {
        line: at.line,
        column: at.column,
    };
    let (obj, m) = member_at(root, pos)
        .ok_or_else(|| format!("server `{name}`: cannot find its command in the file"))?;
    if !matches!(m.key.as_str(), "command" | "path") || m.value.as_str().is_none() {
        return Err(format!(
            "server `{name}`: its command is not written as a `command` string (the host derives it); nothing to rewrite"
        ));
    }
    Ok((obj, m))
}

// ---------------------------------------------------------------------------------------------
// JSON / JSONC

/// The byte offset just past the JSON(C) value that starts at `start`.
fn json_end(text: &str, start: usize) -> Result<usize, String> {
    let b = text.as_bytes();
    let mut i = start;
    let string_end = |mut i: usize| -> Result<usize, String> {
        i += 1;
        while i < b.len() {
            match b[i] {
                b'\\' => i += 2,
                b'"' => return Ok(i + 1),
                _ => i += 1,
            }
        }
        Err("unterminated string".into())
    };
    match b.get(i) {
        Some(b'"') => string_end(i),
        Some(b'[' | b'{') => {
            let mut depth = 0usize;
            while i < b.len() {
                match b[i] {
                    b'"' => {
                        i = string_end(i)?;
                        continue;
                    }
                    b'/' if b.get(i + 1) == Some(&b'/') => {
                        while i < b.len() && b[i] != b'\n' {
                            i += 1;
                        }
                        continue;
                    }
                    b'/' if b.get(i + 1) == Some(&b'*') => {
                        i += 2;
                        while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                            i += 1;
                        }
                        i += 2;
                        continue;
                    }
                    b'[' | b'{' => depth += 1,
                    b']' | b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            return Ok(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            Err("unterminated array or object".into())
        }
        Some(_) => {
            while i < b.len()
                && !matches!(
                    b[i],
                    b',' | b']' | b'}' | b'/' | b' ' | b'\t' | b'\r' | b'\n'
                )
            {
                i += 1;
            }
            Ok(i)
        }
        None => Err("unexpected end of file".into()),
    }
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// The text between the start of `at`'s line and `at`, when it is only white space.
fn indent_before(text: &str, at: usize) -> Option<&str> {
    let line_start = text.get(..at)?.rfind('\n').map_or(0, |i| i + 1);
    let lead = text.get(line_start..at)?;
    lead.chars().all(|c| c == ' ' || c == '\t').then_some(lead)
}

fn json_edit(
    text: &str,
    root: &Node,
    changes: &[Change<'_>],
    opts: &Options<'_>,
) -> Result<String, String> {
    let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let body = &text[bom..];
    let starts = line_starts(body);
    let off = |pos: Pos| -> Result<usize, String> {
        offset(body, &starts, pos)
            .map(|o| o + bom)
            .ok_or_else(|| "a recorded position is outside the file".to_string())
    };
    let mut edits = Vec::new();
    for change in changes {
        if let Some(r) = &change.remote {
            json_remote_edits(text, root, change, r, opts, &off, &mut edits)?;
            continue;
        }
        let (obj, cmd) = command_member(root, change.spec)?;
        let cmd_start = off(cmd.value.pos)?;
        let cmd_end = json_end(text, cmd_start)?;
        let args = obj.member("args").filter(|m| m.value.items().is_some());
        match &change.lock {
            Some(lock) => {
                let mut items: Vec<String> =
                    guard_prefix(lock).iter().map(|s| json_string(s)).collect();
                items.push(text[cmd_start..cmd_end].to_string());
                edits.push(Edit {
                    start: cmd_start,
                    end: cmd_end,
                    with: json_string(&opts.program),
                });
                match args {
                    Some(a) => {
                        let list = a.value.items().unwrap_or_default();
                        match list.first() {
                            Some(first) => {
                                let at = off(first.pos)?;
                                let sep = if first.pos.line != a.value.pos.line {
                                    format!(",\n{}", indent_before(text, at).unwrap_or(""))
                                } else {
                                    ", ".to_string()
                                };
                                let mut with = items.join(&sep);
                                with.push_str(&sep);
                                edits.push(Edit {
                                    start: at,
                                    end: at,
                                    with,
                                });
                            }
                            None => {
                                let at = off(a.value.pos)? + 1;
                                edits.push(Edit {
                                    start: at,
                                    end: at,
                                    with: items.join(", "),
                                });
                            }
                        }
                    }
                    None => edits.push(Edit {
                        start: cmd_end,
                        end: cmd_end,
                        with: format!(", \"args\": [{}]", items.join(", ")),
                    }),
                }
            }
            None => {
                let g = guarded_command(change.spec)
                    .ok_or_else(|| "not a guard invocation".to_string())?;
                let a = args.ok_or_else(|| "the guard invocation has no `args`".to_string())?;
                let list = a.value.items().unwrap_or_default();
                let (Some(first), Some(orig)) = (list.first(), list.get(g.command_at)) else {
                    return Err("the guard invocation's `args` do not match".into());
                };
                let orig_start = off(orig.pos)?;
                let orig_end = json_end(text, orig_start)?;
                edits.push(Edit {
                    start: cmd_start,
                    end: cmd_end,
                    with: text[orig_start..orig_end].to_string(),
                });
                let first_at = off(first.pos)?;
                if let Some(next) = list.get(g.command_at + 1) {
                    edits.push(Edit {
                        start: first_at,
                        end: off(next.pos)?,
                        with: String::new(),
                    });
                } else {
                    let key_at = off(a.key_pos)?;
                    let between = text.get(cmd_end..key_at).unwrap_or("x");
                    if a.key_pos.line == cmd.value.pos.line && between == ", " {
                        // Written by install after a command that had no `args`: remove it.
                        edits.push(Edit {
                            start: cmd_end,
                            end: json_end(text, off(a.value.pos)?)?,
                            with: String::new(),
                        });
                    } else {
                        edits.push(Edit {
                            start: first_at,
                            end: orig_end,
                            with: String::new(),
                        });
                    }
                }
            }
        }
    }
    apply(text, edits)
}

/// The edits that put a remote entry behind the guard (install) or give it back (uninstall).
fn json_remote_edits(
    text: &str,
    root: &Node,
    change: &Change<'_>,
    r: &Remote,
    opts: &Options<'_>,
    off: &dyn Fn(Pos) -> Result<usize, String>,
    edits: &mut Vec<Edit>,
) -> Result<(), String> {
    let name = crate::model::escape::line(&change.spec.name);
    // The source text span of a member's key and of its value.
    let key_span = |m: &Member| -> Result<(usize, usize), String> {
        let at = off(m.key_pos)?;
        if text.as_bytes().get(at) != Some(&b'"') {
            return Err(format!("server `{name}`: a key is not a quoted string"));
        }
        Ok((at, json_end(text, at)?))
    };
    let value_span = |m: &Member| -> Result<(usize, usize), String> {
        let at = off(m.value.pos)?;
        Ok((at, json_end(text, at)?))
    };
    match &change.lock {
        Some(lock) => {
            let (obj, url) = url_member(root, change.spec)?;
            let (key_at, _) = key_span(url)?;
            let (url_at, url_end) = value_span(url)?;
            let mut items: Vec<String> = [GUARD, "--lock", lock.as_str(), "--url"]
                .iter()
                .map(|s| json_string(s))
                .collect();
            items.push(text[url_at..url_end].to_string());
            for (header, var, _) in &r.headers {
                items.push(json_string("--header"));
                items.push(json_string(&format!("{header}=env:{var}")));
            }
            items.push(json_string(INSTALLED_FROM));
            items.push(json_string(&r.mark()));
            edits.push(Edit {
                start: key_at,
                end: url_end,
                with: format!(
                    "\"command\": {}, \"args\": [{}]",
                    json_string(&opts.program),
                    items.join(", ")
                ),
            });
            if let Some(h) = obj.member("headers") {
                let (s, e) = key_span(h)?;
                edits.push(Edit {
                    start: s,
                    end: e,
                    with: json_string("env"),
                });
                for (hm, (_, var, _)) in
                    h.value.members().unwrap_or_default().iter().zip(&r.headers)
                {
                    let (s, e) = key_span(hm)?;
                    edits.push(Edit {
                        start: s,
                        end: e,
                        with: json_string(var),
                    });
                }
            }
            if let Some(t) = obj.member("type") {
                let (s, e) = value_span(t)?;
                edits.push(Edit {
                    start: s,
                    end: e,
                    with: json_string("stdio"),
                });
            }
        }
        None => {
            let (obj, cmd) = command_member(root, change.spec)?;
            let args = obj
                .member("args")
                .ok_or_else(|| format!("server `{name}`: the guard invocation has no `args`"))?;
            let (cmd_key, _) = key_span(cmd)?;
            let (_, cmd_end) = value_span(cmd)?;
            let (args_key, _) = key_span(args)?;
            let (_, args_end) = value_span(args)?;
            if text.get(cmd_end..args_key) != Some(", ") {
                return Err(format!(
                    "server `{name}`: its `command` and `args` are no longer written as `--install` wrote them; restore the remote entry by hand"
                ));
            }
            let list = args.value.items().unwrap_or_default();
            let url_item = args
                .value
                .items()
                .and_then(|_| {
                    let Transport::Stdio { args: a, .. } = &change.spec.transport else {
                        return None;
                    };
                    a.iter().position(|x| x == "--url")
                })
                .and_then(|i| list.get(i + 1))
                .ok_or_else(|| format!("server `{name}`: no `--url` value"))?;
            let url_at = off(url_item.pos)?;
            let url_src = &text[url_at..json_end(text, url_at)?];
            edits.push(Edit {
                start: cmd_key,
                end: args_end,
                with: format!("{}: {url_src}", json_string(&r.key)),
            });
            if let Some(env) = obj.member("env") {
                let (s, e) = key_span(env)?;
                edits.push(Edit {
                    start: s,
                    end: e,
                    with: json_string("headers"),
                });
                for em in env.value.members().unwrap_or_default() {
                    let header = r
                        .headers
                        .iter()
                        .find(|(_, v, _)| *v == em.key)
                        .map(|(h, _, _)| h)
                        .ok_or_else(|| {
                            format!("server `{name}`: an `env` variable is not a header's")
                        })?;
                    let (s, e) = key_span(em)?;
                    edits.push(Edit {
                        start: s,
                        end: e,
                        with: json_string(header),
                    });
                }
            }
            if let (Some(t), Some(kind)) = (obj.member("type"), &r.kind) {
                let (s, e) = value_span(t)?;
                edits.push(Edit {
                    start: s,
                    end: e,
                    with: json_string(kind),
                });
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// YAML

/// A YAML double-quoted scalar for `s`: every character outside YAML's printable set, and
/// `"` and `\`, escaped.
fn yaml_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c == '\u{85}'
                || matches!(c as u32, 0x20..=0x7E | 0xA0..=0xD7FF | 0xE000..=0xFFFD | 0x10000..) =>
            {
                out.push(c);
            }
            c if (c as u32) <= 0xFFFF => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push_str(&format!("\\U{:08X}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// The byte end of the one-line YAML scalar that starts at `start` (plain, single- or
/// double-quoted), or an error for anything else.
fn yaml_scalar_end(text: &str, start: usize, flow: bool) -> Result<usize, String> {
    let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let line = &text[start..line_end];
    let b = line.as_bytes();
    let end = match b.first() {
        Some(b'"') => {
            let mut i = 1;
            loop {
                match b.get(i) {
                    Some(b'\\') => i += 2,
                    Some(b'"') => break i + 1,
                    Some(_) => i += 1,
                    None => return Err("a double-quoted YAML string continues on the next line; put it on one line and retry".into()),
                }
            }
        }
        Some(b'\'') => {
            let mut i = 1;
            loop {
                match b.get(i) {
                    Some(b'\'') if b.get(i + 1) == Some(&b'\'') => i += 2,
                    Some(b'\'') => break i + 1,
                    Some(_) => i += 1,
                    None => return Err("a single-quoted YAML string continues on the next line; put it on one line and retry".into()),
                }
            }
        }
        Some(b'|' | b'>') => {
            return Err("a YAML block scalar (`|` or `>`) cannot be rewritten exactly; write the value on one line and retry".into());
        }
        Some(b'&' | b'*' | b'!') => {
            return Err("YAML anchors, aliases and tags cannot be rewritten exactly; remove them from the entry and retry".into());
        }
        _ => {
            let mut end = line.len();
            if let Some(i) = line.find(" #") {
                end = end.min(i);
            }
            if flow {
                if let Some(i) = line.find([',', ']', '}']) {
                    end = end.min(i);
                }
            }
            line[..end].trim_end().len()
        }
    };
    Ok(start + end)
}

fn yaml_edit(
    text: &str,
    root: &Node,
    changes: &[Change<'_>],
    opts: &Options<'_>,
) -> Result<String, String> {
    if text.starts_with('\u{feff}') {
        return Err(
            "a YAML file with a byte-order mark is not rewritten; remove the mark and retry".into(),
        );
    }
    let starts = line_starts(text);
    let off = |pos: Pos| -> Result<usize, String> {
        offset(text, &starts, pos)
            .ok_or_else(|| "a recorded position is outside the file".to_string())
    };
    let line_before = |at: usize| -> &str {
        let s = text[..at].rfind('\n').map_or(0, |i| i + 1);
        &text[s..at]
    };
    let mut edits = Vec::new();
    for change in changes {
        if let Some(r) = &change.remote {
            yaml_remote_edits(
                text,
                root,
                change.spec,
                r,
                change.lock.as_deref(),
                &opts.program,
                &mut edits,
            )?;
            continue;
        }
        let name = crate::model::escape::line(&change.spec.name);
        let (obj, cmd) = command_member(root, change.spec)?;
        let cmd_start = off(cmd.value.pos)?;
        let key_at = off(cmd.key_pos)?;
        let in_flow_map = line_before(key_at).contains('{');
        if !in_flow_map && cmd.key_pos.line != cmd.value.pos.line {
            let rest = text[key_at..].lines().next().unwrap_or_default();
            let rest = rest.split_once(':').map_or("", |(_, r)| r.trim_start());
            if rest.starts_with(['|', '>']) {
                return Err(format!(
                    "server `{name}`: its command is a YAML block scalar (`|` or `>`), which cannot be rewritten exactly; write it on one line and retry"
                ));
            }
        }
        if in_flow_map || cmd.key_pos.line != cmd.value.pos.line {
            return Err(format!(
                "server `{name}`: its entry is not written as `command: VALUE` on one line of a block mapping; rewrite it so and retry"
            ));
        }
        let cmd_end = yaml_scalar_end(text, cmd_start, false)?;
        let args = obj.member("args").filter(|m| m.value.items().is_some());
        let flow_args = match args {
            Some(a) => {
                let at = off(a.value.pos)?;
                let flow = text[at..].starts_with('[');
                if flow {
                    let close = json_like_flow_end(text, at)?;
                    if text[at..close].contains('\n') {
                        return Err(format!(
                            "server `{name}`: its `args` flow sequence spans several lines; write it on one line or as a block list and retry"
                        ));
                    }
                }
                Some(flow)
            }
            None => None,
        };
        match &change.lock {
            Some(lock) => {
                edits.push(Edit {
                    start: cmd_start,
                    end: cmd_end,
                    with: yaml_string(&opts.program),
                });
                let raw_cmd = &text[cmd_start..cmd_end];
                let mut items: Vec<String> =
                    guard_prefix(lock).iter().map(|s| yaml_string(s)).collect();
                // A plain scalar from block context may not be one in a flow list (`a,b`,
                // `x: y`, `#`): there it is written double-quoted.
                let plain = !raw_cmd.starts_with(['"', '\'']);
                let in_flow = flow_args != Some(false);
                match (
                    &change.spec.transport,
                    plain && in_flow && raw_cmd.contains([',', '[', ']', '{', '}', '#', ':']),
                ) {
                    (Transport::Stdio { command, .. }, true) => items.push(yaml_string(command)),
                    _ => items.push(raw_cmd.to_string()),
                }
                match (args, flow_args) {
                    (Some(a), Some(true)) => {
                        let at = off(a.value.pos)?;
                        let empty = a.value.items().unwrap_or_default().is_empty();
                        let mut with = items.join(", ");
                        if !empty {
                            with.push_str(", ");
                        }
                        edits.push(Edit {
                            start: at + 1,
                            end: at + 1,
                            with,
                        });
                    }
                    (Some(a), _) => {
                        let list = a.value.items().unwrap_or_default();
                        let first = list
                            .first()
                            .ok_or_else(|| format!("server `{name}`: empty `args` block"))?;
                        let first_at = off(first.pos)?;
                        let line_start = text[..first_at].rfind('\n').map_or(0, |i| i + 1);
                        let lead = &text[line_start..first_at];
                        if !lead.trim_start().starts_with('-')
                            || lead.trim_start().trim_start_matches('-').trim() != ""
                        {
                            return Err(format!(
                                "server `{name}`: its `args` items are not one `- VALUE` per line; rewrite them so and retry"
                            ));
                        }
                        let with: String = items.iter().map(|i| format!("{lead}{i}\n")).collect();
                        edits.push(Edit {
                            start: line_start,
                            end: line_start,
                            with,
                        });
                    }
                    (None, _) => {
                        let line_end = text[cmd_end..]
                            .find('\n')
                            .map_or(text.len(), |i| cmd_end + i);
                        let indent = " ".repeat(cmd.key_pos.column as usize - 1);
                        edits.push(Edit {
                            start: line_end,
                            end: line_end,
                            with: format!("\n{indent}args: [{}]", items.join(", ")),
                        });
                    }
                }
            }
            None => {
                let g = guarded_command(change.spec)
                    .ok_or_else(|| "not a guard invocation".to_string())?;
                let a = args.ok_or_else(|| "the guard invocation has no `args`".to_string())?;
                let flow = flow_args == Some(true);
                let list = a.value.items().unwrap_or_default();
                let (Some(first), Some(orig)) = (list.first(), list.get(g.command_at)) else {
                    return Err("the guard invocation's `args` do not match".into());
                };
                let orig_start = off(orig.pos)?;
                let orig_end = yaml_scalar_end(text, orig_start, flow)?;
                edits.push(Edit {
                    start: cmd_start,
                    end: cmd_end,
                    with: text[orig_start..orig_end].to_string(),
                });
                let first_at = off(first.pos)?;
                let next = list.get(g.command_at + 1);
                if flow {
                    match next {
                        Some(n) => edits.push(Edit {
                            start: first_at,
                            end: off(n.pos)?,
                            with: String::new(),
                        }),
                        None if a.key_pos.line == cmd.key_pos.line + 1 => {
                            // Written by install after a command without `args`: remove the line.
                            let line_end = text[cmd_end..]
                                .find('\n')
                                .map_or(text.len(), |i| cmd_end + i);
                            let args_line_end = text[line_end + 1..]
                                .find('\n')
                                .map_or(text.len(), |i| line_end + 1 + i);
                            edits.push(Edit {
                                start: line_end,
                                end: args_line_end,
                                with: String::new(),
                            });
                        }
                        None => edits.push(Edit {
                            start: first_at,
                            end: orig_end,
                            with: String::new(),
                        }),
                    }
                } else {
                    let Some(n) = next else {
                        return Err(format!(
                            "server `{name}`: the guard invocation has no arguments after the command in a block list; restore it by hand"
                        ));
                    };
                    let from = text[..first_at].rfind('\n').map_or(0, |i| i + 1);
                    let n_at = off(n.pos)?;
                    let to = text[..n_at].rfind('\n').map_or(0, |i| i + 1);
                    edits.push(Edit {
                        start: from,
                        end: to,
                        with: String::new(),
                    });
                }
            }
        }
    }
    apply(text, edits)
}

/// A remote entry of Continue YAML (`{name, type, url, requestOptions: {headers}}`) as
/// [`Remote`], or why it cannot be rewritten line by line (checked by planning its edits).
fn yaml_remote_entry(
    text: &str,
    root: &Node,
    spec: &ServerSpec,
    lock: &str,
    opts: &Options<'_>,
) -> Result<Remote, String> {
    let name = crate::model::escape::line(&spec.name);
    let by_hand =
        "; put it behind the guard by hand (`mcpvet guard --lock … --url … --header NAME=env:VAR`)";
    let (obj, m) = url_member(root, spec)?;
    for key in [
        "command",
        "args",
        "env",
        "cwd",
        "transport",
        "headers",
        "httpUrl",
        "serverUrl",
    ] {
        if obj.member(key).is_some() {
            return Err(format!(
                "server `{name}`: a remote entry with a `{key}` key{by_hand}"
            ));
        }
    }
    if m.key != "url" {
        return Err(format!(
            "server `{name}`: its URL is not under `url`{by_hand}"
        ));
    }
    let (url, kind) = url_and_type(&name, m, obj, by_hand)?;
    let headers = match obj.member("requestOptions") {
        None => Vec::new(),
        Some(ro) => {
            let only_headers = ro
                .value
                .members()
                .is_some_and(|ms| ms.len() == 1 && ms[0].key == "headers");
            if !only_headers {
                return Err(format!(
                    "server `{name}`: its `requestOptions` hold more than `headers` (the guard carries headers only){by_hand}"
                ));
            }
            let h = ro.value.member("headers").map(|h| &h.value);
            remote_headers(
                &name,
                h.and_then(Node::members).unwrap_or_default(),
                by_hand,
            )?
        }
    };
    let r = Remote {
        key: m.key.clone(),
        kind,
        url,
        headers,
    };
    yaml_remote_edits(
        text,
        root,
        spec,
        &r,
        Some(lock),
        &opts.program,
        &mut Vec::new(),
    )
    .map_err(|why| format!("{why}{by_hand}"))?;
    Ok(r)
}

/// The line edits that put a Continue YAML remote entry behind the guard (`lock` given) or
/// give it back (`lock` `None`; the entry must be laid out as install writes it).
///
/// Install: `url: URL` becomes `command: PROGRAM` and a block list `args:` (the URL item is
/// the URL's source text, so a plain scalar stays plain); `requestOptions:` becomes `env:`,
/// the `headers:` line under it goes and each header key is renamed to its variable, values
/// and comments kept byte for byte; a `type` value becomes `stdio` in its own quoting. Only a
/// layout uninstall can give back exactly is accepted: `headers:` on the line after
/// `requestOptions:`, indented as far past it as the headers are past `headers:`.
fn yaml_remote_edits(
    text: &str,
    root: &Node,
    spec: &ServerSpec,
    r: &Remote,
    lock: Option<&str>,
    program: &str,
    edits: &mut Vec<Edit>,
) -> Result<(), String> {
    let name = crate::model::escape::line(&spec.name);
    if text.starts_with('\u{feff}') {
        return Err("a YAML file with a byte-order mark is not rewritten".into());
    }
    let starts = line_starts(text);
    let off = |pos: Pos| -> Result<usize, String> {
        offset(text, &starts, pos)
            .ok_or_else(|| "a recorded position is outside the file".to_string())
    };
    let line_of = |at: usize| -> (usize, usize) {
        let s = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let e = text[at..].find('\n').map_or(text.len(), |i| at + i);
        (s, e)
    };
    // A plain key `key:` at `m`, with what follows the colon on its line.
    let plain_key = |m: &Member, key: &str| -> Result<(usize, &str), String> {
        let at = off(m.key_pos)?;
        let rest = text[at..]
            .strip_prefix(key)
            .and_then(|r| r.strip_prefix(':'))
            .ok_or_else(|| {
                format!(
                    "server `{name}`: the key `{}` is not written plain (`KEY: …`)",
                    crate::model::escape::line(key)
                )
            })?;
        let (_, e) = line_of(at);
        Ok((at, &rest[..e - at - key.len() - 1]))
    };
    // The indentation of a key that starts its line (after spaces, or after `- `).
    let indent = |m: &Member| -> Result<usize, String> {
        let at = off(m.key_pos)?;
        let (s, _) = line_of(at);
        if !text[s..at].chars().all(|c| c == ' ' || c == '-') {
            return Err(format!(
                "server `{name}`: `{}` does not start its line",
                crate::model::escape::line(&m.key)
            ));
        }
        Ok(m.key_pos.column as usize - 1)
    };
    // Only spaces before `at` on its line.
    let alone = |at: usize| text[line_of(at).0..at].chars().all(|c| c == ' ');
    let kind_ok = |k: &str| {
        !k.is_empty()
            && k.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    };
    // The `type` value's inner text span (inside its quotes, if any).
    let type_inner = |obj: &Node, want: &str| -> Result<Option<(usize, usize)>, String> {
        let Some(t) = obj.member("type") else {
            return Ok(None);
        };
        let at = off(t.value.pos)?;
        let end = yaml_scalar_end(text, at, false)?;
        let raw = &text[at..end];
        let quoted = raw.starts_with(['"', '\'']);
        let (s, e) = if quoted { (at + 1, end - 1) } else { (at, end) };
        if text.get(s..e) != Some(want) {
            return Err(format!(
                "server `{name}`: its `type` is not written as `{want}`"
            ));
        }
        Ok(Some((s, e)))
    };
    match lock {
        Some(lock) => {
            let (obj, url) = url_member(root, spec)?;
            let ind = " ".repeat(indent(url)?);
            let (url_key, _) = plain_key(url, "url")?;
            let url_at = off(url.value.pos)?;
            if line_of(url_key) != line_of(url_at) {
                return Err(format!("server `{name}`: its `url` is not on one line"));
            }
            let url_end = yaml_scalar_end(text, url_at, false)?;
            let mut items: Vec<String> = [GUARD, "--lock", lock, "--url"]
                .iter()
                .map(|s| yaml_string(s))
                .collect();
            items.push(text[url_at..url_end].to_string());
            for (header, var, _) in &r.headers {
                items.push(yaml_string("--header"));
                items.push(yaml_string(&format!("{header}=env:{var}")));
            }
            items.push(yaml_string(INSTALLED_FROM));
            items.push(yaml_string(&r.mark()));
            let list: String = items.iter().map(|i| format!("\n{ind}  - {i}")).collect();
            edits.push(Edit {
                start: url_key,
                end: url_end,
                with: format!("command: {}\n{ind}args:{list}", yaml_string(program)),
            });
            if let Some(k) = &r.kind {
                if !kind_ok(k) {
                    return Err(format!("server `{name}`: its `type` is not a plain word"));
                }
                if let Some((s, e)) = type_inner(obj, k)? {
                    edits.push(Edit {
                        start: s,
                        end: e,
                        with: "stdio".into(),
                    });
                }
            }
            if let Some(ro) = obj.member("requestOptions") {
                let k = indent(ro)?;
                let (ro_at, rest) = plain_key(ro, "requestOptions")?;
                if !(rest.trim().is_empty() || rest.trim_start().starts_with('#')) {
                    return Err(format!(
                        "server `{name}`: its `requestOptions` are not a block mapping"
                    ));
                }
                let h = ro
                    .value
                    .member("headers")
                    .ok_or_else(|| format!("server `{name}`: no `headers`"))?;
                let (h_at, h_rest) = plain_key(h, "headers")?;
                let (h_line, h_end) = line_of(h_at);
                if !alone(h_at) || !h_rest.is_empty() || h.key_pos.line != ro.key_pos.line + 1 {
                    return Err(format!(
                        "server `{name}`: its `headers:` is not alone on the line after `requestOptions:`"
                    ));
                }
                let hi = indent(h)?;
                let members = h.value.members().unwrap_or_default();
                if members.is_empty() {
                    return Err(format!(
                        "server `{name}`: its `headers` are not a block mapping"
                    ));
                }
                for (hm, (header, var, _)) in members.iter().zip(&r.headers) {
                    let mi = indent(hm)?;
                    let (at, _) = plain_key(hm, header)?;
                    if !alone(at) || mi <= hi || mi - hi != hi - k || hi <= k {
                        return Err(format!(
                            "server `{name}`: its headers are not indented one step past `headers:` as `headers:` is past `requestOptions:`"
                        ));
                    }
                    edits.push(Edit {
                        start: at,
                        end: at + header.len(),
                        with: var.clone(),
                    });
                }
                edits.push(Edit {
                    start: ro_at,
                    end: ro_at + "requestOptions".len(),
                    with: "env".into(),
                });
                edits.push(Edit {
                    start: h_line,
                    end: (h_end + 1).min(text.len()),
                    with: String::new(),
                });
            }
        }
        None => {
            if r.key != "url" {
                return Err(format!("server `{name}`: not a Continue remote entry"));
            }
            let (obj, cmd) = command_member(root, spec)?;
            let (cmd_at, _) = plain_key(cmd, "command")?;
            let args = obj
                .member("args")
                .ok_or_else(|| format!("server `{name}`: no `args`"))?;
            let (_, a_rest) = plain_key(args, "args")?;
            let list = args.value.items().unwrap_or_default();
            let Transport::Stdio { args: argv, .. } = &spec.transport else {
                return Err(format!("server `{name}`: not a stdio entry"));
            };
            if args.key_pos.line != cmd.key_pos.line + 1
                || args.key_pos.column != cmd.key_pos.column
                || !a_rest.is_empty()
                || list.len() != argv.len()
                || list
                    .iter()
                    .enumerate()
                    .any(|(i, item)| item.pos.line as usize != args.key_pos.line as usize + 1 + i)
            {
                return Err(format!(
                    "server `{name}`: its `command` and `args` are no longer written as `--install` wrote them; restore the remote entry by hand"
                ));
            }
            let url_item = argv
                .iter()
                .position(|a| a == "--url")
                .and_then(|i| list.get(i + 1))
                .ok_or_else(|| format!("server `{name}`: no `--url` value"))?;
            let url_at = off(url_item.pos)?;
            let url_src = &text[url_at..yaml_scalar_end(text, url_at, false)?];
            let last = list
                .last()
                .ok_or_else(|| format!("server `{name}`: empty `args`"))?;
            let last_at = off(last.pos)?;
            edits.push(Edit {
                start: cmd_at,
                end: yaml_scalar_end(text, last_at, false)?,
                with: format!("url: {url_src}"),
            });
            if let Some(k) = &r.kind {
                if let Some((s, e)) = type_inner(obj, "stdio")? {
                    edits.push(Edit {
                        start: s,
                        end: e,
                        with: k.clone(),
                    });
                }
            }
            if let Some(env) = obj.member("env") {
                let k = indent(env)?;
                let (env_at, rest) = plain_key(env, "env")?;
                if !(rest.trim().is_empty() || rest.trim_start().starts_with('#')) {
                    return Err(format!("server `{name}`: its `env` is not a block mapping"));
                }
                let members = env.value.members().unwrap_or_default();
                let first = members
                    .first()
                    .ok_or_else(|| format!("server `{name}`: an empty `env`"))?;
                let mi = indent(first)?;
                if first.key_pos.line != env.key_pos.line + 1 || mi <= k || (mi - k) % 2 != 0 {
                    return Err(format!(
                        "server `{name}`: its `env` is not laid out as `--install` wrote it"
                    ));
                }
                for em in members {
                    let (_, header) = r
                        .headers
                        .iter()
                        .map(|(h, v, _)| (v, h))
                        .find(|(v, _)| **v == em.key)
                        .ok_or_else(|| {
                            format!("server `{name}`: an `env` variable is not a header's")
                        })?;
                    let (at, _) = plain_key(em, &em.key)?;
                    if !alone(at) || indent(em)? != mi {
                        return Err(format!(
                            "server `{name}`: its `env` is not laid out as `--install` wrote it"
                        ));
                    }
                    edits.push(Edit {
                        start: at,
                        end: at + em.key.len(),
                        with: header.clone(),
                    });
                }
                edits.push(Edit {
                    start: env_at,
                    end: env_at + "env".len(),
                    with: "requestOptions".into(),
                });
                let (first_line, _) = line_of(off(first.key_pos)?);
                edits.push(Edit {
                    start: first_line,
                    end: first_line,
                    with: format!("{}headers:\n", " ".repeat(k + (mi - k) / 2)),
                });
            }
        }
    }
    Ok(())
}

/// The end of a flow sequence starting at `start` (`[`), skipping quoted strings.
fn json_like_flow_end(text: &str, start: usize) -> Result<usize, String> {
    let b = text.as_bytes();
    let mut i = start;
    let mut depth = 0usize;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'\'' => {
                i += 1;
                while i < b.len() && !(b[i] == b'\'' && b.get(i + 1) != Some(&b'\'')) {
                    if b[i] == b'\'' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'[' | b'{' => depth += 1,
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Ok(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    Err("unterminated flow sequence".into())
}

// ---------------------------------------------------------------------------------------------
// TOML (Codex)

/// The line edits of Codex remote entries (see the `codex` submodule), last line first.
fn codex_edit(text: &str, changes: &[Change<'_>], opts: &Options<'_>) -> Result<String, String> {
    let mut blocks: Vec<(usize, usize, Vec<String>)> = Vec::new();
    for c in changes {
        let Some((r, at)) = &c.codex else { continue };
        let (count, new) = match &c.lock {
            Some(lock) => (r.keys.len(), r.guard_lines(&opts.program, lock)),
            None => {
                let Transport::Stdio { command, args, .. } = &c.spec.transport else {
                    return Err("not a guard invocation".into());
                };
                let lock = args
                    .iter()
                    .position(|a| a == "--lock")
                    .and_then(|i| args.get(i + 1))
                    .ok_or_else(|| "not a guard invocation".to_string())?;
                (r.guard_lines(command, lock).len(), r.original_lines())
            }
        };
        blocks.push((*at, count, new));
    }
    blocks.sort_by_key(|b| std::cmp::Reverse(b.0));
    let mut out = text.to_string();
    for (at, count, new) in blocks {
        out = codex::replace_lines(&out, at, count, &new);
    }
    Ok(out)
}

fn toml_edit_doc(text: &str, changes: &[Change<'_>], opts: &Options<'_>) -> Result<String, String> {
    use toml_edit::{DocumentMut, Item, Value as TValue};
    let mut doc: DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| e.to_string())?;
    for change in changes.iter().filter(|c| c.codex.is_none()) {
        let name = crate::model::escape::line(&change.spec.name);
        let entry = doc
            .get_mut("mcp_servers")
            .and_then(Item::as_table_like_mut)
            .and_then(|t| t.get_mut(&change.spec.name))
            .and_then(Item::as_table_like_mut)
            .ok_or_else(|| format!("server `{name}`: cannot find `mcp_servers.{name}`"))?;
        let command = entry
            .get_mut("command")
            .and_then(Item::as_value_mut)
            .ok_or_else(|| format!("server `{name}`: no `command` string"))?;
        let original = command.clone();
        match &change.lock {
            Some(lock) => {
                let decor = command.decor().clone();
                *command = TValue::from(opts.program.as_str());
                *command.decor_mut() = decor;
                let mut items: Vec<TValue> = guard_prefix(lock)
                    .iter()
                    .map(|s| TValue::from(s.as_str()))
                    .collect();
                let mut orig = original;
                orig.decor_mut().clear();
                items.push(orig);
                match entry.get_mut("args").and_then(Item::as_array_mut) {
                    Some(arr) => {
                        let first_decor = arr.get(0).map(|v| v.decor().clone());
                        let multiline = first_decor
                            .as_ref()
                            .and_then(|d| d.prefix())
                            .and_then(|p| p.as_str())
                            .is_some_and(|p| p.contains('\n'));
                        let n = items.len();
                        let had = !arr.is_empty();
                        for (i, item) in items.into_iter().enumerate() {
                            arr.insert(i, item);
                        }
                        for i in 0..n + usize::from(had) {
                            if let Some(v) = arr.get_mut(i) {
                                let d = v.decor_mut();
                                match (&first_decor, i == 0 || multiline) {
                                    (Some(fd), true) => *d = fd.clone(),
                                    (None, true) => d.clear(),
                                    (_, false) => {
                                        d.set_prefix(" ");
                                        d.set_suffix("");
                                    }
                                }
                            }
                        }
                    }
                    None => {
                        let mut arr = toml_edit::Array::new();
                        for item in items {
                            arr.push(item);
                        }
                        arr.fmt();
                        entry.insert("args", Item::Value(TValue::Array(arr)));
                    }
                }
            }
            None => {
                let g = guarded_command(change.spec)
                    .ok_or_else(|| "not a guard invocation".to_string())?;
                let arr = entry
                    .get_mut("args")
                    .and_then(Item::as_array_mut)
                    .ok_or_else(|| format!("server `{name}`: no `args` array"))?;
                let first_decor = arr.get(0).map(|v| v.decor().clone());
                let mut restored = arr.get(g.command_at).cloned().ok_or_else(|| {
                    format!("server `{name}`: the guard invocation's `args` do not match")
                })?;
                for _ in 0..=g.command_at {
                    arr.remove(0);
                }
                if let (Some(fd), Some(v)) = (first_decor, arr.get_mut(0)) {
                    *v.decor_mut() = fd;
                }
                let empty = arr.is_empty();
                let command = entry
                    .get_mut("command")
                    .and_then(Item::as_value_mut)
                    .ok_or_else(|| format!("server `{name}`: no `command` string"))?;
                *restored.decor_mut() = command.decor().clone();
                *command = restored;
                if empty {
                    entry.remove("args");
                }
            }
        }
    }
    Ok(doc.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn opts(lock_for: &dyn Fn(&str) -> Option<String>) -> Options<'_> {
        Options {
            program: "mcpvet".into(),
            lock_for,
        }
    }

    fn locked(name: &str) -> Option<String> {
        Some(format!("/locks/{name}.lock.json"))
    }

    fn run(path: &str, text: &str, mode: Mode) -> Plan {
        let lock_for = locked;
        plan(&PathBuf::from(path), text, mode, &opts(&lock_for)).expect("plan")
    }

    #[test]
    fn json_args_get_the_guard_in_front_and_uninstall_restores_the_bytes() {
        let text = "{\n  // c\n  \"mcpServers\": {\n    \"a\": { \"command\": \"npx\", \"args\": [\"-y\", \"p@1\"], },\n    \"b\": {\n      \"command\": \"uvx\",\n      \"args\": [\n        \"x\"\n      ]\n    },\n    \"c\": {\"command\": \"c\"},\n    \"d\": {\"command\": \"d\",\n      \"args\": []}\n  }\n}\n";
        let p = run("/x/mcp.json", text, Mode::Install);
        assert!(p.after.contains(r#""command": "mcpvet", "args": ["guard", "--lock", "/locks/a.lock.json", "--", "npx", "-y", "p@1"]"#), "{}", p.after);
        assert!(
            p.after
                .contains("        \"--\",\n        \"uvx\",\n        \"x\"\n"),
            "{}",
            p.after
        );
        let back = run("/x/mcp.json", &p.after, Mode::Uninstall);
        assert_eq!(back.after, text);
        let again = run("/x/mcp.json", &p.after, Mode::Install);
        assert_eq!(again.after, p.after);
        assert!(
            again
                .outcomes
                .iter()
                .all(|o| o.status == Status::AlreadyGuarded)
        );
    }

    #[test]
    fn servers_without_a_lock_are_left_alone() {
        let text = "{\"mcpServers\": {\"a\": {\"command\": \"npx\"}}}";
        let none = |_: &str| None;
        let p = plan(&PathBuf::from("m.json"), text, Mode::Install, &opts(&none)).expect("plan");
        assert_eq!(p.after, text);
        assert_eq!(p.outcomes[0].status, Status::NotLocked);
    }

    #[test]
    fn yaml_round_trips() {
        let text = "mcpServers:\n  - name: a\n    command: npx # the runner\n    args:\n      - \"-y\"\n      - p@1\n  - name: b\n    command: 'uvx'\n    args: [\"x\"]\n  - name: c\n    command: c\n";
        let p = run("/x/config.yaml", text, Mode::Install);
        let back = run("/x/config.yaml", &p.after, Mode::Uninstall);
        assert_eq!(back.after, text, "{}", p.after);
    }

    #[test]
    fn toml_round_trips() {
        let text = "# top\n[mcp_servers.a]\ncommand = \"npx\" # runner\nargs = [\"-y\", 'p@1']\n\n[mcp_servers.b]\ncommand = \"uvx\"\nargs = [\n  \"x\",\n]\n\n[mcp_servers.c]\ncommand = \"c\"\n";
        let p = run("/x/config.toml", text, Mode::Install);
        let back = run("/x/config.toml", &p.after, Mode::Uninstall);
        assert_eq!(back.after, text, "{}", p.after);
    }

    #[test]
    fn remote_entries_with_odd_headers_are_left_alone_and_url_credentials_warned() {
        let text = "{\"mcpServers\": {\"a\": {\"url\": \"https://a.example.test/mcp\", \"headers\": {\"X=Y\": \"v\"}}, \"b\": {\"url\": \"https://b.example.test/mcp?api_key=kq83hdn2lsoe9xvt\"}, \"c\": {\"url\": \"https://c.example.test/\", \"env\": {}}, \"d\": {\"url\": \"https://d.example.test/\", \"headers\": {\"A-B\": \"1\", \"a.b\": \"2\"}}}}";
        let p = run("/x/mcp.json", text, Mode::Install);
        assert!(
            matches!(&p.outcomes[0].status, Status::Skipped(w) if w.contains("not a valid HTTP header name")),
            "{:?}",
            p.outcomes[0]
        );
        assert!(matches!(p.outcomes[1].status, Status::Guarded { .. }));
        assert!(p.outcomes[1].warnings[0].contains("its URL carries a credential"));
        assert!(!p.outcomes[1].warnings[0].contains("kq83hdn2lsoe9xvt"));
        assert!(matches!(&p.outcomes[2].status, Status::Skipped(w) if w.contains("`env` key")));
        // Two names that map to the same variable get distinct ones.
        assert!(
            p.after.contains(
                "\"A-B=env:MCPVET_HEADER_A_B\", \"--header\", \"a.b=env:MCPVET_HEADER_A_B_2\""
            ),
            "{}",
            p.after
        );
        assert_eq!(run("/x/mcp.json", &p.after, Mode::Uninstall).after, text);
        // Edited since: listed and left alone, not an error.
        let edited = p
            .after
            .replacen("\"mcpvet\", \"args\"", "\"mcpvet\",  \"args\"", 1);
        let back = run("/x/mcp.json", &edited, Mode::Uninstall);
        assert!(
            matches!(&back.outcomes[1].status, Status::Skipped(w) if w.contains("did not write")),
            "{:?}",
            back.outcomes[1]
        );
        assert_eq!(back.outcomes[3].status, Status::Restored);
    }

    #[test]
    fn yaml_strings_escape_what_yaml_cannot_hold_raw() {
        assert_eq!(
            yaml_string("a\"b\\c\n\u{1b}\u{7f}é"),
            "\"a\\\"b\\\\c\\n\\u001B\\u007Fé\""
        );
    }
}
