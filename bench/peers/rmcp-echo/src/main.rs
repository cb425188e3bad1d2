//! rmcp echo server for bench/compare.sh: the tool `echo`, and for the mix the resource
//! `bench://text-100k` (100 KiB of text) and the prompt `echo-prompt` (its `text` argument
//! as a user message), as mcpwire's echo-server has them.
//!
//! - `rmcp-echo --stdio`            rmcp's fastest stdio setup (`stdio_pipes`, non-blocking pipes)
//! - `rmcp-echo --stdio-blocking`   the plain `stdio()` transport (tokio's blocking stdin/stdout)
//! - `rmcp-echo --http ADDR --mode stateless|sessions`
//!   Streamable HTTP at `/mcp`, hyper HTTP/1.1 with TCP_NODELAY. `stateless`: no sessions,
//!   JSON responses (2026-07-28 requests are always stateless in rmcp); `sessions`: rmcp's
//!   default (2025 sessions, SSE responses, local session manager).
//!
//! Add `--current-thread` to run on tokio's current-thread runtime.

use std::sync::Arc;

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, ListPromptsResult, ListResourcesResult,
    PaginatedRequestParams, Prompt, PromptArgument, PromptMessage, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, Role, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{schemars, tool, tool_handler, tool_router, ErrorData, RoleServer, ServerHandler, ServiceExt};

#[derive(Clone, Default)]
struct Echo;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    /// The text to echo.
    text: String,
}

#[tool_router]
impl Echo {
    #[tool(description = "Echoes the text back")]
    fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }
}

const RESOURCE_URI: &str = "bench://text-100k";
const PROMPT: &str = "echo-prompt";

/// The 100 KiB text of `bench://text-100k`, built once.
fn resource_text() -> &'static str {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(|| {
        const WORDS: &str = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod ";
        WORDS.bytes().cycle().take(100 * 1024).map(char::from).collect()
    })
}

#[tool_handler]
impl ServerHandler for Echo {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder().enable_tools().enable_resources().enable_prompts().build(),
        )
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let resource = Resource::new(RESOURCE_URI, "text-100k").with_mime_type("text/plain");
        Ok(ListResourcesResult::with_all_items(vec![resource]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri != RESOURCE_URI {
            return Err(ErrorData::invalid_params("unknown resource", None));
        }
        Ok(ReadResourceResult::new(vec![ResourceContents::text(resource_text(), RESOURCE_URI)]).into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let argument =
            PromptArgument::new("text").with_description("The text of the message").with_required(true);
        let prompt = Prompt::new(PROMPT, Some("Says the text back as a user message"), Some(vec![argument]));
        Ok(ListPromptsResult::with_all_items(vec![prompt]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if request.name != PROMPT {
            return Err(ErrorData::invalid_params("unknown prompt", None));
        }
        let text = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("text"))
            .and_then(|t| t.as_str())
            .ok_or_else(|| ErrorData::invalid_params("missing argument text", None))?;
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)]).into())
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let current = args.iter().any(|a| a == "--current-thread");
    let args: Vec<&str> = args.iter().map(String::as_str).filter(|a| *a != "--current-thread").collect();
    let runtime = if current {
        tokio::runtime::Builder::new_current_thread().enable_all().build()
    } else {
        tokio::runtime::Builder::new_multi_thread().enable_all().build()
    }
    .expect("runtime");
    runtime.block_on(async move {
        match args.as_slice() {
            ["--stdio"] => {
                let service = Echo.serve(rmcp::transport::stdio_pipes()).await.expect("serve");
                let _ = service.waiting().await;
            }
            ["--stdio-blocking"] => {
                let service = Echo.serve(rmcp::transport::stdio()).await.expect("serve");
                let _ = service.waiting().await;
            }
            ["--http", addr, "--mode", mode] => http(addr, mode).await,
            _ => {
                eprintln!("usage: rmcp-echo --stdio | --stdio-blocking | --http ADDR --mode stateless|sessions [--current-thread]");
                std::process::exit(2);
            }
        }
    });
}

async fn http(addr: &str, mode: &str) {
    let listener = tokio::net::TcpListener::bind(addr).await.expect("bind");
    match mode {
        "stateless" => {
            let config = StreamableHttpServerConfig::default()
                .with_legacy_session_mode(false)
                .with_json_response(true)
                .with_sse_keep_alive(None);
            let service =
                StreamableHttpService::new(|| Ok(Echo), Arc::new(NeverSessionManager::default()), config);
            accept(listener, service).await
        }
        "sessions" => {
            let service = StreamableHttpService::new(
                || Ok(Echo),
                Arc::new(LocalSessionManager::default()),
                StreamableHttpServerConfig::default(),
            );
            accept(listener, service).await
        }
        other => {
            eprintln!("rmcp-echo: unknown mode {other:?}");
            std::process::exit(2);
        }
    }
}

async fn accept<M>(listener: tokio::net::TcpListener, service: StreamableHttpService<Echo, M>)
where
    M: rmcp::transport::streamable_http_server::session::SessionManager,
{
    loop {
        let Ok((stream, _)) = listener.accept().await else { continue };
        let _ = stream.set_nodelay(true);
        let io = hyper_util::rt::TokioIo::new(stream);
        let svc = hyper_util::service::TowerToHyperService::new(service.clone());
        tokio::spawn(async move {
            let _ = hyper::server::conn::http1::Builder::new().serve_connection(io, svc).await;
        });
    }
}
