//! `--discover`: the known user and project locations of every host's MCP configuration on
//! Linux, macOS and Windows. All OS layouts are checked under the given home folder (a
//! Windows `%APPDATA%` is `<home>/AppData/Roaming`), so tests can point it at a temp dir.

use std::path::{Path, PathBuf};

use super::HostFormat;

/// Whether a configuration applies to one user or is committed with a project.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    User,
    Project,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::Project => "project",
        }
    }
}

/// A configuration file found on disk, with the host it belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiscoveredConfig {
    pub path: PathBuf,
    pub host: HostFormat,
    pub scope: Scope,
}

/// The app-data folders of one product on Linux, macOS and Windows.
fn app_dirs(home: &Path, linux: &str, mac: &str, windows: &str) -> Vec<PathBuf> {
    vec![
        home.join(".config").join(linux),
        home.join("Library/Application Support").join(mac),
        home.join("AppData/Roaming").join(windows),
    ]
}

fn user_candidates(home: &Path) -> Vec<(PathBuf, HostFormat)> {
    use HostFormat::*;
    let mut c = Vec::new();
    for d in app_dirs(home, "Claude", "Claude", "Claude") {
        c.push((d.join("claude_desktop_config.json"), ClaudeDesktop));
    }
    c.push((home.join(".claude.json"), ClaudeCode));
    for product in ["Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf"] {
        let vscode = matches!(product, "Code" | "Code - Insiders" | "VSCodium");
        for d in app_dirs(home, product, product, product) {
            let user = d.join("User");
            if vscode {
                c.push((user.join("mcp.json"), VsCode));
                c.push((user.join("settings.json"), VsCode));
            }
            // Cline runs inside any VS Code fork.
            c.push((
                user.join("globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json"),
                Cline,
            ));
        }
    }
    c.push((
        home.join(".cline/data/settings/cline_mcp_settings.json"),
        Cline,
    ));
    c.push((home.join(".cursor/mcp.json"), Cursor));
    c.push((home.join(".codeium/windsurf/mcp_config.json"), Windsurf));
    for d in app_dirs(home, "zed", "Zed", "Zed") {
        c.push((d.join("settings.json"), Zed));
    }
    c.push((home.join(".codex/config.toml"), Codex));
    c.push((home.join(".gemini/settings.json"), Gemini));
    c.push((home.join(".continue/config.yaml"), Continue));
    c.push((home.join(".continue/config.json"), Continue));
    c.extend(dir_files(&home.join(".continue/mcpServers"), Continue));
    c.push((home.join(".junie/mcp/mcp.json"), Junie));
    c
}

fn project_candidates(dir: &Path) -> Vec<(PathBuf, HostFormat)> {
    use HostFormat::*;
    let mut c = vec![
        (dir.join(".mcp.json"), ClaudeCode),
        (dir.join(".vscode/mcp.json"), VsCode),
        (dir.join(".vscode/settings.json"), VsCode),
        (dir.join(".cursor/mcp.json"), Cursor),
        (dir.join(".windsurf/mcp_config.json"), Windsurf),
        (dir.join(".zed/settings.json"), Zed),
        (dir.join(".codex/config.toml"), Codex),
        (dir.join(".gemini/settings.json"), Gemini),
        (dir.join(".continue/config.yaml"), Continue),
        (dir.join(".junie/mcp/mcp.json"), Junie),
        (dir.join("server.json"), Registry),
    ];
    c.extend(dir_files(&dir.join(".continue/mcpServers"), Continue));
    c
}

/// The `.yaml`, `.yml` and `.json` files of a folder, sorted.
fn dir_files(dir: &Path, host: HostFormat) -> Vec<(PathBuf, HostFormat)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| matches!(e, "yaml" | "yml" | "json"))
        })
        .collect();
    files.sort();
    files.into_iter().map(|p| (p, host)).collect()
}

/// Settings files that may hold no MCP servers at all are only reported when they mention them.
fn mentions_servers(path: &Path, host: HostFormat) -> bool {
    let is_settings = path.file_name().is_some_and(|n| n == "settings.json");
    if !is_settings || host == HostFormat::Gemini {
        return true;
    }
    crate::model::fsio::read_text(path, crate::model::fsio::ReadKind::Config).is_ok_and(|t| {
        t.contains("\"mcp\"") || t.contains("mcp.servers") || t.contains("context_servers")
    })
}

/// The project folders to look in: `cwd` and, if it is inside a git checkout, its root.
fn project_dirs(cwd: &Path) -> Vec<PathBuf> {
    let mut dirs = vec![cwd.to_path_buf()];
    if let Some(root) = cwd.ancestors().find(|d| d.join(".git").exists()) {
        if root != cwd {
            dirs.push(root.to_path_buf());
        }
    }
    dirs
}

/// Every known configuration file that exists under `home` (user scope) and `cwd` (project
/// scope, plus the enclosing git root), in a stable order.
pub fn discover(home: &Path, cwd: &Path) -> Vec<DiscoveredConfig> {
    let mut found = Vec::new();
    let mut push = |path: PathBuf, host: HostFormat, scope: Scope| {
        if path.is_file()
            && mentions_servers(&path, host)
            && !found.iter().any(|d: &DiscoveredConfig| d.path == path)
        {
            found.push(DiscoveredConfig { path, host, scope });
        }
    };
    for dir in project_dirs(cwd) {
        for (p, h) in project_candidates(&dir) {
            push(p, h, Scope::Project);
        }
    }
    for (p, h) in user_candidates(home) {
        push(p, h, Scope::User);
    }
    found
}

/// [`discover`] with the home folder from `HOME` (or `USERPROFILE`) and the current folder.
pub fn discover_from_env() -> Vec<DiscoveredConfig> {
    let home = std::env::var_os("HOME")
        .or_else(|| std::env::var_os("USERPROFILE"))
        .map(PathBuf::from);
    let cwd = std::env::current_dir().ok();
    match (home, cwd) {
        (Some(h), Some(c)) => discover(&h, &c),
        (Some(h), None) => discover(&h, &h),
        (None, Some(c)) => discover(&c, &c),
        (None, None) => Vec::new(),
    }
}
