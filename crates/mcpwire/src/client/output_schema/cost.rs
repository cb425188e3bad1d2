//! Whether checking a value against a schema could cost without bound, which a client
//! should not let a server decide: a `$ref` that comes back to itself without stepping
//! into the value (`{"anyOf": [{"$ref": "#"}, ...]}`) never ends (a validator recurses
//! until its stack overflows), and composition keywords over shared `$defs` can apply a
//! number of schemas to one value that doubles with each level (`oneOf` of two `$ref`s to
//! the level below, 24 levels: 16 million).
//!
//! The bound is found without any value. Every subschema gets its *in-place* cost: itself
//! and what it applies to the same value (`allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/
//! `else`, `dependentSchemas`, `$ref`), which must be finite and at most
//! [`MAX_APPLIED`] (a regular expression counting for [`PATTERN_COST`]). Then, from the
//! root, the set of schemas that can apply to one location of a value is followed down
//! through `properties` (by name) and the other keywords that step into a value (by one
//! shared label): each set's total in-place cost must stay within [`MAX_APPLIED`], and
//! the sets are remembered, so a recursive schema (a tree of nodes) is followed until its
//! sets repeat. What compiling the schema costs is bounded first: its subschemas
//! ([`MAX_NODES`]), and its regular expressions in number ([`MAX_PATTERNS`]) and in
//! length together ([`MAX_PATTERN_BYTES`]).

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

use serde_json::Value;

use crate::server::uri_template::encoding::percent_decode;

/// The most schema evaluations one location of a value may cost.
pub(super) const MAX_APPLIED: u64 = 10_000;
/// The most subschemas a schema may have.
const MAX_NODES: usize = 10_000;
/// The most distinct sets of schemas followed down a value.
const MAX_SETS: usize = 1_000;
/// The most steps following those sets down may take (see [`Steps`]): far more than any
/// real schema needs, and a bound on the time a server's schema can hold the thread
/// that analyses it.
const MAX_STEPS: usize = 1_000_000;
/// The most subschemas a schema may compile to, counting each `$ref` as a copy of what
/// it names (as a validator compiles it): twice [`MAX_NODES`], so that a schema without
/// `$ref`s always fits, and a bound on the memory a small schema can make the compiler
/// take.
const MAX_COPIED: u64 = 2 * MAX_NODES as u64;
/// What one regular expression (`pattern`, a `patternProperties` key) counts for, in
/// schema evaluations: a match may take thousands of steps where a keyword takes one.
const PATTERN_COST: u64 = 50;
/// The most regular expressions a schema may have (each is compiled when the schema is).
const MAX_PATTERNS: usize = 500;
/// The most bytes its regular expressions may have together: compiling costs time in
/// proportion (seconds for megabytes), spent before the compiler's size limit refuses one.
const MAX_PATTERN_BYTES: usize = 64 * 1024;

/// Keywords whose schema applies to the value itself.
const IN_PLACE_ONE: &[&str] = &["not", "if", "then", "else"];
const IN_PLACE_MANY: &[&str] = &["allOf", "anyOf", "oneOf"];
const IN_PLACE_MAP: &[&str] = &["dependentSchemas", "dependencies"];
/// Keywords whose schema applies to the items of an array value.
const ITEMS_ONE: &[&str] = &["items", "additionalItems", "unevaluatedItems", "contains"];
const ITEMS_MANY: &[&str] = &["prefixItems", "items"];
/// Keywords whose schema may apply to any member of an object value, named or not
/// (`unevaluatedProperties` and `propertyNames` taken as broadly as `patternProperties`).
const ANY_MEMBER_ONE: &[&str] = &["unevaluatedProperties", "propertyNames"];
/// Keywords that hold schemas only to be referred to.
const DEFINITIONS: &[&str] = &["$defs", "definitions"];

/// Where a subschema applies, relative to the value of the schema holding it.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Edge {
    /// The member of this name (`properties`).
    Member(String),
    /// Any member (`patternProperties`, ...).
    AnyMember,
    /// A member the same schema does not name in its `properties` (`additionalProperties`).
    OtherMember,
    /// The item at this position (`prefixItems`, or `items` as a list in older drafts).
    ItemAt(usize),
    /// Any item (`items`, `contains`, ...).
    Item,
}

/// A kind of location in a value, relative to its parent.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Label {
    /// The member of this name.
    Member(String),
    /// A member no schema of the parent names.
    Unnamed,
    /// The item at a position a schema of the parent names.
    ItemAt(usize),
    /// An item at a position no schema of the parent names.
    Item,
}

#[derive(Default)]
struct Node {
    /// What checking this schema's own keywords costs, in schema evaluations.
    own_cost: u64,
    in_place: Vec<usize>,
    descend: Vec<(Edge, usize)>,
    /// `$ref`s still to resolve.
    refs: Vec<String>,
}

/// Every subschema of a schema, numbered.
struct Graph<'a> {
    root: &'a Value,
    nodes: Vec<Node>,
    patterns: usize,
    pattern_bytes: usize,
    by_address: HashMap<*const Value, usize>,
    anchors: HashMap<String, usize>,
}

/// Why checking values against `schema` could cost without bound, if it could.
pub(super) fn unbounded(schema: &Value) -> Option<String> {
    let mut graph = Graph {
        root: schema,
        nodes: Vec::new(),
        patterns: 0,
        pattern_bytes: 0,
        by_address: HashMap::new(),
        anchors: HashMap::new(),
    };
    if let Err(why) = graph.add(schema, true) {
        return Some(why);
    }
    if let Err(why) = graph.resolve_refs() {
        return Some(why);
    }
    let costs = match graph.in_place_costs() {
        Ok(costs) => costs,
        Err(why) => return Some(why),
    };
    graph.follow_down(&costs).err().or_else(|| graph.copied_size().err())
}

impl<'a> Graph<'a> {
    /// Numbers `value` and its subschemas; its number.
    fn add(&mut self, value: &'a Value, is_root: bool) -> Result<usize, String> {
        let address: *const Value = value;
        if let Some(&id) = self.by_address.get(&address) {
            return Ok(id);
        }
        if self.nodes.len() >= MAX_NODES {
            return Err(format!("it has more than {MAX_NODES} subschemas"));
        }
        let id = self.nodes.len();
        self.nodes.push(Node::default());
        self.by_address.insert(address, id);
        let Value::Object(object) = value else { return Ok(id) };
        for keyword in ["$dynamicRef", "$recursiveRef"] {
            if object.contains_key(keyword) {
                return Err(format!("it uses {keyword}, which this client does not follow"));
            }
        }
        if !is_root && object.contains_key("$id") {
            return Err("a subschema sets its own $id, which this client does not follow".into());
        }
        if let Some(anchor) = object.get("$anchor").and_then(Value::as_str) {
            self.anchors.insert(anchor.to_owned(), id);
        }
        if let Some(target) = object.get("$ref").and_then(Value::as_str) {
            self.nodes[id].refs.push(target.to_owned());
        }
        let pattern = object.get("pattern").and_then(Value::as_str);
        let keys = object.get("patternProperties").and_then(Value::as_object);
        let patterns = usize::from(object.contains_key("pattern")) + keys.map_or(0, |p| p.len());
        self.patterns += patterns;
        if self.patterns > MAX_PATTERNS {
            return Err(format!("it has more than {MAX_PATTERNS} regular expressions"));
        }
        self.pattern_bytes +=
            pattern.map_or(0, str::len) + keys.map_or(0, |p| p.keys().map(String::len).sum());
        if self.pattern_bytes > MAX_PATTERN_BYTES {
            return Err(format!("it has more than {MAX_PATTERN_BYTES} bytes of regular expressions"));
        }
        self.nodes[id].own_cost = 1 + PATTERN_COST * patterns as u64;
        let mut in_place = Vec::new();
        let mut descend = Vec::new();
        for (keyword, child) in object {
            let keyword = keyword.as_str();
            if IN_PLACE_ONE.contains(&keyword) {
                in_place.push(self.add(child, false)?);
            }
            if IN_PLACE_MANY.contains(&keyword) {
                for item in child.as_array().into_iter().flatten() {
                    in_place.push(self.add(item, false)?);
                }
            }
            if IN_PLACE_MAP.contains(&keyword) {
                for item in child.as_object().into_iter().flat_map(|m| m.values()).filter(|v| !v.is_array()) {
                    in_place.push(self.add(item, false)?);
                }
            }
            if ITEMS_ONE.contains(&keyword) && !child.is_array() {
                descend.push((Edge::Item, self.add(child, false)?));
            }
            if ITEMS_MANY.contains(&keyword) {
                for (position, item) in child.as_array().into_iter().flatten().enumerate() {
                    descend.push((Edge::ItemAt(position), self.add(item, false)?));
                }
            }
            if ANY_MEMBER_ONE.contains(&keyword) {
                descend.push((Edge::AnyMember, self.add(child, false)?));
            }
            if keyword == "additionalProperties" {
                descend.push((Edge::OtherMember, self.add(child, false)?));
            }
            if keyword == "patternProperties" {
                for item in child.as_object().into_iter().flat_map(|m| m.values()) {
                    descend.push((Edge::AnyMember, self.add(item, false)?));
                }
            }
            if keyword == "properties" {
                for (name, item) in child.as_object().into_iter().flatten() {
                    descend.push((Edge::Member(name.clone()), self.add(item, false)?));
                }
            }
            if DEFINITIONS.contains(&keyword) {
                for item in child.as_object().into_iter().flat_map(|m| m.values()) {
                    self.add(item, false)?;
                }
            }
        }
        self.nodes[id].in_place = in_place;
        self.nodes[id].descend = descend;
        Ok(id)
    }

    /// Turns each `$ref` (within the schema: `#`, `#/pointer`, `#anchor`) into an in-place
    /// edge to the subschema it names.
    fn resolve_refs(&mut self) -> Result<(), String> {
        for id in 0..self.nodes.len() {
            for target in std::mem::take(&mut self.nodes[id].refs) {
                let Some(fragment) = target.strip_prefix('#') else {
                    return Err(format!("its $ref {target:?} points outside the schema"));
                };
                let found = if fragment.is_empty() || fragment.starts_with('/') {
                    // A pointer that is not UTF-8 once decoded names no member of JSON.
                    percent_decode(fragment)
                        .and_then(|pointer| self.root.pointer(&pointer))
                        .and_then(|v| self.by_address.get(&(v as *const Value)).copied())
                } else {
                    self.anchors.get(fragment).copied()
                };
                match found {
                    Some(to) => self.nodes[id].in_place.push(to),
                    None => return Err(format!("its $ref {target:?} names no subschema")),
                }
            }
        }
        Ok(())
    }

    /// Each subschema's in-place cost: 1 plus its in-place children's; an error for a
    /// loop of in-place edges or a cost over [`MAX_APPLIED`].
    fn in_place_costs(&self) -> Result<Vec<u64>, String> {
        const UNSEEN: u64 = 0;
        const ON_PATH: u64 = u64::MAX;
        let mut cost = vec![UNSEEN; self.nodes.len()];
        for start in 0..self.nodes.len() {
            if cost[start] != UNSEEN {
                continue;
            }
            // Depth-first without recursion: (node, next child to look at).
            let mut stack = vec![(start, 0)];
            cost[start] = ON_PATH;
            while let Some(top) = stack.last_mut() {
                let (id, next) = *top;
                if let Some(&child) = self.nodes[id].in_place.get(next) {
                    top.1 += 1;
                    match cost[child] {
                        ON_PATH => {
                            return Err("a $ref leads back to itself without stepping into the value".into())
                        }
                        UNSEEN => {
                            cost[child] = ON_PATH;
                            stack.push((child, 0));
                        }
                        _ => {}
                    }
                    continue;
                }
                stack.pop();
                let own = self.nodes[id].own_cost.max(1);
                let total = self.nodes[id].in_place.iter().fold(own, |sum, c| sum.saturating_add(cost[*c]));
                if total > MAX_APPLIED {
                    return Err(too_costly(total));
                }
                cost[id] = total;
            }
        }
        Ok(cost)
    }

    /// Follows the sets of schemas that apply to one location of a value, from the root
    /// down, until they repeat; an error when one costs more than [`MAX_APPLIED`], or when
    /// following them takes more than [`MAX_STEPS`].
    fn follow_down(&self, costs: &[u64]) -> Result<(), String> {
        type Set = BTreeMap<usize, u64>;
        let mut seen: HashSet<Set> = HashSet::new();
        let mut queue: VecDeque<Set> = VecDeque::from([Set::from([(0, 1)])]);
        let mut steps = Steps(0);
        while let Some(set) = queue.pop_front() {
            if !seen.insert(set.clone()) {
                continue;
            }
            if seen.len() > MAX_SETS {
                return Err(format!("its value has more than {MAX_SETS} kinds of location to check"));
            }
            let total =
                set.iter().fold(0u64, |sum, (id, n)| sum.saturating_add(costs[*id].saturating_mul(*n)));
            if total > MAX_APPLIED {
                return Err(too_costly(total));
            }
            // Every schema that applies here, once, with how often it applies.
            let mut here: Set = Set::new();
            let mut visit: Vec<(usize, u64)> = set.into_iter().collect();
            while let Some((id, n)) = visit.pop() {
                steps.take()?;
                *here.entry(id).or_default() += n;
                visit.extend(self.nodes[id].in_place.iter().map(|c| (*c, n)));
            }
            let edges =
                || here.iter().flat_map(|(id, n)| self.nodes[*id].descend.iter().map(move |e| (*id, *n, e)));
            let mut names: HashSet<&str> = HashSet::new();
            let mut positions: HashSet<usize> = HashSet::new();
            for (_, _, (edge, _)) in edges() {
                steps.take()?;
                match edge {
                    Edge::Member(name) => {
                        names.insert(name);
                    }
                    Edge::ItemAt(position) => {
                        positions.insert(*position);
                    }
                    _ => {}
                }
            }
            // What applies below, by kind of location.
            let mut below: BTreeMap<Label, Set> = BTreeMap::new();
            let mut add = |label: Label, child: usize, n: u64| {
                *below.entry(label).or_default().entry(child).or_default() += n;
                steps.take()
            };
            for (id, n, (edge, child)) in edges() {
                let (child, n) = (*child, n);
                match edge {
                    Edge::Member(name) => add(Label::Member(name.clone()), child, n)?,
                    Edge::ItemAt(position) => add(Label::ItemAt(*position), child, n)?,
                    // Taken broadly: as if `items` also applied to the positions
                    // `prefixItems` names.
                    Edge::Item => {
                        add(Label::Item, child, n)?;
                        for position in &positions {
                            add(Label::ItemAt(*position), child, n)?;
                        }
                    }
                    Edge::AnyMember | Edge::OtherMember => {
                        add(Label::Unnamed, child, n)?;
                        // `additionalProperties` skips the members its own schema names.
                        let own: HashSet<&str> = match edge {
                            Edge::OtherMember => self.nodes[id]
                                .descend
                                .iter()
                                .filter_map(|(e, _)| match e {
                                    Edge::Member(name) => Some(name.as_str()),
                                    _ => None,
                                })
                                .collect(),
                            _ => HashSet::new(),
                        };
                        for name in names.iter().filter(|name| !own.contains(*name)) {
                            add(Label::Member((*name).to_owned()), child, n)?;
                        }
                    }
                }
            }
            queue.extend(below.into_values());
        }
        Ok(())
    }
}

impl Graph<'_> {
    /// How many subschemas a validator compiles the schema to, where each `$ref` is a copy
    /// of the subschema it names (a `$ref` back to a subschema being compiled is not
    /// copied, but followed when checking): an error past [`MAX_COPIED`]. Depth-first
    /// without recursion, each subschema's size reckoned once.
    fn copied_size(&self) -> Result<u64, String> {
        const UNSEEN: u64 = 0;
        const ON_PATH: u64 = u64::MAX;
        let children = |id: usize| {
            let node = &self.nodes[id];
            node.in_place.iter().copied().chain(node.descend.iter().map(|(_, child)| *child))
        };
        // The child at `next` of `id`'s children, in the order `children` gives them.
        let nth = |id: usize, next: usize| {
            let node = &self.nodes[id];
            node.in_place
                .get(next)
                .copied()
                .or_else(|| node.descend.get(next - node.in_place.len()).map(|(_, child)| *child))
        };
        let mut size = vec![UNSEEN; self.nodes.len()];
        let mut stack = vec![(0, 0)];
        size[0] = ON_PATH;
        while let Some(top) = stack.last_mut() {
            let (id, next) = *top;
            if let Some(child) = nth(id, next) {
                top.1 += 1;
                if size[child] == UNSEEN {
                    size[child] = ON_PATH;
                    stack.push((child, 0));
                }
                continue;
            }
            stack.pop();
            // A child still on the path is a recursive `$ref`: one node, not a copy.
            let total = children(id).fold(1u64, |sum, c| match size[c] {
                ON_PATH => sum.saturating_add(1),
                known => sum.saturating_add(known),
            });
            if total > MAX_COPIED {
                return Err(format!("its $refs make more than {MAX_COPIED} copies of subschemas to compile"));
            }
            size[id] = total;
        }
        Ok(size[0])
    }
}

/// The steps [`Graph::follow_down`] has taken: each schema applied at a location, each
/// edge looked at, each schema applied below. A schema of a few hundred kilobytes can
/// otherwise ask billions of them (thousands of applications of a subschema with
/// hundreds of members).
struct Steps(usize);

impl Steps {
    /// Takes one step; an error past [`MAX_STEPS`].
    fn take(&mut self) -> Result<(), String> {
        self.0 += 1;
        match self.0 > MAX_STEPS {
            true => Err(format!("it takes more than {MAX_STEPS} steps to analyse")),
            false => Ok(()),
        }
    }
}

fn too_costly(total: u64) -> String {
    format!("checking one value against it could take {total} schema evaluations (at most {MAX_APPLIED})")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use serde_json::json;

    use super::*;

    #[test]
    fn ordinary_and_recursive_schemas_are_bounded() {
        for schema in [
            json!({ "type": "object", "properties": { "a": { "type": "string" }, "b": { "anyOf": [{ "type": "integer" }, { "type": "null" }] } }, "required": ["a"] }),
            // A tree: the same node below, once per level.
            json!({ "$ref": "#/$defs/node", "$defs": { "node": { "type": "object", "properties": {
                "value": { "type": "integer" },
                "children": { "type": "array", "items": { "$ref": "#/$defs/node" } } } } } }),
            json!({ "$defs": { "n": { "$anchor": "num", "type": "number" } }, "properties": { "x": { "$ref": "#num" } } }),
            json!({ "properties": { "a/b": { "type": "string" }, "c": { "$ref": "#/properties/a~1b" } } }),
            // A map of maps: a named member is not also an "additional" one.
            json!({ "$defs": { "m": { "type": "object", "properties": { "meta": { "$ref": "#/$defs/m" } },
                "additionalProperties": { "$ref": "#/$defs/m" } } }, "$ref": "#/$defs/m" }),
            json!(true),
            // An expression tree: each position of a tuple holds one expression, however
            // many positions there are.
            json!({ "$defs": { "e": { "oneOf": [
                { "type": "object", "properties": { "Num": { "type": "integer" } } },
                { "type": "object", "properties": { "Add": { "type": "array",
                    "prefixItems": [{ "$ref": "#/$defs/e" }, { "$ref": "#/$defs/e" }, { "$ref": "#/$defs/e" }] } } }
            ] } }, "$ref": "#/$defs/e" }),
        ] {
            assert_eq!(unbounded(&schema), None, "{schema}");
        }
    }

    #[test]
    fn a_ref_back_to_itself_without_stepping_into_the_value_is_unbounded() {
        for schema in [
            json!({ "$defs": { "a": { "anyOf": [{ "$ref": "#/$defs/a" }, { "type": "string" }] } }, "$ref": "#/$defs/a" }),
            json!({ "allOf": [{ "$ref": "#" }] }),
            json!({ "$defs": { "a": { "$anchor": "A", "not": { "$ref": "#A" } } } }),
        ] {
            let why = unbounded(&schema).unwrap_or_else(|| panic!("{schema}"));
            assert!(why.contains("back to itself"), "{why}");
        }
    }

    #[test]
    fn composition_that_doubles_per_level_is_unbounded() {
        // Within one location: oneOf of two refs to the level below, 24 levels.
        let mut defs = serde_json::Map::new();
        defs.insert("l0".into(), json!({ "type": "integer" }));
        for i in 1..=24 {
            let below = format!("#/$defs/l{}", i - 1);
            defs.insert(format!("l{i}"), json!({ "oneOf": [{ "$ref": below }, { "$ref": below }] }));
        }
        let why = unbounded(&json!({ "$defs": defs, "$ref": "#/$defs/l24" })).unwrap();
        assert!(why.contains("schema evaluations"), "{why}");
        // Across locations: each level down applies the node twice more.
        let doubling = json!({ "$defs": { "a": { "anyOf": [
            { "properties": { "x": { "$ref": "#/$defs/a" } } },
            { "properties": { "x": { "$ref": "#/$defs/a" } } } ] } }, "$ref": "#/$defs/a" });
        let why = unbounded(&doubling).unwrap();
        assert!(why.contains("schema evaluations"), "{why}");
    }

    #[test]
    fn regular_expressions_count_for_more_and_are_bounded_in_number() {
        let patterns = |n: usize| {
            let all: Vec<Value> = (0..n).map(|i| json!({ "pattern": format!("^a{i}") })).collect();
            json!({ "properties": { "x": { "allOf": all } } })
        };
        assert_eq!(unbounded(&patterns(150)), None);
        let why = unbounded(&patterns(250)).unwrap();
        assert!(why.contains("schema evaluations"), "{why}");
        let many: serde_json::Map<String, Value> =
            (0..501).map(|i| (format!("p{i}"), json!({ "pattern": "^a" }))).collect();
        let why = unbounded(&json!({ "properties": many })).unwrap();
        assert!(why.contains("more than 500 regular expressions"), "{why}");
    }

    /// A server's regular expressions are bounded in length too, before any is compiled:
    /// a 5 MB `pattern` took seconds to be refused by the regex compiler's size limit
    /// (the client's runtime thread held all along), with the whole pattern in the
    /// reason every call of the tool then failed with.
    #[test]
    fn regular_expressions_are_bounded_in_length() {
        let huge = "a".repeat(5 << 20);
        for schema in [
            json!({ "properties": { "x": { "type": "string", "pattern": huge } } }),
            json!({ "patternProperties": { huge.clone(): { "type": "string" } } }),
            json!({ "properties": { "x": { "allOf": vec![json!({ "pattern": "a".repeat(40_000) }); 2] } } }),
        ] {
            let started = std::time::Instant::now();
            let why = unbounded(&schema).unwrap_or_default();
            assert!(
                why.contains("bytes of regular expressions") && why.len() < 200,
                "{}",
                &why[..why.len().min(200)]
            );
            assert!(started.elapsed() < std::time::Duration::from_secs(1));
        }
        let fine =
            json!({ "properties": { "x": { "pattern": "^[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}$" } } });
        assert_eq!(unbounded(&fine), None);
    }

    /// Runs [`unbounded`] on a thread of its own and waits for it at most a minute: an
    /// analysis still running by then is taken as one that would not end.
    fn analysed_within_a_minute(schema: Value) -> Option<String> {
        let (done, result) = std::sync::mpsc::channel();
        std::thread::spawn(move || done.send(unbounded(&schema)));
        result
            .recv_timeout(std::time::Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("the analysis did not end within a minute"))
    }

    /// A small schema (150 KB) that applies one subschema of 900 named members and an
    /// `additionalProperties` 4,000 times over at the root (each application checks it
    /// once: within the bound) asked billions of steps of the analysis itself, once per
    /// application and per member pair, on the thread that listed the tools. The analysis
    /// takes each schema that applies at a location once, counted, and its steps are
    /// bounded: it ends at once (refusing the schema for the copies its `$ref`s make).
    #[test]
    fn the_analysis_itself_is_bounded_in_steps() {
        let members: serde_json::Map<String, Value> =
            (0..900).map(|i| (i.to_string(), json!(true))).collect();
        let applied = json!({ "properties": members, "additionalProperties": true });
        let refs = vec![json!({ "$ref": "#/$defs/d" }); 4000];
        let schema = json!({ "type": "object", "allOf": refs, "$defs": { "d": applied } });
        let why = analysed_within_a_minute(schema).unwrap_or_default();
        assert!(why.contains("copies of subschemas"), "{why}");
        // Distinct subschemas, each with an `additionalProperties`, beside many named
        // members: each unnamed member's schema applies to every named one. Refused once
        // the analysis passes its steps, not after them all.
        let others: Vec<Value> = (0..2500).map(|_| json!({ "additionalProperties": {} })).collect();
        let members: serde_json::Map<String, Value> =
            (0..900).map(|i| (i.to_string(), json!(true))).collect();
        let schema = json!({ "allOf": others, "properties": members });
        let why = analysed_within_a_minute(schema).unwrap_or_default();
        assert!(why.contains("steps to analyse"), "{why}");
    }

    /// A validator compiles a `$ref` by copying the subschema it names to where it is
    /// used (a recursive one excepted): a 30 KB schema applying, 4,000 times over, one of
    /// 450 members that each name another of 450 was compiled to over a gigabyte. The
    /// schema as its compiler would copy it is bounded; a shared definition used a few
    /// times, and a recursive one, are not near the bound.
    #[test]
    fn refs_copied_where_they_are_used_are_bounded() {
        let members = |each: Value| -> Value {
            Value::Object((0..450).map(|i| (i.to_string(), each.clone())).collect())
        };
        let d = json!({ "properties": members(json!({ "$ref": "#/$defs/e" })) });
        let e = json!({ "properties": members(json!({ "type": "string" })) });
        let refs = vec![json!({ "$ref": "#/$defs/d" }); 4000];
        let schema = json!({ "allOf": refs, "$defs": { "d": d, "e": e } });
        let why = analysed_within_a_minute(schema).unwrap_or_default();
        assert!(why.contains("copies of subschemas"), "{why}");
        let shared = json!({ "$defs": { "p": { "type": "object", "properties": {
            "x": { "type": "number" }, "y": { "type": "number" } } } },
            "properties": members(json!({ "$ref": "#/$defs/p" })) });
        assert_eq!(unbounded(&shared), None);
    }

    #[test]
    fn refs_that_cannot_be_followed_are_refused() {
        for (schema, words) in [
            (json!({ "$ref": "#/$defs/missing" }), "names no subschema"),
            (json!({ "$dynamicRef": "#meta" }), "$dynamicRef"),
            (json!({ "properties": { "a": { "$id": "https://x/a", "type": "string" } } }), "$id"),
        ] {
            let why = unbounded(&schema).unwrap_or_else(|| panic!("{schema}"));
            assert!(why.contains(words), "{why}");
        }
    }
}
