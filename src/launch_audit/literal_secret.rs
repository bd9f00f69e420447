//! `literal-secret`: a secret written literally in a config (env values, args, headers, URLs),
//! in a known token format or, for credential-named fields, any long random-looking value.
//! Variable references are never secrets. Evidence is redacted.

use super::{finding, meta as m};
use crate::model::finding::{Confidence, Control, Finding, RuleMeta, Severity};
use crate::model::redact;
use crate::model::rule_id;
use crate::model::secrets::{
    self, CredentialName, credential_name, find_secrets, has_reference, is_credential_name,
    looks_like_secret,
};
use crate::model::spec::{ServerSpec, Transport};

pub fn meta() -> RuleMeta {
    m(
        rule_id::LITERAL_SECRET,
        "A credential is written literally in the config (token formats, private keys, URL passwords, credential-named values).",
        "Config files are committed, synced and shared; a literal secret leaks to everyone who can read them and cannot be rotated per user.",
        r#"{"env": {"GITHUB_TOKEN": "ghp_…"}} (use "${GITHUB_TOKEN}" or an input instead)"#,
        Severity::Critical,
        Confidence::High,
        Control::SecretReference,
    )
}

/// A spec field: pointer, label, value, the name that names it, and (for arguments) how
/// it is shown.
type Field = (String, String, String, Option<String>, Option<String>);

/// Every string field of the spec with its pointer and a label for messages.
fn fields(spec: &ServerSpec) -> Vec<Field> {
    let mut out = Vec::new();
    match &spec.transport {
        Transport::Stdio {
            command, args, env, ..
        } => {
            out.push((
                "/command".into(),
                "command".into(),
                command.clone(),
                None,
                None,
            ));
            let shown = redact::redact_argv(command, args, redact::Style::Show);
            for i in 0..args.len() {
                // `--token=V`, `--token V` and `KEY=V` name their value.
                let (named, _, value) = crate::model::redact::arg_field(args, i);
                let named = named.filter(|f| is_credential_name(f));
                let arg_shown = shown.get(i).cloned().unwrap_or_default();
                out.push((
                    format!("/args/{i}"),
                    format!("args[{i}]"),
                    value,
                    named,
                    Some(arg_shown),
                ));
            }
            for (k, v) in env {
                out.push((
                    format!("/env/{}", crate::model::pointer::token(k)),
                    format!("env {k}"),
                    v.clone(),
                    Some(k.clone()),
                    None,
                ));
            }
        }
        Transport::Http { url, headers } => {
            out.push(("/url".into(), "url".into(), url.clone(), None, None));
            for (k, v) in headers {
                out.push((
                    format!("/headers/{}", crate::model::pointer::token(k)),
                    format!("header {k}"),
                    v.clone(),
                    Some(k.clone()),
                    None,
                ));
            }
        }
    }
    out
}

pub fn check(spec: &ServerSpec) -> Vec<Finding> {
    let meta = meta();
    let mut out = Vec::new();
    let mut all = fields(spec);
    for (top, key, value) in setting_strings(spec) {
        all.push((
            format!("/{}", crate::model::pointer::token(&top)),
            format!("setting {key}"),
            value,
            Some(key),
            None,
        ));
    }
    let hidden = hidden_argument_pointers(spec);
    for (pointer, label, value, name, shown) in all {
        let before = out.len();
        // A password option of a known client or a secret assignment inside a command string
        // (`sh -c "X_TOKEN=… cmd"`) is a literal secret even when no token format or
        // credential-named flag says so here.
        let hidden_in_arg = hidden.contains(&pointer);
        // What evidence may quote: an argument as the one redaction module shows it in its
        // command line (so `sh -c "X_TOKEN=… cmd"` keeps its context), any other field by
        // its name and value.
        let shown = shown.unwrap_or_else(|| redact::redact_field(name.as_deref(), &value));
        let unreported_arg = |out: &Vec<Finding>| hidden_in_arg && out.len() == before;
        let found = find_secrets(&value);
        for s in &found {
            out.push(finding(
                spec,
                &meta,
                Severity::Critical,
                Confidence::High,
                &pointer,
                format!("{} written literally in {label}; rotate it and reference it from the environment", s.kind.name),
                Some(format!("{label} = {shown}")),
            ));
        }
        if found.is_empty() {
            for (key, _) in secrets::query_credentials(&value) {
                out.push(finding(
                    spec,
                    &meta,
                    Severity::High,
                    Confidence::Medium,
                    &pointer,
                    format!("credential `{key}` is written literally in the query of a URL in {label}; send it from the environment instead"),
                    Some(format!("{label} = {shown}")),
                ));
            }
        }
        let Some((name, strength)) = name.and_then(|n| credential_name(&n).map(|s| (n, s))) else {
            if unreported_arg(&out) {
                out.push(hidden_argument(spec, &meta, &pointer, &label, &shown));
            }
            continue;
        };
        let literal = match strength {
            CredentialName::Strong => secrets::is_literal_credential(&value),
            CredentialName::Weak => looks_like_secret(&value),
        };
        if found.is_empty() && !has_reference(&value) && literal {
            let shown = redact::redact_generic(&value);
            out.push(finding(
                spec,
                &meta,
                Severity::High,
                Confidence::Medium,
                &pointer,
                format!("credential `{name}` has a literal value in {label}; reference it from the environment or a secret store"),
                Some(format!("{label} = {shown}")),
            ));
        }
        if unreported_arg(&out) {
            out.push(hidden_argument(spec, &meta, &pointer, &label, &shown));
        }
    }
    out
}

/// Pointers of the arguments that hold a password of a known client (`mysql -pSECRET`,
/// `sshpass -p SECRET`) or, inside a command string, a literal value of a credential-named
/// assignment or flag (`sh -c "export DB_PASSWORD=… && srv --token …"`).
fn hidden_argument_pointers(spec: &ServerSpec) -> Vec<String> {
    let Transport::Stdio { command, args, .. } = &spec.transport else {
        return Vec::new();
    };
    let mut out: Vec<usize> = redact::password_options(command, args)
        .into_iter()
        .map(|p| p.index)
        .collect();
    for (i, a) in args.iter().enumerate() {
        let Some(words) = shlex::split(a).filter(|w| w.len() > 1) else {
            continue;
        };
        let named_literal = |name: &str, value: &str| match credential_name(name) {
            Some(CredentialName::Strong) => {
                !has_reference(value) && secrets::is_literal_credential(value)
            }
            Some(CredentialName::Weak) => !has_reference(value) && looks_like_secret(value),
            None => false,
        };
        let secret = words.iter().enumerate().any(|(j, w)| {
            let assigned = w
                .trim_start_matches('-')
                .split_once('=')
                .is_some_and(|(n, v)| named_literal(n, v));
            let after_flag = j > 0
                && words[j - 1].starts_with('-')
                && !w.starts_with('-')
                && named_literal(words[j - 1].trim_start_matches('-'), w);
            assigned || after_flag
        }) || !redact::password_options("", &words).is_empty();
        if secret {
            out.push(i);
        }
    }
    out.into_iter().map(|i| format!("/args/{i}")).collect()
}

/// A secret hidden in a command-line argument, in no known format.
fn hidden_argument(
    spec: &ServerSpec,
    meta: &RuleMeta,
    pointer: &str,
    label: &str,
    shown: &str,
) -> Finding {
    finding(
        spec,
        meta,
        Severity::High,
        Confidence::Medium,
        pointer,
        format!(
            "a credential is written literally in {label} (a password option or a secret assignment in a command string); pass it from the environment instead"
        ),
        Some(format!("{label} = {shown}")),
    )
}

/// String leaves of host settings: (top-level key, leaf key, value).
fn setting_strings(spec: &ServerSpec) -> Vec<(String, String, String)> {
    fn walk(
        top: &str,
        key: &str,
        v: &serde_json::Value,
        depth: usize,
        out: &mut Vec<(String, String, String)>,
    ) {
        if depth > 16 {
            return;
        }
        match v {
            serde_json::Value::String(s) => out.push((top.to_string(), key.to_string(), s.clone())),
            serde_json::Value::Array(items) => {
                for i in items {
                    walk(top, key, i, depth + 1, out);
                }
            }
            serde_json::Value::Object(map) => {
                for (k, v) in map {
                    walk(top, k, v, depth + 1, out);
                }
            }
            _ => {}
        }
    }
    // Keys mcpvet itself adds, and tool-name lists, carry no secrets.
    const SKIP: &[&str] = &[
        "secretInputs",
        "scope",
        "project",
        "type",
        "transport",
        "server_type",
        "alwaysAllow",
        "autoApprove",
        "enabled_tools",
        "disabled_tools",
        "includeTools",
        "excludeTools",
        "disabledTools",
    ];
    let mut out = Vec::new();
    for (k, v) in spec
        .settings
        .iter()
        .filter(|(k, _)| !SKIP.contains(&k.as_str()))
    {
        walk(k, k, v, 0, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{http, stdio};
    use super::*;

    #[test]
    fn passwords_of_known_clients_and_assignments_in_command_strings_are_flagged() {
        let pw = "Zq81mXk20pLw93Rt";
        for (cmd, args) in [
            (
                "sh",
                vec!["-c".to_string(), format!("X_TOKEN={pw} npx -y srv@1.0.0")],
            ),
            (
                "bash",
                vec!["-c".to_string(), format!("export DB_PASSWORD={pw}; srv")],
            ),
            ("mysql", vec!["-u".into(), "app".into(), format!("-p{pw}")]),
            (
                "sshpass",
                vec!["-p".into(), pw.into(), "ssh".into(), "host".into()],
            ),
        ] {
            let argv: Vec<&str> = args.iter().map(String::as_str).collect();
            let f = check(&stdio(cmd, &argv, &[]));
            assert_eq!(f.len(), 1, "{cmd} {args:?}: {f:#?}");
            let ev = f[0].evidence.clone().unwrap_or_default();
            assert!(!ev.contains(pw), "{ev}");
        }
        // Nothing hidden, nothing reported.
        assert!(
            check(&stdio(
                "sh",
                &["-c", "X_TOKEN=$X_TOKEN npx -y srv@1.0.0"],
                &[]
            ))
            .is_empty()
        );
        assert!(check(&stdio("mysql", &["-u", "app", "-p"], &[])).is_empty());
        assert!(check(&stdio("npx", &["-y", "srv@1.0.0", "--port", "8080"], &[])).is_empty());
    }

    #[test]
    fn known_and_generic_secrets_are_flagged_and_redacted() {
        let pat = format!("ghp_{}", "Ab3dEf5hIj7lMn9pQr1tUv3xYz5bCd7fGh9j");
        let f = check(&stdio("npx", &["x@1.0.0"], &[("TRACKER_TOKEN", &pat)]));
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].severity, Severity::Critical);
        let ev = f[0].evidence.clone().unwrap_or_default();
        assert!(
            !ev.contains(&pat) && ev.contains("ghp_…") && ev.ends_with("Gh9j"),
            "{ev}"
        );
        let g = check(&stdio("x", &[], &[("DB_PASSWORD", "hunter2hunter2xyz99")]));
        assert_eq!((g.len(), g[0].severity), (1, Severity::High));
        assert!(
            !g[0]
                .evidence
                .clone()
                .unwrap_or_default()
                .contains("hunter2hunter2xyz99")
        );
        let h = check(&http(
            "https://api.example.test/mcp",
            &[("Authorization", "Bearer 9f8e7d6c5b4a39281716")],
        ));
        assert_eq!(h.len(), 1);
        assert!(
            h[0].evidence
                .clone()
                .unwrap_or_default()
                .contains("Bearer …")
        );
        let a = check(&stdio("srv", &["--api-key", "Zq81mXk20pLw93Rt"], &[]));
        assert_eq!(a.len(), 1);
        let e = check(&stdio("srv", &["--access-token=Zq81mXk20pLw93Rt"], &[]));
        assert_eq!(e.len(), 1);
        assert!(check(&stdio("srv", &["--access-token=sentry-user-token"], &[])).is_empty());
        let d = check(&stdio(
            "docker",
            &["run", "-e", "API_KEY=Zq81mXk20pLw93Rt", "img"],
            &[],
        ));
        assert_eq!(d.len(), 1);
        assert!(
            !crate::model::redact::argv_evidence(&stdio(
                "docker",
                &["run", "-e", "API_KEY=Zq81mXk20pLw93Rt", "img"],
                &[]
            ))
            .contains("Zq81")
        );
        let q = check(&http(
            "https://h.example.test/mcp?api_key=Zq81mXk20pLw93Rt&x=1",
            &[],
        ));
        assert_eq!(q.len(), 1);
        assert!(
            !q[0]
                .evidence
                .clone()
                .unwrap_or_default()
                .contains("Zq81mXk20pLw93Rt")
        );
        assert!(check(&http("https://h.example.test/mcp?api_key=${KEY}", &[])).is_empty());
    }

    #[test]
    fn host_settings_are_scanned() {
        let mut s = stdio("x", &[], &[]);
        s.settings.insert(
            "settings".into(),
            serde_json::json!({"github_personal_access_token": "Zq81mXk20pLw93RtY7", "theme": "dark"}),
        );
        let f = check(&s);
        assert_eq!(f.len(), 1);
        assert!(
            !f[0]
                .evidence
                .clone()
                .unwrap_or_default()
                .contains("Zq81mXk20pLw93RtY7")
        );
    }

    #[test]
    fn references_and_placeholders_are_not_secrets() {
        for v in [
            "${GITHUB_TOKEN}",
            "${env:T}",
            "${input:tok}",
            "${{ secrets.T }}",
            "$TOKEN",
            "%TOKEN%",
            "<YOUR_TOKEN>",
            "your-key-here",
        ] {
            assert!(
                check(&stdio("x", &[], &[("API_TOKEN", v)])).is_empty(),
                "{v}"
            );
        }
        assert!(
            check(&http(
                "https://h/mcp",
                &[("Authorization", "Bearer ${input:tok}")]
            ))
            .is_empty()
        );
        assert!(
            check(&stdio(
                "x",
                &[],
                &[("TRANSPORT", "stdio"), ("LIMIT", "4000")]
            ))
            .is_empty()
        );
    }
}
