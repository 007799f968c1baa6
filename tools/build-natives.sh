#!/usr/bin/env bash
# Builds RockCask's native library (rockcask-jni, release) for each platform named, or for every
# platform the jar can carry: linux-x86_64 (this machine's), linux-aarch64 (cross-compiled).
# Prints nothing but cargo's output; the libraries land in $CARGO_TARGET_DIR/release (this machine's)
# and $CARGO_TARGET_DIR/<rust target>/release (the others').
set -euo pipefail
cd "$(dirname "$0")/.."
CARGO_TARGET_DIR=$(tools/cargo-target-dir.sh)
export CARGO_TARGET_DIR
export PATH="$HOME/.cargo/bin:$PATH"

platforms=("$@")
[ ${#platforms[@]} -gt 0 ] || platforms=(linux-x86_64 linux-aarch64)
for platform in "${platforms[@]}"; do
    case "$platform" in
        linux-x86_64)
            # The host's own build (in $CARGO_TARGET_DIR/release, where Gradle's cargoBuild puts it).
            cargo build --release --locked -p rockcask-jni
            ;;
        linux-aarch64)
            # cc (RocksDB, lz4, zstd) and bindgen (RocksDB's C API) for the target, not the host;
            # the linker is in .cargo/config.toml.
            export CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc
            export CXX_aarch64_unknown_linux_gnu=aarch64-linux-gnu-g++
            export AR_aarch64_unknown_linux_gnu=aarch64-linux-gnu-ar
            export BINDGEN_EXTRA_CLANG_ARGS_aarch64_unknown_linux_gnu="--sysroot=/usr/aarch64-linux-gnu -I/usr/aarch64-linux-gnu/include"
            cargo build --release --locked -p rockcask-jni --target aarch64-unknown-linux-gnu
            ;;
        *)
            echo "build-natives: no build for platform $platform (known: linux-x86_64, linux-aarch64)" >&2
            exit 2
            ;;
    esac
done
