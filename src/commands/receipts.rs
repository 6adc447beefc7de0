//! `gate receipts fetch|push [REMOTE]`: the receipts recorded on commits
//! (`refs/notes/gate`) to and from a remote, merged entry by entry and
//! never overwritten (docs/receipts.md, "Receipts travel"). For CI, which
//! fetches them before `gate check --range`, and for repair after a push
//! that did not send them. Works in a bare repository too.

use std::path::Path;

use crate::cli::ReceiptsCommand;
use crate::error::Failure;
use crate::git::{GitError, Repo};
use crate::notes::{self, Fetched, NOTES_REF, Pushed, TravelError};
use crate::report::human;
use crate::report::wire::receipts::{RECEIPTS_SCHEMA, ReceiptsWire};
use crate::ui::{Answer, Shown};
use crate::verdict::ExitCode;

pub fn run(dir: Option<&Path>, cmd: &ReceiptsCommand) -> Result<Answer, Failure> {
    let start = match dir {
        Some(d) => d.to_path_buf(),
        None => std::env::current_dir()
            .map_err(|e| Failure::unknown(format!("cannot read the current directory: {e}")))?,
    };
    let repo = Repo::discover(&start)?;
    let (action, args) = match cmd {
        ReceiptsCommand::Fetch(args) => ("fetch", args),
        ReceiptsCommand::Push(args) => ("push", args),
        ReceiptsCommand::Accept(args) => return accept(&repo, args),
    };
    let remote = args.remote.clone().unwrap_or_else(|| repo.default_remote());
    let wire = match action {
        "fetch" => fetched(&remote, notes::fetch(&repo, &remote)),
        _ => pushed(&remote, notes::push(&repo, &remote)),
    }
    .map_err(|e| failure(action, &remote, e))?;
    Ok(Answer::document(ExitCode::Pass, wire))
}

/// `gate receipts accept OLD NEW`: a server's `update` hook judges an
/// update of `refs/notes/gate` as receipts, not as code (docs/ci.md, "On
/// the server"): a fast-forward of readable notes within the cap, or
/// refused (exit 1) with what gets the receipts through.
fn accept(repo: &Repo, args: &crate::cli::AcceptArgs) -> Result<Answer, Failure> {
    let id = |hex: &str| -> Result<Option<crate::git::Oid>, Failure> {
        // git's "no object": all zeros, of either hash's length.
        if (hex.len() == 40 || hex.len() == 64) && hex.bytes().all(|b| b == b'0') {
            return Ok(None);
        }
        crate::git::Oid::from_hex(hex)
            .map(Some)
            .ok_or_else(|| Failure::usage(format!("`{hex}` is not a full object id")))
    };
    let (old, new) = (id(&args.old)?, id(&args.new)?);
    notes::judge_update(repo, NOTES_REF, old, new)
        .map_err(|r| Failure::refused(r.message).hint(r.decide))?;
    let wire = ReceiptsWire {
        schema: RECEIPTS_SCHEMA,
        action: "accept",
        remote: String::new(),
        outcome: "accepted",
        remote_notes: old.map(|o| o.to_hex()),
        local_notes: new.map(|o| o.to_hex()),
        tries: None,
    };
    Ok(Answer::document(ExitCode::Pass, wire))
}

fn fetched(
    remote: &str,
    result: Result<Fetched, TravelError>,
) -> Result<ReceiptsWire, TravelError> {
    let (outcome, remote_notes, local_notes) = match result? {
        Fetched::NoneThere => ("none_there", None, None),
        Fetched::Held { remote } => ("held", Some(remote), None),
        Fetched::Merged { remote, local } => ("merged", Some(remote), Some(local)),
    };
    Ok(ReceiptsWire {
        schema: RECEIPTS_SCHEMA,
        action: "fetch",
        remote: remote.to_string(),
        outcome,
        remote_notes: remote_notes.map(|o| o.to_hex()),
        local_notes: local_notes.map(|o| o.to_hex()),
        tries: None,
    })
}

fn pushed(remote: &str, result: Result<Pushed, TravelError>) -> Result<ReceiptsWire, TravelError> {
    let (outcome, local, tries) = match result? {
        Pushed::Nothing => ("nothing", None, 1),
        Pushed::UpToDate { local, tries } => ("up_to_date", Some(local), tries),
        Pushed::Sent { local, tries } => ("pushed", Some(local), tries),
    };
    let hex = local.map(|o| o.to_hex());
    Ok(ReceiptsWire {
        schema: RECEIPTS_SCHEMA,
        action: "push",
        remote: remote.to_string(),
        outcome,
        // After a push the remote holds what this clone holds.
        remote_notes: hex.clone(),
        local_notes: hex,
        tries: Some(tries),
    })
}

/// Why the receipts did not travel, with what gets them through.
fn failure(action: &str, remote: &str, e: TravelError) -> Failure {
    let again = format!("then run `gate receipts {action} {remote}` again");
    match e {
        TravelError::Refused { .. } => Failure::unknown(e.to_string()).hint(format!(
            "the remote takes no refs/notes/*: allow {NOTES_REF} there (a pre-receive rule, the host's ref rules), {again}; the branches pushed are not affected, and CI reports each required check without a receipt as receipt_missing"
        )),
        TravelError::Raced { .. } => Failure::unknown(e.to_string()).hint(format!(
            "other clones are pushing receipts now: wait a moment, {again}"
        )),
        TravelError::Attach(notes::AttachError::Unreadable { ref commit, .. }) => {
            Failure::unknown(format!("the receipts of {remote} could not be merged: {e}")).hint(
                format!(
                    "look at it with `git notes --ref gate show {commit}`; remove this clone's note on that commit with `git notes --ref gate remove {commit}` if it is not gate's, {again}"
                ),
            )
        }
        TravelError::Git(GitError::NoteTooLarge {
            ref commit,
            ref notes,
            ..
        }) => {
            let remove = match notes.as_str() {
                NOTES_REF => format!("remove this clone's: `git notes --ref gate remove {commit}`"),
                _ => format!(
                    "have it removed from {remote}'s {NOTES_REF} (`git notes --ref gate remove {commit}` in a clone that holds it, then `git push {remote} {NOTES_REF}`)"
                ),
            };
            Failure::unknown(format!(
                "the receipts of {remote} could not be merged, and nothing was: {e}"
            ))
            .hint(format!(
                "a note that large is not gate's: {remove}, {again}"
            ))
        }
        e => Failure::unknown(format!(
            "{NOTES_REF} could not be {}: {e}",
            match action {
                "fetch" => format!("fetched from {remote}"),
                _ => format!("pushed to {remote}"),
            }
        ))
        .hint(format!(
            "check that `git {action} {remote}` works from this repository, {again}"
        )),
    }
}

impl Shown for ReceiptsWire {
    type Wire<'a> = &'a ReceiptsWire;
    fn wire(&self) -> &ReceiptsWire {
        self
    }
    fn text(&self) -> String {
        human::receipts(self)
    }
}
