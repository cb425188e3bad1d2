//! The example servers `mcpwire serve --example NAME` runs: [`notes`], a small server a
//! person would try the command line on, [`everything`], the server the official
//! conformance suite checks (every kind of tool, resource and prompt, named as the suite
//! expects; `mcpwire-conformance` serves it as `everything-server`), and [`echo`], the
//! server the benchmarks measure (`mcpwire-bench` serves it as `echo-server`).

#![forbid(unsafe_code)]

pub mod echo;
pub mod everything;
pub mod everything_tasks;
pub mod forms;
pub mod notes;
