#!/usr/bin/env bash
# Builds the example executables in release mode, with warnings as errors, and runs each one.
#
# Usage: Scripts/build-examples.sh
# Set SCRATCH_PATH to build somewhere other than .build.
set -euo pipefail
cd "$(dirname "$0")/.."

examples=(HelloProcedure ImagePipeline WeatherReport CapabilityGate)

scratch=()
if [[ -n "${SCRATCH_PATH:-}" ]]; then scratch=(--scratch-path "$SCRATCH_PATH"); fi

step() { printf '\n==> %s\n' "$*"; }

for example in "${examples[@]}"; do
    step "Build $example (release)"
    swift build -c release ${scratch[@]+"${scratch[@]}"} --product "$example" -Xswiftc -warnings-as-errors
done

bin_path="$(swift build -c release ${scratch[@]+"${scratch[@]}"} --show-bin-path)"

for example in "${examples[@]}"; do
    step "Run $example"
    "$bin_path/$example"
done
