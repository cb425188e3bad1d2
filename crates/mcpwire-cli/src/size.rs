//! `--max-message-size`: byte sizes as people write them (`16M`, `64MiB`, `1G`, `500000`).

/// The default limit: 16 MiB, the SDK's own default for stdio lines and HTTP bodies.
pub const DEFAULT_MAX_MESSAGE: &str = "16MiB";

/// Parses a size: a whole number of bytes, or one with a `K`, `M` or `G` suffix (binary
/// multiples; `KB`/`KiB`, `MB`/`MiB`, `GB`/`GiB` mean the same), at least 1 KiB.
pub fn parse_size(text: &str) -> Result<usize, String> {
    let t = text.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(digits);
    let number: usize = number
        .parse()
        .map_err(|_| format!("invalid size {text:?}: write bytes, or a number with K, M or G"))?;
    let multiple: usize = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        other => return Err(format!("invalid size unit {other:?} in {text:?}: use K, M or G")),
    };
    let bytes = number.checked_mul(multiple).ok_or_else(|| format!("size {text:?} is too large"))?;
    if bytes < 1024 {
        return Err(format!("size {text:?} is too small: give at least 1K"));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("16MiB"), Ok(16 << 20));
        assert_eq!(parse_size("64M"), Ok(64 << 20));
        assert_eq!(parse_size("1g"), Ok(1 << 30));
        assert_eq!(parse_size("2048"), Ok(2048));
        assert!(parse_size("12").is_err());
        assert!(parse_size("5 parsecs").is_err());
        assert!(parse_size("M").is_err());
    }
}
