#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# run-tests.sh - run uslab test binaries one after the other and add up Check's counts.
#
# usage: tools/run-tests.sh [--label L] [--timeout SECONDS] [--totals FILE] BINARY...
#
# Each binary runs with its output in BINARY.log and a time limit (600 s by
# default, USLAB_TEST_TIMEOUT); one line is printed per binary:
#     PASS  gcc  slub  unit/harness     8 checks  0 failures  0 errors   0.31s
# Check's summary lines ("100%: Checks: N, Failures: F, Errors: E") are added
# up.  A binary that crashes, times out or exits non-zero while Check counted
# no failure counts as one failed check; one that prints no summary and exits
# 0 counts as one passed check; exit 77 with no summary is a skip.  A failed
# binary's last lines are shown.
#
# The run ends with the line "N passed, N failed" (checks), or, with --totals
# FILE, appends "N N" to FILE instead so that a caller can add several runs up.
# Exit status: 0 iff nothing failed.
set -uo pipefail

label=""
timeout_s="${USLAB_TEST_TIMEOUT:-600}"
totals=""
while [ $# -gt 0 ]; do
	case "$1" in
	--label) label="$2"; shift 2 ;;
	--timeout) timeout_s="$2"; shift 2 ;;
	--totals) totals="$2"; shift 2 ;;
	--) shift; break ;;
	-*) echo "run-tests.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done

# Check's own per-test limit is 4 s unless a test sets one; on a loaded
# 2-core machine, and under sanitizers, that is too tight for honest tests.
export CK_DEFAULT_TIMEOUT="${CK_DEFAULT_TIMEOUT:-60}"

passed=0
failed=0
summary_re='^[0-9]+%: Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+'

# Sets alloc and name from a path like BUILD/tests/ALLOC/KIND/NAME or BUILD/bin/NAME-ALLOC.
describe() {
	local bin="$1" kind dir
	kind=$(basename "$(dirname "$bin")")
	dir=$(basename "$(dirname "$(dirname "$bin")")")
	case "$dir" in
	slub|slab|slob) alloc="$dir"; name="$kind/$(basename "$bin")"; return ;;
	esac
	name=$(basename "$bin")
	case "$name" in
	*-slub|*-slab|*-slob) alloc="${name##*-}" ;;
	*) alloc="-" ;;
	esac
}

# How the binary ended, in words, from its exit status.
ending() {
	local rc="$1"
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		echo "timed out after ${timeout_s}s"
	elif [ "$rc" -gt 128 ]; then
		echo "killed by SIG$(kill -l $((rc - 128)) 2>/dev/null || echo $((rc - 128)))"
	else
		echo "exit status $rc"
	fi
}

run_one() {
	local bin="$1" log="$1.log" rc start end secs checks fails errs status note=""
	describe "$bin"
	if [ ! -x "$bin" ]; then
		printf '%-4s %-12s %-5s %-30s not built\n' FAIL "$label" "$alloc" "$name"
		failed=$((failed + 1))
		return
	fi
	start=$(date +%s.%N)
	timeout -k 10 "$timeout_s" "$bin" >"$log" 2>&1 </dev/null
	rc=$?
	end=$(date +%s.%N)
	secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
	read -r checks fails errs < <(grep -aE "$summary_re" "$log" |
		awk -F'[:,] *' '{ c += $3; f += $5; e += $7 } END { print c + 0, f + 0, e + 0 }')
	local nsum
	nsum=$(grep -caE "$summary_re" "$log")
	if [ "$rc" -eq 0 ] && [ $((fails + errs)) -eq 0 ]; then
		status=PASS
		passed=$((passed + checks - fails - errs))
		if [ "$nsum" -eq 0 ]; then
			passed=$((passed + 1)); checks=1; note="  (no Check summary)"
		fi
	elif [ "$rc" -eq 77 ] && [ "$nsum" -eq 0 ]; then
		status=SKIP
		note="  $(grep -a -m1 -i 'skip' "$log" | cut -c1-100)"
	else
		status=FAIL
		passed=$((passed + checks - fails - errs))
		failed=$((failed + fails + errs))
		if [ $((fails + errs)) -eq 0 ]; then
			failed=$((failed + 1))
		fi
		[ "$rc" -ne 0 ] && note="  ($(ending "$rc"))"
	fi
	printf '%-4s %-12s %-5s %-30s %4d checks %3d failures %3d errors %8ss%s\n' \
		"$status" "$label" "$alloc" "$name" "$checks" "$fails" "$errs" "$secs" "$note"
	if [ "$status" = FAIL ]; then
		tail -n 40 "$log" | sed 's/^/    | /'
		echo "    | (full output: $log)"
	fi
}

for bin in "$@"; do
	run_one "$bin"
done

if [ -n "$totals" ]; then
	echo "$passed $failed" >>"$totals"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
