//! The tasks running in this process: their cancellation tokens and outstanding input
//! requests, the runner that records each handler's outcome, and the change feed that
//! `subscriptions/listen` (2026) and `tasks/result` (2025) wait on.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use futures_util::FutureExt;
use mcpwire_protocol::codes;
use mcpwire_protocol::mrtr::{InputRequest, InputRequests, InputResponse, InputResponses};
use mcpwire_protocol::tasks_ext::TaskState;
use mcpwire_protocol::tools::CallToolResult;
use tokio::sync::{broadcast, oneshot};
use tokio_util::sync::CancellationToken;

use super::outcome::SharedOutcomes;
use super::store::{TaskRecord, TaskSignal, TaskStore, TaskStoreError};
use super::TaskConfig;
use crate::error::McpError;
use crate::random_id::random_id;

/// The shortest TTL a task gets, whatever the client asks: a task that expires as it is
/// created (a `ttl` of 0) could never be polled, and its answer would state a TTL it
/// does not have.
const MIN_TTL: Duration = Duration::from_secs(1);

/// Task changes a slow listener may fall behind before it misses some.
const CHANGES_CAPACITY: usize = 256;

/// Questions one task may ask over its life. Each key is remembered (keys are never
/// reused), so a handler that asks again whenever the client declines could otherwise be
/// made to hold ever more of them by a client that always declines.
const MAX_QUESTIONS: usize = 1000;

/// The server's tasks: the store and what runs here.
pub(crate) struct Tasks {
    pub(crate) store: Arc<dyn TaskStore>,
    pub(crate) config: TaskConfig,
    running: Mutex<HashMap<String, Arc<Running>>>,
    /// Finished tasks' outcomes, shared by the 2025 `tasks/result` calls waiting on them.
    pub(crate) outcomes: SharedOutcomes,
    changes: broadcast::Sender<String>,
    /// Where each change is also told, beyond this process (the other instances of a
    /// cluster, whose listen streams may follow the task); set at most once.
    relay: std::sync::OnceLock<TaskRelay>,
}

/// Carries a task change beyond this process (see [`Tasks::relay_changes`]).
pub(crate) type TaskRelay = Box<dyn Fn(&str) + Send + Sync>;

impl std::fmt::Debug for Tasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tasks").field("config", &self.config).finish_non_exhaustive()
    }
}

/// A running task's place, taken before its record is written: given back when dropped
/// unless kept.
struct Place<'a> {
    tasks: &'a Tasks,
    id: Option<&'a str>,
}

impl Place<'_> {
    /// The record is written: the place stays the task's until it ends.
    fn keep(mut self) {
        self.id = None;
    }
}

impl Drop for Place<'_> {
    fn drop(&mut self) {
        if let Some(id) = self.id {
            self.tasks.running().remove(id);
        }
    }
}

/// Told every new state of a task while it runs (a 2025 session's
/// `notifications/tasks/status`).
pub(crate) type StatusHook = Box<dyn Fn(&TaskRecord) + Send + Sync>;

/// One task running in this process.
pub(crate) struct Running {
    pub(crate) id: String,
    pub(crate) cancel: CancellationToken,
    inputs: tokio::sync::Mutex<Inputs>,
    on_status: Option<StatusHook>,
    /// The keys of the questions a 2025 `tasks/result` is asking the client now (see
    /// [`QuestionClaim`]).
    claimed: Mutex<HashSet<String>>,
    /// How many changes of the task's state were made here (each numbered as the store
    /// made it), and the number of the last one told to `on_status`.
    changes: std::sync::atomic::AtomicU64,
    told: Mutex<u64>,
}

/// What a handler waiting for input is handed: the client's answer, or the error the
/// client answered the question with.
type Answer = Result<InputResponse, McpError>;

/// A 2025 `tasks/result` call's hold on one question of a task running here: while it is
/// held, no other `tasks/result` of the task asks the client the same question (two would
/// ask the user twice, and the second answer would go nowhere). Dropped (the question
/// answered, or the call gone), the question is free again.
pub(crate) struct QuestionClaim {
    running: Option<Arc<Running>>,
    key: String,
}

impl Drop for QuestionClaim {
    fn drop(&mut self) {
        if let Some(running) = &self.running {
            running.claimed.lock().unwrap_or_else(|e| e.into_inner()).remove(&self.key);
        }
    }
}

/// A task's outstanding input requests, every key it ever used (keys are never reused
/// over a task's life), and the answers its call carried in that no ask has taken yet.
#[derive(Default)]
struct Inputs {
    pending: BTreeMap<String, (InputRequest, oneshot::Sender<Answer>)>,
    used: HashSet<String>,
    /// For each key asked under, the last `-n` suffix given it (so that finding a fresh
    /// key does not try every suffix given before).
    suffixes: HashMap<String, u32>,
    /// Answers gathered before the task existed (a 2026 call's `inputResponses`): each
    /// answers the first ask of its key and is then let go, so a task does not hold them
    /// for its whole life.
    carried: InputResponses,
}

impl Inputs {
    /// `key`, or `key-2`, `key-3`... if it was used before; `None` once the task has
    /// asked [`MAX_QUESTIONS`].
    fn fresh_key(&mut self, key: String) -> Option<String> {
        if self.used.len() >= MAX_QUESTIONS {
            return None;
        }
        let mut candidate = key.clone();
        let mut n = 1;
        if self.used.contains(&candidate) {
            n = self.suffixes.get(&key).copied().unwrap_or(1);
        }
        while self.used.contains(&candidate) {
            n += 1;
            candidate = format!("{key}-{n}");
        }
        if n > 1 {
            self.suffixes.insert(key, n);
        }
        self.used.insert(candidate.clone());
        Some(candidate)
    }

    /// The state these inputs put the task in.
    fn state(&self) -> TaskState {
        if self.pending.is_empty() {
            TaskState::Working
        } else {
            let input_requests: InputRequests =
                self.pending.iter().map(|(k, (r, _))| (k.clone(), r.clone())).collect();
            TaskState::InputRequired { input_requests }
        }
    }
}

/// What a handler running as a task holds: the way to its task.
#[derive(Clone)]
pub(crate) struct TaskLink {
    pub(crate) tasks: Arc<Tasks>,
    pub(crate) running: Arc<Running>,
}

impl TaskLink {
    /// The task id.
    pub(crate) fn id(&self) -> &str {
        &self.running.id
    }

    /// Asks the client for input through the task: the task shows the request in
    /// `input_required` until `tasks/update` answers it (or the task is cancelled). An
    /// answer the call carried in under `key` answers at once, once.
    pub(crate) async fn ask(&self, key: String, request: InputRequest) -> Result<InputResponse, McpError> {
        let answer = {
            let mut inputs = self.running.inputs.lock().await;
            if let Some(answer) = inputs.carried.remove(&key) {
                // Its key was the call's: the task asks anew under another.
                inputs.used.insert(key.clone());
                if fits(&request, &answer) {
                    return Ok(answer);
                }
            }
            if inputs.pending.len() >= self.tasks.config.max_pending_inputs {
                return Err(McpError::internal("too many outstanding input requests"));
            }
            let Some(key) = inputs.fresh_key(key) else {
                return Err(McpError::new(
                    codes::INTERNAL_ERROR,
                    format!("The task asked {MAX_QUESTIONS} questions, as many as one task may"),
                ));
            };
            let (tx, rx) = oneshot::channel();
            inputs.pending.insert(key, (request, tx));
            self.tasks.record(self.id(), inputs.state()).await;
            rx
        };
        tokio::select! {
            answer = answer => answer.unwrap_or_else(|_| Err(McpError::internal("the task's input request was dropped"))),
            () = self.running.cancel.cancelled() => Err(cancelled()),
        }
    }
}

/// Whether `response` is of the kind `request` asks for (an extension's question takes
/// any object).
fn fits(request: &InputRequest, response: &InputResponse) -> bool {
    matches!(
        (request, response),
        (InputRequest::Elicit(_), InputResponse::Elicit(_))
            | (InputRequest::CreateMessage(_), InputResponse::CreateMessage(_))
            | (InputRequest::ListRoots(_), InputResponse::ListRoots(_))
            | (InputRequest::Other(_), _)
    )
}

/// The error a cancelled task's pending calls end with.
fn cancelled() -> McpError {
    McpError::new(codes::REQUEST_CANCELLED, "Task cancelled")
}

/// Sleeps until `deadline` (a task's TTL running out), or forever when there is none.
async fn expiry(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// A task store's failure as the JSON-RPC error that answers it (`-32603`).
pub(crate) fn store_error(e: TaskStoreError) -> McpError {
    match e {
        // Said as it is, like too many running tasks: the client can act on it.
        TaskStoreError::Full => {
            McpError::new(codes::INTERNAL_ERROR, "Too many tasks: the task store is full; try again later")
        }
        TaskStoreError::OwnerFull(limit) => McpError::new(
            codes::INTERNAL_ERROR,
            format!("Too many tasks: this client holds {limit}, as many as one may; try again once some have expired"),
        ),
        other => McpError::internal(other.to_string()),
    }
}

/// `-32602` for a task id this server does not know.
pub(crate) fn unknown_task(id: &str) -> McpError {
    McpError::invalid_params(format!("Unknown task: {id}"))
}

/// The record of `id` in `store`, or `-32602`.
pub(crate) async fn record(store: &dyn TaskStore, id: &str) -> Result<TaskRecord, McpError> {
    store.get(id).await.map_err(store_error)?.ok_or_else(|| unknown_task(id))
}

/// The record of `id` in `store` if `owner` created it (`None`: a 2026 task, or one a
/// client runs for its server), or `-32602`.
pub(crate) async fn owned_record(
    store: &dyn TaskStore,
    id: &str,
    owner: Option<&str>,
) -> Result<TaskRecord, McpError> {
    let record = record(store, id).await?;
    if record.owner.as_deref() != owner {
        return Err(unknown_task(id));
    }
    Ok(record)
}

impl Tasks {
    pub(crate) fn new(store: Arc<dyn TaskStore>, config: TaskConfig) -> Self {
        Tasks {
            store,
            config,
            running: Mutex::new(HashMap::new()),
            outcomes: SharedOutcomes::default(),
            changes: broadcast::channel(CHANGES_CAPACITY).0,
            relay: std::sync::OnceLock::new(),
        }
    }

    fn running(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Running>>> {
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The ids of tasks that change from now on.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<String> {
        self.changes.subscribe()
    }

    /// Tells `relay` of every later change too (the first relay set stays).
    #[cfg(feature = "redis")]
    pub(crate) fn relay_changes(&self, relay: TaskRelay) {
        let _ = self.relay.set(relay);
    }

    /// A change made elsewhere (another instance of a cluster), for this process's
    /// listen streams.
    #[cfg(feature = "redis")]
    pub(crate) fn changed_elsewhere(&self, id: &str) {
        let _ = self.changes.send(id.to_owned());
    }

    fn changed(&self, id: &str) {
        if let Some(relay) = self.relay.get() {
            relay(id);
        }
        // No receiver is not an error: nobody listens right now.
        let _ = self.changes.send(id.to_owned());
    }

    /// Creates a task (stored before this returns) and the link its handler runs with.
    /// `ttl` is the client's wish (2025), capped; `None` takes the default. `carried` are
    /// the answers the call brought in (see [`TaskLink::ask`]).
    pub(crate) async fn create(
        self: &Arc<Self>,
        owner: Option<String>,
        ttl: Option<Duration>,
        on_status: Option<StatusHook>,
        carried: InputResponses,
    ) -> Result<(TaskRecord, TaskLink), McpError> {
        let now = SystemTime::now();
        let record = TaskRecord {
            task_id: random_id()?,
            status_message: None,
            created_at: now,
            last_updated_at: now,
            ttl: Some(ttl.unwrap_or(self.config.default_ttl).min(self.config.max_ttl).max(MIN_TTL)),
            poll_interval: Some(self.config.poll_interval),
            state: TaskState::Working,
            owner,
        };
        let running = Arc::new(Running {
            id: record.task_id.clone(),
            cancel: CancellationToken::new(),
            inputs: tokio::sync::Mutex::new(Inputs { carried, ..Inputs::default() }),
            on_status,
            claimed: Mutex::new(HashSet::new()),
            changes: std::sync::atomic::AtomicU64::new(0),
            told: Mutex::new(0),
        });
        {
            // The place is taken before the record is written, so calls arriving
            // together cannot all pass the bound while their records are written.
            let mut places = self.running();
            if places.len() >= self.config.max_running {
                // Said as it is (an `internal` error would reach the client as
                // "Internal error"): the client can wait for its tasks to end, or cancel
                // some.
                return Err(McpError::new(
                    codes::INTERNAL_ERROR,
                    format!(
                        "Too many tasks running ({} at most); try again once some have ended",
                        self.config.max_running
                    ),
                ));
            }
            places.insert(record.task_id.clone(), running.clone());
        }
        // Given back if the record cannot be written, or this call is dropped meanwhile.
        let place = Place { tasks: self, id: Some(&record.task_id) };
        self.store.create(record.clone()).await.map_err(store_error)?;
        place.keep();
        Ok((record, TaskLink { tasks: self.clone(), running }))
    }

    /// Runs a task's handler to its end in the background, and records the outcome: a
    /// result (an `isError` one too) completes the task, an error fails it, and a
    /// cancellation, the TTL running out, the end of `session` (the connection of the
    /// 2025 session that owns the task), or a panic end it as cancelled or failed. A
    /// session's finished task is dropped from the store when the session ends (nobody
    /// can read it then), or left to its TTL if that comes first.
    pub(crate) fn spawn<F>(
        self: &Arc<Self>,
        link: TaskLink,
        ttl: Option<Duration>,
        session: Option<crate::jsonrpc::Peer>,
        handler: F,
    ) where
        F: std::future::Future<Output = Result<CallToolResult, McpError>> + Send + 'static,
    {
        let tasks = self.clone();
        let grace = self.config.cancel_grace;
        tokio::spawn(async move {
            let cancel = link.running.cancel.clone();
            let deadline = ttl.map(|ttl| tokio::time::Instant::now() + ttl);
            let expiry = expiry(deadline);
            let session_end = async {
                match &session {
                    Some(peer) => peer.closed().await,
                    None => std::future::pending().await,
                }
            };
            // Cancelled, out of time, or its session gone: the token fires, and the
            // handler has `grace` to notice it before it is dropped.
            let stop = async {
                tokio::select! {
                    () = cancel.cancelled() => {}
                    () = expiry => cancel.cancel(),
                    () = session_end => cancel.cancel(),
                }
                tokio::time::sleep(grace).await;
            };
            let outcome = tokio::select! {
                out = AssertUnwindSafe(handler).catch_unwind() => Some(out),
                () = stop => None,
            };
            let state = match outcome {
                _ if cancel.is_cancelled() => TaskState::Cancelled,
                Some(Ok(Ok(result))) => match serde_json::to_value(result) {
                    Ok(serde_json::Value::Object(result)) => TaskState::Completed { result },
                    _ => TaskState::Failed {
                        error: McpError::internal("unserializable result").to_error_object(),
                    },
                },
                Some(Ok(Err(e))) => TaskState::Failed { error: e.to_error_object() },
                Some(Err(_panic)) => TaskState::Failed {
                    error: McpError::internal("the task's handler panicked").to_error_object(),
                },
                None => TaskState::Cancelled,
            };
            cancel.cancel();
            let _ = tasks.record(link.id(), state).await;
            tasks.running().remove(link.id());
            if let Some(peer) = session {
                tasks.forget_with_session(link.id(), &peer, deadline).await;
            }
        });
    }

    /// Waits for the end of the session `peer` that owns finished task `id`, then drops
    /// its record; returns at `deadline` (the TTL, after which the store drops it anyway).
    async fn forget_with_session(
        &self,
        id: &str,
        peer: &crate::jsonrpc::Peer,
        deadline: Option<tokio::time::Instant>,
    ) {
        tokio::select! {
            () = peer.closed() => {
                if let Err(e) = self.store.remove(id).await {
                    tracing::warn!(task = id, "could not drop an ended session's task: {e}");
                }
            }
            () = expiry(deadline) => {}
        }
    }

    /// Records a state unless the task already finished (a terminal state stays), and
    /// returns the record as it is then (`None`: unknown, or it could not be written).
    /// The task's status hook is told of the change if it was made, and only if no later
    /// change was told before it (two writers finish in either order): a session never
    /// hears of a state after a later one, the terminal one included, nor of one twice.
    async fn record(&self, id: &str, state: TaskState) -> Option<TaskRecord> {
        let running = self.running().get(id).cloned();
        // The change's place among the task's changes, numbered as the store makes them.
        let mut made = None;
        let numbers = running.as_ref().map(|r| &r.changes);
        let change = Box::new(|r: &mut TaskRecord| {
            if !r.status().is_terminal() {
                r.state = state;
                r.last_updated_at = SystemTime::now();
                made = numbers.map(|n| n.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1);
            }
        });
        match self.store.update(id, change).await {
            Ok(record) => {
                self.changed(id);
                if let (Some(record), Some(running), Some(made)) = (&record, &running, made) {
                    if let Some(hook) = &running.on_status {
                        let mut told = running.told.lock().unwrap_or_else(|e| e.into_inner());
                        if made > *told {
                            *told = made;
                            hook(record);
                        }
                    }
                }
                record
            }
            Err(e) => {
                tracing::warn!(task = id, "could not record a task's state: {e}");
                None
            }
        }
    }

    /// The record of `id`, or `-32602`.
    pub(crate) async fn get(&self, id: &str) -> Result<TaskRecord, McpError> {
        record(&*self.store, id).await
    }

    /// The record of `id` if `owner` created it (`None`: a 2026 task), or `-32602`.
    pub(crate) async fn get_owned(&self, id: &str, owner: Option<&str>) -> Result<TaskRecord, McpError> {
        owned_record(&*self.store, id, owner).await
    }

    /// `tasks/update`: hands each answer to the handler waiting for it; unknown or
    /// already answered keys are ignored. `-32602` for an unknown task, and for an answer
    /// that does not fit its question (a roots answer to an elicitation, say): then none
    /// is handed over and the task keeps waiting, as a request's retry would be asked
    /// again rather than failed.
    pub(crate) async fn update(&self, id: &str, responses: InputResponses) -> Result<(), McpError> {
        let running = self.running().get(id).cloned();
        if let Some(running) = running {
            let inputs = running.inputs.lock().await;
            for (key, response) in &responses {
                if let Some((request, _)) = inputs.pending.get(key) {
                    if !fits(request, response) {
                        return Err(McpError::invalid_params(format!(
                            "The answer to input request {key} is not a {} result",
                            request.method()
                        )));
                    }
                }
            }
        }
        self.answer(id, responses).await
    }

    /// Hands each answer to the handler waiting for it; unknown or already answered keys
    /// are ignored. `-32602` for an unknown task.
    pub(crate) async fn answer(&self, id: &str, responses: InputResponses) -> Result<(), McpError> {
        let running = self.running().get(id).cloned();
        let Some(running) = running else {
            // Not running here: another instance may run it; finished tasks ignore late
            // answers.
            let record = self.get(id).await?;
            if !record.status().is_terminal() {
                self.store.signal(id, TaskSignal::Answer { responses }).await.map_err(store_error)?;
            }
            return Ok(());
        };
        let mut inputs = running.inputs.lock().await;
        for (key, response) in responses {
            if let Some((_, waiter)) = inputs.pending.remove(&key) {
                let _ = waiter.send(Ok(response));
            }
        }
        self.record(id, inputs.state()).await;
        Ok(())
    }

    /// Hands the handler waiting for question `key` of task `id` the error the client
    /// answered it with, as a request's handler gets it. `Err(error)` back when no
    /// handler here waits for that question (the task runs elsewhere, or it was answered).
    pub(crate) async fn refuse(&self, id: &str, key: &str, error: McpError) -> Result<(), McpError> {
        let running = self.running().get(id).cloned();
        let Some(running) = running else { return Err(error) };
        let mut inputs = running.inputs.lock().await;
        let Some((_, waiter)) = inputs.pending.remove(key) else { return Err(error) };
        let _ = waiter.send(Err(error));
        self.record(id, inputs.state()).await;
        Ok(())
    }

    /// Claims question `key` of task `id` for one `tasks/result` call to ask: `None` when
    /// another call holds it or it is no longer waiting for an answer. (A task running in
    /// another instance cannot be claimed here: the claim then holds nothing.)
    pub(crate) async fn claim_question(&self, id: &str, key: &str) -> Option<QuestionClaim> {
        let running = self.running().get(id).cloned();
        if let Some(running) = &running {
            let inputs = running.inputs.lock().await;
            if !inputs.pending.contains_key(key) {
                return None;
            }
            if !running.claimed.lock().unwrap_or_else(|e| e.into_inner()).insert(key.to_owned()) {
                return None;
            }
        }
        Some(QuestionClaim { running, key: key.to_owned() })
    }

    /// A token that fires when task `id`, running here, ends (cancelled, expired or
    /// finished); `None` when it does not run here.
    pub(crate) fn ended(&self, id: &str) -> Option<CancellationToken> {
        self.running().get(id).map(|running| running.cancel.clone())
    }

    /// Acts on a signal another instance sent for a task running here.
    #[cfg(feature = "redis")]
    pub(crate) async fn receive_signal(&self, id: &str, signal: TaskSignal) {
        let Some(running) = self.running().get(id).cloned() else { return };
        match signal {
            TaskSignal::Answer { responses } => {
                if let Err(e) = self.answer(id, responses).await {
                    tracing::debug!(task = id, "answers from another instance did not apply: {e}");
                }
            }
            // The sender recorded the cancellation already.
            TaskSignal::Cancel => running.cancel.cancel(),
        }
    }

    /// `tasks/cancel`: records `cancelled` (unless finished) and fires the handler's
    /// token. Returns the record as the cancellation left it: `None` when the task had
    /// finished before, and a finished status other than `cancelled` when it finished
    /// while this ran (the first terminal state stays).
    pub(crate) async fn cancel(&self, id: &str) -> Result<Option<TaskRecord>, McpError> {
        let before = self.get(id).await?;
        let mut after = None;
        if !before.status().is_terminal() {
            after = self.record(id, TaskState::Cancelled).await;
            let running = self.running().get(id).cloned();
            match running {
                Some(running) => running.cancel.cancel(),
                // Another instance may run it: its handler is told to stop.
                None => {
                    if let Err(e) = self.store.signal(id, TaskSignal::Cancel).await {
                        tracing::warn!(
                            task = id,
                            "could not tell a task's instance of its cancellation: {e}"
                        );
                    }
                }
            }
        }
        Ok(after)
    }
}
