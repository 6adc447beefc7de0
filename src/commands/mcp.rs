//! `gate mcp`: serve the agent's questions and appends as MCP tools on
//! stdio (docs/agents.md#mcp-server). The server is `crate::mcp`; each tool
//! calls a verb through `dispatch`, which `commands::run` hands in, so this
//! verb names no other.

use std::path::Path;

use crate::error::Failure;
use crate::ui::Answer;

/// Serve until the client closes stdin.
#[cfg(feature = "mcp")]
pub fn run(dir: Option<&Path>, dispatch: crate::mcp::Dispatch) -> Result<Answer, Failure> {
    crate::mcp::serve(dir, dispatch)?;
    Ok(Answer::quiet(crate::verdict::ExitCode::Pass))
}

/// This gate was built without the `mcp` feature: say how to get one with it.
#[cfg(not(feature = "mcp"))]
pub fn run(
    _dir: Option<&Path>,
    _dispatch: fn(Option<&Path>, crate::cli::Command, &crate::ui::Ui) -> Result<Answer, Failure>,
) -> Result<Answer, Failure> {
    Err(
        Failure::usage("this gate was built without `gate mcp` (cargo feature `mcp`)")
            .hint("install gate with its default features (README.md: `cargo install --locked --path .`, without --no-default-features)"),
    )
}
