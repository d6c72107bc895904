#!/usr/bin/env bash
# Lints every Swift file of the package with the toolchain's swift-format and the repository's .swift-format.
# Fails on any finding (--strict). The file list is explicit and checked to be non-empty, because
# `swift format lint` on a missing path succeeds silently.
set -euo pipefail
cd "$(dirname "$0")/.."

mapfile -t files < <(git ls-files 'Sources/*.swift' 'Tests/*.swift' 'Examples/*.swift' 'Package.swift')
if ((${#files[@]} == 0)); then
    echo "format-check: no Swift files found" >&2
    exit 1
fi
printf '\n==> swift format lint (%d files)\n' "${#files[@]}"
swift format lint --strict "${files[@]}"
