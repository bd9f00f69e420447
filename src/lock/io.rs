//! Lockfile I/O: parsing lock text (with version and shape checks, then [`Lockfile::verify`]),
//! reading a server's lock from a directory, the pretty sorted rendering, atomic writes, and
//! [`path_for`], where a server's lock lives.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::canon::{sha256_hex, sorted_members};
use super::error::LockError;
use super::model::{LOCKFILE_VERSION, Lockfile};

impl Lockfile {
    /// Parse and verify lock text. `path` names the file in errors.
    pub fn from_json_str(text: &str, path: &Path) -> Result<Lockfile, LockError> {
        let shown = path.display().to_string();
        if let Some((pointer, line)) = super::strict::first_duplicate_key(text) {
            return Err(LockError::Tampered {
                path: shown,
                what: format!(
                    "key `{pointer}` is written twice (the second at line {line}); a JSON reader keeps one of them silently, so the file can show a reviewer one value and verify another"
                ),
            });
        }
        let value: Value = serde_json::from_str(text).map_err(|e| LockError::Parse {
            path: shown.clone(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
        match value.get("lockfileVersion") {
            Some(v) if v.as_u64() == Some(u64::from(LOCKFILE_VERSION)) => {}
            Some(v) => {
                return Err(LockError::Version {
                    path: shown,
                    found: v.to_string(),
                });
            }
            None => {
                return Err(LockError::Shape {
                    path: shown,
                    message: "`lockfileVersion` is missing".into(),
                });
            }
        }
        let lock: Lockfile = serde_json::from_value(value).map_err(|e| LockError::Shape {
            path: shown.clone(),
            message: e.to_string(),
        })?;
        lock.verify(path)?;
        Ok(lock)
    }

    /// Read and verify a lockfile: a lock that does not parse, or whose hashes do not match
    /// its content, is an error.
    pub fn read(path: impl AsRef<Path>) -> Result<Lockfile, LockError> {
        let path = path.as_ref();
        let text = crate::model::fsio::read_text(path, crate::model::fsio::ReadKind::Lockfile)
            .map_err(|source| LockError::Io {
                path: path.display().to_string(),
                source,
            })?;
        Self::from_json_str(&text, path)
    }

    /// Read the lock for `server` from `dir`, or `None` when there is none.
    pub fn read_for(dir: &Path, server: &str) -> Result<Option<Lockfile>, LockError> {
        let path = path_for(dir, server);
        if !path.exists() {
            return Ok(None);
        }
        let lock = Self::read(&path)?;
        if lock.server != server {
            return Err(LockError::Shape {
                path: path.display().to_string(),
                message: format!(
                    "it is the lock of `{}`, not of `{server}` (was it copied or renamed?)",
                    lock.server
                ),
            });
        }
        Ok(Some(lock))
    }

    /// Pretty JSON with keys sorted (RFC 8785 order), two-space indent, trailing newline.
    pub fn to_pretty_json(&self) -> String {
        let v = sort_keys(&serde_json::to_value(self).unwrap_or(Value::Null));
        let mut s = serde_json::to_string_pretty(&v).unwrap_or_else(|_| "{}".into());
        s.push('\n');
        s
    }

    /// Write `dir/<server>.lock.json` atomically (temporary file in `dir`, then rename).
    pub fn write_atomic(&self, dir: impl AsRef<Path>) -> Result<PathBuf, LockError> {
        let dir = dir.as_ref();
        let path = path_for(dir, &self.server);
        let werr = |source: std::io::Error| LockError::Write {
            path: path.display().to_string(),
            source,
        };
        crate::model::fsio::write_atomic(&path, self.to_pretty_json().as_bytes()).map_err(werr)?;
        Ok(path)
    }
}

/// A copy of `v` whose objects list their members in RFC 8785 order.
pub fn sort_keys(v: &Value) -> Value {
    match v {
        Value::Object(map) => {
            let mut out = Map::new();
            for (k, item) in sorted_members(map) {
                out.insert(k.clone(), sort_keys(item));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(sort_keys).collect()),
        other => other.clone(),
    }
}

/// `dir/<server>.lock.json`. Names are sanitised to `[A-Za-z0-9._-]`; a name that needed
/// changing gets a short hash suffix of the whole name so two different names never share a
/// file. A name that is already clean but ends like such a suffix (`a_b-0123abcd`) gets one too,
/// so it cannot claim the file of the name it imitates (`a/b`).
pub fn path_for(dir: impl AsRef<Path>, server_name: &str) -> PathBuf {
    let mut clean: String = server_name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let trimmed = clean.trim_start_matches('.').to_owned();
    clean = if trimmed.len() > 100 {
        trimmed[..100].to_owned()
    } else {
        trimmed
    };
    if clean != server_name || clean.is_empty() || looks_hashed(&clean) {
        let h = sha256_hex(server_name.as_bytes());
        clean = if clean.is_empty() {
            format!("server-{}", &h[..8])
        } else {
            format!("{clean}-{}", &h[..8])
        };
    }
    dir.as_ref().join(format!("{clean}.lock.json"))
}

/// Does `name` end with `-` and eight lower-case hex digits, the suffix [`path_for`] adds?
fn looks_hashed(name: &str) -> bool {
    name.len() > 9
        && name
            .get(name.len() - 9..)
            .and_then(|tail| tail.strip_prefix('-'))
            .is_some_and(|h| h.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Two different server names never share a lock file, including a name written to
        /// look like another name's sanitised file name.
        #[test]
        fn lock_file_names_are_injective(a in "[ab/_.:-]{0,6}", b in "[ab/_.:-]{0,6}") {
            let stem = |n: &str| {
                path_for("d", n)
                    .file_name()
                    .and_then(|f| f.to_str())
                    .and_then(|f| f.strip_suffix(".lock.json"))
                    .unwrap_or_default()
                    .to_string()
            };
            if a != b {
                prop_assert_ne!(path_for("d", &a), path_for("d", &b));
            }
            // The stem of `a`'s file, used as a server name, gets a file of its own.
            let imitation = stem(&a);
            if imitation != a {
                prop_assert_ne!(path_for("d", &imitation), path_for("d", &a));
            }
        }
    }

    #[test]
    fn a_clean_name_imitating_a_hashed_one_gets_its_own_file() {
        let hashed = path_for("d", "a/b");
        let stem = hashed
            .file_name()
            .and_then(|f| f.to_str())
            .and_then(|f| f.strip_suffix(".lock.json"))
            .expect("stem");
        assert!(stem.starts_with("a_b-"), "{stem}");
        assert_ne!(path_for("d", stem), hashed);
    }

    #[test]
    fn path_for_sanitises_and_disambiguates() {
        assert_eq!(
            path_for("d", "ci-insights"),
            Path::new("d/ci-insights.lock.json")
        );
        let p = path_for("d", "../etc/passwd").display().to_string();
        assert!(
            p.starts_with("d/_etc_passwd-") && p.ends_with(".lock.json"),
            "{p}"
        );
        assert_ne!(path_for("d", "a/b"), path_for("d", "a_b"));
        assert_ne!(path_for("d", "a/b"), path_for("d", "a:b"));
        let p = path_for("d", "").display().to_string();
        assert!(p.starts_with("d/server-"), "{p}");
    }
}
