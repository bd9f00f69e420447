//! Each recogniser with what it must redact and what it must leave alone.

use super::*;

fn body(n: usize) -> String {
    "aB3dE5gH7jK9mN1pQ2sT4vW6yZ8cF0hL"
        .chars()
        .cycle()
        .take(n)
        .collect()
}

fn hides(text: &str, secret: &str) {
    for style in [Style::Show, Style::Lock] {
        let out = redact_text_as(text, style);
        assert!(!out.contains(secret), "{style:?}: {secret} in {out}");
    }
}

fn keeps(text: &str) {
    assert_eq!(redact_text(text), text);
    assert_eq!(lock_text(text), text);
}

#[test]
fn token_shapes_are_redacted_anywhere_in_text() {
    let hex64: String = "0123456789abcdef".repeat(4);
    for secret in [
        format!("ghp_{}", body(36)),
        format!("github_pat_{}", body(82)),
        format!("ghs_{}", body(36)),
        format!("glpat-{}", body(20)),
        format!("xoxb-{}", body(24)),
        format!("xoxp-{}", body(24)),
        format!("AKIA{}", body(16).to_uppercase()),
        format!("AIza{}", body(35)),
        format!("sk-proj-{}", body(48)),
        format!("sk-ant-api03-{}", body(80)),
        format!("sk_live_{}", body(24)),
        format!("npm_{}", body(36)),
        format!("pypi-AgE{}", body(60)),
        format!("SK{}", &hex64[..32]),
        format!("SG.{}.{}", body(22), body(43)),
        format!("hf_{}", body(34)),
        format!("dop_v1_{hex64}"),
        format!("eyJ{}.eyJ{}.{}", body(20), body(30), body(40)),
    ] {
        hides(&format!("use {secret} here"), &secret);
        hides(&format!("\"{secret}\","), &secret);
    }
    let azure = format!("{}==", body(86));
    hides(
        &format!(
            "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={azure};EndpointSuffix=core"
        ),
        &azure,
    );
    let bearer = body(40);
    hides(&format!("Authorization: Bearer {bearer}"), &bearer);
}

#[test]
fn the_shown_form_keeps_a_marker_and_the_last_four() {
    let pat = format!("ghp_{}", body(36));
    assert_eq!(redact_text(&pat), format!("ghp_…{}", &pat[pat.len() - 4..]));
    assert_eq!(lock_text(&pat), "REDACTED");
    assert_eq!(redact("abc123", "ab"), "…[6 chars]");
}

#[test]
fn pem_private_keys_are_redacted_whole_in_every_form() {
    let key = body(64);
    let multi =
        format!("-----BEGIN RSA PRIVATE KEY-----\n{key}\n{key}\n-----END RSA PRIVATE KEY-----");
    let escaped = multi.replace('\n', "\\n");
    let openssh = multi.replace("RSA", "OPENSSH");
    let truncated = format!("-----BEGIN PRIVATE KEY-----\n{key}\n{key}");
    for text in [&multi, &escaped, &openssh, &truncated] {
        hides(text, &key);
        assert!(
            redact_text(text).contains("PRIVATE KEY"),
            "{}",
            redact_text(text)
        );
    }
    // In a serialised JSON string the replacement stays inside the string.
    let json = serde_json::json!({"env": {"KEY_PEM": multi}}).to_string();
    let out = redact_text(&json);
    assert!(!out.contains(&key));
    assert!(serde_json::from_str::<Value>(&out).is_ok(), "{out}");
}

#[test]
fn url_userinfo_and_secret_query_values_are_redacted() {
    let pw = body(20);
    hides(&format!("https://user:{pw}@example.test/mcp"), &pw);
    let tok = format!("ghp_{}", body(36));
    hides(&format!("https://{tok}@github.test/x.git"), &tok);
    let v = body(30);
    for name in [
        "api_key",
        "token",
        "access_token",
        "sig",
        "apikey",
        "X-Amz-Signature",
        "client_secret",
    ] {
        let url = format!("https://example.test/mcp?team=a&{name}={v}&v=2");
        hides(&url, &v);
        assert!(!url_for_report(&url).contains(&v), "{name}");
        assert!(!url_for_lock(&url).contains(&v), "{name}");
        assert!(
            redact_text(&url).contains("team=a"),
            "{}",
            redact_text(&url)
        );
    }
    // A value shaped like a secret under an innocent name (even with a single digit).
    hides(&format!("https://example.test/?q={v}"), &v);
    hides(
        "https://example.test/?x=Aa1DssiVpsbDjAEZOWUjYUUIlftb",
        "Aa1DssiVpsbDjAEZOWUjYUUIlftb",
    );
    assert_eq!(
        url_for_report("https://u:p@Mcp.Example.com?Api_Key=abc&team=x"),
        "https://***@Mcp.Example.com?Api_Key=***&team=x"
    );
}

#[test]
fn ordinary_urls_are_left_alone() {
    keeps("https://example.test/mcp?page=2&sort=created_at_desc#top");
    keeps("https://example.test/docs?design=dark&author=me&keyword=token");
    keeps("git+https://github.test/org/repo.git#3f2a9c1d0e8b7a6f5e4d3c2b1a0f9e8d7c6b5a49");
    keeps("https://example.test/items/123e4567-e89b-12d3-a456-426614174000?ref=main");
    keeps("postgres://app:${DB_PASSWORD}@db/x");
}

#[test]
fn url_forms_keep_the_bytes_they_were_given() {
    // What a normalising URL parser would change stays as written: the lock form is hashed.
    for (url, lock) in [
        ("https://acme.example.test", "https://acme.example.test"),
        (
            "HTTPS://API.Example.test:443/mcp",
            "HTTPS://API.Example.test:443/mcp",
        ),
        ("http://[::1]:8443", "http://[::1]:8443"),
        ("https://example.test/a b", "https://example.test/a b"),
        (
            "mcp.example.test/mcp?token=t",
            "mcp.example.test/mcp?token=REDACTED",
        ),
        (
            "https://user:pw@example.test/mcp?api_key=abc&v=2#x",
            "https://example.test/mcp?api_key=REDACTED&v=2#x",
        ),
    ] {
        assert_eq!(url_for_lock(url), lock, "{url}");
    }
    assert_eq!(
        url_for_report("http://localhost:3000"),
        "http://localhost:3000"
    );
}

#[test]
fn values_after_secret_named_flags_are_redacted_in_both_forms() {
    let v = body(24);
    for flag in [
        "--token",
        "--api-key",
        "--apikey",
        "--password",
        "--secret",
        "--auth",
        "--access-token",
        "--client-secret",
        "--github-token",
        "--aws-secret-access-key",
    ] {
        for style in [Style::Show, Style::Lock] {
            let sep = redact_argv("node", &[flag.into(), v.clone()], style).join(" ");
            let eq = redact_argv("node", &[format!("{flag}={v}")], style).join(" ");
            assert!(!sep.contains(&v) && sep.starts_with(flag), "{sep}");
            assert!(
                !eq.contains(&v) && eq.starts_with(&format!("{flag}=")),
                "{eq}"
            );
        }
        hides(&format!("server {flag} {v} --verbose"), &v);
        hides(&format!("server {flag}={v}"), &v);
    }
}

#[test]
fn ordinary_flag_values_are_left_alone() {
    let args: Vec<String> = [
        "-y",
        "@scope/server@1.2.3",
        "--token-file",
        "/run/secrets/token",
        "--max-tokens",
        "4096",
        "--key",
        "./certs/server.key",
        "--auth",
        "oauth",
        "--password",
        "${DB_PASSWORD}",
        "--api-key",
        "<YOUR_API_KEY>",
        "--integrity",
        "sha512-3f2a9c1d0e8b7a6f5e4d3c2b1a0f9e8d7c6b5a493f2a9c1d0e8b7a6f5e4d3c2b1a0f9e8d7c6b5a49",
        "--id",
        "123e4567-e89b-12d3-a456-426614174000",
        "--port",
        "8080",
    ]
    .map(String::from)
    .to_vec();
    assert_eq!(redact_argv("npx", &args, Style::Show), args);
    assert_eq!(redact_argv("npx", &args, Style::Lock), args);
    keeps("Pass --token to choose a token file, see --help; version 1.2.3-beta.4");
}

#[test]
fn known_clients_password_options_are_redacted() {
    let v = body(14);
    let show = |cmd: &str, args: &[&str]| {
        let a: Vec<String> = args.iter().map(|s| (*s).to_string()).collect();
        redact_argv(cmd, &a, Style::Show).join(" ")
    };
    assert!(!show("mysql", &["-uroot", &format!("-p{v}"), "db"]).contains(&v));
    assert!(!show("sshpass", &["-p", &v, "ssh", "host"]).contains(&v));
    assert!(!show("redis-cli", &["-h", "h", "-a", &v]).contains(&v));
    assert!(!show("docker", &["run", "img", "mongosh", "-p", &v]).contains(&v));
    // `-p` of other tools is a port or a path, not a password.
    assert_eq!(show("psql", &["-p", "5432", "-h", "db"]), "-p 5432 -h db");
    assert_eq!(
        show("docker", &["run", "-p", "8080:80", "img"]),
        "run -p 8080:80 img"
    );
    hides(&format!("mysql -uroot -p{v} -e 'select 1'"), &v);
}

#[test]
fn shell_strings_assignments_are_redacted() {
    let v = body(28);
    for script in [
        format!("X_TOKEN={v} npx -y server@1.0.0"),
        format!("export API_KEY={v}; exec server"),
        format!("export DB_PASSWORD=\"{v}\" && server"),
        format!("GITHUB_TOKEN='{v}' server --flag"),
        format!("server --api-key {v}"),
        format!("aws_secret_access_key = {v}"),
    ] {
        let out = redact_argv("sh", &["-c".into(), script.clone()], Style::Show);
        assert!(!out[1].contains(&v), "{}", out[1]);
        hides(&script, &v);
    }
    keeps("MAX_TOKENS=4096 LOG_LEVEL=debug TOKEN_URL=https://auth.example.test/token server");
}

#[test]
fn secret_named_places_hide_high_entropy_values() {
    let v = body(32);
    hides(&format!("X-Api-Key: {v}"), &v);
    hides(&format!("{{\"client_secret\": \"{v}\"}}"), &v);
    assert!(!redact_field(Some("AWS_SECRET_ACCESS_KEY"), &v).contains(&v));
    assert_eq!(redact_field(Some("LOG_LEVEL"), "debug"), "debug");
    assert_eq!(
        redact_field(Some("GITHUB_TOKEN"), "${GITHUB_TOKEN}"),
        "${GITHUB_TOKEN}"
    );
    let doc = serde_json::json!({"name": "t", "default": {"api_key": v, "region": "eu-west-1"}});
    let out = redact_json(&doc, Style::Lock).to_string();
    assert!(!out.contains(&v) && out.contains("eu-west-1"), "{out}");
}

#[test]
fn plain_prose_paths_and_hashes_are_not_redacted() {
    keeps("Read a file under /home/me/project/src/main.rs and return its lines.");
    keeps("Returns the build status; requires the token to have read:packages scope.");
    keeps("integrity sha512-9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08");
    keeps("commit 3f2a9c1d0e8b7a6f5e4d3c2b1a0f9e8d7c6b5a49 at v1.2.3");
    keeps("password: the user's password; token: string");
    keeps("Bearer tokens are accepted.");
    keeps("A tool has an input parameter for a secret: password, token, API key.");
    keeps("Use --password carefully; TRACKER_TOKEN = ${TRACKER_ADMIN_TOKEN}");
    keeps("env GITHUB_TOKEN=${GITHUB_TOKEN} and X_TOKEN=$X_TOKEN");
}

#[test]
fn a_snapshot_for_a_file_keeps_its_shape_but_no_secret() {
    let pat = format!("ghp_{}", body(36));
    let snap = ServerSnapshot {
        server: "s".into(),
        instructions: Some(format!("Use {pat}.")),
        tools: vec![serde_json::json!({
            "name": "t",
            "description": format!("token {pat}"),
            "inputSchema": {"type": "object", "properties": {"password": {"default": body(20)}}}
        })],
        ..ServerSnapshot::default()
    };
    let out = redact_snapshot(&snap, Style::Lock);
    let text = serde_json::to_string(&out).unwrap_or_default();
    assert!(!text.contains(&pat) && !text.contains(&body(20)), "{text}");
    assert_eq!(out.tools[0]["name"], "t");
    assert_eq!(out.instructions.as_deref(), Some("Use REDACTED."));
    // A snapshot without secrets is left exactly as it was.
    let clean = ServerSnapshot {
        server: "s".into(),
        tools: vec![
            serde_json::json!({"name": "get_build", "description": "Build status of owner/repo@v1.2.3."}),
        ],
        ..ServerSnapshot::default()
    };
    assert_eq!(redact_snapshot(&clean, Style::Lock), clean);
}

#[test]
fn a_pointer_is_redacted_segment_by_segment_and_still_finds_its_redacted_key() {
    let token = format!("ghp_{}", body(36));
    let key = format!("cfg\u{200B}{token}");
    let def = serde_json::json!({"inputSchema": {"properties": {key.clone(): {"type": "string"}}}});
    let pointer = format!("/inputSchema/properties/{key}");
    for style in [Style::Show, Style::Lock] {
        let shown = redact_pointer(&pointer, style);
        assert!(!shown.contains(&token), "{shown}");
        assert!(
            shown.starts_with("/inputSchema/properties/cfg\u{200B}"),
            "{shown}"
        );
        let redacted = redact_json(&def, style);
        assert!(!redacted.to_string().contains(&token));
        assert!(redacted.pointer(&shown).is_some(), "{shown} in {redacted}");
    }
    // A key holding a `/` is one escaped segment: the secret is found whole.
    let aws = "AKIA".to_string() + "ABCDEFGHIJKLMNOP";
    let slash = format!("/a/x~1{aws}~0b");
    let shown = redact_pointer(&slash, Style::Show);
    assert!(
        !shown.contains(&aws) && shown.starts_with("/a/x~1"),
        "{shown}"
    );
    // Nothing to redact: the same text, not a copy.
    assert!(matches!(
        redact_pointer("/tools/0/description", Style::Show),
        std::borrow::Cow::Borrowed(_)
    ));
}

#[test]
fn a_short_name_or_pointer_is_not_searched_and_a_long_run_is() {
    assert!(!could_hold_token(
        "/tools/3/inputSchema/properties/query/description"
    ));
    assert!(!could_hold_token("list_issues"));
    assert!(could_hold_token(&format!("run_xoxb-{}", body(10))));
    assert!(could_hold_token(&format!(
        "/tools/0/inputSchema/properties/cfg\u{200B}ghp_{}",
        body(36)
    )));
    // The shortest token format is found whole by the run.
    let shortest = format!("xoxb-{}", body(10));
    assert_eq!(shortest.chars().count(), 15);
    assert!(could_hold_token(&shortest) && !find_secrets(&shortest).is_empty());
}

#[test]
fn tool_of_gate_lets_every_client_through() {
    // The length and first-letter test before the look-up rules out no client's name.
    let names: Vec<&str> = ATTACHED_P
        .iter()
        .chain(SEPARATE_P)
        .chain(SEPARATE_A)
        .copied()
        .collect();
    assert_eq!(names.iter().map(|n| n.len()).min(), Some(TOOL_SHORTEST));
    assert_eq!(names.iter().map(|n| n.len()).max(), Some(TOOL_LONGEST));
    for name in names {
        assert_eq!(tool_of(name), Some(name));
        assert_eq!(tool_of(&format!("/usr/bin/{name}")), Some(name));
        assert_eq!(tool_of(&format!("{name}.exe")), Some(name));
        assert_eq!(TOOLS.get(name).copied(), Some(name));
    }
    for word in [
        "", "my", "mysqlx", "redis", "keydb", "Mysql", "the", "database",
    ] {
        assert_eq!(tool_of(word), TOOLS.get(word).copied(), "{word}");
    }
}
