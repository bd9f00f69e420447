//! The floor for mcpvet's probe overhead: the least a client can do to read what a stdio
//! server shows. It knows the server's era in advance (no detection), starts the server once,
//! runs that era's handshake, lists every page of `tools/list` (and of `prompts/list`,
//! `resources/list`, `resources/templates/list` where the server advertises them, as the
//! probe does), prints the tool count and exits, killing the server. No sandbox, no async
//! runtime, no audit: `scripts/bench-handshake.sh` times `mcpvet snapshot` against it.
//!
//! With `--as-probe` it sends what the probe sends, in the same order: `server/discover` and
//! `initialize` back to back (the era's own answer is waited for; the other is skipped), then
//! the first page of every list at once. Timed against the plain floor, it shows what the
//! server itself spends on the probe's extra requests.
//!
//! Usage: `floor_client --legacy|--modern [--as-probe] -- CMD [ARGS…]`

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, ExitCode, Stdio};

use mcpvet::report::{eprint_line, write_stdout};
use serde_json::{Value, json};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let modern = match args.first().map(String::as_str) {
        Some("--modern") => true,
        Some("--legacy") => false,
        _ => return usage(),
    };
    let as_probe = args.get(1).map(String::as_str) == Some("--as-probe");
    let rest = if as_probe { 2 } else { 1 };
    let Some(cmd) = args
        .get(rest + 1..)
        .filter(|c| args[rest] == "--" && !c.is_empty())
    else {
        return usage();
    };
    let outcome = if as_probe {
        run_as_probe(modern, cmd)
    } else {
        run(modern, cmd)
    };
    match outcome {
        Ok(tools) => {
            if write_stdout(format!("{tools} tools\n").as_bytes()).is_err() {
                return ExitCode::FAILURE;
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprint_line(&format!("floor_client: {e}"));
            ExitCode::FAILURE
        }
    }
}

fn usage() -> ExitCode {
    eprint_line("usage: floor_client --legacy|--modern [--as-probe] -- CMD [ARGS…]");
    ExitCode::from(2)
}

struct Client {
    stdin: std::process::ChildStdin,
    out: BufReader<std::process::ChildStdout>,
    next: u64,
    modern: bool,
}

impl Client {
    fn send(&mut self, v: &Value) -> Result<(), String> {
        let mut line = v.to_string();
        line.push('\n');
        self.stdin
            .write_all(line.as_bytes())
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("write: {e}"))
    }

    /// Write one request (with the modern `_meta` when `meta`); returns its id.
    fn request(&mut self, method: &str, mut params: Value, meta: bool) -> Result<u64, String> {
        self.next += 1;
        let id = self.next;
        if meta {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "floor", "version": "0"},
            });
        }
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        Ok(id)
    }

    /// The answers to `ids`, in that order, whatever order they come in; skips
    /// notifications and answers to other requests. An error answer is kept as it is.
    fn answers(&mut self, ids: &[u64]) -> Result<Vec<Value>, String> {
        let mut got: Vec<Option<Value>> = vec![None; ids.len()];
        let mut line = String::new();
        while got.iter().any(Option::is_none) {
            line.clear();
            if self
                .out
                .read_line(&mut line)
                .map_err(|e| format!("read: {e}"))?
                == 0
            {
                return Err("the server closed its stdout".into());
            }
            let Ok(msg) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if msg.get("method").is_some() {
                continue;
            }
            let id = msg.get("id").and_then(Value::as_u64);
            if let Some(i) = ids.iter().position(|&x| Some(x) == id) {
                got[i] = Some(msg);
            }
        }
        Ok(got.into_iter().flatten().collect())
    }

    /// One request; skips notifications and anything that is not its answer.
    fn call(&mut self, method: &str, params: Value) -> Result<Value, String> {
        let id = self.request(method, params, self.modern)?;
        let msg = self
            .answers(&[id])
            .map_err(|e| format!("{method}: {e}"))?
            .pop()
            .ok_or_else(|| format!("{method}: no answer"))?;
        match msg.get("result") {
            Some(r) => Ok(r.clone()),
            None => Err(format!("{method}: {}", msg.get("error").unwrap_or(&msg))),
        }
    }

    fn list_all(&mut self, method: &str, key: &str) -> Result<usize, String> {
        let mut n = 0;
        let mut cursor: Option<String> = None;
        loop {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let r = self.call(method, params)?;
            n += r.get(key).and_then(Value::as_array).map_or(0, Vec::len);
            match r.get("nextCursor").and_then(Value::as_str) {
                Some(c) => cursor = Some(c.to_owned()),
                None => return Ok(n),
            }
        }
    }
}

/// Start the server with piped stdin and stdout (stderr discarded).
fn start(modern: bool, cmd: &[String]) -> Result<(std::process::Child, Client), String> {
    let mut child = Command::new(&cmd[0])
        .args(&cmd[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", cmd[0]))?;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        let _ = child.kill();
        let _ = child.wait();
        return Err("no pipes".into());
    };
    let c = Client {
        stdin,
        out: BufReader::new(stdout),
        next: 0,
        modern,
    };
    Ok((child, c))
}

/// `--as-probe`: the probe's requests, in the probe's order (see the module doc).
fn run_as_probe(modern: bool, cmd: &[String]) -> Result<usize, String> {
    let (mut child, mut c) = start(modern, cmd)?;
    let result = (|| {
        let discover = c.request("server/discover", json!({}), true)?;
        let init = c.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "floor", "version": "0"}}),
            false,
        )?;
        let decided = c.answers(&[if modern { discover } else { init }])?;
        let caps = decided
            .first()
            .and_then(|m| m.get("result"))
            .and_then(|r| r.get("capabilities"))
            .cloned()
            .unwrap_or(Value::Null);
        if !modern {
            c.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
        }
        let mut lists = vec![("tools/list", "tools")];
        if caps.get("prompts").is_some() {
            lists.push(("prompts/list", "prompts"));
        }
        if caps.get("resources").is_some() {
            lists.push(("resources/list", "resources"));
            lists.push(("resources/templates/list", "resourceTemplates"));
        }
        let mut ids = Vec::new();
        for (method, _) in &lists {
            ids.push(c.request(method, json!({}), modern)?);
        }
        let pages = c.answers(&ids)?;
        // One page each is what the interop servers send; a further page would be one more
        // round trip here as in the probe, so a cursor is an error rather than a shortcut.
        if pages.iter().any(|p| {
            p.pointer("/result/nextCursor")
                .is_some_and(|c| !c.is_null())
        }) {
            return Err("--as-probe reads one page per list; this server pages".into());
        }
        Ok(pages[0]
            .pointer("/result/tools")
            .and_then(Value::as_array)
            .map_or(0, Vec::len))
    })();
    let _ = child.kill();
    let _ = child.wait();
    result
}

fn run(modern: bool, cmd: &[String]) -> Result<usize, String> {
    let (mut child, mut c) = start(modern, cmd)?;
    let result = (|| {
        let caps = if modern {
            c.call("server/discover", json!({}))?
        } else {
            let r = c.call(
                "initialize",
                json!({"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "floor", "version": "0"}}),
            )?;
            c.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
            r
        }
        .get("capabilities")
        .cloned()
        .unwrap_or(Value::Null);
        let tools = c.list_all("tools/list", "tools")?;
        if caps.get("prompts").is_some() {
            c.list_all("prompts/list", "prompts")?;
        }
        if caps.get("resources").is_some() {
            c.list_all("resources/list", "resources")?;
            c.list_all("resources/templates/list", "resourceTemplates")?;
        }
        Ok(tools)
    })();
    let _ = child.kill();
    let _ = child.wait();
    result
}
