//! The guard's audit log: one JSON line per tool call and per refused `prompts/get` or
//! `resources/read` — time, server, method, tool or item, the sha256 of the
//! RFC 8785 canonical arguments (`kit::policy::arguments_digest`, the kit's audit digest),
//! decision, duration, result size and the output rule ids. Never an argument or result value.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

/// One logged call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CallRecord {
    /// RFC 3339, UTC, seconds.
    pub time: String,
    pub server: String,
    /// `tools/call`, `prompts/get` or `resources/read`.
    pub method: String,
    /// The tool of a `tools/call`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The prompt of a `prompts/get`; for `resources/read`, the approved resource URI, the
    /// approved template the URI expands, or (refused) the URI without its query and
    /// fragment, clipped — the whole URI is only in `argumentsSha256`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<String>,
    /// sha256 of the canonical JSON of the arguments (`null` when they were not an object);
    /// for `resources/read`, of the URI.
    #[serde(rename = "argumentsSha256")]
    pub arguments_sha256: Option<String>,
    /// `forwarded`, `withheld`, `not-approved`, `invalid-arguments`, `denied`, `confirmed`,
    /// `declined`, `rate-limited`, `blocked-output`, `server-error`, `timeout`, `server-exited`.
    pub decision: String,
    #[serde(rename = "durationMs")]
    pub duration_ms: u64,
    /// Bytes of the answer line sent to the host (a refusal's too; 0 for a JSON-RPC error).
    #[serde(rename = "resultBytes")]
    pub result_bytes: usize,
    /// Rule ids the output profile named in the result.
    #[serde(rename = "outputFindings")]
    pub output_findings: Vec<String>,
}

/// An append-only JSON-lines file (opened once; each record is one `write` of one line).
pub struct AuditLog {
    path: PathBuf,
    file: Option<std::fs::File>,
}

impl AuditLog {
    /// Open (create or append to) `path`; `None` logs nothing.
    pub fn open(path: Option<&Path>) -> std::io::Result<AuditLog> {
        let file = match path {
            None => None,
            Some(p) => Some(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(p)?,
            ),
        };
        Ok(AuditLog {
            path: path.map(Path::to_path_buf).unwrap_or_default(),
            file,
        })
    }

    /// Append one record; a failed write is reported to the caller's diagnostics.
    pub fn record(&mut self, record: &CallRecord) -> Result<(), String> {
        let Some(f) = self.file.as_mut() else {
            return Ok(());
        };
        let mut line = serde_json::to_vec(record).map_err(|e| e.to_string())?;
        line.push(b'\n');
        f.write_all(&line)
            .map_err(|e| format!("cannot write the audit log {}: {e}", self.path.display()))
    }
}

/// The current time as RFC 3339 (UTC, seconds).
pub fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_secs()).unwrap_or(0))
        .unwrap_or(0);
    crate::lock::lockfile::rfc3339_from_unix(secs)
}
