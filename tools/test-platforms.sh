#!/usr/bin/env bash
# Runs a subset of java/rockcask's JUnit suites on the other platforms this machine can emulate,
# against the libraries packed in the jar (cross-compiled by tools/build-natives.sh): on an
# aarch64 JVM under qemu-user (linux-aarch64), and on a Windows JVM under Wine (windows-x86_64).
# Each ends with the runner's line `<platform>: N passed, N failed, N skipped`, then the CLI's
# integration tests run against `java -jar` there (`<platform> CLI from the jar: ...`); the
# script fails if any platform's run failed. Names the platforms to run as arguments (default: both).
# The subset (SUITES below): the loader (platform choice, CPU features, the packed libraries'
# headers), opening stores and their errors, queues, transactions, maps, hot keys,
# snapshots, the packed layouts and the codec, crash recovery in a child JVM, and a store's
# exclusivity (other spellings of its path, a second class loader, another process). Left out:
# the tests of the build itself (module path, Maven example, README example, package layout),
# and the long concurrency and capacity runs, which only take long under emulation.
set -euo pipefail
cd "$(dirname "$0")/.."
CARGO_TARGET_DIR=$(tools/cargo-target-dir.sh)
export CARGO_TARGET_DIR
export PATH="$HOME/.cargo/bin:$PATH"
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(linux-aarch64 windows-x86_64)
platforms=linux-x86_64
for t in "${targets[@]}"; do
    case "$t" in
        linux-aarch64 | windows-x86_64) platforms="$platforms,$t" ;;
        *) echo "test-platforms: no run for platform $t (known: linux-aarch64, windows-x86_64)" >&2; exit 2 ;;
    esac
done
runtimes=$(tools/setup-platforms.sh "${targets[@]}")
tools/build-natives.sh ${platforms//,/ }
gradle --no-daemon --console=plain -q :rockcask:platformTestArgs -PnativePlatforms=$platforms

SUITES=(
    org.rockcask.PlatformTest org.rockcask.LoaderTest org.rockcask.LibraryExportsTest
    org.rockcask.StoreTest org.rockcask.StorePathsTest org.rockcask.ErrorHandlingTest
    org.rockcask.BufferedOperationsTest org.rockcask.QueueAdminTest org.rockcask.BatchedGetTest org.rockcask.InlinePayloadsTest
    org.rockcask.CompressionTest org.rockcask.QueueCacheTest org.rockcask.FailedCommitTest
    org.rockcask.MapsTest org.rockcask.MapCursorTest org.rockcask.MapReaderTest org.rockcask.HotKeysTest
    org.rockcask.SnapshotTest
    org.rockcask.PackedLayoutsGoldenTest org.rockcask.codec.CodecTest
    org.rockcask.CrashRecoveryTest org.rockcask.StoreExclusivityTest
)
# ROCKCASK_PLATFORM_SUITES (space-separated class names) runs those instead, e.g. one suite
# while working on a platform.
if [ -n "${ROCKCASK_PLATFORM_SUITES:-}" ]; then
    read -r -a SUITES <<<"$ROCKCASK_PLATFORM_SUITES"
fi
launcher=$(mktemp)
args=$(mktemp)
cli_launcher=$(mktemp)
cli_log=$(mktemp)
provider_dir=$(mktemp -d)
trap 'rm -rf "$launcher" "$args" "$cli_launcher" "$cli_log" "$provider_dir"' EXIT

# The CLI from the jar on platform $1: rust/cli's integration tests against
# `java -jar rockcask-<version>.jar` run there by the platform's java launcher (`$launcher`,
# written below for the JUnit run), as tools/run-tests.sh runs them on this machine's JDK.
# Prints "<platform> CLI from the jar: N passed, N failed, N skipped".
run_cli_tests() {
    local target=$1 jar skips=()
    jar=$(ls "$PWD"/java/rockcask/build/libs/rockcask-*.jar | grep -v -e sources -e javadoc | head -1)
    case "$target" in
        linux-aarch64)
            cat > "$cli_launcher" <<LAUNCHER
#!/bin/sh
exec "$launcher" -jar "$jar" "\$@"
LAUNCHER
            ;;
        windows-x86_64)
            # The test SecureRandom (see above) from a directory of its own on the boot class
            # path, since `java -jar` takes no class path. Skipped: a command line of bytes that
            # are not UTF-8 (Windows passes arguments as UTF-16: there are no such bytes), and the
            # two tests whose store is held open by the test process itself, a Linux process,
            # whose lock a Windows process under Wine does not see (Wine keeps its own locks).
            mkdir -p "$provider_dir/org/rockcask/testsupport"
            cp java/rockcask/build/classes/java/test/org/rockcask/testsupport/WineRandomProvider*.class "$provider_dir/org/rockcask/testsupport/"
            cat > "$cli_launcher" <<LAUNCHER
#!/bin/sh
exec "$launcher" -Xbootclasspath/a:Z:$provider_dir -jar "Z:$jar" "\$@"
LAUNCHER
            skips=(--skip a_name_argument_that_is_not_utf8 --skip checkpoint_of_a_store_locked_by_another_handle
                --skip staging_commit_needs_a_lineage_and_the_store_to_itself)
            ;;
    esac
    chmod +x "$cli_launcher"
    local rc=0
    ROCKCASK_CLI="$cli_launcher" cargo test --release --locked -p rockcask-cli --test cli -- --test-threads=2 "${skips[@]}" 2>&1 | tee "$cli_log" || rc=1
    local summary
    summary=$(grep -o 'test result: .*' "$cli_log" | tail -1)
    local passed failed filtered
    passed=$(grep -o '[0-9]* passed' <<<"$summary" | cut -d' ' -f1)
    failed=$(grep -o '[0-9]* failed' <<<"$summary" | cut -d' ' -f1)
    filtered=$(grep -o '[0-9]* filtered out' <<<"$summary" | cut -d' ' -f1)
    echo "$target CLI from the jar: ${passed:-0} passed, ${failed:-?} failed, ${filtered:-0} skipped"
    return $rc
}
failed=0
for target in "${targets[@]}"; do
    java=$(grep "^$target " <<<"$runtimes" | cut -d' ' -f2-)
    case "$target" in
        linux-aarch64)
            # The aarch64 java, run by qemu with Debian's aarch64 glibc (from the cross
            # compiler's packages) as its root; the tests start their child JVMs the same way.
            # JDK 24+ asks for native access to be granted (see README); C1 only, since C2's
            # compiles cost most under emulation. Processes are started by fork and exec: the
            # default, through the JDK's aarch64 jspawnhelper, cannot exec without qemu
            # registered with the kernel (binfmt_misc), while fork and exec run this launcher
            # directly.
            cat > "$launcher" <<LAUNCHER
#!/bin/sh
exec qemu-aarch64-static -L /usr/aarch64-linux-gnu "$java" --enable-native-access=ALL-UNNAMED -XX:TieredStopAtLevel=1 -Djdk.lang.Process.launchMechanism=FORK "\$@"
LAUNCHER
            cp java/rockcask/build/platform-test.args "$args"
            ;;
        windows-x86_64)
            # The Windows java.exe under Wine, in a Wine prefix of its own in the cache. Paths
            # stay Unix paths: Wine's drive Z: is /, and a path starting with / is on the
            # current drive, so only the class path's separator changes (; on Windows). Child
            # JVMs are started as Windows processes by the Windows JVM itself, so the launcher
            # is java.exe's path, seen as Z:.
            # Every JVM of the run, the tests' child JVMs too (rockcask.test.childJvmArgs), takes
            # its SecureRandom from tools/wine/security.properties, since the JDK's own crash
            # under Wine 8 (that file says why), and does not print HotSpot's warning that Wine
            # has no processor-group affinity call into the output the tests read.
            export WINEPREFIX=${ROCKCASK_PLATFORMS_CACHE:-$HOME/.cache/rockcask/platforms}/wine-prefix
            export WINEDEBUG=-all
            wine_jvm_args="-Djava.security.properties=Z:$PWD/tools/wine/security.properties -XX:-PrintWarnings"
            cat > "$launcher" <<LAUNCHER
#!/bin/sh
exec /usr/lib/wine/wine64 "$java" --enable-native-access=ALL-UNNAMED $wine_jvm_args -Drockcask.test.childJvmArgs="$wine_jvm_args" "\$@"
LAUNCHER
            python3 - java/rockcask/build/platform-test.args "$args" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
out = []
for i, line in enumerate(lines):
    if i > 0 and lines[i - 1] == "-cp":
        line = ";".join("Z:" + p for p in line.split(":"))
    out.append(line)
open(sys.argv[2], "w").write("\n".join(out) + "\n")
PY
            ;;
    esac
    chmod +x "$launcher"
    child_java=$java
    [ "$target" = linux-aarch64 ] && child_java=$launcher
    [ "$target" = windows-x86_64 ] && child_java="Z:$java"
    "$launcher" -Xcheck:jni -Xmx1g @"$args" -Drockcask.test.java="$child_java" \
        org.rockcask.testsupport.SuiteRunner "$target" "${SUITES[@]}" || failed=1
    run_cli_tests "$target" || failed=1
done
exit $failed
