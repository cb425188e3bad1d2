//! Expansion (RFC 6570 section 3 and appendix A).

use super::encoding::encode_into;
use super::*;

impl UriTemplate {
    /// Expands the template with the given variables (RFC 6570 section 3).
    /// Variables absent from the map are undefined.
    pub fn expand(&self, vars: &HashMap<String, TemplateValue>) -> String {
        self.expand_with(|name| vars.get(name))
    }

    /// Expands the template, looking each variable up with `lookup`;
    /// `None` means undefined.
    pub fn expand_with<'v, F>(&self, mut lookup: F) -> String
    where
        F: FnMut(&str) -> Option<&'v TemplateValue>,
    {
        let mut out = String::with_capacity(self.source.len());
        for part in &self.parts {
            match part {
                Part::Literal(lit) => out.push_str(lit),
                Part::Expr(expr) => expand_expr(&mut out, expr, &mut lookup),
            }
        }
        out
    }
}

fn expand_expr<'v, F>(out: &mut String, expr: &Expr, lookup: &mut F)
where
    F: FnMut(&str) -> Option<&'v TemplateValue>,
{
    let op = expr.op;
    let allow = op.allow_reserved();
    let mut first = true;
    for var in &expr.vars {
        let Some(value) = lookup(&var.name) else {
            continue;
        };
        let defined = match value {
            TemplateValue::String(_) => true,
            TemplateValue::List(items) => !items.is_empty(),
            TemplateValue::Map(pairs) => !pairs.is_empty(),
        };
        if !defined {
            continue;
        }
        if first {
            out.push_str(op.first());
            first = false;
        } else {
            out.push(op.sep());
        }
        match value {
            TemplateValue::String(s) => {
                if op.named() {
                    out.push_str(&var.name);
                    if s.is_empty() {
                        out.push_str(op.if_empty());
                        continue;
                    }
                    out.push('=');
                }
                let s = match var.prefix {
                    Some(n) => char_prefix(s, n),
                    None => s,
                };
                encode_into(out, s, allow);
            }
            // Prefix modifiers do not apply to composite values.
            TemplateValue::List(items) if !var.explode => {
                if op.named() {
                    out.push_str(&var.name);
                    out.push('=');
                }
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    encode_into(out, item, allow);
                }
            }
            TemplateValue::Map(pairs) if !var.explode => {
                if op.named() {
                    out.push_str(&var.name);
                    out.push('=');
                }
                for (i, (k, v)) in pairs.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    encode_into(out, k, allow);
                    out.push(',');
                    encode_into(out, v, allow);
                }
            }
            TemplateValue::List(items) => {
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(op.sep());
                    }
                    if op.named() {
                        out.push_str(&var.name);
                        if item.is_empty() {
                            out.push_str(op.if_empty());
                            continue;
                        }
                        out.push('=');
                    }
                    encode_into(out, item, allow);
                }
            }
            TemplateValue::Map(pairs) => {
                for (i, (k, v)) in pairs.iter().enumerate() {
                    if i > 0 {
                        out.push(op.sep());
                    }
                    encode_into(out, k, allow);
                    if op.named() && v.is_empty() {
                        out.push_str(op.if_empty());
                        continue;
                    }
                    out.push('=');
                    encode_into(out, v, allow);
                }
            }
        }
    }
}
