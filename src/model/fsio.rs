//! Files mcpvet reads and writes: one bounded, typed reader and one atomic writer with one
//! file-mode policy.
//!
//! Reading: configs, policies, rules, lockfiles and snapshots come from repositories and
//! reviewers' machines, so a path may name a FIFO (a read would block forever), a device such as
//! `/dev/zero` (it never ends), or a huge sparse file. [`read_text`] reads only regular files
//! (following a symlink only to one), never blocks on opening, and stops at a cap per kind of
//! file, with an error that names the cap.
//!
//! Everything mcpvet writes (lockfiles, snapshots, reports, the policy template) is an artefact
//! meant to be committed or uploaded, so a new file is created `0644` (readable by all, like any
//! source file); a file that is replaced keeps its permissions. The bytes go to a temporary file
//! in the same folder, are synced, and replace the target with a rename, so a reader never sees
//! half a file and a failed write leaves the old one whole.

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// What is being read, and how large it may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadKind {
    /// Host configs, settings, the policy, rule files: 8 MiB.
    Config,
    /// Lockfiles: 32 MiB.
    Lockfile,
    /// Baseline files (accepted findings): 8 MiB.
    Baseline,
    /// Saved server snapshots and output samples: 256 MiB.
    Snapshot,
}

/// `--max-file-size`: when set (non-zero), the cap for every kind of file.
static MAX_FILE_SIZE: AtomicU64 = AtomicU64::new(0);
/// `--max-items`: when set (non-zero), the most tools + prompts + resources a snapshot holds.
static MAX_ITEMS: AtomicUsize = AtomicUsize::new(0);

/// The default for [`max_items`]: 10,000 definitions per snapshot.
pub const DEFAULT_MAX_ITEMS: usize = 10_000;

/// Set the size cap for every kind of file (`--max-file-size`); 0 restores the defaults.
pub fn set_max_file_size(bytes: u64) {
    MAX_FILE_SIZE.store(bytes, Ordering::Relaxed);
}

/// Set the most tools + prompts + resources one snapshot may hold (`--max-items`); 0 restores
/// the default.
pub fn set_max_items(items: usize) {
    MAX_ITEMS.store(items, Ordering::Relaxed);
}

/// The most tools + prompts + resources one snapshot may hold.
pub fn max_items() -> usize {
    match MAX_ITEMS.load(Ordering::Relaxed) {
        0 => DEFAULT_MAX_ITEMS,
        n => n,
    }
}

/// Parse a size such as `64MiB`, `512KiB`, `1GiB`, `64M` or `1048576` (bytes); units are
/// binary (`K`/`KiB` = 1024).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(digits);
    let n: u64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a size (e.g. 64MiB, 512KiB, 1GiB)"))?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        _ => return Err(format!("`{text}`: unknown unit (use B, KiB, MiB or GiB)")),
    };
    n.checked_mul(1 << shift)
        .filter(|&b| b > 0)
        .ok_or_else(|| format!("`{text}` is not a usable size"))
}

/// A cap in words: `8 MiB`, or bytes when it is not a whole number of MiB.
fn shown(cap: u64) -> String {
    if cap % (1 << 20) == 0 {
        format!("{} MiB", cap >> 20)
    } else {
        format!("{cap} bytes")
    }
}

impl ReadKind {
    /// The largest file of this kind mcpvet reads, in bytes (`--max-file-size` replaces it).
    pub fn cap(self) -> u64 {
        match MAX_FILE_SIZE.load(Ordering::Relaxed) {
            0 => self.default_cap(),
            n => n,
        }
    }

    /// The built-in cap of this kind.
    pub fn default_cap(self) -> u64 {
        match self {
            ReadKind::Config => 8 << 20,
            ReadKind::Lockfile => 32 << 20,
            ReadKind::Baseline => 8 << 20,
            ReadKind::Snapshot => 256 << 20,
        }
    }

    fn what(self) -> &'static str {
        match self {
            ReadKind::Config => "configuration files",
            ReadKind::Lockfile => "lockfiles",
            ReadKind::Baseline => "baseline files",
            ReadKind::Snapshot => "snapshots",
        }
    }
}

fn refuse(message: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidInput, message)
}

/// What kind of non-regular file `t` is, in words.
fn kind_of(t: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a folder"
    } else {
        "not a regular file"
    }
}

/// Open a file of `kind` for reading as [`read_text`] does: only a regular file (a symlink is
/// followed only to one), opened without blocking, at most `kind.cap()` bytes long now. Returns
/// the file and its length; a reader must still stop at `kind.cap()` (it may grow).
pub fn open_regular(path: &Path, kind: ReadKind) -> std::io::Result<(std::fs::File, u64)> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        let link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
        let what = if link {
            let target = std::fs::canonicalize(path)
                .map_or_else(|_| "?".to_owned(), |t| t.display().to_string());
            format!(
                "it is a symlink to {target}, which is {}",
                kind_of(meta.file_type())
            )
        } else {
            format!("it is {}", kind_of(meta.file_type()))
        };
        return Err(refuse(format!(
            "{what}; mcpvet reads {} only from regular files (a symlink is followed only to one)",
            kind.what()
        )));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // If the path was swapped for a FIFO after the check, opening must not wait for a writer.
        options.custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits());
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(refuse(format!(
            "it is {}; mcpvet reads {} only from regular files",
            kind_of(meta.file_type()),
            kind.what()
        )));
    }
    let cap = kind.cap();
    if meta.len() > cap {
        return Err(refuse(format!(
            "it is {} bytes, over the {} limit for {} (raise it with --max-file-size, e.g. --max-file-size 64MiB)",
            meta.len(),
            shown(cap),
            kind.what()
        )));
    }
    Ok((file, meta.len()))
}

/// Read a text file of `kind`: only a regular file (a symlink is followed only to one), opened
/// without blocking, at most `kind.cap()` bytes, UTF-8.
pub fn read_text(path: &Path, kind: ReadKind) -> std::io::Result<String> {
    let (file, len) = open_regular(path, kind)?;
    let cap = kind.cap();
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.take(cap + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(refuse(format!(
            "it grew past the {} limit for {} while it was read (raise it with --max-file-size)",
            shown(cap),
            kind.what()
        )));
    }
    String::from_utf8(bytes).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "it is not UTF-8 text".to_owned(),
        )
    })
}

/// Write `bytes` to `path`: atomically (temporary file in the same folder, sync, rename,
/// creating the folder if needed) when `path` is a regular file or does not exist yet. A FIFO or
/// a character device the user named (`-o /dev/stdout`, `-o /dev/null`) is written through,
/// never replaced; a symlink is followed to the file it names; anything else is refused.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            let target = std::fs::canonicalize(path).map_err(|e| {
                refuse(format!(
                    "it is a symlink to a file that cannot be resolved ({e})"
                ))
            })?;
            return write_atomic(&target, bytes);
        }
        Ok(meta) if !meta.is_file() => {
            #[cfg(unix)]
            {
                use std::os::unix::fs::FileTypeExt;
                let t = meta.file_type();
                if t.is_fifo() || t.is_char_device() {
                    let mut out = std::fs::OpenOptions::new().write(true).open(path)?;
                    return out.write_all(bytes);
                }
            }
            return Err(refuse(format!(
                "it is {}; mcpvet writes only regular files, FIFOs and character devices",
                kind_of(meta.file_type())
            )));
        }
        _ => {}
    }
    write_regular(path, bytes)
}

fn write_regular(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = folder_of(path);
    std::fs::create_dir_all(&dir)?;
    let tmp = synced_temp(&dir, bytes, path, 0o644)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Write `bytes` to a new file `path` that must not exist yet (a backup): atomically, never
/// replacing a file (an existing `path` is an `AlreadyExists` error), with the permissions of
/// the regular file `like` (a backup of a private config stays private; `0600` if `like`
/// cannot be read).
pub fn write_new(path: &Path, bytes: &[u8], like: &Path) -> std::io::Result<()> {
    let tmp = synced_temp(&folder_of(path), bytes, like, 0o600)?;
    tmp.persist_noclobber(path).map_err(|e| e.error)?;
    Ok(())
}

/// The folder a file of `path` goes in (`.` for a bare file name).
fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A temporary file in `dir` holding `bytes`, flushed to disk, with the permissions of the
/// regular file `like` (or `default_mode` when `like` is not one), ready to be persisted.
fn synced_temp(
    dir: &Path,
    bytes: &[u8],
    like: &Path,
    default_mode: u32,
) -> std::io::Result<tempfile::NamedTempFile> {
    let mut tmp = tempfile::Builder::new()
        .prefix(".mcpvet-")
        .suffix(".tmp")
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(like)
            .ok()
            .filter(|m| m.is_file())
            .map_or(default_mode, |m| m.permissions().mode() & 0o7777);
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(mode))?;
    }
    #[cfg(not(unix))]
    let _ = (like, default_mode);
    tmp.as_file().sync_all()?;
    Ok(tmp)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[cfg(unix)]
    #[test]
    fn special_files_are_written_through_or_refused_never_replaced() {
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().expect("tempdir");
        // A character device stays one.
        write_atomic(Path::new("/dev/null"), b"x").expect("write through");
        let t = std::fs::symlink_metadata("/dev/null")
            .expect("meta")
            .file_type();
        assert!(t.is_char_device());
        // A symlink stays a symlink; the file it names gets the bytes.
        let real = dir.path().join("real.json");
        std::fs::write(&real, b"old").expect("write");
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&real, &link).expect("symlink");
        write_atomic(&link, b"new").expect("write via link");
        assert!(
            std::fs::symlink_metadata(&link)
                .expect("meta")
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read(&real).expect("read"), b"new");
        // A folder is refused.
        let e = write_atomic(dir.path(), b"x")
            .expect_err("refused")
            .to_string();
        assert!(e.contains("a folder"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn special_and_oversized_files_are_refused_at_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        let fifo = dir.path().join("fifo.json");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
        let zero_link = dir.path().join("lock.json");
        std::os::unix::fs::symlink("/dev/zero", &zero_link).expect("symlink");
        let sparse = dir.path().join("big.json");
        let f = std::fs::File::create(&sparse).expect("create");
        f.set_len(ReadKind::Config.default_cap() + 1)
            .expect("sparse");
        for (path, want) in [
            (Path::new("/dev/zero"), "a device"),
            (fifo.as_path(), "a FIFO"),
            (zero_link.as_path(), "a device"),
            (sparse.as_path(), "over the 8 MiB limit"),
            (zero_link.as_path(), "symlink to /dev/zero"),
            (dir.path(), "a folder"),
        ] {
            let t = Instant::now();
            let e = read_text(path, ReadKind::Config)
                .expect_err("refused")
                .to_string();
            assert!(e.contains(want), "{}: {e}", path.display());
            assert!(t.elapsed() < Duration::from_secs(1));
        }
        let ok = dir.path().join("ok.json");
        std::fs::write(&ok, "{}").expect("write");
        assert_eq!(read_text(&ok, ReadKind::Config).expect("read"), "{}");
    }

    #[cfg(unix)]
    #[test]
    fn new_files_never_replace_and_keep_the_original_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let config = dir.path().join("c.json");
        std::fs::write(&config, b"orig").expect("write");
        std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        let backup = dir.path().join("c.json.bak");
        write_new(&backup, b"orig", &config).expect("backup");
        let mode = std::fs::metadata(&backup)
            .expect("meta")
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o600);
        let e = write_new(&backup, b"other", &config).expect_err("exists");
        assert_eq!(e.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read(&backup).expect("read"), b"orig");
    }

    #[test]
    fn sizes_parse_in_binary_units() {
        assert_eq!(parse_size("64MiB"), Ok(64 << 20));
        assert_eq!(parse_size("64M"), Ok(64 << 20));
        assert_eq!(parse_size("512 KiB"), Ok(512 << 10));
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert!(parse_size("0").is_err());
        assert!(parse_size("12XB").is_err());
        assert!(parse_size("MiB").is_err());
        assert!(parse_size("99999999999999GiB").is_err());
    }

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
