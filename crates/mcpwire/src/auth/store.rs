//! Where tokens and client credentials live between runs: a [`TokenStore`] keyed by the
//! protected resource (tokens) and by the authorization server's issuer (credentials,
//! which are never reused at another server). [`MemoryTokenStore`] is the default; a
//! CLI keeps a [`FileTokenStore`] (one JSON file, mode 0600).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::credentials::ClientCredentials;
use super::AuthError;

/// The tokens granted for one protected resource.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    /// `access_token`.
    pub access_token: String,
    /// `token_type`: `Bearer`, or `DPoP` for a sender-constrained token.
    #[serde(default = "bearer")]
    pub token_type: String,
    /// `refresh_token`, if the authorization server issued one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// When the access token expires (seconds since the Unix epoch), from `expires_in`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// The scopes granted (space-separated), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// The issuer of the authorization server that granted them (a refresh goes there
    /// and nowhere else).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
}

fn bearer() -> String {
    "Bearer".into()
}

impl Tokens {
    /// Whether the token is DPoP-bound (`token_type` `DPoP`, any case).
    pub fn is_dpop(&self) -> bool {
        self.token_type.eq_ignore_ascii_case("dpop")
    }
}

/// Keeps tokens (by resource) and client credentials (by issuer). Calls are synchronous
/// and may block (file I/O, a lock): the client makes them on tokio's blocking pool, never
/// on an async worker; implementations that do I/O keep it small (one file, one row).
///
/// Each call must return within the client's
/// [`store_timeout`](super::OAuthConfig::store_timeout). One that does not is abandoned,
/// not stopped (a blocking thread cannot be killed: it stays taken until the call
/// returns); the client then stops calling the store, and its next authorization fails
/// saying that the store did not answer.
pub trait TokenStore: Send + Sync + 'static {
    /// The tokens saved for `resource`.
    fn load_tokens(&self, resource: &str) -> Option<Tokens>;
    /// Saves (or, with `None`, forgets) the tokens of `resource`.
    fn save_tokens(&self, resource: &str, tokens: Option<&Tokens>) -> Result<(), AuthError>;
    /// The client credentials registered at `issuer`.
    fn load_client(&self, issuer: &str) -> Option<ClientCredentials>;
    /// Saves the client credentials registered at `issuer`.
    fn save_client(&self, issuer: &str, credentials: &ClientCredentials) -> Result<(), AuthError>;
    /// Forgets the client credentials registered at `issuer`: the authorization server
    /// answered `invalid_client` (it expired or deleted the registration). The default
    /// keeps them; the client does not reuse them, and the registration it makes next
    /// replaces them through [`save_client`](Self::save_client).
    fn forget_client(&self, _issuer: &str) -> Result<(), AuthError> {
        Ok(())
    }
    /// The client's DPoP private key (PKCS#8 DER), if one was kept. A store that keeps
    /// none (the default) makes DPoP-bound tokens last as long as their client.
    fn load_dpop_key(&self) -> Option<Vec<u8>> {
        None
    }
    /// Keeps the client's DPoP private key (as secret as the refresh tokens beside it).
    fn save_dpop_key(&self, _pkcs8: &[u8]) -> Result<(), AuthError> {
        Ok(())
    }
}

/// A client's token store, each call run on tokio's blocking pool and bounded in time:
/// a store may do file I/O and wait for a lock another process holds, which must not
/// stall the async runtime's other tasks (on a current-thread runtime, all of them), and
/// a store that never returns must not hold the client's requests forever.
///
/// A call that does not return in time cannot be stopped: its thread stays taken in the
/// blocking pool until the store returns. So a store that missed its time once is not
/// called again; every later call fails at once, saying why.
#[derive(Clone)]
pub(crate) struct BoundedStore {
    store: Arc<dyn TokenStore>,
    timeout: Duration,
    /// Why the store was given up on, once a call did not return within `timeout`.
    stuck: Arc<OnceLock<String>>,
}

impl BoundedStore {
    /// `store`, each call allowed `timeout`.
    pub(crate) fn new(store: Arc<dyn TokenStore>, timeout: Duration) -> Self {
        BoundedStore { store, timeout, stuck: Arc::default() }
    }

    /// Runs `call` (the store method `what`) on the blocking pool, within the time
    /// limit. Fails when it does not return in time, when an earlier call did not, or
    /// when it panicked (or the runtime is shutting down).
    pub(crate) async fn call<T: Send + 'static>(
        &self,
        what: &'static str,
        call: impl FnOnce(&dyn TokenStore) -> T + Send + 'static,
    ) -> Result<T, AuthError> {
        self.usable()?;
        let store = Arc::clone(&self.store);
        let task = tokio::task::spawn_blocking(move || call(store.as_ref()));
        match tokio::time::timeout(self.timeout, task).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(_)) => Err(AuthError::Protocol(format!(
                "the token store's {what} did not finish (it panicked, or the runtime is shutting down)"
            ))),
            Err(_) => {
                let why = format!(
                    "the token store did not answer {what} within {:?}; it is not called again by this client",
                    self.timeout
                );
                Err(AuthError::Protocol(self.stuck.get_or_init(|| why).clone()))
            }
        }
    }

    /// Fails, saying why, once a call did not return in time.
    pub(crate) fn usable(&self) -> Result<(), AuthError> {
        match self.stuck.get() {
            Some(why) => Err(AuthError::Protocol(why.clone())),
            None => Ok(()),
        }
    }
}

/// Everything a store holds, as the JSON file stores it.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Contents {
    #[serde(default)]
    tokens: HashMap<String, Tokens>,
    #[serde(default)]
    clients: HashMap<String, ClientCredentials>,
    /// The DPoP private key, PKCS#8 DER as base64url.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    dpop_key: Option<String>,
    /// Members this version does not know (a later version's, or another program's),
    /// written back as they were.
    #[serde(flatten)]
    other: serde_json::Map<String, serde_json::Value>,
}

impl Contents {
    fn dpop_key(&self) -> Option<Vec<u8>> {
        let text = self.dpop_key.as_deref()?;
        base64::Engine::decode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, text).ok()
    }

    fn set_dpop_key(&mut self, pkcs8: &[u8]) {
        self.dpop_key =
            Some(base64::Engine::encode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, pkcs8));
    }
}

impl Contents {
    fn set_tokens(&mut self, resource: &str, tokens: Option<&Tokens>) {
        match tokens {
            Some(t) => self.tokens.insert(resource.to_owned(), t.clone()),
            None => self.tokens.remove(resource),
        };
    }

    /// Keeps the registration at `issuer`. Past [`MAX_CLIENTS`], those of servers no
    /// kept token came from are dropped (a resource that names a new authorization
    /// server every time would fill the store); they register again if needed.
    fn set_client(&mut self, issuer: &str, credentials: &ClientCredentials) {
        self.clients.insert(issuer.to_owned(), credentials.clone());
        if self.clients.len() > MAX_CLIENTS {
            let used: HashSet<&str> = self.tokens.values().filter_map(|t| t.issuer.as_deref()).collect();
            self.clients.retain(|i, _| i == issuer || used.contains(i.as_str()));
        }
    }
}

/// The most client registrations a store keeps before dropping those of servers that no
/// kept token came from.
const MAX_CLIENTS: usize = 64;

/// A store in memory, for one process (the default).
#[derive(Debug, Default)]
pub struct MemoryTokenStore {
    contents: Mutex<Contents>,
}

impl MemoryTokenStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn with<T>(&self, f: impl FnOnce(&mut Contents) -> T) -> T {
        f(&mut self.contents.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

impl TokenStore for MemoryTokenStore {
    fn load_tokens(&self, resource: &str) -> Option<Tokens> {
        self.with(|c| c.tokens.get(resource).cloned())
    }
    fn save_tokens(&self, resource: &str, tokens: Option<&Tokens>) -> Result<(), AuthError> {
        self.with(|c| c.set_tokens(resource, tokens));
        Ok(())
    }
    fn load_client(&self, issuer: &str) -> Option<ClientCredentials> {
        self.with(|c| c.clients.get(issuer).cloned())
    }
    fn save_client(&self, issuer: &str, credentials: &ClientCredentials) -> Result<(), AuthError> {
        self.with(|c| c.set_client(issuer, credentials));
        Ok(())
    }
    fn forget_client(&self, issuer: &str) -> Result<(), AuthError> {
        self.with(|c| c.clients.remove(issuer));
        Ok(())
    }
    fn load_dpop_key(&self) -> Option<Vec<u8>> {
        self.with(|c| c.dpop_key())
    }
    fn save_dpop_key(&self, pkcs8: &[u8]) -> Result<(), AuthError> {
        self.with(|c| c.set_dpop_key(pkcs8));
        Ok(())
    }
}

/// Why a store file could not be read.
enum Unreadable {
    /// The file system refused.
    Io(String),
    /// The file holds something other than a store.
    Contents(String),
}

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unreadable::Io(why) | Unreadable::Contents(why) => f.write_str(why),
        }
    }
}

/// The largest store file read (1 MiB); a bigger one is treated as corrupt.
const MAX_FILE: u64 = 1024 * 1024;

/// How long an update waits for another process's lock on the store before going on
/// without it (the calls are synchronous: a stuck holder must not hold this one).
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// A store in one JSON file, readable and writable by its owner only (mode 0600; the
/// directory is created 0700). Every save rewrites the file through a temporary file
/// and a rename, so a crash never leaves half a file. A missing file is an empty store;
/// so is one that cannot be read as a store (not JSON, over 1 MiB, members of the wrong
/// types), which the next save moves aside to `<file>.corrupt` (said in a warning)
/// rather than writing over it. A path that is not a regular file (a FIFO, a directory,
/// a device) is refused without waiting on it: loads read as empty, saves fail. So is a
/// save that would make the file larger than it reads.
#[derive(Debug)]
pub struct FileTokenStore {
    path: PathBuf,
    /// Serializes this process's read-modify-write cycles.
    lock: Mutex<()>,
}

impl FileTokenStore {
    /// A store at `path`.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        FileTokenStore { path: path.into(), lock: Mutex::new(()) }
    }

    /// The default location: `$XDG_CONFIG_HOME/mcpwire/auth.json`, else
    /// `$HOME/.config/mcpwire/auth.json`.
    pub fn default_path() -> Option<PathBuf> {
        let base = std::env::var_os("XDG_CONFIG_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".config")))?;
        Some(base.join("mcpwire").join("auth.json"))
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What the file holds: nothing when it is missing; else why it could not be read.
    fn try_read(&self) -> Result<Contents, Unreadable> {
        let file = match open_regular(std::fs::OpenOptions::new().read(true), &self.path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Contents::default()),
            Err(e) => return Err(Unreadable::Io(e.to_string())),
        };
        let mut bytes = Vec::new();
        use std::io::Read;
        file.take(MAX_FILE + 1).read_to_end(&mut bytes).map_err(|e| Unreadable::Io(e.to_string()))?;
        if bytes.len() as u64 > MAX_FILE {
            return Err(Unreadable::Contents(format!("it is over {MAX_FILE} bytes")));
        }
        // Where, not what: serde's message may quote a value, and values here are secrets.
        serde_json::from_slice(&bytes).map_err(|e| {
            Unreadable::Contents(format!("not a token store at line {}, column {}", e.line(), e.column()))
        })
    }

    /// What the file holds; an unreadable one reads as an empty store.
    fn read(&self) -> Contents {
        self.try_read().unwrap_or_else(|why| {
            tracing::warn!("token store {} is unreadable ({why}); reading it as empty", self.path.display());
            Contents::default()
        })
    }

    /// Moves an unreadable file to `<file>.corrupt`, so that a save does not destroy it.
    fn set_aside(&self, why: &str) -> Result<(), AuthError> {
        let mut aside = self.path.clone().into_os_string();
        aside.push(".corrupt");
        let aside = PathBuf::from(aside);
        tracing::warn!(
            "token store {} is unreadable ({why}); moved to {} before saving",
            self.path.display(),
            aside.display()
        );
        std::fs::rename(&self.path, &aside).map_err(|e| {
            AuthError::Http(format!("token store {}: {why}, and not moved aside: {e}", self.path.display()))
        })
    }

    fn write(&self, contents: &Contents) -> Result<(), AuthError> {
        let io = |e: std::io::Error| AuthError::Http(format!("token store {}: {e}", self.path.display()));
        self.create_dir().map_err(io)?;
        let bytes = serde_json::to_vec_pretty(contents).map_err(|e| AuthError::Protocol(e.to_string()))?;
        // A file the store could not read back would lose every login in it.
        if bytes.len() as u64 > MAX_FILE {
            return Err(AuthError::Protocol(format!(
                "token store {}: the contents would be {} bytes, over the {MAX_FILE} it reads",
                self.path.display(),
                bytes.len()
            )));
        }
        let mut tmp = self.path.clone().into_os_string();
        tmp.push(format!(".tmp{}", std::process::id()));
        let tmp = PathBuf::from(tmp);
        // A file left there by an earlier run (of any kind: a FIFO would hold the open
        // until a reader came) is replaced by a new one, never written through.
        let _ = std::fs::remove_file(&tmp);
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        {
            use std::io::Write;
            let mut file = open_regular(&mut options, &tmp).map_err(io)?;
            file.write_all(&bytes).map_err(io)?;
            file.sync_all().map_err(io)?;
        }
        std::fs::rename(&tmp, &self.path).map_err(io)
    }

    /// Creates the file's directory (0700) if it is missing.
    fn create_dir(&self) -> std::io::Result<()> {
        let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) else { return Ok(()) };
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(dir)
    }

    fn update(&self, f: impl FnOnce(&mut Contents)) -> Result<(), AuthError> {
        let _guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        // Other processes (two `mcpwire` commands rotating one refresh token) take the
        // same lock file, so neither writes over what the other just saved.
        let _file_lock = self.lock_file();
        let mut contents = match self.try_read() {
            Ok(contents) => contents,
            Err(Unreadable::Contents(why)) => {
                self.set_aside(&why)?;
                Contents::default()
            }
            // A file that cannot be read at all (a directory, no permission) is left as is.
            Err(why) => return Err(AuthError::Http(format!("token store {}: {why}", self.path.display()))),
        };
        f(&mut contents);
        self.write(&contents)
    }

    /// An exclusive lock on `<path>.lock`, held until dropped; `None` (and the update
    /// goes on unlocked) where it cannot be taken, or not within [`LOCK_WAIT`] (its
    /// holder is stuck: an update holds it for a read and a write).
    fn lock_file(&self) -> Option<std::fs::File> {
        let mut path = self.path.clone().into_os_string();
        path.push(".lock");
        self.create_dir().ok()?;
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(false);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let file = open_regular(&mut options, &PathBuf::from(path)).ok()?;
        let deadline = std::time::Instant::now() + LOCK_WAIT;
        loop {
            match file.try_lock() {
                Ok(()) => return Some(file),
                Err(std::fs::TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                Err(e) => {
                    tracing::warn!("token store {}: not locked ({e}); saving anyway", self.path.display());
                    return None;
                }
            }
        }
    }
}

/// Opens `path` with `options` without waiting, and only if it is a regular file: a FIFO
/// (or a terminal, a socket) at a store path would hold the open, or the read, until
/// another program came along; a directory or a device is no store either.
fn open_regular(options: &mut std::fs::OpenOptions, path: &Path) -> std::io::Result<std::fs::File> {
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(options, nix::fcntl::OFlag::O_NONBLOCK.bits());
    let file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a regular file"));
    }
    Ok(file)
}

impl TokenStore for FileTokenStore {
    fn load_tokens(&self, resource: &str) -> Option<Tokens> {
        self.read().tokens.remove(resource)
    }
    fn save_tokens(&self, resource: &str, tokens: Option<&Tokens>) -> Result<(), AuthError> {
        self.update(|c| c.set_tokens(resource, tokens))
    }
    fn load_client(&self, issuer: &str) -> Option<ClientCredentials> {
        self.read().clients.remove(issuer)
    }
    fn save_client(&self, issuer: &str, credentials: &ClientCredentials) -> Result<(), AuthError> {
        self.update(|c| c.set_client(issuer, credentials))
    }
    fn forget_client(&self, issuer: &str) -> Result<(), AuthError> {
        self.update(|c| {
            c.clients.remove(issuer);
        })
    }
    fn load_dpop_key(&self) -> Option<Vec<u8>> {
        self.read().dpop_key()
    }
    fn save_dpop_key(&self, pkcs8: &[u8]) -> Result<(), AuthError> {
        self.update(|c| c.set_dpop_key(pkcs8))
    }
}
