//! The matching automaton: a template compiled to a tiny program and simulated as a
//! Pike VM (breadth-first, no backtracking), so a match costs `O(|uri| × |template|)`.

use super::*;

/// A set of characters: every non-ASCII character plus the ASCII
/// characters not excluded.
#[derive(Clone, Copy, Debug)]
pub(super) struct Class {
    excluded: u128,
}

/// Characters no expansion leaves unencoded in a value, whatever the operator (they
/// are neither unreserved nor reserved): a URI holding them where a variable stands
/// (the template itself, read as a URI) did not come from the template.
const NEVER_IN_A_VALUE: &str = "{}";

impl Class {
    /// Every character but those of `chars` and [`NEVER_IN_A_VALUE`].
    fn excluding(chars: &str) -> Class {
        let excluded = chars
            .bytes()
            .chain(NEVER_IN_A_VALUE.bytes())
            .filter(u8::is_ascii)
            .fold(0u128, |acc, b| acc | (1u128 << b));
        Class { excluded }
    }

    pub(super) fn contains(self, c: char) -> bool {
        let code = u32::from(c);
        code >= 128 || self.excluded & (1u128 << code) == 0
    }
}

#[derive(Clone, Copy, Debug)]
pub(super) enum Inst {
    /// Consume exactly this character.
    Char(char),
    /// Consume one character of the class.
    Class(Class),
    /// Fork; the first branch has priority.
    Split(usize, usize),
    Jmp(usize),
    /// Record the current position in a capture slot.
    Save(usize),
    Match,
}

#[derive(Clone, Debug)]
pub(super) enum Capture {
    /// A positional variable: its decoded span is the value.
    Var { name: String, prefix: Option<usize> },
    /// The text of a `?`/`&` expression after its operator.
    Query,
    /// The text of a `;` expression, leading `;` included.
    Params,
}

#[derive(Clone, Debug)]
pub(super) struct Matcher {
    pub(super) prog: Vec<Inst>,
    /// Capture `i` uses slots `2i` and `2i + 1`.
    pub(super) captures: Vec<Capture>,
    pub(super) query_vars: Vec<VarSpec>,
    pub(super) param_vars: Vec<VarSpec>,
    /// Whether a positional variable has a prefix modifier or appears more than
    /// once: conditions the automaton does not check itself.
    pub(super) constrained: bool,
}

impl Matcher {
    pub(super) fn compile(parts: &[Part]) -> Matcher {
        let mut m = Matcher {
            prog: Vec::new(),
            captures: Vec::new(),
            query_vars: Vec::new(),
            param_vars: Vec::new(),
            constrained: false,
        };
        for part in parts {
            match part {
                Part::Literal(lit) => {
                    for c in lit.chars() {
                        m.emit(Inst::Char(c));
                    }
                }
                Part::Expr(expr) => m.compile_expr(expr),
            }
        }
        m.emit(Inst::Match);
        let mut names = std::collections::HashSet::new();
        m.constrained = m.captures.iter().any(|c| match c {
            Capture::Var { name, prefix } => prefix.is_some() || !names.insert(name.as_str()),
            _ => false,
        });
        m
    }

    fn emit(&mut self, inst: Inst) -> usize {
        self.prog.push(inst);
        self.prog.len() - 1
    }

    fn patch(&mut self, at: usize, inst: Inst) {
        if let Some(slot) = self.prog.get_mut(at) {
            *slot = inst;
        }
    }

    /// Zero or more characters of `class`, preferring fewer.
    fn lazy_star(&mut self, class: Class) {
        let split = self.emit(Inst::Split(0, 0));
        self.emit(Inst::Class(class));
        self.emit(Inst::Jmp(split));
        let exit = self.prog.len();
        self.patch(split, Inst::Split(exit, split + 1));
    }

    /// Starts a group that is tried first and may be skipped.
    fn begin_optional(&mut self) -> usize {
        self.emit(Inst::Split(0, 0))
    }

    fn end_optional(&mut self, split: usize) {
        let end = self.prog.len();
        self.patch(split, Inst::Split(split + 1, end));
    }

    fn new_capture(&mut self, capture: Capture) -> (usize, usize) {
        self.captures.push(capture);
        let i = self.captures.len() - 1;
        (2 * i, 2 * i + 1)
    }

    /// A captured variable: `min_one` demands at least one character.
    fn var(&mut self, var: &VarSpec, class: Class, min_one: bool) {
        let (start, end) = self.new_capture(Capture::Var { name: var.name.clone(), prefix: var.prefix });
        self.emit(Inst::Save(start));
        if min_one {
            self.emit(Inst::Class(class));
        }
        self.lazy_star(class);
        self.emit(Inst::Save(end));
    }

    fn compile_expr(&mut self, expr: &Expr) {
        let multi = expr.vars.len() > 1;
        match expr.op {
            Op::Simple | Op::Reserved | Op::Fragment => {
                let base = if expr.op == Op::Simple { "/?#," } else { "" };
                let optional = if expr.op == Op::Fragment {
                    let split = self.begin_optional();
                    self.emit(Inst::Char('#'));
                    Some(split)
                } else {
                    None
                };
                for (i, var) in expr.vars.iter().enumerate() {
                    let mut excluded = base.to_owned();
                    if multi {
                        excluded.push(',');
                    } else if var.explode && expr.op == Op::Simple {
                        excluded = "/?#".to_owned();
                    }
                    let class = Class::excluding(&excluded);
                    if i == 0 {
                        self.var(var, class, expr.op != Op::Fragment);
                    } else {
                        let split = self.begin_optional();
                        self.emit(Inst::Char(','));
                        self.var(var, class, false);
                        self.end_optional(split);
                    }
                }
                if let Some(split) = optional {
                    self.end_optional(split);
                }
            }
            Op::Label | Op::Path => {
                let sep = expr.op.sep();
                for var in &expr.vars {
                    // '.' is unreserved, so a label value may contain it
                    // unencoded; it only separates labels when the
                    // expression has several variables.
                    let class = match (expr.op, var.explode) {
                        (Op::Label, false) if multi => Class::excluding("./?#"),
                        (Op::Path, true) => Class::excluding("?#"),
                        _ => Class::excluding("/?#"),
                    };
                    let split = self.begin_optional();
                    self.emit(Inst::Char(sep));
                    self.var(var, class, false);
                    self.end_optional(split);
                }
            }
            Op::PathParam => {
                self.param_vars.extend(expr.vars.iter().cloned());
                let (start, end) = self.new_capture(Capture::Params);
                let split = self.begin_optional();
                self.emit(Inst::Save(start));
                let piece = self.emit(Inst::Char(';'));
                self.lazy_star(Class::excluding(";/?#"));
                let next = self.prog.len() + 1;
                self.emit(Inst::Split(piece, next));
                self.emit(Inst::Save(end));
                self.end_optional(split);
            }
            Op::Query | Op::QueryCont => {
                self.query_vars.extend(expr.vars.iter().cloned());
                let (start, end) = self.new_capture(Capture::Query);
                let split = self.begin_optional();
                self.emit(Inst::Char(if expr.op == Op::Query { '?' } else { '&' }));
                self.emit(Inst::Save(start));
                self.lazy_star(Class::excluding("#"));
                self.emit(Inst::Save(end));
                self.end_optional(split);
            }
        }
    }

    /// Runs the program over `input`, anchored at both ends. Returns the
    /// capture slots of the highest-priority complete match.
    pub(super) fn run(&self, input: &str) -> Option<Vec<Option<usize>>> {
        let mut vm =
            Vm { prog: &self.prog, seen: vec![0; self.prog.len()], generation: 0, stack: Vec::new() };
        let mut current: Vec<Thread> = Vec::new();
        let mut next: Vec<Thread> = Vec::new();
        vm.generation = 1;
        vm.add_thread(&mut current, 0, 0, Rc::new(vec![None; 2 * self.captures.len()]));
        for (pos, ch) in input.char_indices() {
            if current.is_empty() {
                return None;
            }
            vm.generation += 1;
            let after = pos + ch.len_utf8();
            for (pc, caps) in current.drain(..) {
                let step = match self.prog.get(pc) {
                    Some(Inst::Char(c)) => *c == ch,
                    Some(Inst::Class(class)) => class.contains(ch),
                    _ => false,
                };
                if step {
                    vm.add_thread(&mut next, pc + 1, after, caps);
                }
            }
            std::mem::swap(&mut current, &mut next);
        }
        current
            .into_iter()
            .find(|(pc, _)| matches!(self.prog.get(*pc), Some(Inst::Match)))
            .map(|(_, caps)| Rc::unwrap_or_clone(caps))
    }
}

pub(super) type Caps = Rc<Vec<Option<usize>>>;
type Thread = (usize, Caps);

struct Vm<'p> {
    prog: &'p [Inst],
    /// `seen[pc] == generation` when `pc` was visited at this position.
    seen: Vec<usize>,
    generation: usize,
    stack: Vec<Thread>,
}

impl Vm<'_> {
    /// Follows the epsilon closure of `pc` in priority order, appending the
    /// consuming (or final) instructions reached to `list`.
    fn add_thread(&mut self, list: &mut Vec<Thread>, pc: usize, pos: usize, caps: Caps) {
        self.stack.push((pc, caps));
        while let Some((pc, caps)) = self.stack.pop() {
            match self.seen.get_mut(pc) {
                Some(mark) if *mark != self.generation => *mark = self.generation,
                _ => continue,
            }
            match self.prog.get(pc) {
                Some(Inst::Jmp(target)) => self.stack.push((*target, caps)),
                Some(Inst::Split(a, b)) => {
                    self.stack.push((*b, Rc::clone(&caps)));
                    self.stack.push((*a, caps));
                }
                Some(Inst::Save(slot)) => {
                    let mut caps = caps;
                    if let Some(s) = Rc::make_mut(&mut caps).get_mut(*slot) {
                        *s = Some(pos);
                    }
                    self.stack.push((pc + 1, caps));
                }
                Some(Inst::Char(_) | Inst::Class(_) | Inst::Match) => list.push((pc, caps)),
                None => {}
            }
        }
    }
}
