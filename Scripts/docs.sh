#!/usr/bin/env bash
# Builds the DocC documentation of every library module into one static site, .build/docs, and fails on any DocC
# warning (warnings are errors), on a public symbol without a documentation comment, and on an article's Swift code
# that no test compiles.
#
# Usage: Scripts/docs.sh
#   Scripts/docs.sh && python3 -m http.server --directory .build/docs    # then open localhost:8000/documentation
#
# 1. Every ```swift block of every article (Sources/<Module>/<Module>.docc/*.md) is in a file under Tests/ or
#    Examples/, whitespace and `private` aside, so that the build compiles it (blank-line-separated paragraphs may
#    be in different places of one file). The few blocks that cannot compile here are listed below, with why.
# 2. Symbol graphs: `swift symbolgraph-extract` reads them from the modules of Scripts/test.sh's debug build (same
#    flags and traits), so after Scripts/test.sh, as in CI, nothing is compiled again; alone, the script builds it.
# 3. Every public symbol declared in a module has its own `///` comment (checked in the symbol graphs).
# 4. Each catalogue is converted with the toolchain's `docc`, warnings as errors, a module after the modules it
#    depends on (Package.swift), independent ones in parallel. A link to another module's symbol is written with a
#    leading slash, ``/PKCore/Procedure``, and resolves against that module's archive (docc's `--dependency`).
# 5. The archives are merged (`docc merge`) into the site, under a landing page listing the modules.
#
# PKPostgres is documented when the Postgres trait is built (PostgreSQL and libpq here or installable:
# Scripts/postgres-env.sh), and skipped with a message otherwise. Needs python3 for the checks. Set SCRATCH_PATH to
# use the build in another directory than .build; the site is then written to $SCRATCH_PATH/docs.
set -euo pipefail
cd "$(dirname "$0")/.."

scratch_dir="${SCRATCH_PATH:-.build}"
scratch=()
if [[ -n "${SCRATCH_PATH:-}" ]]; then scratch=(--scratch-path "$SCRATCH_PATH"); fi
site="$scratch_dir/docs"
work="$scratch_dir/docs-work"
failed=""

step() { printf '\n==> %s\n' "$*"; }

# docc ships in the toolchain, beside `swift` (which may be a swiftly or xcrun shim, hence the resource path).
docc="$(command -v docc || true)"
if [[ -z "$docc" ]]; then
    resource_dir="$(swift -print-target-info | sed -n 's/.*"runtimeResourcePath": *"\(.*\)".*/\1/p')"
    docc="$resource_dir/../../bin/docc"
fi
if [[ ! -x "$docc" ]]; then
    echo "docs.sh: docc was found neither on PATH nor in the toolchain" >&2
    exit 1
fi
command -v python3 >/dev/null || { echo "docs.sh: python3 is needed for the checks" >&2; exit 1; }

step "Every article's Swift code is in a test or an example"
python3 - <<'PY' || failed=1
import glob, re, sys

# The blocks, and the blank-line-separated paragraphs of a block, that are not compiled here, by article and first
# line, with why.
BLOCKS_NOT_COMPILED = {
    ("Logging.md", "import Logging"): "an adapter for swift-log, a package PKCore does not depend on",
    ("RunningProceduresAcrossMachines.md", "// Package.swift"): "a package manifest excerpt",
}
PARAGRAPHS_NOT_COMPILED = {
    ("MigratingFromProcedureKit.md", "// ProcedureKit"): "ProcedureKit 5's code, which Swift 6 rejects on purpose",
}

def normalized(text):
    return re.sub(r"\s+", "", re.sub(r"\b(?:private|fileprivate)\s+", "", text))

sources = {path: normalized(open(path).read())
           for pattern in ("Tests/**/*.swift", "Examples/**/*.swift") for path in glob.glob(pattern, recursive=True)}
missing = 0
for article in sorted(glob.glob("Sources/*/*.docc/*.md")):
    name, lines = article.rsplit("/", 1)[1], open(article).read().split("\n")
    starts = [i for i, line in enumerate(lines) if line.strip() == "```swift"]
    for start in starts:
        end = next(i for i in range(start + 1, len(lines)) if lines[i].strip().startswith("```"))
        code = lines[start + 1:end]
        if not code or (name, code[0].strip()) in BLOCKS_NOT_COMPILED:
            continue
        # Imports may be in any order in a file; the other lines, paragraph by paragraph.
        parts = [line for line in code if line.startswith("import ")]
        rest = "\n".join(line for line in code if not line.startswith("import "))
        parts += [p for p in re.split(r"\n\s*\n", rest)
                  if p.strip() and (name, p.strip().split("\n")[0]) not in PARAGRAPHS_NOT_COMPILED]
        if not any(all(normalized(p) in text for p in parts) for text in sources.values()):
            missing += 1
            print(f"{article}:{start + 2}: error: this example is in no file under Tests/ or Examples/; copy it into "
                  "the article's test (Tests/<Module>Tests/Guides/) so that it compiles", file=sys.stderr)
if missing:
    sys.exit(f"{missing} examples are not compiled")
print("every example is compiled")
PY

# shellcheck source=Scripts/postgres-env.sh
source Scripts/postgres-env.sh

rm -rf "$work" "$site"
mkdir -p "$work"

# Without the Postgres trait PKPostgres is an empty module: its catalogue would only link to nothing.
skipped=""
if ((${#traits[@]} == 0)); then
    skipped=PKPostgres
    printf "\n*** WARNING: the Postgres trait is not built: PKPostgres's documentation is SKIPPED ***\n" >&2
fi

# The library modules with a catalogue, one line each: `level module dependencies...`. A module's level is one
# more than its dependencies' highest, so that the modules of one level can be converted together.
modules_file="$work/modules.txt"
swift package ${scratch[@]+"${scratch[@]}"} describe --type json >"$work/package.json"
python3 - "$work/package.json" "$skipped" >"$modules_file" <<'PY'
import json, os, sys

targets = {t["name"]: t for t in json.load(open(sys.argv[1]))["targets"] if t["type"] == "library"}
documented = {name for name in targets if name != sys.argv[2] and os.path.isdir(f"Sources/{name}/{name}.docc")}

def dependencies(name):
    direct = [d for d in targets[name].get("target_dependencies", []) if d in targets]
    return sorted(set(direct).union(*(dependencies(d) for d in direct)))

def level(name):
    return 1 + max((level(d) for d in dependencies(name)), default=-1)

for name in sorted(documented, key=lambda n: (level(n), n)):
    print(level(name), name, *[d for d in dependencies(name) if d in documented])
PY

step "Symbol graphs (from the debug build${traits[*]:+, ${traits[*]}})"
# Scripts/test.sh's build, to the flag (its tests aside), so that after it nothing is compiled. `swift package
# dump-symbol-graph` is not used: it always builds with every trait, so without libpq it fails, and otherwise it
# rebuilds a build made without the Postgres trait.
swift build ${scratch[@]+"${scratch[@]}"} ${traits[@]+"${traits[@]}"} -Xswiftc -warnings-as-errors
bin_path="$(swift build ${scratch[@]+"${scratch[@]}"} ${traits[@]+"${traits[@]}"} --show-bin-path)"
# The extractor's arguments are those SwiftPM passes it. PKPostgres imports CLibPQ, a system library module: its
# module map and libpq's headers.
extract=(-target "$(swift -print-target-info | sed -n 's/^ *"triple": *"\(.*\)".*/\1/p' | head -1)"
    -module-cache-path "$bin_path/ModuleCache" -I "$bin_path/Modules" -minimum-access-level public
    -omit-extension-block-symbols)
if ((${#traits[@]} > 0)); then
    # shellcheck disable=SC2207 # pkg-config prints separate flags
    extract+=(-Xcc -fmodule-map-file=Sources/CLibPQ/module.modulemap $(pkg-config --cflags-only-I libpq))
fi
if command -v xcrun >/dev/null 2>&1; then extract+=(-sdk "$(xcrun --show-sdk-path)"); fi
pids=()
while read -r _ module _; do
    mkdir -p "$work/graphs/$module"
    swift symbolgraph-extract -module-name "$module" "${extract[@]}" -output-dir "$work/graphs/$module" &
    pids+=($!)
done <"$modules_file"
for pid in "${pids[@]}"; do wait "$pid"; done

step "Every public symbol has a documentation comment"
python3 - "$work/graphs" "$modules_file" <<'PY' || failed=1
import glob, json, os, sys

# A symbol declared in Sources/<Module>/ must carry its own comment, not one inherited from what it overrides or
# implements. Symbols declared elsewhere (default implementations from other modules, synthesized members) are
# documented where they are declared.
graphs, missing = sys.argv[1], 0
for module in [line.split()[1] for line in open(sys.argv[2])]:
    for path in glob.glob(f"{graphs}/{module}/{module}.symbols.json") + glob.glob(f"{graphs}/{module}/{module}@*.json"):
        for symbol in json.load(open(path))["symbols"]:
            location = symbol.get("location", {})
            uri = location.get("uri", "")
            if f"/Sources/{module}/" not in uri:
                continue
            comment = symbol.get("docComment") or {}
            if any(line["text"].strip() for line in comment.get("lines", [])) and comment.get("uri", uri) == uri:
                continue
            missing += 1
            file, line = os.path.relpath(uri.removeprefix("file://")), location["position"]["line"] + 1
            name = ".".join(symbol["pathComponents"])
            print(f"{file}:{line}: error: public symbol {name} has no documentation comment", file=sys.stderr)
if missing:
    sys.exit(f"{missing} public symbols are not documented")
print("every public symbol is documented")
PY

step "Convert the catalogues (warnings are errors)"
convert() {
    local module="$1"
    shift
    local dependencies=()
    for dependency in "$@"; do dependencies+=(--dependency "$work/$dependency.doccarchive"); done
    local options=("Sources/$module/$module.docc" --additional-symbol-graph-dir "$work/graphs/$module"
        --output-path "$work/$module.doccarchive" --fallback-display-name "$module"
        --fallback-bundle-identifier "$module" --enable-experimental-external-link-support
        ${dependencies[@]+"${dependencies[@]}"})
    "$docc" convert "${options[@]}" --warnings-as-errors && return
    # Fail, but make the archive anyway (it is not written on an error) so that the modules that depend on this one
    # are checked in the same run.
    "$docc" convert "${options[@]}" >/dev/null 2>&1 || true
    return 1
}
converted=()
for level in $(cut -d' ' -f1 "$modules_file" | sort -un); do
    pids=()
    names=()
    while read -r module_level module dependencies; do
        [[ "$module_level" == "$level" ]] || continue
        missing=""
        for dependency in $dependencies; do
            [[ -d "$work/$dependency.doccarchive" ]] || missing+=" $dependency"
        done
        if [[ -n "$missing" ]]; then
            printf '%s: not converted, because these could not be:%s\n' "$module" "$missing" >&2
            failed=1
            continue
        fi
        # shellcheck disable=SC2086 # $dependencies is a list of module names
        convert "$module" $dependencies >"$work/$module.log" 2>&1 &
        pids+=($!)
        names+=("$module")
    done <"$modules_file"
    for i in "${!pids[@]}"; do
        if wait "${pids[$i]}"; then
            converted+=("$work/${names[$i]}.doccarchive")
            printf '%s: no warnings\n' "${names[$i]}"
        else
            printf '\n%s:\n' "${names[$i]}" >&2
            cat "$work/${names[$i]}.log" >&2
            failed=1
        fi
    done
done

if [[ -n "$failed" ]]; then
    echo "docs.sh: the documentation has errors (above)" >&2
    exit 1
fi

step "Merge into the static site $site"
"$docc" merge "${converted[@]}" --output-path "$site" --synthesized-landing-page-name ProcedureKit
printf 'Serve %s with any static web server and open /documentation/, for example:\n' "$site"
printf '  python3 -m http.server --directory %s\n' "$site"
