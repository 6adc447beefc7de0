//! The policy each door judges with, read from where the change under
//! judgement cannot reach (docs/trust.md):
//!
//! - pre-commit and `gate check`: per key the stricter of HEAD's policy and
//!   the work tree's (and, in pre-commit, the index's): an uncommitted edit
//!   may tighten, never loosen; each loosened key is `policy_loosened`;
//! - pre-push: no looser than the policy the remote already has;
//! - `gate check --range BASE..TIP`: BASE's (`--policy-from REV` overrides),
//!   and a range that changes the policy is `policy_changed`.
//!
//! A revision that does not resolve, or a policy that cannot be read at it,
//! is unknown — never the embedded default.

use crate::ctx::Ctx;
use crate::error::Failure;
use crate::git::{Oid, Repo};
use crate::path::RepoPath;
use crate::policy::{self, LoadedPolicy, Loosening, POLICY_PATH, Policy, PolicySource};
use crate::verdict::{At, Finding, Severity, Subject};

/// The policy a door judges the work tree's change with, and the
/// `policy_loosened` findings of the uncommitted versions it did not obey.
pub fn local(ctx: &Ctx, staged: bool) -> Result<(LoadedPolicy, Vec<Finding>), Failure> {
    let work = ctx.policy()?;
    let Some(head) = ctx.head()?.id() else {
        // No commit yet: nothing committed to protect.
        return Ok((
            LoadedPolicy {
                revision: "the work tree (no commit yet)".into(),
                ..work
            },
            Vec::new(),
        ));
    };
    let committed = policy::at_commit(&ctx.repo, head, "HEAD")?;
    let mut proposals = vec![("the work tree", work)];
    if staged {
        proposals.push(("the staged change", staged_policy(ctx)?));
    }
    let mut effective = committed.policy.clone();
    let mut findings = Vec::new();
    let mut tightened_by = Vec::new();
    let mut has_file = committed.source != PolicySource::Embedded;
    for (place, proposed) in &proposals {
        let (_, loosened) = policy::stricter(&committed.policy, &proposed.policy);
        findings.extend(loosened_findings(place, &committed.revision, &loosened));
        let (next, _) = policy::stricter(&effective, &proposed.policy);
        if next != effective {
            tightened_by.push(*place);
            has_file |= proposed.source != PolicySource::Embedded;
        }
        effective = next;
    }
    let mut revision = committed.revision.clone();
    if !tightened_by.is_empty() {
        revision = format!("{revision}, tightened by {}", tightened_by.join(" and "));
    }
    Ok((
        LoadedPolicy {
            policy: effective,
            source: if has_file {
                PolicySource::File(POLICY_PATH.into())
            } else {
                PolicySource::Embedded
            },
            revision,
        },
        findings,
    ))
}

/// The index's `.gate/policy.yaml` (the embedded default when the index
/// holds none).
fn staged_policy(ctx: &Ctx) -> Result<LoadedPolicy, Failure> {
    let revision = "the index".to_string();
    let shown = format!(":{POLICY_PATH}");
    let Some((blob, kind)) = ctx
        .repo
        .index_blob(ctx.index()?, &RepoPath::from(POLICY_PATH))
    else {
        return Ok(LoadedPolicy {
            policy: policy::embedded(),
            source: PolicySource::Embedded,
            revision,
        });
    };
    if !matches!(
        kind,
        crate::git::EntryKind::File | crate::git::EntryKind::Executable
    ) {
        return Err(Failure::unknown(format!(
            "{shown} is staged as a {kind:?} entry, not a regular file"
        ))
        .hint("stage .gate/policy.yaml as a regular file"));
    }
    let bytes = ctx.repo.read_blob(blob)?;
    let text = String::from_utf8(bytes)
        .map_err(|_| Failure::unknown(format!("{shown} is not UTF-8 text")))?;
    Ok(LoadedPolicy {
        policy: policy::parse(std::path::Path::new(&shown), &text)?,
        source: PolicySource::File(POLICY_PATH.into()),
        revision,
    })
}

/// `policy_loosened`: one `warn` per key an uncommitted version would
/// loosen, reported under the key's check. It is not obeyed, so it does
/// not block; committed, it meets `policy_changed` at the push and in CI.
fn loosened_findings(place: &str, trusted_at: &str, loosened: &[Loosening]) -> Vec<Finding> {
    let decide = "a loosening applies once it is committed and reviewed where the policy is owned (it is `policy_changed` at the push and in CI); until then the committed value judges";
    loosened
        .iter()
        .map(|l| {
            let message = format!(
                "{place} sets {}: {} where {trusted_at} has {}; judged by {}",
                l.key, l.proposed, l.trusted, l.trusted
            );
            Finding::new(
                l.check(),
                "policy_loosened",
                Severity::Warn,
                message,
                decide.into(),
            )
            .with_subject(Subject {
                at: At {
                    file: Some(POLICY_PATH.into()),
                    key: Some(l.key.clone()),
                    ..At::default()
                }
                .boxed(),
                ..Subject::default()
            })
        })
        .collect()
}

/// The policy at revision `spec`, which must resolve to a commit: unknown
/// otherwise, never the embedded default.
pub fn at_revision(repo: &Repo, spec: &str, named: &str) -> Result<LoadedPolicy, Failure> {
    let commit = repo.resolve_commit(spec).map_err(|e| {
        Failure::unknown(format!(
            "{named} `{spec}` does not resolve, so the policy to judge with is unknown: {e}"
        ))
        .hint("fetch it (full history), or name a commit that exists here")
    })?;
    at(repo, commit, named)
}

/// The policy at `commit`, named for people.
pub fn at(repo: &Repo, commit: Oid, named: &str) -> Result<LoadedPolicy, Failure> {
    policy::at_commit(repo, commit, named).map_err(|e| {
        let f: Failure = e.into();
        let message = format!("the policy at {named} cannot be read: {}", f.message);
        f.reworded(message)
    })
}

/// `policy_changed`: what a range or a push that changes `.gate/policy.yaml`
/// (the tip holds another version than the commits it starts from, `since`)
/// would change in the policy that judges it (`trusted`), as findings of
/// `check`. A loosened key is a blocker when `loosening` is (CI), else
/// `warn` (a push: reported, never obeyed); a tightening is `info`. A tip
/// whose policy cannot be read is unknown.
pub fn changed_findings(
    repo: &Repo,
    trusted: &LoadedPolicy,
    since: &[Oid],
    tip: Oid,
    check: &'static str,
    loosening: Severity,
) -> Vec<Finding> {
    let path = RepoPath::from(POLICY_PATH);
    let at = |commit: Oid| repo.entry_at(commit, &path).ok();
    if let Some(own) = at(tip)
        && since.iter().any(|s| at(*s).as_ref() == Some(&own))
    {
        return Vec::new();
    }
    let proposed = match policy::at_commit(repo, tip, "the tip") {
        Ok(p) => p,
        Err(e) => {
            return vec![Finding::unknown(
                check,
                "input_unreadable",
                format!(
                    "the policy at the tip {} cannot be read, so what it would change is unknown: {e}",
                    tip.short()
                ),
                "fix .gate/policy.yaml in the pushed commits".into(),
            )];
        }
    };
    judge_change(
        &trusted.policy,
        &trusted.revision,
        &proposed.policy,
        tip,
        check,
        loosening,
    )
}

/// `policy_changed`, judged: the policy at the tip (`proposed`) against
/// the one that judges it (`trusted`, at `revision`). Nothing when they
/// hold the same rules; `info` for a tightening; one finding weighing
/// `loosening` per key loosened. Pure.
pub fn judge_change(
    trusted: &policy::Policy,
    revision: &str,
    proposed: &policy::Policy,
    tip: Oid,
    check: &'static str,
    loosening: Severity,
) -> Vec<Finding> {
    if same_rules(proposed, trusted) {
        return Vec::new();
    }
    let subject = || Subject {
        commit: Some(tip.to_hex()),
        at: At {
            file: Some(POLICY_PATH.into()),
            ..At::default()
        }
        .boxed(),
        ..Subject::default()
    };
    let (_, loosened) = policy::stricter(trusted, proposed);
    if loosened.is_empty() {
        let message = format!(
            "the tip {} changes .gate/policy.yaml, tightening only; it applies once it is on the base (judged by {})",
            tip.short(),
            revision
        );
        return vec![
            Finding::new(check, "policy_changed", Severity::Info, message, "—".into())
                .with_subject(subject()),
        ];
    }
    let decide = "change the policy on its own, reviewed by whoever owns it, and merge it onto the base; from there it judges (docs/trust.md)";
    loosened
        .iter()
        .map(|l| {
            let message = format!(
                "the tip {} loosens {}: {} where {} has {}; judged by {}",
                tip.short(),
                l.key,
                l.proposed,
                revision,
                l.trusted,
                l.trusted
            );
            // The policy file's place, with the key.
            let base = subject();
            let at = At {
                key: Some(l.key.clone()),
                ..base.at().clone()
            };
            Finding::new(check, "policy_changed", loosening, message, decide.into()).with_subject(
                Subject {
                    at: at.boxed(),
                    ..base
                },
            )
        })
        .collect()
}

/// How to record `remote`'s default branch in `refs/remotes/<remote>/HEAD`
/// — `branch`, when the remote named it (docs/trust.md).
fn set_head_remedy(remote: &str, branch: Option<&str>) -> String {
    match branch {
        Some(b) => format!(
            "`git fetch {remote} refs/heads/{b}:refs/remotes/{remote}/{b} && git remote set-head {remote} -a` records it"
        ),
        None => format!(
            "`git fetch {remote} && git remote set-head {remote} -a` records its default branch once {remote} can be asked (`git remote set-head {remote} BRANCH` names it without asking)"
        ),
    }
}

/// Per key the stricter of two policies, each named by where it was read.
pub fn combine(a: LoadedPolicy, b: &LoadedPolicy) -> LoadedPolicy {
    let (policy, _) = policy::stricter(&a.policy, &b.policy);
    if same_rules(&policy, &a.policy) {
        return a;
    }
    let revision = format!("{}, no looser than {}", a.revision, b.revision);
    let source = if a.source == PolicySource::Embedded && b.source == PolicySource::Embedded {
        PolicySource::Embedded
    } else {
        PolicySource::File(POLICY_PATH.into())
    };
    LoadedPolicy {
        policy,
        source,
        revision,
    }
}

/// Whether two policies judge alike (notes aside).
pub fn same_rules(a: &Policy, b: &Policy) -> bool {
    Policy {
        notes: vec![],
        ..a.clone()
    } == Policy {
        notes: vec![],
        ..b.clone()
    }
}

/// The policy a push to `remote` is judged with (docs/trust.md): the
/// policy of the remote's **default branch**, where the rules are owned —
/// `refs/remotes/<remote>/HEAD`, else the branch the remote's HEAD names
/// now (`git ls-remote --symref`), else `refs/remotes/<remote>/main` or
/// `master` — per key no looser than `local`. A push by URL is judged as
/// the configured remote with that URL. With no default branch known,
/// each pushed branch's own remote tip; with none of those, HEAD's policy
/// at the merge base of HEAD with the remote's refs — never the pushed
/// tip's alone. A remote this clone knows no ref of leaves `local`, with a
/// note; so does a default branch that cannot be told, naming the command
/// that records it (`git remote set-head`). Also the remote's revisions it
/// read (what signed receipts are judged by: the signers they list).
pub fn for_push(
    repo: &Repo,
    remote: &str,
    remote_refs: &[&str],
    local: LoadedPolicy,
    notes: &mut Vec<String>,
) -> Result<(LoadedPolicy, Vec<crate::checks::range_rules::Trusted>), Failure> {
    let named = match crate::git::is_remote_name(remote) {
        true => Some(remote.to_string()),
        false => repo.remote_named_by_url(remote),
    };
    let Some(remote) = named else {
        notes.push(format!(
            "{remote} is no configured remote's URL: no remote-tracking ref says what policy it has; judged by the local policy"
        ));
        return Ok((local, Vec::new()));
    };
    let remote = remote.as_str();
    let read = |tracking: &str| -> Result<Option<Oid>, Failure> {
        match repo.resolve_commit(tracking) {
            Ok(id) => Ok(Some(id)),
            Err(crate::git::GitError::UnknownRevision { .. }) => Ok(None),
            Err(e) => Err(Failure::unknown(format!(
                "{tracking} cannot be read, so the policy {remote} has is unknown: {e}"
            ))),
        }
    };
    let mut found: Vec<(String, Oid)> = Vec::new();
    // The default branch, where the rules are owned. Not recorded here (a
    // remote added by `git remote add`), the remote is asked; what cannot
    // be told is said, with the command that records it (docs/trust.md).
    let mut asked = None;
    if let Some(id) = read(&format!("refs/remotes/{remote}/HEAD"))? {
        found.push((format!("{remote}/HEAD"), id));
    } else {
        asked = match repo.remote_head_branch(remote) {
            Ok(branch) => branch.and_then(|b| b.strip_prefix("refs/heads/").map(str::to_string)),
            Err(e) => {
                notes.push(format!(
                    "refs/remotes/{remote}/HEAD is not set, and {remote} could not be asked for its HEAD: {e}; {}",
                    set_head_remedy(remote, None)
                ));
                None
            }
        };
        let candidates = asked
            .iter()
            .cloned()
            .chain(["main".to_string(), "master".to_string()]);
        for branch in candidates {
            if let Some(id) = read(&format!("refs/remotes/{remote}/{branch}"))? {
                found.push((format!("{remote}/{branch}"), id));
                break;
            }
        }
    }
    let default_known = !found.is_empty();
    // No default branch known: each pushed branch's own remote tip.
    if found.is_empty() {
        for name in remote_refs {
            let Some(branch) = name.strip_prefix("refs/heads/") else {
                continue;
            };
            if let Some(id) = read(&format!("refs/remotes/{remote}/{branch}"))?
                && !found.iter().any(|(_, o)| *o == id)
            {
                found.push((format!("{remote}/{branch}"), id));
            }
        }
    }
    // Nothing says what the remote has: HEAD's policy where HEAD meets the
    // remote's refs, never the pushed tip's.
    if found.is_empty()
        && let Ok(Some(head)) = repo.head().map(|h| h.id())
        && let Ok(tips) = repo.remote_branches(remote)
    {
        for (_, tip) in tips {
            let base = repo
                .merge_base(head, tip)
                .map_err(|e| Failure::unknown(e.to_string()))?;
            if let Some(base) = base
                && !found.iter().any(|(_, o)| *o == base)
            {
                found.push((format!("the merge base of HEAD with {remote}'s refs"), base));
            }
        }
    }
    if !default_known && !found.is_empty() {
        let judged: Vec<&str> = found.iter().map(|(shown, _)| shown.as_str()).collect();
        let head_names = match &asked {
            Some(branch) => format!("its HEAD names {branch}, which this clone has not fetched"),
            None => format!(
                "its HEAD names no branch, or could not be asked, and no {remote}/main or {remote}/master is here"
            ),
        };
        notes.push(format!(
            "{remote}'s default branch is not known here (refs/remotes/{remote}/HEAD is not set; {head_names}): judged by the policy of {}; {}",
            judged.join(", "),
            set_head_remedy(remote, asked.as_deref())
        ));
    }
    if found.is_empty() {
        notes.push(format!(
            "no remote-tracking ref says what policy {remote} has: judged by the local policy"
        ));
        return Ok((local, Vec::new()));
    }
    let mut policy: Option<LoadedPolicy> = None;
    let mut trusted = Vec::new();
    for (shown, id) in found {
        let at_remote = at(repo, id, &shown)?;
        policy = Some(match policy {
            None => at_remote,
            Some(p) => combine(p, &at_remote),
        });
        trusted.push(crate::checks::range_rules::Trusted {
            commit: id,
            named: format!("{shown} ({})", id.short()),
        });
    }
    let remote_policy = policy.expect("found is not empty");
    Ok((combine(remote_policy, &local), trusted))
}

#[cfg(test)]
mod tests {
    //! The policy judgements on plain data: `policy_changed` and
    //! `policy_loosened` (docs/causes.md), with no repository.

    use super::*;

    fn policy(edit: impl Fn(String) -> String) -> policy::Policy {
        let text = edit(policy::DEFAULT_POLICY_YAML.to_string());
        policy::parse(std::path::Path::new("policy.yaml"), &text).unwrap()
    }

    fn tip() -> Oid {
        Oid::from_hex("abcdefabcdefabcdefabcdefabcdefabcdefabcd").unwrap()
    }

    #[test]
    fn the_same_rules_are_no_change() {
        let base = policy(|t| t);
        // A comment is no rule.
        let commented = policy(|t| format!("{t}\n# a comment\n"));
        assert!(
            judge_change(&base, "main", &commented, tip(), "scope", Severity::Blocker).is_empty()
        );
    }

    #[test]
    fn a_tightening_is_said_and_weighs_nothing() {
        let base = policy(|t| t);
        let stricter = policy(|t| t.replace("scope: advisory", "scope: required"));
        let found = judge_change(&base, "main", &stricter, tip(), "scope", Severity::Blocker);
        assert_eq!(found.len(), 1);
        assert_eq!(
            (found[0].cause, found[0].severity),
            ("policy_changed", Severity::Info)
        );
        assert!(
            found[0].message.contains("tightening only"),
            "{}",
            found[0].message
        );
    }

    #[test]
    fn each_loosened_key_weighs_what_the_door_says() {
        let base = policy(|t| t.replace("scope: advisory", "scope: required"));
        let looser = policy(|t| t.replace("scope: advisory", "scope: off"));
        for weight in [Severity::Blocker, Severity::Warn] {
            let found = judge_change(&base, "origin/main", &looser, tip(), "scope", weight);
            assert_eq!(found.len(), 1, "{found:?}");
            let f = &found[0];
            assert_eq!((f.cause, f.severity), ("policy_changed", weight));
            assert_eq!(f.subject.at().key.as_deref(), Some("scope"));
            assert_eq!(f.subject.commit, Some(tip().to_hex()));
            assert!(
                f.message
                    .contains("loosens scope: off where origin/main has required"),
                "{}",
                f.message
            );
        }
    }

    #[test]
    fn an_uncommitted_loosening_is_a_warning_under_its_check() {
        let base = policy(|t| t.replace("scope: advisory", "scope: required"));
        let looser = policy(|t| t.replace("scope: advisory", "scope: off"));
        let (_, loosened) = policy::stricter(&base, &looser);
        let found = loosened_findings("the work tree", "HEAD", &loosened);
        assert_eq!(found.len(), 1);
        let f = &found[0];
        assert_eq!(
            (f.check, f.cause, f.severity),
            ("scope", "policy_loosened", Severity::Warn)
        );
        assert_eq!(f.subject.at().key.as_deref(), Some("scope"));
        assert!(
            f.message
                .starts_with("the work tree sets scope: off where HEAD has required")
        );
    }
}
