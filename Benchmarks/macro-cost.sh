#!/usr/bin/env bash
# What `@Model` costs a user's debug build: the compiler's CPU time (user + system, the macro plugin's
# included) for one file of 40 `@Model` classes × 10 properties, against the same 40 plain classes,
# each compiled alone with `swift-frontend -c` as SwiftPM compiles a file in a debug build, with the
# macro plugin as SwiftPM builds it for one (swift-syntax without optimization). Prints the median of
# several runs and the ratio.
#
#     Benchmarks/macro-cost.sh            # 5 runs each
#     Benchmarks/macro-cost.sh 3          # 3 runs each
#
# Run it on an idle machine: the figures are CPU times, which a build beside them inflates.
set -euo pipefail

runs=${1:-5}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
if [ -d /opt/swift/usr/bin ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi

cd "$repo"
swift build --target Stowage > /dev/null
bin=$(swift build --show-bin-path)
frontend="$(dirname "$(readlink -f "$(command -v swift)")")/swift-frontend"
modulemap="$repo/.build/checkouts/GRDB.swift/Sources/GRDBSQLite/module.modulemap"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The same 40 classes twice: as models, and as plain classes.
types=(String Int Double Bool Date "String?" "Int?" UUID Data "Double?")
values=('""' 0 0 false .now nil nil "UUID()" "Data()" nil)
for kind in models plain; do
    {
        echo "import Foundation"
        if [ "$kind" = models ]; then echo "import Stowage"; fi
        for m in $(seq 0 39); do
            if [ "$kind" = models ]; then echo "@Model"; fi
            echo "final class Entity$m {"
            parameters=()
            for p in $(seq 0 9); do
                echo "    var p$p: ${types[$p]}"
                parameters+=("p$p: ${types[$p]} = ${values[$p]}")
            done
            echo "    init($(IFS=,; echo "${parameters[*]}" | sed 's/,/, /g')) {"
            for p in $(seq 0 9); do echo "        self.p$p = p$p"; done
            echo "    }"
            echo "}"
        done
    } > "$work/$kind.swift"
done

compile() {
    local kind=$1
    local arguments=(-frontend -c "$work/$kind.swift" -module-name Models -o "$work/$kind.o" -Onone -g)
    if [ "$kind" = models ]; then
        arguments+=(-I "$bin/Modules" -Xcc "-fmodule-map-file=$modulemap"
                    -load-plugin-executable "$bin/StowageMacros-tool#StowageMacros")
    fi
    "$frontend" "${arguments[@]}"
}

# CPU seconds (user + system) of one compilation, the plugin process's included.
cpu_seconds() {
    local TIMEFORMAT='%3U %3S'
    local times
    times=$({ time compile "$1" > /dev/null 2>&1; } 2>&1)
    awk '{ printf "%.3f\n", $1 + $2 }' <<< "$times"
}

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

compile models > /dev/null  # warm the file cache and check that it compiles
declare -A result
for kind in models plain; do
    samples=()
    for _ in $(seq "$runs"); do samples+=("$(cpu_seconds "$kind")"); done
    result[$kind]=$(printf '%s\n' "${samples[@]}" | median)
    echo "$kind: ${samples[*]} s CPU; median ${result[$kind]} s"
done
ratio=$(awk -v a="${result[models]}" -v b="${result[plain]}" 'BEGIN { printf "%.1f", a / b }')
echo "40 @Model classes × 10 properties: ${result[models]} s of compiler CPU; 40 plain classes: ${result[plain]} s; ${ratio}× (target: at most 10×)"

