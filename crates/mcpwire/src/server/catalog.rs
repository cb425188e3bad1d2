//! What a server offers (tools, resources, templates, prompts), checked and indexed, and
//! how it changes while the server runs.
//!
//! The catalog is one immutable value behind a lock: a request takes the current one (an
//! `Arc` clone) and keeps it to its end, so a change never shows a request half of
//! itself; a change builds the next catalog through the same checks as
//! [`ServerBuilder::build`](super::ServerBuilder::build), swaps it in, and then tells the
//! clients (`notifications/*/list_changed`).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, PoisonError, RwLock};

use mcpwire_protocol::tool_definition::{self, ParamHeader};

use super::prompt::PromptDef;
use super::resource::{ResourceDef, TemplateDef};
use super::tool::{is_valid_tool_name, ToolDef};
use super::{schema, tasks, BuildError, Definition, NameIndex, Server, ServerEvent};

/// The registered definitions, indexed by name or URI.
#[derive(Default)]
pub(crate) struct Catalog {
    pub(crate) tools: Vec<ToolDef>,
    tool_index: NameIndex,
    /// The `x-mcp-header` annotations of each tool that has some (the 2026 HTTP header
    /// check), derived once here rather than from the schema on every call.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    param_headers: HashMap<String, Vec<ParamHeader>>,
    pub(crate) resources: Vec<ResourceDef>,
    resource_index: NameIndex,
    pub(crate) templates: Vec<TemplateDef>,
    pub(crate) prompts: Vec<PromptDef>,
    prompt_index: NameIndex,
}

/// The definitions a catalog is made from.
#[derive(Clone, Default)]
pub(crate) struct Definitions {
    pub(crate) tools: Vec<ToolDef>,
    pub(crate) resources: Vec<ResourceDef>,
    pub(crate) templates: Vec<TemplateDef>,
    pub(crate) prompts: Vec<PromptDef>,
}

impl Catalog {
    /// Checks and indexes `definitions`: valid tool names and schemas, no name or URI
    /// twice, templates that parse.
    pub(crate) fn new(definitions: Definitions) -> Result<Catalog, BuildError> {
        let Definitions { tools, resources, templates, prompts } = definitions;
        let mut param_headers = HashMap::new();
        for def in &tools {
            let name = &def.tool.name;
            if !is_valid_tool_name(name) {
                return Err(BuildError::InvalidToolName(name.clone()));
            }
            if !schema::is_object_schema(&def.tool.input_schema) {
                return Err(BuildError::InvalidInputSchema(name.clone()));
            }
            if def.tool.output_schema.as_ref().is_some_and(|s| !schema::is_object_schema(s)) {
                return Err(BuildError::InvalidOutputSchema(name.clone()));
            }
            match tool_definition::tool_param_headers(&def.tool.input_schema) {
                Err(reason) => return Err(BuildError::InvalidParamHeader { tool: name.clone(), reason }),
                Ok(annotated) if !annotated.is_empty() => {
                    param_headers.insert(name.clone(), annotated);
                }
                Ok(_) => {}
            }
        }
        let tool_index = index(tools.iter().map(|t| &t.tool.name), "tool")?;
        let resource_index = index(resources.iter().map(|r| &r.resource.uri), "resource")?;
        let prompt_index = index(prompts.iter().map(|p| &p.prompt.name), "prompt")?;
        let mut seen_templates = HashSet::new();
        for def in &templates {
            let template = &def.template.uri_template;
            if let Err(reason) = &def.parsed {
                return Err(BuildError::InvalidTemplate {
                    template: template.clone(),
                    reason: reason.clone(),
                });
            }
            if !seen_templates.insert(template) {
                return Err(BuildError::Duplicate { kind: "resource template", name: template.clone() });
            }
        }
        Ok(Catalog {
            tools,
            tool_index,
            param_headers,
            resources,
            resource_index,
            templates,
            prompts,
            prompt_index,
        })
    }

    /// The definitions, copied (the handlers are shared), for the next catalog.
    fn definitions(&self) -> Definitions {
        Definitions {
            tools: self.tools.clone(),
            resources: self.resources.clone(),
            templates: self.templates.clone(),
            prompts: self.prompts.clone(),
        }
    }

    /// The tool called `name`.
    pub(crate) fn tool(&self, name: &str) -> Option<&ToolDef> {
        self.tool_index.get(name).map(|i| &self.tools[*i])
    }

    /// The `x-mcp-header` annotations of the tool called `name`, if it has any.
    #[cfg(feature = "http")]
    pub(crate) fn param_headers(&self, name: &str) -> Option<&[ParamHeader]> {
        self.param_headers.get(name).map(Vec::as_slice)
    }

    /// The resource with the fixed URI `uri`.
    pub(crate) fn resource(&self, uri: &str) -> Option<&ResourceDef> {
        self.resource_index.get(uri).map(|i| &self.resources[*i])
    }

    /// Whether a template is written exactly `uri_template`.
    pub(crate) fn has_template(&self, uri_template: &str) -> bool {
        self.templates.iter().any(|t| t.template.uri_template == uri_template)
    }

    /// The prompt called `name`.
    pub(crate) fn prompt(&self, name: &str) -> Option<&PromptDef> {
        self.prompt_index.get(name).map(|i| &self.prompts[*i])
    }
}

fn index<'a>(names: impl Iterator<Item = &'a String>, kind: &'static str) -> Result<NameIndex, BuildError> {
    let mut map = NameIndex::default();
    for (i, name) in names.enumerate() {
        if map.insert(name.clone(), i).is_some() {
            return Err(BuildError::Duplicate { kind, name: name.clone() });
        }
    }
    Ok(map)
}

/// The current catalog, swapped whole on a change.
#[derive(Default)]
pub(crate) struct SharedCatalog(RwLock<Arc<Catalog>>);

impl SharedCatalog {
    pub(crate) fn new(catalog: Catalog) -> Self {
        SharedCatalog(RwLock::new(Arc::new(catalog)))
    }

    /// The catalog now; a change after this does not alter it.
    pub(crate) fn current(&self) -> Arc<Catalog> {
        // The lock guards a swap of one `Arc`, which cannot panic half-done.
        self.0.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Makes the next catalog from a copy of the current definitions; nothing changes
    /// when `change` or the checks fail. Changes are made one at a time, so none is lost.
    fn change<T>(
        &self,
        change: impl FnOnce(&mut Definitions) -> Result<T, BuildError>,
    ) -> Result<T, BuildError> {
        let mut current = self.0.write().unwrap_or_else(PoisonError::into_inner);
        let mut definitions = current.definitions();
        let outcome = change(&mut definitions)?;
        *current = Arc::new(Catalog::new(definitions)?);
        Ok(outcome)
    }
}

/// Run-time changes to what the server offers. Each is seen by requests that start after
/// it (a request under way keeps what it started with), and each tells the connected
/// clients that asked for it (`notifications/tools/list_changed` and its siblings, as
/// [`Server::notify`]). A family can change only if the server declares it: something of
/// it was registered when the server was built, or
/// [`ServerBuilder::declare_tools`](super::ServerBuilder::declare_tools) (or `_resources`,
/// `_prompts`) declared it empty. In a cluster each instance holds its own catalog:
/// make the same change on every instance.
impl Server {
    /// Adds a tool, prompt, resource or template (as [`ServerBuilder::register`](super::ServerBuilder::register)
    /// does before the server is built): [`Server::add_tool`] and its siblings by kind.
    pub fn add(&self, definition: impl Into<Definition>) -> Result<(), BuildError> {
        match definition.into() {
            Definition::Tool(tool) => self.add_tool(tool),
            Definition::Prompt(prompt) => self.add_prompt(prompt),
            Definition::Resource(resource) => self.add_resource(resource),
            Definition::Template(template) => self.add_resource_template(template),
        }
    }

    /// Adds a tool. Fails, changing nothing, when the server does not declare tools, when
    /// a tool of that name exists, when the tool is invalid as
    /// [`ServerBuilder::build`](super::ServerBuilder::build) checks it, or when it may run
    /// as a task and the server was built without any such tool (the tasks capability is
    /// fixed when the server is built).
    pub fn add_tool(&self, tool: ToolDef) -> Result<(), BuildError> {
        if !matches!(tool.task_support, tasks::TaskSupport::Forbidden) && !self.inner.tasks_enabled {
            return Err(BuildError::Undeclared {
                family: "tasks",
                remedy: "a tool that runs as a task registered on the ServerBuilder",
            });
        }
        self.add_to(Family::Tools, |d| d.tools.push(tool))
    }

    /// Removes the tool called `name`; `false` (and no notification) if there is none.
    /// Calls of it under way run to their end.
    pub fn remove_tool(&self, name: &str) -> bool {
        self.remove_from(Family::Tools, |d| remove_where(&mut d.tools, |t| t.tool.name == name))
    }

    /// Adds a resource with a fixed URI. Fails, changing nothing, when the server does not
    /// declare resources or a resource with that URI exists.
    pub fn add_resource(&self, resource: ResourceDef) -> Result<(), BuildError> {
        self.add_to(Family::Resources, |d| d.resources.push(resource))
    }

    /// Removes the resource with the fixed URI `uri`; `false` if there is none.
    pub fn remove_resource(&self, uri: &str) -> bool {
        self.remove_from(Family::Resources, |d| remove_where(&mut d.resources, |r| r.resource.uri == uri))
    }

    /// Adds a resource template. Fails, changing nothing, when the server does not declare
    /// resources, or the template does not parse or is registered already.
    pub fn add_resource_template(&self, template: TemplateDef) -> Result<(), BuildError> {
        self.add_to(Family::Resources, |d| d.templates.push(template))
    }

    /// Removes the resource template written exactly `uri_template`; `false` if there is
    /// none.
    pub fn remove_resource_template(&self, uri_template: &str) -> bool {
        self.remove_from(Family::Resources, |d| {
            remove_where(&mut d.templates, |t| t.template.uri_template == uri_template)
        })
    }

    /// Adds a prompt. Fails, changing nothing, when the server does not declare prompts or
    /// a prompt of that name exists.
    pub fn add_prompt(&self, prompt: PromptDef) -> Result<(), BuildError> {
        self.add_to(Family::Prompts, |d| d.prompts.push(prompt))
    }

    /// Removes the prompt called `name`; `false` if there is none.
    pub fn remove_prompt(&self, name: &str) -> bool {
        self.remove_from(Family::Prompts, |d| remove_where(&mut d.prompts, |p| p.prompt.name == name))
    }

    /// Applies an addition to `family`, if the server declares it; tells the clients.
    fn add_to(&self, family: Family, addition: impl FnOnce(&mut Definitions)) -> Result<(), BuildError> {
        let (declared, name, remedy) = match family {
            Family::Tools => (self.inner.serves.tools, "tools", "ServerBuilder::declare_tools"),
            Family::Resources => {
                (self.inner.serves.resources, "resources", "ServerBuilder::declare_resources")
            }
            Family::Prompts => (self.inner.serves.prompts, "prompts", "ServerBuilder::declare_prompts"),
        };
        if !declared {
            return Err(BuildError::Undeclared { family: name, remedy });
        }
        self.inner.catalog.change(|d| {
            addition(d);
            Ok(())
        })?;
        self.notify(family.changed());
        Ok(())
    }

    /// Applies a removal from `family`; tells the clients if something was removed.
    fn remove_from(&self, family: Family, removal: impl FnOnce(&mut Definitions) -> bool) -> bool {
        // Removing keeps every remaining definition as it was, so the checks pass.
        let removed = self.inner.catalog.change(|d| Ok(removal(d))).unwrap_or(false);
        if removed {
            self.notify(family.changed());
        }
        removed
    }
}

/// What a change is to: each has its capability and its list-change notification.
#[derive(Clone, Copy)]
enum Family {
    Tools,
    Resources,
    Prompts,
}

impl Family {
    /// The event that says this family's list changed.
    fn changed(self) -> ServerEvent {
        match self {
            Family::Tools => ServerEvent::ToolsChanged,
            Family::Resources => ServerEvent::ResourcesChanged,
            Family::Prompts => ServerEvent::PromptsChanged,
        }
    }
}

/// Removes the first item `matches` picks; whether there was one.
fn remove_where<T>(items: &mut Vec<T>, matches: impl Fn(&T) -> bool) -> bool {
    match items.iter().position(matches) {
        Some(i) => {
            items.remove(i);
            true
        }
        None => false,
    }
}
