//! `gate plan validate`: every fault of `.gate/plan.yaml` the later checks
//! would trip on, as a `gate.report/1` with one `plan` check. `gate plan
//! critique`: the critique entry an intent's review records, printed to
//! paste or added to the plan (docs/plan.md).

use std::path::Path;

use crate::checks::unreadable;
use crate::ctx::today;
use crate::ctx::{Ctx, policy_origin};
use crate::error::Failure;
use crate::ui::{Answer, Shown};
use crate::verdict::ExitCode;

use crate::cli::{CritiqueArgs, PlanCommand};
use crate::policy::Mode;
use crate::report::wire::critique::{CRITIQUE_SCHEMA, CritiqueWire};
use crate::report::{ReportAnswer, human};
use crate::verdict::{At, CheckReport, Finding, Report, Severity, Subject};

pub const CHECK: &str = "plan";

pub fn run(dir: Option<&Path>, cmd: &PlanCommand) -> Result<Answer, Failure> {
    match cmd {
        PlanCommand::Validate { .. } => validate(dir),
        PlanCommand::Critique(args) => critique(dir, args),
    }
}

/// `gate plan critique INTENT [--write] [--today DATE] [--json]`.
fn critique(dir: Option<&Path>, args: &CritiqueArgs) -> Result<Answer, Failure> {
    let ctx = Ctx::open(dir)?;
    let today = today(args.today.as_deref())?;
    let Some(loaded) = ctx.plan()? else {
        return Err(
            Failure::refused("there is no .gate/plan.yaml: no intent to critique")
                .hint("`gate init` writes an example plan"),
        );
    };
    let plan = &loaded.plan;
    let intent = args.intent.trim();
    if plan.intent(intent).is_none() {
        let ids: Vec<&str> = plan.intents.iter().map(|i| i.id.as_str()).collect();
        return Err(Failure::refused(format!(
            "the plan has no intent `{intent}` (intents: {})",
            if ids.is_empty() {
                "none".to_string()
            } else {
                ids.join(", ")
            }
        )));
    }
    let revision = crate::binding::intent_revision(plan, intent);
    let reviewer = reviewer(&ctx, args.by.as_deref())?;
    let quoted = |s: &str| serde_json::to_string(s).expect("a string serialises");
    let entry = format!(
        "  - intent: {}\n    reviewed_at: {today}\n    reviewed_by: {}\n    intent_revision: {revision}\n    findings: []\n",
        quoted(intent),
        quoted(&reviewer)
    );
    let written = if args.write {
        write_critique(&ctx, loaded, intent, &revision, &entry, args.replace)?;
        true
    } else {
        false
    };
    Ok(Answer::document(
        ExitCode::Pass,
        CritiqueAnswer {
            intent: intent.to_string(),
            today: today.to_string(),
            reviewer,
            revision,
            entry,
            written,
            file: loaded.file.clone(),
        },
    ))
}

/// What `gate plan critique` answers: the entry, and whether it was written.
struct CritiqueAnswer {
    intent: String,
    today: String,
    reviewer: String,
    revision: String,
    entry: String,
    written: bool,
    file: std::path::PathBuf,
}

impl Shown for CritiqueAnswer {
    type Wire<'a> = CritiqueWire<'a>;
    fn wire(&self) -> CritiqueWire<'_> {
        CritiqueWire {
            schema: CRITIQUE_SCHEMA,
            intent: &self.intent,
            reviewed_at: self.today.clone(),
            reviewed_by: &self.reviewer,
            intent_revision: &self.revision,
            entry: &self.entry,
            written: self.written,
            file: self.written.then(|| self.file.display().to_string()),
        }
    }
    fn text(&self) -> String {
        human::critique(&self.file, &self.intent, &self.entry, self.written)
    }
}

/// Who reviewed: `--by`, else git's `user.name`; one line either way.
fn reviewer(ctx: &Ctx, by: Option<&str>) -> Result<String, Failure> {
    let one_line = |name: &str| !name.trim().is_empty() && !name.contains(['\n', '\r']);
    match by {
        Some(name) if one_line(name) => Ok(name.trim().to_string()),
        Some(_) => Err(Failure::usage(
            "--by: the reviewer's name is blank or spans lines",
        )),
        None => ctx
            .repo
            .config_string("user.name")
            .filter(|n| one_line(n))
            .map(|n| n.trim().to_string())
            .ok_or_else(|| {
                Failure::usage("no reviewer: git user.name is unset")
                    .hint("name who reviewed with --by NAME")
            }),
    }
}

/// Add `entry` (a list item indented two spaces) to the plan's
/// `critiques` — or, with `replace`, put it in place of the intent's one
/// critique — atomically, and only when the result parses to exactly the
/// plan with that one critique more (or swapped); anything else is refused
/// with the entry to paste by hand. An intent that has a critique is
/// refused without `replace`, and one with several always: which one a
/// review replaces is the reviewer's call.
fn write_critique(
    ctx: &Ctx,
    loaded: &crate::plan::LoadedPlan,
    intent: &str,
    revision: &str,
    entry: &str,
    replace: bool,
) -> Result<(), Failure> {
    let by_hand = |why: String| {
        Failure::refused(format!("{why}; nothing was written")).hint(format!(
            "paste the entry `gate plan critique {intent}` prints into {}",
            loaded.file.display()
        ))
    };
    let existing: Vec<usize> = (loaded.plan.critiques.iter().enumerate())
        .filter(|(_, c)| c.intent == intent)
        .map(|(n, _)| n)
        .collect();
    let mut expected = loaded.plan.clone();
    let text = match (existing.as_slice(), replace) {
        ([], _) => with_critique(&loaded.text, entry).ok_or_else(|| {
            by_hand("the plan's `critiques` is not a block list gate can add to".into())
        })?,
        ([n], true) => {
            expected.critiques.remove(*n);
            replacing_critique(&loaded.text, *n, entry).ok_or_else(|| {
                by_hand(format!(
                    "critiques[{n}] is not a block list item gate can replace"
                ))
            })?
        }
        ([n], false) => {
            return Err(Failure::refused(format!(
                "intent {intent} already has a critique (critiques[{n}]); nothing was written"
            ))
            .hint(format!(
                "--replace puts the new review in its place (its findings go with it); to keep both, paste the entry `gate plan critique {intent}` prints"
            )));
        }
        (several, _) => {
            return Err(by_hand(format!(
                "intent {intent} has {} critiques: which one a review replaces is the reviewer's edit",
                several.len()
            )));
        }
    };
    let parsed = crate::plan::parse(&loaded.file, &text).ok();
    let added = parsed.as_ref().and_then(|p| {
        let n = p.critiques.iter().position(|c| c.intent == intent)?;
        let mut p = p.clone();
        let c = p.critiques.remove(n);
        Some((p, c))
    });
    match added {
        Some((rest, c)) if c.revision() == Some(revision) && c.findings.is_empty() => {
            expected.critiques.sort_by(|a, b| a.intent.cmp(&b.intent));
            let mut rest = rest;
            rest.critiques.sort_by(|a, b| a.intent.cmp(&b.intent));
            if rest != expected {
                return Err(by_hand(
                    "adding the entry would change more of the plan".into(),
                ));
            }
        }
        _ => {
            return Err(by_hand(
                "the plan with the entry added does not read back as expected".into(),
            ));
        }
    }
    crate::fsutil::write_within(
        ctx.root(),
        &loaded.file,
        text.as_bytes(),
        None,
        Some(&ctx.state_dir().join("tmp")),
    )?;
    Ok(())
}

/// `entry`, a list item indented two spaces, indented `indent` instead.
fn reindented(entry: &str, indent: usize) -> String {
    entry
        .lines()
        .map(|l| format!("{}{}\n", " ".repeat(indent), &l[2..]))
        .collect()
}

/// `text` with the block list item `critiques[n]` (its dash line through the
/// line before the next one indented no deeper) replaced by `entry`,
/// re-indented to its dash; `None` when that item is not a block one.
fn replacing_critique(text: &str, n: usize, entry: &str) -> Option<String> {
    let (line, _) = crate::yaml::locate(text, &format!("critiques[{n}]"))?;
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let first = line.checked_sub(1)?;
    let dash_line = lines.get(first)?;
    let body = dash_line.trim_start_matches(' ');
    if !body.starts_with("- ") {
        return None;
    }
    let indent = dash_line.len() - body.len();
    let blank = |l: &str| l.trim().is_empty();
    // A comment no deeper than the dash belongs to what follows: it ends
    // the item too; blank lines before the next line stay where they are.
    let mut end = lines[first + 1..]
        .iter()
        .position(|l| {
            let t = l.trim_end_matches(['\n', '\r']);
            !blank(t) && t.len() - t.trim_start_matches(' ').len() <= indent
        })
        .map_or(lines.len(), |k| first + 1 + k);
    while end > first + 1 && blank(lines[end - 1]) {
        end -= 1;
    }
    let entry = reindented(entry, indent);
    Some([lines[..first].concat(), entry, lines[end..].concat()].concat())
}

/// `text` with `entry` added as the first item of its top-level
/// `critiques` block list (re-indented to the list's own indentation), or a
/// new `critiques:` at the end; `None` for a flow list with items.
fn with_critique(text: &str, entry: &str) -> Option<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let key = lines.iter().position(|l| {
        l.strip_prefix("critiques:").is_some_and(|rest| {
            rest.trim().is_empty() || rest.trim_start().starts_with('#') || rest.trim() == "[]"
        })
    });
    let Some(key) = key else {
        if text.lines().any(|l| l.starts_with("critiques")) {
            return None;
        }
        let sep = if text.is_empty() || text.ends_with('\n') {
            ""
        } else {
            "\n"
        };
        return Some(format!("{text}{sep}critiques:\n{entry}"));
    };
    // The indentation of the list's first item; two spaces when it has none.
    let indent = lines[key + 1..]
        .iter()
        .map(|l| l.trim_end_matches(['\n', '\r']))
        .take_while(|l| l.is_empty() || l.starts_with([' ', '-', '#']))
        .find_map(|l| {
            let body = l.trim_start_matches(' ');
            body.starts_with('-').then(|| l.len() - body.len())
        })
        .unwrap_or(2);
    let entry = reindented(entry, indent);
    let mut out = String::with_capacity(text.len() + entry.len());
    for (n, line) in lines.iter().enumerate() {
        if n == key {
            if line.trim_end().ends_with("[]") {
                out.push_str("critiques:\n");
            } else {
                out.push_str(line);
                if !line.ends_with('\n') {
                    out.push('\n');
                }
            }
            out.push_str(&entry);
        } else {
            out.push_str(line);
        }
    }
    Some(out)
}

fn validate(dir: Option<&Path>) -> Result<Answer, Failure> {
    let ctx = Ctx::open(dir)?;
    let policy = ctx.policy()?;
    let mut notes = Vec::new();
    let (summary, findings) = match crate::plan::load(ctx.root()) {
        Ok(None) => (
            "no .gate/plan.yaml (run `gate init` for an example)".to_string(),
            vec![],
        ),
        Ok(Some(loaded)) => {
            let p = &loaded.plan;
            let summary = [
                (p.intents.len(), "intent"),
                (p.acceptance_checks.len(), "check"),
                (p.issues.len(), "issue"),
                (p.critiques.len(), "critique"),
            ]
            .iter()
            .map(|&(n, what)| format!("{n} {what}{}", if n == 1 { "" } else { "s" }))
            .collect::<Vec<_>>()
            .join(", ");
            let file = loaded.file.display().to_string();
            let mut findings: Vec<Finding> = loaded
                .reference_faults()
                .into_iter()
                .map(|f| {
                    let decide = match f.cause {
                        crate::plan::cause::PLANNED_IN_CLOSED_ISSUE => {
                            "record how the finding was answered (`resolution`) and drop `planned_in`, or plan it in an open issue"
                        }
                        _ => "fix the reference in .gate/plan.yaml",
                    };
                    Finding::blocker(CHECK, f.cause, f.message, decide.into())
                    .with_subject(Subject { at: At { file: Some(file.clone()), line: f.line, key: Some(f.key), ..At::default() }.boxed(), ..Subject::default() })
                })
                .collect();
            // Sources no fingerprint covers: the receipt would not notice.
            for fault in loaded.source_faults() {
                findings.push(
                    Finding::blocker(
                        CHECK,
                        fault.cause,
                        fault.message,
                        "remove it from the check's sources (the contract digest already covers the check's declaration); a file the check depends on belongs outside .gate/, listed from there".into(),
                    )
                    .with_subject(Subject { at: At { file: Some(file.clone()), line: fault.line, key: Some(fault.key), ..At::default() }.boxed(), ..Subject::default() }),
                );
            }
            // Commands whose receipts could not be reproduced: warnings.
            // Critiques that cannot be found stale: warnings.
            for lint in loaded.critique_lints() {
                findings.push(
                    Finding::new(
                        CHECK,
                        lint.cause,
                        Severity::Warn,
                        lint.message,
                        "review the intent again and record the critique `gate plan critique INTENT --write --replace` prints (it stamps the intent_revision)".into(),
                    )
                    .with_subject(Subject { at: At { file: Some(file.clone()), line: lint.line, key: Some(lint.key), ..At::default() }.boxed(), ..Subject::default() }),
                );
            }
            // The remote names are this clone's as well as the usual two.
            let remotes = ctx.repo.remote_names();
            for lint in loaded.command_lints(&remotes) {
                use crate::plan::cause;
                let decide = match lint.cause {
                    cause::COMMAND_SPANS_LINES => {
                        "put the steps in a script listed in the check's sources, and run that"
                    }
                    cause::COMMAND_FILTERS_HISTORY => {
                        "prove the range with `gate check --range BASE..HEAD --only provenance` (every changed path of every commit, no path filter, merges explicit), or compare trees (`git diff --name-only {BASELINE}..HEAD`) instead of filtering the log"
                    }
                    _ => {
                        "compare with a commit the sources pin (the task's baseline is `{BASELINE}`), or leave the moving ref out of the check"
                    }
                };
                findings.push(
                    Finding::new(
                        CHECK,
                        lint.cause,
                        Severity::Warn,
                        lint.message,
                        decide.into(),
                    )
                    .with_subject(Subject {
                        at: At {
                            file: Some(file.clone()),
                            line: lint.line,
                            key: Some(lint.key),
                            ..At::default()
                        }
                        .boxed(),
                        ..Subject::default()
                    }),
                );
            }
            // What the binding would trip on: critiques, and path overlaps.
            for r in crate::binding::plan_faults(p) {
                findings.push(
                    Finding::blocker(CHECK, r.cause, r.message, r.decide).with_subject(Subject {
                        at: At {
                            file: Some(file.clone()),
                            line: r
                                .key
                                .as_deref()
                                .and_then(|k| crate::yaml::locate(&loaded.text, k))
                                .map(|(line, _)| line),
                            key: r.key,
                            ..At::default()
                        }
                        .boxed(),
                        ..Subject::default()
                    }),
                );
            }
            for (a, b, glob) in crate::binding::overlapping_issues(p) {
                findings.push(Finding::new(CHECK, "overlapping_issue_paths", Severity::Warn, format!(
                        "open issues {a} and {b} serve different intents and their paths overlap (`{glob}`): a start naming only such paths is ambiguous_intent"
                    ), "make the issues' paths disjoint, or expect workers to name the issue".into()).with_subject({
                        let key = p
                            .issues
                            .iter()
                            .position(|i| i.id == b)
                            .map(|n| format!("issues[{n}].paths"));
                        Subject { at: At { file: Some(file.clone()), line: key
                                .as_deref()
                                .and_then(|k| crate::yaml::locate(&loaded.text, k))
                                .map(|(line, _)| line), key, ..At::default() }.boxed(), ..Subject::default() }
                    }));
            }
            // The revision a new critique should record, per intent.
            for intent in &p.intents {
                notes.push(format!(
                    "intent {}: intent_revision {} (a new critique records it: `gate plan critique {}` prints the entry)",
                    intent.id,
                    crate::binding::intent_revision(p, &intent.id),
                    intent.id
                ));
            }
            (summary, findings)
        }
        Err(e) => (
            "the plan could not be read".to_string(),
            vec![unreadable(CHECK, &e)],
        ),
    };
    let report = Report {
        verb: "plan validate".into(),
        policy: policy_origin(&policy),
        task: None,
        checks: vec![CheckReport::new(CHECK, Mode::Required, summary, findings)],
        skipped: vec![],
        notes,
    };
    Ok(Answer::document(report.exit_code(), ReportAnswer(report)))
}
