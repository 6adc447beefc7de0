//! One module per verb. Each loads its inputs (`crate::ctx`), calls the
//! checks (`crate::checks`) or the cores, and returns an [`Answer`] — its
//! exit code and what it has to say, as data — or a [`Failure`]; it writes
//! nothing itself, and what it says while it runs goes through the
//! [`Ui`] passed down. [`run`] renders the answer in the format the command
//! line asked for, with `crate::report` (`human`, `json`), and prints
//! errors, in one place; `gate mcp` calls the same [`answer`]. A verb never
//! names another verb: what two verbs share lives below them
//! (tests/integration/architecture.rs).

pub mod agent_hook;
pub mod binding;
pub mod check;
pub mod completions;
pub mod context;
pub mod doctor;
pub mod handover;
pub mod hook;
pub mod init;
pub mod install;
pub mod man;
pub mod may_touch;
pub mod mcp;
pub mod plan;
pub mod receipts;
pub mod schema;
pub mod start;
pub mod status;
pub mod task;
pub mod verify;

use std::path::Path;

use crate::error::Failure;
use crate::ui::{Answer, Ui};

use crate::cli::{Cli, Command, HookVerb};

/// Whether the command line asked for `--json`: then stdout holds exactly
/// one JSON document in every outcome, a `gate.error/1` when the verb could
/// not run (docs/json.md).
pub fn wants_json(command: &Command) -> bool {
    use crate::cli::{PlanCommand, ReceiptsCommand, TaskCommand};
    match command {
        Command::Check(a) => a.format() == crate::cli::ReportFormat::Json,
        Command::Binding(a) => a.json,
        Command::Handover(a) => a.json,
        Command::Status(a) => a.json,
        Command::Start(a) => a.json,
        Command::Verify(a) => a.json,
        Command::Doctor(a) => a.json,
        Command::Receipts(ReceiptsCommand::Fetch(a) | ReceiptsCommand::Push(a)) => a.json,
        Command::Receipts(ReceiptsCommand::Accept(a)) => a.json,
        Command::Context(a) => a.json,
        Command::MayTouch(a) => a.json,
        Command::Task(TaskCommand::List { json }) => *json,
        Command::Task(TaskCommand::Validate(a)) => a.json,
        Command::Task(TaskCommand::Amend(a)) => a.json,
        Command::Task(TaskCommand::Ask(a)) => a.json,
        Command::Task(TaskCommand::Note(a)) => a.json,
        Command::Task(TaskCommand::Finish { json, .. }) => *json,
        Command::Task(TaskCommand::Abandon { json, .. }) => *json,
        Command::Task(TaskCommand::Scope(crate::cli::ScopeCommand::Add(a))) => a.json,
        Command::Plan(PlanCommand::Validate { json }) => *json,
        Command::Plan(PlanCommand::Critique(a)) => a.json,
        _ => false,
    }
}

/// A command line clap refused (or `--help`, `--version`): clap prints it
/// as usual; a refusal of one that asked for `--json` or `--format json`
/// (before any `--`) is also a `gate.error/1` on stdout, so `--json` keeps
/// its promise even when the rest of the line is wrong (docs/json.md).
/// Returns the exit code.
pub fn command_line_error(e: &clap::Error, args: &[std::ffi::OsString], ui: &Ui) -> i32 {
    use clap::error::ErrorKind;
    let informational = matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion);
    let line: Vec<_> = args.iter().skip(1).take_while(|a| *a != "--").collect();
    let json = line.iter().any(|a| *a == "--json" || *a == "--format=json")
        || line
            .windows(2)
            .any(|w| w[0] == "--format" && w[1] == "json");
    if json && !informational {
        let message = match e.kind() {
            // clap prints the help here, not a sentence.
            ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                "the command line names no verb to run".to_string()
            }
            _ => e
                .render()
                .to_string()
                .lines()
                .next()
                .unwrap_or_default()
                .trim_start_matches("error: ")
                .to_string(),
        };
        let failure = Failure::usage(message).hint("`gate help` lists the verbs and their flags");
        ui.out(&crate::report::json::to_string(
            &crate::report::json::error(&failure),
        ));
    }
    let _ = e.print();
    e.exit_code()
}

/// Run a parsed command line through `ui`; returns the exit code: the
/// answer's [`ExitCode`](crate::verdict::ExitCode), or a failure's code.
/// The answer is rendered here, once, in the format asked for.
pub fn run(cli: Cli, ui: &Ui) -> i32 {
    let json = wants_json(&cli.command);
    match answer(cli.dir.as_deref(), cli.command, ui) {
        Ok(answer) => answer.render(ui, json),
        Err(f) => {
            if json {
                ui.out(&crate::report::json::to_string(
                    &crate::report::json::error(&f),
                ));
            }
            ui.err(&crate::report::human::failure(&f));
            f.code.code()
        }
    }
}

/// Run a verb: its answer, or why it could not run. What it says while it
/// runs goes through `ui`. The CLI's [`run`] and `gate mcp` both call this.
pub fn answer(dir: Option<&Path>, command: Command, ui: &Ui) -> Result<Answer, Failure> {
    match command {
        Command::Init(args) => init::run(dir, &args),
        Command::Install(args) => install::install(dir, &args),
        Command::Uninstall(args) => install::uninstall(dir, &args),
        Command::Check(args) => check::run(dir, &args, ui),
        Command::Hook(HookVerb::Git(hook)) => hook::run(dir, &hook, ui),
        Command::Hook(verb) => match verb.agent() {
            Some((agent, event)) => agent_hook::run(dir, agent, event),
            None => unreachable!("git's hooks are matched above"),
        },
        Command::Start(args) => start::run(dir, &args, ui),
        Command::Task(cmd) => task::run(dir, &cmd, ui),
        Command::Plan(cmd) => plan::run(dir, &cmd),
        Command::Binding(args) => binding::run(dir, &args),
        Command::Handover(args) => handover::run(dir, &args),
        Command::Verify(args) => verify::run(dir, &args, ui),
        Command::Status(args) => status::run(dir, &args),
        Command::Doctor(args) => doctor::run(dir, &args),
        Command::Receipts(cmd) => receipts::run(dir, &cmd),
        Command::Context(args) => context::run(dir, &args),
        Command::MayTouch(args) => may_touch::run(dir, &args),
        Command::Schema(args) => schema::run(&args),
        Command::Completions(args) => completions::run(&args),
        Command::Man(args) => man::run(&args),
        Command::Mcp => mcp::run(dir, answer),
    }
}
