//! The integration test binary: one module per area, sharing `support`.

mod git_layer;
mod support;
