//! The handshake: the era probe (`server/discover`, `-32022` retries, the `initialize`
//! fallback, and a late stateless answer to that fallback), and the 2025 `initialize`.

use std::sync::OnceLock;
use std::time::Duration;

use mcpwire_protocol::capabilities::ClientCapabilities;
use mcpwire_protocol::lifecycle::{request_envelope, DiscoverResult, Implementation, InitializeResult};
use mcpwire_protocol::{codes, methods, Era, ErrorObject, ProtocolVersion};

use super::{ClientOptions, ConnectError, Session};
use crate::error::RequestError;
use crate::jsonrpc::{CallOptions, Peer};

/// The newest stateless version both sides speak.
pub(super) fn shared_stateless(supported: &[ProtocolVersion]) -> Option<ProtocolVersion> {
    ProtocolVersion::STATELESS.iter().rev().find(|v| supported.contains(v)).cloned()
}

/// `server/discover` with the envelope of `version`.
async fn discover(
    peer: &Peer,
    version: &ProtocolVersion,
    capabilities: &ClientCapabilities,
    info: &Implementation,
    timeout: Duration,
) -> Result<DiscoverResult, RequestError> {
    let params = serde_json::json!({ "_meta": request_envelope(version, capabilities, Some(info), None) });
    let raw = serde_json::value::to_raw_value(&params).map_err(RequestError::Encode)?;
    let result = peer
        .request_raw(
            methods::SERVER_DISCOVER,
            Some(raw),
            CallOptions { timeout: Some(timeout), ..Default::default() },
        )
        .await?;
    let discovered: DiscoverResult =
        serde_json::from_str(result.get()).map_err(RequestError::InvalidResult)?;
    // `server/discover` is answered complete or not at all (an unknown `resultType` is
    // invalid).
    match &discovered.result_type {
        None | Some(mcpwire_protocol::ResultType::Complete) => Ok(discovered),
        Some(other) => Err(RequestError::Protocol(format!(
            "server/discover answered with resultType {:?}, not \"complete\"",
            other.as_str()
        ))),
    }
}

/// Probes the era: `server/discover` first; a recognised `-32022` error means a stateless
/// (2026) server (retry once with a shared version), and so do `-32020` and `-32021`
/// (the connection fails with the server's error); anything else falls back to
/// `initialize`, except a timeout over a transport that answers every request
/// (`answers_every_request`, HTTP): the server answered nothing at all, where a 2025-era
/// server refuses the probe at once, so it is unresponsive and the connection fails
/// rather than wait as long again for `initialize`. `[stateless, stateful]`: the
/// capabilities declared in each era.
pub(super) async fn probe(
    peer: &Peer,
    [capabilities, stateful_capabilities]: [&ClientCapabilities; 2],
    info: &Implementation,
    options: &ClientOptions,
    answers_every_request: bool,
    era: &OnceLock<Era>,
) -> Result<Session, ConnectError> {
    let mut version = ProtocolVersion::LATEST;
    for attempt in 0..2 {
        match discover(peer, &version, capabilities, info, options.probe_timeout).await {
            Ok(d) => {
                if d.supported_versions.contains(&version) {
                    return Ok(Session::Stateless { version, discover: Some(d) });
                }
                match shared_stateless(&d.supported_versions) {
                    Some(v) if attempt == 0 => version = v,
                    // A discover result naming no stateless version we speak: the server's
                    // 2026 side is unusable, try its 2025 side.
                    _ => break,
                }
            }
            Err(RequestError::Peer(e)) if e.code == codes::UNSUPPORTED_PROTOCOL_VERSION => {
                let supported = supported_versions(&e);
                match shared_stateless(&supported) {
                    // Retry once with a version the server lists (even the one just
                    // sent: the spec says to retry with a supported version).
                    Some(v) if attempt == 0 => version = v,
                    _ if supported.iter().any(|v| v.era() == Some(Era::Stateful)) => break,
                    _ => {
                        return Err(ConnectError::NoSharedVersion {
                            supported: supported.iter().map(|v| v.to_string()).collect(),
                        })
                    }
                }
            }
            // Errors only a stateless (2026) server sends: the server is modern but refused
            // this probe for a reason a retry would not change, so there is no 2025 side
            // to fall back to.
            Err(RequestError::Peer(e))
                if matches!(e.code, codes::HEADER_MISMATCH | codes::MISSING_REQUIRED_CLIENT_CAPABILITY) =>
            {
                return Err(ConnectError::Handshake(RequestError::Peer(e)))
            }
            // A discover result of the 2026 shape whose resultType is not `complete`: a
            // 2026 server answering wrongly, not a 2025 one.
            Err(
                e @ (RequestError::ConnectionClosed { .. }
                | RequestError::NotRunning
                | RequestError::Protocol(_)),
            ) => return Err(ConnectError::Handshake(e)),
            // No answer at all over HTTP: not a 2025-era server's refusal, but silence.
            Err(e @ RequestError::Timeout { .. }) if answers_every_request => {
                return Err(ConnectError::Handshake(e))
            }
            // Any other error, or a timeout (stdio: a 2025-era server may leave a method
            // it does not know unanswered): a 2025-era server.
            Err(e) => {
                tracing::debug!("server/discover failed ({e}); falling back to initialize");
                break;
            }
        }
    }
    match initialize(peer, &ProtocolVersion::LATEST_STATEFUL, stateful_capabilities, info, options, era).await
    {
        // A stateless (2026) server that answered the probe too late (a slow start, say) has fixed
        // its stream to the 2026 era by now, and says so: it is stateless after all.
        Err(ConnectError::Handshake(RequestError::Peer(e)))
            if e.code == codes::UNSUPPORTED_PROTOCOL_VERSION =>
        {
            tracing::debug!("initialize was refused with {e}; the server is stateless (2026)");
            stateless_after_all(peer, &supported_versions(&e), capabilities, info, options).await
        }
        other => other.map(Session::Stateful),
    }
}

/// The `supported` versions of a `-32022` error: its strings (an entry of another type
/// is skipped, not taken to void the whole list).
fn supported_versions(error: &ErrorObject) -> Vec<ProtocolVersion> {
    let listed = error.data.as_ref().and_then(|d| d.get("supported")).and_then(|s| s.as_array());
    listed.into_iter().flatten().filter_map(|v| v.as_str()).map(ProtocolVersion::parse).collect()
}

/// Connects in the 2026 era after `initialize` was refused as a stateless (2026) server refuses it:
/// `server/discover` again, with the request timeout this time.
async fn stateless_after_all(
    peer: &Peer,
    supported: &[ProtocolVersion],
    capabilities: &ClientCapabilities,
    info: &Implementation,
    options: &ClientOptions,
) -> Result<Session, ConnectError> {
    let no_shared =
        || ConnectError::NoSharedVersion { supported: supported.iter().map(|v| v.to_string()).collect() };
    // Without a list, try the newest version; the server's answer tells.
    let version = match shared_stateless(supported) {
        Some(v) => v,
        None if supported.is_empty() => ProtocolVersion::LATEST,
        None => return Err(no_shared()),
    };
    let discovered = discover(peer, &version, capabilities, info, options.request_timeout)
        .await
        .map_err(ConnectError::Handshake)?;
    if !discovered.supported_versions.contains(&version) {
        return Err(ConnectError::NoSharedVersion {
            supported: discovered.supported_versions.iter().map(|v| v.to_string()).collect(),
        });
    }
    Ok(Session::Stateless { version, discover: Some(discovered) })
}

/// The 2025 handshake: `initialize`, a version check, `notifications/initialized`. The
/// era is set to 2025 before `notifications/initialized` goes out, so that the server's
/// requests after it reach the callbacks (before it, they are refused).
pub(super) async fn initialize(
    peer: &Peer,
    version: &ProtocolVersion,
    capabilities: &ClientCapabilities,
    info: &Implementation,
    options: &ClientOptions,
    era: &OnceLock<Era>,
) -> Result<InitializeResult, ConnectError> {
    let params =
        serde_json::json!({ "protocolVersion": version, "capabilities": capabilities, "clientInfo": info });
    let raw = serde_json::value::to_raw_value(&params)
        .map_err(|e| ConnectError::Handshake(RequestError::Encode(e)))?;
    let call = CallOptions { timeout: Some(options.request_timeout), ..Default::default() };
    let result =
        peer.request_raw(methods::INITIALIZE, Some(raw), call).await.map_err(ConnectError::Handshake)?;
    let init: InitializeResult =
        serde_json::from_str(result.get()).map_err(|e| ConnectError::InvalidAnswer(e.to_string()))?;
    if !ProtocolVersion::STATEFUL.contains(&init.protocol_version) {
        return Err(ConnectError::NoSharedVersion { supported: vec![init.protocol_version.to_string()] });
    }
    let _ = era.set(Era::Stateful);
    peer.notify(methods::INITIALIZED, None).await;
    Ok(init)
}
