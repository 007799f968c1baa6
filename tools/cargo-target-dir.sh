#!/bin/sh
# Prints the cargo target directory every entry point builds in (the Makefile, build.gradle and
# tools/*.sh ask this script, so they agree): $CARGO_TARGET_DIR if set, else one cache directory
# shared by every checkout on this machine, so RocksDB (a 15-minute C++ build) is compiled once,
# not once per clone or once per entry point.
echo "${CARGO_TARGET_DIR:-$HOME/.cache/rockcask/cargo-target}"
