#!/usr/bin/env bash
# Fuzzes the codec's decoders for a bounded time (not part of `make test`).
# Usage: tools/fuzz.sh [seconds per target, default 60]
# Needs the nightly toolchain (rustup toolchain install nightly) and cargo-fuzz (installed here
# if missing). Findings, if any, are left in fuzz/artifacts/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
status=0
for target in decode_message decode_flat; do
    echo "==> $target for ${seconds}s"
    if ! (cd fuzz && cargo +nightly fuzz run "$target" -- -max_total_time="$seconds" -rss_limit_mb=1024 2>&1 | tail -n 4); then
        echo "==> $target FAILED (see fuzz/artifacts/$target)"
        status=1
    fi
done
exit "$status"
