//! Parsing: every syntax error, and what a parsed template keeps.

use super::*;

// -- parsing -------------------------------------------------------------

#[test]
fn parse_reports_unclosed_expression() {
    assert_eq!(UriTemplate::parse("a{b").unwrap_err(), UriTemplateError::UnclosedExpression { at: 1 });
    assert_eq!(UriTemplate::parse("{").unwrap_err(), UriTemplateError::UnclosedExpression { at: 0 });
}

#[test]
fn parse_reports_nested_and_unmatched_braces() {
    assert_eq!(UriTemplate::parse("{a{b}}").unwrap_err(), UriTemplateError::NestedBrace { at: 2 });
    assert_eq!(UriTemplate::parse("a}b").unwrap_err(), UriTemplateError::UnmatchedClosingBrace { at: 1 });
    assert_eq!(UriTemplate::parse("{a}}").unwrap_err(), UriTemplateError::UnmatchedClosingBrace { at: 3 });
}

#[test]
fn parse_reports_empty_expressions() {
    for (t, at) in [("{}", 0), ("x{+}", 1), ("{?}", 0)] {
        assert_eq!(UriTemplate::parse(t).unwrap_err(), UriTemplateError::EmptyExpression { at }, "{t}");
    }
}

#[test]
fn parse_reports_unknown_and_reserved_operators() {
    for op in ['=', ',', '!', '@', '|', '$', '-', '~', '*', ':'] {
        let t = format!("x{{{op}a}}");
        assert_eq!(
            UriTemplate::parse(&t).unwrap_err(),
            UriTemplateError::UnknownOperator { at: 2, op },
            "{t}"
        );
    }
}

#[test]
fn parse_reports_bad_variable_names() {
    for t in [
        "{a b}", "{a,}", "{,a}", "{a,,b}", "{..a}", "{a.}", "{a..b}", "{+.a}", "{é}", "{a-b}", "{%4}",
        "{%zz}", "{a*:3}", "{ a}", "{a**}", "{*}",
    ] {
        let err = UriTemplate::parse(t).unwrap_err();
        assert!(
            matches!(
                err,
                UriTemplateError::InvalidVariableName { .. } | UriTemplateError::UnknownOperator { .. }
            ),
            "{t}: {err:?}"
        );
    }
    assert_eq!(UriTemplate::parse("{x,a b}").unwrap_err(), UriTemplateError::InvalidVariableName { at: 3 });
}

#[test]
fn parse_accepts_valid_variable_names() {
    let t = UriTemplate::parse("{a.b,_x,A1,%41b,a.%42.c}").unwrap();
    assert_eq!(t.variables().collect::<Vec<_>>(), ["a.b", "_x", "A1", "%41b", "a.%42.c"]);
}

#[test]
fn parse_reports_bad_prefix_modifiers() {
    for (t, at) in [
        ("{a:}", 2),
        ("{a:0}", 2),
        ("{a:01}", 2),
        ("{a:10000}", 2),
        ("{a:x}", 2),
        ("{a:3*}", 2),
        ("{a:-1}", 2),
        ("{x,ab:1:2}", 5),
    ] {
        assert_eq!(UriTemplate::parse(t).unwrap_err(), UriTemplateError::InvalidPrefix { at }, "{t}");
    }
    assert!(UriTemplate::parse("{a:9999}").is_ok());
    assert!(UriTemplate::parse("{a:1}").is_ok());
}

#[test]
fn parse_rejects_control_characters_in_literals() {
    assert_eq!(UriTemplate::parse("a\nb").unwrap_err(), UriTemplateError::InvalidLiteral { at: 1 });
    assert!(UriTemplate::parse("a\u{7f}").is_err());
}

#[test]
fn parse_error_offsets_and_messages() {
    let err = UriTemplate::parse("abc{def").unwrap_err();
    assert_eq!(err.offset(), 3);
    assert!(err.to_string().contains("byte 3"), "{err}");
    let err = UriTemplate::parse("{!x}").unwrap_err();
    assert!(err.to_string().contains('!'), "{err}");
}

#[test]
fn variables_are_distinct_in_first_appearance_order() {
    let t = UriTemplate::parse("{b}/{a}{?b,c}{&a,d*}{/e:3}").unwrap();
    assert_eq!(t.variables().collect::<Vec<_>>(), ["b", "a", "c", "d", "e"]);
    assert_eq!(UriTemplate::parse("plain").unwrap().variables().count(), 0);
}

#[test]
fn as_str_display_and_from_str_keep_the_source() {
    let src = "file:///{+path}";
    let t: UriTemplate = src.parse().unwrap();
    assert_eq!(t.as_str(), src);
    assert_eq!(t.to_string(), src);
    assert_eq!(format!("{t:?}"), format!("UriTemplate({src:?})"));
    assert_eq!(t, UriTemplate::parse(src).unwrap());
}

#[test]
fn template_is_send_and_sync_for_sharing_across_tasks() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<UriTemplate>();
    assert_send_sync::<UriTemplateError>();
}

#[test]
fn simple_variable_stops_before_query_expression() {
    let t = UriTemplate::parse("items/{id}{?page}").unwrap();
    assert_eq!(t.match_uri("items/5?page=2"), Some(vars_of(&[("id", "5"), ("page", "2")])));
    assert_eq!(t.match_uri("items/5"), Some(vars_of(&[("id", "5")])));
}

#[test]
fn empty_template_matches_only_empty_uri() {
    let t = UriTemplate::parse("").unwrap();
    assert_eq!(t.expand(&HashMap::new()), "");
    assert_eq!(t.match_uri(""), Some(HashMap::new()));
    assert_eq!(t.match_uri("x"), None);
}
