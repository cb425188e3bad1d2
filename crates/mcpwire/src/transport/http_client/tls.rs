//! HTTPS for the client: rustls with the ring provider (no C toolchain needed, unlike
//! aws-lc-rs), HTTP/1.1 only, like the rest of the transport.
//!
//! Trust starts from the Mozilla root store compiled in (`webpki-roots`) rather than the
//! operating system's: the same roots on every machine (a minimal container without
//! `ca-certificates` included), no file I/O at connect time, and behaviour tests can
//! pin. A private or self-signed server is trusted by adding its root with
//! [`HttpClientTransport::add_root_certificate`](super::HttpClientTransport::add_root_certificate).

use std::sync::Arc;

use hyper_rustls::{HttpsConnector, HttpsConnectorBuilder};
use hyper_util::client::legacy::connect::HttpConnector;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;
use rustls::{ClientConfig, RootCertStore};

/// The roots a transport trusts, and the client configuration made from them.
#[derive(Clone, Debug)]
pub(crate) struct Tls {
    roots: RootCertStore,
    config: Arc<ClientConfig>,
}

impl Tls {
    /// The Mozilla roots only.
    pub(crate) fn new() -> Result<Self, String> {
        let roots = RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() };
        let config = Arc::new(config(roots.clone())?);
        Ok(Tls { roots, config })
    }

    /// Also trusts every certificate of a PEM document.
    pub(super) fn add_roots(&mut self, pem: &[u8]) -> Result<(), String> {
        let mut added = 0;
        for cert in CertificateDer::pem_slice_iter(pem) {
            let cert = cert.map_err(|e| format!("bad PEM: {e}"))?;
            self.roots.add(cert).map_err(|e| format!("not a usable root certificate: {e}"))?;
            added += 1;
        }
        if added == 0 {
            return Err("no CERTIFICATE block in the PEM".into());
        }
        self.config = Arc::new(config(self.roots.clone())?);
        Ok(())
    }

    /// A connector that speaks TLS for `https://` and plain TCP for `http://`, over
    /// `http` (told to take both schemes: hyper-rustls checks the scheme itself).
    pub(crate) fn connector(&self, mut http: HttpConnector) -> HttpsConnector<HttpConnector> {
        http.enforce_http(false);
        HttpsConnectorBuilder::new()
            .with_tls_config((*self.config).clone())
            .https_or_http()
            .enable_http1()
            .wrap_connector(http)
    }
}

fn config(roots: RootCertStore) -> Result<ClientConfig, String> {
    // *ring*: it builds with no C toolchain beyond cc (aws-lc-rs wants cmake). rustls
    // 0.23.48 marks it deprecated for lacking post-quantum key exchange, which is not a
    // reason to break the build of everyone who depends on this crate.
    #[allow(deprecated)]
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    Ok(ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS setup failed: {e}"))?
        .with_root_certificates(roots)
        .with_no_client_auth())
}
