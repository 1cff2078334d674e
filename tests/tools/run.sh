#!/bin/bash
# shellcheck disable=SC2317 # the case functions run through run_case
# SPDX-License-Identifier: MIT
# run.sh - uslab under Valgrind's memcheck, AddressSanitizer and
# LeakSanitizer, for one allocator (src/mm/memcheck.h is what makes them see
# uslab's objects as heap blocks).
#
# usage: tests/tools/run.sh BUILD ALLOC [NAME...]
#   BUILD  the build root (make BUILD=...), holding lib/libuslab-ALLOC.a of a
#          build without sanitizers
#   ALLOC  slub, slab or slob
#   NAME   run only these cases (valgrind-clean, asan-cache-read-after-free, ...)
#
# The programs here (clean.c, bugs.c, lsan.c; not part of the Makefile's test
# discovery) are compiled by this script with $CC against the static library,
# twice: plainly (-O0 -g, for valgrind) into BUILD/tests/ALLOC/tools/NAME, and
# with -fsanitize=address into BUILD/tests/ALLOC/tools/NAME-asan.  The library
# itself is never built with ASan here: a program built with ASan that links
# a plain uslab is what memcheck.c's ASan mode serves.
#
# Cases:
#   valgrind-clean                  clean.c runs with no error and no definite
#                                   leak: --error-exitcode=99 --leak-check=full
#                                   --errors-for-leak-kinds=definite
#   valgrind-cache-read-after-free  "Invalid read", "inside a block of size 64
#   valgrind-cache-write-after-free free'd", the free stack naming the
#   valgrind-kmalloc-read-after-free program's function, the alloc stack too
#   valgrind-kmalloc-read-past-end  "0 bytes after a block of size 13 alloc'd"
#   valgrind-kmalloc-uninit         "Conditional jump or move depends on
#                                   uninitialised value(s)", created by a heap
#                                   allocation in the program's function
#   valgrind-kmalloc-leak           "100 bytes in 1 blocks are definitely lost",
#                                   with the allocation stack
#   asan-clean                      clean.c built with ASan: no report, exit 0
#   asan-BUG                        the four access bugs above, built with ASan:
#                                   a report naming the faulting function, exit
#                                   status not 0.  ASan calls memory poisoned by
#                                   the program itself (ASAN_POISON_MEMORY_REGION,
#                                   which is what uslab does) "use-after-poison",
#                                   never "heap-use-after-free": it has no free
#                                   stack for such memory.  A read just past the
#                                   end of an object is "use-after-poison" when
#                                   the next slot is free, "unknown-crash" when
#                                   it is allocated: both are accepted.  Not on
#                                   SLOB (skipped, saying why): SLOB packs blocks
#                                   in 2-byte units, and ASan's shadow cannot
#                                   tell bytes apart inside one 8-byte granule,
#                                   which a kmalloc(13) object shares with the
#                                   next block.
#   lsan-root                       LSan reports no leak for a malloc block only
#                                   referenced from a uslab object; and, as a
#                                   control, does report it when told to ignore
#                                   root regions (LSAN_OPTIONS=use_root_regions=0)
#   lsan-leak                       LSan reports exactly the one real leak
# A case is skipped, with the reason, only when its tool is missing.
#
# Prints one line per case and, last, "tools-ALLOC: N passed, N failed,
# N skipped".  Exit status 0 iff nothing failed.

set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/tests/common/driver.sh"
driver_variant_args "$@"
lib=$build/lib/libuslab-$alloc.a
out=$build/tests/$alloc/tools
CC=${CC:-gcc}
HANG_LIMIT=${HANG_LIMIT:-300}	# seconds: a hang guard, not a time assertion

if [ ! -f "$lib" ]; then
	fail build "$lib does not exist (make BUILD=$build first)"
	summary "tools-$alloc"
fi
if nm "$lib" 2>/dev/null | grep -qE ' U __(asan|tsan)_'; then
	fail build "$lib was built with a sanitizer; give the BUILD of a plain build"
	summary "tools-$alloc"
fi
lib=$(realpath "$lib")
mkdir -p "$out"
out=$(realpath "$out")

# log_skip LOG WHY: the case cannot run here (status 77; record reads WHY).
log_skip() {
	echo "SKIP $2" >>"$1"
	return 77
}

# log_fail LOG WHY: what the case found wrong, at the end of its log.
log_fail() {
	echo "run.sh: $2" >>"$1"
	return 1
}

# ---- building the programs ----

cflags="-std=gnu11 -O0 -g -fno-omit-frame-pointer -Wall -Wextra -Werror -I$root/include"
libs="$lib -pthread -lurcu-bp"

# build NAME VARIANT FLAGS...: compile NAME.c into NAME[-VARIANT] unless up to date.
build() {
	local name=$1 variant=$2 bin
	shift 2
	bin=$out/$name${variant:+-$variant}
	if [ -x "$bin" ] && [ "$bin" -nt "$here/$name.c" ] && [ "$bin" -nt "$lib" ] &&
	   [ "$bin" -nt "$0" ]; then
		return 0
	fi
	# shellcheck disable=SC2086 # cflags and libs are lists of words
	$CC $cflags "$@" -o "$bin" "$here/$name.c" $libs >"$bin.build.log" 2>&1 || {
		rm -f "$bin"
		record "$name${variant:+-$variant} (build)" 1 "$bin.build.log"
		return 1
	}
}

have_valgrind=0 have_asan=0
command -v valgrind >/dev/null 2>&1 && have_valgrind=1
# why: the ASan runtime is a separate package (libasan8 with gcc 12)
echo 'int main(void) { return 0; }' >"$out/asan-probe.c"
$CC -fsanitize=address -o "$out/asan-probe" "$out/asan-probe.c" >"$out/asan-probe.log" 2>&1 &&
	"$out/asan-probe" >>"$out/asan-probe.log" 2>&1 && have_asan=1

built_plain=1 built_asan=1
for prog in clean bugs; do
	build "$prog" "" || built_plain=0
done
if [ "$have_asan" = 1 ]; then
	for prog in clean bugs lsan; do
		build "$prog" asan -fsanitize=address || built_asan=0
	done
fi

# ---- checking a tool's output ----

# expect LOG ERE...: every pattern occurs in LOG.
expect() {
	local log=$1 p
	shift
	for p; do
		grep -qE -- "$p" "$log" || { log_fail "$log" "expected /$p/ in the output"; return 1; }
	done
}

# stack LOG ERE: the valgrind stack printed right under the first line
# matching ERE (its "at"/"by" lines).
stack() {
	awk -v re="$2" '
		found && /^==[0-9]+== +(at|by) / { print; next }
		found { exit }
		$0 ~ re { found = 1 }' "$1"
}

# stack_has LOG ERE FUNCTION WHAT: the stack under ERE names FUNCTION.
stack_has() {
	stack "$1" "$2" | grep -qE -- ": $3 " && return 0
	log_fail "$1" "the $4 stack (under /$2/) does not name $3"
}

# ---- valgrind ----

VALGRIND=(valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite
	  --num-callers=40)

# vg LOG PROGRAM ARGS...: run under valgrind; the status is valgrind's.
vg() {
	local log=$1
	shift
	timeout "$HANG_LIMIT" "${VALGRIND[@]}" "$@" >"$log" 2>&1
}

valgrind_clean() {
	local log=$1 status
	[ "$have_valgrind" = 1 ] || { log_skip "$log" "valgrind is not installed"; return; }
	vg "$log" "$out/clean"
	status=$?
	[ "$status" = 0 ] || { log_fail "$log" "valgrind exited with $status (99: it reported errors)"; return 1; }
	expect "$log" '^clean: ok' 'ERROR SUMMARY: 0 errors'
}

# valgrind_access LOG CASE KIND SIZE FN OFFSET-WORDS FREE-FN ALLOC-FN: an
# invalid KIND (read|write) of SIZE bytes in FN, at an address described by
# OFFSET-WORDS ("24 bytes inside a block of size 64 free'd"), with the free
# and the allocation stacks naming FREE-FN (or "-": no free stack) and ALLOC-FN.
valgrind_access() {
	local log=$1 case=$2 kind=$3 size=$4 fn=$5 where=$6 free_fn=$7 alloc_fn=$8 status
	[ "$have_valgrind" = 1 ] || { log_skip "$log" "valgrind is not installed"; return; }
	vg "$log" "$out/bugs" "$case"
	status=$?
	[ "$status" = 99 ] || { log_fail "$log" "valgrind exited with $status, not 99 (errors found)"; return 1; }
	expect "$log" "Invalid ${kind} of size ${size}" "Address 0x[0-9a-f]+ is ${where}" || return 1
	stack_has "$log" "Invalid ${kind} of size ${size}" "$fn" "faulting" || return 1
	if [ "$free_fn" != - ]; then
		stack_has "$log" "is ${where}" "$free_fn" "free" || return 1
		stack_has "$log" "Block was alloc'd at" "$alloc_fn" "allocation" || return 1
	else
		stack_has "$log" "is ${where}" "$alloc_fn" "allocation" || return 1
	fi
}

valgrind_uninit() {
	local log=$1 status
	[ "$have_valgrind" = 1 ] || { log_skip "$log" "valgrind is not installed"; return; }
	vg "$log" --track-origins=yes "$out/bugs" kmalloc-uninit
	status=$?
	[ "$status" = 99 ] || { log_fail "$log" "valgrind exited with $status, not 99 (errors found)"; return 1; }
	expect "$log" 'Conditional jump or move depends on uninitialised value' \
		'Uninitialised value was created by a heap allocation' || return 1
	stack_has "$log" 'Conditional jump or move depends' bugs_branch_on_uninit "faulting" || return 1
	stack_has "$log" 'created by a heap allocation' bugs_kmalloc "allocation"
}

valgrind_leak() {
	local log=$1 status
	[ "$have_valgrind" = 1 ] || { log_skip "$log" "valgrind is not installed"; return; }
	vg "$log" "$out/bugs" kmalloc-leak
	status=$?
	[ "$status" = 99 ] || { log_fail "$log" "valgrind exited with $status, not 99 (a definite leak)"; return 1; }
	expect "$log" '100 bytes in 1 blocks are definitely lost' 'definitely lost: 100 bytes in 1 blocks' ||
		return 1
	stack_has "$log" '100 bytes in 1 blocks are definitely lost' bugs_leak_kmalloc "allocation"
}

# ---- ASan and LSan ----

ASAN_ENV=(ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=0:symbolize=1)

# as LOG PROGRAM ARGS...: run the ASan build; the status is the program's.
as() {
	local log=$1
	shift
	timeout "$HANG_LIMIT" env "${ASAN_ENV[@]}" "$@" >"$log" 2>&1
}

asan_clean() {
	local log=$1 status
	[ "$have_asan" = 1 ] || { log_skip "$log" "the ASan runtime is missing ($CC -fsanitize=address fails)"; return; }
	as "$log" "$out/clean-asan"
	status=$?
	[ "$status" = 0 ] || { log_fail "$log" "exited with $status"; return 1; }
	expect "$log" '^clean: ok' || return 1
	! grep -q 'Sanitizer' "$log" || log_fail "$log" "a sanitizer reported something"
}

# asan_access LOG CASE KIND FN TYPES: a report of TYPES (an ERE) for a KIND
# (READ|WRITE) in FN, and a non-zero exit.
asan_access() {
	local log=$1 case=$2 kind=$3 fn=$4 types=$5 status
	[ "$have_asan" = 1 ] || { log_skip "$log" "the ASan runtime is missing ($CC -fsanitize=address fails)"; return; }
	if [ "$case" = kmalloc-read-past-end ] && [ "$alloc" = slob ]; then
		log_skip "$log" "SLOB packs blocks in 2-byte units: ASan's 8-byte shadow granules cannot mark byte 13 of kmalloc(13) (SLUB and SLAB only)"
		return
	fi
	as "$log" "$out/bugs-asan" "$case"
	status=$?
	[ "$status" != 0 ] || { log_fail "$log" "exited with 0: ASan did not stop the program"; return 1; }
	expect "$log" "ERROR: AddressSanitizer: ($types) on address" "^${kind} of size [0-9]+ at" \
		"#0 0x[0-9a-f]+ in ${fn} " || return 1
	! grep -q "^bugs: $case done" "$log" || log_fail "$log" "the program ran on after the bug"
}

lsan_root() {
	local log=$1 status
	[ "$have_asan" = 1 ] || { log_skip "$log" "the ASan runtime is missing ($CC -fsanitize=address fails)"; return; }
	as "$log" "$out/lsan-asan" root
	status=$?
	[ "$status" = 0 ] || { log_fail "$log" "exited with $status: LSan reported a leak, or the run failed"; return 1; }
	expect "$log" '^lsan: root done' || return 1
	! grep -q 'LeakSanitizer' "$log" || { log_fail "$log" "LeakSanitizer reported something"; return 1; }
	# why: the control run proves that the arena, and nothing else (a stale
	# copy on the stack, a register), is what kept the block reachable
	echo "---- control: LSAN_OPTIONS=use_root_regions=0 ----" >>"$log"
	LSAN_OPTIONS=use_root_regions=0 as "$log.control" "$out/lsan-asan" root
	cat "$log.control" >>"$log"
	expect "$log" 'Direct leak of 55 byte\(s\) in 1 object\(s\)' ||
		log_fail "$log" "without the root region the block must be reported: the test proves nothing"
}

lsan_leak() {
	local log=$1 status
	[ "$have_asan" = 1 ] || { log_skip "$log" "the ASan runtime is missing ($CC -fsanitize=address fails)"; return; }
	as "$log" "$out/lsan-asan" leak
	status=$?
	[ "$status" != 0 ] || { log_fail "$log" "exited with 0: LSan found no leak"; return 1; }
	expect "$log" 'ERROR: LeakSanitizer: detected memory leaks' \
		'Direct leak of 77 byte\(s\) in 1 object\(s\) allocated from' \
		'in lsan_lose_block ' \
		'SUMMARY: AddressSanitizer: 77 byte\(s\) leaked in 1 allocation\(s\)\.' || return 1
	! grep -q 'leak of 55 byte' "$log" || log_fail "$log" "the block held in a uslab object was reported"
}

# ---- the cases ----

# run_case NAME NEEDS FUNCTION ARGS...: run FUNCTION LOG ARGS... if NAME is
# selected and its programs (NEEDS: plain or asan) were built.
run_case() {
	local name=$1 needs=$2 fn=$3 log
	shift 3
	selected "$name" || return 0
	log=$out/$name.log
	: >"$log"
	if [ "$needs" = plain ] && [ "$built_plain" = 0 ]; then
		record "$name" 1 "$log"
		return
	fi
	if [ "$needs" = asan ] && [ "$have_asan" = 1 ] && [ "$built_asan" = 0 ]; then
		record "$name" 1 "$log"
		return
	fi
	"$fn" "$log" "$@"
	record "$name" $? "$log"
}

run_case valgrind-clean plain valgrind_clean
run_case valgrind-cache-read-after-free plain valgrind_access cache-read-after-free \
	read 8 bugs_read_freed_victim "24 bytes inside a block of size 64 free'd" \
	bugs_free_victim bugs_alloc_victim
run_case valgrind-cache-write-after-free plain valgrind_access cache-write-after-free \
	write 8 bugs_write_freed_victim "40 bytes inside a block of size 64 free'd" \
	bugs_free_victim bugs_alloc_victim
run_case valgrind-kmalloc-read-after-free plain valgrind_access kmalloc-read-after-free \
	read 1 bugs_read_byte "40 bytes inside a block of size 48 free'd" \
	bugs_kfree bugs_kmalloc
run_case valgrind-kmalloc-read-past-end plain valgrind_access kmalloc-read-past-end \
	read 1 bugs_read_byte "0 bytes after a block of size 13 alloc'd" - bugs_kmalloc
run_case valgrind-kmalloc-uninit plain valgrind_uninit
run_case valgrind-kmalloc-leak plain valgrind_leak

run_case asan-clean asan asan_clean
run_case asan-cache-read-after-free asan asan_access cache-read-after-free READ \
	bugs_read_freed_victim use-after-poison
run_case asan-cache-write-after-free asan asan_access cache-write-after-free WRITE \
	bugs_write_freed_victim use-after-poison
run_case asan-kmalloc-read-after-free asan asan_access kmalloc-read-after-free READ \
	bugs_read_byte use-after-poison
run_case asan-kmalloc-read-past-end asan asan_access kmalloc-read-past-end READ \
	bugs_read_byte "use-after-poison|unknown-crash"
run_case lsan-root asan lsan_root
run_case lsan-leak asan lsan_leak
summary "tools-$alloc"
