#!/usr/bin/env bash
# Runs every test: formatting and lints (cargo fmt --check, cargo clippy with warnings denied),
# Rust unit and store tests, the JUnit suites (under -Xcheck:jni) on JDK 17 and again on JDK 25,
# the CLI's tests against `java -jar rockcask-<version>.jar` (on JDK 25), Flink's own
# connector test suites (JUnit 5, through the console launcher), then publishes to mavenLocal,
# checks what landed there (POMs, sources and javadoc jars, module names) and runs the example
# consumer projects (native API, Tokyo Cabinet drop-in, Flink job, and the native API from Maven
# on the module path) against the published jars.
# Ends with one line totalling the passed and failed tests of all runners.
set -uo pipefail
cd "$(dirname "$0")/.."
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
gradle="gradle --no-daemon --console=plain"
# The second JDK the suites run on (README, Requirements).
jdk25_home=${JDK25_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
status=0
failed_steps=()
# What a test JVM that died leaves (see gradle/java-conventions.gradle); an earlier run's would
# be taken for this run's.
rm -rf java/*/build/test-running-*.txt java/*/build/test-crashes

step() {
    local name=$1
    shift
    echo "==> $name"
    if ! "$@" 2>&1 | tee "$logs/$name.log"; then
        echo "==> $name FAILED"
        failed_steps+=("$name")
        status=1
    fi
}

step fmt cargo fmt --all --check
step clippy cargo clippy --release --locked --workspace --all-targets -- -D warnings
step rust cargo test --release --locked --workspace
step java $gradle test testJdk25 publishToMavenLocal -Pjdk25Home="$jdk25_home"
# The jar's CLI (java -jar) through the native CLI's own tests, on JDK 25: a warning there (native
# access) would break the tests' exact stderr.
cli_jar=$(ls "$PWD"/java/rockcask/build/libs/rockcask-*.jar 2>/dev/null | grep -v -e sources -e javadoc | head -1)
step cli-jar env ROCKCASK_CLI="$jdk25_home/bin/java -jar $cli_jar" cargo test --release --locked -p rockcask-cli --test cli
step published-jars $gradle checkMavenLocal
step flink-suites $gradle :flink:connectorSuites
step example $gradle -p java/examples/flow-demo -PdemoArgs=20000 runDemo
step dropin-example $gradle -p java/examples/tokyocabinet-queue -PdemoArgs=20000 runDemo
step flink-example $gradle -p java/examples/flink-flow -PdemoArgs=20000 runDemo
step maven-example mvn -B --no-transfer-progress -q -f java/examples/maven-consumer/pom.xml clean compile exec:exec

passed=0
failed=0
while read -r p f; do
    passed=$((passed + p))
    failed=$((failed + f))
done < <(
    sed -n 's/^test result: [a-zA-Z]*\. \([0-9]*\) passed; \([0-9]*\) failed.*/\1 \2/p' "$logs/rust.log" "$logs/cli-jar.log"
    sed -n 's/^[a-z0-9-]*: \([0-9]*\) passed, \([0-9]*\) failed, [0-9]* skipped$/\1 \2/p' "$logs/java.log" "$logs/flink-suites.log"
    # Formatting and lints count as one check each.
    for check in fmt clippy; do
        if printf '%s\n' "${failed_steps[@]:-}" | grep -qx "$check"; then echo "0 1"; else echo "1 0"; fi
    done
    for example in published-jars example dropin-example flink-example maven-example; do
        if grep -q '^CHECK OK' "$logs/$example.log"; then echo "1 0"; else echo "0 1"; fi
    done
)
[ "$status" -eq 0 ] || [ "$failed" -gt 0 ] || failed=1

# What failed, gathered here so the end of the output (all some runners keep) names it.
if [ "$status" -ne 0 ] || [ "$failed" -gt 0 ]; then
    echo "==> what failed"
    [ "${#failed_steps[@]}" -eq 0 ] || echo "steps: ${failed_steps[*]}"
    grep -h -e '^  FAILURE ' -e '^test .* FAILED$' -e "^> Process 'Gradle Test Executor" -e "process didn't exit successfully" "$logs"/*.log 2>/dev/null
    for running in java/*/build/test-running-*.txt; do
        [ -f "$running" ] && echo "$(dirname "$(dirname "$running")"): the test JVM ($(basename "$running" .txt | sed 's/^test-running-//')) ended during $(cat "$running")"
    done
    for crash in java/*/build/test-crashes/*/hs_err_pid*.log; do
        [ -f "$crash" ] || continue
        echo "--- $crash"
        grep -m 2 -e '^#  [A-Z]' "$crash"
        grep -A1 '^# Problematic frame' "$crash"
        sed -n '/^Current thread/p; /^Native frames/,/^$/p' "$crash" | head -16
    done
fi
echo "total: $passed passed, $failed failed"
exit "$status"
