//! A misspelled name gets the close one as a hint: a resource's or a template's URI
//! (`read`) and a prompt named for completion (`complete prompt:NAME`), as `call` and
//! `prompt` do; a resource template read as listed gets its variables named; an argument
//! with fixed choices is listed with them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::time::Duration;

use support::{expect_code, stderr, stdout, BIN};

/// The notes example over stdio.
fn notes() -> String {
    format!("stdio:'{BIN}' serve --example notes")
}

fn mcpwire(args: &[&str]) -> std::process::Output {
    support::mcpwire(args, Duration::from_secs(60))
}

#[test]
fn a_misspelled_resource_uri_gets_the_close_one() {
    let o = mcpwire(&["read", &notes(), "notes://indx"]);
    expect_code(&o, 2);
    assert!(stdout(&o).is_empty());
    let err = stderr(&o);
    assert!(err.contains("Resource not found: notes://indx"), "{err}");
    assert!(err.contains("hint: did you mean \"notes://index\"?"), "{err}");
    // Nothing close: the lists are named, no guess.
    let o = mcpwire(&["read", &notes(), "zzzz://qqqqqqqqqqqq"]);
    expect_code(&o, 2);
    let err = stderr(&o);
    assert!(!err.contains("did you mean"), "{err}");
    assert!(err.contains("hint: `mcpwire resources TARGET` and `mcpwire templates TARGET`"), "{err}");
}

/// A misspelled URI of a listed template gets the URI the template makes of it; a
/// misspelled template written as it is gets the template; a URI of the template that
/// the server refuses (no such note) gets no guess.
#[test]
fn a_misspelled_template_uri_gets_the_close_one() {
    for (uri, meant) in [("notes://nte/7", "notes://note/7"), ("notes://nte/{id}", "notes://note/{id}")] {
        let o = mcpwire(&["read", &notes(), uri]);
        expect_code(&o, 2);
        let err = stderr(&o);
        assert!(err.contains(&format!("hint: did you mean {meant:?}?")), "{uri}: {err}");
    }
    let o = mcpwire(&["read", &notes(), "notes://note/99"]);
    expect_code(&o, 2);
    let err = stderr(&o);
    assert!(!err.contains("did you mean"), "{err}");
}

#[test]
fn reading_a_template_as_listed_says_to_fill_in_its_variables() {
    // `mcpwire templates` lists `notes://note/{id}`; read as it is, it names no note.
    let o = mcpwire(&["read", &notes(), "notes://note/{id}"]);
    expect_code(&o, 2);
    let err = stderr(&o);
    assert!(
        err.contains(
            "hint: \"notes://note/{id}\" is a resource template: read it with its variables (id) filled in"
        ),
        "{err}"
    );
    assert!(err.contains("`mcpwire complete TARGET 'notes://note/{id}' id=` suggests values"), "{err}");
}

#[test]
fn completing_a_misspelled_prompt_or_template_gets_the_close_one() {
    let o = mcpwire(&["complete", &notes(), "prompt:summarise", "tag="]);
    expect_code(&o, 2);
    assert!(stdout(&o).is_empty());
    let err = stderr(&o);
    assert!(err.contains("Unknown prompt: summarise"), "{err}");
    assert!(err.contains("hint: did you mean \"prompt:summarize\"?"), "{err}");
    let o = mcpwire(&["complete", &notes(), "notes://nte/{id}", "id="]);
    expect_code(&o, 2);
    let err = stderr(&o);
    assert!(err.contains("hint: did you mean \"notes://note/{id}\"?"), "{err}");
}

/// A URL with a slip in it is taken for a command (there is no such program): the hint
/// names the URL that was meant.
#[test]
fn a_mistyped_url_is_named_as_the_url_it_was_meant_to_be() {
    for (target, meant) in [
        ("http:/127.0.0.1:9/mcp", "http://127.0.0.1:9/mcp"),
        ("https//127.0.0.1:9/mcp", "https://127.0.0.1:9/mcp"),
        ("localhost:9/mcp", "http://localhost:9/mcp"),
        ("127.0.0.1:9", "http://127.0.0.1:9"),
    ] {
        let o = mcpwire(&["tools", target]);
        expect_code(&o, 2);
        let err = stderr(&o);
        assert!(err.contains(&format!("hint: did you mean {meant}?")), "{target}: {err}");
    }
    // A plain command that is not there keeps its own hint.
    let o = mcpwire(&["tools", "no-such-mcp-server"]);
    expect_code(&o, 2);
    let err = stderr(&o);
    assert!(!err.contains("did you mean") && err.contains("check the command's spelling"), "{err}");
}

/// `mcpwire tools` names an argument's choices (an optional enum: its values and null).
#[test]
fn tools_name_an_arguments_choices() {
    let o = mcpwire(&["tools", &notes()]);
    expect_code(&o, 0);
    let out = stdout(&o);
    let line = out.lines().find(|l| l.starts_with("search_notes ")).unwrap_or_default();
    assert!(line.contains("<query: string> [order: oldest|newest|null]"), "{out}");
}
