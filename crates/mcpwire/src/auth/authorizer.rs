//! The user's part of an authorization code flow: something that takes the
//! authorization URL and brings back the redirect the authorization server sent.

use std::future::Future;
use std::pin::Pin;

use super::fetch::Fetcher;
use super::AuthError;

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// Completes the user's part of the authorization: given the authorization URL, returns
/// the redirect URL the authorization server sent back (with `code`, `state`, `iss`).
/// A CLI opens a browser and listens on a loopback redirect
/// ([`LoopbackRedirect`](super::LoopbackRedirect)); tests and headless agents may fetch
/// the URL and read the redirect ([`FetchRedirect`]).
pub trait AuthorizationHandler: Send + Sync + 'static {
    /// Returns the final redirect URL.
    fn authorize(&self, url: String) -> BoxFuture<Result<String, AuthError>>;

    /// The redirect URI this handler receives on, when it chooses one (a loopback
    /// listener knows its port only once bound); `None` uses
    /// [`OAuthConfig::redirect_uri`](super::OAuthConfig::redirect_uri).
    fn redirect_uri(&self) -> Option<String> {
        None
    }
}

/// Fetches the authorization URL without following redirects and returns the
/// `Location` it redirects to (for authorization servers that approve without a user).
#[derive(Clone, Debug, Default)]
pub struct FetchRedirect;

impl AuthorizationHandler for FetchRedirect {
    fn authorize(&self, url: String) -> BoxFuture<Result<String, AuthError>> {
        Box::pin(async move {
            let fetched = Fetcher::default().get(&url).await?;
            match fetched.location {
                Some(location) if fetched.status.is_redirection() => Ok(location),
                _ => Err(AuthError::Protocol(format!(
                    "the authorization endpoint answered {} without a redirect",
                    fetched.status
                ))),
            }
        })
    }
}
