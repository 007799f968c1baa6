//! RockCask core: transactional named queues, objects by UUID and named maps on RocksDB, the
//! Tokyo Cabinet drop-in's databases, and snapshots. Pure Rust; the JNI bridge (`rust/jni`) only
//! converts arguments and maps errors.
//!
//! What callers use is re-exported here (`Store`, `Transaction` and what they take and return)
//! or lives in the five public modules: `options` (the store's options and limits), `maps` (map
//! limits and key ranges), `dead_letter` (dead-letter records), `snapshot` (snapshots and
//! checkpoints) and `casket` (the drop-in). Every other module is the crate's own; `layers.rs`
//! says which stands on which.

pub mod casket;
pub mod dead_letter;
pub mod maps;
pub mod options;
pub mod snapshot;

mod batch;
mod commit;
mod deliveries;
mod entry_cache;
mod entry_records;
mod error;
mod hash;
mod keys;
mod lock;
mod manifest_record;
mod map_reads;
mod metrics;
mod object_reads;
mod queue;
mod queue_config;
mod read_cache;
mod registry;
mod shared;
mod store;
mod transaction;
mod wal_files;

#[cfg(test)]
mod layers;

/// The payload codec and compression (a crate of their own, so they build without RocksDB).
pub use rockcask_codec as codec;
pub use rockcask_codec::compress;
pub use uuid::Uuid;

pub use dead_letter::{DeadLetter, DeadLetterRecord};
pub use error::{Error, Result, RocksStatus};
pub use keys::MAX_QUEUE_NAME_BYTES;
pub use lock::LOCK_FILE;
pub use metrics::Summary;
pub use options::StoreOptions;
pub use queue::QueueCounts;
pub use queue_config::QueueConfig;
pub use store::{EntryVisitor, PairVisitor, QueueFigures, Store, StoreMetrics, StoreStats};
pub use transaction::{Message, Transaction};
