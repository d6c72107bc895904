#!/usr/bin/env bash
# A throwaway PostgreSQL server for PKPostgres's tests, benchmark and example: the distribution's binaries, a data
# directory and Unix socket in a temporary folder, no TCP, no fsync. Installs `postgresql` and `libpq-dev` with
# apt-get when it runs as root on Debian/Ubuntu and they are missing.
#
# Usage: Scripts/postgres.sh install|start|stop|restart|url|status
#   install  install PostgreSQL and libpq's headers if missing (root + apt-get only); exits 1 when unavailable
#   start    create the cluster if needed and start it; prints the connection string
#   stop     stop it (the data directory stays until the folder is removed)
#   restart  stop, then start (tests use it to restart the database mid-run)
#   url      print the connection string
#   status   exit 0 when it runs
#
# PK_POSTGRES_DIR sets the folder (default: $TMPDIR/procedurekit-postgres-$UID).
set -euo pipefail

dir="${PK_POSTGRES_DIR:-${TMPDIR:-/tmp}/procedurekit-postgres-$(id -u)}"
port="${PK_POSTGRES_PORT:-5439}"
data="$dir/data"
log="$dir/server.log"

say() { printf 'postgres.sh: %s\n' "$*" >&2; }

bindir() {
    if command -v pg_config >/dev/null 2>&1 && [[ -x "$(pg_config --bindir)/pg_ctl" ]]; then
        pg_config --bindir
        return
    fi
    local found
    found="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)"
    [[ -n "$found" && -x "$found/pg_ctl" ]] && { echo "$found"; return; }
    return 1
}

have_everything() {
    bindir >/dev/null 2>&1 && pkg-config --exists libpq 2>/dev/null
}

install() {
    have_everything && return 0
    if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
        say "installing postgresql and libpq-dev with apt-get"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >/dev/null
        apt-get install -y -qq --no-install-recommends postgresql libpq-dev pkg-config >/dev/null
    fi
    have_everything || { say "PostgreSQL or libpq-dev is not available and cannot be installed here"; return 1; }
}

# The server refuses to run as root: as root, it runs as the `postgres` user the package created.
as_owner() {
    if [[ "$(id -u)" == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

owner() { if [[ "$(id -u)" == 0 ]]; then echo postgres; else id -un; fi; }

url() { echo "host=$dir port=$port dbname=postgres user=$(owner)"; }

running() { [[ -f "$data/postmaster.pid" ]] && as_owner "$(bindir)/pg_ctl" -D "$data" status >/dev/null 2>&1; }

start() {
    install
    local bin
    bin="$(bindir)"
    mkdir -p "$dir"
    if [[ "$(id -u)" == 0 ]]; then chown postgres "$dir"; fi
    chmod 700 "$dir"
    if [[ ! -f "$data/PG_VERSION" ]]; then
        as_owner "$bin/initdb" --no-sync -A trust -U "$(owner)" -D "$data" >"$dir/initdb.log" 2>&1 \
            || { cat "$dir/initdb.log" >&2; exit 1; }
    fi
    if ! running; then
        as_owner "$bin/pg_ctl" -D "$data" -l "$log" -w -t 30 start \
            -o "-c listen_addresses='' -c unix_socket_directories='$dir' -p $port -c fsync=off \
                -c synchronous_commit=off -c full_page_writes=off -c max_connections=500" >/dev/null \
            || { tail -20 "$log" >&2; exit 1; }
    fi
    url
}

stop() {
    if running; then as_owner "$(bindir)/pg_ctl" -D "$data" -m fast -w stop >/dev/null; fi
}

case "${1:-}" in
    install) install ;;
    start) start ;;
    stop) stop ;;
    restart) stop; start ;;
    url) url ;;
    status) running ;;
    *) sed -n '2,16p' "$0" >&2; exit 2 ;;
esac
