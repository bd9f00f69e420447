//! `mcpvet guard --install` / `--uninstall`: the diff of every fixture host config (insta
//! snapshots), byte-exact uninstall, hostile names and arguments that must survive the rewrite
//! in every syntax (read back with mcpvet's own reader), and the binary on a temp copy.

use std::path::{Path, PathBuf};
use std::process::Command;

use mcpvet::config::install::{Mode, Options, Plan, Status, plan};
use mcpvet::model::spec::Transport;
use proptest::prelude::*;

const FIXTURES: &[&str] = &[
    "claude-code/.mcp.json",
    "claude-desktop/claude_desktop_config.json",
    "claude-user/.claude.json",
    "cline/cline_mcp_settings.json",
    "codex/config.toml",
    "continue/config.yaml",
    "continue-block/.continue/mcpServers/playwright.yaml",
    "continue-json/.continue/config.json",
    "continue-json-remote/.continue/config.json",
    "continue-remote/config.yaml",
    "cursor/.cursor/mcp.json",
    "gemini/.gemini/settings.json",
    "junie/.junie/mcp/mcp.json",
    "mcpb/manifest.json",
    "seed/.mcp.json",
    "vscode/.vscode/mcp.json",
    "vscode-settings/settings.json",
    "windsurf/mcp_config.json",
    "zed/settings.json",
    "zed-remote/settings.json",
];

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/configs")
        .join(rel)
}

fn every_server_locked(name: &str) -> Option<String> {
    Some(format!("/locks/{name}.lock.json"))
}

fn run(path: &Path, text: &str, mode: Mode) -> Plan {
    let lock_for = every_server_locked;
    let opts = Options {
        program: "mcpvet".into(),
        lock_for: &lock_for,
    };
    plan(path, text, mode, &opts).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every stdio server of `after` that runs behind the guard runs `before`'s argv after `--`.
fn assert_same_argv(path: &Path, before: &str, after: &str) {
    let old = mcpvet::config::load_str(path, before).expect("before");
    let new = mcpvet::config::load_str(path, after).expect("after");
    assert_eq!(old.len(), new.len());
    for (o, n) in old.iter().zip(&new) {
        assert_eq!(o.name, n.name);
        match (&o.transport, &n.transport) {
            (
                Transport::Stdio {
                    command: c0,
                    args: a0,
                    env: e0,
                    cwd: d0,
                },
                Transport::Stdio {
                    command: c1,
                    args: a1,
                    env: e1,
                    cwd: d1,
                },
            ) => {
                assert_eq!(c1, "mcpvet", "{}", o.name);
                let dashes = a1.iter().position(|a| a == "--").expect("--");
                assert_eq!(
                    &a1[..dashes],
                    ["guard", "--lock", &format!("/locks/{}.lock.json", o.name)]
                );
                assert_eq!(&a1[dashes + 1], c0, "{}", o.name);
                assert_eq!(&a1[dashes + 2..], a0.as_slice(), "{}", o.name);
                assert_eq!((e0, d0), (e1, d1));
            }
            // A remote entry: the URL after `--url`, each header's value in `env` only.
            (
                Transport::Http { url, headers },
                Transport::Stdio {
                    command, args, env, ..
                },
            ) => {
                assert_eq!(command, "mcpvet", "{}", o.name);
                assert_eq!(
                    &args[..5],
                    [
                        "guard",
                        "--lock",
                        &format!("/locks/{}.lock.json", o.name),
                        "--url",
                        url
                    ]
                );
                // The headers the guard sends: each `--header` read from `env` as the guard
                // reads it (`env:V` the value, `bearer-env:V` `Bearer ` and the value).
                let sent: std::collections::BTreeMap<String, String> = args
                    .windows(2)
                    .filter(|w| w[0] == "--header")
                    .map(|w| {
                        let (name, rest) = w[1].split_once('=').expect("NAME=…");
                        let (prefix, var) = match rest.strip_prefix("bearer-env:") {
                            Some(v) => ("Bearer ", v),
                            None => ("", rest.strip_prefix("env:").expect("env:")),
                        };
                        (name.to_string(), format!("{prefix}{}", env[var]))
                    })
                    .collect();
                assert_eq!(&sent, headers, "{}", o.name);
                for value in headers.values().filter(|v| !v.is_empty()) {
                    assert!(
                        args.iter().all(|a| !a.contains(value.as_str())),
                        "{}",
                        o.name
                    );
                }
            }
            (a, b) => assert_eq!(a, b, "{}", o.name),
        }
    }
}

#[test]
fn every_fixture_config_gets_a_minimal_diff_and_uninstall_restores_its_bytes() {
    for rel in FIXTURES {
        let path = fixture(rel);
        let text = std::fs::read_to_string(&path).expect("fixture");
        let installed = run(&path, &text, Mode::Install);
        let mut shown = mcpvet::report::guard_install::diff(&installed, rel);
        for o in &installed.outcomes {
            shown.push_str(&format!(
                "# {} (line {}): {:?}\n",
                o.server, o.line, o.status
            ));
        }
        insta::assert_snapshot!(
            format!("guard_install__{}", rel.replace(['/', '.'], "_")),
            shown
        );
        assert_same_argv(&path, &text, &installed.after);
        let again = run(&path, &installed.after, Mode::Install);
        assert_eq!(again.after, installed.after, "{rel}: install is idempotent");
        let restored = run(&path, &installed.after, Mode::Uninstall);
        assert_eq!(restored.after, text, "{rel}: uninstall restores the bytes");
    }
}

#[test]
fn a_registry_server_json_is_not_a_host_config() {
    let path = fixture("registry/server.json");
    let text = std::fs::read_to_string(&path).expect("fixture");
    let lock_for = every_server_locked;
    let opts = Options {
        program: "mcpvet".into(),
        lock_for: &lock_for,
    };
    let e = plan(&path, &text, Mode::Install, &opts)
        .expect_err("refused")
        .to_string();
    assert!(e.contains("not a host config"), "{e}");
}

/// Strings that break naive writers: quotes, backslashes, newlines, ESC and other controls,
/// shell metacharacters, bidi and zero-width characters, YAML and TOML syntax.
const HOSTILE: &[&str] = &[
    "a\"b",
    "back\\slash",
    "line\nbreak",
    "\u{1b}[31mred\u{1b}[0m",
    "$(rm -rf ~); `id` && echo | cat > /tmp/x",
    "'single' \"double\"",
    "- not: a list",
    "# not a comment",
    "[not, an] {array}",
    "tab\there",
    "\u{202e}bidi\u{200b}",
    "del\u{7f}c1\u{85}\u{9b}",
    "",
    " leading and trailing ",
    "ключ: значение",
];

#[test]
fn hostile_arguments_survive_in_every_syntax() {
    let args: Vec<String> = HOSTILE.iter().map(|s| (*s).to_string()).collect();
    let command = "weird \"cmd\"\n\u{1b}";
    // JSON.
    let json = serde_json::json!({"mcpServers": {"evil\n\"name\u{1b}": {"command": command, "args": args}}});
    let text = serde_json::to_string_pretty(&json).expect("json");
    let path = PathBuf::from("/tmp/hostile/mcp.json");
    let p = run(&path, &text, Mode::Install);
    assert_same_argv(&path, &text, &p.after);
    assert_eq!(run(&path, &p.after, Mode::Uninstall).after, text);
    // TOML.
    let mut doc = toml_edit::DocumentMut::new();
    let mut entry = toml_edit::Table::new();
    entry.insert("command", toml_edit::value(command));
    let mut arr = toml_edit::Array::new();
    for a in &args {
        arr.push(a.as_str());
    }
    entry.insert("args", toml_edit::value(arr));
    let mut servers = toml_edit::Table::new();
    servers.insert("evil\n\"name", toml_edit::Item::Table(entry));
    doc.insert("mcp_servers", toml_edit::Item::Table(servers));
    let text = doc.to_string();
    let path = PathBuf::from("/tmp/hostile/config.toml");
    let p = run(&path, &text, Mode::Install);
    assert_same_argv(&path, &text, &p.after);
    assert_eq!(run(&path, &p.after, Mode::Uninstall).after, text);
    // YAML: block and flow lists of double-quoted strings (JSON strings are YAML strings
    // when nothing outside YAML's printable set is raw; serde_json escapes only C0).
    let quoted = |s: &str| {
        let mut out = String::from("\"");
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                c if (c as u32) < 0x20 || (0x7f..=0x9f).contains(&(c as u32)) => {
                    out.push_str(&format!("\\u{:04X}", c as u32));
                }
                c => out.push(c),
            }
        }
        out.push('"');
        out
    };
    let block: String = args
        .iter()
        .map(|a| format!("      - {}\n", quoted(a)))
        .collect();
    let flow: Vec<String> = args.iter().map(|a| quoted(a)).collect();
    // A plain command with flow indicators moves into a flow list double-quoted: the same
    // argv, but uninstall writes it back quoted.
    let plain = "mcpServers:\n  - name: plain\n    command: a,b]:#{x}\n  - name: flowed\n    command: c,d\n    args: [e]\n";
    let path = PathBuf::from("/tmp/hostile/config.yaml");
    let p = run(&path, plain, Mode::Install);
    assert_same_argv(&path, plain, &p.after);
    let back = run(&path, &p.after, Mode::Uninstall);
    let transports = |t: &str| {
        mcpvet::config::load_str(&path, t)
            .expect("parse")
            .into_iter()
            .map(|s| s.transport)
            .collect::<Vec<_>>()
    };
    assert_eq!(transports(&back.after), transports(plain));
    let text = format!(
        "mcpServers:\n  - name: {}\n    command: {}\n    args:\n{block}  - name: flow\n    command: {}\n    args: [{}]\n  - name: noargs\n    command: {}\n",
        quoted("evil\n\"name"),
        quoted(command),
        quoted(command),
        flow.join(", "),
        quoted(command)
    );
    let path = PathBuf::from("/tmp/hostile/config.yaml");
    let p = run(&path, &text, Mode::Install);
    assert_same_argv(&path, &text, &p.after);
    assert_eq!(run(&path, &p.after, Mode::Uninstall).after, text);
}

#[test]
fn yaml_constructs_that_cannot_be_kept_are_refused_not_reformatted() {
    let path = PathBuf::from("/tmp/c/config.yaml");
    for (text, want) in [
        (
            "mcpServers:\n  - name: a\n    command: >\n      npx\n",
            "block scalar",
        ),
        (
            "mcpServers:\n  - {name: a, command: npx}\n",
            "block mapping",
        ),
        (
            "mcpServers:\n  - name: a\n    command: npx\n    args: [\"-y\",\n      \"p\"]\n",
            "several lines",
        ),
    ] {
        let lock_for = every_server_locked;
        let opts = Options {
            program: "mcpvet".into(),
            lock_for: &lock_for,
        };
        let e = plan(&path, text, Mode::Install, &opts)
            .expect_err(text)
            .to_string();
        assert!(e.contains(want), "{text}: {e}");
    }
}

#[test]
fn unlocked_and_remote_servers_are_listed_and_left_alone() {
    let path = fixture("claude-code/.mcp.json");
    let text = std::fs::read_to_string(&path).expect("fixture");
    let none = |_: &str| None;
    let opts = Options {
        program: "mcpvet".into(),
        lock_for: &none,
    };
    let p = plan(&path, &text, Mode::Install, &opts).expect("plan");
    assert!(!p.changed());
    assert!(p.outcomes.iter().all(|o| o.status == Status::NotLocked));
    let opts = Options {
        program: "mcpvet".into(),
        lock_for: &every_server_locked,
    };
    let p = plan(&path, &text, Mode::Install, &opts).expect("plan");
    assert!(matches!(p.outcomes[0].status, Status::Guarded { .. }));
    assert!(matches!(p.outcomes[1].status, Status::Guarded { .. }));
    // Only the stdio server is locked: the remote one is listed as not locked, its text kept.
    let stdio_only = |name: &str| (name == "ci-insights").then(|| "/locks/c.lock.json".to_string());
    let opts = Options {
        program: "mcpvet".into(),
        lock_for: &stdio_only,
    };
    let p = plan(&path, &text, Mode::Install, &opts).expect("plan");
    assert!(matches!(p.outcomes[0].status, Status::Guarded { .. }));
    assert_eq!(p.outcomes[1].status, Status::NotLocked);
    assert!(p.after.contains(
        "      \"type\": \"http\",\n      \"url\": \"https://docs.example.test/mcp\",\n      \"headers\": { \"Authorization\": \"Bearer ${DOCS_API_KEY}\" },\n"
    ), "{}", p.after);
}

const REMOTE: &str = "{\n  // team servers\n  \"mcpServers\": {\n    \"tracker\": {\n      \"type\": \"http\",\n      \"url\": \"https://tracker.example.test/mcp?v=1\",\n      \"headers\": {\n        \"Authorization\": \"Bearer ${TRACKER_TOKEN}\", // from the shell\n        \"X-Team\": \"${env:TEAM}\"\n      },\n    },\n  },\n}\n";

#[test]
fn a_remote_entry_runs_behind_the_guard_with_its_header_references_only_in_env() {
    let path = PathBuf::from("/tmp/r/.mcp.json");
    let p = run(&path, REMOTE, Mode::Install);
    assert!(
        matches!(&p.outcomes[0].status, Status::Guarded { lock } if lock == "/locks/tracker.lock.json"),
        "{:?}",
        p.outcomes
    );
    let specs = mcpvet::config::load_str(&path, &p.after).expect("after");
    let Transport::Stdio {
        command, args, env, ..
    } = &specs[0].transport
    else {
        panic!("stdio: {}", p.after);
    };
    assert_eq!(command, "mcpvet");
    assert_eq!(
        &args[..9],
        [
            "guard",
            "--lock",
            "/locks/tracker.lock.json",
            "--url",
            "https://tracker.example.test/mcp?v=1",
            "--header",
            "Authorization=env:MCPVET_HEADER_AUTHORIZATION",
            "--header",
            "X-Team=env:MCPVET_HEADER_X_TEAM",
        ],
        "{}",
        p.after
    );
    for a in args {
        assert!(
            !a.contains("TRACKER_TOKEN") && !a.contains("Bearer") && !a.contains("TEAM}"),
            "{a}"
        );
    }
    assert_eq!(
        env.iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect::<Vec<_>>(),
        [
            ("MCPVET_HEADER_AUTHORIZATION", "Bearer ${TRACKER_TOKEN}"),
            ("MCPVET_HEADER_X_TEAM", "${env:TEAM}"),
        ]
    );
    assert_eq!(
        specs[0].settings.get("type"),
        Some(&serde_json::json!("stdio"))
    );
    assert!(p.after.contains("// from the shell") && p.after.contains("// team servers"));
    // Installing again changes nothing; uninstall gives the original bytes back.
    let again = run(&path, &p.after, Mode::Install);
    assert_eq!(again.after, p.after);
    assert_eq!(again.outcomes[0].status, Status::AlreadyGuarded);
    let back = run(&path, &p.after, Mode::Uninstall);
    assert_eq!(back.outcomes[0].status, Status::Restored);
    assert_eq!(back.after, REMOTE);
    // Every other JSON host's remote key and type come back too.
    for (file, entry) in [
        (
            "/tmp/r/settings.json",
            "{\"mcpServers\": {\"g\": {\"httpUrl\": \"https://g.example.test/mcp\", \"headers\": {\"A\": \"$T\"}, \"timeout\": 5}}}",
        ),
        (
            "/tmp/r/mcp_config.json",
            "{\"mcpServers\": {\"w\": {\"serverUrl\": \"http://w.example.test/mcp\"}}}",
        ),
        (
            "/tmp/r/mcp.json",
            "{\"servers\": {\"v\": {\"type\": \"sse\", \"url\": \"https://v.example.test/sse\", \"headers\": {}}}}",
        ),
    ] {
        let path = PathBuf::from(file);
        let p = run(&path, entry, Mode::Install);
        assert!(
            matches!(p.outcomes[0].status, Status::Guarded { .. }),
            "{file}: {:?}",
            p.outcomes
        );
        assert_eq!(
            run(&path, &p.after, Mode::Uninstall).after,
            entry,
            "{file}: {}",
            p.after
        );
    }
}

const CONTINUE_REMOTE: &str = "mcpServers:\n  - name: tracker\n    type: streamable-http # team\n    url: https://tracker.example.test/mcp\n    requestOptions:\n      headers:\n        Authorization: Bearer ${{ secrets.TRACKER_TOKEN }} # vault\n        X-Team: '${{ inputs.team }}'\n    connectionTimeout: 30\n";

#[test]
fn a_continue_yaml_remote_entry_runs_behind_the_guard_with_its_secret_reference_only_in_env() {
    let path = PathBuf::from("/tmp/r/config.yaml");
    let p = run(&path, CONTINUE_REMOTE, Mode::Install);
    assert!(
        matches!(&p.outcomes[0].status, Status::Guarded { lock } if lock == "/locks/tracker.lock.json"),
        "{:?}",
        p.outcomes
    );
    assert!(p.outcomes[0].warnings.is_empty(), "{:?}", p.outcomes);
    let specs = mcpvet::config::load_str(&path, &p.after).expect("after");
    let Transport::Stdio {
        command, args, env, ..
    } = &specs[0].transport
    else {
        panic!("stdio: {}", p.after);
    };
    assert_eq!(command, "mcpvet");
    assert_eq!(
        args.as_slice(),
        [
            "guard",
            "--lock",
            "/locks/tracker.lock.json",
            "--url",
            "https://tracker.example.test/mcp",
            "--header",
            "Authorization=env:MCPVET_HEADER_AUTHORIZATION",
            "--header",
            "X-Team=env:MCPVET_HEADER_X_TEAM",
            "--installed-from",
            "url;type=streamable-http",
        ],
        "{}",
        p.after
    );
    // The host-expanded references stay references, in `env` only.
    assert_eq!(
        env.iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect::<Vec<_>>(),
        [
            (
                "MCPVET_HEADER_AUTHORIZATION",
                "Bearer ${{ secrets.TRACKER_TOKEN }}"
            ),
            ("MCPVET_HEADER_X_TEAM", "${{ inputs.team }}"),
        ]
    );
    assert_eq!(
        specs[0].settings.get("type"),
        Some(&serde_json::json!("stdio"))
    );
    assert_eq!(
        specs[0].settings.get("connectionTimeout"),
        Some(&serde_json::json!(30))
    );
    assert!(
        p.after.contains("# team") && p.after.contains("# vault"),
        "{}",
        p.after
    );
    let again = run(&path, &p.after, Mode::Install);
    assert_eq!(again.after, p.after);
    assert_eq!(again.outcomes[0].status, Status::AlreadyGuarded);
    let back = run(&path, &p.after, Mode::Uninstall);
    assert_eq!(back.outcomes[0].status, Status::Restored);
    assert_eq!(back.after, CONTINUE_REMOTE);
    // Edited since install (a line between `command` and `args`): listed and left alone.
    let edited = p
        .after
        .replacen("    args:\n", "    # pinned\n    args:\n", 1);
    let back = run(&path, &edited, Mode::Uninstall);
    assert!(
        matches!(&back.outcomes[0].status, Status::Skipped(w) if w.contains("did not write")),
        "{:?}",
        back.outcomes
    );
    assert_eq!(back.after, edited);
    // A Zed remote entry written with `"source": "custom"` keeps it, and comes back.
    let zed = "{\"context_servers\": {\"z\": {\"source\": \"custom\", \"url\": \"https://z.example.test/\", \"headers\": {\"Authorization\": \"Bearer ${Z}\"}}}}";
    let zed_path = PathBuf::from("/tmp/r/settings.json");
    let p = run(&zed_path, zed, Mode::Install);
    assert!(
        matches!(&p.outcomes[0].status, Status::Guarded { .. }),
        "{:?}",
        p.outcomes
    );
    assert!(
        p.after
            .contains("\"source\": \"custom\", \"command\": \"mcpvet\""),
        "{}",
        p.after
    );
    assert_eq!(run(&zed_path, &p.after, Mode::Uninstall).after, zed);
}

#[test]
fn a_literal_header_secret_in_continue_yaml_is_warned_by_name_and_never_shown() {
    let secret = "q8Zt3LmV0pRw9Xy2Kd7NbT4u";
    let dir = locked_dir("ci-insights");
    let config = dir.path().join("config.yaml");
    let original = format!(
        "mcpServers:\n  - name: ci-insights\n    type: streamable-http\n    url: http://127.0.0.1:9/mcp\n    requestOptions:\n      headers:\n        X-Api-Key: {secret}\n"
    );
    std::fs::write(&config, &original).expect("write");
    let (code, out, err) = mcpvet(dir.path(), &["guard", "--install", "config.yaml"]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains(secret) && !err.contains(secret), "{out}{err}");
    assert!(
        out.contains("warning: server `ci-insights`: the header `X-Api-Key` is a literal value"),
        "{out}"
    );
    assert!(out.contains("${{ secrets."), "{out}");
    assert!(out.contains("--url"), "{out}");
    assert_eq!(std::fs::read_to_string(&config).expect("read"), original);

    apply_and_uninstall_with_a_literal_secret(dir.path(), "config.yaml", secret, &original);
}

/// `guard --install FILE --apply` then `--uninstall FILE --apply` on a config whose remote
/// entry has the literal header `X-Api-Key: secret`: the secret is never printed, never in the
/// guard's arguments, only in the entry's env; uninstall gives back `original`'s bytes.
fn apply_and_uninstall_with_a_literal_secret(dir: &Path, file: &str, secret: &str, original: &str) {
    let config = dir.join(file);
    let (code, out, err) = mcpvet(dir, &["guard", "--install", file, "--apply"]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains(secret) && !err.contains(secret), "{out}{err}");
    let specs = mcpvet::config::load_path(&config).expect("parse");
    let Transport::Stdio { args, env, .. } = &specs[0].transport else {
        panic!("stdio");
    };
    assert!(args.iter().all(|a| !a.contains(secret)), "{args:?}");
    assert_eq!(
        env.get("MCPVET_HEADER_X_API_KEY").map(String::as_str),
        Some(secret)
    );
    let (code, out, err) = mcpvet(dir, &["guard", "--uninstall", file, "--apply"]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains(secret) && !err.contains(secret), "{out}{err}");
    assert_eq!(std::fs::read_to_string(&config).expect("read"), original);
}

fn locked_dir(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("lockfiles")).expect("mkdir");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("lockfiles/ci-insights.lock.json"),
        dir.path().join(format!("lockfiles/{name}.lock.json")),
    )
    .expect("lock");
    dir
}

#[test]
fn a_literal_header_secret_is_moved_to_env_with_a_warning_that_never_shows_it() {
    let secret = "q8Zt3LmV0pRw9Xy2Kd7NbT4u";
    let dir = locked_dir("ci-insights");
    let config = dir.path().join(".mcp.json");
    let original = format!(
        "{{\n  \"mcpServers\": {{\n    \"ci-insights\": {{\n      \"type\": \"http\",\n      \"url\": \"http://127.0.0.1:9/mcp\",\n      \"headers\": {{ \"X-Api-Key\": \"{secret}\" }}\n    }}\n  }}\n}}\n"
    );
    std::fs::write(&config, &original).expect("write");
    let (code, out, err) = mcpvet(dir.path(), &["guard", "--install", ".mcp.json"]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains(secret) && !err.contains(secret), "{out}{err}");
    assert!(
        out.contains("warning: server `ci-insights`: the header `X-Api-Key` is a literal value"),
        "{out}"
    );
    assert!(out.contains("\"--url\""), "{out}");
    assert_eq!(std::fs::read_to_string(&config).expect("read"), original);

    apply_and_uninstall_with_a_literal_secret(dir.path(), ".mcp.json", secret, &original);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]
    /// Any argv, written by a JSON writer, means exactly the same argv behind the guard, and
    /// uninstall gives the same bytes back.
    #[test]
    fn any_json_argv_round_trips(
        command in "\\PC{0,12}|[\\x00-\\x7f]{0,12}",
        args in prop::collection::vec("\\PC{0,10}|[\\x00-\\x7f\\u{80}-\\u{9f}\\u{202e}]{0,10}", 0..6),
        pretty in any::<bool>(),
    ) {
        let json = serde_json::json!({"mcpServers": {"s": {"command": command, "args": args}}});
        let text = if pretty {
            serde_json::to_string_pretty(&json).unwrap_or_default()
        } else {
            serde_json::to_string(&json).unwrap_or_default()
        };
        let path = PathBuf::from("/tmp/p/mcp.json");
        let p = run(&path, &text, Mode::Install);
        assert_same_argv(&path, &text, &p.after);
        prop_assert_eq!(run(&path, &p.after, Mode::Uninstall).after, text);
    }
}

fn mcpvet(cwd: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mcpvet"))
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .output()
        .expect("run mcpvet");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_binary_dry_runs_applies_with_a_backup_and_uninstalls_to_the_same_bytes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join(".mcp.json");
    let original = std::fs::read(fixture("seed/.mcp.json")).expect("fixture");
    std::fs::write(&config, &original).expect("copy");
    std::fs::create_dir(dir.path().join("lockfiles")).expect("mkdir");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("lockfiles/ci-insights.lock.json"),
        dir.path().join("lockfiles/ci-insights.lock.json"),
    )
    .expect("lock");

    // Dry run: the diff, the notes, the file untouched.
    let (code, out, err) = mcpvet(dir.path(), &["guard", "--install", ".mcp.json"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("+      \"command\": \""), "{out}");
    assert!(out.contains("\"guard\", \"--lock\""), "{out}");
    assert!(
        out.contains("server `tracker` (line 8): not locked: run `mcpvet lock"),
        "{out}"
    );
    assert!(out.contains("--apply"), "{out}");
    assert_eq!(std::fs::read(&config).expect("read"), original);

    // Apply: backup with the original bytes, new file guarded.
    let (code, out, err) = mcpvet(dir.path(), &["guard", "--install", ".mcp.json", "--apply"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("wrote .mcp.json"), "{out}");
    let backup = dir.path().join(".mcp.json.mcpvet-backup");
    assert_eq!(std::fs::read(&backup).expect("backup"), original);
    let installed = std::fs::read_to_string(&config).expect("read");
    let specs = mcpvet::config::load_path(&config).expect("parse");
    let Transport::Stdio { command, args, .. } = &specs[0].transport else {
        panic!("stdio");
    };
    assert_eq!(command, env!("CARGO_BIN_EXE_mcpvet"));
    let lock = dir.path().join("lockfiles/ci-insights.lock.json");
    assert_eq!(
        args,
        &[
            "guard",
            "--lock",
            lock.to_str().expect("utf-8"),
            "--",
            "npx",
            "-y",
            "ci-insights@0.1.0"
        ]
    );

    // Install again: nothing to change, no second backup.
    let (code, out, _) = mcpvet(dir.path(), &["guard", "--install", ".mcp.json", "--apply"]);
    assert_eq!(code, 0);
    assert!(out.contains("already behind the guard"), "{out}");
    assert_eq!(std::fs::read_to_string(&config).expect("read"), installed);

    // Uninstall: the original bytes; the existing backup is kept, a timestamped one is added.
    let (code, out, err) = mcpvet(
        dir.path(),
        &["guard", "--uninstall", ".mcp.json", "--apply"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("original command restored"), "{out}");
    assert_eq!(std::fs::read(&config).expect("read"), original);
    assert_eq!(std::fs::read(&backup).expect("backup"), original);
    let stamped: Vec<_> = std::fs::read_dir(dir.path())
        .expect("dir")
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(".mcp.json.mcpvet-backup-")
        })
        .collect();
    assert_eq!(stamped.len(), 1);
    assert_eq!(
        std::fs::read_to_string(stamped[0].path()).expect("read"),
        installed
    );
}

#[cfg(unix)]
#[test]
fn special_files_as_config_are_clear_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("fifo.json");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
    let link = dir.path().join("link.json");
    std::fs::write(dir.path().join("real.json"), "{}").expect("write");
    std::os::unix::fs::symlink(dir.path().join("real.json"), &link).expect("symlink");
    let big = dir.path().join("big.json");
    std::fs::File::create(&big)
        .expect("create")
        .set_len(9 << 20)
        .expect("sparse");
    for (file, want) in [
        ("fifo.json", "a FIFO"),
        ("link.json", "is a symlink to"),
        ("big.json", "over the 8 MiB limit"),
        ("/dev/zero", "a device"),
        ("missing.json", "cannot read"),
    ] {
        let (code, _, err) = mcpvet(dir.path(), &["guard", "--install", file, "--apply"]);
        assert_eq!(code, 2, "{file}: {err}");
        assert!(err.contains(want), "{file}: {err}");
    }
    let (code, _, err) = mcpvet(dir.path(), &["guard"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--lock") && err.contains("--install CONFIG"),
        "{err}"
    );
    let (code, _, err) = mcpvet(dir.path(), &["guard", "--", "ci-insights"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("needs the server's approved lock"), "{err}");
}

#[test]
fn literal_secrets_next_to_a_changed_entry_are_redacted_in_the_diff() {
    let text = "[mcp_servers.r]\nurl = \"https://r.example.test/mcp\"\nbearer_token = \"q8Zt3LmV0pRw9Xy2Kd7N\"\n\n[mcp_servers.docs]\ncommand = \"npx\"\nargs = [\"-y\", \"d@1\"]\n\n[mcp_servers.docs.env]\nDOCS_API_KEY = \"kq83hdn2lsoe9xvt\"\n";
    let path = PathBuf::from("/tmp/s/config.toml");
    let p = run(&path, text, Mode::Install);
    let shown = mcpvet::report::guard_install::diff(&p, "config.toml");
    assert!(shown.contains("+command = \"mcpvet\""), "{shown}");
    assert!(
        shown.contains("DOCS_API_KEY") && shown.contains("bearer_token"),
        "{shown}"
    );
    assert!(!shown.contains("kq83hdn2lsoe9xvt"), "{shown}");
    assert!(!shown.contains("q8Zt3LmV0pRw9Xy2Kd7N"), "{shown}");
}

const CODEX_REMOTE: &str = "# team servers\n[mcp_servers.tracker]\nurl = \"https://tracker.example.test/mcp\"\nbearer_token_env_var = \"TRACKER_TOKEN\"\nenv_http_headers = { X-Team = \"TEAM\" }\nhttp_headers = { X-Api-Key = \"q8Zt3LmV0pRw9Xy2Kd7NbT4u\" }\nenabled = true # keep\n\n[mcp_servers.local]\ncommand = 'npx' # literal\n";

/// A remote entry of Codex `config.toml` runs behind the guard: the URL and header names are
/// in `args`, no header value is (`bearer_token_env_var` and `env_http_headers` variables pass
/// through `env_vars`, a literal `http_headers` value moves to `env` with a warning naming the
/// header, never the value); comments stay, and uninstall gives the original bytes back.
#[test]
fn a_codex_remote_entry_runs_behind_the_guard_and_uninstall_restores_its_bytes() {
    let secret = "q8Zt3LmV0pRw9Xy2Kd7NbT4u";
    let path = PathBuf::from("/tmp/c/.codex/config.toml");
    let p = run(&path, CODEX_REMOTE, Mode::Install);
    assert!(
        matches!(&p.outcomes[0].status, Status::Guarded { lock } if lock == "/locks/tracker.lock.json"),
        "{:?}",
        p.outcomes
    );
    let warnings = p.outcomes[0].warnings.join("\n");
    assert!(
        warnings.contains("server `tracker`: the header `X-Api-Key` is a literal value"),
        "{warnings}"
    );
    assert!(!warnings.contains(secret), "{warnings}");
    let specs = mcpvet::config::load_str(&path, &p.after).expect("after");
    let Transport::Stdio {
        command, args, env, ..
    } = &specs[0].transport
    else {
        panic!("stdio: {}", p.after);
    };
    assert_eq!(command, "mcpvet");
    assert_eq!(
        args,
        &[
            "guard",
            "--lock",
            "/locks/tracker.lock.json",
            "--url",
            "https://tracker.example.test/mcp",
            "--header",
            "Authorization=bearer-env:TRACKER_TOKEN",
            "--header",
            "X-Team=env:TEAM",
            "--header",
            "X-Api-Key=env:MCPVET_HEADER_X_API_KEY",
            "--installed-from",
            "codex:url,bearer_token_env_var,env_http_headers,http_headers",
        ],
        "{}",
        p.after
    );
    assert_eq!(
        env.iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect::<Vec<_>>(),
        [
            ("MCPVET_HEADER_X_API_KEY", secret),
            ("TEAM", "${TEAM}"),
            ("TRACKER_TOKEN", "${TRACKER_TOKEN}"),
        ]
    );
    assert!(
        p.after.starts_with("# team servers\n") && p.after.contains("enabled = true # keep\n"),
        "{}",
        p.after
    );
    assert_eq!(
        specs[0].settings.get("enabled"),
        Some(&serde_json::json!(true))
    );
    let again = run(&path, &p.after, Mode::Install);
    assert_eq!(again.after, p.after);
    assert_eq!(again.outcomes[0].status, Status::AlreadyGuarded);
    let back = run(&path, &p.after, Mode::Uninstall);
    assert_eq!(back.outcomes[0].status, Status::Restored);
    assert_eq!(back.after, CODEX_REMOTE);

    // Edited since install: listed and left alone.
    let edited = p
        .after
        .replace("\"--url\", ", "\"--timeout\", \"5\", \"--url\", ");
    let back = run(&path, &edited, Mode::Uninstall);
    assert!(
        matches!(back.outcomes[0].status, Status::Skipped(_)),
        "{:?}",
        back.outcomes
    );
    // A shape the rewrite cannot give back byte for byte (a `[…http_headers]` table, a
    // deprecated literal `bearer_token`) is listed with the reason and left alone.
    for text in [
        "[mcp_servers.t]\nurl = \"https://t.example.test/mcp\"\n[mcp_servers.t.http_headers]\nX-A = \"b\"\n",
        "[mcp_servers.t]\nurl = \"https://t.example.test/mcp\"\nbearer_token = \"abc\"\n",
    ] {
        let p = run(&path, text, Mode::Install);
        assert_eq!(p.after, text);
        assert!(
            matches!(&p.outcomes[0].status, Status::Skipped(why) if why.contains("server `t`")),
            "{:?}",
            p.outcomes
        );
    }
}
