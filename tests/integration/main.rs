//! The integration test binary: one module per area, sharing `support`.

mod support;
