//! The CLI's side of the OAuth client: the token stores, the loopback redirect driven by
//! a fake browser against the test authorization server, and `login()` against a
//! protected endpoint, all over real loopback sockets.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod scratch;
#[path = "auth_client_support.rs"]
mod support;

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::rt::TokioExecutor;
use mcpwire::auth::{
    login, AuthError, ClientCredentials, FileTokenStore, LoginOptions, LoopbackRedirect, MemoryTokenStore,
    OAuthClient, OAuthConfig, TokenStore, Tokens,
};
use support::{serve, Knobs, TestAs};

/// A store file in a directory not made yet, inside a scratch directory (removed when
/// dropped).
fn temp_path(name: &str) -> (scratch::Scratch, std::path::PathBuf) {
    let dir = scratch::Scratch::new(&format!("auth-{name}"));
    let path = dir.join("nested").join("auth.json");
    (dir, path)
}

fn tokens(n: u32) -> Tokens {
    Tokens {
        access_token: format!("at-{n}"),
        token_type: "Bearer".into(),
        refresh_token: Some(format!("rt-{n}")),
        expires_at: Some(4_000_000_000),
        scope: Some("read".into()),
        issuer: Some("http://as".into()),
    }
}

fn check_store(store: &dyn TokenStore) {
    assert_eq!(store.load_tokens("http://rs/mcp"), None);
    store.save_tokens("http://rs/mcp", Some(&tokens(1))).unwrap();
    store.save_tokens("http://other/mcp", Some(&tokens(2))).unwrap();
    assert_eq!(store.load_tokens("http://rs/mcp"), Some(tokens(1)));
    store.save_tokens("http://rs/mcp", None).unwrap();
    assert_eq!(store.load_tokens("http://rs/mcp"), None);
    assert_eq!(store.load_tokens("http://other/mcp"), Some(tokens(2)));
    let client = ClientCredentials {
        client_id: "cid".into(),
        client_secret: Some("sec".into()),
        ..ClientCredentials::default()
    };
    store.save_client("http://as", &client).unwrap();
    let loaded = store.load_client("http://as").unwrap();
    assert_eq!((loaded.client_id.as_str(), loaded.client_secret.as_deref()), ("cid", Some("sec")));
    assert!(store.load_client("http://other-as").is_none(), "credentials are per issuer");
}

#[test]
fn memory_store_keeps_tokens_by_resource_and_clients_by_issuer() {
    check_store(&MemoryTokenStore::new());
}

#[test]
fn file_store_round_trips_in_a_private_file() {
    let (_dir, path) = temp_path("file-store");
    let store = FileTokenStore::new(&path);
    check_store(&store);
    // A second store on the same file sees the same contents (another run of the CLI).
    assert_eq!(FileTokenStore::new(&path).load_tokens("http://other/mcp"), Some(tokens(2)));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(std::fs::metadata(path.parent().unwrap()).unwrap().permissions().mode() & 0o777, 0o700);
    }
    std::fs::write(&path, b"{ not json").unwrap();
    assert_eq!(store.load_tokens("http://other/mcp"), None, "a corrupt file is an empty store");
}

/// Stores on one file that do not share a process lock (as two `mcpwire` commands do not)
/// lose none of each other's saves: every update holds a lock on `<file>.lock`.
#[test]
fn stores_on_one_file_lose_no_saves() {
    let (_dir, path) = temp_path("file-store-race");
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let path = path.clone();
            std::thread::spawn(move || {
                let store = FileTokenStore::new(&path);
                for i in 0..20 {
                    store.save_tokens(&format!("http://r{t}-{i}/mcp"), Some(&tokens(i))).unwrap();
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    let store = FileTokenStore::new(&path);
    for t in 0..8 {
        for i in 0..20 {
            assert_eq!(store.load_tokens(&format!("http://r{t}-{i}/mcp")), Some(tokens(i)), "r{t}-{i}");
        }
    }
}

#[tokio::test]
async fn a_client_starts_with_the_tokens_its_store_keeps() {
    let store = Arc::new(MemoryTokenStore::new());
    store.save_tokens("http://127.0.0.1:9/mcp", Some(&tokens(7))).unwrap();
    let oauth = OAuthClient::new(OAuthConfig { store, ..OAuthConfig::default() });
    oauth.load_stored("http://127.0.0.1:9/mcp/").await;
    let headers =
        oauth.request_headers(&http::Method::POST, &"http://127.0.0.1:9/mcp/".parse().unwrap()).await;
    assert_eq!(headers["authorization"], "Bearer at-7");
}

/// Login options saving to `path`, whose "browser" follows the authorization page's
/// redirects (the test authorization server approves at once), within 10 s.
fn browsing_login(path: std::path::PathBuf) -> LoginOptions {
    LoginOptions {
        store_path: Some(path),
        opener: Some(Arc::new(|url: &str| {
            let url = url.to_owned();
            tokio::spawn(async move { browse(url).await });
        })),
        timeout: Duration::from_secs(10),
        ..LoginOptions::default()
    }
}

/// A fake browser: follows the authorization URL to the test authorization server
/// (which redirects at once), then the redirect to the loopback listener; returns the
/// listener's status and page.
async fn browse(url: String) -> (u16, String) {
    let http = HyperClient::builder(TokioExecutor::new()).build_http::<Empty<Bytes>>();
    let mut url = url;
    for _ in 0..3 {
        let response = http.get(url.parse().unwrap()).await.unwrap();
        let status = response.status();
        let location = response.headers().get("location").map(|l| l.to_str().unwrap().to_owned());
        let body = response.into_body().collect().await.unwrap().to_bytes();
        match location {
            Some(next) if status.is_redirection() => url = next,
            _ => return (status.as_u16(), String::from_utf8_lossy(&body).into_owned()),
        }
    }
    panic!("too many redirects");
}

#[tokio::test]
async fn loopback_redirect_completes_the_flow_with_a_fake_browser() {
    let test_as = TestAs::start(Knobs::default()).await;
    let pages = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = pages.clone();
    let handler = LoopbackRedirect::bind().unwrap().with_opener(move |url| {
        let (url, seen) = (url.to_owned(), seen.clone());
        tokio::spawn(async move {
            let page = browse(url).await;
            seen.lock().unwrap().push(page);
        });
    });
    let redirect_uri = handler.redirect_uri().to_owned();
    assert!(redirect_uri.starts_with("http://127.0.0.1:") && redirect_uri.ends_with("/callback"));
    let oauth = OAuthClient::new(OAuthConfig { authorizer: Arc::new(handler), ..OAuthConfig::default() });
    oauth.authorize(&test_as.resource, &test_as.challenge(), false).await.unwrap();
    assert_eq!(oauth.access_token().await.as_deref(), Some("at-1"));
    let authorize = &test_as.seen("/authorize")[0];
    assert_eq!(authorize.query["redirect_uri"], redirect_uri, "the listener's own URI");
    let registration: serde_json::Value = serde_json::from_str(&test_as.seen("/register")[0].body).unwrap();
    assert_eq!(registration["redirect_uris"], serde_json::json!([redirect_uri]));
    assert_eq!(registration["application_type"], "native");
    assert_eq!(test_as.seen("/token")[0].form["redirect_uri"], redirect_uri);
    // The browser reads the page after the listener answered it: wait for it (bounded).
    tokio::time::timeout(Duration::from_secs(10), async {
        while pages.lock().unwrap().is_empty() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the browser got its page");
    let pages = pages.lock().unwrap().clone();
    assert_eq!(pages.len(), 1);
    assert_eq!(pages[0].0, 200);
    assert!(pages[0].1.contains("Authorized"), "the browser is told: {}", pages[0].1);
}

#[tokio::test]
async fn loopback_redirect_ignores_foreign_requests_and_a_wrong_state() {
    let test_as = TestAs::start(Knobs { wrong_state: true, ..Knobs::default() }).await;
    let pages = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = pages.clone();
    // The wait ends by timing out; it must outlast the browser's two visits on a busy machine.
    let handler = LoopbackRedirect::bind().unwrap().with_timeout(Duration::from_secs(3));
    let callback = handler.redirect_uri().to_owned();
    let handler = handler.with_opener(move |url| {
        let (url, seen, callback) = (url.to_owned(), seen.clone(), callback.clone());
        tokio::spawn(async move {
            let favicon = callback.replace("/callback", "/favicon.ico");
            let page = browse(favicon).await;
            seen.lock().unwrap().push(page);
            let page = browse(url).await;
            seen.lock().unwrap().push(page);
        });
    });
    let oauth = OAuthClient::new(OAuthConfig { authorizer: Arc::new(handler), ..OAuthConfig::default() });
    let outcome = oauth.authorize(&test_as.resource, &test_as.challenge(), false).await;
    assert!(matches!(outcome, Err(AuthError::Denied(_))), "timed out waiting: {outcome:?}");
    let pages = pages.lock().unwrap().clone();
    assert_eq!(pages.iter().map(|p| p.0).collect::<Vec<_>>(), [404, 400]);
    assert!(test_as.seen("/token").is_empty(), "a forged redirect never reaches the token endpoint");
}

#[tokio::test]
async fn login_authorizes_through_the_loopback_and_saves_the_tokens() {
    let test_as = TestAs::start(Knobs { issue_refresh: true, ..Knobs::default() }).await;
    let (_dir, path) = temp_path("login");
    let options = browsing_login(path.clone());
    let tokens = login(&test_as.resource, options.clone()).await.unwrap();
    assert_eq!((tokens.access_token.as_str(), tokens.refresh_token.as_deref()), ("at-1", Some("rt-1")));
    assert_eq!(tokens.issuer.as_deref(), Some(test_as.issuer.as_str()));
    let redirect = test_as.seen("/authorize")[0].query["redirect_uri"].clone();
    assert!(redirect.starts_with("http://127.0.0.1:"), "a loopback redirect: {redirect}");
    // Saved for later connections, with the registration, in a private file.
    let store = FileTokenStore::new(&path);
    assert_eq!(store.load_tokens(&test_as.resource), Some(tokens));
    assert_eq!(store.load_client(&test_as.issuer).unwrap().client_id, "registered-client");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    }
    // A second login listens on another port: the registration is kept (an authorization
    // server takes any port on a loopback IP redirect, OAuth 2.1 and RFC 8252 §7.3), so
    // the client its refresh tokens were issued to stays the one that presents them.
    login(&test_as.resource, options.clone()).await.unwrap();
    assert_eq!(test_as.seen("/register").len(), 1, "registered once");
    let second = &test_as.seen("/authorize")[1].query;
    assert_ne!(second["redirect_uri"], redirect, "another port");
    assert_eq!(second["client_id"], "registered-client");
    assert_eq!(FileTokenStore::new(&path).load_tokens(&test_as.resource).unwrap().access_token, "at-2");

    // A server that answers without asking for a token: nothing to log in to.
    let open = serve(|_req| {
        Box::pin(async { http::Response::new(http_body_util::Full::new(Bytes::from_static(b"{}"))) })
    })
    .await;
    let refused = login(&format!("{open}/mcp"), options).await;
    assert!(matches!(refused, Err(AuthError::Protocol(_))), "{refused:?}");
}

/// A login whose tokens cannot be saved (the store path is a directory) fails, saying
/// why, rather than reporting a login that later commands would not find.
#[tokio::test]
async fn a_login_whose_tokens_cannot_be_saved_fails() {
    let test_as = TestAs::start(Knobs::default()).await;
    let dir = scratch::Scratch::new("auth-unsaved");
    let path = dir.join("auth.json");
    std::fs::create_dir_all(&path).unwrap();
    let options = browsing_login(path);
    let refused = login(&test_as.resource, options).await.unwrap_err().to_string();
    assert!(refused.contains("could not be saved") && refused.contains("auth.json"), "{refused}");
    assert_eq!(test_as.seen("/token").len(), 1, "the authorization itself went through");
}

/// A second `mcpwire login` that does not finish (the user never comes back from the
/// browser) leaves the login saved before in the store: later commands still use it.
#[tokio::test]
async fn an_unfinished_login_keeps_the_tokens_saved_before() {
    let test_as = TestAs::start(Knobs { issue_refresh: true, ..Knobs::default() }).await;
    let (_dir, path) = temp_path("login-unfinished");
    let browsing = browsing_login(path.clone());
    let saved = login(&test_as.resource, browsing.clone()).await.unwrap();
    let abandoned =
        LoginOptions { opener: Some(Arc::new(|_: &str| {})), timeout: Duration::from_secs(1), ..browsing };
    let outcome = login(&test_as.resource, abandoned).await;
    assert!(matches!(outcome, Err(AuthError::Denied(_))), "the wait ended: {outcome:?}");
    assert_eq!(FileTokenStore::new(&path).load_tokens(&test_as.resource), Some(saved));
}

#[tokio::test]
async fn a_stored_registration_for_this_redirect_uri_is_reused() {
    let test_as = TestAs::start(Knobs::default()).await;
    let store = Arc::new(MemoryTokenStore::new());
    let redirect_uri = "http://127.0.0.1:1/callback".to_owned();
    let stored = ClientCredentials {
        client_id: "stored-client".into(),
        redirect_uri: Some(redirect_uri.clone()),
        ..ClientCredentials::default()
    };
    store.save_client(&test_as.issuer, &stored).unwrap();
    let oauth =
        OAuthClient::new(OAuthConfig { redirect_uri, store: store.clone(), ..OAuthConfig::default() });
    oauth.authorize(&test_as.resource, &test_as.challenge(), false).await.unwrap();
    assert!(test_as.seen("/register").is_empty());
    assert_eq!(test_as.seen("/authorize")[0].query["client_id"], "stored-client");
    assert_eq!(
        store.load_tokens(&test_as.resource).unwrap().access_token,
        "at-1",
        "the store has the tokens"
    );
}

/// A resource that sends the client to register at a new authorization server every
/// time: each registration is saved, and the store would grow until it is full (and no
/// login could be saved). Past 64 registrations, those of servers that no saved token
/// came from are dropped; the registration of a server that issued a saved token, and
/// the newest one, stay.
#[test]
fn registrations_without_tokens_are_dropped_past_a_bound() {
    let (_scratch, path) = temp_path("many-clients");
    let file = FileTokenStore::new(&path);
    let memory = MemoryTokenStore::new();
    for store in [&file as &dyn TokenStore, &memory] {
        let client = |id: String| ClientCredentials { client_id: id, ..ClientCredentials::default() };
        store.save_tokens("http://rs/mcp", Some(&tokens(1))).unwrap();
        store.save_client("http://as", &client("the-real-one".into())).unwrap();
        let hops = 200;
        for n in 0..hops {
            store.save_client(&format!("https://hop{n}.example"), &client(format!("{n:0>200}"))).unwrap();
        }
        let kept =
            (0..hops).filter(|n| store.load_client(&format!("https://hop{n}.example")).is_some()).count();
        assert!(kept <= 64, "{kept} registrations without tokens kept");
        assert!(store.load_client(&format!("https://hop{}.example", hops - 1)).is_some(), "the newest stays");
        assert_eq!(store.load_client("http://as").unwrap().client_id, "the-real-one");
        assert_eq!(store.load_tokens("http://rs/mcp"), Some(tokens(1)));
    }
}
