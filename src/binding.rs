//! The binding (docs/binding.md): what a task serves, and whether it
//! may start — one read-only derivation that every door asks.
//!
//! [`judge`] turns a [`Naming`] (issue, intent, paths, exemption) and the
//! plan into a standing — `bound`, `maintenance`, `exempt` or `refused` with
//! every cause — in the order the spec fixes: nothing named; an exemption,
//! judged alone with all its faults together; else the issue, else the
//! intent, else the paths (every covering open issue judged, the worst
//! verdict wins). [`pins`] computes the two hashes a task records: the
//! plan pin (`plan_pin` in JSON, `pins.plan_revision` in the task file) over
//! the served intent's content and `evidence_standing` over its criteria's
//! evidence states. A critique records another digest, the
//! [`intent_revision`] (docs/binding.md#the-pins). Nothing derived is ever stored; the
//! pins are hashes compared at read time.
//!
//! Pure: the evidence states come in as an argument.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use crate::digest;
use crate::path::RepoPath;
use crate::plan::{Intent, IntentStatus, Issue, IssueStatus, Plan, ServesFault};
use crate::policy::Policy;
use crate::receipts::Served;
use crate::scope::Scope;
use crate::task::Pins;

pub const CHECK: &str = "binding";

/// What a worker named.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Naming {
    pub issue: Option<String>,
    pub intent: Option<String>,
    pub paths: Vec<String>,
    pub exempt: Option<String>,
    pub because: Option<String>,
}

pub use crate::task::given_name;

impl Naming {
    /// Whether any naming flag was given (a question was asked).
    pub fn asks(&self) -> bool {
        self.issue.is_some()
            || self.intent.is_some()
            || !self.paths.is_empty()
            || self.exempt.is_some()
    }
}

/// The answer's standing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    Bound,
    Maintenance,
    Exempt,
    Refused,
}

impl Standing {
    pub fn as_str(self) -> &'static str {
        match self {
            Standing::Bound => "bound",
            Standing::Maintenance => "maintenance",
            Standing::Exempt => "exempt",
            Standing::Refused => "refused",
        }
    }
}

/// One cause of a refusal, with the issue it concerns in path mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub issue: Option<String>,
    pub cause: &'static str,
    pub message: String,
    /// What the worker must name or fix.
    pub decide: String,
    /// The plan key the fault sits at (`critiques[0].findings[1]`), when
    /// it is a fault of the plan rather than of the naming.
    pub key: Option<String>,
}

/// The judgement, before pins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judgement {
    pub standing: Standing,
    pub named: Naming,
    /// The issues the work serves (named, or covering the paths).
    pub issues: Vec<String>,
    /// The intents reached.
    pub intents: Vec<String>,
    pub notes: Vec<String>,
    pub refusals: Vec<Refusal>,
    /// The named exemption class's description, as the policy declares
    /// it; `None` when nothing is exempt or the class is not declared.
    pub exemption_description: Option<String>,
}

fn refusal(issue: Option<&str>, cause: &'static str, message: String, decide: &str) -> Refusal {
    Refusal {
        issue: issue.map(str::to_string),
        cause,
        message,
        decide: decide.to_string(),
        key: None,
    }
}

/// Judge a naming against the plan and the policy's exemption classes.
pub fn judge(plan: &Plan, policy: &Policy, naming: &Naming) -> Judgement {
    let mut j = Judgement {
        standing: Standing::Refused,
        named: naming.clone(),
        issues: vec![],
        intents: vec![],
        notes: vec![],
        refusals: vec![],
        exemption_description: None,
    };
    if !naming.asks() {
        j.refusals.push(refusal(
            None,
            "nothing_named",
            "the task names no issue, intent or exemption".into(),
            "name the work: --issue ID (or --intent ID, or --exempt CLASS --because REASON)",
        ));
        return j;
    }
    if let Some(class) = &naming.exempt {
        // An exemption is judged alone, and all its faults are reported together.
        j.exemption_description = policy.exemption(class).map(|e| e.description.clone());
        if policy.exemptions.iter().all(|e| &e.id != class) {
            let declared: Vec<&str> = policy.exemptions.iter().map(|e| e.id.as_str()).collect();
            j.refusals.push(refusal(
                None,
                "unknown_exemption",
                format!(
                    "exemption class `{class}` is not declared in the policy (declared: {})",
                    if declared.is_empty() {
                        "none".into()
                    } else {
                        declared.join(", ")
                    }
                ),
                "use a declared class, or declare it under `exemptions` in .gate/policy.yaml",
            ));
        }
        if naming
            .because
            .as_deref()
            .is_none_or(|b| b.trim().is_empty())
        {
            j.refusals.push(refusal(
                None,
                "exemption_without_reason",
                "the exemption gives no reason (--because is missing or blank)".into(),
                "say why the work serves no intent: --because \"…\"",
            ));
        }
        if naming.issue.is_some() || naming.intent.is_some() || !naming.paths.is_empty() {
            j.refusals.push(refusal(
                None,
                "exemption_names_work",
                "an exemption cannot be granted beside a named issue, intent or paths".into(),
                "name the work, or claim the exemption alone",
            ));
        }
        j.standing = if j.refusals.is_empty() {
            Standing::Exempt
        } else {
            Standing::Refused
        };
        return j;
    }
    if let Some(id) = &naming.issue {
        judge_issue_named(plan, naming, id, &mut j);
    } else if let Some(id) = &naming.intent {
        judge_intent_named(plan, id, &mut j);
    } else {
        judge_paths(plan, &naming.paths, &mut j);
    }
    j
}

fn judge_issue_named(plan: &Plan, naming: &Naming, id: &str, j: &mut Judgement) {
    let Some(issue) = plan.issue(id) else {
        j.refusals.push(refusal(
            Some(id),
            "unknown_issue",
            format!("the plan has no issue `{id}`"),
            "name an issue of .gate/plan.yaml (`gate plan validate` lists them), or add it",
        ));
        if let Some(intent) = &naming.intent {
            intent_name_faults(plan, intent, j);
        }
        return;
    };
    j.issues.push(issue.id.clone());
    if issue.status == IssueStatus::Closed {
        j.notes.push(format!("issue {id} is closed"));
    }
    if let Some(named) = &naming.intent
        && issue.intent.as_deref() != Some(named.as_str())
    {
        j.refusals.push(refusal(
            Some(id),
            "issue_outside_intent",
            format!(
                "issue {id} serves {}, not intent {named}",
                issue
                    .intent
                    .as_deref()
                    .map_or("no intent".to_string(), |i| format!("intent {i}"))
            ),
            "name the issue's own intent, or only the issue",
        ));
        intent_name_faults(plan, named, j);
    }
    if !naming.paths.is_empty() {
        match Scope::new(&issue.paths, "-") {
            Ok(scope) => {
                let outside: Vec<&str> = naming
                    .paths
                    .iter()
                    .filter(|p| !scope.contains(&RepoPath::from(p.as_str())))
                    .map(String::as_str)
                    .collect();
                if !outside.is_empty() {
                    j.notes.push(format!(
                        "outside issue {id}'s paths: {}",
                        outside.join(", ")
                    ));
                }
            }
            Err(m) => j
                .notes
                .push(format!("issue {id}'s paths do not compile: {m}")),
        }
    }
    match &issue.intent {
        None => {
            if j.refusals.is_empty() {
                j.standing = Standing::Maintenance;
            }
        }
        Some(intent) => {
            j.intents.push(intent.clone());
            preflight_issue(plan, issue, &mut j.refusals);
            if j.refusals.is_empty() {
                j.standing = Standing::Bound;
            }
        }
    }
}

/// Faults of an intent named by name: unknown or retired.
fn intent_name_faults(plan: &Plan, id: &str, j: &mut Judgement) -> Option<()> {
    let Some(intent) = plan.intent(id) else {
        j.refusals.push(refusal(
            None,
            "unknown_intent",
            format!("the plan has no intent `{id}`"),
            "name an intent of .gate/plan.yaml",
        ));
        return None;
    };
    if intent.status == IntentStatus::Retired {
        j.refusals.push(refusal(
            None,
            "intent_retired",
            format!("intent {id} is retired"),
            "name an active intent",
        ));
    }
    Some(())
}

fn judge_intent_named(plan: &Plan, id: &str, j: &mut Judgement) {
    if intent_name_faults(plan, id, j).is_none() {
        return;
    }
    j.intents.push(id.to_string());
    let open: Vec<&Issue> = plan
        .issues
        .iter()
        .filter(|i| i.intent.as_deref() == Some(id) && i.status == IssueStatus::Open)
        .collect();
    if open.is_empty() {
        j.refusals.push(refusal(
            None,
            "intent_has_no_open_work",
            format!("no open issue serves intent {id}"),
            "open an issue under the intent in .gate/plan.yaml, or name another",
        ));
    }
    j.issues.extend(open.iter().map(|i| i.id.clone()));
    if let Some(intent) = plan.intent(id) {
        preflight_intent(plan, intent, None, &mut j.refusals);
    }
    if j.refusals.is_empty() {
        j.standing = Standing::Bound;
    }
}

fn judge_paths(plan: &Plan, paths: &[String], j: &mut Judgement) {
    let open: Vec<(&Issue, Option<Scope>)> = plan
        .issues
        .iter()
        .filter(|i| i.status == IssueStatus::Open)
        .map(|i| (i, Scope::new(&i.paths, "-").ok()))
        .collect();
    let mut uncovered = Vec::new();
    let mut covering: Vec<&Issue> = Vec::new();
    for p in paths {
        let path = RepoPath::from(p.as_str());
        let mut any = false;
        for (issue, scope) in &open {
            if scope.as_ref().is_some_and(|s| s.contains(&path)) {
                any = true;
                if !covering.iter().any(|c| c.id == issue.id) {
                    covering.push(issue);
                }
            }
        }
        if !any {
            uncovered.push(p.as_str());
        }
    }
    if !uncovered.is_empty() {
        j.refusals.push(refusal(
            None,
            "no_issue_covers_paths",
            format!("no open issue's paths cover {}", uncovered.join(", ")),
            "name the issue with --issue ID, or add the paths to an issue in .gate/plan.yaml",
        ));
    }
    let intents: BTreeSet<&str> = covering
        .iter()
        .filter_map(|i| i.intent.as_deref())
        .collect();
    j.issues = covering.iter().map(|i| i.id.clone()).collect();
    j.intents = intents.iter().map(|s| s.to_string()).collect();
    if intents.len() > 1 {
        j.refusals.push(refusal(
            None,
            "ambiguous_intent",
            format!(
                "these paths reach {} intents ({}) through issues {}",
                intents.len(),
                j.intents.join(", "),
                j.issues.join(", ")
            ),
            "name the issue with --issue ID",
        ));
    }
    // Every covering issue is judged; the worst verdict wins. The faults of
    // an intent (its critique) are its own: reported once, not per issue.
    for issue in &covering {
        preflight_issue_serves(plan, issue, &mut j.refusals);
    }
    for id in &intents {
        if let Some(intent) = plan.intent(id) {
            preflight_intent(plan, intent, None, &mut j.refusals);
        }
    }
    if j.refusals.is_empty() {
        j.standing = if intents.is_empty() {
            Standing::Maintenance
        } else {
            Standing::Bound
        };
    }
}

/// The preflight of an issue under an intent: what it serves, and its intent's critique.
fn preflight_issue(plan: &Plan, issue: &Issue, out: &mut Vec<Refusal>) {
    if let Some(intent) = preflight_issue_serves(plan, issue, out) {
        preflight_intent(plan, intent, Some(&issue.id), out);
    }
}

/// What an issue under an intent serves: its intent exists and is active,
/// and it serves criteria of that intent (the plan's own finding,
/// [`Plan::serves_faults`]). The intent, when it exists.
fn preflight_issue_serves<'p>(
    plan: &'p Plan,
    issue: &Issue,
    out: &mut Vec<Refusal>,
) -> Option<&'p Intent> {
    let id = issue.id.as_str();
    let intent_id = issue.intent.as_deref()?;
    let intent = plan.intent(intent_id);
    if intent.is_some_and(|i| i.status == IntentStatus::Retired) {
        out.push(refusal(
            Some(id),
            "intent_retired",
            format!("issue {id} serves intent {intent_id}, which is retired"),
            "close the issue, or move it to an active intent",
        ));
    }
    for fault in plan.serves_faults(issue) {
        // The plan's own fault, which `gate plan validate` reports.
        if fault != ServesFault::WithoutIntent {
            out.push(refusal(
                Some(id),
                fault.cause(),
                fault.message(id),
                fault.remedy(),
            ));
        }
    }
    intent
}

/// The critique of an intent: present, no open blocking finding, not stale.
fn preflight_intent(plan: &Plan, intent: &Intent, issue: Option<&str>, out: &mut Vec<Refusal>) {
    let id = intent.id.as_str();
    let critiques: Vec<(usize, &crate::plan::Critique)> = plan
        .critiques
        .iter()
        .enumerate()
        .filter(|(_, c)| c.intent == id)
        .collect();
    if critiques.is_empty() {
        let at = plan.intents.iter().position(|i| i.id == id);
        out.push(Refusal {
            key: at.map(|n| format!("intents[{n}]")),
            ..refusal(
                issue,
                "intent_not_critiqued",
                format!("intent {id} has no critique: its plan was never reviewed"),
                &format!(
                    "review the intent and record a critique with its intent_revision ({}): `gate plan critique {id}` prints the entry",
                    intent_revision(plan, id)
                ),
            )
        });
        return;
    }
    for (n, c) in &critiques {
        for (k, f) in c.findings.iter().enumerate() {
            if f.blocking && f.is_open(plan) {
                out.push(Refusal {
                    key: Some(format!("critiques[{n}].findings[{k}]")),
                    ..refusal(
                        issue,
                        "open_blocking_finding",
                        format!("intent {id}: blocking finding {} is open: {}", f.id, f.text),
                        "resolve the finding (record its `resolution`) before work starts",
                    )
                });
            }
        }
    }
    // A critique that records no revision is judged by its presence alone:
    // there is nothing to compare. Stale when no critique reviewed the
    // current revision and at least one recorded what it reviewed.
    let current = intent_revision(plan, id);
    let recorded: Vec<(usize, &str, &str)> = critiques
        .iter()
        .filter_map(|(n, c)| c.revision().map(|r| (*n, r, c.revision_key())))
        .collect();
    let some_current = critiques
        .iter()
        .any(|(_, c)| c.revision().is_none_or(|r| r == current));
    if let (false, Some(&(n, last, key))) = (some_current, recorded.last()) {
        out.push(Refusal {
            key: Some(format!("critiques[{n}].{key}")),
            ..refusal(
                issue,
                "critique_stale",
                format!(
                    "intent {id} changed since its critique reviewed it (reviewed {}, now {})",
                    short(last),
                    short(&current)
                ),
                &format!(
                    "review the intent again and record a critique with intent_revision {current} (`gate plan critique {id}` prints the entry)"
                ),
            )
        });
    }
}

/// The first 12 digits of a hex digest or object id, as people are shown them.
pub fn short(hex: &str) -> &str {
    &hex[..hex.len().min(12)]
}

/// The intent revision of `id`: the digest a critique records as
/// `intent_revision` — [`plan_revision`] of the intent without its
/// critiques, so recording a critique does not move it (docs/plan.md).
pub fn intent_revision(plan: &Plan, id: &str) -> String {
    plan_revision(plan, &[id], false)
}

/// `plan_revision` of `intents` (docs/binding.md): SHA-256 over a canonical
/// encoding of each intent's statement, invariants, non-goals, criteria
/// (with their checks' contract digests), the issues that serve it with what
/// each serves, and — when `with_critiques` — each critique's findings and
/// resolutions. Lists whose order means nothing are sorted, and JSON keys are
/// sorted, so reordering never moves it; any content edit does.
pub fn plan_revision(plan: &Plan, intents: &[&str], with_critiques: bool) -> String {
    let mut ids: Vec<&str> = intents.to_vec();
    ids.sort_unstable();
    ids.dedup();
    let encoded: Vec<Value> = ids
        .iter()
        .map(|id| intent_value(plan, id, with_critiques))
        .collect();
    digest::sha256_hex(
        digest::canonical_json(&json!({ "gate.plan_revision": 1, "intents": encoded })).as_bytes(),
    )
}

fn sorted(list: &[String]) -> Vec<String> {
    let mut v = list.to_vec();
    v.sort();
    v
}

fn intent_value(plan: &Plan, id: &str, with_critiques: bool) -> Value {
    let Some(intent) = plan.intent(id) else {
        return json!({ "id": id, "missing": true });
    };
    let mut criteria: Vec<Value> = intent
        .criteria
        .iter()
        .map(|c| {
            let mut evidence: Vec<Value> = c
                .evidence
                .iter()
                .map(|e| json!({ "check": e, "contract": plan.acceptance_check(e).map(|a| a.contract_digest()) }))
                .collect();
            evidence.sort_by_key(|v| v["check"].as_str().unwrap_or_default().to_string());
            json!({ "id": c.id, "criterion": c.criterion, "evidence": evidence })
        })
        .collect();
    criteria.sort_by_key(|v| v["id"].as_str().unwrap_or_default().to_string());
    let mut issues: Vec<Value> = plan
        .issues
        .iter()
        .filter(|i| i.intent.as_deref() == Some(id))
        .map(|i| json!({ "id": i.id, "serves": sorted(&i.serves) }))
        .collect();
    issues.sort_by_key(|v| v["id"].as_str().unwrap_or_default().to_string());
    let mut value = json!({
        "id": id,
        "statement": intent.statement,
        "status": match intent.status { IntentStatus::Active => "active", IntentStatus::Retired => "retired" },
        "invariants": sorted(&intent.invariants),
        "non_goals": sorted(&intent.non_goals),
        "criteria": criteria,
        "issues": issues,
    });
    if with_critiques {
        let mut critiques: Vec<Value> = plan
            .critiques
            .iter()
            .filter(|c| c.intent == id)
            .map(|c| {
                let mut findings: Vec<Value> = c
                    .findings
                    .iter()
                    .map(|f| json!({ "id": f.id, "blocking": f.blocking, "text": f.text, "resolution": f.resolution }))
                    .collect();
                findings.sort_by_key(|v| v["id"].as_str().unwrap_or_default().to_string());
                // Under the key it always had, so renaming the critique's
                // key in the plan does not move the pin.
                json!({ "reviewed_at": c.reviewed_at, "plan_revision": c.revision(), "findings": findings })
            })
            .collect();
        critiques.sort_by_key(digest::canonical_json);
        value["critiques"] = Value::Array(critiques);
    }
    value
}

/// `evidence_standing` (docs/binding.md): SHA-256 over the sorted lines
/// `intent#criterion=state`.
pub fn evidence_standing(served: &[Served], states: &[&str]) -> String {
    let mut lines: Vec<String> = served
        .iter()
        .zip(states)
        .map(|(s, state)| format!("{}#{}={state}\n", s.intent, s.criterion))
        .collect();
    lines.sort();
    lines.dedup();
    digest::sha256_hex(lines.concat().as_bytes())
}

/// The pins of a judgement: empty unless exactly the judged intents are
/// reached and the work is not refused.
pub fn pins(plan: &Plan, j: &Judgement, served: &[Served], states: &[&str]) -> Pins {
    if j.intents.is_empty() || j.standing == Standing::Refused && j.intents.len() != 1 {
        return Pins::default();
    }
    let ids: Vec<&str> = j.intents.iter().map(String::as_str).collect();
    Pins {
        plan_revision: plan_revision(plan, &ids, true),
        evidence_standing: evidence_standing(served, states),
    }
}

/// The criteria a judgement serves: the named issue's (or, in path mode, the
/// covering issues'), else every criterion of the named intent.
pub fn judged_criteria(plan: &Plan, j: &Judgement) -> Vec<Served> {
    let mut out: Vec<Served> = Vec::new();
    if j.named.issue.is_none() && j.named.intent.is_some() {
        return crate::receipts::criteria_served(plan, None, j.named.intent.as_deref());
    }
    for issue in &j.issues {
        for s in crate::receipts::criteria_served(plan, Some(issue), None) {
            if !out
                .iter()
                .any(|o| o.intent == s.intent && o.criterion == s.criterion)
            {
                out.push(s);
            }
        }
    }
    out
}

/// Faults of the plan the binding would trip on, intent by intent, for
/// `gate plan validate`: uncritiqued intents, open blocking findings, stale
/// critiques (issue-level serve faults come from the plan's reference check).
pub fn plan_faults(plan: &Plan) -> Vec<Refusal> {
    let mut out = Vec::new();
    for intent in plan
        .intents
        .iter()
        .filter(|i| i.status == IntentStatus::Active)
    {
        preflight_intent(plan, intent, None, &mut out);
    }
    out
}

/// Pairs of open issues under different intents whose paths may overlap: a
/// path-only start there is `ambiguous_intent`. Conservative: two globs
/// overlap when a sample path of one matches the other.
pub fn overlapping_issues(plan: &Plan) -> Vec<(String, String, String)> {
    // Each open issue's scope compiled once, not once per pair.
    let open: Vec<(&Issue, Scope)> = plan
        .issues
        .iter()
        .filter(|i| i.status == IssueStatus::Open && i.intent.is_some())
        .filter_map(|i| Some((i, Scope::new(&i.paths, "-").ok()?)))
        .collect();
    let mut out = Vec::new();
    for (n, (a, sa)) in open.iter().enumerate() {
        for (b, sb) in &open[n + 1..] {
            if a.intent == b.intent {
                continue;
            }
            // A path both match: a sample of one glob that the other
            // matches, trying too each glob with its `**` filled by a
            // sample of the other side (`docs/**` and `**/*.md` meet at
            // `docs/x/x.md`).
            let hit = meet(&a.paths, &b.paths, sb).or_else(|| meet(&b.paths, &a.paths, sa));
            if let Some(glob) = hit {
                out.push((a.id.clone(), b.id.clone(), glob.clone()));
            }
        }
    }
    out
}

/// The first of `mine` with a sample that `scope` (the other side,
/// `theirs`) contains.
fn meet<'g>(mine: &'g [String], theirs: &[String], scope: &Scope) -> Option<&'g String> {
    mine.iter().find(|p| {
        samples(p, theirs)
            .iter()
            .any(|s| scope.contains(&RepoPath::from(s.as_str())))
    })
}

/// Concrete paths `glob` matches: its own [`sample`], and, where it has a
/// `**`, that `**` filled with the sample of each of `others`.
fn samples(glob: &str, others: &[String]) -> Vec<String> {
    let mut out = vec![sample(glob)];
    if glob.contains("**") {
        for other in others {
            out.push(sample(&glob.replacen("**", &sample(other), 1)));
        }
    }
    out
}

/// A concrete path a glob matches: wildcards become `x`, alternatives their
/// first branch, classes their first member.
fn sample(glob: &str) -> String {
    let mut out = String::new();
    let mut chars = glob.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' | '?' => {
                while chars.peek() == Some(&'*') {
                    chars.next();
                }
                out.push('x');
            }
            '{' => {
                let mut first = true;
                for d in chars.by_ref() {
                    match d {
                        '}' => break,
                        ',' => first = false,
                        d if first => out.push(d),
                        _ => {}
                    }
                }
            }
            '[' => {
                let mut taken = false;
                for d in chars.by_ref() {
                    match d {
                        ']' => break,
                        '!' | '^' if !taken => {}
                        d if !taken => {
                            out.push(d);
                            taken = true;
                        }
                        _ => {}
                    }
                }
            }
            '\\' => {
                if let Some(d) = chars.next() {
                    out.push(d);
                }
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(text: &str) -> Plan {
        crate::plan::parse(std::path::Path::new("plan.yaml"), text).unwrap()
    }

    /// `overlapping_issue_paths` (`gate plan validate`): open issues under
    /// different intents whose globs meet, found through a sample path.
    #[test]
    fn open_issues_of_different_intents_whose_paths_meet_overlap() {
        let intents = "intents:\n  - id: I-a\n    statement: A.\n    status: active\n  - id: I-b\n    statement: B.\n    status: active\n";
        let issue = |id: &str, intent: &str, paths: &str, status: &str| {
            format!(
                "  - id: {id}\n    title: t\n    intent: {intent}\n    paths: {paths}\n    status: {status}\n"
            )
        };
        let overlaps = |issues: &[String]| {
            overlapping_issues(&plan(&format!("{intents}issues:\n{}", issues.concat())))
        };
        assert_eq!(
            overlaps(&[
                issue("a", "I-a", "[docs/**]", "open"),
                issue("b", "I-b", "[\"**/*.md\"]", "open"),
            ]),
            [("a".to_string(), "b".to_string(), "docs/**".to_string())]
        );
        // Apart, under one intent, or closed: no overlap.
        assert!(
            overlaps(&[
                issue("a", "I-a", "[docs/**]", "open"),
                issue("b", "I-b", "[src/**]", "open")
            ])
            .is_empty()
        );
        assert!(
            overlaps(&[
                issue("a", "I-a", "[docs/**]", "open"),
                issue("b", "I-a", "[docs/**]", "open")
            ])
            .is_empty()
        );
        assert!(
            overlaps(&[
                issue("a", "I-a", "[docs/**]", "open"),
                issue("b", "I-b", "[docs/**]", "closed")
            ])
            .is_empty()
        );
    }

    const BASE: &str = r#"intents:
  - id: I-a
    statement: A.
    status: active
    invariants: [one, two]
    non_goals: [x, y]
    criteria:
      - id: C1
        criterion: first
        evidence: [t1, t2]
      - id: C2
        criterion: second
checks:
  - id: t1
    command: "true"
    sources: [src]
  - id: t2
    command: "false"
    sources: [src]
issues:
  - id: "1"
    title: one
    intent: I-a
    serves: [C1, C2]
    paths: ["src/**"]
    status: open
critiques:
  - intent: I-a
    reviewed_at: 2026-11-20
    findings:
      - id: F1
        blocking: true
        text: t
        resolution: r
"#;

    /// A plan with an intent of each kind the judgement tells apart.
    const KINDS: &str = r#"intents:
  - id: I-a
    statement: Reviewed, nothing open.
    status: active
    criteria:
      - id: Ca
        criterion: a
  - id: I-b
    statement: Retired.
    status: retired
    criteria:
      - id: Cb
        criterion: b
  - id: I-c
    statement: Never reviewed.
    status: active
    criteria:
      - id: Cc
        criterion: c
  - id: I-d
    statement: A blocking finding open.
    status: active
    criteria:
      - id: Cd
        criterion: d
  - id: I-e
    statement: No open work.
    status: active
    criteria:
      - id: Ce
        criterion: e
  - id: I-f
    statement: Reviewed at another revision.
    status: active
    criteria:
      - id: Cf
        criterion: f
issues:
  - {id: "1", title: a, intent: I-a, serves: [Ca], paths: ["src/**"], status: open}
  - {id: "2", title: b, intent: I-b, serves: [Cb], paths: ["old/**"], status: open}
  - {id: "3", title: c, intent: I-c, serves: [Cc], paths: ["src/c/**"], status: open}
  - {id: "4", title: d, intent: I-d, serves: [Cd], paths: ["d/**"], status: open}
  - {id: "5", title: e, intent: I-e, serves: [Ce], paths: ["e/**"], status: closed}
  - {id: "6", title: f, intent: I-f, serves: [Cf], paths: ["f/**"], status: open}
  - {id: "9", title: upkeep, paths: ["docs/**"], status: open}
critiques:
  - intent: I-a
    reviewed_at: 2026-11-20
    findings: []
  - intent: I-b
    reviewed_at: 2026-11-20
    findings: []
  - intent: I-d
    reviewed_at: 2026-11-20
    findings:
      - {id: F1, blocking: true, text: the data model is wrong}
  - intent: I-e
    reviewed_at: 2026-11-20
    findings: []
  - intent: I-f
    reviewed_at: 2026-11-20
    intent_revision: "0000000000000000000000000000000000000000000000000000000000000000"
    findings: []
"#;

    fn policy() -> Policy {
        crate::policy::parse(
            std::path::Path::new("policy.yaml"),
            crate::policy::DEFAULT_POLICY_YAML,
        )
        .unwrap()
    }

    fn named(issue: Option<&str>, intent: Option<&str>, paths: &[&str]) -> Naming {
        Naming {
            issue: issue.map(str::to_string),
            intent: intent.map(str::to_string),
            paths: paths.iter().map(|p| p.to_string()).collect(),
            ..Naming::default()
        }
    }

    /// The standing and the causes of judging `naming` against [`KINDS`].
    fn judged(naming: &Naming) -> (Standing, Vec<&'static str>) {
        let j = judge(&plan(KINDS), &policy(), naming);
        (j.standing, j.refusals.iter().map(|r| r.cause).collect())
    }

    #[test]
    fn work_under_a_reviewed_intent_is_bound_and_upkeep_is_maintenance() {
        assert_eq!(
            judged(&named(Some("1"), None, &[])),
            (Standing::Bound, vec![])
        );
        assert_eq!(
            judged(&named(None, Some("I-a"), &[])),
            (Standing::Bound, vec![])
        );
        assert_eq!(
            judged(&named(Some("9"), None, &[])),
            (Standing::Maintenance, vec![])
        );
        assert_eq!(
            judged(&named(None, None, &["docs/a.md"])),
            (Standing::Maintenance, vec![])
        );
        assert_eq!(
            judged(&named(None, None, &["src/a.rs"])),
            (Standing::Bound, vec![])
        );
    }

    #[test]
    fn naming_nothing_is_refused() {
        assert_eq!(
            judged(&Naming::default()),
            (Standing::Refused, vec!["nothing_named"])
        );
    }

    #[test]
    fn an_exemption_is_judged_alone_with_all_its_faults() {
        let exempt = |class: &str, because: Option<&str>, issue: Option<&str>| Naming {
            exempt: Some(class.into()),
            because: because.map(str::to_string),
            issue: issue.map(str::to_string),
            ..Naming::default()
        };
        assert_eq!(
            judged(&exempt("governance", Some("the policy changes"), None)),
            (Standing::Exempt, vec![])
        );
        assert_eq!(
            judged(&exempt("holiday", Some("  "), Some("1"))),
            (
                Standing::Refused,
                vec![
                    "unknown_exemption",
                    "exemption_without_reason",
                    "exemption_names_work"
                ]
            )
        );
    }

    #[test]
    fn a_named_issue_or_intent_that_is_not_there_or_not_open_is_refused() {
        let refused = |naming: Naming| {
            let (standing, causes) = judged(&naming);
            assert_eq!(standing, Standing::Refused, "{naming:?}");
            causes
        };
        assert_eq!(refused(named(Some("404"), None, &[])), ["unknown_issue"]);
        assert_eq!(refused(named(None, Some("I-zz"), &[])), ["unknown_intent"]);
        assert_eq!(refused(named(None, Some("I-b"), &[])), ["intent_retired"]);
        // An issue under a retired intent is refused as such too.
        assert_eq!(refused(named(Some("2"), None, &[])), ["intent_retired"]);
        assert_eq!(
            refused(named(Some("1"), Some("I-c"), &[])),
            ["issue_outside_intent"]
        );
        assert_eq!(
            refused(named(None, Some("I-e"), &[])),
            ["intent_has_no_open_work"]
        );
    }

    #[test]
    fn an_intent_whose_review_does_not_stand_refuses_its_work() {
        let (_, causes) = judged(&named(Some("3"), None, &[]));
        assert_eq!(causes, ["intent_not_critiqued"]);
        let (_, causes) = judged(&named(Some("4"), None, &[]));
        assert_eq!(causes, ["open_blocking_finding"]);
        let (_, causes) = judged(&named(Some("6"), None, &[]));
        assert_eq!(causes, ["critique_stale"]);
        let j = judge(&plan(KINDS), &policy(), &named(Some("6"), None, &[]));
        assert_eq!(
            j.refusals[0].key.as_deref(),
            Some("critiques[4].intent_revision")
        );
    }

    #[test]
    fn paths_are_judged_by_the_open_issues_that_cover_them() {
        let (standing, causes) = judged(&named(None, None, &["elsewhere/x"]));
        assert_eq!(
            (standing, causes),
            (Standing::Refused, vec!["no_issue_covers_paths"])
        );
        // src/c/ is under issue 1 (I-a) and issue 3 (I-c): two intents.
        let j = judge(&plan(KINDS), &policy(), &named(None, None, &["src/c/x.rs"]));
        let causes: Vec<&str> = j.refusals.iter().map(|r| r.cause).collect();
        assert_eq!(causes, ["ambiguous_intent", "intent_not_critiqued"]);
        assert_eq!(j.intents, ["I-a", "I-c"]);
        // A closed issue covers nothing.
        assert_eq!(
            judged(&named(None, None, &["e/x"])).1,
            ["no_issue_covers_paths"]
        );
    }

    #[test]
    fn revision_ignores_order_and_key_order() {
        let a = plan(BASE);
        let reordered = BASE
            .replace("invariants: [one, two]", "invariants: [two, one]")
            .replace("evidence: [t1, t2]", "evidence: [t2, t1]")
            .replace("serves: [C1, C2]", "serves: [C2, C1]")
            .replace(
                "    statement: A.\n    status: active\n",
                "    status: active\n    statement: A.\n",
            );
        let b = plan(&reordered);
        assert_eq!(
            plan_revision(&a, &["I-a"], true),
            plan_revision(&b, &["I-a"], true)
        );
    }

    #[test]
    fn revision_moves_with_content() {
        let a = plan(BASE);
        for edit in [
            ("statement: A.", "statement: A!"),
            ("invariants: [one, two]", "invariants: [one, three]"),
            ("non_goals: [x, y]", "non_goals: [x]"),
            ("criterion: first", "criterion: First"),
            ("command: \"false\"", "command: \"exit 1\""),
            ("serves: [C1, C2]", "serves: [C1]"),
            ("resolution: r", "resolution: r2"),
        ] {
            let b = plan(&BASE.replace(edit.0, edit.1));
            assert_ne!(
                plan_revision(&a, &["I-a"], true),
                plan_revision(&b, &["I-a"], true),
                "{edit:?}"
            );
        }
        // Critiques do not enter the revision a critique compares with.
        let b = plan(&BASE.replace("resolution: r", "resolution: r2"));
        assert_eq!(
            plan_revision(&a, &["I-a"], false),
            plan_revision(&b, &["I-a"], false)
        );
    }

    #[test]
    fn evidence_standing_is_order_independent_and_moves_with_states() {
        let s = |i: &str, c: &str| Served {
            intent: i.into(),
            criterion: c.into(),
            text: String::new(),
            evidence: vec![],
        };
        let a = evidence_standing(&[s("I", "C1"), s("I", "C2")], &["passed", "missing"]);
        let b = evidence_standing(&[s("I", "C2"), s("I", "C1")], &["missing", "passed"]);
        assert_eq!(a, b);
        let c = evidence_standing(&[s("I", "C1"), s("I", "C2")], &["stale", "missing"]);
        assert_ne!(a, c);
    }

    #[test]
    fn samples_match_their_globs() {
        for g in [
            "src/**",
            "src/*.rs",
            "a/{b,c}/d",
            "x/[abc].md",
            "docs/export.md",
            "**/*.md",
        ] {
            let s = Scope::new(&[g.to_string()], "-").unwrap();
            assert!(
                s.contains(&RepoPath::from(sample(g).as_str())),
                "{g} -> {}",
                sample(g)
            );
        }
    }
}
