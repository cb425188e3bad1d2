//! `everything-client URL`: the conformance client. The official harness runs it once per
//! scenario with `MCP_CONFORMANCE_SCENARIO`, `MCP_CONFORMANCE_PROTOCOL_VERSION` and
//! sometimes `MCP_CONFORMANCE_CONTEXT` (JSON) set; it must do what the scenario asks and
//! exit 0. Logs go to stderr (`RUST_LOG` sets the level).

#![forbid(unsafe_code)]

use std::process::ExitCode;
use std::sync::Arc;

use mcpwire::auth::{
    ClientCredentials, Grant, IdentityProvider, OAuthClient, OAuthConfig, SigningKey, StaticAssertion,
};
use mcpwire::client::{Client, ClientBuilder};
use mcpwire::protocol::elicitation::{ElicitRequestParams, ElicitResult};
use mcpwire::protocol::ProtocolVersion;
use mcpwire::transport::http_client::HttpClientTransport;
use serde_json::{json, Map, Value};

type Outcome = Result<(), Box<dyn std::error::Error>>;

/// Fills every field of a form elicitation: its default, else a plain value of its type.
fn fill_form(params: &ElicitRequestParams) -> ElicitResult {
    let schema = serde_json::to_value(params).unwrap_or(Value::Null);
    let mut content = Map::new();
    if let Some(Value::Object(properties)) = schema.get("requestedSchema").and_then(|s| s.get("properties")) {
        for (name, prop) in properties {
            let value = match prop.get("default") {
                Some(d) => d.clone(),
                None => match prop.get("type").and_then(Value::as_str) {
                    Some("boolean") => json!(true),
                    Some("integer") | Some("number") => json!(1),
                    Some("array") => json!([]),
                    _ => match prop.get("enum").and_then(|e| e.get(0)) {
                        Some(first) => first.clone(),
                        None => json!("test"),
                    },
                },
            };
            content.insert(name.clone(), value);
        }
    }
    serde_json::from_value(json!({ "action": "accept", "content": content }))
        .unwrap_or_else(|_| ElicitResult::action(mcpwire::protocol::elicitation::ElicitAction::Decline))
}

fn builder(version: &str, force_legacy: bool) -> ClientBuilder {
    // Over HTTP the era probe waits as long as any request, the authorization a first
    // 401 starts included: the defaults fit.
    let mut builder = Client::builder("mcpwire-everything-client", env!("CARGO_PKG_VERSION"))
        .on_elicitation(|params| async move { Ok(fill_form(&params)) })
        .on_sampling(|_| async {
            Ok(serde_json::from_value(json!({ "role": "assistant", "content": { "type": "text", "text": "ok" }, "model": "everything-client" }))?)
        })
        .on_roots(|| async { Ok(serde_json::from_value(json!({ "roots": [{ "uri": "file:///tmp", "name": "tmp" }] }))?) });
    let version = ProtocolVersion::parse(version);
    if force_legacy || version.era() == Some(mcpwire::protocol::Era::Stateful) {
        let pinned = if version.era() == Some(mcpwire::protocol::Era::Stateful) {
            version
        } else {
            ProtocolVersion::LATEST_STATEFUL
        };
        builder = builder.protocol_version(pinned);
    }
    builder
}

async fn connect(url: &str, version: &str, force_legacy: bool) -> Result<Client, Box<dyn std::error::Error>> {
    Ok(builder(version, force_legacy).connect(HttpClientTransport::new(url)?).await?)
}

/// The fixed Client ID Metadata Document URL of the conformance suite.
const CIMD_URL: &str = "https://conformance-test.local/client-metadata.json";

/// The OAuth configuration of an `auth/*` scenario. The authorization server approves
/// without a user, so the authorization URL is fetched and its redirect read.
/// Pre-registered credentials come from the context when the scenario gives them; the
/// extension scenarios choose a machine-to-machine grant:
/// - `client-credentials-jwt`: `client_credentials` with `private_key_jwt` (the context's
///   PKCS#8 key);
/// - `client-credentials-basic`: `client_credentials` with `client_secret_basic`;
/// - `enterprise-managed-authorization`: the ID-JAG token exchange at the context's
///   identity provider, then the `jwt-bearer` grant;
/// - `wif-jwt-bearer`: the `jwt-bearer` grant with the context's workload token.
///
/// DPoP needs no setting: the library binds tokens when the server supports it.
fn oauth_config(scenario: &str, context: &Value) -> Result<OAuthConfig, Box<dyn std::error::Error>> {
    let text = |name: &str| context.get(name).and_then(Value::as_str).map(str::to_owned);
    let mut config = OAuthConfig {
        client_name: "mcpwire-everything-client".into(),
        client_metadata_url: Some(CIMD_URL.into()),
        ..OAuthConfig::default()
    };
    let mut credentials = text("client_id").map(|client_id| ClientCredentials {
        client_id,
        client_secret: text("client_secret"),
        ..ClientCredentials::default()
    });
    match scenario {
        "auth/client-credentials-jwt" => {
            let pem = text("private_key_pem").ok_or("the context has no private_key_pem")?;
            let key = SigningKey::from_pem(&pem, text("signing_algorithm").as_deref())?;
            if let Some(c) = credentials.as_mut() {
                c.signing_key = Some(Arc::new(key));
                c.token_endpoint_auth_method = Some("private_key_jwt".into());
            }
            config.grant = Grant::ClientCredentials;
        }
        "auth/client-credentials-basic" => {
            if let Some(c) = credentials.as_mut() {
                c.token_endpoint_auth_method = Some("client_secret_basic".into());
            }
            config.grant = Grant::ClientCredentials;
        }
        "auth/enterprise-managed-authorization" => {
            config.grant = Grant::IdentityAssertion(IdentityProvider {
                token_endpoint: text("idp_token_endpoint").ok_or("the context has no idp_token_endpoint")?,
                client_id: text("idp_client_id").ok_or("the context has no idp_client_id")?,
                client_secret: None,
                id_token: Arc::new(StaticAssertion(
                    text("idp_id_token").ok_or("the context has no idp_id_token")?,
                )),
            });
        }
        "auth/wif-jwt-bearer" => {
            let jwt = text("valid_jwt").ok_or("the context has no valid_jwt")?;
            config.grant = Grant::JwtBearer(Arc::new(StaticAssertion(jwt)));
        }
        _ => {}
    }
    config.pre_registered = credentials.map(|c| (None, c));
    Ok(config)
}

/// Connects with OAuth configured for the scenario.
async fn connect_oauth(
    url: &str,
    version: &str,
    scenario: &str,
    context: &Value,
) -> Result<Client, Box<dyn std::error::Error>> {
    let client = OAuthClient::new(oauth_config(scenario, context)?);
    let transport = HttpClientTransport::new(url)?.oauth(client);
    Ok(builder(version, false).connect(transport).await?)
}

/// Lists the tools, then calls `add_numbers` (or the first tool).
async fn basic(client: &Client) -> Outcome {
    let tools = client.list_all_tools().await?;
    if tools.iter().any(|t| t.name == "add_numbers") {
        client.call_tool("add_numbers", json!({ "a": 5, "b": 3 })).await?;
    } else if let Some(first) = tools.first() {
        client.call_tool(&first.name, json!({})).await?;
    }
    Ok(())
}

/// Lists and exercises everything the server offers (tools, resources, prompts).
async fn exercise_all(client: &Client) -> Outcome {
    for tool in client.list_all_tools().await? {
        let _ = client.call_tool(&tool.name, json!({})).await;
    }
    if let Ok(resources) = client.list_all_resources().await {
        for resource in resources {
            let _ = client.read_resource(&resource.uri).await;
        }
    }
    if let Ok(prompts) = client.list_all_prompts().await {
        for prompt in prompts {
            let _ = client.get_prompt(&prompt.name, Default::default()).await;
        }
    }
    Ok(())
}

async fn run(scenario: &str, url: &str, version: &str, context: Value) -> Outcome {
    match scenario {
        "initialize" | "tools_call" | "tools-call" | "request-metadata" => {
            let client = connect(url, version, false).await?;
            basic(&client).await?;
            client.close().await;
        }
        "elicitation-sep1034-client-defaults" | "elicitation-defaults" => {
            let client = connect(url, version, false).await?;
            client.call_tool("test_client_elicitation_defaults", json!({})).await?;
            client.close().await;
        }
        "sse-retry" => {
            let client = connect(url, version, false).await?;
            client.call_tool("test_reconnection", json!({})).await?;
            client.close().await;
        }
        "http-standard-headers" | "http-invalid-tool-headers" => {
            let client = connect(url, version, false).await?;
            exercise_all(&client).await?;
            client.close().await;
        }
        "http-custom-headers" => {
            let client = connect(url, version, false).await?;
            let tools = client.list_all_tools().await?;
            let calls = context.get("toolCalls").and_then(Value::as_array).cloned().unwrap_or_default();
            for call in calls {
                let name = call.get("name").and_then(Value::as_str).unwrap_or_default();
                if tools.iter().any(|t| t.name == name) {
                    let arguments = call.get("arguments").cloned().unwrap_or_else(|| json!({}));
                    let _ = client.call_tool(name, arguments).await;
                }
            }
            client.close().await;
        }
        "sep-2322-client-request-state" => {
            let client = connect(url, version, false).await?;
            for tool in [
                "test_mrtr_echo_state",
                "test_mrtr_unrelated",
                "test_mrtr_no_state",
                "test_mrtr_no_result_type",
            ] {
                client.call_tool(tool, json!({})).await?;
            }
            client.close().await;
        }
        // Reported as 2026, but its mock speaks only the handshake.
        "json-schema-ref-no-deref" => {
            let client = connect(url, version, true).await?;
            client.list_all_tools().await?;
            client.close().await;
        }
        "json-schema-2020-12-preservation" => {
            let client = connect(url, version, false).await?;
            let tools = client.list_all_tools().await?;
            let schema = tools
                .iter()
                .find(|t| t.name == "json_schema_2020_12_tool")
                .map(|t| Value::Object(t.input_schema.clone()))
                .ok_or("the server lists no json_schema_2020_12_tool")?;
            client.call_tool("json_schema_echo", json!({ "schema": schema })).await?;
            client.close().await;
        }
        auth if auth.starts_with("auth/") => {
            let client = connect_oauth(url, version, auth, &context).await?;
            let tools = client.list_all_tools().await?;
            if let Some(first) = tools.first() {
                client.call_tool(&first.name, json!({})).await?;
            }
            client.close().await;
        }
        _ => {
            let client = connect(url, version, false).await?;
            basic(&client).await?;
            client.close().await;
        }
    }
    Ok(())
}

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .init();
    let Some(url) = std::env::args().nth(1) else {
        eprintln!("usage: everything-client URL (with MCP_CONFORMANCE_SCENARIO set)");
        return ExitCode::from(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let version = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").unwrap_or_else(|_| "2025-11-25".into());
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or(Value::Null);
    match run(&scenario, &url, &version, context).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("everything-client: scenario {scenario:?} failed: {e}");
            ExitCode::FAILURE
        }
    }
}
