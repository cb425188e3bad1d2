//! The token store's calls, which may block, run off the async runtime: on a
//! current-thread runtime another task makes progress while a store call waits.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::{DpopPolicy, OAuthClient, OAuthConfig};
use crate::auth::{AuthError, ClientCredentials, TokenStore, Tokens};

/// A store whose token calls wait (at most 5 s) for another task of the runtime to open
/// a gate, and record whether it did.
struct GatedStore {
    gate: Mutex<Receiver<()>>,
    opened: Mutex<Vec<bool>>,
}

impl GatedStore {
    fn wait(&self) {
        let opened = self.gate.lock().unwrap().recv_timeout(Duration::from_secs(5)).is_ok();
        self.opened.lock().unwrap().push(opened);
    }
}

impl TokenStore for GatedStore {
    fn load_tokens(&self, _resource: &str) -> Option<Tokens> {
        self.wait();
        Some(Tokens { access_token: "stored".into(), token_type: "Bearer".into(), ..Tokens::default() })
    }
    fn save_tokens(&self, _resource: &str, _tokens: Option<&Tokens>) -> Result<(), AuthError> {
        self.wait();
        Ok(())
    }
    fn load_client(&self, _issuer: &str) -> Option<ClientCredentials> {
        None
    }
    fn save_client(&self, _issuer: &str, _credentials: &ClientCredentials) -> Result<(), AuthError> {
        Ok(())
    }
    fn load_dpop_key(&self) -> Option<Vec<u8>> {
        self.wait();
        None
    }
}

fn gated_with(dpop: DpopPolicy) -> (Arc<GatedStore>, Sender<()>, OAuthClient) {
    let (open, gate) = channel();
    let store = Arc::new(GatedStore { gate: Mutex::new(gate), opened: Mutex::default() });
    let config = OAuthConfig { store: store.clone(), dpop, ..OAuthConfig::default() };
    (store, open, OAuthClient::new(config))
}

fn gated() -> (Arc<GatedStore>, Sender<()>, OAuthClient) {
    gated_with(DpopPolicy::Never)
}

/// Loading the stored tokens leaves the (current-thread) runtime free: the task that
/// opens the gate runs while the load waits, and the loaded token is then sent.
#[tokio::test(flavor = "current_thread")]
async fn loading_stored_tokens_does_not_block_the_runtime() {
    let (store, open, client) = gated();
    let opener = tokio::spawn(async move { open.send(()).unwrap() });
    tokio::time::timeout(Duration::from_secs(10), client.load_stored("http://127.0.0.1:9/mcp"))
        .await
        .unwrap();
    opener.await.unwrap();
    assert_eq!(*store.opened.lock().unwrap(), [true], "the load blocked the runtime");
    let headers =
        client.request_headers(&http::Method::POST, &"http://127.0.0.1:9/mcp".parse().unwrap()).await;
    assert_eq!(headers[http::header::AUTHORIZATION], "Bearer stored");
}

/// Saving tokens leaves the runtime free too.
#[tokio::test(flavor = "current_thread")]
async fn saving_tokens_does_not_block_the_runtime() {
    let (store, open, client) = gated();
    let opener = tokio::spawn(async move { open.send(()).unwrap() });
    let tokens = Tokens { access_token: "new".into(), token_type: "Bearer".into(), ..Tokens::default() };
    tokio::time::timeout(
        Duration::from_secs(10),
        client.set_tokens("http://127.0.0.1:9/mcp", Some(tokens), None),
    )
    .await
    .unwrap();
    opener.await.unwrap();
    assert_eq!(*store.opened.lock().unwrap(), [true], "the save blocked the runtime");
    assert_eq!(client.tokens().unwrap().access_token, "new");
}

/// Making a client reads no DPoP key: the key is loaded, off the runtime, with the tokens.
#[tokio::test(flavor = "current_thread")]
async fn loading_the_dpop_key_does_not_block_the_runtime() {
    let (store, open, client) = gated_with(DpopPolicy::IfSupported);
    let opener = tokio::spawn(async move {
        open.send(()).unwrap();
        open.send(()).unwrap();
    });
    tokio::time::timeout(Duration::from_secs(10), client.load_stored("http://127.0.0.1:9/mcp"))
        .await
        .unwrap();
    opener.await.unwrap();
    assert_eq!(*store.opened.lock().unwrap(), [true, true], "a load blocked the runtime");
    assert!(client.dpop().is_some(), "a fresh key");
}

/// A store whose every call waits until the test releases it (drops the sender), and
/// counts the calls that reached it.
struct StuckStore {
    release: Mutex<Receiver<()>>,
    calls: Mutex<usize>,
}

impl StuckStore {
    fn new() -> (Sender<()>, Arc<StuckStore>) {
        let (release, wait) = channel();
        (release, Arc::new(StuckStore { release: Mutex::new(wait), calls: Mutex::default() }))
    }

    fn stuck(&self) {
        *self.calls.lock().unwrap() += 1;
        let _ = self.release.lock().unwrap().recv();
    }
}

impl TokenStore for StuckStore {
    fn load_tokens(&self, _resource: &str) -> Option<Tokens> {
        self.stuck();
        None
    }
    fn save_tokens(&self, _resource: &str, _tokens: Option<&Tokens>) -> Result<(), AuthError> {
        self.stuck();
        Ok(())
    }
    fn load_client(&self, _issuer: &str) -> Option<ClientCredentials> {
        self.stuck();
        None
    }
    fn save_client(&self, _issuer: &str, _credentials: &ClientCredentials) -> Result<(), AuthError> {
        self.stuck();
        Ok(())
    }
    fn load_dpop_key(&self) -> Option<Vec<u8>> {
        self.stuck();
        None
    }
}

/// A store call that never returns ends at the store's time limit: loading the stored
/// tokens (what the transport does before its first request) goes on without them, and
/// the next authorization fails saying the store did not answer, without calling it
/// again (each stuck call holds a blocking thread for good).
#[tokio::test]
async fn a_store_that_never_answers_ends_in_a_clear_error() {
    let (release, store) = StuckStore::new();
    let store_timeout = Duration::from_millis(200);
    let config = OAuthConfig { store: store.clone(), store_timeout, ..OAuthConfig::default() };
    let client = OAuthClient::new(config);
    let url = "http://127.0.0.1:9/mcp";
    tokio::time::timeout(Duration::from_secs(30), client.load_stored(url))
        .await
        .expect("loading from a stuck store ends");
    assert!(client.tokens().is_none());
    let refused =
        tokio::time::timeout(Duration::from_secs(30), client.authorize(url, &http::HeaderMap::new(), false))
            .await
            .expect("authorizing with a stuck store ends")
            .unwrap_err()
            .to_string();
    assert!(refused.contains("token store did not answer"), "{refused}");
    assert_eq!(*store.calls.lock().unwrap(), 1, "a stuck store is not called again");
    drop(release);
}

/// Headers asked for directly, not through the transport (which loads the store before
/// its first request), carry the stored token: the first call loads it.
#[tokio::test]
async fn request_headers_load_the_stored_tokens_on_first_use() {
    let store = Arc::new(crate::auth::MemoryTokenStore::new());
    let tokens = Tokens { access_token: "stored".into(), token_type: "Bearer".into(), ..Tokens::default() };
    store.save_tokens("http://127.0.0.1:9/mcp", Some(&tokens)).unwrap();
    let client = OAuthClient::new(OAuthConfig { store, dpop: DpopPolicy::Never, ..OAuthConfig::default() });
    let uri: http::Uri = "http://127.0.0.1:9/mcp/".parse().unwrap();
    let headers = client.request_headers(&http::Method::POST, &uri).await;
    assert_eq!(headers.get(http::header::AUTHORIZATION).unwrap(), "Bearer stored");
}
