//! Which host a server entry came from: one of the host configuration formats mcpvet reads, or
//! mcpvet's own command line (`scan -- CMD…`, `--url`).
//!
//! The list of formats is the one registry line per format in [`host_format_list!`]: this
//! module turns it into [`HostFormat`], and `config` into the parser and detector of each
//! format (the module named after `in`, one file each).

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The registry of host formats, one line each: `Variant = "id" in module;` where `module`
/// is the file under `src/config/` with `parse(path, root)` and `sniff(&Sniff)`. Expands to
/// `$then! { … }` so every layer reads the same list.
macro_rules! host_format_list {
    ($then:ident) => {
        $then! {
            /// Claude Desktop `claude_desktop_config.json` (`mcpServers`).
            ClaudeDesktop = "claude-desktop" in claude_desktop;
            /// Claude Code `.mcp.json` and `~/.claude.json` (user and per-project local scopes).
            ClaudeCode = "claude-code" in claude_code;
            /// VS Code `.vscode/mcp.json`, user `mcp.json` (`servers` + `inputs`), `settings.json` `mcp.servers`.
            VsCode = "vscode" in vscode;
            /// Cursor `~/.cursor/mcp.json`, `.cursor/mcp.json`.
            Cursor = "cursor" in cursor;
            /// Windsurf `~/.codeium/windsurf/mcp_config.json` (`serverUrl` for remotes).
            Windsurf = "windsurf" in windsurf;
            /// Zed `settings.json` `context_servers` (all three historical shapes).
            Zed = "zed" in zed;
            /// Codex `~/.codex/config.toml` `[mcp_servers.*]`.
            Codex = "codex" in codex;
            /// Gemini CLI `settings.json` (`command`/`url`/`httpUrl`, `trust`).
            Gemini = "gemini" in gemini;
            /// Cline `cline_mcp_settings.json` (`alwaysAllow`, `autoApprove`).
            Cline = "cline" in cline;
            /// Continue `config.yaml` and `.continue/mcpServers/*.yaml` (a list of servers).
            Continue = "continue" in continue_dev;
            /// JetBrains Junie `.junie/mcp/mcp.json`.
            Junie = "junie" in junie;
            /// The MCP registry's `server.json` (packages and remotes).
            Registry = "registry" in registry;
            /// An MCPB bundle `manifest.json`.
            Mcpb = "mcpb" in mcpb;
            /// Any other JSON file with a Claude-style `mcpServers` map.
            Generic = "mcp-json" in generic;
        }
    };
}
pub(crate) use host_format_list;

macro_rules! define_host_format {
    ($($(#[doc = $doc:literal])* $variant:ident = $id:literal in $module:ident;)*) => {
        /// The host configuration formats mcpvet reads.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum HostFormat {
            $($(#[doc = $doc])* $variant,)*
        }

        impl HostFormat {
            pub const ALL: [HostFormat; [$($id),*].len()] = [$(HostFormat::$variant),*];

            /// The stable id used in specs, `--host` and reports.
            pub fn id(self) -> &'static str {
                match self {
                    $(HostFormat::$variant => $id,)*
                }
            }
        }
    };
}

host_format_list!(define_host_format);

impl HostFormat {
    /// Every format's id, comma-separated (for error messages).
    pub fn known_ids() -> String {
        HostFormat::ALL
            .iter()
            .map(|h| h.id())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl std::fmt::Display for HostFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

impl std::str::FromStr for HostFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        HostFormat::ALL
            .into_iter()
            .find(|h| h.id().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                format!(
                    "unknown host format `{s}` (expected one of: {})",
                    HostFormat::known_ids()
                )
            })
    }
}

/// Where a server entry came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Host {
    /// mcpvet's own command line (`scan -- CMD…`, `--url URL`).
    CommandLine,
    /// A host configuration file of this format.
    Format(HostFormat),
}

impl Host {
    /// The stable id shown in reports: the format's id, or `cli`.
    pub fn id(self) -> &'static str {
        match self {
            Host::CommandLine => "cli",
            Host::Format(f) => f.id(),
        }
    }
}

impl From<HostFormat> for Host {
    fn from(f: HostFormat) -> Host {
        Host::Format(f)
    }
}

impl std::fmt::Display for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

impl std::str::FromStr for Host {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == "cli" {
            Ok(Host::CommandLine)
        } else {
            s.parse().map(Host::Format)
        }
    }
}

impl Serialize for Host {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

impl<'de> Deserialize<'de> for Host {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_through_text_and_serde() {
        for f in HostFormat::ALL {
            assert_eq!(f.id().parse::<HostFormat>(), Ok(f));
            let h = Host::Format(f);
            let json = serde_json::to_string(&h).expect("serialize");
            assert_eq!(json, format!("\"{}\"", f.id()));
            assert_eq!(serde_json::from_str::<Host>(&json).expect("deserialize"), h);
        }
        assert_eq!("cli".parse::<Host>(), Ok(Host::CommandLine));
        assert!("nope".parse::<Host>().is_err());
    }
}
