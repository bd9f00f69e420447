//! Files mcpvet writes: one atomic writer with one file-mode policy.
//!
//! Everything mcpvet writes (lockfiles, snapshots, reports, the policy template) is an artefact
//! meant to be committed or uploaded, so a new file is created `0644` (readable by all, like any
//! source file); a file that is replaced keeps its permissions. The bytes go to a temporary file
//! in the same folder, are synced, and replace the target with a rename, so a reader never sees
//! half a file and a failed write leaves the old one whole.

use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Write `bytes` to `path` atomically (temporary file in the same folder, sync, rename),
/// creating the folder if needed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".mcpvet-")
        .suffix(".tmp")
        .tempfile_in(&dir)?;
    tmp.write_all(bytes)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path)
            .ok()
            .filter(|m| m.is_file())
            .map_or(0o644, |m| m.permissions().mode() & 0o7777);
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(mode))?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_whole_files_and_replaces_them() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("sub/out.json");
        write_atomic(&p, b"one").expect("write");
        write_atomic(&p, b"two").expect("rewrite");
        assert_eq!(std::fs::read(&p).expect("read"), b"two");
        let leftovers: Vec<_> = std::fs::read_dir(p.parent().expect("parent"))
            .expect("dir")
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn new_files_are_0644_and_replaced_files_keep_their_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("a.lock.json");
        write_atomic(&p, b"x").expect("write");
        let mode = |p: &Path| std::fs::metadata(p).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode(&p), 0o644);
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        write_atomic(&p, b"y").expect("rewrite");
        assert_eq!(mode(&p), 0o600);
    }
}
