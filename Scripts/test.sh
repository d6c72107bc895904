#!/usr/bin/env bash
# Builds every target, tests included, with warnings as errors, then runs the tests.
#
# Usage: Scripts/test.sh [arguments for `swift test`]
#   Scripts/test.sh
#   Scripts/test.sh --filter PKCoreTests
#
# PKPostgres (durable procedures) is built and its suite run whenever PostgreSQL and libpq are here or can be
# installed (Scripts/postgres.sh): the build then enables the `Postgres` package trait and a throwaway server is
# started for the tests. Otherwise the suite is skipped with a loud message, unless PK_REQUIRE_POSTGRES=1 (CI),
# which makes that a failure.
#
# Set SCRATCH_PATH to build somewhere other than .build.
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=()
if [[ -n "${SCRATCH_PATH:-}" ]]; then scratch=(--scratch-path "$SCRATCH_PATH"); fi

step() { printf '\n==> %s\n' "$*"; }

# shellcheck source=Scripts/postgres-env.sh
source Scripts/postgres-env.sh

step "Build all targets and tests (Swift 6 language mode, warnings as errors${traits[*]:+, ${traits[*]}})"
swift build ${scratch[@]+"${scratch[@]}"} ${traits[@]+"${traits[@]}"} --build-tests -Xswiftc -warnings-as-errors

# The same compiler flags as the build above, so `swift test` reuses it instead of rebuilding.
step "Run the tests${*:+ ($*)}"
swift test ${scratch[@]+"${scratch[@]}"} ${traits[@]+"${traits[@]}"} -Xswiftc -warnings-as-errors "$@"
