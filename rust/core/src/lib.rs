//! RockCask core: transactional named queues and objects by UUID on RocksDB.
//!
//! Pure Rust; the JNI bridge (`rust/jni`) only converts arguments and maps errors.

pub(crate) mod batch;
mod buffered;
pub mod casket;
mod commit;
mod commit_rhythm;
mod deliveries;
mod entry_cache;
mod entry_records;
pub mod dead_letter;
pub(crate) mod error;
mod group_commit;
mod hash;
mod read_cache;
mod map_commit;
pub mod map_ops;
pub mod maps;
pub(crate) mod inspect;
pub mod keys;
pub mod lock;
mod metrics;
pub mod options;
mod queue;
pub mod queue_config;
mod rocks_options;
mod shared;
pub mod snapshot;
mod manifest_record;
mod wal_files;
pub(crate) mod store;
pub(crate) mod transaction;

/// The payload codec and compression (a crate of their own, so they build without RocksDB).
pub use rockcask_codec as codec;
pub use rockcask_codec::compress;
pub use error::{Error, Result, RocksStatus};
pub use dead_letter::{DeadLetter, DeadLetterRecord};
pub use metrics::{QueueCounts, QueueFigures, StoreMetrics, Summary};
pub use options::StoreOptions;
pub use queue_config::QueueConfig;
pub use store::{Store, StoreStats};
pub use transaction::{Message, Transaction};
pub use uuid::Uuid;
