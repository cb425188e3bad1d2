//! Unit tests of the expansion: what each attribute refuses, and why.

#![allow(clippy::unwrap_used)]

use proc_macro2::TokenStream as Tokens;
use quote::quote;
use syn::parse::{ParseStream, Parser};

use crate::expand::expand;
use crate::handlers::expand_handlers;
use crate::options::Options;
use crate::Kind;

/// The message `#[tool]` stops the build with on `item`, if it does.
fn refused(item: Tokens) -> Option<String> {
    expand(Kind::Tool, Options::default(), syn::parse2(item).unwrap()).err().map(|e| e.to_string())
}

/// A generic function, or an argument of an `impl Trait` type, is refused with a message
/// that says why (the arguments are one struct, whose fields need concrete types); the
/// compiler's own errors on the generated code ("type annotations needed", "`impl
/// Trait` is not allowed in field types") named neither the function nor the fix.
#[test]
fn generic_functions_and_impl_trait_arguments_are_refused_with_a_reason() {
    let generic = refused(quote! { async fn show<T: Default>(a: i64) -> String { String::new() } });
    assert!(generic.as_deref().is_some_and(|m| m.contains("generic")), "{generic:?}");
    let lifetime = refused(quote! { async fn show<'a>(a: i64) -> String { String::new() } });
    assert!(lifetime.as_deref().is_some_and(|m| m.contains("generic")), "{lifetime:?}");
    let into = refused(quote! { async fn into(a: impl Into<String>) -> String { a.into() } });
    assert!(into.as_deref().is_some_and(|m| m.contains("impl Trait")), "{into:?}");
    assert_eq!(refused(quote! { async fn add(a: i64, b: Option<Vec<String>>) -> i64 { a } }), None);
}

/// `#[arg(rename = "...")]` gives an argument its wire name; an empty name, one that
/// two arguments would share (renamed or not, `r#type` being `type`), or a rename on
/// an extractor, which has no name on the wire, is refused with a reason.
#[test]
fn renames_that_are_empty_duplicate_or_on_an_extractor_are_refused() {
    let empty = refused(quote! { async fn f(#[arg(rename = "")] a: i64) {} });
    assert!(empty.as_deref().is_some_and(|m| m.contains("empty")), "{empty:?}");
    let twice = refused(quote! { async fn f(#[arg(rename = "x")] a: i64, #[arg(rename = "x")] b: i64) {} });
    assert!(twice.as_deref().is_some_and(|m| m.contains("\"x\"") && m.contains("twice")), "{twice:?}");
    let taken = refused(quote! { async fn f(#[arg(rename = "type")] a: i64, r#type: i64) {} });
    assert!(taken.as_deref().is_some_and(|m| m.contains("\"type\"") && m.contains("twice")), "{taken:?}");
    let extractor = refused(quote! { async fn f(#[arg(rename = "c")] ctx: Ctx, a: i64) {} });
    assert!(extractor.as_deref().is_some_and(|m| m.contains("extractor")), "{extractor:?}");
    let fine =
        quote! { async fn f(#[arg(rename = "userId")] user_id: i64, #[arg(rename = "b")] a: Option<i64>) {} };
    assert_eq!(refused(fine), None);
}

/// An option given twice to one parameter, in one `#[arg(...)]` or in two, is refused
/// where the second stands: one of the two would be lost (the last one won, silently).
#[test]
fn an_arg_option_given_twice_is_refused() {
    for item in [
        quote! { async fn f(#[arg(rename = "a")] #[arg(rename = "b")] x: i64) {} },
        quote! { async fn f(#[arg(rename = "a", rename = "b")] x: i64) {} },
    ] {
        let twice = refused(item);
        assert!(twice.as_deref().is_some_and(|m| m.contains("rename") && m.contains("twice")), "{twice:?}");
    }
    let described =
        refused(quote! { async fn f(#[arg(description = "a")] #[arg(description = "b")] x: i64) {} });
    assert!(
        described.as_deref().is_some_and(|m| m.contains("description") && m.contains("twice")),
        "{described:?}"
    );
    let fine = quote! { async fn f(#[arg(rename = "a")] #[arg(description = "b")] x: i64) {} };
    assert_eq!(refused(fine), None);
}

/// `#[arg(default)]` lets an argument be left out (its type's default then); given twice,
/// or on an extractor, which is no argument, it is refused with a reason. A `#[serde]` or
/// `#[schemars]` attribute on a parameter, which the macro does not carry to the
/// arguments' field, is refused saying what to write instead (rustc said only "cannot
/// find attribute `serde` in this scope").
#[test]
fn defaults_and_the_derives_attributes_on_parameters() {
    let fine =
        refused(quote! { async fn f(#[arg(default)] limit: u32, #[arg(default, rename = "o")] off: i64) {} });
    assert_eq!(fine, None);
    let expanded = expand(
        Kind::Tool,
        Options::default(),
        syn::parse2(quote! { async fn f(#[arg(default)] limit: u32) {} }).unwrap(),
    )
    .unwrap()
    .to_string();
    assert!(expanded.contains("# [serde (default)] limit : u32"), "{expanded}");
    let twice = refused(quote! { async fn f(#[arg(default)] #[arg(default)] limit: u32) {} });
    assert!(twice.as_deref().is_some_and(|m| m.contains("default") && m.contains("twice")), "{twice:?}");
    let extractor = refused(quote! { async fn f(#[arg(default)] ctx: Ctx) {} });
    assert!(extractor.as_deref().is_some_and(|m| m.contains("extractor")), "{extractor:?}");
    for item in [
        quote! { async fn f(#[serde(default)] limit: u32) {} },
        quote! { async fn f(#[schemars(range(min = 1))] limit: u32) {} },
    ] {
        let message = refused(item.clone());
        assert!(
            message.as_deref().is_some_and(|m| m.contains("#[arg(default)]") && m.contains("Args<T>")),
            "{item}: {message:?}"
        );
    }
}

/// A method, or a function whose signature names `Self` (so it sits in an `impl`
/// block), is refused with what to do instead (`#[mcpwire::handlers]` on the block, or a
/// free function): the attribute cannot see the `impl` around a function, and what it
/// generates there does not build (rustc's errors spoke of a struct the user never
/// wrote).
#[test]
fn methods_and_associated_functions_are_refused_with_what_to_do() {
    for item in [
        quote! { async fn x(&self, a: i64) -> i64 { a } },
        quote! { async fn x(State(db): State<Self>, a: i64) -> i64 { a } },
        quote! { async fn x(a: i64) -> Result<Self, ToolError> { todo!() } },
    ] {
        let message = refused(item.clone());
        assert!(
            message.as_deref().is_some_and(|m| m.contains("impl")
                && m.contains("#[mcpwire::handlers]")
                && m.contains("State<")
                && m.contains("definitions![")),
            "{item}: {message:?}"
        );
    }
}

/// The same for the attribute's own options (`#[tool(name = "a", name = "b")]`).
#[test]
fn an_attribute_option_given_twice_is_refused() {
    let parse = |kind: Kind, tokens: Tokens| {
        (|input: ParseStream| Options::parse(kind, input)).parse2(tokens).err().map(|e| e.to_string())
    };
    for (kind, tokens) in [
        (Kind::Tool, quote! { name = "a", name = "b" }),
        (Kind::Tool, quote! { description = "a", title = "t", description = include_str!("b") }),
        (Kind::Tool, quote! { read_only_hint = true, read_only_hint = false }),
        (Kind::Tool, quote! { task_support = "optional", task_support = "required" }),
        (Kind::Resource, quote! { uri = "a://x", mime_type = "text/plain", uri = "a://y" }),
    ] {
        let twice = parse(kind, tokens.clone());
        assert!(twice.as_deref().is_some_and(|m| m.contains("twice")), "{tokens}: {twice:?}");
    }
    assert_eq!(parse(Kind::Tool, quote! { name = "a", title = "b", read_only_hint = true }), None);
}

/// `task_support` takes the spec's three words, on tools only.
#[test]
fn task_support_names_one_of_the_specs_values() {
    let parse = |kind: Kind, tokens: Tokens| {
        (|input: ParseStream| Options::parse(kind, input)).parse2(tokens).err().map(|e| e.to_string())
    };
    for value in ["optional", "required", "forbidden"] {
        assert_eq!(parse(Kind::Tool, quote! { task_support = #value }), None, "{value}");
    }
    let wrong = parse(Kind::Tool, quote! { task_support = "Optional" });
    assert!(wrong.as_deref().is_some_and(|m| m.contains("\"optional\", \"required\"")), "{wrong:?}");
    let boolean = parse(Kind::Tool, quote! { task_support = true });
    assert!(boolean.as_deref().is_some_and(|m| m.contains("takes a string")), "{boolean:?}");
    let prompt = parse(Kind::Prompt, quote! { task_support = "optional" });
    assert!(prompt.as_deref().is_some_and(|m| m.contains("unknown option")), "{prompt:?}");
}

/// The message `#[mcpwire::handlers]` stops the build with on `block`, if it does (all of
/// them, when there are several).
fn handlers_refused(block: Tokens) -> Option<String> {
    match expand_handlers(Tokens::new(), block) {
        Ok(tokens) => {
            // Errors on single functions come out beside the block, as `compile_error!`s.
            let text = tokens.to_string();
            text.contains("compile_error").then_some(text)
        }
        Err(e) => Some(e.to_string()),
    }
}

/// `self` by value and `&mut self` are refused, saying to take `&self`: the handlers run
/// at once on one shared value. So is an argument whose type is written `Self` (the
/// arguments are a struct of their own, where `Self` is another type).
#[test]
fn receivers_other_than_ref_self_and_self_in_arguments_are_refused() {
    for receiver in [quote! { &mut self }, quote! { self }, quote! { mut self }, quote! { self: Box<Self> }] {
        let message = handlers_refused(quote! {
            impl Counter { #[tool] async fn bump(#receiver) -> i64 { 1 } }
        });
        assert!(message.as_deref().is_some_and(|m| m.contains("takes `&self`")), "{receiver}: {message:?}");
    }
    let own = handlers_refused(
        quote! { impl Counter { #[tool] async fn add(&self, other: Vec<Self>) -> i64 { 1 } } },
    );
    assert!(own.as_deref().is_some_and(|m| m.contains("`Self`")), "{own:?}");
    // `Self` where the block's functions are: the result, and an extractor.
    let fine = quote! {
        impl Counter {
            #[tool] async fn a(&self, State(s): State<Self>, n: i64) -> Result<String, ToolError> { todo!() }
            #[tool] fn b(n: i64) -> Self { todo!() }
            #[prompt] async fn c(&self, name: String) -> String { name }
            #[resource(uri = "c://v")] async fn d(&self) -> String { String::new() }
        }
    };
    assert_eq!(handlers_refused(fine), None);
}

/// What the block's attribute cannot do is refused with why: options other than
/// `definitions = name`, a trait's impl, a
/// block with nothing marked, two kinds on one function, a kind on an item other than a
/// function, a kind inside `cfg_attr` (which applies after the block's attribute ran). Each error on a function is reported, not only the first.
#[test]
fn blocks_the_attribute_cannot_make_definitions_of_are_refused_with_why() {
    for options in [quote! { name = "x" }, quote! { definitions = "x" }, quote! { definitions = a, b }] {
        let refused = expand_handlers(options.clone(), quote! { impl A { #[tool] async fn a() {} } });
        assert!(refused.is_err_and(|e| e.to_string().contains("definitions = name")), "{options}");
    }
    for (block, expected) in [
        (quote! { impl Clone for A { #[tool] fn clone(&self) -> Self { A } } }, "inherent"),
        (quote! { impl A { fn helper(&self) {} } }, "found no function marked"),
        (quote! { impl A { #[tool] #[mcpwire::prompt] async fn a() {} } }, "marked #[tool] already"),
        (quote! { impl A { #[tool] const X: i64 = 1; } }, "goes on a function"),
        (quote! { impl A { #[resource] async fn r() -> String { String::new() } } }, "needs uri"),
        (
            quote! { impl A { #[cfg_attr(feature = "x", tool)] async fn a() {} } },
            "`#[cfg(..)]` on the function",
        ),
    ] {
        let message = handlers_refused(block.clone());
        assert!(message.as_deref().is_some_and(|m| m.contains(expected)), "{block}: {message:?}");
    }
    let both = handlers_refused(quote! {
        impl A {
            #[tool] async fn a(&mut self) {}
            #[tool] async fn b(#[arg(rename = "")] x: i64) {}
        }
    })
    .unwrap_or_default();
    assert!(both.contains("takes `&self`") && both.contains("empty string"), "{both}");
}

/// The block keeps its other items as written; each marked function gets its
/// `<name>_<kind>` beside it, and `definitions()` takes `&self` only when a marked
/// function does.
#[test]
fn the_block_gains_a_definition_per_function_and_definitions() {
    let expanded = expand_handlers(
        Tokens::new(),
        quote! {
            impl Counter {
                #[tool] async fn increment(&self) -> i64 { 1 }
                #[mcpwire::prompt] async fn greet(name: String) -> String { name }
                fn helper(&self) -> i64 { 2 }
            }
        },
    )
    .unwrap()
    .to_string();
    for expected in [
        "fn increment_tool (& self)",
        "fn greet_prompt ()",
        "fn helper (& self) -> i64 { 2 }",
        "pub fn definitions (& self) -> :: std :: vec :: Vec < :: mcpwire :: server :: Definition >",
        "with_capacity (2usize)",
    ] {
        assert!(expanded.contains(expected), "{expected} in {expanded}");
    }
    assert!(!expanded.contains("# [tool]") && !expanded.contains("# [mcpwire :: prompt]"), "{expanded}");
    let associated =
        expand_handlers(Tokens::new(), quote! { impl Tools { #[tool] async fn ping() {} } }).unwrap();
    let associated = associated.to_string();
    assert!(associated.contains("pub fn definitions () ->"), "{associated}");
    assert!(!associated.contains("__mcpwire_shared"), "nothing to share: {associated}");
}

/// `definitions = name` names the generated function, and the helper its `&self` handlers
/// share after it, so that two blocks of one type can each have one.
#[test]
fn the_definitions_function_takes_the_name_given() {
    let expanded = expand_handlers(
        quote! { definitions = counter_tools },
        quote! { impl Counter { #[tool] async fn increment(&self) -> i64 { 1 } } },
    )
    .unwrap()
    .to_string();
    for expected in ["pub fn counter_tools (& self)", "fn __mcpwire_shared_counter_tools (& self)"] {
        assert!(expanded.contains(expected), "{expected} in {expanded}");
    }
    assert!(!expanded.contains("fn definitions"), "{expanded}");
}
