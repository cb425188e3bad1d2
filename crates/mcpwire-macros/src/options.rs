//! What the attributes on a function and its parameters say: the options of the
//! attributes (`#[tool(name = "...")]`), of `#[arg(...)]` on a parameter, and the doc
//! comments that describe them.

use proc_macro2::{Span, TokenStream as Tokens};
use quote::quote;
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, ExprLit, Ident, Lit, Meta, Token};

use crate::Kind;

/// Options of the attribute: `name = "..."` pairs, and a tool's `read_only_hint = true`
/// (and the other behaviour hints).
#[derive(Default)]
pub(crate) struct Options {
    pub(crate) name: Option<String>,
    /// A string, or the tokens of a macro that makes one.
    pub(crate) description: Option<Tokens>,
    pub(crate) title: Option<String>,
    pub(crate) uri: Option<String>,
    pub(crate) mime_type: Option<String>,
    /// A tool's annotations' hints, as (field of `ToolAnnotations`, value).
    pub(crate) hints: Vec<(Ident, bool)>,
    /// A tool's `task_support`, as the variant of `TaskSupport` it names.
    pub(crate) task_support: Option<Ident>,
}

/// The behaviour hints of a tool's annotations, as the attribute and `ToolAnnotations`
/// name them.
const HINTS: [&str; 4] = ["read_only_hint", "destructive_hint", "idempotent_hint", "open_world_hint"];

impl Options {
    pub(crate) fn parse(kind: Kind, input: ParseStream) -> syn::Result<Self> {
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
            if kind == Kind::Tool && key == "task_support" {
                options.task_support = Some(task_support_variant(&value, span)?);
                continue;
            }
            let slot = match (key.as_str(), kind) {
                ("name", _) => &mut options.name,
                ("title", _) => &mut options.title,
                ("uri", Kind::Resource) => &mut options.uri,
                ("mime_type", Kind::Resource) => &mut options.mime_type,
                _ => {
                    let known = match kind {
                        Kind::Resource => "uri, name, description, title or mime_type",
                        Kind::Tool => {
                            "name, description, title, task_support, read_only_hint, destructive_hint, idempotent_hint or open_world_hint"
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

/// The `TaskSupport` variant that `task_support = "..."` names, in the spec's words.
fn task_support_variant(value: &str, span: Span) -> syn::Result<Ident> {
    let variant = match value {
        "forbidden" => "Forbidden",
        "optional" => "Optional",
        "required" => "Required",
        _ => {
            return Err(syn::Error::new(
                span,
                "task_support takes \"optional\", \"required\" or \"forbidden\"",
            ))
        }
    };
    Ok(Ident::new(variant, span))
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

/// What `#[arg(...)]` says of a parameter.
#[derive(Default)]
pub(crate) struct ArgOptions {
    /// `description = "..."`: the argument's description in the schema.
    pub(crate) description: Option<String>,
    /// `extractor`: the parameter is one of the user's own extractors (a type that
    /// implements `FromRequest`), not an argument.
    pub(crate) extractor: bool,
    /// `rename = "..."`: the argument's name in the schema and on the wire (the
    /// parameter keeps its own), never empty.
    pub(crate) rename: Option<syn::LitStr>,
    /// `default`: the argument may be left out, and is then its type's `Default` (its
    /// field takes `#[serde(default)]`, and the schema says the value).
    pub(crate) default: Option<syn::Path>,
}

/// Why a `#[serde(..)]` or `#[schemars(..)]` attribute on a parameter is refused: Rust
/// takes no such attribute there, and the macro does not carry it to the arguments'
/// field (one that renamed or flattened the field would undo what the macro knows of
/// the argument's name).
const DERIVES_ATTRIBUTE: &str = "a parameter takes no #[serde(..)] or #[schemars(..)] attribute: \
     use #[arg(default)] for an argument that may be left out (its type's default then), \
     #[arg(rename = \"...\")] for its name on the wire, #[arg(description = \"...\")] for its \
     description; or take the arguments whole as one `Args<T>`, a struct of your own whose \
     fields take serde's and schemars' attributes";

/// Removes `#[arg(...)]` from a parameter and returns what it said; a `#[serde(..)]` or
/// `#[schemars(..)]` attribute is refused ([`DERIVES_ATTRIBUTE`]).
pub(crate) fn take_arg_options(attrs: &mut Vec<Attribute>) -> syn::Result<ArgOptions> {
    let mut options = ArgOptions::default();
    let mut kept = Vec::new();
    for attr in attrs.drain(..) {
        if attr.path().is_ident("serde") || attr.path().is_ident("schemars") {
            return Err(syn::Error::new_spanned(attr.path(), DERIVES_ATTRIBUTE));
        }
        if !attr.path().is_ident("arg") {
            kept.push(attr);
            continue;
        }
        let list = attr.meta.require_list()?;
        let metas = Punctuated::<Meta, Token![,]>::parse_terminated.parse2(list.tokens.clone())?;
        for meta in metas {
            match &meta {
                Meta::Path(path) if path.is_ident("extractor") => options.extractor = true,
                Meta::Path(path) if path.is_ident("default") && options.default.is_some() => {
                    let message = "default is given twice for this parameter: keep one";
                    return Err(syn::Error::new_spanned(path, message));
                }
                Meta::Path(path) if path.is_ident("default") => options.default = Some(path.clone()),
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
                        "unknown option: use description = \"...\", rename = \"...\", default or extractor",
                    ))
                }
            }
        }
    }
    *attrs = kept;
    Ok(options)
}

/// The doc comment as the description's tokens: its lines joined, without the
/// indentation they share (the space after `///`), so nested lists and code keep theirs;
/// a `#[doc = include_str!("..")]` (or another macro) is put in where it stands.
pub(crate) fn doc_comment(attrs: &[Attribute]) -> Option<Tokens> {
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
