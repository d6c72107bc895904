#!/usr/bin/env bash
# Builds the benchmark in release mode and runs it: every contender in one process, alternately, medians and
# ratios in one table. Arguments go to the benchmark: --quick (small sizes, for CI smoke), --json.
# The benchmark never fails on a figure; it reports which targets were met.
# W14/W15 (PKNetwork against plain URLSession) start PKNetworkTests' loopback python3 server
# (Tests/PKNetworkTests/Fixtures/test_server.py); without python3 they are skipped with a message.
# W16/W17/W18 (PKPostgres) need PostgreSQL and libpq (Scripts/postgres-env.sh starts a throwaway server and enables
# the Postgres trait); without them they are skipped with a message.
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=Scripts/postgres-env.sh
source Scripts/postgres-env.sh >&2

scratch=(--scratch-path "${SCRATCH_PATH:-.build-bench}")
swift build -c release "${scratch[@]}" ${traits[@]+"${traits[@]}"} --product PKBenchmarks -Xswiftc -warnings-as-errors >&2
# W18 runs DurableFleet worker processes from beside the benchmark.
if ((${#traits[@]} > 0)); then
    swift build -c release "${scratch[@]}" ${traits[@]+"${traits[@]}"} --product DurableFleet -Xswiftc -warnings-as-errors >&2
fi
"$(swift build -c release "${scratch[@]}" ${traits[@]+"${traits[@]}"} --show-bin-path)/PKBenchmarks" "$@"
