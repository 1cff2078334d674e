#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# run.sh - the documentation test: the man pages in man/ render without a
# warning, say what the code does, and install where man looks for them.
#
# usage: tests/docs/run.sh [--build ROOT] [--totals FILE]
#
# Checks, one line each (PASS, FAIL or SKIP with the reason):
#   pages                uslab.3, uslab-options.7, uslabinfo.1 and uslabtop.1
#                        exist, and each one's .TH names its file
#   groff/PAGE           groff -man -ww -z PAGE prints nothing (every
#                        warning on; SKIP without groff)
#   man/PAGE             man --warnings -l PAGE prints nothing on stderr
#                        (SKIP without man)
#   options/documented   every option registered with __setup("...") in
#                        src/ has an entry in uslab-options(7)
#   options/registered   every entry of uslab-options(7) is a registered
#                        option (nothing stale)
#   tool/NAME            every long option that ROOT/bin/NAME --help lists
#                        is in NAME(1) (SKIP when NAME is not built)
#   install              make install (into a temporary DESTDIR) puts every
#                        page under share/man/manN (SKIP without libraries
#                        under ROOT)
# Ends with "docs: N passed, N failed, N skipped"; with --totals FILE it
# also appends "N N" (passed, failed) to FILE.  Exit status 0 iff no FAIL.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
. tests/common/driver.sh
driver_column=docs

driver_root_args "$@"

MAKE="${MAKE:-make}"
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL
tmp=$(mktemp -d "${TMPDIR:-/tmp}/uslab-docs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pages=(man/uslab.3 man/uslab-options.7 man/uslabinfo.1 man/uslabtop.1)

# A command that must print nothing at all (its warnings) and succeed.
silent() {
	local out
	out=$("$@" 2>&1 >/dev/null) || { echo "$out"; echo "(exit status $?)"; return 1; }
	[ -z "$out" ] || { echo "$out"; return 1; }
}

pages_exist() {
	local p name sect th
	for p in "${pages[@]}"; do
		[ -f "$p" ] || { echo "missing $p"; return 1; }
		name=$(basename "$p")
		sect=${name##*.}
		name=${name%.*}
		th=$(awk '$1 == ".TH" { print $2, $3; exit }' "$p")
		[ "$th" = "${name^^} $sect" ] || { echo "$p: .TH says '$th', not '${name^^} $sect'"; return 1; }
	done
}

# Names registered with __setup("name=", fn) or __setup("name", fn) in src/.
registered_options() {
	grep -rhoE '^[[:space:]]*__setup\("[^"]+"' src --include='*.c' |
		sed -E 's/.*__setup\("//; s/"$//' | sort -u
}

# Names of the entries of uslab-options(7): the first word of the .B or .BI
# line after each .TP.
documented_options() {
	awk 'prev == ".TP" && ($1 == ".B" || $1 == ".BI") {
		w = $2; gsub(/"/, "", w); gsub(/\\-/, "-", w); print w }
	{ prev = $1 }' man/uslab-options.7 | sort -u
}

options_documented() {
	local missing
	missing=$(comm -23 <(registered_options) <(documented_options))
	[ -z "$missing" ] || { echo "registered but not in man/uslab-options.7:"; echo "$missing"; return 1; }
	[ -n "$(registered_options)" ] || { echo "no __setup() found in src/"; return 1; }
}

options_registered() {
	local stale
	stale=$(comm -13 <(registered_options) <(documented_options))
	[ -z "$stale" ] || { echo "in man/uslab-options.7 but registered nowhere:"; echo "$stale"; return 1; }
}

# Every long option the tool's --help lists appears in its page (as \-\-name).
tool_documented() {
	local tool="$1" page="man/$1.1" opt missing=""
	for opt in $("$root/bin/$tool" --help 2>&1 | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
		grep -qF -- "${opt//-/\\-}" "$page" || missing+=" $opt"
	done
	[ -z "$missing" ] || { echo "$page lacks:$missing"; return 1; }
}

installed() {
	local dest="$tmp/dest" p name sect
	"$MAKE" -s --no-print-directory BUILD="$root" ALLOCATORS="${variants[*]}" DESTDIR="$dest" \
		PREFIX=/usr install >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; return 1; }
	for p in "${pages[@]}"; do
		name=$(basename "$p")
		sect=${name##*.}
		cmp -s "$p" "$dest/usr/share/man/man$sect/$name" ||
			{ echo "$p is not installed as usr/share/man/man$sect/$name"; return 1; }
	done
}

check pages pages_exist
for p in "${pages[@]}"; do
	[ -f "$p" ] || continue
	if command -v groff >/dev/null; then
		check "groff/$(basename "$p")" silent groff -man -ww -z "$p"
	else
		skip "groff/$(basename "$p")" "groff is not installed"
	fi
	if command -v man >/dev/null; then
		check "man/$(basename "$p")" silent env MANWIDTH=80 man --warnings -l "$p"
	else
		skip "man/$(basename "$p")" "man is not installed"
	fi
done
check options/documented options_documented
check options/registered options_registered
for t in uslabinfo uslabtop; do
	if [ -x "$root/bin/$t" ]; then
		check "tool/$t" tool_documented "$t"
	else
		skip "tool/$t" "$root/bin/$t is not built"
	fi
done
variants=()
for a in slub slab slob; do
	[ -f "$root/lib/libuslab-$a.so" ] && [ -f "src/mm/$a.c" ] && variants+=("$a")
done
if [ ${#variants[@]} -gt 0 ]; then
	check install installed
else
	skip install "no library under $root/lib (build first)"
fi

totals "$totals"
summary docs
