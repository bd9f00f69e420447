//! The pipeline, the library's entry point: targets → snapshots ([`gather`]) → findings
//! (launch rules, definition audit, lockfiles, policy) → one [`ScanReport`] ([`judge`]) for
//! the renderers of `report`.
//!
//! Everything is driven by plain option structs ([`GatherOptions`], [`JudgeOptions`]); the
//! command line only maps its flags onto them. Data flows one way; nothing here prints
//! (progress goes through a [`ProbeEvent`] callback).

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::audit::{self, RuleSet};
use crate::lock::{self, Lockfile};
use crate::mcp::{ProbeEvent, ProbeOptions};
use crate::model::finding::{Finding, RuleMeta, Severity};
use crate::model::fingerprint::Fingerprinter;
use crate::model::snapshot::ServerSnapshot;
use crate::model::spec::ServerSpec;
use crate::policy::suppress::{Baseline, BaselineEntry};
use crate::policy::{LockLookup, Policy, PolicyWarning};

pub mod model;
pub mod targets;

pub use model::{
    LockState, OutputSample, Pinning, ScanReport, ServerOutcome, ServerReport, Suppressed, ToolInfo,
};
pub use targets::{Resolved, Target, TargetList, obtain, resolve};

/// Which team policy to apply.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum PolicySource {
    /// `mcpvet.toml` found from the working folder upwards, if any.
    #[default]
    Find,
    /// This policy file.
    File(PathBuf),
    /// No policy at all.
    None,
}

/// What to judge the servers against: rules, lockfiles, policy and the gate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JudgeOptions {
    /// The team policy.
    pub policy: PolicySource,
    /// Extra pattern rules: folders of `*.toml` rule files.
    pub rules_dirs: Vec<PathBuf>,
    /// Folder of approved lockfiles (`<server>.lock.json`), relative to the working folder
    /// unless absolute.
    pub lock_dir: PathBuf,
    /// Fail when a finding reaches this severity (default: the policy's, else high).
    pub fail_on: Option<Severity>,
    /// A baseline file (`mcpvet baseline`): the findings it lists are suppressed.
    pub baseline: Option<PathBuf>,
    /// Keep the learned scorer's findings (`learned-intent-score`); `false`: the rules alone.
    pub learned: bool,
}

impl Default for JudgeOptions {
    fn default() -> Self {
        JudgeOptions {
            policy: PolicySource::Find,
            rules_dirs: Vec::new(),
            lock_dir: PathBuf::from("lockfiles"),
            fail_on: None,
            baseline: None,
            learned: true,
        }
    }
}

/// How to obtain snapshots: probe live servers, or (offline) read snapshot files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GatherOptions {
    /// How to probe live servers (including whether unpinned packages may be launched).
    pub probe: ProbeOptions,
    /// Start nothing and open no socket: read snapshot files instead of live servers.
    pub offline: bool,
    /// With `offline`: a config entry named X is read from DIR/X.json.
    pub snapshot_dir: Option<PathBuf>,
    /// Read snapshot files without their definitions ([`ServerSnapshot::load_deferred`]):
    /// [`judge`] reads them one window at a time, so memory does not grow with the files. For
    /// callers whose report shows no definition; the subjects' snapshots then hold none.
    pub defer_definitions: bool,
}

/// One server as the pipeline sees it before judging.
#[derive(Debug, Clone)]
pub struct Subject {
    pub spec: Option<ServerSpec>,
    pub snapshot: Option<ServerSnapshot>,
    pub snapshot_path: Option<PathBuf>,
    pub error: Option<String>,
}

impl Subject {
    /// The configured name, else the snapshot's.
    pub fn name(&self) -> String {
        self.spec
            .as_ref()
            .map(|s| s.name.clone())
            .or_else(|| self.snapshot.as_ref().map(|s| s.server.clone()))
            .or_else(|| self.snapshot_path.as_ref().map(|p| p.display().to_string()))
            .unwrap_or_else(|| "unnamed".into())
    }
}

/// Obtain a snapshot (or an error) for each resolved target: probe live servers
/// concurrently, or read snapshot files. A probe failure stays with its server.
pub fn gather(
    targets: Vec<Target>,
    opts: &GatherOptions,
    progress: &dyn Fn(ProbeEvent),
) -> anyhow::Result<Vec<Subject>> {
    if targets.is_empty() {
        anyhow::bail!(
            "nothing to audit: give config or snapshot files, `--url URL`, or `-- CMD ARGS…`"
        );
    }
    let results = obtain(&targets, opts, progress);
    Ok(targets
        .into_iter()
        .zip(results)
        .map(|(t, r)| {
            let (snapshot, error) = match r {
                Ok(s) => (Some(s), None),
                Err(e) => (None, Some(format!("{e:#}"))),
            };
            // Offline with a snapshot folder, a config entry's snapshot is DIR/NAME.json.
            let snapshot_path = t.snapshot_file.or_else(|| {
                let dir = opts.snapshot_dir.as_ref().filter(|_| opts.offline)?;
                let spec = t.spec.as_ref()?;
                self::targets::snapshot_path_for(dir, &spec.name)
            });
            Subject {
                spec: t.spec,
                snapshot,
                snapshot_path,
                error,
            }
        })
        .collect())
}

/// Probing shorter than this is not worth a note about concurrency.
pub const NOTE_AFTER: std::time::Duration = std::time::Duration::from_secs(1);

/// A note for the report when more stdio servers were started at once than the machine has
/// CPU cores: a server's start-up is CPU work (an interpreter loading its packages), so past
/// the cores `-j` only interleaves them; the figures of this run show how many really ran at
/// a time. `None` when the run did not oversubscribe the cores (HTTP servers mostly wait on
/// the network, so they are not counted) or took under [`NOTE_AFTER`] (too short to matter).
pub fn concurrency_note(
    subjects: &[Subject],
    opts: &GatherOptions,
    cores: usize,
    wall: std::time::Duration,
) -> Option<String> {
    if opts.offline {
        return None;
    }
    let stdio: Vec<&Subject> = subjects
        .iter()
        .filter(|s| s.snapshot_path.is_none())
        .filter(|s| {
            s.spec.as_ref().is_some_and(|spec| {
                matches!(spec.transport, crate::model::spec::Transport::Stdio { .. })
            })
        })
        // Only servers that were started: one refused before launch (an unpinned package,
        // a policy block) took no CPU.
        .filter(|s| s.snapshot.as_ref().is_some_and(|snap| snap.probe.is_some()))
        .collect();
    let cores = cores.max(1);
    let at_once = opts.probe.jobs.max(1).min(stdio.len());
    if at_once <= cores || wall < NOTE_AFTER {
        return None;
    }
    let busy_ms: u64 = stdio
        .iter()
        .filter_map(|s| s.snapshot.as_ref()?.probe.as_ref().map(|p| p.elapsed_ms))
        .sum();
    let busy = busy_ms as f64 / 1000.0;
    let wall = wall.as_secs_f64().max(0.001);
    Some(format!(
        "{} stdio servers were started up to {at_once} at once (`-j {}`) on {cores} CPU {}: \
         their probes took {busy:.1} s together in {wall:.1} s, so about {:.1} ran at a time. \
         A server's start-up is CPU work: starting more at once than there are cores does \
         not make the scan finish sooner.",
        stdio.len(),
        opts.probe.jobs,
        if cores == 1 { "core" } else { "cores" },
        busy / wall,
    ))
}

/// The policy file to use, if any: the given file, else `mcpvet.toml` found from `cwd`
/// upwards.
pub fn policy_path(policy: &PolicySource, cwd: &Path) -> Option<PathBuf> {
    match policy {
        PolicySource::None => None,
        PolicySource::File(p) => Some(p.clone()),
        PolicySource::Find => {
            Policy::find(cwd).map(|p| p.strip_prefix(cwd).map_or(p.clone(), Path::to_path_buf))
        }
    }
}

/// The servers among `targets` the team policy lets use the network inside the probe's
/// sandbox (`[[sandbox-network]]`), by name; empty without a policy.
pub fn sandbox_network(
    targets: &[Target],
    policy: &PolicySource,
    cwd: &Path,
) -> anyhow::Result<Vec<String>> {
    let Some(path) = policy_path(policy, cwd) else {
        return Ok(Vec::new());
    };
    let policy = Policy::load(&path)?;
    Ok(targets
        .iter()
        .filter_map(|t| t.spec.as_ref())
        .map(|s| s.name.clone())
        .filter(|n| policy.allows_sandbox_network(n))
        .collect())
}

/// The stdio servers among `subjects` that were (or would have been) launched without the
/// sandbox (`--no-sandbox`): the reader of any report needs to know.
pub fn unsandboxed(subjects: &[Subject], opts: &GatherOptions) -> Vec<String> {
    if opts.probe.sandbox || opts.offline {
        return Vec::new();
    }
    subjects
        .iter()
        .filter(|s| s.snapshot_path.is_none())
        .filter_map(|s| s.spec.as_ref())
        .filter(|s| matches!(s.transport, crate::model::spec::Transport::Stdio { .. }))
        .map(|s| s.name.clone())
        .collect()
}

/// The rule set: built-in rules plus every folder of extra rules.
pub fn rule_set(rules_dirs: &[PathBuf]) -> anyhow::Result<RuleSet> {
    let mut rules = RuleSet::builtin().context("loading the built-in rules")?;
    for dir in rules_dirs {
        rules.extend_from_dir(dir)?;
    }
    Ok(rules)
}

/// What judging needs before any server answers: the rule set and the rule catalog.
pub struct Loaded {
    /// Shared with the thread that warms it up ([`RulesAhead`]).
    pub rules: std::sync::Arc<RuleSet>,
    /// Every rule's documentation ([`crate::catalog::catalog`]), for the report.
    pub catalog: Vec<RuleMeta>,
}

impl Loaded {
    /// Load both here and now.
    pub fn now(rules_dirs: &[PathBuf]) -> anyhow::Result<Loaded> {
        Ok(Loaded {
            rules: std::sync::Arc::new(rule_set(rules_dirs)?),
            catalog: crate::catalog::catalog(),
        })
    }
}

/// The rule set and catalog, loaded on a thread of its own while the servers start, which
/// then goes on — once told that some server is to be probed live ([`RulesAhead::warm`]) — to
/// build what the audit otherwise builds on first use ([`audit::warm_up`]): a live scan spends
/// none of its own time on them after the last answer. The rules are handed over as soon as
/// they are loaded ([`RulesAhead::finish`]); a matcher the warm-up is still building when the
/// audit needs it is waited for (each is built once, by whichever thread comes first), one it
/// has not reached is built by the audit.
///
/// Without a live server (snapshot files, `--offline`) there is nothing to overlap the warm-up
/// with, and it would cost twice: its own CPU, and every regex it touched first would stay
/// owned by its thread, so each search the audit makes with one takes the regex crate's
/// slower, locked path for another thread's cache.
pub struct RulesAhead {
    dirs: Vec<PathBuf>,
    loaded: Option<std::sync::mpsc::Receiver<anyhow::Result<Loaded>>>,
    /// Tells the thread, once, whether to warm up; dropped unsent, it means no.
    warm: Option<std::sync::mpsc::SyncSender<bool>>,
}

impl RulesAhead {
    /// Start loading the built-in rules and every folder of extra rules.
    pub fn start(rules_dirs: &[PathBuf]) -> Self {
        let dirs = rules_dirs.to_vec();
        let theirs = dirs.clone();
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        let (warm_tx, warm_rx) = std::sync::mpsc::sync_channel::<bool>(1);
        let started = std::thread::Builder::new()
            .name("mcpvet-rules".into())
            .spawn(move || match Loaded::now(&theirs) {
                Ok(loaded) => {
                    let rules = std::sync::Arc::clone(&loaded.rules);
                    // The receiver may be gone (the command failed): nothing to warm then.
                    if tx.send(Ok(loaded)).is_ok() && warm_rx.recv() == Ok(true) {
                        audit::warm_up(&rules);
                    }
                }
                Err(e) => {
                    let _ = tx.send(Err(e));
                }
            })
            .is_ok();
        RulesAhead {
            dirs,
            loaded: started.then_some(rx),
            warm: started.then_some(warm_tx),
        }
    }

    /// Say whether a server is to be probed live (`true`: warm up while it starts). Only the
    /// first answer counts; none at all, by [`RulesAhead::finish`], means no.
    pub fn warm(&mut self, live: bool) {
        if let Some(tx) = self.warm.take() {
            let _ = tx.try_send(live);
        }
    }

    /// The rules and catalog (or why they could not be loaded). Where the thread could not
    /// start or ended without them, they are loaded here instead.
    pub fn finish(mut self) -> anyhow::Result<Loaded> {
        // Judging starts now: a warm-up not asked for yet is no longer worth starting.
        self.warm.take();
        match self.loaded.map(|rx| rx.recv()) {
            Some(Ok(loaded)) => loaded,
            Some(Err(_)) | None => Loaded::now(&self.dirs),
        }
    }
}

/// Lockfiles on disk, as the policy asks about them.
struct DiskLocks<'a> {
    dir: &'a Path,
}

impl LockLookup for DiskLocks<'_> {
    fn is_locked(&self, server: &str) -> bool {
        lock::path_for(self.dir, server).is_file()
    }
    // Launch identity changes are reported by `lock::launch_spec_findings` (`pin-mismatch`,
    // comparing the whole normalised launch), so the policy need not compare identities too.
}

/// Where a config-less subject's findings point: nowhere in a config.
fn fill_config_origin(f: &mut Finding, spec: Option<&ServerSpec>) {
    if f.location.config.is_none() {
        f.location.config = spec.and_then(|s| s.origin.clone());
    }
}

/// Judge the subjects and build the report. Subjects without snapshots (the static `check`,
/// or servers that could not be probed) get the launch, lockfile and policy checks only.
pub fn judge(
    subjects: Vec<Subject>,
    judge: &JudgeOptions,
    cwd: &Path,
    extra_findings: Vec<Finding>,
) -> anyhow::Result<ScanReport> {
    let loaded = Loaded::now(&judge.rules_dirs)?;
    judge_with(subjects, judge, cwd, extra_findings, loaded)
}

/// [`judge`] with the rule set and catalog already loaded (`judge.rules_dirs` is not read
/// again): the live scan's, loaded by [`RulesAhead`] while the servers started.
pub fn judge_with(
    mut subjects: Vec<Subject>,
    judge: &JudgeOptions,
    cwd: &Path,
    extra_findings: Vec<Finding>,
    loaded: Loaded,
) -> anyhow::Result<ScanReport> {
    let Loaded { rules, catalog } = loaded;
    let policy_file = policy_path(&judge.policy, cwd);
    let policy = policy_file.as_deref().map(Policy::load).transpose()?;
    let lock_dir = if judge.lock_dir.is_absolute() {
        judge.lock_dir.clone()
    } else {
        cwd.join(&judge.lock_dir)
    };

    let mut findings: Vec<Finding> = extra_findings;
    let mut suppressed: Vec<Suppressed> = Vec::new();
    let mut servers: Vec<ServerReport> = Vec::new();

    // Launch rules: what runs and with which credentials.
    for s in &subjects {
        if let Some(spec) = &s.spec {
            findings.extend(crate::launch_audit::audit_spec(spec));
        }
    }

    // Definition audit over every snapshot at once (cross-server checks need them all). The
    // snapshots are moved out of the subjects for it and back after, never copied.
    let mut snaps: Vec<ServerSnapshot> = Vec::new();
    let mut owners: Vec<usize> = Vec::new();
    for (i, s) in subjects.iter_mut().enumerate() {
        let name = s.name();
        if let Some(mut snap) = s.snapshot.take() {
            snap.server = name;
            snaps.push(snap);
            owners.push(i);
        }
    }
    let mut definition = audit::try_audit_snapshots(&snaps, &rules)?;
    if !judge.learned {
        // The scorer only ever adds its own findings: without them, the rules alone.
        definition.retain(|f| f.rule != crate::model::rule_id::LEARNED_INTENT_SCORE);
    }
    for (i, snap) in owners.into_iter().zip(snaps) {
        subjects[i].snapshot = Some(snap);
    }
    // Each finding's server by name, looked up in a map built once (the first subject of a
    // name wins, as a search from the front would find it).
    let names: Vec<String> = subjects.iter().map(Subject::name).collect();
    let mut by_name: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (i, n) in names.iter().enumerate() {
        by_name.entry(n.as_str()).or_insert(i);
    }
    for f in &mut definition {
        let spec = by_name
            .get(f.server.as_str())
            .and_then(|&i| subjects[i].spec.as_ref());
        fill_config_origin(f, spec);
    }
    drop(by_name);
    drop(names);
    findings.extend(definition);

    // Lockfiles: drift, accepted findings, launch changes.
    let mut locks: Vec<(String, Option<Lockfile>)> = Vec::new();
    let mut era_notes: Vec<String> = Vec::new();
    for s in &mut subjects {
        let name = s.name();
        let lock = Lockfile::read_for(&lock_dir, &name)
            .with_context(|| format!("reading the lockfile of server `{name}`"))?;
        let mut state = match &lock {
            Some(_) => LockState::Locked,
            None => LockState::Unlocked,
        };
        if let Some(lock) = &lock {
            let mut drift = Vec::new();
            if let Some(spec) = &s.spec {
                drift.extend(lock::launch_spec_findings(spec, lock));
            }
            if let Some(snap) = &s.snapshot {
                // Drift compares every definition: a deferred snapshot is read whole for it
                // (one server at a time, dropped after).
                let full;
                let snap = if snap.deferred.is_some() {
                    full = snap.materialized().with_context(|| {
                        format!("reading the definitions of server `{name}` to compare with its lockfile")
                    })?;
                    &full
                } else {
                    snap
                };
                drift.extend(lock::drift_findings(
                    s.spec.as_ref(),
                    Some(lock),
                    snap,
                    false,
                ));
                if let Some(why) = snap.undecided_era() {
                    era_notes.push(format!(
                        "`{name}`: era and protocol version not compared with the lock: {why}"
                    ));
                }
            } else if s.error.is_some() {
                state = LockState::NotApplicable;
            }
            if !drift.is_empty() {
                state = LockState::Drifted;
            }
            findings.extend(drift);
        } else if s.snapshot.is_none() && (s.spec.is_none() || s.error.is_some()) {
            state = LockState::NotApplicable;
        }
        // The report keeps the snapshot; the subject no longer needs it.
        let mut report = ServerReport::new(name.clone(), s.spec.clone(), s.snapshot.take());
        report.snapshot_path = s.snapshot_path.clone();
        report.error = s.error.clone();
        report.lock = state;
        servers.push(report);
        locks.push((name, lock));
    }
    // Findings accepted at approval (same rule, item and pointer) are suppressed. The first
    // lock of a server's name is the one that counts.
    let mut lock_of: std::collections::HashMap<&str, Option<&Lockfile>> =
        std::collections::HashMap::new();
    for (n, l) in &locks {
        lock_of.entry(n.as_str()).or_insert(l.as_ref());
    }
    findings.retain(|f| {
        let Some(Some(lock)) = lock_of.get(f.server.as_str()) else {
            return true;
        };
        match lock.approval.accepted.iter().find(|a| a.covers(f)) {
            Some(a) => {
                suppressed.push(Suppressed {
                    rule: f.rule.clone(),
                    server: Some(f.server.clone()),
                    reason: format!(
                        "accepted at approval by {} ({}): {}",
                        lock.approval.by, lock.approval.at, a.reason
                    ),
                    count: 1,
                });
                false
            }
            None => true,
        }
    });

    // Policy: allowlist, credentials, requirements, remaps and ignores.
    let specs: Vec<ServerSpec> = subjects.iter().filter_map(|s| s.spec.clone()).collect();
    let (mut findings, mut warnings, policy_fail_on) = match &policy {
        Some(p) => {
            let outcome = p.evaluate_in(Some(cwd), &specs, findings, &DiskLocks { dir: &lock_dir });
            for hit in &outcome.ignored {
                let ig = &p.ignore[hit.entry];
                suppressed.push(Suppressed {
                    rule: hit.rule.clone(),
                    server: ig.server.clone(),
                    reason: format!("ignored by policy ({}): {}", ig.origin, ig.reason),
                    count: hit.count,
                });
            }
            (outcome.findings, outcome.warnings, outcome.fail_on)
        }
        None => (findings, Vec::new(), Severity::High),
    };

    // Baseline: findings accepted by fingerprint, each with a reviewer's reason.
    if let Some(path) = &judge.baseline {
        let baseline = Baseline::load(path)?;
        let prints = Fingerprinter::new(&specs, Some(cwd));
        let judged = |entry: &BaselineEntry| model::judged(&servers, entry);
        let applied = baseline.apply(findings, &prints, &judged);
        findings = applied.findings;
        suppressed.extend(applied.suppressed.into_iter().map(|g| Suppressed {
            rule: g.rule,
            server: Some(g.server),
            reason: format!("in baseline {}: {}", path.display(), g.reason),
            count: g.count,
        }));
        warnings.extend(applied.warnings);
    }
    findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    findings.dedup();

    let mut report = ScanReport::new(servers, findings, judge.fail_on.unwrap_or(policy_fail_on));
    report.suppressed = suppressed;
    report.warnings = warnings.iter().map(PolicyWarning::to_string).collect();
    report.warnings.extend(era_notes);
    report.rules = catalog;
    report.root = Some(cwd.to_path_buf());
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probed(name: &str, transport: crate::model::spec::Transport, ms: u64) -> Subject {
        Subject {
            spec: Some(ServerSpec {
                name: name.into(),
                host: crate::model::host::Host::Format(crate::model::host::HostFormat::ClaudeCode),
                origin: None,
                locations: Default::default(),
                transport,
                settings: Default::default(),
                duplicate_keys: Vec::new(),
            }),
            snapshot: Some(ServerSnapshot {
                server: name.into(),
                probe: Some(crate::model::snapshot::ProbeInfo {
                    transport: "stdio".into(),
                    elapsed_ms: ms,
                    ..Default::default()
                }),
                ..ServerSnapshot::default()
            }),
            snapshot_path: None,
            error: None,
        }
    }

    fn stdio_transport() -> crate::model::spec::Transport {
        crate::model::spec::Transport::Stdio {
            command: "server".into(),
            args: Vec::new(),
            env: Default::default(),
            cwd: None,
        }
    }

    #[test]
    fn the_report_says_when_more_stdio_servers_started_at_once_than_there_are_cores() {
        let subjects: Vec<Subject> = (0..4)
            .map(|i| probed(&format!("s{i}"), stdio_transport(), 1500))
            .collect();
        let mut opts = GatherOptions::default();
        opts.probe.jobs = 8;
        let wall = std::time::Duration::from_millis(3000);
        let note = concurrency_note(&subjects, &opts, 2, wall).expect("oversubscribed");
        assert!(
            note.starts_with(
                "4 stdio servers were started up to 4 at once (`-j 8`) on 2 CPU cores"
            ),
            "{note}"
        );
        assert!(
            note.contains("6.0 s together in 3.0 s, so about 2.0 ran at a time"),
            "{note}"
        );
        // As many at once as there are cores, or fewer: nothing to say.
        assert_eq!(concurrency_note(&subjects, &opts, 4, wall), None);
        opts.probe.jobs = 2;
        assert_eq!(concurrency_note(&subjects, &opts, 2, wall), None);
        // Offline scans start nothing; HTTP servers are not counted.
        opts.probe.jobs = 8;
        let offline = GatherOptions {
            offline: true,
            ..opts.clone()
        };
        assert_eq!(concurrency_note(&subjects, &offline, 2, wall), None);
        let http: Vec<Subject> = (0..4)
            .map(|i| {
                probed(
                    &format!("h{i}"),
                    crate::model::spec::Transport::Http {
                        url: "http://127.0.0.1:1/mcp".into(),
                        headers: Default::default(),
                    },
                    1500,
                )
            })
            .collect();
        assert_eq!(concurrency_note(&http, &opts, 2, wall), None);
        // Too short to matter.
        let quick = std::time::Duration::from_millis(900);
        assert_eq!(concurrency_note(&subjects, &opts, 2, quick), None);
        // Servers refused before launch were never started: two probed, two refused, on
        // two cores, is no oversubscription.
        let mut mixed: Vec<Subject> = (0..2)
            .map(|i| probed(&format!("p{i}"), stdio_transport(), 1500))
            .collect();
        for i in 0..2 {
            let mut refused = probed(&format!("r{i}"), stdio_transport(), 0);
            refused.snapshot = None;
            mixed.push(refused);
        }
        assert_eq!(concurrency_note(&mixed, &opts, 2, wall), None);
        mixed.push(probed("p2", stdio_transport(), 1500));
        let note = concurrency_note(&mixed, &opts, 2, wall).expect("three started on two cores");
        assert!(
            note.starts_with("3 stdio servers were started up to 3 at once"),
            "{note}"
        );
    }

    #[test]
    fn rules_loaded_ahead_are_the_rules_loaded_now_and_fail_the_same_way() {
        let ahead = RulesAhead::start(&[]).finish().unwrap();
        let mut warmed = RulesAhead::start(&[]);
        warmed.warm(true);
        let warmed = warmed.finish().unwrap();
        assert_eq!(warmed.rules.docs(), ahead.rules.docs());
        let now = Loaded::now(&[]).unwrap();
        assert_eq!(ahead.catalog, now.catalog);
        assert_eq!(ahead.rules.docs(), now.rules.docs());
        assert_eq!(ahead.rules.patterns().len(), now.rules.patterns().len());
        let empty = tempfile::tempdir().unwrap();
        let dirs = [empty.path().to_path_buf()];
        let e = RulesAhead::start(&dirs).finish().err().unwrap();
        let n = Loaded::now(&dirs).err().unwrap();
        assert_eq!(format!("{e:#}"), format!("{n:#}"));
        assert!(
            format!("{e:#}").contains("holds no *.toml rule files"),
            "{e:#}"
        );
    }
}
