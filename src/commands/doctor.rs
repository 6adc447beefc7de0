//! `gate doctor [--json]`: is gate installed and fed as it should be here?
//!
//! It looks, and changes nothing: the hooks (present, executable, running
//! this binary, what they chain runnable, or run by a hook manager's
//! configuration), the hooks directory (another manager's, or shared), the
//! policy against HEAD's, the plan, the task files and the active pointer,
//! each agent host's wiring and `.mcp.json`'s gate server, the file-system
//! monitor setting, each remote's recorded default branch (a warning when
//! missing) and what the policy's `upstream` resolves to.
//! Each fault comes with the command that repairs it (docs/doctor.md).
//! Exit 0 healthy (warnings included), 1 with a fault, 3 when something
//! could not be told and nothing is wrong otherwise.

use std::path::{Path, PathBuf};

use crate::cli::DoctorArgs;
use crate::ctx::Ctx;
use crate::error::Failure;
use crate::fsutil;
use crate::hooks::{self as install, CHAINED_SUFFIX, HOOKS, Manager, with_suffix};
use crate::report::human;
use crate::report::wire::doctor::{DOCTOR_SCHEMA, DoctorWire, Item, Status};
use crate::ui::{Answer, Shown};
use crate::verdict::{ExitCode, Outcome};

fn item(check: &'static str, subject: &str, status: Status, detail: impl Into<String>) -> Item {
    Item {
        check,
        subject: subject.to_string(),
        status,
        detail: detail.into(),
        remedy: None,
    }
}

impl Item {
    fn remedy(mut self, remedy: impl Into<String>) -> Item {
        self.remedy = Some(remedy.into());
        self
    }
}

pub fn run(dir: Option<&Path>, _args: &DoctorArgs) -> Result<Answer, Failure> {
    let ctx = Ctx::open(dir)?;
    let hooks_dir = ctx.repo.hooks_dir()?;
    let manager = install::manager(ctx.root(), &hooks_dir);
    let this = std::env::current_exe()
        .and_then(|p| crate::platform::canonicalize(&p))
        .map_err(|e| Failure::unknown(format!("cannot find the running gate binary: {e}")))?;
    let mut items = Vec::new();
    items.push(hooks_path(&ctx, &hooks_dir, manager.as_ref()));
    for (name, _) in HOOKS {
        items.push(hook(&ctx, &hooks_dir, manager.as_ref(), name, &this));
    }
    items.extend(gate_files(&ctx));
    items.extend(agents(&ctx, &this));
    items.extend(mcp_json(&ctx, &this));
    items.push(fsmonitor(&ctx));
    items.extend(remote_heads(&ctx));
    items.extend(upstream(&ctx));
    let code = ExitCode::of(items.iter().map(|i| match i.status {
        Status::Fault => Outcome::Refused,
        Status::Unknown => Outcome::Unknown,
        Status::Ok | Status::Warn => Outcome::Pass,
    }));
    let manager_name = manager.as_ref().map(|m| match m {
        Manager::Husky { .. } => "husky",
        Manager::Lefthook { .. } => "lefthook",
    });
    Ok(Answer::document(
        code,
        DoctorAnswer {
            hooks_dir,
            manager: manager_name,
            items,
            code,
        },
    ))
}

/// What `gate doctor` answers: every item looked at.
struct DoctorAnswer {
    hooks_dir: PathBuf,
    manager: Option<&'static str>,
    items: Vec<Item>,
    code: ExitCode,
}

impl Shown for DoctorAnswer {
    type Wire<'a> = DoctorWire<'a>;
    fn wire(&self) -> DoctorWire<'_> {
        DoctorWire {
            schema: DOCTOR_SCHEMA,
            outcome: match self.code {
                ExitCode::Pass => "healthy",
                ExitCode::Refused => "faults",
                ExitCode::Usage | ExitCode::Unknown => "unknown",
            },
            exit_code: self.code.code(),
            hooks_dir: self.hooks_dir.display().to_string(),
            manager: self.manager,
            checks: &self.items,
        }
    }
    fn text(&self) -> String {
        human::doctor(&self.hooks_dir, &self.items, self.code)
    }
}

/// Most bytes read of an agent's configuration file.
const AGENT_FILE: fsutil::Kind = fsutil::Kind {
    what: "an agent's configuration",
    max: 1 << 20,
};

/// The binary a hook command runs: the words before ` hook …` (or before
/// ` mcp`), unquoted.
fn binary_of(command: &str, tail: &str) -> String {
    let head = command.trim_end().strip_suffix(tail).unwrap_or(command);
    head.trim().trim_matches(['\'', '"']).to_string()
}

/// Where `binary` (a command's first word) is found: on PATH for a bare
/// `gate`, else as the path given.
fn resolve_binary(binary: &str) -> Option<PathBuf> {
    if binary == "gate" {
        return gate_on_path();
    }
    let path = PathBuf::from(binary);
    is_executable(&path).then_some(path)
}

/// What a found binary is, for the detail: "this gate" or its path.
fn which(found: PathBuf, this: &Path) -> String {
    let found = crate::platform::canonicalize(&found).unwrap_or(found);
    if found == this {
        "this gate".to_string()
    } else {
        found.display().to_string()
    }
}

/// Each agent host whose configuration holds gate's entries (docs/agents.md,
/// "Other agent hosts"): complete as `gate install --agent` writes them,
/// asking about the tools this gate asks about, and running a gate that is
/// there — a host that cannot run it lets every call through.
fn agents(ctx: &Ctx, this: &Path) -> Vec<Item> {
    use clap::ValueEnum;
    let mut items = Vec::new();
    for agent in crate::cli::Agent::value_variants() {
        let host = crate::agent_hooks::Host::from(*agent);
        let name = host.name();
        let rel = host.config();
        let install = format!("gate install --agent {name}");
        let bytes = match fsutil::read_within(ctx.root(), Path::new(rel), AGENT_FILE) {
            Ok(None) => continue,
            Ok(Some(bytes)) => bytes,
            Err(e) => {
                items.push(
                    item("agent", name, Status::Unknown, format!("{rel}: {e}"))
                        .remedy(format!("make {rel} a regular file, then `{install}`")),
                );
                continue;
            }
        };
        let value: serde_json::Value = match serde_json::from_slice(&bytes) {
            Ok(v) => v,
            Err(e) => {
                // Only gate's business when gate's entries are in it.
                if String::from_utf8_lossy(&bytes).contains(&format!(" hook {name} ")) {
                    items.push(
                        item(
                            "agent",
                            name,
                            Status::Fault,
                            format!("{rel} is not JSON ({e}): the host reads none of its hooks"),
                        )
                        .remedy(format!("fix {rel}, then `{install}`")),
                    );
                }
                continue;
            }
        };
        let wiring = host.wiring(&value);
        if wiring.commands.is_empty() {
            continue;
        }
        let mut missing = Vec::new();
        let mut found = None;
        for command in &wiring.commands {
            let verb = if command.trim_end().ends_with(" stop") {
                "stop"
            } else {
                "pre-tool-use"
            };
            let binary = binary_of(command, &format!(" hook {name} {verb}"));
            match resolve_binary(&binary) {
                Some(path) => found = Some(path),
                None => missing.push(binary),
            }
        }
        let status;
        let mut detail = format!("{rel} runs {}", wiring.commands.join(" and "));
        let mut remedy = None;
        if !missing.is_empty() {
            status = Status::Fault;
            detail.push_str(&format!(
                "; `{}` is not found, and the host lets every call through when it cannot run its hook",
                missing.join("`, `")
            ));
            remedy = Some(format!(
                "put gate on the agent's PATH (./install.sh), or `{install} --binary PATH`"
            ));
        } else if wiring.incomplete {
            status = Status::Fault;
            detail.push_str(
                "; an entry gate's install writes is missing, or sits under another event",
            );
            remedy = Some(format!(
                "`{install}` (it adds what is missing, and keeps the rest)"
            ));
        } else if let Some(m) = &wiring.stale_matcher {
            status = Status::Warn;
            detail.push_str(&format!(
                "; its pre-tool-use entry asks about `{m}`, and this gate asks about `{}` (another version installed it)",
                host.matcher()
            ));
            remedy = Some(format!("`gate uninstall --agent {name} && {install}`"));
        } else {
            status = Status::Ok;
            if let Some(path) = found {
                detail.push_str(&format!("; `gate` there is {}", which(path, this)));
            }
        }
        let mut it = item("agent", name, status, detail);
        if let Some(r) = remedy {
            it = it.remedy(r);
        }
        items.push(it);
    }
    items
}

/// The MCP server wiring in `.mcp.json` (Claude Code's project servers),
/// when a server there runs `gate … mcp`: a gate that is there.
fn mcp_json(ctx: &Ctx, this: &Path) -> Option<Item> {
    let rel = ".mcp.json";
    let bytes = match fsutil::read_within(ctx.root(), Path::new(rel), AGENT_FILE) {
        Ok(None) => return None,
        Ok(Some(bytes)) => bytes,
        Err(e) => {
            return Some(item("mcp", rel, Status::Unknown, format!("{rel}: {e}")));
        }
    };
    let value: serde_json::Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(e) => {
            let text = String::from_utf8_lossy(&bytes);
            return (text.contains("gate") && text.contains("mcp")).then(|| {
                item(
                    "mcp",
                    rel,
                    Status::Fault,
                    format!("{rel} is not JSON ({e}): no server in it starts"),
                )
                .remedy(format!("fix {rel} (docs/agents.md, \"MCP server\")"))
            });
        }
    };
    let servers = value
        .get("mcpServers")
        .and_then(serde_json::Value::as_object)?;
    let (name, server) = servers.iter().find(|(_, s)| {
        let command = s
            .get("command")
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default();
        let args: Vec<&str> = s
            .get("args")
            .and_then(serde_json::Value::as_array)
            .map(|a| a.iter().filter_map(serde_json::Value::as_str).collect())
            .unwrap_or_default();
        (command == "gate" || command.ends_with("/gate")) && args.last() == Some(&"mcp")
    })?;
    let command = server["command"].as_str().unwrap_or_default();
    Some(match resolve_binary(command) {
        Some(found) => item(
            "mcp",
            rel,
            Status::Ok,
            format!(
                "server `{name}` runs `{command} mcp`; `gate` there is {}",
                which(found, this)
            ),
        ),
        None => item(
            "mcp",
            rel,
            Status::Fault,
            format!(
                "server `{name}` runs `{command}`, which is not found: the client cannot start it"
            ),
        )
        .remedy("put gate on PATH (./install.sh), or name its path in the server's `command`"),
    })
}

/// Where the hooks are, and whose directory it is.
fn hooks_path(ctx: &Ctx, hooks_dir: &Path, manager: Option<&Manager>) -> Item {
    let detail = match manager {
        Some(Manager::Husky { .. }) => {
            format!("{} is husky's (core.hooksPath)", hooks_dir.display())
        }
        Some(Manager::Lefthook { .. }) => {
            format!("{}: lefthook runs the hooks", hooks_dir.display())
        }
        None if !install::hooks_dir_is_the_repository_s(ctx, hooks_dir) => format!(
            "{} is outside the repository: shared with every repository that uses it",
            hooks_dir.display()
        ),
        None => match ctx.repo.config_string("core.hooksPath") {
            Some(set) => format!("{} (core.hooksPath {set})", hooks_dir.display()),
            None => format!("{} (git's default)", hooks_dir.display()),
        },
    };
    item("hooks_path", "", Status::Ok, detail)
}

/// The gate binary a hook script records (`recorded='…'`).
fn recorded(script: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(script);
    let line = text.lines().find(|l| l.starts_with("recorded='"))?;
    let body = line.strip_prefix("recorded='")?.strip_suffix('\'')?;
    Some(body.replace(r"'\''", "'"))
}

/// `gate` as the shell would find it on PATH.
fn gate_on_path() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(format!("gate{}", std::env::consts::EXE_SUFFIX)))
        .find(|p| is_executable(p))
}

fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| crate::platform::is_executable(&m))
}

/// A hook whose line runs `gate` from PATH (a manager's configuration).
fn via_path(name: &str, how: String, this: &Path) -> Item {
    match gate_on_path() {
        None => item(
            "hook",
            name,
            Status::Fault,
            format!("{how}, but no `gate` is on PATH"),
        )
        .remedy("put gate on PATH (./install.sh)"),
        Some(found) => {
            let found = crate::platform::canonicalize(&found).unwrap_or(found);
            if found == this {
                return item(
                    "hook",
                    name,
                    Status::Ok,
                    format!("{how}; `gate` on PATH is this gate"),
                );
            }
            let which = found.display().to_string();
            match skew(&found) {
                None => item(
                    "hook",
                    name,
                    Status::Ok,
                    format!("{how}; `gate` on PATH is {which}, the same version"),
                ),
                Some(said) => item(
                    "hook",
                    name,
                    Status::Warn,
                    format!("{how}; `gate` on PATH is {which}, {said}"),
                )
                .remedy("put this gate first on PATH, or install the same version there"),
            }
        }
    }
}

/// How the gate at `binary` differs from this one, if it does: another
/// version, or no answer to `--version` as gate gives it.
fn skew(binary: &Path) -> Option<String> {
    let this = format!("gate {}", env!("CARGO_PKG_VERSION"));
    match install::version_of(binary) {
        Some(said) if said == this => None,
        Some(said) => Some(format!("{said}, while this is {this} (version skew)")),
        None => Some(format!(
            "which does not answer `--version` as gate does (this is {this})"
        )),
    }
}

/// A framework's `repo:` hook that runs a gate it built itself, from the
/// repository and rev its configuration names: that build is what runs on
/// every commit, whatever `gate` is on PATH.
fn built_gate(name: &str, tool: &str, hook: &install::BuiltHook) -> Item {
    let from = format!("{} at {}", hook.repo, hook.rev);
    let use_installed = format!(
        "or use the hook gate-{name}-installed, which runs the gate on PATH (docs/hooks.md)"
    );
    match &hook.built {
        install::Built::Binary(binary) => match skew(binary) {
            None => item(
                "hook",
                name,
                Status::Ok,
                format!(
                    "{tool} runs the gate it built from {from}: {}, the same version",
                    binary.display()
                ),
            ),
            Some(said) => item(
                "hook",
                name,
                Status::Warn,
                format!(
                    "{tool} runs the gate it built from {from}: {}, {said}",
                    binary.display()
                ),
            )
            .remedy(format!(
                "set the hook's rev to this gate's release (.pre-commit-config.yaml or prek.toml), then `{tool} install-hooks`; {use_installed}"
            )),
        },
        install::Built::NotYet { cache } => item(
            "hook",
            name,
            Status::Warn,
            format!(
                "{tool} builds gate from {from} and has not yet ({} holds no build of it): the next commit builds it, which takes minutes",
                cache.display()
            ),
        )
        .remedy(format!("`{tool} install-hooks` builds it now; {use_installed}")),
        install::Built::Unread => item(
            "hook",
            name,
            Status::Warn,
            format!(
                "{tool} builds gate from {from} in a cache of its own, which gate does not read: its version is not checked"
            ),
        )
        .remedy(format!("use the hook gate-{name}-installed, which runs the gate on PATH, so that doctor checks it")),
    }
}

fn hook(ctx: &Ctx, hooks_dir: &Path, manager: Option<&Manager>, name: &str, this: &Path) -> Item {
    match manager {
        Some(Manager::Husky { scripts }) => {
            // An older `gate install` put its own script where husky's stub
            // belongs: husky's hook no longer runs.
            if let Ok(Some(b)) = fsutil::read_file(&hooks_dir.join(name), fsutil::Kind::HOOK)
                && install::is_gate_hook(&b)
            {
                return item(
                    "hook",
                    name,
                    Status::Fault,
                    format!(
                        "gate's script is in husky's place in {}",
                        hooks_dir.display()
                    ),
                )
                .remedy("gate install (restores husky's stub and adds gate's line)");
            }
            let script = scripts.join(name);
            let line = install::husky_line(name);
            return match fsutil::read_file(&script, fsutil::Kind::HOOK) {
                Ok(Some(b))
                    if String::from_utf8_lossy(&b)
                        .lines()
                        .any(|l| l.trim() == line) =>
                {
                    via_path(
                        name,
                        format!("husky runs `{line}` from {}", script.display()),
                        this,
                    )
                }
                Ok(_) => item(
                    "hook",
                    name,
                    Status::Fault,
                    format!("{} does not run gate", script.display()),
                )
                .remedy("gate install (adds the line)"),
                Err(e) => item("hook", name, Status::Unknown, e.to_string())
                    .remedy(format!("make {} readable", script.display())),
            };
        }
        Some(Manager::Lefthook { configs }) => {
            let dump = install::lefthook_dump(ctx.root());
            let read = if dump.is_some() {
                "its configuration, as `lefthook dump` reads it"
            } else {
                "its configuration"
            };
            return if install::lefthook_configured(dump.as_ref(), configs, name) {
                via_path(name, format!("lefthook runs `gate hook` from {read}"), this)
            } else {
                item(
                    "hook",
                    name,
                    Status::Fault,
                    if install::lefthook_runs_gate(dump.as_ref(), configs, name) {
                        "lefthook runs gate's pre-push without `use_stdin: true`: the pushed refs never reach gate"
                    } else {
                        "lefthook's configuration does not run gate"
                    },
                )
                .remedy("add the commands `gate install` prints to lefthook-local.yml, then `lefthook install`")
            };
        }
        None => {}
    }
    let path = hooks_dir.join(name);
    let bytes = match fsutil::read_file(&path, fsutil::Kind::HOOK) {
        Ok(b) => b,
        Err(e) => {
            return item("hook", name, Status::Unknown, e.to_string()).remedy(format!(
                "make {} readable, then run gate doctor again",
                path.display()
            ));
        }
    };
    let Some(bytes) = bytes else {
        return item("hook", name, Status::Fault, "not installed").remedy("gate install");
    };
    if let Some(tool) = install::framework_script(&bytes) {
        let legacy = with_suffix(&path, ".legacy");
        return match fsutil::read_file(&legacy, fsutil::Kind::HOOK) {
            // gate's script in the legacy slot, and gate's hook in the
            // configuration too: every commit runs gate twice.
            Ok(Some(b))
                if install::is_gate_hook(&b)
                    && install::configured(&install::pre_commit_configs(ctx.root()), name) =>
            {
                item(
                    "hook",
                    name,
                    Status::Warn,
                    format!(
                        "gate runs twice: {tool} runs {name}.legacy (gate's) first, then `gate hook {name}` from its configuration"
                    ),
                )
                .remedy(format!(
                    "remove {} (the configuration's hook is enough)",
                    legacy.display()
                ))
            }
            Ok(Some(b)) if install::is_gate_hook(&b) => {
                own(&legacy, &b, name, this, &format!("{tool} runs {name}.legacy first, gate's"))
            }
            _ if install::configured(&install::pre_commit_configs(ctx.root()), name) => {
                match install::framework_built_gate(ctx.root(), tool, name) {
                    Some(built) => built_gate(name, tool, &built),
                    None => via_path(
                        name,
                        format!("{tool} runs `gate hook {name}` from .pre-commit-config.yaml"),
                        this,
                    ),
                }
            }
            _ => item(
                "hook",
                name,
                Status::Fault,
                format!("{tool}'s script is here and runs no gate"),
            )
            .remedy("gate install (prints the entry for .pre-commit-config.yaml), or gate install --force"),
        };
    }
    if !install::is_gate_hook(&bytes) {
        let chained = with_suffix(&path, CHAINED_SUFFIX);
        let remedy = if std::fs::symlink_metadata(&chained).is_ok() {
            "gate install --force (another tool wrote over gate's hook; the new one is chained)"
        } else {
            "gate install (keeps this hook as the chained one)"
        };
        return item(
            "hook",
            name,
            Status::Fault,
            "another hook is here; gate does not run",
        )
        .remedy(remedy);
    }
    own(&path, &bytes, name, this, "gate's")
}

/// gate's own script at `path`: executable, running this binary, chaining
/// a hook that runs.
fn own(path: &Path, bytes: &[u8], name: &str, this: &Path, whose: &str) -> Item {
    if !is_executable(path) {
        return item(
            "hook",
            name,
            Status::Fault,
            format!("{whose}, but not executable: git does not run it"),
        )
        .remedy("gate install (rewrites it executable)");
    }
    let Some(binary) = recorded(bytes) else {
        return item(
            "hook",
            name,
            Status::Fault,
            format!("{whose}, but it names no binary"),
        )
        .remedy("gate install");
    };
    let binary = PathBuf::from(binary);
    if binary != this {
        let detail = if is_executable(&binary) {
            format!("{whose}, but it runs another gate: {}", binary.display())
        } else {
            format!(
                "{whose}, but the gate it records is missing: {} (it falls back to `gate` on PATH)",
                binary.display()
            )
        };
        return item("hook", name, Status::Fault, detail)
            .remedy("gate install (records this gate), or gate install --binary PATH");
    }
    let chained = with_suffix(path, CHAINED_SUFFIX);
    if std::fs::symlink_metadata(&chained).is_ok() && !is_executable(&chained) {
        return item(
            "hook",
            name,
            Status::Fault,
            format!("{whose}; the hook it chains is not executable (or a dangling link), so it does not run"),
        )
        .remedy(format!("chmod +x {} (or remove it)", chained.display()));
    }
    let chain = if std::fs::symlink_metadata(&chained).is_ok() {
        format!("; runs {name}{CHAINED_SUFFIX} first")
    } else {
        String::new()
    };
    item(
        "hook",
        name,
        Status::Ok,
        format!("{whose}, executable, runs this gate{chain}"),
    )
}

/// The policy against HEAD's, the plan, the task files, the active pointer.
fn gate_files(ctx: &Ctx) -> Vec<Item> {
    let root = ctx.root();
    if std::fs::symlink_metadata(root.join(".gate")).is_err() {
        return vec![
            item(
                "policy",
                "",
                Status::Fault,
                "no .gate/ here: gate does not govern this repository, and its hooks stay silent",
            )
            .remedy("gate init, then commit .gate/"),
        ];
    }
    let mut items = vec![policy(ctx)];
    items.push(match crate::plan::load(root) {
        Ok(None) => item("plan", "", Status::Ok, "no .gate/plan.yaml"),
        Ok(Some(loaded)) => {
            let mut faults = loaded.reference_faults();
            faults.extend(loaded.source_faults());
            if faults.is_empty() {
                item("plan", "", Status::Ok, ".gate/plan.yaml is valid")
            } else {
                item(
                    "plan",
                    "",
                    Status::Fault,
                    format!(
                        "{} fault{} in .gate/plan.yaml",
                        faults.len(),
                        if faults.len() == 1 { "" } else { "s" }
                    ),
                )
                .remedy("gate plan validate (names each), then fix the file")
            }
        }
        Err(e) => item("plan", "", Status::Fault, e.to_string())
            .remedy("fix .gate/plan.yaml where the error says"),
    });
    match crate::task::ids(root) {
        Err(e) => items.push(
            item("task", "", Status::Unknown, e.to_string())
                .remedy("make .gate/tasks readable, then run gate doctor again"),
        ),
        Ok(ids) => {
            let mut bad = 0;
            for id in &ids {
                if let Err(e) = crate::task::load(root, id) {
                    bad += 1;
                    items.push(
                        item("task", id, Status::Fault, e.to_string()).remedy(format!(
                            "gate task validate --task {id} (names each fault), then fix the file"
                        )),
                    );
                }
            }
            if bad == 0 {
                items.push(item(
                    "task",
                    "",
                    Status::Ok,
                    match ids.len() {
                        0 => "no task files".to_string(),
                        1 => "1 task file, valid".to_string(),
                        n => format!("{n} task files, all valid"),
                    },
                ));
            }
            items.push(match ctx.active_id() {
                Ok(None) => item("active_task", "", Status::Ok, "none"),
                Ok(Some(id)) if ids.contains(&id) => {
                    item("active_task", &id, Status::Ok, "its file is here")
                }
                Ok(Some(id)) => item(
                    "active_task",
                    &id,
                    Status::Fault,
                    "no task file has this id",
                )
                .remedy("gate task switch ID (gate task list shows them)"),
                Err(f) => item("active_task", "", Status::Fault, f.message)
                    .remedy("gate task switch ID (gate task list shows them)"),
            });
        }
    }
    items
}

fn policy(ctx: &Ctx) -> Item {
    use crate::policy::POLICY_PATH;
    if let Err(f) = ctx.policy() {
        return item("policy", "", Status::Fault, f.message)
            .remedy(format!("fix {POLICY_PATH} where the error says"));
    }
    let work = match fsutil::read_file(&ctx.root().join(POLICY_PATH), fsutil::Kind::GATE_FILE) {
        Ok(w) => w,
        Err(e) => return item("policy", "", Status::Unknown, e.to_string()),
    };
    let head = match ctx.repo.head().map(|h| h.id()) {
        Ok(Some(head)) => head,
        Ok(None) => {
            return item(
                "policy",
                "",
                Status::Ok,
                "no commit yet: the hooks judge by the work tree's policy",
            );
        }
        Err(e) => {
            return item("policy", "", Status::Unknown, e.to_string())
                .remedy("repair HEAD (git status says how)");
        }
    };
    let committed = match ctx
        .repo
        .entry_at(head, &crate::path::RepoPath::from(POLICY_PATH))
        .and_then(|e| e.map(|(blob, _)| ctx.repo.read_blob(blob)).transpose())
    {
        Ok(c) => c,
        Err(e) => {
            return item("policy", "", Status::Unknown, e.to_string()).remedy(
                "fetch or repair the missing objects (git fsck), then run gate doctor again",
            );
        }
    };
    let commit_it = format!(
        "commit it (git add {POLICY_PATH} && git commit), or restore HEAD's (git checkout HEAD -- {POLICY_PATH})"
    );
    match (work, committed) {
        (None, None) => item("policy", "", Status::Ok, "none: the embedded default (every check advisory)"),
        (Some(w), Some(c)) if w == c => item("policy", "", Status::Ok, format!("{POLICY_PATH} is HEAD's")),
        (Some(_), None) => item(
            "policy",
            "",
            Status::Fault,
            format!("{POLICY_PATH} is not committed: the hooks judge by HEAD's (none: the default), CI by the range's base"),
        )
        .remedy(format!("commit it (git add {POLICY_PATH} && git commit)")),
        (None, Some(_)) => item(
            "policy",
            "",
            Status::Fault,
            format!("{POLICY_PATH} is deleted from the work tree: the hooks still judge by HEAD's"),
        )
        .remedy(format!("restore it (git checkout HEAD -- {POLICY_PATH})")),
        (Some(_), Some(_)) => item(
            "policy",
            "",
            Status::Fault,
            format!("{POLICY_PATH} differs from HEAD's: the hooks judge by HEAD's, tightened by it (docs/trust.md)"),
        )
        .remedy(commit_it),
    }
}

fn fsmonitor(ctx: &Ctx) -> Item {
    match crate::fingerprint::monitor_enabled(&ctx.repo) {
        Ok(false) => item("fsmonitor", "", Status::Ok, "off (gate.fsmonitor unset)"),
        Ok(true) => {
            let found = std::env::var_os("PATH").is_some_and(|p| {
                std::env::split_paths(&p).any(|d| {
                    is_executable(&d.join(format!("watchman{}", std::env::consts::EXE_SUFFIX)))
                })
            });
            if found {
                item(
                    "fsmonitor",
                    "",
                    Status::Ok,
                    "watchman (gate.fsmonitor), on PATH",
                )
            } else {
                item("fsmonitor", "", Status::Fault, "gate.fsmonitor is watchman, but no watchman is on PATH: every run stats every file")
                    .remedy("install watchman, or git config --unset gate.fsmonitor")
            }
        }
        Err(e) => item("fsmonitor", "", Status::Fault, e.to_string())
            .remedy("git config gate.fsmonitor watchman, or git config --unset gate.fsmonitor"),
    }
}

/// Each configured remote's default branch, as pushes read it to find the
/// rules they meet (docs/trust.md): `refs/remotes/<remote>/HEAD`. Missing,
/// a push asks the remote each time, and guesses `main` or `master` when
/// it cannot: a warning, with the command that records it.
fn remote_heads(ctx: &Ctx) -> Vec<Item> {
    let set_head = |remote: &str| format!("git fetch {remote} && git remote set-head {remote} -a");
    ctx.repo
        .remote_names()
        .into_iter()
        .filter(|r| crate::git::is_remote_name(r))
        .map(|remote| {
            let head = format!("refs/remotes/{remote}/HEAD");
            let target = match ctx.repo.symbolic_target(&head) {
                Ok(t) => t,
                Err(e) => {
                    return item("remote_head", &remote, Status::Unknown, e.to_string())
                        .remedy("repair the repository's refs (git fsck), then run gate doctor again");
                }
            };
            match (target, ctx.repo.resolve_commit(&head)) {
                (Some(target), Ok(id)) => item(
                    "remote_head",
                    &remote,
                    Status::Ok,
                    format!(
                        "{remote}/HEAD is {} ({}): pushes to {remote} meet its policy",
                        target.strip_prefix("refs/remotes/").unwrap_or(&target),
                        id.short()
                    ),
                ),
                (None, Ok(id)) => item(
                    "remote_head",
                    &remote,
                    Status::Ok,
                    format!("{head} is {}: pushes to {remote} meet its policy", id.short()),
                ),
                (Some(target), Err(_)) => item(
                    "remote_head",
                    &remote,
                    Status::Warn,
                    format!("{head} names {target}, which is not here: pushes to {remote} ask it for its default branch each time (git ls-remote), and guess main or master when they cannot"),
                )
                .remedy(set_head(&remote)),
                (None, Err(_)) => item(
                    "remote_head",
                    &remote,
                    Status::Warn,
                    format!("{head} is not set: pushes to {remote} ask it for its default branch each time (git ls-remote), and guess main or master when they cannot"),
                )
                .remedy(set_head(&remote)),
            }
        })
        .collect()
}

/// The policy's `provenance.upstream`, when it names one: what it resolves
/// to here, as the checks resolve it (`provenance::resolve_upstream`), or
/// a fault: every range that needs it is unknown (`upstream_unavailable`).
/// The policy is the one the hooks judge with; one that cannot be read is
/// the `policy` item's fault already.
fn upstream(ctx: &Ctx) -> Option<Item> {
    let (policy, _) = crate::checks::trusted::local(ctx, false).ok()?;
    let name = policy.policy.provenance.upstream?;
    Some(match crate::provenance::resolve_upstream(&ctx.repo, &name) {
        Ok(found) => item(
            "upstream",
            "",
            Status::Ok,
            format!(
                "provenance.upstream {name} resolves to {}",
                found
                    .iter()
                    .map(|(at, id)| format!("{at} ({})", id.short()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ),
        Err(e @ (crate::git::GitError::UnknownRevision { .. }
        | crate::git::GitError::MissingObject { .. })) => item(
            "upstream",
            "",
            Status::Fault,
            format!("provenance.upstream {name} does not resolve here ({e}): every range that needs it is unknown (upstream_unavailable)"),
        )
        .remedy(fetch_upstream(ctx, &name)),
        Err(e) => item("upstream", "", Status::Unknown, e.to_string()).remedy(
            "repair the repository (git fsck), or correct provenance.upstream in .gate/policy.yaml",
        ),
    })
}

/// The fetch that brings `name` (a full ref name) here: a remote-tracking
/// ref or a branch from its remote (a branch is read from the remote's
/// copy), any other ref into the same name from the remote this clone uses.
fn fetch_upstream(ctx: &Ctx, name: &str) -> String {
    let remotes = ctx.repo.remote_names();
    let correct = "or correct provenance.upstream in .gate/policy.yaml";
    if let Some(rest) = name.strip_prefix("refs/remotes/")
        && let Some(remote) = remotes
            .iter()
            .filter(|r| rest.starts_with(&format!("{r}/")))
            .max_by_key(|r| r.len())
    {
        return format!("git fetch {remote}, {correct}");
    }
    let default = ctx.repo.default_remote();
    let Some(remote) = remotes.iter().find(|r| **r == default).or(remotes.first()) else {
        return format!("no remote is configured to fetch it from: create {name} here, {correct}");
    };
    // A branch is read from the remote's copy (`refs/remotes/<remote>/X`),
    // which a plain fetch brings.
    if name.starts_with("refs/heads/") {
        return format!("git fetch {remote}, {correct}");
    }
    format!("git fetch {remote} {name}:{name}, {correct}")
}
