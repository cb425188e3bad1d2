//! The string formats an elicitation form may ask for (`format` in a form's string
//! field: `email`, `uri`, `date`, `date-time`), checked as the user types an answer.

/// The string formats an elicitation form may ask for (2025-06-18 and later).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextFormat {
    /// `email`: an address.
    Email,
    /// `uri`: a scheme and the rest.
    Uri,
    /// `date`: `YYYY-MM-DD`.
    Date,
    /// `date-time`: RFC 3339.
    DateTime,
}

impl TextFormat {
    /// The format a schema's `format` names, if it is one of these.
    pub fn named(name: &str) -> Option<Self> {
        match name {
            "email" => Some(TextFormat::Email),
            "uri" => Some(TextFormat::Uri),
            "date" => Some(TextFormat::Date),
            "date-time" => Some(TextFormat::DateTime),
            _ => None,
        }
    }

    /// What the field takes, for its prompt and for a refused answer.
    pub fn described(self) -> &'static str {
        match self {
            TextFormat::Email => "an email address",
            TextFormat::Uri => "a URI, such as https://example.com/",
            TextFormat::Date => "a date, YYYY-MM-DD",
            TextFormat::DateTime => "a date and time, such as 2026-07-28T09:30:00Z",
        }
    }

    /// Whether `text` has the format's shape (what a form can check without a network:
    /// no address is looked up).
    pub fn accepts(self, text: &str) -> bool {
        if text.chars().any(char::is_whitespace) {
            return false;
        }
        match self {
            TextFormat::Email => match text.rsplit_once('@') {
                Some((local, domain)) => {
                    !local.is_empty()
                        && !domain.starts_with('.')
                        && domain.contains('.')
                        && !domain.ends_with('.')
                }
                None => false,
            },
            TextFormat::Uri => match text.split_once(':') {
                Some((scheme, rest)) => {
                    scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
                        && !rest.is_empty()
                }
                None => false,
            },
            TextFormat::Date => is_date(text),
            TextFormat::DateTime => match text.split_once(['T', 't']) {
                Some((date, time)) => is_date(date) && is_time(time),
                None => false,
            },
        }
    }
}

/// `YYYY-MM-DD`, a day that exists.
fn is_date(text: &str) -> bool {
    let parts: Vec<&str> = text.split('-').collect();
    let [y, m, d] = parts.as_slice() else { return false };
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    if !(digits(y, 4) && digits(m, 2) && digits(d, 2)) {
        return false;
    }
    let (year, month, day): (u32, u32, u32) =
        (y.parse().unwrap_or(0), m.parse().unwrap_or(0), d.parse().unwrap_or(0));
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// RFC 3339's `HH:MM:SS[.frac]` and an offset (`Z` or `+HH:MM`/`-HH:MM`).
fn is_time(text: &str) -> bool {
    let (clock, offset) = match text.find(['Z', 'z', '+', '-']) {
        Some(i) => text.split_at(i),
        None => return false,
    };
    let two = |s: &str, max: u32| {
        s.len() == 2 && s.bytes().all(|b| b.is_ascii_digit()) && s.parse::<u32>().is_ok_and(|n| n <= max)
    };
    let (whole, fraction) = clock.split_once('.').unwrap_or((clock, "0"));
    let hms: Vec<&str> = whole.split(':').collect();
    let clock_ok = matches!(hms.as_slice(), [h, m, s] if two(h, 23) && two(m, 59) && two(s, 60))
        && !fraction.is_empty()
        && fraction.bytes().all(|b| b.is_ascii_digit());
    let offset_ok = match offset {
        "Z" | "z" => true,
        _ => matches!(offset[1..].split_once(':'), Some((h, m)) if two(h, 23) && two(m, 59)),
    };
    clock_ok && offset_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_format_takes_its_shape_and_refuses_a_near_miss() {
        for (format, good, bad) in [
            (TextFormat::Email, "a.b+c@mail.example.org", "a@b"),
            (TextFormat::Uri, "urn:isbn:0451450523", "://x"),
            (TextFormat::Date, "2000-02-29", "1900-02-29"),
            (TextFormat::DateTime, "2026-07-28T23:59:60Z", "2026-07-28T24:00:00Z"),
        ] {
            assert!(format.accepts(good) && !format.accepts(bad), "{format:?}: {good} / {bad}");
        }
    }
}
