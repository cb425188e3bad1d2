//! One type for everything a server registers, so definitions can be collected in a list
//! ([`ServerBuilder::register_all`](super::ServerBuilder::register_all)).

use super::{PromptDef, ResourceDef, TemplateDef, ToolDef};

/// A tool, prompt, resource or resource template, ready to register.
#[derive(Clone, Debug)]
pub enum Definition {
    /// A tool.
    Tool(ToolDef),
    /// A prompt.
    Prompt(PromptDef),
    /// A resource with a fixed URI.
    Resource(ResourceDef),
    /// A resource template.
    Template(TemplateDef),
}

impl From<ToolDef> for Definition {
    fn from(def: ToolDef) -> Self {
        Definition::Tool(def)
    }
}

impl From<PromptDef> for Definition {
    fn from(def: PromptDef) -> Self {
        Definition::Prompt(def)
    }
}

impl From<ResourceDef> for Definition {
    fn from(def: ResourceDef) -> Self {
        Definition::Resource(def)
    }
}

impl From<TemplateDef> for Definition {
    fn from(def: TemplateDef) -> Self {
        Definition::Template(def)
    }
}
