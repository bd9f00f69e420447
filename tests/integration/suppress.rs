//! Suppressions a reviewer can audit, end to end: the baseline flow (`mcpvet baseline`, then
//! `scan`/`check --baseline`), fingerprints that survive reordered tools, moved lines and
//! added servers, stale and lying entries, hostile baseline files, and policy `[[ignore]]`
//! entries by fingerprint, tool, path and rule.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn mcpvet_in(cwd: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mcpvet"))
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .output()
        .expect("mcpvet runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A copy of the example config and its snapshots in a fresh folder (with a `.git` marker so
/// no policy above it is found).
fn example_copy(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("suppress-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("snapshots")).unwrap();
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    std::fs::copy(root().join("examples/mcp.json"), dir.join("mcp.json")).unwrap();
    for f in std::fs::read_dir(root().join("examples/snapshots")).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, dir.join("snapshots").join(f.file_name().unwrap())).unwrap();
    }
    dir
}

const SCAN: &[&str] = &[
    "scan",
    "--offline",
    "mcp.json",
    "--snapshot-dir",
    "snapshots",
];

/// `scan` with extra flags, as JSON.
fn scan_json(dir: &Path, extra: &[&str]) -> (i32, Value, String) {
    let mut args: Vec<&str> = SCAN.to_vec();
    args.extend(extra);
    args.extend(["--format", "json"]);
    let (code, out, err) = mcpvet_in(dir, &args);
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    (code, v, err)
}

fn cat<'a>(parts: &[&[&'a str]]) -> Vec<&'a str> {
    parts.concat()
}

fn prints(v: &Value) -> BTreeSet<String> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["fingerprint"].as_str().unwrap().to_owned())
        .collect()
}

fn edit_json(path: &Path, edit: impl FnOnce(&mut Value)) {
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    edit(&mut v);
    std::fs::write(path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
}

#[test]
fn baseline_flow_write_review_rerun_then_a_changed_tool_is_the_one_new_finding() {
    let dir = example_copy("flow");
    let (_, before, _) = scan_json(&dir, &[]);
    let all = before["findings"].as_array().unwrap().len();
    assert!(all >= 10, "{all}");

    // Write: one entry per finding, reasons left for the reviewer.
    let mut args: Vec<&str> = vec!["baseline"];
    args.extend(&SCAN[1..]);
    let (code, _, err) = mcpvet_in(&dir, &args);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains(&format!("{all} entries ({all} new")), "{err}");
    assert!(err.contains("without a reason"), "{err}");
    let text = std::fs::read_to_string(dir.join("mcpvet-baseline.toml")).unwrap();
    assert_eq!(text.matches("[[finding]]").count(), all);
    let (code, stdout, _) = mcpvet_in(&dir, &cat(&[&["baseline", "-o", "-"], &SCAN[1..]]));
    assert_eq!(
        (code, stdout.as_str()),
        (0, text.as_str()),
        "`-o -` is stdout"
    );
    assert!(!dir.join("-").exists());
    for key in [
        "fingerprint = ",
        "rule = ",
        "server = ",
        "tool = \"run_shell\"",
        "file = \"mcp.json\"",
        "pointer = \"/tools/",
    ] {
        assert!(text.contains(key), "{key} missing:\n{text}");
    }

    // An empty reason refuses the file, naming file, line and column.
    let (code, _, err) = mcpvet_in(&dir, &cat(&[SCAN, &["--baseline", "mcpvet-baseline.toml"]]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("mcpvet-baseline.toml:") && err.contains("`reason` is empty"),
        "{err}"
    );

    // The reviewer fills the reasons in; re-run: nothing new, all suppressed and counted.
    std::fs::write(
        dir.join("mcpvet-baseline.toml"),
        text.replace(
            "reason = \"\"",
            "reason = \"accepted when mcpvet was adopted (PLAT-1)\"",
        ),
    )
    .unwrap();
    let (code, v, err) = scan_json(&dir, &["--baseline", "mcpvet-baseline.toml"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(v["findings"].as_array().unwrap().len(), 0, "{v}");
    assert_eq!(v["summary"]["suppressed"], all);
    assert!(v["warnings"].as_array().unwrap().is_empty(), "{v}");
    let (code, table, _) = mcpvet_in(&dir, &cat(&[SCAN, &["--baseline", "mcpvet-baseline.toml"]]));
    assert_eq!(code, 0);
    assert!(
        table.contains(&format!("{all} findings suppressed")),
        "{table}"
    );
    assert!(
        table.contains("in baseline mcpvet-baseline.toml: accepted when mcpvet was adopted"),
        "{table}"
    );

    // The server moves its tools around: still nothing new.
    edit_json(&dir.join("snapshots/example-tracker.json"), |v| {
        v["tools"].as_array_mut().unwrap().reverse();
    });
    let (code, v, _) = scan_json(&dir, &["--baseline", "mcpvet-baseline.toml"]);
    assert_eq!(
        (code, v["findings"].as_array().unwrap().len()),
        (0, 0),
        "{v}"
    );

    // A tool changes: exactly one new finding, the rest still suppressed.
    edit_json(&dir.join("snapshots/example-tracker.json"), |v| {
        let tools = v["tools"].as_array_mut().unwrap();
        let t = tools.iter_mut().find(|t| t["name"] == "get_issue").unwrap();
        let d = t["description"].as_str().unwrap().to_owned();
        t["description"] = Value::String(format!("{d} Runs\u{200b} quietly."));
    });
    let (code, v, _) = scan_json(
        &dir,
        &["--baseline", "mcpvet-baseline.toml", "--fail-on", "low"],
    );
    let new = v["findings"].as_array().unwrap();
    assert_eq!(new.len(), 1, "{v}");
    assert_eq!(new[0]["rule"], "invisible-unicode");
    assert_eq!(new[0]["item"]["name"], "get_issue");
    assert_eq!(v["summary"]["suppressed"], all);
    assert_eq!(code, 1, "the new finding reaches --fail-on low");

    // A poisoned tool is removed: its entries are stale, reported with file and line.
    edit_json(&dir.join("snapshots/example-tracker.json"), |v| {
        v["tools"]
            .as_array_mut()
            .unwrap()
            .retain(|t| t["name"] != "search_issues");
    });
    let (_, v, _) = scan_json(&dir, &["--baseline", "mcpvet-baseline.toml"]);
    let warnings: Vec<&str> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert!(!warnings.is_empty());
    assert!(
        warnings
            .iter()
            .all(|w| w.starts_with("mcpvet-baseline.toml:")
                && w.contains("search_issues")
                && w.contains("matched no finding")),
        "{warnings:?}"
    );

    // Rewriting keeps the reviewed reasons, drops the stale entries, adds the new one.
    let (code, _, err) = mcpvet_in(&dir, &args);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("1 new"), "{err}");
    assert!(
        err.contains(&format!("{} dropped", warnings.len())),
        "{err}"
    );
    let text = std::fs::read_to_string(dir.join("mcpvet-baseline.toml")).unwrap();
    assert_eq!(text.matches("reason = \"\"").count(), 1, "{text}");
    assert!(!text.contains("search_issues"), "{text}");
}

#[test]
fn fingerprints_survive_an_added_server_and_moved_lines_and_agree_with_sarif() {
    let dir = example_copy("stable");
    let (_, a, _) = scan_json(&dir, &[]);
    // A second run, and a run from another folder naming the config by another path.
    let (_, again, _) = scan_json(&dir, &[]);
    assert_eq!(prints(&a), prints(&again));
    let (_, via_dot, _) = scan_json(&dir, &["./mcp.json"]);
    assert!(prints(&a).is_subset(&prints(&via_dot)));
    // An unrelated server added at the top of the config: every line below moves.
    let text = std::fs::read_to_string(dir.join("mcp.json")).unwrap();
    let added = text.replacen(
        "\"mcpServers\": {",
        "\"mcpServers\": {\n    \"weather\": {\n      \"command\": \"weather-mcp\",\n      \"env\": {\"API_TOKEN\": \"ghp_0123456789abcdefghijklmnopqrstuvwxyzAB\"}\n    },",
        1,
    );
    assert_ne!(added, text);
    std::fs::write(dir.join("mcp.json"), added).unwrap();
    let (_, b, _) = scan_json(&dir, &[]);
    let (pa, pb) = (prints(&a), prints(&b));
    assert!(
        pa.is_subset(&pb),
        "lost: {:?}",
        pa.difference(&pb).collect::<Vec<_>>()
    );
    assert!(
        b["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["server"] == "weather"),
        "the new server has findings of its own"
    );
    // SARIF carries the same identities.
    let (_, sarif, _) = mcpvet_in(&dir, &cat(&[SCAN, &["--format", "sarif"]]));
    let sarif: Value = serde_json::from_str(&sarif).unwrap();
    let in_sarif: BTreeSet<String> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["partialFingerprints"]["mcpvet/v1"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(in_sarif, pb);
}

#[test]
fn an_entry_whose_words_disagree_with_its_fingerprint_suppresses_nothing() {
    let dir = example_copy("lying");
    let mut args: Vec<&str> = vec!["baseline", "--reason", "reviewed"];
    args.extend(&SCAN[1..]);
    assert_eq!(mcpvet_in(&dir, &args).0, 0);
    let path = dir.join("mcpvet-baseline.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    // Someone relabels the hidden-instructions entry as a harmless pin warning.
    let lie = text.replacen(
        "rule = \"hidden-instructions\"",
        "rule = \"unpinned-package\"",
        1,
    );
    assert_ne!(lie, text);
    std::fs::write(&path, lie).unwrap();
    let (code, v, _) = scan_json(&dir, &["--baseline", "mcpvet-baseline.toml"]);
    assert_eq!(code, 1);
    let rules: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["hidden-instructions"]);
    let w = v["warnings"].to_string();
    assert!(
        w.contains("suppresses nothing until it is corrected"),
        "{w}"
    );
}

#[test]
fn a_static_baseline_serves_check_and_a_scan_baseline_does_not_go_stale_under_check() {
    let dir = example_copy("check");
    let (code, _, err) = mcpvet_in(
        &dir,
        &[
            "baseline",
            "--check",
            "--no-policy",
            "--reason",
            "r",
            "mcp.json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = mcpvet_in(
        &dir,
        &[
            "check",
            "--no-policy",
            "--baseline",
            "mcpvet-baseline.toml",
            "mcp.json",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["findings"].as_array().unwrap().len(), 0);
    assert!(v["summary"]["suppressed"].as_u64().unwrap() >= 2, "{v}");
    // A baseline made by scan holds definition findings `check` cannot see: not stale there.
    let mut args: Vec<&str> = vec!["baseline", "-o", "scan.toml", "--reason", "r"];
    args.extend(&SCAN[1..]);
    assert_eq!(mcpvet_in(&dir, &args).0, 0);
    let (code, out, _) = mcpvet_in(
        &dir,
        &[
            "check",
            "--no-policy",
            "--baseline",
            "scan.toml",
            "mcp.json",
            "--format",
            "json",
        ],
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(code, 0, "{v}");
    assert!(v["warnings"].as_array().unwrap().is_empty(), "{v}");
    // Rewriting it from `check` keeps the definition entries it could not check.
    let before = std::fs::read_to_string(dir.join("scan.toml")).unwrap();
    let (code, _, err) = mcpvet_in(
        &dir,
        &[
            "baseline",
            "--check",
            "--no-policy",
            "-o",
            "scan.toml",
            "mcp.json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("0 new") && err.contains("0 dropped") && err.contains("kept unchecked"),
        "{err}"
    );
    let after = std::fs::read_to_string(dir.join("scan.toml")).unwrap();
    assert_eq!(
        before.matches("[[finding]]").count(),
        after.matches("[[finding]]").count()
    );
    assert_eq!(
        after.matches("reason = \"r\"").count(),
        after.matches("[[finding]]").count()
    );
}

#[test]
fn hostile_baseline_files_are_errors_naming_file_and_line() {
    let dir = example_copy("hostile");
    let good = "version = 1\n\n[[finding]]\nfingerprint = \"0123456789abcdef0123456789abcdef\"\nrule = \"r\"\nserver = \"s\"\nreason = \"ok\"\n";
    let deep = format!(
        "version = 1\nx = {}{}\n",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "unknown key",
            good.replace("reason = \"ok\"", "reason = \"ok\"\nsuppress-all = true"),
            ":8:",
        ),
        (
            "bad fingerprint",
            good.replace("0123456789abcdef0123456789abcdef", "../../etc/passwd"),
            ":4:15:",
        ),
        (
            "version",
            good.replace("version = 1", "version = 2"),
            ":1:11:",
        ),
        (
            "duplicate",
            format!("{good}{}", &good["version = 1\n".len()..]),
            ":10:15:",
        ),
        ("empty reason", good.replace("\"ok\"", "\"  \""), ":7:10:"),
        ("no reason", good.replace("reason = \"ok\"\n", ""), ":3:"),
        (
            "two items",
            good.replace("reason", "tool = \"a\"\nprompt = \"b\"\nreason"),
            ":3:",
        ),
        (
            "bad severity",
            good.replace("reason", "severity = \"dire\"\nreason"),
            ":7:",
        ),
        ("not toml", "version = 1\n[[finding]\n".to_owned(), ":2:"),
        ("deep nesting", deep, "b.toml:"),
    ];
    for (what, text, at) in cases {
        std::fs::write(dir.join("b.toml"), &text).unwrap();
        let (code, out, err) = mcpvet_in(&dir, &cat(&[SCAN, &["--baseline", "b.toml"]]));
        assert_eq!(code, 2, "{what}: {out}{err}");
        assert!(
            err.contains("b.toml") && err.contains(at),
            "{what}: expected {at} in {err}"
        );
        assert!(err.lines().count() <= 4, "{what}: {err}");
    }
    // Bounded like every other read.
    std::fs::write(
        dir.join("b.toml"),
        format!("{good}# {}\n", "x".repeat(70_000)),
    )
    .unwrap();
    let (code, _, err) = mcpvet_in(
        &dir,
        &cat(&[
            &["--max-file-size", "64KiB"],
            SCAN,
            &["--baseline", "b.toml"],
        ]),
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("b.toml") && err.contains("64 KiB") || err.contains("65536"),
        "{err}"
    );
    // A FIFO is refused at once, not waited on.
    let fifo = dir.join("fifo.toml");
    let _ = std::fs::remove_file(&fifo);
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let (code, _, err) = mcpvet_in(&dir, &cat(&[SCAN, &["--baseline", "fifo.toml"]]));
    assert_eq!(code, 2, "{err}");
    // Hostile names are escaped in the file mcpvet writes.
    edit_json(&dir.join("snapshots/example-tracker.json"), |v| {
        v["tools"][0]["name"] = Value::String("search\u{202e}_issues\n[[finding]]".into());
    });
    let (code, _, err) = mcpvet_in(&dir, &cat(&[&["baseline", "--reason", "r"], &SCAN[1..]]));
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(dir.join("mcpvet-baseline.toml")).unwrap();
    assert!(!text.contains('\u{202e}'), "{text}");
    assert!(
        text.contains("search\\\\u{202E}_issues\\\\n[[finding]]"),
        "{text}"
    );
    let (code, v, err) = scan_json(&dir, &["--baseline", "mcpvet-baseline.toml"]);
    assert_eq!(
        (code, v["findings"].as_array().unwrap().len()),
        (0, 0),
        "{v}{err}"
    );
}

/// A policy next to the copied example with the given `[[ignore]]` entries; the run's JSON.
fn with_ignores(dir: &Path, ignores: &str) -> Value {
    std::fs::write(dir.join("mcpvet.toml"), ignores).unwrap();
    let (_, v, err) = scan_json(dir, &["--policy", "mcpvet.toml"]);
    assert!(err.is_empty() || !err.contains("error"), "{err}");
    v
}

fn rules_of(v: &Value) -> Vec<(String, String)> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_owned(),
                f["server"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn policy_ignores_by_fingerprint_tool_path_and_rule_each_with_a_reason() {
    let dir = example_copy("ignore");
    let (_, all, _) = scan_json(&dir, &["--no-policy"]);
    let total = all["findings"].as_array().unwrap().len();
    let target = all["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "broad-credential")
        .unwrap();
    let fp = target["fingerprint"].as_str().unwrap();

    // By fingerprint: exactly that finding.
    let v = with_ignores(
        &dir,
        &format!("[[ignore]]\nfingerprint = \"{fp}\"\nreason = \"dedicated token, PLAT-9\"\n"),
    );
    assert_eq!(v["findings"].as_array().unwrap().len(), total - 1);
    assert!(!rules_of(&v).contains(&("broad-credential".into(), "example-tracker".into())));
    assert!(
        v["suppressed"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("dedicated token, PLAT-9"),
        "{v}"
    );

    // By tool (glob): every finding about run_shell, nothing else.
    let about_shell = all["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["item"]["name"] == "run_shell")
        .count();
    assert!(about_shell >= 2);
    let v = with_ignores(
        &dir,
        "[[ignore]]\ntool = \"run_*\"\nreason = \"proposal under review\"\n",
    );
    assert_eq!(v["findings"].as_array().unwrap().len(), total - about_shell);
    assert_eq!(v["summary"]["suppressed"], about_shell);

    // By config path (glob), narrowed by server.
    let v = with_ignores(
        &dir,
        "[[ignore]]\npath = \"mcp.*\"\nserver = \"example-tracker\"\nreason = \"vendored example\"\n",
    );
    assert!(
        rules_of(&v).iter().all(|(_, s)| s != "example-tracker"),
        "{:?}",
        rules_of(&v)
    );
    assert!(rules_of(&v).iter().any(|(_, s)| s == "ci-insights-shell"));

    // By rule and tool together: both must match.
    let v = with_ignores(
        &dir,
        "[[ignore]]\nrule = \"exfiltration-channel\"\ntool = \"create_issue\"\nreason = \"r\"\n",
    );
    assert_eq!(v["findings"].as_array().unwrap().len(), total - 1);

    // Entries that match nothing are warnings naming the entry's line.
    let v = with_ignores(
        &dir,
        "fail-on = \"high\"\n\n[[ignore]]\ntool = \"no_such_tool\"\nreason = \"r\"\n\n[[ignore]]\npath = \".vscode/*\"\nreason = \"r\"\n",
    );
    let w = v["warnings"].to_string();
    assert!(
        w.contains("mcpvet.toml:3:1: ignore { tool = \\\"no_such_tool\\\" } matched no finding"),
        "{w}"
    );
    assert!(
        w.contains("mcpvet.toml:7:1: ignore { path = \\\".vscode/*\\\" } matched no finding"),
        "{w}"
    );

    // Each needs a reason and something to match; fingerprints are checked.
    for (policy, expect) in [
        ("[[ignore]]\ntool = \"x\"\n", "reason"),
        (
            "[[ignore]]\nserver = \"example-tracker\"\nreason = \"r\"\n",
            "at least one of",
        ),
        (
            "[[ignore]]\nfingerprint = \"abc\"\nreason = \"r\"\n",
            "mcpvet.toml:2:15: [[ignore]]: `fingerprint` must be 32",
        ),
        (
            "[[ignore]]\npath = \"x\"\nreason = \"\"\n",
            "mcpvet.toml:3:10:",
        ),
    ] {
        std::fs::write(dir.join("mcpvet.toml"), policy).unwrap();
        let (code, _, err) = mcpvet_in(&dir, &cat(&[SCAN, &["--policy", "mcpvet.toml"]]));
        assert_eq!(code, 2, "{policy}");
        assert!(err.contains(expect), "{policy}: {err}");
    }
}
