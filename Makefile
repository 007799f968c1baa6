# The two entry points (see README): `make demo` and `make test`. Both install what is missing
# and build the native library and the jars first.

SHELL := /bin/bash
# One cargo target directory shared by every checkout on this machine, so RocksDB (a 15-minute
# C++ build) is compiled once, not once per clone: tools/cargo-target-dir.sh names it, for Gradle
# run directly too.
export CARGO_TARGET_DIR := $(shell tools/cargo-target-dir.sh)
export PATH := $(HOME)/.cargo/bin:$(PATH)
GRADLE := gradle --no-daemon --console=plain
comma := ,

.PHONY: setup build demo test soak dist test-platforms bench bench-peers clean

setup:
	@tools/setup.sh

build: setup
	$(GRADLE) assemble

demo: setup
	$(GRADLE) publishToMavenLocal
	$(GRADLE) -p java/examples/flow-demo runDemo
	$(GRADLE) -p java/examples/tokyocabinet-queue runDemo
	$(GRADLE) -p java/examples/flink-flow runDemo
	$(GRADLE) :bench:seedExperiment1 -PbenchArgs=100000
	$(GRADLE) :bench:dropInSeedExperiment1 -PbenchArgs=100000

test: setup
	@tools/run-tests.sh

# The soak tests, apart from `make test`: reads of results larger than one Java array (three
# values of 720 MiB: a 6 GiB heap and several GiB of native memory).
soak: setup
	$(GRADLE) :rockcask:soakTest

# The platforms `make dist` builds a native library for and packs into one jar (README,
# "Platforms").
PLATFORMS := linux-x86_64,linux-aarch64,macos-aarch64,macos-x86_64,windows-x86_64

# Every platform's native library (cross-compiled; tools/setup-platforms.sh installs the cross
# compilers, Zig for macOS), packed into one jar: java/rockcask/build/libs/rockcask-<version>.jar.
dist: setup
	@tools/setup-platforms.sh zig >/dev/null
	tools/build-natives.sh $(subst $(comma), ,$(PLATFORMS))
	$(GRADLE) :rockcask:jar -PnativePlatforms=$(PLATFORMS)
	@jar=$$(ls java/rockcask/build/libs/rockcask-*.jar | grep -v -e sources -e javadoc); ls -l $$jar; unzip -l $$jar 'org/rockcask/native/*'

# A subset of the JUnit suites on an aarch64 JVM under qemu-user and on a Windows JVM under Wine,
# against the packed linux-aarch64 and windows-x86_64 libraries (tools/test-platforms.sh lists it).
test-platforms: setup
	@tools/test-platforms.sh

# Full benchmarks for docs/BENCHMARKS.md (N up to 10^6, native and drop-in; 10^7 queue cycles; the three-stage flow;
# the cost of metrics and delivery tracking; serialization; snapshots of 10^6 and 4x10^6 items;
# the Flink move; the street-graph experiment; the peer benchmark).
bench: setup
	$(GRADLE) :bench:seedExperiment1 -PbenchArgs=1000000
	$(GRADLE) :bench:dropInSeedExperiment1 -PbenchArgs=1000000
	$(GRADLE) :bench:queueSteadyState
	$(GRADLE) :bench:threeStageFlow -PbenchArgs="300000 100 5"
	$(GRADLE) :bench:queueVariants -PbenchArgs="15 0.2"
	$(GRADLE) :bench:seedExperiment2 -PbenchArgs="$(CURDIR)/docs/seed2 100"
	cargo run --release --locked -p rockcask-core --example snapshot_bench -- $(CARGO_TARGET_DIR)/snapshot-bench
	$(GRADLE) :bench:flinkMove
	$(GRADLE) :bench:graphExperiment -PbenchArgs="variant=padded"
	$(GRADLE) :bench:graphExperiment -PbenchArgs="variant=small"
	$(MAKE) bench-peers

# RockCask beside the embedded stores a JVM flow could use instead (queue cycles, seed
# experiment 1, random reads), each workload and store in a JVM of its own.
bench-peers: setup
	$(GRADLE) :bench:peerBenchmark

clean:
	$(GRADLE) clean
	cargo clean
