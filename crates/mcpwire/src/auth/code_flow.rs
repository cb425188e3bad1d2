//! The authorization code flow's front channel: the authorization request with PKCE
//! (S256), `state` and the `resource` indicator, handed to the
//! [`AuthorizationHandler`]; then the checks on the
//! redirect it brings back (RFC 9207 `iss`, `error`, `state`) and the token request's
//! fields for the code.

use std::collections::{BTreeSet, HashMap};

use base64::Engine;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::authorizer::AuthorizationHandler;
use super::credentials::ClientCredentials;
use super::fetch::{form_encode, query_params};
use super::jose::random_id;
use super::token_endpoint::Refused;
use super::AuthError;

fn pkce() -> Result<(String, String), AuthError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|_| AuthError::Protocol("no randomness".into()))?;
    let verifier = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
    let challenge =
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
    Ok((verifier, challenge))
}

/// One authorization through the user.
pub(crate) struct CodeFlow<'a> {
    pub(crate) issuer: &'a str,
    pub(crate) metadata: &'a Value,
    pub(crate) credentials: &'a ClientCredentials,
    pub(crate) redirect_uri: &'a str,
    pub(crate) resource: &'a str,
    pub(crate) scopes: &'a BTreeSet<String>,
}

impl CodeFlow<'_> {
    /// Sends the user to the authorization endpoint through `handler` and returns the
    /// token request's fields (`grant_type=authorization_code`, the code, the verifier).
    pub(crate) async fn run(
        &self,
        handler: &dyn AuthorizationHandler,
    ) -> Result<Vec<(&'static str, String)>, Refused> {
        let (verifier, code_challenge) = pkce()?;
        let csrf = random_id()?;
        let endpoint =
            self.metadata.get("authorization_endpoint").and_then(Value::as_str).ok_or_else(|| {
                AuthError::Protocol("the authorization server has no authorization_endpoint".into())
            })?;
        let mut query = vec![
            ("response_type", "code".to_owned()),
            ("client_id", self.credentials.client_id.clone()),
            ("redirect_uri", self.redirect_uri.to_owned()),
            ("code_challenge", code_challenge),
            ("code_challenge_method", "S256".to_owned()),
            ("state", csrf.clone()),
            ("resource", self.resource.to_owned()),
        ];
        if !self.scopes.is_empty() {
            query.push(("scope", self.scopes.iter().cloned().collect::<Vec<_>>().join(" ")));
        }
        let separator = if endpoint.contains('?') { '&' } else { '?' };
        let url = format!("{endpoint}{separator}{}", form_encode(&query));
        let redirect = handler.authorize(url).await?;
        let code = self.check_redirect(&redirect, &csrf)?;
        Ok(vec![
            ("grant_type", "authorization_code".to_owned()),
            ("code", code),
            ("redirect_uri", self.redirect_uri.to_owned()),
            ("code_verifier", verifier),
        ])
    }

    /// The code of a redirect, once its `iss` (RFC 9207: exactly the issuer asked, and
    /// present when advertised), `error` and `state` pass.
    fn check_redirect(&self, redirect: &str, csrf: &str) -> Result<String, Refused> {
        let params: HashMap<String, String> = query_params(redirect).into_iter().collect();
        let issuer = self.issuer;
        let iss_advertised =
            self.metadata.get("authorization_response_iss_parameter_supported") == Some(&Value::Bool(true));
        match params.get("iss") {
            Some(iss) if iss != issuer => {
                return Err(AuthError::Protocol(format!(
                    "the authorization response came from issuer \"{}\", not {}",
                    shown(iss),
                    super::fetch::quoted(issuer)
                ))
                .into())
            }
            None if iss_advertised => {
                return Err(AuthError::Protocol(
                    "the authorization response has no iss though the server advertises it".into(),
                )
                .into())
            }
            _ => {}
        }
        if let Some(error) = params.get("error") {
            let denied = AuthError::Denied(format!("the authorization server refused: {}", shown(error)));
            return Err(Refused { error: denied, invalid_client: error == "invalid_client" });
        }
        if params.get("state").map(String::as_str) != Some(csrf) {
            return Err(
                AuthError::Protocol("the authorization response's state does not match".into()).into()
            );
        }
        params
            .get("code")
            .cloned()
            .ok_or_else(|| AuthError::Protocol("the authorization response has no code".into()).into())
    }
}

/// A value of the authorization response as an error shows it: the characters RFC 6749
/// allows in an `error` (visible ASCII and space), at most 128 of them. The redirect is
/// anyone's to forge; a terminal escape or a second line must not reach the user or a log.
fn shown(value: &str) -> String {
    value.chars().filter(|c| matches!(c, ' '..='~')).take(128).collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn pkce_challenge_is_the_s256_of_the_verifier() {
        let (verifier, challenge) = pkce().unwrap();
        assert!((43..=128).contains(&verifier.len()));
        let expected =
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
        assert_eq!(challenge, expected);
    }

    #[test]
    fn redirect_checks() {
        let metadata = json!({ "authorization_response_iss_parameter_supported": true });
        let credentials = ClientCredentials::default();
        let scopes = BTreeSet::new();
        let flow = CodeFlow {
            issuer: "http://as",
            metadata: &metadata,
            credentials: &credentials,
            redirect_uri: "http://127.0.0.1/cb",
            resource: "http://rs/mcp",
            scopes: &scopes,
        };
        let ok = "http://127.0.0.1/cb?code=c1&state=s&iss=http%3A%2F%2Fas";
        assert_eq!(flow.check_redirect(ok, "s").unwrap(), "c1");
        assert!(flow.check_redirect(ok, "other").is_err(), "state must match");
        assert!(flow.check_redirect("http://127.0.0.1/cb?code=c1&state=s", "s").is_err(), "iss advertised");
        let wrong = "http://127.0.0.1/cb?code=c1&state=s&iss=http%3A%2F%2Fas%2F";
        assert!(flow.check_redirect(wrong, "s").is_err(), "iss compared exactly");
        let denied = "http://127.0.0.1/cb?error=access_denied&state=s&iss=http%3A%2F%2Fas";
        let refused = flow.check_redirect(denied, "s").unwrap_err();
        assert!(matches!(refused.error, AuthError::Denied(_)) && !refused.invalid_client);
        let unknown = "http://127.0.0.1/cb?error=invalid_client&state=s&iss=http%3A%2F%2Fas";
        assert!(flow.check_redirect(unknown, "s").unwrap_err().invalid_client);
    }
}
