//! `gate check`: run the checks under the policy modes and report.
//!
//! - `--staged`: scope of the staged changes against HEAD (pre-commit);
//! - `--range A..B`: provenance of every commit in the range;
//! - neither: the task's `baseline..HEAD` (provenance) and its current state
//!   (scope of staged, unstaged and untracked changes).

use std::path::Path;

use crate::checks::range_rules::Trusted;
use crate::checks::receipts::RunHere;
use crate::checks::trusted;
use crate::checks::{Target, TaskState, build_trusting, header};
use crate::cli::{CheckArgs, CheckName, ReportFormat};
use crate::ctx::{Ctx, Opened};
use crate::error::Failure;
use crate::git::Repo;
use crate::policy::LoadedPolicy;
use crate::provenance;
use crate::report::{github, human, json, limit, markdown, sarif};
use crate::scope::{self};
use crate::ui::{Answer, Shown, Ui};
use crate::verdict::{Finding, Report};

pub fn run(dir: Option<&Path>, args: &CheckArgs, ui: &Ui) -> Result<Answer, Failure> {
    let result = (|| {
        let target = match (&args.range, args.staged) {
            (Some(r), _) => Target::Range(provenance::with_exclusions(r, &args.not)),
            (None, true) => Target::Staged,
            (None, false) => Target::Task,
        };
        let ctx = match Ctx::open_or_bare(dir)? {
            Opened::Work(ctx) => *ctx,
            Opened::Bare(repo, failure) => {
                // A bare repository (a server) has no work tree, but a range
                // needs none.
                if let Target::Range(spec) = &target {
                    // gate's state there is checked as a work tree's is
                    // before the commit cache is read or written in it.
                    if crate::fsutil::check_state_dir(&repo.common_dir()).is_ok() {
                        repo.keep_commits_under(
                            &crate::receipts::Store::new(&repo.common_dir()).cache_dir(),
                        );
                    }
                    let built = build_bare(&repo, spec, args, &args.only);
                    (*repo).leave();
                    return built;
                }
                return Err(failure);
            }
        };
        let (policy, loosened) = match &target {
            Target::Range(spec) => {
                let local = || Ok(trusted::local(&ctx, false)?.0);
                (range_policy(&ctx.repo, spec, args, None, local)?, vec![])
            }
            Target::Staged => trusted::local(&ctx, true)?,
            Target::Task => trusted::local(&ctx, false)?,
        };
        let trusting = match &target {
            Target::Range(spec) => trusted_revisions(&ctx.repo, spec, args, false),
            _ => Vec::new(),
        };
        let prover = Prover {
            ctx: &ctx,
            policy: &policy.policy,
            ui,
        };
        let run_here: Option<&dyn RunHere> = match args.run_unproved {
            true => Some(&prover),
            false => None,
        };
        let mut report = build_trusting(
            &ctx,
            &policy,
            args.task.as_deref(),
            &target,
            &args.only,
            "check".into(),
            &trusting,
            run_here,
        )?;
        report.attach(loosened);
        ctx.leave();
        Ok(report)
    })();
    // An error under --json is printed as gate.error/1 by commands::run.
    let report = result?;
    // One verdict in two renderings, without judging twice (a run of
    // `--run-unproved` is not repeated to print it another way).
    if let Some(path) = &args.json_out {
        crate::fsutil::write_atomic(
            path,
            json::to_string(&json::report(&report)).as_bytes(),
            None,
        )?;
    }
    if let Some(path) = &args.sarif_out {
        crate::fsutil::write_atomic(path, sarif::render(&json::report(&report)).as_bytes(), None)?;
    }
    if args.format() == ReportFormat::Github
        && let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty())
    {
        let (capped, counts) = limit::cap(&report, args.max_findings);
        append_summary(
            Path::new(&path),
            &markdown::render(&json::report(&capped), &counts),
        )?;
    }
    // A report and its findings are plain data.
    Ok(Answer::document(
        report.exit_code(),
        CheckAnswer {
            report,
            format: args.format(),
            max_findings: args.max_findings,
        },
    )
    .plain())
}

/// What `gate check` answers: the report, printed in the format asked
/// for.
struct CheckAnswer {
    report: Report,
    format: ReportFormat,
    max_findings: Option<usize>,
}

/// The report in the format asked for (docs/ci.md#report-formats). JSON
/// is the canonical document; the others are built from its wire values.
/// JSON and SARIF keep every finding, the others list at most
/// `--max-findings`. Under `github` the Markdown summary is appended to
/// `$GITHUB_STEP_SUMMARY` when set, by the verb.
impl Shown for CheckAnswer {
    type Wire<'a> = crate::report::wire::report::ReportWire<'a>;
    fn wire(&self) -> Self::Wire<'_> {
        // Every finding, and the report not copied to say so: the JSON
        // document goes out as it is serialised.
        json::report(&self.report)
    }
    fn text(&self) -> String {
        let capped = || limit::cap(&self.report, self.max_findings);
        match self.format {
            // The dispatcher writes the JSON document itself, as it goes.
            ReportFormat::Json => json::to_string(&json::report(&self.report)),
            ReportFormat::Sarif => sarif::render(&json::report(&self.report)),
            ReportFormat::Human => {
                let (capped, counts) = capped();
                human::render_capped(&capped, Some(&counts))
            }
            ReportFormat::Markdown => {
                let (capped, counts) = capped();
                markdown::render(&json::report(&capped), &counts)
            }
            ReportFormat::Github => {
                let (capped, counts) = capped();
                github::render(&json::report(&capped), &counts)
            }
        }
    }
}

/// Append `summary` to the job summary file in one write, so a step that
/// also writes there cannot interleave with it.
fn append_summary(path: &Path, summary: &str) -> Result<(), Failure> {
    use std::io::Write as _;
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .and_then(|mut file| file.write_all(summary.as_bytes()))
        .map_err(|e| {
            Failure::unknown(format!(
                "cannot append the job summary to {} ($GITHUB_STEP_SUMMARY): {e}",
                path.display()
            ))
            .hint("point GITHUB_STEP_SUMMARY at a writable file, or unset it to print annotations only")
        })
}

/// `gate check --range` in a bare repository (a server's `pre-receive` or
/// `update` hook): no work tree, so no active task and nothing local. The
/// policy is the one HEAD's tree holds (the branch the server serves, before
/// the push lands, so a push cannot loosen the policy it is judged by); the
/// tasks are those of the range's tip, and the commits' trailers.
fn build_bare(
    repo: &Repo,
    spec: &str,
    args: &CheckArgs,
    only: &[CheckName],
) -> Result<Report, Failure> {
    let task_id = args.task.as_deref();
    if args.run_unproved {
        return Err(Failure::usage(
            "--run-unproved runs checks on a checkout of the range's tip, and a bare repository has no work tree",
        )
        .hint("run it in CI's checkout of the tip (docs/ci.md#proving-by-running-in-ci)"));
    }
    let head = match &args.policy_from {
        Some(_) => None,
        None => Some(committed_policy(repo)?),
    };
    let fallback = || {
        head.clone()
            .ok_or_else(|| Failure::unknown("no policy to judge with"))
    };
    let policy = range_policy(repo, spec, args, head.as_ref(), fallback)?;
    let p = &policy.policy;
    let mut report = header("check".into(), &policy, &TaskState::None);
    report
        .notes
        .push("a bare repository: tasks come from the range's tip and its trailers".into());
    let wants = |c: CheckName| only.is_empty() || only.contains(&c);
    if wants(CheckName::Scope) {
        let why = "a range is proved by provenance, commit by commit";
        report.skip(scope::CHECK, p.scope, why);
    }
    let trusting = trusted_revisions(repo, spec, args, true);
    if wants(CheckName::Receipts) {
        // The receipts that travelled with the commits (git notes).
        report.run(
            crate::checks::receipts::CHECK,
            p.receipts.mode,
            Ok(()),
            || crate::checks::receipts::range_check(repo, p, spec, &trusting, None),
        );
    }
    // The range is resolved once for both checks, and a --task the tip does
    // not hold refuses the whole verb before any check runs.
    let range = provenance::parse_range(repo, spec);
    let named = match (&range, task_id) {
        (Ok(range), Some(id)) => {
            let mut tasks =
                provenance::TaskSet::gather_held(repo, None, range.tip, None, &range.base.hidden());
            if !tasks.set_default(id) {
                return Err(Failure::refused(format!(
                    "no task `{id}` in {} (the range's tip)",
                    range.tip.short()
                ))
                .hint("name a task whose file the tip holds, or leave --task out"));
            }
            Some(tasks)
        }
        _ => None,
    };
    let unreadable = |f: &Finding, check| {
        (
            "range unreadable".to_string(),
            vec![f.clone().reported_by(check)],
        )
    };
    if wants(CheckName::Brief) {
        report.run(crate::brief::CHECK, p.brief.mode, Ok(()), || match &range {
            Err(f) => unreadable(f, crate::brief::CHECK),
            Ok(range) => {
                let (n, findings) = crate::checks::brief::range_findings(
                    repo,
                    range.tip,
                    &range.base.hidden(),
                    None,
                );
                (crate::checks::brief::commits_changing_tasks(n), findings)
            }
        });
    }
    // A bare repository has no Ctx: its run's sink is stderr's, as a Ctx's is.
    let opts = provenance::Options {
        progress: crate::progress::Sink::stderr(),
        ..provenance::Options::default()
    };
    if wants(CheckName::Binding) {
        // Every task the range touches, from the records at its tip.
        report.run(crate::binding::CHECK, p.binding, Ok(()), || {
            crate::checks::binding::range_check(repo, p, spec, &trusting)
        });
    }
    if wants(CheckName::Provenance) {
        report.run(
            provenance::CHECK,
            p.provenance.mode,
            Ok(()),
            || match &range {
                Err(f) => unreadable(f, provenance::CHECK),
                Ok(range) => {
                    let tasks = named.unwrap_or_else(|| {
                        provenance::TaskSet::gather_held(
                            repo,
                            None,
                            range.tip,
                            None,
                            &range.base.hidden(),
                        )
                    });
                    let (summary, mut findings) = provenance::check(repo, p, &tasks, range, &opts);
                    findings.extend(trusted::changed_findings(
                        repo,
                        &policy,
                        &range.base.hidden(),
                        range.tip,
                        provenance::CHECK,
                        crate::verdict::Severity::Blocker,
                    ));
                    (summary, findings)
                }
            },
        );
    }
    Ok(report)
}

/// The policy a bare repository's HEAD holds: a server judges with the
/// branch it serves, before the push lands. An unborn HEAD has no policy to
/// judge with: unknown, never the embedded default (docs/trust.md).
fn committed_policy(repo: &Repo) -> Result<LoadedPolicy, Failure> {
    match repo.head()?.id() {
        Some(head) => Ok(crate::policy::at_commit(repo, head, "HEAD")?),
        None => Err(Failure::unknown(
            "HEAD has no commit in this bare repository, so there is no policy to judge with",
        )
        .hint("push the branch HEAD names first, or pass --policy-from REV")),
    }
}

/// The policy a range is judged with (docs/trust.md): `--policy-from REV`'s,
/// else the range's base's — in a bare repository no looser than HEAD's
/// (`floor`). A `--policy-from` that does not resolve is unknown. A range
/// whose base does not resolve has no base policy: its provenance finding
/// says so, judged as `required` so that it is unknown, never a pass.
fn range_policy(
    repo: &Repo,
    spec: &str,
    args: &CheckArgs,
    floor: Option<&LoadedPolicy>,
    fallback: impl FnOnce() -> Result<LoadedPolicy, Failure>,
) -> Result<LoadedPolicy, Failure> {
    if let Some(rev) = &args.policy_from {
        return trusted::at_revision(repo, rev, "--policy-from");
    }
    let base = match provenance::parse_range(repo, spec) {
        Ok(range) => match range.base {
            provenance::Base::Commit(base) | provenance::Base::Within { base, .. } => Some(base),
            provenance::Base::Hidden(_) => None,
        },
        Err(_) => None,
    };
    let Some(base) = base else {
        // The modes shown are the local ones (HEAD's, no looser in the work
        // tree), with provenance made required.
        let mut fallback = fallback()?;
        fallback.policy.provenance.mode = crate::policy::Mode::Required;
        fallback.revision = format!(
            "unknown: the range's base does not resolve ({} shown, provenance required)",
            fallback.revision
        );
        return Ok(fallback);
    };
    let at_base = trusted::at(repo, base, "the range's base")?;
    Ok(match floor {
        Some(floor) => trusted::combine(at_base, floor),
        None => at_base,
    })
}

/// The revisions a range's plan and task records are trusted from
/// (docs/trust.md, "The plan's trust"): `--policy-from REV`, else the
/// range's base — and in a bare repository HEAD too (the branch the server
/// serves). A revision that does not resolve is left out: the policy, or
/// the range's own finding, already says so as unknown.
fn trusted_revisions(repo: &Repo, spec: &str, args: &CheckArgs, bare: bool) -> Vec<Trusted> {
    let mut out = Vec::new();
    match &args.policy_from {
        Some(rev) => {
            if let Ok(commit) = repo.resolve_commit(rev) {
                out.push(Trusted {
                    commit,
                    named: format!("--policy-from {rev} ({})", commit.short()),
                });
            }
        }
        None => {
            if let Ok(range) = provenance::parse_range(repo, spec)
                && let provenance::Base::Commit(base) | provenance::Base::Within { base, .. } =
                    range.base
            {
                out.push(Trusted {
                    commit: base,
                    named: format!("the range's base ({})", base.short()),
                });
            }
            if bare && let Ok(Some(head)) = repo.head().map(|h| h.id()) {
                out.push(Trusted {
                    commit: head,
                    named: format!("HEAD ({})", head.short()),
                });
            }
        }
    }
    out
}

/// `--run-unproved`'s runner (docs/receipts.md, "Proving by running in
/// CI"): each check the note on TIP does not prove is run in this work tree
/// the way `gate verify` runs it, once the work tree is shown to hold TIP's
/// bytes over the check's sources; its receipt is recorded (signed when
/// this machine has a signing key) and attached to TIP. The command's
/// output goes to stderr: stdout holds the report.
struct Prover<'a> {
    ctx: &'a Ctx,
    policy: &'a crate::policy::Policy,
    ui: &'a Ui,
}

impl RunHere for Prover<'_> {
    fn run(
        &self,
        acceptance: &crate::plan::AcceptanceCheck,
        tip: crate::git::Oid,
        task: Option<(&str, &str)>,
        baseline: Option<crate::git::Oid>,
        touched: &[crate::path::RepoPath],
        expected: &str,
    ) -> Result<crate::receipts::Receipt, String> {
        use crate::acceptance_run::{self, OUTPUT_GRACE, Said, Sayings};
        use crate::fingerprint::{self, Fingerprint};
        use crate::receipts::Store;
        let ctx = self.ctx;
        let store = Store::new(&ctx.repo.common_dir());
        let inputs = fingerprint::Inputs {
            sources: &acceptance.sources,
            touched,
            max_entries: self.policy.receipts.max_entries,
            max_bytes: self.policy.receipts.max_bytes,
        };
        let now = || {
            fingerprint::fingerprint_with_stats(&ctx.repo, &inputs, &store.cache_dir())
                .map_err(|e| e.to_string())
        };
        let seen_before = now()?;
        let before = seen_before.0.clone();
        match &before {
            Fingerprint::Available { digest, .. } if digest == expected => {}
            Fingerprint::Available { .. } => {
                return Err(format!(
                    "the work tree does not hold {}'s bytes of the check's sources (another commit is checked out, or files were changed)",
                    tip.short()
                ));
            }
            Fingerprint::Unavailable { reason, .. } => {
                return Err(format!(
                    "the work tree's sources cannot be fingerprinted ({})",
                    reason.as_str()
                ));
            }
        }
        let not_captured = human::output_not_captured(OUTPUT_GRACE.as_secs());
        let run = acceptance_run::Run {
            repo: &ctx.repo,
            root: ctx.root(),
            store: &store,
            acceptance,
            worktree: crate::ctx::worktree_key(ctx),
            task: task.map(|(id, at)| (id.to_string(), at.to_string())),
            baseline: baseline.map(|b| b.to_hex()),
            head: ctx.head_hex().ok().flatten(),
            stdout_to_stderr: true,
            ui: self.ui,
        };
        let ran = run
            .record(
                &before,
                || {
                    now()
                        .map(|after| acceptance_run::held_still(&seen_before, after))
                        .map_err(crate::error::Failure::unknown)
                },
                &Sayings {
                    started: &|log| self.ui.err(&human::verify_started(acceptance, log)),
                    not_captured: Said {
                        log: not_captured.clone(),
                        say: &|| {
                            self.ui
                                .err(&human::acceptance_said(&acceptance.id, &not_captured))
                        },
                    },
                    not_signed: &|why| self.ui.err(&human::verify_not_signed(&acceptance.id, why)),
                },
            )
            .map_err(|f| f.message)?;
        let (receipt, log_path) = (ran.receipt, ran.log_path);
        self.ui.err(&human::verify_ran(&receipt));
        // Attached to TIP, so the receipt travels once this clone's notes
        // are pushed; a note that cannot be written changes no verdict.
        if receipt.fresh_digest() == Some(expected) {
            let log_digest = std::fs::read(&log_path)
                .ok()
                .map(|bytes| crate::digest::sha256_hex(&bytes));
            if let Some(entry) = crate::notes::Entry::of(&receipt, log_digest)
                && let Err(e) = crate::notes::attach(&ctx.repo, tip, &[entry])
            {
                self.ui.err(&human::verify_attach_failed(
                    &acceptance.id,
                    &tip.short(),
                    &e.to_string(),
                ));
            }
        }
        Ok(receipt)
    }
}
