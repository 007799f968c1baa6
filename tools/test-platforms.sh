#!/usr/bin/env bash
# Runs a subset of java/rockcask's JUnit suites on an aarch64 JVM under qemu-user, against the
# linux-aarch64 library packed in the jar (cross-compiled by tools/build-natives.sh), and ends
# with the runner's line `linux-aarch64: N passed, N failed, N skipped`.
# The subset (SUITES below): the loader (platform choice, CPU features, the packed libraries'
# headers), opening stores and their errors, queues, transactions, maps,
# snapshots, the packed layouts and the codec, and crash recovery in a child JVM. Left out: the
# tests of the build itself (module path, Maven example, README example, package layout), the
# long concurrency and capacity runs, and the child-JVM-heavy locking tests, which only take
# long under emulation.
set -euo pipefail
cd "$(dirname "$0")/.."
platforms=linux-x86_64,linux-aarch64
java_aarch64=$(tools/setup-platforms.sh | tail -1)
tools/build-natives.sh ${platforms//,/ }
gradle --no-daemon --console=plain -q :rockcask:platformTestArgs -PnativePlatforms=$platforms

SUITES=(
    org.rockcask.PlatformTest org.rockcask.LoaderTest org.rockcask.LibraryExportsTest
    org.rockcask.StoreTest org.rockcask.StorePathsTest org.rockcask.ErrorHandlingTest
    org.rockcask.BufferedOperationsTest org.rockcask.QueueAdminTest org.rockcask.BatchedGetTest org.rockcask.InlinePayloadsTest
    org.rockcask.CompressionTest org.rockcask.QueueCacheTest org.rockcask.FailedCommitTest
    org.rockcask.MapsTest org.rockcask.MapCursorTest org.rockcask.MapReaderTest
    org.rockcask.SnapshotTest
    org.rockcask.PackedLayoutsGoldenTest org.rockcask.codec.CodecTest
    org.rockcask.CrashRecoveryTest
)
# The aarch64 java, run by qemu with Debian's aarch64 glibc and libstdc++ (from the cross
# compiler's packages) as its root; the tests start their child JVMs the same way. JDK 24+ asks
# for native access to be granted (see README); C1 only, since C2's compiles cost most under
# emulation. Processes are started by fork and exec: the default, through the JDK's aarch64
# jspawnhelper, cannot exec without qemu registered with the kernel (binfmt_misc), while fork
# and exec run this launcher directly.
launcher=$(mktemp)
trap 'rm -f "$launcher"' EXIT
cat > "$launcher" <<LAUNCHER
#!/bin/sh
exec qemu-aarch64-static -L /usr/aarch64-linux-gnu "$java_aarch64" --enable-native-access=ALL-UNNAMED -XX:TieredStopAtLevel=1 -Djdk.lang.Process.launchMechanism=FORK "\$@"
LAUNCHER
chmod +x "$launcher"
"$launcher" -Xcheck:jni -Xmx1g @java/rockcask/build/platform-test.args -Drockcask.test.java="$launcher" \
    org.rockcask.testsupport.SuiteRunner linux-aarch64 "${SUITES[@]}"
