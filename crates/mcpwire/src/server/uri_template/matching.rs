//! `UriTemplate::match_uri`: run the automaton (then, if needed, the bounded search),
//! and assemble and check the variables of the match.

use super::encoding::percent_decode;
use super::matcher::Capture;
use super::search::CONSTRAINED_SEARCH_STEPS;
use super::*;

/// The longest URI, in bytes, [`UriTemplate::match_uri`] matches. Matching costs time in
/// proportion to the URI's length times the template's size and its number of variables
/// (a megabyte against twenty adjacent variables takes seconds), and a client chooses the
/// URI: longer ones are no resource of any template, and cost nothing to refuse.
pub const MAX_MATCHED_URI_LEN: usize = 64 * 1024;

impl UriTemplate {
    /// Matches a concrete URI against the template and returns the
    /// percent-decoded variable values, or `None` if the URI cannot have
    /// been produced by this template. Variables that the URI leaves out
    /// (optional parts, missing query parameters) are absent from the map.
    /// See the [module documentation](crate::server::uri_template) for the exact rules.
    /// A URI longer than [`MAX_MATCHED_URI_LEN`] bytes never matches.
    pub fn match_uri(&self, uri: &str) -> Option<HashMap<String, String>> {
        if uri.len() > MAX_MATCHED_URI_LEN {
            return None;
        }
        let m = &self.matcher;
        let slots = m.run(uri)?;
        if let Some(found) = self.assemble(uri, &slots) {
            return Some(found);
        }
        // The automaton's preferred match broke a prefix length or a repeated
        // variable's equality, which it cannot see; search again, in the same
        // priority order, with those checked as the search goes.
        if !m.constrained {
            return None;
        }
        let slots = m.run_constrained(uri, CONSTRAINED_SEARCH_STEPS)?;
        self.assemble(uri, &slots)
    }

    /// The variables of one match of the automaton, checked.
    fn assemble(&self, uri: &str, slots: &[Option<usize>]) -> Option<HashMap<String, String>> {
        let m = &self.matcher;
        let mut out: HashMap<String, String> = HashMap::new();
        let mut query_pieces: Vec<&str> = Vec::new();
        let mut param_pieces: Vec<&str> = Vec::new();
        for (i, capture) in m.captures.iter().enumerate() {
            let start = slots.get(2 * i).copied().flatten();
            let end = slots.get(2 * i + 1).copied().flatten();
            let (Some(start), Some(end)) = (start, end) else {
                continue; // optional part not present
            };
            let text = uri.get(start..end)?;
            match capture {
                Capture::Var { name, prefix } => {
                    let value = percent_decode(text)?;
                    insert_value(&mut out, name, *prefix, value)?;
                }
                Capture::Query => query_pieces.extend(text.split('&').filter(|p| !p.is_empty())),
                Capture::Params => param_pieces.extend(text.split(';').filter(|p| !p.is_empty())),
            }
        }
        assign_named(&mut out, &m.query_vars, &query_pieces)?;
        assign_named(&mut out, &m.param_vars, &param_pieces)?;
        Some(out)
    }
}

/// Inserts a matched value, enforcing the prefix length and consistency
/// with an earlier occurrence of the same variable.
fn insert_value(
    out: &mut HashMap<String, String>,
    name: &str,
    prefix: Option<usize>,
    value: String,
) -> Option<()> {
    if let Some(n) = prefix {
        if value.chars().count() > n {
            return None;
        }
    }
    match out.get(name) {
        Some(existing) if *existing != value => None,
        Some(_) => Some(()),
        None => {
            out.insert(name.to_owned(), value);
            Some(())
        }
    }
}

/// Resolves `name[=value]` pieces of pooled `?`/`&` or `;` expressions.
fn assign_named(out: &mut HashMap<String, String>, vars: &[VarSpec], pieces: &[&str]) -> Option<()> {
    if vars.is_empty() {
        return Some(());
    }
    let mut found: Vec<Option<String>> = vec![None; vars.len()];
    for piece in pieces {
        let (name, raw) = piece.split_once('=').unwrap_or((piece, ""));
        let Some(idx) = vars.iter().position(|v| v.name == name) else {
            continue; // undeclared parameter: ignored
        };
        let (Some(var), Some(slot)) = (vars.get(idx), found.get_mut(idx)) else {
            continue;
        };
        let value = percent_decode(raw)?;
        match slot {
            None => *slot = Some(value),
            Some(acc) if var.explode => {
                acc.push(',');
                acc.push_str(&value);
            }
            Some(_) => {} // first occurrence wins
        }
    }
    for (var, value) in vars.iter().zip(found) {
        if let Some(value) = value {
            insert_value(out, &var.name, var.prefix, value)?;
        }
    }
    Some(())
}
