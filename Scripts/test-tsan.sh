#!/usr/bin/env bash
# Runs PKCoreTests, PKConditionsTests, PKStressTests, PKMigrationTests, PKObserversTests, PKCapabilitiesTests and
# PKNetworkTests under ThreadSanitizer, in their own build directory (.build-tsan), so the instrumented build never
# replaces the normal one.
#
# Usage: Scripts/test-tsan.sh [filter] [more arguments for `swift test`]
#   Scripts/test-tsan.sh                     # every suite listed above
#   Scripts/test-tsan.sh PKCoreTests.ProcedureQueueTests
#
# The filter is a `swift test --filter` regular expression. Set SCRATCH_PATH to use another build directory.
# ThreadSanitizer makes the process exit non-zero when it reports a race.
set -euo pipefail
cd "$(dirname "$0")/.."

filter="${1:-PKCoreTests|PKConditionsTests|PKStressTests|PKMigrationTests|PKObserversTests|PKCapabilitiesTests|PKNetworkTests}"
if (($# > 0)); then shift; fi

printf '\n==> Run the tests under ThreadSanitizer (filter: %s)\n' "$filter"
# PK_TSAN swaps Synchronization.Mutex (futex-based, invisible to the sanitizer on Linux) for a pthread mutex.
swift test --sanitize=thread -Xswiftc -DPK_TSAN --scratch-path "${SCRATCH_PATH:-.build-tsan}" --filter "$filter" "$@"
