//! Parsing a template into literals and expressions, with typed syntax errors.

use super::encoding::{encode_into, is_pct_triplet};
use super::*;

impl UriTemplate {
    /// Parses a URI template.
    ///
    /// Literal text may contain any character except ASCII control
    /// characters and unbalanced braces; characters that are not allowed in
    /// a URI are percent-encoded on expansion (and must appear encoded in
    /// URIs given to [`UriTemplate::match_uri`]).
    pub fn parse(s: &str) -> Result<UriTemplate, UriTemplateError> {
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut iter = s.char_indices();
        while let Some((at, c)) = iter.next() {
            match c {
                '{' => {
                    let body_start = at + 1;
                    let mut body_end = None;
                    for (j, d) in iter.by_ref() {
                        match d {
                            '}' => {
                                body_end = Some(j);
                                break;
                            }
                            '{' => return Err(UriTemplateError::NestedBrace { at: j }),
                            _ => {}
                        }
                    }
                    let body_end = body_end.ok_or(UriTemplateError::UnclosedExpression { at })?;
                    let body = s.get(body_start..body_end).unwrap_or_default();
                    if !literal.is_empty() {
                        parts.push(Part::Literal(std::mem::take(&mut literal)));
                    }
                    parts.push(Part::Expr(parse_expression(body, at)?));
                }
                '}' => return Err(UriTemplateError::UnmatchedClosingBrace { at }),
                c if c.is_ascii_control() => return Err(UriTemplateError::InvalidLiteral { at }),
                c => literal.push(c),
            }
        }
        if !literal.is_empty() {
            parts.push(Part::Literal(literal));
        }
        // Store literals in their expanded form.
        for part in &mut parts {
            if let Part::Literal(raw) = part {
                let mut encoded = String::with_capacity(raw.len());
                encode_into(&mut encoded, raw, true);
                *raw = encoded;
            }
        }
        let mut names: Vec<String> = Vec::new();
        for part in &parts {
            if let Part::Expr(e) = part {
                for v in &e.vars {
                    if !names.contains(&v.name) {
                        names.push(v.name.clone());
                    }
                }
            }
        }
        let matcher = Matcher::compile(&parts);
        Ok(UriTemplate { source: s.to_owned(), parts, names, matcher })
    }

    /// The template text as given to [`UriTemplate::parse`].
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The distinct variable names, in order of first appearance.
    pub fn variables(&self) -> impl Iterator<Item = &str> + '_ {
        self.names.iter().map(String::as_str)
    }
}

/// Parses the text between `{` and `}`; `open` is the offset of the `{`.
fn parse_expression(body: &str, open: usize) -> Result<Expr, UriTemplateError> {
    let op_at = open + 1;
    let Some(first) = body.chars().next() else {
        return Err(UriTemplateError::EmptyExpression { at: open });
    };
    let (op, list, list_at) = if let Some(op) = Op::from_char(first) {
        (op, body.get(1..).unwrap_or_default(), op_at + 1)
    } else if first.is_ascii_alphanumeric() || first == '_' || first == '%' {
        (Op::Simple, body, op_at)
    } else if first.is_ascii_punctuation() {
        return Err(UriTemplateError::UnknownOperator { at: op_at, op: first });
    } else {
        return Err(UriTemplateError::InvalidVariableName { at: op_at });
    };
    if list.is_empty() {
        return Err(UriTemplateError::EmptyExpression { at: open });
    }
    let mut vars = Vec::new();
    let mut spec_at = list_at;
    for spec in list.split(',') {
        vars.push(parse_varspec(spec, spec_at)?);
        spec_at += spec.len() + 1;
    }
    Ok(Expr { op, vars })
}

fn parse_varspec(spec: &str, at: usize) -> Result<VarSpec, UriTemplateError> {
    let (name, prefix, explode) = if let Some((name, digits)) = spec.split_once(':') {
        let colon_at = at + name.len();
        let bytes = digits.as_bytes();
        let valid = (1..=4).contains(&bytes.len())
            && bytes.iter().all(u8::is_ascii_digit)
            && bytes.first() != Some(&b'0');
        if !valid {
            return Err(UriTemplateError::InvalidPrefix { at: colon_at });
        }
        let n = bytes.iter().fold(0usize, |acc, d| acc * 10 + usize::from(d - b'0'));
        (name, Some(n), false)
    } else if let Some(name) = spec.strip_suffix('*') {
        (name, None, true)
    } else {
        (spec, None, false)
    };
    if !is_valid_varname(name) {
        return Err(UriTemplateError::InvalidVariableName { at });
    }
    Ok(VarSpec { name: name.to_owned(), prefix, explode })
}

/// `varname = varchar *( ["."] varchar )`,
/// `varchar = ALPHA / DIGIT / "_" / pct-encoded`.
fn is_valid_varname(name: &str) -> bool {
    let bytes = name.as_bytes();
    let mut i = 0;
    let mut need_varchar = true; // at start and right after a '.'
    while let Some(&b) = bytes.get(i) {
        if b.is_ascii_alphanumeric() || b == b'_' {
            i += 1;
        } else if is_pct_triplet(bytes, i) {
            i += 3;
        } else if b == b'.' && !need_varchar {
            need_varchar = true;
            i += 1;
            continue;
        } else {
            return false;
        }
        need_varchar = false;
    }
    !need_varchar
}
