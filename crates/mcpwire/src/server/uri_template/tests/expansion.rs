//! Expansion: the RFC 6570 section 3.2 examples and the details around them.

use super::*;

// -- RFC 6570 section 3.2 expansion examples ---------------------------

#[test]
fn rfc_3_2_1_variable_expansion_of_composites() {
    check_expansions(&[
        ("{count}", "one,two,three"),
        ("{count*}", "one,two,three"),
        ("{/count}", "/one,two,three"),
        ("{/count*}", "/one/two/three"),
        ("{;count}", ";count=one,two,three"),
        ("{;count*}", ";count=one;count=two;count=three"),
        ("{?count}", "?count=one,two,three"),
        ("{?count*}", "?count=one&count=two&count=three"),
        ("{&count*}", "&count=one&count=two&count=three"),
    ]);
}

#[test]
fn rfc_3_2_2_simple_string_expansion() {
    check_expansions(&[
        ("{var}", "value"),
        ("{hello}", "Hello%20World%21"),
        ("{half}", "50%25"),
        ("O{empty}X", "OX"),
        ("O{undef}X", "OX"),
        ("{x,y}", "1024,768"),
        ("{x,hello,y}", "1024,Hello%20World%21,768"),
        ("?{x,empty}", "?1024,"),
        ("?{x,undef}", "?1024"),
        ("?{undef,y}", "?768"),
        ("{var:3}", "val"),
        ("{var:30}", "value"),
        ("{list}", "red,green,blue"),
        ("{list*}", "red,green,blue"),
        ("{keys}", "semi,%3B,dot,.,comma,%2C"),
        ("{keys*}", "semi=%3B,dot=.,comma=%2C"),
    ]);
}

#[test]
fn rfc_3_2_3_reserved_expansion() {
    check_expansions(&[
        ("{+var}", "value"),
        ("{+hello}", "Hello%20World!"),
        ("{+half}", "50%25"),
        ("{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex"),
        ("{+base}index", "http://example.com/home/index"),
        ("O{+empty}X", "OX"),
        ("O{+undef}X", "OX"),
        ("{+path}/here", "/foo/bar/here"),
        ("here?ref={+path}", "here?ref=/foo/bar"),
        ("up{+path}{var}/here", "up/foo/barvalue/here"),
        ("{+x,hello,y}", "1024,Hello%20World!,768"),
        ("{+path,x}/here", "/foo/bar,1024/here"),
        ("{+path:6}/here", "/foo/b/here"),
        ("{+list}", "red,green,blue"),
        ("{+list*}", "red,green,blue"),
        ("{+keys}", "semi,;,dot,.,comma,,"),
        ("{+keys*}", "semi=;,dot=.,comma=,"),
    ]);
}

#[test]
fn rfc_3_2_4_fragment_expansion() {
    check_expansions(&[
        ("{#var}", "#value"),
        ("{#hello}", "#Hello%20World!"),
        ("{#half}", "#50%25"),
        ("foo{#empty}", "foo#"),
        ("foo{#undef}", "foo"),
        ("{#x,hello,y}", "#1024,Hello%20World!,768"),
        ("{#path,x}/here", "#/foo/bar,1024/here"),
        ("{#path:6}/here", "#/foo/b/here"),
        ("{#list}", "#red,green,blue"),
        ("{#list*}", "#red,green,blue"),
        ("{#keys}", "#semi,;,dot,.,comma,,"),
        ("{#keys*}", "#semi=;,dot=.,comma=,"),
    ]);
}

#[test]
fn rfc_3_2_5_label_expansion() {
    check_expansions(&[
        ("{.who}", ".fred"),
        ("{.who,who}", ".fred.fred"),
        ("{.half,who}", ".50%25.fred"),
        ("www{.dom*}", "www.example.com"),
        ("X{.var}", "X.value"),
        ("X{.empty}", "X."),
        ("X{.undef}", "X"),
        ("X{.var:3}", "X.val"),
        ("X{.list}", "X.red,green,blue"),
        ("X{.list*}", "X.red.green.blue"),
        ("X{.keys}", "X.semi,%3B,dot,.,comma,%2C"),
        ("X{.keys*}", "X.semi=%3B.dot=..comma=%2C"),
        ("X{.empty_keys}", "X"),
        ("X{.empty_keys*}", "X"),
    ]);
}

#[test]
fn rfc_3_2_6_path_segment_expansion() {
    check_expansions(&[
        ("{/who}", "/fred"),
        ("{/who,who}", "/fred/fred"),
        ("{/half,who}", "/50%25/fred"),
        ("{/who,dub}", "/fred/me%2Ftoo"),
        ("{/var}", "/value"),
        ("{/var,empty}", "/value/"),
        ("{/var,undef}", "/value"),
        ("{/var,x}/here", "/value/1024/here"),
        ("{/var:1,var}", "/v/value"),
        ("{/list}", "/red,green,blue"),
        ("{/list*}", "/red/green/blue"),
        ("{/list*,path:4}", "/red/green/blue/%2Ffoo"),
        ("{/keys}", "/semi,%3B,dot,.,comma,%2C"),
        ("{/keys*}", "/semi=%3B/dot=./comma=%2C"),
    ]);
}

#[test]
fn rfc_3_2_7_path_style_parameter_expansion() {
    check_expansions(&[
        ("{;who}", ";who=fred"),
        ("{;half}", ";half=50%25"),
        ("{;empty}", ";empty"),
        ("{;v,empty,who}", ";v=6;empty;who=fred"),
        ("{;v,bar,who}", ";v=6;who=fred"),
        ("{;x,y}", ";x=1024;y=768"),
        ("{;x,y,empty}", ";x=1024;y=768;empty"),
        ("{;x,y,undef}", ";x=1024;y=768"),
        ("{;hello:5}", ";hello=Hello"),
        ("{;list}", ";list=red,green,blue"),
        ("{;list*}", ";list=red;list=green;list=blue"),
        ("{;keys}", ";keys=semi,%3B,dot,.,comma,%2C"),
        ("{;keys*}", ";semi=%3B;dot=.;comma=%2C"),
    ]);
}

#[test]
fn rfc_3_2_8_form_style_query_expansion() {
    check_expansions(&[
        ("{?who}", "?who=fred"),
        ("{?half}", "?half=50%25"),
        ("{?x,y}", "?x=1024&y=768"),
        ("{?x,y,empty}", "?x=1024&y=768&empty="),
        ("{?x,y,undef}", "?x=1024&y=768"),
        ("{?var:3}", "?var=val"),
        ("{?list}", "?list=red,green,blue"),
        ("{?list*}", "?list=red&list=green&list=blue"),
        ("{?keys}", "?keys=semi,%3B,dot,.,comma,%2C"),
        ("{?keys*}", "?semi=%3B&dot=.&comma=%2C"),
    ]);
}

#[test]
fn rfc_3_2_9_form_style_query_continuation() {
    check_expansions(&[
        ("{&who}", "&who=fred"),
        ("{&half}", "&half=50%25"),
        ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
        ("{&x,y,empty}", "&x=1024&y=768&empty="),
        ("{&x,y,undef}", "&x=1024&y=768"),
        ("{&var:3}", "&var=val"),
        ("{&list}", "&list=red,green,blue"),
        ("{&list*}", "&list=red&list=green&list=blue"),
        ("{&keys}", "&keys=semi,%3B,dot,.,comma,%2C"),
        ("{&keys*}", "&semi=%3B&dot=.&comma=%2C"),
    ]);
}

#[test]
fn rfc_1_2_level_examples() {
    check_expansions(&[
        ("X{#var}", "X#value"),
        ("X{#hello}", "X#Hello%20World!"),
        ("map?{x,y}", "map?1024,768"),
        ("X{.x,y}", "X.1024.768"),
        ("{/var,x}/here", "/value/1024/here"),
    ]);
}

// -- expansion details -------------------------------------------------

#[test]
fn expansion_percent_encodes_utf8_and_reserved_characters() {
    let t = UriTemplate::parse("{a}|{+a}|{?a}").unwrap();
    let mut vars = HashMap::new();
    vars.insert("a".to_owned(), s("é ü/?#[]%zz%41~"));
    assert_eq!(
        t.expand(&vars),
        "%C3%A9%20%C3%BC%2F%3F%23%5B%5D%25zz%2541~%7C%C3%A9%20%C3%BC/?#[]%25zz%41~%7C?a=%C3%A9%20%C3%BC%2F%3F%23%5B%5D%25zz%2541~"
    );
}

#[test]
fn expansion_prefix_counts_characters_not_bytes() {
    let t = UriTemplate::parse("{a:2}").unwrap();
    let mut vars = HashMap::new();
    vars.insert("a".to_owned(), s("éèà"));
    assert_eq!(t.expand(&vars), "%C3%A9%C3%A8");
}

#[test]
fn expansion_literals_are_encoded_when_needed() {
    let t = UriTemplate::parse("a b/é%41%zz").unwrap();
    assert_eq!(t.expand(&HashMap::new()), "a%20b/%C3%A9%41%25zz");
}

#[test]
fn expand_with_closure_lookup() {
    let t = UriTemplate::parse("test://template/{id}/data").unwrap();
    let v = s("a b");
    assert_eq!(t.expand_with(|name| (name == "id").then_some(&v)), "test://template/a%20b/data");
}

#[test]
fn expansion_with_no_variables_leaves_only_literals() {
    let t = UriTemplate::parse("api://items{?page,limit}{#frag}").unwrap();
    assert_eq!(t.expand(&HashMap::new()), "api://items");
}

#[test]
fn template_value_conversions() {
    assert_eq!(TemplateValue::from("a"), s("a"));
    assert_eq!(TemplateValue::from("a".to_owned()), s("a"));
    assert_eq!(TemplateValue::from(vec!["a".to_owned()]), list(&["a"]));
    assert_eq!(TemplateValue::from(vec![("k".to_owned(), "v".to_owned())]), map(&[("k", "v")]));
}
