#!/usr/bin/env bash
# Builds every target, tests included, with warnings as errors, then runs the tests.
#
# Usage: Scripts/test.sh [arguments for `swift test`]
#   Scripts/test.sh
#   Scripts/test.sh --filter PKCoreTests
#
# Set SCRATCH_PATH to build somewhere other than .build.
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=()
if [[ -n "${SCRATCH_PATH:-}" ]]; then scratch=(--scratch-path "$SCRATCH_PATH"); fi

step() { printf '\n==> %s\n' "$*"; }

step "Build all targets and tests (Swift 6 language mode, warnings as errors)"
swift build ${scratch[@]+"${scratch[@]}"} --build-tests -Xswiftc -warnings-as-errors

# The same compiler flags as the build above, so `swift test` reuses it instead of rebuilding.
step "Run the tests${*:+ ($*)}"
swift test ${scratch[@]+"${scratch[@]}"} -Xswiftc -warnings-as-errors "$@"
