# Sourced by Scripts/test.sh, Scripts/test-tsan.sh and Scripts/bench.sh: when PostgreSQL and libpq are here or can
# be installed, starts the throwaway server (Scripts/postgres.sh), exports PK_POSTGRES_URL and sets
# `traits=(--traits Postgres)`; otherwise leaves `traits` empty and says loudly that PKPostgres is skipped
# (an error when PK_REQUIRE_POSTGRES=1).
traits=()
if [[ "${PK_SKIP_POSTGRES:-0}" != 1 ]] && Scripts/postgres.sh install && PK_POSTGRES_URL="$(Scripts/postgres.sh start)"; then
    export PK_POSTGRES_URL
    traits=(--traits Postgres)
    printf '\n==> PostgreSQL for PKPostgres: %s\n' "$PK_POSTGRES_URL"
else
    if [[ "${PK_REQUIRE_POSTGRES:-0}" == 1 ]]; then
        printf '\nERROR: PK_REQUIRE_POSTGRES=1 but PostgreSQL/libpq are not available\n' >&2
        exit 1
    fi
    printf '\n*** WARNING: PostgreSQL or libpq-dev is missing: PKPostgres is NOT built and its tests are SKIPPED ***\n\n' >&2
fi
