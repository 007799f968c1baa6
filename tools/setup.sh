#!/usr/bin/env bash
# Installs what building RockCask needs and is missing (Debian/Ubuntu, as root or with sudo):
# a C++ toolchain and libclang for RocksDB's bindings, a JDK 17, Gradle, Maven (for the Maven
# consumer example). Rust comes from rustup (>= 1.89: rust-rocksdb and std file locks); it cannot
# be fetched from a package registry.
set -euo pipefail

need=()
command -v c++ >/dev/null || need+=(g++)
command -v make >/dev/null || need+=(make)
command -v javac >/dev/null || need+=(openjdk-17-jdk-headless)
command -v gradle >/dev/null || need+=(gradle)
command -v mvn >/dev/null || need+=(maven)
# bindgen (through clang-sys) loads libclang itself at build time: libclang.so, libclang.so.N
# or libclang-N.so*. LLVM's runtime packages bring libclang-cpp.so.N, the C++ API, which
# bindgen cannot use, so a broad libclang* match would wrongly count it.
has_libclang() {
    local candidate
    if [ -n "${LIBCLANG_PATH:-}" ]; then
        for candidate in "$LIBCLANG_PATH"/libclang.so* "$LIBCLANG_PATH"/libclang-[0-9]*.so*; do
            [ -e "$candidate" ] && return 0
        done
    fi
    for candidate in /usr/lib/llvm-*/lib/libclang.so /usr/lib/llvm-*/lib/libclang.so.[0-9]* \
        /usr/lib/*-linux-gnu/libclang.so /usr/lib/*-linux-gnu/libclang-[0-9]*.so*; do
        [ -e "$candidate" ] && return 0
    done
    return 1
}
has_libclang || need+=(libclang-dev)

if [ ${#need[@]} -gt 0 ]; then
    echo "setup: installing ${need[*]}"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

if ! command -v cargo >/dev/null; then
    [ -x "$HOME/.cargo/bin/cargo" ] && export PATH="$HOME/.cargo/bin:$PATH"
fi
if ! command -v cargo >/dev/null; then
    echo "setup: cargo not found; install Rust >= 1.89 with rustup (https://rustup.rs)" >&2
    exit 1
fi
rust_minor=$(rustc --version | sed -E 's/^rustc 1\.([0-9]+).*/\1/')
if [ "$rust_minor" -lt 89 ]; then
    echo "setup: $(rustc --version) is too old; RockCask needs >= 1.89 (rustup update)" >&2
    exit 1
fi
# `make test` checks formatting and lints (cargo fmt --check, cargo clippy): both come with
# rustup's default profile; a minimal profile lacks them.
if command -v rustup >/dev/null; then
    for component in rustfmt clippy; do
        if ! rustup component list --installed 2>/dev/null | grep -q "^$component"; then
            echo "setup: adding the Rust component $component"
            rustup component add "$component"
        fi
    done
fi
