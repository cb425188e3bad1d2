//! Tools, a resource and a prompt written as methods of the server's own type: a shopping
//! list that every request shares, served over stdio.
//!
//! `#[mcpwire::handlers]` on the `impl` block makes its functions marked `#[tool]`,
//! `#[resource(..)]` and `#[prompt]` definitions (they take what the free-function forms
//! take) and adds `definitions()` to the block. The `&self` methods run on one clone of
//! the list, so what they change lives behind an `Arc`; requests run at once, so it is
//! behind a lock too.
//!
//! ```sh
//! cargo build -p mcpwire --example methods
//! mcpwire call stdio:target/debug/examples/methods add name=apples quantity=3
//! mcpwire read stdio:target/debug/examples/methods shopping://list
//! ```

use std::sync::{Arc, Mutex};

use mcpwire::server::{Ctx, Server, ToolError};
use schemars::JsonSchema;
use serde::Serialize;

/// The resource that shows the list.
const LIST_URI: &str = "shopping://list";

/// One line of the list.
#[derive(Clone, Serialize, JsonSchema)]
struct Item {
    name: String,
    quantity: u32,
}

/// The list after a change: the structured result of `add`.
#[derive(Serialize, JsonSchema)]
struct Listed {
    items: Vec<Item>,
}

/// The server's state: cloning it shares the list.
#[derive(Clone, Default)]
struct ShoppingList {
    items: Arc<Mutex<Vec<Item>>>,
}

#[mcpwire::handlers]
impl ShoppingList {
    /// Puts something on the list (more of it, if it is there already).
    #[tool]
    async fn add(
        &self,
        ctx: Ctx,
        /// What to buy.
        name: String,
        /// How many (1 if not given).
        quantity: Option<u32>,
    ) -> Result<Listed, ToolError> {
        let name = name.trim().to_lowercase();
        if name.is_empty() {
            return Err(ToolError::new("name something to buy"));
        }
        let items = {
            let mut items = self.lock();
            let quantity = quantity.unwrap_or(1);
            match items.iter_mut().find(|i| i.name == name) {
                Some(item) => item.quantity = item.quantity.saturating_add(quantity),
                None => items.push(Item { name, quantity }),
            }
            items.clone()
        };
        // Clients that subscribed to the list (2025 `resources/subscribe`, 2026
        // `subscriptions/listen`) hear that it changed.
        ctx.notify_resource_updated(LIST_URI);
        Ok(Listed { items })
    }

    /// Crosses something off the list.
    #[tool(destructive_hint = true, idempotent_hint = true)]
    async fn remove(&self, ctx: Ctx, name: String) -> Result<String, ToolError> {
        let name = name.trim().to_lowercase();
        let removed = {
            let mut items = self.lock();
            let before = items.len();
            items.retain(|i| i.name != name);
            items.len() < before
        };
        if !removed {
            return Err(ToolError::new(format!("{name} is not on the list")));
        }
        ctx.notify_resource_updated(LIST_URI);
        Ok(format!("crossed off {name}"))
    }

    /// The list, one line an item.
    #[resource(uri = "shopping://list", mime_type = "text/plain")]
    async fn list(&self) -> String {
        self.lock().iter().map(|i| format!("{} x {}\n", i.quantity, i.name)).collect()
    }

    /// Asks the model for meals that use what is on the list.
    #[prompt(title = "Plan meals")]
    async fn plan_meals(
        &self,
        /// For how many days.
        days: u32,
    ) -> String {
        let names: Vec<String> = self.lock().iter().map(|i| i.name.clone()).collect();
        format!("Plan {days} days of meals using: {}.", names.join(", "))
    }

    /// The list, locked; a handler that panicked while holding it left it whole (every
    /// change above is one step), so a poisoned lock is taken as it is.
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Item>> {
        self.items.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let list = ShoppingList::default();
    let server = Server::builder("shopping-list", "1.0.0").register_all(list.definitions()).build()?;
    server.serve_stdio().await;
    Ok(())
}
