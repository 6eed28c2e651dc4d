#!/usr/bin/env bash
# Runs the concurrency and reliability tests under Thread Sanitizer, in a build directory of its own
# (.build-tsan; the first build takes several minutes). Fails (exit 66) when ThreadSanitizer reports
# anything, in the test process or in a child process the scenarios start. Test failures are printed
# but do not fail it: TSan slows the code 5-15x, and tests that wait for other processes or threads
# (within generous bounds) can miss them; `swift test` runs the same tests without TSan.
#
#     Reliability/tsan.sh
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
if [ -d /opt/swift/usr/bin ]; then export PATH="/opt/swift/usr/bin:$PATH"; fi

filter="ReliabilityTests|ModelReleaseTests|ContextLifetimeTests|ResultsObserver|ModelActorTests|IsolationTests|ProcessesTests|WriteTurnTests|ObservationTests|StowageQueriesTests|SaveNotificationTests|HistoryTests|DocumentationConcurrency|DocumentationLive"
start=$SECONDS
log=$(mktemp)
status=0
# The PostgreSQL store is left out (its tests need a server and none of them is run here), and so are
# the test targets that hold none of the filter's suites, with the examples they test.
STOWAGE_WITHOUT_POSTGRES=1 STOWAGE_TEST_TARGETS=StowageTests,ReliabilityTests,StowageQueriesTests,TodoTests swift test --sanitize=thread --scratch-path .build-tsan --filter "$filter" > "$log" 2>&1 || status=$?
grep -E "Test run with|WARNING: ThreadSanitizer|error:" "$log" | grep -v "Corrupted JSON" || true
reports=$(grep -c "WARNING: ThreadSanitizer" "$log" || true)
# A child process built with TSan exits 66 when it reports; the scenarios print how a child ended.
children=$(grep -c "exit 66\|signal 66" "$log" || true)
reports=$((reports + children))
grep -E "^✘ Test .* failed" "$log" | sed 's/^/tsan: (not a race) /' || true
echo "full log: $log"
echo "tsan: test run exit status $status, $reports ThreadSanitizer reports, $((SECONDS - start)) s"
if [ "$reports" -gt 0 ] || [ "$status" -eq 66 ]; then exit 66; fi
if ! grep -q "Test run with" "$log"; then echo "tsan: the tests did not run" >&2; exit 1; fi
