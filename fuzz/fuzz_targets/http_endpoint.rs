#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpwire_fuzz::http_endpoint(data));
