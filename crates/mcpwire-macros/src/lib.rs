//! `#[mcpwire::tool]`: turns a plain Rust function into an MCP tool.
//!
//! ```ignore
//! /// Adds two numbers.
//! #[mcpwire::tool]
//! async fn add(a: i64, b: i64) -> i64 {
//!     a + b
//! }
//!
//! let server = Server::builder("calc", "1.0").tool(add_tool()).build()?;
//! ```
//!
//! The function stays as written. Next to it the macro generates `<name>_tool()`, which
//! returns the tool's definition: its parameters (other than a `Ctx` or `State<T>`)
//! become the fields of the arguments type, so the `inputSchema` is generated from their
//! types; its doc comment (or `description = "..."`) is the description; a return value
//! that is not already a tool result (text, content, `CallToolResult`, `Json<T>`) is sent
//! as structured content with a generated `outputSchema`. `Result<T, E>` returns keep
//! their error handling (see `IntoToolError`). Options: `name = "..."`,
//! `description = "..."`, `title = "..."`.

#![forbid(unsafe_code)]

use proc_macro::TokenStream;
use proc_macro2::TokenStream as Tokens;
use quote::{format_ident, quote};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{
    Expr, ExprLit, FnArg, GenericArgument, ItemFn, Lit, Meta, Pat, PathArguments, ReturnType, Token, Type,
};

/// Options of `#[tool(...)]`.
#[derive(Default)]
struct Options {
    name: Option<String>,
    description: Option<String>,
    title: Option<String>,
}

impl Parse for Options {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut options = Options::default();
        for meta in Punctuated::<Meta, Token![,]>::parse_terminated(input)? {
            let Meta::NameValue(nv) = &meta else {
                return Err(syn::Error::new_spanned(meta, "expected name = \"value\""));
            };
            let Expr::Lit(ExprLit { lit: Lit::Str(value), .. }) = &nv.value else {
                return Err(syn::Error::new_spanned(&nv.value, "expected a string"));
            };
            let key = nv.path.get_ident().map(ToString::to_string).unwrap_or_default();
            match key.as_str() {
                "name" => options.name = Some(value.value()),
                "description" => options.description = Some(value.value()),
                "title" => options.title = Some(value.value()),
                _ => {
                    return Err(syn::Error::new_spanned(
                        &nv.path,
                        "unknown option: use name, description or title",
                    ))
                }
            }
        }
        Ok(options)
    }
}

/// The last segment of a type's path (`Ctx`, `State`, `Result`, ...).
fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(p) => p.path.segments.last(),
        Type::Reference(r) => last_segment(&r.elem),
        _ => None,
    }
}

/// Whether a value of this type already is a tool result.
fn is_tool_result(ty: &Type) -> bool {
    match ty {
        Type::Tuple(t) => t.elems.is_empty(),
        Type::Reference(r) => matches!(&*r.elem, Type::Path(p) if p.path.is_ident("str")),
        _ => last_segment(ty).is_some_and(|s| {
            matches!(
                s.ident.to_string().as_str(),
                "String" | "CallToolResult" | "ContentBlock" | "Vec" | "Json"
            )
        }),
    }
}

/// How to turn the function's return value into a tool result.
fn wrap_return(output: &ReturnType, value: Tokens) -> Tokens {
    let ty = match output {
        ReturnType::Default => return value,
        ReturnType::Type(_, ty) => ty,
    };
    if is_tool_result(ty) {
        return value;
    }
    if let Some(segment) = last_segment(ty).filter(|s| s.ident == "Result") {
        if let PathArguments::AngleBracketed(args) = &segment.arguments {
            if let Some(GenericArgument::Type(ok)) = args.args.first() {
                return if is_tool_result(ok) {
                    value
                } else {
                    quote! { (#value).map(::mcpwire::server::Json) }
                };
            }
        }
        return value;
    }
    quote! { ::mcpwire::server::Json(#value) }
}

fn doc_comment(item: &ItemFn) -> Option<String> {
    let lines: Vec<String> = item
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) => Some(s.value().trim().to_owned()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    let text = lines.join("\n").trim().to_owned();
    (!text.is_empty()).then_some(text)
}

fn expand(options: Options, item: ItemFn) -> syn::Result<Tokens> {
    let fn_ident = &item.sig.ident;
    let vis = &item.vis;
    let name = options.name.unwrap_or_else(|| fn_ident.to_string());
    let description = options.description.or_else(|| doc_comment(&item)).unwrap_or_default();
    let args_ident = format_ident!("__{}_tool_args", fn_ident);
    let tool_fn = format_ident!("{}_tool", fn_ident);

    let mut fields = Vec::new();
    let mut extractors = Vec::new();
    let mut call_args = Vec::new();
    for (i, input) in item.sig.inputs.iter().enumerate() {
        let FnArg::Typed(pat_type) = input else {
            return Err(syn::Error::new_spanned(input, "#[tool] works on free functions, not methods"));
        };
        let ty = &pat_type.ty;
        let is_extractor = last_segment(ty).is_some_and(|s| s.ident == "Ctx" || s.ident == "State");
        if is_extractor {
            let ident = format_ident!("__extractor_{}", i);
            extractors.push(quote! { #ident: #ty });
            call_args.push(quote! { #ident });
            continue;
        }
        let Pat::Ident(pat) = &*pat_type.pat else {
            return Err(syn::Error::new_spanned(&pat_type.pat, "tool parameters must be plain names"));
        };
        let field = &pat.ident;
        fields.push(quote! { #field: #ty });
        call_args.push(quote! { __args.#field });
    }

    let call = if item.sig.asyncness.is_some() {
        quote! { #fn_ident(#(#call_args),*).await }
    } else {
        quote! { #fn_ident(#(#call_args),*) }
    };
    let result = wrap_return(&item.sig.output, call);
    let title = options.title.map(|t| quote! { .title(#t) });
    let doc =
        format!("The `{name}` tool (generated by `#[tool]` from `{fn_ident}`), for `ServerBuilder::tool`.");
    // The input schema's title names the tool, not the hidden struct (whose name would
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
        #vis fn #tool_fn() -> ::mcpwire::server::ToolDef {
            ::mcpwire::server::tool(#name)
                .description(#description)
                #title
                .handler(|#(#extractors,)* ::mcpwire::server::Args(__args): ::mcpwire::server::Args<#args_ident>| async move {
                    #result
                })
        }
    })
}

/// Turns a function into an MCP tool; see the crate documentation.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    let options = match syn::parse::<Options>(attr) {
        Ok(o) => o,
        Err(e) => return e.to_compile_error().into(),
    };
    let item = match syn::parse::<ItemFn>(item) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error().into(),
    };
    match expand(options, item) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}
