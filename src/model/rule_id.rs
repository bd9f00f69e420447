//! Every built-in rule id, defined once.
//!
//! Rule ids are public API: policy files (`[[ignore]]`, severity remaps), SARIF `ruleId`,
//! JSON output and docs use them, so an id never changes meaning. Code refers to a rule through
//! these constants, never through a string literal; pattern rules loaded from a `--rules DIR`
//! may add ids of their own. [`ALL`] lists every built-in id with its family; a test checks the
//! list against the rule catalogue (every id documented, every documented id listed once).

// definition rules
pub const AUDIT_INCOMPLETE: &str = "audit-incomplete";
pub const CONCEALMENT: &str = "concealment";
pub const CONFUSABLE_NAME: &str = "confusable-name";
pub const CROSS_TOOL_INSTRUCTION: &str = "cross-tool-instruction";
pub const DUPLICATE_TOOL_DEFINITION: &str = "duplicate-tool-definition";
pub const EMBEDDED_COMMAND: &str = "embedded-command";
pub const ENCODED_PAYLOAD: &str = "encoded-payload";
pub const EXFILTRATION_CHANNEL: &str = "exfiltration-channel";
pub const HIDDEN_INSTRUCTIONS: &str = "hidden-instructions";
pub const INVISIBLE_UNICODE: &str = "invisible-unicode";
pub const LEARNED_INTENT_SCORE: &str = "learned-intent-score";
pub const NETWORK_SCHEMA_REF: &str = "network-schema-ref";
pub const OPEN_INPUT_SCHEMA: &str = "open-input-schema";
pub const OVERSIZED_DEFINITION: &str = "oversized-definition";
pub const PREFERENCE_MANIPULATION: &str = "preference-manipulation";
pub const READONLY_CLAIM_MISMATCH: &str = "readonly-claim-mismatch";
pub const SECRET_PARAMETER: &str = "secret-parameter";
pub const SENSITIVE_FILE_REFERENCE: &str = "sensitive-file-reference";
pub const SHELL_EXECUTION_TOOL: &str = "shell-execution-tool";
pub const TOOL_NAME_COLLISION: &str = "tool-name-collision";

// launch rules
pub const AUTO_TRUST: &str = "auto-trust";
pub const BROAD_CREDENTIAL: &str = "broad-credential";
pub const DEPRECATED_TRANSPORT: &str = "deprecated-transport";
pub const DUPLICATE_CONFIG_KEY: &str = "duplicate-config-key";
pub const INSECURE_TRANSPORT: &str = "insecure-transport";
pub const LITERAL_SECRET: &str = "literal-secret";
pub const RISKY_LAUNCH: &str = "risky-launch";
pub const UNPINNED_GIT: &str = "unpinned-git";
pub const UNPINNED_IMAGE: &str = "unpinned-image";
pub const UNPINNED_PACKAGE: &str = "unpinned-package";

// lock rules
pub const ANNOTATION_DRIFT: &str = "annotation-drift";
pub const CLOAKED_DEFINITIONS: &str = "cloaked-definitions";
pub const DEFINITION_DRIFT: &str = "definition-drift";
pub const PIN_MISMATCH: &str = "pin-mismatch";
pub const SERVER_IDENTITY_DRIFT: &str = "server-identity-drift";
pub const UNLOCKED_SERVER: &str = "unlocked-server";

// policy rules
pub const DENIED_SERVER: &str = "denied-server";
pub const NOT_ALLOWLISTED: &str = "not-allowlisted";

/// Every built-in rule id with its family (`definition`, `launch`, `lock`, `policy`).
pub const ALL: &[(&str, &str)] = &[
    (AUDIT_INCOMPLETE, "definition"),
    (CONCEALMENT, "definition"),
    (CONFUSABLE_NAME, "definition"),
    (CROSS_TOOL_INSTRUCTION, "definition"),
    (DUPLICATE_TOOL_DEFINITION, "definition"),
    (EMBEDDED_COMMAND, "definition"),
    (ENCODED_PAYLOAD, "definition"),
    (EXFILTRATION_CHANNEL, "definition"),
    (HIDDEN_INSTRUCTIONS, "definition"),
    (INVISIBLE_UNICODE, "definition"),
    (LEARNED_INTENT_SCORE, "definition"),
    (NETWORK_SCHEMA_REF, "definition"),
    (OPEN_INPUT_SCHEMA, "definition"),
    (OVERSIZED_DEFINITION, "definition"),
    (PREFERENCE_MANIPULATION, "definition"),
    (READONLY_CLAIM_MISMATCH, "definition"),
    (SECRET_PARAMETER, "definition"),
    (SENSITIVE_FILE_REFERENCE, "definition"),
    (SHELL_EXECUTION_TOOL, "definition"),
    (TOOL_NAME_COLLISION, "definition"),
    (AUTO_TRUST, "launch"),
    (BROAD_CREDENTIAL, "launch"),
    (DEPRECATED_TRANSPORT, "launch"),
    (DUPLICATE_CONFIG_KEY, "launch"),
    (INSECURE_TRANSPORT, "launch"),
    (LITERAL_SECRET, "launch"),
    (RISKY_LAUNCH, "launch"),
    (UNPINNED_GIT, "launch"),
    (UNPINNED_IMAGE, "launch"),
    (UNPINNED_PACKAGE, "launch"),
    (ANNOTATION_DRIFT, "lock"),
    (CLOAKED_DEFINITIONS, "lock"),
    (DEFINITION_DRIFT, "lock"),
    (PIN_MISMATCH, "lock"),
    (SERVER_IDENTITY_DRIFT, "lock"),
    (UNLOCKED_SERVER, "lock"),
    (DENIED_SERVER, "policy"),
    (NOT_ALLOWLISTED, "policy"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_kebab_case() {
        let mut seen = std::collections::BTreeSet::new();
        for (id, family) in ALL {
            assert!(seen.insert(*id), "{id} is listed twice");
            assert!(
                id.chars().all(|c| c.is_ascii_lowercase() || c == '-')
                    && !id.starts_with('-')
                    && !id.ends_with('-'),
                "{id} is not kebab-case"
            );
            assert!(["definition", "launch", "lock", "policy"].contains(family));
        }
    }
}
