//! The OAuth client's dynamically registered client (RFC 7591) when the authorization
//! server no longer knows it: an `invalid_client` answer (RFC 6749 §5.2) makes the
//! client forget the registration, register once more and try once more; a stored
//! registration whose secret has expired is not used; pre-registered credentials are
//! never forgotten, and their refusal is reported.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "auth_client_support.rs"]
mod support;

use std::sync::Arc;

use mcpwire::auth::{ClientCredentials, MemoryTokenStore, OAuthClient, OAuthConfig, TokenStore};
use support::{Knobs, TestAs};

const REDIRECT: &str = "http://127.0.0.1:1/callback";

fn client(store: &Arc<MemoryTokenStore>, pre_registered: Option<ClientCredentials>) -> OAuthClient {
    OAuthClient::new(OAuthConfig {
        redirect_uri: REDIRECT.into(),
        store: store.clone(),
        pre_registered: pre_registered.map(|c| (None, c)),
        ..OAuthConfig::default()
    })
}

/// A store that keeps the registration `old-client` (a public client) at the server.
fn store_with_old_client(test_as: &TestAs) -> Arc<MemoryTokenStore> {
    let store = Arc::new(MemoryTokenStore::new());
    let old = ClientCredentials {
        client_id: "old-client".into(),
        redirect_uri: Some(REDIRECT.into()),
        ..ClientCredentials::default()
    };
    store.save_client(&test_as.issuer, &old).unwrap();
    store
}

/// A login with a stored registration the server has since deleted: its token request
/// is refused with `invalid_client`, the registration is dropped, a new one made (once),
/// and the flow run again with it; the store keeps the new one.
#[tokio::test]
async fn a_dead_stored_registration_is_replaced_and_the_flow_retried() {
    let test_as = TestAs::start(Knobs { dead_clients: vec!["old-client".into()], ..Knobs::default() }).await;
    let store = store_with_old_client(&test_as);
    let oauth = client(&store, None);
    oauth.authorize(&test_as.resource, &test_as.challenge(), false).await.unwrap();
    assert_eq!(oauth.access_token().await.as_deref(), Some("at-1"));
    assert_eq!(test_as.seen("/register").len(), 1, "registered once");
    let ids: Vec<String> = test_as.seen("/authorize").iter().map(|s| s.query["client_id"].clone()).collect();
    assert_eq!(ids, ["old-client", "registered-client"]);
    assert_eq!(store.load_client(&test_as.issuer).unwrap().client_id, "registered-client");
    // The next authorization goes with the new registration, without registering.
    oauth.authorize(&test_as.resource, &test_as.challenge(), false).await.unwrap();
    assert_eq!(test_as.seen("/register").len(), 1);
    assert_eq!(test_as.seen("/authorize")[2].query["client_id"], "registered-client");
}

/// A refresh refused with `invalid_client` (the client was deleted while its tokens
/// lived): the client registers again and authorizes through the user with the new
/// registration.
#[tokio::test]
async fn a_refresh_refused_as_invalid_client_registers_again() {
    let knobs = Knobs { issue_refresh: true, ..Knobs::default() };
    let test_as = TestAs::start(knobs).await;
    let store = Arc::new(MemoryTokenStore::new());
    let oauth = client(&store, None);
    oauth.authorize(&test_as.resource, &test_as.challenge(), false).await.unwrap();
    test_as.knobs(|k| k.dead_clients = vec!["registered-client".into()]);
    oauth.authorize(&test_as.resource, &test_as.challenge(), false).await.unwrap();
    let grants: Vec<String> = test_as.seen("/token").iter().map(|t| t.form["grant_type"].clone()).collect();
    assert_eq!(grants, ["authorization_code", "refresh_token", "authorization_code"]);
    assert_eq!(test_as.seen("/register").len(), 2);
    assert_eq!(test_as.seen("/authorize")[1].query["client_id"], "registered-client-2");
    assert_eq!(store.load_client(&test_as.issuer).unwrap().client_id, "registered-client-2");
    assert_eq!(oauth.access_token().await.as_deref(), Some("at-2"));
}

/// An authorization endpoint that redirects back with `error=invalid_client` for the
/// stored registration: the client registers again and sends the user once more.
#[tokio::test]
async fn an_invalid_client_redirect_registers_again() {
    let knobs =
        Knobs { dead_clients: vec!["old-client".into()], dead_at_authorize: true, ..Knobs::default() };
    let test_as = TestAs::start(knobs).await;
    let store = store_with_old_client(&test_as);
    let oauth = client(&store, None);
    oauth.authorize(&test_as.resource, &test_as.challenge(), false).await.unwrap();
    let ids: Vec<String> = test_as.seen("/authorize").iter().map(|s| s.query["client_id"].clone()).collect();
    assert_eq!(ids, ["old-client", "registered-client"]);
    assert_eq!(test_as.seen("/token").len(), 1, "no token request for the refused client");
    assert_eq!(store.load_client(&test_as.issuer).unwrap().client_id, "registered-client");
}

/// A server that refuses every client: one new registration and one more try, then the
/// error (no loop); the refused registration is not kept.
#[tokio::test]
async fn re_registration_is_tried_once() {
    let test_as = TestAs::start(Knobs { refuse_all_clients: true, ..Knobs::default() }).await;
    let store = store_with_old_client(&test_as);
    let oauth = client(&store, None);
    let error = oauth.authorize(&test_as.resource, &test_as.challenge(), false).await.unwrap_err();
    assert!(error.to_string().contains("invalid_client"), "{error}");
    assert_eq!(test_as.seen("/register").len(), 1, "registered once");
    assert_eq!(test_as.seen("/token").len(), 2, "tried once more");
    assert!(store.load_client(&test_as.issuer).is_none(), "the refused registration is forgotten");
}

/// Pre-registered credentials the server refuses are the user's configuration: they are
/// neither forgotten nor replaced by a registration, and the error says what to check.
#[tokio::test]
async fn a_refused_pre_registered_client_is_reported_not_forgotten() {
    let test_as = TestAs::start(Knobs { dead_clients: vec!["configured".into()], ..Knobs::default() }).await;
    let store = Arc::new(MemoryTokenStore::new());
    let configured = ClientCredentials { client_id: "configured".into(), ..ClientCredentials::default() };
    let oauth = client(&store, Some(configured));
    for attempt in 1..=2 {
        let error = oauth.authorize(&test_as.resource, &test_as.challenge(), false).await.unwrap_err();
        let text = error.to_string();
        assert!(text.contains("invalid_client") && text.contains("pre-registered"), "{text}");
        assert_eq!(test_as.seen("/authorize").len(), attempt, "one flow per authorization");
        assert_eq!(test_as.seen("/authorize")[attempt - 1].query["client_id"], "configured");
    }
    assert!(test_as.seen("/register").is_empty());
    assert!(store.load_client(&test_as.issuer).is_none());
}

/// A stored registration whose `client_secret_expires_at` has passed is not used: the
/// client registers again, and keeps the new expiry. One that never expires (`0`), or
/// not yet, is used.
#[tokio::test]
async fn a_stored_registration_with_an_expired_secret_is_not_used() {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    let later = now + 3600;
    let test_as = TestAs::start(Knobs { secret_expires_at: Some(later), ..Knobs::default() }).await;
    for (expires_at, reused) in [(0, true), (later, true), (now - 1, false)] {
        let store = Arc::new(MemoryTokenStore::new());
        let stored = ClientCredentials {
            client_id: "old-client".into(),
            client_secret: Some("old-secret".into()),
            redirect_uri: Some(REDIRECT.into()),
            client_secret_expires_at: Some(expires_at),
            ..ClientCredentials::default()
        };
        store.save_client(&test_as.issuer, &stored).unwrap();
        let registrations = test_as.seen("/register").len();
        client(&store, None).authorize(&test_as.resource, &test_as.challenge(), false).await.unwrap();
        let used = test_as.seen("/authorize").last().unwrap().query["client_id"].clone();
        let kept = store.load_client(&test_as.issuer).unwrap();
        if reused {
            assert_eq!(used, "old-client", "expires at {expires_at}");
            assert_eq!(test_as.seen("/register").len(), registrations);
        } else {
            assert_eq!(used, "registered-client", "expired at {expires_at}");
            assert_eq!(test_as.seen("/register").len(), registrations + 1);
            assert_eq!(kept.client_secret.as_deref(), Some("secret-1"));
            assert_eq!(kept.client_secret_expires_at, Some(later), "the new expiry is kept");
        }
    }
}

/// Tokens and a registration saved before `client_secret_expires_at` existed still load.
#[test]
fn a_registration_saved_without_an_expiry_still_loads() {
    let saved = r#"{"client_id":"c","client_secret":"s","redirect_uri":"http://127.0.0.1:1/callback"}"#;
    let loaded: ClientCredentials = serde_json::from_str(saved).unwrap();
    assert_eq!((loaded.client_id.as_str(), loaded.client_secret_expires_at), ("c", None));
    assert!(!loaded.secret_expired(u64::MAX));
}
