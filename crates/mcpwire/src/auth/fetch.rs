//! The small HTTP toolkit the OAuth client needs: JSON GETs, form and JSON POSTs, a GET
//! that does not follow redirects, and URL/form encoding.

use bytes::Bytes;
use http::{header, Method, Request, StatusCode, Uri};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;

use super::AuthError;
use crate::transport::http_client::Connector;

/// The largest metadata or token response read (1 MiB).
const MAX_BODY: usize = 1024 * 1024;

/// How long one exchange may take, its body included: a server that sends its answer a
/// byte at a time cannot hold a login (or a verifier's key fetch) forever.
const EXCHANGE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// The longest part of a server's string an error quotes, in characters.
const MAX_QUOTED: usize = 256;

/// A string from a server (a URL it named, a value of its metadata) as an error quotes
/// it: in quotes, escaped (no control character reaches a terminal or a log line) and
/// cut to [`MAX_QUOTED`] characters.
pub(crate) fn quoted(s: &str) -> String {
    let cut: String = s.chars().take(MAX_QUOTED).collect();
    match cut.len() < s.len() {
        true => format!("{cut:?}…"),
        false => format!("{cut:?}"),
    }
}

#[derive(Clone)]
pub(crate) struct Fetcher {
    /// The client, or why none could be made (said at the first request).
    http: Result<HyperClient<Connector, Full<Bytes>>, String>,
}

impl Default for Fetcher {
    fn default() -> Self {
        let mut connector = HttpConnector::new();
        connector.set_nodelay(true);
        connector.set_connect_timeout(Some(std::time::Duration::from_secs(10)));
        let http = connector_for(connector).map(|c| HyperClient::builder(TokioExecutor::new()).build(c));
        Fetcher { http }
    }
}

/// As the HTTP client transport connects: with the `tls` feature, TLS for `https://`
/// (trusting the roots it trusts by default) and plain TCP for `http://`.
#[cfg(feature = "tls")]
fn connector_for(http: HttpConnector) -> Result<Connector, String> {
    Ok(crate::transport::http_client::tls::Tls::new()?.connector(http))
}

#[cfg(not(feature = "tls"))]
fn connector_for(http: HttpConnector) -> Result<Connector, String> {
    Ok(http)
}

/// A response: status, `Location`, headers (`DPoP-Nonce`), body.
pub(crate) struct Fetched {
    pub(crate) status: StatusCode,
    pub(crate) location: Option<String>,
    pub(crate) headers: http::HeaderMap,
    pub(crate) body: Bytes,
}

impl Fetched {
    pub(crate) fn json(&self) -> Option<Value> {
        serde_json::from_slice(&self.body).ok()
    }
}

impl Fetcher {
    pub(crate) async fn send(
        &self,
        method: Method,
        url: &str,
        headers: &[(&str, String)],
        body: Option<(&'static str, Vec<u8>)>,
    ) -> Result<Fetched, AuthError> {
        let uri: Uri =
            url.parse().map_err(|_| AuthError::Protocol(format!("invalid URL {}", quoted(url))))?;
        let mut builder = Request::builder().method(method).uri(uri);
        if !headers.iter().any(|(name, _)| name.eq_ignore_ascii_case("accept")) {
            builder = builder.header(header::ACCEPT, "application/json");
        }
        for (name, value) in headers {
            builder = builder.header(*name, value.as_str());
        }
        let payload = match body {
            Some((content_type, bytes)) => {
                builder = builder.header(header::CONTENT_TYPE, content_type);
                Bytes::from(bytes)
            }
            None => Bytes::new(),
        };
        let request = builder.body(Full::new(payload)).map_err(|e| AuthError::Protocol(e.to_string()))?;
        let http = self
            .http
            .as_ref()
            .map_err(|e| AuthError::Http(format!("{}: no HTTP client: {e}", quoted(url))))?;
        let exchange = async {
            let response = http.request(request).await.map_err(|e| {
                AuthError::Http(format!("{}: {}", quoted(url), crate::error::error_chain(&e)))
            })?;
            let status = response.status();
            let location =
                response.headers().get(header::LOCATION).and_then(|v| v.to_str().ok()).map(str::to_owned);
            let headers = response.headers().clone();
            let body = http_body_util::Limited::new(response.into_body(), MAX_BODY)
                .collect()
                .await
                .map_err(|e| AuthError::Http(format!("{}: {e}", quoted(url))))?
                .to_bytes();
            Ok(Fetched { status, location, headers, body })
        };
        tokio::time::timeout(EXCHANGE_TIMEOUT, exchange).await.map_err(|_| {
            AuthError::Http(format!("{}: no complete answer within {EXCHANGE_TIMEOUT:?}", quoted(url)))
        })?
    }

    pub(crate) async fn get(&self, url: &str) -> Result<Fetched, AuthError> {
        self.send(Method::GET, url, &[], None).await
    }

    pub(crate) async fn post_form(
        &self,
        url: &str,
        fields: &[(&str, String)],
        headers: &[(&str, String)],
    ) -> Result<Fetched, AuthError> {
        self.send(
            Method::POST,
            url,
            headers,
            Some(("application/x-www-form-urlencoded", form_encode(fields).into_bytes())),
        )
        .await
    }

    pub(crate) async fn post_json(&self, url: &str, body: &Value) -> Result<Fetched, AuthError> {
        self.send(Method::POST, url, &[], Some(("application/json", body.to_string().into_bytes()))).await
    }
}

/// Percent-encodes everything but the unreserved characters.
pub(crate) fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `a=1&b=2` with percent-encoding.
pub(crate) fn form_encode(fields: &[(&str, String)]) -> String {
    fields.iter().map(|(k, v)| format!("{}={}", encode(k), encode(v))).collect::<Vec<_>>().join("&")
}

fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push(h * 16 + l);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            other => out.push(other),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// The query parameters of a URL (decoded; the first occurrence of a name wins).
pub(crate) fn query_params(url: &str) -> Vec<(String, String)> {
    let query = url.split_once('?').map(|(_, q)| q).unwrap_or("");
    let query = query.split('#').next().unwrap_or("");
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| match pair.split_once('=') {
            Some((k, v)) => (decode(k), decode(v)),
            None => (decode(pair), String::new()),
        })
        .collect()
}

/// `scheme://authority` of a URL.
pub(crate) fn origin(url: &str) -> Option<String> {
    let uri: Uri = url.parse().ok()?;
    Some(format!("{}://{}", uri.scheme_str()?, uri.authority()?))
}

/// Whether authorization traffic may go to `url`: `https`, or plain `http` to this
/// machine (`localhost` or a loopback address) for development. OAuth 2.1 §1.5 has every
/// authorization server endpoint served over TLS; RFC 8414 issuers and RFC 9728
/// resources are `https` URLs.
pub(crate) fn secure_or_loopback(url: &str) -> bool {
    let Ok(uri) = url.parse::<Uri>() else { return false };
    match uri.scheme_str() {
        Some("https") => true,
        Some("http") => uri.host().is_some_and(|host| {
            let host = host.trim_start_matches('[').trim_end_matches(']');
            host.eq_ignore_ascii_case("localhost")
                || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
        }),
        _ => false,
    }
}

/// The path of a URL without a trailing slash (`""` for the root).
pub(crate) fn path(url: &str) -> String {
    url.parse::<Uri>().map(|u| u.path().trim_end_matches('/').to_owned()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_and_decodes() {
        assert_eq!(encode("a b/c?d"), "a%20b%2Fc%3Fd");
        assert_eq!(form_encode(&[("x", "1 2".into()), ("y", "é".into())]), "x=1%202&y=%C3%A9");
        let q = query_params("http://x/cb?code=a%20b&state=s+t&iss=https%3A%2F%2Fas&empty#frag");
        assert_eq!(
            q,
            vec![
                ("code".into(), "a b".into()),
                ("state".into(), "s t".into()),
                ("iss".into(), "https://as".into()),
                ("empty".into(), String::new())
            ]
        );
        assert_eq!(origin("http://127.0.0.1:9/mcp/x").as_deref(), Some("http://127.0.0.1:9"));
        assert_eq!(path("http://h/mcp/"), "/mcp");
        assert_eq!(path("http://h"), "");
        for url in [
            "https://as.example/t",
            "http://127.0.0.1:9/t",
            "http://127.9.0.1/",
            "http://[::1]:8/t",
            "http://LocalHost/t",
        ] {
            assert!(secure_or_loopback(url), "{url}");
        }
        for url in [
            "http://as.example/t",
            "http://10.0.0.1/t",
            "http://localhost.example/t",
            "ftp://127.0.0.1/",
            "nonsense",
        ] {
            assert!(!secure_or_loopback(url), "{url}");
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
#[allow(clippy::expect_used)]
mod exchange_tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    /// A server that sends its answer's head, then its body a byte every five seconds:
    /// the exchange ends at its time limit, body included.
    #[tokio::test(start_paused = true)]
    async fn a_body_sent_a_byte_at_a_time_ends_at_the_time_limit() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/meta", listener.local_addr().unwrap());
        tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut head = [0u8; 1024];
            let _ = socket.read(&mut head).await;
            let _ = socket.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n").await;
            loop {
                tokio::time::sleep(std::time::Duration::from_secs(5)).await;
                if socket.write_all(b" ").await.is_err() {
                    return;
                }
            }
        });
        let fetched = tokio::time::timeout(std::time::Duration::from_secs(120), Fetcher::default().get(&url))
            .await
            .expect("the exchange has a time limit");
        match fetched {
            Err(AuthError::Http(e)) => assert!(e.contains("no complete answer"), "{e}"),
            other => panic!("expected a timeout, got {:?}", other.map(|f| f.status)),
        }
    }

    /// `https://` is spoken over TLS (it was refused before any connection): a server
    /// whose certificate is under no trusted root fails the handshake, said as such.
    #[cfg(feature = "tls")]
    #[tokio::test]
    async fn https_is_fetched_over_tls() {
        use std::sync::Arc;
        use tokio_rustls::rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
        let certified = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned()]).unwrap();
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(certified.signing_key.serialize_der()));
        #[allow(deprecated)]
        let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
        let config = tokio_rustls::rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(vec![certified.cert.der().clone()], key)
            .unwrap();
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("https://{}/meta", listener.local_addr().unwrap());
        let (hello_tx, hello_rx) = tokio::sync::oneshot::channel();
        tokio::spawn(async move {
            let (socket, _) = listener.accept().await.unwrap();
            // Whatever the outcome, a TLS ClientHello arrived and was answered.
            let _ = hello_tx.send(acceptor.accept(socket).await.is_err());
        });
        let fetched = Fetcher::default().get(&url).await;
        let Err(AuthError::Http(e)) = fetched else { panic!("an untrusted certificate was accepted") };
        assert!(e.to_lowercase().contains("certificate"), "{e}");
        assert!(hello_rx.await.unwrap(), "the server saw the client give up on its certificate");
    }
}
