//! "Did you mean": the name closest to one the user mistyped, among those a server lists
//! (tools, prompts, resources, templates) or a schema allows.

/// The closest name (for "did you mean").
pub(crate) fn closest<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    fn distance(a: &str, b: &str) -> usize {
        let b: Vec<char> = b.chars().collect();
        let mut row: Vec<usize> = (0..=b.len()).collect();
        for (i, ca) in a.chars().enumerate() {
            let mut previous = row[0];
            row[0] = i + 1;
            for (j, cb) in b.iter().enumerate() {
                let current = row[j + 1];
                row[j + 1] = (previous + usize::from(ca != *cb)).min(row[j] + 1).min(current + 1);
                previous = current;
            }
        }
        row[b.len()]
    }
    candidates
        .map(|c| (distance(name, c), c))
        .filter(|(d, c)| *d <= (c.chars().count() / 3).max(2) || c.contains(name))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::closest;

    #[test]
    fn suggests_close_names() {
        let names = ["test_simple_text", "test_error_handling", "echo"];
        assert_eq!(closest("test_simple_txt", names.iter().copied()), Some("test_simple_text"));
        assert_eq!(closest("ech", names.iter().copied()), Some("echo"));
        assert_eq!(closest("zzzzzz", names.iter().copied()), None);
    }
}
