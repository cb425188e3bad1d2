//! The conformance fixtures: the "everything" server the official MCP conformance suite
//! checks (every tool, resource, prompt and multi round-trip fixture, named exactly as the
//! suite expects), also the built-in example of the `mcpwire` command line.

#![forbid(unsafe_code)]

pub mod everything;
pub mod everything_tasks;
