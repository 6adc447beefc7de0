//! `gate init`: write `.gate/policy.yaml` (the embedded default, commented),
//! `.gate/plan.yaml` (a commented example plan) and the JSON Schemas of
//! gate's files under `.gate/schema/`, which the two YAML files name in
//! their first line so editors validate them (docs/schema.md). Existing
//! files are kept unless `--force` is given.
//!
//! `gate init --agents` puts the loop an agent follows (docs/agents.md) into
//! `AGENTS.md` between two marker lines (`crate::agents_md`) — created,
//! appended, or replaced between its markers, the rest of the file kept
//! byte for byte, atomically; `--print` prints the block instead.

use std::path::Path;

use crate::agents_md::{
    AGENTS_BEGIN, AGENTS_END, AGENTS_PATH, Spliced, agents_block, splice_agents,
};
use crate::cli::InitArgs;
use crate::ctx::Ctx;
use crate::error::Failure;
use crate::fsutil;
use crate::report::human::{self, Written};
use crate::schema::{self, Document};
use crate::ui::Answer;
use crate::verdict::ExitCode;

/// The example plan `gate init` writes.
pub const EXAMPLE_PLAN: &str = include_str!("../../policy/plan.example.yaml");

pub fn run(dir: Option<&Path>, args: &InitArgs) -> Result<Answer, Failure> {
    let ctx = Ctx::open(dir)?;
    if args.agents {
        return agents(&ctx, args.print);
    }
    // The signed way (docs/receipts.md, "Signed receipts"): with a signing
    // key configured, the policy names a signers file that lists it.
    let mut policy = crate::policy::DEFAULT_POLICY_YAML.to_string();
    let mut signers = None;
    let mut signing_note = None;
    match crate::signing::config(|k| ctx.repo.config_string(k)) {
        Ok(Some(config)) => {
            let email = ctx.repo.config_string("user.email").unwrap_or_default();
            match crate::signing::signers_file(&config, &email) {
                Ok((rel, bytes)) => {
                    policy = policy.replace(
                        "  # signers: .gate/allowed_signers\n",
                        &format!("  signers: {rel}\n"),
                    );
                    signers = Some((rel.to_string(), bytes));
                }
                Err(why) => signing_note = Some(why),
            }
        }
        Ok(None) => {}
        Err(why) => signing_note = Some(why),
    }
    let mut files = vec![(
        crate::policy::POLICY_PATH.to_string(),
        (schema::modeline(Document::Policy) + &policy).into_bytes(),
    )];
    if let Some((rel, bytes)) = signers {
        files.push((rel, bytes));
    }
    files.extend([(
        crate::plan::PLAN_PATH.to_string(),
        (schema::modeline(Document::Plan) + EXAMPLE_PLAN).into_bytes(),
    )]);
    for document in Document::ALL {
        files.push((document.path(), schema::text(document).into_bytes()));
    }
    let mut done = Vec::new();
    for (rel, content) in &files {
        let path = ctx.root().join(rel);
        if path.exists() && !args.force {
            done.push((rel.as_str(), Written::Kept));
            continue;
        }
        let written = if path.exists() {
            Written::Overwrote
        } else {
            Written::Wrote
        };
        // Never through a link: a `.gate` that is one is refused, named.
        fsutil::write_within(
            ctx.root(),
            Path::new(rel),
            content,
            None,
            Some(&ctx.state_dir().join("tmp")),
        )?;
        done.push((rel.as_str(), written));
    }
    let answer = Answer::text(ExitCode::Pass, human::initialised(&done));
    Ok(match signing_note {
        Some(why) => answer.then_err(human::init_signers_not_set(&why)),
        None => answer,
    })
}

/// `gate init --agents [--print]`: the block, printed, or put into AGENTS.md.
fn agents(ctx: &Ctx, print: bool) -> Result<Answer, Failure> {
    let block = agents_block();
    if print {
        return Ok(Answer::text(ExitCode::Pass, block));
    }
    let path = ctx.root().join(AGENTS_PATH);
    let existing = crate::load::read_bytes_optional_as(Path::new(AGENTS_PATH), &path)
        .map_err(|e| Failure::unknown(e.to_string()))?;
    let (bytes, how) = splice_agents(existing.as_deref(), &block).map_err(|m| {
        Failure::refused(format!("{AGENTS_PATH}: {m}; nothing was written")).hint(format!(
            "leave one `{AGENTS_BEGIN}` line and one `{AGENTS_END}` line after it (or remove both), then run `gate init --agents` again"
        ))
    })?;
    if how != Spliced::Current {
        // Never through a link, and atomically: a reader sees the old file or the new.
        fsutil::write_within(
            ctx.root(),
            Path::new(AGENTS_PATH),
            &bytes,
            None,
            Some(&ctx.state_dir().join("tmp")),
        )?;
    }
    let route =
        crate::checks::scope::commit_route(ctx, &[crate::path::RepoPath::from(AGENTS_PATH)]);
    Ok(Answer::text(
        ExitCode::Pass,
        human::agents_spliced(how, &route),
    ))
}
