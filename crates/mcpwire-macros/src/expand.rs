//! What an attribute generates beside the function: its arguments type, its definition
//! and the hidden function `definitions!` names.

use proc_macro2::{Span, TokenStream as Tokens};
use quote::{format_ident, quote, quote_spanned};
use syn::{Ident, ItemFn, ReturnType, Type};

use crate::options::{doc_comment, Options};
use crate::parameters::{split_parameters, Parameters};
use crate::{Kind, Place};

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

/// What an attribute generates for one function, the function aside: the function that
/// returns its definition, `<name>_<kind>`, is the caller's to emit, as a free function
/// or in an `impl` block.
pub(crate) struct Generated {
    /// `<function>_tool`, `<function>_prompt` or `<function>_resource`.
    pub(crate) def_fn: Ident,
    /// `ToolDef`, `PromptDef`, `ResourceDef` or `TemplateDef`.
    pub(crate) def_type: Tokens,
    /// The body of the function that returns the definition: the arguments' struct (an
    /// item of the body, so that no two functions' structs meet), the extractor checks and
    /// the definition. A `&self` method's body reads `__this`, the `Arc<Self>` it shares.
    pub(crate) body: Tokens,
    /// The doc comment of the function that returns the definition.
    pub(crate) doc: String,
}

/// A free function marked `#[tool]`, `#[prompt]` or `#[resource]`: the function, the
/// function that returns its definition, and the hidden one `definitions!` names.
pub(crate) fn expand(kind: Kind, options: Options, mut item: ItemFn) -> syn::Result<Tokens> {
    let Generated { def_fn, def_type, body, doc } =
        generate(kind, &options, &mut item, Place::Free, Span::call_site())?;
    let vis = &item.vis;
    let hidden_fn = definition_fn(&item.sig.ident);
    Ok(quote! {
        #item

        #[doc = #doc]
        #vis fn #def_fn() -> ::mcpwire::server::#def_type {
            #body
        }

        #[doc(hidden)]
        #vis fn #hidden_fn() -> ::mcpwire::server::Definition {
            ::core::convert::Into::into(#def_fn())
        }
    })
}

/// The definition of `item`, which stands at `place`; its `#[arg(...)]` attributes and
/// parameters' doc comments come off. `at` is where an error about the attribute's
/// options points.
pub(crate) fn generate(
    kind: Kind,
    options: &Options,
    item: &mut ItemFn,
    place: Place,
    at: Span,
) -> syn::Result<Generated> {
    let parameters = split_parameters(kind, item, place)?;
    let fn_ident = item.sig.ident.clone();
    let name = options.name.clone().unwrap_or_else(|| fn_ident.to_string());
    // Without a doc comment or `description`, the definition has no description (not an
    // empty one).
    let description =
        options.description.clone().or_else(|| doc_comment(&item.attrs)).map(|d| quote! { .description(#d) });
    let args_ident = format_ident!("__{}_{}_args", fn_ident, kind.word());
    let def_fn = format_ident!("{}_{}", fn_ident, kind.word());
    let Parameters { fields, names, extractors, extractor_checks, call_args, whole_args } = parameters;

    let callee = match place {
        Place::Free => quote! { #fn_ident },
        Place::Associated => quote! { Self::#fn_ident },
        Place::Method => quote! { __this.#fn_ident },
    };
    // A sync function runs on the runtime's blocking pool, so that one that blocks holds
    // up no other request (nor the connection's reading of a cancellation).
    let call = if item.sig.asyncness.is_some() {
        quote! { #callee(#(#call_args),*).await }
    } else {
        quote! { ::mcpwire::__private::tool_output::run_blocking(move || #callee(#(#call_args),*)).await }
    };
    // Each call's future owns a handle on the shared value (the closure keeps its own).
    let prelude =
        (place == Place::Method).then(|| quote! { let __this = ::core::clone::Clone::clone(&__this); });
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
            let ret = return_type(item)?;
            // A result type that cannot be a tool's result stops the build at `wrap`: the
            // error points at the return type.
            let at_return = match &item.sig.output {
                ReturnType::Type(_, ty) => syn::spanned::Spanned::span(&**ty),
                ReturnType::Default => Span::call_site(),
            };
            let wrapped = quote_spanned! {at_return=> __kind.wrap(__output) };
            let annotations = (!options.hints.is_empty()).then(|| {
                let (fields, values): (Vec<_>, Vec<_>) = options.hints.iter().cloned().unzip();
                quote! {
                    .annotations(::mcpwire::protocol::tools::ToolAnnotations {
                        #(#fields: ::core::option::Option::Some(#values),)*
                        ..::core::default::Default::default()
                    })
                }
            });
            let task_support = options.task_support.as_ref().map(|variant| {
                quote! { .task_support(::mcpwire::protocol::tools::TaskSupport::#variant) }
            });
            let definition = quote! {
                let __kind = {
                    use ::mcpwire::__private::tool_output::*;
                    (&&&&&Probe::<#ret>::new()).kind()
                };
                ::mcpwire::server::tool(#name)
                    #description
                    #title
                    #annotations
                    #task_support
                    .handler(move |#handler_params| { #prelude async move { let __output = #call; #wrapped } })
            };
            (quote! { ToolDef }, definition)
        }
        Kind::Prompt => {
            let definition = quote! {
                ::mcpwire::server::prompt(#name)
                    #description
                    #title
                    .handler(move |#handler_params| { #prelude async move { #call } })
                    .__arguments_in_order(&[#(#names),*])
            };
            (quote! { PromptDef }, definition)
        }
        Kind::Resource => {
            let handler = quote! { move |#handler_params| { #prelude async move { #call } } };
            resource_definition(options, &name, description, title, &handler, &fields, at)?
        }
    };

    let word = kind.word();
    let from = match place {
        Place::Free => format!("`{fn_ident}`"),
        Place::Associated | Place::Method => format!("`Self::{fn_ident}`"),
    };
    let doc =
        format!("The `{name}` {word} (generated by `#[{word}]` from {from}), for `ServerBuilder::register`.");
    // The schema's title names the definition, not the hidden struct (whose name would
    // otherwise become the title); `<tool>Arguments` is what the Python SDK calls it.
    let schema_title = format!("{name}Arguments");
    // Without arguments the schema is the spec's recommended one, only the empty object
    // (arguments sent anyway are still ignored, as serde ignores unknown fields).
    let only_empty =
        fields.is_empty().then(|| quote! { #[schemars(extend("additionalProperties" = false))] });
    let body = quote! {
        #[allow(non_camel_case_types, dead_code)]
        #[derive(::mcpwire::__private::serde::Deserialize, ::mcpwire::__private::schemars::JsonSchema)]
        #[serde(crate = "::mcpwire::__private::serde")]
        #[schemars(crate = "::mcpwire::__private::schemars", title = #schema_title)]
        #only_empty
        struct #args_ident {
            #(#fields,)*
        }

        #(#extractor_checks)*
        #definition
    };
    Ok(Generated { def_fn, def_type, body, doc })
}

/// A fixed resource (its URI has no `{variable}`) or a template.
fn resource_definition(
    options: &Options,
    name: &str,
    description: Option<Tokens>,
    title: Option<Tokens>,
    handler: &Tokens,
    fields: &[Tokens],
    at: Span,
) -> syn::Result<(Tokens, Tokens)> {
    let Some(uri) = &options.uri else {
        return Err(syn::Error::new(at, "#[resource] needs uri = \"...\""));
    };
    let mime_type = options.mime_type.as_ref().map(|m| quote! { .mime_type(#m) });
    let is_template = uri.contains('{');
    if !is_template && !fields.is_empty() {
        let message = "a resource with a fixed URI takes no arguments: give the URI {variables}, or take only Ctx, State, Uri";
        return Err(syn::Error::new(at, message));
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
            .handler(#handler)
    };
    Ok((def_type, definition))
}

/// The hidden function `definitions!` calls for the function `ident`.
pub(crate) fn definition_fn(ident: &Ident) -> Ident {
    format_ident!("__mcpwire_definition_{}", ident)
}
