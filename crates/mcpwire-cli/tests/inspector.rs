//! The official MCP Inspector's command line (npm `@modelcontextprotocol/inspector`, a
//! client on the TypeScript SDK v2, installed by `scripts/install-peers.sh`) against the
//! servers `mcpwire serve --example` runs, the way a user tries a server with it: over
//! stdio and Streamable HTTP, in its `legacy` era (2025, `initialize`) and its `modern`
//! one (2026-07-28), and with its `--strict` check of tool schemas.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::Value;
use support::*;

/// The Inspector's eras, as its `--protocol-era` names them.
const ERAS: [&str; 2] = ["legacy", "modern"];

/// Runs `inspector --cli --format json --protocol-era ERA ARGS -- TARGET...`, with a home
/// of its own (it keeps a catalog and a storage folder there), removed afterwards.
fn inspector(era: &str, args: &[&str], target: &[&str]) -> Output {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let run = RUNS.fetch_add(1, Ordering::Relaxed);
    let home = Scratch::new(&format!("inspector-home-{run}"));
    let child = Command::new(peer("NODE22"))
        .arg(peer("INSPECTOR_JS"))
        .args(["--cli", "--format", "json", "--protocol-era", era])
        .args(args)
        .arg("--")
        .args(target)
        .env("HOME", home.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("Node runs the Inspector");
    wait(child, Duration::from_secs(90))
}

/// The `result` the Inspector printed, after asserting it exited 0.
fn result(o: &Output) -> Value {
    assert_eq!(o.status.code(), Some(0), "stdout:\n{}\nstderr:\n{}", stdout(o), stderr(o));
    let printed: Value = serde_json::from_str(&stdout(o)).unwrap_or_else(|e| panic!("{e}: {}", stdout(o)));
    printed["result"].clone()
}

/// The text of a result's first content block.
fn first_text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text content: {result}"))
}

/// Whether a result says which server made it, as every 2026-07-28 result does and no
/// 2025 one.
fn names_its_server(result: &Value) -> bool {
    result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"].is_string()
}

#[test]
fn the_notes_server_over_http_in_both_eras() {
    let server = start_http(&["serve", "--example", "notes", "--http", "127.0.0.1:0"]);
    let target = [server.url.as_str()];
    // A note added in one era is found in the other: the notes live in the server.
    let added = inspector(
        "legacy",
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "add_note",
            "--tool-args-json",
            r#"{"title":"Groceries","text":"oat milk and eggs","tags":["home"]}"#,
        ],
        &target,
    );
    let added = result(&added);
    assert!(!names_its_server(&added), "a 2025 result: {added}");
    let uri = first_text(&added).split(['(', ')']).nth(1).unwrap().to_owned();
    assert!(uri.starts_with("notes://note/"), "{added}");

    let found = result(&inspector(
        "modern",
        &["--method", "tools/call", "--tool-name", "search_notes", "--tool-arg", "query=oat"],
        &target,
    ));
    assert!(names_its_server(&found), "a 2026 result: {found}");
    assert!(first_text(&found).contains(&format!("Groceries ({uri})")), "{found}");

    // Arguments of nested types, a list of structs and an optional enum, which the tools'
    // schemas write out in place (no `$ref`): the Inspector sends them as the server
    // takes them.
    let batch = r#"{"notes":[{"title":"Harvest","text":"oat fields"},{"title":"Recipe","text":"oat cookies","tags":["home"]}]}"#;
    let added = result(&inspector(
        "modern",
        &["--method", "tools/call", "--tool-name", "add_notes", "--tool-args-json", batch],
        &target,
    ));
    assert_eq!(first_text(&added).lines().count(), 2, "{added}");
    let newest = result(&inspector(
        "legacy",
        &["--method", "tools/call", "--tool-name", "search_notes", "--tool-arg", "query=oat", "order=newest"],
        &target,
    ));
    let lines: Vec<&str> = first_text(&newest).lines().collect();
    assert!(lines[0].contains("Recipe") && lines[1].contains("Harvest"), "{newest}");
    assert!(lines[2].contains(&format!("Groceries ({uri})")), "{newest}");

    // Its `auto` era probes the endpoint, which serves both, and takes the newer one.
    let probed = result(&inspector(
        "auto",
        &["--method", "tools/call", "--tool-name", "search_notes", "--tool-arg", "query=oat"],
        &target,
    ));
    assert!(names_its_server(&probed), "auto chose 2026-07-28: {probed}");

    for era in ERAS {
        let read = result(&inspector(era, &["--method", "resources/read", "--uri", &uri], &target));
        let text = read["contents"][0]["text"].as_str().unwrap();
        assert!(text.contains("oat milk and eggs") && text.contains("home"), "{era}: {read}");
        let prompts = result(&inspector(era, &["--method", "prompts/list"], &target));
        assert_eq!(prompts["prompts"][0]["name"], "summarize", "{era}: {prompts}");
        // A tool's own failure: shown as the result, and a failing exit for scripts.
        let o = inspector(
            era,
            &["--method", "tools/call", "--tool-name", "delete_note", "--tool-arg", "id=999"],
            &target,
        );
        assert_ne!(o.status.code(), Some(0), "{era}: {}", stdout(&o));
        let printed: Value = serde_json::from_str(&stdout(&o)).unwrap();
        assert_eq!(printed["result"]["isError"], true, "{era}: {printed}");
        assert_eq!(first_text(&printed["result"]), "there is no note 999");
    }
}

#[test]
fn the_everything_server_over_stdio_in_both_eras() {
    let target = [BIN, "serve", "--example", "everything"];
    for era in ERAS {
        let tools = result(&inspector(era, &["--method", "tools/list"], &target));
        let names: Vec<&str> =
            tools["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
        assert!(
            names.contains(&"test_simple_text") && names.contains(&"test_error_handling"),
            "{era}: {names:?}"
        );

        let called =
            result(&inspector(era, &["--method", "tools/call", "--tool-name", "test_simple_text"], &target));
        assert_eq!(first_text(&called), "This is a simple text response for testing.", "{era}");
        assert_eq!(names_its_server(&called), era == "modern", "{era}: {called}");

        let prompt = result(&inspector(
            era,
            &[
                "--method",
                "prompts/get",
                "--prompt-name",
                "test_prompt_with_arguments",
                "--prompt-args",
                "arg1=one",
                "arg2=two",
            ],
            &target,
        ));
        assert_eq!(
            prompt["messages"][0]["content"]["text"], "Prompt with arguments: arg1='one', arg2='two'",
            "{era}: {prompt}"
        );

        let read = result(&inspector(
            era,
            &["--method", "resources/read", "--uri", "test://template/7/data"],
            &target,
        ));
        let data: Value = serde_json::from_str(read["contents"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(data["id"], "7", "{era}: {read}");

        let o = inspector(era, &["--method", "tools/call", "--tool-name", "no_such_tool"], &target);
        assert_ne!(o.status.code(), Some(0), "{era}: {}", stdout(&o));
        assert!(stderr(&o).contains("not found"), "{era}: {}", stderr(&o));
    }
}

#[test]
fn the_strict_schema_check_finds_nothing_to_report() {
    // Optional arguments (`Option<T>`) are written as `anyOf` branches of one type each,
    // which the Inspector's portability check asks for; the echo server is README's.
    for example in ["everything", "notes", "echo"] {
        let o = inspector(
            "legacy",
            &["--strict", "--method", "tools/list"],
            &[BIN, "serve", "--example", example],
        );
        assert_eq!(o.status.code(), Some(0), "{example}: {}", stderr(&o));
        let report = stderr(&o);
        assert!(!report.contains("Warning") && !report.contains("Error"), "{example}:\n{report}");
    }
}
