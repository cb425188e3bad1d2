//! A Streamable HTTP server in an axum `Router`, beside routes of your own: `/mcp` serves
//! MCP (both eras on one endpoint) behind `BearerAuthLayer`, which lets through only
//! requests with a valid bearer token and answers the others `401` with the challenge an
//! MCP client needs to log in; the Protected Resource Metadata document it points to is
//! served at its well-known path; `/health` is an ordinary route. tower-http adds request
//! tracing and a body size limit.
//!
//! The token check here accepts one fixed token so that the example runs alone; a real
//! server verifies tokens from its authorization server with
//! `JwtVerifier::from_issuer(issuer, audience)` or an `IntrospectionVerifier`.
//!
//! In a crate of your own it needs `mcpwire` (its default features include `http` and
//! `auth`), `axum`, `tokio`, `tower-layer` (for `Layer::layer`, which wraps the endpoint
//! in the auth layer) and `tower-http`.
//!
//! ```sh
//! cargo run -p mcpwire --example http_axum -- 127.0.0.1:8080
//! curl http://127.0.0.1:8080/health
//! mcpwire call --bearer demo-token http://127.0.0.1:8080/mcp whoami
//! ```

use axum::http::header::CONTENT_TYPE;
use axum::routing::get;
use axum::Router;
use mcpwire::auth::server::{
    BearerAuthLayer, ResourceMetadata, TokenClaims, TokenError, TokenVerifier, VerifyFuture,
};
use mcpwire::http::McpService;
use mcpwire::server::{Ctx, Server};
use mcpwire::Principal;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::trace::TraceLayer;

/// The one token this demo accepts.
const DEMO_TOKEN: &str = "demo-token";

/// Accepts [`DEMO_TOKEN`] as the user `demo-user` with scope `mcp`.
struct DemoVerifier;

impl TokenVerifier for DemoVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a> {
        Box::pin(async move {
            if token != DEMO_TOKEN {
                return Err(TokenError::Invalid("unknown token".into()));
            }
            Ok(TokenClaims {
                subject: Some("demo-user".into()),
                scopes: vec!["mcp".into()],
                ..Default::default()
            })
        })
    }
}

/// Says who is calling: the principal the bearer token was issued to.
#[mcpwire::tool]
async fn whoami(ctx: Ctx) -> String {
    match ctx.extensions().get::<Principal>() {
        Some(Principal(name)) => format!("you are {name}"),
        None => "anonymous".to_owned(),
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let addr = std::env::args().nth(1).unwrap_or_else(|| "127.0.0.1:8080".into());
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    let base = format!("http://{}", listener.local_addr()?);

    let server =
        Server::builder("http-axum-example", "1.0.0").register_all(mcpwire::definitions![whoami]).build()?;
    // What a client reads to find the authorization server (RFC 9728).
    let metadata = ResourceMetadata::new(format!("{base}/mcp"), "https://auth.example.com");
    let document = metadata.document().to_string();
    let auth = BearerAuthLayer::new(DemoVerifier, metadata.url()).required_scopes(["mcp"]);

    let mut app = Router::new()
        .route("/health", get(|| async { "ok" }))
        .route_service("/mcp", tower_layer::Layer::layer(&auth, McpService::new(server)));
    for path in metadata.well_known_paths() {
        let document = document.clone();
        app = app.route(&path, get(move || async move { ([(CONTENT_TYPE, "application/json")], document) }));
    }
    let app = app.layer(TraceLayer::new_for_http()).layer(RequestBodyLimitLayer::new(4 << 20));

    println!("listening on {base} (MCP at {base}/mcp, token {DEMO_TOKEN:?})");
    axum::serve(listener, app).await?;
    Ok(())
}
