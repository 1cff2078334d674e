#!/usr/bin/env bash
# shellcheck disable=SC2317 # the functions below run through check()
# SPDX-License-Identifier: MIT
#
# run.sh - the install test: `make install DESTDIR=<tmp> PREFIX=/usr` from an
# existing build, then programs built against the installed tree only.
#
# usage: tests/install/run.sh [--build ROOT] [--totals FILE]
#
# Checks, one line each:
#   make-install          the install itself
#   layout                headers, .so with soname and links, .a, .pc and
#                         CMake files; no DESTDIR path baked into any of them
#   pkg-config/NAME       prog.c built with `pkg-config uslab[-V]`, runs on V
#   static/V              prog.c linked with libuslab-V.a, runs on V
#   clash                 clash.c defines kernel names itself and links with
#                         libuslab-slub.a (internals were made local)
#   options/static, options/shared  USLAB_OPTIONS reaches the option table
#                         (the "uslab_setup" section) in both kinds of library
#   preload/V             sort(1) with LD_PRELOAD=libuslab-malloc-V.so
#   cmake                 find_package(uslab) and every imported target
# Ends with "N passed, N failed", or with --totals FILE appends "N N" to FILE.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. tests/common/driver.sh
driver_column=install

driver_root_args "$@"

MAKE="${MAKE:-make}"
CC="${CC:-gcc}"
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL
tmp=$(mktemp -d "${TMPDIR:-/tmp}/uslab-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
dest="$tmp/dest"
lib="$dest/usr/lib"
src=tests/install

# The end: with --totals the counts go to FILE only, else the summary line.
install_end() {
	[ -n "$totals" ] || summary
	totals "$totals"
	finish
}

variants=()
for a in slub slab slob; do
	[ -f "$root/lib/libuslab-$a.so" ] && [ -f "src/mm/$a.c" ] && variants+=("$a")
done
if [ ${#variants[@]} -eq 0 ]; then
	fail build "no library under $root/lib to install (build first)"
	install_end
fi

check make-install "$MAKE" -s --no-print-directory BUILD="$root" ALLOCATORS="${variants[*]}" \
	DESTDIR="$dest" PREFIX=/usr install

layout() {
	local v so f slub_pc=""
	[[ " ${variants[*]} " == *" slub "* ]] && slub_pc=pkgconfig/uslab.pc
	for f in uslab.h flags.h gfp.h; do
		[ -f "$dest/usr/include/uslab/$f" ] || { echo "missing include/uslab/$f"; return 1; }
	done
	for v in "${variants[@]}"; do
		so="$lib/libuslab-$v.so"
		[ "$(readlink "$so")" = "libuslab-$v.so.0" ] || { echo "bad link $so"; return 1; }
		[ -f "$(readlink -f "$so")" ] || { echo "dangling $so"; return 1; }
		readelf -d "$so" | grep -q "SONAME.*\[libuslab-$v.so.0\]" || { echo "soname of $so"; return 1; }
		[ -f "$lib/libuslab-$v.a" ] || { echo "missing libuslab-$v.a"; return 1; }
		[ -f "$lib/pkgconfig/uslab-$v.pc" ] || { echo "missing uslab-$v.pc"; return 1; }
		if compgen -G 'src/malloc/*.c' >/dev/null && [ ! -f "$lib/libuslab-malloc-$v.so" ]; then
			echo "missing libuslab-malloc-$v.so"
			return 1
		fi
	done
	# uslab.pc is the default variant, SLUB, so it exists only with SLUB.
	for f in ${slub_pc} cmake/uslab/uslabConfig.cmake cmake/uslab/uslabConfigVersion.cmake; do
		[ -f "$lib/$f" ] || { echo "missing lib/$f"; return 1; }
	done
	if grep -rl "$dest" "$lib/pkgconfig" "$lib/cmake"; then
		echo "the DESTDIR path is written into the files above"
		return 1
	fi
}
check layout layout

export PKG_CONFIG_SYSROOT_DIR="$dest" PKG_CONFIG_LIBDIR="$lib/pkgconfig" PKG_CONFIG_PATH=""

# build_run OUT EXPECT BUILD-ARGS...: compile prog.c and run it expecting "ok EXPECT".
build_run() {
	local out="$1" want="$2"
	shift 2
	# shellcheck disable=SC2046 # pkg-config output is a list of flags
	"$CC" -std=gnu11 -Wall -Wextra -Werror -o "$out" "$@" || return 1
	LD_LIBRARY_PATH="$lib" "$out" "$want" | tee /dev/stderr | grep -qx "ok $want"
}

for pc in uslab "${variants[@]/#/uslab-}"; do
	want="${pc#uslab-}"
	[ "$pc" = uslab ] && want=slub
	[ "$pc" = uslab ] && [ ! -f "$lib/pkgconfig/uslab.pc" ] && continue
	# shellcheck disable=SC2046
	check "pkg-config/$pc" build_run "$tmp/prog-$pc" "$want" "$src/prog.c" \
		$(pkg-config --cflags --libs "$pc")
done

for v in "${variants[@]}"; do
	# shellcheck disable=SC2046
	check "static/$v" build_run "$tmp/prog-static-$v" "$v" "$src/prog.c" \
		$(pkg-config --cflags "uslab-$v") "$lib/libuslab-$v.a" -pthread -lurcu-bp
done

if [ -f "$lib/libuslab-slub.a" ]; then
	# shellcheck disable=SC2046
	check clash "$CC" -std=gnu11 -Wall -Werror -o "$tmp/clash" "$src/clash.c" \
		$(pkg-config --cflags uslab-slub) "$lib/libuslab-slub.a" -pthread -lurcu-bp
fi

# options BINARY ARG: an unknown option is reported by name, a known one is not.
options() {
	local err="$tmp/options.err"
	USLAB_OPTIONS="slab_nomerge uslab_install_test_bogus" LD_LIBRARY_PATH="$lib" \
		"$@" 2>"$err" >/dev/null
	cat "$err"
	grep -q uslab_install_test_bogus "$err" || { echo "the unknown option was not reported"; return 1; }
	if grep -q slab_nomerge "$err"; then
		echo "slab_nomerge was reported: the option table (section uslab_setup) is empty"
		return 1
	fi
}
[ -x "$tmp/clash" ] && check options/static options "$tmp/clash"
[ -x "$tmp/prog-uslab-slub" ] && check options/shared options "$tmp/prog-uslab-slub" slub

# preload LIBRARY: sort(1) with the malloc drop-in preloaded sorts like without it.
preload() {
	local in="$tmp/preload.in"
	seq 1 5000 | awk '{ printf "%08x line %d\n", ($1 * 2654435761) % 4294967296, $1 }' >"$in"
	cmp <(LC_ALL=C sort "$in") <(LC_ALL=C LD_PRELOAD="$1" sort "$in")
}
for v in "${variants[@]}"; do
	[ -f "$lib/libuslab-malloc-$v.so" ] && check "preload/$v" preload "$lib/libuslab-malloc-$v.so"
done

cmake_test() {
	local b="$tmp/cmake" v
	cmake -S "$src" -B "$b" -DCMAKE_C_COMPILER="$CC" -DCMAKE_PREFIX_PATH="$dest/usr" \
		-DUSLAB_VARIANTS="$(IFS=';'; echo "${variants[*]}")" || return 1
	cmake --build "$b" -j 2 || return 1
	for v in "${variants[@]}"; do
		"$b/prog-$v" "$v" && "$b/prog-$v-static" "$v" || return 1
	done
	"$b/prog-default" slub
}
unset PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_LIBDIR
if [ -f "$lib/libuslab-slub.so" ]; then
	check cmake cmake_test
fi

install_end
