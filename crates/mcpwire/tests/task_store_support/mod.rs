//! A task store for tests that need to watch or steer the server's store calls: the
//! in-memory store, with a test's hooks run around its `create`, `get` and `update`, so
//! that a test can count reads or hold one call until something else has happened.
#![allow(dead_code)]

use std::sync::Arc;

use mcpwire::server::tasks::{
    MemoryTaskStore, StoreFuture, TaskChange, TaskRecord, TaskStore, TaskStoreError,
};

/// What a `get` or an `update` of the store returned.
pub type Found = Result<Option<TaskRecord>, TaskStoreError>;

/// What a test does around the store's calls; a hook it does not write does nothing.
pub trait StoreHooks: Send + Sync + 'static {
    /// Runs before a record is created.
    fn before_create(&self) -> StoreFuture<'_, ()> {
        Box::pin(async {})
    }

    /// Runs after a `get` has read `found`, before the server has it.
    fn after_get<'a>(&'a self, found: &'a Found) -> StoreFuture<'a, ()> {
        let _ = found;
        Box::pin(async {})
    }

    /// Runs after an `update` has made its change (`changed`), before the server has it.
    fn after_update<'a>(&'a self, changed: &'a Found) -> StoreFuture<'a, ()> {
        let _ = changed;
        Box::pin(async {})
    }
}

/// [`MemoryTaskStore`] with a test's `hooks` around its calls. The hooks are shared (an
/// `Arc`) so that the test keeps a handle on them to arm or read them while the server
/// owns the store. `remove` and `signal` keep the trait's defaults.
pub struct HookedStore<H> {
    inner: MemoryTaskStore,
    hooks: Arc<H>,
}

impl<H: StoreHooks> HookedStore<H> {
    /// `inner` with `hooks` around its calls.
    pub fn new(inner: MemoryTaskStore, hooks: Arc<H>) -> HookedStore<H> {
        HookedStore { inner, hooks }
    }
}

impl<H: StoreHooks> TaskStore for HookedStore<H> {
    fn create(&self, record: TaskRecord) -> StoreFuture<'_, Result<(), TaskStoreError>> {
        Box::pin(async move {
            self.hooks.before_create().await;
            self.inner.create(record).await
        })
    }

    fn get<'a>(&'a self, task_id: &'a str) -> StoreFuture<'a, Found> {
        Box::pin(async move {
            let found = self.inner.get(task_id).await;
            self.hooks.after_get(&found).await;
            found
        })
    }

    fn update<'a>(&'a self, task_id: &'a str, change: TaskChange<'a>) -> StoreFuture<'a, Found> {
        Box::pin(async move {
            let changed = self.inner.update(task_id, change).await;
            self.hooks.after_update(&changed).await;
            changed
        })
    }

    fn list<'a>(
        &'a self,
        owner: Option<&'a str>,
        after: Option<&'a str>,
        limit: usize,
    ) -> StoreFuture<'a, Result<Vec<TaskRecord>, TaskStoreError>> {
        self.inner.list(owner, after, limit)
    }
}
