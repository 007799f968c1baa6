//! JNI entry points of RockCask. Thin by design: each function checks its handle, converts
//! arguments, calls `rockcask-core` and maps the result. No store logic lives here.
//!
//! Every entry point runs inside `EnvUnowned::with_env`, which catches panics, and resolves
//! with `ThrowMapped`, which turns each error into the matching Java exception.

mod args;
mod casket;
mod contract;
mod codec;
mod error;
mod handle;
mod maps;
mod metrics;
mod native_table;
mod snapshot;
mod store;
mod transaction;
mod wire;
