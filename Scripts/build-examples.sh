#!/usr/bin/env bash
# Builds the example executables in release mode (with every other product of the package), with warnings as errors,
# and runs each one.
#
# Usage: Scripts/build-examples.sh            (EXAMPLES_BUILD_ONLY=1 to build without running)
# Set SCRATCH_PATH to build somewhere other than .build, and TRAITS (for example `Postgres`) to build with package
# traits: CI builds the examples where, and as, Scripts/bench.sh then builds the benchmark, so the library is built
# in release once.
set -euo pipefail
cd "$(dirname "$0")/.."

examples=(HelloProcedure ImagePipeline WeatherReport GracefulShutdown TraceDemo CapabilityGate NetworkFetch
    ServerQuickstart ProcessPipeline)

scratch=()
if [[ -n "${SCRATCH_PATH:-}" ]]; then scratch=(--scratch-path "$SCRATCH_PATH"); fi
traits=()
if [[ -n "${TRAITS:-}" ]]; then traits=(--traits "$TRAITS"); fi

step() { printf '\n==> %s\n' "$*"; }

# One build of every product (the examples, DurableFleet and the benchmark): one planning pass instead of one per
# example, and Scripts/bench.sh then finds its products built.
step "Build the examples and the other executables (release)"
swift build -c release ${scratch[@]+"${scratch[@]}"} ${traits[@]+"${traits[@]}"} -Xswiftc -warnings-as-errors

# EXAMPLES_BUILD_ONLY=1: build, run nothing (CI builds while the sanitizer's tests run, and runs the examples after).
if [[ "${EXAMPLES_BUILD_ONLY:-}" == 1 ]]; then exit 0; fi

bin_path="$(swift build -c release ${scratch[@]+"${scratch[@]}"} ${traits[@]+"${traits[@]}"} --show-bin-path)"

for example in "${examples[@]}"; do
    step "Run $example"
    case "$example" in
    # TraceDemo writes a trace file: into a temporary directory, not the work tree.
    TraceDemo)
        trace_dir="$(mktemp -d)"
        "$bin_path/$example" "$trace_dir/trace.json"
        rm -rf "$trace_dir"
        ;;
    # ProcessPipeline works in a directory it makes under TMPDIR: give it an empty one, which it must leave empty.
    ProcessPipeline)
        tmp_dir="$(mktemp -d)"
        TMPDIR="$tmp_dir" "$bin_path/$example"
        if [[ -n "$(ls -A "$tmp_dir")" ]]; then
            echo "build-examples.sh: ProcessPipeline left files behind in $tmp_dir" >&2
            exit 1
        fi
        rmdir "$tmp_dir"
        ;;
    *) "$bin_path/$example" ;;
    esac
done
