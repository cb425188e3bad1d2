//! The `mcpwire` binary end to end: every command against `mcpwire serve --example
//! everything` as a stdio target (both protocol eras), exit codes, `--json` output,
//! typed arguments, declined elicitation, Ctrl-C, the HTTP server (raw HTTP), error
//! messages, and a Python SDK server when one is at hand. The proxy is in `proxy.rs`,
//! authorization's errors in `cli_auth.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::thread;
use std::time::Duration;

use serde_json::Value;

mod support;

use support::{
    everything, expect_code, interrupt, post, spawn, start_http, stderr, stderr_lines, stdout,
    tools_list_2026, wait_for_line, wait_status, workspace, Running, BIN, INITIALIZE,
};

/// Runs `mcpwire ARGS` with stdin closed (not a terminal), with a deadline.
fn mcpwire(args: &[&str]) -> Output {
    mcpwire_within(args, Duration::from_secs(60))
}

/// [`mcpwire`] with a chosen deadline.
fn mcpwire_within(args: &[&str], deadline: Duration) -> Output {
    support::mcpwire(args, deadline)
}

/// Parses stdout as one JSON document (nothing else may be there).
fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", stdout(o)))
}

const ERAS: [&str; 2] = ["2026-07-28", "2025-11-25"];

#[test]
fn info_shows_identity_era_and_capabilities() {
    let o = mcpwire(&["info", &everything()]);
    expect_code(&o, 0);
    let text = stdout(&o);
    for expected in
        ["mcp-conformance-test-server", "Era:", "2026", "Protocol:", "2026-07-28", "tools", "Instructions:"]
    {
        assert!(text.contains(expected), "{expected:?} missing from:\n{text}");
    }

    let o = mcpwire(&["info", &everything(), "--json", "--protocol-version", "2025-11-25"]);
    expect_code(&o, 0);
    let v = json(&o);
    assert_eq!(v["era"], "stateful");
    assert_eq!(v["protocolVersion"], "2025-11-25");
    assert_eq!(v["serverInfo"]["name"], "mcp-conformance-test-server");
    assert!(v["capabilities"]["tools"].is_object());
    assert_eq!(v["instructions"], "A fixture server for the MCP conformance suite.");
}

#[test]
fn lists_as_tables_and_json_in_both_eras() {
    for era in ERAS {
        let o = mcpwire(&["tools", &everything(), "--protocol-version", era]);
        expect_code(&o, 0);
        let text = stdout(&o);
        assert!(text.starts_with("NAME"), "{text}");
        assert!(text.contains("test_simple_text"), "{text}");
        assert!(
            text.lines().any(|l| l.starts_with("test_elicitation ") && l.contains("<message: string>")),
            "{text}"
        );

        let o = mcpwire(&["tools", &everything(), "--json", "--protocol-version", era]);
        expect_code(&o, 0);
        let tools = json(&o)["tools"].as_array().cloned().unwrap();
        assert!(tools.len() >= 20, "{tools:?}");
        assert!(tools.iter().any(|t| t["name"] == "test_error_handling"));
    }

    let o = mcpwire(&["resources", &everything()]);
    expect_code(&o, 0);
    assert!(stdout(&o).contains("test://static-text"));
    assert_eq!(
        json(&mcpwire(&["resources", &everything(), "--json"]))["resources"].as_array().unwrap().len(),
        3
    );

    let o = mcpwire(&["templates", &everything()]);
    expect_code(&o, 0);
    assert!(stdout(&o).contains("test://template/{id}/data"));
    let v = json(&mcpwire(&["templates", &everything(), "--json"]));
    assert_eq!(v["resourceTemplates"][0]["uriTemplate"], "test://template/{id}/data");

    let o = mcpwire(&["prompts", &everything()]);
    expect_code(&o, 0);
    assert!(stdout(&o)
        .lines()
        .any(|l| l.starts_with("test_prompt_with_arguments") && l.contains("<arg1> <arg2>")));
    let v = json(&mcpwire(&["prompts", &everything(), "--json"]));
    assert!(v["prompts"].as_array().unwrap().iter().any(|p| p["name"] == "test_simple_prompt"));
}

#[test]
fn call_prints_results_and_sets_exit_codes() {
    for era in ERAS {
        let o = mcpwire(&["call", &everything(), "test_simple_text", "--protocol-version", era]);
        expect_code(&o, 0);
        assert_eq!(stdout(&o), "This is a simple text response for testing.\n");

        let o = mcpwire(&["call", &everything(), "test_simple_text", "--json", "--protocol-version", era]);
        expect_code(&o, 0);
        assert_eq!(json(&o)["content"][0]["text"], "This is a simple text response for testing.");

        // isError: exit 1, the message on stderr (or the whole result with --json).
        let o = mcpwire(&["call", &everything(), "test_error_handling", "--protocol-version", era]);
        expect_code(&o, 1);
        assert!(
            stderr(&o).contains("This tool intentionally returns an error for testing"),
            "{}",
            stderr(&o)
        );
        let o = mcpwire(&["call", &everything(), "test_error_handling", "--json", "--protocol-version", era]);
        expect_code(&o, 1);
        assert_eq!(json(&o)["isError"], true);
    }

    let o = mcpwire(&["call", &everything(), "test_multiple_content_types"]);
    expect_code(&o, 0);
    let text = stdout(&o);
    assert!(text.contains("Multiple content types test:") && text.contains("[image: image/png"), "{text}");
    assert!(text.contains("[resource test://mixed-content-resource (application/json)]"), "{text}");
}

#[test]
fn a_bad_tool_name_is_a_usage_error_with_a_suggestion() {
    let o = mcpwire(&["call", &everything(), "test_simple_txt"]);
    expect_code(&o, 2);
    assert!(stdout(&o).is_empty());
    let err = stderr(&o);
    assert!(err.contains("error: the server has no tool named \"test_simple_txt\""), "{err}");
    assert!(err.contains("hint: did you mean \"test_simple_text\"?"), "{err}");
    let o = mcpwire(&["call", &everything(), "no_such_tool", "--json"]);
    expect_code(&o, 2);
    assert!(stdout(&o).is_empty(), "--json keeps errors off stdout");
}

#[test]
fn arguments_are_typed_by_the_input_schema() {
    // `name` is a string in the schema (42 stays a string); `address` is an object
    // behind a `$ref` (parsed as JSON); `key:=JSON` forces JSON.
    let o = mcpwire(&[
        "call",
        &everything(),
        "json_schema_2020_12_tool",
        "name=42",
        r#"address={"city":"Paris"}"#,
    ]);
    expect_code(&o, 0);
    // The arguments keep the order they were given in (serde_json's preserve_order).
    assert!(stdout(&o).contains(r#"{"name":"42","address":{"city":"Paris"}}"#), "{}", stdout(&o));
    let o = mcpwire(&["call", &everything(), "json_schema_2020_12_tool", "name:=42"]);
    expect_code(&o, 0);
    assert!(stdout(&o).contains(r#"{"name":42}"#), "{}", stdout(&o));
    let o = mcpwire(&[
        "call",
        &everything(),
        "json_schema_2020_12_tool",
        "--args",
        r#"{"email":"a@b"}"#,
        "name=x",
    ]);
    expect_code(&o, 0);
    assert!(stdout(&o).contains(r#"{"email":"a@b","name":"x"}"#), "{}", stdout(&o));

    // Against the schema: wrong type, unknown name, missing required argument.
    let o = mcpwire(&["call", &everything(), "json_schema_2020_12_tool", "address=notjson"]);
    expect_code(&o, 2);
    assert!(stderr(&o).contains("must be an object"), "{}", stderr(&o));
    let o = mcpwire(&["call", &everything(), "json_schema_2020_12_tool", "bogus=1"]);
    expect_code(&o, 2);
    assert!(stderr(&o).contains("has no argument \"bogus\"") && stderr(&o).contains("hint: it takes:"));
    let o = mcpwire(&["call", &everything(), "test_elicitation"]);
    expect_code(&o, 2);
    assert!(stderr(&o).contains("needs an argument: message (string)"), "{}", stderr(&o));
    let o = mcpwire(&["call", &everything(), "test_simple_text", "novalue"]);
    expect_code(&o, 2);
    assert!(stderr(&o).contains("expected key=value"), "{}", stderr(&o));
    let o = mcpwire(&["call", &everything(), "test_simple_text", "--args", "[1]"]);
    expect_code(&o, 2);
}

#[test]
fn elicitation_is_declined_without_input() {
    for era in ERAS {
        let o = mcpwire(&[
            "call",
            &everything(),
            "test_elicitation",
            "message=Your name?",
            "--no-input",
            "--protocol-version",
            era,
        ]);
        expect_code(&o, 0);
        assert!(stdout(&o).contains("User response: action=decline"), "{era}: {}", stdout(&o));
        assert!(stderr(&o).contains("declined the server's request for input (--no-input): Your name?"));
        // Without --no-input: stdin is not a terminal here, so it declines too.
        let o =
            mcpwire(&["call", &everything(), "test_elicitation", "message=hi", "--protocol-version", era]);
        expect_code(&o, 0);
        assert!(stdout(&o).contains("action=decline"));
        assert!(stderr(&o).contains("stdin is not a terminal"));
    }
    // A 2026 multi round-trip tool: the declined answer goes back on the retry.
    let o = mcpwire(&["call", &everything(), "test_input_required_result_elicitation", "--no-input"]);
    expect_code(&o, 0);
    assert_eq!(stdout(&o), "Hello, !\n");
}

#[test]
fn log_messages_go_to_stderr_at_the_chosen_level() {
    for era in ERAS {
        let o = mcpwire(&["call", &everything(), "test_tool_with_logging", "--protocol-version", era]);
        expect_code(&o, 0);
        assert_eq!(stdout(&o), "Tool with logging executed successfully\n");
        assert!(stderr(&o).contains("[info] Tool execution started"), "{era}: {}", stderr(&o));
        let o = mcpwire(&[
            "call",
            &everything(),
            "test_tool_with_logging",
            "--log-level",
            "warning",
            "--protocol-version",
            era,
        ]);
        expect_code(&o, 0);
        assert!(!stderr(&o).contains("[info]"), "{}", stderr(&o));
    }
    // Progress is a bar only on a terminal: here, plain lines, and the result is intact.
    let o = mcpwire(&["call", &everything(), "test_tool_with_progress"]);
    expect_code(&o, 0);
    assert!(stderr(&o).contains("progress: 50/100 (50%) Completed step 50 of 100\n"), "{}", stderr(&o));
    assert!(!stderr(&o).contains('\r'), "{}", stderr(&o));
}

#[test]
fn complete_offers_what_the_server_knows() {
    let notes = format!("stdio:'{BIN}' serve --example notes");
    let o = mcpwire(&["complete", &notes, "notes://note/{id}", "id="]);
    expect_code(&o, 0);
    assert_eq!(stdout(&o), "1\n2\n");
    let o = mcpwire(&["complete", &notes, "prompt:summarize", "tag=e"]);
    expect_code(&o, 0);
    assert_eq!(stdout(&o), "errands\n");
    let o = mcpwire(&[
        "--json",
        "--protocol-version",
        "2025-11-25",
        "complete",
        &notes,
        "prompt:summarize",
        "tag=",
    ]);
    expect_code(&o, 0);
    assert_eq!(json(&o)["completion"]["values"], serde_json::json!(["errands", "mcp"]));
    // Nothing to offer is not an error.
    let o = mcpwire(&["complete", &notes, "prompt:summarize", "tag=zz"]);
    expect_code(&o, 0);
    assert_eq!(stdout(&o), "");
    // An argument the prompt does not declare is refused, naming the ones it does.
    let o = mcpwire(&["complete", &notes, "prompt:summarize", "nope="]);
    expect_code(&o, 2);
    assert!(stderr(&o).contains("prompt \"summarize\" has no argument \"nope\""), "{}", stderr(&o));
    assert!(stderr(&o).contains("it takes: tag"), "{}", stderr(&o));
    // So is a variable the template does not have.
    let o = mcpwire(&["complete", &notes, "notes://note/{id}", "nosuch=1"]);
    expect_code(&o, 2);
    let err = stderr(&o);
    assert!(err.contains("resource template \"notes://note/{id}\" has no argument \"nosuch\""), "{err}");
    assert!(err.contains("it takes: id"), "{err}");
    // The server's -32602 for a reference it does not know points to the lists of
    // what can be completed.
    for reference in ["prompt:nosuch", "other://{x}"] {
        let o = mcpwire(&["complete", &notes, reference, "x="]);
        expect_code(&o, 2);
        let err = stderr(&o);
        assert!(err.contains("(code -32602)"), "{err}");
        assert!(
            err.contains("hint: check the reference and argument against `mcpwire prompts|templates TARGET`"),
            "{err}"
        );
    }
    // Refused before connecting: a reference that is neither a prompt nor a template.
    let o = mcpwire(&["complete", &notes, "notes://index", "id=1"]);
    expect_code(&o, 2);
    assert!(stderr(&o).contains("neither prompt:NAME nor a URI template"), "{}", stderr(&o));
    // A server without the capability.
    let echo = format!("stdio:'{BIN}' serve --example echo");
    let o = mcpwire(&["complete", &echo, "prompt:echo-prompt", "text="]);
    expect_code(&o, 2);
    assert!(stderr(&o).contains("does not offer completions"), "{}", stderr(&o));
}

#[test]
fn read_and_prompt() {
    let o = mcpwire(&["read", &everything(), "test://static-text"]);
    expect_code(&o, 0);
    assert_eq!(stdout(&o), "This is the content of the static text resource.\n");
    // A binary resource into a pipe: its bytes.
    let o = mcpwire(&["read", &everything(), "test://static-binary"]);
    expect_code(&o, 0);
    assert!(o.stdout.starts_with(b"\x89PNG\r\n"), "{:?}", &o.stdout);
    let o = mcpwire(&["read", &everything(), "test://template/7/data", "--json"]);
    expect_code(&o, 0);
    let text = json(&o)["contents"][0]["text"].as_str().unwrap().to_owned();
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap()["id"], "7");
    let o = mcpwire(&["read", &everything(), "test://missing"]);
    expect_code(&o, 2);
    assert!(stderr(&o).contains("Resource not found"), "{}", stderr(&o));

    let o = mcpwire(&["prompt", &everything(), "test_prompt_with_arguments", "arg1=a", "arg2=b c"]);
    expect_code(&o, 0);
    assert_eq!(stdout(&o), "[user]\nPrompt with arguments: arg1='a', arg2='b c'\n");
    let o = mcpwire(&["prompt", &everything(), "test_prompt_with_arguments", "arg1=a", "--json"]);
    expect_code(&o, 2);
    assert!(stderr(&o).contains("needs: arg2"), "{}", stderr(&o));
    let o = mcpwire(&[
        "prompt",
        &everything(),
        "test_simple_prompt",
        "--json",
        "--protocol-version",
        "2025-11-25",
    ]);
    expect_code(&o, 0);
    assert_eq!(json(&o)["messages"][0]["content"]["text"], "This is a simple prompt for testing.");
}

#[test]
fn errors_are_one_line_with_a_hint() {
    let cases: [(&[&str], &str, &str); 6] = [
        (&["tools", "stdio:/no/such/server --flag"], "server not found", "full path"),
        (
            &["tools", "stdio:sh -c 'echo boom >&2; exit 3'"],
            "the server exited during the handshake",
            "on its own",
        ),
        (&["tools", "http://127.0.0.1:9/mcp"], "cannot reach http://127.0.0.1:9/mcp", "hint:"),
        (
            &["tools", &everything(), "--protocol-version", "1999-01-01"],
            "unknown protocol version",
            "known versions",
        ),
        (&["tools", &everything(), "--header", "X-Key: v"], "apply only to http(s)://", "hint:"),
        (&["tools", "ws://127.0.0.1/mcp"], "unsupported target scheme", "stdio:"),
    ];
    for (args, message, hint) in cases {
        let o = mcpwire(args);
        expect_code(&o, 2);
        let err = stderr(&o);
        assert!(err.contains(message), "{args:?}: {err}");
        assert!(err.lines().any(|l| l.contains(hint)), "{args:?}: {err}");
        assert!(stdout(&o).is_empty());
    }
    // The exited server's stderr tail is shown.
    let o = mcpwire(&["tools", "stdio:sh -c 'echo boom >&2; exit 3'"]);
    assert!(stderr(&o).contains("stderr: boom"), "{}", stderr(&o));
    assert!(stderr(&o).contains("exit status: 3"), "{}", stderr(&o));
    // A usage error from clap is exit 2 as well.
    expect_code(&mcpwire(&["call"]), 2);
    expect_code(&mcpwire(&["--help"]), 0);
}

/// A fake server that answers `initialize` with a version nobody speaks.
#[test]
fn a_version_mismatch_is_reported() {
    let Some(python) = python3() else { return };
    let script = r#"
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m: continue
    if m["method"] == "initialize":
        r = {"protocolVersion": "1999-01-01", "capabilities": {}, "serverInfo": {"name": "old", "version": "1"}}
        print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}), flush=True)
    else:
        e = {"code": -32601, "message": "Method not found"}
        print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "error": e}), flush=True)
"#;
    let dir = support::Scratch::new("cli-test");
    let path = dir.join("old_server.py");
    std::fs::write(&path, script).unwrap();
    let target = format!("stdio:'{}' '{}'", python.display(), path.display());
    let o = mcpwire(&["info", &target]);
    expect_code(&o, 2);
    let err = stderr(&o);
    assert!(err.contains("protocol version mismatch: the server supports 1999-01-01"), "{err}");
    assert!(err.contains("hint: pin a version both sides speak with --protocol-version"), "{err}");
}

fn python3() -> Option<PathBuf> {
    let candidates = [
        std::env::var("MCPWIRE_PYTHON").ok().map(PathBuf::from),
        Some(workspace().join(".tools/venv/bin/python")),
    ];
    for c in candidates.into_iter().flatten() {
        if c.is_file() {
            return Some(c);
        }
    }
    let found = Command::new("python3").arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status();
    if found.is_ok_and(|s| s.success()) {
        return Some(PathBuf::from("python3"));
    }
    println!("skipped: no Python interpreter");
    None
}

#[test]
fn ctrl_c_cancels_the_call_and_exits_130() {
    // The tool answers after 150 ms. On a busy machine the interrupt can land after the
    // answer (the call then ends 0 with its result): that attempt shows nothing, and the
    // era is tried again, up to ATTEMPTS times. Any other outcome fails at once.
    const ATTEMPTS: usize = 8;
    for era in ERAS {
        let interrupted = (0..ATTEMPTS).any(|_| ctrl_c_during_a_call(era));
        assert!(interrupted, "{era}: the call finished before Ctrl-C in all {ATTEMPTS} attempts");
    }
}

/// One `mcpwire call` interrupted once it says it is calling the tool: `true` when the
/// interrupt cancelled it (checked in full), `false` when the call had already finished.
fn ctrl_c_during_a_call(era: &str) -> bool {
    // -v on both sides: the client logs "calling the tool", and relays the server's
    // debug log, which notes the cancellation it received.
    let target = format!("stdio:'{BIN}' -v serve --example everything");
    let mut child = spawn(&["-v", "call", &target, "test_reconnection", "--protocol-version", era]);
    let lines = stderr_lines(&mut child);
    let mut seen = Vec::new();
    wait_for_line(&lines, "calling the tool", &mut seen);
    interrupt(&child);
    let code = wait_status(&mut child, Duration::from_secs(20));
    seen.extend(lines.try_iter());
    let mut out = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    if code == Some(0) && out.contains("Reconnection test completed") {
        return false;
    }
    assert_eq!(code, Some(130), "{era}: stderr:\n{}", seen.join("\n"));
    assert!(seen.iter().any(|l| l.contains("interrupted; cancelled the request")), "{}", seen.join("\n"));
    assert!(out.is_empty(), "no result after Ctrl-C: {out}");
    true
}

#[test]
fn serve_http_prints_its_url_and_serves_both_eras() {
    let mut server = start_http(&["serve", "--example", "everything", "--http", "127.0.0.1:0"]);
    assert!(server.url.starts_with("http://127.0.0.1:") && server.url.ends_with("/mcp"), "{}", server.url);
    let response = post(&server.url, &[], INITIALIZE, Some("serverInfo"));
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(response.contains("mcp-conformance-test-server"), "{response}");
    let response = tools_list_2026(&server.url);
    assert!(response.starts_with("HTTP/1.1 200") && response.contains("test_error_handling"), "{response}");
    interrupt(&server.child);
    assert_eq!(wait_status(&mut server.child, Duration::from_secs(20)), Some(130));
}

#[test]
fn protocol_version_is_refused_where_it_would_be_ignored() {
    let bench_target = format!("stdio:'{BIN}' serve --example echo");
    let cases: [&[&str]; 4] = [
        &["serve", "--example", "notes", "--protocol-version", "2025-11-25"],
        &["--protocol-version", "2026-07-28", "serve", "--example", "notes", "--http", "127.0.0.1:0"],
        &["--protocol-version", "2025-11-25", "bench", &bench_target],
        &["--protocol-version", "2025-11-25", "login", "http://127.0.0.1:1/mcp"],
    ];
    for args in cases {
        let o = mcpwire_within(args, Duration::from_secs(20));
        expect_code(&o, 2);
        let err = stderr(&o);
        assert!(err.contains("--protocol-version applies to commands that connect to a server"), "{err}");
        assert!(!args.contains(&"serve") || err.contains("`mcpwire serve` answers every revision"), "{err}");
    }
}

/// Slips against an HTTP server (a host it does not answer to, `https://` for `http://`) get hints.
#[test]
fn http_slips_are_named_with_hints() {
    let mut server = start_http(&["serve", "--example", "notes", "--http", "127.0.0.1:0"]);
    let o = mcpwire(&["tools", &server.url, "--header", "Host: evil.example"]);
    expect_code(&o, 2);
    let err = stderr(&o);
    let named = err.contains("Host not allowed: evil.example;") && err.contains("HttpSettings::hosts");
    assert!(named, "{err}");
    assert!(err.contains("hint: the server answers only to the host names it was set up with"), "{err}");
    let o = mcpwire(&["tools", &server.url.replacen("http://", "https://", 1)]);
    expect_code(&o, 2);
    let hint = format!("hint: the server answered without TLS: is it plain HTTP? Try {}", server.url);
    assert!(stderr(&o).contains(&hint), "{}", stderr(&o));
    interrupt(&server.child);
    assert_eq!(wait_status(&mut server.child, Duration::from_secs(20)), Some(130));
}

/// The Python SDK fixture server (`tests/peers/python/server_fixture.py`), when it and
/// the SDK's venv are there.
fn python_server() -> Option<String> {
    let fixture = workspace().join("tests/peers/python/server_fixture.py");
    let python = match std::env::var_os("MCPWIRE_PYTHON") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => workspace().join(".tools/venv/bin/python"),
    };
    if !fixture.is_file() || !python.is_file() {
        println!("skipped: no Python SDK fixture server ({} / {})", fixture.display(), python.display());
        return None;
    }
    let fixture = fixture.canonicalize().unwrap();
    Some(format!("stdio:'{}' '{}'", python.display(), fixture.display()))
}

/// A check of one command's output.
type Check = Box<dyn Fn(&Output) + Send>;

#[test]
fn a_python_sdk_server_in_both_eras() {
    let Some(target) = python_server() else { return };
    // The interpreter takes a while to start: a few calls, run side by side.
    let calls: Vec<(Vec<String>, Check)> = vec![
        (
            vec!["tools".into(), target.clone()],
            Box::new(|o| {
                expect_code(o, 0);
                let text = stdout(o);
                assert!(
                    text.lines().any(|l| l.starts_with("add ") && l.contains("<a: integer> <b: integer>")),
                    "{text}"
                );
            }),
        ),
        (
            // a and b are integers in the schema: typed as JSON numbers.
            vec!["call".into(), target.clone(), "add".into(), "a=2".into(), "b=3".into(), "--json".into()],
            Box::new(|o| {
                expect_code(o, 0);
                assert_eq!(json(o)["structuredContent"]["sum"], 5);
            }),
        ),
        (
            vec![
                "call".into(),
                target.clone(),
                "add".into(),
                "a=2".into(),
                "b=3".into(),
                "--protocol-version".into(),
                "2025-11-25".into(),
            ],
            Box::new(|o| {
                expect_code(o, 0);
                assert_eq!(stdout(o), "{\n  \"sum\": 5\n}\n");
            }),
        ),
        (
            vec!["call".into(), target.clone(), "add".into(), "a=two".into(), "b=3".into()],
            Box::new(|o| {
                expect_code(o, 2);
                assert!(stderr(o).contains("must be an integer"), "{}", stderr(o));
            }),
        ),
        (
            vec!["call".into(), target.clone(), "echo".into(), "text=hi there".into()],
            Box::new(|o| {
                expect_code(o, 0);
                assert_eq!(stdout(o), "echo: hi there\n");
            }),
        ),
        (
            vec![
                "call".into(),
                target.clone(),
                "fail".into(),
                "--protocol-version".into(),
                "2025-11-25".into(),
            ],
            Box::new(|o| {
                expect_code(o, 1);
                assert!(stderr(o).contains("boom"), "{}", stderr(o));
            }),
        ),
        (
            vec!["call".into(), target.clone(), "progress".into(), "steps=3".into()],
            Box::new(|o| {
                expect_code(o, 0);
                assert_eq!(stdout(o), "done 3\n");
            }),
        ),
        (
            vec!["call".into(), target.clone(), "elicit_name".into(), "--no-input".into()],
            Box::new(|o| {
                assert!(matches!(o.status.code(), Some(0) | Some(1)), "{}", stderr(o));
                assert!(stderr(o).contains("declined the server's request for input"), "{}", stderr(o));
            }),
        ),
        (
            vec![
                "call".into(),
                target.clone(),
                "elicit_name".into(),
                "--no-input".into(),
                "--protocol-version".into(),
                "2025-11-25".into(),
            ],
            Box::new(|o| {
                assert!(matches!(o.status.code(), Some(0) | Some(1)), "{}", stderr(o));
                assert!(stderr(o).contains("declined the server's request for input"), "{}", stderr(o));
            }),
        ),
        (
            vec!["read".into(), target.clone(), "fixture://static".into()],
            Box::new(|o| {
                expect_code(o, 0);
                assert_eq!(stdout(o), "static content\n");
            }),
        ),
        (
            vec![
                "prompt".into(),
                target.clone(),
                "greet".into(),
                "name=Ada".into(),
                "--protocol-version".into(),
                "2025-11-25".into(),
            ],
            Box::new(|o| {
                expect_code(o, 0);
                assert!(stdout(o).contains("Greet Ada in a plain style."), "{}", stdout(o));
            }),
        ),
        (
            // A crash mid-call: exit 2, saying the connection closed.
            vec!["call".into(), target.clone(), "crash".into()],
            Box::new(|o| {
                expect_code(o, 2);
                assert!(stderr(o).contains("the connection closed"), "{}", stderr(o));
            }),
        ),
    ];
    // Three at a time: each interpreter start costs seconds of CPU.
    let queue = std::sync::Arc::new(std::sync::Mutex::new(calls));
    let workers: Vec<_> = (0..3)
        .map(|_| {
            let queue = queue.clone();
            thread::spawn(move || loop {
                let Some((args, check)) = queue.lock().unwrap().pop() else { return };
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                check(&mcpwire_within(&args, Duration::from_secs(180)));
            })
        })
        .collect();
    for worker in workers {
        if let Err(panic) = worker.join() {
            std::panic::resume_unwind(panic);
        }
    }
}

/// `serve --http` on a port the OS picks; the URL is the one the server prints once it
/// listens, so no request races its start.
fn http_example() -> Running {
    start_http(&["serve", "--example", "everything", "--http", "127.0.0.1:0"])
}

#[test]
fn http_targets_work_in_both_eras() {
    let server = http_example();
    let info = mcpwire(&["--json", "info", &server.url]);
    expect_code(&info, 0);
    assert_eq!(json(&info)["protocolVersion"], "2026-07-28");
    let call = mcpwire(&["call", &server.url, "test_x_mcp_header", "region=eu-west"]);
    expect_code(&call, 0);
    assert_eq!(stdout(&call).trim(), "Region: eu-west");
    let legacy =
        mcpwire(&["--json", "call", "--protocol-version", "2025-11-25", &server.url, "test_error_handling"]);
    expect_code(&legacy, 1);
    assert_eq!(json(&legacy)["isError"], true);
    let refused = mcpwire(&["tools", "http://127.0.0.1:9/mcp"]);
    expect_code(&refused, 2);
    assert!(stderr(&refused).contains("error"), "{}", stderr(&refused));
}

/// `mcpwire serve` over stdio stops on `SIGTERM` as at the end of its input: a call still
/// running is answered "Connection closed" before it exits (its stdin still open), and
/// the exit status names the signal.
#[test]
fn a_stdio_server_told_to_stop_answers_what_still_runs() {
    use std::io::{BufRead, BufReader, Write};
    let mut child = Command::new(BIN)
        .args(["serve", "--example", "everything"])
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow_compute","arguments":{"seconds":60}}}"#;
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    writeln!(stdin, "{INITIALIZE}\n{initialized}\n{call}").unwrap();
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert!(line.contains("\"id\":1") && line.contains("protocolVersion"), "{line}");
    thread::sleep(Duration::from_millis(300));
    let status = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let mut answers = Vec::new();
    for line in stdout.lines() {
        answers.push(serde_json::from_str::<Value>(&line.unwrap()).unwrap());
    }
    assert_eq!(wait_status(&mut child, Duration::from_secs(10)), Some(128 + 15), "{answers:?}");
    let answer = answers.iter().find(|a| a["id"] == 2).unwrap_or_else(|| panic!("no answer: {answers:?}"));
    assert_eq!(answer["error"]["code"], -32000, "{answer}");
    drop(stdin);
}

/// An error message written to a stderr nobody reads any more (`mcpwire ... 2>&1 | head
/// -1`) leaves the documented exit status, not a panic's 101.
#[test]
fn a_closed_stderr_keeps_the_exit_status() {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mcpwire"))
        .args(["tools", "stdio:/bin/false"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(2), "{status:?}");
}

/// A server that leaves the era probe unanswered is reached by the `initialize` fallback
/// within a short --timeout: the probe's wait does not use up the handshake's time.
#[test]
fn a_server_that_ignores_the_probe_is_reached_within_a_short_timeout() {
    let target = fake_server("ignores-discover");
    let o = mcpwire_within(&["tools", "--timeout", "2", &target], Duration::from_secs(20));
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(stdout(&o).contains('t'), "{}", stdout(&o));
}

/// `--log-level` is applied to what the server sends too: a server that logs at every
/// level whatever it was asked shows only that level and up, and nothing with `off`. The
/// escape sequence in a message is shown as text, never sent to the terminal.
#[test]
fn log_level_filters_what_a_server_sends_anyway() {
    let target = fake_server("logs-every-level");
    let o = mcpwire(&["call", &target, "t", "--log-level", "error"]);
    expect_code(&o, 0);
    let err = stderr(&o);
    let shown: Vec<&str> = err.lines().filter(|l| l.starts_with('[')).collect();
    assert_eq!(
        shown,
        [
            "[error] at error",
            "[critical] at critical",
            "[alert] at alert",
            "[emergency] at emergency \\u{1b}]0;PWNED\\u{7}"
        ]
    );
    let o = mcpwire(&["call", &target, "t", "--log-level", "off"]);
    expect_code(&o, 0);
    assert!(!stderr(&o).contains("] at "), "{}", stderr(&o));
}

/// `call` checks structured content against the tool's whole output schema: a value
/// outside an `enum` (the top level being right) is a protocol error, exit 2.
#[test]
fn call_checks_the_whole_output_schema() {
    let o = mcpwire(&["call", &fake_server("breaks-output"), "t"]);
    expect_code(&o, 2);
    assert!(stderr(&o).contains("does not match its outputSchema"), "{}", stderr(&o));
}

/// A server that answered, but unreadably, is not called unreachable: the message says
/// what it sent and the hint does not send the user checking hosts and ports.
#[test]
fn an_unreadable_answer_is_not_an_unreachable_server() {
    let o = mcpwire(&["tools", "--timeout", "5", &fake_server("result-and-error")]);
    expect_code(&o, 2);
    let err = stderr(&o);
    assert!(err.contains("answered the handshake with something unreadable"), "{err}");
    assert!(!err.contains("cannot reach") && !err.contains("host, the port"), "{err}");
}

/// The target of `tests/fixtures/fake_server.py` in `mode` (a server that misbehaves in
/// one way).
fn fake_server(mode: &str) -> String {
    format!("stdio:python3 {}/tests/fixtures/fake_server.py {mode}", env!("CARGO_MANIFEST_DIR"))
}
