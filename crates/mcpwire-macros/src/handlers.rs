//! `#[mcpwire::handlers]` on an `impl` block: its methods and associated functions marked
//! `#[tool]`, `#[prompt]` or `#[resource]` become definitions, as free functions do, and
//! a generated `definitions()` returns them all for `ServerBuilder::register_all`.
//!
//! The attribute sees the whole block, so the functions the definitions need go into the
//! block, where `Self` is the type: `<method>_tool()` (and `_prompt`, `_resource`) beside
//! each marked function, and `definitions()`. A `&self` method's handler calls it on one
//! clone of the value, in an `Arc` that every handler of one `definitions()` call shares.

use proc_macro2::TokenStream as Tokens;
use quote::{format_ident, quote, quote_spanned};
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Attribute, ImplItem, ItemFn, ItemImpl, Meta, Path, Signature, Token};

use crate::expand::{generate, Generated};
use crate::options::Options;
use crate::{Kind, Place};

/// The expansion of `#[mcpwire::handlers]` (`attr` its options: none, or `definitions =
/// name`) on `item`, an inherent `impl` block.
pub(crate) fn expand_handlers(attr: Tokens, item: Tokens) -> syn::Result<Tokens> {
    let definitions_fn = definitions_name(attr)?;
    let mut block: ItemImpl = syn::parse2(item)?;
    // Named after the definitions function, so that two blocks of one type, each with its
    // own `definitions = ..`, do not both define it.
    let shared = format_ident!("__mcpwire_shared_{}", definitions_fn);
    if let Some((_, path, _)) = &block.trait_ {
        let message = "#[mcpwire::handlers] goes on an inherent `impl Type { .. }` block, not on a \
                       trait's: it adds the functions that return the definitions to the type";
        return Err(syn::Error::new_spanned(path, message));
    }
    let mut added = Vec::new();
    let mut entries = Vec::new();
    let mut shares = false;
    let mut errors: Option<syn::Error> = None;
    for impl_item in &mut block.items {
        let marked = match impl_item {
            ImplItem::Fn(method) => {
                let (kind, attr) = match take_kind_attribute(&mut method.attrs) {
                    Ok(Some(found)) => {
                        shares |= method.sig.receiver().is_some();
                        found
                    }
                    Ok(None) => continue,
                    Err(e) => {
                        add_error(&mut errors, e);
                        continue;
                    }
                };
                let mut item = ItemFn {
                    attrs: std::mem::take(&mut method.attrs),
                    vis: method.vis.clone(),
                    sig: method.sig.clone(),
                    block: Box::new(method.block.clone()),
                };
                let marked = definition(kind, &attr, &mut item, &shared);
                // The function stays in the block as written, less what Rust would not
                // take (`#[arg(...)]`, doc comments on parameters).
                method.attrs = item.attrs;
                method.sig = item.sig;
                marked
            }
            other => match other_item_attrs(other).and_then(|attrs| take_kind_attribute(attrs).transpose()) {
                Some(Ok((kind, attr))) => {
                    let message = format!("#[{}] goes on a function of the block", kind.word());
                    Err(syn::Error::new_spanned(attr, message))
                }
                Some(Err(e)) => Err(e),
                None => continue,
            },
        };
        match marked {
            Ok(marked) => {
                added.push(marked.functions);
                entries.push(marked.entry);
            }
            Err(e) => add_error(&mut errors, e),
        }
    }
    if entries.is_empty() && errors.is_none() {
        let message = "#[mcpwire::handlers] found no function marked #[tool], #[prompt] or #[resource] \
                       in this block";
        return Err(syn::Error::new_spanned(&block.self_ty, message));
    }
    let receiver = shares.then(|| quote! { &self });
    let definitions = match &errors {
        // The block as written, less the attributes, and a `definitions()` that says
        // nothing more: the build stops on the errors, and only on them.
        Some(_) => quote! {
            #[doc(hidden)]
            #[allow(dead_code)]
            pub fn #definitions_fn(#receiver) -> ::std::vec::Vec<::mcpwire::server::Definition> {
                ::std::vec::Vec::new()
            }
        },
        None => {
            let count = entries.len();
            let share = shares.then(|| quote! { let __this = Self::#shared(self); });
            // Spanned on the type, so that the error of `Self` being no `Clone + Send +
            // Sync + 'static` points at it, once.
            let shared_fn = shares.then(|| {
                quote_spanned! { block.self_ty.span() =>
                    #[doc(hidden)]
                    #[allow(dead_code)]
                    fn #shared(&self) -> ::std::sync::Arc<Self> {
                        ::mcpwire::__private::shared::<Self>(self)
                    }
                }
            });
            quote! {
                #shared_fn

                /// The MCP definitions of this type's functions marked `#[tool]`, `#[prompt]` and
                /// `#[resource]` (generated by `#[mcpwire::handlers]`), for
                /// `ServerBuilder::register_all`. The `&self` methods' handlers share one clone of
                /// `self`, in an `Arc`.
                #[allow(dead_code)]
                pub fn #definitions_fn(#receiver) -> ::std::vec::Vec<::mcpwire::server::Definition> {
                    #share
                    let mut __definitions = ::std::vec::Vec::with_capacity(#count);
                    #(#entries)*
                    __definitions
                }
            }
        }
    };
    block.items.push(ImplItem::Verbatim(quote! { #(#added)* #definitions }));
    let errors = errors.map(|e| e.to_compile_error());
    Ok(quote! { #block #errors })
}

/// The name of the generated function that returns every definition: `definitions`, or
/// the one `#[mcpwire::handlers(definitions = name)]` gives (for a type with a method of
/// that name already, or with its definitions in more than one block).
fn definitions_name(attr: Tokens) -> syn::Result<syn::Ident> {
    if attr.is_empty() {
        return Ok(format_ident!("definitions"));
    }
    let parse = |input: ParseStream| {
        let key: syn::Ident = input.parse()?;
        input.parse::<Token![=]>()?;
        let name: syn::Ident = input.parse()?;
        match key == "definitions" && input.is_empty() {
            true => Ok(name),
            false => Err(input.error("unexpected option")),
        }
    };
    parse.parse2(attr.clone()).map_err(|_| {
        let message = "#[mcpwire::handlers] takes one option, `definitions = name`: the name of the \
                       generated function that returns every definition";
        syn::Error::new_spanned(attr, message)
    })
}

/// Adds `error` to those the expansion reports.
fn add_error(errors: &mut Option<syn::Error>, error: syn::Error) {
    match errors {
        Some(errors) => errors.combine(error),
        None => *errors = Some(error),
    }
}

/// One marked function's definition: the functions that go into the block, and the
/// statement by which `definitions()` adds it to the list. Both carry the function's
/// `#[cfg(..)]`s, so that a function compiled out takes its definition along.
struct Marked {
    functions: Tokens,
    entry: Tokens,
}

/// The definition of `item`, marked with `attr`, a `kind` attribute.
fn definition(kind: Kind, attr: &Attribute, item: &mut ItemFn, shared: &syn::Ident) -> syn::Result<Marked> {
    let options = match &attr.meta {
        Meta::Path(_) => Options::default(),
        Meta::List(list) => (|input: ParseStream| Options::parse(kind, input)).parse2(list.tokens.clone())?,
        Meta::NameValue(nv) => {
            let message = format!("write #[{}(name = \"...\", ..)]", kind.word());
            return Err(syn::Error::new_spanned(nv, message));
        }
    };
    let place = place_of(kind, &item.sig)?;
    let Generated { def_fn, def_type, body, doc } = generate(kind, &options, item, place, attr.span())?;
    let vis = &item.vis;
    let cfgs: Vec<&Attribute> = item.attrs.iter().filter(|a| a.path().is_ident("cfg")).collect();
    let def_type = quote! { ::mcpwire::server::#def_type };
    let (functions, definition) = match place {
        Place::Method => {
            // The definition made on a given `Arc<Self>`, which `definitions()` shares.
            let shared_fn = format_ident!("__mcpwire_{}", def_fn);
            let functions = quote! {
                #(#cfgs)*
                #[doc = #doc]
                #[allow(dead_code)]
                #vis fn #def_fn(&self) -> #def_type {
                    Self::#shared_fn(Self::#shared(self))
                }

                #(#cfgs)*
                #[doc(hidden)]
                #[allow(dead_code)]
                fn #shared_fn(__this: ::std::sync::Arc<Self>) -> #def_type {
                    #body
                }
            };
            (functions, quote! { Self::#shared_fn(::core::clone::Clone::clone(&__this)) })
        }
        Place::Associated | Place::Free => {
            let functions = quote! {
                #(#cfgs)*
                #[doc = #doc]
                #[allow(dead_code)]
                #vis fn #def_fn() -> #def_type {
                    #body
                }
            };
            (functions, quote! { Self::#def_fn() })
        }
    };
    let entry = quote! {
        #(#cfgs)*
        __definitions.push(::core::convert::Into::into(#definition));
    };
    Ok(Marked { functions, entry })
}

/// `&self` makes a method, no receiver an associated function; any other receiver is
/// refused, with why.
fn place_of(kind: Kind, sig: &Signature) -> syn::Result<Place> {
    let Some(receiver) = sig.receiver() else { return Ok(Place::Associated) };
    if receiver.reference.is_some() && receiver.mutability.is_none() && receiver.colon_token.is_none() {
        return Ok(Place::Method);
    }
    let message = format!(
        "a #[{}] method takes `&self`: its handler may run for many requests at once, all on one \
         shared value of `Self` (a clone, in an `Arc`), so none can take it by value or as `&mut`; \
         keep what changes behind a lock or an atomic (`Arc<Mutex<T>>`, `AtomicI64`), or drop the \
         receiver to make an associated function",
        kind.word()
    );
    Err(syn::Error::new_spanned(receiver, message))
}

/// The attributes of a block's item other than a function, where a `kind` attribute has no
/// place.
fn other_item_attrs(item: &mut ImplItem) -> Option<&mut Vec<Attribute>> {
    match item {
        ImplItem::Const(c) => Some(&mut c.attrs),
        ImplItem::Type(t) => Some(&mut t.attrs),
        ImplItem::Macro(m) => Some(&mut m.attrs),
        _ => None,
    }
}

/// Takes `#[tool]`, `#[prompt]` or `#[resource]` (bare, or as `mcpwire::tool` and the
/// like) off `attrs`, with its kind; two of them on one function are refused.
fn take_kind_attribute(attrs: &mut Vec<Attribute>) -> syn::Result<Option<(Kind, Attribute)>> {
    let mut found: Option<(Kind, Attribute)> = None;
    let mut kept = Vec::with_capacity(attrs.len());
    for attr in attrs.drain(..) {
        if let Some(kind) = kind_under_cfg_attr(&attr) {
            let word = kind.word();
            let message = format!(
                "#[mcpwire::handlers] reads the block before `cfg_attr` applies, so it cannot see a \
                 #[{word}] inside one: write `#[cfg(..)]` on the function and `#[{word}]` on its own"
            );
            return Err(syn::Error::new_spanned(attr, message));
        }
        let Some(kind) = kind_of(attr.path()) else {
            kept.push(attr);
            continue;
        };
        if let Some((first, _)) = &found {
            let message = format!("a function is one definition: it is marked #[{}] already", first.word());
            return Err(syn::Error::new_spanned(attr, message));
        }
        found = Some((kind, attr));
    }
    *attrs = kept;
    Ok(found)
}

/// The kind of a `#[cfg_attr(predicate, tool)]` (or `prompt`, `resource`), if it is one.
fn kind_under_cfg_attr(attr: &Attribute) -> Option<Kind> {
    let Meta::List(list) = &attr.meta else { return None };
    if !list.path.is_ident("cfg_attr") {
        return None;
    }
    let metas = Punctuated::<Meta, Token![,]>::parse_terminated.parse2(list.tokens.clone()).ok()?;
    metas.iter().skip(1).find_map(|meta| kind_of(meta.path()))
}

/// The kind an attribute's path marks: `tool`, `prompt` or `resource`, bare or through
/// `mcpwire` (or `mcpwire_macros`).
fn kind_of(path: &Path) -> Option<Kind> {
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let last = match segments.as_slice() {
        [last] => last,
        [krate, last] if krate == "mcpwire" || krate == "mcpwire_macros" => last,
        _ => return None,
    };
    match last.as_str() {
        "tool" => Some(Kind::Tool),
        "prompt" => Some(Kind::Prompt),
        "resource" => Some(Kind::Resource),
        _ => None,
    }
}
