# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# driver.sh - the bookkeeping of the shell test drivers (tests/malloc,
# tests/tools, tests/introspect, tests/install and tests/docs run.sh):
# count the results, print one line per result, close with the summary
# line that tools/test-all.sh reads.  Sourced (bash):
#
#   . "$root/tests/common/driver.sh"
#
# Lines, one per result:
#   PASS NAME
#   FAIL NAME[: WHY]      then the last 30 lines of a log, if any, indented "    | "
#   FAIL NAME (status S, log LOG):    the same, for a test program (record)
#   SKIP NAME: WHY
# With driver_column=KIND, every line carries KIND in a column of 12 after
# its first word ("PASS docs         pages"): the drivers whose lines
# test-all.sh prints as they are.  The drivers it runs per variant leave it
# empty, and test-all.sh puts in the column itself.
#
# Functions:
#   driver_variant_args ARG...  the command line of a driver run per
#                           variant, BUILD ALLOC [NAME...]: sets build, alloc
#                           and driver_names; usage and exit 2 if it is wrong
#   driver_root_args ARG... the command line [--build ROOT] [--totals FILE]:
#                           sets root (default build) and totals (default
#                           empty); exit 2 on anything else
#   pass NAME               a pass
#   fail NAME [WHY [LOG]]   a failure, with the end of LOG when it exists
#   skip NAME WHY           a skip
#   check NAME COMMAND...   run COMMAND, its output into a log: a pass if it
#                           succeeds, else a failure with the log's end
#   record NAME STATUS LOG  a test program's exit status: 0 passes, 77 skips
#                           (why: the text of LOG's first line starting with
#                           SKIP), anything else fails, with LOG's end
#   selected NAME           true if the command line named NAME, or named
#                           nothing (the names: driver_names=("$@"))
#   totals FILE             append "PASSED FAILED" to FILE (nothing if FILE
#                           is empty): the form test-all.sh adds up
#   summary [TITLE]         print "TITLE: N passed, N failed, N skipped", or
#                           without TITLE "N passed, N failed"; then finish
#   finish                  exit: status 0 iff nothing failed
# The counts are driver_passed, driver_failed and driver_skipped.

driver_passed=0
driver_failed=0
driver_skipped=0
driver_column=""
driver_names=()
DRIVER_LOG_LINES=30	# lines of a failure's log shown

# shellcheck disable=SC2034 # build and alloc are for the script that sources this
driver_variant_args() {
	if [ $# -lt 2 ]; then
		echo "usage: $0 BUILD ALLOC [NAME...]" >&2
		exit 2
	fi
	build=$1 alloc=$2
	shift 2
	driver_names=("$@")
	case $alloc in slub|slab|slob) ;; *) echo "ALLOC must be slub, slab or slob" >&2; exit 2 ;; esac
}

# shellcheck disable=SC2034 # root and totals are for the script that sources this
driver_root_args() {
	root=build
	totals=""
	while [ $# -gt 0 ]; do
		case "$1" in
		--build|--totals) [ $# -ge 2 ] || { echo "run.sh: $1 needs a value" >&2; exit 2; } ;;&
		--build) root="${2%/}"; shift 2 ;;
		--totals) totals="$2"; shift 2 ;;
		*) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
		esac
	done
}

# driver_line WORD TEXT: one result line.
driver_line() {
	if [ -n "$driver_column" ]; then
		printf '%s %-12s %s\n' "$1" "$driver_column" "$2"
	else
		printf '%s %s\n' "$1" "$2"
	fi
}

# driver_log_end LOG: the end of a failure's log, set off from the result lines.
driver_log_end() {
	[ -f "$1" ] && tail -n "$DRIVER_LOG_LINES" "$1" | sed 's/^/    | /'
	return 0
}

pass() {
	driver_passed=$((driver_passed + 1))
	driver_line PASS "$1"
}

fail() {
	driver_failed=$((driver_failed + 1))
	driver_line FAIL "$1${2:+: $2}"
	[ $# -lt 3 ] || driver_log_end "$3"
}

skip() {
	driver_skipped=$((driver_skipped + 1))
	driver_line SKIP "$1: $2"
}

check() {
	local name="$1" log status
	shift
	log=$(mktemp "${TMPDIR:-/tmp}/uslab-check.XXXXXX") || { fail "$name" "mktemp failed"; return 1; }
	"$@" >"$log" 2>&1
	status=$?
	if [ "$status" = 0 ]; then
		pass "$name"
	else
		fail "$name" "" "$log"
	fi
	rm -f "$log"
	return "$status"
}

record() {
	case $2 in
	0) pass "$1" ;;
	77) skip "$1" "$(grep -m1 '^SKIP' "$3" | sed -E 's/^SKIP:? *//' | cut -c1-200)" ;;
	*)
		driver_failed=$((driver_failed + 1))
		driver_line FAIL "$1 (status $2, log $3):"
		driver_log_end "$3"
		;;
	esac
}

selected() {
	[ ${#driver_names[@]} -eq 0 ] && return 0
	local n
	for n in "${driver_names[@]}"; do [ "$n" = "$1" ] && return 0; done
	return 1
}

totals() {
	[ -z "$1" ] || echo "$driver_passed $driver_failed" >>"$1"
}

finish() {
	[ "$driver_failed" = 0 ]
	exit
}

summary() {
	if [ $# -gt 0 ]; then
		echo "$1: $driver_passed passed, $driver_failed failed, $driver_skipped skipped"
	else
		echo "$driver_passed passed, $driver_failed failed"
	fi
	finish
}
