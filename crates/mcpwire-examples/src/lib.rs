//! The example servers `mcpwire serve --example NAME` runs: [`notes`], a small server a
//! person would try the command line on, and [`everything`], the server the official
//! conformance suite checks (every kind of tool, resource and prompt, named as the suite
//! expects; `mcpwire-conformance` serves it as `everything-server`).

#![forbid(unsafe_code)]

pub mod everything;
pub mod everything_tasks;
pub mod forms;
pub mod notes;
