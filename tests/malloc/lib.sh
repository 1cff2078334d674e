# SPDX-License-Identifier: MIT
# lib.sh - helpers for the real-program tests of the malloc drop-in
# (tests/malloc/prog_*.sh), sourced by each.  run.sh sets:
#   MALLOC_LIB  absolute path of libuslab-malloc-ALLOC.so
#   WORK        an empty scratch folder for this test
#   ALLOC       slub, slab or slob
# A test exits 0 when it passed, 77 when it cannot run here (a program is
# missing and could not be installed), anything else when it failed.

set -u
: "${MALLOC_LIB:?run me from tests/malloc/run.sh}" "${WORK:?}" "${ALLOC:?}"

fail() {
	echo "FAIL: $*"
	exit 1
}

skip() {
	echo "SKIP: $*"
	exit 77
}

# need CMD PACKAGE: skip unless CMD exists (setup.sh installs PACKAGE as root).
need() {
	command -v "$1" >/dev/null 2>&1 || skip "$1 is missing (Debian package $2; tests/malloc/setup.sh installs it as root)"
}

# preload CMD ARGS...: run CMD with the drop-in as its malloc.
preload() {
	LD_PRELOAD="$MALLOC_LIB" "$@"
}

# The drop-in loads and becomes the malloc of a real program (ld.so only
# warns when a preload fails, so a test must not take it for granted).
check_preload() {
	local maps
	maps=$(LD_PRELOAD="$MALLOC_LIB" cat /proc/self/maps 2>&1) || fail "cat under the drop-in: $maps"
	case $maps in
	*libuslab-malloc-*) ;;
	*) fail "LD_PRELOAD=$MALLOC_LIB did not load: $maps" ;;
	esac
}

# A TCP port on 127.0.0.1 that nothing listens on right now.
free_port() {
	/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# same_output NAME FILE_A FILE_B: the run under glibc and under the drop-in agree.
same_output() {
	cmp -s "$2" "$3" || { diff "$2" "$3" | head -20; fail "$1: output under the drop-in differs from glibc's"; }
}

cd "$WORK" || fail "no work folder $WORK"
check_preload
