//! Tamper-evident MRTR `requestState`: state a kit server hands a client in an
//! `input_required` result and gets back on the retry.
//!
//! [`seal`] writes `base64url(payload) "." base64url(HMAC-SHA256(key, payload))`, where the
//! payload is the JSON `{"target": …, "state": …}` (the target names the tool or prompt, so
//! state given for one cannot be replayed on another) and the key is 32 bytes drawn once per
//! process. [`open`] verifies the MAC in constant time before it parses anything, so a state
//! that was altered, forged, or sealed by another process (a restarted server) is refused. The
//! state is signed, not encrypted: the client can read it, so it must hold nothing secret.

use std::hash::{BuildHasher, Hasher};
use std::sync::OnceLock;

use base64::Engine;
use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

type HmacSha256 = Hmac<Sha256>;

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// The per-process key: SHA-256 over four 64-bit outputs of std's randomly keyed SipHash
/// (seeded from the operating system's random source), the process id and the start time.
fn key() -> &'static [u8; 32] {
    static KEY: OnceLock<[u8; 32]> = OnceLock::new();
    KEY.get_or_init(|| {
        let random = std::collections::hash_map::RandomState::new();
        let mut digest = Sha256::new();
        for i in 0u64..4 {
            let mut h = random.build_hasher();
            h.write_u64(i);
            digest.update(h.finish().to_le_bytes());
        }
        digest.update(std::process::id().to_le_bytes());
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        digest.update(now.to_le_bytes());
        digest.finalize().into()
    })
}

/// A MAC under the process key (`None` never happens: HMAC takes keys of any length).
fn mac() -> Option<HmacSha256> {
    HmacSha256::new_from_slice(key()).ok()
}

/// Seal `state` for `target` (a tool or prompt, e.g. `tool:NAME`).
pub fn seal(state: &Value, target: &str) -> Option<String> {
    let payload = json!({"target": target, "state": state}).to_string();
    let mut mac = mac()?;
    mac.update(payload.as_bytes());
    let tag = mac.finalize().into_bytes();
    Some(format!("{}.{}", B64.encode(payload), B64.encode(tag)))
}

/// The state sealed for `target`, or `None` when `sealed` fails verification or names
/// another target.
pub fn open(sealed: &str, target: &str) -> Option<Value> {
    let (payload, tag) = sealed.split_once('.')?;
    let payload = B64.decode(payload).ok()?;
    let tag = B64.decode(tag).ok()?;
    let mut mac = mac()?;
    mac.update(&payload);
    mac.verify_slice(&tag).ok()?;
    let mut value: Value = serde_json::from_slice(&payload).ok()?;
    if value.get("target").and_then(Value::as_str) != Some(target) {
        return None;
    }
    value.get_mut("state").map(Value::take)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_tampering() {
        let state = json!({"round": 2, "name": "Alice"});
        let sealed = seal(&state, "tool:t").unwrap();
        assert_eq!(open(&sealed, "tool:t"), Some(state.clone()));
        // Another target, an appended suffix, a flipped payload byte, a forged tag: refused.
        assert_eq!(open(&sealed, "tool:u"), None);
        assert_eq!(open(&format!("{sealed}-TAMPERED"), "tool:t"), None);
        let (payload, tag) = sealed.split_once('.').unwrap();
        let forged_payload = B64.encode(
            json!({"target": "tool:t", "state": {"round": 3, "name": "Alice"}}).to_string(),
        );
        assert_eq!(open(&format!("{forged_payload}.{tag}"), "tool:t"), None);
        assert_eq!(
            open(&format!("{payload}.{}", B64.encode([0u8; 32])), "tool:t"),
            None
        );
        assert_eq!(open("", "tool:t"), None);
        assert_eq!(open("not-base64!.x", "tool:t"), None);
    }
}
