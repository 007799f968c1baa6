//! RockCask core: transactional named queues and objects by UUID on RocksDB.
//!
//! Pure Rust; the JNI bridge (`rust/jni`) only converts arguments and maps errors.

pub(crate) mod batch;
pub mod casket;
mod commit;
mod deliveries;
mod entry_cache;
mod entry_records;
pub mod dead_letter;
pub(crate) mod error;
mod hash;
#[cfg(test)]
mod layers;
mod map_reads;
mod object_reads;
mod read_cache;
mod registry;
pub mod maps;
pub mod keys;
pub mod lock;
mod metrics;
pub mod options;
mod queue;
pub mod queue_config;
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
pub use metrics::Summary;
pub use queue::QueueCounts;
pub use store::{QueueFigures, StoreMetrics};
pub use transaction::maps as map_ops;
pub use options::StoreOptions;
pub use queue_config::QueueConfig;
pub use store::{Store, StoreStats};
pub use transaction::{Message, Transaction};
pub use uuid::Uuid;
