//! Generates the protobuf message types from `rust/proto` (the one copy the Java tests use too)
//! with protox, a protobuf compiler written in Rust: no system `protoc` needed.

fn main() {
    // Read at run time, not with env!(): a build script compiled for one checkout may be reused
    // from a shared target directory by a checkout somewhere else.
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let dir = format!("{manifest}/../proto");
    let files = ["basic_datatypes.proto", "target_object.proto", "snapshot.proto"];
    for f in files {
        println!("cargo:rerun-if-changed={dir}/{f}");
    }
    let descriptors = protox::compile(files, [&dir]).expect("compiling rust/proto");
    prost_build::Config::new()
        .compile_fds(descriptors)
        .expect("generating Rust for rust/proto");
}
