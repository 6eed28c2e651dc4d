#!/usr/bin/env bash
# Builds the benchmark in release and runs it; the table goes to the terminal and to
# Benchmarks/.build/results.md (copy it into BENCHMARKS.md when you update the published table).
#
#     Benchmarks/run.sh                      # full size: 100k rows, 1M for W6, W7 and M1, 5 runs
#     Benchmarks/run.sh --scale 0.1          # a tenth of every row count
#     FLUENT=1 Benchmarks/run.sh             # also Fluent (builds fluent-kit and its drivers: slow)
#
# Other options go to the benchmark: --runs N, --only W1,W4,M1, --markdown FILE, --dir DIR.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ -d /opt/swift/usr/bin ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi

build=(swift build -c release --package-path "$here")
run_args=()
if [ "${FLUENT:-0}" = 1 ]; then
    build+=(--traits Fluent --scratch-path "$here/.build-fluent")
    run_args+=(--fluent)
fi

"${build[@]}"
bin="$("${build[@]}" --show-bin-path)/stowage-bench"
"$bin" --markdown "$here/.build/results.md" "${run_args[@]}" "$@"
