#!/bin/bash
# SPDX-License-Identifier: MIT
# run.sh - build and run the tests of the malloc drop-in for one allocator.
#
# usage: tests/malloc/run.sh BUILD ALLOC [NAME...]
#   BUILD  the build root (make BUILD=...), holding lib/libuslab-malloc-ALLOC.so
#   ALLOC  slub, slab or slob
#   NAME   run only these tests (contract, misuse, prog_git, ...)
#
# The C tests (tests/malloc/*.c) are ordinary programs, linked against the C
# library and Check only, built into BUILD/tests/ALLOC/malloc/ and run with
# LD_PRELOAD of the drop-in, as any unmodified program would be.  oom runs
# under `ulimit -v 300000`; fork_locked runs again in the allocator's debug
# mode, and debug_redzone only in it.  The prog_*.sh scripts run Debian programs under the drop-in;
# setup.sh first installs those that are missing (as root).
#
# Prints one line per test and, last, "malloc-ALLOC: N passed, N failed,
# N skipped".  Exit status 0 iff nothing failed.

set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/tests/common/driver.sh"
driver_variant_args "$@"
lib=$build/lib/libuslab-malloc-$alloc.so
out=$build/tests/$alloc/malloc
CC=${CC:-gcc}
HANG_LIMIT=${HANG_LIMIT:-900}	# seconds: a hang guard, not a time assertion

if [ ! -f "$lib" ]; then
	fail build "$lib does not exist (make BUILD=$build first)"
	summary "malloc-$alloc"
fi
lib=$(realpath "$lib")
mkdir -p "$out"
out=$(realpath "$out")

# ---- build the C tests ----
defs="-DCONFIG_SLUB=$([ $alloc = slub ] && echo 1 || echo 0)"
defs="$defs -DCONFIG_SLAB=$([ $alloc = slab ] && echo 1 || echo 0)"
defs="$defs -DCONFIG_SLOB=$([ $alloc = slob ] && echo 1 || echo 0)"
# why -fno-builtin: the compiler must not fold or drop the calls under test
cflags="-std=gnu11 -O1 -g -Wall -Wextra -Werror -pthread -fno-builtin $defs -I$root/tests -I$root/tests/common $(pkg-config --cflags check)"
libs="$(pkg-config --libs check) -ldl -pthread"
ctests=()
for src in "$here"/*.c; do
	name=$(basename "$src" .c)
	selected "$name" || continue
	bin=$out/$name
	if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ] || [ "$here/malloc_test.h" -nt "$bin" ] ||
	   [ "$root/tests/common/harness.c" -nt "$bin" ]; then
		if ! $CC $cflags -o "$bin" "$src" "$root/tests/common/harness.c" $libs > "$out/$name.build.log" 2>&1; then
			record "$name (build)" 1 "$out/$name.build.log"
			continue
		fi
	fi
	ctests+=("$name")
done

# ---- run them ----
debug_opts() {
	case $alloc in
	slub) echo "slub_debug=FZPU" ;;
	slab) echo "slab_debug" ;;
	*) echo "" ;;
	esac
}

for name in "${ctests[@]}"; do
	log=$out/$name.log
	case $name in
	oom)
		timeout "$HANG_LIMIT" bash -c 'ulimit -v 300000 && LD_PRELOAD="$1" exec "$2"' _ "$lib" "$out/$name" > "$log" 2>&1
		record "$name (ulimit -v 300000)" $? "$log"
		;;
	fork_locked)
		LD_PRELOAD=$lib timeout "$HANG_LIMIT" "$out/$name" > "$log" 2>&1
		record "$name" $? "$log"
		opts=$(debug_opts)
		if [ -n "$opts" ]; then
			USLAB_OPTIONS=$opts LD_PRELOAD=$lib timeout "$HANG_LIMIT" "$out/$name" > "$log.debug" 2>&1
			status=$?
			# a build whose allocator does not know the option yet has no debug mode to test
			if [ $status = 0 ] && grep -q "unknown option '${opts%%=*}" "$log.debug"; then
				echo "SKIP: this build does not know the option $opts" >> "$log.debug"
				status=77
			fi
			record "$name (USLAB_OPTIONS=$opts)" $status "$log.debug"
		fi
		;;
	debug_redzone)
		opts=$(debug_opts)
		USLAB_OPTIONS=$opts LD_PRELOAD=$lib timeout "$HANG_LIMIT" "$out/$name" > "$log" 2>&1
		record "$name${opts:+ (USLAB_OPTIONS=$opts)}" $? "$log"
		;;
	*)
		LD_PRELOAD=$lib timeout "$HANG_LIMIT" "$out/$name" > "$log" 2>&1
		record "$name" $? "$log"
		;;
	esac
done

# ---- real programs ----
progs=()
for script in "$here"/prog_*.sh; do
	name=$(basename "$script" .sh)
	selected "$name" && progs+=("$script")
done
if [ ${#progs[@]} -gt 0 ]; then
	"$here/setup.sh"
	for script in "${progs[@]}"; do
		name=$(basename "$script" .sh)
		work=$out/work-$name
		rm -rf "$work" && mkdir -p "$work"
		MALLOC_LIB=$lib WORK=$work ALLOC=$alloc timeout "$HANG_LIMIT" bash "$script" > "$out/$name.log" 2>&1
		status=$?
		record "$name" $status "$out/$name.log"
		[ $status = 0 ] && rm -rf "$work"
	done
fi
summary "malloc-$alloc"
