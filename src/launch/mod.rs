//! Launch audit: rules over what a server spec runs and with which credentials (no I/O).

use crate::spec::{ServerSpec, Transport};

/// Why a stdio spec runs a package that is not pinned to an exact version, if it does.
///
/// Minimal version (npx/bunx/pnpm dlx with `@latest`, a range, a tag or no version; uvx/pipx
/// without `==`); the launch-rules module owns the complete detection.
pub fn unpinned_reason(spec: &ServerSpec) -> Option<String> {
    let Transport::Stdio { command, args, .. } = &spec.transport else {
        return None;
    };
    let base = std::path::Path::new(command)
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut rest = args.iter().map(String::as_str).peekable();
    let npm_like = match base.as_str() {
        "npx" | "bunx" => true,
        "pnpm" | "yarn" if rest.peek().is_some_and(|a| *a == "dlx") => {
            rest.next();
            true
        }
        "uvx" | "pipx" => false,
        _ => return None,
    };
    if base == "pipx" && rest.next() != Some("run") {
        return None;
    }
    let mut package = None;
    let mut skip_value = false;
    for a in rest {
        if skip_value {
            skip_value = false;
            continue;
        }
        if let Some(flag) = a.strip_prefix('-') {
            if let Some(p) = a
                .strip_prefix("--package=")
                .or_else(|| a.strip_prefix("--from="))
            {
                package = Some(p);
                break;
            }
            skip_value = matches!(flag, "p" | "-package" | "-from" | "-python" | "-with");
            continue;
        }
        package = Some(a);
        break;
    }
    let package = package?;
    if npm_like {
        let (name_part, version) = match package.strip_prefix('@') {
            Some(scoped) => match scoped.split_once('@') {
                Some((n, v)) => (format!("@{n}"), Some(v)),
                None => (package.to_owned(), None),
            },
            None => match package.split_once('@') {
                Some((n, v)) => (n.to_owned(), Some(v)),
                None => (package.to_owned(), None),
            },
        };
        let exact = version.is_some_and(|v| {
            let mut parts = v.split('.');
            let nums = parts.by_ref().take(3).filter(|p| {
                let core = p.split(['-', '+']).next().unwrap_or("");
                !core.is_empty() && core.chars().all(|c| c.is_ascii_digit())
            });
            nums.count() == 3 && v.split('.').count() >= 3
        });
        if exact {
            None
        } else {
            Some(match version {
                None => format!("`{name_part}` has no version (npm installs whatever is latest)"),
                Some(v) => format!("`{name_part}@{v}` is not an exact version"),
            })
        }
    } else {
        let pinned = package.contains("==") && !package.contains('*');
        if pinned {
            None
        } else {
            Some(format!("`{package}` is not pinned with ==VERSION"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stdio(cmd: &str, args: &[&str]) -> ServerSpec {
        ServerSpec {
            name: "s".into(),
            host: "cli".into(),
            origin: None,
            locations: Default::default(),
            transport: Transport::Stdio {
                command: cmd.into(),
                args: args.iter().map(|s| (*s).to_owned()).collect(),
                env: Default::default(),
                cwd: None,
            },
            settings: Default::default(),
        }
    }

    #[test]
    fn unpinned_packages_are_named() {
        assert!(unpinned_reason(&stdio("npx", &["-y", "pkg@latest"])).is_some());
        assert!(unpinned_reason(&stdio("npx", &["-y", "@scope/pkg"])).is_some());
        assert!(unpinned_reason(&stdio("npx", &["pkg@^1.2.0"])).is_some());
        assert!(unpinned_reason(&stdio("uvx", &["mcp-server-time"])).is_some());
        assert!(unpinned_reason(&stdio("npx", &["-y", "@scope/pkg@1.2.3"])).is_none());
        assert!(unpinned_reason(&stdio("npx", &["-y", "pkg@2026.8.31"])).is_none());
        assert!(unpinned_reason(&stdio("uvx", &["mcp-server-time==2026.10.19"])).is_none());
        assert!(unpinned_reason(&stdio("python3", &["server.py"])).is_none());
    }
}
