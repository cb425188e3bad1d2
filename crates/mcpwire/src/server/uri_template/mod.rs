//! RFC 6570 URI Templates for MCP resource templates.
//!
//! [`UriTemplate::parse`] accepts the full RFC 6570 syntax (levels 1–4:
//! operators none, `+`, `#`, `.`, `/`, `;`, `?`, `&`, the explode modifier
//! `*` and the prefix modifier `:N`), reporting every syntax problem as a
//! typed [`UriTemplateError`]. [`UriTemplate::expand`] implements the
//! expansion algorithm of RFC 6570 appendix A, including its
//! percent-encoding rules (unreserved set for most operators, unreserved
//! plus reserved for `+` and `#`, UTF-8 for everything else).
//!
//! [`UriTemplate::match_uri`] is the inverse used to route
//! `resources/read`: it decides whether a concrete URI could have come from
//! the template and recovers the (percent-decoded) variable values.
//!
//! # Matching rules
//!
//! Matching is exact on literals (compared with their expanded,
//! percent-encoded form, case-sensitively) and per expression:
//!
//! | expression | matches |
//! |---|---|
//! | `{x}`      | one or more characters other than `/ ? # ,` |
//! | `{x,y}`    | `x` (one or more characters, as above), then optionally `,y`, ... |
//! | `{+x}`     | one or more characters of any kind (including `/ ? #`; `,` only when the expression has one variable) |
//! | `{#x}`     | optional: `#` followed by the same as `{+x}`, which may be empty |
//! | `{.x}`     | optional: `.` then a label without `/ ? #` (nor `.` when the expression has several variables); each variable of `{.x,y}` is optional on its own |
//! | `{/x}`     | optional: `/` then one path segment (no `/ ? #`); each variable of `{/x,y}` is optional |
//! | `{;x,y}`   | optional run of `;name` / `;name=value` parameters, in **any order** |
//! | `{?x,y}`   | optional `?` then a query (anything but `#`); parameters in **any order** |
//! | `{&x}`     | optional `&` then more query parameters, like `{?x}` |
//!
//! * The empty match is not distinguished from "undefined" for `{x}` and
//!   `{+x}`: they need at least one character (so `test://t//data` does not
//!   match `test://t/{id}/data`). Operators with a leading character
//!   (`# . / ; ? &`) report an empty value as `""` and a missing part as
//!   an absent key.
//! * Query (`?`, `&`) parameters of all query expressions of the template
//!   are pooled, as are the parameters of all `;` expressions: each
//!   declared variable takes the first parameter with its name, wherever it
//!   appears; parameters nobody declared are ignored; declared ones that
//!   are missing are simply absent from the result.
//! * Exploded variables (`{x*}`, `{/x*}`, `{.x*}`, ...) capture the whole
//!   run, separators included, as one decoded string (`{/p*}` on `/a/b`
//!   gives `p = "a/b"`). For `{?x*}` and `{;x*}` the values of all
//!   repetitions of `x=` are joined with `,`. Exploded associative arrays
//!   cannot be recovered (their keys are not the variable's name).
//! * A variable with a prefix modifier `{x:N}` must match at most `N`
//!   characters (after decoding).
//! * A variable that appears several times must match the same value each
//!   time.
//! * Values are percent-decoded; a `%` not followed by two hex digits is
//!   kept as is, and a value that decodes to invalid UTF-8 makes the URI
//!   not match.
//! * No value holds a literal `{` or `}` (nor does a query or `;` run):
//!   expansion percent-encodes them for every operator, so a URI with one
//!   there (the template itself, sent as a URI) does not match; `%7B` and
//!   `%7D` do, decoded.
//!
//! **Ambiguity.** When several assignments match (adjacent variables such
//! as `{a}{b}`, or `{.x,y}` with only one label present), the result is
//! that of a left-to-right search in which *each variable takes the
//! shortest match that still lets the rest of the URI match*, and each
//! optional part is *taken when possible, earliest variable first*. So
//! `{a}{b}` on `xyz` gives `a = "x"`, `b = "yz"`; `{+dir}/{name}` on `p/q/r`
//! gives `dir = "p/q"`, `name = "r"`; `{.x,y}` on `.v` gives `x = "v"`.
//!
//! **Cost.** The template is compiled at parse time into a small automaton
//! that is simulated breadth-first (no backtracking), so matching takes
//! `O(|uri| × |template|)` time whatever the input; a hostile URI cannot
//! trigger exponential behaviour. Prefix lengths and the equality of a
//! repeated variable are beyond the automaton: when its preferred match
//! breaks one of them, a backtracking search in the same priority order looks
//! for one that keeps them, within a fixed budget of steps (past it, no
//! match), so `{a}{b}{c:2}` matches `njklab` and `{x}{x}` matches `abab`.
//! A URI longer than [`MAX_MATCHED_URI_LEN`] (64 KiB) matches no template.
//!
//! ```
//! use mcpwire::server::uri_template::UriTemplate;
//!
//! let template = UriTemplate::parse("books://{shelf}/{title}").unwrap();
//! let found = template.match_uri("books://mcp/tools").unwrap();
//! assert_eq!((found["shelf"].as_str(), found["title"].as_str()), ("mcp", "tools"));
//! assert!(template.match_uri("films://mcp/tools").is_none());
//! ```

use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;
use std::str::FromStr;

use encoding::char_prefix;
use matcher::Matcher;

pub(crate) mod encoding;
mod expand;
mod matcher;
mod matching;
pub use matching::MAX_MATCHED_URI_LEN;
mod parse;
mod search;
#[cfg(test)]
mod tests;

/// The value of a template variable for [`UriTemplate::expand`].
///
/// A variable missing from the map is *undefined* and is skipped, as are
/// empty lists and empty associative arrays (RFC 6570 section 2.3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplateValue {
    /// A single string value.
    String(String),
    /// A list of values.
    List(Vec<String>),
    /// An associative array: ordered (name, value) pairs.
    Map(Vec<(String, String)>),
}

impl From<&str> for TemplateValue {
    fn from(s: &str) -> Self {
        TemplateValue::String(s.to_owned())
    }
}

impl From<String> for TemplateValue {
    fn from(s: String) -> Self {
        TemplateValue::String(s)
    }
}

impl From<Vec<String>> for TemplateValue {
    fn from(items: Vec<String>) -> Self {
        TemplateValue::List(items)
    }
}

impl From<Vec<(String, String)>> for TemplateValue {
    fn from(pairs: Vec<(String, String)>) -> Self {
        TemplateValue::Map(pairs)
    }
}

/// A syntax error in a URI template. `at` is the byte offset in the
/// template string where the problem was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum UriTemplateError {
    /// A `{` without a matching `}`.
    UnclosedExpression {
        /// Byte offset of the `{`.
        at: usize,
    },
    /// A `}` outside of any expression.
    UnmatchedClosingBrace {
        /// Byte offset of the `}`.
        at: usize,
    },
    /// A `{` inside an expression.
    NestedBrace {
        /// Byte offset of the inner `{`.
        at: usize,
    },
    /// An expression with no variable, such as `{}` or `{+}`.
    EmptyExpression {
        /// Byte offset of the `{`.
        at: usize,
    },
    /// An operator that RFC 6570 reserves or does not define, such as
    /// `{=x}`, `{!x}` or `{$x}`.
    UnknownOperator {
        /// Byte offset of the operator.
        at: usize,
        /// The operator character.
        op: char,
    },
    /// A variable name that is empty or uses characters outside
    /// `ALPHA / DIGIT / "_" / pct-encoded` with single inner dots.
    InvalidVariableName {
        /// Byte offset of the variable specification.
        at: usize,
    },
    /// A prefix modifier that is not `:` followed by 1 to 4 digits with
    /// value 1..=9999.
    InvalidPrefix {
        /// Byte offset of the `:`.
        at: usize,
    },
    /// A control character in the literal part of the template.
    InvalidLiteral {
        /// Byte offset of the character.
        at: usize,
    },
}

impl UriTemplateError {
    /// Byte offset in the template where the error was detected.
    pub fn offset(&self) -> usize {
        match *self {
            UriTemplateError::UnclosedExpression { at }
            | UriTemplateError::UnmatchedClosingBrace { at }
            | UriTemplateError::NestedBrace { at }
            | UriTemplateError::EmptyExpression { at }
            | UriTemplateError::UnknownOperator { at, .. }
            | UriTemplateError::InvalidVariableName { at }
            | UriTemplateError::InvalidPrefix { at }
            | UriTemplateError::InvalidLiteral { at } => at,
        }
    }
}

impl fmt::Display for UriTemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UriTemplateError::UnclosedExpression { at } => {
                write!(f, "unclosed expression: '{{' at byte {at} has no matching '}}'")
            }
            UriTemplateError::UnmatchedClosingBrace { at } => {
                write!(f, "unmatched '}}' at byte {at}")
            }
            UriTemplateError::NestedBrace { at } => {
                write!(f, "nested '{{' inside an expression at byte {at}")
            }
            UriTemplateError::EmptyExpression { at } => {
                write!(f, "empty expression at byte {at}")
            }
            UriTemplateError::UnknownOperator { at, op } => {
                write!(f, "unknown or reserved operator '{op}' at byte {at}")
            }
            UriTemplateError::InvalidVariableName { at } => {
                write!(f, "invalid variable name at byte {at}")
            }
            UriTemplateError::InvalidPrefix { at } => {
                write!(f, "invalid prefix modifier at byte {at} (expected ':1' to ':9999')")
            }
            UriTemplateError::InvalidLiteral { at } => {
                write!(f, "control character in template literal at byte {at}")
            }
        }
    }
}

impl std::error::Error for UriTemplateError {}

/// A parsed RFC 6570 URI template. See the [module documentation](self)
/// for the matching rules.
#[derive(Clone)]
pub struct UriTemplate {
    source: String,
    parts: Vec<Part>,
    names: Vec<String>,
    matcher: Matcher,
}

impl fmt::Debug for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("UriTemplate").field(&self.source).finish()
    }
}

impl fmt::Display for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

impl PartialEq for UriTemplate {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

impl Eq for UriTemplate {}

impl std::hash::Hash for UriTemplate {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.source.hash(state);
    }
}

impl FromStr for UriTemplate {
    type Err = UriTemplateError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        UriTemplate::parse(s)
    }
}

#[derive(Clone, Debug)]
enum Part {
    /// Literal text, already in its expanded (percent-encoded) form.
    Literal(String),
    Expr(Expr),
}

#[derive(Clone, Debug)]
struct Expr {
    op: Op,
    vars: Vec<VarSpec>,
}

#[derive(Clone, Debug)]
struct VarSpec {
    name: String,
    prefix: Option<usize>,
    explode: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Simple,
    Reserved,
    Fragment,
    Label,
    Path,
    PathParam,
    Query,
    QueryCont,
}

impl Op {
    fn from_char(c: char) -> Option<Op> {
        Some(match c {
            '+' => Op::Reserved,
            '#' => Op::Fragment,
            '.' => Op::Label,
            '/' => Op::Path,
            ';' => Op::PathParam,
            '?' => Op::Query,
            '&' => Op::QueryCont,
            _ => return None,
        })
    }

    /// Text emitted before the first defined variable (RFC 6570 appendix A).
    fn first(self) -> &'static str {
        match self {
            Op::Simple | Op::Reserved => "",
            Op::Fragment => "#",
            Op::Label => ".",
            Op::Path => "/",
            Op::PathParam => ";",
            Op::Query => "?",
            Op::QueryCont => "&",
        }
    }

    fn sep(self) -> char {
        match self {
            Op::Simple | Op::Reserved | Op::Fragment => ',',
            Op::Label => '.',
            Op::Path => '/',
            Op::PathParam => ';',
            Op::Query | Op::QueryCont => '&',
        }
    }

    fn named(self) -> bool {
        matches!(self, Op::PathParam | Op::Query | Op::QueryCont)
    }

    fn if_empty(self) -> &'static str {
        match self {
            Op::Query | Op::QueryCont => "=",
            _ => "",
        }
    }

    fn allow_reserved(self) -> bool {
        matches!(self, Op::Reserved | Op::Fragment)
    }
}
