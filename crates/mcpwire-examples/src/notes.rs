//! A small notes server, the example to try the command line on
//! (`mcpwire serve --example notes`): tools to add (one or several), search and delete
//! notes, each note readable as a resource (`notes://note/{id}`) with an index
//! (`notes://index`), and a prompt that asks a model to summarize them, with completion
//! of note numbers and tags.
//! Notes live in memory for the server's lifetime, up to [`MAX_NOTES`].

use std::sync::{Arc, Mutex};

use mcpwire::protocol::completion::{CompleteRequestParams, CompleteResult, Completion, CompletionReference};
use mcpwire::protocol::content::Role;
use mcpwire::protocol::prompts::PromptMessage;
use mcpwire::server::{prompt, resource, resource_template, tool, Args, Ctx, Server, State, Uri};
use mcpwire::McpError;
use schemars::JsonSchema;
use serde::Deserialize;

/// The variable of the `notes://note/{id}` template.
#[derive(Deserialize, JsonSchema)]
struct NoteUri {
    id: String,
}

/// The arguments of the `summarize` prompt.
#[derive(Deserialize, JsonSchema)]
struct Summarize {
    /// Only notes with this tag
    tag: Option<String>,
}

/// The server's name.
pub const NAME: &str = "mcpwire-notes";

/// The most notes kept: adding past it is refused, so memory stays bounded.
pub const MAX_NOTES: usize = 1000;

/// The resource listing every note: it changes with each note added or deleted.
pub const INDEX_URI: &str = "notes://index";

/// One note.
#[derive(Clone, Debug)]
struct Note {
    id: u64,
    title: String,
    text: String,
    tags: Vec<String>,
}

impl Note {
    fn uri(&self) -> String {
        format!("notes://note/{}", self.id)
    }

    fn markdown(&self) -> String {
        let tags =
            if self.tags.is_empty() { String::new() } else { format!("\n\nTags: {}", self.tags.join(", ")) };
        format!("# {}\n\n{}{tags}\n", self.title, self.text)
    }

    fn matches(&self, query: &str) -> bool {
        let query = query.to_lowercase();
        [&self.title, &self.text].iter().any(|t| t.to_lowercase().contains(&query))
            || self.tags.iter().any(|t| t.eq_ignore_ascii_case(&query))
    }
}

/// The notes, shared by every handler.
#[derive(Clone, Default)]
struct Notes(Arc<Mutex<Book>>);

#[derive(Default)]
struct Book {
    notes: Vec<Note>,
    next_id: u64,
}

impl Notes {
    fn book(&self) -> std::sync::MutexGuard<'_, Book> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn add(&self, title: String, text: String, tags: Vec<String>) -> Result<Note, String> {
        let mut added = self.add_all(vec![AddNote { title, text, tags }])?;
        added.pop().ok_or_else(|| "no note was added".to_owned())
    }

    /// Adds every note of `batch`, or none if they would not all fit.
    fn add_all(&self, batch: Vec<AddNote>) -> Result<Vec<Note>, String> {
        let mut book = self.book();
        if book.notes.len() + batch.len() > MAX_NOTES {
            let room = MAX_NOTES - book.notes.len();
            return Err(format!(
                "there is room for {room} more notes (at most {MAX_NOTES}): delete some first"
            ));
        }
        let mut added = Vec::with_capacity(batch.len());
        for AddNote { title, text, tags } in batch {
            book.next_id += 1;
            let note = Note { id: book.next_id, title, text, tags };
            book.notes.push(note.clone());
            added.push(note);
        }
        Ok(added)
    }

    /// Removes note `id`; the note, if there was one.
    fn remove(&self, id: u64) -> Option<Note> {
        let mut book = self.book();
        let at = book.notes.iter().position(|n| n.id == id)?;
        Some(book.notes.remove(at))
    }

    fn get(&self, id: u64) -> Option<Note> {
        self.book().notes.iter().find(|n| n.id == id).cloned()
    }

    fn all(&self) -> Vec<Note> {
        self.book().notes.clone()
    }
}

/// A note to add.
#[derive(Deserialize, JsonSchema)]
struct AddNote {
    /// A short title.
    title: String,
    /// The note itself.
    text: String,
    /// Labels to find it by.
    #[serde(default)]
    tags: Vec<String>,
}

// A list of structs: the tool's schema writes `AddNote`'s out in place.
/// Several notes to add.
#[derive(Deserialize, JsonSchema)]
struct AddNotes {
    /// The notes, in the order they get their numbers.
    notes: Vec<AddNote>,
}

#[derive(Deserialize, JsonSchema)]
struct Search {
    /// Words to look for in titles and texts, or a tag.
    query: String,
    /// Oldest first (the default) or newest first.
    order: Option<Order>,
}

/// The order of the notes found.
#[derive(Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Order {
    Oldest,
    Newest,
}

#[derive(Deserialize, JsonSchema)]
struct NoteId {
    /// The note's number, as `add_note` and `search_notes` show it.
    id: u64,
}

/// One line per note: `[id] title (notes://note/id)`.
fn listing(notes: &[Note]) -> String {
    notes.iter().map(|n| format!("[{}] {} ({})\n", n.id, n.title, n.uri())).collect()
}

/// The notes server, with two notes to start from.
pub fn server() -> Result<Server, mcpwire::server::BuildError> {
    builder().build()
}

/// The notes server's builder, with its tools, resources and prompts registered (to
/// build it otherwise, as one instance of a cluster for example).
pub fn builder() -> mcpwire::server::ServerBuilder {
    let notes = Notes::default();
    let seed = [
        ("Welcome", "This server keeps notes in memory. Try search_notes with query=mcp.", vec!["mcp"]),
        ("Shopping", "Coffee beans, oat milk, a notebook.", vec!["errands"]),
    ];
    for (title, text, tags) in seed {
        let _ = notes.add(title.into(), text.into(), tags.into_iter().map(str::to_owned).collect());
    }
    let for_index = notes.clone();
    let for_notes = notes.clone();
    let for_prompt = notes.clone();
    let for_completion = notes.clone();
    Server::builder(NAME, env!("CARGO_PKG_VERSION"))
        .title("Notes")
        .instructions("Keeps short notes: add_note, add_notes, search_notes, delete_note; read notes://index or notes://note/{id}; the summarize prompt asks a model to sum them up.")
        .state(notes)
        .tool(tool("add_note").description("Add a note; returns its number and URI.").handler(
            |ctx: Ctx, State(notes): State<Notes>, Args(a): Args<AddNote>| {
                let added = notes.add(a.title, a.text, a.tags)?;
                // Clients subscribed to the index (resources/subscribe, or a 2026 listen
                // stream) hear that it changed.
                ctx.notify_resource_updated(INDEX_URI);
                Ok::<_, String>(format!("Added note {} ({})", added.id, added.uri()))
            },
        ))
        .tool(tool("add_notes").description("Add several notes at once, or none if they do not all fit; returns their numbers and URIs.").handler(
            |ctx: Ctx, State(notes): State<Notes>, Args(a): Args<AddNotes>| {
                let added = notes.add_all(a.notes)?;
                if !added.is_empty() {
                    ctx.notify_resource_updated(INDEX_URI);
                }
                Ok::<_, String>(added.iter().map(|n| format!("Added note {} ({})\n", n.id, n.uri())).collect::<String>())
            },
        ))
        .tool(tool("search_notes").description("Find notes whose title or text contains the words, or that carry the tag.").handler(
            |State(notes): State<Notes>, Args(a): Args<Search>| {
                let mut found: Vec<Note> = notes.all().into_iter().filter(|n| n.matches(&a.query)).collect();
                if let Some(Order::Newest) = a.order {
                    found.reverse();
                }
                match found.is_empty() {
                    true => format!("No note matches {:?}.", a.query),
                    false => listing(&found),
                }
            },
        ))
        .tool(tool("delete_note").description("Delete a note by its number.").handler(
            |ctx: Ctx, State(notes): State<Notes>, Args(a): Args<NoteId>| {
                let Some(gone) = notes.remove(a.id) else { return Err(format!("there is no note {}", a.id)) };
                ctx.notify_resource_updated(gone.uri());
                ctx.notify_resource_updated(INDEX_URI);
                Ok(format!("Deleted note {}", a.id))
            },
        ))
        .resource(
            resource(INDEX_URI, "index")
                .description("Every note, one line each")
                .mime_type("text/plain")
                .handler(move || {
                    let notes = for_index.clone();
                    async move { listing(&notes.all()) }
                }),
        )
        .resource_template(
            resource_template("notes://note/{id}", "note")
                .description("One note, as Markdown")
                .mime_type("text/markdown")
                .handler(move |Args(note): Args<NoteUri>, Uri(uri): Uri| {
                    let notes = for_notes.clone();
                    async move {
                        match note.id.parse::<u64>().ok().and_then(|id| notes.get(id)) {
                            Some(note) => Ok(note.markdown()),
                            // -32002 to a 2025 session, -32602 to a 2026 request.
                            None => Err(McpError::resource_not_found(&uri)),
                        }
                    }
                }),
        )
        .prompt(
            prompt("summarize")
                .description("Ask the model for a summary of the notes (all, or those with a tag)")
                .handler(move |Args(args): Args<Summarize>| {
                    let notes = for_prompt.clone();
                    async move {
                        let tag = args.tag.unwrap_or_default();
                        let chosen: Vec<String> = notes
                            .all()
                            .iter()
                            .filter(|n| tag.is_empty() || n.tags.iter().any(|t| t.eq_ignore_ascii_case(&tag)))
                            .map(Note::markdown)
                            .collect();
                        let text = format!("Summarize these notes in a few bullet points:\n\n{}", chosen.join("\n"));
                        vec![PromptMessage::text(Role::User, text)]
                    }
                }),
        )
        .completion(move |_ctx: Ctx, params: CompleteRequestParams| {
            let values = completions(&for_completion.all(), &params);
            async move { Ok(CompleteResult { completion: Completion { values, ..Default::default() }, ..Default::default() }) }
        })
}

/// The values offered for what the user typed so far: note numbers for the template's
/// `id`, tags for the prompt's `tag`, nothing for anything else.
fn completions(notes: &[Note], params: &CompleteRequestParams) -> Vec<String> {
    let typed = params.argument.value.as_str();
    let mut values: Vec<String> = match (&params.reference, params.argument.name.as_str()) {
        (CompletionReference::Resource(r), "id") if r.uri == "notes://note/{id}" => {
            notes.iter().map(|n| n.id.to_string()).collect()
        }
        (CompletionReference::Prompt(p), "tag") if p.name == "summarize" => {
            notes.iter().flat_map(|n| n.tags.iter().cloned()).collect()
        }
        _ => Vec::new(),
    };
    values.retain(|v| v.starts_with(typed));
    values.sort();
    values.dedup();
    // The spec's limit on one answer.
    values.truncate(100);
    values
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::time::Duration;

    use mcpwire::client::{Client, ServerChange};
    use mcpwire::protocol::ProtocolVersion;

    /// A client subscribed to the index and to a note hears of each change to them.
    #[tokio::test]
    async fn subscribers_hear_when_notes_change() {
        let (ours, theirs) = mcpwire::transport::memory::pair();
        let notes = super::server().unwrap();
        tokio::spawn(async move { notes.serve(theirs).await });
        let (tx, mut changes) = tokio::sync::mpsc::unbounded_channel();
        let client = Client::builder("t", "1")
            .protocol_version(ProtocolVersion::V2025_11_25)
            .on_change(move |change| {
                let _ = tx.send(change);
            })
            .connect(ours)
            .await
            .unwrap();
        client.subscribe(super::INDEX_URI).await.unwrap();
        client.subscribe("notes://note/1").await.unwrap();
        let wait = Duration::from_secs(5);
        client.call_tool("add_note", serde_json::json!({ "title": "t", "text": "x" })).await.unwrap();
        let change = tokio::time::timeout(wait, changes.recv()).await.unwrap();
        assert_eq!(change, Some(ServerChange::ResourceUpdated(super::INDEX_URI.into())));
        client.call_tool("delete_note", serde_json::json!({ "id": 1 })).await.unwrap();
        let change = tokio::time::timeout(wait, changes.recv()).await.unwrap();
        assert_eq!(change, Some(ServerChange::ResourceUpdated("notes://note/1".into())));
        let change = tokio::time::timeout(wait, changes.recv()).await.unwrap();
        assert_eq!(change, Some(ServerChange::ResourceUpdated(super::INDEX_URI.into())));
        client.close().await;
    }
}
