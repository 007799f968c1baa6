//! RockCask's payload codec and compression (no RocksDB, no JNI): the protobuf codec for the
//! payload types dataflow components exchange: the SEASR/Meandre
//! BasicDataTypes messages and the seed benchmark's `TargetObjectProto` (`rust/proto`).
//!
//! Encoding and decoding are written against the wire format directly (`wire.rs`,
//! `message.rs`) over flat columns (numbers as slices, strings and byte strings as one buffer
//! plus end offsets), so a message crosses to and from Java in a few bulk copies and no
//! per-element objects are built on the way. The prost types generated from the same `.proto`
//! files (`pb`) are the reference the tests hold the codec to: same bytes out, same values in.

pub mod compress;
pub mod flat;
pub mod message;
pub mod wire;

pub use message::{decode, encode, Blobs, BlobsRef, Column, ColumnRef, Decoded, Kind, MessageType, Shape};

/// The prost types generated from `rust/proto` at build time.
pub mod pb {
    #![allow(clippy::all, missing_docs)]
    include!(concat!(env!("OUT_DIR"), "/_.rs"));
}

/// The records of a snapshot file (`rust/proto/snapshot.proto`; the file around them is
/// `rockcask_core::snapshot`'s).
pub mod snapshot_pb {
    #![allow(clippy::all, missing_docs)]
    include!(concat!(env!("OUT_DIR"), "/rockcask.snapshot.rs"));
}

/// Input that is not a well-formed message of the expected type: which type, where, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodecError {
    pub message: &'static str,
    /// Byte offset in the input where it stopped making sense.
    pub offset: usize,
    pub detail: String,
}

impl std::fmt::Display for CodecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "not a valid {} message: {} at byte {}",
            self.message, self.detail, self.offset
        )
    }
}

impl std::error::Error for CodecError {}
