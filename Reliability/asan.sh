#!/bin/sh
# The reliability suite's corrupt-files scenario under AddressSanitizer (RELIABILITY.md, "Damaged
# and foreign files"): builds the stowage-reliability command with -sanitize=address in a scratch path of
# its own (.build-asan, so that the normal build is left alone), then runs it.
#
#     Reliability/asan.sh                      corrupt-files at full size (100 variants)
#     Reliability/asan.sh corrupt-files --quick
#     Reliability/asan.sh SCENARIO… [--quick]  any scenarios of the suite
#
# The first build takes several minutes (every dependency is rebuilt with the sanitizer). ASan stops
# the process at the first memory error it finds and prints its report; the exit status is then
# non-zero, as it is when a scenario fails.
set -eu
cd "$(dirname "$0")/.."
scratch=.build-asan
mkdir -p "$scratch"
# The build's output without the linker's warnings about ASan's check symbols (noise, one per symbol).
build_status=0
swift build --product stowage-reliability --scratch-path "$scratch" -Xswiftc -sanitize=address > "$scratch/asan-build.log" 2>&1 || build_status=$?
grep -v "Cannot export local symbol '__asan" "$scratch/asan-build.log" || true
[ "$build_status" -eq 0 ] || { echo "asan.sh: the build failed" >&2; exit 2; }
binary="$(swift build --product stowage-reliability --scratch-path "$scratch" -Xswiftc -sanitize=address --show-bin-path)/stowage-reliability"
[ $# -gt 0 ] || set -- corrupt-files
# Swift's backtracer would catch the signals ASan reports on. Leak detection is off: LeakSanitizer
# reports memory Swift still reaches through pointers it cannot follow (enum payloads carrying tag bits,
# Foundation's Data storage; a quick run with it on reports 3 allocations, all Data(contentsOf:)).
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}"
echo "running $binary $* with ASAN_OPTIONS=$ASAN_OPTIONS"
exec "$binary" "$@"
