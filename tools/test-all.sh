#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# test-all.sh - what `make test` runs: everything, from a fresh Debian 12.
#
# usage: tools/test-all.sh [--build ROOT]     (ROOT defaults to build)
#
#  1. tools/install-deps.sh: the Debian packages, if missing.
#  2. Four builds, each of every allocator variant; per variant the tests are
#     built and run one binary at a time (tools/run-tests.sh), then the rest
#     is built and the demos run as smoke tests:
#        gcc    ROOT          all tests; libraries, tools, demos, benchmarks
#                             (built, not run); check-exports
#        clang  ROOT/clang    all tests; libraries, tools, demos
#        asan   ROOT/asan     gcc, -fsanitize=address,undefined: all tests, demos
#        tsan   ROOT/tsan     clang, -fsanitize=thread: tests/stress, tests
#                             marked "uslab-test: threaded", demos
#     A test that does not build counts as one failed check, and so does a
#     failed build of the rest.
#     After the gcc build, tests/malloc/run.sh (the drop-in's own driver)
#     runs per variant; its counts are added in.  So does tests/tools/run.sh
#     (uslab's objects under valgrind's memcheck, ASan and LSan), and so does
#     tests/introspect/run.sh (uslabinfo and uslabtop on live processes).
#  3. tests/install/run.sh: make install into a temporary DESTDIR, then
#     programs built against it with pkg-config and with CMake.  Then
#     tests/docs/run.sh: the man pages render without warnings, document
#     every USLAB_OPTIONS option and every tool option, and install.
#  4. One line adds everything up: "N passed, N failed" (checks).  It is the
#     last line printed; the exit status is 0 iff nothing failed.
#
# Builds use make -j2 (2 cores); tests run sequentially.  Build output goes
# to ROOT/logs/ and is shown only when a build fails.
set -uo pipefail
shopt -s nullglob
cd "$(dirname "$0")/.." || exit 2

root=build
while [ $# -gt 0 ]; do
	case "$1" in
	--build) root="${2%/}"; shift 2 ;;
	*) echo "test-all.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done

MAKE="${MAKE:-make}"
# why: this script starts its own makes; flags of an enclosing make (its
# jobserver, its command-line variables) must not leak into them.
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL
logs="$root/logs"
totals="$root/logs/totals"
mkdir -p "$logs"
: >"$totals"
start_all=$(date +%s)

record() { echo "$1 $2" >>"$totals"; }

elapsed() { echo $(($(date +%s) - $1)); }

# The variants whose allocator file exists; a note for the others.
variants=()
for a in slub slab slob; do
	if [ -f "src/mm/$a.c" ]; then
		variants+=("$a")
	else
		echo "note: src/mm/$a.c does not exist yet; the $a variant is not built or tested"
	fi
done

# build NAME DIR VARIANT WHAT MAKE-ARGS...: make -k, quietly into a log; on
# failure show the errors.  Returns make's status.
build() {
	local name="$1" dir="$2" a="$3" what="$4" log t0
	shift 4
	log="$logs/build-$name-$a-$what.log"
	t0=$(date +%s)
	if "$MAKE" -k -j2 --no-print-directory BUILD="$dir" ALLOCATORS="$a" "$@" >"$log" 2>&1; then
		printf 'BUILD %-5s %-5s %-11s ok (%ss)\n' "$name" "$a" "$what" "$(elapsed "$t0")"
		return 0
	fi
	printf 'FAIL  %-5s %-5s %-11s build failed (%ss)\n' "$name" "$a" "$what" "$(elapsed "$t0")"
	grep -E 'error|Error|undefined reference' "$log" | head -n 30 | sed 's/^/    | /'
	echo "    | (full output: $log)"
	return 1
}

# run_config NAME DIR CC SAN TEST_SET OTHER-TARGETS [ENV=VALUE...]: for each
# variant, build the tests, build the other targets (libraries, tools,
# demos...), then run the tests and the demos.  A test that did not build
# counts as failed (run-tests.sh: "not built"); so does a failed build of the
# other targets, once.
run_config() {
	local name="$1" dir="$2" cc="$3" san="$4" set="$5" other="$6" a t0
	local -a bins demos
	shift 6
	t0=$(date +%s)
	echo "== $name: CC=$cc${san:+ SAN=$san} BUILD=$dir"
	for a in "${variants[@]}"; do
		mapfile -t bins < <("$MAKE" -s --no-print-directory BUILD="$dir" ALLOCATORS="$a" \
			CC="$cc" SAN="$san" TEST_SET="$set" list-tests 2>/dev/null)
		# why: a program left by an earlier build must not stand in for one
		# that no longer builds; linking again is cheap, objects are kept
		rm -f -- "${bins[@]}" "$dir"/bin/*-"$a"
		build "$name" "$dir" "$a" tests CC="$cc" SAN="$san" TEST_SET="$set" tests
		# shellcheck disable=SC2086 # other is a list of targets
		build "$name" "$dir" "$a" "${other// /+}" CC="$cc" SAN="$san" $other || record 0 1
		demos=("$dir"/bin/*-"$a")
		env "$@" tools/run-tests.sh --label "$name" --totals "$totals" "${bins[@]}" "${demos[@]}"
	done
	echo "== $name: $(elapsed "$t0")s"
}

echo "== dependencies"
if ! tools/install-deps.sh; then
	echo "FAIL  dependencies could not be installed"
	record 0 1
fi

export USLAB_DEMO_REQUESTS=20000	# the demos run briefly, as smoke tests
run_config gcc "$root" gcc "" all "all benches"
if [ ${#variants[@]} -gt 0 ]; then
	out=$("$MAKE" -s --no-print-directory BUILD="$root" CC=gcc check-exports 2>&1 | grep -v "^note:")
	echo "$out"
	record "$(grep -c '^PASS' <<<"$out")" "$(grep -c '^FAIL' <<<"$out")"
fi

# driver_tests KIND TITLE DIR: tests/KIND/run.sh DIR VARIANT, per variant,
# on the gcc build: a driver of its own that prints PASS/FAIL/SKIP lines and
# closes with "KIND-VARIANT: N passed, N failed, N skipped", which is added
# up.  The drivers: malloc (the drop-in, with real programs), tools (uslab
# under valgrind, ASan and LSan), introspect (uslabinfo and uslabtop against
# live processes).
driver_tests() {
	local kind="$1" title="$2" dir="$3" a out t0 p f
	local summary="^$kind-[a-z]+: ([0-9]+) passed, ([0-9]+) failed"
	[ -x "tests/$kind/run.sh" ] || return 0
	for a in "${variants[@]}"; do
		echo "== $title: $a"
		t0=$(date +%s)
		out=$(CC=gcc "tests/$kind/run.sh" "$dir" "$a" 2>&1 </dev/null)
		grep -vE "$summary" <<<"$out" |
			sed -E "s/^(PASS|FAIL|SKIP) /\\1 $(printf '%-12s' "$kind") $a  /"
		read -r p f < <(sed -nE "s/$summary.*/\\1 \\2/p" <<<"$out" | tail -n 1)
		if [ -z "${p:-}" ]; then
			echo "FAIL  $kind-$a: tests/$kind/run.sh ended without its summary line"
			p=0 f=1
		fi
		record "$p" "$f"
		echo "== $title: $a: $(elapsed "$t0")s"
	done
}
driver_tests malloc "malloc drop-in" "$root"
driver_tests tools "tool support" "$root"
driver_tests introspect "introspection" "$root"

run_config clang "$root/clang" clang "" all all

run_config asan "$root/asan" gcc address,undefined all demos \
	ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=0:strict_string_checks=1" \
	UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
	CK_TIMEOUT_MULTIPLIER=4

run_config tsan "$root/tsan" clang thread threaded demos \
	TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:die_after_fork=0" \
	CK_TIMEOUT_MULTIPLIER=10

echo "== install"
tests/install/run.sh --build "$root" --totals "$totals"

echo "== docs"
tests/docs/run.sh --build "$root" --totals "$totals"

read -r passed failed < <(awk '{ p += $1; f += $2 } END { print p + 0, f + 0 }' "$totals")
echo "== make test: $(elapsed "$start_all")s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
