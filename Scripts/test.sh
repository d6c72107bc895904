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
# which makes that a failure. The same goes for the dashboard's browser test and Chromium (Scripts/chromium.sh,
# PK_REQUIRE_BROWSER=1).
#
# Set SCRATCH_PATH to build somewhere other than .build.
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=()
if [[ -n "${SCRATCH_PATH:-}" ]]; then scratch=(--scratch-path "$SCRATCH_PATH"); fi

step() { printf '\n==> %s\n' "$*"; }

# shellcheck source=Scripts/postgres-env.sh
source Scripts/postgres-env.sh

# The dashboard's browser test (PKPostgresTests) needs headless Chromium: installed when possible; without it the
# test is skipped, loudly, unless PK_REQUIRE_BROWSER=1 (CI), where it fails.
if ((${#traits[@]} > 0)) && ! Scripts/chromium.sh install >/dev/null 2>&1; then
    if [[ "${PK_REQUIRE_BROWSER:-0}" == 1 ]]; then
        printf '\nERROR: PK_REQUIRE_BROWSER=1 but Chromium and chromedriver are not available\n' >&2
        exit 1
    fi
    printf '\nWARNING: Chromium or chromedriver is missing: the dashboard browser test is SKIPPED\n\n' >&2
fi

step "Build all targets and tests (Swift 6 language mode, warnings as errors${traits[*]:+, ${traits[*]}})"
swift build ${scratch[@]+"${scratch[@]}"} ${traits[@]+"${traits[@]}"} --build-tests -Xswiftc -warnings-as-errors

# The same compiler flags as the build above, so `swift test` reuses it instead of rebuilding.
run_tests() { swift test ${scratch[@]+"${scratch[@]}"} ${traits[@]+"${traits[@]}"} -Xswiftc -warnings-as-errors "$@"; }
if (($# > 0)); then
    step "Run the tests ($*)"
    run_tests "$@"
elif ((${#traits[@]} > 0)); then
    # PKPostgres's suites run fleets of worker processes and servers of their own and keep both cores busy for
    # long stretches; run beside the other modules, they starved those modules' timing-bound tests (in CI,
    # PKCapabilitiesTests' authorizations waited past their limits). So they run on their own, after the rest.
    step "Run the tests (every module but PKPostgres)"
    run_tests --skip PKPostgresTests
    step "Run the tests (PKPostgres)"
    run_tests --filter PKPostgresTests
else
    step "Run the tests"
    run_tests
fi
