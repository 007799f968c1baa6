//! What several store tests share.

use std::path::Path;

use rockcask_core::{Store, StoreOptions};

/// A store at `dir` whose commits are not synced: these tests check what commits do, not that
/// they reach the disk (the durability tests open their stores themselves).
pub fn open(dir: &Path) -> Store {
    Store::open(
        dir,
        StoreOptions {
            sync_on_commit: false,
            ..StoreOptions::default()
        },
    )
    .unwrap()
}
