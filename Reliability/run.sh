#!/usr/bin/env bash
# Runs the reliability suite's scenarios at full size with a release build of stowage-reliability and
# prints their reports (the figures RELIABILITY.md publishes). Exits non-zero when a scenario fails.
#
#     Reliability/run.sh                  every scenario, full size
#     Reliability/run.sh crash-mid-save   one (or several) by name; `--quick` for the tests' sizes
#     STOWAGE_WRITERS=8 Reliability/run.sh many-writers
#                                         many-writers with 8 processes instead of 4
#
# Fuzzing, ASan and TSan have scripts of their own: Reliability/fuzz.sh, asan.sh and tsan.sh.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
if [ -d /opt/swift/usr/bin ]; then export PATH="/opt/swift/usr/bin:$PATH"; fi

swift build -c release --product stowage-reliability 2>&1 | grep -v "Corrupted JSON" | tail -1
bin="$(swift build -c release --show-bin-path)/stowage-reliability"
if [ $# -eq 0 ]; then set -- all; fi
echo "stowage-reliability $* ($(date -u '+%Y-%m-%d %H:%M UTC'), $(git rev-parse --short HEAD), $(nproc) cores)"
"$bin" "$@"
