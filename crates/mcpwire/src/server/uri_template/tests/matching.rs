//! Matching: the MCP conformance templates, each operator's rules, and round trips.

use super::*;
use std::time::Instant;

// -- matching: MCP conformance and basics --------------------------------

#[test]
fn mcp_conformance_template_matches_single_segment_id() {
    let t = UriTemplate::parse("test://template/{id}/data").unwrap();
    assert_eq!(t.match_uri("test://template/123/data"), Some(vars_of(&[("id", "123")])));
}

#[test]
fn mcp_conformance_template_rejects_multi_segment_id() {
    let t = UriTemplate::parse("test://template/{id}/data").unwrap();
    assert_eq!(t.match_uri("test://template/1/2/data"), None);
    assert_eq!(t.match_uri("test://template//data"), None);
    assert_eq!(t.match_uri("test://template/123/data/"), None);
    assert_eq!(t.match_uri("test://template/123/dat"), None);
    assert_eq!(t.match_uri("TEST://template/123/data"), None);
    assert_eq!(t.match_uri("test://template/1?2/data"), None);
    assert_eq!(t.match_uri("test://template/1#2/data"), None);
    assert_eq!(t.match_uri("test://template/1,2/data"), None);
}

/// An expansion percent-encodes `{` and `}` in every value (they are neither unreserved
/// nor reserved), so a URI with a literal brace where a variable stands, such as the
/// template itself sent as a URI, is no URI of the template; encoded, they match.
#[test]
fn a_literal_brace_is_never_part_of_a_value() {
    let t = UriTemplate::parse("test://template/{id}/data").unwrap();
    assert_eq!(t.match_uri("test://template/{id}/data"), None);
    assert_eq!(t.match_uri("test://template/a{b/data"), None);
    assert_eq!(t.match_uri("test://template/a}/data"), None);
    assert_eq!(t.match_uri("test://template/%7Bid%7D/data"), Some(vars_of(&[("id", "{id}")])));
    let cases = [
        ("file:///{+path}", "file:///a/{path}"),
        ("doc{#section}", "doc#{section}"),
        ("/file{.ext}", "/file.{ext}"),
        ("/a{/b}", "/a/{b}"),
        ("x{;p}", "x;p={p}"),
        ("s{?q}", "s?q={q}"),
        ("s?a=1{&q}", "s?a=1&q={q}"),
    ];
    for (template, uri) in cases {
        assert_eq!(UriTemplate::parse(template).unwrap().match_uri(uri), None, "{template} on {uri}");
    }
}

#[test]
fn simple_variable_values_are_percent_decoded() {
    let t = UriTemplate::parse("test://template/{id}/data").unwrap();
    assert_eq!(t.match_uri("test://template/a%2Fb%20c%C3%A9/data"), Some(vars_of(&[("id", "a/b cé")])));
    // Stray '%' is kept; raw non-ASCII is accepted.
    assert_eq!(t.match_uri("test://template/50%/data"), Some(vars_of(&[("id", "50%")])));
    assert_eq!(t.match_uri("test://template/日本/data"), Some(vars_of(&[("id", "日本")])));
}

#[test]
fn invalid_utf8_after_decoding_does_not_match() {
    let t = UriTemplate::parse("x/{id}").unwrap();
    assert_eq!(t.match_uri("x/%FF"), None);
    assert_eq!(t.match_uri("x/%C3"), None);
}

#[test]
fn reserved_variable_may_contain_slashes() {
    let t = UriTemplate::parse("file:///{+path}").unwrap();
    assert_eq!(t.match_uri("file:///home/user/notes.txt"), Some(vars_of(&[("path", "home/user/notes.txt")])));
    assert_eq!(t.match_uri("file:///a%20b/c,d?e"), Some(vars_of(&[("path", "a b/c,d?e")])));
    assert_eq!(t.match_uri("file:///"), None);
    assert_eq!(t.match_uri("file://x"), None);
}

#[test]
fn reserved_then_segment_backtracks_to_a_full_match() {
    let t = UriTemplate::parse("{+dir}/{name}").unwrap();
    assert_eq!(t.match_uri("p/q/r"), Some(vars_of(&[("dir", "p/q"), ("name", "r")])));
}

#[test]
fn multiple_simple_variables_split_on_commas() {
    let t = UriTemplate::parse("map?{x,y}").unwrap();
    assert_eq!(t.match_uri("map?1024,768"), Some(vars_of(&[("x", "1024"), ("y", "768")])));
    assert_eq!(t.match_uri("map?1024"), Some(vars_of(&[("x", "1024")])));
    assert_eq!(t.match_uri("map?1024,"), Some(vars_of(&[("x", "1024"), ("y", "")])));
    assert_eq!(t.match_uri("map?1,2,3"), None);
}

#[test]
fn query_parameters_match_in_any_order() {
    let t = UriTemplate::parse("api://items{?page,limit}").unwrap();
    let expected = vars_of(&[("page", "2"), ("limit", "10")]);
    assert_eq!(t.match_uri("api://items?page=2&limit=10"), Some(expected.clone()));
    assert_eq!(t.match_uri("api://items?limit=10&page=2"), Some(expected));
}

#[test]
fn query_parameters_may_be_missing() {
    let t = UriTemplate::parse("api://items{?page,limit}").unwrap();
    assert_eq!(t.match_uri("api://items"), Some(HashMap::new()));
    assert_eq!(t.match_uri("api://items?"), Some(HashMap::new()));
    assert_eq!(t.match_uri("api://items?limit=5"), Some(vars_of(&[("limit", "5")])));
    assert_eq!(t.match_uri("api://items?page=&limit"), Some(vars_of(&[("page", ""), ("limit", "")])));
}

#[test]
fn undeclared_query_parameters_are_ignored() {
    let t = UriTemplate::parse("api://items{?page}").unwrap();
    assert_eq!(t.match_uri("api://items?utm=x&page=3&&z"), Some(vars_of(&[("page", "3")])));
}

#[test]
fn repeated_query_parameter_first_wins_unless_exploded() {
    assert_eq!(matches("q{?a}", "q?a=1&a=2"), Some(vars_of(&[("a", "1")])));
    assert_eq!(
        matches("q{?list*}", "q?list=red&list=green&list=blue"),
        Some(vars_of(&[("list", "red,green,blue")]))
    );
}

#[test]
fn query_values_are_percent_decoded() {
    assert_eq!(matches("s{?q}", "s?q=a%20b%26c%3Dd"), Some(vars_of(&[("q", "a b&c=d")])));
}

#[test]
fn query_continuation_pools_with_literal_query() {
    let t = UriTemplate::parse("search?fixed=yes{&x,y}").unwrap();
    assert_eq!(t.match_uri("search?fixed=yes&y=2&x=1"), Some(vars_of(&[("x", "1"), ("y", "2")])));
    assert_eq!(t.match_uri("search?fixed=yes"), Some(HashMap::new()));
    assert_eq!(t.match_uri("search?fixed=no&x=1"), None);
}

#[test]
fn query_and_continuation_expressions_share_parameters() {
    let t = UriTemplate::parse("s{?a}{&b}").unwrap();
    assert_eq!(t.match_uri("s?b=2&a=1"), Some(vars_of(&[("a", "1"), ("b", "2")])));
}

#[test]
fn query_stops_at_fragment() {
    let t = UriTemplate::parse("s{?a}{#f}").unwrap();
    assert_eq!(t.match_uri("s?a=1#top"), Some(vars_of(&[("a", "1"), ("f", "top")])));
    assert_eq!(t.match_uri("s#top"), Some(vars_of(&[("f", "top")])));
}

#[test]
fn path_then_query() {
    let t = UriTemplate::parse("file:///{+path}{?rev}").unwrap();
    assert_eq!(t.match_uri("file:///a/b.txt?rev=3"), Some(vars_of(&[("path", "a/b.txt"), ("rev", "3")])));
    assert_eq!(t.match_uri("file:///a/b.txt"), Some(vars_of(&[("path", "a/b.txt")])));
}

#[test]
fn fragment_is_optional_and_may_hold_reserved_characters() {
    let t = UriTemplate::parse("doc{#section}").unwrap();
    assert_eq!(t.match_uri("doc"), Some(HashMap::new()));
    assert_eq!(t.match_uri("doc#"), Some(vars_of(&[("section", "")])));
    assert_eq!(t.match_uri("doc#a/b?c"), Some(vars_of(&[("section", "a/b?c")])));
}

#[test]
fn label_is_optional() {
    let t = UriTemplate::parse("/file{.ext}").unwrap();
    assert_eq!(t.match_uri("/file"), Some(HashMap::new()));
    assert_eq!(t.match_uri("/file.txt"), Some(vars_of(&[("ext", "txt")])));
    assert_eq!(t.match_uri("/file."), Some(vars_of(&[("ext", "")])));
    assert_eq!(t.match_uri("/file.tar.gz"), Some(vars_of(&[("ext", "tar.gz")])));
    assert_eq!(t.match_uri("/file.tar/gz"), None);
}

#[test]
fn name_then_label_gives_the_name_the_shortest_match() {
    let t = UriTemplate::parse("/{name}{.ext}").unwrap();
    assert_eq!(t.match_uri("/archive.tar.gz"), Some(vars_of(&[("name", "archive"), ("ext", "tar.gz")])));
    assert_eq!(t.match_uri("/README"), Some(vars_of(&[("name", "README")])));
}

#[test]
fn multiple_labels_fill_earliest_first() {
    let t = UriTemplate::parse("X{.x,y}").unwrap();
    assert_eq!(t.match_uri("X.1024.768"), Some(vars_of(&[("x", "1024"), ("y", "768")])));
    assert_eq!(t.match_uri("X.768"), Some(vars_of(&[("x", "768")])));
    assert_eq!(t.match_uri("X"), Some(HashMap::new()));
    assert_eq!(t.match_uri("X.a.b.c"), None);
}

#[test]
fn path_segment_variable_matches_one_segment() {
    let t = UriTemplate::parse("/users{/id}").unwrap();
    assert_eq!(t.match_uri("/users/42"), Some(vars_of(&[("id", "42")])));
    assert_eq!(t.match_uri("/users"), Some(HashMap::new()));
    assert_eq!(t.match_uri("/users/42/posts"), None);
    let t = UriTemplate::parse("{/a,b}/here").unwrap();
    assert_eq!(t.match_uri("/x/y/here"), Some(vars_of(&[("a", "x"), ("b", "y")])));
    assert_eq!(t.match_uri("/x/here"), Some(vars_of(&[("a", "x")])));
}

#[test]
fn exploded_path_captures_all_segments() {
    let t = UriTemplate::parse("repo{/path*}").unwrap();
    assert_eq!(t.match_uri("repo/a/b/c"), Some(vars_of(&[("path", "a/b/c")])));
    assert_eq!(matches("www{.dom*}", "www.example.com"), Some(vars_of(&[("dom", "example.com")])));
}

#[test]
fn path_parameters_match_in_any_order_and_may_be_missing() {
    let t = UriTemplate::parse("/m{;x,y,empty}/end").unwrap();
    assert_eq!(
        t.match_uri("/m;y=768;x=1024;empty/end"),
        Some(vars_of(&[("x", "1024"), ("y", "768"), ("empty", "")]))
    );
    assert_eq!(t.match_uri("/m;x=1/end"), Some(vars_of(&[("x", "1")])));
    assert_eq!(t.match_uri("/m/end"), Some(HashMap::new()));
    assert_eq!(t.match_uri("/m;x=1/2/end"), None);
}

#[test]
fn adjacent_variables_first_takes_shortest_match() {
    let t = UriTemplate::parse("{a}{b}").unwrap();
    assert_eq!(t.match_uri("xyz"), Some(vars_of(&[("a", "x"), ("b", "yz")])));
    assert_eq!(t.match_uri("x"), None);
    let t = UriTemplate::parse("{+a}{+b}").unwrap();
    assert_eq!(t.match_uri("p/q"), Some(vars_of(&[("a", "p"), ("b", "/q")])));
    let t = UriTemplate::parse("{a}-{b}").unwrap();
    assert_eq!(t.match_uri("1-2-3"), Some(vars_of(&[("a", "1"), ("b", "2-3")])));
}

#[test]
fn repeated_variable_must_match_the_same_value() {
    let t = UriTemplate::parse("{x}/{x}").unwrap();
    assert_eq!(t.match_uri("a/a"), Some(vars_of(&[("x", "a")])));
    assert_eq!(t.match_uri("a/b"), None);
    assert_eq!(t.match_uri("a%20/a "), Some(vars_of(&[("x", "a ")])));
}

#[test]
fn prefix_modifier_limits_matched_length() {
    let t = UriTemplate::parse("{var:3}").unwrap();
    assert_eq!(t.match_uri("val"), Some(vars_of(&[("var", "val")])));
    assert_eq!(t.match_uri("%C3%A9t%C3%A9"), Some(vars_of(&[("var", "été")])));
    assert_eq!(t.match_uri("value"), None);
    assert_eq!(matches("{?q:2}", "?q=abc"), None);
    assert_eq!(matches("{?q:2}", "?q=ab"), Some(vars_of(&[("q", "ab")])));
}

#[test]
fn prefix_and_repeated_variables_are_searched_for_not_just_checked() {
    // Found by fuzzing: the automaton's preferred split broke the constraint.
    assert_eq!(matches("{a}{b}{c:2}", "njklab"), Some(vars_of(&[("a", "n"), ("b", "jkl"), ("c", "ab")])));
    assert_eq!(matches("{x}{x}", "abab"), Some(vars_of(&[("x", "ab")])));
    assert_eq!(matches("{x}{x}{x}{x}dat", "qqqqqqqqdat"), Some(vars_of(&[("x", "qq")])));
    assert_eq!(matches("{x}/{x}", "a/b"), None);
    assert_eq!(matches("{x}{x}", "abc"), None);
    assert_eq!(matches("{a:1}{b:1}", "xyz"), None);
    assert_eq!(matches("{a}{b:2}", "%C3%A9t%C3%A9"), Some(vars_of(&[("a", "é"), ("b", "té")])));
    // A hostile input ends within the search budget (as no match).
    let t = UriTemplate::parse("{a}{a}{a}{a}{a}{a}{a}{a}{a}{a}!").unwrap();
    let start = Instant::now();
    assert_eq!(t.match_uri(&"ab".repeat(5_000)), None);
    assert!(start.elapsed() < HANG_GUARD, "{:?}", start.elapsed());
}

#[test]
fn literals_match_in_encoded_form() {
    let t = UriTemplate::parse("a b/{x}").unwrap();
    assert_eq!(t.match_uri("a%20b/1"), Some(vars_of(&[("x", "1")])));
    assert_eq!(t.match_uri("a b/1"), None);
}

#[test]
fn literal_only_template_matches_exactly() {
    let t = UriTemplate::parse("test://static/resource").unwrap();
    assert_eq!(t.match_uri("test://static/resource"), Some(HashMap::new()));
    assert_eq!(t.match_uri("test://static/resource2"), None);
    assert_eq!(t.match_uri("test://static/resourc"), None);
    assert_eq!(t.match_uri(""), None);
}

// -- round trips ---------------------------------------------------------

#[test]
fn expand_then_match_round_trips() {
    let samples = [
        "123",
        "hello world",
        "a/b/c",
        "x?y#z",
        "comma,sep",
        "50%",
        "%41",
        "ünïcødé ✓",
        "semi;colon=eq&amp",
        "dots.in.name",
        "~-_.",
    ];
    let templates = [
        ("test://template/{id}/data", false),
        ("file:///{+id}", true),
        ("doc{#id}", true),
        ("api://items{?id,other}", false),
        ("api://items?fixed=1{&id}", false),
        ("/m{;id}", false),
        ("/p{/id}/tail", false),
    ];
    for (template, reserved) in templates {
        let t = UriTemplate::parse(template).unwrap();
        for sample in samples {
            // Reserved expansion passes `%XX` through, so a literal
            // "%41" cannot survive a round trip there: skip it.
            if reserved && sample.contains("%41") {
                continue;
            }
            let mut vars = HashMap::new();
            vars.insert("id".to_owned(), s(sample));
            let uri = t.expand(&vars);
            assert_eq!(
                t.match_uri(&uri),
                Some(vars_of(&[("id", sample)])),
                "template {template}, value {sample:?}, uri {uri}"
            );
        }
    }
}

#[test]
fn expand_then_match_round_trips_multiple_variables() {
    let t = UriTemplate::parse("mcp://{server}/tools/{tool}{/version}{?page,limit}").unwrap();
    let mut vars = HashMap::new();
    vars.insert("server".to_owned(), s("my server"));
    vars.insert("tool".to_owned(), s("a/b"));
    vars.insert("version".to_owned(), s("v1.2"));
    vars.insert("limit".to_owned(), s("10"));
    let uri = t.expand(&vars);
    assert_eq!(uri, "mcp://my%20server/tools/a%2Fb/v1.2?limit=10");
    let got = t.match_uri(&uri).unwrap();
    assert_eq!(
        got,
        vars_of(&[("server", "my server"), ("tool", "a/b"), ("version", "v1.2"), ("limit", "10")])
    );
}
