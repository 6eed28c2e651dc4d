#!/usr/bin/env bash
# Runs the concurrency and reliability tests under Thread Sanitizer, in a build directory of its own
# (.build-tsan; the first build takes several minutes). TSan makes a test binary exit with status 66
# when it reports a race, so a clean run is one that passes.
#
#     Reliability/tsan.sh
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
if [ -d /opt/swift/usr/bin ]; then export PATH="/opt/swift/usr/bin:$PATH"; fi

filter="ReliabilityTests|ResultsObserver|ModelActorTests|IsolationTests|ProcessesTests|ObservationTests|StowageQueriesTests|SaveNotificationTests|HistoryTests|ReadmeConcurrency|ReadmeLive"
start=$SECONDS
log=$(mktemp)
status=0
swift test --sanitize=thread --scratch-path .build-tsan --filter "$filter" > "$log" 2>&1 || status=$?
grep -E "Test run with|WARNING: ThreadSanitizer|error:" "$log" | grep -v "Corrupted JSON" || true
reports=$(grep -c "WARNING: ThreadSanitizer" "$log" || true)
echo "full log: $log"
echo "tsan: exit status $status, $reports ThreadSanitizer reports, $((SECONDS - start)) s"
exit "$status"
