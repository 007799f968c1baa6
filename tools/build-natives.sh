#!/usr/bin/env bash
# Builds RockCask's native library (rockcask-jni, release) for each platform named, or for every
# platform `make dist` packs: linux-x86_64 (this machine's), linux-aarch64, macos-aarch64,
# macos-x86_64 and windows-x86_64 (cross-compiled).
# Prints nothing but cargo's output; the libraries land in $CARGO_TARGET_DIR/release (this machine's)
# and $CARGO_TARGET_DIR/<rust target>/release (the others').
set -euo pipefail
cd "$(dirname "$0")/.."
CARGO_TARGET_DIR=$(tools/cargo-target-dir.sh)
export CARGO_TARGET_DIR
export PATH="$HOME/.cargo/bin:$PATH"

platforms=("$@")
[ ${#platforms[@]} -gt 0 ] || platforms=(linux-x86_64 linux-aarch64 macos-aarch64 macos-x86_64 windows-x86_64)
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
        macos-aarch64 | macos-x86_64 | windows-x86_64)
            # Cross-compiled with Zig as the C/C++ compiler and linker (cargo-zigbuild), which
            # brings the macOS and MinGW headers and libraries itself.
            PATH="$(tools/setup-platforms.sh zig | tail -1):$PATH"
            case "$platform" in
                macos-aarch64) target=aarch64-apple-darwin ;;
                macos-x86_64) target=x86_64-apple-darwin ;;
                windows-x86_64) target=x86_64-pc-windows-gnu ;;
            esac
            # The oldest macOS the library loads on: 11 (Big Sur), the first with Apple silicon.
            export MACOSX_DEPLOYMENT_TARGET=11.0
            # cargo-zigbuild drops rustc's list of exported symbols, so the library would export
            # every symbol of RocksDB, libc++ and Rust: the wrapper restores it (Windows) or hides
            # every symbol but the JNI entry points before Zig links (macOS; tools/zig-link-jni.py).
            # Only the library's own crate is built with this linker; nothing else rebuilds.
            cargo-zigbuild rustc --release --locked -p rockcask-jni --target "$target" -- -C linker="$PWD/tools/zig-link-jni.py"
            ;;
        *)
            echo "build-natives: no build for platform $platform (known: linux-x86_64, linux-aarch64, macos-aarch64, macos-x86_64, windows-x86_64)" >&2
            exit 2
            ;;
    esac
done
