//! A function's parameters, split into the arguments (the fields of its arguments type)
//! and the extractors (parameters of the handler closure).

use proc_macro2::{Span, TokenStream as Tokens};
use quote::{format_ident, quote};
use syn::{FnArg, ItemFn, Pat, Type};

use crate::options::{doc_comment, take_arg_options, ArgOptions};
use crate::{Kind, Place};

/// A type's path (`Ctx`, `mcpwire::server::State<Db>`, ...), through a reference.
pub(crate) fn type_path(ty: &Type) -> Option<&syn::Path> {
    match ty {
        Type::Path(p) if p.qself.is_none() => Some(&p.path),
        Type::Reference(r) => type_path(&r.elem),
        _ => None,
    }
}

/// The function's parameters, split: arguments become fields of the arguments type,
/// extractors stay parameters of the handler closure.
pub(crate) struct Parameters {
    pub(crate) fields: Vec<Tokens>,
    /// The arguments' names, in the function's order.
    pub(crate) names: Vec<String>,
    pub(crate) extractors: Vec<Tokens>,
    /// A check, spanned on each extractor's type, that it is one (`FromRequest`): the
    /// compiler then says which parameter is wrong and why, where the handler as a whole
    /// would only be "not a handler".
    pub(crate) extractor_checks: Vec<Tokens>,
    pub(crate) call_args: Vec<Tokens>,
    /// A tool that takes its arguments whole, as `Args<T>`: `T` is the arguments type.
    pub(crate) whole_args: bool,
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
pub(crate) fn split_parameters(kind: Kind, item: &mut ItemFn, place: Place) -> syn::Result<Parameters> {
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
    if let Some(at) = self_in(quote! { #sig }).filter(|_| place == Place::Free) {
        return Err(syn::Error::new(at, free_functions_only(kind)));
    }
    for (i, input) in item.sig.inputs.iter_mut().enumerate() {
        let pat_type = match input {
            FnArg::Typed(pat_type) => pat_type,
            // `#[mcpwire::handlers]` checked the receiver: the definition holds the value.
            FnArg::Receiver(_) if place == Place::Method => continue,
            _ => return Err(syn::Error::new_spanned(input, free_functions_only(kind))),
        };
        let ArgOptions { description, extractor, rename, default } = take_arg_options(&mut pat_type.attrs)?;
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
            if let Some(default) = &default {
                let message = "default lets an argument be left out; an extractor is not an argument";
                return Err(syn::Error::new_spanned(default, message));
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
        // The arguments' struct is an item of its own, where `Self` means nothing.
        if let Some(at) = self_in(quote! { #ty }) {
            let message = "an argument's type cannot be written `Self`: the arguments become the fields \
                           of a struct of their own, where `Self` is not this type; name the type";
            return Err(syn::Error::new(at, message));
        }
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
        let serde_default = default.map(|_| quote! { #[serde(default)] });
        parameters.fields.push(quote! { #doc #serde_rename #serde_default #field: #ty });
        parameters.names.push(name);
        parameters.call_args.push(quote! { __args.#field });
    }
    if parameters.whole_args && !parameters.names.is_empty() {
        let message = "a tool that takes Args<T> takes no other arguments: make them fields of T";
        return Err(syn::Error::new_spanned(&item.sig.inputs, message));
    }
    Ok(parameters)
}

/// Why a method or another function of an `impl` block is refused on its own, and what
/// to write instead. The attribute sees the function alone, never the `impl` around it,
/// and what it generates beside the function builds at module level only; an attribute
/// on the `impl` block sees both.
fn free_functions_only(kind: Kind) -> String {
    let word = kind.word();
    format!(
        "#[{word}] on its own works on free functions, not on methods or other functions of an \
         `impl` block: put `#[mcpwire::handlers]` on the `impl` block, which makes its `#[{word}]` \
         methods definitions and generates `definitions()` for `register_all`; or move the function \
         out of the `impl` (grouped in a module, `mod tools {{ .. }}`, registered with \
         `definitions![tools::name]`), and take what `self` would have held as a \
         `State<YourStruct>` parameter (`ServerBuilder::state(..)` sets it)"
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
