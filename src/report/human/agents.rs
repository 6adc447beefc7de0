//! Agents: `gate may-touch`, `gate context`, and the agent hooks' denials
//! and work-left answers.

use super::*;

/// `gate may-touch`: one line per path — its verdict, and the pattern that
/// allows it or why not and what gets it through — then the result.
pub fn may_touch(
    task: Option<&TaskRef>,
    touches: &[crate::scope::Touch],
    notes: &[String],
    code: ExitCode,
) -> String {
    let mut s = format!("{} may-touch\n", style::strong(OUT, "gate"));
    match task {
        Some(t) => s.push_str(&task_lines(t)),
        None => s.push_str("no active task\n"),
    }
    for note in notes {
        let _ = writeln!(s, "{} {}", style::dim(OUT, "note:"), FileText::new(note));
    }
    s.push('\n');
    for t in touches {
        let word = format!("{:<8}", t.verdict_word());
        let word = match t.verdict {
            Outcome::Pass => style::pass(OUT, word),
            Outcome::Refused => style::refused(OUT, word),
            Outcome::Unknown => style::unknown(OUT, word),
        };
        match &t.pattern {
            Some(p) => {
                let _ = writeln!(s, "  {word} {} · pattern {}", t.path, FileText::new(p));
            }
            None => {
                let _ = writeln!(s, "  {word} {}", FileText::new(&t.reason));
            }
        }
        if let Some(d) = &t.decide {
            let _ = writeln!(
                s,
                "      {} {}",
                style::hint(OUT, "decide:"),
                FileText::new(d)
            );
        }
    }
    let verdict = match code {
        ExitCode::Pass => style::pass(OUT, "every path is in the task's scope"),
        ExitCode::Refused => style::refused(OUT, "a path is outside the task's scope"),
        ExitCode::Usage | ExitCode::Unknown => style::unknown(
            OUT,
            "whether the task may touch a path could not be decided",
        ),
    };
    let _ = writeln!(s, "\nresult: {verdict} (exit {code})");
    s
}

/// `gate context`: the task, its brief and addenda verbatim, the scope, the
/// intents it serves, their criteria and critiques, the binding, the next
/// commands and what could not be read.
pub fn context(c: &crate::report::wire::context::ContextWire) -> String {
    let mut s = format!("{} context\n", style::strong(OUT, "gate"));
    if let Some(t) = &c.task {
        let mut named = Vec::new();
        if let Some(i) = &t.issue {
            named.push(format!("issue {}", i));
        }
        if let Some(i) = &t.intent {
            named.push(format!("intent {}", i));
        }
        if let Some(e) = &t.exemption {
            named.push(format!("exempt: {}", &e.class));
        }
        let named: String = named.iter().map(|n| format!(" · {n}")).collect();
        let _ = writeln!(
            s,
            "task {} · {}{named}",
            style::strong(OUT, &t.id),
            t.status
        );
        let _ = writeln!(
            s,
            "  file {} · operator {} · baseline {} · created {}",
            t.file,
            t.operator,
            crate::binding::short(t.baseline.as_str()),
            t.created_at
        );
        if let Some(e) = &t.exemption {
            let _ = writeln!(
                s,
                "  exemption {}: {} · because: {}",
                e.class,
                e.description
                    .as_ref()
                    .map_or("(not declared in the policy)".into(), FileText::to_string),
                e.because
            );
        }
        s.push_str("\n## Brief (verbatim)\n\n");
        match &c.brief {
            Some(b) => {
                let _ = write!(s, "{}", b.block());
                if !b.as_str().ends_with('\n') {
                    s.push('\n');
                }
            }
            None => s.push_str("(no brief recorded)\n"),
        }
        s.push_str("\n## Addenda\n\n");
        if c.addenda.is_empty() {
            s.push_str("(none)\n");
        }
        for a in &c.addenda {
            let _ = writeln!(s, "{}", a.heading);
            let _ = write!(s, "{}", a.text.block());
        }
        s.push('\n');
        for q in &c.conflicts {
            let _ = writeln!(
                s,
                "{} round {} ({}): the agent decided \"{}\", which conflicts with the operator's words ({}); only the operator's answer closes it",
                style::refused(OUT, "conflict open:"),
                q.round,
                &q.stage,
                &q.summary,
                &q.conflict
            );
        }
        if !c.conflicts.is_empty() {
            s.push('\n');
        }
    }
    if let Some(x) = c.external_edits.as_ref().filter(|x| !x.edits.is_empty()) {
        let _ = writeln!(
            s,
            "edits outside the repository (agents.external_edits: {}), the latest first",
            x.policy
        );
        for e in &x.edits {
            let _ = writeln!(
                s,
                "  {} {}",
                FileText::new(&e.path),
                style::dim(
                    OUT,
                    format!(
                        "({} ×{}, last {})",
                        FileText::new(&e.tool),
                        e.count,
                        FileText::new(&e.last_at)
                    )
                )
            );
        }
        if x.dropped > 0 {
            let _ = writeln!(s, "  … and {} older paths", x.dropped);
        }
        s.push('\n');
    }
    if let Some(scope) = &c.scope {
        s.push_str("scope (as recorded, with the additions recorded by `gate task scope add`)\n");
        for glob in &scope.recorded {
            let _ = writeln!(s, "  {}", glob);
        }
        for a in &scope.added {
            let _ = writeln!(
                s,
                "  {} {}",
                &a.glob,
                style::dim(
                    OUT,
                    format!("(added {} by {}: {})", &a.time, &a.author, &a.because)
                )
            );
        }
    }
    for i in &c.intents {
        let _ = writeln!(
            s,
            "\nintent {} ({}): {}",
            style::strong(OUT, &i.id),
            i.status,
            &i.statement
        );
        for (label, items) in [("invariants", &i.invariants), ("non-goals", &i.non_goals)] {
            if !items.is_empty() {
                let _ = writeln!(s, "  {label}:");
                for item in items {
                    let _ = writeln!(s, "    - {}", item);
                }
            }
        }
    }
    if !c.criteria.is_empty() {
        s.push_str("\ncriteria\n");
        for cr in &c.criteria {
            let _ = writeln!(
                s,
                "  {}#{} {} {}",
                &cr.intent,
                &cr.criterion,
                criterion_word(cr.state),
                &cr.text
            );
            for e in &cr.evidence {
                let why = e
                    .why
                    .as_ref()
                    .map(|w| format!(" ({w})"))
                    .unwrap_or_default();
                let _ = writeln!(s, "      {} {}{why}", e.check, e.state);
            }
        }
    }
    for cr in &c.critiques {
        let open = match cr.open_blocking.as_slice() {
            [] => "no blocking finding open".to_string(),
            ids => format!("open and blocking: {}", FileText::joined(ids, ", ")),
        };
        let _ = writeln!(
            s,
            "\ncritique of {} (reviewed {}): {} finding{} · {open}",
            &cr.intent,
            &cr.reviewed_at,
            cr.findings.len(),
            if cr.findings.len() == 1 { "" } else { "s" }
        );
        for f in &cr.findings {
            let kind = match (f.blocking, f.open) {
                (true, true) => style::refused(OUT, "blocking, open"),
                (true, false) => "blocking, resolved".to_string(),
                (false, true) => "open".to_string(),
                (false, false) => "resolved".to_string(),
            };
            let _ = writeln!(s, "  {} ({kind}): {}", &f.id, &f.text);
            if let Some(r) = &f.resolution {
                let _ = writeln!(s, "      resolution: {}", r);
            }
        }
    }
    if let Some(b) = &c.binding {
        let standing = match b.refusals.is_empty() {
            true => style::pass(OUT, b.standing),
            false => style::refused(OUT, b.standing),
        };
        let _ = writeln!(s, "\nbinding: {standing} (policy: binding {})", b.mode);
        for n in &b.notes {
            let _ = writeln!(s, "  {} {}", style::dim(OUT, "note:"), n);
        }
        for r in &b.refusals {
            let _ = writeln!(
                s,
                "  {} {} {}",
                style::refused(OUT, "✗"),
                style::strong(OUT, r.cause),
                &r.message
            );
            let _ = writeln!(s, "      {} {}", style::hint(OUT, "decide:"), &r.decide);
        }
    }
    if !c.next.is_empty() {
        s.push_str("\nnext\n");
        for n in &c.next {
            let _ = writeln!(s, "  {}", style::strong(OUT, &n.command));
            let _ = writeln!(s, "      {}", style::dim(OUT, &n.why));
        }
    }
    if !c.unknowns.is_empty() {
        s.push_str("\ncould not be read\n");
        for u in &c.unknowns {
            let _ = writeln!(
                s,
                "  {} {}: {}",
                style::unknown(OUT, "?"),
                u.part,
                &u.reason
            );
            let _ = writeln!(s, "      {} {}", style::hint(OUT, "decide:"), &u.decide);
        }
    }
    let verdict = match c.unknowns.is_empty() {
        true => style::pass(OUT, "every part of the context could be read"),
        false => style::unknown(OUT, "a part of the context could not be read"),
    };
    let _ = writeln!(s, "\nresult: {verdict} (exit {})", c.exit_code);
    s
}

/// A criterion's state, colored as status colors it.
pub(super) fn criterion_word(state: &str) -> String {
    let word = format!("{state:<11}");
    match state {
        "passed" => style::pass(OUT, word),
        "unknown" => style::unknown(OUT, word),
        "unevidenced" => style::dim(OUT, word),
        _ => style::refused(OUT, word),
    }
}

/// The reason Claude Code's pre-tool-use hook gives for denying a Bash call
/// that runs `git {subcommand}` so that gate's hook is skipped (`how`).
pub fn bypass_denied(subcommand: &str, how: &str) -> String {
    format!(
        "gate: this runs `git {subcommand}` with {how}, which skips gate's {hook} hook. Run `git {subcommand}` without it: when the hook refuses, its message names the way through (`gate may-touch`, `gate task scope add`, `gate verify`, `gate status`). Never skip it.",
        hook = if subcommand == "push" {
            "pre-push"
        } else {
            "pre-commit"
        },
    )
}

/// The reason Claude Code's pre-tool-use hook gives for denying a Bash
/// call that changes `core.hooksPath` (`how`: the words that do it).
pub fn hooks_path_denied(how: &str) -> String {
    format!(
        "gate: this runs `{how}`, which changes where git looks for hooks (core.hooksPath), so gate's hooks would not run. Leave core.hooksPath as `gate install` set it: when a hook refuses, its message names the way through (`gate may-touch`, `gate task scope add`, `gate verify`, `gate status`). Never skip it."
    )
}

/// The reason Claude Code's pre-tool-use hook gives for denying a Bash
/// call that uninstalls the hooks, or removes or changes a hook's file
/// (`how`: the words that do it).
pub fn hooks_removal_denied(how: &str) -> String {
    format!(
        "gate: this runs `{how}`, which removes or changes gate's git hooks. Installing and removing them is the operator's (`gate install`, `gate uninstall`), never an agent's: when a hook refuses, its message names the way through (`gate may-touch`, `gate task scope add`, `gate verify`, `gate status`)."
    )
}

/// The reason Claude Code's pre-tool-use hook gives for denying `git
/// {subcommand}` run through `via` (`xargs`, `find -exec`), whose
/// arguments the guard cannot read.
pub fn unreadable_denied(subcommand: &str, via: &str) -> String {
    format!(
        "gate: this runs `git {subcommand}` through {via}, which adds arguments gate cannot read (one could skip gate's hooks). Run `git {subcommand}` directly, with its arguments written out."
    )
}

/// The reason Claude Code's pre-tool-use hook gives for denying a write
/// (`tool` to `given`) inside the git directory.
pub fn git_dir_denied(tool: &str, given: &str) -> String {
    format!(
        "gate: {tool} {given}: that is inside the git directory, where the hooks and gate's local state live; an agent never writes there. Work in the work tree; installing hooks is `gate install`'s."
    )
}

/// The reason Claude Code's pre-tool-use hook gives for denying a write
/// (`tool` to `path`) the task's scope refuses or cannot decide: the
/// scope's reason and what would decide it.
pub fn scope_denied(tool: &str, path: &str, reason: &str, decide: Option<&str>) -> String {
    format!(
        "gate: {tool} {path}: {reason}{}",
        decide.map(|d| format!(". Next: {d}")).unwrap_or_default()
    )
}

/// What is left before task `id`'s acceptance checks stand, as Claude
/// Code's stop hook says it: each check not passed on the current sources
/// (`left`, never empty; a passed one is not listed) with the command that
/// moves it on.
pub fn work_left(id: &str, left: &[(&str, &State)]) -> String {
    let lines: Vec<String> = left
        .iter()
        .filter_map(|&(aid, state)| {
            Some(match state {
                State::Passed { .. } => return None,
                State::Running { .. } => {
                    format!("- {aid}: running: wait for the `gate verify {aid}` under way")
                }
                State::Stale { why, .. } => {
                    format!("- {aid}: stale ({}): run `gate verify {aid}`", why.key())
                }
                State::Failed { .. } => {
                    format!("- {aid}: failed: fix it, then run `gate verify {aid}`")
                }
                State::Missing => format!("- {aid}: missing: run `gate verify {aid}`"),
                State::Unknown { reason, .. } => {
                    format!("- {aid}: unknown ({reason}): run `gate verify {aid}`")
                }
            })
        })
        .collect();
    format!(
        "task {id} is not done: {} check{} it depends on {} not passed on the current sources.\n{}\nThen `gate status` shows each check's standing.",
        lines.len(),
        if lines.len() == 1 { "" } else { "s" },
        if lines.len() == 1 { "has" } else { "have" },
        lines.join("\n")
    )
}

/// Why Claude Code's stop hook cannot tell whether the task's checks
/// passed: the failure's message and hint.
pub fn work_left_unknown(message: &str, hint: Option<&str>) -> String {
    format!(
        "gate cannot tell whether the task's checks passed: {message}{}",
        hint.map(|h| format!(" ({h})")).unwrap_or_default()
    )
}

/// Claude Code's PreToolUse hook denying a write outside the repository.
pub fn external_denied(tool: &str, path: &str) -> String {
    format!(
        "gate: {tool} {} lands outside the repository, in no repository gate governs, and the policy denies such edits (agents.external_edits: deny). Write inside the repository (an ignored directory such as target/ or tmp/ keeps scratch files out of commits), or ask the operator to allow it.",
        FileText::new(path)
    )
}

/// Claude Code's PreToolUse hook letting a write outside the repository
/// through, and saying so.
pub fn external_reported(tool: &str, path: &str) -> String {
    format!(
        "gate: {tool} {} lands outside the repository; let through and recorded (agents.external_edits: report): `gate context` lists it.",
        FileText::new(path)
    )
}

/// The task's open conflicts, as the Stop hook says them (each line a
/// finding's message and what decides it).
pub fn conflicts_open(id: &str, lines: &[String]) -> String {
    format!(
        "task {id} waits for the operator: {} decision{} of the agent's conflict{} with the operator's words, and only their answer closes {}.\n{}",
        lines.len(),
        if lines.len() == 1 { "" } else { "s" },
        if lines.len() == 1 { "s" } else { "" },
        if lines.len() == 1 { "it" } else { "them" },
        lines.join("\n")
    )
}

/// What Claude Code's stop hook says when it lets Claude stop although work
/// is left (it blocked once already: blocking again could loop).
pub fn stopping_with_work_left(reason: &str) -> String {
    format!("gate: stopping with work left: {reason}")
}
