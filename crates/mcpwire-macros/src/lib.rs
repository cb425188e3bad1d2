//! The attribute macros of mcpwire: `#[mcpwire::tool]`, `#[mcpwire::prompt]` and
//! `#[mcpwire::resource]` turn plain Rust functions into MCP tools, prompts and resources,
//! and `mcpwire::definitions![...]` collects them for `ServerBuilder::register_all`;
//! `#[mcpwire::handlers]` on an `impl` block does the same for its methods.
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
//! and on the wire (not empty, not another argument's), the parameter keeping its own;
//! `#[arg(default)]` lets it be left out, its type's `Default` then (its field takes
//! `#[serde(default)]`). A `#[serde(..)]` or `#[schemars(..)]` attribute on a parameter
//! is refused: it belongs on the fields of an `Args<T>`'s struct.
//! A tool may instead take its arguments whole, as one `Args<T>` parameter. The doc comment (or `description = "..."`) is the description (without
//! either there is none). Next to
//! the function the macro generates `<name>_tool()`, `<name>_prompt()` or
//! `<name>_resource()`, which returns its definition, and a hidden function that
//! `definitions!` names, so registering needs no generated name. On its own the attribute
//! takes a free function (in any module: `definitions![tools::search]`): it sees the
//! function alone, never the `impl` around it.
//!
//! Methods take `#[mcpwire::handlers]` on their `impl` block, which sees the block whole:
//! it reads the `#[tool]`, `#[prompt]` and `#[resource]` marks of the block's functions
//! (`&self` methods, or associated functions without a receiver), expands each as the
//! attribute expands a free function (the same code: only how the definition calls the
//! function differs), puts `<name>_tool(&self)` and the like into the block, and adds
//! `definitions()`, a list of them all (each under its function's `#[cfg(..)]`). A
//! `&self` method's handler calls it on an `Arc<Self>` that every handler of one
//! `definitions()` call shares (one clone of the value, so `Self: Clone + Send + Sync +
//! 'static`). The arguments' struct of each definition is an item of the function that
//! returns it, so two types' methods of one name never meet.
//!
//! A tool's return value is sent as it is when its type implements `IntoToolResult`
//! (text, content, `CallToolResult`, `Json<T>`, `Result`s of those), and otherwise, when it
//! implements `Serialize + JsonSchema`, as structured content with a generated
//! `outputSchema` (for `Result<T, E>`, the `Ok` value). The choice is made by those
//! traits, not by the type's name, so aliases work. Options of all three: `name`,
//! `description`, `title`; of `tool`: the behaviour hints of its annotations,
//! `read_only_hint`, `destructive_hint`, `idempotent_hint` and `open_world_hint`
//! (`= true` or `= false`), and `task_support` (`= "optional"`, `"required"` or
//! `"forbidden"`, the default); of `resource`: `uri` (required; with `{variables}` it is a
//! template) and `mime_type`. Each option, of the attribute or of `#[arg(...)]`, is given
//! at most once: a second would replace the first, so the build stops there instead.

#![forbid(unsafe_code)]

use proc_macro::TokenStream;
use quote::quote;
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{ItemFn, Path, Token, Type};

use expand::{definition_fn, expand};
use options::Options;
use parameters::type_path;

mod expand;
mod handlers;
mod options;
mod parameters;
#[cfg(test)]
mod tests;

/// The three kinds of definition.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Kind {
    Tool,
    Prompt,
    Resource,
}

impl Kind {
    pub(crate) fn word(self) -> &'static str {
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
    pub(crate) fn is_extractor(self, ty: &Type) -> bool {
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

/// Where a function marked `#[tool]`, `#[prompt]` or `#[resource]` stands, which decides
/// how its definition calls it.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Place {
    /// A free function, called by its name.
    Free,
    /// A function of a `#[handlers]` block without a receiver, called as `Self::name`.
    Associated,
    /// A `&self` method of a `#[handlers]` block, called on the `Arc<Self>` its
    /// definition holds.
    Method,
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

/// Makes the `#[tool]`, `#[prompt]` and `#[resource]` methods of an `impl` block
/// definitions, and generates `definitions()`; documented as `mcpwire::handlers`.
#[proc_macro_attribute]
pub fn handlers(attr: TokenStream, item: TokenStream) -> TokenStream {
    match handlers::expand_handlers(attr.into(), item.into()) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
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
