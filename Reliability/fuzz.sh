#!/bin/sh
# The reliability suite's fuzzing (RELIABILITY.md, "Fuzzing"): builds the libFuzzer targets of the
# nested package Reliability/Fuzz with AddressSanitizer and coverage instrumentation, runs each for
# SECONDS (default 120), and prints per target its executions, crashes and differences.
#
#     Reliability/fuzz.sh [SECONDS] [TARGET…]      targets: fuzz-predicates fuzz-open-store
#
# The corpora, logs and saved inputs are kept in Reliability/Fuzz/.build/fuzz/ (ignored by git), so a
# later run starts from what an earlier one found; remove that directory to start afresh. A crash,
# ASan report, hang or difference saves its input as .build/fuzz/artifacts-TARGET/crash-… (or
# timeout-…); the script replays each new one and prints its cause. Replay one yourself with
# `SWIFT_BACKTRACE=enable=no .build/debug/TARGET FILE` in Reliability/Fuzz.
# Exits 1 when a target crashed or found a difference.
set -eu
seconds="${1:-120}"
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- fuzz-predicates fuzz-open-store
cd "$(dirname "$0")/Fuzz"

toolchain="$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")"
runtime="$(ls "$toolchain"/lib/clang/*/lib/*/libclang_rt.fuzzer_no_main-x86_64.a 2>/dev/null | head -n 1)"
if [ -z "$runtime" ]; then
    echo "fuzz.sh: libclang_rt.fuzzer_no_main-x86_64.a not found under $toolchain/lib/clang" >&2
    exit 2
fi
flags="-Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,trace-cmp,pc-table,inline-8bit-counters -Xlinker $runtime -Xlinker -lstdc++"
mkdir -p .build
# The build's output without the linker's warnings about ASan's check symbols (noise, one per symbol).
build_status=0
# shellcheck disable=SC2086  # $flags is a list of arguments
swift build $flags > .build/fuzz-build.log 2>&1 || build_status=$?
grep -v "Cannot export local symbol '__asan" .build/fuzz-build.log || true
[ "$build_status" -eq 0 ] || { echo "fuzz.sh: the build failed" >&2; exit 2; }
# shellcheck disable=SC2086
bin="$(swift build $flags --show-bin-path)"

work=.build/fuzz
failed=0
summary=""
for target in "$@"; do
    corpus="$work/corpus-$target"
    artifacts="$work/artifacts-$target"
    replays="$work/replays-$target"
    log="$work/$target.log"
    mkdir -p "$corpus" "$artifacts" "$replays"
    start="$work/.start-$target"
    touch "$start"
    echo "== $target: $seconds s (corpus $corpus, log $log)"
    # Predicates need tens of bytes (inputs may be long at once); stores are seeded with whole files.
    case "$target" in
        fuzz-predicates) lengths="-max_len=512 -len_control=0" ;;
        *) lengths="-max_len=65536" ;;
    esac
    # Fork mode with crashes ignored: the target runs for the whole time in child processes, each crash,
    # ASan report, difference (an abort) or hang (an input over 10 s) saving its input in $artifacts and
    # the next child going on, so one run finds several bugs instead of stopping at the first.
    # Leak detection is off (libFuzzer's per input, LeakSanitizer's at exit): it reports memory that
    # Swift reaches through pointers carrying enum tags in their spare bits, which it cannot follow.
    # shellcheck disable=SC2086  # $lengths is a list of arguments
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}" "$bin/$target" -fork=1 -ignore_crashes=1 \
        -ignore_timeouts=1 -ignore_ooms=1 -max_total_time="$seconds" -timeout=10 -detect_leaks=0 $lengths \
        -artifact_prefix="$artifacts/" "$corpus" > "$log" 2>&1 || true
    executions="$(sed -n 's/^#\([0-9]*\): cov:.*/\1/p' "$log" | tail -n 1)"
    # Each saved input is replayed alone to say what it does: the first line of the report and the
    # first frame in Stowage's sources.
    crashes=0
    differences=0
    causes=""
    for input in $(find "$artifacts" -type f -newer "$start" | sort); do
        replay="$replays/$(basename "$input").txt"
        SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}" timeout 60 "$bin/$target" "$input" > "$replay" 2>&1 || true
        cause="$(grep -m 1 -E 'DIFFERENCE|Fatal error|ERROR: AddressSanitizer|ERROR: libFuzzer' "$replay" \
            | sed -e 's/ (input of [0-9]* bytes)$//' -e 's/Debug description: .*//' -e 's/, row: .*//' | cut -c 1-160)"
        [ -n "$cause" ] || cause="$(basename "$input"): no failure on replay"
        frame="$(grep -m 1 -oE '/Sources/Stowage[A-Za-z]*/[^ ]*:[0-9]+' "$replay" || true)"
        case "$cause" in
            DIFFERENCE*) differences=$((differences + 1)) ;;
            *) crashes=$((crashes + 1)) ;;
        esac
        causes="$causes    $cause${frame:+ (at $frame)}
"
    done
    corpus_size="$(ls "$corpus" | wc -l)"
    line="$target: ${executions:-?} executions in $seconds s, crashes $crashes, differences $differences, corpus $corpus_size inputs"
    echo "$line"
    if [ -n "$causes" ]; then
        echo "  inputs saved in $artifacts, by cause (replays in $replays):"
        printf '%s' "$causes" | sort | uniq -c
    fi
    summary="$summary$line
"
    if [ "$crashes" -ne 0 ] || [ "$differences" -ne 0 ]; then failed=1; fi
done
echo "== summary"
printf '%s' "$summary"
exit "$failed"
