//! HTTPS: the client against our `McpService` behind an in-process TLS server
//! (tokio-rustls, a self-signed certificate made here), in both eras; without the
//! certificate added as a root, the handshake fails as a transport failure.
#![cfg(feature = "tls")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod http_client_support;

use std::sync::Arc;

use mcpwire::client::{Client, ConnectError};
use mcpwire::http::McpService;
use mcpwire::protocol::{Era, ProtocolVersion};
use mcpwire::server::{tool, Args, Server};
use mcpwire::transport::http_client::HttpClientTransport;
use mcpwire::RequestError;
use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio_rustls::rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio_rustls::rustls::{self, ServerConfig};
use tokio_rustls::TlsAcceptor;

/// Serves an echo tool over HTTPS on a free port; returns the URL and the certificate (PEM).
async fn https_server() -> (String, String) {
    let certified =
        rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned(), "localhost".to_owned()]).unwrap();
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(certified.signing_key.serialize_der()));
    let config = ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![certified.cert.der().clone()], key)
        .unwrap();
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let server = Server::builder("tls-test", "0")
        .tool(
            tool("echo")
                .handler(|Args(a): Args<serde_json::Map<String, Value>>| Value::Object(a).to_string()),
        )
        .build()
        .unwrap();
    let service = McpService::new(server);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("https://127.0.0.1:{}/mcp", listener.local_addr().unwrap().port());
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = listener.accept().await else { return };
            let (acceptor, service) = (acceptor.clone(), service.clone());
            tokio::spawn(async move {
                // A client that refuses our certificate fails here: nothing to serve.
                let Ok(tls) = acceptor.accept(tcp).await else { return };
                http_client_support::serve_connection(tls, service).await;
            });
        }
    });
    (url, certified.cert.pem())
}

async fn connect(url: &str, root: Option<&str>, version: &str) -> Result<Client, ConnectError> {
    let mut transport = HttpClientTransport::new(url).unwrap();
    if let Some(pem) = root {
        transport = transport.add_root_certificate(pem.as_bytes()).unwrap();
    }
    Client::builder("t", "0").protocol_version(ProtocolVersion::parse(version)).connect(transport).await
}

#[tokio::test]
async fn initialize_and_call_a_tool_over_https_in_both_eras() {
    let (url, pem) = https_server().await;
    for (version, era) in [("2025-11-25", Era::Stateful), ("2026-07-28", Era::Stateless)] {
        let client = connect(&url, Some(&pem), version).await.unwrap();
        assert_eq!(client.era(), era);
        if era == Era::Stateful {
            // In 2026 the server info comes from `_meta` of the discover result, which
            // this server leaves out (`server_info()` is None): not this test's subject.
            assert_eq!(client.server_info().unwrap().name, "tls-test");
        }
        let result = client.call_tool("echo", json!({ "over": "tls" })).await.unwrap();
        assert_eq!(
            result.content[0].as_text(),
            Some(json!({ "over": "tls" }).to_string().as_str()),
            "{version}"
        );
        client.close().await;
    }
}

#[tokio::test]
async fn an_unknown_certificate_is_a_transport_failure() {
    let (url, _) = https_server().await;
    let error = connect(&url, None, "2025-11-25").await.unwrap_err();
    let ConnectError::Handshake(error) = error else { panic!("{error:?}") };
    let reason = match error {
        RequestError::Transport { reason } => reason,
        other => panic!("{other:?}"),
    };
    assert!(reason.starts_with("HTTP request failed: "), "{reason}");
    assert!(reason.contains("UnknownIssuer"), "{reason}");
}

#[test]
fn a_bad_root_certificate_is_refused_when_configuring() {
    let transport = HttpClientTransport::new("https://127.0.0.1:1/mcp").unwrap();
    let error = transport.add_root_certificate(b"not a certificate").unwrap_err();
    assert_eq!(error.to_string(), "TLS: no CERTIFICATE block in the PEM");
}
