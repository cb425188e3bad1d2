//! The attribute macros of mcpwire: `#[mcpwire::tool]`, `#[mcpwire::prompt]` and
//! `#[mcpwire::resource]` turn plain Rust functions into MCP tools, prompts and resources,
//! and `mcpwire::definitions![...]` collects them for `ServerBuilder::register_all`.
//!
//! ```ignore
//! /// Adds two numbers.
//! #[mcpwire::tool]
//! async fn add(a: i64, b: i64) -> i64 {
//!     a + b
//! }
//!
//! /// Greets someone.
//! #[mcpwire::prompt]
//! async fn greet(#[arg(description = "Who to greet")] name: String) -> String {
//!     format!("Say hello to {name}")
//! }
//!
//! /// A note, by id.
//! #[mcpwire::resource(uri = "notes://{id}", mime_type = "text/plain")]
//! async fn note(id: String) -> String {
//!     format!("note {id}")
//! }
//!
//! let server = Server::builder("demo", "1.0").register_all(mcpwire::definitions![add, greet, note]).build()?;
//! ```
//!
//! The function stays as written. Its parameters, other than extractors (`Ctx`,
//! `State<T>`, and for resources `Uri` or `ResourceRequest`, named as imported or by a
//! path through `mcpwire`; a `State` without a type parameter is the caller's own type,
//! an argument), become the fields of an
//! arguments type, so the tool's `inputSchema`, the prompt's arguments or the template's
//! variables come from their types; a parameter's doc comment (its lines joined with
//! newlines, as the function's are) or `#[arg(description = "...")]`, which wins over it,
//! describes it; `#[arg(rename = "wireName")]` makes `wireName` its name in the schema
//! and on the wire (not empty, not another argument's), the parameter keeping its own.
//! A tool may instead take its arguments whole, as one `Args<T>` parameter. The doc comment (or `description = "..."`) is the description (without
//! either there is none). Next to
//! the function the macro generates `<name>_tool()`, `<name>_prompt()` or
//! `<name>_resource()`, which returns its definition, and a hidden function that
//! `definitions!` names, so registering needs no generated name. The function is a free
//! one (in any module: `definitions![tools::search]`), not a method nor another function
//! of an `impl` block: the attribute sees the function alone, never the `impl` around it,
//! and what it generates beside the function builds at module level only.
//!
//! A tool's return value is sent as it is when its type implements `IntoToolResult`
//! (text, content, `CallToolResult`, `Json<T>`, `Result`s of those), and otherwise, when it
//! implements `Serialize + JsonSchema`, as structured content with a generated
//! `outputSchema` (for `Result<T, E>`, the `Ok` value). The choice is made by those
//! traits, not by the type's name, so aliases work. Options of all three: `name`,
//! `description`, `title`; of `tool`: the behaviour hints of its annotations,
//! `read_only_hint`, `destructive_hint`, `idempotent_hint` and `open_world_hint`
//! (`= true` or `= false`); of `resource`: `uri` (required; with `{variables}` it is a
//! template) and `mime_type`. Each option, of the attribute or of `#[arg(...)]`, is given
//! at most once: a second would replace the first, so the build stops there instead.

#![forbid(unsafe_code)]

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as Tokens};
use quote::{format_ident, quote};
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, ExprLit, FnArg, Ident, ItemFn, Lit, Meta, Pat, Path, ReturnType, Token, Type};

/// The three kinds of definition.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Tool,
    Prompt,
    Resource,
}

impl Kind {
    fn word(self) -> &'static str {
        match self {
            Kind::Tool => "tool",
            Kind::Prompt => "prompt",
            Kind::Resource => "resource",
        }
    }

    /// Parameter types that are extractors rather than arguments: a handful of mcpwire's
    /// own types, named as imported (`Ctx`) or by a path through `mcpwire`
    /// (`mcpwire::server::Ctx`). `State` is one only with its type parameter, so that an
    /// argument of the user's own type `State` (a US state, say) stays an argument.
    fn is_extractor(self, ty: &Type) -> bool {
        let Some(path) = type_path(ty) else { return false };
        let through_mcpwire = path.segments.len() == 1 || path.segments.iter().any(|s| s.ident == "mcpwire");
        let Some(last) = path.segments.last().filter(|_| through_mcpwire) else { return false };
        match last.ident.to_string().as_str() {
            "Ctx" => true,
            "State" => matches!(last.arguments, syn::PathArguments::AngleBracketed(_)),
            "Uri" | "ResourceRequest" => self == Kind::Resource,
            _ => false,
        }
    }
}

/// Options of the attribute: `name = "..."` pairs, and a tool's `read_only_hint = true`
/// (and the other behaviour hints).
#[derive(Default)]
struct Options {
    name: Option<String>,
    /// A string, or the tokens of a macro that makes one.
    description: Option<Tokens>,
    title: Option<String>,
    uri: Option<String>,
    mime_type: Option<String>,
    /// A tool's annotations' hints, as (field of `ToolAnnotations`, value).
    hints: Vec<(Ident, bool)>,
}

/// The behaviour hints of a tool's annotations, as the attribute and `ToolAnnotations`
/// name them.
const HINTS: [&str; 4] = ["read_only_hint", "destructive_hint", "idempotent_hint", "open_world_hint"];

impl Options {
    fn parse(kind: Kind, input: ParseStream) -> syn::Result<Self> {
        let mut options = Options::default();
        let mut seen = Vec::new();
        for (key, value, span) in name_values(input)? {
            // A second value would replace the first, which the user meant too.
            if seen.contains(&key) {
                return Err(syn::Error::new(span, format!("{key} is given twice: keep one")));
            }
            seen.push(key.clone());
            if kind == Kind::Tool && HINTS.contains(&key.as_str()) {
                let OptionValue::Bool(hint) = value else {
                    return Err(syn::Error::new(span, format!("{key} takes true or false")));
                };
                options.hints.push((Ident::new(&key, span), hint));
                continue;
            }
            if key == "description" {
                options.description = Some(match value {
                    OptionValue::Str(text) => quote! { #text },
                    OptionValue::Macro(tokens) => tokens,
                    OptionValue::Bool(_) => return Err(syn::Error::new(span, "description takes a string")),
                });
                continue;
            }
            let OptionValue::Str(value) = value else {
                return Err(syn::Error::new(span, format!("{key} takes a string")));
            };
            let slot = match (key.as_str(), kind) {
                ("name", _) => &mut options.name,
                ("title", _) => &mut options.title,
                ("uri", Kind::Resource) => &mut options.uri,
                ("mime_type", Kind::Resource) => &mut options.mime_type,
                _ => {
                    let known = match kind {
                        Kind::Resource => "uri, name, description, title or mime_type",
                        Kind::Tool => {
                            "name, description, title, read_only_hint, destructive_hint, idempotent_hint or open_world_hint"
                        }
                        Kind::Prompt => "name, description or title",
                    };
                    return Err(syn::Error::new(span, format!("unknown option: use {known}")));
                }
            };
            *slot = Some(value);
        }
        Ok(options)
    }
}

/// An option's value: a string, `true`/`false`, or a macro that makes a string
/// (`include_str!("..")`, `concat!(..)`), which only `description` takes.
enum OptionValue {
    Str(String),
    Bool(bool),
    Macro(Tokens),
}

/// `key = "value"` or `key = true`, ... as (key, value, span of the key).
fn name_values(input: ParseStream) -> syn::Result<Vec<(String, OptionValue, Span)>> {
    let mut out = Vec::new();
    for meta in Punctuated::<Meta, Token![,]>::parse_terminated(input)? {
        let Meta::NameValue(nv) = &meta else {
            return Err(syn::Error::new_spanned(meta, "expected name = \"value\""));
        };
        let value = match &nv.value {
            Expr::Lit(ExprLit { lit: Lit::Str(value), .. }) => OptionValue::Str(value.value()),
            Expr::Lit(ExprLit { lit: Lit::Bool(value), .. }) => OptionValue::Bool(value.value),
            Expr::Macro(mac) => OptionValue::Macro(quote! { #mac }),
            other => return Err(syn::Error::new_spanned(other, "expected a string, true or false")),
        };
        let key = nv.path.get_ident().map(ToString::to_string).unwrap_or_default();
        out.push((key, value, syn::spanned::Spanned::span(&nv.path)));
    }
    Ok(out)
}

/// A type's path (`Ctx`, `mcpwire::server::State<Db>`, ...), through a reference.
fn type_path(ty: &Type) -> Option<&syn::Path> {
    match ty {
        Type::Path(p) if p.qself.is_none() => Some(&p.path),
        Type::Reference(r) => type_path(&r.elem),
        _ => None,
    }
}

/// The doc comment as the description's tokens: its lines joined, without the
/// indentation they share (the space after `///`), so nested lists and code keep theirs;
/// a `#[doc = include_str!("..")]` (or another macro) is put in where it stands.
fn doc_comment(attrs: &[Attribute]) -> Option<Tokens> {
    let parts: Vec<&Expr> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            Meta::NameValue(nv) => Some(&nv.value),
            _ => None,
        })
        .collect();
    let literal = |e: &Expr| match e {
        Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) => Some(s.value()),
        _ => None,
    };
    let texts: Vec<Option<String>> = parts.iter().map(|e| literal(e)).collect();
    let indent = texts
        .iter()
        .flatten()
        .flat_map(|t| t.lines())
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let unindent = |text: &str| {
        text.lines().map(|l| l.get(indent..).unwrap_or("").trim_end()).collect::<Vec<_>>().join("\n")
    };
    if texts.iter().all(Option::is_some) {
        let text = texts.iter().flatten().map(|t| unindent(t)).collect::<Vec<_>>().join("\n");
        let text = text.trim();
        return (!text.is_empty()).then(|| quote! { #text });
    }
    let pieces = parts.iter().zip(&texts).map(|(expr, text)| match text {
        Some(text) => {
            let text = unindent(text);
            quote! { #text }
        }
        None => quote! { #expr },
    });
    Some(quote! { ::core::primitive::str::trim(::core::concat!(#(#pieces, "\n"),*)) })
}

/// The function's parameters, split: arguments become fields of the arguments type,
/// extractors stay parameters of the handler closure.
struct Parameters {
    fields: Vec<Tokens>,
    /// The arguments' names, in the function's order.
    names: Vec<String>,
    extractors: Vec<Tokens>,
    /// A check, spanned on each extractor's type, that it is one (`FromRequest`): the
    /// compiler then says which parameter is wrong and why, where the handler as a whole
    /// would only be "not a handler".
    extractor_checks: Vec<Tokens>,
    call_args: Vec<Tokens>,
    /// A tool that takes its arguments whole, as `Args<T>`: `T` is the arguments type.
    whole_args: bool,
}

/// Whether `ty` is `Args<T>` (named as imported or through `mcpwire`).
fn is_args(ty: &Type) -> bool {
    let Some(path) = type_path(ty) else { return false };
    let through_mcpwire = path.segments.len() == 1 || path.segments.iter().any(|s| s.ident == "mcpwire");
    path.segments.last().is_some_and(|last| {
        through_mcpwire
            && last.ident == "Args"
            && matches!(last.arguments, syn::PathArguments::AngleBracketed(_))
    })
}

/// Splits the parameters and takes the `#[arg(...)]` attributes and doc comments off them
/// (the function is emitted without them, as Rust has no such attribute and takes no doc
/// comment on a parameter).
fn split_parameters(kind: Kind, item: &mut ItemFn) -> syn::Result<Parameters> {
    let mut parameters = Parameters {
        fields: Vec::new(),
        names: Vec::new(),
        extractors: Vec::new(),
        extractor_checks: Vec::new(),
        call_args: Vec::new(),
        whole_args: false,
    };
    if !item.sig.generics.params.is_empty() {
        let message = format!(
            "#[{}] does not take a generic function: its arguments become the fields of one struct, \
             so each needs a concrete type",
            kind.word()
        );
        return Err(syn::Error::new_spanned(&item.sig.generics, message));
    }
    // A signature that names `Self` is in an `impl` block (anywhere else it would not
    // build); a function of an `impl` block without one is not seen as such.
    let sig = &item.sig;
    if let Some(at) = self_in(quote! { #sig }) {
        return Err(syn::Error::new(at, free_functions_only(kind)));
    }
    for (i, input) in item.sig.inputs.iter_mut().enumerate() {
        let FnArg::Typed(pat_type) = input else {
            return Err(syn::Error::new_spanned(input, free_functions_only(kind)));
        };
        let ArgOptions { description, extractor, rename } = take_arg_options(&mut pat_type.attrs)?;
        // Rust takes no doc comment on a parameter: it comes off, and (on an argument)
        // describes it, unless `#[arg(description = "...")]` does.
        let (docs, kept): (Vec<_>, Vec<_>) = pat_type.attrs.drain(..).partition(|a| a.path().is_ident("doc"));
        pat_type.attrs = kept;
        let description = description.map(|d| quote! { #d }).or_else(|| doc_comment(&docs));
        let ty = &pat_type.ty;
        if let Type::ImplTrait(_) = &**ty {
            let message = "a parameter's type must be concrete, not impl Trait: an argument becomes a \
                           field of the arguments struct (`String` for `impl Into<String>`)";
            return Err(syn::Error::new_spanned(ty, message));
        }
        if let Type::Reference(_) = &**ty {
            // A handler's parameters are values it owns: what it is given outlives no
            // borrow of the request.
            let message = match type_path(ty).and_then(|p| p.segments.last()) {
                Some(last) if last.ident == "Ctx" => "take the context by value: `ctx: Ctx`".to_owned(),
                _ => "arguments are owned values, read from the request's JSON: take an owned type \
                      (`String` for `&str`, `Vec<T>` for `&[T]`)"
                    .to_owned(),
            };
            return Err(syn::Error::new_spanned(ty, message));
        }
        // A tool's arguments as one typed struct (`Args(query): Args<Query>`, as rmcp's
        // `Parameters<T>`): its schema is the tool's `inputSchema`.
        let whole_args = kind == Kind::Tool && is_args(ty);
        if whole_args {
            if parameters.whole_args {
                return Err(syn::Error::new_spanned(ty, "a tool takes at most one Args<T>"));
            }
            parameters.whole_args = true;
        }
        if whole_args || extractor || kind.is_extractor(ty) {
            if let Some(rename) = &rename {
                let message = "rename names an argument on the wire; an extractor has no name there";
                return Err(syn::Error::new_spanned(rename, message));
            }
            let ident = format_ident!("__extractor_{}", i);
            parameters.extractors.push(quote! { #ident: #ty });
            parameters.extractor_checks.push(quote::quote_spanned! { syn::spanned::Spanned::span(ty) =>
                ::mcpwire::__private::is_an_extractor::<#ty>();
            });
            parameters.call_args.push(quote! { #ident });
            continue;
        }
        let Pat::Ident(pat) = &*pat_type.pat else {
            return Err(syn::Error::new_spanned(&pat_type.pat, "parameters must be plain names"));
        };
        let field = &pat.ident;
        let doc = description.map(|d| quote! { #[schemars(description = #d)] });
        // The argument's name as serde and schemars spell it: `r#type` is `type`, and a
        // rename is the name on the wire.
        let name =
            rename.as_ref().map_or_else(|| syn::ext::IdentExt::unraw(field).to_string(), |r| r.value());
        if parameters.names.contains(&name) {
            let message = format!(
                "the argument name {name:?} is used twice: each argument needs its own name on the wire \
                 (`#[arg(rename = \"...\")]` sets it)"
            );
            return Err(match &rename {
                Some(rename) => syn::Error::new_spanned(rename, message),
                None => syn::Error::new_spanned(field, message),
            });
        }
        let serde_rename = rename.as_ref().map(|r| quote! { #[serde(rename = #r)] });
        parameters.fields.push(quote! { #doc #serde_rename #field: #ty });
        parameters.names.push(name);
        parameters.call_args.push(quote! { __args.#field });
    }
    if parameters.whole_args && !parameters.names.is_empty() {
        let message = "a tool that takes Args<T> takes no other arguments: make them fields of T";
        return Err(syn::Error::new_spanned(&item.sig.inputs, message));
    }
    Ok(parameters)
}

/// Why a method or another function of an `impl` block is refused, and what to write
/// instead. The attribute sees the function alone, never the `impl` around it, and what
/// it generates (the arguments' struct, and the definition calling the function by its
/// bare name) builds at module level only.
fn free_functions_only(kind: Kind) -> String {
    let word = kind.word();
    format!(
        "#[{word}] works on free functions, not on methods or other functions of an `impl` block: \
         move the function out of the `impl` (into a module of its own to group such functions, \
         `mod tools {{ .. }}`, registered with `definitions![tools::name]`), and take what `self` \
         would have held as a `State<YourStruct>` parameter (`ServerBuilder::state(..)` sets it)"
    )
}

/// Where `tokens` name `Self`, if they do.
fn self_in(tokens: Tokens) -> Option<Span> {
    tokens.into_iter().find_map(|tree| match tree {
        proc_macro2::TokenTree::Ident(ident) if ident == "Self" => Some(ident.span()),
        proc_macro2::TokenTree::Group(group) => self_in(group.stream()),
        _ => None,
    })
}

/// What `#[arg(...)]` says of a parameter.
#[derive(Default)]
struct ArgOptions {
    /// `description = "..."`: the argument's description in the schema.
    description: Option<String>,
    /// `extractor`: the parameter is one of the user's own extractors (a type that
    /// implements `FromRequest`), not an argument.
    extractor: bool,
    /// `rename = "..."`: the argument's name in the schema and on the wire (the
    /// parameter keeps its own), never empty.
    rename: Option<syn::LitStr>,
}

/// Removes `#[arg(...)]` from a parameter and returns what it said.
fn take_arg_options(attrs: &mut Vec<Attribute>) -> syn::Result<ArgOptions> {
    let mut options = ArgOptions::default();
    let mut kept = Vec::new();
    for attr in attrs.drain(..) {
        if !attr.path().is_ident("arg") {
            kept.push(attr);
            continue;
        }
        let list = attr.meta.require_list()?;
        let metas = Punctuated::<Meta, Token![,]>::parse_terminated.parse2(list.tokens.clone())?;
        for meta in metas {
            match &meta {
                Meta::Path(path) if path.is_ident("extractor") => options.extractor = true,
                // A second value would replace the first, which the user meant too.
                Meta::NameValue(nv)
                    if (nv.path.is_ident("description") && options.description.is_some())
                        || (nv.path.is_ident("rename") && options.rename.is_some()) =>
                {
                    let key = nv.path.get_ident().map(ToString::to_string).unwrap_or_default();
                    let message = format!("{key} is given twice for this parameter: keep one");
                    return Err(syn::Error::new_spanned(&nv.path, message));
                }
                Meta::NameValue(nv) if nv.path.is_ident("description") => match &nv.value {
                    Expr::Lit(ExprLit { lit: Lit::Str(value), .. }) => {
                        options.description = Some(value.value())
                    }
                    other => return Err(syn::Error::new_spanned(other, "description takes a string")),
                },
                Meta::NameValue(nv) if nv.path.is_ident("rename") => match &nv.value {
                    Expr::Lit(ExprLit { lit: Lit::Str(value), .. }) if value.value().is_empty() => {
                        return Err(syn::Error::new_spanned(
                            value,
                            "rename takes a name, not an empty string",
                        ))
                    }
                    Expr::Lit(ExprLit { lit: Lit::Str(value), .. }) => options.rename = Some(value.clone()),
                    other => return Err(syn::Error::new_spanned(other, "rename takes a string")),
                },
                other => {
                    return Err(syn::Error::new_spanned(
                        other,
                        "unknown option: use description = \"...\", rename = \"...\" or extractor",
                    ))
                }
            }
        }
    }
    *attrs = kept;
    Ok(options)
}

/// The function's return type (`()` when it declares none).
fn return_type(item: &ItemFn) -> syn::Result<Tokens> {
    match &item.sig.output {
        ReturnType::Default => Ok(quote! { () }),
        ReturnType::Type(_, ty) if matches!(**ty, Type::ImplTrait(_)) => Err(syn::Error::new_spanned(
            ty,
            "name the return type: `impl Trait` cannot say what result it is",
        )),
        ReturnType::Type(_, ty) => Ok(quote! { #ty }),
    }
}

fn expand(kind: Kind, options: Options, mut item: ItemFn) -> syn::Result<Tokens> {
    let parameters = split_parameters(kind, &mut item)?;
    let fn_ident = item.sig.ident.clone();
    let vis = item.vis.clone();
    let name = options.name.clone().unwrap_or_else(|| fn_ident.to_string());
    // Without a doc comment or `description`, the definition has no description (not an
    // empty one).
    let description =
        options.description.clone().or_else(|| doc_comment(&item.attrs)).map(|d| quote! { .description(#d) });
    let args_ident = format_ident!("__{}_{}_args", fn_ident, kind.word());
    let def_fn = format_ident!("{}_{}", fn_ident, kind.word());
    let hidden_fn = definition_fn(&fn_ident);
    let Parameters { fields, names, extractors, extractor_checks, call_args, whole_args } = parameters;

    // A sync function runs on the runtime's blocking pool, so that one that blocks holds
    // up no other request (nor the connection's reading of a cancellation).
    let call = if item.sig.asyncness.is_some() {
        quote! { #fn_ident(#(#call_args),*).await }
    } else {
        quote! { ::mcpwire::__private::tool_output::run_blocking(move || #fn_ident(#(#call_args),*)).await }
    };
    let title = options.title.as_ref().map(|t| quote! { .title(#t) });
    let handler_params = match whole_args {
        // The function's own `Args<T>` is among the extractors.
        true => quote! { #(#extractors),* },
        false => quote! {
            #(#extractors,)* ::mcpwire::server::Args(__args): ::mcpwire::server::Args<#args_ident>
        },
    };
    let (def_type, definition) = match kind {
        Kind::Tool => {
            let ret = return_type(&item)?;
            let annotations = (!options.hints.is_empty()).then(|| {
                let (fields, values): (Vec<_>, Vec<_>) = options.hints.iter().cloned().unzip();
                quote! {
                    .annotations(::mcpwire::protocol::tools::ToolAnnotations {
                        #(#fields: ::core::option::Option::Some(#values),)*
                        ..::core::default::Default::default()
                    })
                }
            });
            let definition = quote! {
                let __kind = {
                    use ::mcpwire::__private::tool_output::*;
                    (&&&&Probe::<#ret>::new()).kind()
                };
                ::mcpwire::server::tool(#name)
                    #description
                    #title
                    #annotations
                    .handler(move |#handler_params| async move { __kind.wrap(#call) })
            };
            (quote! { ToolDef }, definition)
        }
        Kind::Prompt => {
            let definition = quote! {
                ::mcpwire::server::prompt(#name)
                    #description
                    #title
                    .handler(|#handler_params| async move { #call })
                    .__arguments_in_order(&[#(#names),*])
            };
            (quote! { PromptDef }, definition)
        }
        Kind::Resource => {
            resource_definition(&options, &name, description, title, &handler_params, &call, &fields)?
        }
    };

    let doc = format!(
        "The `{name}` {} (generated by `#[{}]` from `{fn_ident}`), for `ServerBuilder::register`.",
        kind.word(),
        kind.word()
    );
    // The schema's title names the definition, not the hidden struct (whose name would
    // otherwise become the title); `<tool>Arguments` is what the Python SDK calls it.
    let schema_title = format!("{name}Arguments");
    Ok(quote! {
        #item

        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #[derive(::mcpwire::__private::serde::Deserialize, ::mcpwire::__private::schemars::JsonSchema)]
        #[serde(crate = "::mcpwire::__private::serde")]
        #[schemars(crate = "::mcpwire::__private::schemars", title = #schema_title)]
        #vis struct #args_ident {
            #(#fields,)*
        }

        #[doc = #doc]
        #vis fn #def_fn() -> ::mcpwire::server::#def_type {
            #(#extractor_checks)*
            #definition
        }

        #[doc(hidden)]
        #vis fn #hidden_fn() -> ::mcpwire::server::Definition {
            ::core::convert::Into::into(#def_fn())
        }
    })
}

/// A fixed resource (its URI has no `{variable}`) or a template.
fn resource_definition(
    options: &Options,
    name: &str,
    description: Option<Tokens>,
    title: Option<Tokens>,
    handler_params: &Tokens,
    call: &Tokens,
    fields: &[Tokens],
) -> syn::Result<(Tokens, Tokens)> {
    let Some(uri) = &options.uri else {
        return Err(syn::Error::new(Span::call_site(), "#[resource] needs uri = \"...\""));
    };
    let mime_type = options.mime_type.as_ref().map(|m| quote! { .mime_type(#m) });
    let is_template = uri.contains('{');
    if !is_template && !fields.is_empty() {
        let message = "a resource with a fixed URI takes no arguments: give the URI {variables}, or take only Ctx, State, Uri";
        return Err(syn::Error::new(Span::call_site(), message));
    }
    let (builder, def_type) = if is_template {
        (quote! { ::mcpwire::server::resource_template(#uri, #name) }, quote! { TemplateDef })
    } else {
        (quote! { ::mcpwire::server::resource(#uri, #name) }, quote! { ResourceDef })
    };
    let definition = quote! {
        #builder
            #description
            #title
            #mime_type
            .handler(|#handler_params| async move { #call })
    };
    Ok((def_type, definition))
}

/// The hidden function `definitions!` calls for the function `ident`.
fn definition_fn(ident: &Ident) -> Ident {
    format_ident!("__mcpwire_definition_{}", ident)
}

fn attribute(kind: Kind, attr: TokenStream, item: TokenStream) -> TokenStream {
    let options = match (|input: ParseStream| Options::parse(kind, input)).parse(attr) {
        Ok(o) => o,
        Err(e) => return e.to_compile_error().into(),
    };
    let item = match syn::parse::<ItemFn>(item) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error().into(),
    };
    match expand(kind, options, item) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// Turns a function into an MCP tool; documented as `mcpwire::tool`.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    attribute(Kind::Tool, attr, item)
}

/// Turns a function into an MCP prompt; documented as `mcpwire::prompt`.
#[proc_macro_attribute]
pub fn prompt(attr: TokenStream, item: TokenStream) -> TokenStream {
    attribute(Kind::Prompt, attr, item)
}

/// Turns a function into an MCP resource or resource template; documented as
/// `mcpwire::resource`.
#[proc_macro_attribute]
pub fn resource(attr: TokenStream, item: TokenStream) -> TokenStream {
    attribute(Kind::Resource, attr, item)
}

/// The definitions of functions marked `#[tool]`, `#[prompt]` or `#[resource]`, as an
/// array of `mcpwire::server::Definition` for `ServerBuilder::register_all`:
/// `definitions![add, greet, notes::read]`.
#[proc_macro]
pub fn definitions(input: TokenStream) -> TokenStream {
    let paths = match Punctuated::<Path, Token![,]>::parse_terminated.parse(input) {
        Ok(paths) => paths,
        Err(e) => return e.to_compile_error().into(),
    };
    let calls = paths.into_iter().map(|mut path| {
        if let Some(last) = path.segments.last_mut() {
            last.ident = definition_fn(&last.ident);
        }
        quote! { #path() }
    });
    quote! { [#(#calls),*] }.into()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

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
        let twice =
            refused(quote! { async fn f(#[arg(rename = "x")] a: i64, #[arg(rename = "x")] b: i64) {} });
        assert!(twice.as_deref().is_some_and(|m| m.contains("\"x\"") && m.contains("twice")), "{twice:?}");
        let taken = refused(quote! { async fn f(#[arg(rename = "type")] a: i64, r#type: i64) {} });
        assert!(taken.as_deref().is_some_and(|m| m.contains("\"type\"") && m.contains("twice")), "{taken:?}");
        let extractor = refused(quote! { async fn f(#[arg(rename = "c")] ctx: Ctx, a: i64) {} });
        assert!(extractor.as_deref().is_some_and(|m| m.contains("extractor")), "{extractor:?}");
        let fine = quote! { async fn f(#[arg(rename = "userId")] user_id: i64, #[arg(rename = "b")] a: Option<i64>) {} };
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
            assert!(
                twice.as_deref().is_some_and(|m| m.contains("rename") && m.contains("twice")),
                "{twice:?}"
            );
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

    /// A method, or a function whose signature names `Self` (so it sits in an `impl`
    /// block), is refused with what to do instead: the attribute cannot see the `impl`
    /// around a function, and what it generates there does not build (rustc's errors
    /// spoke of a struct the user never wrote).
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
            (Kind::Resource, quote! { uri = "a://x", mime_type = "text/plain", uri = "a://y" }),
        ] {
            let twice = parse(kind, tokens.clone());
            assert!(twice.as_deref().is_some_and(|m| m.contains("twice")), "{tokens}: {twice:?}");
        }
        assert_eq!(parse(Kind::Tool, quote! { name = "a", title = "b", read_only_hint = true }), None);
    }
}
