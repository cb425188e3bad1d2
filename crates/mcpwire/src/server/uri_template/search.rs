//! The bounded backtracking search for the constraints the automaton cannot check: a
//! prefix modifier's length and a repeated variable's equality.

use super::encoding::percent_decode;
use super::matcher::{Caps, Capture, Inst};
use super::*;

impl Matcher {
    /// A depth-first search over the program in the automaton's priority order
    /// (so the first success is the match [`Matcher::run`] would prefer among
    /// those that satisfy the constraints), checking each positional variable's
    /// prefix length and its equality with earlier occurrences as soon as it is
    /// captured. Backtracking can be exponential, so the search gives up
    /// (no match) after `budget` steps.
    pub(super) fn run_constrained(&self, input: &str, budget: usize) -> Option<Vec<Option<usize>>> {
        let mut stack: Vec<(usize, usize, Caps)> = vec![(0, 0, Rc::new(vec![None; 2 * self.captures.len()]))];
        let mut steps = 0usize;
        while let Some((pc, pos, caps)) = stack.pop() {
            steps += 1;
            if steps > budget {
                return None;
            }
            let next_char = input.get(pos..).and_then(|rest| rest.chars().next());
            match self.prog.get(pc) {
                Some(Inst::Char(c)) if next_char == Some(*c) => {
                    stack.push((pc + 1, pos + c.len_utf8(), caps));
                }
                Some(Inst::Class(class)) => {
                    if let Some(ch) = next_char.filter(|ch| class.contains(*ch)) {
                        stack.push((pc + 1, pos + ch.len_utf8(), caps));
                    }
                }
                Some(Inst::Split(a, b)) => {
                    stack.push((*b, pos, Rc::clone(&caps)));
                    stack.push((*a, pos, caps));
                }
                Some(Inst::Jmp(target)) => stack.push((*target, pos, caps)),
                Some(Inst::Save(slot)) => {
                    let mut caps = caps;
                    if let Some(s) = Rc::make_mut(&mut caps).get_mut(*slot) {
                        *s = Some(pos);
                    }
                    if slot % 2 == 1 && !self.capture_ok(input, &caps, slot / 2, &mut steps) {
                        continue;
                    }
                    stack.push((pc + 1, pos, caps));
                }
                Some(Inst::Match) if pos == input.len() => return Some(Rc::unwrap_or_clone(caps)),
                _ => {}
            }
        }
        None
    }

    /// Whether positional capture `i`, just completed, fits its prefix modifier
    /// and equals the earlier completed captures of the same variable. The bytes
    /// it decodes count as steps.
    fn capture_ok(&self, input: &str, caps: &[Option<usize>], i: usize, steps: &mut usize) -> bool {
        let Some(Capture::Var { name, prefix }) = self.captures.get(i) else { return true };
        let mut span = |j: usize| {
            let (start, end) = (caps.get(2 * j).copied().flatten()?, caps.get(2 * j + 1).copied().flatten()?);
            *steps += end.saturating_sub(start);
            input.get(start..end).and_then(percent_decode)
        };
        let Some(value) = span(i) else { return false };
        if prefix.is_some_and(|n| value.chars().count() > n) {
            return false;
        }
        self.captures.iter().enumerate().take(i).all(|(j, c)| match c {
            Capture::Var { name: other, .. } if other == name => span(j).is_none_or(|v| v == value),
            _ => true,
        })
    }
}

/// How many steps the constrained search may take before it gives up.
pub(super) const CONSTRAINED_SEARCH_STEPS: usize = 200_000;
