//! What a launch spec runs from a container registry or a git repository: the image reference
//! of `docker`/`podman run`, and git sources of `npx github:…`, `uvx --from git+…`, `pip install
//! git+…`.

use super::package::{command_lines, effective, is_git_source};
use super::spec::ServerSpec;

/// A container image a `docker`/`podman` `run` launches, with its argument index and the
/// run options before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageRef {
    pub runtime: String,
    pub image: String,
    pub arg: usize,
    /// `(option, value, index)` for every option before the image.
    pub options: Vec<(String, Option<String>, usize)>,
}

const DOCKER_VALUE_FLAGS: &[&str] = &[
    "-e",
    "--env",
    "--env-file",
    "-v",
    "--volume",
    "--mount",
    "-p",
    "--publish",
    "--name",
    "--network",
    "--net",
    "-w",
    "--workdir",
    "-u",
    "--user",
    "--entrypoint",
    "-l",
    "--label",
    "--platform",
    "--pull",
    "-m",
    "--memory",
    "--cpus",
    "--cap-add",
    "--cap-drop",
    "--security-opt",
    "--add-host",
    "--device",
    "--tmpfs",
    "-h",
    "--hostname",
    "--restart",
    "--ulimit",
    "--ipc",
    "--pid",
    "--userns",
    "--runtime",
    "--log-driver",
    "--log-opt",
    "--dns",
    "--group-add",
    "--label-file",
    "--shm-size",
    "--cgroupns",
    "--uts",
    "--gpus",
    "--volumes-from",
    "--link",
];

/// The image of `docker run …` / `podman run …` (also `docker container run`), also inside a
/// shell string (then every index is the string's argument).
pub fn image(spec: &ServerSpec) -> Option<ImageRef> {
    command_lines(spec).into_iter().find_map(|line| {
        let mut img = image_of(&line.command, &line.args)?;
        img.arg = line.outer(img.arg);
        for o in &mut img.options {
            o.2 = line.outer(o.2);
        }
        Some(img)
    })
}

fn image_of(command: &str, args: &[String]) -> Option<ImageRef> {
    let (program, argv, offset) = effective(command, args);
    if !matches!(program.as_str(), "docker" | "podman" | "nerdctl") {
        return None;
    }
    let skip = match (
        argv.first().map(String::as_str),
        argv.get(1).map(String::as_str),
    ) {
        (Some("run"), _) => 1,
        (Some("container"), Some("run")) => 2,
        _ => return None,
    };
    let mut options = Vec::new();
    let mut i = skip;
    while i < argv.len() {
        let a = &argv[i];
        if a == "--" {
            i += 1;
            break;
        }
        if !a.starts_with('-') {
            break;
        }
        if let Some((f, v)) = a.split_once('=') {
            options.push((f.to_string(), Some(v.to_string()), offset + i));
            i += 1;
        } else if DOCKER_VALUE_FLAGS.contains(&a.as_str()) {
            options.push((a.clone(), argv.get(i + 1).cloned(), offset + i + 1));
            i += 2;
        } else {
            options.push((a.clone(), None, offset + i));
            i += 1;
        }
    }
    let image = argv.get(i)?.clone();
    Some(ImageRef {
        runtime: program,
        image,
        arg: offset + i,
        options,
    })
}

/// Git sources on the command line: (argument index, source, ref if any).
/// Shell strings are looked into (the index is then the string's argument).
pub fn git_sources(spec: &ServerSpec) -> Vec<(usize, String, Option<String>)> {
    command_lines(spec)
        .into_iter()
        .flat_map(|line| {
            git_sources_of(&line.args)
                .into_iter()
                .map(move |(i, src, r)| (line.outer(i), src, r))
                .collect::<Vec<_>>()
        })
        .collect()
}

fn git_sources_of(args: &[String]) -> Vec<(usize, String, Option<String>)> {
    let mut out = Vec::new();
    for (i, a) in args.iter().enumerate() {
        let value = a
            .split_once('=')
            .filter(|(f, _)| f.starts_with('-'))
            .map_or(a.as_str(), |(_, v)| v);
        let value = value.strip_prefix("npm:").unwrap_or(value);
        if !is_git_source(value) {
            continue;
        }
        // npm style `#ref`, pip style `@ref` after the path (not the `git@host` user part).
        let reference = if let Some((_, r)) = value.split_once('#') {
            Some(
                r.split('&')
                    .next()
                    .unwrap_or(r)
                    .trim_start_matches("commit=")
                    .to_string(),
            )
        } else {
            let after_scheme = value.split_once("://").map_or(value, |(_, r)| r);
            let path = after_scheme.split_once('/').map_or("", |(_, p)| p);
            path.rsplit_once('@').map(|(_, r)| r.to_string())
        };
        out.push((i, value.to_string(), reference.filter(|r| !r.is_empty())));
    }
    out
}
