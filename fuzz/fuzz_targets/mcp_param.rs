#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpwire_fuzz::mcp_param(data));
