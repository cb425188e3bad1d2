//! Request checks that come before anything else: Host and Origin against allow-lists
//! (so DNS rebinding fails), `Content-Type`, the body's codings and `Accept`.

use http::{header, HeaderMap, Method, StatusCode, Uri};

/// Which `Host` and `Origin` values are accepted.
#[derive(Clone, Debug)]
pub struct HostPolicy {
    /// Accepted host names (without port), lowercase. `None` accepts any host; a
    /// browser's `Origin` must then name the request's own host (or be in `origins`), so
    /// a page of another site still cannot call the server.
    pub hosts: Option<Vec<String>>,
    /// Extra accepted origins (`scheme://host[:port]`), besides those whose host is an
    /// accepted host.
    pub origins: Vec<String>,
}

impl Default for HostPolicy {
    /// Loopback only: `localhost`, `127.0.0.1` and `[::1]`, any port.
    fn default() -> Self {
        HostPolicy {
            hosts: Some(vec!["localhost".into(), "127.0.0.1".into(), "[::1]".into()]),
            origins: Vec::new(),
        }
    }
}

/// Whether a host name (without port; an IPv6 literal in brackets or not) names this
/// machine: `localhost`, a `127.x` address or `::1`.
pub fn is_loopback_name(host: &str) -> bool {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || bare.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// The host part of `host[:port]` (IPv6 literals keep their brackets), in its own case
/// (hosts are compared ignoring case).
fn host_of(authority: &str) -> &str {
    let authority = authority.trim();
    let host = if authority.starts_with('[') {
        authority.find(']').map_or(authority, |i| &authority[..=i])
    } else {
        authority.rsplit_once(':').map_or(authority, |(h, port)| {
            if port.bytes().all(|b| b.is_ascii_digit()) {
                h
            } else {
                authority
            }
        })
    };
    host
}

/// The port of `host[:port]`, when it names one.
fn port_of(authority: &str) -> Option<u16> {
    let authority = authority.trim();
    authority[host_of(authority).len()..].strip_prefix(':').and_then(|port| port.parse().ok())
}

/// Whether two `host[:port]` authorities name the same host and port once normalized as
/// RFC 3986 §6.2.3 asks for `scheme` (host case ignored, a missing port is the scheme's
/// default).
fn same_authority(a: &str, b: &str, scheme: Option<&str>) -> bool {
    let default = if scheme.is_some_and(|s| s.eq_ignore_ascii_case("https")) { 443 } else { 80 };
    let port = |authority| port_of(authority).unwrap_or(default);
    host_of(a).eq_ignore_ascii_case(host_of(b)) && port(a) == port(b)
}

/// The authority a request is for: its `Host` header, else its URI's authority (HTTP/2
/// sends the host as `:authority`, which hyper puts in the URI, and usually no `Host`).
/// When both are there they must name the same host and port (RFC 9113 §8.3.1: a
/// request whose `Host` differs from its `:authority` is malformed), and there must be
/// one `Host` (RFC 9112 §3.2: more than one is a 400, whatever the values); `Err` is the
/// refusal's message.
fn request_authority<'a>(headers: &'a HeaderMap, uri: &'a Uri) -> Result<Option<&'a str>, &'static str> {
    let uri_authority = uri.authority().map(http::uri::Authority::as_str);
    let mut host_headers = headers.get_all(header::HOST).iter();
    let Some(host_header) = host_headers.next() else { return Ok(uri_authority) };
    if host_headers.next().is_some() {
        return Err("Bad Request: the Host header is repeated");
    }
    let host_header = host_header.to_str().ok();
    let disagree = "Host header and request authority disagree";
    match (host_header, uri_authority) {
        (Some(h), Some(u)) if !same_authority(h, u, uri.scheme_str()) => Err(disagree),
        (None, Some(_)) => Err(disagree),
        _ => Ok(host_header),
    }
}

/// The longest host a refusal quotes (a DNS name is at most 253 characters).
const QUOTED_HOST_MAX: usize = 255;

/// The message of a 421: the refused host (as much of it as [`QUOTED_HOST_MAX`] allows),
/// and what a server meant for that host sets.
fn host_refused(host: Option<&str>) -> String {
    // A header value read as text is visible ASCII: any byte is a character boundary.
    let host = host.map_or("(none)", |h| h.get(..QUOTED_HOST_MAX).unwrap_or(h));
    format!("Host not allowed: {host}; a server for other hosts sets HttpSettings::hosts")
}

impl HostPolicy {
    /// Any host (a server reachable beyond this machine, by whatever name its clients
    /// use); a browser's `Origin` must still name the request's own host.
    pub fn any_host() -> Self {
        HostPolicy { hosts: None, origins: Vec::new() }
    }

    /// Whether only loopback names are accepted (every accepted host is `localhost`, a
    /// `127.x` address or `[::1]`).
    pub fn is_loopback_only(&self) -> bool {
        self.hosts.as_ref().is_some_and(|hosts| hosts.iter().all(|h| is_loopback_name(h)))
    }

    fn host_allowed(&self, host: &str) -> bool {
        self.hosts.as_ref().is_none_or(|hosts| hosts.iter().any(|h| h.eq_ignore_ascii_case(host)))
    }

    /// Checks the request's host (421 when not accepted) and `Origin` (403 when present
    /// and not accepted: listed in `origins`, or naming an accepted host; with any host
    /// accepted, naming the request's own), the `Origin` first: a refused `Origin` is 403
    /// whatever the host. The host is the `Host` header, else the URI's authority
    /// (HTTP/2's `:authority`); a `Host` that disagrees with the URI's authority is a
    /// malformed request (400), as is a repeated `Host`. Two `Origin` headers are not one
    /// origin (a page sends one): 403, as an invalid one gets.
    ///
    /// The 421's message names the refused host and the setting that accepts it, since
    /// the usual cause is a server reached by a name its settings do not list.
    pub fn check(&self, headers: &HeaderMap, uri: &Uri) -> Result<(), (StatusCode, String)> {
        let authority = request_authority(headers, uri).map_err(|e| (StatusCode::BAD_REQUEST, e.into()))?;
        let host = authority.map(host_of);
        // The Origin first: a browser's request from another site (DNS rebinding names
        // that site in both headers) "MUST" get 403, not the Host's 421.
        let mut origins = headers.get_all(header::ORIGIN).iter();
        if let Some(origin) = origins.next() {
            if origins.next().is_some() {
                return Err((StatusCode::FORBIDDEN, "Origin not allowed".into()));
            }
            let origin = origin.to_str().unwrap_or("").trim();
            let listed = self.origins.iter().any(|o| o.eq_ignore_ascii_case(origin));
            let origin_host = origin.split_once("://").map(|(_, rest)| host_of(rest));
            let host_ok = origin_host.is_some_and(|o| match self.hosts {
                Some(_) => self.host_allowed(o),
                None => host.is_some_and(|h| h.eq_ignore_ascii_case(o)),
            });
            if !(listed || host_ok) {
                return Err((StatusCode::FORBIDDEN, "Origin not allowed".into()));
            }
        }
        if self.hosts.is_some() {
            match host {
                Some(h) if self.host_allowed(h) => {}
                _ => return Err((StatusCode::MISDIRECTED_REQUEST, host_refused(host))),
            }
        }
        Ok(())
    }
}

/// An `Accept` item: its media type, and whether its parameters rate it at a quality of
/// zero, which says the type is *not* acceptable (RFC 9110 §12.4.2).
fn accept_item(item: &str) -> (&str, bool) {
    let mut parts = item.split(';');
    let media = parts.next().unwrap_or("").trim();
    let refused = parts.any(|p| {
        p.split_once('=').is_some_and(|(name, value)| {
            name.trim().eq_ignore_ascii_case("q") && value.trim().parse::<f32>().is_ok_and(|q| q == 0.0)
        })
    });
    (media, refused)
}

/// Whether a header lists a media type (ignoring parameters and case), or `*/*`, at a
/// quality above zero; the type itself at `q=0` is refused even beside `*/*`.
pub fn accepts(headers: &HeaderMap, media: &str) -> bool {
    let (mut listed, mut refused) = (false, false);
    let items =
        headers.get_all(header::ACCEPT).iter().filter_map(|v| v.to_str().ok()).flat_map(|v| v.split(','));
    for item in items {
        let (item, zero) = accept_item(item);
        if item.eq_ignore_ascii_case(media) {
            refused |= zero;
            listed |= !zero;
        } else if item == "*/*" {
            listed |= !zero;
        }
    }
    listed && !refused
}

/// [`accepts`] for `application/json` and `text/event-stream` at once, in one pass over
/// the `Accept` headers (a POST needs both answers).
pub fn accepts_json_and_sse(headers: &HeaderMap) -> (bool, bool) {
    // What clients send (the spec's own example), recognised without splitting it.
    const USUAL: &[u8] = b"application/json, text/event-stream";
    let mut values = headers.get_all(header::ACCEPT).iter();
    if let (Some(only), None) = (values.next(), values.next()) {
        if only.as_bytes() == USUAL {
            return (true, true);
        }
    }
    // Listed (above `q=0`), refused (at `q=0`), for each; and a wildcard above `q=0`.
    let (mut json, mut sse, mut any) = ((false, false), (false, false), false);
    let items =
        headers.get_all(header::ACCEPT).iter().filter_map(|v| v.to_str().ok()).flat_map(|v| v.split(','));
    for item in items {
        let (item, zero) = accept_item(item);
        let which = if item.eq_ignore_ascii_case("application/json") {
            &mut json
        } else if item.eq_ignore_ascii_case("text/event-stream") {
            &mut sse
        } else {
            any |= item == "*/*" && !zero;
            continue;
        };
        which.0 |= !zero;
        which.1 |= zero;
    }
    ((json.0 || any) && !json.1, (sse.0 || any) && !sse.1)
}

/// Checks a POST's `Content-Type`: 415 unless JSON, 400 when repeated. It is a singleton
/// field (RFC 9110 §8.3): two values, alike or not, do not say what the body is, and a
/// proxy in front that read the other one would have checked another media type.
pub fn check_content_type(method: &Method, headers: &HeaderMap) -> Result<(), (StatusCode, &'static str)> {
    if method != Method::POST {
        return Ok(());
    }
    let mut values = headers.get_all(header::CONTENT_TYPE).iter();
    let first = values.next();
    if values.next().is_some() {
        return Err((StatusCode::BAD_REQUEST, "Bad Request: the Content-Type header is repeated"));
    }
    // What clients send, recognised without splitting it; then the general reading
    // (parameters, spaces, any letter case).
    let ok = first.is_some_and(|v| {
        v.as_bytes() == b"application/json"
            || v.to_str().is_ok_and(|v| {
                v.split(';').next().unwrap_or("").trim().eq_ignore_ascii_case("application/json")
            })
    });
    if ok {
        Ok(())
    } else {
        Err((StatusCode::UNSUPPORTED_MEDIA_TYPE, "Content-Type must be application/json"))
    }
}

/// Whether any value of the list header `name` names a coding other than `allowed`
/// (ignoring case; a value that is not text names one the endpoint does not know).
fn codes_other_than(headers: &HeaderMap, name: header::HeaderName, allowed: &str) -> bool {
    headers.get_all(name).iter().any(|v| {
        v.to_str().map_or(true, |codings| {
            codings.split(',').map(str::trim).any(|c| !c.is_empty() && !c.eq_ignore_ascii_case(allowed))
        })
    })
}

/// Checks the codings of a POST's body (`Err`: the refusal's status and message). The
/// endpoint reads bodies as they come: under a content coding other than `identity` a
/// body is refused as unsupported (415, RFC 9110 §15.5.16) rather than read as JSON,
/// which it is not; a transfer coding besides `chunked` (which hyper takes off, leaving
/// the others on) is one the endpoint does not implement (501, RFC 9112 §6.1).
pub fn check_codings(headers: &HeaderMap) -> Result<(), (StatusCode, &'static str)> {
    if codes_other_than(headers, header::CONTENT_ENCODING, "identity") {
        let message = "Content-Encoding is not supported: send the body without a content coding";
        return Err((StatusCode::UNSUPPORTED_MEDIA_TYPE, message));
    }
    if codes_other_than(headers, header::TRANSFER_ENCODING, "chunked") {
        let message = "Transfer-Encoding other than chunked is not implemented";
        return Err((StatusCode::NOT_IMPLEMENTED, message));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use http::HeaderValue;

    /// An origin-form request target (HTTP/1.1's usual): no authority in the URI.
    fn path() -> Uri {
        Uri::from_static("/mcp")
    }

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn the_default_policy_is_loopback_only_and_any_host_is_not() {
        assert!(HostPolicy::default().is_loopback_only());
        assert!(!HostPolicy::any_host().is_loopback_only());
        let lan =
            HostPolicy { hosts: Some(vec!["localhost".into(), "mcp.example.com".into()]), origins: vec![] };
        assert!(!lan.is_loopback_only());
        let any = HostPolicy::any_host();
        assert!(any.check(&headers(&[("host", "mcp.example.com:8080")]), &path()).is_ok());
        let foreign = headers(&[("host", "mcp.example.com"), ("origin", "https://evil.example")]);
        assert_eq!(any.check(&foreign, &path()).unwrap_err().0, StatusCode::FORBIDDEN);
    }

    #[test]
    fn json_content_types_pass_in_any_spelling_and_others_fail() {
        let post = |ct: &'static str| check_content_type(&Method::POST, &headers(&[("content-type", ct)]));
        for ct in [
            "application/json",
            "Application/JSON",
            " application/json ; charset=utf-8",
            "application/json;x=1",
        ] {
            assert!(post(ct).is_ok(), "{ct:?}");
        }
        for ct in ["application/jsonx", "text/plain", "application/json-seq", "", "application/ json"] {
            assert_eq!(post(ct).unwrap_err().0, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{ct:?}");
        }
        assert!(check_content_type(&Method::POST, &HeaderMap::new()).is_err());
        assert!(check_content_type(&Method::GET, &HeaderMap::new()).is_ok());
        let twice = headers(&[("content-type", "application/json"), ("content-type", "application/json")]);
        assert_eq!(check_content_type(&Method::POST, &twice).unwrap_err().0, StatusCode::BAD_REQUEST);
    }

    #[test]
    fn only_the_identity_content_coding_and_chunked_transfer_coding_pass() {
        let with = |values: &[&'static str]| {
            check_codings(&headers(&values.iter().map(|v| ("content-encoding", *v)).collect::<Vec<_>>()))
        };
        for ok in [&[][..], &["identity"], &["IDENTITY"], &[""], &["identity, identity"], &[" ", "identity"]]
        {
            assert!(with(ok).is_ok(), "{ok:?}");
        }
        for coded in
            [&["gzip"][..], &["identity", "br"], &["identity, deflate"], &["x-gzip"], &["gzip, identity"]]
        {
            assert!(with(coded).is_err(), "{coded:?}");
        }
        let mut h = HeaderMap::new();
        h.insert(header::CONTENT_ENCODING, HeaderValue::from_bytes(b"gz\xefp").unwrap());
        assert!(check_codings(&h).is_err(), "not text");
        let te = |v: &'static str| check_codings(&headers(&[("transfer-encoding", v)])).map_err(|e| e.0);
        assert_eq!(te("chunked"), Ok(()));
        assert_eq!(te("Chunked"), Ok(()));
        assert_eq!(te("gzip, chunked"), Err(StatusCode::NOT_IMPLEMENTED));
    }

    #[test]
    fn loopback_hosts_pass_and_others_fail() {
        let p = HostPolicy::default();
        for ok in ["localhost:3000", "127.0.0.1:8080", "[::1]:9", "LOCALHOST", "127.0.0.1"] {
            let mut h = HeaderMap::new();
            h.insert(header::HOST, HeaderValue::from_str(ok).unwrap());
            assert!(p.check(&h, &path()).is_ok(), "{ok}");
        }
        assert_eq!(
            p.check(&headers(&[("host", "evil.example:80")]), &path()).unwrap_err().0,
            StatusCode::MISDIRECTED_REQUEST
        );
        assert_eq!(p.check(&HeaderMap::new(), &path()).unwrap_err().0, StatusCode::MISDIRECTED_REQUEST);
        assert_eq!(
            p.check(&headers(&[("host", "localhost:1"), ("origin", "http://evil.example")]), &path())
                .unwrap_err()
                .0,
            StatusCode::FORBIDDEN
        );
        assert!(p
            .check(&headers(&[("host", "localhost:1"), ("origin", "http://localhost:5173")]), &path())
            .is_ok());
        assert!(HostPolicy { hosts: None, origins: vec![] }
            .check(&headers(&[("host", "any.example")]), &path())
            .is_ok());
    }

    #[test]
    fn with_any_host_accepted_an_origin_must_be_the_requests_own() {
        let any = HostPolicy { hosts: None, origins: vec!["https://app.example".into()] };
        let check =
            |pairs: &[(&'static str, &'static str)]| any.check(&headers(pairs), &path()).map_err(|e| e.0);
        assert!(check(&[("host", "mcp.example:8080"), ("origin", "https://MCP.example")]).is_ok());
        assert!(check(&[("host", "mcp.example"), ("origin", "https://app.example")]).is_ok(), "listed");
        assert!(check(&[("host", "mcp.example")]).is_ok(), "no Origin: not a browser");
        assert_eq!(
            check(&[("host", "mcp.example"), ("origin", "https://evil.example")]),
            Err(StatusCode::FORBIDDEN)
        );
        assert_eq!(
            check(&[("origin", "https://mcp.example")]),
            Err(StatusCode::FORBIDDEN),
            "no Host to match"
        );
        assert_eq!(check(&[("host", "mcp.example"), ("origin", "null")]), Err(StatusCode::FORBIDDEN));
        let origin = ("origin", "https://mcp.example");
        assert_eq!(check(&[("host", "mcp.example"), origin, origin]), Err(StatusCode::FORBIDDEN), "repeated");
        let hosts = [("host", "mcp.example"), ("host", "mcp.example")];
        assert_eq!(check(&hosts), Err(StatusCode::BAD_REQUEST), "a repeated Host");
    }

    #[test]
    fn without_a_host_header_the_uris_authority_is_the_host() {
        let h2 = |authority: &str| Uri::try_from(format!("http://{authority}/mcp")).unwrap();
        let p = HostPolicy::default();
        assert!(p.check(&HeaderMap::new(), &h2("localhost:8080")).is_ok());
        assert!(p.check(&HeaderMap::new(), &h2("[::1]:9")).is_ok());
        let refused = p.check(&HeaderMap::new(), &h2("evil.example:8080")).unwrap_err();
        assert_eq!(refused.0, StatusCode::MISDIRECTED_REQUEST);
        let any = HostPolicy::any_host();
        let origin = headers(&[("origin", "https://mcp.example")]);
        assert!(any.check(&origin, &h2("mcp.example:8443")).is_ok(), "the Origin names the request's host");
        let foreign = headers(&[("origin", "https://evil.example")]);
        assert_eq!(any.check(&foreign, &h2("mcp.example")).unwrap_err().0, StatusCode::FORBIDDEN);
    }

    #[test]
    fn a_host_header_must_agree_with_the_uris_authority() {
        let uri = |u: &'static str| Uri::from_static(u);
        let p = HostPolicy::any_host();
        let agree = [
            ("localhost:80", "http://LOCALHOST/mcp"),
            ("localhost", "http://localhost:80/mcp"),
            ("mcp.example", "https://mcp.example:443/mcp"),
            ("[::1]:9", "http://[::1]:9/mcp"),
        ];
        for (host, u) in agree {
            let h = headers(&[("host", host)]);
            assert!(p.check(&h, &uri(u)).is_ok(), "{host} {u}");
        }
        let disagree = [
            ("localhost", "http://evil.example/mcp"),
            ("localhost:8080", "http://localhost:8081/mcp"),
            ("localhost:80", "https://localhost/mcp"),
            ("evil.example", "http://localhost/mcp"),
        ];
        for (host, u) in disagree {
            let h = headers(&[("host", host)]);
            assert_eq!(p.check(&h, &uri(u)).unwrap_err().0, StatusCode::BAD_REQUEST, "{host} {u}");
        }
    }

    #[test]
    fn accept_lists_are_parsed() {
        let h = headers(&[("accept", "application/json, text/event-stream;q=0.9")]);
        assert!(accepts(&h, "application/json") && accepts(&h, "text/event-stream"));
        assert!(!accepts(&headers(&[("accept", "text/html")]), "application/json"));
        assert!(accepts(&headers(&[("accept", "*/*")]), "text/event-stream"));
        // A quality of zero refuses the type, even beside a wildcard.
        assert!(!accepts(&headers(&[("accept", "text/event-stream; Q=0.000, */*")]), "text/event-stream"));
        assert!(!accepts(&headers(&[("accept", "*/*;q=0")]), "text/event-stream"));
        assert!(accepts(&headers(&[("accept", "*/*;q=0, text/event-stream;q=0.001")]), "text/event-stream"));
    }

    #[test]
    fn both_media_types_are_read_in_one_pass_as_accepts_reads_each() {
        let cases: &[&[&'static str]] = &[
            &["application/json, text/event-stream"],
            &["Application/JSON;q=1", "TEXT/EVENT-STREAM ; q=0.5"],
            &["text/event-stream"],
            &["application/json"],
            &["text/html, */*;q=0.1"],
            &["application/jsonx, text/event-streams"],
            &[" application/json ,text/event-stream", "text/html"],
            &[],
            &[""],
            &["application/json;q=0, text/event-stream"],
            &["*/*;q=0", "application/json"],
            &["text/event-stream;q=0.0, */*"],
            &["application/json;q=0;level=1, application/json, */*"],
        ];
        for values in cases {
            let h = headers(&values.iter().map(|v| ("accept", *v)).collect::<Vec<_>>());
            let each = (accepts(&h, "application/json"), accepts(&h, "text/event-stream"));
            assert_eq!(accepts_json_and_sse(&h), each, "{values:?}");
        }
        let mut h = HeaderMap::new();
        h.insert(header::ACCEPT, HeaderValue::from_bytes(b"application/json, \xff").unwrap());
        h.append(header::ACCEPT, HeaderValue::from_static("text/event-stream"));
        assert_eq!(accepts_json_and_sse(&h), (accepts(&h, "application/json"), true));
    }
}
