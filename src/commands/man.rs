//! `gate man [--out DIR]`: gate's manual pages, made by clap_mangen from
//! the same definitions as `--help` (docs/install.md). Without `--out`,
//! gate(1) on stdout; with it, gate.1 and one page per command
//! (`gate-check.1`, `gate-task-amend.1`, …), each written atomically, as
//! `clap_mangen::generate_to` names them. Needs no repository.

use std::path::Path;

use clap::CommandFactory;

use crate::cli::{Cli, ManArgs};
use crate::error::Failure;
use crate::ui::Answer;
use crate::verdict::ExitCode;

pub fn run(args: &ManArgs) -> Result<Answer, Failure> {
    let said = match &args.out {
        // gate(1) alone: the other pages are not rendered.
        None => {
            let pages = pages(false)?;
            let (_, gate) = pages.first().expect("the top-level page is always made");
            gate.clone()
        }
        Some(dir) => {
            let pages = pages(true)?;
            write(dir, &pages)?;
            let mut said = String::new();
            for (name, _) in &pages {
                said.push_str(&format!(
                    "wrote {}\n",
                    dir.join(format!("{name}.1")).display()
                ));
            }
            said
        }
    };
    Ok(Answer::text(ExitCode::Pass, said))
}

/// The pages: `(name, roff)`, the top-level `gate` first, then — with
/// `all` — each command that is not hidden, depth first.
fn pages(all: bool) -> Result<Vec<(String, String)>, Failure> {
    fn collect(
        command: &clap::Command,
        all: bool,
        pages: &mut Vec<(String, String)>,
    ) -> Result<(), Failure> {
        let mut roff = Vec::new();
        clap_mangen::Man::new(command.clone())
            .render(&mut roff)
            .map_err(|e| Failure::unknown(format!("cannot render a manual page: {e}")))?;
        let roff = String::from_utf8(roff)
            .map_err(|e| Failure::unknown(format!("a manual page is not UTF-8: {e}")))?;
        let name = command
            .get_display_name()
            .unwrap_or(command.get_name())
            .to_string();
        pages.push((name, roff));
        if all {
            for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
                collect(sub, all, pages)?;
            }
        }
        Ok(())
    }
    let mut command = Cli::command().disable_help_subcommand(true);
    command.build();
    let mut pages = Vec::new();
    collect(&command, all, &mut pages)?;
    Ok(pages)
}

fn write(dir: &Path, pages: &[(String, String)]) -> Result<(), Failure> {
    std::fs::create_dir_all(dir).map_err(|e| {
        Failure::unknown(format!("cannot make {}: {e}", dir.display()))
            .hint("name a directory gate can create and write")
    })?;
    for (name, roff) in pages {
        let path = dir.join(format!("{name}.1"));
        crate::fsutil::write_atomic(&path, roff.as_bytes(), None).map_err(|e| {
            Failure::unknown(format!("cannot write {}: {e}", path.display()))
                .hint("name a directory gate can write")
        })?;
    }
    Ok(())
}
