//! Integrity checks: every hash a lock stores is recomputed from the content it stores, so a
//! hand-edited or tampered file is refused with the field that does not match.

use std::path::Path;

use serde_json::Value;

use super::canon::hash_value;
use super::error::LockError;
use super::model::{LaunchSpec, Lockfile, item_key, kind_word, list_name};

impl Lockfile {
    /// Check every stored hash against the stored content. `path` names the file in errors.
    pub fn verify(&self, path: &Path) -> Result<(), LockError> {
        let tampered = |what: String| LockError::Tampered {
            path: path.display().to_string(),
            what,
        };
        for (kind, items) in self.lists() {
            let list = list_name(kind);
            for item in items {
                let key = item_key(kind, &item.definition);
                if key != item.name {
                    return Err(tampered(format!(
                        "{list} entry `{}` holds a definition named `{key}`",
                        item.name
                    )));
                }
                let got = hash_value(&item.definition);
                if got != item.sha256 {
                    return Err(tampered(format!(
                        "the definition of {} `{}` does not match its sha256 (stored {}, content hashes to {got})",
                        kind_word(kind),
                        item.name,
                        item.sha256
                    )));
                }
                let got_a = item.annotations.as_ref().map(hash_value);
                if got_a != item.annotations_sha256 {
                    return Err(tampered(format!(
                        "the annotations of {} `{}` do not match annotationsSha256 (stored {}, content hashes to {})",
                        kind_word(kind),
                        item.name,
                        item.annotations_sha256.as_deref().unwrap_or("null"),
                        got_a.as_deref().unwrap_or("null")
                    )));
                }
            }
        }
        let got_i = self
            .instructions
            .as_ref()
            .map(|i| hash_value(&Value::String(i.clone())));
        if got_i != self.instructions_sha256 {
            return Err(tampered(
                "the instructions do not match instructionsSha256".into(),
            ));
        }
        if self.launch.as_ref().map(LaunchSpec::sha256) != self.launch_sha256 {
            return Err(tampered(
                "the launch spec does not match launchSha256".into(),
            ));
        }
        let got = self.compute_content_sha256();
        if got != self.content_sha256 {
            return Err(tampered(format!(
                "contentSha256 is {} but the content hashes to {got} (a field outside the items was changed: server, serverInfo, era, protocolVersion or an item list)",
                self.content_sha256
            )));
        }
        let got = self.compute_sha256();
        if got != self.sha256 {
            return Err(tampered(format!(
                "sha256 is {} but the lock hashes to {got} (the approval was changed)",
                self.sha256
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lock::model::Approval;
    use crate::lock::model::tests::snap;
    use serde_json::json;

    #[test]
    fn tampering_is_detected_per_field() {
        let l = Lockfile::from_snapshot(&snap(), None, Approval::new("me", "2026-01-01T00:00:00Z"));
        let mut t = l.clone();
        t.tools[0].definition["description"] = json!("A!");
        let e = t.verify(Path::new("l.json")).unwrap_err().to_string();
        assert!(e.contains("tampered or hand-edited lock l.json"), "{e}");
        assert!(e.contains("tool `a`"), "{e}");
        let mut t = l.clone();
        t.approval.by = "mallory".into();
        let e = t.verify(Path::new("l.json")).unwrap_err().to_string();
        assert!(e.contains("approval"), "{e}");
        let mut t = l.clone();
        t.protocol_version = Some("2025-11-25".into());
        let e = t.verify(Path::new("l.json")).unwrap_err().to_string();
        assert!(e.contains("contentSha256"), "{e}");
        let mut t = l;
        t.tools[1].annotations = Some(json!({"readOnlyHint": false}));
        let e = t.verify(Path::new("l.json")).unwrap_err().to_string();
        assert!(e.contains("annotations of tool `b`"), "{e}");
    }
}
