//! `secret-parameter`: a tool asks the model to supply a secret (password, token, API key,
//! private key) as an argument. The secret then passes through the model's context and the
//! conversation log; servers should take credentials from their environment.

use crate::audit::engine::Scan;
use crate::audit::walk::StrKind;
use crate::model::finding::{Confidence, Control, Finding, ItemKind, RuleMeta, Severity};
use crate::model::rule_id;

pub fn meta() -> RuleMeta {
    super::meta(
        rule_id::SECRET_PARAMETER,
        "A tool has an input parameter for a secret: password, token, API key, private key, cookie.",
        "Secrets passed as arguments go through the model's context, transcripts and logs; a server should read its credentials from its own environment.",
        "deploy(api_key: string, service: string)",
        Severity::Medium,
        Confidence::Medium,
        Control::LeastPrivilegeCredential,
    )
}

/// This check's entry in the registry.
pub const CHECK: super::Check = super::Check {
    name: "secret_parameter",
    kind: super::Kind::Item(check),
    meta: Some(meta),
};

const SECRET: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "secret",
    "clientsecret",
    "apikey",
    "apitoken",
    "accesstoken",
    "authtoken",
    "bearertoken",
    "refreshtoken",
    "token",
    "privatekey",
    "secretkey",
    "accesskey",
    "sshkey",
    "credential",
    "credentials",
    "cookie",
    "sessionid",
    "sessiontoken",
    "githubtoken",
    "awssecretaccesskey",
];

pub fn check(scan: &Scan, si: usize, out: &mut Vec<Finding>) {
    let server = &scan.servers[si];
    for field in &server.fields {
        if field.kind != StrKind::PropertyName {
            continue;
        }
        let item = &server.items[field.item];
        if item.kind != ItemKind::Tool {
            continue;
        }
        let key = super::name_key(field.text);
        if !SECRET.contains(&key.as_str()) {
            continue;
        }
        out.push(super::item_finding(scan, si, field.item, super::Emit {
rule: rule_id::SECRET_PARAMETER,
severity: Severity::Medium,
confidence: Confidence::Medium,
pointer: field.pointer.clone(),
message: format!(
                "tool `{}` asks the model for a secret in parameter `{}`",
                item.name, field.text
            ),
evidence: Some(field.text.to_owned()),
control: Control::LeastPrivilegeCredential,
}));
    }
}

#[cfg(test)]
mod tests {
    use crate::audit::checks::testutil::*;
    use serde_json::json;

    #[test]
    fn secret_names_flagged_token_counts_not() {
        let f = run(&[snap(
            "s",
            vec![
                json!({"name": "deploy", "inputSchema": {"type": "object", "properties": {
                "api_key": {"type": "string"}, "max_tokens": {"type": "integer"}, "page_token": {"type": "string"}}}}),
            ],
        )]);
        assert_eq!(rules_of(&f), ["secret-parameter"]);
        assert_eq!(
            f[0].location.pointer.as_deref(),
            Some("/tools/0/inputSchema/properties/api_key")
        );
    }
}
