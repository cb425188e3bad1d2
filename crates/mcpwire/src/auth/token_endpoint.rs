//! The token endpoint: one request with client authentication and, for DPoP-bound
//! tokens, a proof (retried once with the nonce of a `use_dpop_nonce` answer, RFC 9449
//! §8); and the [`Tokens`] of its answer.

use std::collections::BTreeSet;

use serde_json::Value;

use super::credentials::ClientCredentials;
use super::discovery::Discovered;
use super::dpop::Dpop;
use super::fetch::{encode, Fetched, Fetcher};
use super::grant::authenticate;
use super::jose::now_secs;
use super::store::Tokens;
use super::AuthError;

/// How much of a refusal's body goes into the error.
const MAX_ERROR_BODY: usize = 512;

/// A refusal from the authorization server, and whether its error code is
/// `invalid_client` (RFC 6749 §5.2, read from the answer's `error` member, or from the
/// `error` of the authorization endpoint's redirect): the server does not know the
/// client, or refused its authentication, and a client it registered may register again.
#[derive(Debug)]
pub(crate) struct Refused {
    /// What went wrong, as reported.
    pub(crate) error: AuthError,
    /// The server's error code is `invalid_client`.
    pub(crate) invalid_client: bool,
}

impl From<AuthError> for Refused {
    fn from(error: AuthError) -> Self {
        Refused { error, invalid_client: false }
    }
}

impl From<Refused> for AuthError {
    fn from(refused: Refused) -> Self {
        refused.error
    }
}

/// Sends `fields` to the discovered authorization server's token endpoint; returns the
/// JSON answer of a success.
pub(crate) async fn request(
    fetch: &Fetcher,
    dpop: Option<&Dpop>,
    discovered: &Discovered,
    credentials: &ClientCredentials,
    fields: Vec<(&'static str, String)>,
) -> Result<Value, Refused> {
    let metadata = &discovered.metadata;
    let endpoint = metadata
        .get("token_endpoint")
        .and_then(Value::as_str)
        .ok_or_else(|| AuthError::Protocol("the authorization server has no token_endpoint".into()))?;
    for attempt in 0..2 {
        let (mut form, mut headers) = (fields.clone(), Vec::new());
        authenticate(credentials, metadata, &discovered.issuer, &mut form, &mut headers)?;
        if let Some(dpop) = dpop {
            headers.push(("dpop", dpop.proof("POST", endpoint, None)?));
        }
        let response = fetch.post_form(endpoint, &form, &headers).await?;
        let fresh_nonce = dpop.is_some_and(|d| d.take_nonce_header(endpoint, &response.headers));
        if response.status.is_success() {
            return response
                .json()
                .ok_or_else(|| AuthError::Protocol("the token response is not JSON".into()).into());
        }
        let error = response.json().and_then(|v| v.get("error").and_then(Value::as_str).map(str::to_owned));
        if attempt == 0 && fresh_nonce && error.as_deref() == Some("use_dpop_nonce") {
            continue;
        }
        let error_text = refused("the token request", &response, &secrets_of(&form, &headers));
        return Err(Refused {
            error: error_text,
            invalid_client: error.as_deref() == Some("invalid_client"),
        });
    }
    Err(AuthError::Denied("the token endpoint kept asking for a new DPoP nonce".into()).into())
}

/// The form fields whose values are secrets (codes, verifiers, credentials, tokens).
const SECRET_FIELDS: [&str; 7] = [
    "code",
    "code_verifier",
    "refresh_token",
    "client_secret",
    "client_assertion",
    "assertion",
    "subject_token",
];

/// The secrets a request carried: its secret form fields and its `Authorization` header.
fn secrets_of<'a>(form: &'a [(&'static str, String)], headers: &'a [(&'static str, String)]) -> Vec<&'a str> {
    let fields = form.iter().filter(|(k, _)| SECRET_FIELDS.contains(k)).map(|(_, v)| v.as_str());
    let headers = headers.iter().filter(|(k, _)| k.eq_ignore_ascii_case("authorization"));
    let credentials = headers.map(|(_, v)| v.split_once(' ').map_or(v.as_str(), |(_, c)| c));
    fields.chain(credentials).filter(|s| !s.is_empty()).collect()
}

/// A refusal, with the start of the server's answer: without the request's `secrets`
/// (a server may echo what it was sent, and the error reaches logs) or control
/// characters.
fn refused(what: &str, response: &Fetched, secrets: &[&str]) -> AuthError {
    let mut body = String::from_utf8_lossy(&response.body).into_owned();
    for secret in secrets {
        for form in [secret.to_string(), encode(secret)] {
            body = body.replace(&form, "[redacted]");
        }
    }
    let body: String =
        body.chars().map(|c| if c.is_control() { ' ' } else { c }).take(MAX_ERROR_BODY).collect();
    AuthError::Denied(format!("{what} failed: {} {body}", response.status))
}

/// Posts a form to another server's token endpoint (an identity provider's token
/// exchange) and returns the JSON answer of a success.
pub(crate) async fn post_form_for_json(
    fetch: &Fetcher,
    url: &str,
    form: &[(&'static str, String)],
    headers: &[(&'static str, String)],
) -> Result<Value, AuthError> {
    let response = fetch.post_form(url, form, headers).await?;
    match response.json() {
        Some(v) if response.status.is_success() => Ok(v),
        _ => {
            Err(refused("the token exchange at the identity provider", &response, &secrets_of(form, headers)))
        }
    }
}

/// The tokens of a token response. `scope` defaults to the scopes asked for, the
/// refresh token to `old_refresh`. `proof_sent` says whether the request carried a DPoP
/// proof: a DPoP-bound token issued without one is refused.
pub(crate) fn parse_tokens(
    answer: &Value,
    issuer: &str,
    asked: &BTreeSet<String>,
    old_refresh: Option<String>,
    proof_sent: bool,
) -> Result<Tokens, AuthError> {
    let text = |name: &str| answer.get(name).and_then(Value::as_str).map(str::to_owned);
    let access_token = text("access_token")
        .ok_or_else(|| AuthError::Protocol("the token response has no access_token".into()))?;
    // RFC 6749 A.12: 1*VSCHAR. Any other token could not go in an Authorization header,
    // and every request would go out without one. (The token itself is never shown.)
    if access_token.is_empty() || !access_token.bytes().all(|b| (0x20..=0x7e).contains(&b)) {
        return Err(AuthError::Protocol(
            "the token response's access_token is empty or not visible ASCII".into(),
        ));
    }
    // RFC 6749 §7.1: a client must not use a token of a type it does not understand.
    // A missing one is read as `Bearer` (some servers leave it out); one that is not a
    // string names no type the client knows.
    let token_type = match answer.get("token_type") {
        None => "Bearer".to_owned(),
        Some(Value::String(t)) => t.clone(),
        Some(_) => return Err(AuthError::Protocol("the token response's token_type is not a string".into())),
    };
    let dpop = token_type.eq_ignore_ascii_case("dpop");
    if !token_type.eq_ignore_ascii_case("bearer") && !dpop {
        let shown: String = token_type.chars().take(64).collect();
        return Err(AuthError::Protocol(format!(
            "the token response's token_type {shown:?} is neither Bearer nor DPoP"
        )));
    }
    // RFC 9449 §7.1: a DPoP-bound token must not be sent as a bearer token, and without
    // a proof at the token endpoint there is no key it could be bound to.
    if dpop && !proof_sent {
        return Err(AuthError::Protocol(
            "the token endpoint issued a DPoP-bound token (token_type DPoP) to a request that sent no DPoP proof; it cannot be used as a bearer token".into(),
        ));
    }
    let scope = text("scope")
        .or_else(|| (!asked.is_empty()).then(|| asked.iter().cloned().collect::<Vec<_>>().join(" ")));
    Ok(Tokens {
        access_token,
        token_type,
        refresh_token: text("refresh_token").or(old_refresh),
        // A number, or (some servers) a numeric string.
        expires_at: answer
            .get("expires_in")
            .and_then(|v| v.as_u64().or_else(|| v.as_str().and_then(|s| s.trim().parse().ok())))
            .map(|s| now_secs().saturating_add(s)),
        scope,
        issuer: Some(issuer.to_owned()),
    })
}
