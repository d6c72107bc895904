#!/usr/bin/env bash
# Headless Chromium and its WebDriver (Debian's chromium and chromium-driver) for the dashboard's browser test.
# Installs them with apt-get when they are missing and this runs as root on Debian/Ubuntu.
#
# Usage: Scripts/chromium.sh install|paths
#   install  install chromium and chromium-driver if missing (root + apt-get only); exits 1 when unavailable
#   paths    print "CHROMIUM CHROMEDRIVER" (the binaries' paths); exits 1 when either is missing
set -euo pipefail

say() { printf 'chromium.sh: %s\n' "$*" >&2; }

chromium_path() { command -v chromium || command -v chromium-browser || command -v google-chrome || true; }
driver_path() { command -v chromedriver || { [[ -x /usr/lib/chromium/chromedriver ]] && echo /usr/lib/chromium/chromedriver; } || true; }

have_everything() { [[ -n "$(chromium_path)" && -n "$(driver_path)" ]]; }

install() {
    have_everything && return 0
    if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
        say "installing chromium and chromium-driver with apt-get"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >/dev/null
        apt-get install -y -qq --no-install-recommends chromium chromium-driver fonts-dejavu-core >/dev/null
    fi
    have_everything || { say "Chromium or its driver is not available and cannot be installed here"; return 1; }
}

case "${1:-}" in
    install) install ;;
    paths)
        have_everything || { say "chromium or chromedriver is missing (Scripts/chromium.sh install)"; exit 1; }
        echo "$(chromium_path) $(driver_path)"
        ;;
    *)
        echo "usage: Scripts/chromium.sh install|paths" >&2
        exit 2
        ;;
esac
