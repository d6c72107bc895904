#!/usr/bin/env bash
# Runs PKCoreTests, PKConditionsTests, PKStressTests, PKMigrationTests, PKObserversTests, PKCapabilitiesTests,
# PKNetworkTests, PKProcessTests, PKHTTPServerTests and PKPostgresTests (when PostgreSQL is here:
# Scripts/postgres-env.sh) under ThreadSanitizer, in their own build directory (.build-tsan), so the instrumented
# build never replaces the normal one.
#
# Usage: Scripts/test-tsan.sh [filter] [more arguments for `swift test`]
#   Scripts/test-tsan.sh                     # every suite listed above
#   Scripts/test-tsan.sh PKCoreTests.ProcedureQueueTests
#
# The filter is a `swift test --filter` regular expression. Set SCRATCH_PATH to use another build directory.
# ThreadSanitizer makes the process exit non-zero when it reports a race.
set -euo pipefail
cd "$(dirname "$0")/.."

filter="${1:-PKCoreTests|PKConditionsTests|PKStressTests|PKMigrationTests|PKObserversTests|PKCapabilitiesTests|PKNetworkTests|PKProcessTests|PKHTTPServerTests|PKPostgresTests}"
# By default the suites that run an example executable as a child process and check what it does with signals and
# its exit status (GracefulShutdownExampleTests, ProcessPipelineExampleTests) are left to the debug run: what they
# test happens in the child, they spend their time waiting for it (15 s of CI's budget here), and the library code
# the examples drive is raced by the suites above. Name them in a filter to run them under the sanitizer.
skip=()
if (($# > 0)); then shift; else skip=(--skip "ExampleTests"); fi

# shellcheck source=Scripts/postgres-env.sh
source Scripts/postgres-env.sh

tsan=(--sanitize=thread -Xswiftc -DPK_TSAN --scratch-path "${SCRATCH_PATH:-.build-tsan}" ${traits[@]+"${traits[@]}"})

# TSAN_BUILD_ONLY=1: only build (CI builds first, then runs the tests while its release build uses the other core).
if [[ "${TSAN_BUILD_ONLY:-}" == 1 ]]; then
    printf '\n==> Build the tests with ThreadSanitizer\n'
    swift build --build-tests "${tsan[@]}"
    exit 0
fi

printf '\n==> Run the tests under ThreadSanitizer (filter: %s)\n' "$filter"
# PK_TSAN swaps Synchronization.Mutex (futex-based, invisible to the sanitizer on Linux) for a pthread mutex.
# One test at a time (--no-parallel): instrumented code runs several times slower, and in parallel the sync tests
# that block while they wait held both cooperative-pool threads long enough for async tests' hang timeouts to run
# out (in CI an async test's child task did not start for 20 s). The debug run (Scripts/test.sh) stays parallel.
# Races inside a test (the stress suites spawn their own threads) are what the sanitizer is for.
swift test "${tsan[@]}" --no-parallel ${skip[@]+"${skip[@]}"} --filter "$filter" "$@"
