//! A team's day (issue 28): two clones of one bare remote, Ada and Bob, each
//! with gate's hooks installed and an SSH signing key listed in the signers
//! file main holds. Every step is what a user would type (run with `sh -e`,
//! `gate` on PATH), and no step skips a hook, except where a scenario is
//! about a skipped hook. After each push, CI's recipe (`ci/github.sh check`,
//! as `action.yml` runs it) judges the pull request on a fresh clone in the
//! layout `actions/checkout` makes — every branch as `refs/remotes/origin/*`,
//! no local branch, HEAD detached — and the scenario asserts that pre-push
//! and CI agree.
//!
//! Each scenario runs under the embedded default policy and under one with
//! every check `required`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::support::git_env;

/// Every check `required` (merges inspected, the main line as upstream).
const ALL_REQUIRED: &str = "version: 1\nbinding: required\nexemptions:\n  - id: governance\n    description: Changes to gate's rules\nscope: required\nprovenance:\n  mode: required\n  merges: inspect\n  upstream: refs/heads/main\nreceipts:\n  mode: required\n  signers: .gate/allowed_signers\nbrief:\n  mode: required\n";

/// Two issues with their own paths and checks: Ada's export (17), Bob's
/// import (20).
const PLAN: &str = r#"intents:
  - id: I-data
    statement: Users move their invoices in and out as CSV.
    status: active
    criteria:
      - id: C1
        criterion: Every invoice field is exported.
        evidence: [export-tests]
      - id: C2
        criterion: Every exported file imports again.
        evidence: [import-tests]
checks:
  - id: export-tests
    command: grep -q amount src/export/columns.csv
    sources: [src/export]
    purpose: CSV export
  - id: import-tests
    command: grep -q amount src/import/columns.csv
    sources: [src/import]
    purpose: CSV import
issues:
  - id: "17"
    title: CSV export
    intent: I-data
    serves: [C1]
    paths: ["src/export/**"]
    status: open
  - id: "20"
    title: CSV import
    intent: I-data
    serves: [C2]
    paths: ["src/import/**"]
    status: open
critiques:
  - intent: I-data
    reviewed_at: 2026-11-20
    findings: []
"#;

pub struct Team {
    _tmp: tempfile::TempDir,
    base: PathBuf,
    ci_runs: std::cell::Cell<u32>,
}

/// What a door decided: its exit code, and what it printed.
pub struct Verdict {
    pub code: Option<i32>,
    pub said: String,
}

impl Verdict {
    fn of(out: &Output) -> Verdict {
        Verdict {
            code: out.status.code(),
            said: format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ),
        }
    }

    pub fn passed(&self) -> bool {
        self.code == Some(0)
    }
}

impl std::fmt::Debug for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "exit {:?}\n{}", self.code, self.said)
    }
}

impl Team {
    /// origin with `main` holding gate's setup (`policy`, else `gate
    /// init`'s default, both signers), Ada's clone (who set it up) and
    /// Bob's, each with `gate install` run.
    pub fn new(policy: Option<&str>) -> Team {
        Team::with_server(policy, false)
    }

    /// [`new`](Self::new), and with `server_hook` origin runs the `update`
    /// hook of docs/ci.md, installed once the setup landed.
    pub fn with_server(policy: Option<&str>, server_hook: bool) -> Team {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().canonicalize().unwrap();
        let team = Team {
            _tmp: tmp,
            base,
            ci_runs: std::cell::Cell::new(0),
        };
        std::fs::write(team.base.join("plan.yaml"), PLAN).unwrap();
        if let Some(policy) = policy {
            std::fs::write(team.base.join("policy.yaml"), policy).unwrap();
        }
        for who in ["ada", "bob"] {
            let home = team.home(who);
            std::fs::create_dir_all(home.join(".ssh")).unwrap();
            let keygen = Command::new("ssh-keygen")
                .args(["-q", "-t", "ed25519", "-N", "", "-C", who, "-f"])
                .arg(home.join(".ssh/id_ed25519"))
                .output()
                .expect("ssh-keygen runs (apt-get install openssh-client)");
            assert!(keygen.status.success(), "{:?}", Verdict::of(&keygen));
        }
        team.sh_in(
            &team.base,
            "ada",
            r#"
git init -q --bare -b main origin.git
git init -q -b main ada && cd ada
git config user.name Ada && git config user.email ada@example.com
git config gpg.format ssh && git config user.signingKey "$HOME/.ssh/id_ed25519"
echo '# invoices' > README.md && git add README.md && git commit -q -m initial
git remote add origin ../origin.git && git push -q -u origin main
mkdir -p .gate && cp ../plan.yaml .gate/plan.yaml
if [ -f ../policy.yaml ]; then cp ../policy.yaml .gate/policy.yaml; fi
gate init
printf 'bob@example.com %s\n' "$(cut -d' ' -f1-2 ../home-bob/.ssh/id_ed25519.pub)" >> .gate/allowed_signers
git add .gate && git commit -q -m "Adopt gate" && git push -q
gate install
"#,
        )
        .expect_ok("Ada adopts gate");
        if server_hook {
            let hook = team.origin().join("hooks/update");
            std::fs::write(&hook, crate::provenance::documented_update_hook()).unwrap();
            std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755))
                .unwrap();
        }
        team.sh_in(
            &team.base,
            "bob",
            r#"
git clone -q origin.git bob && cd bob
git config user.name Bob && git config user.email bob@example.com
git config gpg.format ssh && git config user.signingKey "$HOME/.ssh/id_ed25519"
gate install
"#,
        )
        .expect_ok("Bob clones");
        team
    }

    fn home(&self, who: &str) -> PathBuf {
        self.base.join(format!("home-{who}"))
    }

    pub fn dir(&self, who: &str) -> PathBuf {
        self.base.join(who)
    }

    pub fn origin(&self) -> PathBuf {
        self.base.join("origin.git")
    }

    /// `script` run by `who` in their clone.
    pub fn sh(&self, who: &str, script: &str) -> Verdict {
        self.sh_in(&self.dir(who), who, script)
    }

    fn sh_in(&self, dir: &Path, who: &str, script: &str) -> Verdict {
        let gate = PathBuf::from(assert_cmd::cargo::cargo_bin!("gate"));
        let bin = gate.parent().expect("the binary's directory");
        let path = std::env::join_paths(std::iter::once(bin.to_path_buf()).chain(
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
        ))
        .unwrap();
        let out = Command::new("sh")
            .current_dir(dir)
            .env_clear()
            .envs(git_env())
            .env("PATH", path)
            .env("HOME", self.home(who))
            .env("NO_COLOR", "1")
            .args(["-e", "-x", "-c", script])
            .output()
            .expect("run sh");
        Verdict::of(&out)
    }

    /// The commit `rev` names in `who`'s clone.
    pub fn rev(&self, who: &str, rev: &str) -> String {
        let v = self.sh(who, &format!("git rev-parse {rev}"));
        assert!(v.passed(), "{v:?}");
        v.said.lines().find(|l| l.len() == 40).unwrap().to_string()
    }

    /// CI on the pull request of `branch` into main: a fresh workspace as
    /// `actions/checkout` leaves it (fetch-depth 0: every branch as
    /// `refs/remotes/origin/*`, the head detached), then `ci/github.sh
    /// check` with the event GitHub sends.
    pub fn ci(&self, branch: &str) -> (Verdict, Value) {
        let n = self.ci_runs.get() + 1;
        self.ci_runs.set(n);
        let ws = self.base.join(format!("ci-{n}"));
        let runner = self.base.join(format!("runner-{n}"));
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::create_dir_all(&runner).unwrap();
        let origin = self.origin();
        let git = |args: &[&str]| {
            let out = crate::support::git_command(&ws)
                .args(args)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "git {args:?}: {:?}",
                Verdict::of(&out)
            );
            String::from_utf8_lossy(&out.stdout).trim().to_string()
        };
        git(&["init", "-q"]);
        git(&["remote", "add", "origin", origin.to_str().unwrap()]);
        git(&[
            "fetch",
            "-q",
            "--prune",
            "--no-recurse-submodules",
            "origin",
            "+refs/heads/*:refs/remotes/origin/*",
            "+refs/tags/*:refs/tags/*",
        ]);
        let head = git(&["rev-parse", &format!("refs/remotes/origin/{branch}")]);
        let target = git(&["rev-parse", "refs/remotes/origin/main"]);
        git(&["checkout", "-q", "--detach", &head]);
        let event = runner.join("event.json");
        std::fs::write(
            &event,
            serde_json::json!({
                "pull_request": {"head": {"sha": head}, "base": {"sha": target}},
                "repository": {"default_branch": "main"},
            })
            .to_string(),
        )
        .unwrap();
        let gate = PathBuf::from(assert_cmd::cargo::cargo_bin!("gate"));
        let path = format!(
            "{}:{}",
            gate.parent().unwrap().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("ci/github.sh");
        let out = Command::new("sh")
            .arg(&script)
            .arg("check")
            .current_dir(&ws)
            .env_clear()
            .envs(git_env())
            .env("PATH", path)
            .env("HOME", &runner)
            .env("NO_COLOR", "1")
            .env("GITHUB_EVENT_NAME", "pull_request")
            .env("GITHUB_EVENT_PATH", &event)
            .env("GITHUB_WORKSPACE", &ws)
            .env("GITHUB_BASE_REF", "main")
            .env("RUNNER_TEMP", &runner)
            .output()
            .unwrap();
        let verdict = Verdict::of(&out);
        let report = std::fs::read_to_string(runner.join("gate-report.json"))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or(Value::Null);
        (verdict, report)
    }
}

impl Verdict {
    #[track_caller]
    pub fn expect_ok(self, what: &str) -> Verdict {
        assert!(self.passed(), "{what}: {self:?}");
        self
    }
}

/// The findings of a report document, as `check/cause` strings.
fn causes(report: &Value) -> Vec<String> {
    report["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|c| c["findings"].as_array().cloned().unwrap_or_default())
        .map(|f| {
            format!(
                "{}/{}",
                f["check"].as_str().unwrap_or("?"),
                f["cause"].as_str().unwrap_or("?")
            )
        })
        .collect()
}

/// The findings that are more than information.
fn concerns(report: &Value) -> Vec<String> {
    report["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|c| c["findings"].as_array().cloned().unwrap_or_default())
        .filter(|f| f["severity"].as_str() != Some("info"))
        .map(|f| {
            format!(
                "{}/{} {}",
                f["check"].as_str().unwrap_or("?"),
                f["cause"].as_str().unwrap_or("?"),
                f["message"].as_str().unwrap_or("")
            )
        })
        .collect()
}

/// `gate check --json` in `who`'s clone.
fn check_json(team: &Team, who: &str) -> (Verdict, Value) {
    let v = team.sh(who, "gate check --json");
    let start = v.said.find('{').unwrap_or(0);
    let doc = serde_json::Deserializer::from_str(&v.said[start..])
        .into_iter::<Value>()
        .next()
        .and_then(Result::ok)
        .unwrap_or(Value::Null);
    (v, doc)
}

/// Ada's branch `csv`: task for issue 17, one commit, its check verified,
/// pushed with its receipts.
fn ada_works_on_export(team: &Team) {
    team.sh(
        "ada",
        r#"
git switch -q -c csv
gate start --issue 17 --brief - <<'EOF'
Add CSV export.
EOF
mkdir -p src/export && echo "id,date,amount" > src/export/columns.csv
git add -A && git commit -q -m "Export CSV"
gate verify export-tests
git push -q -u origin HEAD
"#,
    )
    .expect_ok("Ada's export, pushed");
}

/// Bob's import work lands on main: his task for issue 20 on branch `imp`,
/// verified and pushed, then main fast-forwarded to it (a merged pull
/// request).
fn bob_lands_import(team: &Team) {
    team.sh(
        "bob",
        r#"
git switch -q -c imp
gate start --issue 20 --brief - <<'EOF'
Add CSV import.
EOF
mkdir -p src/import && echo "id,date,amount" > src/import/columns.csv
git add -A && git commit -q -m "Import CSV"
gate verify import-tests
gate task finish
git commit -q -am "T-20: completed"
git push -q -u origin HEAD
git switch -q main && git merge -q --ff-only imp && git push -q origin main
"#,
    )
    .expect_ok("Bob's import lands on main");
}

#[track_caller]
fn agree(push: &Verdict, ci: &(Verdict, Value)) {
    assert_eq!(
        push.passed(),
        ci.0.passed(),
        "pre-push and CI disagree\npre-push: {push:?}\nCI: {:?}",
        ci.0
    );
}

fn policies() -> [(&'static str, Option<&'static str>); 2] {
    [("default", None), ("all required", Some(ALL_REQUIRED))]
}

#[test]
fn a_rebase_onto_a_teammates_work_proves_only_ones_own_commits() {
    for (name, policy) in policies() {
        let team = Team::new(policy);
        ada_works_on_export(&team);
        bob_lands_import(&team);
        let bobs = team.rev("bob", "main");
        team.sh("ada", "git fetch -q origin && git rebase -q origin/main")
            .expect_ok("rebase");
        let (check, doc) = check_json(&team, "ada");
        assert!(
            check.passed(),
            "{name}: gate check after the rebase: {check:?}"
        );
        assert!(
            concerns(&doc).is_empty(),
            "{name}: a teammate's commit is not the task's work: {check:?}"
        );
        assert!(!check.said.contains(&bobs[..12]), "{name}: {check:?}");
        let push = team.sh("ada", "git push -q --force-with-lease origin HEAD");
        assert!(
            push.passed(),
            "{name}: the force push after a rebase: {push:?}"
        );
        assert!(
            push.said
                .contains("1 commit in HEAD → origin refs/heads/csv"),
            "{name}: only Ada's rebased commit is new: {push:?}"
        );
        let ci = team.ci("csv");
        agree(&push, &ci);
        assert!(concerns(&ci.1).is_empty(), "{name}: {:?}", ci.0);
        let _ = causes(&ci.1);
    }
}

/// Every scenario with and without the server's `update` hook.
fn teams() -> Vec<(String, Team)> {
    let mut out = Vec::new();
    for (name, policy) in policies() {
        for server in [false, true] {
            let label = match server {
                true => format!("{name}, update hook on origin"),
                false => name.to_string(),
            };
            out.push((label, Team::with_server(policy, server)));
        }
    }
    out
}

#[test]
fn a_merge_of_main_proves_the_merge_and_ones_own_commits_only() {
    for (name, team) in teams() {
        ada_works_on_export(&team);
        bob_lands_import(&team);
        team.sh(
            "ada",
            "git fetch -q origin && git merge -q --no-edit origin/main",
        )
        .expect_ok("merge of main");
        let (check, doc) = check_json(&team, "ada");
        let local = concerns(&doc);
        let push = team.sh("ada", "git push -q origin HEAD");
        let ci = team.ci("csv");
        agree(&push, &ci);
        // The default policy refuses merges (advisory): reported, the same
        // in every door; the all-required one inspects them: a clean merge
        // changed nothing itself.
        match name.starts_with("default") {
            true => {
                assert!(push.passed(), "{name}: {push:?}");
                assert!(
                    local
                        .iter()
                        .all(|c| c.starts_with("provenance/merge_commit")),
                    "{name}: only the merge is reported: {check:?}"
                );
            }
            false => {
                assert!(check.passed(), "{name}: {check:?}");
                assert!(local.is_empty(), "{name}: {check:?}");
                assert!(push.passed(), "{name}: {push:?}");
            }
        }
        assert!(
            concerns(&ci.1)
                .iter()
                .all(|c| c.starts_with("provenance/merge_commit")),
            "{name}: CI: {:?}",
            ci.0
        );
    }
}

#[test]
fn a_force_push_after_a_rebase_passes_the_server_hook_too() {
    for (name, policy) in policies() {
        let team = Team::with_server(policy, true);
        ada_works_on_export(&team);
        bob_lands_import(&team);
        team.sh("ada", "git fetch -q origin && git rebase -q origin/main")
            .expect_ok("rebase");
        let push = team.sh("ada", "git push -q --force-with-lease origin HEAD");
        assert!(push.passed(), "{name}: {push:?}");
        let ci = team.ci("csv");
        agree(&push, &ci);
    }
}

/// Bob's governance task: provenance and scope made required on main.
const TIGHTEN: &str = r#"
git switch -q -c rules
gate start --exempt governance --because "provenance decides" --scope ':/.gate/policy.yaml' --brief - <<'BRIEF'
Make provenance required.
BRIEF
sed -i 's/^  mode: advisory$/  mode: required/; s/^scope: advisory$/scope: required/' .gate/policy.yaml
grep -q '^  mode: required' .gate/policy.yaml
git add -A && git commit -q -m "Provenance required"
id=$(ls .gate/tasks | sed 's/[.]md$//')
gate task finish
git add -A && git commit -q -m "rules: completed" -m "Task: $id"
git push -q -u origin HEAD
git switch -q main && git merge -q --ff-only rules && git push -q origin main
"#;

#[test]
fn a_policy_that_lands_on_main_judges_a_branch_pushed_before_it() {
    // The branch was pushed under the default policy; Bob then makes scope
    // and provenance required on main, through the governance route.
    let team = Team::new(None);
    ada_works_on_export(&team);
    team.sh("bob", TIGHTEN)
        .expect_ok("Bob's policy lands on main");
    // Ada's next commit strays outside her scope, committed under the
    // branch's old (advisory) rules; pushing it meets main's.
    team.sh(
        "ada",
        "git fetch -q origin && echo notes > NOTES.md && git add NOTES.md && git commit -q -m notes",
    )
    .expect_ok("a stray commit, under the branch's rules");
    let push = team.sh("ada", "git push -q origin HEAD");
    assert!(!push.passed(), "main's rules judge the push: {push:?}");
    assert!(push.said.contains("path_outside_scope"), "{push:?}");
    assert!(push.said.contains("from origin/"), "{push:?}");
    // Pushed anyway past the hook, CI refuses it the same way.
    team.sh("ada", "git push -q --no-verify origin HEAD")
        .expect_ok("the skipped hook");
    let ci = team.ci("csv");
    agree(&push, &ci);
    // The remedy: the stray commit goes, the branch is rebased onto main
    // (its rules now), and a push needs no --no-verify.
    team.sh(
        "ada",
        "git reset -q --hard HEAD~1 && git rebase -q origin/main && git push -q --force-with-lease origin HEAD",
    )
    .expect_ok("the remedy");
    let ci = team.ci("csv");
    assert!(ci.0.passed(), "{:?}", ci.0);
}

#[test]
fn a_push_past_the_hook_is_caught_by_ci_as_the_hook_would_have() {
    for (name, policy) in policies() {
        let team = Team::new(policy);
        ada_works_on_export(&team);
        team.sh(
            "ada",
            "echo notes > NOTES.md && git add NOTES.md && git commit -q --no-verify -m notes",
        )
        .expect_ok("a commit past pre-commit");
        // What the hook says, without sending anything.
        let hook = team.sh("ada", "git push --dry-run origin HEAD");
        team.sh("ada", "git push -q --no-verify origin HEAD")
            .expect_ok("pushed past the hook");
        let ci = team.ci("csv");
        agree(&hook, &ci);
        assert_eq!(hook.passed(), policy.is_none(), "{name}: {hook:?}");
        assert!(
            concerns(&ci.1)
                .iter()
                .any(|c| c.starts_with("provenance/path_outside_scope")),
            "{name}: {:?}",
            ci.0
        );
    }
}

#[test]
fn two_tasks_for_one_issue_on_two_branches_meet_on_main() {
    for (name, team) in teams() {
        ada_works_on_export(&team);
        team.sh(
            "bob",
            r#"
git switch -q -c csv-totals
gate start --issue 17 --brief - <<'BRIEF'
Add the totals row to the export.
BRIEF
mkdir -p src/export && echo "total,amount" > src/export/totals.csv
echo "id,date,amount" > src/export/columns.csv
git add -A && git commit -q -m "Export totals"
gate verify export-tests
gate task finish
git add -A && git commit -q -m "totals: completed"
git push -q -u origin HEAD
git switch -q main && git merge -q --ff-only csv-totals && git push -q origin main
"#,
        )
        .expect_ok(&format!("{name}: Bob's task for issue 17 lands on main"));
        let ids = team.sh(
            "ada",
            "git fetch -q origin && git merge -q --no-edit origin/main && ls .gate/tasks",
        );
        assert!(ids.passed(), "{name}: no conflict on a task file: {ids:?}");
        let tasks: Vec<&str> = ids.said.lines().filter(|l| l.ends_with(".md")).collect();
        assert_eq!(tasks.len(), 2, "{name}: two tasks, two files: {ids:?}");
        // Bob's file landed in export-tests' sources: Ada's receipt is
        // stale, and says which source changed; verifying again is the way.
        let (check, doc) = check_json(&team, "ada");
        let stale: Vec<String> = concerns(&doc)
            .into_iter()
            .filter(|c| c.starts_with("receipts/receipt_stale"))
            .collect();
        assert_eq!(stale.len(), 1, "{name}: {check:?}");
        assert!(
            stale[0].contains("src/export/totals.csv"),
            "{name}: the reason names the changed source: {check:?}"
        );
        team.sh("ada", "gate verify export-tests")
            .expect_ok("verify again");
        let (check, doc) = check_json(&team, "ada");
        // (The default policy reports the merge itself: it refuses merges.)
        assert!(
            concerns(&doc)
                .iter()
                .all(|c| c.starts_with("provenance/merge_commit")),
            "{name}: {check:?}"
        );
        let push = team.sh("ada", "git push -q origin HEAD");
        let ci = team.ci("csv");
        agree(&push, &ci);
        if !name.starts_with("default") {
            assert!(push.passed(), "{name}: {push:?}");
        }
    }
}

#[test]
fn finished_work_checks_as_done_and_ci_agrees() {
    for (name, policy) in policies() {
        let team = Team::new(policy);
        ada_works_on_export(&team);
        team.sh(
            "ada",
            "gate task finish && git add -A && git commit -q -m 'export: completed'",
        )
        .expect_ok("finish");
        let (check, doc) = check_json(&team, "ada");
        assert!(
            check.passed(),
            "{name}: finished work is no refusal: {check:?}"
        );
        assert!(
            causes(&doc).iter().any(|c| c.ends_with("/task_finished")),
            "{name}: {check:?}"
        );
        assert!(concerns(&doc).is_empty(), "{name}: {check:?}");
        let push = team.sh("ada", "git push -q origin HEAD");
        assert!(push.passed(), "{name}: {push:?}");
        let ci = team.ci("csv");
        agree(&push, &ci);
    }
}

/// Bob pushes a branch, `scratch`, with a commit made without gate's
/// hooks (no trailer, nobody's task), and Ada merges it into her work.
fn bob_pushes_scratch_and_ada_merges_it(team: &Team) {
    team.sh(
        "bob",
        "git switch -q -c scratch && echo x > NOTES.md && git add NOTES.md && git -c core.hooksPath=/dev/null commit -q -m notes && git push -q --no-verify -u origin HEAD",
    )
    .expect_ok("Bob's branch");
    team.sh(
        "ada",
        "git fetch -q origin && git merge -q --no-edit origin/scratch",
    )
    .expect_ok("Ada merges it");
}

/// Ada's check of her range's provenance, from where it forked off main.
fn ada_checks_her_range(team: &Team) -> Verdict {
    team.sh(
        "ada",
        r#"gate check --range "$(git merge-base origin/main HEAD)..HEAD" --only provenance"#,
    )
}

/// Ada writes a commit-graph; her check is still refused and names Bob's
/// branch as holding his commit (`why` says which case).
fn ada_writes_a_graph_and_bob_is_named(team: &Team, why: &str) {
    team.sh("ada", "git commit-graph write --reachable")
        .expect_ok("a commit-graph");
    let graphed = ada_checks_her_range(team);
    assert_eq!(graphed.code, Some(1), "{graphed:?}");
    assert!(
        graphed.said.contains("is on origin/scratch already"),
        "{why}: {graphed:?}"
    );
}

#[test]
fn a_refused_commit_a_remote_holds_says_whose_it_is_and_the_remedy_works() {
    let team = Team::new(Some(ALL_REQUIRED));
    ada_works_on_export(&team);
    bob_pushes_scratch_and_ada_merges_it(&team);
    let check_range = || ada_checks_her_range(&team);
    let check = check_range();
    assert_eq!(check.code, Some(1), "{check:?}");
    assert!(
        check.said.contains("is on origin/scratch already"),
        "the refusal says whose commit it is: {check:?}"
    );
    assert!(
        !check.said.contains("gate task scope add"),
        "never 'add it to your scope' for someone else's commit: {check:?}"
    );
    assert!(check.said.contains("git rebase --onto"), "{check:?}");
    // A remote-tracking branch whose commit names a parent that is not
    // there fails the one walk of all the branches: each is then asked
    // alone, the broken one is passed over, Bob's is still named. (Dated
    // now: one dated more than a day before every refused commit is not
    // walked at all, as the next test shows.)
    team.sh(
        "ada",
        "now=$(date +%s) && c=$(printf 'tree %s\nparent %s\nauthor A <a@example.com> %s +0000\ncommitter A <a@example.com> %s +0000\n\nbroken\n' \
             \"$(git rev-parse 'HEAD^{tree}')\" 1111111111111111111111111111111111111111 \"$now\" \"$now\" \
           | git hash-object -t commit -w --stdin) && git update-ref refs/remotes/origin/broken \"$c\"",
    )
    .expect_ok("a broken remote-tracking branch");
    let broken = check_range();
    assert_eq!(broken.code, Some(1), "{broken:?}");
    assert!(
        broken.said.contains("is on origin/scratch already")
            && !broken.said.contains("origin/broken"),
        "a broken branch costs only its own answer: {broken:?}"
    );
    team.sh("ada", "git update-ref -d refs/remotes/origin/broken")
        .expect_ok("the broken branch deleted");
    // The same with a commit-graph, whose levels let gate pass over a
    // branch that cannot hold a refused commit: Bob's branch, whose tip
    // is the refused commit itself (the same level), is still named.
    ada_writes_a_graph_and_bob_is_named(&team, "with a commit-graph too");
    // The remedy it names works, and CI agrees with the push after it.
    team.sh("ada", "git rebase -q --onto origin/main origin/scratch")
        .expect_ok("the remedy");
    let check = check_range();
    assert!(check.passed(), "{check:?}");
    let push = team.sh("ada", "git push -q --force-with-lease origin HEAD");
    assert!(push.passed(), "{push:?}");
    let ci = team.ci("csv");
    agree(&push, &ci);
}

/// Without a commit-graph, a remote-tracking branch whose tip is dated
/// more than a day before every refused commit is not walked for them
/// (git name-rev's rule: a commit is dated after its parents, give or take
/// a clock): a branch left behind years ago no longer sends the walk down
/// the history to its date. Under a larger clock skew such a branch goes
/// unnamed; within a day it is named.
#[test]
fn a_branch_dated_a_day_before_every_refused_commit_is_not_walked_for_them() {
    let team = Team::new(Some(ALL_REQUIRED));
    ada_works_on_export(&team);
    bob_pushes_scratch_and_ada_merges_it(&team);
    // Bob goes on with a commit whose clock is `behind` seconds behind
    // the one before it, and pushes: Ada's clone sees the branch's tip
    // there, above the refused commit Ada merged.
    let bob_adds_a_commit_dated = |behind: i64, name: &str| {
        team.sh(
            "bob",
            &format!(
                "git reset -q --hard origin/scratch~0 && when=$(( $(git log -1 --format=%ct) - {behind} )) && \
                 echo {name} > {name}.md && git add {name}.md && \
                 GIT_COMMITTER_DATE=\"$when +0000\" git -c core.hooksPath=/dev/null commit -q -m {name} && \
                 git push -q --no-verify --force origin HEAD:scratch"
            ),
        )
        .expect_ok("Bob's next commit");
        team.sh("ada", "git fetch -q origin")
            .expect_ok("Ada fetches");
    };
    let check_range = || ada_checks_her_range(&team);
    // Half a day behind: walked, and Bob's commit is named as his.
    bob_adds_a_commit_dated(43_200, "half");
    let within = check_range();
    assert_eq!(within.code, Some(1), "{within:?}");
    assert!(
        within.said.contains("is on origin/scratch already"),
        "a tip dated within a day is walked: {within:?}"
    );
    // Three days behind (on top of the refused commit again): not walked,
    // so not named; the commit is refused all the same.
    team.sh(
        "bob",
        "git push -q --no-verify --force origin HEAD~1:scratch",
    )
    .expect_ok("Bob takes it back");
    bob_adds_a_commit_dated(3 * 86_400, "skewed");
    let beyond = check_range();
    assert_eq!(beyond.code, Some(1), "{beyond:?}");
    assert!(
        !beyond.said.contains("origin/scratch"),
        "a tip dated more than a day before every refused commit is not walked: {beyond:?}"
    );
    // With a commit-graph, levels decide, not dates: named again.
    ada_writes_a_graph_and_bob_is_named(&team, "levels, not dates, with a commit-graph");
}

/// README.md's "Keeping a branch current", run verbatim in Ada's clone
/// once Bob's work is on main: every command succeeds, no hook is skipped,
/// and CI agrees with the push.
#[test]
fn the_readme_s_keeping_a_branch_current_works_as_written() {
    let (readme, range) = crate::support::marked_block(
        "README.md",
        "<!-- team-flow: begin -->",
        "<!-- team-flow: end -->",
    );
    let flow = readme[range]
        .trim()
        .strip_prefix("```sh\n")
        .and_then(|b| b.strip_suffix("```"))
        .expect("the marked block is one ```sh code block")
        .to_string();
    assert!(!flow.contains("--no-verify"), "{flow}");
    for (name, team) in teams() {
        ada_works_on_export(&team);
        bob_lands_import(&team);
        let run = team.sh("ada", &flow);
        assert!(run.passed(), "{name}: {run:?}");
        assert!(
            run.said.contains("+ git push --force-with-lease"),
            "{name}: {run:?}"
        );
        let push = team.sh("ada", "git push origin HEAD");
        let ci = team.ci("csv");
        agree(&push, &ci);
        assert!(ci.0.passed(), "{name}: {:?}", ci.0);
    }
}

#[test]
fn a_baseline_a_rebase_rewrote_stops_choosing_commits() {
    let team = Team::new(None);
    // Ada starts her task on a commit of her own that is not pushed; a
    // rebase onto Bob's work then rewrites it.
    team.sh(
        "ada",
        r##"
git switch -q -c csv
echo "# export" > EXPORT.md && git add EXPORT.md && git commit -q -m "export notes"
gate start --issue 17 --brief - <<'BRIEF'
Add CSV export.
BRIEF
mkdir -p src/export && echo "id,date,amount" > src/export/columns.csv
git add -A && git commit -q -m "Export CSV"
"##,
    )
    .expect_ok("Ada's work on a local commit");
    bob_lands_import(&team);
    team.sh("ada", "git fetch -q origin && git rebase -q origin/main")
        .expect_ok("rebase");
    let (check, doc) = check_json(&team, "ada");
    let prov = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "provenance")
        .cloned()
        .unwrap();
    assert!(
        prov["summary"].as_str().unwrap().contains("was rewritten"),
        "{check:?}"
    );
    assert!(
        !causes(&doc)
            .iter()
            .any(|c| c.ends_with("baseline_not_ancestor")),
        "{check:?}"
    );
    // The task's commit and the rewritten one it was started on are
    // proved; Bob's are not.
    let bobs = team.rev("bob", "main");
    assert!(!check.said.contains(&bobs[..12]), "{check:?}");
    assert!(
        prov["summary"].as_str().unwrap().starts_with("2 commits"),
        "{check:?}"
    );
}
