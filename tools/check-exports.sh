#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# check-exports.sh - the libraries export exactly what they should.
#
# usage: tools/check-exports.sh [--nm NM] [--malloc-map MAP] FILE...
#
#   libuslab-ALLOC.so*       nm -D --defined-only: only uslab_* names
#   libuslab-ALLOC.a         nm -g --defined-only: only uslab_* names (the
#                            kernel-named internals were made local)
#   libuslab-malloc-ALLOC.so the names listed under "global:" in MAP, no
#                            more, no fewer (skipped without MAP)
# Prints one line per file and exits non-zero if any file is wrong.
set -uo pipefail

nm="nm"
map=""
while [ $# -gt 0 ]; do
	case "$1" in
	--nm) nm="$2"; shift 2 ;;
	--malloc-map) map="$2"; shift 2 ;;
	*) break ;;
	esac
done

bad=0

# Defined global symbol names of a shared object's dynamic table.
dyn_names() {
	"$nm" -D --defined-only "$1" | awk 'NF >= 3 { sub(/@.*/, "", $3); print $3 }' | sort -u
}

# Defined global symbol names of an archive.
archive_names() {
	"$nm" -g --defined-only "$1" | awk 'NF >= 3 { print $3 }' | sort -u
}

# The names a version script lists between "global:" and "local:".
map_names() {
	perl -0ne 's{/\*.*?\*/}{}gs; s{#[^\n]*}{}g;
		if (/global:(.*?)(?:local:|\})/s) { print "$_\n" for grep { length } split /[\s;]+/, $1 }' "$1" |
		sort -u
}

report() {
	local file="$1" what="$2" extra="$3"
	if [ -z "$extra" ]; then
		echo "PASS exports $file: $what"
	else
		echo "FAIL exports $file: $what; unexpected or missing:"
		echo "$extra" | head -n 50 | sed 's/^/    /'
		bad=1
	fi
}

for f in "$@"; do
	case "$(basename "$f")" in
	libuslab-malloc-*.so)
		if [ -z "$map" ]; then
			echo "SKIP exports $f: no src/malloc/malloc.map to compare with"
			continue
		fi
		diff_out=$(diff <(map_names "$map") <(dyn_names "$f") | grep '^[<>]')
		report "$f" "exactly the names in $map" "$diff_out"
		;;
	libuslab-*.so*)
		n=$(dyn_names "$f" | grep -c '^uslab_')
		report "$f" "$n symbols, all uslab_*" "$(dyn_names "$f" | grep -v '^uslab_')"
		[ "$n" -gt 0 ] || report "$f" "exports no uslab_ symbol at all" "(none)"
		;;
	libuslab-*.a)
		report "$f" "only uslab_* global" "$(archive_names "$f" | grep -v '^uslab_')"
		;;
	*)
		echo "check-exports.sh: do not know what $f should export" >&2
		bad=1
		;;
	esac
done
exit "$bad"
