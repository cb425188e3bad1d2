//! How the client obtains tokens without a user ([`Grant`]: `client_credentials`, the
//! RFC 7523 `jwt-bearer` grant for workload identity, and the enterprise-managed
//! ID-JAG flow), and how it authenticates at a token endpoint (`none`,
//! `client_secret_basic`, `client_secret_post`, `private_key_jwt`).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use base64::Engine;
use serde_json::{json, Value};

use super::credentials::ClientCredentials;
use super::fetch::encode;
use super::jose::{now_secs, random_id};
use super::AuthError;

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// `grant_type` of RFC 7523 §2.1 (a JWT as an authorization grant).
pub const JWT_BEARER_GRANT: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/// `grant_type` of RFC 8693 token exchange.
pub const TOKEN_EXCHANGE_GRANT: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
/// RFC 7523 §2.2 `client_assertion_type`.
const JWT_CLIENT_ASSERTION: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
/// The token type of an Identity Assertion JWT Authorization Grant (ID-JAG).
const ID_JAG_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:id-jag";
/// The token type of an OpenID Connect ID token.
const ID_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:id_token";
/// How long a client assertion is valid (RFC 7523 wants it short).
const ASSERTION_LIFETIME_SECS: u64 = 300;

/// Supplies a JWT on demand: a workload identity token (which the platform rotates), or
/// the user's ID token from an enterprise identity provider.
pub trait AssertionSource: Send + Sync + 'static {
    /// The current assertion.
    fn assertion(&self) -> BoxFuture<Result<String, AuthError>>;
}

/// An assertion fixed at construction.
#[derive(Clone)]
pub struct StaticAssertion(pub String);

impl std::fmt::Debug for StaticAssertion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StaticAssertion(..)")
    }
}

impl AssertionSource for StaticAssertion {
    fn assertion(&self) -> BoxFuture<Result<String, AuthError>> {
        let token = self.0.clone();
        Box::pin(async move { Ok(token) })
    }
}

/// The enterprise identity provider of the ID-JAG flow (enterprise-managed
/// authorization): the user's ID token is exchanged there (RFC 8693) for an ID-JAG,
/// which the MCP server's authorization server takes as a `jwt-bearer` grant.
#[derive(Clone)]
pub struct IdentityProvider {
    /// The identity provider's token endpoint.
    pub token_endpoint: String,
    /// This client's `client_id` at the identity provider.
    pub client_id: String,
    /// Its secret there, if it is confidential (sent with `client_secret_basic`).
    pub client_secret: Option<String>,
    /// The user's ID token (from the enterprise single sign-on).
    pub id_token: Arc<dyn AssertionSource>,
}

impl std::fmt::Debug for IdentityProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IdentityProvider")
            .field("token_endpoint", &self.token_endpoint)
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

/// How the client gets an access token.
#[derive(Clone, Default)]
pub enum Grant {
    /// The authorization code flow with PKCE, through the user (the default).
    #[default]
    AuthorizationCode,
    /// `client_credentials` (machine to machine), authenticated with the pre-registered
    /// credentials: a client secret or a private key (`private_key_jwt`).
    ClientCredentials,
    /// The RFC 7523 `jwt-bearer` grant with an assertion from elsewhere (workload
    /// identity federation). A refused assertion is reported, never retried.
    JwtBearer(Arc<dyn AssertionSource>),
    /// Enterprise-managed authorization: an ID-JAG from the identity provider, then the
    /// `jwt-bearer` grant.
    IdentityAssertion(IdentityProvider),
}

impl std::fmt::Debug for Grant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Grant::AuthorizationCode => f.write_str("AuthorizationCode"),
            Grant::ClientCredentials => f.write_str("ClientCredentials"),
            Grant::JwtBearer(_) => f.write_str("JwtBearer(..)"),
            Grant::IdentityAssertion(idp) => f.debug_tuple("IdentityAssertion").field(idp).finish(),
        }
    }
}

impl Grant {
    /// Whether the grant needs the user (and so a redirect and client registration).
    pub fn is_interactive(&self) -> bool {
        matches!(self, Grant::AuthorizationCode)
    }
}

/// The form fields of a non-interactive grant's token request (without client
/// authentication), after any exchange it needs first (`fetch_form` posts one form to
/// the identity provider and returns the JSON answer).
pub(crate) async fn grant_fields<F, Fut>(
    grant: &Grant,
    issuer: &str,
    resource: &str,
    fetch_form: F,
) -> Result<Vec<(&'static str, String)>, AuthError>
where
    F: FnOnce(String, Vec<(&'static str, String)>, Vec<(&'static str, String)>) -> Fut,
    Fut: Future<Output = Result<Value, AuthError>>,
{
    match grant {
        Grant::AuthorizationCode => {
            Err(AuthError::Protocol("the authorization code grant needs a redirect".into()))
        }
        Grant::ClientCredentials => Ok(vec![("grant_type", "client_credentials".into())]),
        Grant::JwtBearer(source) => {
            Ok(vec![("grant_type", JWT_BEARER_GRANT.into()), ("assertion", source.assertion().await?)])
        }
        Grant::IdentityAssertion(idp) => {
            let mut fields = vec![
                ("grant_type", TOKEN_EXCHANGE_GRANT.to_owned()),
                ("requested_token_type", ID_JAG_TOKEN_TYPE.to_owned()),
                ("subject_token", idp.id_token.assertion().await?),
                ("subject_token_type", ID_TOKEN_TYPE.to_owned()),
                ("audience", issuer.to_owned()),
                ("resource", resource.to_owned()),
            ];
            let mut headers = Vec::new();
            match &idp.client_secret {
                Some(secret) => headers.push(("authorization", basic(&idp.client_id, secret))),
                None => fields.push(("client_id", idp.client_id.clone())),
            }
            let answer = fetch_form(idp.token_endpoint.clone(), fields, headers).await?;
            let issued = answer.get("issued_token_type").and_then(Value::as_str);
            if issued.is_some_and(|t| t != ID_JAG_TOKEN_TYPE) {
                return Err(AuthError::Protocol(format!(
                    "the identity provider issued a {issued:?}, not an ID-JAG"
                )));
            }
            let id_jag = answer
                .get("access_token")
                .and_then(Value::as_str)
                .ok_or_else(|| AuthError::Protocol("the token exchange answer has no access_token".into()))?;
            Ok(vec![("grant_type", JWT_BEARER_GRANT.into()), ("assertion", id_jag.to_owned())])
        }
    }
}

/// `Basic base64(urlencode(id):urlencode(secret))` (RFC 6749 §2.3.1).
fn basic(client_id: &str, secret: &str) -> String {
    let pair = format!("{}:{}", encode(client_id), encode(secret));
    format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(pair))
}

/// The token endpoint authentication method: the configured one, else the best the
/// credentials allow among those the server supports.
fn method(credentials: &ClientCredentials, metadata: &Value) -> String {
    if let Some(m) = &credentials.token_endpoint_auth_method {
        return m.clone();
    }
    let supported = |m: &str| {
        metadata
            .get("token_endpoint_auth_methods_supported")
            .and_then(Value::as_array)
            .is_none_or(|a| a.iter().any(|v| v == m))
    };
    if credentials.signing_key.is_some() {
        "private_key_jwt".into()
    } else if credentials.client_secret.is_some() {
        if !supported("client_secret_basic") && supported("client_secret_post") {
            "client_secret_post".into()
        } else {
            "client_secret_basic".into()
        }
    } else {
        "none".into()
    }
}

/// Adds client authentication to a token request: a header or form fields. The
/// `private_key_jwt` assertion is addressed to the issuer (RFC 7523bis).
pub(crate) fn authenticate(
    credentials: &ClientCredentials,
    metadata: &Value,
    issuer: &str,
    fields: &mut Vec<(&'static str, String)>,
    headers: &mut Vec<(&'static str, String)>,
) -> Result<(), AuthError> {
    let id = &credentials.client_id;
    match (method(credentials, metadata).as_str(), &credentials.client_secret, &credentials.signing_key) {
        ("client_secret_basic", Some(secret), _) => headers.push(("authorization", basic(id, secret))),
        ("client_secret_post", Some(secret), _) => {
            fields.push(("client_id", id.clone()));
            fields.push(("client_secret", secret.clone()));
        }
        ("private_key_jwt", _, Some(key)) => {
            let now = now_secs();
            let claims = json!({
                "iss": id,
                "sub": id,
                "aud": issuer,
                "iat": now,
                "exp": now + ASSERTION_LIFETIME_SECS,
                "jti": random_id()?,
            });
            fields.push(("client_id", id.clone()));
            fields.push(("client_assertion_type", JWT_CLIENT_ASSERTION.into()));
            fields.push(("client_assertion", key.sign_jwt(json!({ "typ": "JWT" }), &claims)?));
        }
        ("none", _, _) => fields.push(("client_id", id.clone())),
        (other, _, _) => {
            return Err(AuthError::Protocol(format!(
                "token endpoint authentication {other:?} needs credentials this client lacks"
            )))
        }
    }
    Ok(())
}

#[cfg(all(test, feature = "auth"))]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::auth::jose::tests::verify_es256;
    use crate::auth::jose::SigningKey;

    fn field<'a>(fields: &'a [(&str, String)], name: &str) -> Option<&'a str> {
        fields.iter().find(|(k, _)| *k == name).map(|(_, v)| v.as_str())
    }

    #[test]
    fn private_key_jwt_assertion_is_signed_for_the_issuer() {
        let key = SigningKey::generate_es256().unwrap();
        let jwk = key.public_jwk().unwrap();
        let credentials = ClientCredentials {
            client_id: "cid".into(),
            signing_key: Some(Arc::new(key)),
            ..Default::default()
        };
        let (mut fields, mut headers) = (Vec::new(), Vec::new());
        authenticate(&credentials, &json!({}), "http://as:1", &mut fields, &mut headers).unwrap();
        assert!(headers.is_empty());
        assert_eq!(field(&fields, "client_assertion_type"), Some(JWT_CLIENT_ASSERTION));
        let (header, claims) = verify_es256(field(&fields, "client_assertion").unwrap(), &jwk);
        assert_eq!(header["alg"], "ES256");
        assert_eq!((claims["iss"].as_str(), claims["sub"].as_str()), (Some("cid"), Some("cid")));
        assert_eq!(claims["aud"], "http://as:1");
        let (iat, exp) = (claims["iat"].as_u64().unwrap(), claims["exp"].as_u64().unwrap());
        assert_eq!(exp - iat, ASSERTION_LIFETIME_SECS);
        assert!(claims["jti"].as_str().is_some_and(|j| j.len() >= 16));
    }

    #[test]
    fn secret_methods_follow_configuration_then_server_support() {
        let credentials = ClientCredentials {
            client_id: "a b".into(),
            client_secret: Some("s:1".into()),
            ..Default::default()
        };
        let (mut fields, mut headers) = (Vec::new(), Vec::new());
        authenticate(&credentials, &json!({}), "i", &mut fields, &mut headers).unwrap();
        let expected = base64::engine::general_purpose::STANDARD.encode("a%20b:s%3A1");
        assert_eq!(headers, vec![("authorization", format!("Basic {expected}"))]);
        assert!(fields.is_empty());
        let post_only = json!({ "token_endpoint_auth_methods_supported": ["client_secret_post"] });
        let (mut fields, mut headers) = (Vec::new(), Vec::new());
        authenticate(&credentials, &post_only, "i", &mut fields, &mut headers).unwrap();
        assert!(headers.is_empty());
        assert_eq!(field(&fields, "client_secret"), Some("s:1"));
        let public = ClientCredentials { client_id: "p".into(), ..Default::default() };
        let (mut fields, mut headers) = (Vec::new(), Vec::new());
        authenticate(&public, &json!({}), "i", &mut fields, &mut headers).unwrap();
        assert_eq!(fields, vec![("client_id", "p".to_owned())]);
        let wants_key =
            ClientCredentials { token_endpoint_auth_method: Some("private_key_jwt".into()), ..public };
        assert!(authenticate(&wants_key, &json!({}), "i", &mut Vec::new(), &mut Vec::new()).is_err());
    }
}
