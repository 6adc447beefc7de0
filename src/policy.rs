//! `.gate/policy.yaml`: what each check costs, and the declared exemption
//! classes (docs/policy.md).
//!
//! Owns the closed schema, its validation and the embedded default policy
//! (`policy/default.yaml`, also what `gate init` writes). It decides nothing
//! about a change: checks read a [`Policy`] and apply its modes.
//!
//! Reading rules:
//! - `version` is required and must be `1`.
//! - Every top-level section is optional. An absent check section (`scope`,
//!   `provenance`, `receipts`, `brief`) reads as `advisory`, the embedded
//!   default's value; inside a present section `mode` is required and the
//!   other keys default as docs/policy.md says (`merges: refuse`, `max_entries:
//!   200000`, `max_bytes: 2147483648`, no `upstream`, `trailer` or
//!   `required_since`).
//! - `binding` is special (docs/binding.md): absent, empty or misspelt reads as
//!   `off` and says so in [`Policy::notes`] instead of failing — a policy that
//!   predates the key must keep working. Its value is therefore read as text.
//! - `upstream` is a full ref name (`refs/...`), `trailer` a trailer token
//!   (letters, digits, `-`), `required_since` a strict `YYYY-MM-DD` date,
//!   the limits positive, exemption ids valid and unique. Each error names
//!   the file, line and key.

use std::fmt;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};

use crate::clock::Date;
use crate::ids;
use crate::load::{self, LoadError};
use crate::yaml;

/// Where a policy lives in a repository.
pub const POLICY_PATH: &str = ".gate/policy.yaml";

/// The embedded default policy: every check `advisory`, binding `off`.
pub const DEFAULT_POLICY_YAML: &str = include_str!("../policy/default.yaml");

/// What a check's refusal costs.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Not run.
    Off,
    /// Run and reported; never blocks.
    Advisory,
    /// Refused or unknown blocks.
    Required,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Off => "off",
            Mode::Advisory => "advisory",
            Mode::Required => "required",
        }
    }

    /// The mode named exactly `text` (`off`, `advisory`, `required`).
    pub fn from_name(text: &str) -> Option<Mode> {
        match text {
            "off" => Some(Mode::Off),
            "advisory" => Some(Mode::Advisory),
            "required" => Some(Mode::Required),
            _ => None,
        }
    }

    /// Whether the check runs at all.
    pub fn runs(self) -> bool {
        self != Mode::Off
    }

    /// Whether a refused or unknown outcome blocks.
    pub fn blocks(self) -> bool {
        self == Mode::Required
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How provenance treats merge commits in a range.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Deserialize,
    Serialize,
    JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Merges {
    /// Each merge commit is refused (`merge_commit`).
    #[default]
    Refuse,
    /// A merge's own changes are checked against every parent.
    Inspect,
}

impl Merges {
    pub fn as_str(self) -> &'static str {
        match self {
            Merges::Refuse => "refuse",
            Merges::Inspect => "inspect",
        }
    }
}

impl fmt::Display for Merges {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How provenance treats a commit that changes no path (`git commit
/// --allow-empty`), from the strictest.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Deserialize,
    Serialize,
    JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum EmptyCommits {
    /// Each is a blocker (`empty_commit`), as the commit-scope source
    /// refuses it.
    Refuse,
    /// Each is a warning (`empty_commit`): said, never refused.
    #[default]
    Report,
    /// Not said.
    Allow,
}

impl EmptyCommits {
    pub fn as_str(self) -> &'static str {
        match self {
            EmptyCommits::Refuse => "refuse",
            EmptyCommits::Report => "report",
            EmptyCommits::Allow => "allow",
        }
    }
}

/// What an agent host's hook does with an edit that lands outside the
/// repository, in no repository gate governs (docs/agents.md), from the
/// strictest.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Deserialize,
    Serialize,
    JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ExternalEdits {
    /// Denied before the edit.
    Deny,
    /// Let through, said to the user, and recorded for `gate context`.
    #[default]
    Report,
    /// Let through, not said.
    Allow,
}

impl ExternalEdits {
    pub fn as_str(self) -> &'static str {
        match self {
            ExternalEdits::Deny => "deny",
            ExternalEdits::Report => "report",
            ExternalEdits::Allow => "allow",
        }
    }
}

/// The `agents` section: what the agent hosts' hooks do beyond the scope.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, expecting = "an agents mapping (external_edits)")]
pub struct AgentsPolicy {
    /// An edit that lands outside the repository, in no repository gate
    /// governs: `deny`, `report` (the default) or `allow`.
    #[serde(default)]
    pub external_edits: ExternalEdits,
}

/// A read policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    /// Always 1.
    pub version: u32,
    pub binding: Mode,
    pub exemptions: Vec<ExemptionClass>,
    pub scope: Mode,
    pub provenance: Provenance,
    pub receipts: ReceiptsPolicy,
    pub brief: BriefPolicy,
    pub agents: AgentsPolicy,
    /// What reading the policy had to assume, for people (e.g. a misspelt
    /// `binding` read as `off`).
    pub notes: Vec<String>,
}

impl Policy {
    /// The trailer that names a commit's task: the policy's
    /// (`provenance.trailer`), else `Task`.
    pub fn trailer_key(&self) -> &str {
        self.provenance.trailer.as_deref().unwrap_or("Task")
    }

    /// The declared exemption class `id`.
    pub fn exemption(&self, id: &str) -> Option<&ExemptionClass> {
        self.exemptions.iter().find(|class| class.id == id)
    }
}

/// A declared kind of work that serves no intent.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "an exemption mapping (id, description)"
)]
pub struct ExemptionClass {
    #[serde(deserialize_with = "yaml::string")]
    pub id: String,
    #[serde(deserialize_with = "yaml::string")]
    pub description: String,
}

/// The `provenance` section.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a provenance mapping (mode, merges, empty_commits, upstream, trailer)"
)]
pub struct Provenance {
    pub mode: Mode,
    #[serde(default)]
    pub merges: Merges,
    /// A commit that changes no path: `refuse`, `report` (the default) or
    /// `allow`.
    #[serde(default)]
    pub empty_commits: EmptyCommits,
    /// A full ref name (`refs/heads/main`) whose commits count as imported.
    #[serde(default, deserialize_with = "yaml::opt_string")]
    pub upstream: Option<String>,
    /// The trailer token naming a commit's task (`Task`).
    #[serde(default, deserialize_with = "yaml::opt_string")]
    pub trailer: Option<String>,
}

impl Default for Provenance {
    /// The section when absent: advisory, merges refused.
    fn default() -> Provenance {
        Provenance {
            mode: Mode::Advisory,
            merges: Merges::Refuse,
            empty_commits: EmptyCommits::Report,
            upstream: None,
            trailer: None,
        }
    }
}

/// The `receipts` section.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a receipts mapping (mode, max_entries, max_bytes, trust, signers)"
)]
pub struct ReceiptsPolicy {
    pub mode: Mode,
    /// Most files a source fingerprint may cover.
    #[serde(default = "default_max_entries")]
    #[schemars(range(min = 1))]
    pub max_entries: u64,
    /// Most bytes of content a source fingerprint may hash.
    #[serde(default = "default_max_bytes")]
    #[schemars(range(min = 1))]
    pub max_bytes: u64,
    /// Whose receipts count in a range (CI, the server): `signed` (a
    /// receipt signed by a key `signers` lists at the trusted revision) or
    /// `any-pusher` (an unsigned receipt counts too: whoever can push
    /// `refs/notes/gate` is believed).
    #[serde(default)]
    pub trust: Trust,
    /// The file listing who may sign receipts, repository-relative, read at
    /// the trusted revision (never the tip under review): git's
    /// `gpg.ssh.allowedSignersFile` format for SSH keys, or armored OpenPGP
    /// public keys.
    #[serde(default)]
    pub signers: Option<String>,
}

/// `receipts.trust`: whose travelled receipts a range believes
/// (docs/receipts.md, "Signed receipts").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Trust {
    /// Every pusher: an unsigned receipt counts (the policy says so in
    /// words, and every report repeats it).
    AnyPusher,
    /// Only receipts signed by a key the trusted signers list.
    #[default]
    Signed,
}

impl Trust {
    pub fn as_str(self) -> &'static str {
        match self {
            Trust::AnyPusher => "any-pusher",
            Trust::Signed => "signed",
        }
    }
}

/// Default `receipts.max_entries`.
pub const DEFAULT_MAX_ENTRIES: u64 = 200_000;
/// Default `receipts.max_bytes` (128 MiB).
pub const DEFAULT_MAX_BYTES: u64 = 2 << 30;

fn default_max_entries() -> u64 {
    DEFAULT_MAX_ENTRIES
}

fn default_max_bytes() -> u64 {
    DEFAULT_MAX_BYTES
}

impl Default for ReceiptsPolicy {
    /// The section when absent: advisory, default limits.
    fn default() -> ReceiptsPolicy {
        ReceiptsPolicy {
            mode: Mode::Advisory,
            max_entries: DEFAULT_MAX_ENTRIES,
            max_bytes: DEFAULT_MAX_BYTES,
            trust: Trust::Signed,
            signers: None,
        }
    }
}

/// The `brief` section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BriefPolicy {
    pub mode: Mode,
    /// Tasks created on or after this day must have a valid brief.
    pub required_since: Option<Date>,
}

impl Default for BriefPolicy {
    /// The section when absent: advisory, no date.
    fn default() -> BriefPolicy {
        BriefPolicy {
            mode: Mode::Advisory,
            required_since: None,
        }
    }
}

/// Where a policy came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PolicySource {
    /// No `.gate/policy.yaml`: the embedded default.
    Embedded,
    /// The repository's file (repository-relative, `.gate/policy.yaml`).
    File(PathBuf),
}

impl fmt::Display for PolicySource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PolicySource::Embedded => f.write_str("the embedded default policy"),
            PolicySource::File(path) => write!(f, "{}", path.display()),
        }
    }
}

/// A policy and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadedPolicy {
    pub policy: Policy,
    pub source: PolicySource,
    /// The revision it was read at, for people: `the work tree`,
    /// `HEAD (1a2b3c4d5e6f)`, `the range's base (…)` (docs/trust.md).
    pub revision: String,
}

/// The embedded default policy.
pub fn embedded() -> Policy {
    parse(Path::new("<embedded default policy>"), DEFAULT_POLICY_YAML)
        .expect("the embedded default policy parses (a unit test proves it)")
}

/// The policy of the worktree at `worktree_root`: its `.gate/policy.yaml` if
/// present, else the embedded default.
pub fn load(worktree_root: &Path) -> Result<LoadedPolicy, LoadError> {
    let shown = Path::new(POLICY_PATH);
    let revision = "the work tree".to_string();
    match load::read_optional_as(shown, &worktree_root.join(POLICY_PATH))? {
        Some(text) => Ok(LoadedPolicy {
            policy: parse(shown, &text)?,
            source: PolicySource::File(shown.to_path_buf()),
            revision,
        }),
        None => Ok(LoadedPolicy {
            policy: embedded(),
            source: PolicySource::Embedded,
            revision,
        }),
    }
}

/// Why the policy at a commit could not be read: never the embedded default.
#[derive(Debug, thiserror::Error)]
pub enum CommittedError {
    #[error(transparent)]
    Git(#[from] crate::git::GitError),
    #[error(transparent)]
    Load(#[from] LoadError),
    /// `.gate/policy.yaml` at the commit is not a regular file.
    #[error("{file} is a {kind} at that commit, not a policy file")]
    NotAFile { file: String, kind: &'static str },
}

/// The one "policy at a commit" loader: `<commit>:.gate/policy.yaml`, else
/// the embedded default when that commit holds no policy file (the revision
/// says where it looked). `named` is how people know the commit (`HEAD`,
/// `the range's base`, a ref). A commit that does not resolve, a blob that
/// cannot be read or parsed is an error (unknown), never the default.
pub fn at_commit(
    repo: &crate::git::Repo,
    commit: crate::git::Oid,
    named: &str,
) -> Result<LoadedPolicy, CommittedError> {
    use crate::git::EntryKind;
    let shown = format!("{}:{POLICY_PATH}", commit.short());
    let revision = format!("{named} ({})", commit.short());
    let path = crate::path::RepoPath::from(POLICY_PATH);
    let entry = repo.entry_at(commit, &path)?;
    let blob = match entry {
        // A directory where the policy goes is not "no policy": unknown.
        None if repo.tree_id_at(commit, &path)?.is_some() => {
            return Err(CommittedError::NotAFile {
                file: shown,
                kind: "directory",
            });
        }
        None => {
            return Ok(LoadedPolicy {
                policy: embedded(),
                source: PolicySource::Embedded,
                revision,
            });
        }
        Some((blob, EntryKind::File | EntryKind::Executable)) => blob,
        Some((_, kind)) => {
            return Err(CommittedError::NotAFile {
                file: shown,
                kind: match kind {
                    EntryKind::Symlink => "symbolic link",
                    _ => "submodule",
                },
            });
        }
    };
    let bytes = repo.read_blob(blob)?;
    if bytes.len() as u64 > load::MAX_FILE_BYTES {
        return Err(LoadError::TooLarge {
            file: shown.into(),
            size: bytes.len() as u64,
        }
        .into());
    }
    let text = String::from_utf8(bytes).map_err(|_| LoadError::NotUtf8 {
        file: shown.clone().into(),
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    Ok(LoadedPolicy {
        policy: parse(Path::new(&shown), text)?,
        source: PolicySource::File(POLICY_PATH.into()),
        revision,
    })
}

/// A key an uncommitted (or pushed, or proposed) policy would loosen: the
/// key, the value that judges (the trusted one) and the one proposed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loosening {
    /// `scope`, `provenance.merges`, `exemptions`, …
    pub key: String,
    pub trusted: String,
    pub proposed: String,
}

impl Loosening {
    /// The check a key belongs to, for reporting.
    pub fn check(&self) -> &'static str {
        match self.key.split('.').next().unwrap_or("") {
            "scope" => "scope",
            "provenance" => "provenance",
            "receipts" => "receipts",
            "brief" => "brief",
            // An edit outside the repository is a matter of where work may go.
            "agents" => "scope",
            _ => "binding",
        }
    }
}

/// How strict each value is, in one place (docs/trust.md): per key, the
/// stricter of `trusted` and `proposed`, and every key where `proposed` is
/// looser (judged by `trusted`'s value). A proposed value that is neither
/// stricter nor equal — another upstream ref, another trailer token — is a
/// loosening too: only a change that can only refuse more applies.
///
/// - modes (`binding`, `scope`, the sections' `mode`): off < advisory < required;
/// - `provenance.merges`: `refuse` is stricter than `inspect`;
/// - `provenance.empty_commits`: `refuse` < `report` < `allow`;
/// - `provenance.upstream`: none is strictest (no commit is imported unchecked);
/// - `provenance.trailer`: a required trailer is stricter than none;
/// - `receipts.max_entries`, `max_bytes`: the lower limit;
/// - `receipts.trust`: `signed` is stricter than `any-pusher`;
/// - `receipts.signers`: only the same file applies (another names other keys);
/// - `brief.required_since`: a date is stricter than none, the earlier the stricter;
/// - `agents.external_edits`: `deny` < `report` < `allow`;
/// - `exemptions`: only classes both declare (an added class is a loosening).
pub fn stricter(trusted: &Policy, proposed: &Policy) -> (Policy, Vec<Loosening>) {
    let mut loosened = Vec::new();
    let mut note = |key: &str, trusted: String, proposed: String| {
        loosened.push(Loosening {
            key: key.to_string(),
            trusted,
            proposed,
        });
    };
    let mut mode = |key: &str, t: Mode, p: Mode| -> Mode {
        if p < t {
            note(key, t.to_string(), p.to_string());
        }
        t.max(p)
    };
    let binding = mode("binding", trusted.binding, proposed.binding);
    let scope = mode("scope", trusted.scope, proposed.scope);
    let prov_mode = mode(
        "provenance.mode",
        trusted.provenance.mode,
        proposed.provenance.mode,
    );
    let receipts_mode = mode(
        "receipts.mode",
        trusted.receipts.mode,
        proposed.receipts.mode,
    );
    let brief_mode = mode("brief.mode", trusted.brief.mode, proposed.brief.mode);

    let shown = |v: &Option<String>| v.clone().unwrap_or_else(|| "none".into());
    let (t, p) = (&trusted.provenance, &proposed.provenance);
    let merges = if t.merges == Merges::Refuse && p.merges == Merges::Inspect {
        note("provenance.merges", "refuse".into(), "inspect".into());
        Merges::Refuse
    } else {
        t.merges.min(p.merges)
    };
    if p.empty_commits > t.empty_commits {
        note(
            "provenance.empty_commits",
            t.empty_commits.as_str().into(),
            p.empty_commits.as_str().into(),
        );
    }
    let empty_commits = t.empty_commits.min(p.empty_commits);
    // Only dropping the upstream (importing nothing) or keeping it applies.
    let upstream = match (&t.upstream, &p.upstream) {
        (_, None) => None,
        (Some(a), Some(b)) if a == b => Some(a.clone()),
        (a, b) => {
            note("provenance.upstream", shown(a), shown(b));
            a.clone()
        }
    };
    // Only adding a trailer where there was none, or keeping it, applies.
    let trailer = match (&t.trailer, &p.trailer) {
        (None, b) => b.clone(),
        (Some(a), Some(b)) if a == b => Some(a.clone()),
        (a, b) => {
            note("provenance.trailer", shown(a), shown(b));
            a.clone()
        }
    };
    let mut limit = |key: &str, t: u64, p: u64| -> u64 {
        if p > t {
            note(key, t.to_string(), p.to_string());
        }
        t.min(p)
    };
    let max_entries = limit(
        "receipts.max_entries",
        trusted.receipts.max_entries,
        proposed.receipts.max_entries,
    );
    let max_bytes = limit(
        "receipts.max_bytes",
        trusted.receipts.max_bytes,
        proposed.receipts.max_bytes,
    );
    let trust = match (trusted.receipts.trust, proposed.receipts.trust) {
        (Trust::Signed, Trust::AnyPusher) => {
            note("receipts.trust", "signed".into(), "any-pusher".into());
            Trust::Signed
        }
        (t, p) => t.max(p),
    };
    // Another signers file names other keys: only keeping it applies.
    let signers = match (&trusted.receipts.signers, &proposed.receipts.signers) {
        (a, b) if a == b => a.clone(),
        (a, b) => {
            note("receipts.signers", shown(a), shown(b));
            a.clone()
        }
    };
    let date = |d: Option<Date>| d.map_or("none".to_string(), |d| d.to_string());
    let required_since = match (trusted.brief.required_since, proposed.brief.required_since) {
        (None, p) => p,
        (Some(t), Some(p)) if p <= t => Some(p),
        (t, p) => {
            note("brief.required_since", date(t), date(p));
            t
        }
    };
    let (t, p) = (
        trusted.agents.external_edits,
        proposed.agents.external_edits,
    );
    if p > t {
        note(
            "agents.external_edits",
            t.as_str().into(),
            p.as_str().into(),
        );
    }
    let external_edits = t.min(p);
    let mut exemptions = Vec::new();
    for class in &trusted.exemptions {
        if proposed.exemption(&class.id).is_some() {
            exemptions.push(class.clone());
        }
    }
    for class in &proposed.exemptions {
        if trusted.exemption(&class.id).is_none() {
            note(
                "exemptions",
                "no class ".to_string() + &class.id,
                "class ".to_string() + &class.id,
            );
        }
    }
    let mut notes = trusted.notes.clone();
    for n in &proposed.notes {
        if !notes.contains(n) {
            notes.push(n.clone());
        }
    }
    let policy = Policy {
        version: trusted.version,
        binding,
        exemptions,
        scope,
        provenance: Provenance {
            mode: prov_mode,
            merges,
            empty_commits,
            upstream,
            trailer,
        },
        receipts: ReceiptsPolicy {
            mode: receipts_mode,
            max_entries,
            max_bytes,
            trust,
            signers,
        },
        brief: BriefPolicy {
            mode: brief_mode,
            required_since,
        },
        agents: AgentsPolicy { external_edits },
        notes,
    };
    (policy, loosened)
}

/// Read and validate a policy from `text`, naming `file` in errors.
pub fn parse(file: &Path, text: &str) -> Result<Policy, LoadError> {
    let raw: RawPolicy = yaml::closed(file, text)?;
    let invalid = |key: &str, message: String| yaml::invalid(file, text, key, message);

    if raw.version != 1 {
        return Err(invalid(
            "version",
            format!(
                "version {} is not supported; this gate reads version 1",
                raw.version
            ),
        ));
    }

    let mut notes = Vec::new();
    let binding = match raw.binding.as_deref() {
        None => {
            notes.push("binding is not set; read as off".to_owned());
            Mode::Off
        }
        Some(text) => match Mode::from_name(text) {
            Some(mode) => mode,
            None => {
                notes.push(format!(
                    "binding: {text:?} is not off, advisory or required; read as off"
                ));
                Mode::Off
            }
        },
    };

    for (i, class) in raw.exemptions.iter().enumerate() {
        if let Err(message) = ids::exemption_id(&class.id) {
            return Err(invalid(&format!("exemptions[{i}].id"), message));
        }
        if raw.exemptions[..i].iter().any(|c| c.id == class.id) {
            return Err(invalid(
                &format!("exemptions[{i}].id"),
                format!("exemption {:?} is declared twice", class.id),
            ));
        }
        if class.description.trim().is_empty() {
            return Err(invalid(
                &format!("exemptions[{i}].description"),
                "the description is blank; say what work this class covers".into(),
            ));
        }
    }

    let provenance = raw.provenance.unwrap_or_default();
    if let Some(upstream) = &provenance.upstream
        && let Err(message) = full_ref_name(upstream)
    {
        return Err(invalid("provenance.upstream", message));
    }
    if let Some(trailer) = &provenance.trailer
        && let Err(message) = trailer_token(trailer)
    {
        return Err(invalid("provenance.trailer", message));
    }

    let receipts = raw.receipts.unwrap_or_default();
    for (key, value) in [
        ("receipts.max_entries", receipts.max_entries),
        ("receipts.max_bytes", receipts.max_bytes),
    ] {
        if value == 0 {
            return Err(invalid(key, "must be a positive number".into()));
        }
    }
    if let Some(signers) = &receipts.signers
        && let Err(message) = signers_path(signers)
    {
        return Err(invalid("receipts.signers", message));
    }

    let brief = match raw.brief {
        None => BriefPolicy::default(),
        Some(brief) => BriefPolicy {
            mode: brief.mode,
            required_since: match brief.required_since {
                None => None,
                Some(text) => Some(
                    Date::parse(&text)
                        .map_err(|message| invalid("brief.required_since", message))?,
                ),
            },
        },
    };

    Ok(Policy {
        version: raw.version,
        binding,
        exemptions: raw.exemptions,
        scope: raw.scope.unwrap_or(Mode::Advisory),
        provenance,
        receipts,
        brief,
        agents: raw.agents.unwrap_or_default(),
        notes,
    })
}

// The policy as written. Its JSON Schema (`gate schema policy`) is derived
// from this struct, so the two cannot drift: where a field's reader is
// custom, `schemars(with)` says what it accepts. Doc comments here are the
// schema's descriptions, for the people editing the file.
/// gate's policy: what each check costs when it refuses (docs/policy.md).
#[derive(Clone, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a policy mapping (version, binding, exemptions, scope, provenance, receipts, brief, agents)"
)]
#[schemars(rename = "gate policy (.gate/policy.yaml)")]
pub(crate) struct RawPolicy {
    /// Schema version of this file; gate reads version 1.
    #[schemars(range(min = 1, max = 1))]
    version: u32,
    /// Does each task name what it serves (docs/binding.md)? Absent or not
    /// one of the three modes reads as `off`, and gate says so.
    #[serde(default, deserialize_with = "binding_text")]
    #[schemars(with = "Mode", extend("default" = "off"))]
    binding: Option<String>,
    /// Kinds of work that legitimately serve no intent.
    #[serde(default)]
    exemptions: Vec<ExemptionClass>,
    /// The scope check's mode (absent: advisory).
    #[serde(default, deserialize_with = "not_empty")]
    #[schemars(with = "Mode", extend("default" = "advisory"))]
    scope: Option<Mode>,
    /// The provenance check (absent: advisory, merges refused).
    #[serde(default, deserialize_with = "not_empty")]
    #[schemars(with = "Provenance")]
    provenance: Option<Provenance>,
    /// The receipts check (absent: advisory, default limits).
    #[serde(default, deserialize_with = "not_empty")]
    #[schemars(with = "ReceiptsPolicy")]
    receipts: Option<ReceiptsPolicy>,
    /// The brief check (absent: advisory, no date).
    #[serde(default, deserialize_with = "not_empty")]
    #[schemars(with = "RawBrief")]
    brief: Option<RawBrief>,
    /// What the agent hosts' hooks do beyond the scope (absent: an edit
    /// outside the repository is reported).
    #[serde(default, deserialize_with = "not_empty")]
    #[schemars(with = "AgentsPolicy")]
    agents: Option<AgentsPolicy>,
}

// Every struct below the policy denies unknown fields.
impl yaml::Closed for RawPolicy {}

/// The `brief` section.
#[derive(Clone, Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a brief mapping (mode, required_since)"
)]
#[schemars(rename = "BriefPolicy")]
struct RawBrief {
    mode: Mode,
    /// Tasks created on or after this day (`YYYY-MM-DD`) must have a valid brief.
    #[serde(default, deserialize_with = "yaml::opt_string")]
    #[schemars(regex(pattern = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"))]
    required_since: Option<String>,
}

/// A key that, when present, must have a value: `scope:` or `receipts: ~`
/// is an error naming the key (like `scope: ""`), never read as the key
/// left out (docs/policy.md). `binding` alone is lenient.
fn not_empty<'de, D, T>(de: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    match Option::<T>::deserialize(de)? {
        Some(value) => Ok(Some(value)),
        None => Err(serde::de::Error::custom(
            "is present but empty: give it a value, or leave the key out",
        )),
    }
}

/// `binding` as written: any scalar becomes its text (so a misspelling is
/// read, reported and treated as `off`); empty is `None`; a list or a
/// mapping is a type error.
fn binding_text<'de, D: Deserializer<'de>>(de: D) -> Result<Option<String>, D::Error> {
    use serde::de::{self, Visitor};

    struct Text;

    impl<'de> Visitor<'de> for Text {
        type Value = Option<String>;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("off, advisory or required")
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(Some(v.to_owned()))
        }
        fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
            Ok(Some(v.to_string()))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            Ok(Some(v.to_string()))
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            Ok(Some(v.to_string()))
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            Ok(Some(v.to_string()))
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
    }

    de.deserialize_any(Text)
}

/// A full ref name as git would accept it (`refs/heads/main`).
fn full_ref_name(name: &str) -> Result<(), String> {
    let usage = || {
        format!(
            "{name:?} is not a full ref name: use e.g. refs/heads/main or refs/remotes/origin/main"
        )
    };
    let Some(rest) = name.strip_prefix("refs/") else {
        return Err(usage());
    };
    let bad_char = |c: char| c.is_ascii_control() || " ~^:?*[\\".contains(c);
    let ok = !rest.is_empty()
        && !name.contains("..")
        && !name.contains("@{")
        && !name.chars().any(bad_char)
        && !name.ends_with('.')
        && rest
            .split('/')
            .all(|part| !part.is_empty() && !part.starts_with('.') && !part.ends_with(".lock"));
    if ok { Ok(()) } else { Err(usage()) }
}

/// A signers file: a repository-relative path of plain components, read
/// from the trusted revision's tree.
fn signers_path(path: &str) -> Result<(), String> {
    let ok = !path.is_empty()
        && !path.starts_with('/')
        && !path.chars().any(|c| c.is_ascii_control() || c == '\\')
        && path
            .split('/')
            .all(|part| !part.is_empty() && part != "." && part != "..");
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{path:?} is not a repository-relative file path: use e.g. .gate/allowed_signers"
        ))
    }
}

/// A git trailer token: letters, digits and `-`, starting with a letter.
fn trailer_token(token: &str) -> Result<(), String> {
    let ok = token.starts_with(|c: char| c.is_ascii_alphabetic())
        && token.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{token:?} is not a trailer token: use letters, digits and '-', starting with a \
             letter (e.g. Task)"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_text(text: &str) -> Result<Policy, LoadError> {
        parse(Path::new(POLICY_PATH), text)
    }

    fn invalid_at(text: &str) -> (Option<usize>, String, String) {
        match parse_text(text).unwrap_err() {
            LoadError::Invalid {
                line, key, message, ..
            } => (line, key, message),
            other => panic!("expected an invalid-value error, got {other:?}"),
        }
    }

    fn schema_at(text: &str) -> (Option<usize>, String, String) {
        match parse_text(text).unwrap_err() {
            LoadError::Schema {
                line, key, message, ..
            } => (line, key, message),
            other => panic!("expected a schema error, got {other:?}"),
        }
    }

    #[test]
    fn embedded_default_parses_with_the_documented_values() {
        let policy = embedded();
        assert_eq!(policy.version, 1);
        assert_eq!(policy.binding, Mode::Off);
        // One class: how the rules themselves change (docs/policy.md#governance).
        let ids: Vec<&str> = policy.exemptions.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["governance"]);
        assert_eq!(policy.scope, Mode::Advisory);
        assert_eq!(policy.provenance, Provenance::default());
        assert_eq!(policy.receipts, ReceiptsPolicy::default());
        assert_eq!(policy.receipts.max_entries, 200_000);
        assert_eq!(policy.receipts.max_bytes, 2_147_483_648);
        assert_eq!(policy.brief, BriefPolicy::default());
        assert!(policy.notes.is_empty(), "{:?}", policy.notes);
    }

    #[test]
    fn embedded_default_shows_every_key() {
        for key in [
            "version:",
            "binding:",
            "exemptions:",
            "- id:",
            "description:",
            "scope:",
            "provenance:",
            "merges:",
            "upstream:",
            "trailer:",
            "receipts:",
            "max_entries:",
            "max_bytes:",
            "brief:",
            "required_since:",
        ] {
            assert!(DEFAULT_POLICY_YAML.contains(key), "{key}");
        }
        // The commented-out examples are valid when uncommented.
        let uncommented = DEFAULT_POLICY_YAML
            .replace("#  - id:", "  - id:")
            .replace("#    description:", "    description:")
            .replace("# upstream:", "upstream:")
            .replace("# trailer:", "trailer:")
            .replace("# required_since:", "required_since:");
        let policy = parse_text(&uncommented).unwrap();
        // The governance class is declared (docs/policy.md#governance).
        let ids: Vec<&str> = policy.exemptions.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["governance", "dependency-bump"]);
        assert_eq!(
            policy.provenance.upstream.as_deref(),
            Some("refs/heads/main")
        );
        assert_eq!(policy.provenance.trailer.as_deref(), Some("Task"));
        assert_eq!(
            policy.brief.required_since,
            Some(Date::parse("2026-11-29").unwrap())
        );
    }

    #[test]
    fn spec_example_parses() {
        let policy = parse_text(
            "version: 1
binding: required
exemptions:
  - id: dependency-bump
    description: Lockfile-only updates
scope: required
provenance:
  mode: required
  merges: inspect
  upstream: refs/heads/main
  trailer: Task
receipts:
  mode: off
  max_entries: 100
  max_bytes: 1000
brief:
  mode: advisory
  required_since: 2026-11-29
",
        )
        .unwrap();
        assert_eq!(policy.binding, Mode::Required);
        assert_eq!(
            policy.exemption("dependency-bump").unwrap().description,
            "Lockfile-only updates"
        );
        assert_eq!(policy.scope, Mode::Required);
        assert_eq!(policy.provenance.merges, Merges::Inspect);
        assert_eq!(policy.receipts.mode, Mode::Off);
        assert_eq!(policy.receipts.max_entries, 100);
        assert_eq!(
            policy.brief.required_since.unwrap().to_string(),
            "2026-11-29"
        );
        assert!(policy.notes.is_empty());
    }

    #[test]
    fn absent_sections_are_advisory_and_present_ones_default_the_rest() {
        let policy = parse_text("version: 1\nbinding: advisory\n").unwrap();
        assert_eq!(policy.scope, Mode::Advisory);
        assert_eq!(policy.provenance, Provenance::default());
        assert_eq!(policy.receipts, ReceiptsPolicy::default());
        assert_eq!(policy.brief, BriefPolicy::default());

        let policy = parse_text(
            "version: 1\nbinding: off\nprovenance:\n  mode: off\nreceipts:\n  mode: required\n",
        )
        .unwrap();
        assert_eq!(policy.provenance.mode, Mode::Off);
        assert_eq!(policy.provenance.merges, Merges::Refuse);
        assert_eq!(policy.receipts.max_bytes, DEFAULT_MAX_BYTES);
    }

    #[test]
    fn binding_absent_or_misspelt_reads_as_off_with_a_note() {
        let policy = parse_text("version: 1\nbinding: requird\n").unwrap();
        assert_eq!(policy.binding, Mode::Off);
        assert_eq!(
            policy.notes,
            ["binding: \"requird\" is not off, advisory or required; read as off"]
        );
        let policy = parse_text("version: 1\nbinding: Required\n").unwrap();
        assert_eq!(policy.binding, Mode::Off);
        assert_eq!(policy.notes.len(), 1);
        let policy = parse_text("version: 1\nbinding: true\n").unwrap();
        assert_eq!(policy.binding, Mode::Off);
        assert!(policy.notes[0].contains("\"true\""));

        for text in ["version: 1\n", "version: 1\nbinding:\n"] {
            let policy = parse_text(text).unwrap();
            assert_eq!(policy.binding, Mode::Off);
            assert_eq!(policy.notes, ["binding is not set; read as off"]);
        }
        // A list is not a misspelling.
        let (_, key, _) = schema_at("version: 1\nbinding: [required]\n");
        assert_eq!(key, "binding");
    }

    #[test]
    fn version_is_required_and_must_be_1() {
        let (line, key, message) = schema_at("binding: off\n");
        assert_eq!((line, key.as_str()), (Some(1), "version"));
        assert_eq!(message, "missing field `version`");
        let (line, key, message) = invalid_at("binding: off\nversion: 2\n");
        assert_eq!((line, key.as_str()), (Some(2), "version"));
        assert!(message.contains("version 2 is not supported"), "{message}");
        let (_, key, _) = schema_at("version: \"1\"\n");
        assert_eq!(key, "version");
    }

    #[test]
    fn closed_schema_errors_name_line_and_key() {
        let (line, key, message) = schema_at("version: 1\nscope: requird\n");
        assert_eq!((line, key.as_str()), (Some(2), "scope"));
        assert!(message.contains("unknown variant `requird`"), "{message}");
        let (line, key, message) = schema_at("version: 1\nprovenance:\n  merges: inspect\n");
        assert_eq!((line, key.as_str()), (Some(3), "provenance.mode"));
        assert_eq!(message, "missing field `mode`");
        let (line, key, message) =
            schema_at("version: 1\nreceipts:\n  mode: off\n  max_files: 3\n");
        assert_eq!((line, key.as_str()), (Some(4), "receipts.max_files"));
        assert!(message.contains("expected one of `mode`, `max_entries`, `max_bytes`"));
        let (_, key, _) = schema_at("version: 1\nexemptions:\n  - id: x\n");
        assert_eq!(key, "exemptions[0].description");
        let (_, key, _) = schema_at("version: 1\ncolour: red\n");
        assert_eq!(key, "colour");
        let (_, key, message) = schema_at("version: 1\nreceipts:\n  mode: off\n  max_bytes: -1\n");
        assert_eq!(key, "receipts.max_bytes");
        assert!(message.contains("expected u64"), "{message}");
    }

    #[test]
    fn values_are_validated() {
        let cases = [
            (
                "provenance:\n  mode: off\n  upstream: main\n",
                5,
                "provenance.upstream",
            ),
            (
                "provenance:\n  mode: off\n  upstream: refs/heads/a..b\n",
                5,
                "provenance.upstream",
            ),
            (
                "provenance:\n  mode: off\n  upstream: refs/\n",
                5,
                "provenance.upstream",
            ),
            (
                "provenance:\n  mode: off\n  upstream: refs/heads/x.lock\n",
                5,
                "provenance.upstream",
            ),
            (
                "provenance:\n  mode: off\n  trailer: Task id\n",
                5,
                "provenance.trailer",
            ),
            (
                "provenance:\n  mode: off\n  trailer: \"Task:\"\n",
                5,
                "provenance.trailer",
            ),
            (
                "receipts:\n  mode: off\n  max_entries: 0\n",
                5,
                "receipts.max_entries",
            ),
            (
                "receipts:\n  mode: off\n  max_bytes: 0\n",
                5,
                "receipts.max_bytes",
            ),
            (
                "brief:\n  mode: off\n  required_since: 2026-02-30\n",
                5,
                "brief.required_since",
            ),
            (
                "brief:\n  mode: off\n  required_since: 29/11/2026\n",
                5,
                "brief.required_since",
            ),
            (
                "exemptions:\n  - id: 1bad\n    description: x\n",
                4,
                "exemptions[0].id",
            ),
            (
                "exemptions:\n  - id: a\n    description: \" \"\n",
                5,
                "exemptions[0].description",
            ),
            (
                "exemptions:\n  - id: a\n    description: x\n  - id: a\n    description: y\n",
                6,
                "exemptions[1].id",
            ),
        ];
        for (body, line, key) in cases {
            let (got_line, got_key, message) =
                invalid_at(&format!("version: 1\nbinding: off\n{body}"));
            assert_eq!(
                (got_line, got_key.as_str()),
                (Some(line), key),
                "{body}: {message}"
            );
        }
        let ok = parse_text(
            "version: 1\nbinding: off\nprovenance:\n  mode: off\n  upstream: refs/remotes/origin/main\n  trailer: Gate-Task\n",
        )
        .unwrap();
        assert_eq!(ok.provenance.trailer.as_deref(), Some("Gate-Task"));
    }

    #[test]
    fn duplicate_exemption_message() {
        let (_, _, message) = invalid_at(
            "version: 1\nexemptions:\n  - id: a\n    description: x\n  - id: a\n    description: y\n",
        );
        assert_eq!(message, "exemption \"a\" is declared twice");
    }

    #[test]
    fn load_uses_the_file_or_the_embedded_default() {
        let dir = tempfile::tempdir().unwrap();
        let loaded = load(dir.path()).unwrap();
        assert_eq!(loaded.source, PolicySource::Embedded);
        assert_eq!(loaded.policy, embedded());
        assert_eq!(loaded.source.to_string(), "the embedded default policy");

        std::fs::create_dir(dir.path().join(".gate")).unwrap();
        std::fs::write(
            dir.path().join(POLICY_PATH),
            "version: 1\nbinding: required\n",
        )
        .unwrap();
        let loaded = load(dir.path()).unwrap();
        assert_eq!(loaded.source, PolicySource::File(POLICY_PATH.into()));
        assert_eq!(loaded.policy.binding, Mode::Required);

        std::fs::write(
            dir.path().join(POLICY_PATH),
            "version: 1\nscope: sometimes\n",
        )
        .unwrap();
        let err = load(dir.path()).unwrap_err();
        assert!(
            err.to_string()
                .starts_with(".gate/policy.yaml:2:8: scope: unknown variant"),
            "{err}"
        );
    }

    fn keys(loosened: &[Loosening]) -> Vec<(&str, &str, &str)> {
        loosened
            .iter()
            .map(|l| (l.key.as_str(), l.trusted.as_str(), l.proposed.as_str()))
            .collect()
    }

    const STRICT: &str = "version: 1
binding: required
exemptions:
  - id: dependency-bump
    description: Lockfile-only updates
scope: required
provenance:
  mode: required
  merges: refuse
  empty_commits: refuse
  trailer: Task
receipts:
  mode: required
  max_entries: 100
  max_bytes: 1000
brief:
  mode: required
  required_since: 2026-11-01
agents:
  external_edits: deny
";

    #[test]
    fn every_loosened_key_is_judged_by_the_trusted_value_and_named() {
        let trusted = parse_text(STRICT).unwrap();
        let loose = parse_text(
            "version: 1
binding: advisory
exemptions:
  - id: dependency-bump
    description: Lockfile-only updates
  - id: anything
    description: Whatever I like
scope: off
provenance:
  mode: advisory
  merges: inspect
  empty_commits: allow
  upstream: refs/heads/main
  trailer: Ticket
receipts:
  mode: off
  max_entries: 101
  max_bytes: 2000
brief:
  mode: advisory
  required_since: 2026-11-02
agents:
  external_edits: allow
",
        )
        .unwrap();
        let (effective, loosened) = stricter(&trusted, &loose);
        assert_eq!(effective, trusted);
        assert_eq!(
            keys(&loosened),
            [
                ("binding", "required", "advisory"),
                ("scope", "required", "off"),
                ("provenance.mode", "required", "advisory"),
                ("receipts.mode", "required", "off"),
                ("brief.mode", "required", "advisory"),
                ("provenance.merges", "refuse", "inspect"),
                ("provenance.empty_commits", "refuse", "allow"),
                ("provenance.upstream", "none", "refs/heads/main"),
                ("provenance.trailer", "Task", "Ticket"),
                ("receipts.max_entries", "100", "101"),
                ("receipts.max_bytes", "1000", "2000"),
                ("brief.required_since", "2026-11-01", "2026-11-02"),
                ("agents.external_edits", "deny", "allow"),
                ("exemptions", "no class anything", "class anything"),
            ]
        );
        let checks: Vec<&str> = loosened.iter().map(Loosening::check).collect();
        assert_eq!(
            checks,
            [
                "binding",
                "scope",
                "provenance",
                "receipts",
                "brief",
                "provenance",
                "provenance",
                "provenance",
                "provenance",
                "receipts",
                "receipts",
                "brief",
                "scope",
                "binding"
            ]
        );
        // Removing what only loosens is a tightening: no trailer → kept;
        // no required_since → kept; the default policy loosens everything.
        let (effective, loosened) = stricter(&trusted, &embedded());
        assert_eq!(effective.brief.required_since, trusted.brief.required_since);
        assert_eq!(effective.provenance.trailer.as_deref(), Some("Task"));
        assert!(effective.exemptions.is_empty());
        assert!(keys(&loosened).contains(&("brief.required_since", "2026-11-01", "none")));
    }

    #[test]
    fn a_tightening_applies_at_once_and_loosens_nothing() {
        let trusted = embedded();
        let strict = parse_text(STRICT).unwrap();
        let (effective, loosened) = stricter(&trusted, &strict);
        // Everything tightens except the added exemption class, which the
        // default does not declare: a loosening, dropped.
        assert_eq!(
            keys(&loosened),
            [(
                "exemptions",
                "no class dependency-bump",
                "class dependency-bump"
            )]
        );
        assert!(effective.exemptions.is_empty());
        assert_eq!(effective.binding, Mode::Required);
        assert_eq!(effective.scope, Mode::Required);
        assert_eq!(effective.provenance.trailer.as_deref(), Some("Task"));
        assert_eq!(effective.receipts.max_entries, 100);
        assert_eq!(effective.provenance.empty_commits, EmptyCommits::Refuse);
        assert_eq!(effective.agents.external_edits, ExternalEdits::Deny);
        assert_eq!(effective.brief.required_since, strict.brief.required_since);
        let with_upstream =
            parse_text("version: 1\nexemptions:\n  - id: governance\n    description: rules\nprovenance:\n  mode: advisory\n  upstream: refs/heads/main\n")
                .unwrap();
        let (effective, loosened) = stricter(&with_upstream, &trusted);
        assert!(loosened.is_empty());
        assert_eq!(effective.provenance.upstream, None);
        // An earlier required_since and a removed exemption tighten.
        let earlier = STRICT.replace("2026-11-01", "2026-10-01").replace(
            "exemptions:\n  - id: dependency-bump\n    description: Lockfile-only updates\n",
            "",
        );
        let (effective, loosened) = stricter(&strict, &parse_text(&earlier).unwrap());
        assert!(loosened.is_empty(), "{loosened:?}");
        assert_eq!(
            effective.brief.required_since,
            Some(Date::parse("2026-10-01").unwrap())
        );
        assert!(effective.exemptions.is_empty());
    }

    #[test]
    fn modes_display_and_parse() {
        for mode in [Mode::Off, Mode::Advisory, Mode::Required] {
            assert_eq!(Mode::from_name(mode.as_str()), Some(mode));
            assert_eq!(mode.to_string(), mode.as_str());
        }
        assert!(!Mode::Off.runs() && Mode::Advisory.runs() && !Mode::Advisory.blocks());
        assert!(Mode::Required.blocks());
        assert_eq!(Merges::default().to_string(), "refuse");
    }
}
