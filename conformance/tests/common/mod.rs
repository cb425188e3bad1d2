//! Helpers shared by the conformance crate's integration tests (each test target pulls
//! this in with `#[path = "../common/mod.rs"] mod common;` or `mod common;`): finding and
//! running the real peers, a client with recording callbacks, a recording proxy, and a
//! Redis-backed cluster of our servers behind a round-robin load balancer.
//! A target uses only part of it, hence `dead_code` is allowed here.
#![allow(dead_code)]

pub mod callbacks;
pub mod cluster;
pub mod expected;
pub mod peers;
pub mod proxy;
