//! Generates the protobuf message types from `rust/proto` (the one copy the Java tests use too)
//! with protox, a protobuf compiler written in Rust: no system `protoc` needed.

fn main() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../proto");
    let files = ["basic_datatypes.proto", "target_object.proto"];
    for f in files {
        println!("cargo:rerun-if-changed={dir}/{f}");
    }
    let descriptors = protox::compile(files, [dir]).expect("compiling rust/proto");
    prost_build::Config::new().compile_fds(descriptors).expect("generating Rust for rust/proto");
}
