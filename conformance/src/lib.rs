//! The conformance fixtures: the "everything" server the official MCP conformance suite
//! checks (every tool, resource, prompt and multi round-trip fixture, named exactly as the
//! suite expects). It lives in `mcpwire-examples`, whose servers the `mcpwire` command
//! line serves (`mcpwire serve --example everything`), and is re-exported here for the
//! `everything-server` binary and the suite's tests.

#![forbid(unsafe_code)]

pub use mcpwire_examples::{everything, everything_tasks};
