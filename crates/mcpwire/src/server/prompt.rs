//! Prompts: named message templates with string arguments.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

use mcpwire_protocol::content::Icon;
use mcpwire_protocol::prompts::{GetPromptResult, Prompt, PromptArgument, PromptMessage};
use mcpwire_protocol::Meta;

use super::context::Ctx;
use super::tool::BoxFuture;
use crate::error::McpError;

/// The arguments of a `prompts/get` call.
#[derive(Clone, Debug, Default)]
pub struct PromptArgs(pub BTreeMap<String, String>);

impl PromptArgs {
    /// An argument's value.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }
}

/// What a prompt handler returns.
pub trait IntoPromptResult: Send + 'static {
    /// The result.
    fn into_prompt_result(self) -> Result<GetPromptResult, McpError>;
}

impl IntoPromptResult for GetPromptResult {
    fn into_prompt_result(self) -> Result<GetPromptResult, McpError> {
        Ok(self)
    }
}

impl IntoPromptResult for Vec<PromptMessage> {
    fn into_prompt_result(self) -> Result<GetPromptResult, McpError> {
        Ok(GetPromptResult { messages: self, ..Default::default() })
    }
}

impl<T: IntoPromptResult> IntoPromptResult for Result<T, McpError> {
    fn into_prompt_result(self) -> Result<GetPromptResult, McpError> {
        self.and_then(IntoPromptResult::into_prompt_result)
    }
}

type PromptHandler =
    Arc<dyn Fn(Ctx, PromptArgs) -> BoxFuture<Result<GetPromptResult, McpError>> + Send + Sync>;

/// A registered prompt.
#[derive(Clone)]
pub struct PromptDef {
    pub(crate) prompt: Prompt,
    pub(crate) handler: PromptHandler,
}

impl std::fmt::Debug for PromptDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PromptDef").field("prompt", &self.prompt).finish()
    }
}

impl PromptDef {
    /// Checks the required arguments, then runs the handler.
    pub(crate) async fn get(&self, ctx: Ctx, args: PromptArgs) -> Result<GetPromptResult, McpError> {
        for argument in self.prompt.arguments.iter().flatten() {
            if argument.required == Some(true) && !args.0.contains_key(&argument.name) {
                return Err(McpError::invalid_params(format!(
                    "Missing required argument {:?} for prompt {}",
                    argument.name, self.prompt.name
                )));
            }
        }
        (self.handler)(ctx, args).await
    }
}

/// Starts describing a prompt.
pub fn prompt(name: impl Into<String>) -> PromptBuilder {
    PromptBuilder { prompt: Prompt { name: name.into(), ..Default::default() } }
}

/// Describes a prompt.
#[derive(Debug)]
pub struct PromptBuilder {
    prompt: Prompt,
}

impl PromptBuilder {
    /// A human-readable title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.prompt.title = Some(title.into());
        self
    }

    /// A description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.prompt.description = Some(description.into());
        self
    }

    /// Declares an argument.
    pub fn argument(
        mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        required: bool,
    ) -> Self {
        let argument = PromptArgument {
            name: name.into(),
            description: Some(description.into()),
            required: Some(required),
            ..Default::default()
        };
        self.prompt.arguments.get_or_insert_with(Vec::new).push(argument);
        self
    }

    /// Icons.
    pub fn icons(mut self, icons: Vec<Icon>) -> Self {
        self.prompt.icons = Some(icons);
        self
    }

    /// `_meta`.
    pub fn meta(mut self, meta: Meta) -> Self {
        self.prompt.meta = Some(meta);
        self
    }

    /// Sets the async handler and finishes the prompt.
    pub fn handler<F, Fut, R>(self, handler: F) -> PromptDef
    where
        F: Fn(Ctx, PromptArgs) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoPromptResult,
    {
        let handler = Arc::new(handler);
        PromptDef {
            prompt: self.prompt,
            handler: Arc::new(move |ctx, args| {
                let handler = handler.clone();
                Box::pin(async move { handler(ctx, args).await.into_prompt_result() })
            }),
        }
    }
}
