//! `file://` resources served from one directory, safely. The spec asks servers to
//! validate resource URIs and sanitize `file://` paths; a handler of a template such as
//! `file:///{+path}` gets whatever the client sent, `../../etc/passwd` and `%2e%2e` among
//! it. [`FileRoot::resolve`] turns such a URI into a path that is certainly inside one
//! directory, or into the error the client should get.
//!
//! The root directory is the URI's `/`: `file:///notes/a.md` names `<root>/notes/a.md`,
//! so the server's own directory layout stays private. [`FileRoot::uri_for`] goes the
//! other way, for `resources/list` entries that read back through `resolve`.
//!
//! ```
//! use mcpwire::client::Client;
//! use mcpwire::server::{resource_template, FileRoot, Server, Uri};
//! use mcpwire::McpError;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! # let dir = std::env::temp_dir().join(format!("mcpwire-file-root-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(dir.join("notes")).unwrap();
//! # std::fs::write(dir.join("notes/today.md"), "# Today").unwrap();
//! let root = FileRoot::new(&dir).unwrap();
//! let files = resource_template("file:///{+path}", "file").mime_type("text/plain").handler(
//!     move |Uri(uri): Uri| {
//!         // Refused (-32602) or not found (-32002, -32602 in 2026) before any file is opened.
//!         let path = root.resolve(&uri);
//!         async move { Ok::<_, McpError>(std::fs::read_to_string(path?)?) }
//!     },
//! );
//! let server = Server::builder("files", "1.0.0").resource_template(files).build().unwrap();
//! let (ours, theirs) = mcpwire::transport::memory::pair();
//! tokio::spawn(async move { server.serve(theirs).await });
//! let client = Client::builder("my-client", "1.0.0").connect(ours).await.unwrap();
//! let read = client.read_resource("file:///notes/today.md").await.unwrap();
//! assert_eq!(serde_json::to_value(&read.contents[0]).unwrap()["text"], "# Today");
//! let refused = client.read_resource("file:///notes/../../secret").await.unwrap_err();
//! assert_eq!(refused.peer_error().map(|e| e.code), Some(-32602));
//! client.close().await;
//! # std::fs::remove_dir_all(&dir).unwrap();
//! # }
//! ```

use std::path::{Component, Path, PathBuf};

use super::uri_template::encoding::{encode_segment_into, is_pct_triplet, percent_decode};
use crate::error::shown;
use crate::error::McpError;

/// A directory that `file://` resource URIs map into: `file:///a/b` names `<root>/a/b`.
/// Cheap to clone; share one between the handlers that serve the directory.
#[derive(Clone, Debug)]
pub struct FileRoot {
    root: PathBuf,
}

impl FileRoot {
    /// The root at `dir`, which must exist and be a directory. The path is canonicalized
    /// (absolute, symlinks resolved) once here, so every resolved path is compared with
    /// the directory's real location.
    pub fn new(dir: impl AsRef<Path>) -> std::io::Result<FileRoot> {
        let root = std::fs::canonicalize(dir)?;
        if !root.is_dir() {
            let message = format!("{} is not a directory", root.display());
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, message));
        }
        Ok(FileRoot { root })
    }

    /// The root directory, canonical.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The file a `resources/read` URI names under the root, checked, or the error to
    /// answer with.
    ///
    /// - `McpError::invalid_params` (`-32602`, saying why, quoting at most 200 characters
    ///   of the URI) for a URI that is malformed or could step outside the root: another
    ///   scheme than `file://`, a host other than none or `localhost`, a query or a
    ///   fragment, a `%` not followed by two hex digits, a path that does not decode to
    ///   UTF-8 or holds a NUL, a backslash or a control character, or a `.` or `..`
    ///   segment (encoded or not: `%2e%2e` is `..`).
    /// - [`McpError::resource_not_found`] for a path that does not exist, or that leaves
    ///   the root through a symbolic link; the client is not told which.
    ///
    /// The path returned is canonical (symbolic links inside the root are followed). It is
    /// checked at this moment: a process that can rename or link files inside the root
    /// while the handler runs can still race it, so do not let untrusted parties write
    /// there.
    pub fn resolve(&self, uri: &str) -> Result<PathBuf, McpError> {
        let refuse =
            |why: &str| McpError::invalid_params(format!("Invalid file URI {:?}: {why}", shown(uri, 200)));
        let rest = match (uri.get(..7), uri.get(7..)) {
            (Some(scheme), Some(rest)) if scheme.eq_ignore_ascii_case("file://") => rest,
            _ => return Err(refuse("only file:// URIs are served here")),
        };
        if rest.contains(['?', '#']) {
            return Err(refuse("a query or a fragment is not allowed"));
        }
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        if !authority.is_empty() && !authority.eq_ignore_ascii_case("localhost") {
            return Err(refuse("the host must be empty or localhost"));
        }
        let bytes = path.as_bytes();
        if bytes.iter().enumerate().any(|(i, &b)| b == b'%' && !is_pct_triplet(bytes, i)) {
            return Err(refuse("a % must start a %XX escape"));
        }
        let decoded = percent_decode(path).ok_or_else(|| refuse("the path is not UTF-8 once decoded"))?;
        if decoded.contains('\0') {
            return Err(refuse("the path holds a NUL character"));
        }
        if decoded.contains('\\') {
            return Err(refuse("the path holds a backslash"));
        }
        if decoded.chars().any(char::is_control) {
            return Err(refuse("the path holds a control character"));
        }
        let mut joined = self.root.clone();
        // Splitting after decoding also splits on an encoded `/` (`%2f`), so `%2f..%2f` is
        // caught as a `..` segment. Empty segments (`a//b`, a trailing `/`) name nothing.
        for segment in decoded.split('/').filter(|s| !s.is_empty()) {
            if segment == "." || segment == ".." {
                return Err(refuse("a . or .. segment is not allowed"));
            }
            // Exactly one plain name: on Windows `C:` would be a prefix that replaces
            // the whole path when joined.
            let mut components = Path::new(segment).components();
            match (components.next(), components.next()) {
                (Some(Component::Normal(name)), None) if name == segment => joined.push(name),
                _ => return Err(refuse("a path segment is not a plain file name")),
            }
        }
        // A path that does not exist, cannot be read, or lands outside the root (through
        // a symbolic link) is "not found", whichever it is.
        match std::fs::canonicalize(&joined) {
            Ok(real) if real.starts_with(&self.root) => Ok(real),
            _ => Err(McpError::resource_not_found(uri)),
        }
    }

    /// The `file://` URI of `path`, one that [`FileRoot::resolve`] maps back to it: for
    /// listing a directory's files as resources. `path` is an absolute path inside the
    /// root (as [`std::fs::read_dir`] of [`FileRoot::root`] yields) or a path relative to
    /// the root. Each name is percent-encoded as RFC 3986 requires in a path (`%`, `#`,
    /// `?`, spaces and non-ASCII characters among what is encoded).
    ///
    /// `None` for a path outside the root, one with `.` or `..` in it, or one with a name
    /// that `resolve` would refuse (not UTF-8, or holding a backslash or a control
    /// character). The path is compared as written: symbolic links are not followed.
    pub fn uri_for(&self, path: &Path) -> Option<String> {
        let relative = if path.is_absolute() { path.strip_prefix(&self.root).ok()? } else { path };
        let mut uri = String::from("file://");
        for component in relative.components() {
            let Component::Normal(name) = component else { return None };
            let name = name.to_str()?;
            if name.contains('\\') || name.chars().any(char::is_control) {
                return None;
            }
            uri.push('/');
            encode_segment_into(&mut uri, name);
        }
        if uri.len() == "file://".len() {
            uri.push('/');
        }
        Some(uri)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use mcpwire_protocol::codes;
    use serde_json::json;

    use super::*;

    /// A fresh directory `<tmp>/mcpwire-file-root-<name>-<pid>` holding `root/a.txt`,
    /// `root/notes/b.md` and, beside the root, `outside.txt`; removed when dropped.
    struct Tree(PathBuf);

    impl Tree {
        fn new(name: &str) -> (Tree, FileRoot) {
            let base = std::env::temp_dir().join(format!("mcpwire-file-root-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&base);
            std::fs::create_dir_all(base.join("root/notes")).unwrap();
            std::fs::write(base.join("root/a.txt"), "a").unwrap();
            std::fs::write(base.join("root/notes/b.md"), "b").unwrap();
            std::fs::write(base.join("outside.txt"), "secret").unwrap();
            let root = FileRoot::new(base.join("root")).unwrap();
            (Tree(base), root)
        }
    }

    impl Drop for Tree {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// The `-32602` message `resolve` refuses `uri` with.
    fn refused(root: &FileRoot, uri: &str) -> String {
        let error = root.resolve(uri).expect_err(uri).to_error_object();
        assert_eq!(error.code, codes::INVALID_PARAMS, "{uri}: {error:?}");
        assert_eq!(error.data, None, "{uri}");
        error.message
    }

    /// Asserts that `resolve` answers `uri` with "Resource not found" naming it.
    fn not_found(root: &FileRoot, uri: &str) {
        let error = root.resolve(uri).expect_err(uri).to_error_object();
        assert_eq!(error.code, codes::RESOURCE_NOT_FOUND, "{uri}: {error:?}");
        assert_eq!(error.message, format!("Resource not found: {uri}"));
        assert_eq!(error.data, Some(json!({ "uri": uri })));
    }

    #[test]
    fn a_file_inside_resolves_to_its_canonical_path() {
        let (_tree, root) = Tree::new("inside");
        let a = root.root().join("a.txt");
        assert!(root.root().is_absolute());
        assert_eq!(root.resolve("file:///a.txt").unwrap(), a);
        assert_eq!(root.resolve("file://localhost/a.txt").unwrap(), a);
        assert_eq!(root.resolve("FILE://LocalHost/a.txt").unwrap(), a);
        assert_eq!(root.resolve("file:///notes//b.md").unwrap(), root.root().join("notes/b.md"));
        assert_eq!(root.resolve("file:///notes/").unwrap(), root.root().join("notes"));
        assert_eq!(root.resolve("file:///").unwrap(), root.root());
        assert_eq!(std::fs::read_to_string(root.resolve("file:///%61.txt").unwrap()).unwrap(), "a");
    }

    #[test]
    fn dot_segments_are_refused_encoded_or_not() {
        let (_tree, root) = Tree::new("dots");
        for uri in [
            "file:///../outside.txt",
            "file:///notes/../../outside.txt",
            "file:///notes/../a.txt",
            "file:///%2e%2e/outside.txt",
            "file:///%2E%2e/outside.txt",
            "file:///.%2e/outside.txt",
            "file:///notes%2f..%2f..%2foutside.txt",
            "file:///%2f..%2foutside.txt",
            "file:///./a.txt",
            "file:///%2e/a.txt",
            "file://localhost/..",
        ] {
            let message = refused(&root, uri);
            assert_eq!(message, format!("Invalid file URI {uri:?}: a . or .. segment is not allowed"));
        }
    }

    #[test]
    fn nul_backslash_control_and_bad_escapes_are_refused() {
        let (_tree, root) = Tree::new("bytes");
        let cases = [
            ("file:///a.txt%00.md", "the path holds a NUL character"),
            ("file:///a.txt\0", "the path holds a NUL character"),
            ("file:///a.txt\\0", "the path holds a backslash"),
            ("file:///..\\outside.txt", "the path holds a backslash"),
            ("file:///%5c..%5coutside.txt", "the path holds a backslash"),
            ("file:///a%0a.txt", "the path holds a control character"),
            ("file:///%ff.txt", "the path is not UTF-8 once decoded"),
            ("file:///%c3.txt", "the path is not UTF-8 once decoded"),
            ("file:///100%.txt", "a % must start a %XX escape"),
            ("file:///%zz", "a % must start a %XX escape"),
        ];
        for (uri, why) in cases {
            assert_eq!(refused(&root, uri), format!("Invalid file URI {uri:?}: {why}"));
        }
    }

    #[test]
    fn only_local_file_uris_without_query_or_fragment_are_taken() {
        let (_tree, root) = Tree::new("schemes");
        let cases = [
            ("file://evil.com/a.txt", "the host must be empty or localhost"),
            ("file://localhost:80/a.txt", "the host must be empty or localhost"),
            ("file://user@localhost/a.txt", "the host must be empty or localhost"),
            ("http://x/y", "only file:// URIs are served here"),
            ("file:/a.txt", "only file:// URIs are served here"),
            ("a.txt", "only file:// URIs are served here"),
            ("", "only file:// URIs are served here"),
            ("file:///a.txt?x=1", "a query or a fragment is not allowed"),
            ("file:///a.txt#top", "a query or a fragment is not allowed"),
            ("file:///notes/?", "a query or a fragment is not allowed"),
        ];
        for (uri, why) in cases {
            assert_eq!(refused(&root, uri), format!("Invalid file URI {uri:?}: {why}"));
        }
        // A long URI is quoted in part.
        let long = format!("http://{}", "x".repeat(10_000));
        let message = refused(&root, &long);
        assert!(message.len() < 300, "{}", message.len());
        assert!(message.contains(&format!("{}…", &long[..200])), "{message}");
    }

    #[test]
    fn a_missing_file_is_not_found() {
        let (_tree, root) = Tree::new("missing");
        not_found(&root, "file:///nope.txt");
        not_found(&root, "file:///notes/nope/deeper.md");
        not_found(&root, "file:///a.txt/inside-a-file");
        not_found(&root, "file:///outside.txt");
    }

    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_out_of_the_root_is_not_found_and_one_inside_is_followed() {
        use std::os::unix::fs::symlink;
        let (tree, root) = Tree::new("links");
        symlink(tree.0.join("outside.txt"), root.root().join("escape")).unwrap();
        symlink(&tree.0, root.root().join("up")).unwrap();
        symlink(root.root().join("a.txt"), root.root().join("notes/alias")).unwrap();
        symlink("../notes", root.root().join("notes/self")).unwrap();
        symlink(tree.0.join("gone"), root.root().join("dangling")).unwrap();
        not_found(&root, "file:///escape");
        not_found(&root, "file:///up/outside.txt");
        not_found(&root, "file:///dangling");
        assert_eq!(root.resolve("file:///notes/alias").unwrap(), root.root().join("a.txt"));
        assert_eq!(root.resolve("file:///notes/self/b.md").unwrap(), root.root().join("notes/b.md"));
        // A root reached through a link is compared at its real location.
        symlink(root.root(), tree.0.join("linked-root")).unwrap();
        let linked = FileRoot::new(tree.0.join("linked-root")).unwrap();
        assert_eq!(linked.root(), root.root());
        assert_eq!(linked.resolve("file:///a.txt").unwrap(), root.root().join("a.txt"));
    }

    #[test]
    fn uri_for_round_trips_through_resolve() {
        let (_tree, root) = Tree::new("round-trip");
        let mut names = vec![
            ("with space.txt", "file:///with%20space.txt"),
            ("100%.txt", "file:///100%25.txt"),
            ("#hash.txt", "file:///%23hash.txt"),
            ("café ü.txt", "file:///caf%C3%A9%20%C3%BC.txt"),
            ("a+b=c,d@e.txt", "file:///a+b=c,d@e.txt"),
            ("%2e%2e", "file:///%252e%252e"),
        ];
        if cfg!(unix) {
            // Not names Windows allows.
            names.extend([("what?.txt", "file:///what%3F.txt"), ("a:b.txt", "file:///a:b.txt")]);
        }
        for (name, uri) in names {
            let path = root.root().join("notes").join(name);
            std::fs::write(&path, name).unwrap();
            let nested = uri.replacen("file:///", "file:///notes/", 1);
            assert_eq!(root.uri_for(&path).as_deref(), Some(nested.as_str()), "{name}");
            assert_eq!(root.uri_for(&Path::new("notes").join(name)).as_deref(), Some(nested.as_str()));
            assert_eq!(root.resolve(&nested).unwrap(), path, "{nested}");
            assert_eq!(std::fs::read_to_string(root.resolve(&nested).unwrap()).unwrap(), name);
        }
        assert_eq!(root.uri_for(root.root()).as_deref(), Some("file:///"));
        assert_eq!(root.resolve("file:///").unwrap(), root.root());
    }

    #[test]
    fn uri_for_refuses_paths_outside_the_root_or_that_resolve_would_refuse() {
        let (tree, root) = Tree::new("uri-for");
        assert_eq!(root.uri_for(&tree.0.join("outside.txt")), None);
        assert_eq!(root.uri_for(&root.root().join("../outside.txt")), None);
        assert_eq!(root.uri_for(&root.root().join("notes/./b.md")).as_deref(), Some("file:///notes/b.md"));
        assert_eq!(root.uri_for(Path::new("../outside.txt")), None);
        assert_eq!(root.uri_for(Path::new("notes/../a.txt")), None);
        assert_eq!(root.uri_for(Path::new("back\\slash")), None);
        assert_eq!(root.uri_for(Path::new("line\nbreak")), None);
        assert_eq!(root.uri_for(Path::new("/elsewhere/a.txt")), None);
    }

    #[test]
    fn the_root_must_be_an_existing_directory() {
        let (tree, _root) = Tree::new("new");
        let not_a_dir = FileRoot::new(tree.0.join("outside.txt")).unwrap_err();
        assert_eq!(not_a_dir.kind(), std::io::ErrorKind::InvalidInput);
        let missing = FileRoot::new(tree.0.join("nothing")).unwrap_err();
        assert_eq!(missing.kind(), std::io::ErrorKind::NotFound);
    }
}
