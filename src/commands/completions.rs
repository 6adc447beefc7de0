//! `gate completions SHELL`: print the shell's completion script, made by
//! clap_complete from the same definitions as `--help` (docs/install.md).
//! Needs no repository.

use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs};
use crate::error::Failure;
use crate::ui::Answer;
use crate::verdict::ExitCode;

pub fn run(args: &CompletionsArgs) -> Result<Answer, Failure> {
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "gate", &mut script);
    let script = String::from_utf8(script)
        .map_err(|e| Failure::unknown(format!("the completion script is not UTF-8: {e}")))?;
    Ok(Answer::text(ExitCode::Pass, script))
}
