//! Under `binding: required` a task's scope stays inside the paths of the
//! issues it names (docs/binding.md): `gate task scope add` and `gate
//! start --scope` refuse a glob beyond them, judged by the committed plan
//! (an uncommitted edit cannot widen an issue's paths).

use std::path::Path;

use crate::ctx::Ctx;
use crate::error::Failure;

/// Under `binding: required`: `glob` lies within the paths of the issues
/// `task` names (its issue; an intent's open issues), as the committed plan
/// (HEAD's, else the work tree's) says. A task naming no issue or intent
/// (an exemption) is not bound to issue paths. A glob is within when every
/// path it can match is: a literal path the paths cover, or a glob whose
/// directory before its first wildcard they cover as a whole.
pub fn within_named_paths(
    ctx: &Ctx,
    who: &str,
    issue: Option<&str>,
    intent: Option<&str>,
    glob: &str,
) -> Result<(), Failure> {
    if issue.is_none() && intent.is_none() {
        return Ok(());
    }
    let plan = committed_plan(ctx)?.ok_or_else(|| {
        Failure::unknown(format!(
            "{who} names {}, and there is no plan to say which paths that covers",
            issue.map_or_else(
                || format!("intent {}", intent.unwrap_or_default()),
                |i| format!("issue {i}")
            )
        ))
        .hint("commit .gate/plan.yaml, then add the scope again")
    })?;
    let named = named_issues(&plan, issue, intent);
    let paths: Vec<String> = named.iter().flat_map(|i| i.paths.clone()).collect();
    if covers(&paths, glob) {
        return Ok(());
    }
    let others: Vec<String> = plan
        .issues
        .iter()
        .filter(|i| i.status == crate::plan::IssueStatus::Open && covers(&i.paths, glob))
        .map(|i| format!("issue {}", i.id))
        .collect();
    let named = named
        .iter()
        .map(|i| format!("issue {}", i.id))
        .collect::<Vec<_>>()
        .join(", ");
    let (message, hint) = if others.is_empty() {
        (
            format!(
                "{glob} lies outside the paths of {who} ({}), and no open issue of the plan covers it; nothing was written",
                if named.is_empty() { "no open issue".to_string() } else { named }
            ),
            "add the paths to an issue in .gate/plan.yaml (governance work: docs/policy.md#governance), or leave the change out".to_string(),
        )
    } else {
        (
            format!(
                "{glob} lies outside the paths of {who} ({named}); {} covers it; nothing was written",
                others.join(", ")
            ),
            format!(
                "do that work in a task of its own: `gate start --issue {} --brief -`",
                others[0].trim_start_matches("issue ")
            ),
        )
    };
    Err(Failure::refused(message).hint(hint))
}

/// The issues a task's names bind it to in `plan`: its issue, or its
/// intent's open issues.
pub fn named_issues<'p>(
    plan: &'p crate::plan::Plan,
    issue: Option<&str>,
    intent: Option<&str>,
) -> Vec<&'p crate::plan::Issue> {
    plan.issues
        .iter()
        .filter(|i| match (issue, intent) {
            (Some(issue), _) => i.id == issue,
            (None, Some(intent)) => {
                i.intent.as_deref() == Some(intent) && i.status == crate::plan::IssueStatus::Open
            }
            (None, None) => false,
        })
        .collect()
}

/// Whether every path `glob` can match lies in `paths` (conservative: see
/// [`within_named_paths`]).
pub fn covers(paths: &[String], glob: &str) -> bool {
    if paths.iter().any(|p| p == glob) {
        return true;
    }
    let Ok(scope) = crate::scope::Scope::new(paths, "-") else {
        return false;
    };
    let literal = match glob.find(['*', '?', '[', '{']) {
        None => glob,
        Some(at) => match glob[..at].rfind('/') {
            Some(slash) => &glob[..slash],
            None => return false,
        },
    };
    !literal.is_empty() && scope.contains(&crate::path::RepoPath::from(literal))
}

/// The plan the binding is asked with here: HEAD's `.gate/plan.yaml` when
/// HEAD holds one (an uncommitted edit cannot widen an issue's paths), else
/// the work tree's.
fn committed_plan(ctx: &Ctx) -> Result<Option<crate::plan::Plan>, Failure> {
    let path = crate::path::RepoPath::from(crate::plan::PLAN_PATH);
    if let Some(head) = ctx.head()?.id()
        && let Some((blob, _)) = ctx.repo.entry_at(head, &path)?
    {
        let bytes = ctx.repo.read_blob(blob)?;
        let text = String::from_utf8(bytes).map_err(|_| {
            Failure::unknown(format!("HEAD's {} is not UTF-8", crate::plan::PLAN_PATH))
        })?;
        return Ok(Some(crate::plan::parse(
            Path::new(crate::plan::PLAN_PATH),
            &text,
        )?));
    }
    Ok(ctx.plan()?.map(|p| p.plan.clone()))
}

#[cfg(test)]
mod tests {
    use super::covers;

    #[test]
    fn a_glob_is_covered_only_when_every_path_it_matches_is() {
        let paths = vec!["src/export/**".to_string(), "docs/export.md".to_string()];
        assert!(covers(&paths, "src/export/**"));
        assert!(covers(&paths, "src/export/csv/*.rs"));
        assert!(covers(&paths, "src/export/a.rs"));
        assert!(covers(&paths, "docs/export.md"));
        assert!(!covers(&paths, "docs/**"));
        assert!(!covers(&paths, "**/*.rs"));
        assert!(!covers(&paths, "src/*.rs"));
        assert!(!covers(&paths, "docs/export.md.bak"));
        let files = vec!["src/export/*.rs".to_string()];
        assert!(covers(&files, "src/export/*.rs"));
        assert!(covers(&files, "src/export/a.rs"));
        assert!(!covers(&files, "src/export/**"));
    }
}
