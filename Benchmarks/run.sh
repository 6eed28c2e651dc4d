#!/usr/bin/env bash
# Builds the benchmark in release and runs it; the table goes to the terminal and to
# Benchmarks/.build/results.md (copy it into BENCHMARKS.md when you update the published table).
#
#     Benchmarks/run.sh                      # full size: 100k rows, 1M for W6, W7 and M1, 5 runs
#     Benchmarks/run.sh --scale 0.1          # a tenth of every row count
#     FLUENT=1 Benchmarks/run.sh             # also Fluent (builds fluent-kit and its drivers: slow)
#     POSTGRES=1 Benchmarks/run.sh           # the PostgreSQL workloads, on a throwaway server (.ci/postgres.sh)
#     POSTGRES=postgres://me@host:5432/db Benchmarks/run.sh   # ... on a server of yours (databases bench_* are created there)
#
# Other options go to the benchmark: --runs N, --only W1,W4,M1, --markdown FILE, --dir DIR.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ -d /opt/swift/usr/bin ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi

build=(swift build -c release --package-path "$here")
run_args=()
traits=()
if [ "${FLUENT:-0}" = 1 ]; then
    traits+=(Fluent)
    build+=(--scratch-path "$here/.build-fluent")
    run_args+=(--fluent)
fi
if [ -n "${POSTGRES:-}" ]; then
    traits+=(Postgres)
    if [ "$POSTGRES" = 1 ]; then
        # shellcheck source=../.ci/postgres.sh
        source "$here/../.ci/postgres.sh"
        trap stop_postgres EXIT
        start_postgres
        POSTGRES=$STOWAGE_TEST_POSTGRES_URL
    fi
    run_args+=(--postgres "$POSTGRES")
fi
if [ ${#traits[@]} -gt 0 ]; then
    build+=(--traits "$(IFS=,; echo "${traits[*]}")")
fi

"${build[@]}"
bin="$("${build[@]}" --show-bin-path)/stowage-bench"
"$bin" --markdown "$here/.build/results.md" "${run_args[@]}" "$@"
