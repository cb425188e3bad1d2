//! The `WWW-Authenticate` challenge of a protected MCP server (RFC 6750, RFC 9728, and
//! the `DPoP` scheme of RFC 9449 §7.1): where its resource metadata is, which scope it
//! wants, and why it refused.

/// A parsed `Bearer` (or `DPoP`) challenge.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Challenge {
    /// `resource_metadata`: the URL of the Protected Resource Metadata.
    pub resource_metadata: Option<String>,
    /// `scope`: the scopes the request needs.
    pub scope: Option<String>,
    /// `error` (for example `invalid_token` or `insufficient_scope`).
    pub error: Option<String>,
    /// Whether the header offers the `DPoP` scheme: the server takes DPoP-bound tokens.
    pub dpop: bool,
}

impl Challenge {
    /// Parses the `Bearer` challenge of a `WWW-Authenticate` header value, completed by
    /// the `DPoP` challenge's parameters when both are present (a DPoP-protected server
    /// may send only `DPoP`). Other schemes are skipped. Quoted values may contain commas
    /// and escapes. `None` when neither scheme is there.
    pub fn parse(header: &str) -> Option<Challenge> {
        let bearer = Self::parse_scheme(header, "bearer");
        let dpop = Self::parse_scheme(header, "dpop");
        let offers_dpop = dpop.is_some();
        let challenge = match (bearer, dpop) {
            (Some(mut b), Some(d)) => {
                b.resource_metadata = b.resource_metadata.or(d.resource_metadata);
                b.scope = b.scope.or(d.scope);
                b.error = b.error.or(d.error);
                Some(b)
            }
            (b, d) => b.or(d),
        };
        challenge.map(|c| Challenge { dpop: offers_dpop, ..c })
    }

    /// Parses the challenges of every `WWW-Authenticate` header of a response, as one
    /// list (RFC 9110 §11.6.1 lets a server split its challenges over several headers:
    /// `Bearer` in the second is still `Bearer`). Values that are not text are skipped.
    pub fn from_headers(headers: &http::HeaderMap) -> Option<Challenge> {
        let values = headers.get_all(http::header::WWW_AUTHENTICATE).iter().filter_map(|v| v.to_str().ok());
        Self::parse(&values.collect::<Vec<_>>().join(", "))
    }

    fn parse_scheme(header: &str, scheme: &str) -> Option<Challenge> {
        let start = find_scheme(header, scheme)?;
        let mut rest = header[start + scheme.len()..].trim_start();
        let mut challenge = Challenge::default();
        while !rest.is_empty() {
            let Some(eq) = rest.find('=') else { break };
            let key = rest[..eq].trim().trim_start_matches(',').trim().to_ascii_lowercase();
            if key.contains(' ') {
                break; // the next scheme begins
            }
            rest = rest[eq + 1..].trim_start();
            let value;
            if let Some(quoted) = rest.strip_prefix('"') {
                let mut out = String::new();
                let mut chars = quoted.char_indices();
                let mut end = quoted.len();
                while let Some((i, c)) = chars.next() {
                    match c {
                        '\\' => {
                            if let Some((_, escaped)) = chars.next() {
                                out.push(escaped);
                            }
                        }
                        '"' => {
                            end = i + 1;
                            break;
                        }
                        other => out.push(other),
                    }
                }
                value = out;
                rest = quoted[end..].trim_start();
            } else {
                let end = rest.find(',').unwrap_or(rest.len());
                value = rest[..end].trim().to_owned();
                rest = &rest[end..];
            }
            rest = rest.trim_start_matches(',').trim_start();
            match key.as_str() {
                "resource_metadata" => challenge.resource_metadata = Some(value),
                "scope" => challenge.scope = Some(value),
                "error" => challenge.error = Some(value),
                _ => {}
            }
        }
        Some(challenge)
    }
}

/// The byte offset of an auth scheme name in a challenge list (case-insensitive, as a
/// whole word).
fn find_scheme(header: &str, scheme: &str) -> Option<usize> {
    let lower = header.to_ascii_lowercase();
    let mut from = 0;
    while let Some(i) = lower[from..].find(scheme) {
        let at = from + i;
        let before_ok = at == 0 || matches!(lower.as_bytes()[at - 1], b' ' | b',');
        let after = lower.as_bytes().get(at + scheme.len());
        if before_ok && matches!(after, None | Some(b' ')) {
            return Some(at);
        }
        from = at + scheme.len();
    }
    None
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn parses_bearer_parameters() {
        let c = Challenge::parse(r#"Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/mcp""#).unwrap();
        assert_eq!(c.error.as_deref(), Some("insufficient_scope"));
        assert_eq!(c.scope.as_deref(), Some("files:read files:write"));
        assert_eq!(
            c.resource_metadata.as_deref(),
            Some("https://mcp.example/.well-known/oauth-protected-resource/mcp")
        );
        let c = Challenge::parse(r#"Basic realm="x", Bearer realm="a,b", scope=read"#).unwrap();
        assert_eq!(c.scope.as_deref(), Some("read"));
        assert_eq!(Challenge::parse("Bearer").unwrap(), Challenge::default());
        assert!(Challenge::parse("Basic realm=x").is_none());
        let c = Challenge::parse(r#"DPoP error="use_dpop_nonce", resource_metadata="http://h/prm""#).unwrap();
        assert_eq!(c.error.as_deref(), Some("use_dpop_nonce"));
        assert_eq!(c.resource_metadata.as_deref(), Some("http://h/prm"));
        let c = Challenge::parse(r#"Bearer scope="a", DPoP algs="ES256", error="use_dpop_nonce""#).unwrap();
        assert_eq!((c.scope.as_deref(), c.error.as_deref()), (Some("a"), Some("use_dpop_nonce")));
    }
}
