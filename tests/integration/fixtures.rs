//! Helpers the integration modules share: the Python that runs the fixture servers, and the
//! hostile fixture server's script.

use std::path::{Path, PathBuf};

/// A system Python outside any home directory (so it also runs inside the sandbox).
pub fn python() -> String {
    if Path::new("/usr/bin/python3").exists() {
        "/usr/bin/python3".into()
    } else {
        "python3".into()
    }
}

/// `tests/fixtures/hostile/hostile.py`: one hostile MCP server per mode.
pub fn hostile_py() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hostile/hostile.py")
}
