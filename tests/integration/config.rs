//! Integration tests: host configs, launch audit, the team policy and `mcpvet check` / `init`.

use std::path::{Path, PathBuf};
use std::process::Command;

use mcpvet::config::{self, HostFormat, Scope};
use mcpvet::launch_audit;
use mcpvet::model::finding::Severity;
use mcpvet::model::spec::{ServerSpec, Transport};
use mcpvet::policy::Policy;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/configs")
}

/// A stable, readable summary of specs: names, hosts, positions, transport, locations, settings.
fn summary(specs: &[ServerSpec], base: &Path) -> String {
    let rel = |p: &Path| p.strip_prefix(base).unwrap_or(p).display().to_string();
    let mut s = String::new();
    for spec in specs {
        let origin = spec.origin.as_ref().map_or("-".into(), |o| {
            format!("{}:{}:{}", rel(&o.file), o.line, o.column)
        });
        s.push_str(&format!("{} [{}] @ {origin}\n", spec.name, spec.host));
        match &spec.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                s.push_str(&format!("  stdio: {command} {args:?}\n"));
                if !env.is_empty() {
                    s.push_str(&format!("  env: {env:?}\n"));
                }
                if let Some(c) = cwd {
                    s.push_str(&format!("  cwd: {}\n", c.display()));
                }
            }
            Transport::Http { url, headers } => {
                s.push_str(&format!("  http: {url}\n"));
                if !headers.is_empty() {
                    s.push_str(&format!("  headers: {headers:?}\n"));
                }
            }
        }
        for (ptr, o) in &spec.locations {
            s.push_str(&format!("  {ptr} -> {}:{}\n", o.line, o.column));
        }
        if !spec.settings.is_empty() {
            s.push_str(&format!(
                "  settings: {}\n",
                serde_json::to_string(&spec.settings).unwrap_or_default()
            ));
        }
    }
    s
}

const FIXTURES: &[(&str, HostFormat)] = &[
    (
        "claude-desktop/claude_desktop_config.json",
        HostFormat::ClaudeDesktop,
    ),
    ("claude-code/.mcp.json", HostFormat::ClaudeCode),
    ("claude-user/.claude.json", HostFormat::ClaudeCode),
    ("vscode/.vscode/mcp.json", HostFormat::VsCode),
    ("vscode-settings/settings.json", HostFormat::VsCode),
    ("cursor/.cursor/mcp.json", HostFormat::Cursor),
    ("windsurf/mcp_config.json", HostFormat::Windsurf),
    ("zed/settings.json", HostFormat::Zed),
    ("codex/config.toml", HostFormat::Codex),
    ("gemini/.gemini/settings.json", HostFormat::Gemini),
    ("cline/cline_mcp_settings.json", HostFormat::Cline),
    ("continue/config.yaml", HostFormat::Continue),
    (
        "continue-block/.continue/mcpServers/playwright.yaml",
        HostFormat::Continue,
    ),
    ("continue-json/.continue/config.json", HostFormat::Continue),
    ("junie/.junie/mcp/mcp.json", HostFormat::Junie),
    ("registry/server.json", HostFormat::Registry),
    ("mcpb/manifest.json", HostFormat::Mcpb),
];

#[test]
fn every_host_format_fixture_parses_to_specs_with_positions() {
    let base = fixtures();
    for (file, format) in FIXTURES {
        let path = base.join(file);
        assert_eq!(
            config::detect_path(&path).expect("readable"),
            Some(*format),
            "{file}"
        );
        let specs = config::load_path(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(!specs.is_empty(), "{file}");
        assert!(specs.iter().all(|s| s.host.id() == format.id()), "{file}");
        let forced = config::load_path_as(&path, *format).expect("forced format");
        assert_eq!(forced, specs, "{file}");
        let name = file.replace(['/', '.'], "_");
        insta::assert_snapshot!(name, summary(&specs, &base));
    }
}

#[test]
fn positions_point_at_the_exact_field() {
    let base = fixtures();
    let specs = config::load_path(&base.join("seed/.mcp.json")).expect("seed");
    let tracker = specs.iter().find(|s| s.name == "tracker").expect("tracker");
    let at = |p: &str| tracker.origin_of(p).map(|o| (o.line, o.column));
    assert_eq!(at(""), Some((8, 5)), "entry key");
    assert_eq!(at("/command"), Some((9, 18)));
    assert_eq!(at("/args/1"), Some((10, 22)));
    assert_eq!(at("/env/TRACKER_TOKEN"), Some((11, 33)));
    let codex = config::load_path(&base.join("codex/config.toml")).expect("codex");
    let legacy = codex.iter().find(|s| s.name == "legacy").expect("legacy");
    assert_eq!(
        legacy
            .origin_of("/bearer_token")
            .map(|o| (o.line, o.column)),
        Some((18, 16))
    );
    let yaml = config::load_path(&base.join("continue/config.yaml")).expect("continue");
    assert_eq!(
        yaml[0].origin_of("/args/1").map(|o| (o.line, o.column)),
        Some((10, 9))
    );
}

#[test]
fn syntax_and_shape_errors_name_file_line_and_column() {
    let dir = tempfile::tempdir().expect("tmp");
    let bad = dir.path().join(".mcp.json");
    std::fs::write(
        &bad,
        "{\n  \"mcpServers\": {\n    \"a\": { \"command\": \"x\" \"args\": [] }\n  }\n}\n",
    )
    .expect("write");
    let e = config::load_path(&bad).expect_err("syntax").to_string();
    assert!(e.contains(".mcp.json:3:27:"), "{e}");
    std::fs::write(
        &bad,
        "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"args\": \"-y pkg\"}}}",
    )
    .expect("write");
    let e = config::load_path(&bad).expect_err("shape").to_string();
    assert!(
        e.contains(".mcp.json:1:47:") && e.contains("`args` must be an array"),
        "{e}"
    );
    std::fs::write(&bad, "{\"mcpServers\": {\"a\": {\"env\": {}}}}").expect("write");
    let e = config::load_path(&bad).expect_err("no command").to_string();
    assert!(e.contains("neither a `command` nor a `url`"), "{e}");
    let unknown = dir.path().join("other.json");
    std::fs::write(&unknown, "{\"editor.fontSize\": 12}").expect("write");
    let e = config::load_path(&unknown)
        .expect_err("unknown")
        .to_string();
    assert!(e.contains("--host"), "{e}");
    let toml = dir.path().join("config.toml");
    std::fs::write(&toml, "[mcp_servers.a]\ncommand = \n").expect("write");
    let e = config::load_path(&toml).expect_err("toml").to_string();
    assert!(e.contains("config.toml:2:"), "{e}");
}

#[test]
fn discover_finds_user_and_project_configs_on_every_os_layout() {
    let dir = tempfile::tempdir().expect("tmp");
    let home = dir.path().join("home");
    let repo = dir.path().join("repo");
    let files = [
        (home.join(".claude.json"), r#"{"mcpServers": {}}"#),
        (
            home.join("Library/Application Support/Claude/claude_desktop_config.json"),
            r#"{"mcpServers": {}}"#,
        ),
        (
            home.join("AppData/Roaming/Code/User/mcp.json"),
            r#"{"servers": {}}"#,
        ),
        (
            home.join(".config/Code/User/settings.json"),
            r#"{"editor.fontSize": 12}"#,
        ),
        (home.join(".codex/config.toml"), "[mcp_servers]\n"),
        (home.join(".continue/mcpServers/a.yaml"), "mcpServers: []\n"),
        (repo.join(".mcp.json"), r#"{"mcpServers": {}}"#),
        (repo.join(".vscode/mcp.json"), r#"{"servers": {}}"#),
        (repo.join(".gemini/settings.json"), r#"{"mcpServers": {}}"#),
    ];
    for (p, body) in &files {
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, body).expect("write");
    }
    std::fs::create_dir_all(repo.join(".git")).expect("git");
    let sub = repo.join("src");
    std::fs::create_dir_all(&sub).expect("mkdir");
    let found = config::discover(&home, &sub);
    let got: Vec<(String, &str, Scope)> = found
        .iter()
        .map(|d| {
            (
                d.path
                    .strip_prefix(dir.path())
                    .expect("inside")
                    .display()
                    .to_string(),
                d.host.id(),
                d.scope,
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("repo/.mcp.json".to_string(), "claude-code", Scope::Project),
            (
                "repo/.vscode/mcp.json".to_string(),
                "vscode",
                Scope::Project
            ),
            (
                "repo/.gemini/settings.json".to_string(),
                "gemini",
                Scope::Project
            ),
            (
                "home/Library/Application Support/Claude/claude_desktop_config.json".to_string(),
                "claude-desktop",
                Scope::User
            ),
            ("home/.claude.json".to_string(), "claude-code", Scope::User),
            (
                "home/AppData/Roaming/Code/User/mcp.json".to_string(),
                "vscode",
                Scope::User
            ),
            ("home/.codex/config.toml".to_string(), "codex", Scope::User),
            (
                "home/.continue/mcpServers/a.yaml".to_string(),
                "continue",
                Scope::User
            ),
        ]
    );
    for d in &found {
        config::load_path_as(&d.path, d.host).unwrap_or_else(|e| panic!("{e}"));
    }
}

fn rules_of(findings: &[mcpvet::model::finding::Finding], server: &str) -> Vec<String> {
    let mut r: Vec<String> = findings
        .iter()
        .filter(|f| f.server == server)
        .map(|f| format!("{}:{}", f.rule, f.severity))
        .collect();
    r.sort();
    r
}

#[test]
fn seed_proposal_is_flagged_and_pinned_ci_insights_passes_the_allowlist() {
    let base = fixtures().join("seed");
    let specs = config::load_path(&base.join(".mcp.json")).expect("seed");
    let findings: Vec<_> = specs.iter().flat_map(launch_audit::audit_spec).collect();
    assert_eq!(
        rules_of(&findings, "tracker"),
        vec!["broad-credential:high", "unpinned-package:medium"]
    );
    assert!(rules_of(&findings, "ci-insights").is_empty());
    let tracker = specs.iter().find(|s| s.name == "tracker").expect("tracker");
    assert!(
        launch_audit::unpinned_reason(tracker)
            .is_some_and(|r| r.contains("example-tracker-mcp@latest"))
    );
    let ci = specs.iter().find(|s| s.name == "ci-insights").expect("ci");
    assert_eq!(launch_audit::unpinned_reason(ci), None);
    assert_eq!(
        mcpvet::model::package::package_identity(ci).as_deref(),
        Some("npm:ci-insights@0.1.0")
    );

    let policy = Policy::load(&base.join("mcpvet.toml")).expect("policy");
    let outcome = policy.evaluate(&specs, findings, &|_: &str| true);
    assert_eq!(
        rules_of(&outcome.findings, "tracker"),
        vec![
            "broad-credential:high",
            "not-allowlisted:high",
            "unpinned-package:high"
        ]
    );
    assert!(
        rules_of(&outcome.findings, "ci-insights").is_empty(),
        "{:#?}",
        outcome.findings
    );
    assert!(outcome.warnings.is_empty(), "{:?}", outcome.warnings);
    assert_eq!(outcome.fail_on, Severity::High);
}

fn spec_from(json: &str) -> Vec<ServerSpec> {
    config::load_str(Path::new("/repo/.mcp.json"), json).expect("parses")
}

#[test]
fn policy_credentials_pins_denies_locks_remaps_and_warnings() {
    let specs = spec_from(
        r#"{"mcpServers": {
            "ci-insights": {"command": "npx", "args": ["-y", "ci-insights@0.1.0"],
                            "env": {"CI_TOKEN": "${CI_TOKEN}", "DEPLOY_TOKEN": "${DEPLOY_TOKEN}"}},
            "docs": {"command": "npx", "args": ["-y", "docs-mcp@2.0.0"]},
            "bad": {"command": "uvx", "args": ["evil-mcp==1.0"]},
            "remote": {"url": "http://intranet.example.test/mcp"}
        }}"#,
    );
    let policy = Policy::parse(
        Path::new("mcpvet.toml"),
        r#"
require-lock = true
[[allow]]
name = "ci-insights"
credentials = ["CI_TOKEN"]
reason = "reviewed"
[[allow]]
name = "docs"
package = "npm:docs-mcp@1.*"
reason = "reviewed 1.x"
[[allow]]
url = "http://intranet.example.test/*"
reason = "lab"
[[allow]]
name = "gone"
reason = "was removed"
[[deny]]
package = "pypi:evil-mcp*"
reason = "exfiltrates"
[[remap]]
rule = "insecure-transport"
server = "remote"
severity = "low"
reason = "isolated lab network"
[[ignore]]
rule = "literal-secret"
reason = "nothing to ignore"
"#,
    )
    .expect("policy");
    let findings: Vec<_> = specs.iter().flat_map(launch_audit::audit_spec).collect();
    let outcome = policy.evaluate(&specs, findings, &|s: &str| s == "docs");
    assert_eq!(
        rules_of(&outcome.findings, "ci-insights"),
        vec!["broad-credential:high", "unlocked-server:high"]
    );
    assert!(
        outcome
            .findings
            .iter()
            .any(|f| f.message.contains("DEPLOY_TOKEN"))
    );
    assert_eq!(
        rules_of(&outcome.findings, "docs"),
        vec!["pin-mismatch:high"]
    );
    assert_eq!(
        rules_of(&outcome.findings, "bad"),
        // Denied, so not also reported as missing from the allowlist.
        vec!["denied-server:critical", "unlocked-server:high"]
    );
    assert_eq!(
        rules_of(&outcome.findings, "remote"),
        vec!["insecure-transport:low", "unlocked-server:high"]
    );
    let warnings: Vec<String> = outcome.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(
        !warnings.iter().any(|w| w.contains("CI_TOKEN")),
        "granted and used: {warnings:?}"
    );
    assert!(
        warnings
            .iter()
            .any(|w| w.starts_with("mcpvet.toml:14:1:") && w.contains("gone")),
        "{warnings:?}"
    );
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("ignore { rule = \"literal-secret\" } matched no finding")),
        "{warnings:?}"
    );
}

#[test]
fn policy_scopes_decide_whether_a_broad_credential_is_accepted() {
    let specs = spec_from(
        r#"{"mcpServers": {"t": {"command": "t-mcp", "env": {"TRACKER_TOKEN": "${TRACKER_ADMIN_TOKEN}"}}}}"#,
    );
    let eval = |scope: &str| {
        let p = Policy::parse(
            Path::new("p.toml"),
            &format!("[[allow]]\nname = \"t\"\ncredentials = [{{ name = \"TRACKER_TOKEN\", scope = \"{scope}\" }}]\nreason = \"r\"\n"),
        )
        .expect("policy");
        let f: Vec<_> = specs.iter().flat_map(launch_audit::audit_spec).collect();
        p.evaluate(&specs, f, &|_: &str| true).findings
    };
    assert_eq!(rules_of(&eval("read"), "t"), vec!["broad-credential:high"]);
    assert_eq!(rules_of(&eval("admin"), "t"), vec!["broad-credential:info"]);
}

fn mcpvet(args: &[&str], cwd: &Path) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mcpvet"))
        .args(args)
        .current_dir(cwd)
        .env("HOME", cwd)
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn check_never_prints_a_secret_in_any_format() {
    let dir = tempfile::tempdir().expect("tmp");
    std::fs::create_dir(dir.path().join(".git")).expect("git");
    // Built at run time so no token-shaped string sits in the repository.
    let pat = format!("ghp_{}", "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa");
    let pg = format!("s3cr3t{}", "Passw0rdXYZ");
    let generic = format!("Zq81mXk2{}", "0pLw93RtY7");
    let cfg = format!(
        r#"{{"mcpServers": {{
            "tracker": {{"command": "npx", "args": ["-y", "example-tracker-mcp@latest", "--token", "{pat}"],
                         "env": {{"TRACKER_TOKEN": "{pat}", "DB": "postgres://u:{pg}@db.example.test/x"}}}},
            "remote": {{"url": "http://mcp.example.test/mcp?api_key={generic}", "headers": {{"Authorization": "Bearer {pg}"}}}},
            "admin": {{"command": "npx", "args": ["-y", "admin-mcp@latest", "--api-key={generic}", "--token", "{generic}"],
                       "env": {{"ORG_ADMIN_TOKEN": "{generic}"}}}}
        }}}}"#
    );
    std::fs::write(dir.path().join(".mcp.json"), cfg).expect("write");
    for format in ["table", "json", "sarif", "github"] {
        let (code, out, err) = mcpvet(&["check", "--format", format], dir.path());
        assert_eq!(code, 1, "{format}: {out}{err}");
        assert!(out.contains("literal-secret"), "{format}: {out}");
        assert!(out.contains("broad-credential"), "{format}: {out}");
        for secret in [
            pat.as_str(),
            pg.as_str(),
            &pat[4..],
            generic.as_str(),
            &generic[..12],
        ] {
            assert!(
                !out.contains(secret) && !err.contains(secret),
                "{format} leaked a secret:\n{out}"
            );
        }
    }
    let (_, table, _) = mcpvet(&["check", ".mcp.json"], dir.path());
    assert!(
        table.contains("ghp_…Ba"[..0].to_string().as_str()) && table.contains("ghp_…"),
        "{table}"
    );
}

#[test]
fn check_exit_codes_and_policy_errors() {
    let dir = tempfile::tempdir().expect("tmp");
    std::fs::create_dir(dir.path().join(".git")).expect("git");
    std::fs::write(
        dir.path().join(".mcp.json"),
        r#"{"mcpServers": {"ci": {"command": "npx", "args": ["-y", "ci-insights@0.1.0"]}}}"#,
    )
    .expect("write");
    let (code, out, _) = mcpvet(&["check"], dir.path());
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("ci-insights@0.1.0") || out.contains(".mcp.json (claude-code"),
        "{out}"
    );
    std::fs::write(
        dir.path().join("mcpvet.toml"),
        "require-lock = true\nfial-on = \"high\"\n",
    )
    .expect("write");
    let (code, _, err) = mcpvet(&["check"], dir.path());
    assert_eq!(code, 2);
    assert!(
        err.contains("mcpvet.toml:2:1:") && err.contains("fial-on"),
        "{err}"
    );
    std::fs::write(dir.path().join("mcpvet.toml"), "require-lock = true\n").expect("write");
    let (code, out, _) = mcpvet(&["check"], dir.path());
    assert_eq!(code, 1);
    assert!(out.contains("unlocked-server"), "{out}");
    // A real lock of the configured launch satisfies require-lock.
    let lock_for = |args: &[&str]| {
        let spec = mcpvet::model::spec::ServerSpec {
            name: "ci".into(),
            host: mcpvet::model::host::Host::Format(mcpvet::model::host::HostFormat::ClaudeCode),
            origin: None,
            locations: Default::default(),
            transport: mcpvet::model::spec::Transport::Stdio {
                command: "npx".into(),
                args: args.iter().map(|a| a.to_string()).collect(),
                env: Default::default(),
                cwd: None,
            },
            settings: Default::default(),
            duplicate_keys: Vec::new(),
        };
        let snap = mcpvet::model::snapshot::ServerSnapshot {
            server: "ci".into(),
            tools: vec![serde_json::json!({"name": "t", "inputSchema": {"type": "object"}})],
            ..Default::default()
        };
        mcpvet::lock::Lockfile::from_snapshot(
            &snap,
            Some(&spec),
            mcpvet::lock::Approval::new("test", "2026-11-30T00:00:00Z"),
        )
        .write_atomic(dir.path().join("lockfiles"))
        .expect("lock written");
    };
    std::fs::create_dir(dir.path().join("lockfiles")).expect("mkdir");
    lock_for(&["-y", "ci-insights@0.1.0"]);
    let (code, out, _) = mcpvet(&["check", "--fail-on", "medium"], dir.path());
    assert_eq!(code, 0, "{out}");
    // A lockfile that approved another version: pin-mismatch.
    lock_for(&["-y", "ci-insights@0.0.9"]);
    let (code, out, _) = mcpvet(&["check"], dir.path());
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("pin-mismatch") && out.contains("ci-insights@0.0.9"),
        "{out}"
    );
    let (code, out, _) = mcpvet(&["check", "--no-policy"], dir.path());
    assert_eq!(code, 1, "lockfiles are checked without a policy too: {out}");
    assert!(out.contains("pin-mismatch"), "{out}");
    let (code, _, err) = mcpvet(&["check", "--host", "nope", ".mcp.json"], dir.path());
    assert_eq!(code, 2);
    assert!(err.contains("unknown host format"), "{err}");
}

#[test]
fn discover_flag_reports_where_configs_came_from() {
    let dir = tempfile::tempdir().expect("tmp");
    std::fs::create_dir(dir.path().join(".git")).expect("git");
    std::fs::create_dir_all(dir.path().join(".codex")).expect("mkdir");
    std::fs::write(
        dir.path().join(".codex/config.toml"),
        "[mcp_servers.t]\ncommand = \"uvx\"\nargs = [\"t==1.0\"]\n",
    )
    .expect("write");
    let (code, out, err) = mcpvet(&["check", "--discover", "--no-policy"], dir.path());
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains(".codex/config.toml (codex, project scope): t"),
        "{out}"
    );
    // A broken user-scope file found by --discover is skipped with a warning, not fatal.
    std::fs::write(dir.path().join(".claude.json"), "{ broken").expect("write");
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).expect("mkdir");
    let out = Command::new(env!("CARGO_BIN_EXE_mcpvet"))
        .args(["check", "--discover", "--no-policy"])
        .current_dir(&sub)
        .env("HOME", dir.path())
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("warning: skipped") && stdout.contains(".claude.json:1:3:"),
        "{stdout}"
    );
}

/// A project with `ci` in its `.mcp.json` and `settings` as its `.claude/settings.json`.
fn claude_project(settings: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tmp");
    std::fs::create_dir(dir.path().join(".git")).expect("git");
    std::fs::create_dir(dir.path().join(".claude")).expect("mkdir");
    std::fs::write(
        dir.path().join(".mcp.json"),
        r#"{"mcpServers": {"ci": {"command": "ci-insights"}}}"#,
    )
    .expect("write");
    std::fs::write(dir.path().join(".claude/settings.json"), settings).expect("write");
    dir
}

#[test]
fn claude_project_settings_that_skip_approval_are_auto_trust() {
    let dir = claude_project("{\n  \"enableAllProjectMcpServers\": true\n}\n");
    let (code, out, _) = mcpvet(&["check"], dir.path());
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("auto-trust") && out.contains(".claude/settings.json:2:33"),
        "{out}"
    );
}

/// Claude Code reads its settings with `JSON.parse` (last key wins): a `false` a reviewer reads
/// first, then a `true` further down, starts every project server without asking.
#[test]
fn a_duplicate_approval_key_in_claude_settings_is_reported() {
    let dir = claude_project(
        "{\n  \"enableAllProjectMcpServers\": false,\n  \"model\": \"x\",\n  \"enableAllProjectMcpServers\": true\n}\n",
    );
    let (code, out, _) = mcpvet(&["check"], dir.path());
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("duplicate-config-key")
            && out.contains("ignored: .claude/settings.json:2:3; used: .claude/settings.json:4:3"),
        "{out}"
    );
    assert!(
        out.contains("auto-trust"),
        "the last value is the one judged: {out}"
    );
}

#[test]
fn init_writes_a_valid_template_and_refuses_to_overwrite() {
    let dir = tempfile::tempdir().expect("tmp");
    let (code, _, err) = mcpvet(&["init"], dir.path());
    assert_eq!(code, 0, "{err}");
    let path = dir.path().join("mcpvet.toml");
    let written = std::fs::read_to_string(&path).expect("written");
    assert_eq!(written, mcpvet::policy::TEMPLATE);
    Policy::load(&path).expect("template is a valid policy");
    std::fs::write(&path, "# mine\n").expect("write");
    let (code, _, err) = mcpvet(&["init"], dir.path());
    assert_eq!(code, 2);
    assert!(err.contains("--force"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).expect("kept"), "# mine\n");
    let (code, _, _) = mcpvet(&["init", "--force"], dir.path());
    assert_eq!(code, 0);
    assert_eq!(
        std::fs::read_to_string(&path).expect("replaced"),
        mcpvet::policy::TEMPLATE
    );
}

#[test]
fn rule_metadata_is_complete() {
    let metas: Vec<_> = launch_audit::rule_meta()
        .into_iter()
        .chain(mcpvet::policy::rule_meta())
        .collect();
    let mut ids: Vec<&str> = metas.iter().map(|m| m.id.as_str()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), metas.len(), "unique ids");
    for m in &metas {
        assert!(
            !m.summary.is_empty() && !m.why.is_empty() && !m.example.is_empty(),
            "{}",
            m.id
        );
    }
}

/// `"type": "sse"` (any host) and Gemini CLI's `url` without `httpUrl` select the deprecated
/// HTTP+SSE transport: `check` says so, at the key that selects it; `httpUrl` does not.
#[test]
fn check_reports_the_deprecated_sse_transport_at_its_key() {
    let dir = tempfile::tempdir().expect("tmp");
    std::fs::create_dir(dir.path().join(".git")).expect("git");
    std::fs::write(
        dir.path().join(".mcp.json"),
        "{\"mcpServers\": {\n  \"old\": {\"type\": \"sse\", \"url\": \"https://mcp.example.test/sse\"},\n  \"new\": {\"type\": \"http\", \"url\": \"https://mcp.example.test/mcp\"}\n}}\n",
    )
    .expect("write");
    std::fs::create_dir(dir.path().join(".gemini")).expect("mkdir");
    std::fs::write(
        dir.path().join(".gemini/settings.json"),
        "{\"mcpServers\": {\n  \"gem-sse\": {\"url\": \"https://mcp.example.test/sse\"},\n  \"gem-http\": {\"httpUrl\": \"https://mcp.example.test/mcp\"}\n}}\n",
    )
    .expect("write");
    let (_, out, err) = mcpvet(&["check", "--format", "json", "--no-policy"], dir.path());
    let report: serde_json::Value = serde_json::from_str(&out).expect(&err);
    let mut flagged: Vec<(String, String)> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["rule"] == "deprecated-transport")
        .map(|f| {
            let at = &f["location"]["config"];
            (
                f["server"].as_str().unwrap_or_default().to_string(),
                format!("{}:{}", at["file"].as_str().unwrap_or_default(), at["line"]),
            )
        })
        .collect();
    flagged.sort();
    assert_eq!(
        flagged,
        vec![
            ("gem-sse".to_string(), ".gemini/settings.json:2".to_string()),
            ("old".to_string(), ".mcp.json:2".to_string()),
        ],
        "{out}"
    );
}
