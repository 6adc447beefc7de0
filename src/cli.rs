//! Command-line definitions (clap derive) and nothing else: no I/O, no
//! decisions. Each verb's arguments are handed to its module in `commands/`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Prove that work stays in the issue it names, every pushed commit is
/// accounted for, and acceptance checks ran on exactly this code.
#[derive(Debug, Parser)]
#[command(name = "gate", version, max_term_width = 100)]
pub struct Cli {
    /// Run as if gate was started in DIR
    #[arg(short = 'C', value_name = "DIR", global = true)]
    pub dir: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Write .gate/policy.yaml and an example plan
    Init(InitArgs),
    /// Install the pre-commit, prepare-commit-msg, pre-push and post-checkout hooks
    Install(InstallArgs),
    /// Remove gate's hooks and restore the hooks they chained
    Uninstall(UninstallArgs),
    /// Run the checks under the policy and report
    Check(CheckArgs),
    /// Entry points called by the installed git hooks and agent hooks
    #[command(subcommand)]
    Hook(HookVerb),
    /// Start a task: name what it serves, keep the brief, make it active
    Start(StartArgs),
    /// List, show, switch, amend, ask, note, finish, abandon and validate tasks
    #[command(subcommand)]
    Task(TaskCommand),
    /// Work with .gate/plan.yaml
    #[command(subcommand)]
    Plan(PlanCommand),
    /// Ask what a naming serves and whether work may start (read-only)
    Binding(BindingArgs),
    /// Record the binding pins and print the handover; --resolve asks again
    Handover(HandoverArgs),
    /// Run an acceptance check and record a receipt bound to the sources
    Verify(VerifyArgs),
    /// Show each acceptance check the task depends on: passed, failed, stale, running, missing
    Status(StatusArgs),
    /// Everything a worker needs before touching anything: task, brief, scope, intent, criteria, next steps
    Context(ContextArgs),
    /// Say whether the active task may touch each path, and why
    MayTouch(MayTouchArgs),
    /// Fetch or push the receipts recorded on commits (refs/notes/gate)
    #[command(subcommand)]
    Receipts(ReceiptsCommand),
    /// Check that gate is installed and its files are sound here, with the remedy for each fault
    Doctor(DoctorArgs),
    /// Print the JSON Schema of a gate file, for editors and agents
    Schema(SchemaArgs),
    /// Print a completion script for a shell: bash, zsh, fish, powershell or elvish
    Completions(CompletionsArgs),
    /// Print gate's manual page (roff), or write a page per command into a directory
    Man(ManArgs),
    /// Serve the agent's questions and appends as MCP tools on stdin/stdout
    Mcp,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell the script is for
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write gate.1 and a page for each command (gate-check.1, gate-task-amend.1, …) into DIR instead of printing gate.1
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// The file described: .gate/policy.yaml, .gate/plan.yaml or a task's front matter
    #[arg(value_enum)]
    pub document: SchemaDocument,
}

/// The files `gate schema` describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SchemaDocument {
    Policy,
    Plan,
    Task,
}

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Print one JSON document (schema gate.doctor/1)
    #[arg(long)]
    pub json: bool,
}

/// What the work serves, as `gate binding` and `gate start` take it.
#[derive(Debug, Args)]
pub struct NamingArgs {
    /// The plan issue the work serves
    #[arg(long, value_name = "ID")]
    pub issue: Option<String>,
    /// The plan intent the work serves
    #[arg(long, value_name = "ID")]
    pub intent: Option<String>,
    /// Paths the work will touch (names the one open issue covering them)
    #[arg(long = "path", value_name = "P")]
    pub paths: Vec<String>,
    /// A declared exemption class (needs --because)
    #[arg(long, value_name = "CLASS")]
    pub exempt: Option<String>,
    /// Why the exemption applies
    #[arg(long, value_name = "REASON", requires = "exempt")]
    pub because: Option<String>,
}

#[derive(Debug, Args)]
pub struct BindingArgs {
    #[command(flatten)]
    pub naming: NamingArgs,
    /// Print one JSON document (schema gate.binding/1)
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct HandoverArgs {
    /// The task (default: the active task)
    #[arg(long, value_name = "ID")]
    pub task: Option<String>,
    /// Ask the binding again and compare with the recorded pins; writes nothing
    #[arg(long)]
    pub resolve: bool,
    /// Print one JSON document (schema gate.handover/1)
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The acceptance check to run (its command comes from the plan, never from here)
    pub check: String,
    /// The task the run is for (default: the active task)
    #[arg(long, value_name = "ID")]
    pub task: Option<String>,
    /// Print one JSON document (schema gate.verify/1); the command's output goes to stderr
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct StatusArgs {
    /// The task (default: the active task)
    #[arg(long, value_name = "ID")]
    pub task: Option<String>,
    /// Print one JSON document (schema gate.status/1)
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ContextArgs {
    /// The task (default: the active task)
    #[arg(long, value_name = "ID")]
    pub task: Option<String>,
    /// Print one JSON document (schema gate.context/1)
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct MayTouchArgs {
    /// The paths, relative to the current directory (`:/` for the root, or absolute)
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<String>,
    /// Print one JSON document (schema gate.may-touch/1)
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct InitArgs {
    /// Overwrite files that already exist
    #[arg(long, conflicts_with = "agents")]
    pub force: bool,
    /// Put the agent's loop into AGENTS.md, between gate's markers (the rest is kept)
    #[arg(long)]
    pub agents: bool,
    /// With --agents: print the block instead of writing it
    #[arg(long, requires = "agents")]
    pub print: bool,
}

#[derive(Debug, Args)]
pub struct InstallArgs {
    /// Record this gate binary in the hooks instead of the running one
    #[arg(long, value_name = "PATH")]
    pub binary: Option<PathBuf>,
    /// Install into a core.hooksPath outside the repository (shared by others)
    #[arg(long)]
    pub global: bool,
    /// Repair a chain another tool broke (see docs/hooks.md)
    #[arg(long)]
    pub force: bool,
    /// Install an agent's hooks instead of git's (docs/agents.md)
    #[arg(long, value_enum, value_name = "AGENT", conflicts_with_all = ["global", "force"])]
    pub agent: Option<Agent>,
}

#[derive(Debug, Args)]
pub struct UninstallArgs {
    /// Remove an agent's hooks instead of git's (docs/agents.md)
    #[arg(long, value_enum, value_name = "AGENT")]
    pub agent: Option<Agent>,
}

/// The agents whose hooks gate installs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Agent {
    /// Claude Code: gate's entries in .claude/settings.json
    ClaudeCode,
    /// Cursor: gate's entries in .cursor/hooks.json
    Cursor,
    /// Gemini CLI: gate's entries in .gemini/settings.json
    GeminiCli,
    /// Codex CLI: gate's entries in .codex/hooks.json
    Codex,
    /// GitHub Copilot (CLI and cloud agent): .github/hooks/gate.json
    Copilot,
}

impl Agent {
    /// Its name on the command line (`gate hook NAME …`).
    pub fn name(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Cursor => "cursor",
            Agent::GeminiCli => "gemini-cli",
            Agent::Codex => "codex",
            Agent::Copilot => "copilot",
        }
    }
}

/// The checks `--only` (and the MCP `check` tool's `only`) can name.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, ValueEnum, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum CheckName {
    Scope,
    Provenance,
    Receipts,
    Binding,
    Brief,
}

impl CheckName {
    pub fn as_str(self) -> &'static str {
        match self {
            CheckName::Scope => "scope",
            CheckName::Provenance => "provenance",
            CheckName::Receipts => "receipts",
            CheckName::Binding => "binding",
            CheckName::Brief => "brief",
        }
    }
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Check the staged changes against HEAD (what pre-commit runs)
    #[arg(long, conflicts_with = "range")]
    pub staged: bool,
    /// Check every commit in the range A..B
    #[arg(long, value_name = "A..B")]
    pub range: Option<String>,
    /// Leave out the commits REV holds too (repeatable): what the target already has
    #[arg(long = "not", value_name = "REV", requires = "range")]
    pub not: Vec<String>,
    /// Judge the range with the policy at REV (default: the range's base)
    #[arg(long, value_name = "REV", requires = "range")]
    pub policy_from: Option<String>,
    /// Run here, on the range's tip, each check no verified receipt proves
    #[arg(long, requires = "range")]
    pub run_unproved: bool,
    /// The task to check (default: the worktree's active task)
    #[arg(long, value_name = "ID")]
    pub task: Option<String>,
    /// Run only these checks
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub only: Vec<CheckName>,
    /// Print one JSON document (schema gate.report/1); the same as --format json
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// How to print the report (docs/ci.md#report-formats)
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<ReportFormat>,
    /// List at most N findings, then count them all (not in json, sarif)
    #[arg(long, value_name = "N")]
    pub max_findings: Option<usize>,
    /// Also write the JSON report (gate.report/1) to FILE, replacing it
    #[arg(long, value_name = "FILE")]
    pub json_out: Option<std::path::PathBuf>,
    /// Also write the SARIF log (every finding) to FILE, replacing it
    #[arg(long, value_name = "FILE")]
    pub sarif_out: Option<std::path::PathBuf>,
}

/// The renderings of a `gate check` report (docs/ci.md#report-formats).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    // For people (the default)
    Human,
    // One gate.report/1 document, the canonical one (docs/json.md)
    Json,
    // GitHub Actions annotations, and a job summary in $GITHUB_STEP_SUMMARY
    Github,
    // A Markdown summary: checks, findings by cause, commits
    Markdown,
    // SARIF 2.1.0, one result per finding
    Sarif,
}

impl CheckArgs {
    /// The format asked for: `--json` is `--format json`.
    pub fn format(&self) -> ReportFormat {
        match (self.json, self.format) {
            (true, _) => ReportFormat::Json,
            (false, Some(f)) => f,
            (false, None) => ReportFormat::Human,
        }
    }
}

/// `gate hook …`: the git hooks' entry points, and the agents'.
#[derive(Debug, Subcommand)]
pub enum HookVerb {
    #[command(flatten)]
    Git(HookCommand),
    /// Called by Claude Code's hooks, with its JSON on stdin (docs/agents.md)
    #[command(subcommand)]
    ClaudeCode(AgentEvent),
    /// Called by Cursor's hooks (.cursor/hooks.json), with its JSON on stdin
    #[command(subcommand)]
    Cursor(AgentEvent),
    /// Called by Gemini CLI's hooks (.gemini/settings.json), with its JSON on stdin
    #[command(subcommand)]
    GeminiCli(AgentEvent),
    /// Called by Codex CLI's hooks (.codex/hooks.json), with its JSON on stdin
    #[command(subcommand)]
    Codex(AgentEvent),
    /// Called by GitHub Copilot's hooks (.github/hooks/gate.json), with its JSON on stdin
    #[command(subcommand)]
    Copilot(AgentEvent),
}

impl HookVerb {
    /// The agent host and event of an agent's hook; `None` for git's.
    pub fn agent(&self) -> Option<(Agent, &AgentEvent)> {
        match self {
            HookVerb::Git(_) => None,
            HookVerb::ClaudeCode(e) => Some((Agent::ClaudeCode, e)),
            HookVerb::Cursor(e) => Some((Agent::Cursor, e)),
            HookVerb::GeminiCli(e) => Some((Agent::GeminiCli, e)),
            HookVerb::Codex(e) => Some((Agent::Codex, e)),
            HookVerb::Copilot(e) => Some((Agent::Copilot, e)),
        }
    }
}

/// The agent hook events gate answers, whatever the host calls them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Subcommand)]
pub enum AgentEvent {
    /// Before a tool runs: deny a write outside the task's scope, or a git command skipping gate's hooks
    PreToolUse,
    /// When the agent would stop: keep it working while the task's checks have not passed
    Stop,
}

#[derive(Debug, Subcommand)]
pub enum HookCommand {
    /// Called by git before a commit: scope of the staged changes
    PreCommit,
    /// Called by git before a push, with the refs on stdin
    PrePush {
        /// The remote's name (or its URL when pushing to a URL)
        remote: String,
        /// The remote's URL
        url: String,
    },
    /// Called by git before the message editor: adds the active task's trailer
    PrepareCommitMsg {
        /// The file holding the message
        file: PathBuf,
        /// Where the message came from (message, template, merge, squash, commit)
        source: Option<String>,
        /// The commit whose message is reused (-c, -C, --amend)
        commit: Option<String>,
    },
    /// Called by git after a checkout; never fails
    PostCheckout {
        /// The previous HEAD
        old: String,
        /// The new HEAD
        new: String,
        /// 1 for a branch checkout, 0 for a file checkout
        flag: String,
    },
}

#[derive(Debug, Args)]
pub struct StartArgs {
    #[command(flatten)]
    pub naming: NamingArgs,
    /// The task id (default: `T-<what is named>-` and 5 fresh characters; an id in use is refused)
    #[arg(long, value_name = "ID")]
    pub id: Option<String>,
    /// Scope globs (default: the named issue's paths)
    #[arg(long = "scope", value_name = "GLOB")]
    pub scope: Vec<String>,
    /// The operator's request, verbatim: a file, or - for stdin
    #[arg(long, value_name = "FILE|-")]
    pub brief: Option<String>,
    /// Who asked for the work (default: git user.name)
    #[arg(long, value_name = "NAME")]
    pub operator: Option<String>,
    /// Print one JSON document (schema gate.start/1)
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum TaskCommand {
    /// List the tasks in .gate/tasks
    List {
        /// Print one JSON document (schema gate.tasks/1)
        #[arg(long)]
        json: bool,
    },
    /// Show a task: its record, the whole brief and every addendum
    Show {
        /// The task (default: the active task)
        id: Option<String>,
    },
    /// Make a task this worktree's active task
    Switch {
        /// The task to activate
        id: String,
    },
    /// Append the operator's clarification, verbatim, to the addenda
    Amend(AmendArgs),
    /// Record a question and its answer, and who decided, in the addenda
    Ask(AskArgs),
    /// Append to the implementation notes (where the work diverges, and why)
    Note(NoteArgs),
    /// Mark a task completed
    Finish {
        /// The task (default: the active task)
        id: Option<String>,
        /// Print one JSON document (schema gate.task-change/1)
        #[arg(long)]
        json: bool,
    },
    /// Mark a task abandoned, saying why
    Abandon {
        /// The task (default: the active task)
        id: Option<String>,
        /// Why the task is abandoned
        #[arg(long, value_name = "REASON")]
        because: String,
        /// Print one JSON document (schema gate.task-change/1)
        #[arg(long)]
        json: bool,
    },
    /// Validate task files: record, brief, addenda and qa entries
    Validate(ValidateArgs),
    /// Widen a task's scope by an appended, signed addendum
    #[command(subcommand)]
    Scope(ScopeCommand),
}

#[derive(Debug, Subcommand)]
pub enum ScopeCommand {
    /// Add a glob to the task's scope, saying why (append-only)
    Add(ScopeAddArgs),
}

#[derive(Debug, Args)]
pub struct ScopeAddArgs {
    /// The glob to add, relative to the current directory (`:/` for the root)
    #[arg(value_name = "GLOB")]
    pub glob: String,
    /// Why the task needs it
    #[arg(long, value_name = "REASON")]
    pub because: String,
    /// The task (default: the active task)
    #[arg(long, value_name = "ID")]
    pub task: Option<String>,
    /// Who adds it (default: git user.name)
    #[arg(long, value_name = "A")]
    pub author: Option<String>,
    /// Print one JSON document (schema gate.task-change/1)
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct AmendArgs {
    /// The task (default: the active task)
    pub id: Option<String>,
    /// Who is amending (the operator)
    #[arg(long, value_name = "A")]
    pub author: String,
    /// The clarification, verbatim
    #[arg(
        long,
        value_name = "T",
        conflicts_with = "file",
        required_unless_present = "file"
    )]
    pub text: Option<String>,
    /// Read the clarification from a file, or - for stdin
    #[arg(long, value_name = "F")]
    pub file: Option<String>,
    /// Print one JSON document (schema gate.task-change/1)
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DecidedBy {
    Operator,
    Agent,
}

#[derive(Debug, Args)]
pub struct AskArgs {
    /// The task (default: the active task)
    pub id: Option<String>,
    /// The stage the question came up in (requirements, design, …)
    #[arg(long, value_name = "S")]
    pub stage: String,
    /// The question, verbatim, from a file (or - for stdin)
    #[arg(long, value_name = "F")]
    pub question_file: String,
    /// The answer, verbatim, from a file (or - for stdin)
    #[arg(long, value_name = "F")]
    pub answer_file: String,
    /// Who decided: the operator, or the agent alone
    #[arg(long, value_name = "WHO")]
    pub decided_by: DecidedBy,
    /// Why the agent decided as it did (at least 50 non-whitespace characters; required for agent)
    #[arg(long, value_name = "F")]
    pub rationale_file: Option<String>,
    /// One line: how this changes the initial conditions
    #[arg(long, value_name = "S")]
    pub summary: String,
    /// What it contradicts, or none
    #[arg(long, value_name = "TEXT", default_value = "none")]
    pub conflict: String,
    /// The round of the agent's conflicting decision this operator's answer closes
    #[arg(long, value_name = "ROUND")]
    pub resolves: Option<usize>,
    /// Who records it (default: git user.name)
    #[arg(long, value_name = "A")]
    pub author: Option<String>,
    /// Print one JSON document (schema gate.task-change/1)
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct NoteArgs {
    /// The task (default: the active task)
    pub id: Option<String>,
    /// The note
    #[arg(long, value_name = "T")]
    pub text: String,
    /// Who writes it (default: git user.name)
    #[arg(long, value_name = "A")]
    pub author: Option<String>,
    /// Print one JSON document (schema gate.task-change/1)
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// The task to validate
    #[arg(
        long,
        value_name = "ID",
        conflicts_with = "all",
        required_unless_present = "all"
    )]
    pub task: Option<String>,
    /// Validate every active task (exit 1 only on a blocker)
    #[arg(long)]
    pub all: bool,
    /// The date the 30-day window is measured to (default: today, UTC)
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub today: Option<String>,
    /// Print one JSON document (schema gate.report/1)
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum ReceiptsCommand {
    /// Fetch a remote's refs/notes/gate and merge it into this clone's
    Fetch(ReceiptsArgs),
    /// Merge a remote's refs/notes/gate into this clone's, then push it there
    Push(ReceiptsArgs),
    /// Judge an update of refs/notes/gate from OLD to NEW as receipts (a server's update hook)
    Accept(AcceptArgs),
}

#[derive(Debug, Args)]
pub struct AcceptArgs {
    /// The notes commit the ref held (all zeros: none)
    pub old: String,
    /// The notes commit it would hold (all zeros: a deletion)
    pub new: String,
    /// Print one JSON document (schema gate.receipts/1)
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ReceiptsArgs {
    /// A configured remote or a URL [default: the current branch's remote, else origin]
    pub remote: Option<String>,
    /// Print one JSON document (schema gate.receipts/1)
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum PlanCommand {
    /// Report every fault in .gate/plan.yaml
    Validate {
        /// Print one JSON document (schema gate.report/1)
        #[arg(long)]
        json: bool,
    },
    /// Print the critique entry an intent's review records (its intent_revision, today)
    Critique(CritiqueArgs),
}

#[derive(Debug, Args)]
pub struct CritiqueArgs {
    /// The intent reviewed
    pub intent: String,
    /// Add the entry to .gate/plan.yaml (refused when the intent has a critique)
    #[arg(long)]
    pub write: bool,
    /// With --write: put the entry in place of the intent's one critique
    #[arg(long, requires = "write")]
    pub replace: bool,
    /// The review's date (default: today, UTC)
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub today: Option<String>,
    /// Who reviewed (default: git user.name)
    #[arg(long, value_name = "NAME")]
    pub by: Option<String>,
    /// Print one JSON document (schema gate.critique/1)
    #[arg(long)]
    pub json: bool,
}
