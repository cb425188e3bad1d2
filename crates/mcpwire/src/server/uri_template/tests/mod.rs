//! Tests of URI templates: the RFC 6570 examples, parsing errors, the matching rules,
//! round trips and hostile input.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;

/// How long a hostile match may take before a test calls it a hang. Not a speed bound
/// (a debug build on a loaded shared machine can be ten times slower than usual): an
/// exponential search on these inputs would take hours, the linear automaton well under
/// a second.
const HANG_GUARD: std::time::Duration = std::time::Duration::from_secs(60);

fn s(v: &str) -> TemplateValue {
    TemplateValue::String(v.to_owned())
}

fn list(items: &[&str]) -> TemplateValue {
    TemplateValue::List(items.iter().map(|i| (*i).to_owned()).collect())
}

fn map(pairs: &[(&str, &str)]) -> TemplateValue {
    TemplateValue::Map(pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect())
}

/// The variables of RFC 6570 sections 3.2 (the examples' shared table).
fn rfc_vars() -> HashMap<String, TemplateValue> {
    let mut m = HashMap::new();
    m.insert("count".into(), list(&["one", "two", "three"]));
    m.insert("dom".into(), list(&["example", "com"]));
    m.insert("dub".into(), s("me/too"));
    m.insert("hello".into(), s("Hello World!"));
    m.insert("half".into(), s("50%"));
    m.insert("var".into(), s("value"));
    m.insert("who".into(), s("fred"));
    m.insert("base".into(), s("http://example.com/home/"));
    m.insert("path".into(), s("/foo/bar"));
    m.insert("list".into(), list(&["red", "green", "blue"]));
    m.insert("keys".into(), map(&[("semi", ";"), ("dot", "."), ("comma", ",")]));
    m.insert("v".into(), s("6"));
    m.insert("x".into(), s("1024"));
    m.insert("y".into(), s("768"));
    m.insert("empty".into(), s(""));
    m.insert("empty_keys".into(), TemplateValue::Map(Vec::new()));
    m
}

fn check_expansions(cases: &[(&str, &str)]) {
    let vars = rfc_vars();
    for (template, expected) in cases {
        let t = UriTemplate::parse(template).unwrap_or_else(|e| panic!("{template}: {e}"));
        assert_eq!(t.expand(&vars), *expected, "template {template}");
    }
}

fn vars_of(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
}

fn matches(template: &str, uri: &str) -> Option<HashMap<String, String>> {
    UriTemplate::parse(template).unwrap().match_uri(uri)
}

mod expansion;
mod hostile;
mod matching;
mod parsing;
