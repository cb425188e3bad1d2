//! `FileRoot` behind a real `file:///{+path}` template, read by a real client in both
//! eras: a file inside is read, traversal is refused with `-32602`, and a missing file is
//! "Resource not found" with `data.uri`: `-32002` on 2025-11-25, `-32602` on 2026-07-28
//! (a handler's `McpError::resource_not_found` and the router's own answer alike).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use mcpwire::client::Client;
use mcpwire::protocol::{codes, ErrorObject, ProtocolVersion};
use mcpwire::server::{resource_template, FileRoot, Server, Uri};
use mcpwire::{McpError, RequestError};
use serde_json::{json, Value};

/// `<tmp>/mcpwire-file-root-it-<pid>` with `root/hello.txt`, `root/sub dir/ça va#1.txt`
/// and, beside the root, `secret.txt`; removed when dropped.
struct Tree(PathBuf);

impl Tree {
    fn new() -> Tree {
        let base = std::env::temp_dir().join(format!("mcpwire-file-root-it-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(base.join("root/sub dir")).unwrap();
        std::fs::write(base.join("root/hello.txt"), "hello from the root").unwrap();
        std::fs::write(base.join("root/sub dir/ça va#1.txt"), "nested").unwrap();
        std::fs::write(base.join("secret.txt"), "not for clients").unwrap();
        Tree(base)
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A server whose only resources are the files under `root`, read as text.
fn server(root: FileRoot) -> Server {
    let files =
        resource_template("file:///{+path}", "file").mime_type("text/plain").handler(move |Uri(uri): Uri| {
            let path = root.resolve(&uri);
            async move { Ok::<_, McpError>(std::fs::read_to_string(path?)?) }
        });
    Server::builder("files", "1.0.0").resource_template(files).build().unwrap()
}

async fn client(root: FileRoot, version: ProtocolVersion) -> Client {
    let (ours, theirs) = mcpwire::transport::memory::pair();
    let served = server(root);
    tokio::spawn(async move { served.serve(theirs).await });
    let client = Client::builder("c", "1").protocol_version(version.clone()).connect(ours).await.unwrap();
    assert_eq!(client.protocol_version(), &version);
    client
}

async fn read_text(client: &Client, uri: &str) -> Value {
    let read = client.read_resource(uri).await.unwrap();
    assert_eq!(read.contents.len(), 1, "{uri}");
    let contents = serde_json::to_value(&read.contents[0]).unwrap();
    assert_eq!(contents["uri"], uri);
    contents["text"].clone()
}

async fn read_error(client: &Client, uri: &str) -> ErrorObject {
    match client.read_resource(uri).await {
        Err(RequestError::Peer(error)) => error,
        other => panic!("{uri}: expected the server's error, got {other:?}"),
    }
}

#[tokio::test]
async fn a_file_root_serves_its_files_and_nothing_else_in_both_eras() {
    let tree = Tree::new();
    let root = FileRoot::new(tree.0.join("root")).unwrap();
    let nested = root.uri_for(&root.root().join("sub dir/ça va#1.txt")).unwrap();
    assert_eq!(nested, "file:///sub%20dir/%C3%A7a%20va%231.txt");
    let eras = [
        (ProtocolVersion::V2025_11_25, codes::RESOURCE_NOT_FOUND),
        (ProtocolVersion::V2026_07_28, codes::INVALID_PARAMS),
    ];
    for (version, not_found) in eras {
        let client = client(root.clone(), version.clone()).await;
        assert_eq!(read_text(&client, "file:///hello.txt").await, "hello from the root", "{version}");
        assert_eq!(read_text(&client, &nested).await, "nested", "{version}");

        for uri in
            ["file:///../secret.txt", "file:///%2e%2e/secret.txt", "file:///sub%20dir%2f..%2f..%2fsecret.txt"]
        {
            let error = read_error(&client, uri).await;
            assert_eq!(error.code, codes::INVALID_PARAMS, "{version} {uri}: {error:?}");
            assert!(error.message.ends_with("a . or .. segment is not allowed"), "{}", error.message);
            assert_eq!(error.data, None);
        }

        // Not found: the handler's `McpError::resource_not_found`, then the router's own
        // answer for a URI no template matches; the same error in each era.
        for uri in ["file:///missing.txt", "notes://nothing"] {
            let error = read_error(&client, uri).await;
            let expected = ErrorObject::new(not_found, format!("Resource not found: {uri}"))
                .with_data(json!({ "uri": uri }));
            assert_eq!(error, expected, "{version} {uri}");
        }
        client.close().await;
    }
}
