//! JNI entry points of RockCask. Thin by design: each function checks its handle, converts
//! arguments, calls `rockcask-core` and maps the result. No store logic lives here.
//!
//! Every entry point runs inside `EnvUnowned::with_env`, which catches panics, and resolves
//! with `ThrowMapped`, which turns each error into the matching Java exception.
//!
//! One file per Java class with native methods holds its table (`NATIVES`) and a plain function
//! per call: `store.rs`, `transaction.rs`, `maps.rs`, `metrics.rs`, `snapshot.rs`, `codec.rs`,
//! `casket.rs`, and `cli.rs` (the `rockcask` CLI, run from the jar). Beneath them: `native_table` (the tables' machinery and registration),
//! `options` (the core's options from Java's records), `args` (how each type crosses JNI),
//! `contract` (the numbers both languages hold), `wire` (the packed layouts), `handle` (native
//! objects as handles) and `error` (failures as Java exceptions).

// Entry points, one file per Java class.
mod casket;
mod cli;
mod codec;
mod maps;
mod metrics;
mod snapshot;
mod store;
mod transaction;

// What they are built from.
mod args;
mod contract;
mod error;
mod handle;
mod native_table;
mod options;
mod wire;

/// Every table, one per Java class with native methods: what `NativeLibrary.registerNatives`
/// looks a class up in.
const TABLES: &[&native_table::NativeClass] = &[
    &store::NATIVES,
    &transaction::NATIVES,
    &maps::NATIVES,
    &metrics::NATIVES,
    &snapshot::NATIVES,
    &codec::NATIVES,
    &casket::NATIVES,
    &cli::NATIVES,
];
